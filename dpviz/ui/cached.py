"""The pages' engine calls, cached per plain parameters.

``st.cache_data`` keys on the arguments, so every function here takes numbers, strings and
tuples only; bad input raises the engine's ``ValueError`` (never cached) for
:func:`dpviz.ui.widgets.attempt` to show.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from dpviz.estimators.mean import Mechanism
from dpviz.lab import lens
from dpviz.lab.experiments.sweep import digest_int
from dpviz.privacy import AuditResult, Budget, PlannedRelease
from dpviz.privacy.plans import Plan, epsilon_by_delta, epsilon_by_rounds, solve_methods
from dpviz.privacy.randomness import secure_generator
from dpviz.privacy.solver import PlannedMechanism

if TYPE_CHECKING:  # pandas loads with the first saved table, not on every page's first run
    import pandas as pd

ROUND_POINTS = 16
DELTAS: tuple[float, ...] = tuple(float(d) for d in np.logspace(-12, -2, 11))


def noise_rng(seed: int, secure: bool, stream: str) -> np.random.Generator:
    """A page run's noise generator: seeded (teaching), or secure, keyed by ``seed`` and ``stream``.

    Under secure randomness ``seed`` is the rerun's fresh OS entropy (the sidebar's, never
    shown), so the next rerun's cache key and noise are new; each engine call keys its own
    generator with ``SeedSequence([seed, digest_int(stream)])``, so two calls of one rerun share
    their numpy draws (the Bingham sampler, a random start) only when they name the same
    ``stream``: non-private EM and the run it is the reference of, to start where it starts.
    The Laplace and Gaussian noise, the truncated Laplace and randomized response's flips
    come from the exact discrete samplers on OpenSSL's bits
    (:mod:`dpviz.privacy.discrete_noise`), never from this generator. Teaching randomness keeps
    ``default_rng(seed)`` whatever the stream: the command line replays it from the seed.
    """
    if not secure:
        return np.random.default_rng(int(seed))
    key = np.random.SeedSequence([int(seed), digest_int(stream)]).generate_state(
        4, dtype=np.uint32)
    return secure_generator(int.from_bytes(key.tobytes(), "little"))


@dataclass(frozen=True)
class PlanDescription:
    """A privacy plan as the budget page describes it (plain values: the cache keys).

    A DP-EM preset (``preset`` ``"GGG"`` or ``"LLG"``, ``rounds`` iterations, ``k``
    components, the DP-EM paper's) or free ``lines`` of releases, each
    ``(mechanism, count, weight)`` per round, repeated for ``rounds`` rounds.

    Examples
    --------
    >>> PlanDescription(20, preset="GGG", k=3).plan().rounds
    20
    >>> PlanDescription(10, lines=(("laplace", 2, 1.0),)).plan().label
    '10 rounds × 2 releases'
    """

    rounds: int
    preset: str | None = None
    k: int = 0
    lines: tuple[tuple[PlannedMechanism, int, float], ...] = ()

    def plan(self) -> Plan:
        """The engine's :class:`~dpviz.privacy.plans.Plan` of this description."""
        if self.preset is not None:
            return Plan.dp_em(iterations=self.rounds, k=self.k, scenario=self.preset)
        releases = tuple(PlannedRelease(f"line {i + 1}: {mechanism}", mechanism, 1.0, count,
                                        weight)
                         for i, (mechanism, count, weight) in enumerate(self.lines))
        total = sum(count for _, count, _ in self.lines)
        return Plan(releases, self.rounds, f"{self.rounds} rounds × {total} releases")



@st.cache_data(max_entries=64, show_spinner="Solving the plan under every accounting method…")
def budget_solutions(spec: PlanDescription, epsilon: float, delta: float,
                     paper_mode: bool) -> dict[str, dict | str]:
    """Every method's allocation for the plan at the target, or its sentence."""
    plan = spec.plan()
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
def budget_curves(spec: PlanDescription, epsilon: float, delta: float, paper_mode: bool,
                  held: str
                  ) -> tuple[tuple[int, ...], dict[str, NDArray[np.float64]],
                             tuple[float, ...], dict[str, NDArray[np.float64]]]:
    """ε by rounds and ε(δ), with the noise held at method ``held``'s solution."""
    allocations = budget_solutions(spec, epsilon, delta, paper_mode)[held]
    if isinstance(allocations, str):
        raise ValueError(allocations)
    plan = spec.plan()
    rounds = round_grid(plan.rounds)
    by_rounds = epsilon_by_rounds(plan, allocations, rounds, delta, paper_mode=paper_mode)
    deltas = tuple(sorted(set(DELTAS) | ({delta} if delta > 0 else set())))
    by_delta = epsilon_by_delta(plan, allocations, deltas, paper_mode=paper_mode)
    return rounds, by_rounds, deltas, by_delta


@st.cache_data(max_entries=64, show_spinner=False)
def lens_view(values: tuple[float, ...], row: int, new_value: float, *, query: str,
              mechanism: str, epsilon: float, delta: float, method: str, lo: float, hi: float,
              threshold: float, seed: int, secure: bool = False) -> lens.LensView:
    """The lens of one query on D and its neighbour (row ``row`` replaced by ``new_value``)."""
    neighbour = lens.neighbour(values, int(row), float(new_value))
    budget = Budget(epsilon=epsilon, delta=delta, method=method)
    return lens.look(values, neighbour, query=cast(lens.Query, query),
                     mechanism=cast(Mechanism, mechanism), budget=budget,
                     lo=lo, hi=hi, threshold=threshold, rng=noise_rng(seed, secure, "lens"))


@st.cache_data(max_entries=32, show_spinner=False)
def lens_audit(values: tuple[float, ...], row: int, new_value: float, *, query: str,
               mechanism: str, epsilon: float, delta: float, method: str, lo: float,
               hi: float, threshold: float, seed: int, trials: int,
               secure: bool = False) -> AuditResult:
    """The empirical audit of the lens's release (``trials`` simulated runs per dataset).

    Seeded by ``seed`` in teaching mode; under secure randomness by fresh entropy of its own,
    so the simulated runs it draws say nothing of the rerun's key.
    """
    view = lens_view(values, row, new_value, query=query, mechanism=mechanism,
                     epsilon=epsilon, delta=delta, method=method, lo=lo, hi=hi,
                     threshold=threshold, seed=seed, secure=secure)
    return lens.audit_view(view, epsilon=epsilon, delta=delta, trials=trials,
                           seed=secrets.randbits(128) if secure else seed)


# --- Saved benchmarks on the Gaussian mixtures page -------------------------------------

RESULTS = Path(__file__).resolve().parents[2] / "assets" / "results"
PAPER_CSV = RESULTS / "dp_em_paper.csv"
ERRORS_CSV = RESULTS / "gmm_mean_errors.csv"
@st.cache_data(max_entries=2, show_spinner=False)
def saved_table(path: str) -> pd.DataFrame:
    """A saved benchmark CSV (a sentence if it is missing)."""
    if not Path(path).exists():
        raise ValueError(f"the saved benchmark {Path(path).name} is missing: run `make bench`")
    import pandas as pd

    return pd.read_csv(path)
