"""The ledger: what every private release spent, and its composed total."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dpviz.privacy.accounting import PrivacyEvent, compose_parts, total_rho
from dpviz.privacy.budget import Budget
from dpviz.privacy.errors import BudgetError

GAUSSIAN_MECHANISMS = ("gaussian", "symmetric_gaussian")
PURE_MECHANISMS = ("exponential", "above_threshold", "randomized_response")
APPROXIMATE_MECHANISMS = ("truncated_laplace", "stable_histogram", "composite")


@dataclass(frozen=True)
class Release:
    """One release recorded in a ledger (ALGORITHMS.md §1.2).

    Parameters
    ----------
    name : str
        What was released, e.g. ``"mean"`` or ``"means[2], iteration 5"``.
    mechanism : str
        ``laplace``, ``gaussian``, ``symmetric_gaussian``, ``truncated_laplace``,
        ``exponential``, ``above_threshold``, ``stable_histogram`` or ``composite``.
    sensitivity : float
        Sensitivity in ``norm`` under replace-one neighbours.
    norm : str
        ``L1``, ``L2``, ``Frobenius`` or ``utility`` (exponential mechanism, SVT).
    scale : float
        The noise scale drawn: Laplace ``b``, Gaussian ``σ``, Gumbel ``2Δ/ε``.
    epsilon, delta, rho : float or None
        This release's own spend, where the notion defines it (a Gaussian's ε is only set
        when the budget solver gave it an (εᵢ, δᵢ) under linear or advanced composition).
    count : int
        Identical independent releases this row stands for.
    part : str or None
        The disjoint part of the data it was computed on (parallel composition).
    theorem : str or None
        For ``composite`` rows: the theorem whose guarantee is recorded.
    components : tuple of Release
        For ``composite`` rows: the releases it covers, for display only.
    sampler : str or None
        What drew the noise: ``"discrete"`` (secure randomness: exact discrete Laplace,
        Gaussian or truncated Laplace noise on a grid, or randomized response's exact flips,
        :mod:`dpviz.privacy.discrete_noise`), ``"discrete+float"`` (that noise, then
        transformed and added in floating point: the masking mechanism's means and
        covariances), ``"opendp"`` (OpenDP's noisy max, a secure exponential mechanism),
        ``"numpy"`` (numpy's floating-point draws: seeded), ``"numpy (Bingham sampler: no
        float-safe sampler exists)"`` (the secure exponential mechanism on the sphere, the
        named exception) or ``None`` (nothing drawn).
    relaxation : float
        What rounding the value to the secure sampler's grid added to the sensitivity
        (``n·g`` in L1, ``√n·g`` in L2 for n entries on the grid ``g``): the release is
        charged at ``sensitivity + relaxation``. 0 for other samplers.
    """

    name: str
    mechanism: str
    sensitivity: float
    norm: str
    scale: float
    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None
    count: int = 1
    part: str | None = None
    theorem: str | None = None
    components: tuple[Release, ...] = ()
    sampler: str | None = None
    relaxation: float = 0.0

    def event(self) -> PrivacyEvent:
        """Describe the release in the accountants' vocabulary."""
        if self.mechanism in GAUSSIAN_MECHANISMS:
            mu = math.inf if self.scale == 0 else self.charged / self.scale
            return PrivacyEvent("gaussian", mu=mu, count=self.count)
        if self.mechanism == "laplace":
            eps = math.inf if self.scale == 0 else self.charged / self.scale
            return PrivacyEvent("laplace", epsilon=eps, count=self.count)
        if self.mechanism in PURE_MECHANISMS:
            return PrivacyEvent("pure", epsilon=float(self.epsilon or 0.0), count=self.count)
        if self.mechanism in APPROXIMATE_MECHANISMS:
            return PrivacyEvent("approximate", epsilon=float(self.epsilon or 0.0),
                                delta=float(self.delta or 0.0), count=self.count)
        raise BudgetError(f"unknown mechanism {self.mechanism!r} in the ledger")

    @property
    def charged(self) -> float:
        """The sensitivity the release is charged at: its own plus the grid's relaxation."""
        return self.sensitivity + self.relaxation

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``inf`` written as the string ``"inf"``; ``relaxation`` when set)."""
        out: dict[str, Any] = {
            "name": self.name, "mechanism": self.mechanism, "sensitivity": self.sensitivity,
            "norm": self.norm, "scale": self.scale, "epsilon": self.epsilon,
            "delta": self.delta, "rho": self.rho, "count": self.count, "part": self.part,
            "sampler": self.sampler,
        }
        if self.relaxation:
            out["relaxation"] = self.relaxation
        if self.theorem is not None:
            out["theorem"] = self.theorem
            out["components"] = [c.to_dict() for c in self.components]
        return {k: json_number(v) for k, v in out.items()}


def json_number(value: Any) -> Any:
    """Make a float JSON-safe: ``inf`` → ``"inf"``, NaN → ``None``."""
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
    return value


@dataclass(frozen=True)
class Total:
    """A composed guarantee: (ε, δ) under a method, and ρ where every release has one."""

    epsilon: float | None
    delta: float
    rho: float | None
    method: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"epsilon": json_number(self.epsilon), "delta": self.delta,
                "rho": json_number(self.rho), "method": self.method}


@dataclass
class Ledger:
    """An append-only list of releases made under one budget.

    A ledger belongs to one estimator call; nothing is shared between calls or users.

    Examples
    --------
    >>> from dpviz.privacy import Budget, Ledger, laplace
    >>> import numpy as np
    >>> ledger = Ledger(Budget(epsilon=1.0))
    >>> _ = laplace(0.0, sensitivity=1.0, scale=2.0, rng=np.random.default_rng(0),
    ...             ledger=ledger, name="count")
    >>> ledger.total().epsilon
    0.5
    """

    budget: Budget | None = None
    _releases: list[Release] = field(default_factory=list)

    def record(self, release: Release) -> None:
        """Append one release."""
        self._releases.append(release)

    @property
    def releases(self) -> tuple[Release, ...]:
        """The releases so far, in order."""
        return tuple(self._releases)

    def events_by_part(self) -> dict[str | None, list[PrivacyEvent]]:
        """Events grouped by data part (``None``: releases computed on everyone).

        Identical releases are merged into one event with their counts added, so the ledger
        composes exactly what the budget solver composed (J releases at one noise level are
        one event counted J times, not a floating-point sum of J terms), in a canonical order
        (dp-accounting's discretised PLD depends on the order at the 1e-11 level).
        """
        counts: dict[str | None, dict[tuple[str, float, float, float], int]] = {}
        for release in self._releases:
            e = release.event()
            key = (e.kind, e.mu, e.epsilon, e.delta)
            part = counts.setdefault(release.part, {})
            part[key] = part.get(key, 0) + e.count
        return {part: [PrivacyEvent(kind, mu, eps, delta, count)  # type: ignore[arg-type]
                       for (kind, mu, eps, delta), count in sorted(events.items())]
                for part, events in counts.items()}

    def total(self, method: str | None = None, delta: float | None = None) -> Total:
        """Compose every release.

        Parameters
        ----------
        method : str, optional
            Accounting method; defaults to the budget's.
        delta : float, optional
            Total δ; defaults to the budget's.
        """
        budget = self.budget
        method = method or (budget.method if budget else "linear")
        delta = (budget.delta if budget else 0.0) if delta is None else delta
        paper_mode = bool(budget and budget.paper_mode)
        parts = self.events_by_part()
        try:
            rho: float | None = max(total_rho(parts.get(None, []) + events)
                                    for name, events in parts.items() if name is not None) \
                if any(k is not None for k in parts) else total_rho(parts.get(None, []))
        except BudgetError:
            rho = None
        epsilon: float | None
        if budget is not None and budget.rho is not None and delta == 0:
            epsilon = None
        else:
            epsilon = compose_parts(parts, delta, method, paper_mode=paper_mode)
        return Total(epsilon=epsilon, delta=delta, rho=rho, method=method)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"releases": [...], "total": {...}}``."""
        return {"releases": [r.to_dict() for r in self._releases],
                "total": self.total().to_dict()}


def compose_runs(ledgers: Sequence[Ledger]) -> Ledger:
    """One ledger for independent runs on the same data: every release of every run.

    Each run's releases are charged again (sequential composition), so the ledger's total is
    the guarantee of all the runs together. Parts (parallel composition) are dropped: each
    run splits the data afresh, so a person may be in a different part in every run, and
    every release is charged to everyone (an upper bound). The budget is the run's that can
    account for the others' releases (the largest δ, then a ρ budget, then any method but
    linear: pure-DP runs such as EMCov keep a linear ε budget that cannot compose a Gaussian);
    its δ is kept, except that approximate-DP releases (stable histograms, truncated Laplace,
    theorem-level composites) spend a fixed δ each, which adds up: a plan with them is
    composed at ``len(ledgers)·δ``.

    Raises
    ------
    BudgetError
        With no ledger, or when the runs' δ add up to 1 or more (no guarantee is left).

    Examples
    --------
    >>> from dpviz.privacy import Budget, laplace
    >>> import numpy as np
    >>> runs = []
    >>> for seed in range(3):
    ...     runs.append(Ledger(Budget(epsilon=0.5)))
    ...     _ = laplace(0.0, sensitivity=1.0, scale=2.0, rng=np.random.default_rng(seed),
    ...                 ledger=runs[-1], name="count")
    >>> compose_runs(runs).total().epsilon
    1.5
    """
    if not ledgers:
        raise BudgetError("compose_runs needs at least one ledger")
    budgets = [ledger.budget for ledger in ledgers if ledger.budget is not None]
    budget = max(budgets, key=lambda b: (b.delta, b.rho is not None, b.method != "linear"),
                 default=None)
    releases = [replace(r, part=None) for ledger in ledgers for r in ledger.releases]
    if budget is not None and any(r.event().kind == "approximate" for r in releases):
        spent = len(ledgers) * budget.delta
        if spent >= 1:
            raise BudgetError(f"{len(ledgers)} runs at delta = {budget.delta:g} spend delta = "
                              f"{spent:.3g} in all, at least 1: no guarantee is left; run "
                              "fewer or lower delta")
        budget = replace(budget, delta=spent)
    out = Ledger(budget)
    for r in releases:
        out.record(r)
    return out
