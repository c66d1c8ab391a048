"""Private mean of bounded data: the ``mean`` task, with Laplace and Gaussian noise.

Rows are clipped to a public ball ``B(c, R)`` (ALGORITHMS.md §1.3). Under replace-one
neighbours the mean of n rows in that ball moves by at most ``2R/n`` in L2 and ``2R√d/n``
in L1 (``‖x − y‖₁ ≤ √d‖x − y‖₂ ≤ 2R√d``); n is public. The Laplace version is ε-DP; the
Gaussian version takes its σ from the budget solver under the chosen accounting. CoinPress
(:mod:`dpviz.estimators.coinpress_mean`) needs no tight ball: it shrinks a wide prior in steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpviz.core.entry import CostModel, Estimator, Param
from dpviz.core.relations import REPLACE_ONE
from dpviz.data import as_matrix
from dpviz.estimators import coinpress_mean
from dpviz.estimators.neighbours import mean_pair
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, BudgetError, Ledger, PlannedRelease, clip_to_ball, release, solve
from dpviz.privacy.bounds import count_outside, resolve_ball

Mechanism = Literal["laplace", "gaussian"]


def mean_sensitivity(radius: float, n: int, d: int, mechanism: Mechanism) -> float:
    """Replace-one sensitivity of the mean of n rows in a ball of radius R.

    L1 (``2R√d/n``) for Laplace, L2 (``2R/n``) for Gaussian.

    Examples
    --------
    >>> mean_sensitivity(1.0, 100, 4, "laplace"), mean_sensitivity(1.0, 100, 4, "gaussian")
    (0.04, 0.02)
    """
    l2 = 2 * radius / n
    return l2 * math.sqrt(d) if mechanism == "laplace" else l2


def private_mean(data: ArrayLike, budget: Budget, *, rng: np.random.Generator,
                 radius: float | str | None = None, center: ArrayLike | None = None,
                 mechanism: Mechanism = "laplace") -> Result:
    """Release the mean of the rows, clipped to a public ball, with Laplace or Gaussian noise.

    Parameters
    ----------
    data : array-like
        n × d (or a column of n values).
    budget : Budget
        The target; a Gaussian release needs δ > 0 (unless ε = ∞).
    rng : numpy.random.Generator
        The noise source.
    radius : float, "data" or None
        Public radius R of the ball (``None``: the unit ball; ``"data"``: read from the data,
        not private).
    center : array-like, optional
        The ball's public centre (default: the origin).
    mechanism : {"laplace", "gaussian"}
        The noise.

    Returns
    -------
    Result
        ``estimate["mean"]``; ``diagnostics["true_mean"]`` is the clipped data's mean
        (ground truth for plots, not a release).

    Raises
    ------
    ValueError
        Bad data, or a budget the mechanism cannot meet.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> r = private_mean([[0.2], [0.4]], Budget(epsilon=float("inf")),
    ...                  rng=np.random.default_rng(0))
    >>> r.estimate["mean"].round(3).tolist()
    [0.3]
    """
    if (mechanism == "gaussian" and budget.rho is None and budget.delta == 0
            and not budget.non_private):
        raise BudgetError("the Gaussian mean needs delta > 0; use the Laplace mean for pure DP")
    x = as_matrix(data)
    n, d = x.shape
    ball = resolve_ball(x, radius, center)
    clipped = clip_to_ball(x, ball.center, ball.radius)
    true_mean = clipped.mean(axis=0)
    sensitivity = mean_sensitivity(ball.radius, n, d, mechanism)
    allocation = solve([PlannedRelease("mean", mechanism, sensitivity)], budget)["mean"]
    ledger = Ledger(budget)
    noisy = np.atleast_1d(release(true_mean, allocation, rng=rng, ledger=ledger))
    clipped_rows = count_outside(np.linalg.norm(x - ball.center, axis=1), ball.radius)
    choices = {"bound": ball.describe(), "radius": ball.radius, "center": ball.center,
               "sensitivity": sensitivity,
               "sensitivity norm": "L1" if mechanism == "laplace" else "L2"}
    if mechanism == "gaussian":
        choices["gaussian calibration"] = "classic" if budget.paper_mode else "analytic"
    return Result(
        estimate={"mean": noisy}, ledger=ledger, choices=choices, not_private=ball.not_private,
        diagnostics={"true_mean": true_mean, "noise_scale": ledger.releases[-1].scale,
                     "allocation": allocation,
                     "rows_clipped": clipped_rows})


CENTER = Param("center", "float", 0.0, min=-1e12, max=1e12,
               help="public centre of the clipping ball, the same value in every column")


def _mean_with(mechanism: Mechanism) -> Callable[..., Result]:
    def run(data: ArrayLike, budget: Budget, *, rng: np.random.Generator,
            radius: float | str | None = None, center: float = 0.0) -> Result:
        x = as_matrix(data)
        return private_mean(x, budget, rng=rng, radius=radius,
                            center=np.full(x.shape[1], center), mechanism=mechanism)

    run.__doc__ = f"The private mean with {mechanism} noise (see :func:`private_mean`)."
    return run


ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "laplace": Estimator(
        task="mean", name="laplace", function=_mean_with("laplace"),
        relation=REPLACE_ONE,
        cost=CostModel(2.7e-08, base_seconds=0.018, bytes_per_unit=26.0),
        neighbours=mean_pair,
        label="Laplace mean", paper="Dwork, McSherry, Nissim & Smith 2006 (Laplace mechanism)",
        notion="pure", outputs=("mean",), params=(CENTER,)),
    "gaussian": Estimator(
        task="mean", name="gaussian", function=_mean_with("gaussian"),
        relation=REPLACE_ONE,
        cost=CostModel(2.7e-08, base_seconds=0.048, bytes_per_unit=26.0),
        neighbours=mean_pair,
        label="Gaussian mean",
        paper="Dwork & Roth 2014 App. A; Balle & Wang 2018 (analytic Gaussian)",
        notion="approximate", outputs=("mean",), params=(CENTER,)),
    "coinpress": Estimator(
        task="mean", name="coinpress", function=coinpress_mean.coinpress_mean,
        relation=REPLACE_ONE,
        cost=CostModel(3.2e-07, bytes_per_unit=34.0),
        neighbours=coinpress_mean.coinpress_pair,
        label="CoinPress mean (prior ball shrunk in private steps)",
        paper="Biswas, Dong, Kamath & Ullman 2020, CoinPress (NeurIPS), Algorithms 1-2",
        notion="zCDP", outputs=("mean",), params=(CENTER, *coinpress_mean.PARAMS)),
})
