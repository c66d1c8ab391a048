"""The "Solve for ε" panel: state the accuracy needed, get the smallest ε that meets it.

The search is :func:`dpviz.lab.solve.solve_epsilon` on the page's scenario (its generator, never
the user's rows); its answer stays in ``st.session_state`` beside the inputs it answered, so
a rerun redraws it and a changed setting asks for a new search.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from dpviz.core import limits
from dpviz.estimators.registry import TASKS
from dpviz.lab.scenario import Scenario
from dpviz.lab.solve import PROBABILITY_DEFAULT, RUNS, Solution, ask, synthetic_twin
from dpviz.ui.progress import timed_bar
from dpviz.ui.widgets import RHO_GRID, as_sentence, escape_markdown, lazy_expander, show_chart
from dpviz.viz.solve import solve_figure


@dataclass(frozen=True)
class Goal:
    """An accuracy a user can ask for, in words, and the metric behind it.

    ``complement``: the user gives a share right (e.g. 95% of vertices) and the metric is
    the share wrong (``error_rate ≤ 1 − value``).
    """

    label: str
    metric: str
    default: float
    step: float
    complement: bool = False

    def metric_target(self, value: float) -> float:
        """The metric's target for the value the user typed (a complement to 12 digits).

        Examples
        --------
        >>> GOALS["sbm"][0].metric_target(0.95), GOALS["gmm"][0].metric_target(0.1)
        (0.05, 0.1)
        """
        return round(1.0 - value, 12) if self.complement else value


#: The accuracies each task offers, in the user's words (metrics of
#: dpviz.estimators.metrics.METRICS).
GOALS: dict[str, tuple[Goal, ...]] = {
    "gmm": (Goal("matched mean error at most", "mean_error", 0.1, 0.01),
            Goal("weight error at most", "weight_error", 0.1, 0.01),
            Goal("covariance error at most", "covariance_error", 0.1, 0.01),
            Goal("adjusted Rand index at least", "adjusted_rand", 0.9, 0.01)),
    "covariance": (Goal("Frobenius error at most", "frobenius_error", 0.05, 0.005),),
    "sbm": (Goal("share of vertices right at least", "error_rate", 0.95, 0.01,
                 complement=True),
            Goal("overlap at least", "overlap", 0.9, 0.01)),
    "mean": (Goal("mean error at most", "mean_error", 0.05, 0.01),),
}


def _format_value(goal: Goal, value: float) -> str:
    return f"{value:.0%}" if goal.complement else f"{value:g}"


def goal_sentence(goal: Goal, value: float, probability: float) -> str:
    """The request in words.

    Examples
    --------
    >>> goal_sentence(GOALS["gmm"][0], 0.1, 0.9)
    'matched mean error at most 0.1 with 90% probability'
    >>> goal_sentence(GOALS["sbm"][0], 0.95, 0.9)
    'share of vertices right at least 95% with 90% probability'
    """
    return f"{goal.label} {_format_value(goal, value)} with {probability:.0%} probability"


def applied_value(answer: float, options: Sequence[float] | None) -> float | None:
    """The budget widget's value for an answer: rounded up (never below the answer).

    A select slider takes its smallest option at or above the answer (``None`` if none); an
    ε slider the answer rounded up to its 0.01 step, within the slider's range.

    Examples
    --------
    >>> applied_value(2.5781, None), applied_value(0.0057, (0.001, 0.005, 0.01))
    (2.58, 0.01)
    """
    if options is not None:
        above = [o for o in options if o >= answer]
        return min(above) if above else None
    value = math.ceil(round(answer * 100, 9)) / 100
    if value > limits.EPSILON_UI.high:
        return None
    return max(value, limits.EPSILON_UI.low)


def fingerprint(scenario: Scenario) -> str:
    """The scenario without its budget's value (which the search replaces), as JSON.

    So applying the answer to the page's ε slider keeps the answer on show.

    Examples
    --------
    >>> s = Scenario("mean", "laplace", {"generator": "zipf"}, {"epsilon": 1.0})
    >>> fingerprint(s) == fingerprint(Scenario("mean", "laplace", {"generator": "zipf"},
    ...                                        {"epsilon": 2.0}))
    True
    """
    d = scenario.to_dict()
    budget = "rho" if d["params"].get("rho") is not None else "epsilon"
    d["params"] = {k: v for k, v in d["params"].items() if k not in ("epsilon", "rho")}
    return json.dumps({**d, "budget": budget}, sort_keys=True)


def _apply(key: str, value: float) -> None:
    st.session_state[key] = value


def solve_panel(scenario: Scenario, *, key: str, budget_key: str | None = None,
                budget_options: Sequence[float] | None = None) -> None:
    """The panel: goal, value, probability and runs; Solve; the answer, the curve, the command.

    Parameters
    ----------
    scenario : Scenario
        The page's run (its controls' scenario).
    key : str
        Prefix of the widgets' keys and of the session entry keeping the answer.
    budget_key : str, optional
        The page's budget widget: a button then applies the answer to it.
    budget_options : sequence of float, optional
        That widget's options, when it is a select slider.
    """
    try:
        synthetic_twin(scenario)
    except ValueError as err:
        st.info(escape_markdown(as_sentence(str(err))), icon=":material/info:")
        return
    if TASKS[scenario.task][scenario.estimator].notion == "none":
        st.info("This estimator is a non-private reference: its accuracy does not depend on "
                "ε. Pick a private one to solve for ε.", icon=":material/info:")
        return
    goals = GOALS[scenario.task]
    labels = [g.label for g in goals]
    label = st.selectbox("I need", labels, key=f"{key}_goal", bind="query-params")
    goal = goals[labels.index(label)]
    a, b, c = st.columns(3)
    value = float(a.number_input(
        "value (a share: 0.95 is 95%)" if goal.complement else "value",
        min_value=0.0, value=goal.default, step=goal.step, format="%g",
        key=f"{key}_{goal.metric}", bind="query-params"))
    probability = float(b.slider("with probability", min_value=0.5, max_value=0.99,
                                 value=PROBABILITY_DEFAULT, step=0.01,
                                 key=f"{key}_probability", bind="query-params"))
    runs = int(c.number_input("simulated runs per point", min_value=5, max_value=200,
                              value=RUNS, step=5, format="%d", key=f"{key}_runs",
                              bind="query-params",
                              help="Each draws new data from the generator and new noise; "
                                   "the same seeds are reused at every ε."))
    try:
        question = ask(scenario, metric=goal.metric, target=goal.metric_target(value),
                       probability=probability, runs=runs)
    except ValueError as err:
        st.error(escape_markdown(err), icon=":material/error:")
        return
    parameter = "ρ" if scenario.params.get("rho") is not None else "ε"
    st.caption(f"The smallest {parameter} giving {goal_sentence(goal, value, probability)}, "
               "to two significant digits, from simulated runs on data from the page's "
               "generator (public parameters), never on uploaded rows. The runs are first "
               "made without privacy: no budget beats what they reach, and a probability "
               "beyond it gets no answer rather than a lower one.")
    inputs = (fingerprint(question.scenario), goal.metric, question.target.value, probability,
              runs)
    if st.button(f"Solve for {parameter}", key=f"{key}_run", icon=":material/target:"):
        with timed_bar("Simulating runs", question.most_runs(), at_most=True) as bar:
            try:
                found = question.solve(progress=lambda done, total: bar.step(
                    done, total=total, unit="simulated runs"))
            except ValueError as err:
                st.error(escape_markdown(err), icon=":material/error:")
                return
        st.session_state[f"{key}_solution"] = (inputs, found)
    kept = st.session_state.get(f"{key}_solution")
    if kept is not None and kept[0] == inputs:
        show_solution(kept[1], key=key, budget_key=budget_key, budget_options=budget_options)
    elif kept is not None:
        st.caption("The settings changed since the last search: solve again.")
    st.caption(command_sentence(question.scenario))
    st.code(question.command(), language="bash", wrap_lines=True)


def command_sentence(scenario: Scenario) -> str:
    """What the command line under the panel asks: the same question, seeds as the page's.

    Examples
    --------
    >>> command_sentence(Scenario("mean", "laplace", {"generator": "zipf"}, {}, seed=0))[:60]
    'The same question on the command line (same data generator, '
    """
    if scenario.seed is not None:
        return ("The same question on the command line (same data generator, estimator "
                "settings and seeds):")
    return ("The same question on the command line (same data generator and estimator "
            "settings; under secure randomness neither side fixes the seeds, so each draws "
            "its own runs and the two answers differ as fresh runs do — more runs per point "
            "narrow the gap):")


def show_solution(solution: Solution, *, key: str, budget_key: str | None = None,
                  budget_options: Sequence[float] | None = None) -> None:
    """The answer in words, the button applying it, the notes and the searched curve.

    No answer: the reason, and apart from it, as a warning too, the answer at the highest
    probability within reach (not the question asked) with its curve.
    """
    if solution.value is None:
        st.warning(escape_markdown(solution.sentence()), icon=":material/block:")
    else:
        st.success(escape_markdown(solution.sentence()), icon=":material/check_circle:")
        value = applied_value(solution.value, budget_options)
        if budget_key is not None and value is not None:
            symbol = "ρ" if solution.parameter == "rho" else "ε"
            st.button(f"Use {symbol} = {value:g} on this page", key=f"{key}_apply",
                      on_click=_apply, args=(budget_key, value), icon=":material/done:")
    alternative = solution.alternative()
    if alternative is not None:
        st.warning(escape_markdown(alternative), icon=":material/low_priority:")
    for note in solution.notes:
        st.caption(f"Note: {escape_markdown(note)}.")
    drawn = solution.lower or solution
    title = None if solution.lower is None else (
        f"Not the question asked: {drawn.target.describe()} with probability "
        f"≥ {drawn.probability:.0%}")
    show_chart(solve_figure(drawn, title=title), key=f"{key}_figure",
               filename="dpviz-solve-epsilon")


#: The budget widget (its key) of each task's page, for a budget in ε.
EPSILON_WIDGETS = {"gmm": "gmm_epsilon", "covariance": "cov_epsilon", "sbm": "sbm_epsilon"}


def budget_widget(scenario: Scenario) -> tuple[str | None, tuple[float, ...] | None]:
    """The key of the page's budget widget for ``scenario`` and, for a select slider, its options.

    The panel's "Use ε = …" button sets that widget (its action); ``None``: the task has no
    page slider to set.

    Examples
    --------
    >>> budget_widget(Scenario("gmm", "dp_em", {"generator": "gmm"}, {"epsilon": 1.0}))
    ('gmm_epsilon', None)
    """
    if scenario.task == "covariance" and scenario.params.get("rho") is not None:
        return "cov_rho", RHO_GRID
    return EPSILON_WIDGETS.get(scenario.task), None


def solve_expander(scenario: Scenario, *, key: str) -> None:
    """The "Solve for ε" expander of a page: its scenario's panel and budget widget."""
    def body() -> None:
        budget_key, options = budget_widget(scenario)
        solve_panel(scenario, key=key, budget_key=budget_key, budget_options=options)

    lazy_expander("Solve for ε: the accuracy I need", body, key=f"{key}_open",
                  icon=":material/target:")
