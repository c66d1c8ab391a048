"""The budget solver: a plan of releases and a target budget → every release's noise scale.

Every estimator calls :func:`solve`, and the Privacy budget page calls it too, so the page
and the estimators can never disagree (ALGORITHMS.md §1.2).

How the budget is spread: release ``i`` gets a *level* ``aᵢ = wᵢ·t`` (``wᵢ`` its weight,
``t`` one number solved for). A Laplace release spends ``εᵢ = aᵢ`` (scale ``Δ₁/aᵢ``); a pure
release (exponential mechanism, AboveThreshold) spends ``εᵢ = aᵢ``. A Gaussian release
spends ``εᵢ = aᵢ`` at its share of δ under linear and advanced composition (σ from the
analytic Gaussian, classic in paper mode), and has noise multiplier ``σ/Δ = 1/aᵢ`` under
zcdp, ma, rdp and pld — where its "(εᵢ, δᵢ)" is only a name for σ. Equal weights give every
release the same noise multiplier, seed 002's split. ``t`` is found by bisection on the
composed ε (closed forms where they exist), so composing the solved plan gives the target.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from dpviz.core import limits
from dpviz.privacy import calibration
from dpviz.privacy.accounting import METHOD_LABELS, PrivacyEvent, compose_parts, discretised_pld
from dpviz.privacy.budget import Budget
from dpviz.privacy.errors import BudgetError

PlannedMechanism = Literal["laplace", "gaussian", "pure"]


@dataclass(frozen=True)
class PlannedRelease:
    """One line of a plan: a kind of release, how often, and its share of the budget.

    Parameters
    ----------
    name : str
        Unique within the plan.
    mechanism : {"laplace", "gaussian", "pure"}
        ``pure`` is any other ε-DP release (exponential mechanism, AboveThreshold).
    sensitivity : float
        L1 sensitivity for Laplace, L2 (or Frobenius) for Gaussian, utility sensitivity for
        pure releases.
    count : int
        How many such releases the plan makes (e.g. J iterations × K means).
    weight : float
        Relative share of the budget of each one.
    part : str or None
        Data part for parallel composition.
    """

    name: str
    mechanism: PlannedMechanism
    sensitivity: float = 1.0
    count: int = 1
    weight: float = 1.0
    part: str | None = None

    def __post_init__(self) -> None:
        if self.mechanism not in ("laplace", "gaussian", "pure"):
            raise BudgetError(
                f"a planned release must be laplace, gaussian or pure, got {self.mechanism!r}")
        limits.SENSITIVITY.check(self.sensitivity)
        limits.check_integer(limits.COUNT, self.count)
        limits.WEIGHT.check(self.weight)


@dataclass(frozen=True)
class Allocation:
    """The solver's answer for one planned release.

    Attributes
    ----------
    scale : float
        Laplace scale ``b`` or Gaussian ``σ`` (``0`` for ε = ∞); for pure releases ``Δ/εᵢ``.
    epsilon, delta : float or None
        The release's (εᵢ, δᵢ) where the method defines one.
    rho : float or None
        Its zCDP parameter.
    """

    release: PlannedRelease
    scale: float
    epsilon: float | None
    delta: float | None
    rho: float | None

    @property
    def multiplier(self) -> float:
        """``scale / sensitivity``, the noise multiplier ``z``."""
        return self.scale / self.release.sensitivity

    def scale_for(self, sensitivity: float) -> float:
        """The noise scale of a release whose own sensitivity is ``sensitivity``.

        Estimators whose sensitivities depend on earlier private releases (DP-EM's ``2/Ñₖ``)
        plan at unit sensitivity and draw at this scale: the ratio Δ/scale, which is all the
        accountants see, stays the plan's. Rounded up by 1e-12 relative so that floating
        point never makes the ledger's total exceed the solved budget.
        """
        return self.multiplier * sensitivity * (1 + 1e-12)

    def event(self) -> PrivacyEvent:
        """The release as the accountants see it."""
        r = self.release
        if r.mechanism == "gaussian":
            mu = math.inf if self.scale == 0 else r.sensitivity / self.scale
            return PrivacyEvent("gaussian", mu=mu, count=r.count)
        if r.mechanism == "laplace":  # as the ledger will see it: from the scale drawn
            eps = math.inf if self.scale == 0 else r.sensitivity / self.scale
            return PrivacyEvent("laplace", epsilon=eps, count=r.count)
        return PrivacyEvent("pure", epsilon=float(self.epsilon or 0.0), count=r.count)


def _gaussian_delta_each(plan: Sequence[PlannedRelease], budget: Budget) -> float:
    gaussians = sum(r.count for r in plan if r.mechanism == "gaussian")
    if not gaussians:
        return 0.0
    if budget.delta == 0:
        raise BudgetError("a plan with Gaussian releases needs delta > 0")
    return budget.delta / (gaussians * (2 if budget.method == "advanced" else 1))


def _allocate(plan: Sequence[PlannedRelease], budget: Budget, t: float) -> list[Allocation]:
    per_delta = (_gaussian_delta_each(plan, budget)
                 if budget.method in ("linear", "advanced") and not math.isinf(t) else None)
    out = []
    for r in plan:
        level = r.weight * t
        if r.mechanism == "gaussian":
            rho = level * level / 2
            if per_delta is not None:
                if budget.paper_mode:
                    mu = level / math.sqrt(2 * math.log(1.25 / per_delta))
                else:
                    mu = calibration.analytic_gaussian_mu(level, per_delta)
                scale = r.sensitivity / mu
                out.append(Allocation(r, scale, level, per_delta, mu * mu / 2))
            else:
                scale = 0.0 if math.isinf(level) else r.sensitivity / level
                out.append(Allocation(r, scale, None, None, rho))
        else:
            scale = 0.0 if math.isinf(level) else r.sensitivity / level
            out.append(Allocation(r, scale, level, 0.0, level * level / 2))
    return out


def _composed(allocations: Sequence[Allocation], budget: Budget) -> float:
    parts: dict[str | None, list[PrivacyEvent]] = {}
    for a in allocations:
        parts.setdefault(a.release.part, []).append(a.event())
    return compose_parts(parts, budget.delta, budget.method, paper_mode=budget.paper_mode)


def _square_weights_by_part(plan: Sequence[PlannedRelease]) -> float:
    """Max over parts of Σ count·w² (shared releases counted in every part)."""
    shared = sum(r.count * r.weight**2 for r in plan if r.part is None)
    parts = {r.part for r in plan if r.part is not None}
    if not parts:
        return shared
    return max(shared + sum(r.count * r.weight**2 for r in plan if r.part == p) for p in parts)


def _closed_form_level(plan: Sequence[PlannedRelease], budget: Budget) -> float | None:
    """``t`` in closed form where one exists, else ``None``."""
    if budget.rho is not None:
        return math.sqrt(2 * budget.rho / _square_weights_by_part(plan))
    eps = float(budget.epsilon)  # type: ignore[arg-type]
    kinds = {r.mechanism for r in plan}
    if budget.method == "zcdp" and not budget.paper_mode:
        return math.sqrt(2 * calibration.zcdp_rho_for(eps, budget.delta)
                         / _square_weights_by_part(plan))
    if budget.method == "zcdp":
        return math.sqrt(2 * calibration.zcdp_rho_for(eps, budget.delta,
                                                      conversion="bun-steinke")
                         / _square_weights_by_part(plan))
    if budget.method == "pld" and kinds == {"gaussian"}:
        return calibration.analytic_gaussian_mu(eps, budget.delta) / math.sqrt(
            _square_weights_by_part(plan))
    if budget.method == "linear" and "gaussian" not in kinds:
        shared = sum(r.count * r.weight for r in plan if r.part is None)
        parts = {r.part for r in plan if r.part is not None}
        linear_sum = max((shared + sum(r.count * r.weight for r in plan if r.part == p)
                          for p in parts), default=shared)
        return eps / linear_sum
    return None


def solve(plan: Sequence[PlannedRelease], budget: Budget) -> dict[str, Allocation]:
    """Noise scale of every planned release so that the plan composes to ``budget``.

    Parameters
    ----------
    plan : sequence of PlannedRelease
        The releases, with unique names.
    budget : Budget
        Target (ε, δ) or ρ and the accounting method.

    Returns
    -------
    dict
        ``name → Allocation``, in plan order (a fresh dict each call; solves are cached).

    Raises
    ------
    BudgetError
        When the plan cannot meet the budget under the method (e.g. a Gaussian release with
        δ = 0, or the classic Gaussian asked for εᵢ ≥ 1 in paper mode).

    Examples
    --------
    Seed 002's GGG plan (J = 10 iterations, K = 3) at ε = 1, δ = 1e-4 under zCDP:

    >>> plan = [PlannedRelease("all", "gaussian", count=70)]
    >>> z = solve(plan, Budget(epsilon=1.0, delta=1e-4, method="zcdp",
    ...                        paper_mode=True))["all"].multiplier
    >>> round(z, 2)
    36.86
    """
    return dict(_solved(tuple(plan), budget))


@lru_cache(maxsize=512)
def _solved(plan: tuple[PlannedRelease, ...], budget: Budget) -> dict[str, Allocation]:
    """:func:`solve`, once per plan and budget (both public; :func:`solve` copies the answer).

    The one cache of solved plans (bounded): a PLD solve takes up to a second, and an
    estimator's run, its refusal and the feasibility search ask for the same plans.
    """
    if not plan:
        raise BudgetError("the plan has no releases")
    names = [r.name for r in plan]
    if len(set(names)) != len(names):
        raise BudgetError("each planned release needs its own name")
    if budget.non_private:
        return {a.release.name: a for a in _allocate(plan, budget, math.inf)}
    t = _closed_form_level(plan, budget)
    if t is None:
        t = _bisect_level(plan, budget)
    allocations = _never_over(plan, budget, t)
    if budget.paper_mode and budget.method in ("linear", "advanced"):
        for a in allocations:
            if a.release.mechanism == "gaussian" and (a.epsilon or 0) >= 1:
                raise BudgetError(
                    f"paper mode's classic Gaussian needs each release's epsilon < 1; "
                    f"{a.release.name!r} would get {a.epsilon:.3g}")
    return {a.release.name: a for a in allocations}


def _bisect_level(plan: Sequence[PlannedRelease], budget: Budget) -> float:
    target = float(budget.epsilon)  # type: ignore[arg-type]
    if budget.method == "pld":  # aim where :func:`_never_over` will accept the answer
        target *= 1 - PLD_MARGIN
    seen: dict[float, float] = {}  # the bracket's ends are asked for again

    def gap(log_t: float) -> float:
        if log_t in seen:
            return seen[log_t]
        try:
            eps = _composed(_allocate(plan, budget, math.exp(log_t)), budget)
        except BudgetError:
            if budget.paper_mode:  # the classic formula's ε < 1 limit: this level is too high
                return math.inf
            raise
        seen[log_t] = math.log(eps) - math.log(target) if eps > 0 else -math.inf
        return seen[log_t]

    low, high = _bracket(plan, budget, gap)
    # a plan of pure and Laplace releases composes under PLD to at most the linear sum, near
    # which its ε rises steeply but continuously: only mixed plans are searched for steps
    mixed = any(r.mechanism == "gaussian" for r in plan)
    log_t = _root_below(gap, low, high, steps=budget.method == "pld" and mixed)
    # paper mode refuses only when its ε < 1 limit is what stops the search (a level 0.1 %
    # higher breaks it), not when a PLD staircase leaves the answer a step below the target
    if (budget.paper_mode and not abs(gap(log_t)) < 1e-5
            and math.isinf(gap(log_t + math.log(1.001)))):
        raise BudgetError(
            "paper mode's classic Gaussian formula only holds for epsilon < 1 per release, "
            f"too little for a total epsilon of {target:g} here; turn paper mode off")
    return math.exp(log_t)


#: The level search stops within this below the target (log ε: ε within 1e-6 of it, far
#: below the four digits the ledger states) ...
LEVEL_TOLERANCE = 9e-7
#: ... or once its bracket is this narrow (log t).
ROOT_TOLERANCE = 1e-7
#: log ε rises at most about twice as fast as log t where it is smooth (a Gaussian's ε grows
#: like μ²/2 at the most); a bracket rising over twice that holds a step. At 2, steep smooth
#: stretches were taken for steps (on a grid of 483 plans and budgets, 10 answers fell
#: 0.5–1.4% further below the target than bisection's); at 4, 2 did and 6 came closer.
SMOOTH_SLOPE = 4.0
#: Where a discretised PLD's ε jumps over the target, a level this close below it (log ε,
#: 0.1%: the discretisation's own grid is 1e-3) ends the search.
STEP_TOLERANCE = 1e-3


def _root_below(gap: Callable[[float], float], low: float, high: float, *,
                steps: bool) -> float:
    """A point of ``[low, high]`` with ``gap ≤ 0`` next to the root (Anderson–Björck).

    ``gap(low) ≤ 0 ≤ gap(high)``; the answer is the last point found below the root. False
    position with the Anderson–Björck weights (superlinear, never leaves the bracket);
    infinite gaps (paper mode's ε < 1 limit) are bisected. A mixed plan's discretised PLD
    ε is a staircase in t (it jumps ~0.5% each time a pure or Laplace release's loss
    crosses a grid point), so the target may sit inside a jump that no level reaches. A
    bracket rising faster than any smooth ε (:data:`SMOOTH_SLOPE`) holds a jump: it is
    bisected (a secant through a jump points nowhere). With ``steps`` the search then stops
    once ``low`` is within :data:`STEP_TOLERANCE` of the target or no smooth rise over the
    rest of the bracket could close what it falls short. Hunting the jump's edge to 1e-7
    cost a composition per halving (sample-and-aggregate's plan took 26 compositions, the
    whole cost of a first refusal; about 5 now).
    """
    g_low, g_high = gap(low), gap(high)
    f_low, f_high = g_low, g_high  # the ends' values as the false position weighs them
    for _ in range(200):
        width = high - low
        if g_low >= -LEVEL_TOLERANCE or width <= ROOT_TOLERANCE * max(1.0, abs(low)):
            return low
        jump = g_high - g_low > SMOOTH_SLOPE * width
        if steps and jump and (-g_low <= STEP_TOLERANCE or SMOOTH_SLOPE * width <= -g_low):
            return low
        middle = (low + high) / 2
        if not (jump or math.isinf(f_low) or math.isinf(f_high)):
            middle = (low * f_high - high * f_low) / (f_high - f_low)
            middle = min(max(middle, low + width / 1e3), high - width / 1e3)
        g_middle = gap(middle)
        if g_middle <= 0:  # Anderson–Björck: the end kept has its weight scaled
            scale = 1 - g_middle / f_low if math.isfinite(f_low) and f_low else 0.5
            f_high *= scale if scale > 0 else 0.5
            low, g_low, f_low = middle, g_middle, g_middle
        else:
            scale = 1 - g_middle / f_high if math.isfinite(f_high) and f_high else 0.5
            f_low *= scale if scale > 0 else 0.5
            high, g_high, f_high = middle, g_middle, g_middle
    return low


def _start_level(plan: Sequence[PlannedRelease], budget: Budget) -> float:
    """A first guess at ``t`` under pld and rdp, from a closed form.

    Under pld: the level at which the plan would meet the target if every release were a
    Gaussian with ``μᵢ = wᵢt`` (exact for Gaussians; a pure or Laplace release of the same
    level loses less, so the root lies above it: by 1–47% on the mixture estimators' plans
    and on DP-EM's, where the zCDP level was 10–50% below). Under rdp: the zCDP level, a
    lower bound since RDP's ε at the same noise is never larger.
    """
    if budget.method == "pld":
        return calibration.analytic_gaussian_mu(float(budget.epsilon),  # type: ignore[arg-type]
                                                budget.delta) / math.sqrt(
            _square_weights_by_part(plan))
    start = _closed_form_level(plan, replace(budget, method="zcdp", paper_mode=False))
    assert start is not None
    return start


def _bracket(plan: Sequence[PlannedRelease], budget: Budget,
             gap: Callable[[float], float]) -> tuple[float, float]:
    """A bracket ``gap(low) ≤ 0 ≤ gap(high)`` in log t, narrow where a good guess exists.

    Under pld and rdp, from :func:`_start_level`: ε grows about linearly in t, so a step of
    slope one from the guess lands close to the root; while both points fall on one side,
    the next steps past the root along their chord, then further (each evaluation of a
    mixed PLD costs milliseconds).
    """
    target = float(budget.epsilon)  # type: ignore[arg-type]
    if budget.method in ("pld", "rdp"):
        first = math.log(_start_level(plan, budget))
        g_first = gap(first)
        if math.isfinite(g_first):
            second = first - g_first  # log-linear step: ε ∝ t
            g_second = gap(second)
            reach = 1.25
            while (g_first * g_second > 0 and math.isfinite(g_second) and abs(second) < 700
                   and second != first):  # a gap of ~1e-16 steps nowhere: bracket below
                # past the root along the last chord (its slope kept within [1/4, 4]), then
                # twice as far each time
                slope = min(max((g_second - g_first) / (second - first), 0.25), 4.0)
                first, g_first = second, g_second
                second = first - reach * g_first / slope
                g_second, reach = gap(second), 2 * reach
            low, high = (first, second) if g_first <= g_second else (second, first)
            if low <= high and gap(low) <= 0 <= gap(high):
                return low, high
    low, high = math.log(target) - 5, math.log(target) + 1
    while gap(low) > 0:
        high, low = low, low - 10
        if low < -700:
            raise BudgetError("no noise level meets this budget")
    while gap(high) < 0:
        low, high = high, high + 5
        if high > 700:
            raise BudgetError("no noise level meets this budget")
    return low, high


def _spent(allocations: Sequence[Allocation], budget: Budget) -> float:
    """What the allocations spend in the budget's own unit (ρ or ε)."""
    if budget.rho is None:
        return _composed(allocations, budget)
    parts: dict[str | None, float] = {}
    for a in allocations:
        spend = float(a.rho or 0.0) * a.release.count
        parts[a.release.part] = parts.get(a.release.part, 0.0) + spend
    shared = parts.pop(None, 0.0)
    return shared + max(parts.values(), default=0.0)


#: Under dp-accounting's discretised PLD the solver aims this far (relative) below the
#: target: that PLD changes at the 1e-11 level with the order releases are composed in, and
#: the ledger must never report more than was asked for. Far inside the round trip's 1e-6.
#: Every other composition is exact arithmetic, where nudging by ulps suffices.
PLD_MARGIN = 1e-9


def _never_over(plan: Sequence[PlannedRelease], budget: Budget, t: float) -> list[Allocation]:
    """Allocations at ``t``, nudged down until they do not spend more than the target."""
    target = float(budget.rho if budget.rho is not None else budget.epsilon)  # type: ignore[arg-type]
    allocations = _allocate(plan, budget, t)
    discretised = budget.rho is None and discretised_pld(
        [a.event() for a in allocations], budget.method)
    goal = target * (1 - PLD_MARGIN) if discretised else target
    for step in range(60):
        if step:
            allocations = _allocate(plan, budget, t)
        spent = _spent(allocations, budget)
        if spent <= goal:
            return allocations
        # spend grows about linearly in t; step under the goal, then by growing nudges
        t *= min(goal / spent, 1 - 2.0 ** (step - 52))
    raise BudgetError("the budget solver could not meet the target")


def compare_methods(plan: Sequence[PlannedRelease], budget: Budget,
                    methods: Sequence[str]) -> dict[str, dict[str, Allocation] | str]:
    """Solve the same plan under several methods; a method that cannot is given its reason."""
    out: dict[str, dict[str, Allocation] | str] = {}
    for method in methods:
        asked = budget.with_method(method)
        if asked.method != method:  # delta = 0 leaves linear composition only
            out[method] = (f"{METHOD_LABELS[method]} needs delta > 0; with delta = 0 only "
                           "linear composition (pure epsilon-DP) applies")
            continue
        try:
            out[method] = solve(plan, asked)
        except BudgetError as err:
            out[method] = str(err)
    return out
