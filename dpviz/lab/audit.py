"""Audit it yourself: an empirical privacy audit of every registered private estimator.

Each estimator gets the neighbouring pair its sensitivity proof uses (ALGORITHMS.md §1.1),
on a small public instance, and a scalar statistic of its output; the estimator runs
``runs`` times on each dataset and :func:`dpviz.privacy.audit` turns the two samples into a
Clopper–Pearson lower bound on the ε it really has (Jagielski et al. 2020; Nasr et al. 2021).
DP is closed under post-processing, so any fixed function of the release is a valid test;
the one chosen projects the release on the direction in which the two datasets differ:

* ``mean`` — 1-D, one row at ``+1`` (the ball's boundary) in D and at the antipode ``−1`` in
  D′: the full sensitivity ``2R/n`` in L1 and L2, and the released mean is the statistic. (In
  2-D the corner pair also attains both sensitivities, but its projection sums two Laplace
  draws, whose likelihood ratio reaches e^ε only on a quarter of the runs: at 1 000 runs the
  Laplace mean measured ε ≥ 0.28 there, 0.64 in 1-D.)
* ``gmm`` — the same row on a two-cluster instance; the mixture's mean ``Σⱼ wⱼ μⱼ · u``,
  which does not change when the components are relabelled (label switching).
* ``covariance`` and ``factor_analysis`` — one row ``e₁`` in D and ``e₂`` in D′: orthogonal
  rows on the unit sphere attain ``‖xxᵀ − yyᵀ‖_F = √2``, the Frobenius worst case (a row and
  its negative have the same ``xxᵀ``); the contrast ``Σ̂₁₁ − Σ̂₂₂`` (for factor analysis of
  the fitted ``WWᵀ + Ψ``).
* ``sbm`` — edge DP on a 3-vertex path: the edge (1, 2) present in D and absent in D′, the
  edge (0, 1) in both (a graph needs one edge; the toggled one sorts last, so randomness drawn
  edge by edge lines up in the white-box audit's two runs); the statistic ``scores₀ · scores₁``, the
  product of the two vertices' released spectral scores (vote sums for the two-stage
  estimators), a post-processing of the release that the eigenvector's sign does not change.
  In so small a graph the toggled pair is a third of what is released: randomized response
  measured ε ≥ 0.85 (was 0.14 with two 6-rings and the labels' product).

How high a bound can go. The bound is a 95% Clopper–Pearson bound from ``runs/2`` measured
runs a side, so it is capped by the sample even with the best statistic: for one Laplace
release at ε = 1 about 0.74 at 1 000 runs; for one Gaussian release at the noise
ε = 1, δ = 10⁻⁵ gives (μ = Δ/σ ≈ 0.25) about 0.02 at 1 000 runs, 0.27 at 10 000 and 0.3
only at about 14 000 (the two output distributions are 0.1 apart in total variation; 500
measured runs a side cannot resolve much more than that). The Gaussian-based estimators
(``mean/gaussian``, the covariance, factor-analysis and SBM estimators but
``randomized_response``) therefore show bounds near 0 at the default run count: that is
the run count, not a weak pair. Iterative estimators (DP-EM, DP-Lloyd) spread ε over many
small releases, each far below the whole; their whole-ledger bound stays near 0 too.

Each audit reports that ceiling for its own ledger (``EstimatorAudit.attainable``: what the
best statistic typically shows at this run count if the releases are exactly as private as
the ledger's PLD trade-off curve says), and the page draws it beside the bound. The curve
can be tighter than the claim: a Laplace mean given ε = 1, δ = 10⁻⁵ under zCDP accounting
spends a pure ε of 0.25, so about 0.06 is all a perfect audit of 1 000 runs would show.

The claimed ε and δ are read from the run's own ledger (its composed total; a ρ budget
is stated at the δ given with it, as the page that runs it states it). A run that
answers ⊥ (``Result.failed``) counts as the statistic 0 — a fixed value, so still
post-processing. Estimators that release nothing private (``notion == "none"``) and
estimators without a pair defined here are refused with a sentence
(:func:`audit_unavailable`).

The white-box audit of the releases (:func:`white_box_audit`) is the one that can show
something at a few seconds' cost: it records the estimator's own releases on a worst-case pair
(pre-noise values, declared sensitivities, noise scales) and draws 10⁶ outputs of them, so a
correct Gaussian mean at ε = 1 shows ε ≥ 0.6 where 1 000 black-box runs show about 0.02. The
black-box audit of the whole estimator stays, slower, for what the white-box one cannot
replay (the exponential mechanism, randomized response, the sparse vector).
:func:`audit_reach` states before any run what each audit can at best show.

Seeds are fixed: the same call gives the same answer, and a correct estimator that passes
cannot fail on a later run by chance.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.estimators.neighbours import CORNER, NeighbourPair, norm_of, project, replace_row_pair
from dpviz.estimators.result import Result
from dpviz.estimators.work import SWEEP, WorkBudget
from dpviz.privacy.audit import (
    BLOCK,
    NOISE_OF,
    AuditResult,
    Recorded,
    attainable_lower_bound,
    audit,
    divergence,
    likelihood_ratio_sampler,
    recording,
    release_findings,
)
from dpviz.privacy.ledger import Ledger, Total
from dpviz.privacy.risk import risk_of_ledger

RunOnce = Callable[[Any, np.random.Generator], Result]
Progress = Callable[[float], None]

AUDIT_RUNS = 1_000
"""Default runs on each dataset (the least :data:`dpviz.core.limits.AUDIT_TRIALS` allows): it
catches every broken variant, audits the mean in under a second and DP-EM on the small
instance in about 6 s on one loaded core."""

FAILED_STATISTIC = 0.0
PROGRESS_STEPS = 50
WHITE_BOX_DRAWS = 1_000_000
"""Default draws on each side of the white-box audit (:func:`white_box_audit`)."""
PROOF_SHARE = 0.5
"""An audit whose perfect test typically shows less than this share of the claimed ε proves
little by passing (:attr:`EstimatorAudit.proves_little`, :meth:`Reach.proves_little`)."""
PREFIX_FACTOR = 100.0
"""The white-box audit's nearly noiseless transcript: the same code at this many times the ε."""
KEPT_OUTPUTS = 20_000
"""Draws a white-box audit keeps per side for its histogram."""
WHITE_BOX_STATISTIC = ("the log-likelihood ratio of the releases' known noise, log p_D(y) − "
                       "log p_D′(y), summed over every release (the most powerful test)")


@dataclass(frozen=True)
class EstimatorAudit:
    """What one audit measured, with everything the page shows.

    Attributes
    ----------
    task, name, label : str
        The estimator (or broken variant) audited.
    result : AuditResult
        The measured bound, its interval and the claim (``result.claimed_epsilon``).
    claimed_delta : float
        δ of the claim (from the ledger), used in the bound.
    statistic, neighbours : str
        The statistic used and how D and D′ differ.
    outputs, outputs_neighbour : ndarray
        The statistic on each run on D and on D′ (for the histograms).
    attainable : float
        The bound a perfect audit typically shows at this many runs if the ledger's releases
        are exactly as private as its own PLD trade-off curve says
        (:func:`dpviz.privacy.attainable_lower_bound`): a correct estimator's bound is read
        against it, not against the claim.
    broken : str or None
        For a broken-on-purpose variant, its flaw.
    seconds : float
        Wall time of the audit (not compared between audits).
    method : {"black-box", "white-box"}
        Runs of the whole estimator, or draws of its recorded releases
        (:func:`white_box_audit`; ``runs`` then counts draws, ``outputs`` keeps the first
        :data:`KEPT_OUTPUTS` of them).
    findings : tuple of str
        What the white-box audit found wrong without statistics (a release moving by more
        than its declared sensitivity, noise calibrated from the data, an output that depends
        on the data beyond the releases): any finding is a violation.
    """

    task: str
    name: str
    label: str
    result: AuditResult
    claimed_delta: float
    statistic: str
    neighbours: str
    outputs: NDArray[np.float64] = field(repr=False, compare=False)
    outputs_neighbour: NDArray[np.float64] = field(repr=False, compare=False)
    attainable: float = math.nan
    broken: str | None = None
    seconds: float = field(default=0.0, compare=False)
    method: str = "black-box"
    findings: tuple[str, ...] = ()

    @property
    def runs(self) -> int:
        """Runs on each of the two datasets."""
        return self.result.trials

    @property
    def claimed_epsilon(self) -> float:
        """ε the run's ledger claims."""
        return self.result.claimed_epsilon

    @property
    def passed(self) -> bool:
        """True when the measured lower bound does not exceed the claim and nothing was found."""
        return self.result.passed and not self.findings

    @property
    def caught(self) -> bool:
        """True when the measured lower bound on ε exceeds the claim (the audit's statistic).

        A finding alone does not count: it says the code is wrong, not by how much ε.
        """
        return not self.result.passed

    @property
    def proves_little(self) -> bool:
        """True when even a perfect audit typically shows less than :data:`PROOF_SHARE` of ε.

        Passing such an audit is no evidence that the claim holds.
        """
        return proves_little(self.attainable, self.claimed_epsilon)

    def sentence(self) -> str:
        """One sentence: the bound, its interval, the claim and the verdict.

        Examples
        --------
        >>> a = audit_estimator("mean", "laplace", epsilon=1.0, runs=1_000, seed=0)
        >>> a.sentence().endswith("consistent with the claim.")
        True
        >>> audit_estimator("mean", "laplace", epsilon=1.0, delta=1e-5, runs=1_000
        ...                 ).sentence().endswith("so passing it proves little.")
        True
        """
        r = self.result
        upper = "∞" if math.isinf(r.epsilon_upper) else f"{r.epsilon_upper:.2f}"
        unit = "draws" if self.method == "white-box" else "runs"
        reach = ("" if math.isnan(self.attainable) else
                 f"; a perfect audit of this ledger typically shows about "
                 f"{self.attainable:.2f} at {self.runs:,} {unit}")
        measured = (f"measured ε ≥ {r.epsilon_lower:.2f} (95% interval {r.epsilon_lower:.2f} – "
                    f"{upper}, point estimate {r.epsilon_estimate:.2f}) against the claimed "
                    f"{r.claimed_epsilon:.2f}{reach}")
        found = "; ".join(self.findings)
        if self.broken is not None:
            if self.caught:
                also = f"; the white-box audit also found that {found}" if found else ""
                return f"{measured}: privacy violation caught{also}."
            why = (f"; the white-box audit found that {found}, which its likelihood test "
                   "cannot measure" if found else "")
            return f"{measured}: not caught at these settings{why}."
        if self.findings:
            return f"privacy violation: {found} (the releases' test {measured})."
        if not self.passed:
            return f"{measured}: privacy violation."
        if self.proves_little:
            return (f"{measured}: consistent with the claim, but this audit could at best show "
                    f"about ε ≥ {self.attainable:.2f} against a claim of "
                    f"{r.claimed_epsilon:.2f}, so passing it proves little.")
        return f"{measured}: consistent with the claim."


def proves_little(reach: float, claimed: float) -> bool:
    """Whether an audit that typically shows ``reach`` at best is too weak for ``claimed``.

    Below :data:`PROOF_SHARE` of a positive claim, passing proves little.

    Examples
    --------
    >>> proves_little(0.02, 1.0), proves_little(0.65, 1.0), proves_little(0.0, 0.0)
    (True, False, False)
    """
    return claimed > 0 and reach < PROOF_SHARE * claimed


def pairs() -> Mapping[tuple[str, str], Callable[[], NeighbourPair]]:
    """Every registered private estimator's pair builder (its entry's ``neighbours`` hook).

    Examples
    --------
    >>> ("mean", "laplace") in pairs(), ("gmm", "em") in pairs()
    (True, False)
    """
    from dpviz.estimators.registry import TASKS

    return {(task, name): entry.neighbours for task, entries in TASKS.items()
            for name, entry in entries.items()
            if entry.neighbours is not None and entry.notion != "none"}


def audit_unavailable(task: str, name: str) -> str | None:
    """Why ``task/name`` cannot be audited, or ``None`` when it can.

    Raises
    ------
    ValueError
        For an unknown task or estimator.

    Examples
    --------
    >>> audit_unavailable("gmm", "dp_em") is None
    True
    >>> audit_unavailable("gmm", "em")[:30]
    'EM (non-private) is not privat'
    """
    from dpviz.estimators.registry import estimator

    spec = estimator(task, name)
    if spec.notion == "none":
        return (f"{spec.label} is not private: it spends no budget, so there is no claim to "
                "audit.")
    if spec.neighbours is None:
        why = f"; {spec.no_pair}" if spec.no_pair else ""
        return (f"{spec.label}: no audit neighbour defined yet (no worst-case pair of "
                f"neighbouring datasets is written for it){why}.")
    return None


def neighbour_pair(task: str, name: str) -> NeighbourPair:
    """The pair and statistic the audit of ``task/name`` uses (its entry's hook).

    Raises
    ------
    ValueError
        When the estimator is unknown, not private, or has no pair yet.
    """
    from dpviz.estimators.registry import estimator

    reason = audit_unavailable(task, name)
    if reason is not None:
        raise ValueError(reason)
    build = estimator(task, name).neighbours
    assert build is not None  # audit_unavailable said so
    return build()


def check_audit_budget(epsilon: float | None, rho: float | None) -> None:
    """Refuse a budget the audit cannot test: no budget, ε ≤ 0, ε = ∞ or a bad ρ."""
    if rho is not None:
        limits.RHO.check(rho)
        return
    if epsilon is None:
        raise ValueError("the audit needs a budget: give epsilon (or rho with delta > 0)")
    if math.isinf(epsilon):
        raise ValueError(f"the audit needs a finite epsilon > 0 to test, got {epsilon:g}")
    limits.EPSILON.check(epsilon)


def audit_function(run_once: RunOnce, pair: NeighbourPair, *, task: str, name: str,
                   label: str, runs: int = AUDIT_RUNS, seed: int = 0,
                   progress: Progress | None = None,
                   broken: str | None = None, budget: WorkBudget = SWEEP) -> EstimatorAudit:
    """Audit any randomised function of a dataset that returns a :class:`Result`.

    Refused before its runs when ``2·runs`` times one run's CPU time (measured on a warm run:
    the pairs are tiny, where the registry's cost models, fitted on large data, miss by
    50–1000×) exceeds ``budget`` (a page's sweep budget by default: the page shows a bar).

    Parameters
    ----------
    run_once : callable
        ``run_once(data, rng) → Result``; its ledger total is the claim audited.
    pair : NeighbourPair
        D, D′ and the statistic.
    task, name, label : str
        How to name what is audited.
    runs : int
        Runs on each dataset (1 000 … 2 000 000).
    seed : int
        Fixes every draw.
    progress : callable, optional
        Called with the fraction of runs done (0 … 1), about 100 times.
    broken : str, optional
        The flaw, for a broken-on-purpose variant.
    budget : WorkBudget
        The seconds the runs may take together.

    Returns
    -------
    EstimatorAudit

    Raises
    ------
    ValueError
        When the runs would exceed ``budget``: the estimate, the limit and the runs that fit.
    """
    runs = limits.check_integer(limits.AUDIT_TRIALS, runs)
    seed = limits.check_integer(limits.SEED, seed)
    start = time.perf_counter()
    ledger = run_once(pair.data, np.random.default_rng(seed)).ledger
    # this thread's CPU only: the process's counts every session's work on the server
    clock = time.thread_time()  # the first run warmed the estimator's imports and caches
    run_once(pair.data, np.random.default_rng(seed))
    needed = 2 * runs * (time.thread_time() - clock)
    if needed > budget.seconds:
        fits = int(budget.seconds / needed * runs) // 1000 * 1000
        fewer = (f"{fits:,} runs a side would fit" if fits >= limits.AUDIT_TRIALS.low else
                 f"even the fewest ({int(limits.AUDIT_TRIALS.low):,} a side) would not fit")
        raise ValueError(f"this audit ({2 * runs:,} runs of {label}) is too much work "
                         f"{budget.name}: about {needed:,.0f} s of server time, and the limit "
                         f"is {budget.seconds:g} s; {fewer}. {budget.advice}.")
    claim = _claim(ledger, label)
    assert claim.epsilon is not None  # _claim refuses otherwise
    samples: list[NDArray[np.float64]] = []
    step = max(1, runs // PROGRESS_STEPS)

    def sampler(data: Any, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        out = np.empty(size)
        for i in range(size):
            result = run_once(data, rng)
            out[i] = FAILED_STATISTIC if result.failed else pair.statistic(result)
            if progress is not None and (i + 1) % step == 0:
                progress(min(1.0, (len(samples) * size + i + 1) / (2 * size)))
        samples.append(out)
        return out

    measured = audit(sampler, pair.data, pair.neighbour, claimed_epsilon=claim.epsilon,
                     delta=claim.delta, trials=runs, seed=seed)
    return EstimatorAudit(
        task=task, name=name, label=label, result=measured, claimed_delta=claim.delta,
        statistic=pair.statistic_label, neighbours=pair.description, outputs=samples[0],
        outputs_neighbour=samples[1],
        attainable=_attainable(ledger, claim.delta, runs),
        broken=broken, seconds=time.perf_counter() - start)


def audit_estimator(task: str, name: str, *, epsilon: float | None, delta: float = 0.0,
                    runs: int = AUDIT_RUNS, seed: int = 0, accounting: str = "zcdp",
                    rho: float | None = None, progress: Progress | None = None,
                    budget: WorkBudget = SWEEP) -> EstimatorAudit:
    """Audit a registered estimator on its worst-case neighbouring pair.

    Parameters
    ----------
    task, name : str
        Registry keys (``python -m dpviz list``).
    epsilon, delta : float
        The budget each run is given (ε finite and > 0); the claim audited is the composed
        total (ε, δ) of the run's own ledger, which never exceeds it.
    runs : int
        Runs on each dataset (default :data:`AUDIT_RUNS`).
    seed : int
        Fixes every draw: the same call gives the same answer.
    accounting : str
        How the run composes its releases (as in :func:`dpviz.run`).
    rho : float, optional
        A zCDP budget instead of ε (with δ > 0, so that the ledger states an ε to audit).
    progress : callable, optional
        Called with the fraction of runs done.
    budget : WorkBudget
        The seconds the runs may take together (:func:`audit_function`).

    Returns
    -------
    EstimatorAudit

    Raises
    ------
    ValueError
        An unknown, non-private or not-yet-covered estimator; a bad ε, δ, runs or seed; runs
        over ``budget``.

    Examples
    --------
    >>> a = audit_estimator("mean", "laplace", epsilon=1.0, runs=1_000, seed=0)
    >>> a.passed, a.claimed_epsilon, 0.25 < a.result.epsilon_lower <= 1.0
    (True, 1.0, True)
    """
    from dpviz.estimators.registry import estimator

    check_audit_budget(epsilon, rho)
    runs = limits.check_integer(limits.AUDIT_TRIALS, runs)
    pair = neighbour_pair(task, name)
    run_once = _runner(task, name, pair, epsilon=epsilon, delta=delta, rho=rho,
                       accounting=accounting)
    return audit_function(run_once, pair, task=task, name=name,
                          label=estimator(task, name).label, runs=runs, seed=seed,
                          progress=progress, budget=budget)


def _runner(task: str, name: str, pair: NeighbourPair, *, epsilon: float | None, delta: float,
            rho: float | None, accounting: str) -> RunOnce:
    """One run of ``task/name`` at the budget, with the pair's public parameters."""
    from dpviz.estimators.run import run

    def run_once(data: Any, rng: np.random.Generator) -> Result:
        return run(task, name, data, epsilon=epsilon, delta=delta, rho=rho,
                   accounting=accounting, rng=rng, **pair.params)

    return run_once


def _claim(ledger: Ledger, label: str) -> Total:
    """The (ε, δ) the ledger claims (a ρ budget at the δ given with it)."""
    claim = ledger.total()
    if claim.epsilon is None or not math.isfinite(claim.epsilon):
        raise ValueError(f"{label} claims no finite epsilon (its ledger's total is epsilon = "
                         f"{claim.epsilon}); give a finite epsilon, or delta > 0 with rho")
    return claim


def ceiling(trials: int) -> float:
    """The most an audit of ``trials`` runs a side typically shows: that of no privacy at all.

    Examples
    --------
    >>> round(ceiling(1_000), 2), round(ceiling(10_000), 2)
    (4.91, 7.21)
    """
    return attainable_lower_bound(np.array([0.0]), np.array([1.0]), trials=trials)


def _attainable(ledger: Ledger, delta: float, trials: int) -> float:
    fpr, tpr = risk_of_ledger(ledger, delta).curve()
    return attainable_lower_bound(fpr, tpr, trials=trials, delta=delta)


@dataclass(frozen=True)
class Reach:
    """What audits of a ledger can at best show, before any runs.

    Attributes
    ----------
    claimed_epsilon, claimed_delta : float
        The run's claim (its ledger's total).
    black_box, white_box : float
        The bound a perfect audit typically shows with :data:`AUDIT_RUNS` runs of the whole
        estimator, and with :data:`WHITE_BOX_DRAWS` draws of its releases.
    releases : int
        Releases in the ledger.
    white_box_reason : str or None
        Why the white-box audit cannot replay this run (another mechanism than Laplace or
        Gaussian noise), or ``None``.
    """

    claimed_epsilon: float
    claimed_delta: float
    black_box: float
    white_box: float
    releases: int
    white_box_reason: str | None = None

    def sentence(self) -> str:
        """Before running: what each audit can show.

        Examples
        --------
        >>> Reach(1.0, 0.0, 0.74, 0.99, 1).sentence()[:61]
        'This run claims ε = 1.00. A perfect test typically shows abou'
        """
        delta = f", δ = {self.claimed_delta:.0e}" if self.claimed_delta else ""
        black = (f"This run claims ε = {self.claimed_epsilon:.2f}{delta}. A perfect test "
                 f"typically shows about ε ≥ {self.black_box:.2f} from {AUDIT_RUNS:,} runs of "
                 "the whole estimator")
        if self.white_box_reason is not None:
            return f"{black}."
        return (f"{black}, and about ε ≥ {self.white_box:.2f} from {WHITE_BOX_DRAWS:,} draws "
                f"of its {self.releases} recorded release{'s' if self.releases != 1 else ''}.")

    def proves_little(self, method: str) -> bool:
        """Whether the ``"black-box"`` or ``"white-box"`` audit is too weak for the claim.

        Below :data:`PROOF_SHARE` of the claimed ε (:func:`proves_little`); a white-box
        audit that cannot replay this run proves nothing.
        """
        if method == "white-box" and self.white_box_reason is not None:
            return True
        reach = self.white_box if method == "white-box" else self.black_box
        return proves_little(reach, self.claimed_epsilon)

    def caveat(self) -> str | None:
        """What passing proves when an audit is too weak for the claim, or ``None``.

        Examples
        --------
        >>> Reach(1.0, 1e-5, 0.02, 0.65, 15).caveat()[:70]
        'The black-box audit could at best show about ε ≥ 0.02 against a claim '
        >>> Reach(1.0, 0.0, 0.74, 0.99, 1).caveat() is None
        True
        """
        weak = [m for m in ("black-box", "white-box") if self.proves_little(m)]
        if "black-box" not in weak:
            return None
        head = (f"The black-box audit could at best show about ε ≥ {self.black_box:.2f} against "
                f"a claim of {self.claimed_epsilon:.2f}, so passing it proves little")
        if self.white_box_reason is not None:
            return f"{head}; the white-box audit cannot replay this run."
        if "white-box" in weak:
            return (f"{head}, and the white-box audit is not much stronger (about ε ≥ "
                    f"{self.white_box:.2f}): neither can show that this claim holds.")
        return (f"{head}. The white-box audit can show about ε ≥ {self.white_box:.2f}: run it "
                "instead.")


def audit_reach(task: str, name: str, *, epsilon: float | None, delta: float = 0.0,
                rho: float | None = None, accounting: str = "zcdp", seed: int = 0) -> Reach:
    """What a black-box and a white-box audit of ``task/name`` can show at this budget.

    One run on the audit's pair gives the ledger; its PLD trade-off curve gives the bound a
    perfect audit typically reaches with each audit's sample
    (:func:`dpviz.privacy.attainable_lower_bound`).

    Examples
    --------
    >>> r = audit_reach("mean", "laplace", epsilon=1.0)
    >>> round(r.black_box, 2), round(r.white_box, 2)
    (0.74, 0.99)
    """
    from dpviz.estimators.registry import estimator

    check_audit_budget(epsilon, rho)
    pair = neighbour_pair(task, name)
    with recording() as seen:
        ledger = _runner(task, name, pair, epsilon=epsilon, delta=delta, rho=rho,
                         accounting=accounting)(pair.data, np.random.default_rng(seed)).ledger
    claim = _claim(ledger, estimator(task, name).label)
    assert claim.epsilon is not None  # _claim refuses otherwise
    try:
        _replayable(ledger, seen.releases)
        reason = None
    except ValueError as err:
        reason = str(err)
    return Reach(claim.epsilon, claim.delta, _attainable(ledger, claim.delta, AUDIT_RUNS),
                 _attainable(ledger, claim.delta, WHITE_BOX_DRAWS), len(ledger.releases),
                 reason)


@dataclass(frozen=True)
class _Recorded:
    """One candidate pair's two recorded runs."""

    data: Result
    neighbour: Result
    first: tuple[Recorded, ...]
    second: tuple[Recorded, ...]
    description: str

    def findings(self) -> tuple[str, ...]:
        found = release_findings(self.first, self.second)
        if not same_output(self.data, self.neighbour):
            found += ("the output differs between the two datasets even when every recorded "
                      "release is the same: the data reach the output outside the private "
                      "releases",)
        return found


def same_output(a: Result, b: Result) -> bool:
    """Whether two results failed alike (the same sentence) and have equal estimates.

    NaN equals NaN; an estimate left ``None`` equals only ``None``.
    """
    if a.failed != b.failed or a.estimate.keys() != b.estimate.keys():
        return False
    for key, value in a.estimate.items():
        other = b.estimate[key]
        if value is None or other is None:
            if value is not other:
                return False
        elif not np.array_equal(np.asarray(value, dtype=float), np.asarray(other, dtype=float),
                                equal_nan=True):
            return False
    return True


Cache = dict[tuple[int, str], tuple[Result, tuple[Recorded, ...]] | None]


def _record(run_once: RunOnce, data: Any, neighbour: Any, description: str, seed: int,
            prefix: RunOnce | None, cache: Cache) -> _Recorded | None:
    """Run on D recording its releases, then on D′ with the same seed replaying them.

    With ``prefix`` both runs replay instead the releases of ``prefix`` run on D (a nearly
    noiseless run: a transcript on which each row sits squarely in one component); ``None``
    when D's run does not make the prefix's releases (its plan depends on the budget).
    """
    def recorded(run: RunOnce, replay: tuple[Recorded, ...] | None, kind: str
                 ) -> tuple[Result, tuple[Recorded, ...]] | None:
        if (id(data), kind) not in cache:
            with recording(replay=replay) as seen:
                result = run(data, np.random.default_rng(seed))
            _replayable(result.ledger, seen.releases)
            cache[id(data), kind] = (result, tuple(seen.releases)) if seen.replayed else None
        return cache[id(data), kind]

    replay = None
    if prefix is not None:
        quiet = recorded(prefix, None, "prefix")
        replay = None if quiet is None else quiet[1]
        if replay is None:
            return None
    own = recorded(run_once, replay, "own" if prefix is None else "replayed")
    if own is None:
        return None
    first, releases = own
    with recording(replay=releases if replay is None else replay) as again:
        second = run_once(neighbour, np.random.default_rng(seed))
    return _Recorded(first, second, releases, tuple(again.releases), description)


#: :func:`pair_findings`'s sentence when the pair's run makes no Laplace or Gaussian release.
NOTHING_RELEASED = "the pair's run released nothing"


def pair_findings(task: str, name: str, *, epsilon: float, delta: float = 0.0,
                  seed: int = 0) -> tuple[str, ...]:
    """What the white-box audit finds on ``task/name``'s own pair without statistics.

    One recorded run on D and one on D′ replaying it (:func:`white_box_function`'s findings):
    a release moving by more than its declared sensitivity, noise calibrated from the data, an
    output that differs although every release is the same. ``()``: none.

    Raises
    ------
    ValueError
        When a run releases through a mechanism the white-box audit cannot replay.

    Examples
    --------
    >>> pair_findings("mean", "laplace", epsilon=1.0)
    ()
    """
    pair = neighbour_pair(task, name)
    run_once = _runner(task, name, pair, epsilon=epsilon, delta=delta, rho=None,
                       accounting="zcdp")
    recorded = _record(run_once, pair.data, pair.neighbour, pair.description, seed, None, {})
    assert recorded is not None  # without a prefix every run is recorded
    return recorded.findings() if recorded.first else (NOTHING_RELEASED,)


#: The mechanisms the white-box audit cannot replay, in words.
NOT_REPLAYED = {"exponential": "the exponential mechanism",
                "above_threshold": "the sparse vector (AboveThreshold)",
                "randomized_response": "randomized response",
                "truncated_laplace": "truncated Laplace noise",
                "stable_histogram": "a stable histogram", "composite": "a composed release"}


def _replayable(ledger: Ledger, seen: list[Recorded]) -> None:
    other = sorted({r.mechanism for r in ledger.releases} - set(NOISE_OF))
    if other or len(seen) != len(ledger.releases):
        what = ", ".join(NOT_REPLAYED.get(m, m) for m in other) or \
            "noise added outside the mechanisms"
        raise ValueError(f"the white-box audit replays Laplace and Gaussian releases only; this "
                         f"run also releases through: {what}. Use the black-box audit")


def white_box_function(run_once: RunOnce, pair: NeighbourPair, *, task: str, name: str,
                       label: str, draws: int = WHITE_BOX_DRAWS, seed: int = 0,
                       broken: str | None = None, prefix: RunOnce | None = None,
                       progress: Progress | None = None) -> EstimatorAudit:
    """White-box audit of the releases of any ``run_once(data, rng) → Result``.

    The code runs on D, its Laplace and Gaussian releases recorded (pre-noise value, declared
    sensitivity and noise scale; :func:`dpviz.privacy.audit.recording`), then on D′ with the
    same seed, each release handing back D's output: every later step sees the same earlier
    releases, so each release's pre-noise change is exactly the one the ledger's composition
    bounds. With ``prefix`` (the same code at a far larger budget) the pair and its
    candidates (``pair.candidates``) are also recorded with both runs replaying the prefix's
    releases instead: a nearly noiseless transcript. Of all these, the pair whose releases
    differ most (Kullback–Leibler,
    :func:`dpviz.privacy.audit.divergence`) is audited:
    ``draws`` outputs a side are drawn through the mechanisms' own noise and the
    log-likelihood ratio of the known noise is thresholded with Clopper–Pearson
    (:func:`dpviz.privacy.audit.likelihood_ratio_sampler`, :func:`dpviz.privacy.audit`).
    What needs no statistics is reported as findings (:class:`EstimatorAudit`): a release
    moving by more than its sensitivity, noise calibrated from the data, an output that
    differs although every release is the same.

    ``progress`` sees the fraction of the outputs drawn (after each block of
    :data:`~dpviz.privacy.audit.BLOCK`; the recorded runs before them are not counted).

    Soundness. With the earlier releases held fixed, the releases are a fixed sequence of
    Laplace and Gaussian mechanisms, each within the sensitivity and noise its ledger row
    declares if the code is correct; the ledger's composed (ε, δ) then holds for them, so a
    bound above it (or a finding) is a bug, not chance (beyond the 5% of the interval).

    Raises
    ------
    ValueError
        When a run releases through another mechanism (the exponential mechanism,
        randomized response …): use :func:`audit_function` (black-box).
    """
    draws = limits.check_integer(limits.AUDIT_TRIALS, draws)
    seed = limits.check_integer(limits.SEED, seed)
    start = time.perf_counter()
    options = ((pair.data, pair.neighbour, pair.description), *pair.candidates)
    cache: Cache = {}
    recorded = [_record(run_once, pair.data, pair.neighbour, pair.description, seed, None,
                        cache)]
    if prefix is not None:
        recorded += [_record(run_once, d, n, text, seed, prefix, cache)
                     for d, n, text in options]
    worst = max((r for r in recorded if r is not None),  # the pair's own is never None
                key=lambda r: (bool(r.findings()), divergence(r.first, r.second)))
    claim = _claim(worst.data.ledger, label)
    assert claim.epsilon is not None  # _claim refuses otherwise
    findings = worst.findings()
    kept: list[NDArray[np.float64]] = []
    try:
        draw = likelihood_ratio_sampler(worst.first, worst.second)
    except ValueError:  # different releases (a finding says so): no ratio to test
        def draw(side: Any, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
            return np.zeros(size)

    def sampler(side: Any, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        # block by block (the draws one call would make, in its order), to report progress
        blocks = []
        for start in range(0, size, BLOCK):
            blocks.append(draw(side, rng, min(BLOCK, size - start)))
            if progress is not None:
                progress((side * size + start + len(blocks[-1])) / (2 * size))
        out = np.concatenate(blocks)
        kept.append(out[:KEPT_OUTPUTS].copy())
        return out

    measured = audit(sampler, 0, 1, claimed_epsilon=claim.epsilon, delta=claim.delta,
                     trials=draws, seed=seed)
    return EstimatorAudit(
        task=task, name=name, label=label, result=measured, claimed_delta=claim.delta,
        statistic=WHITE_BOX_STATISTIC, neighbours=worst.description, outputs=kept[0],
        outputs_neighbour=kept[1],
        attainable=_attainable(worst.data.ledger, claim.delta, draws), broken=broken,
        seconds=time.perf_counter() - start, method="white-box", findings=findings)


def white_box_audit(task: str, name: str, *, epsilon: float | None, delta: float = 0.0,
                    draws: int = WHITE_BOX_DRAWS, seed: int = 0, accounting: str = "zcdp",
                    rho: float | None = None, progress: Progress | None = None
                    ) -> EstimatorAudit:
    """White-box audit of a registered estimator's releases (:func:`white_box_function`).

    Parameters as :func:`audit_estimator`, with ``draws`` outputs a side instead of runs
    (``progress`` sees the fraction drawn).

    Examples
    --------
    >>> a = white_box_audit("mean", "laplace", epsilon=1.0)
    >>> a.passed, 0.9 < a.result.epsilon_lower <= 1.0
    (True, True)
    """
    from dpviz.estimators.registry import estimator

    check_audit_budget(epsilon, rho)
    pair = neighbour_pair(task, name)
    run_once = _runner(task, name, pair, epsilon=epsilon, delta=delta, rho=rho,
                       accounting=accounting)
    quiet = _runner(task, name, pair, delta=delta, accounting=accounting,
                    epsilon=None if epsilon is None else
                    min(PREFIX_FACTOR * epsilon, limits.EPSILON.high),
                    rho=None if rho is None else PREFIX_FACTOR**2 * rho)
    return white_box_function(run_once, pair, task=task, name=name,
                              label=estimator(task, name).label, draws=draws, seed=seed,
                              prefix=quiet, progress=progress)


__all__ = [
    "AUDIT_RUNS", "CORNER", "PROOF_SHARE", "WHITE_BOX_DRAWS", "EstimatorAudit", "NeighbourPair",
    "Progress", "Reach", "audit_estimator", "audit_function", "audit_reach", "audit_unavailable",
    "ceiling", "check_audit_budget", "neighbour_pair", "norm_of", "pair_findings", "pairs",
    "project", "proves_little", "replace_row_pair", "same_output",
    "white_box_audit", "white_box_function",
]
