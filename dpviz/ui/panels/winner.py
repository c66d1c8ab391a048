"""Winner maps on the pages: which private estimator wins where, saved and at your settings.

:func:`winner_section` is the panel the mixtures, covariance and SBM pages (and the explorer,
through :func:`explorer_section`) open in a lazy expander: the saved full-resolution map for
the default axes at the page's default settings, drawn at once (with a sentence when the
estimators have changed since it was made), and a coarse 5 × 5 map at the page's own
settings, run on two processes through the one sweep runner
(:func:`dpviz.lab.experiments.winner.run_map`) under a bar whose time is measured from the
click (:class:`dpviz.ui.progress.TimedBar`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from dpviz.estimators.metrics import metric_label
from dpviz.estimators.registry import TASKS
from dpviz.estimators.work import SWEEP
from dpviz.lab.experiments import winner as engine
from dpviz.lab.experiments.sweep import SweepSpec
from dpviz.lab.scenario import Scenario
from dpviz.privacy import METHOD_LABELS
from dpviz.ui.progress import TimedBar
from dpviz.ui.widgets import attempt, escape_markdown, show_chart
from dpviz.viz.winner import answers_figure, format_value, winner_map_figure

LIVE_POINTS, LIVE_JOBS, LIVE_REPEATS = engine.LIVE_POINTS, engine.LIVE_JOBS, engine.LIVE_REPEATS
#: Task names as the explorer's picker shows them.
TASK_NAMES: Mapping[str, str] = {"gmm": "Gaussian mixtures", "covariance": "Covariance",
                                 "sbm": "Stochastic block model"}
#: Words for the generators' parameters that are not an axis.
PARAM_NAMES: Mapping[str, str] = {"k": "components k", "weights": "weights",
                                  "covariance": "component shape", "skew": "Zipf skew s",
                                  "test_fraction": "held-out share"}


@st.cache_resource(max_entries=3, show_spinner=False)
def _saved(task: str) -> engine.SavedMap | None:
    """The saved map of ``task`` (read once per server; the files change only on a deploy)."""
    return engine.load_map(task)


def labels_of(spec: SweepSpec) -> dict[str, str]:
    """Estimator name → label, for every estimator of a map."""
    return {name: TASKS[spec.task][name].label for name in spec.estimators}


def settings_text(spec: SweepSpec) -> str:
    """The data parameters and budget a map holds fixed, in words."""
    axes = engine.AXES[spec.task]
    swept = {key for key, _ in spec.grid}
    parts = []
    for key, value in engine.resolved_data(spec).items():
        if f"data.{key}" in swept or key == "seed":
            continue
        axis = axes.get(f"data.{key}")
        name = axis.label.split(" (")[0] if axis is not None else PARAM_NAMES.get(key, key)
        parts.append(f"{name} = {format_value(value) if _number(value) else value}")
    for key, value in spec.fixed.items():
        if key == "accounting":
            parts.append(f"accounting: {METHOD_LABELS.get(str(value), value)}")
        elif key not in swept:
            name = {"epsilon": "ε", "rho": "ρ", "delta": "δ"}.get(key, key)
            parts.append(f"{name} = {format_value(value) if _number(value) else value}")
    return ", ".join(parts)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def draw_map(spec: SweepSpec, table: pd.DataFrame, lines: Sequence[engine.Line], *,
             key: str) -> None:
    """The map, what it leaves out and the per-estimator ⊥ panels.

    What it leaves out: ties, answers that are not private, the lines' notes.
    """
    (x, xs), (y, ys) = spec.grid
    axes = engine.AXES[spec.task]
    metric = spec.metrics[0]
    cells = engine.winners(table, x, y, metric,
                           higher=metric_label(spec.task, metric).higher_is_better)
    labels = labels_of(spec)
    drawn = [line for line in lines if line.points]
    show_chart(winner_map_figure(cells, axes[x], axes[y], xs, ys, task=spec.task,
                                 metric=metric, labels=labels, lines=drawn),
               key=f"{key}_figure", filename=f"dpviz-winner-map-{spec.task}")
    st.caption(escape_markdown(outcome_text(spec, cells)))
    notes = [f"{engine.short_name(line.label.split(':')[0]) if line.estimator else line.label}: "
             f"{line.note}" for line in lines if line.note]
    if notes:
        st.caption("Not on the map: " + "; ".join(escape_markdown(n) for n in notes) + ".")
    with st.expander("Where each estimator answers", icon=":material/grid_on:"):
        show_chart(answers_figure(cells, axes[x], axes[y], xs, ys, labels=labels),
                   key=f"{key}_answers", filename=f"dpviz-winner-answers-{spec.task}")


def outcome_text(spec: SweepSpec, cells: pd.DataFrame) -> str:
    """How many cells name a winner, how many are ties and whose answers were not private.

    Examples
    --------
    >>> spec = engine.map_spec("sbm", "epsilon", "data.n", [1.0, 2.0], [200], repeats=1)
    >>> cells = pd.DataFrame({"winner": ["weak_recovery", "exponential"],
    ...     "tied": [[], ["exponential", "weak_recovery"]],
    ...     "not_private": [["exponential"], []]})
    >>> outcome_text(spec, cells)[:64]
    '1 of 2 cells names a winner; 1 is a tie (no lead established wit'
    """
    named = int(sum(1 for w, t in zip(cells["winner"], cells["tied"], strict=True)
                    if w is not None and not t))
    ties = int(sum(1 for t in cells["tied"] if t))
    text = (f"{named} of {len(cells)} cells name{'s' if named == 1 else ''} a winner; {ties} "
            f"{'is a tie' if ties == 1 else 'are ties'} (no lead established with "
            f"{spec.repeats} repeat{'s' if spec.repeats != 1 else ''} per cell: hover a cell "
            "for the tied).")
    if spec.repeats < engine.MIN_REPEATS:
        text += (f" With fewer than {engine.MIN_REPEATS} repeats no lead is established: "
                 "every cell where two or more answer is a tie.")
    unsafe: dict[str, int] = {}
    for names in cells["not_private"]:
        for name in names:
            unsafe[name] = unsafe.get(name, 0) + 1
    labels = labels_of(spec)
    if unsafe:
        text += " Not private here, so never a winner: " + ", ".join(
            f"{engine.short_name(labels[n])} (in {k} of {len(cells)} cells its answers carry "
            "no privacy guarantee)" for n, k in unsafe.items()) + "."
    return text


def _about(spec: SweepSpec, seconds: float | None) -> str:
    (x, xs), (y, ys) = spec.grid
    took = "" if seconds is None else f", {seconds:.0f} s on this machine"
    return (f"{len(xs)} × {len(ys)} grid, {spec.repeats} repeat"
            f"{'s' if spec.repeats != 1 else ''} per cell and estimator, "
            f"{len(spec.estimators)} private estimators{took}. Held fixed: "
            f"{escape_markdown(settings_text(spec))}. Simulated data, seeds derived from "
            f"{spec.seed} (teaching randomness: the same map every time).")


RULE = ("Each cell's colour is the private estimator with the lowest median error over the "
        "repeats (a failed run, ⊥, counts as the worst), when its lead is established: for "
        f"every other estimator, a {engine.LEVEL:.0%} bootstrap interval of the difference in "
        "median error, resampling the repeats, lies above zero. Otherwise the cell is a tie, "
        "and its hover lists every estimator not shown to be worse. The darker a winner's "
        "cell, the wider its margin over the runner-up (1 − winner's error / runner-up's). An "
        "answer that is not private (no privacy guarantee at these sizes) never wins. Grey "
        "cells with ⊥: no estimator gives an answer. Dashed lines: where an estimator's own "
        "preconditions (its sample-size bound) start to hold; runs outside them are not run "
        "and count as ⊥. Dotted: the papers' thresholds. Only simulated data are used: no "
        "one's data are released, no budget is spent.")


def winner_section(task: str, scenario: Scenario | None = None, *,
                   key: str | None = None) -> None:
    """Which private estimator wins where: saved map at the defaults, live map at yours.

    Parameters
    ----------
    task : {"gmm", "covariance", "sbm"}
    scenario : Scenario, optional
        The page's run: its generator's parameters and budget are held fixed on the live map
        (other data, such as a file or a bundled set, give the page's default data).
    key : str, optional
        Widget key prefix (default ``"<task>_winner"``).
    """
    key = key or f"{task}_winner"
    axes = engine.AXES[task]
    keys = list(axes)
    left, middle, right = st.columns(3)
    x = str(left.selectbox("Across", keys, index=keys.index(engine.DEFAULT_AXES[0]),
                           format_func=lambda k: axes[k].label, key=f"{key}_x"))
    others = [k for k in keys if k != x]
    y_default = engine.DEFAULT_AXES[1] if engine.DEFAULT_AXES[1] in others else others[0]
    y = str(middle.selectbox("Up", others, index=others.index(y_default),
                             format_func=lambda k: axes[k].label, key=f"{key}_y"))
    metrics = engine.METRICS[task]
    metric = str(right.selectbox("Ranked by", metrics,
                                 format_func=lambda m: metric_label(task, m).text,
                                 key=f"{key}_metric"))
    st.caption(RULE)
    data, fixed = engine.map_settings(task, None if scenario is None else scenario.data,
                                      None if scenario is None else scenario.params)
    saved = _saved(task)
    if saved is not None and [k for k, _ in saved.spec.grid] == [x, y] \
            and saved.spec.metrics[0] == metric:
        (_, xs), (_, ys) = saved.spec.grid
        defaults, yours = (engine.map_spec(task, x, y, xs, ys, data=d, fixed=f,
                                           repeats=saved.spec.repeats, metric=metric)
                           for d, f in (engine.map_settings(task), (data, fixed)))
        st.markdown("**Saved map at the page's default settings**"
                    if engine.same_settings(saved.spec, defaults) else
                    f"**Saved map at {escape_markdown(settings_text(saved.spec))}**")
        draw_map(saved.spec, saved.table, saved.lines, key=f"{key}_saved")
        st.caption("Saved map: " + _about(saved.spec, saved.seconds))
        if not engine.same_settings(saved.spec, yours):
            st.caption(f"Your settings differ ({escape_markdown(settings_text(yours))}): the "
                       "coarse map below is at yours.")
        why = saved.stale()
        if why is not None:  # the command to re-make it is for the maintainers, not the page
            st.caption(f"This saved map may be out of date: {why.partition(': re-run')[0]}.")
    elif saved is not None:
        st.caption(f"A saved full-resolution map exists for {axes[saved.spec.grid[0][0]].label}"
                   f" across and {axes[saved.spec.grid[1][0]].label} up; for these axes, "
                   "compute the coarse map below.")
    live_section(task, x, y, metric, data, fixed, key=key)


def live_section(task: str, x: str, y: str, metric: str, data: Mapping[str, Any],
                 fixed: Mapping[str, Any], *, key: str) -> None:
    """The coarse map at the page's settings: ranges, a button, a progress bar, the map."""
    axes = engine.AXES[task]
    st.markdown(f"**At your settings: a coarse {LIVE_POINTS} × {LIVE_POINTS} map**")
    ranges = {}
    for column, axis in zip(st.columns(2), (axes[x], axes[y]), strict=True):
        kind = int if axis.integer else float
        low, high = column.slider(
            f"{axis.label}: from, to", min_value=kind(axis.low), max_value=kind(axis.high),
            value=(kind(axis.low), kind(axis.high)), key=f"{key}_{axis.key}_range",
            help="The map's range on this axis (five values, log-spaced where the axis is).")
        ranges[axis.key] = axis.values(LIVE_POINTS, low, high)
    spec = attempt(engine.map_spec, task, x, y, ranges[x], ranges[y], data=data, fixed=fixed,
                   repeats=LIVE_REPEATS[task], metric=metric)
    st.caption(_about(spec, None) + f" {spec.runs:,} runs at most on {LIVE_JOBS} processes; "
               "runs that cannot succeed are skipped.")
    digest = spec.digest()
    if st.button(f"Compute the {LIVE_POINTS} × {LIVE_POINTS} map", key=f"{key}_run",
                 icon=":material/play_arrow:"):
        bar = TimedBar("Computing the map", spec.runs, warm=LIVE_JOBS)
        bar.bar.progress(0.0, text="Checking which runs can succeed…")  # no step: no pace
        table = attempt(engine.run_map, spec, jobs=LIVE_JOBS, progress=bar.runs, budget=SWEEP)
        lines = [*engine.threshold_lines(spec), *engine.bound_lines(spec, table)]
        st.session_state[key] = (digest, table, lines, bar.elapsed())
        bar.bar.empty()
    found = st.session_state.get(key)
    if found is None or found[0] != digest:
        return
    _, table, lines, seconds = found
    draw_map(spec, table, lines, key=f"{key}_live")
    st.caption(f"Computed in {seconds:.0f} s ({int((table['seconds'] > 0).sum()):,} runs "
               f"run, {int(table['failed'].str.startswith(engine.NOT_RUN).sum()):,} skipped "
               "as unable to succeed).")


def explorer_section() -> None:
    """The winner map of a task the user picks (the explorer's entry)."""
    task = str(st.selectbox("Task", tuple(TASK_NAMES), format_func=TASK_NAMES.__getitem__,
                            key="explorer_winner_task"))
    winner_section(task, key=f"explorer_winner_{task}")
