"""The Trade-off explorer: build a sweep spec from widgets, run it with progress, draw it.

The spec is the one ``python -m dpviz sweep`` reads (the design contract); the runs go through
:func:`dpviz.lab.experiments.run_sweep`, so they are cached on disk per finished run and a rerun
of the same sweep is answered at once.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import pandas as pd
import streamlit as st

from dpviz.data import GENERATORS
from dpviz.estimators.metrics import METRICS, metric_label
from dpviz.estimators.registry import TASKS
from dpviz.lab.card import figure_images, image_export_available
from dpviz.lab.experiments import SweepSpec, progress_line, run_sweep, summarise, write_table
from dpviz.lab.work import check_sweep
from dpviz.ui.widgets import advanced, attempt, escape_markdown, show_chart
from dpviz.viz.curves import sweep_curves

#: Per task: the data block, the estimators ticked, the swept key and its values, the budget.
DEFAULTS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "gmm": {"data": {"generator": "gmm"}, "estimators": ("dp_em", "dplloyd"),
            "x": "epsilon", "values": "0.25, 0.5, 1, 2, 4",
            "budget": {"epsilon": 1.0, "delta": 1e-5}},
    "covariance": {"data": {"generator": "zipf", "n": 10_000, "d": 200},
                   "estimators": ("gauss", "separate"), "x": "rho",
                   "values": "0.01, 0.1, 1", "budget": {"rho": 0.1}},
    "sbm": {"data": {"generator": "sbm", "n": 500, "degree": 40, "signal": 0.6},
            "estimators": ("randomized_response", "gauss_adjacency"), "x": "epsilon",
            "values": "0.5, 1, 2, 4", "budget": {"epsilon": 1.0, "delta": 1e-6}},
    "mean": {"data": {"generator": "gmm", "n": 1000}, "estimators": ("laplace", "gaussian"),
             "x": "epsilon", "values": "0.1, 0.5, 1, 2",
             "budget": {"epsilon": 1.0, "delta": 1e-5}},
})
#: The session key of the last finished sweep: ``(spec digest, table)``.
RESULT = "explorer_result"
#: Runs above which the page says a sweep will take a while.
SLOW_NOTE = {"sbm": "SBM sweeps are slower (a graph per repeat and an eigendecomposition "
                    "per run): the time left is the pace so far, so it settles after a few "
                    "runs."}
RANGE = re.compile(r"^\s*(log\s+)?([^:]+):([^:]+):\s*(\d+)\s*$")


def parse_values(text: str, *, integer: bool = False) -> list[Any]:
    """Grid values from text: a comma list, ``start:stop:count`` or ``log start:stop:count``.

    ``"0.1:4:5"`` is 5 evenly spaced values, ``"log 0.1:10:3"`` 3 evenly spaced on a log
    scale; ``integer`` rounds to whole numbers (duplicates dropped).

    Raises
    ------
    ValueError
        A sentence naming the bad item.

    Examples
    --------
    >>> parse_values("0.5, 1,2"), parse_values("log 0.1:10:3")
    ([0.5, 1.0, 2.0], [0.1, 1.0, 10.0])
    >>> parse_values("1:9:3", integer=True)
    [1, 5, 9]
    >>> parse_values("1, x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the grid values must be numbers ... 'x' is not a number
    """
    match = RANGE.match(text)
    if match:
        log, start, stop, count = match.groups()
        try:
            a, b = float(start), float(stop)
        except ValueError:
            raise ValueError(f"a range is start:stop:count with numbers, got {text.strip()!r}"
                             ) from None
        n = int(count)
        if not 1 <= n <= 50:
            raise ValueError(f"a range's count must be from 1 to 50, got {n}")
        if log and (a <= 0 or b <= 0):
            raise ValueError("a log range needs positive ends")
        step = [i / (n - 1) if n > 1 else 0.0 for i in range(n)]
        values = ([math.exp(math.log(a) + t * (math.log(b) - math.log(a))) for t in step]
                  if log else [a + t * (b - a) for t in step])
        values = [float(f"{v:.6g}") for v in values]
    else:
        values = []
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            try:
                values.append(float(item))
            except ValueError:
                raise ValueError("the grid values must be numbers separated by commas, or "
                                 f"start:stop:count; {item!r} is not a number") from None
    if not values:
        raise ValueError("give at least one grid value (e.g. 0.5, 1, 2)")
    if integer:
        return list(dict.fromkeys(int(round(v)) for v in values))
    return list(dict.fromkeys(values))


def swept_keys(task: str) -> dict[str, str]:
    """What the grid can sweep for a task: key → label (the budget, then data parameters)."""
    data = DEFAULTS[task]["data"]
    out = {"rho": "ρ (zCDP)"} if task == "covariance" else {"epsilon": "ε", "delta": "δ"}
    for p in GENERATORS[data["generator"]].params:
        if p.type in ("int", "float") and p.name != "seed":
            out[f"data.{p.name}"] = f"{p.name} (data)"
    return out


def _is_integer(task: str, key: str) -> bool:
    if not key.startswith("data."):
        return False
    generator = GENERATORS[DEFAULTS[task]["data"]["generator"]]
    return any(p.name == key[5:] and p.type == "int" for p in generator.params)


def controls(seed: int) -> dict[str, Any]:
    """The sweep's widgets; the spec's JSON form, the grid still as text (see build_spec)."""
    tasks = tuple(t for t in DEFAULTS if t in TASKS)
    task = str(st.selectbox("Task", tasks, key="explorer_task", bind="query-params",
                            help="Which estimators to compare."))
    d = DEFAULTS[task]
    names = tuple(TASKS[task])
    chosen = st.multiselect("Estimators", names,
                            default=[n for n in d["estimators"] if n in names],
                            format_func=lambda n: TASKS[task][n].label,
                            key=f"explorer_{task}_estimators",
                            help="Every estimator runs on the same data sets.")
    keys = swept_keys(task)
    x = str(st.selectbox("Sweep", tuple(keys), index=tuple(keys).index(d["x"]),
                         format_func=lambda k: keys[k], key=f"explorer_{task}_x",
                         bind="query-params", help="The parameter on the x axis."))
    text = st.text_input("Values", value=d["values"] if x == d["x"] else "",
                         key=f"explorer_{task}_{x}_values", bind="query-params",
                         help="Numbers separated by commas, or start:stop:count, or "
                              "log start:stop:count.")
    repeats = int(st.number_input("Repeats", min_value=1, max_value=200, value=10, step=1,
                                  key="explorer_repeats", bind="query-params",
                                  help="Runs per point and estimator: the band narrows as "
                                       "1/√repeats."))
    metrics = st.multiselect("Metrics", tuple(METRICS[task]),
                             default=[next(iter(METRICS[task]))],
                             format_func=lambda name: metric_label(task, name).text,
                             key=f"explorer_{task}_metrics")
    fixed: dict[str, Any] = {}
    with advanced("Budget held fixed", "explorer"):
        for name, value in d["budget"].items():
            if name != x:
                fixed[name] = float(st.number_input(
                    name, value=float(value), format="%g", key=f"explorer_{task}_{name}",
                    bind="query-params"))
        if task == "gmm":
            fixed["accounting"] = "zcdp"
    return {"task": task, "estimators": chosen, "data": dict(d["data"]), "fixed": fixed,
            "grid": {x: text}, "repeats": repeats, "seed": int(seed), "metrics": metrics}


def build_spec(raw: Mapping[str, Any]) -> SweepSpec:
    """The validated spec, the grid's text parsed (a ``ValueError`` sentence to show)."""
    if not raw["estimators"]:
        raise ValueError("pick at least one estimator")
    if not raw["metrics"]:
        raise ValueError("pick at least one metric")
    grid = {x: parse_values(text, integer=_is_integer(raw["task"], x))
            for x, text in raw["grid"].items()}
    return SweepSpec.from_dict({**raw, "grid": grid})


def run_panel(spec: SweepSpec) -> pd.DataFrame | None:
    """Jobs, the run button and a progress bar with the time left; the finished table."""
    with advanced("Where the runs go", "explorer-jobs"):
        jobs = int(st.radio("Processes", (1, 2), index=1, horizontal=True,
                            key="explorer_jobs", bind="query-params",
                            help="Local processes (one BLAS thread each). Finished runs are "
                                 "kept on disk: the same sweep again is instant."))
    st.caption(f"{spec.runs:,} runs: {len(spec.points())} points × {spec.repeats} repeats × "
               f"{len(spec.estimators)} estimators. {SLOW_NOTE.get(spec.task, '')}")
    attempt(check_sweep, spec.task, spec.estimators, spec.data, spec.points(), spec.repeats)
    if st.button("Run the sweep", type="primary", key="explorer_run",
                 icon=":material/play_arrow:"):
        bar = st.progress(0.0, text="Starting…")

        def progress(done: int, total: int, elapsed: float) -> None:
            bar.progress(done / max(total, 1), text=progress_line(done, total, elapsed))

        table = run_sweep(spec, jobs=jobs, progress=progress)
        st.session_state[RESULT] = (spec.digest(), table)
    found = st.session_state.get(RESULT)
    if found is None or found[0] != spec.digest():
        st.info("Set the sweep, then run it.", icon=":material/query_stats:")
        return None
    return found[1]


def results_panel(spec: SweepSpec, table: pd.DataFrame) -> None:
    """The curves, the summary table, the exports and the headless command."""
    x = spec.grid[0][0]
    metric = str(st.selectbox("Metric drawn", spec.metrics, key="explorer_metric_drawn"))
    summary = summarise(table, x, metric)
    labels = {n: TASKS[spec.task][n].label for n in spec.estimators}
    values = [v for v in table[x] if isinstance(v, int | float)]
    log_x = bool(values) and min(values) > 0 and max(values) / min(values) >= 20
    fig = sweep_curves(summary, x=x, metric=metric, labels=labels,
                       x_title=swept_keys(spec.task).get(x, x), log_x=log_x)
    show_chart(fig, key="explorer_curves", filename=f"sweep-{metric}-vs-{x}")
    failed = int((table["failed"] != "").sum())
    if failed:
        st.warning(f"{failed} of {len(table)} runs failed; they are left out of the curves "
                   "(first reason: "
                   f"{escape_markdown(table.loc[table['failed'] != '', 'failed'].iloc[0])})",
                   icon=":material/warning:")
    st.dataframe(summary, key="explorer_summary", hide_index=True)
    export_panel(spec, table, fig)


def export_panel(spec: SweepSpec, table: pd.DataFrame, fig: Any) -> None:
    """CSV, JSON lines, PNG and SVG downloads, and "copy as command"."""
    cols = st.columns(4)
    cols[0].download_button("Results (CSV)", data=table.to_csv(index=False),
                            file_name="results.csv", mime="text/csv", key="explorer_csv",
                            on_click="ignore", icon=":material/download:")
    cols[1].download_button("Results (JSON lines)", data=write_table(table, None),
                            file_name="results.jsonl", mime="application/json",
                            key="explorer_jsonl", on_click="ignore",
                            icon=":material/download:")
    if image_export_available():
        for col, fmt in zip(cols[2:], ("png", "svg"), strict=True):
            col.download_button(f"Figure ({fmt.upper()})", data=_image_maker(fig, fmt),
                                file_name=f"sweep.{fmt}", mime=f"image/{fmt}",
                                key=f"explorer_{fmt}", on_click="ignore",
                                icon=":material/image:")
    else:
        cols[2].download_button("Figure (HTML)", data=lambda: fig.to_html(include_plotlyjs=True),
                                file_name="sweep.html", mime="text/html", key="explorer_html",
                                on_click="ignore", icon=":material/image:")
        cols[3].caption("PNG and SVG need chromium on the server (kaleido draws with it); "
                        "the chart's camera icon saves a PNG in your browser.")
    text = json.dumps(spec.to_dict(), indent=2)
    st.markdown("**Copy as command** — the same sweep, headless:")
    st.code("python -m dpviz sweep spec.json --jobs 2 --out results.csv", language="bash")
    st.code(text, language="json")
    st.download_button("spec.json", data=text, file_name="spec.json", mime="application/json",
                       key="explorer_spec", on_click="ignore", icon=":material/download:")


def _image_maker(fig: Any, fmt: str) -> Callable[[], bytes]:
    """Draws the figure as PNG or SVG through kaleido when the button is clicked."""
    def make() -> bytes:
        files, reason = figure_images({"sweep": fig})
        if f"figures/sweep.{fmt}" not in files:
            return f"kaleido could not draw the figure: {reason}".encode()
        return files[f"figures/sweep.{fmt}"]

    return make
