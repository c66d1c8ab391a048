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

from dpviz.core.entry import Param
from dpviz.data import GENERATORS
from dpviz.estimators.metrics import METRICS, metric_label
from dpviz.estimators.registry import TASKS
from dpviz.estimators.work import check_sweep
from dpviz.lab.card import figure_images, image_export_available
from dpviz.lab.experiments import SweepSpec, run_sweep, summarise, time_left, write_table
from dpviz.lab.experiments.tables import Pace
from dpviz.lab.feasibility import EPSILON_REACH, blocked, sizes_of
from dpviz.ui import runs
from dpviz.ui.widgets import advanced, attempt, escape_markdown, show_chart
from dpviz.viz.curves import sweep_curves

#: Per task: the data block, the estimators ticked, the swept key and its values, the budget.
DEFAULTS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "gmm": {"data": {"generator": "gmm", "n": 10_000, "d": 2, "k": 3, "separation": 6.0},
            "estimators": ("dp_em", "dplloyd"), "x": "epsilon", "values": "0.25, 0.5, 1, 2, 4",
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
#: What each task is called on the page.
TASK_LABELS: Mapping[str, str] = MappingProxyType({
    "gmm": "Gaussian mixtures", "covariance": "Covariance matrices",
    "sbm": "Communities in a graph (block model)", "mean": "The mean of bounded rows"})
#: The budget's names on the page.
BUDGET_LABELS: Mapping[str, str] = MappingProxyType({
    "epsilon": "privacy ε", "delta": "δ (approximate DP)", "rho": "ρ (zCDP)"})
#: The data parameters' names on the page (a generator's own name first, then any).
DATA_LABELS: Mapping[str, str] = MappingProxyType({
    "sbm.n": "vertices n", "sbm.degree": "average degree", "sbm.signal":
    "community signal (0 none, 1 no edges across)", "n": "rows n", "d": "dimension d",
    "k": "components k", "separation": "separation (standard deviations)",
    "buckets": "norm buckets", "skew": "skew of the norms"})
#: Swept keys drawn on a logarithmic axis (their grids span decades).
LOG_AXES = frozenset({"epsilon", "delta", "rho", "data.n"})
#: Multipliers of a data parameter's value for its default grid (clipped to its range).
DATA_STEPS = (0.25, 0.5, 1.0, 2.0)
#: Default grids of the budget's keys when they are not the task's swept key.
BUDGET_GRIDS: Mapping[str, str] = MappingProxyType({
    "epsilon": "0.25, 0.5, 1, 2, 4", "delta": "1e-7, 1e-6, 1e-5, 1e-4", "rho": "0.01, 0.1, 1"})
#: The session key of the last finished sweep: ``(spec digest, table)``.
RESULT = "explorer_result"
#: Runs above which the page says a sweep will take a while.
SLOW_NOTE = {"sbm": "Block-model sweeps are slower (a graph per repeat and an "
                    "eigendecomposition per run)."}
#: Seconds a fresh pool of processes takes before its runs start: a guess for a quiet machine
#: (6-13 s were measured under load averages 7-14 on 2 cores); the time left switches to the
#: measured pace once every process has finished a run.
START_SECONDS = 3.0
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


def _generator(task: str) -> Any:
    return GENERATORS[DEFAULTS[task]["data"]["generator"]]


def data_params(task: str) -> list[Param]:
    """The task's numeric data parameters (its generator's, the seed aside)."""
    return [p for p in _generator(task).params
            if p.type in ("int", "float") and p.name != "seed"]


def data_label(task: str, name: str) -> str:
    """A data parameter's name on the page (its generator's help when it has no label)."""
    generator = _generator(task)
    found = DATA_LABELS.get(f"{generator.name}.{name}") or DATA_LABELS.get(name)
    if found is not None:
        return found
    return next(p.help for p in generator.params if p.name == name)


def swept_keys(task: str) -> dict[str, str]:
    """What the grid can sweep for a task: key → label (the budget, then data parameters)."""
    out = {name: BUDGET_LABELS[name] for name in DEFAULTS[task]["budget"]}
    if "delta" in out:
        out = {"epsilon": out["epsilon"], "delta": out["delta"]}
    out.update({f"data.{p.name}": data_label(task, p.name) for p in data_params(task)})
    return out


def _is_integer(task: str, key: str) -> bool:
    return key.startswith("data.") and any(
        p.name == key[5:] and p.type == "int" for p in data_params(task))


def _data_value(task: str, name: str) -> Any:
    """A data parameter's starting value: the task's default block, else the generator's."""
    block = DEFAULTS[task]["data"]
    return block.get(name, next(p.default for p in data_params(task) if p.name == name))


def default_values(task: str, key: str) -> str:
    """A sensible grid for ``key``: the task's own, a budget grid, or around the data value.

    Examples
    --------
    >>> default_values("gmm", "data.n"), default_values("sbm", "data.signal")
    ('2500, 5000, 10000, 20000', '0.15, 0.3, 0.6, 1')
    """
    if key == DEFAULTS[task]["x"]:
        return str(DEFAULTS[task]["values"])
    if not key.startswith("data."):
        return BUDGET_GRIDS[key]
    param = next(p for p in data_params(task) if p.name == key[5:])
    value = float(_data_value(task, param.name))
    low = param.min if param.min is not None else -math.inf
    high = param.max if param.max is not None else math.inf
    grid = [min(max(value * step, low), high) for step in DATA_STEPS]
    if param.type == "int":
        grid = [float(max(round(v), low)) for v in grid]
    return ", ".join(dict.fromkeys(f"{v:g}" for v in grid))


def controls(seed: int) -> dict[str, Any]:
    """The sweep's widgets; the spec's JSON form, the grid still as text (see build_spec).

    The swept parameter's values, then every other data parameter and the budget held fixed
    beside it, each with a sensible default when the swept parameter changes.
    """
    tasks = tuple(t for t in DEFAULTS if t in TASKS)
    task = str(st.selectbox("Task", tasks, format_func=lambda t: TASK_LABELS.get(t, t),
                            key="explorer_task", bind="query-params",
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
    text = st.text_input(f"Values of the {keys[x]}", value=default_values(task, x),
                         key=f"explorer_{task}_{x}_values", bind="query-params",
                         help="Numbers separated by commas, or start:stop:count, or "
                              "log start:stop:count.")
    st.markdown("**Held fixed**")
    data: dict[str, Any] = {"generator": d["data"]["generator"]}
    fixed: dict[str, Any] = {}
    held = [p for p in data_params(task) if f"data.{p.name}" != x]
    for column, p in zip(st.columns(2) * len(held), held, strict=False):
        kind = int if p.type == "int" else float
        data[p.name] = column.number_input(
            data_label(task, p.name).capitalize(), value=kind(_data_value(task, p.name)),
            min_value=None if p.min is None else kind(p.min),
            max_value=None if p.max is None else kind(p.max),
            step=1 if kind is int else None, format="%d" if kind is int else "%g",
            key=f"explorer_{task}_data_{p.name}", bind="query-params", help=p.help)
    budget = [(name, value) for name, value in d["budget"].items() if name != x]
    for column, (name, value) in zip(st.columns(2) * len(budget), budget, strict=False):
        fixed[name] = float(column.number_input(
            BUDGET_LABELS[name].capitalize(), value=float(value), format="%g",
            key=f"explorer_{task}_{name}", bind="query-params"))
    if task == "gmm":
        fixed["accounting"] = "zcdp"
    repeats = int(st.number_input("Repeats", min_value=1, max_value=200, value=10, step=1,
                                  key="explorer_repeats", bind="query-params",
                                  help="Runs per point and estimator, each on fresh data "
                                       "and noise: the band holds the middle 80% of them."))
    metrics = st.multiselect("Metrics", tuple(METRICS[task]),
                             default=[next(iter(METRICS[task]))],
                             format_func=lambda m: metric_label(task, m).text,
                             key=f"explorer_{task}_metrics")
    return {"task": task, "estimators": chosen, "data": data, "fixed": fixed,
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


def point_sizes(spec: SweepSpec, point: Mapping[str, Any]) -> dict[str, Any]:
    """The public sizes and budget of one grid point (what a precondition reads).

    :func:`dpviz.lab.feasibility.sizes_of`'s ``n``, ``d``, ``k`` and ``params``.

    Examples
    --------
    >>> spec = build_spec({"task": "gmm", "estimators": ["dp_em"], "data": {"generator":
    ...     "gmm", "n": 500}, "fixed": {"delta": 1e-5}, "grid": {"epsilon": "1, 2"},
    ...     "repeats": 1, "seed": 0, "metrics": ["mean_error"]})
    >>> point_sizes(spec, {"epsilon": 2.0})["n"], point_sizes(spec, {"data.n": 90})["n"]
    (500, 90)
    """
    generator = str(spec.data.get("generator", ""))
    given = {k: v for k, v in spec.data.items() if k not in ("generator", "test_fraction")}
    given.update({k[5:]: v for k, v in point.items() if k.startswith("data.")})
    sizes = GENERATORS[generator].resolve(given) if generator in GENERATORS else given
    budget = {**spec.fixed, **{k: v for k, v in point.items() if not k.startswith("data.")}}
    return {"n": int(sizes.get("n", 1)), "d": int(sizes.get("d", 1)), "k": sizes.get("k"),
            "params": budget}


@st.cache_data(max_entries=256, show_spinner=False)
def _cannot_run(task: str, name: str, sizes: str) -> str | None:
    """An entry's precondition at one point's public sizes (JSON), once per sizes."""
    return TASKS[task][name].cannot_run(**json.loads(sizes))


@st.cache_data(max_entries=64, show_spinner=False)
def _remedy(task: str, name: str, sizes: str, reach: float) -> str:
    """What would let an entry succeed at one point (:func:`dpviz.lab.feasibility.blocked`)."""
    found = blocked(TASKS[task][name], **json.loads(sizes), reach=reach)
    return "" if found is None else found.remedy()


def cannot_succeed(spec: SweepSpec) -> dict[str, tuple[str, list[str]]]:
    """Per estimator that cannot succeed somewhere on the grid: its reason and where.

    Each entry's public preconditions at every point's sizes and budget. The reason is the
    one at the grid's most favourable point (the largest ε, then n) with what would let it
    succeed there (the n, and unless ε is swept, the ε); the places are the swept values
    where it cannot (all of them when it cannot succeed anywhere on the grid). Public inputs
    only.
    """
    x = spec.grid[0][0] if spec.grid else None
    points = spec.points() or [{}]
    found = [point_sizes(spec, point) for point in points]
    out = {}
    for name in spec.estimators:
        entry = TASKS[spec.task][name]
        if entry.notion == "none":
            continue
        sizes = [sizes_of(entry, **one) for one in found]
        best = max(range(len(points)),
                   key=lambda i: (sizes[i]["epsilon"] or 0.0, sizes[i]["n"]))
        texts = [runs.canonical(s) for s in sizes]
        where = [i for i, text in enumerate(texts) if _cannot_run(spec.task, name, text)]
        if not where:
            continue
        at = best if best in where else where[-1]
        reason = _cannot_run(spec.task, name, texts[at]) or ""
        remedy = _remedy(spec.task, name, texts[at], 1.0 if x == "epsilon" else EPSILON_REACH)
        places = [f"{points[i][x]:g}" if x is not None else "" for i in where]
        out[name] = (f"{reason}; {remedy}" if remedy else reason, places)
    return out


def feasibility_panel(spec: SweepSpec) -> SweepSpec | None:
    """List what cannot succeed on the grid; the spec to run (``None``: nothing left).

    An estimator that cannot succeed at any point is left out unless "run anyway" is
    ticked; one that fails at some points runs, and the page says where it will answer ⊥.
    """
    found = cannot_succeed(spec)
    if not found:
        return spec
    x = spec.grid[0][0] if spec.grid else ""
    everywhere = {n for n, (_, places) in found.items() if len(places) == len(spec.points())}
    lines = []
    for name, (reason, places) in found.items():
        label = escape_markdown(TASKS[spec.task][name].label)
        where = ("anywhere on this grid" if name in everywhere else
                 f"at {swept_keys(spec.task).get(x, x)} = {', '.join(places)} (those runs "
                 "will answer ⊥)")
        lines.append(f"- **{label}** cannot succeed {where}: {escape_markdown(reason)}.")
    st.info("Known from the public sizes and budget before any run:\n\n" + "\n".join(lines),
            icon=":material/block:")
    if everywhere and not st.checkbox(
            "Run anyway the estimators that cannot succeed anywhere", key="explorer_anyway",
            help="They refuse before reading a row or answer ⊥ (no answer): their curves "
                 "stay empty, the runs show how."):
        kept = [n for n in spec.estimators if n not in everywhere]
        if not kept:
            st.caption("Nothing left to run: change the sizes, the budget or the estimators.")
            return None
        return SweepSpec.from_dict({**spec.to_dict(), "estimators": kept})
    return spec


def predicted_seconds(spec: SweepSpec, jobs: int) -> tuple[float, float]:
    """The sweep's wall time from the work-cost model (:mod:`dpviz.estimators.work`), on ``jobs``.

    Returns the runs' seconds and the processes' start-up (0 on one process).
    """
    cost = check_sweep(spec.task, spec.estimators, spec.data, spec.points(), spec.repeats)
    workers = max(1, min(jobs, spec.runs))
    return cost.seconds / workers, START_SECONDS if workers > 1 else 0.0


def seconds_left(done: int, total: int, elapsed: float, *, predicted: tuple[float, float],
                 since: tuple[int, float] | None) -> float:
    """The time left of a sweep: the cost model's until a pace is known, then the pace's.

    ``since`` is ``(done, elapsed)`` when every process had finished its first run (``None``
    before): the pace counts from there, so start-up, each process's first run (imports, data
    generation) and runs read from disk do not skew it.

    Examples
    --------
    >>> seconds_left(0, 100, 1.0, predicted=(10.0, 3.0), since=None)  # model: 10 s + 2 s
    12.0
    >>> seconds_left(20, 100, 5.0, predicted=(10.0, 3.0), since=(10, 4.0))  # 0.1 s a run
    8.0
    """
    if since is not None and done > since[0]:
        return float(time_left(done, total, elapsed, since=since) or 0.0)
    runs, start = predicted
    waiting = max(start - elapsed, 0.0) if since is None else 0.0
    return runs * (total - done) / max(total, 1) + waiting


def run_panel(spec: SweepSpec) -> pd.DataFrame | None:
    """Jobs, the run button and a progress bar with an honest time left; the finished table.

    Until every process has finished a run the time left is the cost model's; then the pace
    of the runs since (the processes' start-up and cached runs left out).
    """
    with advanced("Where the runs go", "explorer-jobs"):
        jobs = int(st.radio("Processes", (1, 2), index=1, horizontal=True,
                            key="explorer_jobs", bind="query-params",
                            help="Local processes (one BLAS thread each). Finished runs are "
                                 "kept on disk: the same sweep again is instant."))
    predicted = attempt(predicted_seconds, spec, jobs)
    many = len(spec.estimators)
    st.caption(f"{spec.runs:,} runs: {len(spec.points())} points × {spec.repeats} repeats × "
               f"{many} estimator{'s' if many > 1 else ''}, about {sum(predicted):,.0f} s on "
               f"{jobs} process{'es' if jobs > 1 else ''} (runs already on disk are instant). "
               f"{SLOW_NOTE.get(spec.task, '')}")
    if st.button("Run the sweep", type="primary", key="explorer_run",
                 icon=":material/play_arrow:"):
        bar = st.progress(0.0, text="Starting…")
        pace = Pace(warm=jobs)  # wall time from the click, pace from the runs computed

        def progress(done: int, total: int, _elapsed: float) -> None:
            pace.report(done, total)  # its since: when every process has finished a run
            left = seconds_left(done, total, pace.elapsed(), predicted=predicted,
                                since=pace.since)
            tail = "" if done == total else f", about {left:.0f} s left"
            bar.progress(done / max(total, 1), text=f"{done:,} of {total:,} runs, "
                                                    f"{pace.elapsed():.0f} s elapsed{tail}")

        table = run_sweep(spec, jobs=jobs, progress=progress)
        st.session_state[RESULT] = (spec.digest(), table, pace.elapsed(), sum(predicted))
    found = st.session_state.get(RESULT)
    if found is None or found[0] != spec.digest():
        st.info("Set the sweep, then run it.", icon=":material/query_stats:")
        return None
    st.caption(f"The sweep took {found[2]:.1f} s (predicted about {found[3]:.0f} s; "
               f"{found[1].attrs.get('cached', 0)} runs were on disk already).")
    return found[1]


def axis_title(task: str, key: str) -> str:
    """The swept key's words for an axis or a table column."""
    return swept_keys(task).get(key, key)


def results_panel(spec: SweepSpec, table: pd.DataFrame) -> None:
    """The curves, the summary table, the exports and the headless command."""
    x = spec.grid[0][0]
    metric = str(st.selectbox("Metric drawn", spec.metrics, key="explorer_metric_drawn",
                              format_func=lambda m: metric_label(spec.task, m).text))
    summary = summarise(table, x, metric, band="quantile")
    labels = {n: TASKS[spec.task][n].label for n in spec.estimators}
    values = [v for v in table[x] if isinstance(v, int | float)]
    log_x = x in LOG_AXES and bool(values) and min(values) > 0
    fig = sweep_curves(summary, x=x, metric=metric, labels=labels,
                       x_title=axis_title(spec.task, x), log_x=log_x,
                       y_title=metric_label(spec.task, metric).text)
    show_chart(fig, key="explorer_curves", filename="sweep")
    failed = int((table["failed"] != "").sum())
    if failed:
        st.warning(f"{failed} of {len(table)} runs gave no answer; they are left out of the "
                   "curves (first reason: "
                   f"{escape_markdown(table.loc[table['failed'] != '', 'failed'].iloc[0])})",
                   icon=":material/warning:")
    shown = summary.assign(estimator=summary["estimator"].map(labels)).rename(columns={
        "estimator": "Estimator", x: axis_title(spec.task, x), "median": "median",
        "low": "10th percentile", "high": "90th percentile", "count": "runs with an answer",
        "failed": "runs without"})
    st.dataframe(shown, key="explorer_summary", hide_index=True)
    st.caption(f"{metric_label(spec.task, metric).text}: the median over the repeats and the "
               "10th to 90th percentile of the runs (the band holds the middle 80%).")
    export_panel(spec, table, fig)


def export_panel(spec: SweepSpec, table: pd.DataFrame, fig: Any) -> None:
    """CSV, JSON lines, PNG and SVG downloads, and the same sweep from the command line."""
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
    st.markdown("**The same sweep from the command line**: save the spec file, then run")
    st.code("python -m dpviz sweep spec.json --jobs 2 --out results.csv", language="bash")
    st.download_button("The spec file (spec.json)", data=json.dumps(spec.to_dict(), indent=2),
                       file_name="spec.json", mime="application/json", key="explorer_spec",
                       on_click="ignore", icon=":material/download:")


def _image_maker(fig: Any, fmt: str) -> Callable[[], bytes]:
    """Draws the figure as PNG or SVG through kaleido when the button is clicked."""
    def make() -> bytes:
        files, reason = figure_images({"sweep": fig})
        if f"figures/sweep.{fmt}" not in files:
            return f"kaleido could not draw the figure: {reason}".encode()
        return files[f"figures/sweep.{fmt}"]

    return make
