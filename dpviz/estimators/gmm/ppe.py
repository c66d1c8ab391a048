"""The Private Populous Estimator (PPE) for Gaussian mixtures, with the GMM masking mechanism.

Arbas 2023 (MSc thesis with Ashtiani & Liaw, seed 004), Algorithm 1 with B_GMM (Algorithm 2),
as restated in ALGORITHMS.md §5, which this module follows:

1. the rows are shuffled by a data-independent permutation and cut into t contiguous chunks of
   ``s = ⌊n/t⌋`` rows (the ``n − ts`` left over are dropped);
2. a non-private learner A fits a k-mixture ``Yᵢ`` to each chunk — scikit-learn's
   ``GaussianMixture`` (full covariances, fixed ``random_state``), labelled "EM — no PAC
   guarantee" (the thesis uses Moitra–Valiant; privacy never depends on A, Theorem 4.3.1);
3. ``qᵢ = |{j : dist_PARAM(Yᵢ, Yⱼ) ≤ r/(2z)}|/t`` (j = i counts; z = 3/2), ``Q = mean(qᵢ)``,
   whose replace-one sensitivity is ``2(t − 1)/t² < 2/t``;
4. ``Q̃ = Q + TLap(2/t, ε, δ)``; if ``Q̃ < 0.8 + (2/(tε)) ln(1 + (e^ε − 1)/(2δ))`` the answer
   is ⊥ (``Result.failed``: an honest refusal, with nothing else released);
5. else ``j = min{i : qᵢ > 0.6}`` and the answer is ``B_GMM(Yⱼ)``
   (:func:`dpviz.estimators.gmm.masking.mask_gmm`), an ``(r, ε, δ)``-masking mechanism.

**Budget.** Theorem 4.3.1: the whole is ``(2ε, 4e^ε δ)``-DP for t ≥ 5. The user's
``(ε_tot, δ_tot)`` maps to ``ε = ε_tot/2``, ``δ = δ_tot/(4e^ε)``; the same (ε, δ) serves the
truncated Laplace and the mask (:func:`dpviz.estimators.gmm.sample_size.ppe_budget`), and r is
solved from α, β and that budget (:func:`dpviz.estimators.gmm.masking.masking_plan`) — or, when the
caller fixes r, α is solved from r. k, t and r are public and never tuned on the data.

**The ledger.** The guarantee comes from the theorem, not from composing its two steps (the
test's (ε, δ) and the mask's (ε, δ) do not add up to (2ε, 4e^ε δ) by any accountant: the
mask's guarantee only holds for inputs within r, which the test makes true). So the ledger
holds **one** ``composite`` row, "Private Populous Estimator", with the theorem's
``(ε_tot, δ_tot)`` and its parts listed beneath it for display: the truncated Laplace test and
the three mask rows (each with its lemma's ``(ε_c/3, δ_c/3)``, count k). A ⊥ run records the
same row (the guarantee covers the refusal too), with the test as its only part. Composing a
single row is the row itself, so the ledger reports it under linear composition whatever
method the budget names (zCDP, the moments accountant and RDP have no curve for an
approximate-DP theorem; ``choices["accounting"]`` says so), and ``ledger.total()`` equals
the user's (ε_tot, δ_tot) exactly.

**Honesty about the guarantee.** At realistic n the masking radius r is tiny (≈ 1e-6) and the
chunks never agree within r/3, so PPE returns ⊥: the sample-size calculator
(:mod:`dpviz.estimators.gmm.sample_size`) says how many rows the guarantee needs. When a condition
of the theorem's utility part or of the masking lemmas fails, the run still happens, and
``choices["failed conditions"]`` and a warning say which.

No clipping is needed for privacy: the theorem holds for any data and any learner, and
dist_PARAM is affine-invariant. A public ``radius`` is still honoured (rows clipped into the
ball) when given.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.core.entry import CostModel, Estimator, Param, Story, shared_k
from dpviz.core.relations import REPLACE_ONE
from dpviz.data import as_matrix
from dpviz.estimators.gmm.masking import (
    ALPHA,
    BETA,
    K_RANGE,
    RADIUS_CAP,
    MaskingPlan,
    alpha_for_radius,
    mask_gmm,
    secure_weight_relaxation,
)
from dpviz.estimators.gmm.masking import masking_plan as solve_masking
from dpviz.estimators.gmm.one_cluster import refused_before_spending
from dpviz.estimators.gmm.sample_size import (
    W_MIN,
    agreement_threshold,
    chunk_size_needed,
    minimum_chunks,
    ppe_budget,
    sample_at_hand,
    sample_size_plan,
)
from dpviz.estimators.gmm.semimetric import Components, Z, mixtures_within
from dpviz.estimators.neighbours import TOO_SLOW_TO_AUDIT
from dpviz.estimators.result import Result
from dpviz.privacy import Budget, BudgetError, Ledger, Release, truncated_laplace
from dpviz.privacy.bounds import clip_to_ball, resolve_ball

CHUNKS_RANGE = limits.Limit("chunks", 5, 5000)
MAX_ITER_RANGE = limits.Limit("max_iter", 1, 1000)
MASKING_RADIUS_RANGE = limits.Limit("masking_radius", 0.0, RADIUS_CAP, low_open=True)
#: Line 8: the chosen chunk agrees with more than this share of the chunks.
POPULOUS = 0.6
#: The learner's covariance regulariser (scikit-learn's default) and fixed seed.
REG_COVAR = 1e-6
LEARNER_SEED = 0
LEARNER = ("scikit-learn GaussianMixture (full covariances, k-means++ start, random_state = 0) "
           "on each chunk: EM, no PAC guarantee (the thesis's learner is Moitra-Valiant)")
THEOREM = ("Arbas 2023 Theorem 4.3.1: (2 eps, 4 e^eps delta)-DP for t >= 5 when B is an "
           "(r, eps, delta)-masking mechanism")


@dataclass(frozen=True)
class ChunkMixtures:
    """The t non-private chunk estimates: weights (t × k), means (t × k × d), covariances."""

    weights: NDArray[np.float64]
    means: NDArray[np.float64]
    covariances: NDArray[np.float64]
    failed_fits: int


def _placeholder(k: int, d: int) -> tuple[Any, Any, Any]:
    return np.full(k, 1.0 / k), np.zeros((k, d)), np.repeat(np.eye(d)[None], k, axis=0)


def fit_chunks(x: NDArray[np.float64], order: NDArray[np.intp], t: int, k: int, *,
               max_iter: int = 100) -> ChunkMixtures:
    """Algorithm 1, lines 1–2: A on each of t contiguous chunks of ``x[order]``.

    A learner that fails on a chunk (degenerate rows) is replaced by a fixed placeholder
    mixture (uniform weights, means 0, identity covariances): A may be any function, and the
    placeholder only lowers the agreement.
    """
    from sklearn.mixture import GaussianMixture

    s = len(order) // t
    d = x.shape[1]
    weights = np.empty((t, k))
    means = np.empty((t, k, d))
    covariances = np.empty((t, k, d, d))
    failed = 0
    for i in range(t):
        rows = x[order[i * s:(i + 1) * s]]
        model = GaussianMixture(n_components=k, covariance_type="full", max_iter=max_iter,
                                reg_covar=REG_COVAR, init_params="k-means++",
                                random_state=LEARNER_SEED)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ConvergenceWarning on small chunks is expected
                model.fit(rows)
            fitted = (model.weights_, model.means_, model.covariances_)
        except (ValueError, np.linalg.LinAlgError):
            fitted = _placeholder(k, d)
            failed += 1
        weights[i], means[i], covariances[i] = fitted
    return ChunkMixtures(weights, means, covariances, failed)


def agreement_scores(chunks: ChunkMixtures, threshold: float) -> tuple[NDArray[np.float64],
                                                                      NDArray[np.bool_]]:
    """Line 3: ``qᵢ`` for every chunk, and the t × t matrix of ``dist_PARAM ≤ threshold``."""
    t, k, d = chunks.means.shape
    comps = Components.of(chunks.weights.ravel(), chunks.means.reshape(t * k, d),
                          chunks.covariances.reshape(t * k, d, d), name="a chunk's mixture")
    within = mixtures_within(comps, k, threshold)
    return within.sum(axis=1) / t, within


def _check_budget(budget: Budget) -> None:
    if budget.epsilon is None:
        raise BudgetError("the Private Populous Estimator is (epsilon, delta)-DP by a theorem "
                          "with no zCDP form; give epsilon and delta instead of rho")
    if budget.delta == 0 and not budget.non_private:
        raise BudgetError("the Private Populous Estimator needs delta > 0 (its truncated "
                          "Laplace test and its masks are approximate DP)")


def _masking(eps: float, dlt: float, *, k: int, d: int, alpha: float, beta: float,
             masking_radius: float | None) -> tuple[MaskingPlan, str]:
    if masking_radius is None:
        return (solve_masking(eps, dlt, k=k, d=d, alpha=alpha, beta=beta),
                "solved from alpha, beta and the budget (the etas from alpha, the gammas "
                "from the budget)")
    solved = alpha_for_radius(masking_radius, eps, dlt, k=k, d=d, beta=beta)
    if solved is None:
        largest = solve_masking(eps, dlt, k=k, d=d, alpha=ALPHA.high, beta=beta).radius
        raise ValueError(f"masking_radius = {masking_radius:g} is more than this budget can "
                         f"mask for any alpha <= {ALPHA.high:g} (the largest is "
                         f"{largest:.3g}); lower masking_radius or raise epsilon")
    return (solve_masking(eps, dlt, k=k, d=d, alpha=solved, beta=beta),
            f"given (r = {masking_radius:g}); alpha = {solved:.4g} solved so that the mask "
            "covers it")


def private_populous_estimator(
        data: ArrayLike, budget: Budget, *, rng: np.random.Generator, k: int,
        radius: float | str | None = None, chunks: int | None = None, alpha: float = 0.1,
        beta: float = 0.1, masking_radius: float | None = None, w_min: float | None = None,
        max_iter: int = 100) -> Result:
    """The Private Populous Estimator with B_GMM (Arbas 2023, Algorithms 1 and 2).

    Parameters
    ----------
    data : array-like
        n × d rows, one per person.
    budget : Budget
        ``(ε_tot, δ_tot)``, δ_tot > 0 (or ε = ∞: no noise, no mask). The accounting method
        does not change anything: the guarantee is one theorem (module docstring).
    rng : numpy.random.Generator
        Draws the shuffle, the test's noise and the mask.
    k : int
        Components, 1 … 50.
    radius : float, "data" or None
        Optional public ball to clip rows into (not needed for privacy).
    chunks : int, optional
        t, 5 … 5000; default the utility minimum ``max(5, ⌈(20/ε) ln(1 + (e^ε − 1)/(2δ))⌉)``.
    alpha, beta : float
        The mask's target accuracy in dist_PARAM (``0 < α ≤ 3``) and failure probability.
    masking_radius : float, optional
        r (``0 < r ≤ 1/2``); default solved from α, β and the budget. When given, α is solved
        from it (a larger r means more noise).
    w_min : float, optional
        The smallest mixing weight assumed by the chunk-size condition (default 1/k).
    max_iter : int
        EM iterations of the per-chunk learner.

    Returns
    -------
    Result
        ``estimate``: the masked ``weights``, ``means``, ``covariances`` (``None`` on ⊥).
        Refused before reading the rows, with an empty ledger, when :func:`can_run` (the
        sample-size calculator) rules success out at these public sizes.
        ``diagnostics`` (not released, for plots): ``chunk_weights`` t × k,
        ``chunk_means`` t × k × d, ``chunk_covariances``, ``agreement`` (qᵢ), ``within``
        (t × t), ``Q``, ``noisy_Q``, ``threshold``, ``chosen`` (j or ``None``),
        ``unmasked`` (Yⱼ), ``permutation`` and ``raw_weights`` of the mask, ``t``, ``s``,
        ``masking_radius``, ``test_radius`` (r/(2z)).

    Raises
    ------
    ValueError
        Bad data or parameters, δ = 0, a ρ budget, a masking radius out of reach.

    Examples
    --------
    >>> from dpviz.privacy import Budget
    >>> x = np.random.default_rng(0).normal(size=(300, 2))
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = private_populous_estimator(x, Budget(epsilon=1.0, delta=1e-6), k=1,
    ...                                    chunks=5, rng=np.random.default_rng(0))
    >>> r.failed[:28], r.ledger.releases  # the calculator rules it out: nothing spent
    ('refused before reading the d', ())
    """
    _check_budget(budget)
    x = as_matrix(data)
    n, d = x.shape
    k = limits.check_integer(K_RANGE, k)
    alpha = ALPHA.check(alpha)
    beta = BETA.check(beta)
    max_iter = limits.check_integer(MAX_ITER_RANGE, max_iter)
    w_min = 1.0 / k if w_min is None else W_MIN.check(w_min)
    if masking_radius is not None:
        masking_radius = MASKING_RADIUS_RANGE.check(masking_radius)
    eps_tot = float(budget.epsilon)  # type: ignore[arg-type]
    eps, dlt = ppe_budget(eps_tot, budget.delta)
    private = not budget.non_private
    t_utility = minimum_chunks(eps, dlt)
    t = t_utility if chunks is None else limits.check_integer(CHUNKS_RANGE, chunks)

    choices: dict[str, Any] = {
        "learner": LEARNER, "max_iter": max_iter,
        "chunks": t,
        "chunks source": ("the utility minimum max(5, (20/eps) ln(1 + (e^eps - 1)/(2 delta)))"
                          if chunks is None else "given by the caller"),
        "shuffle": "a uniformly random permutation of the rows from the seed "
                   "(data-independent); chunks are contiguous after it",
        "budget map": f"eps = eps_tot/2 = {eps:g}, delta = delta_tot/(4 e^eps) = {dlt:.4g}",
        "accounting": (f"one composite row for {THEOREM}; a single row composes to itself, "
                       "reported under linear composition" +
                       ("" if budget.method == "linear" else
                        f" (the requested {budget.method} has no curve for an approximate-DP "
                        "theorem)")),
        "z": Z, "alpha": alpha, "beta": beta, "w_min": w_min,
    }
    if radius is None:
        choices["bound"] = ("none: PPE's privacy holds for any data and learner "
                            "(dist_PARAM is affine-invariant), so rows are not clipped")
        not_private = None
    else:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ball = resolve_ball(x, radius)
        for warning in caught:
            warnings.warn(warning.message, warning.category, stacklevel=2)
        x = clip_to_ball(x, ball.center, ball.radius)
        choices["bound"] = ball.describe() + " (rows clipped; not needed for privacy)"
        choices["radius"] = ball.radius
        not_private = ball.not_private

    if private:
        plan, source = _masking(eps, dlt, k=k, d=d, alpha=alpha, beta=beta,
                                masking_radius=masking_radius)
        # mask_gmm's refusal, on public inputs, before the private test: raised after it,
        # only when the test passed, it would reveal the test's outcome uncharged
        secure_weight_relaxation(plan, rng)
        r = plan.radius
        choices["masking"] = plan.to_dict()
        choices["alpha"] = plan.alpha
    else:
        plan, source = None, "epsilon = inf: no mask is needed, r = 1/2 (the cap)"
        r = RADIUS_CAP if masking_radius is None else masking_radius
    choices["masking radius"] = r
    choices["masking radius source"] = source
    choices["test radius r/(2z)"] = r / (2 * Z)
    why = can_run(n=n, d=d, k=k, epsilon=eps_tot, delta=budget.delta, beta=beta, w_min=w_min,
                  chunks=chunks)
    if why is not None:
        return refused_before_spending(why, ledger=Ledger(budget.with_method("linear")),
                                       choices=choices, not_private=not_private)

    s = n // t
    conditions: dict[str, str] = {}
    if t < t_utility:
        conditions["utility: t"] = (f"t = {t} chunks is below the utility minimum {t_utility}: "
                                    "the test's noise can exceed 0.1, so PPE may refuse even "
                                    "when every chunk agrees")
    if private and s >= k:
        s_needed = chunk_size_needed(r, d, w_min)
        if s < s_needed:
            conditions["utility: chunk size"] = (
                f"chunks of s = {s} rows; estimates within r/9 of the truth need about "
                f"s >= {s_needed:.3g} (w_min = {w_min:.3g}), n >= {t * s_needed:.3g} in all")
    if plan is not None:
        conditions.update({f"masking: {name}": sentence
                           for name, sentence in plan.failed_conditions.items()})
    choices["failed conditions"] = conditions
    choices["chunk size"] = s
    choices["rows dropped"] = n - t * s if s > 0 else n
    ledger = Ledger(budget.with_method("linear"))
    diagnostics: dict[str, Any] = {"t": t, "s": s, "masking_radius": r,
                                   "test_radius": r / (2 * Z)}

    if s < k:
        reason = (f"n = {n} rows make t = {t} chunks of s = {s} rows, fewer than the k = {k} "
                  "a chunk needs to fit k components: nothing was computed or released; "
                  "provide more rows or fewer chunks")
        conditions["learner: rows per chunk"] = reason
        _warn(conditions, stacklevel=2)
        return Result(estimate={"weights": None, "means": None, "covariances": None},
                      ledger=ledger, choices=choices, not_private=not_private, failed=reason,
                      diagnostics=diagnostics)

    order = rng.permutation(n)
    fitted = fit_chunks(x, order, t, k, max_iter=max_iter)
    diagnostics["learner failures"] = fitted.failed_fits  # a count of the data: not released
    q, within = agreement_scores(fitted, r / (2 * Z))
    exact_q = float(q.mean())
    parts = Ledger(budget.with_method("linear"))
    threshold = agreement_threshold(eps, dlt, t)
    if private:
        noisy_q = float(truncated_laplace(exact_q, sensitivity=2 / t, epsilon=eps, delta=dlt,
                                          rng=rng, ledger=parts, name="agreement Q (test)"))
    else:
        noisy_q = exact_q
    diagnostics.update({
        "chunk_weights": fitted.weights, "chunk_means": fitted.means,
        "chunk_covariances": fitted.covariances, "agreement": q, "within": within,
        "Q": exact_q, "noisy_Q": noisy_q, "threshold": threshold, "chosen": None,
        "unmasked": None, "permutation": None, "raw_weights": None})
    failed = None
    estimate: dict[str, Any] = {"weights": None, "means": None, "covariances": None}
    if noisy_q < threshold:
        failed = (f"the noisy agreement Q~ = {noisy_q:.4f} is below the threshold "
                  f"{threshold:.4f}: the chunks' mixtures do not agree within r/(2z) = "
                  f"{r / (2 * Z):.3g} (Algorithm 1, line 7)")
    else:
        j = int(np.flatnonzero(q > POPULOUS)[0])
        unmasked = {"weights": fitted.weights[j], "means": fitted.means[j],
                    "covariances": fitted.covariances[j]}
        diagnostics["chosen"] = j
        diagnostics["unmasked"] = unmasked
        if plan is not None:
            masked = mask_gmm(fitted.weights[j], fitted.means[j], fitted.covariances[j],
                              epsilon=eps, delta=dlt, alpha=plan.alpha, beta=beta, rng=rng,
                              ledger=parts, compositions=(plan.composition,))
            estimate = {"weights": masked.weights, "means": masked.means,
                        "covariances": masked.covariances}
            diagnostics["permutation"] = masked.permutation
            diagnostics["raw_weights"] = masked.raw_weights
        else:
            estimate = dict(unmasked)
    test_scale = 0.0 if not private else 2 / (t * eps)
    ledger.record(Release("Private Populous Estimator", "composite", 2 / t, "L1", test_scale,
                          epsilon=eps_tot, delta=budget.delta, theorem=THEOREM,
                          components=parts.releases))
    _warn(conditions, stacklevel=2)
    return Result(estimate=estimate, ledger=ledger, choices=choices, not_private=not_private,
                  failed=failed, diagnostics=diagnostics)


def _warn(conditions: Mapping[str, str], stacklevel: int) -> None:
    """One accuracy warning (a ``UserWarning``) listing the failed conditions.

    None of them touches privacy: Theorem 4.3.1 holds for any data and learner, and the masks
    never go beyond the ε their lemmas cover (:data:`~dpviz.estimators.gmm.masking.LEMMA_EPSILON`);
    the masking plan's failed conditions (``alpha <= 2z``) only void the accuracy argument. So this
    is never a ``PrivacyLeakWarning``, which says the guarantee is gone.
    """
    if conditions:
        warnings.warn("PPE's accuracy guarantee does not hold here: "
                      + "; ".join(conditions.values()), UserWarning, stacklevel=stacklevel + 1)


def can_run(*, n: int, d: int, k: int, epsilon: float | None, delta: float,
            beta: float = 0.1, w_min: float | None = None, chunks: int | None = None,
            **_: Any) -> str | None:
    """Why PPE cannot succeed at these public sizes, or ``None`` (the sample-size calculator).

    Its chunks must hold k rows each and agree within a radius the budget can mask
    (:func:`~dpviz.estimators.gmm.sample_size.sample_at_hand`); otherwise the agreement test
    rejects.

    Examples
    --------
    >>> can_run(n=10_000, d=2, k=3, epsilon=1.0, delta=1e-5)[:36]
    'PPE cannot succeed with n = 10000: c'
    """
    if epsilon is None or math.isinf(epsilon):
        return None
    if delta <= 0:
        return "PPE needs delta > 0 (its test and mask are approximate-DP releases)"
    weight = 1.0 / k if w_min is None else w_min
    at_hand = sample_at_hand(n, epsilon, delta, k, d, beta, weight, chunks)
    if at_hand.chunk_size >= k and at_hand.alpha is not None:
        return None
    needed = sample_size_plan(epsilon, delta, k, d, alpha=ALPHA.high, beta=beta, w_min=weight)
    return (f"PPE cannot succeed with {at_hand.sentence()}; at epsilon = {epsilon:g} its "
            f"guarantee needs about n = {float(needed.n):.2g} rows (even at the coarsest "
            f"accuracy alpha = {ALPHA.high:g})")


ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "ppe": Estimator(
        task="gmm", name="ppe", function=private_populous_estimator,
        relation=REPLACE_ONE, no_pair=TOO_SLOW_TO_AUDIT,
        fails_when_small=("on 400 rows its chunks' noisy agreement stays below the threshold: it "
                          "needs the rows can_run asks for"),
        example={"k": 1, "chunks": 5, "max_iter": 5},
        can_run=can_run,
        story=Story("The Private Populous Estimator fits a mixture on each of t chunks, scores how "
                    "many chunks agree with each, tests the average agreement privately and, if "
                    "the test passes, releases one agreeing chunk's mixture through a masking "
                    "mechanism.", "dpviz.viz.ppe:ppe_story", calculator="ppe"),
        cost=CostModel(1.5e-06, base_seconds=1.4, bytes_per_unit=6400.0),
        label="Private Populous Estimator (PPE)",
        paper="Arbas 2023 (Ashtiani–Liaw) Algorithm 1 + B_GMM",
        notion="approximate", outputs=("weights", "means", "covariances"),
        params=(
            shared_k(),
            Param("chunks", "int", None, min=CHUNKS_RANGE.low, max=CHUNKS_RANGE.high,
                  choice=True, help="t, the number of chunks; empty: the utility minimum "
                                    "max(5, (20/eps) ln(1 + (e^eps - 1)/(2 delta)))"),
            Param("alpha", "float", 0.1, min=1e-6, max=ALPHA.high, choice=True,
                  help="the mask's target accuracy in dist_PARAM (sets the noise etas)"),
            Param("beta", "float", 0.1, min=1e-9, max=0.5, choice=True,
                  help="the mask's failure probability"),
            Param("masking_radius", "float", None, min=1e-300, max=RADIUS_CAP, choice=True,
                  help="r; empty: solved from alpha and the budget; given: alpha is solved "
                       "from r (a larger r means more noise)"),
            Param("w_min", "float", None, min=1e-6, max=1.0, choice=True,
                  help="smallest mixing weight assumed by the chunk-size condition "
                       "(empty: 1/k)"),
            Param("max_iter", "int", 100, min=1, max=1000, choice=True,
                  help="EM iterations of the per-chunk learner (no PAC guarantee)"),
        )),
})
