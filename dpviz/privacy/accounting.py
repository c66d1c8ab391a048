"""Composition of privacy events under every accounting method of ALGORITHMS.md §1.2.

A :class:`PrivacyEvent` is a frozen, code-free description of one release — what kind of
mechanism and how much it reveals — in the manner of Google's dp-accounting. The function
:func:`compose` turns a list of events into one (ε, δ) guarantee under a named method:

``linear``
    ``(Σεᵢ, Σδᵢ)``. A Gaussian's εᵢ is the analytic-Gaussian ε at its share of δ (the δ left
    after approximate-DP releases, split evenly over Gaussian releases); classic formula in
    paper mode.
``advanced``
    Heterogeneous advanced composition, ``ε = √(2 ln(1/δ′) Σεᵢ²) + Σεᵢ(e^{εᵢ} − 1)``,
    ``δ = Σδᵢ + δ′`` with ``δ′ = δ/2`` and the other half split over Gaussians (``δ′ = δ``
    for plans without Gaussians); reported as ``min(linear, advanced)``, both being valid.
``zcdp``
    ``ρ = Σρᵢ`` (Gaussian ``μ²/2``, pure ε ``ε²/2``), converted by Canonne–Kamath–Steinke
    (Bun–Steinke in paper mode).
``ma``
    The moments accountant of Abadi et al. as in seed 002 eqs. 19–20, integer λ ≤ 10⁴
    (≤ 100 in paper mode).
``rdp``
    Rényi DP via dp-accounting's ``RdpAccountant``.
``pld``
    Privacy-loss distributions. A plan of Gaussians only is composed *exactly*: it is one
    Gaussian with ``μ = √(Σμᵢ²)`` whose privacy profile is the analytic-Gaussian curve; so is
    a single Laplace release (``ε = ε₀ + 2 ln(1 − δ)``). Any other plan goes through
    dp-accounting's PLD (pessimistic discretisation), capped by the linear sum for pure plans.

Approximate-DP events (truncated Laplace, stable histogram, theorem-level composites) have
no ρ or RDP curve: ``zcdp``, ``ma`` and ``rdp`` refuse plans containing them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from dpviz.privacy import calibration
from dpviz.privacy.errors import BudgetError

METHODS: tuple[str, ...] = ("linear", "advanced", "zcdp", "ma", "rdp", "pld")
METHOD_LABELS: Mapping[str, str] = MappingProxyType({
    "linear": "Linear composition",
    "advanced": "Advanced composition",
    "zcdp": "zCDP",
    "ma": "Moments accountant",
    "rdp": "Rényi DP",
    "pld": "Privacy loss distribution",
})
EventKind = Literal["gaussian", "laplace", "pure", "approximate"]

MA_MAX_ORDER = 10_000
# Releases revealing less than this (μ or ε) are left out of dp-accounting's computations,
# whose noise multiplier 1/μ would overflow; their contribution is below float resolution.
NEGLIGIBLE = 1e-12
MA_MAX_ORDER_PAPER = 100
PLD_DISCRETISATION = 1e-3
#: Events whose ε (and δ) agree to this (relative) are composed as one (the larger kept):
#: a plan's equal shares come back from the solver differing in the last bits.
MERGE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PrivacyEvent:
    """One release, as the accountants see it.

    Parameters
    ----------
    kind : {"gaussian", "laplace", "pure", "approximate"}
        ``gaussian``: noise ratio ``mu = Δ₂/σ``. ``laplace``: ``epsilon = Δ₁/b``. ``pure``: any
        other ε-DP release (exponential mechanism, AboveThreshold). ``approximate``: an
        (ε, δ)-DP release with no finer description.
    mu : float
        ``Δ/σ`` for Gaussians (0 otherwise).
    epsilon, delta : float
        ε of Laplace, pure and approximate events; δ of approximate events.
    count : int
        How many identical, independent releases this event stands for.
    """

    kind: EventKind
    mu: float = 0.0
    epsilon: float = 0.0
    delta: float = 0.0
    count: int = 1

    @property
    def rho(self) -> float | None:
        """The zCDP parameter of one release, or ``None`` for approximate-DP events."""
        if self.kind == "gaussian":
            return self.mu * self.mu / 2
        if self.kind == "approximate":
            return None
        return self.epsilon**2 / 2


def _gaussian_delta_share(events: Sequence[PrivacyEvent], delta: float,
                          reserve_half: bool) -> tuple[float, float]:
    """Split δ: return (δ per Gaussian release, δ′ kept for advanced composition)."""
    fixed = sum(e.delta * e.count for e in events if e.kind == "approximate")
    available = delta - fixed
    gaussians = sum(e.count for e in events if e.kind == "gaussian")
    if delta == 0 and gaussians:
        raise BudgetError("a Gaussian release needs delta > 0")
    if available <= 0 and (gaussians or reserve_half):
        raise BudgetError(
            f"delta = {delta:g} is used up by the approximate-DP releases ({fixed:g}); "
            "raise delta")
    if not gaussians:
        return 0.0, available if reserve_half else 0.0
    if reserve_half:
        return available / (2 * gaussians), available / 2
    return available / gaussians, 0.0


def _per_release_epsilons(events: Sequence[PrivacyEvent], gaussian_delta: float,
                          paper_mode: bool) -> list[tuple[float, int]]:
    out = []
    for e in events:
        if e.kind == "gaussian":
            if e.mu == 0:
                eps = 0.0
            elif paper_mode:
                eps = calibration.classic_gaussian_epsilon(e.mu, gaussian_delta)
                if eps >= 1:
                    raise BudgetError(
                        "paper mode's classic Gaussian formula only holds for epsilon < 1 per "
                        f"release; a release here would need epsilon = {eps:.3g}")
            else:
                eps = calibration.analytic_gaussian_epsilon(e.mu, gaussian_delta)
        else:
            eps = e.epsilon
        out.append((eps, e.count))
    return out


def _linear(events: Sequence[PrivacyEvent], delta: float, paper_mode: bool) -> float:
    if not any(e.kind == "gaussian" for e in events):
        return sum(e.epsilon * e.count for e in events)
    share, _ = _gaussian_delta_share(events, delta, reserve_half=False)
    return sum(eps * c for eps, c in _per_release_epsilons(events, share, paper_mode))


def _advanced(events: Sequence[PrivacyEvent], delta: float, paper_mode: bool) -> float:
    share, delta_prime = _gaussian_delta_share(events, delta, reserve_half=True)
    pairs = _per_release_epsilons(events, share, paper_mode)
    if any(eps > 700 for eps, _ in pairs):  # e^ε overflows; the linear sum is the answer
        return math.inf
    squares = sum(c * eps * eps for eps, c in pairs)
    drift = sum(c * eps * math.expm1(eps) for eps, c in pairs)
    return math.sqrt(2 * math.log(1 / delta_prime) * squares) + drift


def total_rho(events: Iterable[PrivacyEvent]) -> float:
    """``Σ ρᵢ`` over the events; refuses approximate-DP events with a sentence."""
    rho = 0.0
    for e in events:
        if e.rho is None:
            raise BudgetError(
                "this plan contains an approximate-DP release (truncated Laplace, stable "
                "histogram or a composite theorem), which has no zCDP or Rényi curve; "
                "use linear, advanced or pld accounting")
        rho += e.rho * e.count
    return rho


def _ma_log_moments(events: Sequence[PrivacyEvent], orders: np.ndarray) -> np.ndarray:
    """Σ of the λ-th log moments (seed 002, eqs. 19–20), evaluated in log space."""
    total_rho(events)  # refuses approximate events
    lam = orders
    alpha = np.zeros_like(lam)
    for e in events:
        if e.kind == "gaussian":
            alpha += e.count * (lam * lam + lam) * e.mu * e.mu / 2
        elif e.kind == "laplace":
            eps = e.epsilon
            if eps > 0:
                alpha += e.count * (lam * eps + np.log(
                    (lam + 1) / (2 * lam + 1) + lam / (2 * lam + 1) * np.exp(-(2 * lam + 1) * eps)))
        else:  # pure ε-DP: RDP(α) ≤ min(ε, αε²/2), and α_MA(λ) = λ·RDP(λ + 1)
            eps = e.epsilon
            alpha += e.count * lam * np.minimum(eps, (lam + 1) * eps * eps / 2)
    return alpha


def _ma(events: Sequence[PrivacyEvent], delta: float, paper_mode: bool) -> float:
    top = MA_MAX_ORDER_PAPER if paper_mode else MA_MAX_ORDER
    orders = np.arange(1, top + 1, dtype=float)
    alpha = _ma_log_moments(events, orders)
    return float(np.min((alpha + math.log(1 / delta)) / orders))


def _rdp(events: Sequence[PrivacyEvent], delta: float) -> float:
    import dp_accounting

    total_rho(events)
    if any(e.mu > calibration.MU_MAX or e.epsilon > 700 for e in events):
        return math.inf
    accountant = dp_accounting.rdp.RdpAccountant()
    for e in events:
        if e.kind == "gaussian":
            if e.mu < NEGLIGIBLE:
                continue
            event = dp_accounting.GaussianDpEvent(1 / e.mu)
        elif e.kind == "laplace":
            if e.epsilon < NEGLIGIBLE:
                continue
            event = dp_accounting.LaplaceDpEvent(1 / e.epsilon)
        else:
            event = dp_accounting.ZCDpEvent(e.epsilon**2 / 2)
        accountant.compose(event, int(e.count))
    return float(accountant.get_epsilon(delta))


def _pld_distribution(events: Sequence[PrivacyEvent]) -> Any:
    """dp-accounting's composed privacy-loss distribution of the events (``None``: no loss)."""
    return _pld_composed(pld_canonical(events))


def pld_canonical(events: Sequence[PrivacyEvent]) -> tuple[PrivacyEvent, ...]:
    """The events as the PLD composes them: fewer, in an order that does not matter.

    All Gaussians become one, ``μ = √(Σ cᵢμᵢ²)`` (exact: composed Gaussian mechanisms are
    one Gaussian mechanism, Dong, Roth & Su 2022, Cor. 3.3); events of one kind whose ε (and
    δ) agree to :data:`MERGE_TOLERANCE` relative become one event with their summed count and
    the largest ε (a sound merge: a larger ε only loses more). The solver's plan and the
    ledger's releases reach the same list, whatever the order they were recorded in; each
    dp-accounting composition is a few milliseconds, so fewer of them speed every solve.

    Examples
    --------
    >>> merged = pld_canonical([PrivacyEvent("laplace", epsilon=0.1),
    ...                         PrivacyEvent("gaussian", mu=0.3), PrivacyEvent("gaussian", mu=0.4),
    ...                         PrivacyEvent("laplace", epsilon=0.1)])
    >>> [(e.kind, e.mu, e.epsilon, e.count) for e in merged]
    [('gaussian', 0.5, 0.0, 1), ('laplace', 0.0, 0.1, 2)]
    """
    square = sum(e.count * e.mu * e.mu for e in events if e.kind == "gaussian")
    out = [PrivacyEvent("gaussian", mu=math.sqrt(square))] if square > 0 else []
    rest = sorted((e for e in events if e.kind != "gaussian" and e.count > 0),
                  key=lambda e: (e.kind, e.epsilon, e.delta))
    for e in rest:
        last = out[-1] if out else None
        if (last is not None and last.kind == e.kind
                and e.epsilon <= last.epsilon * (1 + MERGE_TOLERANCE)
                and abs(e.delta - last.delta) <= MERGE_TOLERANCE * e.delta):
            out[-1] = PrivacyEvent(e.kind, 0.0, max(e.epsilon, last.epsilon),
                                   max(e.delta, last.delta), last.count + e.count)
        else:
            out.append(PrivacyEvent(e.kind, 0.0, e.epsilon, e.delta, e.count))
    return tuple(out)


@functools.lru_cache(maxsize=32)
def _pld_composed(events: tuple[PrivacyEvent, ...]) -> Any:
    """:func:`_pld_distribution`, memoised.

    A page's ε(δ) profile, its total and its risk panel ask for the same composition several
    times per rerun, and composing is the slow part (about half a second for a DP-EM ledger).
    The cache is bounded, keyed by the frozen events only, and the distributions it holds are
    never mutated (``compose`` and ``self_compose`` return new ones).
    """
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    composed = None
    for e in events:
        if e.kind == "gaussian":
            if e.mu < NEGLIGIBLE:
                continue
            one = pld.from_gaussian_mechanism(
                1 / e.mu, sensitivity=1.0, value_discretization_interval=PLD_DISCRETISATION)
        elif e.kind == "laplace":
            if e.epsilon < NEGLIGIBLE:
                continue
            one = pld.from_laplace_mechanism(
                1 / e.epsilon, sensitivity=1.0, value_discretization_interval=PLD_DISCRETISATION)
        else:
            if e.epsilon == 0 and e.delta == 0:
                continue
            one = pld.from_privacy_parameters(
                common.DifferentialPrivacyParameters(e.epsilon, e.delta),
                value_discretization_interval=PLD_DISCRETISATION)
        composed = _compose_times(one, int(e.count), composed)
    return composed


#: Up to this count a release is composed with itself one convolution at a time: each is
#: ~0.1 ms on a plan's small distributions, where ``self_compose``'s FFT costs ~3 ms.
DIRECT_COMPOSITIONS = 8


def _compose_times(one: Any, count: int, onto: Any) -> Any:
    """``onto`` composed with ``count`` copies of the distribution ``one``."""
    if count > DIRECT_COMPOSITIONS:
        repeated = one.self_compose(count)
        return repeated if onto is None else onto.compose(repeated)
    for _ in range(count):
        onto = one if onto is None else onto.compose(one)
    return onto


def _pld_closed_form(events: Sequence[PrivacyEvent], delta: float) -> float | None:
    """Exact ε where a closed form exists (all Gaussian; one Laplace), else ``None``."""
    if any(e.mu > calibration.MU_MAX or e.epsilon > 700 for e in events):
        return math.inf
    if all(e.kind == "gaussian" for e in events):
        mu = math.sqrt(sum(e.count * e.mu * e.mu for e in events))
        return calibration.analytic_gaussian_epsilon(mu, delta)
    if len(events) == 1 and events[0].kind == "laplace" and events[0].count == 1:
        # the Laplace privacy profile: delta(eps) = 1 - exp((eps - eps0)/2) for eps <= eps0
        return max(0.0, events[0].epsilon + 2 * math.log1p(-delta))
    return None


def discretised_pld(events: Sequence[PrivacyEvent], method: str) -> bool:
    """Whether ``compose`` answers through dp-accounting's discretised PLD (no closed form)."""
    if method != "pld":
        return False
    live = [e for e in events if e.count > 0]
    return bool(live) and _pld_closed_form(live, 0.5) is None


def _pld_epsilons(events: Sequence[PrivacyEvent], deltas: Sequence[float],
                  distribution: Any = None) -> list[float]:
    """ε at each δ from one composed distribution (built here unless given)."""
    exact = [_pld_closed_form(events, d) for d in deltas]
    if all(e is not None for e in exact):
        return [float(e) for e in exact]  # type: ignore[arg-type]
    composed = _pld_distribution(events) if distribution is None else distribution
    if composed is None:
        return [0.0] * len(deltas)
    return [max(0.0, float(composed.get_epsilon_for_delta(d))) for d in deltas]


def delta_profile(events: Sequence[PrivacyEvent], epsilons: Sequence[float]) -> np.ndarray:
    """δ(ε) of the PLD composition of ``events`` at each ε: the privacy profile, in one pass.

    All-Gaussian compositions use the exact profile (:func:`calibration.analytic_gaussian_delta`
    at ``μ = √Σ μᵢ²``); others ask dp-accounting's (pessimistic, memoised) distribution for
    every ε at once, which is far cheaper than one ε(δ) search per δ.

    Examples
    --------
    >>> delta_profile([PrivacyEvent("gaussian", mu=1.0)], [0.0, 1.0]).round(6).tolist()
    [0.382925, 0.126937]
    """
    live = [e for e in events if e.count > 0]
    grid = np.asarray(epsilons, dtype=float)
    if all(e.kind == "gaussian" for e in live):
        mu = math.sqrt(sum(e.count * e.mu * e.mu for e in live))
        return np.array([calibration.analytic_gaussian_delta(float(eps), mu) for eps in grid])
    composed = _pld_distribution(live)
    if composed is None:
        return np.zeros(grid.shape)
    order = np.argsort(grid)
    out = np.empty(grid.shape)
    out[order] = np.asarray(composed.get_delta_for_epsilon(grid[order].tolist()), dtype=float)
    return np.clip(out, 0.0, 1.0)


def compose(events: Sequence[PrivacyEvent], delta: float, method: str,
            *, paper_mode: bool = False) -> float:
    """ε of the composition of ``events`` at total ``delta`` under ``method``.

    Parameters
    ----------
    events : sequence of PrivacyEvent
        The releases (one part's releases; see :func:`compose_parts` for parallel parts).
    delta : float
        The total δ of the guarantee, ``0 ≤ δ < 1``.
    method : str
        One of :data:`METHODS`.
    paper_mode : bool
        Reproduce seed 002's choices (classic Gaussian, λ ≤ 100, Bun–Steinke).

    Returns
    -------
    float
        ε (``inf`` when any event has infinite ε, or no noise at all).

    Raises
    ------
    BudgetError
        For an unknown method, δ = 0 where the method needs δ > 0, or approximate-DP events
        under zcdp / ma / rdp.

    Examples
    --------
    >>> g = PrivacyEvent("gaussian", mu=1.0)
    >>> round(compose([g], 0.1269367375, "pld"), 6)
    1.0
    >>> compose([PrivacyEvent("laplace", epsilon=0.5, count=4)], 0.0, "linear")
    2.0
    """
    if method not in METHODS:
        raise BudgetError(f"accounting method must be one of {', '.join(METHODS)}, got {method!r}")
    if not 0 <= delta < 1:
        raise BudgetError(f"delta must be >= 0 and < 1, got {delta}")
    events = [e for e in events if e.count > 0]
    if not events:
        return 0.0
    if any(math.isinf(e.mu) or math.isinf(e.epsilon) for e in events):
        return math.inf
    spent = sum(e.delta * e.count for e in events if e.kind == "approximate")
    if spent > delta * (1 + 1e-12):
        raise BudgetError(
            f"the approximate-DP releases spent delta = {spent:.3g}, more than the total "
            f"delta = {delta:.3g}; raise delta")
    pure = all(e.kind in ("laplace", "pure") for e in events)
    if method == "linear":
        return _linear(events, delta, paper_mode)
    if delta == 0:
        if pure:
            raise BudgetError(
                f"{METHOD_LABELS[method]} needs delta > 0; with delta = 0 use linear "
                "composition (pure epsilon-DP)")
        raise BudgetError("a plan with Gaussian or approximate-DP releases needs delta > 0")
    if method == "advanced":
        linear = _linear(events, delta, paper_mode)
        try:
            return min(linear, _advanced(events, delta, paper_mode))
        except BudgetError:  # the approximate releases used all of δ: no δ′ left to trade
            return linear
    if method == "zcdp":
        rho = total_rho(events)
        if paper_mode:
            return calibration.zcdp_epsilon_bun_steinke(rho, delta)
        return calibration.zcdp_epsilon(rho, delta)
    if method == "ma":
        return _ma(events, delta, paper_mode)
    if method == "rdp":
        return _rdp(events, delta)
    epsilon = _pld_epsilons(events, [delta])[0]
    if pure:  # dp-accounting's pessimistic grid can land a hair above the (valid) linear sum
        return min(epsilon, _linear(events, delta, paper_mode))
    return epsilon


def compose_parts(parts: dict[str | None, list[PrivacyEvent]], delta: float, method: str,
                  *, paper_mode: bool = False) -> float:
    """Parallel composition: releases without a part touch everyone; a part's touch only it.

    A person lies in exactly one part, so their loss composes the shared releases with their
    own part's; the guarantee is the maximum over parts (ALGORITHMS.md §1.2).
    """
    shared = parts.get(None, [])
    named = [events for name, events in parts.items() if name is not None]
    if not named:
        return compose(shared, delta, method, paper_mode=paper_mode)
    return max(compose(shared + events, delta, method, paper_mode=paper_mode)
               for events in named)


def compose_deltas(events: Sequence[PrivacyEvent], deltas: Sequence[float], method: str, *,
                   paper_mode: bool = False) -> list[float]:
    """ε at each of several δ; under ``pld`` the distribution is composed once.

    A δ at which the method cannot answer gives NaN.
    """
    if method == "pld" and all(0 < d < 1 for d in deltas):
        try:
            compose(events, deltas[0], method, paper_mode=paper_mode)  # validates the plan
        except BudgetError:
            return [math.nan] * len(deltas)
        live = [e for e in events if e.count > 0]
        pure = all(e.kind in ("laplace", "pure") for e in live)
        out = _pld_epsilons(live, deltas)
        return [min(e, _linear(live, d, paper_mode)) if pure else e
                for e, d in zip(out, deltas, strict=True)]
    return [_compose_or_nan(events, d, method, paper_mode) for d in deltas]


def compose_rounds(round_events: Sequence[PrivacyEvent], rounds: Sequence[int], delta: float,
                   method: str, *, paper_mode: bool = False) -> list[float]:
    """ε of 1…R repetitions of one round of events at fixed noise (NaN where undefined).

    Each R composes the repeated events as the solver and the ledger do (under ``pld``, the
    same :func:`pld_canonical` list), so the curve at the planned R is the solved target.
    """
    def repeated(r: int) -> list[PrivacyEvent]:
        return [PrivacyEvent(e.kind, e.mu, e.epsilon, e.delta, int(e.count * r))
                for e in round_events]

    return [_compose_or_nan(repeated(r), delta, method, paper_mode) for r in rounds]


def _compose_or_nan(events: Sequence[PrivacyEvent], delta: float, method: str,
                    paper_mode: bool) -> float:
    try:
        return compose(events, delta, method, paper_mode=paper_mode)
    except BudgetError:
        return math.nan
