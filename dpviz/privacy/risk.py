"""What ε means: the best membership-inference attack, its trade-off curve, posterior beliefs.

A differentially private release is a hypothesis test an attacker cannot win by much: given
the output, decide whether a person's row was in the data (H₁) or replaced (H₀). Every test
has a false-positive rate α (FPR) and a true-positive rate 1 − β (TPR); DP bounds the best
TPR at each FPR. This module turns a guarantee into that bound, three ways:

``risk_of_epsilon(ε, δ)``
    An (ε, δ)-DP guarantee alone: the trade-off function of Kairouz, Oh & Viswanath (2015),
    ``β(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))`` (Dong, Roth & Su 2019, eq. 5).
``risk_of_gaussian(Δ, σ, count)``
    A plan of Gaussian releases: exactly μ-GDP with ``μ = √count·Δ/σ``, whose trade-off is
    ``β(α) = Φ(Φ⁻¹(1 − α) − μ)`` (Dong, Roth & Su, Def. 2.7 and Cor. 3.3).
``risk_of_ledger(ledger, δ)``
    A run's own ledger: its whole privacy profile ε(δ) composed by the PLD accountant
    (:func:`dpviz.privacy.accounting.delta_profile`, closed forms where they exist). A
    mechanism that is (ε(δ), δ)-DP for every δ is f-DP with ``f = sup_δ f_{ε(δ), δ}``
    (Dong, Roth & Su, Prop. 2.12), so the curve is the upper envelope of the Kairouz curves
    of a grid of the profile's pairs. A finite grid makes β a little *smaller* than the
    exact envelope: the attacker drawn is never weaker than the real one.

The attack's *advantage* is ``max_α (TPR − FPR)``, the total-variation distance between the
output distributions on neighbouring data (Wasserman & Zhou 2010 read DP as this testing
bound). For a symmetric trade-off it is reached on the anti-diagonal ``TPR = 1 − FPR``:
``(e^ε − 1 + 2δ)/(e^ε + 1)`` for (ε, δ)-DP (Kairouz et al., Thm 2.1; pure ε:
``tanh(ε/2)``), ``2Φ(μ/2) − 1`` for μ-GDP, and for an envelope the smallest of its pairs'
advantages (the fixed point of ``max_i f_i`` is the largest of the ``f_i``'s fixed points).
The profile grid contains ε = 0, where ``δ(0)`` is the total variation: the envelope's
advantage is then the exact total variation.

The *frequency* format (Franzen et al. 2022, after medical risk communication): an attacker
who may wrongly accuse 1 in 100 people not in the data picks out at most
``⌈100·TPR(1 %)⌉`` in 100 of those who are (:func:`picked_out`); :class:`PlainRisk` states
it beside the odds and a qualitative level (:func:`risk_level`).

The *posterior* bound: an attacker with prior belief p that the person is in the data,
after seeing an (ε, δ)-DP release, believes it with probability at most
``p e^ε/(p e^ε + 1 − p)`` — except on outputs of total probability δ (the likelihood ratio
is at most e^ε outside that set). From a 50% prior this is ``e^ε/(1 + e^ε)``.

References
----------
.. [1] P. Kairouz, S. Oh and P. Viswanath, "The composition theorem for differential
   privacy", ICML 2015, Theorem 2.1.
.. [2] J. Dong, A. Roth and W. Su, "Gaussian differential privacy", 2019
   (J. R. Stat. Soc. B 2022), Definitions 2.1–2.7, Propositions 2.5 and 2.12.
.. [3] L. Wasserman and S. Zhou, "A statistical framework for differential privacy",
   JASA 2010, Section 2.
.. [4] T. Humphries et al., "Investigating membership inference attacks under data
   dependencies", CSF 2023 (advantage bounds ``(e^ε − 1 + 2δ)/(e^ε + 1)``).
.. [5] D. Franzen, S. Nuñez von Voigt, P. Sörries, F. Tschorsch and C. Müller-Birn, "Am I
   private and if so, how many? Communicating privacy guarantees of differential privacy
   with risk communication formats", CCS 2022 (frequency formats).
.. [6] P. Nanayakkara, M. A. Smart, R. Cummings, G. Kaptchuk and E. M. Redmiles, "What are
   the chances? Explaining the epsilon parameter in differential privacy", USENIX Security
   2023 (odds-based explanations).
.. [7] TensorFlow Privacy, "Measure privacy" (tensorflow.org/responsible_ai/privacy/guide/
   measure_privacy): ε "less than 10, or for more stringent privacy guarantees, less than
   1"; N. Ponomareva et al., "How to DP-fy ML: a practical guide to machine learning with
   differential privacy", JAIR 77, 2023, Section 5.2 (the same two thresholds as tiers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.core.relations import ADD_OR_REMOVE_ONE, ONE_EDGE, REPLACE_ONE, Relation
from dpviz.privacy import calibration
from dpviz.privacy.accounting import PrivacyEvent, compose_parts, delta_profile
from dpviz.privacy.budget import Budget
from dpviz.privacy.errors import BudgetError
from dpviz.privacy.ledger import Ledger

PRIOR = limits.Limit("prior", 0.0, 1.0)
DELTA_FLOOR = 1e-12
#: ε grid of the profile, uniform from 0 to ε(δ = 1e-12): one vectorised δ(ε) query of the
#: PLD; 300 pairs keep the envelope within 0.003 of the exact Gaussian curve's TPR (measured
#: for μ from 0.2 to 8).
PROFILE_POINTS = 300
PROFILE_TOP = 1 - 1e-9
#: FPR grid of a curve: uniform, plus log-spaced points where a strong attack's TPR rises.
CURVE_POINTS = 101
CURVE_LOG_POINTS = 25
CURVE_LOG_LOW = 1e-6
#: The false-positive rate at which the panel quotes the best attack's true-positive rate: an
#: attacker who may wrongly accuse 1 person in 100 (Carlini et al. 2022 read attacks there).
LOW_FPR = 0.01
#: The qualitative level of a guarantee's ε, by the thresholds of Google's TensorFlow Privacy
#: guide and Ponomareva et al. 2023 (References [7]): up to 1 low risk (their "more stringent"
#: guarantees), up to 10 moderate (their "small constant"), above 10 high.
RISK_LEVELS: tuple[tuple[float, str], ...] = ((1.0, "low"), (10.0, "moderate"),
                                              (math.inf, "high"))
#: How many people a frequency counts among ("1 in 100").
FREQUENCY_OF = 100
#: δ at which a budget without one (a ρ budget) is stated as (ε, δ) when its releases need one.
DEFAULT_DELTA = 1e-5
#: Relative difference under which the spent ε counts as the allowed one (PLD discretisation).
SAME_EPSILON = 5e-3
#: Advantage difference under which the releases' own curve counts as the worst case's.
SAME_ADVANTAGE = 5e-3

Parts = Mapping[str | None, Sequence[PrivacyEvent]]


def _check_epsilon(epsilon: float) -> float:
    if isinstance(epsilon, float | int) and not isinstance(epsilon, bool) and epsilon == 0:
        return 0.0
    return limits.check_epsilon(epsilon)


def _check_delta(delta: float) -> float:
    return limits.DELTA.check(delta)


def advantage_bound(epsilon: float, delta: float) -> float:
    """Best membership-inference advantage ``max(TPR − FPR)`` allowed by (ε, δ)-DP.

    ``(e^ε − 1 + 2δ)/(e^ε + 1) = tanh(ε/2) + 2δ/(e^ε + 1)`` (Kairouz et al. 2015, Thm 2.1).

    Examples
    --------
    >>> round(advantage_bound(1.0, 0.0), 6)
    0.462117
    >>> advantage_bound(math.inf, 0.0)
    1.0
    """
    from scipy.special import expit  # here: scipy.special costs Home's first run

    return min(1.0, float(math.tanh(epsilon / 2) + 2 * delta * expit(-epsilon)))


def posterior_bound(prior: ArrayLike, epsilon: float) -> NDArray[np.float64]:
    """Largest belief an attacker can reach from ``prior`` after an ε-DP (except δ) release.

    ``p e^ε/(p e^ε + 1 − p)``, computed as ``expit(logit(p) + ε)``.

    Parameters
    ----------
    prior : array-like
        The attacker's belief before the release, in ``[0, 1]``.
    epsilon : float
        ε of the release at the chosen δ (``inf``: no bound, the posterior can reach 1).

    Returns
    -------
    numpy.ndarray
        The bound, same shape as ``prior``.

    Raises
    ------
    ValueError
        For a prior outside ``[0, 1]`` or a negative ε.

    Examples
    --------
    >>> round(float(posterior_bound(0.5, math.log(3))), 6)
    0.75
    """
    p = np.asarray(prior, dtype=float)
    for value in np.atleast_1d(p):
        PRIOR.check(float(value))
    epsilon = _check_epsilon(epsilon)
    if math.isinf(epsilon):
        return np.where(p > 0, 1.0, 0.0)
    from scipy.special import expit, logit  # here: scipy.special costs Home's first run

    with np.errstate(divide="ignore"):
        return np.asarray(expit(logit(p) + epsilon), dtype=float)


def tradeoff_epsilon_delta(fpr: ArrayLike, epsilon: float, delta: float) -> NDArray[np.float64]:
    """TPR ``1 − β(α)`` of the (ε, δ)-DP trade-off function at FPR ``α``.

    ``β(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))`` (Dong, Roth & Su, eq. 5).

    Examples
    --------
    >>> tradeoff_epsilon_delta([0.0, 0.5, 1.0], 0.0, 0.0).tolist()
    [0.0, 0.5, 1.0]
    """
    alpha = np.clip(np.asarray(fpr, dtype=float), 0.0, 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        steep = np.where(alpha > 0, 1 - delta - math.exp(min(epsilon, 700.0)) * alpha, 1 - delta)
        flat = math.exp(-epsilon) * (1 - delta - alpha)
    steep = np.where(np.isinf(epsilon) & (alpha > 0), -np.inf, steep)
    beta = np.maximum(0.0, np.maximum(steep, flat))
    return np.asarray(1.0 - beta, dtype=float)


def tradeoff_gaussian(fpr: ArrayLike, mu: float) -> NDArray[np.float64]:
    """TPR of the μ-GDP trade-off: ``1 − Φ(Φ⁻¹(1 − α) − μ) = Φ(Φ⁻¹(α) + μ)``.

    Examples
    --------
    >>> round(float(tradeoff_gaussian(0.5, 0.0)), 12)
    0.5
    """
    from scipy.special import ndtr, ndtri  # here: scipy.special costs Home's first run

    alpha = np.clip(np.asarray(fpr, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        return np.asarray(ndtr(ndtri(alpha) + mu), dtype=float)


@dataclass(frozen=True)
class Risk:
    """A guarantee translated into attacks: advantage, trade-off curve, posterior bound.

    Attributes
    ----------
    epsilon, delta : float
        ε at the chosen δ (the posterior bound's pair).
    advantage : float
        ``max(TPR − FPR)`` of the best membership-inference attack.
    best : (float, float)
        That attack's (FPR, TPR).
    source : {"epsilon-delta", "gaussian", "profile"}
        Which trade-off the curve is (see the module docstring).
    mu : float or None
        The GDP parameter of a Gaussian plan.
    profile : tuple of (float, float)
        The (ε, δ) pairs whose envelope is the curve (``source == "profile"``).
    """

    epsilon: float
    delta: float
    advantage: float
    best: tuple[float, float]
    source: str
    mu: float | None = None
    profile: tuple[tuple[float, float], ...] = ()

    def tpr(self, fpr: ArrayLike) -> NDArray[np.float64]:
        """The best attack's TPR at each FPR (the trade-off curve ``1 − f(α)``)."""
        if self.source == "gaussian":
            assert self.mu is not None
            return tradeoff_gaussian(fpr, self.mu)
        pairs = self.profile or ((self.epsilon, self.delta),)
        return np.min([tradeoff_epsilon_delta(fpr, e, d) for e, d in pairs], axis=0)

    def curve(self, points: int = CURVE_POINTS) -> tuple[NDArray[np.float64],
                                                         NDArray[np.float64]]:
        """FPR and TPR along the curve: a uniform grid, a log grid near 0, and the best point."""
        if points < 2:
            raise ValueError(f"points must be >= 2, got {points}")
        fpr = np.concatenate([np.linspace(0.0, 1.0, points),
                              np.geomspace(CURVE_LOG_LOW, 1.0 / points, CURVE_LOG_POINTS),
                              [self.best[0]], self._kinks()])
        fpr = np.unique(np.clip(fpr, 0.0, 1.0))
        return fpr, self.tpr(fpr)

    def _kinks(self) -> list[float]:
        if self.source == "gaussian":
            return []
        pairs = self.profile or ((self.epsilon, self.delta),)
        if len(pairs) > 1:
            return []
        eps, delta = pairs[0]
        return [(1 - delta) * math.exp(-eps), 1 - delta]

    def posterior(self, prior: ArrayLike) -> NDArray[np.float64]:
        """The posterior bound from each prior at this ε (except with probability δ)."""
        return posterior_bound(prior, self.epsilon)

    @property
    def posterior_max(self) -> float:
        """The posterior bound from a 50% prior, ``e^ε/(1 + e^ε)``."""
        return float(self.posterior(0.5))

    def to_dict(self, points: int = CURVE_POINTS) -> dict[str, Any]:
        """JSON-ready form: DESIGN.md's ``risk`` output plus the ε, δ it used."""
        fpr, tpr = self.curve(points)
        return {"advantage": self.advantage, "posterior_max": self.posterior_max,
                "tradeoff": [[float(a), float(b)] for a, b in zip(fpr, tpr, strict=True)],
                "epsilon": self.epsilon, "delta": self.delta, "source": self.source}


def _best_of_pairs(pairs: Sequence[tuple[float, float]]) -> tuple[float, tuple[float, float]]:
    """Advantage and best point of the envelope of Kairouz curves.

    Each curve's best test sits at its fixed point ``α_i = (1 − δ_i)/(e^{ε_i} + 1)``; the
    envelope's fixed point is the largest of them, and its advantage ``1 − 2α``.
    """
    from scipy.special import expit  # here: scipy.special costs Home's first run

    alpha = max((1 - d) * float(expit(-e)) for e, d in pairs)
    return max(0.0, 1 - 2 * alpha), (alpha, 1 - alpha)


def risk_of_epsilon(epsilon: float, delta: float = 0.0) -> Risk:
    """The risk an (ε, δ)-DP guarantee allows, from the pair alone.

    Parameters
    ----------
    epsilon : float
        ε ≥ 0 (``inf``: no guarantee).
    delta : float
        ``0 ≤ δ < 1``.

    Returns
    -------
    Risk

    Raises
    ------
    ValueError
        For ε or δ out of range.

    Examples
    --------
    >>> r = risk_of_epsilon(1.0, 1e-5)
    >>> round(r.advantage, 4), round(r.posterior_max, 4)
    (0.4621, 0.7311)
    """
    epsilon, delta = _check_epsilon(epsilon), _check_delta(delta)
    advantage, best = _best_of_pairs([(epsilon, delta)])
    return Risk(epsilon, delta, advantage, best, "epsilon-delta")


def risk_of_gaussian(sensitivity: float, sigma: float, count: int = 1,
                     delta: float = 1e-5) -> Risk:
    """The exact risk of ``count`` Gaussian releases of L2 sensitivity Δ and noise σ.

    They compose to μ-GDP with ``μ = √count·Δ/σ``; the advantage is ``2Φ(μ/2) − 1`` and ε at
    δ is the analytic Gaussian's (Balle & Wang 2018), used by the posterior bound.

    Parameters
    ----------
    sensitivity, sigma : float
        L2 sensitivity Δ > 0 and noise standard deviation σ > 0 of each release.
    count : int
        How many releases, ``1 … 100 000``.
    delta : float
        δ of the posterior bound's (ε, δ) pair; 0 gives ε = ∞ (no pure guarantee).

    Returns
    -------
    Risk

    Raises
    ------
    ValueError
        For a parameter out of range.

    Examples
    --------
    >>> r = risk_of_gaussian(1.0, 2.0, count=4)
    >>> r.mu, round(r.advantage, 4)
    (1.0, 0.3829)
    """
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    sigma = limits.NOISE_SCALE.check(sigma)
    count = limits.check_integer(limits.COUNT, count)
    delta = _check_delta(delta)
    mu = math.sqrt(count) * sensitivity / sigma
    epsilon = calibration.analytic_gaussian_epsilon(mu, delta) if delta > 0 else math.inf
    from scipy.special import ndtr  # here: scipy.special costs Home's first run

    advantage = float(2 * ndtr(mu / 2) - 1)
    best = (float(ndtr(-mu / 2)), float(ndtr(mu / 2)))
    return Risk(epsilon, delta, advantage, best, "gaussian", mu=mu)


def _approximate_delta(events: Sequence[PrivacyEvent]) -> float:
    return sum(e.delta * e.count for e in events if e.kind == "approximate")


def _profile_deltas(parts: Parts, epsilons: Sequence[float]) -> NDArray[np.float64]:
    """δ(ε) of the worst part at each ε (parallel composition), by the PLD accountant."""
    shared = list(parts.get(None, []))
    named = [list(v) for k, v in parts.items() if k is not None] or [[]]
    return np.max([delta_profile(shared + events, epsilons) for events in named], axis=0)


def _all_events(parts: Parts) -> list[PrivacyEvent]:
    return [e for events in parts.values() for e in events if e.count > 0]


def _epsilon_at(parts: Parts, delta: float) -> float:
    """ε of the composition at δ: PLD for δ > 0, linear (pure DP) at δ = 0, else ∞."""
    try:
        return compose_parts({k: list(v) for k, v in parts.items()}, delta,
                             "pld" if delta > 0 else "linear")
    except BudgetError:
        return math.inf


def risk_of_events(parts: Parts, delta: float) -> Risk:
    """The risk of a composition of privacy events, from its whole ε(δ) profile.

    Parameters
    ----------
    parts : mapping
        Events by data part (``None``: computed on everyone), as
        :meth:`dpviz.privacy.Ledger.events_by_part` gives them.
    delta : float
        δ of the posterior bound's (ε, δ) pair.

    Returns
    -------
    Risk
        ``source == "profile"``; ``profile`` holds the pairs of the envelope.

    Examples
    --------
    >>> r = risk_of_events({None: [PrivacyEvent("laplace", epsilon=1.0)]}, 1e-5)
    >>> round(r.advantage, 3), round(1 - math.exp(-0.5), 3)
    (0.393, 0.393)
    """
    delta = _check_delta(delta)
    events = _all_events(parts)
    if not events:
        return Risk(0.0, delta, 0.0, (0.5, 0.5), "profile", profile=((0.0, 0.0),))
    if any(math.isinf(e.mu) or math.isinf(e.epsilon) for e in events):
        return Risk(math.inf, delta, 1.0, (0.0, 1.0), "profile", profile=((math.inf, 0.0),))
    floor = max(DELTA_FLOOR, _approximate_delta(events) * (1 + 1e-9))
    if floor >= PROFILE_TOP:
        raise BudgetError(f"the releases spend delta = {floor:.3g}: they bound no attack")
    top = _epsilon_at(parts, floor)
    if not math.isfinite(top):
        return Risk(math.inf, delta, 1.0, (0.0, 1.0), "profile", profile=((math.inf, 0.0),))
    # ε = 0 is on the grid: there δ(0) is the total variation, the exact advantage.
    grid = np.linspace(0.0, top, PROFILE_POINTS)
    deltas = _profile_deltas(parts, grid.tolist())
    pairs = [(float(e), float(d)) for e, d in zip(grid, deltas, strict=True) if d < 1]
    pairs.append((top, floor))
    if all(e.kind in ("laplace", "pure") for e in events):
        pairs.append((_epsilon_at(parts, 0.0), 0.0))
    at_delta = _epsilon_at(parts, delta)
    advantage, best = _best_of_pairs(pairs)
    return Risk(at_delta, delta, advantage, best, "profile",
                profile=tuple(pairs))


def risk_of_ledger(ledger: Ledger, delta: float | None = None) -> Risk:
    """The risk of a run, from its own ledger (every release, composed by PLD).

    Parameters
    ----------
    ledger : Ledger
        The run's ledger.
    delta : float, optional
        δ of the posterior bound's (ε, δ) pair; defaults to the ledger's budget δ.

    Returns
    -------
    Risk

    Examples
    --------
    >>> from dpviz.privacy import Budget, Ledger, gaussian
    >>> ledger = Ledger(Budget(epsilon=1.0, delta=1e-5))
    >>> _ = gaussian(0.0, sensitivity=1.0, sigma=2.0, rng=np.random.default_rng(0),
    ...              ledger=ledger, name="mean")
    >>> round(risk_of_ledger(ledger).advantage, 3)
    0.197
    """
    if delta is None:
        delta = ledger.budget.delta if ledger.budget is not None else 0.0
    return risk_of_events(ledger.events_by_part(), delta)


def risk_of_plan(mechanism: str, sensitivity: float, scale: float, count: int = 1,
                 delta: float = 1e-5) -> Risk:
    """The risk of ``count`` identical Gaussian (exact GDP) or Laplace (PLD) releases.

    Raises
    ------
    ValueError
        For an unknown mechanism or a parameter out of range.
    """
    if mechanism == "gaussian":
        return risk_of_gaussian(sensitivity, scale, count, delta)
    if mechanism != "laplace":
        raise ValueError(f"mechanism must be gaussian or laplace, got {mechanism!r}")
    sensitivity = limits.SENSITIVITY.check(sensitivity)
    scale = limits.NOISE_SCALE.check(scale)
    count = limits.check_integer(limits.COUNT, count)
    event = PrivacyEvent("laplace", epsilon=sensitivity / scale, count=count)
    return risk_of_events({None: [event]}, delta)


@dataclass(frozen=True)
class Spending:
    """What a run spent against what it was allowed, and the risk of both readings.

    Attributes
    ----------
    epsilon, delta : float
        The pair the run spent: ε at the budget's δ composed exactly (PLD), or, when every
        release is pure, the pure ε with ``delta == 0``.
    allowed_epsilon : float
        The budget's ε (a ρ budget's ``ρ + 2√(ρ ln(1/δ))`` at ``delta``).
    allowed_rho : float or None
        The budget's ρ, for a ρ budget.
    own : Risk
        The releases' own trade-off (their whole ε(δ) profile).
    worst : Risk
        Any mechanism meeting the spent (ε, δ): the worst case of the pair alone.
    """

    epsilon: float
    delta: float
    allowed_epsilon: float
    allowed_rho: float | None
    own: Risk
    worst: Risk

    @property
    def pure(self) -> bool:
        """Whether the spent guarantee is pure ε-DP (then nothing says δ)."""
        return self.delta == 0

    @property
    def change(self) -> float:
        """``spent/allowed − 1`` (0 when they agree within :data:`SAME_EPSILON`)."""
        if not math.isfinite(self.allowed_epsilon) or self.allowed_epsilon <= 0:
            return 0.0
        ratio = self.epsilon / self.allowed_epsilon - 1
        return 0.0 if abs(ratio) <= SAME_EPSILON else ratio

    @property
    def tighter(self) -> bool:
        """Whether the releases' own curve bounds attacks clearly below the pair alone."""
        return tighter(self.own, self.worst)


def tighter(own: Risk, worst: Risk) -> bool:
    """Whether ``own`` allows a clearly smaller advantage than ``worst`` (the pair's curve)."""
    return own.advantage < worst.advantage - SAME_ADVANTAGE


def _pure(events: Sequence[PrivacyEvent]) -> bool:
    return all(e.kind in ("laplace", "pure") for e in events)


def spending(parts: Parts, budget: Budget, stated_delta: float | None = None) -> Spending:
    """The (ε, δ) a run's releases spent, beside the budget it was allowed.

    Parameters
    ----------
    parts : mapping
        The run's events by data part (:meth:`dpviz.privacy.Ledger.events_by_part`).
    budget : Budget
        The budget the run was given (one run's; several runs charged together spend more).
    stated_delta : float, optional
        For a ρ budget, the δ at which it is stated as (ε, δ); default
        :data:`DEFAULT_DELTA`. Ignored when the budget has a δ.

    Returns
    -------
    Spending

    Raises
    ------
    ValueError
        For a stated δ out of range.

    Examples
    --------
    Four Laplace releases of ε = 0.25 each spend a pure ε = 1, whatever δ the budget allows:

    >>> four = {None: [PrivacyEvent("laplace", epsilon=0.25, count=4)]}
    >>> s = spending(four, Budget(epsilon=1.0, delta=1e-5))
    >>> round(s.epsilon, 12), s.delta, s.change
    (1.0, 0.0, 0.0)
    """
    delta = budget.delta
    if delta == 0 and budget.rho is not None:
        delta = DEFAULT_DELTA if stated_delta is None else limits.DELTA.check(stated_delta)
    allowed = budget.epsilon_at(delta)
    events = _all_events(parts)
    spent_delta = delta
    if _pure(events):
        pure_epsilon = _epsilon_at(parts, 0.0)
        if delta == 0 or pure_epsilon <= allowed * (1 + SAME_EPSILON):
            spent_delta = 0.0
    elif delta == 0:
        spent_delta = DEFAULT_DELTA  # approximate releases under a pure budget: say so at 1e-5
    own = risk_of_events(parts, spent_delta)
    return Spending(own.epsilon, spent_delta, allowed, budget.rho, own,
                    risk_of_epsilon(own.epsilon, spent_delta))


def risk_level(epsilon: float) -> str:
    """The guarantee's level in one word: ``"low"``, ``"moderate"`` or ``"high"`` risk.

    ε ≤ 1 is low, 1 < ε ≤ 10 moderate, above 10 (or no bound) high (:data:`RISK_LEVELS`,
    after TensorFlow Privacy's guide and Ponomareva et al. 2023, References [7]).

    Examples
    --------
    >>> risk_level(1.0), risk_level(3.13), risk_level(math.inf)
    ('low', 'moderate', 'high')
    """
    epsilon = _check_epsilon(epsilon)
    return next(level for top, level in RISK_LEVELS if epsilon <= top)


def picked_out(risk: Risk, fpr: float = LOW_FPR, of: int = FREQUENCY_OF) -> int:
    """Of ``of`` people in the data, how many the best attack picks out at most.

    The attack may wrongly accuse ``fpr·of`` of ``of`` people not in the data; its
    true-positive rate there is the curve's ``TPR(fpr)``, rounded *up* (the sentence says
    "at most"; 1e-9 absorbs the float error of a rate that is a whole number).

    Examples
    --------
    >>> picked_out(risk_of_epsilon(1.0)), picked_out(risk_of_epsilon(0.0))
    (3, 1)
    """
    return max(1, math.ceil(of * float(risk.tpr(fpr)) - 1e-9))


def _plain_number(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.3g}"


@dataclass(frozen=True)
class PlainRisk:
    """What a stakeholder reads first: the ε set, the odds, a frequency and a level.

    The same sentences head every risk panel and the stakeholder report
    (:func:`dpviz.lab.report.report_html`); they use no expert term.

    Attributes
    ----------
    epsilon : float
        The ε the user set (the headline): the slider's, or a ρ budget's stated ε; the ε
        spent when that is larger by less than :data:`SAME_EPSILON` (no overspend is said,
        but the headline never states less than was spent).
    guarantee : float
        The ε the odds and the level describe: ``epsilon``, or the larger ε the page's
        releases spent together (an overspend is never hidden).
    delta : float
        The chance the odds bound fails (0: pure DP, never mentioned).
    picked : int
        :func:`picked_out` of the releases' own curve.
    relation : Relation
        What is protected (its words: ``unit``, ``member``, ``absent``, ``present``).
    overspent : str or None
        One sentence when the releases spent more than ``epsilon``.
    """

    epsilon: float
    guarantee: float
    delta: float
    picked: int
    relation: Relation
    overspent: str | None = None

    @property
    def level(self) -> str:
        """:func:`risk_level` of the guarantee."""
        return risk_level(self.guarantee)

    def headline(self) -> str:
        """``ε = 1``: the ε the user set."""
        return f"ε = {_plain_number(self.epsilon)}"

    def odds(self) -> str:
        """The guarantee as odds, in one sentence (Nanayakkara et al. 2023)."""
        if math.isinf(self.guarantee):
            return (f"No bound: {self.relation.unit} can change what anyone learns about "
                    "them without limit.")
        factor = math.exp(self.guarantee)
        unless = (f" (except with a chance of 1 in {1 / self.delta:,.0f})"
                  if self.delta > 0 else "")
        return (f"{self.relation.unit[0].upper()}{self.relation.unit[1:]} changes the chance "
                f"of any result by at most a factor of {factor:.3g}{unless}, so the results "
                f"can raise the odds of any guess about it at most {factor:.3g}-fold: someone "
                f"50% sure that {self.relation.member} becomes at most "
                f"{float(posterior_bound(0.5, self.guarantee)):.1%} sure.")

    def frequency(self) -> str:
        """The best attack as a frequency (Franzen et al. 2022), to follow "In frequencies:"."""
        random = " — no better than accusing at random" if self.picked <= 1 else ""
        return (f"an attacker who may wrongly accuse only 1 in {FREQUENCY_OF} "
                f"{self.relation.absent} can correctly pick out at most {self.picked} in "
                f"{FREQUENCY_OF} {self.relation.present}{random}.")

    def level_sentence(self) -> str:
        """The level and the thresholds it is read from."""
        return (f"Risk: {self.level}. An ε up to 1 counts as low risk, up to 10 as moderate, "
                "above 10 as high (Google's TensorFlow Privacy guide; Ponomareva et al. 2023).")


def plain_risk(spent: Spending, relation: Relation, *, runs: int = 1,
               own: Risk | None = None) -> PlainRisk:
    """The plain summary of a run's :class:`Spending` (or a target's, ``own`` its plan).

    Parameters
    ----------
    spent : Spending
        What the releases spent against what the controls allowed.
    relation : Relation
        What is protected.
    runs : int
        How many runs of the allowed budget the releases hold.
    own : Risk, optional
        The curve the frequency reads (default: the releases' own, ``spent.own``).

    Returns
    -------
    PlainRisk

    Examples
    --------
    >>> three = {None: [PrivacyEvent("laplace", epsilon=1.0, count=3)]}
    >>> p = plain_risk(spending(three, Budget(epsilon=1.0)), REPLACE_ONE, runs=3)
    >>> p.headline(), p.guarantee, p.overspent[:33]
    ('ε = 1', 3.0, 'This page drew 3 private runs on ')
    """
    allowed, used = spent.allowed_epsilon, spent.epsilon
    if spent.change <= 0:  # within SAME_EPSILON: no overspend said, but no number below the spend
        return PlainRisk(max(allowed, used), max(allowed, used), spent.delta,
                         picked_out(own or spent.own), relation)
    drawn = (f"This page drew {runs} private runs on the same data, each within your "
             f"ε = {_plain_number(allowed)}: together they spent" if runs > 1 else
             f"You set ε = {_plain_number(allowed)}; these releases together spent")
    overspent = (f"{drawn} ε = {_plain_number(used)}, more than you set. Everything below "
                 "is for all of them.")
    return PlainRisk(allowed, used, spent.delta, picked_out(own or spent.own), relation,
                     overspent)


__all__ = ["ADD_OR_REMOVE_ONE", "LOW_FPR", "ONE_EDGE", "REPLACE_ONE", "PlainRisk", "Relation",
           "Risk", "Spending", "advantage_bound", "picked_out", "plain_risk", "posterior_bound",
           "risk_level", "risk_of_epsilon", "risk_of_events", "risk_of_gaussian",
           "risk_of_ledger", "risk_of_plan", "spending", "tighter", "tradeoff_epsilon_delta",
           "tradeoff_gaussian"]
