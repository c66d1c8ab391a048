"""Intervals on private estimates, from the released values and the recorded noise alone.

An interval here is post-processing: it reads a result's released values, the noise scales
its ledger records and the run's public inputs (n, the bound, the budget, the estimator's
parameters), never the data, so it charges nothing (Dwork & Roth 2014, Proposition 2.1).
Intervals are stated at :data:`LEVEL` (90 %) and shown only where ``bench/intervals.py``
measured their coverage at ≥ :data:`THRESHOLD` over ≥ 500 simulated releases
(:data:`COVERAGE_PATH`); elsewhere the answer is :data:`NO_INTERVAL`.

Four kinds:

* **closed form, value + noise** (the ``mean`` task's Laplace and Gaussian means, CoinPress's
  last step; GaussCov's and LapCov's matrix entries, :func:`entry_intervals`): the release
  is ``θ + Z`` with Z's law known from the ledger, so ``θ̃ ± q·scale`` covers θ with
  probability exactly the level — q = Φ⁻¹(0.95) for a Gaussian, ln 10 for a Laplace
  (``P(|Z| ≤ t) = 1 − e^{−t/b}``). θ is the **clipped** rows' mean (or second moment): the
  interval says nothing of the clipping bias (Karwa & Vadhan 2018, §1, on why a private
  interval for the population needs more than the noise).
* **Weyl bound** (GaussCov's eigenvalues, Amin, Dick, Kulesza, Muñoz Medina & Vassilvitskii
  2019, Algorithm 1): the noise is σ·E with E symmetric Gaussian, and the released spectrum is
  the noisy one clamped to [0, r²]; by Weyl's inequality and since the clamp is 1-Lipschitz
  and the target's eigenvalues lie in [0, r²], every ``|λ̃ᵢ − λᵢ| ≤ σ‖E‖₂``. The half-width is
  σ times the 90 % quantile of ‖E‖₂ (simulated from E's public law), so the intervals hold
  **together** with probability ≥ 90 % — for the clipped rows' second moment XᵀX/n.
* **parametric bootstrap** (DP-EM's mixture means and weights; Efron & Tibshirani 1993,
  §6.5; Ferrando, Wang & Sheldon 2022, "Parametric bootstrap for differentially private
  confidence intervals", AISTATS, Algorithm 1): :data:`DRAWS` data sets of the public n are
  drawn from the *released* mixture and the estimator is re-run on each at the same budget,
  bound and parameters; the interval is ``θ̃ ± t_{B−1}(0.95)·sd*`` per coordinate and the
  ellipse ``{x : (x − μ̃)ᵀ C*⁻¹ (x − μ̃) ≤ T²₂,B−1(0.9)}`` with sd*, C* the spread of the B
  re-runs' estimates (components matched to the released ones). sd* and C* are estimated from
  B draws, so the quantiles are Student's t and Hotelling's T² with B − 1 degrees of freedom
  rather than the normal's and χ²₂'s (:func:`bootstrap_quantiles`), which is what lets 15
  re-runs do the work of 30; an approximation (the re-runs' spread is the one at θ̃, not at
  θ), whose coverage the bench measures. It covers the **true** component means
  and weights where the bench measured it (generated mixtures), and says nothing of runs that
  found the wrong clusters beyond what its measured coverage includes.
* **closed form, noise and sampling** (DP-EM again, :func:`mixture_spread`): the last
  M-step's recorded noise plus the sampling spread ``Σ̃ₖ/(nπ̃ₖ)`` of a component's mean and
  ``π̃(1 − π̃)/n`` of a weight — no re-runs. It leaves out the earlier iterations' noise, which
  reaches the last through its E-step, and runs that found the wrong clusters, so it is
  shown only where the bench measured it ≥ :data:`THRESHOLD`; elsewhere the bootstrap, where
  that was.

Where neither holds, or nothing was measured (the other mixture estimators, SeparateCov's and
AdaptiveCov's entries, the stochastic block model's error rate), :func:`intervals` says why in
plain words.
"""

from __future__ import annotations

import functools
import json
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpviz.estimators.registry import estimator as registered
from dpviz.estimators.result import Result, to_json_value
from dpviz.lab.provenance import RESULTS
from dpviz.lab.scenario import Scenario

#: The level every interval is stated at.
LEVEL = 0.9
#: Φ⁻¹(0.95): a Gaussian's two-sided 90 % quantile (the standard library's, not scipy.stats:
#: a page that shows a closed form does not pay scipy.stats's second of import).
Z = statistics.NormalDist().inv_cdf(0.5 + LEVEL / 2)
#: χ²₂'s 90 % quantile, −2 ln(1 − 0.9) (two degrees of freedom: an exponential of mean 2).
CHI2_2 = -2 * math.log(1 - LEVEL)
#: The measured coverage below which no interval is shown (issue 32: ≥ 88 % for 90 %).
THRESHOLD = 0.88
#: The sentence shown instead of an interval where coverage was not measured high enough.
NO_INTERVAL = "no interval: coverage not established"
#: The coverage table ``bench/intervals.py --save`` writes.
COVERAGE_PATH = RESULTS / "interval_coverage.json"
#: Bootstrap re-runs per interval: at the /gmm defaults (n = 10 000) about 0.06 s of the
#: 0.11 s an ε move costs the server (30 cost half the move; the t and T² quantiles of
#: :func:`bootstrap_quantiles` pay for the fewer draws).
DRAWS = 15
#: The bootstrap's own noise: public, fixed, so the same release gives the same interval.
BOOTSTRAP_SEED = 20_261_130
#: Draws of the symmetric Gaussian noise's spectral norm for its quantile (the Weyl bound),
#: up to d = 10; fewer above (each costs d³), never under :data:`MIN_NORM_DRAWS`: ‖E‖₂
#: concentrates as d grows (its spread shrinks like d^(−1/6) against its 2√d), so a few
#: hundred draws place the quantile within a fraction of a per cent.
NORM_DRAWS = 4_000
MIN_NORM_DRAWS = 300
#: The largest d whose norm quantile is simulated (about 0.6 s there, on one core); above, no
#: interval on the eigenvalues.
MAX_WEYL_D = 100
#: The ledger's names of Gaussian noise (anything else it records is Laplace's).
GAUSSIAN = frozenset({"gaussian", "symmetric_gaussian"})
#: The budget keys of a scenario's params (everything else is the estimator's own).
BUDGET_KEYS = frozenset({"epsilon", "delta", "rho", "accounting", "seed", "radius",
                         "paper_mode"})
#: The generated mixture's keys that define a measured family (with the estimator, accounting
#: and δ); n and ε are measured on a grid.
FAMILY_KEYS = ("k", "d", "separation", "weights", "covariance")

#: What each kind of interval covers, and what not, in plain words.
COVERS = {
    "closed form": ("the mean of the rows as the estimator saw them (clipped to the public "
                    "bound) — not the bias clipping adds, and not the population's mean"),
    "weyl": ("every eigenvalue of the clipped rows' second moment XᵀX/n, together — not the "
             "bias clipping adds"),
    "bootstrap": ("the true component means and weights, as measured on generated mixtures "
                  "of this shape — not the bias of a bound that clips, and a run that found "
                  "the wrong clusters can miss"),
    "entries": ("each entry of the clipped rows' second moment XᵀX/n, one at a time — not "
                "the bias clipping adds"),
}
COVERS["noise and sampling"] = COVERS["bootstrap"]


@dataclass(frozen=True)
class Interval:
    """One released value and its interval ``value ± half_width`` at :data:`LEVEL`.

    Examples
    --------
    >>> Interval("means[1][1]", 5.3128, 0.4172).text()
    '5.31 ± 0.42 (90 %)'
    """

    name: str
    value: float
    half_width: float

    def text(self) -> str:
        """``"5.31 ± 0.42 (90 %)"``: the value to the half-width's precision (2 figures)."""
        decimals = max(0, 1 - math.floor(math.log10(self.half_width))) if (
            self.half_width > 0 and math.isfinite(self.half_width)) else 3
        return f"{self.value:.{decimals}f} ± {self.half_width:.{decimals}f} ({percent(LEVEL)})"

    def to_dict(self) -> dict[str, Any]:
        """JSON form: name, value, low, high, half width."""
        return {"name": self.name, "value": self.value, "half_width": self.half_width,
                "low": self.value - self.half_width, "high": self.value + self.half_width}


@dataclass(frozen=True)
class Intervals:
    """A result's intervals, or why it has none.

    Attributes
    ----------
    method : str or None
        ``"closed form"``, ``"entries"``, ``"weyl"``, ``"noise and sampling"`` or
        ``"bootstrap"``; ``None`` when none is shown.
    rows : tuple of Interval
        One per released coordinate that has an interval.
    reason : str or None
        :data:`NO_INTERVAL` and why (``None`` when intervals are shown).
    coverage : float or None
        The lowest coverage measured over the settings this run lies in.
    ellipses : mapping
        For 2-D intervals of means, where their joint coverage (part ``ellipse``) was measured
        ≥ :data:`THRESHOLD`: ``"centres"`` (k × d) and ``"shapes"`` (k × d × d); the region is
        ``{x : (x − c)ᵀ S⁻¹ (x − c) ≤ 1}`` on the first two coordinates' sub-matrix.
    """

    method: str | None
    rows: tuple[Interval, ...] = ()
    reason: str | None = None
    coverage: float | None = None
    ellipses: Mapping[str, Any] = field(default_factory=dict)

    @property
    def shown(self) -> bool:
        """Whether there are intervals to show."""
        return self.method is not None and bool(self.rows)

    def sentence(self) -> str:
        """What the intervals cover and what not, in one plain sentence (or the reason)."""
        if not self.shown:
            return str(self.reason)
        measured = (f" (measured: at least {percent(self.coverage)} of simulated releases "
                    "covered)" if self.coverage is not None else "")
        return (f"Each ± is a {percent(LEVEL)} interval computed from the released values and "
                f"the known noise alone, so it costs no privacy{measured}. It covers "
                f"{COVERS[str(self.method)]}.")

    def by_name(self) -> dict[str, Interval]:
        """The intervals under their names."""
        return {row.name: row for row in self.rows}

    def to_dict(self) -> dict[str, Any]:
        """The run JSON's ``intervals``."""
        return to_json_value({"level": LEVEL, "method": self.method,
                              "shown": self.shown, "sentence": self.sentence(),
                              "coverage": self.coverage,
                              "values": [row.to_dict() for row in self.rows],
                              **({"ellipses": dict(self.ellipses)} if self.ellipses else {})})


def percent(share: float) -> str:
    """``0.9`` → ``"90 %"``.

    Examples
    --------
    >>> percent(0.9), percent(0.885)
    ('90 %', '88.5 %')
    """
    return f"{100 * share:.3g} %"


def none(why: str) -> Intervals:
    """No interval, with :data:`NO_INTERVAL` and ``why``."""
    return Intervals(None, reason=f"{NO_INTERVAL} ({why})")


# --- the coverage table -------------------------------------------------------------------

@functools.cache
def _table(path: Path) -> tuple[Mapping[str, Any], ...]:
    if not path.exists():
        return ()
    return tuple(json.loads(path.read_text()).get("rows", ()))


def coverage_rows(path: Path | None = None) -> tuple[Mapping[str, Any], ...]:
    """The measured settings (default: :data:`COVERAGE_PATH`'s).

    Each has ``task``, ``estimator``, ``family``, ``n``, ``epsilon``, ``releases`` and
    ``coverage`` (by part: ``mean``, ``ellipse``, ``eigenvalues``, ``means``, ``weights``).
    """
    return _table(COVERAGE_PATH if path is None else path)


def _lowest(rows: Sequence[Mapping[str, Any]], part: str) -> float | None:
    values = [float(r["coverage"][part]) for r in rows if part in r["coverage"]]
    return min(values) if values else None


def _bracket(grid: Sequence[float], value: float) -> tuple[float, ...] | None:
    """The measured grid values on either side of ``value`` (one if it is on the grid)."""
    points = sorted(set(grid))
    if not points or not points[0] <= value <= points[-1]:
        return None
    on = [p for p in points if math.isclose(p, value, rel_tol=1e-9)]
    if on:
        return (on[0],)
    return (max(p for p in points if p < value), min(p for p in points if p > value))


def measured(task: str, estimator: str, part: str, *, family: Mapping[str, Any] | None = None,
             n: int | None = None, epsilon: float | None = None,
             rows: Sequence[Mapping[str, Any]] | None = None,
             method: str | None = None) -> float | None:
    """The coverage measured for this setting: the lowest over the settings it lies between.

    Without ``family`` (closed forms, whose coverage depends on the noise alone) every
    measured setting of the estimator counts. With one, the run's (n, ε) must lie inside the
    grid measured for that family, and the lowest coverage of the grid points around it is
    returned. ``method`` keeps the rows of that kind of interval only (a mixture's are
    measured for each). ``None``: not measured.

    Examples
    --------
    >>> rows = [{"task": "mean", "estimator": "gaussian", "n": 100, "epsilon": 1.0,
    ...          "coverage": {"mean": 0.9}, "family": {}},
    ...         {"task": "mean", "estimator": "gaussian", "n": 10000, "epsilon": 4.0,
    ...          "coverage": {"mean": 0.87}, "family": {}}]
    >>> measured("mean", "gaussian", "mean", rows=rows)
    0.87
    >>> measured("mean", "laplace", "mean", rows=rows) is None
    True
    """
    rows = coverage_rows() if rows is None else rows
    mine = [r for r in rows if r["task"] == task and r["estimator"] == estimator
            and (method is None or r.get("method") == method)]
    if family is None:
        return _lowest(mine, part)
    mine = [r for r in mine if r.get("family") == dict(family)]
    if n is None or epsilon is None or not mine:
        return None
    ns = _bracket([float(r["n"]) for r in mine], float(n))
    eps = _bracket([float(r["epsilon"]) for r in mine], float(epsilon))
    if ns is None or eps is None:
        return None
    corners = [r for r in mine if any(math.isclose(r["n"], a) for a in ns)
               and any(math.isclose(r["epsilon"], e) for e in eps)]
    if len(corners) < len(ns) * len(eps):
        return None
    return _lowest(corners, part)


# --- the three kinds ----------------------------------------------------------------------

def _label(result: Result) -> str:
    """The estimator's label in plain words (never its registry key), without variants.

    The reasons sit in brackets themselves, so a label's bracketed variant names are left out.

    Examples
    --------
    >>> from dpviz import run
    >>> _label(run("covariance", "separate", np.eye(3) * 0.5, rho=0.1, seed=0))
    'SeparateCov'
    """
    return str(registered(result.task, result.estimator).label).split(" (")[0]


def _last_release(result: Result) -> Any:
    return result.ledger.releases[-1]


def noise_quantile(mechanism: str) -> float:
    """The half-width, in recorded scales, that one noise draw stays within at :data:`LEVEL`.

    Φ⁻¹(0.95) for a Gaussian, ln 10 for a Laplace (``P(|Z| ≤ t) = 1 − e^{−t/b}``).

    Examples
    --------
    >>> round(noise_quantile("gaussian"), 4), round(noise_quantile("laplace"), 4)
    (1.6449, 2.3026)
    """
    return Z if mechanism in GAUSSIAN else math.log(1 / (1 - LEVEL))


def noise_sd(mechanism: str, scale: float) -> float:
    """The standard deviation of one draw of the noise of this scale (a Laplace's is b√2)."""
    return scale if mechanism in GAUSSIAN else math.sqrt(2.0) * scale


def mean_intervals(result: Result, rows: Sequence[Mapping[str, Any]] | None = None
                   ) -> Intervals:
    """Closed-form intervals on a ``mean`` result: ``released ± q·scale`` per coordinate.

    The last release is the mean plus noise of the recorded scale (for CoinPress in units of
    ``choices["scale"]``); the ellipse (Gaussian noise) is the disc of radius
    ``σ·√χ²₂(0.9)``.

    Examples
    --------
    >>> from dpviz import run
    >>> r = run("mean", "gaussian", [[0.1, 0.2], [0.3, 0.4]], epsilon=1.0, delta=1e-5, seed=0)
    >>> rows = [{"task": "mean", "estimator": "gaussian", "coverage": {"mean": 0.9}}]
    >>> iv = mean_intervals(r, rows)
    >>> sigma = r.ledger.releases[-1].scale
    >>> round(iv.rows[0].half_width / sigma, 4)
    1.6449
    """
    coverage = measured("mean", result.estimator, "mean", rows=rows)
    if coverage is None or coverage < THRESHOLD:
        return none(f"{_label(result)}: measured coverage "
                    f"{'none' if coverage is None else percent(coverage)}")
    last = _last_release(result)
    scale = float(last.scale) * float(result.choices.get("scale", 1.0))
    gaussian = last.mechanism in GAUSSIAN
    q = noise_quantile(last.mechanism)
    mean = np.atleast_1d(np.asarray(result.estimate["mean"], dtype=float))
    out = tuple(Interval(f"mean[{i + 1}]", float(v), q * scale) for i, v in enumerate(mean))
    ellipses = {}
    ellipse = measured("mean", result.estimator, "ellipse", rows=rows)
    if gaussian and mean.size >= 2 and ellipse is not None and ellipse >= THRESHOLD:
        radius2 = CHI2_2 * scale**2
        ellipses = {"centres": mean[None], "shapes": radius2 * np.eye(mean.size)[None]}
    return Intervals("closed form", out, coverage=coverage, ellipses=ellipses)


@functools.cache
def spectral_quantile(d: int, level: float = LEVEL) -> float:
    """The ``level`` quantile of ‖E‖₂, GaussCov's symmetric noise at σ = 1.

    E has i.i.d. N(0, 1) entries on and above the diagonal, mirrored below; the quantile is
    read off :data:`NORM_DRAWS` draws with a fixed seed (fewer above d = 10, at least
    :data:`MIN_NORM_DRAWS`), drawn in blocks so memory stays under 10 MB.

    Examples
    --------
    >>> 1.0 < spectral_quantile(1) < 1.8  # |N(0, 1)|'s 90 % quantile is 1.645
    True
    """
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = max(MIN_NORM_DRAWS, min(NORM_DRAWS, NORM_DRAWS * 10**3 // d**3))
    block = max(1, min(draws, 10**6 // d**2))
    norms = []
    for start in range(0, draws, block):
        upper = np.triu(rng.standard_normal((min(block, draws - start), d, d)))
        e = upper + np.transpose(np.triu(upper, 1), (0, 2, 1))
        norms.append(np.abs(np.linalg.eigvalsh(e)).max(axis=1))
    return float(np.quantile(np.concatenate(norms), level))


def eigenvalue_intervals(result: Result, rows: Sequence[Mapping[str, Any]] | None = None
                         ) -> Intervals:
    """Weyl-bound intervals on GaussCov's eigenvalues (see the module docstring).

    Examples
    --------
    >>> from dpviz import run
    >>> x = np.random.default_rng(0).normal(size=(500, 3)) * 0.3
    >>> r = run("covariance", "gauss", x, rho=0.5, seed=0)
    >>> rows = [{"task": "covariance", "estimator": "gauss", "coverage": {"eigenvalues": 0.95}}]
    >>> iv = eigenvalue_intervals(r, rows)
    >>> len(iv.rows), iv.method
    (3, 'weyl')
    """
    last = _last_release(result)
    if last.mechanism != "symmetric_gaussian":
        return none("the eigenvalues' bound needs Gaussian noise (zCDP); LapCov's is not "
                    "measured")
    coverage = measured("covariance", result.estimator, "eigenvalues", rows=rows)
    if coverage is None or coverage < THRESHOLD:
        return none(f"{_label(result)}'s eigenvalues: measured coverage "
                    f"{'none' if coverage is None else percent(coverage)}")
    covariance = np.asarray(result.estimate["covariance"], dtype=float)
    if covariance.shape[0] > MAX_WEYL_D:
        return none(f"the noise's norm is simulated only up to d = {MAX_WEYL_D}")
    values = np.linalg.eigvalsh(covariance)[::-1]
    half = float(last.scale) * spectral_quantile(covariance.shape[0])
    return Intervals("weyl", tuple(Interval(f"eigenvalues[{i + 1}]", float(v), half)
                                   for i, v in enumerate(values)), coverage=coverage)


#: Why a covariance estimator's entries have no interval, in plain words.
NO_ENTRY_INTERVAL = {
    "separate": ("its eigenvectors and its eigenvalues each carry noise of their own; a "
                 "bootstrap of that noise around the released matrix held its 90 % at some "
                 "sizes and not at others"),
    "adaptive": ("it clips the rows at a radius it chooses privately from the data, and the "
                 "bias of that clipping is not in the noise"),
    "emcov": ("its eigenvectors are drawn by an exponential mechanism, whose spread around "
              "the truth has no closed form"),
    "coinpress": ("each step's noise is rescaled by the previous steps' private estimates; "
                  "no interval on an entry was measured"),
    "zero": "it releases nothing",
}


def entry_intervals(result: Result, rows: Sequence[Mapping[str, Any]] | None = None
                    ) -> Intervals:
    """Closed-form intervals on each entry of GaussCov's (LapCov's) released matrix.

    GaussCov releases ``Σ + σE`` (Dong, Liang & Yi 2022, Algorithm 1), E with i.i.d. N(0, 1)
    entries on and above the diagonal, mirrored (LapCov: i.i.d. Lap(b)); each entry
    ``i ≤ j`` is then its target plus one noise draw, and ``Σ̃ᵢⱼ ± q·scale`` (q of
    :func:`noise_quantile`) covers it with probability the level — one entry at a time, not
    all together. The clamp of the eigenvalues to ``[0, r²]`` moves the released entries a
    little; the bench measures that. The target is the clipped rows' ``XᵀX/n``.

    Examples
    --------
    >>> from dpviz import run
    >>> x = np.random.default_rng(0).normal(size=(500, 3)) * 0.3
    >>> r = run("covariance", "gauss", x, rho=0.5, seed=0)
    >>> rows = [{"task": "covariance", "estimator": "gauss", "coverage": {"entries": 0.9}}]
    >>> iv = entry_intervals(r, rows)
    >>> len(iv.rows), iv.rows[1].name, round(iv.rows[1].half_width / r.ledger.releases[-1].scale, 4)
    (6, 'covariance[1][2]', 1.6449)
    """
    if result.estimator != "gauss":
        why = NO_ENTRY_INTERVAL.get(result.estimator, "no interval on an entry was measured")
        return none(f"{_label(result)}'s entries: {why}")
    last = _last_release(result)
    gaussian = last.mechanism in GAUSSIAN
    part = "entries" if gaussian else "entries, pure"
    coverage = measured("covariance", result.estimator, part, rows=rows)
    if coverage is None or coverage < THRESHOLD:
        return none(f"{_label(result)}'s entries: measured coverage "
                    f"{'none' if coverage is None else percent(coverage)}")
    covariance = np.asarray(result.estimate["covariance"], dtype=float)
    half = noise_quantile(last.mechanism) * float(last.scale)
    upper = zip(*np.triu_indices(covariance.shape[0]), strict=True)
    return Intervals("entries", tuple(
        Interval(f"covariance[{i + 1}][{j + 1}]", float(covariance[i, j]), half)
        for i, j in upper), coverage=coverage)


def family_of(scenario: Scenario) -> dict[str, Any] | None:
    """The measured family a mixture scenario belongs to, or ``None``.

    ``None``: not a generated mixture, a bound or ρ given, or an estimator parameter moved
    from its default. The family is the generator's shape (:data:`FAMILY_KEYS`) with the
    accounting and δ: the bootstrap's coverage depends on how separated the clusters are, so
    it is measured per shape, not assumed.
    """
    from dpviz.estimators.registry import estimator as lookup

    data = scenario.data
    if data.get("generator") != "gmm":
        return None
    entry = lookup(scenario.task, scenario.estimator)
    defaults = {p.name: p.default for p in entry.params}
    own = {k: v for k, v in scenario.params.items() if k not in BUDGET_KEYS and k != "k"}
    if any(name in defaults and value != defaults[name] for name, value in own.items()):
        return None
    if scenario.params.get("radius") is not None or scenario.params.get("rho") is not None:
        return None
    return {**{key: data[key] for key in FAMILY_KEYS},
            "accounting": scenario.params.get("accounting") or "zcdp",
            "delta": float(scenario.params.get("delta") or 0.0)}


def _draw_mixture(weights: NDArray[np.float64], means: NDArray[np.float64],
                  covariances: NDArray[np.float64], n: int,
                  rng: np.random.Generator) -> NDArray[np.float64]:
    """Draw n rows of the mixture, component by component.

    One product per component, not a d × d root per row: the rows' order does not matter to
    the estimators re-run on them.
    """
    counts = rng.multinomial(n, weights / weights.sum())
    d = means.shape[1]
    roots = np.linalg.cholesky(covariances + 1e-12 * np.eye(d))
    return np.concatenate([mean + rng.standard_normal((count, d)) @ root.T
                           for mean, root, count in zip(means, roots, counts, strict=True)])


def match_to(reference: NDArray[np.float64], means: NDArray[np.float64]) -> NDArray[np.intp]:
    """The order of ``means``'s components that puts each beside ``reference``'s.

    The Hungarian algorithm on squared distances (Kuhn 1955).
    """
    from scipy.optimize import linear_sum_assignment  # here: only the bootstrap pays for it

    rows, cols = linear_sum_assignment(((reference[:, None] - means[None]) ** 2).sum(axis=-1))
    order = np.empty(len(reference), dtype=np.intp)
    order[rows] = cols
    return order


def bootstrap_replicates(scenario: Scenario, result: Result, n: int,
                         draws: int = DRAWS) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The estimator re-run on ``draws`` data sets of n rows from the released mixture.

    Same budget, public bound (``choices["radius"]``) and parameters; components matched to
    the released ones. Returns the means (draws × k × d) and weights (draws × k). The
    re-runs' ledgers are simulations on made-up data, never charged.
    """
    from dpviz.estimators.run import run

    weights, means, covariances = (np.asarray(result.estimate[key], dtype=float)
                                   for key in ("weights", "means", "covariances"))
    rng = np.random.default_rng([BOOTSTRAP_SEED, n])
    params = {key: value for key, value in scenario.params.items()
              if key not in ("seed", "radius") and value is not None}
    params.update(k=len(weights), radius=float(result.choices["radius"]))
    boot_means, boot_weights = [], []
    for _ in range(draws):
        x = _draw_mixture(weights, means, covariances, n, rng)
        again = run(scenario.task, scenario.estimator, x, rng=rng, **params)
        if again.failed:
            continue
        order = match_to(means, np.asarray(again.estimate["means"]))
        boot_means.append(np.asarray(again.estimate["means"])[order])
        boot_weights.append(np.asarray(again.estimate["weights"])[order])
    return np.array(boot_means), np.array(boot_weights)


def mixture_spread(result: Result, n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """DP-EM's spread around the truth from its last M-step: weights' sd (k), means' k × d × d.

    The last iteration releases ``π̃ = π + e`` renormalised, then ``μ̃ₖ = Sₖ/Ñₖ + zₖ`` with
    ``Ñₖ = max(nπ̃ₖ, n_min)`` (Park, Foulds, Chaudhuri & Welling 2017, Algorithm 1, as in
    DP-EM's module), e and zₖ of the scales the ledger records. To first order, with
    well-found clusters:

    * a weight's variance is the sampling ``π̃(1 − π̃)/n`` plus the noise after the
      renormalisation, ``s²(1 − 2π̃ₖ + kπ̃ₖ²)`` (``eₖ − π̃ₖΣⱼeⱼ``);
    * a mean's covariance is the sampling ``Σ̃ₖ/Ñₖ``, the noise ``σₖ²I`` (unit-ball units, times
      R²), and the noisy count's ``(π − π̃)/π̃`` scaling the mean from the ball's centre:
      ``s²ₖ/π̃ₖ² (μ̃ₖ − c)(μ̃ₖ − c)ᵀ`` with ``s²ₖ`` the renormalised weight noise above.

    It leaves out the noise of the earlier iterations, which reaches the last one through
    its E-step, and runs that found the wrong clusters: the bench measures what that costs.

    Examples
    --------
    >>> from dpviz import run
    >>> x = np.random.default_rng(0).normal(size=(2000, 2)) * 0.05 + [[0.4, 0.0]]
    >>> x[::2] -= [0.8, 0.0]
    >>> r = run("gmm", "dp_em", x, epsilon=2.0, delta=1e-5, k=2, seed=0)
    >>> sd, shapes = mixture_spread(r, 2000)
    >>> sd.shape, shapes.shape, bool((sd > 0).all())
    ((2,), (2, 2, 2), True)
    """
    weights, means, covariances = (np.asarray(result.estimate[key], dtype=float)
                                   for key in ("weights", "means", "covariances"))
    k, d = means.shape
    last = int(result.choices["iterations"])
    named = {release.name: release for release in result.ledger.releases}
    drawn = named[f"weights, iteration {last}"]
    weight_noise = noise_sd(drawn.mechanism, float(drawn.scale))**2 * (
        1 - 2 * weights + k * weights**2)
    counts = np.maximum(n * weights, float(result.choices["n_min"]))
    if result.choices.get("joint release"):
        sums = named[f"mean sums (all components), iteration {last}"]
        mean_noise = noise_sd(sums.mechanism, float(sums.scale)) / counts
    else:
        mean_noise = np.array([noise_sd(r.mechanism, float(r.scale)) for r in (
            named[f"mean {j + 1}, iteration {last}"] for j in range(k))])
    radius = float(result.choices["radius"])
    ball = result.diagnostics.get("ball")
    centred = means - (np.zeros(d) if ball is None else np.asarray(ball.center))
    shares = counts / n
    shapes = (covariances / counts[:, None, None]
              + (radius * mean_noise)[:, None, None] ** 2 * np.eye(d)
              + (weight_noise / shares**2)[:, None, None]
              * np.einsum("ki,kj->kij", centred, centred))
    return np.sqrt(weights * (1 - weights) / n + weight_noise), shapes


def bootstrap_quantiles(draws: int) -> tuple[float, float]:
    """Student's ``t_{B−1}`` two-sided and Hotelling's ``T²₂,B−1`` quantiles at :data:`LEVEL`.

    A spread estimated from B re-runs has B − 1 degrees of freedom. Were it independent of
    the released value and equal to the spread at the truth, with Gaussian estimates,
    ``(θ̃ − θ)/sd*`` would be ``t_{B−1}`` and ``(μ̃ − μ)ᵀC*⁻¹(μ̃ − μ)`` would be
    ``T²(2, B − 1) = 2(B − 1)/(B − 2)·F(2, B − 2)`` (Anderson 2003, §5.2). A parametric
    bootstrap's spread is the one at θ̃, so these are approximations: the bench measures
    their coverage, and a setting below :data:`THRESHOLD` shows none. F(2, m)'s CDF is
    ``1 − (1 + 2x/m)^(−m/2)``, so the T² quantile is ``(B − 1)((1 − level)^(−2/(B − 2)) − 1)``,
    which tends to χ²₂'s ``−2 ln(1 − level)``.

    Examples
    --------
    >>> t, t2 = bootstrap_quantiles(15)
    >>> round(t, 3), round(t2, 3)
    (1.761, 5.951)
    >>> [round(q, 2) for q in bootstrap_quantiles(100_000)] == [round(Z, 2), round(CHI2_2, 2)]
    True
    """
    from scipy.special import stdtrit  # here: only the bootstrap pays for it

    if draws < 3:
        raise ValueError(f"a bootstrap spread needs at least 3 re-runs, got {draws}")
    t = float(stdtrit(draws - 1, 0.5 + LEVEL / 2))
    return t, (draws - 1) * ((1 - LEVEL) ** (-2 / (draws - 2)) - 1)


def _mixture(method: str, result: Result, weight_sd: NDArray[np.float64],
             shapes: NDArray[np.float64], coverage: float,
             ellipse: float | None, quantiles: tuple[float, float] = (Z, CHI2_2)) -> Intervals:
    """Intervals ``value ± q·sd`` on the weights and the means' coordinates.

    With the 90 % ellipses ``q₂·shape`` where their coverage was measured ≥
    :data:`THRESHOLD`; ``quantiles`` (q, q₂): the normal's and χ²₂'s for a closed form, the
    bootstrap's own (:func:`bootstrap_quantiles`) for its estimated spread.
    """
    z, chi2 = quantiles
    means = np.asarray(result.estimate["means"], dtype=float)
    weights = np.asarray(result.estimate["weights"], dtype=float)
    sd_means = np.sqrt(np.einsum("kii->ki", shapes))
    out = [Interval(f"weights[{j + 1}]", float(weights[j]), z * float(weight_sd[j]))
           for j in range(len(weights))]
    out += [Interval(f"means[{j + 1}][{i + 1}]", float(means[j, i]), z * float(sd_means[j, i]))
            for j in range(means.shape[0]) for i in range(means.shape[1])]
    ellipses = ({"centres": means, "shapes": chi2 * shapes}
                if ellipse is not None and ellipse >= THRESHOLD else {})
    return Intervals(method, tuple(out), coverage=coverage, ellipses=ellipses)


def mixture_intervals(scenario: Scenario, result: Result, n: int,
                      rows: Sequence[Mapping[str, Any]] | None = None,
                      draws: int = DRAWS) -> Intervals:
    """Intervals on a mixture's means and weights (module docstring), the cheapest that holds.

    For a generated mixture in a family, n and ε whose coverage was measured: the closed
    form (:func:`mixture_spread`) where it was measured ≥ :data:`THRESHOLD` for both the
    means and the weights, else the parametric bootstrap where that was.
    """
    family = family_of(scenario)
    if family is None:
        return none("measured only on generated mixtures, with the estimator's defaults and "
                    "the generator's own bound")
    epsilon = float(scenario.params.get("epsilon") or math.inf)

    def lowest(method: str, *parts: str) -> float | None:
        found = [measured("gmm", scenario.estimator, part, family=family, n=n,
                          epsilon=epsilon, rows=rows, method=method) for part in parts]
        return None if None in found else min(c for c in found if c is not None)

    closed = lowest("closed form", "means", "weights")
    if closed is not None and closed >= THRESHOLD:
        weight_sd, shapes = mixture_spread(result, n)
        return _mixture("noise and sampling", result, weight_sd, shapes, closed,
                        lowest("closed form", "ellipse"))
    coverage = lowest("bootstrap", "means", "weights")
    if coverage is None or coverage < THRESHOLD:
        best = max((c for c in (closed, coverage) if c is not None), default=None)
        if best is None:
            return none(f"{_label(result)} was not measured at this shape, n and ε")
        return none(f"measured {percent(best)} of simulated releases covered here")
    boot_means, boot_weights = bootstrap_replicates(scenario, result, n, draws)
    if len(boot_means) < max(3, draws // 2):
        return none("most bootstrap re-runs failed")
    centred = boot_means - boot_means.mean(axis=0)
    spread = np.einsum("bki,bkj->kij", centred, centred) / (len(boot_means) - 1)
    return _mixture("bootstrap", result, boot_weights.std(axis=0, ddof=1), spread, coverage,
                    lowest("bootstrap", "ellipse"), bootstrap_quantiles(len(boot_means)))


#: Why the other private mixture estimators' means and weights have no interval.
NO_MIXTURE_INTERVAL = {
    "dplloyd": ("its centres are noisy averages over clusters that themselves move with the "
                "noise at every step; no interval covering the true means was measured"),
    "private_pca_clustering": (
        "its centres come after a private projection and a private clustering, so which "
        "points land in which cluster is itself noisy; no cheap interval covering the true "
        "means was measured"),
    "ppe": ("each released mean comes out of a private vote among many subsample estimates; "
            "that vote's spread has no closed form, and re-running it for each interval "
            "would cost as much as the estimate many times over"),
    "sample_aggregate": (
        "it aggregates estimates from disjoint parts of the data privately; that "
        "aggregation's spread has no closed form, and re-running it for each interval would "
        "cost as much as the estimate many times over"),
    "stability": ("it is a heuristic without a proven privacy guarantee, and its output has "
                  "no noise law to read an interval from"),
    "friendly_core": ("it keeps or drops points through a private filter before averaging, "
                      "and the kept set moves with the noise; no interval was measured"),
    "grid_means": ("its means are read off a private grid, whose rounding is not a noise of "
                   "known law; no interval was measured"),
}
#: Why the stochastic block model's error rate has no interval.
NO_ERROR_RATE_INTERVAL = (
    "on a generated graph the error against the planted split is counted exactly, so there "
    "is nothing to estimate about this run; an interval on the error this mechanism makes "
    "on average at this size, degree, signal and ε would need many fresh runs of it on new "
    "graphs for every release, and vertices are not independent draws, so counting them "
    "does not give one")


def intervals(scenario: Scenario, result: Result, n: int,
              rows: Sequence[Mapping[str, Any]] | None = None,
              part: str | None = None) -> Intervals:
    """The intervals of a run's released values (:data:`NO_INTERVAL` where not established).

    Parameters
    ----------
    scenario : Scenario
        The run's public inputs (task, estimator, data block, budget, parameters).
    result : Result
        Its answer; only the released values, the ledger's noise scales and ``choices`` are
        read.
    n : int
        The number of rows (public).
    rows : sequence of mapping, optional
        The coverage table (default :data:`COVERAGE_PATH`'s).
    part : {None, "eigenvalues", "entries"}
        For a covariance, which released values: its eigenvalues (the default) or the
        entries of its matrix (:func:`entry_intervals`). Other tasks have one part.

    Returns
    -------
    Intervals
        Charging nothing: the result's ledger is not touched.
    """
    label = _label(result)
    if result.failed:
        return none("the run gave no answer (⊥)")
    if result.not_private:
        return none("the run is not private; its intervals were not measured")
    if scenario.task == "sbm":
        return none(f"{label}'s error rate: {NO_ERROR_RATE_INTERVAL}")
    if not result.ledger.releases:
        return none("nothing was released with noise")
    if scenario.data.get("bounds") is not None:
        return none("a table's ranges rescale the release; not measured")
    if scenario.task == "mean":
        return mean_intervals(result, rows)
    if scenario.task == "covariance" and part == "entries":
        return entry_intervals(result, rows)
    if scenario.task == "covariance" and scenario.estimator == "gauss":
        return eigenvalue_intervals(result, rows)
    if scenario.task == "gmm" and scenario.estimator == "dp_em":
        return mixture_intervals(scenario, result, n, rows)
    if scenario.task == "gmm" and scenario.estimator in NO_MIXTURE_INTERVAL:
        return none(f"{label}: {NO_MIXTURE_INTERVAL[scenario.estimator]}")
    return none(f"{label} was not measured")
