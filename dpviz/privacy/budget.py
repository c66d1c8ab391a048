"""The privacy budget a user asks for: a target (ε, δ) or ρ and an accounting method."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from dpviz.core import limits
from dpviz.privacy.accounting import METHODS
from dpviz.privacy.errors import BudgetError

#: The δ at which a ρ (zCDP) budget is stated as ε where no other is given: the covariance
#: paper's (Dong, Liang & Yi 2022), its page's slider's default.
STATED_DELTA = 1e-10


@dataclass(frozen=True)
class Budget:
    """A target guarantee and how releases are composed to meet it.

    Parameters
    ----------
    epsilon : float or None
        Target ε; ``math.inf`` means no privacy (the non-private answer, no noise).
    delta : float
        Target δ, ``0 ≤ δ < 1``. With ``delta = 0`` (pure DP) only linear composition
        applies, and ``method`` is set to ``"linear"``.
    rho : float or None
        Target ρ for a zCDP budget (give ``epsilon`` or ``rho``, not both).
    method : str
        Accounting method, one of ``linear, advanced, zcdp, ma, rdp, pld``.
    paper_mode : bool
        Reproduce seed 002's accounting choices (ALGORITHMS.md §1.2).

    Examples
    --------
    >>> Budget(epsilon=1.0, delta=1e-5, method="pld").method
    'pld'
    >>> Budget(epsilon=1.0).method
    'linear'
    >>> Budget(epsilon=0)
    Traceback (most recent call last):
    ...
    dpviz.privacy.errors.BudgetError: epsilon must be > 0 and <= 1000, got 0
    """

    epsilon: float | None = None
    delta: float = 0.0
    rho: float | None = None
    method: str = "zcdp"
    paper_mode: bool = False

    def __post_init__(self) -> None:
        try:
            if (self.epsilon is None) == (self.rho is None):
                raise BudgetError("give a privacy budget as epsilon or as rho, not both or neither")
            if self.method not in METHODS:
                raise BudgetError(
                    f"accounting method must be one of {', '.join(METHODS)}, got {self.method!r}")
            object.__setattr__(self, "delta", limits.DELTA.check(self.delta))
            if self.rho is not None:
                object.__setattr__(self, "rho", limits.RHO.check(self.rho))
                if self.method != "zcdp":
                    object.__setattr__(self, "method", "zcdp")
                return
            object.__setattr__(self, "epsilon", limits.check_epsilon(self.epsilon))
            if self.delta == 0 and not self.non_private:
                object.__setattr__(self, "method", "linear")
        except BudgetError:
            raise
        except ValueError as err:
            raise BudgetError(str(err)) from None

    @property
    def non_private(self) -> bool:
        """True for ε = ∞: releases carry no noise."""
        return self.epsilon is not None and math.isinf(self.epsilon)

    def epsilon_at(self, delta: float) -> float:
        """The ε this budget allows at ``delta``: its own ε, or a ρ budget's stated at ``delta``.

        A ρ budget converts by Bun & Steinke's ``ε = ρ + 2√(ρ ln(1/δ))`` (2016, Prop. 1.3; the
        conversion the covariance paper states ρ with), ∞ at δ = 0. The accountants use the
        tighter :func:`~dpviz.privacy.calibration.zcdp_epsilon`.

        Examples
        --------
        >>> round(Budget(rho=0.5).epsilon_at(1e-5), 4), Budget(rho=0.5).epsilon_at(0.0)
        (5.2985, inf)
        >>> Budget(epsilon=1.0, delta=1e-5).epsilon_at(1e-9)
        1.0
        """
        from dpviz.privacy.calibration import zcdp_epsilon_bun_steinke

        if self.rho is None:
            return float(self.epsilon)  # type: ignore[arg-type]
        delta = limits.DELTA.check(delta)
        return zcdp_epsilon_bun_steinke(self.rho, delta) if delta > 0 else math.inf

    def stated(self, delta: float = 0.0) -> str:
        """The budget as the pages state it: ``ε = 8``; a ρ budget as the ε it gives.

        A ρ is stated at ``delta`` (:meth:`epsilon_at`), or at :data:`STATED_DELTA` when
        ``delta`` is 0 (a ρ budget's own δ is 0): ``ε = 3.13 (ρ = 0.1 at δ = 1e-10)``.

        Examples
        --------
        >>> Budget(rho=0.1).stated(), Budget(epsilon=8.0).stated()
        ('ε = 3.13 (ρ = 0.1 at δ = 1e-10)', 'ε = 8')
        """
        if self.rho is None:
            return f"ε = {float(self.epsilon):.3g}"  # type: ignore[arg-type]
        delta = delta or STATED_DELTA
        return f"ε = {self.epsilon_at(delta):.3g} (ρ = {self.rho:.3g} at δ = {delta:.2g})"

    def with_method(self, method: str) -> Budget:
        """The same target under another accounting method."""
        return replace(self, method=method)

    def describe(self) -> str:
        """A short human label, e.g. ``'ε = 1, δ = 1e-05 (zCDP)'``."""
        from dpviz.privacy.accounting import METHOD_LABELS

        if self.rho is not None:
            return f"ρ = {self.rho:g} (zCDP)"
        if self.non_private:
            return "ε = ∞ (no privacy)"
        delta = f", δ = {self.delta:g}" if self.delta else ""
        return f"ε = {self.epsilon:g}{delta} ({METHOD_LABELS[self.method]})"
