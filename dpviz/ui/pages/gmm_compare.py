"""The Gaussian mixtures page's estimator stories and its compare view (issue 7).

Each estimator with a story on its registry entry (:class:`dpviz.core.entry.Story`) draws it from
its result's diagnostics (the figures come from :mod:`dpviz.viz`); the compare view runs
every estimator on the page's data and budget as a sweep with no grid
(:func:`dpviz.lab.experiments.compare_spec`), so it is cached on disk like any sweep. Its runs
go on the server's own bounded pool (:func:`pool`: two threads for the whole server, its runs
queue), which shares the server's imports and solved privacy plans: a fresh worker process
would import dpviz and solve them again before its first run. Its preconditions, asked on
every rerun of a page with the view open, have a pool of their own
(:func:`precondition_pool`), so they never wait behind another user's queued runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from dpviz.core.entry import StoryInputs
from dpviz.estimators.metrics import METRICS, metric_label
from dpviz.estimators.registry import TASKS
from dpviz.estimators.result import Result
from dpviz.lab import experiments, success
from dpviz.lab.feasibility import Blocked, blocked, sizes_of
from dpviz.lab.scenario import Scenario
from dpviz.lab.solve import RUNS
from dpviz.ui import runs
from dpviz.ui.pages.gmm_runs import MixtureData
from dpviz.ui.panels.ppe import sample_size_calculator
from dpviz.ui.progress import timed_bar
from dpviz.ui.widgets import escape_markdown, show_chart
from dpviz.viz.compare import RUN_TITLES, compare_figure

#: The public calculators a story can name (its ``calculator``): a title and the panel.
CALCULATORS: dict[str, tuple[str, Callable[..., None]]] = {
    "ppe": ("What sample the guarantee needs", sample_size_calculator),
}
#: Repeats the compare view runs by default (noise only: the data are the page's).
COMPARE_REPEATS = 5
#: Threads of the server's compare pool (:func:`pool`), one per core of the 2-core server.
COMPARE_JOBS = 2


def _label(name: str) -> str:
    return TASKS["gmm"][name].label


def story(result: Result, data: MixtureData, *, scenario: Scenario | None = None,
          fresh: int | None = None) -> None:
    """The estimator's own story, from its registry entry (nothing when it has none).

    A ⊥ run with a ``scenario`` also offers its mechanics: the same scenario without noise
    (:func:`dpviz.ui.pages.gmm_runs.mechanics_scenario`), drawn apart under "not private",
    with no ε.
    """
    from dpviz.estimators.work import check_work
    from dpviz.ui.pages import gmm_runs
    from dpviz.ui.widgets import attempt, lazy_expander

    entry = TASKS["gmm"].get(result.estimator or "")
    told = entry.story if entry is not None else None
    if told is None:
        return

    def draw(shown: Result, inputs: StoryInputs, prefix: str) -> None:
        for row in told.rows(shown, inputs):
            for column, figure in zip(st.columns(len(row)) if len(row) > 1 else [st.container()],
                                      row, strict=True):
                with column:
                    show_chart(figure.figure, key=prefix + figure.key, filename=figure.filename)

    def fits(rows: int) -> bool:  # what the page's work budget runs live (public sizes)
        try:
            check_work("gmm", result.estimator, n=rows, d=data.data.shape[1], k=data.k)
        except ValueError:
            return False
        return True

    def mechanics() -> None:
        assert scenario is not None
        st.caption(gmm_runs.MECHANICS_NOTE)
        saved = gmm_runs.saved_mechanics(result.estimator)
        options: list[int | str] = [len(data.data)]
        if "generator" in scenario.data:
            options = sorted({len(data.data), *filter(fits, gmm_runs.MECHANICS_ROWS)})
            if saved is not None:
                options.append("saved")
        chosen = st.selectbox(
            "Rows (generated, same seed)", options, key="gmm_mech_rows",
            format_func=lambda n: f"{n:,}" if n != "saved" or saved is None else
            f"{saved[1].data['n']:,} (precomputed: too big to run on this page)",
            help="Some algorithms need many rows even without noise: PPE's chunks agree "
                 "only from about 100 000.")
        if chosen == "saved" and saved is not None:
            shown, plain = saved
            inputs = StoryInputs(k=data.k)
            st.caption(f"Precomputed on the default generated mixture (n = "
                       f"{plain.data['n']:,}, separation {plain.data['separation']:g}σ, data "
                       "seed 0), not on this page's rows.")
        else:
            plain = gmm_runs.mechanics_scenario(scenario, int(chosen))
            shown = attempt(gmm_runs.run, plain, fresh=0 if fresh is None else fresh)
            seen = data if chosen == len(data.data) else attempt(gmm_runs.mixture_data, plain)
            inputs = StoryInputs(rows=seen.data, labels=seen.labels,
                                 true_means=seen.truth.means, k=seen.k)
        if shown.failed:
            st.info(f"Even without noise: ⊥ — {escape_markdown(shown.failed)}",
                    icon=":material/info:")
        draw(shown, inputs, "mechanics_")

    st.subheader("How this estimator got its answer")
    st.caption(told.intro)
    uploaded = scenario is not None and "upload" in scenario.data
    draw(result, StoryInputs(rows=data.data, labels=data.labels, true_means=data.truth.means,
                             k=data.k, reference=gmm_runs.YOUR_DATA_REFERENCE if uploaded else None,
                             names=data.names),
         "")
    if result.failed and scenario is not None and not uploaded:
        lazy_expander(gmm_runs.MECHANICS_TITLE, mechanics, key="gmm_mechanics_open",
                      icon=":material/settings:")
    calculator = CALCULATORS.get(told.calculator or "")
    if calculator is not None:
        title, panel = calculator
        with st.expander(title, icon=":material/calculate:"):
            panel(len(data.data), d=data.data.shape[1], k=data.k)


@st.cache_resource(show_spinner=False)
def pool() -> ThreadPoolExecutor:
    """The server's one compare pool: :data:`COMPARE_JOBS` threads shared by every user.

    Bounded: however many users compare at once, at most that many runs go at a time (the
    rest queue). Threads, not processes: the estimators' heavy parts (numpy, scipy's k-d
    tree) release the GIL, and a thread starts warm.
    """
    return ThreadPoolExecutor(max_workers=COMPARE_JOBS, thread_name_prefix="dpviz-compare")


@st.cache_resource(show_spinner=False)
def precondition_pool() -> ThreadPoolExecutor:
    """The server's pool for the compare view's preconditions, apart from :func:`pool`.

    A page with the compare view open asks them on every rerun; on the compare pool they
    would wait behind every run queued there, another user's included. Bounded like it
    (:data:`COMPARE_JOBS` threads), and as warm (it shares the server's solved plans).
    """
    return ThreadPoolExecutor(max_workers=COMPARE_JOBS,
                              thread_name_prefix="dpviz-compare-preconditions")


@st.cache_data(max_entries=64, show_spinner=False)
def _blocked(asked: str) -> dict[str, Blocked | None]:
    """:func:`dpviz.lab.feasibility.blocked` for gmm entries at public sizes, side by side.

    ``asked``: JSON of ``{name: sizes}`` (:func:`dpviz.lab.feasibility.sizes_of`); asked on
    :func:`precondition_pool`, never behind the compare runs.
    """
    futures = {name: precondition_pool().submit(blocked, TASKS["gmm"][name], **sizes, reach=1.0)
               for name, sizes in json.loads(asked).items()}
    return {name: future.result() for name, future in futures.items()}


def cannot_succeed(scenario: Scenario, chosen: Sequence[str]) -> dict[str, Blocked]:
    """The chosen private estimators that cannot succeed on this data and budget, and why.

    Each entry's public preconditions (:meth:`dpviz.core.entry.Estimator.cannot_run`) at the
    data's n, d and k and the scenario's ε and δ, with the n from which they hold
    (:func:`dpviz.lab.feasibility.blocked`; ε is not searched here: some preconditions solve
    their accounting afresh for every ε) and, where a simulation of the page's generator at
    these public sizes is kept or saved (:func:`dpviz.lab.success.known`), the n from which
    runs succeed. Public inputs only, so leaving an estimator out says nothing about anyone's
    row.
    """
    data = runs.loaded(scenario)
    n, d = data.data.shape
    asked = {name: sizes_of(TASKS["gmm"][name], n=n, d=d, k=data.public.get("k") or 1,
                            params=scenario.params)
             for name in chosen if TASKS["gmm"][name].notion != "none"}
    out = {}
    for name, why in _blocked(runs.canonical(asked)).items():
        if why is None:
            continue
        shape = success.shape_of(scenario, name) if why.n is not None else None
        found = None if shape is None else success.known(shape)
        out[name] = why if found is None else replace(why, simulated=found.sentence())
    return out


def simulate_buttons(scenario: Scenario, skipped: Mapping[str, Blocked], *, key: str) -> None:
    """The rule of a simulated n, and a button for each left-out estimator not simulated yet.

    The button runs :func:`dpviz.lab.success.succeeds_from` on the page's generator with a
    progress bar, within :data:`dpviz.lab.success.PAGE`'s work limit (checked before each
    range of n); the answer is kept on disk, so the list above says it from then on.
    """
    shapes = {name: shape for name, why in skipped.items() if why.n is not None
              and (shape := success.shape_of(scenario, name)) is not None}
    if not shapes:
        return
    st.caption(f"Where the n is simulated, {success.RULE}; the runs draw mixtures from the "
               f"page's generator ({RUNS} runs per point), never your rows.")
    for name, shape in shapes.items():
        why = skipped[name]
        if why.simulated is not None or why.n is None:  # n: for the type checker
            continue
        label = _label(name)
        try:
            cost = success.range_cost(shape, why.n)
        except ValueError as err:
            st.caption(escape_markdown(f"{label}: not simulated, and simulating it here is "
                                       f"too much work: {err}"))
            continue
        st.caption(escape_markdown(
            f"{label}: not simulated yet. About {cost:,.0f} s of server time for the first "
            f"range of n ({why.n:,} to {2 * why.n:,} rows); a search stops before it would "
            f"pass {success.PAGE.seconds:g} s."))
        if not st.button("Simulate where it succeeds", key=f"{key}_simulate_{name}",
                         icon=":material/query_stats:",
                         help="Simulated runs at more and more rows, until 90% succeed."):
            continue
        with timed_bar(f"Simulating {label}", RUNS, at_most=True) as bar:
            try:
                success.search_kept(shape, budget=success.PAGE, progress=lambda done, total:
                                    bar.step(done, total=total, unit="simulated runs"))
            except ValueError as err:
                st.error(escape_markdown(err), icon=":material/error:")
                return
        st.rerun()


def seconds_left(finished: Mapping[str, Sequence[float]], remaining: Mapping[str, int],
                 workers: int) -> float | None:
    """The compare's time left from the runs finished so far, once every estimator has one.

    Each run left costs the mean seconds of its estimator's finished runs, shared by the
    ``workers`` running side by side. ``None`` while an estimator with runs left has not
    finished one: its cost is not measured yet (the pool starts every estimator's first
    run first, so this is soon).

    Examples
    --------
    >>> seconds_left({"a": [0.2, 0.4], "b": [1.0]}, {"a": 3, "b": 2}, 2)
    1.45
    >>> seconds_left({"a": [0.2], "b": []}, {"a": 3, "b": 2}, 2) is None
    True
    """
    if any(count and not finished[name] for name, count in remaining.items()):
        return None
    work = sum(count * sum(finished[name]) / len(finished[name])
               for name, count in remaining.items() if count)
    return round(work / max(workers, 1), 10)


def run_compare(spec: experiments.SweepSpec,
                report: Callable[[int, float | None], None] | None = None) -> pd.DataFrame:
    """The compare sweep on the server's :func:`pool`; ``report(done, seconds_left)`` as it goes.

    The time left is :func:`seconds_left` from the runs finished so far. Runs already on
    disk (the same spec before) are read, not run.
    """
    remaining = dict.fromkeys(spec.estimators, spec.repeats)
    finished: dict[str, list[float]] = {name: [] for name in spec.estimators}

    def row_done(row: Mapping[str, Any]) -> None:
        name = str(row["estimator"])
        finished[name].append(float(row["seconds"]))
        remaining[name] -= 1

    def progress(done: int, total: int, elapsed: float) -> None:
        if report is not None:
            report(done, seconds_left(finished, remaining, COMPARE_JOBS))

    return experiments.run_sweep(spec, executor=pool(), progress=progress, finished=row_done)


def compare_section(scenario: Scenario, *, key: str = "gmm_compare") -> None:
    """Every estimator on the page's data and budget, side by side, one measure at a time.

    Estimators that cannot succeed at the page's public sizes are listed with the reason and
    the n they would need, and run only when the user ticks "run them anyway".
    """
    names = tuple(TASKS["gmm"])
    chosen: Sequence[str] = st.multiselect(
        "Estimators", names, default=list(names), format_func=_label, key=f"{key}_estimators",
        help="Every estimator runs on the same rows with the same budget; only its noise "
             "differs between repeats.")
    repeats = int(st.number_input("Repeats", 2, 50, COMPARE_REPEATS, key=f"{key}_repeats",
                                  help="Noise draws per estimator (the bars are the median "
                                       "of the successful ones, the lines their 10th to "
                                       "90th percentile)."))
    if "upload" in scenario.data:
        st.info("The compare view needs data it can describe in a sweep: a generated mixture "
                "or a bundled data set, not an upload.", icon=":material/info:")
        return
    if not chosen:
        st.info("Pick at least one estimator.", icon=":material/info:")
        return
    skipped = cannot_succeed(scenario, chosen)
    anyway = False
    if skipped:
        st.info("Left out, because they cannot succeed at this n and budget (known from the "
                "public sizes before any run):\n\n" + "\n".join(
                    f"- **{escape_markdown(_label(name))}**: {escape_markdown(why.reason)}; "
                    f"{escape_markdown(why.remedy())}." for name, why in skipped.items()),
                icon=":material/block:")
        simulate_buttons(scenario, skipped, key=key)
        anyway = st.checkbox("Run them anyway", key=f"{key}_anyway",
                             help="They refuse before reading a row or answer ⊥ (no answer): "
                                  "the runs show how, at the cost of their time.")
    chosen = [name for name in chosen if anyway or name not in skipped]
    if not chosen:
        return
    spec = experiments.compare_spec(scenario, chosen, repeats=repeats)
    text = json.dumps(spec.to_dict(), sort_keys=True)
    if st.button("Compare", key=f"{key}_run", icon=":material/play_arrow:",
                 help="Runs each estimator `repeats` times, two at a time; the private PCA, "
                      "PPE and stability learners take a second or more per run."):
        with timed_bar(f"Running {spec.runs} runs", spec.runs) as bar:
            try:
                table = run_compare(spec, report=lambda done, left: bar.step(
                    done, left=left, unit="runs", measured=False))
            except ValueError as err:
                st.error(escape_markdown(err), icon=":material/error:")
                return
            st.session_state[key] = (text, table, bar.elapsed())
    remembered = st.session_state.get(key)
    if remembered is None or remembered[0] != text:
        st.caption(f"{spec.runs} runs: click Compare.")
        return
    _, table, seconds = remembered
    results_panel(table, seconds, key=key)


def _column_title(column: str) -> str:
    """A compare summary column's readable title (metric labels, then the run columns)."""
    if column in METRICS["gmm"]:
        return metric_label("gmm", column).text
    return RUN_TITLES[column]


def results_panel(table: pd.DataFrame, seconds: float, *, key: str) -> None:
    """The chosen measure's bars, the summary table with readable columns, the failures."""
    metrics = list(experiments.COMPARE_METRICS)
    summary = experiments.compare_summary(table, metrics, band="quantile")
    labels = {n: _label(n) for n in summary["estimator"]}
    columns = [*metrics, "success_rate", "seconds"]
    drawn = str(st.selectbox("Measure drawn", columns, format_func=_column_title,
                             key=f"{key}_measure"))
    show_chart(compare_figure(summary, drawn, labels=labels, x_title=_column_title(drawn)),
               key=f"{key}_figure", filename="dpviz-gmm-compare")
    shown = summary[["estimator", "success_rate", *metrics, "seconds"]].round(4)
    shown = shown.assign(estimator=shown["estimator"].map(labels)).rename(
        columns={"estimator": "Estimator", **{c: _column_title(c) for c in columns}})
    st.dataframe(shown, hide_index=True, key=f"{key}_table")
    failures = table.loc[table["failed"] != "", ["estimator", "failed"]].drop_duplicates()
    st.caption(f"{len(table)} runs in {seconds:.1f} s. Bars: the median over the successful "
               "repeats, lines from their 10th to their 90th percentile. An honest ⊥ "
               "(an estimator whose test rejects, or which refuses because the sample is too "
               "small for its guarantee) counts against the share of answers and is left out "
               "of the errors.")
    private = int(table["estimator"].map(lambda e: TASKS["gmm"][e].notion != "none").sum())
    if private:
        st.caption(f"Each of the {private} private runs is another release of the same rows, "
                   "each within the page's budget, so together they spend up to "
                   f"{private} times it: a comparison, not a release. That is why it runs "
                   "only on generated or public bundled data; on real data you would publish "
                   "one run.")
    if len(failures):
        with st.expander("Why runs failed", icon=":material/error:"):
            st.dataframe(failures.assign(estimator=failures["estimator"].map(labels)).rename(
                columns={"estimator": "Estimator", "failed": "Why it gave no answer"}),
                hide_index=True, key=f"{key}_failures")
