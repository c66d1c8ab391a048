"""Broken on purpose — for the audit gallery only.

Four private means that each get one thing wrong, the mistakes that real DP code makes
(issue 9, part 3). Each claims ε-DP — its ledger records the Laplace release it believes it
made — and each comes with the neighbouring pair that exposes its flaw, so that
:func:`audit_gallery` can show the empirical audit catching it. They are **not** registered
in :data:`dpviz.estimators.registry.TASKS`: ``dpviz.run``, the command line, the pages and the
sweeps cannot choose them for a real run.

* ``clipping_skipped`` — rows are never clipped to the public ball, so a row far outside it
  moves the mean by more than the sensitivity ``2R√d/n`` the noise is calibrated for.
* ``sensitivity_over_n`` — the mean's sensitivity is taken as the sum's ``2R√d`` divided by
  n twice: noise n× too small.
* ``noise_reused`` — one Laplace draw is added to every coordinate, so the difference of two
  coordinates is released without noise.
* ``bound_from_data`` — the radius is the largest row norm, read from the data and then
  treated as public: a dataset of small rows gets almost no noise.

The correct estimator is :func:`dpviz.estimators.mean.private_mean` (the ``mean`` task).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.data import as_matrix
from dpviz.estimators.mean import mean_sensitivity, private_mean
from dpviz.estimators.result import Result
from dpviz.lab.audit import (
    AUDIT_RUNS,
    CORNER,
    WHITE_BOX_DRAWS,
    EstimatorAudit,
    NeighbourPair,
    Progress,
    audit_function,
    ceiling,
    check_audit_budget,
    norm_of,
    project,
    replace_row_pair,
    white_box_function,
)
from dpviz.privacy import Budget, Ledger, PlannedRelease, clip_to_ball, release, solve

BROKEN_LABEL = "broken on purpose — for the audit gallery only"
GALLERY_RUNS = (AUDIT_RUNS, 10_000, 100_000)
"""The gallery's choice of black-box runs on each dataset. At the first, every variant was caught
(its measured bound above the claim) on all of seeds 0–49 at ε = 0.5, 1, 2 and 3, and none at
ε = 5: 1 000 runs show at most about 4.9 (:func:`dpviz.lab.audit.ceiling`); more runs can.
Home's lessons are measured at these settings (:mod:`dpviz.lab.lessons`)."""
N_ROWS = 10
RADIUS = 1.0  # the public radius every variant claims


@dataclass(frozen=True)
class BrokenVariant:
    """A private mean with one flaw, and the pair that exposes it.

    Attributes
    ----------
    name, label : str
        Its key and its name on the page.
    flaw : str
        What is wrong, in a sentence.
    function : callable
        ``function(data, budget, *, rng) → Result``; the ledger holds what it claims.
    pair : callable
        Builds the :class:`~dpviz.lab.audit.NeighbourPair` that exposes the flaw.
    """

    name: str
    label: str
    flaw: str
    function: Callable[..., Result]
    pair: Callable[[], NeighbourPair]


def _laplace_mean(mean: NDArray[np.float64], sensitivity: float, budget: Budget,
                  rng: np.random.Generator, *, shared_noise: bool = False) -> Result:
    """Release ``mean`` with the Laplace noise the solver gives ``sensitivity``."""
    allocation = solve([PlannedRelease("mean", "laplace", sensitivity)], budget)["mean"]
    ledger = Ledger(budget)
    if shared_noise:  # the flaw: one draw, added to every coordinate
        noisy = mean + np.atleast_1d(release(np.zeros(1), allocation, rng=rng, ledger=ledger))
    else:
        noisy = np.atleast_1d(release(mean, allocation, rng=rng, ledger=ledger))
    return Result(estimate={"mean": noisy}, ledger=ledger,
                  choices={"radius": RADIUS, "sensitivity": sensitivity, "broken": BROKEN_LABEL})


def _clipped_mean(x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(clip_to_ball(x, np.zeros(x.shape[1]), RADIUS).mean(axis=0))


def mean_without_clipping(data: ArrayLike, budget: Budget, *,
                          rng: np.random.Generator) -> Result:
    """Broken on purpose: the noise assumes rows in B(0, R), but rows are never clipped."""
    x = as_matrix(data)
    n, d = x.shape
    return _laplace_mean(x.mean(axis=0), mean_sensitivity(RADIUS, n, d, "laplace"), budget, rng)


def mean_with_sensitivity_over_n(data: ArrayLike, budget: Budget, *,
                                 rng: np.random.Generator) -> Result:
    """Broken on purpose: the sum's sensitivity divided by n twice — noise n× too small."""
    x = as_matrix(data)
    n, d = x.shape
    return _laplace_mean(_clipped_mean(x), mean_sensitivity(RADIUS, n, d, "laplace") / n,
                         budget, rng)


def mean_with_reused_noise(data: ArrayLike, budget: Budget, *,
                           rng: np.random.Generator) -> Result:
    """Broken on purpose: one Laplace draw added to every coordinate."""
    x = as_matrix(data)
    n, d = x.shape
    return _laplace_mean(_clipped_mean(x), mean_sensitivity(RADIUS, n, d, "laplace"), budget,
                         rng, shared_noise=True)


def mean_with_bound_from_data(data: ArrayLike, budget: Budget, *,
                              rng: np.random.Generator) -> Result:
    """Broken on purpose: the largest row norm passed to the private mean as a public radius."""
    x = as_matrix(data)
    radius = float(np.max(np.linalg.norm(x, axis=1))) or RADIUS  # all rows at 0: any radius
    return private_mean(x, budget, rng=rng, radius=radius, mechanism="laplace")


ANTI_CORNER = np.array([1.0, -1.0]) / math.sqrt(2.0)
SMALL = 1e-3


def _clipping_pair() -> NeighbourPair:
    return replace_row_pair(
        np.zeros((N_ROWS, 2)), 10 * CORNER, -10 * CORNER,
        description=f"n = {N_ROWS} rows in 2-D; row 0 is 10u in D and −10u in D′, far outside "
        "the public unit ball (u = (1, 1)/√2): clipping would have moved both onto the sphere",
        statistic=project("mean", CORNER), statistic_label="the released mean projected on u")


def _corner_pair() -> NeighbourPair:
    return replace_row_pair(
        np.zeros((N_ROWS, 2)), CORNER, -CORNER,
        description=f"n = {N_ROWS} rows in 2-D; row 0 at the corner u = (1, 1)/√2 of the unit "
        "ball in D and at −u in D′ (the worst case of the sensitivity proof)",
        statistic=project("mean", CORNER), statistic_label="the released mean projected on u")


def _reuse_pair() -> NeighbourPair:
    return replace_row_pair(
        np.zeros((N_ROWS, 2)), ANTI_CORNER, -ANTI_CORNER,
        description=f"n = {N_ROWS} rows in 2-D; row 0 at v = (1, −1)/√2 in D and −v in D′: "
        "the rows differ in the difference of the two coordinates",
        statistic=project("mean", ANTI_CORNER),
        statistic_label="the released mean projected on v, (mean₁ − mean₂)/√2, in which the "
                        "shared noise cancels")


def _data_bound_pair() -> NeighbourPair:
    return replace_row_pair(
        np.zeros((N_ROWS, 2)), SMALL * CORNER, CORNER,
        description=f"n = {N_ROWS} rows in 2-D, all at the origin but row 0: {SMALL:g}·u in D, "
        "u on the unit sphere in D′ — the radius read from D is tiny, and so is its noise",
        statistic=norm_of("mean"), statistic_label="the norm of the released mean")


BROKEN_VARIANTS: Mapping[str, BrokenVariant] = MappingProxyType({
    v.name: v for v in (
        BrokenVariant("clipping_skipped", "Mean, clipping skipped",
                      "the noise is calibrated for rows in the unit ball, but rows are never "
                      "clipped to it", mean_without_clipping, _clipping_pair),
        BrokenVariant("sensitivity_over_n", "Mean, sensitivity off by a factor n",
                      "the sum's sensitivity is divided by n twice, so the noise is n× too "
                      "small", mean_with_sensitivity_over_n, _corner_pair),
        BrokenVariant("noise_reused", "Mean, noise reused across coordinates",
                      "one noise draw is added to every coordinate, so differences of "
                      "coordinates are released exactly", mean_with_reused_noise, _reuse_pair),
        BrokenVariant("bound_from_data", "Mean, bound read from the data",
                      "the radius is the largest row norm, read from the data and treated as "
                      "public", mean_with_bound_from_data, _data_bound_pair),
    )})
"""The gallery, in the order the page shows it. Not in :data:`dpviz.estimators.registry.TASKS`."""


def audit_broken(name: str, *, epsilon: float = 1.0, runs: int = AUDIT_RUNS, seed: int = 0,
                 progress: Progress | None = None, white_box: bool = False) -> EstimatorAudit:
    """Audit one broken variant on the pair that exposes its flaw.

    Parameters
    ----------
    name : str
        A key of :data:`BROKEN_VARIANTS`.
    epsilon : float
        The ε it is asked for (and claims in its ledger); finite and > 0.
    runs, seed, progress
        As in :func:`dpviz.lab.audit.audit_estimator`.
    white_box : bool
        Audit its recorded releases (:func:`dpviz.lab.audit.white_box_function`, ``runs``
        draws a side, default :data:`~dpviz.lab.audit.WHITE_BOX_DRAWS`) instead of running
        it ``runs`` times.

    Returns
    -------
    EstimatorAudit
        With ``broken`` set to the flaw.

    Raises
    ------
    ValueError
        An unknown name, or a bad ε, runs or seed.

    Examples
    --------
    >>> a = audit_broken("noise_reused", epsilon=1.0, runs=1_000)
    >>> a.passed, a.result.epsilon_lower > 1.0
    (False, True)
    >>> audit_broken("noise_reused", white_box=True).findings[0][:40]
    'the output differs between the two datas'
    """
    if name not in BROKEN_VARIANTS:
        raise ValueError(f"unknown broken variant {name!r}; choose one of: "
                         f"{', '.join(BROKEN_VARIANTS)}")
    check_audit_budget(epsilon, None)
    variant = BROKEN_VARIANTS[name]
    budget = Budget(epsilon=epsilon)

    def run_once(data: NDArray[np.float64], rng: np.random.Generator) -> Result:
        return variant.function(data, budget, rng=rng)

    label = f"{variant.label} ({BROKEN_LABEL})"
    if white_box:
        draws = WHITE_BOX_DRAWS if runs == AUDIT_RUNS else runs
        return white_box_function(run_once, variant.pair(), task="broken", name=name,
                                  label=label, draws=draws, seed=seed, broken=variant.flaw,
                                  progress=progress)
    return audit_function(run_once, variant.pair(), task="broken", name=name, label=label,
                          runs=runs, seed=seed, progress=progress, broken=variant.flaw)


def catch_advice(audit: EstimatorAudit) -> str:
    """What would catch a variant that ``audit`` did not catch, in plain words.

    Examples
    --------
    >>> catch_advice(audit_broken("noise_reused", epsilon=1.0, white_box=True))[:31]
    'the black-box audit measures it'
    >>> catch_advice(audit_broken("noise_reused", epsilon=6.0))[:53]
    '1,000 runs can show at most about ε ≥ 4.91, below the'
    """
    if audit.method == "white-box":
        if audit.findings:
            return ("the black-box audit measures it (it runs the whole variant and tests its "
                    "output, where the flaw shows)")
        return "more draws, or the black-box audit"
    claim, most = audit.claimed_epsilon, ceiling(audit.runs)
    if claim < most:
        return "more runs, or the white-box audit"
    more = next((r for r in GALLERY_RUNS if ceiling(r) > claim), None)
    white = ceiling(WHITE_BOX_DRAWS)
    instead = (f"{more:,} runs (up to about {ceiling(more):.2f})" if more is not None else
               f"the white-box audit (up to about {white:.2f})" if white > claim else None)
    head = f"{audit.runs:,} runs can show at most about ε ≥ {most:.2f}, below the claim"
    if instead is None:
        return f"{head}, and so can every audit here: a claim this large promises little"
    return f"{head}: {instead} could show more"


def audit_gallery(*, epsilon: float = 1.0, runs: int = AUDIT_RUNS, seed: int = 0,
                  progress: Progress | None = None,
                  white_box: bool = False) -> tuple[EstimatorAudit, ...]:
    """Audit every broken variant; ``progress`` sees the fraction of the whole gallery."""
    out = []
    for i, name in enumerate(BROKEN_VARIANTS):
        def part(fraction: float, i: int = i) -> None:
            if progress is not None:
                progress((i + fraction) / len(BROKEN_VARIANTS))

        out.append(audit_broken(name, epsilon=epsilon, runs=runs, seed=seed, progress=part,
                                white_box=white_box))
        part(1.0)
    return tuple(out)
