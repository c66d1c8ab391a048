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
* ``sbm`` — edge DP on a 3-vertex path: the edge (0, 1) present in D and absent in D′, the
  edge (1, 2) in both (a graph needs one edge); the statistic ``scores₀ · scores₁``, the
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

The claimed ε and δ are read from the run's own ledger (its composed total). A run that
answers ⊥ (``Result.failed``) counts as the statistic 0 — a fixed value, so still
post-processing. Estimators that release nothing private (``notion == "none"``) and
estimators without a pair defined here are refused with a sentence
(:func:`audit_unavailable`).

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
from dpviz.privacy import AuditResult, attainable_lower_bound, audit
from dpviz.privacy.ledger import Total
from dpviz.privacy.risk import risk_of_ledger

RunOnce = Callable[[Any, np.random.Generator], Result]
Progress = Callable[[float], None]

AUDIT_RUNS = 1_000
"""Default runs on each dataset (the least :data:`dpviz.core.limits.AUDIT_TRIALS` allows): it
catches every broken variant, audits the mean in under a second and DP-EM on the small
instance in about 6 s on one loaded core."""

FAILED_STATISTIC = 0.0
PROGRESS_STEPS = 50


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
        """True when the measured lower bound does not exceed the claim."""
        return self.result.passed

    def sentence(self) -> str:
        """One sentence: the bound, its interval, the claim and the verdict.

        Examples
        --------
        >>> a = audit_estimator("mean", "laplace", epsilon=1.0, runs=1_000, seed=0)
        >>> a.sentence().endswith("consistent with the claim.")
        True
        """
        r = self.result
        upper = "∞" if math.isinf(r.epsilon_upper) else f"{r.epsilon_upper:.2f}"
        verdict = ("consistent with the claim" if self.passed else
                   "privacy violation caught" if self.broken else "privacy violation")
        reach = ("" if math.isnan(self.attainable) else
                 f"; a perfect audit of this ledger typically shows about "
                 f"{self.attainable:.2f} at {self.runs:,} runs")
        return (f"measured ε ≥ {r.epsilon_lower:.2f} (95% interval {r.epsilon_lower:.2f} – "
                f"{upper}, point estimate {r.epsilon_estimate:.2f}) against the claimed "
                f"{r.claimed_epsilon:.2f}{reach}: {verdict}.")




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
        return (f"{spec.label}: no audit neighbour defined yet (its registry entry has no "
                "worst-case pair).")
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
                   broken: str | None = None) -> EstimatorAudit:
    """Audit any randomised function of a dataset that returns a :class:`Result`.

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

    Returns
    -------
    EstimatorAudit
    """
    runs = limits.check_integer(limits.AUDIT_TRIALS, runs)
    seed = limits.check_integer(limits.SEED, seed)
    start = time.perf_counter()
    ledger = run_once(pair.data, np.random.default_rng(seed)).ledger
    claim: Total = ledger.total()
    if claim.epsilon is None or not math.isfinite(claim.epsilon):
        raise ValueError(f"{label} claims no finite epsilon (its ledger's total is epsilon = "
                         f"{claim.epsilon}); give a finite epsilon, or delta > 0 with rho")
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
    fpr, tpr = risk_of_ledger(ledger, claim.delta).curve()
    return EstimatorAudit(
        task=task, name=name, label=label, result=measured, claimed_delta=claim.delta,
        statistic=pair.statistic_label, neighbours=pair.description, outputs=samples[0],
        outputs_neighbour=samples[1],
        attainable=attainable_lower_bound(fpr, tpr, trials=runs, delta=claim.delta),
        broken=broken, seconds=time.perf_counter() - start)


def audit_estimator(task: str, name: str, *, epsilon: float | None, delta: float = 0.0,
                    runs: int = AUDIT_RUNS, seed: int = 0, accounting: str = "zcdp",
                    rho: float | None = None,
                    progress: Progress | None = None) -> EstimatorAudit:
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

    Returns
    -------
    EstimatorAudit

    Raises
    ------
    ValueError
        An unknown, non-private or not-yet-covered estimator; a bad ε, δ, runs or seed.

    Examples
    --------
    >>> a = audit_estimator("mean", "laplace", epsilon=1.0, runs=1_000, seed=0)
    >>> a.passed, a.claimed_epsilon, 0.25 < a.result.epsilon_lower <= 1.0
    (True, 1.0, True)
    """
    from dpviz import run
    from dpviz.estimators.registry import estimator

    check_audit_budget(epsilon, rho)
    runs = limits.check_integer(limits.AUDIT_TRIALS, runs)
    pair = neighbour_pair(task, name)
    spec = estimator(task, name)

    def run_once(data: Any, rng: np.random.Generator) -> Result:
        return run(task, name, data, epsilon=epsilon, delta=delta, rho=rho,
                   accounting=accounting, rng=rng, **pair.params)

    return audit_function(run_once, pair, task=task, name=name, label=spec.label, runs=runs,
                          seed=seed, progress=progress)


__all__ = [
    "AUDIT_RUNS", "CORNER", "EstimatorAudit", "NeighbourPair", "Progress", "pairs",
    "audit_estimator", "audit_function", "audit_unavailable", "check_audit_budget",
    "neighbour_pair", "norm_of", "project", "replace_row_pair",
]
