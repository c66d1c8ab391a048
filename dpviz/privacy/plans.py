"""Plans for the Privacy budget page, and the curves that compare accountants on them.

A :class:`Plan` is one *round* of releases (one EM iteration, say) repeated ``rounds``
times. For each accounting method the budget solver gives the noise every release needs to
meet the target; with the noise held fixed, :func:`epsilon_by_rounds` shows how ε grows with
the number of rounds composed and :func:`epsilon_by_delta` the ε(δ) curve — seed 002's
argument that zCDP, the moments accountant and PLD need far less noise than linear
composition, made visible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpviz.privacy.accounting import METHODS, PrivacyEvent, compose_deltas, compose_rounds
from dpviz.privacy.budget import Budget
from dpviz.privacy.errors import BudgetError
from dpviz.privacy.solver import Allocation, PlannedRelease, compare_methods


@dataclass(frozen=True)
class Plan:
    """One round of releases, repeated ``rounds`` times.

    Examples
    --------
    >>> plan = Plan.dp_em(iterations=20, k=3)
    >>> sum(r.count for r in plan.releases())
    140
    """

    round: tuple[PlannedRelease, ...]
    rounds: int = 1
    label: str = ""

    def __post_init__(self) -> None:
        if not self.round:
            raise BudgetError("the plan has no releases")
        if not 1 <= self.rounds <= 100_000:
            raise BudgetError(f"rounds must be >= 1 and <= 100000, got {self.rounds}")
        total = sum(r.count for r in self.round) * self.rounds
        if total > 100_000:
            raise BudgetError(f"the plan makes {total} releases; dpviz composes at most 100000")

    def releases(self, rounds: int | None = None) -> list[PlannedRelease]:
        """The plan's releases with counts multiplied by the number of rounds."""
        r = self.rounds if rounds is None else rounds
        return [PlannedRelease(p.name, p.mechanism, p.sensitivity, p.count * r, p.weight, p.part)
                for p in self.round]

    @classmethod
    def dp_em(cls, iterations: int, k: int, scenario: str = "GGG") -> Plan:
        """Seed 002's DP-EM: per iteration, weights, k means and k covariances.

        GGG: 2k + 1 Gaussian releases per iteration; LLG: k + 1 Laplace (weights and means)
        and k Gaussian (covariances). Unit sensitivities: the page shows noise multipliers.
        """
        if scenario == "GGG":
            one = (PlannedRelease("weights", "gaussian"),
                   PlannedRelease("means", "gaussian", count=k),
                   PlannedRelease("covariances", "gaussian", count=k))
        elif scenario == "LLG":
            one = (PlannedRelease("weights", "laplace"),
                   PlannedRelease("means", "laplace", count=k),
                   PlannedRelease("covariances", "gaussian", count=k))
        else:
            raise BudgetError(f"scenario must be GGG or LLG, got {scenario!r}")
        return cls(one, iterations, f"DP-EM {scenario}: {iterations} iterations × "
                                    f"{2 * k + 1} releases")


def solve_methods(plan: Plan, budget: Budget,
                  methods: Sequence[str] = METHODS) -> dict[str, dict[str, Allocation] | str]:
    """The noise each method needs for the plan, or the sentence saying why it cannot."""
    return compare_methods(plan.releases(), budget, methods)


def _round_events(plan: Plan, allocations: dict[str, Allocation]) -> list[PrivacyEvent]:
    if any(p.part is not None for p in plan.round):
        raise BudgetError("the budget page's curves compose plans without data parts")
    out = []
    for p in plan.round:
        one = allocations[p.name].event()
        out.append(PrivacyEvent(one.kind, one.mu, one.epsilon, one.delta, p.count))
    return out


def epsilon_by_rounds(plan: Plan, allocations: dict[str, Allocation], rounds: Sequence[int],
                      delta: float, methods: Sequence[str] = METHODS, *,
                      paper_mode: bool = False) -> dict[str, NDArray[np.float64]]:
    """ε of 1…R rounds at fixed noise, under each method (NaN where a method cannot say)."""
    events = _round_events(plan, allocations)
    return {m: np.array(compose_rounds(events, [int(r) for r in rounds], delta, m,
                                       paper_mode=paper_mode)) for m in methods}


def epsilon_by_delta(plan: Plan, allocations: dict[str, Allocation], deltas: Sequence[float],
                     methods: Sequence[str] = METHODS, *,
                     paper_mode: bool = False) -> dict[str, NDArray[np.float64]]:
    """ε(δ) of the whole plan at fixed noise, under each method."""
    events = [PrivacyEvent(e.kind, e.mu, e.epsilon, e.delta, e.count * plan.rounds)
              for e in _round_events(plan, allocations)]
    return {m: np.array(compose_deltas(events, [float(d) for d in deltas], m,
                                       paper_mode=paper_mode)) for m in methods}
