"""Widgets and sentences of the Privacy budget page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import streamlit as st

from dpviz.core import limits
from dpviz.lab.lessons import BUDGET_K, BUDGET_ROUNDS, Solutions, accounting_gain
from dpviz.privacy import METHOD_LABELS, METHODS, Allocation
from dpviz.privacy.solver import PlannedMechanism
from dpviz.ui.cached import PlanDescription
from dpviz.ui.widgets import accept_option_names, advanced, delta_input, epsilon_slider

if TYPE_CHECKING:
    import pandas as pd

PLANS = ("DP-EM GGG", "DP-EM LLG", "Free plan")
MECHANISMS = ("gaussian", "laplace", "pure")
MAX_LINES = 4
#: Default (mechanism, count, weight) of the free plan's lines.
FREE_DEFAULTS = (("gaussian", 10, 1.0), ("laplace", 5, 1.0), ("pure", 1, 1.0),
                 ("gaussian", 1, 2.0))

READING = """
**Reading the charts**

- *Noise*: the noise multiplier σ/Δ each method needs so that the whole plan meets the
  target. Less noise means more accurate releases at the same privacy.
- *Rounds*: hold the noise of one method's solution fixed and compose more and more rounds:
  every method certifies a different ε for the very same noise; the plan sits on the target.
- *ε(δ)*: the same fixed noise gives a whole curve of (ε, δ) guarantees; the target is one
  point on the curve of the method that solved it.
- *Budget bar*: how the plan's lines share the budget, in ε: the plan's ε as the method that
  solved it composes the lines, each line its share.
"""


@dataclass(frozen=True)
class Target:
    """The target guarantee the plan must meet."""

    epsilon: float
    delta: float
    paper_mode: bool


def count_input(label: str, value: int, key: str, help: str | None = None) -> int:
    """A whole number in :data:`dpviz.core.limits.COUNT` (1 … 100 000), bound to the URL."""
    return int(st.number_input(label, min_value=int(limits.COUNT.low),
                               max_value=int(limits.COUNT.high), value=value, step=1,
                               format="%d", key=key, help=help, bind="query-params"))


def plan_controls() -> PlanDescription:
    """The plan: a DP-EM preset (J iterations, k components) or free lines of releases."""
    kind = st.radio("Plan", PLANS, key="budget_plan", horizontal=True, bind="query-params",
                    help="DP-EM of Park et al. 2017 (per iteration: the weights, k means and k "
                         "covariances) or your own list of releases.")
    if kind.startswith("DP-EM"):
        a, b = st.columns(2)
        with a:
            rounds = count_input("Iterations J", BUDGET_ROUNDS, "budget_rounds")
        with b:
            k = count_input("Components k", BUDGET_K, "budget_k")
        st.caption("DP-EM's two noise scenarios ([GGG and LLG](/glossary#dp-em-scenarios)): "
                   "GGG adds Gaussian noise to the weights, means and covariances, 2k + 1 "
                   "releases per iteration; LLG adds Laplace noise to the weights and means "
                   "(k + 1) and Gaussian noise to the covariances (k). Every release gets the "
                   "same noise multiplier (the paper's split).")
        return PlanDescription(int(rounds), preset=kind[-3:], k=int(k))
    a, b = st.columns(2)
    with a:
        rounds = count_input("Rounds", 10, "budget_rounds",
                             help="The lines below make one round; the plan repeats it.")
    n_lines = b.number_input("Lines", min_value=1, max_value=MAX_LINES, value=2, step=1,
                             format="%d", key="budget_lines", bind="query-params")
    lines: list[tuple[PlannedMechanism, int, float]] = []
    for i in range(int(n_lines)):
        mechanism, size, weight = FREE_DEFAULTS[i]
        a, b, c = st.columns(3)
        mechanism = a.selectbox(f"Mechanism {i + 1}", MECHANISMS,
                                index=MECHANISMS.index(mechanism), key=f"budget_mech{i + 1}",
                                bind="query-params",
                                help="pure: any other ε-DP release (exponential mechanism, "
                                     "AboveThreshold)")
        with b:
            size = count_input(f"Count {i + 1}", size, f"budget_count{i + 1}",
                               help="Releases of this kind per round.")
        weight = c.number_input(f"Weight {i + 1}", min_value=0.0, value=weight, step=0.5,
                                key=f"budget_weight{i + 1}", bind="query-params",
                                help="Its share of the budget relative to the other lines "
                                     "(> 0): a larger weight means less noise.")
        lines.append((cast(PlannedMechanism, mechanism), int(size), float(weight)))
    return PlanDescription(int(rounds), lines=tuple(lines))


def target_controls() -> tuple[Target, str]:
    """The target (ε, δ); in an advanced expander, paper mode and the method the curves hold.

    Returns
    -------
    Target, str
        The target, and the method whose noise the curves hold fixed.
    """
    epsilon = epsilon_slider("budget_epsilon")
    delta = delta_input("budget_delta")
    with advanced("Accounting options", "budget"):
        paper, held = _accounting_options()
    return Target(epsilon, delta, paper), held


def _accounting_options() -> tuple[bool, str]:
    paper = st.toggle("Paper mode", value=False, key="budget_paper", bind="query-params",
                      help="The DP-EM paper's own choices: the classic Gaussian with its δᵢ under "
                           "linear and advanced composition, λ ≤ 100 for the moments "
                           "accountant, the Bun–Steinke conversion for zCDP.")
    accept_option_names("budget_hold", METHODS, METHOD_LABELS.__getitem__)
    held = st.selectbox(
        "Hold the noise at the solution of", METHODS, index=METHODS.index("pld"),
        format_func=METHOD_LABELS.__getitem__, key="budget_hold", bind="query-params",
        help="The curves keep this method's noise fixed and ask every method what ε it "
             "then certifies.")
    return bool(paper), str(held)


def _solved(solutions: Solutions) -> dict[str, Mapping[str, Allocation]]:
    return {m: s for m, s in solutions.items() if not isinstance(s, str)}


def headline(solutions: Solutions) -> str | None:
    """The page's message in one sentence, with the solver's numbers.

    Compares linear composition with the method that needs the least noise, line by line
    (:func:`dpviz.lab.lessons.accounting_gain`).

    Returns
    -------
    str or None
        ``None`` when linear composition or every other method failed.
    """
    gain = accounting_gain(solutions)
    if gain is None:
        return None
    linear, best = _solved(solutions)["linear"], _solved(solutions)[gain.best]
    even = gain.high - gain.low < 0.05
    times = f"{gain.low:.1f}×" if even else f"{gain.low:.1f}× to {gain.high:.1f}×"
    first = next(iter(linear))
    numbers = f"σ/Δ = {linear[first].multiplier:.4g} against {best[first].multiplier:.4g}"
    numbers += " for every release" if even else f" for {first}"
    if gain.high < 1:
        return (f"Here linear composition needs less noise than any other method "
                f"({numbers}): with few releases, simple composition can win.")
    return (f"Linear composition needs {times} the noise that {METHOD_LABELS[gain.best]} "
            f"needs to meet the same target ({numbers}).")


def failures(solutions: Solutions) -> list[str]:
    """``"<method>: <why it cannot meet the target>"`` for each method that cannot."""
    return [f"{METHOD_LABELS[m]}: {s}" for m, s in solutions.items() if isinstance(s, str)]


def noise_table(solutions: Solutions) -> pd.DataFrame:
    """One row per method: the noise multiplier of every plan line, or why it cannot."""
    import pandas as pd  # here: Home imports this module and draws no table

    solved = _solved(solutions)
    lines = list(dict.fromkeys(name for s in solved.values() for name in s))
    rows = []
    for method in METHODS:
        if method not in solutions:
            continue
        solution = solutions[method]
        row: dict[str, object] = {"method": METHOD_LABELS[method]}
        for line in lines:
            row[f"σ/Δ {line}"] = (None if isinstance(solution, str)
                                  else round(solution[line].multiplier, 4))
        row["note"] = solution if isinstance(solution, str) else ""
        rows.append(row)
    table = pd.DataFrame(rows)
    return table if table["note"].any() else table.drop(columns="note")
