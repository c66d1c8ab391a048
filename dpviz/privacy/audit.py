"""Empirical privacy audit: a statistical lower bound on the ε a mechanism really has.

Run the mechanism many times on two neighbouring datasets ``D`` and ``D′``, pick a rejection
set ``S = {output ≥ τ}`` (or ``≤ τ``), and bound ``p = P[M(D) ∈ S]`` below and
``q = P[M(D′) ∈ S]`` above with Clopper–Pearson intervals. An (ε, δ)-DP mechanism has
``p ≤ e^ε q + δ``, so ``ε̂ = ln((p_lo − δ)/q_hi)`` is a lower bound on its ε with the stated
confidence (Jagielski et al. 2020; Nasr et al. 2021). The set is chosen on one half of the
draws and measured on the other, so the choice does not bias the bound.

White-box audit of the releases. :func:`recording` watches every Laplace and Gaussian
release the code under audit makes through :mod:`dpviz.privacy.mechanisms` (its pre-noise
value, declared sensitivity and noise scale, :class:`Recorded`), and can hand back another
run's outputs instead (replay): the neighbour's run then sees the very releases D's run saw,
so each of its pre-noise values is the one the composition theorem compares with D's. With
both sides' releases known, :func:`likelihood_ratio_sampler` draws the outputs again through
:func:`~dpviz.privacy.mechanisms.add_noise`, vectorised, and returns the log-likelihood
ratio of the known noise — the most powerful test between the two (Neyman–Pearson) — for
:func:`audit` to threshold; :func:`release_findings` checks the real change of every release
against its declared sensitivity.

Seeds are fixed: the same call gives the same answer, and a test that passes a correct
mechanism cannot fail by chance on a later run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.privacy.ledger import Release
from dpviz.privacy.mechanisms import OBSERVER, add_noise

Sampler = Callable[[Any, np.random.Generator, int], NDArray[np.float64]]


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval for a binomial proportion.

    Examples
    --------
    >>> lo, hi = clopper_pearson(50, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.3983, 0.6017)
    """
    lo, hi = clopper_pearson_bounds(successes, trials, confidence)
    return float(lo), float(hi)


def clopper_pearson_bounds(successes: ArrayLike, trials: int, confidence: float = 0.95
                           ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`clopper_pearson` for many success counts at once (the same ``trials``).

    Examples
    --------
    >>> lo, hi = clopper_pearson_bounds([0, 50, 100], 100)
    >>> lo.round(4).tolist(), hi.round(4).tolist()
    ([0.0, 0.3983, 0.9638], [0.0362, 0.6017, 1.0])
    """
    k = np.asarray(successes, dtype=float)
    alpha = 1 - confidence
    with np.errstate(invalid="ignore"):  # the ends np.where replaces
        from scipy.stats import beta  # here: importing scipy.stats costs a page's first run

        lo = np.where(k > 0, beta.ppf(alpha / 2, k, trials - k + 1), 0.0)
        hi = np.where(k < trials, beta.ppf(1 - alpha / 2, k + 1, trials - k), 1.0)
    return lo, hi


def _epsilon_bound(p: float, q: float, delta: float) -> float:
    if p - delta <= 0:
        return 0.0
    if q <= 0:
        return math.inf
    return max(0.0, math.log((p - delta) / q))


def attainable_lower_bound(fpr: NDArray[np.float64], tpr: NDArray[np.float64], *,
                           trials: int, delta: float = 0.0) -> float:
    """The bound a perfect :func:`audit` typically shows against a tight claim.

    If the mechanism were exactly as private as the trade-off curve ``(fpr, tpr)`` says (the
    best test between ``D`` and ``D′`` reaches each of its points) and the audit's statistic
    were that test, the measured half of the runs (``trials − trials // 2`` a side) hitting
    at the expected rates would give the best over the curve of ``ln((p_lo − δ)/q_hi)``.
    A correct estimator's bound is read against this, not against the claim: with few runs
    even a perfect audit stays far below a tight claim. It is a typical value, not a cap: a
    lucky sample can show more (at most the claim, but for the 5% the interval allows).

    Parameters
    ----------
    fpr, tpr : ndarray
        The claim's trade-off curve (e.g. :meth:`dpviz.privacy.risk.Risk.curve`).
    trials : int
        Runs on each dataset, as given to :func:`audit`.
    delta : float
        δ of the claim.

    Examples
    --------
    The pure ε = 1 curve, ``tpr = min(e·fpr, 1 − e^{-1}·(1 − fpr))``, audited with 1 000
    runs a side; a curve with no privacy at all gives the most 500 runs can show:

    >>> f = np.linspace(0, 1, 2001)
    >>> round(attainable_lower_bound(f, np.minimum(math.e * f, 1 - (1 - f) / math.e),
    ...                              trials=1_000), 2)
    0.8
    >>> round(attainable_lower_bound(np.array([0.0]), np.array([1.0]), trials=1_000), 2)
    4.91
    """
    m = trials - trials // 2
    hits_d = np.round(np.clip(np.asarray(tpr, dtype=float), 0, 1) * m)
    hits_n = np.round(np.clip(np.asarray(fpr, dtype=float), 0, 1) * m)
    # the set S and its complement (the test that rejects the other way)
    first = np.concatenate([hits_d, m - hits_n])
    second = np.concatenate([hits_n, m - hits_d])
    # the ends of the 95% Clopper–Pearson intervals that audit() reads
    p_lo = clopper_pearson_bounds(first, m)[0]
    q_hi = clopper_pearson_bounds(second, m)[1]
    return max((_epsilon_bound(float(a), float(b), delta) for a, b in zip(p_lo, q_hi,
                                                                            strict=True)),
               default=0.0)


@dataclass(frozen=True)
class AuditResult:
    """What an audit measured.

    Attributes
    ----------
    epsilon_lower : float
        ε̂ at the lower end of the 95% interval — the audit's claim "ε is at least this".
    epsilon_estimate : float
        ε̂ from the observed rates.
    epsilon_upper : float
        ε̂ at the upper end of the interval (``inf`` when the rejection set was never hit
        on ``D′``).
    claimed_epsilon, delta : float
        The guarantee audited.
    trials : int
        Runs on each dataset (half choose the set, half measure it).
    threshold : float
        τ of the rejection set; ``direction`` is ``">="`` or ``"<="``; ``swapped`` says
        whether ``D′`` played the part of ``D``.
    rate_d, rate_d_prime : tuple of float
        (lower, observed, upper) of ``P[M(D) ∈ S]`` and ``P[M(D′) ∈ S]``.
    """

    epsilon_lower: float
    epsilon_estimate: float
    epsilon_upper: float
    claimed_epsilon: float
    delta: float
    trials: int
    threshold: float
    direction: str
    swapped: bool
    rate_d: tuple[float, float, float]
    rate_d_prime: tuple[float, float, float]

    @property
    def passed(self) -> bool:
        """True when the measured lower bound does not exceed the claim."""
        return self.epsilon_lower <= self.claimed_epsilon * (1 + 1e-9)

    def verdict(self) -> str:
        """One sentence for the page."""
        if self.passed:
            return (f"consistent with the claim: measured ε ≥ {self.epsilon_lower:.3f} "
                    f"(95% confidence) does not exceed the claimed ε = "
                    f"{self.claimed_epsilon:g}")
        return (f"privacy violation: measured ε ≥ {self.epsilon_lower:.3f} with 95% "
                f"confidence, above the claimed ε = {self.claimed_epsilon:g}")


def audit(sampler: Sampler, dataset: Any, neighbour: Any, *, claimed_epsilon: float,
          delta: float = 0.0, trials: int = 200_000, seed: int = 0,
          candidates: int = 200) -> AuditResult:
    """Audit a mechanism on two neighbouring datasets.

    Parameters
    ----------
    sampler : callable
        ``sampler(data, rng, size)`` returns ``size`` scalar outputs of the mechanism on
        ``data`` (vectorised; wrap a one-run estimator with :func:`repeat`).
    dataset, neighbour : object
        Two neighbouring inputs (one row replaced), ideally the worst case of the
        sensitivity proof.
    claimed_epsilon, delta : float
        The guarantee to audit.
    trials : int
        Runs on each dataset.
    seed : int
        Fixes every draw.
    candidates : int
        Thresholds tried when choosing the rejection set.

    Returns
    -------
    AuditResult

    Examples
    --------
    A Laplace count with ε = 1 passes; the same with half the noise is caught:

    >>> def laplace_count(scale):
    ...     return lambda data, rng, size: data + rng.laplace(0.0, scale, size)
    >>> audit(laplace_count(1.0), 0.0, 1.0, claimed_epsilon=1.0, seed=1).passed
    True
    >>> audit(laplace_count(0.5), 0.0, 1.0, claimed_epsilon=1.0, seed=1).passed
    False
    """
    trials = limits.check_integer(limits.AUDIT_TRIALS, trials)
    limits.DELTA.check(delta)
    rng = np.random.default_rng(seed)
    out_d = np.asarray(sampler(dataset, rng, trials), dtype=float).ravel()
    out_n = np.asarray(sampler(neighbour, rng, trials), dtype=float).ravel()
    if out_d.size != trials or out_n.size != trials:
        raise ValueError("the audit's sampler must return one scalar output per run")
    half = trials // 2
    choose_d, test_d = np.sort(out_d[:half]), np.sort(out_d[half:])
    choose_n, test_n = np.sort(out_n[:half]), np.sort(out_n[half:])
    pooled = np.concatenate([choose_d, choose_n])
    taus = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, candidates)))

    # every (direction, swap, τ) scored at once; the first best wins, as in a loop over them
    best: tuple[float, float, str, bool] = (-1.0, 0.0, ">=", False)
    for direction in (">=", "<="):
        for swapped in (False, True):
            first, second = (choose_n, choose_d) if swapped else (choose_d, choose_n)
            lows = clopper_pearson_bounds(_hits(first, taus, direction), half)[0]
            highs = clopper_pearson_bounds(_hits(second, taus, direction), half)[1]
            scores = [_epsilon_bound(float(p), float(q), delta)
                      for p, q in zip(lows, highs, strict=True)]
            i = int(np.argmax(scores))
            if scores[i] > best[0]:
                best = (scores[i], float(taus[i]), direction, swapped)

    _, tau, direction, swapped = best
    first, second = (test_n, test_d) if swapped else (test_d, test_n)
    m = trials - half
    k1 = int(_hits(first, np.array([tau]), direction)[0])
    k2 = int(_hits(second, np.array([tau]), direction)[0])
    p_lo, p_hi = clopper_pearson(k1, m)
    q_lo, q_hi = clopper_pearson(k2, m)
    return AuditResult(
        epsilon_lower=_epsilon_bound(p_lo, q_hi, delta),
        epsilon_estimate=_epsilon_bound(k1 / m, k2 / m, delta),
        epsilon_upper=_epsilon_bound(p_hi, q_lo, delta),
        claimed_epsilon=float(claimed_epsilon), delta=float(delta), trials=trials,
        threshold=tau, direction=direction, swapped=swapped,
        rate_d=(p_lo, k1 / m, p_hi), rate_d_prime=(q_lo, k2 / m, q_hi))


def _hits(sorted_outputs: NDArray[np.float64], taus: NDArray[np.float64],
          direction: str) -> NDArray[np.int64]:
    if direction == ">=":
        return sorted_outputs.size - np.searchsorted(sorted_outputs, taus, side="left")
    return np.searchsorted(sorted_outputs, taus, side="right")


def repeat(run_once: Callable[[Any, np.random.Generator], float]) -> Sampler:
    """Adapt a one-run function ``run_once(data, rng) → float`` to the audit's sampler."""

    def sampler(data: Any, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        return np.array([run_once(data, rng) for _ in range(size)], dtype=float)

    return sampler


# --- white-box audit of the releases ------------------------------------------------------

#: The noise of each mechanism the recorder sees (its ledger row's ``mechanism``).
NOISE_OF = MappingProxyType({"laplace": "laplace", "gaussian": "gaussian",
                             "symmetric_gaussian": "gaussian"})
#: Outputs drawn per block by :func:`likelihood_ratio_sampler` (bounds its memory).
BLOCK = 50_000
#: Decimals the log-likelihood ratio is rounded to.
ROUNDING = 9


@dataclass(frozen=True)
class Recorded:
    """One Laplace or Gaussian release, as :func:`recording` saw it.

    Attributes
    ----------
    name, noise, norm : str
        The ledger's name, ``"laplace"`` or ``"gaussian"``, and the sensitivity's norm.
    sensitivity, scale : float
        As declared in the ledger (scale: Laplace ``b``, Gaussian ``σ``).
    value : ndarray
        The pre-noise value, whose change is measured in ``norm`` (a symmetric Gaussian's
        whole matrix: Frobenius).
    noised : ndarray
        The entries that received independent noise, flat (a symmetric matrix's upper
        triangle).
    output : ndarray
        What the mechanism returned (replayed into a neighbour's run).
    """

    name: str
    noise: str
    norm: str
    sensitivity: float
    scale: float
    value: NDArray[np.float64] = field(repr=False)
    noised: NDArray[np.float64] = field(repr=False)
    output: NDArray[np.float64] = field(repr=False)

    def change(self, other: Recorded) -> float:
        """How far this release's pre-noise value is from ``other``'s, in its own norm."""
        diff = np.ravel(self.noised - other.noised) if self.norm != "Frobenius" else \
            np.ravel(self.value - other.value)
        return float(np.abs(diff).sum() if self.norm == "L1" else np.linalg.norm(diff))


@dataclass
class Recorder:
    """The releases of one run, in order; with ``replay``, the outputs handed back instead."""

    replay: Sequence[Recorded] | None = None
    releases: list[Recorded] = field(default_factory=list)
    missed: int = 0

    @property
    def replayed(self) -> bool:
        """Whether every release handed back the replayed one (and there were as many)."""
        return self.replay is None or (not self.missed
                                       and len(self.releases) == len(self.replay))

    def __call__(self, row: Release, value: NDArray[np.float64], noised: NDArray[np.float64],
                 output: NDArray[np.float64]) -> NDArray[np.float64]:
        """Record one release (an :data:`~dpviz.privacy.mechanisms.Observer`); the output to use.

        Only the mechanisms of :data:`NOISE_OF` call an observer (``symmetric_laplace``
        records its row as ``"laplace"``).
        """
        i = len(self.releases)
        self.releases.append(Recorded(row.name, NOISE_OF[row.mechanism], row.norm,
                                      row.sensitivity, row.scale, value, noised,
                                      np.array(output, dtype=float)))
        if self.replay is None:
            return output
        if i >= len(self.replay) or np.shape(self.replay[i].output) != np.shape(output):
            self.missed += 1
            return output  # a different release: release_findings says so
        return np.array(self.replay[i].output)


@contextmanager
def recording(replay: Sequence[Recorded] | None = None) -> Iterator[Recorder]:
    """Record every Laplace and Gaussian release made inside the block (this context only).

    Parameters
    ----------
    replay : sequence of Recorded, optional
        Another run's releases: the i-th release made in the block returns the i-th one's
        output instead of its own noisy value (its noise is still drawn, so the generator
        stays in step).

    Examples
    --------
    >>> from dpviz.privacy import Ledger, laplace
    >>> with recording() as seen:
    ...     _ = laplace(0.3, sensitivity=1.0, scale=2.0, rng=np.random.default_rng(0),
    ...                 ledger=Ledger(), name="count")
    >>> [(r.name, r.scale, r.value.tolist()) for r in seen.releases]
    [('count', 2.0, 0.3)]
    >>> with recording(replay=seen.releases):
    ...     again = laplace(9.0, sensitivity=1.0, scale=2.0, rng=np.random.default_rng(5),
    ...                     ledger=Ledger(), name="count")
    >>> again == float(seen.releases[0].output)
    True
    """
    recorder = Recorder(replay)
    token = OBSERVER.set(recorder)
    try:
        yield recorder
    finally:
        OBSERVER.reset(token)


def release_findings(first: Sequence[Recorded], second: Sequence[Recorded]) -> tuple[str, ...]:
    """What is wrong with the releases of D (``first``) and D′ (``second``) without statistics.

    A correct estimator's neighbour run, replaying D's outputs, makes the same releases with
    the same declared sensitivity and noise, and each one's pre-noise value moves by at most
    its declared sensitivity. Each sentence names a release that does not.

    Examples
    --------
    >>> v = np.array([0.0])
    >>> a = Recorded("mean", "laplace", "L1", 0.1, 0.1, v, v, v)
    >>> b = Recorded("mean", "laplace", "L1", 0.1, 0.1, v + 1, v + 1, v)
    >>> release_findings([a], [b])
    ('the release "mean" moved by 1 between the two datasets; its noise is calibrated for a \
sensitivity of 0.1 (L1)',)
    """
    if not _comparable(first, second):
        return (f"the code makes different releases on the two datasets ({len(first)} and "
                f"{len(second)}, or of other kinds or shapes): which releases it makes depends "
                "on the data",)
    out = []
    for a, b in zip(first, second, strict=True):
        if (a.scale, a.sensitivity) != (b.scale, b.sensitivity):
            out.append(f'the release "{a.name}" is calibrated from the data: sensitivity '
                       f"{a.sensitivity:.3g} and noise {a.scale:.3g} on one dataset, "
                       f"{b.sensitivity:.3g} and {b.scale:.3g} on its neighbour")
        moved = a.change(b)
        if moved > min(a.sensitivity, b.sensitivity) * (1 + 1e-9) + 1e-12:
            out.append(f'the release "{a.name}" moved by {moved:.3g} between the two '
                       f"datasets; its noise is calibrated for a sensitivity of "
                       f"{min(a.sensitivity, b.sensitivity):.3g} ({a.norm})")
    return tuple(out)


def _comparable(first: Sequence[Recorded], second: Sequence[Recorded]) -> bool:
    """The same releases in the same order: kinds and shapes (values and scales may differ)."""
    return len(first) == len(second) and all(
        a.noise == b.noise and a.noised.shape == b.noised.shape
        for a, b in zip(first, second, strict=True))


def _differing(first: Sequence[Recorded], second: Sequence[Recorded]
               ) -> list[tuple[Recorded, Recorded]]:
    return [(a, b) for a, b in zip(first, second, strict=True)
            if a.scale != b.scale or not np.array_equal(a.noised, b.noised)]


def _log_ratio(y: NDArray[np.float64], a: Recorded, b: Recorded) -> NDArray[np.float64]:
    """``log p_a(y) − log p_b(y)`` of each row of ``y`` (one release, its known noise)."""
    m = y.shape[1]
    if a.noise == "laplace":
        return np.asarray(np.abs(y - b.noised).sum(axis=1) / b.scale
                          - np.abs(y - a.noised).sum(axis=1) / a.scale
                          + m * math.log(b.scale / a.scale))
    if a.scale == b.scale:  # the Gaussian's ratio is linear in y: one product
        return np.asarray((y - (a.noised + b.noised) / 2) @ ((a.noised - b.noised) / a.scale**2))
    return np.asarray((((y - b.noised) / b.scale) ** 2).sum(axis=1) / 2
                      - (((y - a.noised) / a.scale) ** 2).sum(axis=1) / 2
                      + m * math.log(b.scale / a.scale))


def divergence(first: Sequence[Recorded], second: Sequence[Recorded]) -> float:
    """The Kullback–Leibler divergence of D's releases from D′'s (∞ when a scale differs).

    What the white-box audit maximises when it chooses the worst pair among candidates:
    ``‖Δ‖²/(2σ²)`` per Gaussian release, ``Σ |Δᵢ|/b + e^{−|Δᵢ|/b} − 1`` per Laplace one.

    Examples
    --------
    >>> v = np.zeros(1)
    >>> a = Recorded("m", "gaussian", "L2", 1.0, 2.0, v, v, v)
    >>> divergence([a], [Recorded("m", "gaussian", "L2", 1.0, 2.0, v + 1, v + 1, v)])
    0.125
    """
    total = 0.0
    for a, b in _differing(first, second):
        if a.scale != b.scale or a.scale == 0:
            return math.inf
        t = np.abs(a.noised - b.noised) / a.scale
        total += float((t * t).sum() / 2 if a.noise == "gaussian" else
                       (t + np.exp(-t) - 1).sum())
    return total


def likelihood_ratio_sampler(first: Sequence[Recorded],
                             second: Sequence[Recorded]) -> Sampler:
    """A sampler for :func:`audit`: the log-likelihood ratio of fresh outputs of the releases.

    ``sampler(side, rng, size)`` (``side`` 0 for D, 1 for D′) draws ``size`` outputs of every
    release whose pre-noise value or noise differs between the two — each through
    :func:`~dpviz.privacy.mechanisms.add_noise` at that side's recorded value and scale — and
    returns ``log p_D(y) − log p_D′(y)`` of the known noise, summed over the releases (equal
    releases, and equal entries of a release at one scale, add 0 and are not drawn). Use a
    seeded generator: numpy's draws, vectorised.

    The Gaussian releases with one scale on both sides are drawn together as one number: their
    ratio is linear in the output, ``(y − (a + b)/2)·(a − b)/σ²``, so for ``y ~ N(a, σ²I)`` it
    is exactly ``N(‖a − b‖²/(2σ²), ‖a − b‖²/σ²)`` (``−`` the mean on D′), and a sum of
    independent ones is ``N(±μ²/2, μ²)`` with ``μ² = Σ ‖aᵢ − bᵢ‖²/σᵢ²`` — the same
    distribution as drawing every entry, at one draw per output instead of one per entry
    (DP-EM's 80 releases: 4 s → 0.1 s for 10⁶ draws a side).

    Raises
    ------
    ValueError
        When the two sides' releases differ in number, kind or shape, or one has no noise.
    """
    if not _comparable(first, second):
        raise ValueError("the two datasets' releases differ in number, kind or shape: no "
                         "likelihood ratio compares them")
    pairs = _differing(first, second)
    if any(a.scale == 0 or b.scale == 0 for a, b in pairs):
        raise ValueError("a release without noise differs between the two datasets: its "
                         "likelihood ratio is infinite")
    # μ² of the linear ratios; the other releases drawn entry by entry (at one scale, only
    # the entries that differ: an equal entry's Laplace or Gaussian ratio is 0)
    linear = [a.noise == "gaussian" and a.scale == b.scale for a, b in pairs]
    mu2 = math.fsum(float(((a.noised - b.noised) ** 2).sum()) / a.scale**2
                    for (a, b), lin in zip(pairs, linear, strict=True) if lin)
    drawn_apart = [_entries_that_differ(a, b)
                   for (a, b), lin in zip(pairs, linear, strict=True) if not lin]

    def sampler(side: Any, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        out = np.zeros(size)
        for start in range(0, size, BLOCK):
            rows = min(BLOCK, size - start)
            if mu2 > 0:
                centre = mu2 / 2 if side == 0 else -mu2 / 2
                out[start:start + rows] += add_noise("gaussian", np.full(rows, centre),
                                                     math.sqrt(mu2), rng)
            for a, b in drawn_apart:
                drawn = a if side == 0 else b
                y = add_noise(drawn.noise, np.broadcast_to(drawn.noised,
                                                           (rows, drawn.noised.size)),
                              drawn.scale, rng)
                out[start:start + rows] += _log_ratio(y, a, b)
        # rounded: the ratio's last bits depend on the output's size, a difference between
        # the two sides that a threshold could exploit (as Mironov's attack exploits floats)
        return np.round(out, ROUNDING)

    return sampler


def _entries_that_differ(a: Recorded, b: Recorded) -> tuple[Recorded, Recorded]:
    """``a`` and ``b`` cut to the entries whose ratio is not 0 (all of them when scales differ)."""
    if a.scale != b.scale:
        return a, b
    keep = a.noised != b.noised
    return (replace(a, noised=a.noised[keep]), replace(b, noised=b.noised[keep]))
