"""The pages' engine calls, cached per plain parameters.

``st.cache_data`` keys on the arguments, so every function here takes numbers, strings and
tuples only; bad input raises the engine's ``ValueError`` (never cached) for
:func:`dpviz.ui.widgets.attempt` to show.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from .. import lens
from ..mean import Mechanism
from ..privacy import AuditResult, Budget, PlannedRelease
from ..privacy.plans import Plan, epsilon_by_delta, epsilon_by_rounds, solve_methods

#: ``("DP-EM", scenario, rounds, k)`` or ``("free", rounds, ((mechanism, count, weight), ...))``.
PlanSpec = tuple

ROUND_POINTS = 16
DELTAS: tuple[float, ...] = tuple(float(d) for d in np.logspace(-12, -2, 11))


def rounds_of(spec: PlanSpec) -> int:
    """The plan's number of rounds (EM iterations for the DP-EM presets).

    Examples
    --------
    >>> rounds_of(("DP-EM", "GGG", 20, 3)), rounds_of(("free", 10, (("laplace", 1, 1.0),)))
    (20, 10)
    """
    return int(spec[2] if spec[0] == "DP-EM" else spec[1])


def build_plan(spec: PlanSpec) -> Plan:
    """The engine's :class:`~dpviz.privacy.plans.Plan` for a page's plan description."""
    if spec[0] == "DP-EM":
        _, scenario, rounds, k = spec
        return Plan.dp_em(iterations=int(rounds), k=int(k), scenario=scenario)
    _, rounds, lines = spec
    releases = tuple(PlannedRelease(f"line {i + 1}: {mechanism}", mechanism, 1.0, int(count),
                                    float(weight))
                     for i, (mechanism, count, weight) in enumerate(lines))
    total = sum(int(c) for _, c, _ in lines)
    return Plan(releases, int(rounds), f"{rounds} rounds × {total} releases")


@st.cache_data(max_entries=64, show_spinner="Solving the plan under every accounting method…")
def budget_solutions(spec: PlanSpec, epsilon: float, delta: float,
                     paper_mode: bool) -> dict[str, dict | str]:
    """Every method's allocation for the plan at the target, or its sentence."""
    plan = build_plan(spec)
    budget = Budget(epsilon=epsilon, delta=delta, method="linear", paper_mode=paper_mode)
    solutions = solve_methods(plan, budget)
    if all(isinstance(s, str) for s in solutions.values()):
        raise ValueError(solutions["linear"])  # nothing to draw: say why once
    return solutions


def round_grid(rounds: int) -> tuple[int, ...]:
    """The numbers of rounds drawn: 1 … 2 × the plan's, at most ``ROUND_POINTS`` of them.

    Examples
    --------
    >>> round_grid(3)
    (1, 2, 3, 4, 5, 6)
    """
    top = 2 * rounds
    grid = np.unique(np.round(np.linspace(1, top, min(top, ROUND_POINTS))).astype(int))
    return tuple(int(r) for r in np.union1d(grid, [rounds]))


@st.cache_data(max_entries=64, show_spinner="Composing the curves…")
def budget_curves(spec: PlanSpec, epsilon: float, delta: float, paper_mode: bool, held: str
                  ) -> tuple[tuple[int, ...], dict[str, NDArray[np.float64]],
                             tuple[float, ...], dict[str, NDArray[np.float64]]]:
    """ε by rounds and ε(δ), with the noise held at method ``held``'s solution."""
    allocations = budget_solutions(spec, epsilon, delta, paper_mode)[held]
    if isinstance(allocations, str):
        raise ValueError(allocations)
    plan = build_plan(spec)
    rounds = round_grid(plan.rounds)
    by_rounds = epsilon_by_rounds(plan, allocations, rounds, delta, paper_mode=paper_mode)
    deltas = tuple(sorted(set(DELTAS) | ({delta} if delta > 0 else set())))
    by_delta = epsilon_by_delta(plan, allocations, deltas, paper_mode=paper_mode)
    return rounds, by_rounds, deltas, by_delta


@st.cache_data(max_entries=64, show_spinner=False)
def lens_view(values: tuple[float, ...], row: int, new_value: float, *, query: str,
              mechanism: str, epsilon: float, delta: float, method: str, lo: float, hi: float,
              threshold: float, seed: int) -> lens.LensView:
    """The lens of one query on D and its neighbour (row ``row`` replaced by ``new_value``)."""
    neighbour = lens.neighbour(values, int(row), float(new_value))
    budget = Budget(epsilon=epsilon, delta=delta, method=method)
    return lens.look(values, neighbour, query=cast(lens.Query, query),
                     mechanism=cast(Mechanism, mechanism), budget=budget,
                     lo=lo, hi=hi, threshold=threshold, rng=np.random.default_rng(seed))


@st.cache_data(max_entries=32, show_spinner=False)
def lens_audit(values: tuple[float, ...], row: int, new_value: float, *, query: str,
               mechanism: str, epsilon: float, delta: float, method: str, lo: float,
               hi: float, threshold: float, seed: int, trials: int) -> AuditResult:
    """The empirical audit of the lens's release (fixed seed, ``trials`` runs per dataset)."""
    view = lens_view(values, row, new_value, query=query, mechanism=mechanism,
                     epsilon=epsilon, delta=delta, method=method, lo=lo, hi=hi,
                     threshold=threshold, seed=seed)
    return lens.audit_view(view, epsilon=epsilon, delta=delta, trials=trials, seed=seed)
