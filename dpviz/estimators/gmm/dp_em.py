"""DP-EM: expectation maximisation for Gaussian mixtures with a perturbed M-step.

Park, Foulds, Chaudhuri & Welling, "DP-EM: Differentially Private Expectation
Maximization", AISTATS 2017 (seed 002), Algorithm 1 with the GGG and LLG scenarios, as
restated in ALGORITHMS.md §2, which this module follows everywhere:

* rows are clipped to a public ball and mapped onto the unit ball, where the sensitivities
  below hold (replace-one neighbours); the paper's max-norm scaling (read from the data, not
  private) is used only in paper mode, with the not-private flag;
* the initialisation is data-independent (drawn from the generator) — or, as a labelled
  option, the centres of J₀ private Lloyd iterations (DPLloyd, planned in the same budget
  solve and charged to the same ledger) — and EM runs **exactly J noisy M-steps** — no
  convergence test on private data;
* the E-step uses only the previously *released* parameters, so replacing row j changes only
  row j's responsibilities γⱼ (a probability vector over the k components);
* each iteration releases the weights ``π = Σᵢγᵢ/n`` (L2 sensitivity √2/n, L1 2/n), then for
  each component the mean ``Sₖ/Ñₖ`` (``Sₖ = Σᵢγᵢₖxᵢ``; L2 2/Ñₖ, L1 2√d/Ñₖ, valid because
  ``Ñₖ = max(nπ̃ₖ, n_min)`` is already private) and the covariance
  ``Mₖ/Ñₖ − μ̃ₖμ̃ₖᵀ`` (``Mₖ = Σᵢγᵢₖxᵢxᵢᵀ``; Frobenius √2/Ñₖ by the rank-one fact
  ``‖a·xxᵀ − b·yyᵀ‖²_F ≤ a² + b²`` for ‖x‖, ‖y‖ ≤ 1, or the paper's 2/Ñₖ in paper mode),
  projected onto the PSD cone with eigenvalues floored at λ_min.

GGG releases all three with Gaussian noise (2k + 1 releases per iteration); LLG releases the
weights and means with Laplace noise and the covariances with Gaussian noise. The budget is
split by the solver of ``dpviz.privacy`` with equal weights — every Gaussian release gets the
same noise multiplier σ/Δ and every Laplace release the same ε — which is the paper's split;
each release then draws its noise at that multiplier times its own sensitivity, so the
accounting (which depends only on Δ/σ) is exactly the plan's.

The *joint release* option (beyond the paper, labelled, default off) adds one Gaussian to all
k weighted sums at once — joint L2 sensitivity 2 for (S₁ … S_k) since
``Σₖ‖γⱼₖx − γ′ⱼₖy‖² ≤ Σₖ(γⱼₖ + γ′ⱼₖ)² ≤ 4`` — and one to all k second-moment sums — joint
Frobenius sensitivity √2, since ``Σₖ‖γⱼₖxxᵀ − γ′ⱼₖyyᵀ‖²_F ≤ Σₖγⱼₖ² + γ′ⱼₖ² ≤ 2`` (ALGORITHMS.md
says ≤ 2 for the means; the √2 for the second moments is derived here the same way): three
releases per iteration instead of 2k + 1, and big components get less noise.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import solve_triangular
from scipy.special import logsumexp

from dpviz.core import limits
from dpviz.core.entry import CostModel, Estimator, Param, shared_k
from dpviz.core.linalg import project_psd
from dpviz.core.relations import REPLACE_ONE
from dpviz.data import as_matrix
from dpviz.estimators.gmm.dplloyd import lloyd_iterations, lloyd_sensitivity
from dpviz.estimators.neighbours import mixture_pair
from dpviz.estimators.result import Result
from dpviz.privacy import (
    Allocation,
    Budget,
    BudgetError,
    Ledger,
    PlannedRelease,
    release,
    solve,
    symmetric_gaussian,
)
from dpviz.privacy.bounds import Ball, clip_to_ball, resolve_ball
from dpviz.privacy.errors import PrivacyLeakWarning
from dpviz.privacy.solver import PlannedMechanism

Scenario = Literal["GGG", "LLG"]
Initialisation = Literal["uniform", "dplloyd"]
INITIALISATIONS = ("uniform", "dplloyd")
#: The default start: a few private Lloyd iterations, charged (ALGORITHMS.md §2 allows "an
#: earlier private step charged to the ledger"); from the uniform start the noisy M-steps
#: rarely separate the components at ε ≤ 2 (measured, bench/gmm.py).
INITIALISATION: Initialisation = "dplloyd"

#: The constants the paper leaves open (ALGORITHMS.md §2, "choice").
N_MIN = 1.0
EIGEN_FLOOR = 1e-3
#: c of the noise-aware eigenvalue floor c·√d·σₖ (0: off, the paper's projection only). With
#: the private Lloyd start it halves DP-EM's matched mean error at the default scenario
#: (measured, bench/gmm.py).
NOISE_FLOOR = 1.0
# ALGORITHMS.md §2 starts from Σₖ = I. On unit-ball data that is far broader than any
# component, and EM then leaves the symmetric start slowly: measured, non-private EM (k = 3,
# d = 2, separation 6σ, J = 20, 20 seeds) reaches the optimum from 50% of starts with I and
# from 95% with 0.1·I. Still data-independent; a labelled choice.
INITIAL_VARIANCE = 0.1
# The private (DPLloyd) start: its centres already sit on the components, so the start's
# covariances are small — public, a labelled choice (unit-ball units).
LLOYD_START_VARIANCE = 0.01
#: Defaults of the DPLloyd start, chosen by measurement (see ``dp_em``'s notes).
INIT_ITERATIONS = 3
#: J, the noisy M-steps by default: after the private start, every further noisy M-step adds
#: noise faster than it adds fit at n = 10 000 (measured: J = 3, 5, 10 give 0.018, 0.020,
#: 0.033 matched mean error at ε = 1 on the default scenario).
DEFAULT_ITERATIONS = 5
#: Iterations of each start that non-private EM screens when it has several
#: (:func:`nonprivate_em`): separated clusters have found their basin by then.
SCREEN_ITERATIONS = 10
#: The most rows those screening runs read (every ⌈n/5 000⌉-th row).
SCREEN_ROWS = 5_000
#: How many starts non-private EM may screen.
STARTS_RANGE = limits.Limit("starts", 1, 50)
INIT_SHARE = 0.2
INIT_RELEASE = "initial counts and sums"


@dataclass(frozen=True)
class MixtureParameters:
    """Weights (k), means (k × d) and covariances (k × d × d) of a Gaussian mixture."""

    weights: NDArray[np.float64]
    means: NDArray[np.float64]
    covariances: NDArray[np.float64]


def initial_parameters(k: int, d: int, rng: np.random.Generator,
                       variance: float = INITIAL_VARIANCE) -> MixtureParameters:
    """The data-independent start: means uniform in ``[−0.5, 0.5]ᵈ/√d``, ``Σₖ = variance·I``.

    Weights are uniform. Everything is drawn from ``rng`` and nothing from the data.

    Examples
    --------
    >>> p = initial_parameters(3, 2, np.random.default_rng(0))
    >>> p.weights.tolist(), p.means.shape, p.covariances.shape
    ([0.3333333333333333, 0.3333333333333333, 0.3333333333333333], (3, 2), (3, 2, 2))
    """
    means = rng.uniform(-0.5, 0.5, size=(k, d)) / math.sqrt(d)
    covariances = np.repeat(variance * np.eye(d)[None], k, axis=0)
    return MixtureParameters(np.full(k, 1.0 / k), means, covariances)


def responsibilities(x: NDArray[np.float64], params: MixtureParameters) -> NDArray[np.float64]:
    """The E-step: γᵢₖ ∝ πₖ N(xᵢ | μₖ, Σₖ), computed in log space (n × k).

    Components with zero weight get zero responsibility. Computed component by component
    (a k × n array, returned transposed): with k of 2–10 columns, numpy's reductions across a
    row cost 4–10× those down whole columns.
    """
    log_weighted = weighted_log_densities(x, params).T  # k × n, C order
    log_weighted -= log_weighted.max(axis=0)
    np.exp(log_weighted, out=log_weighted)
    log_weighted /= log_weighted.sum(axis=0)
    return log_weighted.T


def weighted_log_densities(x: NDArray[np.float64],
                           params: MixtureParameters) -> NDArray[np.float64]:
    """``log πₖ + log N(xᵢ | μₖ, Σₖ)`` for every row and component (n × k; −∞ at πₖ = 0)."""
    log_weighted = component_log_densities(x, params.means, params.covariances)
    with np.errstate(divide="ignore"):
        log_weighted += np.log(params.weights)[None, :]
    return log_weighted


def component_log_densities(x: NDArray[np.float64], means: NDArray[np.float64],
                            covariances: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log N(xᵢ | μₖ, Σₖ)`` for every row and component (n × k, a transposed k × n array).

    With ``Σ = LLᵀ``, the Mahalanobis term is ``‖L⁻¹(xᵢ − μ)‖²``: one matrix product per
    component, in columns (d × n), whose squares are summed down the d rows.
    """
    n, d = x.shape
    out = np.empty((len(means), n))
    constant = d * math.log(2 * math.pi)
    for j, (mean, cov) in enumerate(zip(means, covariances, strict=True)):
        chol = np.linalg.cholesky(cov)
        whiten = solve_triangular(chol, np.eye(d), lower=True, check_finite=False)  # L⁻¹
        z = whiten @ x.T
        z -= (whiten @ mean)[:, None]
        z *= z
        np.sum(z, axis=0, out=out[j])
        out[j] += 2.0 * np.sum(np.log(np.diag(chol))) + constant
        out[j] *= -0.5
    return out.T


@dataclass(frozen=True)
class _Sensitivities:
    """Replace-one sensitivities on the unit ball (ALGORITHMS.md §2)."""

    weights_l1: float
    weights_l2: float
    mean_l1_times_n: float  # times 1/Ñₖ
    mean_l2_times_n: float
    covariance_times_n: float
    joint_means: float = 2.0
    joint_second_moments: float = math.sqrt(2.0)

    @classmethod
    def for_data(cls, n: int, d: int, paper_mode: bool) -> _Sensitivities:
        return cls(weights_l1=2.0 / n, weights_l2=(2.0 if paper_mode else math.sqrt(2.0)) / n,
                   mean_l1_times_n=2.0 * math.sqrt(d), mean_l2_times_n=2.0,
                   covariance_times_n=2.0 if paper_mode else math.sqrt(2.0))


def _plan(scenario: Scenario, k: int, iterations: int, joint: bool) -> list[PlannedRelease]:
    """The releases of J iterations, at unit sensitivity: the solver returns multipliers."""
    mean_mechanism: PlannedMechanism = "gaussian" if scenario == "GGG" or joint else "laplace"
    weights_mechanism: PlannedMechanism = "gaussian" if scenario == "GGG" else "laplace"
    per_iteration = 1 if joint else k
    return [PlannedRelease("weights", weights_mechanism, 1.0, count=iterations),
            PlannedRelease("means", mean_mechanism, 1.0, count=iterations * per_iteration),
            PlannedRelease("covariances", "gaussian", 1.0, count=iterations * per_iteration)]


def _start_weight(plan: list[PlannedRelease], share: float, iterations: int) -> float:
    """Weight of each of the start's J₀ releases so that it takes ``share`` of the plan.

    The share is of ``Σ count·w²`` — the plan's squared levels, i.e. of ρ under zCDP (and
    a ρ budget), the default accounting; the other methods spend about in that proportion.
    """
    rest = sum(r.count * r.weight**2 for r in plan)
    return math.sqrt(share / (1.0 - share) * rest / iterations)


def _own(allocation: Allocation, l2: float, l1: float) -> float:
    """The release's sensitivity in its mechanism's norm (L1 for Laplace, L2 for Gaussian)."""
    return l1 if allocation.release.mechanism == "laplace" else l2


def _m_step(x: NDArray[np.float64], gamma: NDArray[np.float64], plan: Mapping[str, Allocation],
            sens: _Sensitivities, *, joint: bool, floor: float, noise_floor: float,
            n_min: float, iteration: int, rng: np.random.Generator,
            ledger: Ledger, columns: NDArray[np.float64]) -> MixtureParameters:
    """One perturbed M-step on unit-ball data (ALGORITHMS.md §2, steps 1–3).

    ``columns``: ``x`` transposed into C order (d × n), made once per run, so that each
    second-moment product reads whole rows.
    """
    n, d = x.shape
    k = gamma.shape[1]
    label = f"iteration {iteration + 1}"
    weights = gamma.sum(axis=0) / n
    noisy_weights = np.asarray(release(
        weights, plan["weights"], sensitivity=_own(plan["weights"], sens.weights_l2,
                                                   sens.weights_l1),
        rng=rng, ledger=ledger, name=f"weights, {label}"))
    noisy_weights = np.clip(noisy_weights, 0.0, 1.0)
    total = noisy_weights.sum()
    noisy_weights = noisy_weights / total if total > 0 else np.full(k, 1.0 / k)
    counts = np.maximum(n * noisy_weights, n_min)

    by_component = gamma.T  # k × n (C order from :func:`responsibilities`)
    sums = by_component @ x  # k × d
    second = np.stack([(columns * by_component[j]) @ x for j in range(k)])  # k × d × d, BLAS
    if joint:
        noisy_sums = np.asarray(release(sums, plan["means"], sensitivity=sens.joint_means,
                                        rng=rng, ledger=ledger,
                                        name=f"mean sums (all components), {label}"))
        means = noisy_sums / counts[:, None]
        noisy_second = _joint_second_moments(second, plan["covariances"], sens, rng=rng,
                                             ledger=ledger, name=f"second moments, {label}")
        covariances = [noisy_second[j] / counts[j] - np.outer(means[j], means[j])
                       for j in range(k)]
        noise_sd = plan["covariances"].scale_for(sens.joint_second_moments) / counts
    else:
        means = np.empty((k, d))
        covariances = []
        for j in range(k):
            means[j] = release(sums[j] / counts[j], plan["means"],
                               sensitivity=_own(plan["means"], sens.mean_l2_times_n / counts[j],
                                                sens.mean_l1_times_n / counts[j]),
                               rng=rng, ledger=ledger, name=f"mean {j + 1}, {label}")
            released = symmetric_gaussian(
                second[j] / counts[j], sensitivity=sens.covariance_times_n / counts[j],
                sigma=plan["covariances"].scale_for(sens.covariance_times_n / counts[j]),
                rng=rng,
                ledger=ledger, name=f"covariance {j + 1}, {label}")
            covariances.append(released - np.outer(means[j], means[j]))
        noise_sd = np.array([plan["covariances"].scale_for(sens.covariance_times_n / c)
                             for c in counts])
    # Post-processing with public knowledge: every true mean lies in the unit ball, and every
    # covariance of a distribution on it has eigenvalues at most 1.
    means = clip_to_ball(means, np.zeros(d), 1.0)
    floors = np.maximum(floor, noise_floor * math.sqrt(d) * noise_sd)
    projected = np.stack([project_psd(c, f, cap=1.0) for c, f in zip(covariances, floors,
                                                                        strict=True)])
    return MixtureParameters(noisy_weights, means, projected)


def _joint_second_moments(second: NDArray[np.float64], allocation: Allocation,
                          sens: _Sensitivities, *, rng: np.random.Generator, ledger: Ledger,
                          name: str) -> NDArray[np.float64]:
    """SymGauss on all k second-moment sums at once: one Gaussian release.

    The upper triangles (diagonal included) of the k matrices form one vector whose L2
    sensitivity is at most their joint Frobenius sensitivity √2; noise is mirrored below the
    diagonal, exactly as :func:`dpviz.privacy.symmetric_gaussian` does for one matrix.
    """
    k, d, _ = second.shape
    rows, cols = np.triu_indices(d)
    upper = second[:, rows, cols]  # k × d(d+1)/2
    noisy = np.asarray(release(upper, allocation, sensitivity=sens.joint_second_moments,
                               rng=rng, ledger=ledger, name=name))
    out = np.empty_like(second)
    out[:, rows, cols] = noisy
    out[:, cols, rows] = noisy
    return out


def _in_data_units(params: MixtureParameters, ball: Ball) -> MixtureParameters:
    return MixtureParameters(params.weights.copy(), ball.from_unit(params.means),
                             ball.covariance_from_unit(params.covariances))


def check_components(k: int, n: int) -> int:
    """Validate the number of components against the data."""
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k}")
    if k > n:
        raise ValueError(f"k = {k} components need at least {k} rows; the data have {n}")
    return int(k)


def dp_em(data: ArrayLike, budget: Budget, *, k: int, iterations: int = DEFAULT_ITERATIONS,
          rng: np.random.Generator, radius: float | str | None = None,
          scenario: Scenario = "GGG", joint_release: bool = False,
          eigen_floor: float = EIGEN_FLOOR, noise_floor: float = NOISE_FLOOR,
          n_min: float = N_MIN, initial_variance: float = INITIAL_VARIANCE,
          initialisation: Initialisation = INITIALISATION, init_iterations: int = INIT_ITERATIONS,
          init_share: float = INIT_SHARE, start_means: ArrayLike | None = None) -> Result:
    """Fit a k-component Gaussian mixture with DP-EM (seed 002, Algorithm 1; ALGORITHMS.md §2).

    Parameters
    ----------
    data : array-like
        n × d rows, one per person.
    budget : Budget
        The target guarantee and accounting method; Gaussian releases need δ > 0.
    k : int
        Number of components.
    iterations : int
        J, the number of noisy M-steps (exactly; no convergence test on private data).
    rng : numpy.random.Generator
        Draws the initialisation and every noise.
    radius : float, "data" or None
        The public ball rows are clipped to (default the unit ball). In paper mode without a
        radius, the paper's max-norm scaling is used and the result is marked not private.
    scenario : {"GGG", "LLG"}
        Gaussian noise everywhere, or Laplace for weights and means.
    joint_release : bool
        Release the k mean sums and the k second-moment sums jointly (beyond the paper).
    eigen_floor : float
        λ_min of the PSD projection, in unit-ball units (choice, the authors' 1e-3).
    noise_floor : float
        c in a second, noise-aware floor ``c·√d·σₖ`` on the eigenvalues of component k's
        released covariance, where σₖ is the standard deviation of the noise on each of its
        entries (public: it is set by the budget and the already released Ñₖ, so the floor is
        post-processing). ``2√d·σₖ`` is about the spectral norm of that noise: eigenvalues
        below it cannot be told from noise. 0 turns it off (choice, beyond the paper).
    n_min : float
        Floor of the noisy component sizes Ñₖ (choice).
    initial_variance : float
        The starting covariances are this times I, in unit-ball units (choice; see
        :data:`INITIAL_VARIANCE`). Used by the uniform start.
    initialisation : {"uniform", "dplloyd"}
        ``uniform``: the data-independent start. ``dplloyd`` (a labelled option): the start's
        means are the centres of ``init_iterations`` private Lloyd iterations (DPLloyd, from
        uniform centres drawn as above) on the same unit-ball rows, each releasing noisy
        counts and sums at L1 sensitivity 2(d + 1); they are planned in the same budget
        solve as the M-steps, so the ledger's total is still the budget. Covariances start
        at :data:`LLOYD_START_VARIANCE`·I, weights uniform.
    init_iterations : int
        J₀, the Lloyd iterations of the private start (1 … 200).
    init_share : float
        The private start's share (strictly between 0 and 1) of the plan's squared levels
        ``Σ count·w²`` — its share of ρ under zCDP.
    start_means : array-like, optional
        k × d means (data units) to start from instead of the drawn ones, for EM without
        noise only (``budget`` non-private): the ``em`` reference's starts read from the rows
        (:func:`nonprivate_em`). A start read from the data is not private, so any finite
        budget refuses it.

    Returns
    -------
    Result
        ``estimate``: ``weights``, ``means``, ``covariances`` in data units;
        ``diagnostics["trajectory"]``: the start (with ``dplloyd``, the Lloyd centres), then
        the parameters after each iteration; with ``dplloyd`` also
        ``diagnostics["start_centres"]`` ((J₀ + 1) × k × d, data units: the Lloyd replay).

    Raises
    ------
    ValueError
        Bad data, k, iterations or a budget the plan cannot meet.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> x = np.random.default_rng(0).normal(size=(400, 2)) * 0.1
    >>> r = dp_em(x, Budget(epsilon=1.0, delta=1e-5), k=2, iterations=5,
    ...           rng=np.random.default_rng(0))
    >>> r.estimate["means"].shape, round(r.ledger.total().epsilon, 6)
    ((2, 2), 1.0)
    """
    x = as_matrix(data)
    n, d = x.shape
    k = check_components(k, n)
    if isinstance(iterations, bool) or int(iterations) != iterations or not 1 <= iterations <= 500:
        raise ValueError(f"iterations must be a whole number >= 1 and <= 500, got {iterations}")
    if scenario not in ("GGG", "LLG"):
        raise ValueError(f"scenario must be GGG or LLG, got {scenario!r}")
    if not eigen_floor > 0:
        raise ValueError(f"eigen_floor must be > 0, got {eigen_floor}")
    if not n_min > 0:
        raise ValueError(f"n_min must be > 0, got {n_min}")
    if not initial_variance > 0:
        raise ValueError(f"initial_variance must be > 0, got {initial_variance}")
    if initialisation not in INITIALISATIONS:
        raise ValueError(f"initialisation must be uniform or dplloyd, got {initialisation!r}")
    if (isinstance(init_iterations, bool) or int(init_iterations) != init_iterations
            or not 1 <= init_iterations <= 200):
        raise ValueError("init_iterations must be a whole number >= 1 and <= 200, got "
                         f"{init_iterations}")
    if not 0 < init_share < 1:
        raise ValueError(f"init_share must be > 0 and < 1, got {init_share}")
    if start_means is not None and not budget.non_private:
        raise ValueError("a start read from the data is for EM without noise only: with a "
                         "privacy budget the start must not depend on the rows")
    if budget.rho is None and budget.delta == 0 and not budget.non_private:
        raise BudgetError("DP-EM releases its covariances with Gaussian noise, which needs "
                          "delta > 0")
    if budget.paper_mode and radius is None:
        radius = "data"  # the paper's max-norm scaling, flagged not private
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ball = resolve_ball(x, radius)
    for warning in caught:
        warnings.warn(warning.message, warning.category, stacklevel=2)
    unit = ball.to_unit(x)
    iterations = int(iterations)
    init_iterations = int(init_iterations)
    plan = _plan(scenario, k, iterations, joint_release)
    private_start = initialisation == "dplloyd"
    if private_start:
        plan.append(PlannedRelease(INIT_RELEASE, "laplace", 1.0, count=init_iterations,
                                   weight=_start_weight(plan, init_share, init_iterations)))
    allocations = solve(plan, budget)
    sens = _Sensitivities.for_data(n, d, budget.paper_mode)
    ledger = Ledger(budget)
    params = initial_parameters(k, d, rng, initial_variance)
    if start_means is not None:
        params = MixtureParameters(params.weights, ball.to_unit(as_matrix(start_means)),
                                   params.covariances)
    diagnostics: dict[str, Any] = {}
    if private_start:
        run = lloyd_iterations(unit, params.means, allocations[INIT_RELEASE],
                               iterations=init_iterations, rng=rng, ledger=ledger,
                               name=INIT_RELEASE)
        params = MixtureParameters(
            np.full(k, 1.0 / k), run.centres[-1],
            np.repeat(LLOYD_START_VARIANCE * np.eye(d)[None], k, axis=0))
        diagnostics["start_centres"] = np.stack([ball.from_unit(c) for c in run.centres])
        start = (f"private: the centres of {init_iterations} DPLloyd iterations (noisy counts "
                 "and sums, L1 sensitivity 2(d + 1), Laplace) from means uniform in "
                 "[-0.5, 0.5]^d / sqrt(d) on the unit ball; covariances "
                 f"{LLOYD_START_VARIANCE:g}·I (public choice), uniform weights; planned in "
                 "the same budget solve as the M-steps")
    else:
        start = ("data-independent: means uniform in [-0.5, 0.5]^d / sqrt(d) on the unit "
                 f"ball, covariances {initial_variance:g}·I, uniform weights")
    if start_means is not None:
        start = ("read from the rows (EM without noise only): the given means"
                 + (f", then {init_iterations} Lloyd iterations" if private_start else ""))
    trajectory = [_in_data_units(params, ball)]
    columns = np.ascontiguousarray(unit.T)
    for iteration in range(iterations):
        gamma = responsibilities(unit, params)
        params = _m_step(unit, gamma, allocations, sens, joint=joint_release,
                         floor=eigen_floor, noise_floor=noise_floor, n_min=n_min,
                         iteration=iteration, rng=rng, ledger=ledger, columns=columns)
        trajectory.append(_in_data_units(params, ball))
    final = trajectory[-1]
    z = {name: a.multiplier for name, a in allocations.items()}
    choices: dict[str, Any] = {
        "bound": ball.describe(), "radius": ball.radius,
        "scenario": scenario, "iterations": iterations, "joint release": joint_release,
        "initialisation": start,
        "budget split": "equal: every Gaussian release the same sigma/sensitivity, every "
                        "Laplace release the same epsilon (the paper's)",
        "delta split": "linear: delta / (number of Gaussian releases) each; advanced: "
                       "delta/2 kept for the composition, delta / (2 x number) each; other "
                       "methods compose the Gaussians directly",
        "noise multipliers": z, "n_min": n_min, "eigenvalue floor (unit-ball units)": eigen_floor,
        "noise-aware eigenvalue floor c (c·sqrt(d)·noise sd)": noise_floor,
        "covariance sensitivity": ("2/N_k (paper)" if budget.paper_mode
                                   else "sqrt(2)/N_k (rank-one bound)"),
        "weights sensitivity": ("L1 2/n, L2 2/n (paper)" if budget.paper_mode
                                else "L1 2/n, L2 sqrt(2)/n"),
    }
    if private_start:
        start_allocation = allocations[INIT_RELEASE]
        choices["initial iterations"] = init_iterations
        choices["initial share"] = init_share
        choices["initial share means"] = (
            "the start's fraction of the plan's squared levels (sum of count x weight^2): "
            "its share of rho under zCDP")
        choices["initial sensitivity"] = lloyd_sensitivity(d)
        choices["initial epsilon per iteration"] = start_allocation.epsilon
    return Result(
        estimate={"weights": final.weights, "means": final.means,
                  "covariances": final.covariances},
        ledger=ledger, choices=choices, not_private=ball.not_private,
        diagnostics={"trajectory": tuple(trajectory), "ball": ball, **diagnostics})


def _registered(data: ArrayLike, budget: Budget, *, rng: np.random.Generator,
                radius: float | str | None = None, k: int, iterations: int = DEFAULT_ITERATIONS,
                scenario: Scenario = "GGG", joint_release: bool = False,
                eigen_floor: float = EIGEN_FLOOR, noise_floor: float = NOISE_FLOOR,
                n_min: float = N_MIN, initial_variance: float = INITIAL_VARIANCE,
                initialisation: Initialisation = INITIALISATION,
                init_iterations: int = INIT_ITERATIONS,
                init_share: float = INIT_SHARE) -> Result:
    """DP-EM as the registry calls it."""
    return dp_em(data, budget, k=k, iterations=iterations, rng=rng, radius=radius,
                 scenario=scenario, joint_release=joint_release, eigen_floor=eigen_floor,
                 noise_floor=noise_floor, n_min=n_min, initial_variance=initial_variance,
                 initialisation=initialisation, init_iterations=init_iterations,
                 init_share=init_share)


def nonprivate_em(data: ArrayLike, budget: Budget, *, rng: np.random.Generator,
                  radius: float | str | None = None, k: int,
                  iterations: int = DEFAULT_ITERATIONS, eigen_floor: float = EIGEN_FLOOR,
                  initial_variance: float = INITIAL_VARIANCE,
                  initialisation: Initialisation = INITIALISATION,
                  init_iterations: int = INIT_ITERATIONS, starts: int = 1) -> Result:
    """The same EM without noise (the ``em`` reference; not private), from DP-EM's start.

    With the ``dplloyd`` start, the start is the same Lloyd iterations without noise. With
    ``starts`` > 1, EM runs :data:`SCREEN_ITERATIONS` iterations from each of that many
    starts on at most :data:`SCREEN_ROWS` evenly spaced rows, then the full ``iterations``
    on every row from the start of the highest likelihood (:func:`log_likelihood`), as
    scikit-learn's ``n_init`` keeps its best. The first start is ``rng``'s, DP-EM's own; the
    others are read from the rows (:func:`seeded_means`, seeds drawn from ``rng``), which a
    reference without noise may do. Data-independent starts alone fail on rows that sit in a
    corner of the bound: the start nearest the rows takes them all and the other components
    stay empty. On iris' sepals (150 rows in cm, radius 10) all ten such starts left a
    component of weight 0 at the origin, so every private run was scored about 2.4 cm off
    that empty component. The screens use the full table's bound (with ``radius="data"``,
    every row's radius, not the sample's). ``starts = 1`` is the single run, drawing from
    ``rng`` as before.

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=(300, 2)) * 0.1
    >>> r = nonprivate_em(x, Budget(epsilon=1.0), k=2, rng=np.random.default_rng(0), starts=3)
    >>> r.choices["starts"], r.estimate["means"].shape
    (3, (2, 2))
    """
    starts = limits.check_integer(STARTS_RANGE, starts)
    x = as_matrix(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the fit below says it
        ball = resolve_ball(x, radius)  # "data": all rows' radius, for the screens too

    def fit(rows: NDArray[np.float64], start: np.random.Generator, steps: int,
            bound: float | str | None, means: NDArray[np.float64] | None) -> Result:
        return dp_em(rows, Budget(epsilon=math.inf), k=k, iterations=steps,
                     rng=start, radius=bound, eigen_floor=eigen_floor,
                     initial_variance=initial_variance, initialisation=initialisation,
                     init_iterations=init_iterations, start_means=means)

    best: tuple[np.random.Generator, NDArray[np.float64] | None] = (rng, None)
    if starts > 1:
        generators = [copy.deepcopy(rng)] + [np.random.default_rng(rng.integers(2**63, size=4))
                                             for _ in range(starts - 1)]
        sample = x[::-(-len(x) // SCREEN_ROWS)]
        bound = None if ball.source == "default" else ball.radius
        clipped = ball.from_unit(ball.to_unit(sample))
        begun = [(generators[0], None)] + [(g, seeded_means(clipped, k, g))
                                           for g in generators[1:]]
        screens = [fit(sample, copy.deepcopy(g), min(iterations, SCREEN_ITERATIONS), bound,
                       means) for g, means in begun]
        likelihoods = np.nan_to_num([log_likelihood(clipped, s.estimate) for s in screens],
                                    nan=-np.inf)
        best = begun[int(np.argmax(likelihoods))]
    result = fit(x, best[0], iterations, radius, best[1])
    return Result(estimate=result.estimate, ledger=Ledger(budget),
                  choices={**result.choices, "noise": "none: non-private reference",
                           "starts": starts},
                  not_private="non-private reference: no noise is added",
                  diagnostics=result.diagnostics)


def seeded_means(rows: NDArray[np.float64], k: int,
                 rng: np.random.Generator) -> NDArray[np.float64]:
    """k-means++ seeding (Arthur & Vassilvitskii 2007) on ``rows``: k of its rows.

    scikit-learn's greedy form: each further row is the best of 2 + ⌊ln k⌋ candidates, each
    drawn with probability proportional to its squared distance to the nearest row kept so
    far. Reads the rows, so it starts non-private EM only (:func:`nonprivate_em`).

    Examples
    --------
    >>> x = np.array([[0.0, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0]])
    >>> m = seeded_means(x, 2, np.random.default_rng(0))
    >>> sorted(bool(row[0] > 2) for row in m)
    [False, True]
    """
    from sklearn.cluster import kmeans_plusplus

    centres, _ = kmeans_plusplus(rows, k, random_state=int(rng.integers(2**31 - 1)))
    return np.asarray(centres, dtype=float)


def log_likelihood(x: NDArray[np.float64], estimate: Mapping[str, Any]) -> float:
    """The mixture's log-likelihood of the rows ``x`` (weights, means, covariances).

    Examples
    --------
    >>> one = {"weights": np.ones(1), "means": np.zeros((1, 1)), "covariances": np.ones((1, 1, 1))}
    >>> round(log_likelihood(np.zeros((1, 1)), one), 4)  # log N(0 | 0, 1)
    -0.9189
    """
    params = MixtureParameters(*(np.asarray(estimate[part], dtype=float)
                                 for part in ("weights", "means", "covariances")))
    return float(logsumexp(weighted_log_densities(x, params), axis=1).sum())


def sklearn_mixture(data: ArrayLike, budget: Budget, *, rng: np.random.Generator,
                    radius: float | str | None = None, k: int,
                    iterations: int = 100) -> Result:
    """scikit-learn's ``GaussianMixture`` on the raw data (the ``sklearn_gmm`` reference)."""
    from sklearn.mixture import GaussianMixture

    x = as_matrix(data)
    k = check_components(k, len(x))
    model = GaussianMixture(n_components=k, covariance_type="full", max_iter=int(iterations),
                            random_state=int(rng.integers(2**31 - 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at small max_iter is expected
        model.fit(x)
    return Result(estimate={"weights": model.weights_, "means": model.means_,
                            "covariances": model.covariances_},
                  ledger=Ledger(budget),
                  choices={"noise": "none: non-private reference",
                           "initialisation": "scikit-learn's k-means", "max_iter": iterations},
                  not_private="non-private reference: scikit-learn's GaussianMixture")


INIT_VARIANCE = Param("initial_variance", "float", INITIAL_VARIANCE, min=1e-6, max=10.0,
                      choice=True, help="starting covariances are this times I "
                                        "(unit-ball units; data-independent)")
START = Param("initialisation", "str", INITIALISATION, options=INITIALISATIONS, choice=True,
              help="dplloyd: the centres of a few private Lloyd iterations, charged to the "
                   "same budget; uniform: the paper's data-independent start")
START_ITERATIONS = Param("init_iterations", "int", INIT_ITERATIONS, min=1, max=200,
                         choice=True,
                         help="J0, the private Lloyd iterations of the DPLloyd start")
K = shared_k()
ITERATIONS = Param("iterations", "int", DEFAULT_ITERATIONS, min=1, max=500,
                   help="J, the number of noisy M-steps (no convergence test on private data)")

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "dp_em": Estimator(
        task="gmm", name="dp_em", function=_registered, label="DP-EM",
        relation=REPLACE_ONE,
        example={"k": 2, "iterations": 2}, reference="em",
        cost=CostModel(9.1e-09, base_seconds=0.046, bytes_per_unit=33.0,
                       draws="mixture_iterations"),
        neighbours=mixture_pair,
        paper="Park, Foulds, Chaudhuri & Welling, AISTATS 2017, Algorithm 1",
        notion="approximate", outputs=("weights", "means", "covariances"),
        params=(K, ITERATIONS,
                Param("scenario", "str", "GGG", options=("GGG", "LLG"),
                      help="GGG: Gaussian noise on the weights, means and covariances; "
                           "LLG: Laplace on weights and means"),
                Param("joint_release", "bool", False, choice=True,
                      help="beyond the paper: one noise draw for all k mean sums and one for "
                           "all k second-moment sums"),
                Param("eigen_floor", "float", EIGEN_FLOOR, min=1e-9, max=1.0, choice=True,
                      help="floor of the covariance eigenvalues after noise (unit-ball units)"),
                Param("noise_floor", "float", NOISE_FLOOR, min=0.0, max=10.0, choice=True,
                      help="beyond the paper: also floor each covariance's eigenvalues at "
                           "c·sqrt(d)·(its noise's standard deviation); 0 = off"),
                Param("n_min", "float", N_MIN, min=1e-6, max=1e9, choice=True,
                      help="floor of the noisy component sizes"),
                INIT_VARIANCE,
                START, START_ITERATIONS,
                Param("init_share", "float", INIT_SHARE, min=0.001, max=0.999, choice=True,
                      help="the DPLloyd start's share of the budget (of ρ under zCDP)"))),
    "em": Estimator(
        task="gmm", name="em", function=nonprivate_em, label="EM (non-private)",
        example={"k": 2, "iterations": 2},
        cost=CostModel(7.6e-09, base_seconds=0.017, bytes_per_unit=33.0),
        paper="Dempster, Laird & Rubin 1977; the same start as DP-EM",
        notion="none", outputs=("weights", "means", "covariances"),
        params=(K, ITERATIONS,
                Param("eigen_floor", "float", EIGEN_FLOOR, min=1e-9, max=1.0, choice=True,
                      help="floor of the covariance eigenvalues (unit-ball units)"),
                INIT_VARIANCE, START, START_ITERATIONS,
                Param("starts", "int", 1, min=STARTS_RANGE.low, max=STARTS_RANGE.high,
                      choice=True,
                      help="EM from this many starts, keeping the fit of the highest "
                           "likelihood (the reference of an uploaded table uses several)"))),
    "sklearn_gmm": Estimator(
        task="gmm", name="sklearn_gmm", function=sklearn_mixture,
        example={"k": 2, "iterations": 5},
        cost=CostModel(1.8e-08, bytes_per_unit=25.0),
        label="scikit-learn GaussianMixture (non-private)",
        paper="scikit-learn's GaussianMixture", notion="none",
        outputs=("weights", "means", "covariances"),
        params=(K, Param("iterations", "int", 100, min=1, max=1000, help="max_iter"))),
})
