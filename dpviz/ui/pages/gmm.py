"""Widgets, tables and sentences of the Gaussian mixtures page."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpviz import viz
from dpviz.core import limits
from dpviz.core.entry import Estimator, Param
from dpviz.data import DATASETS, load_dataset, validate_mixture_data
from dpviz.estimators.metrics import METRICS, Truth, match_components
from dpviz.estimators.registry import TASKS
from dpviz.estimators.result import Result
from dpviz.estimators.work import check_work
from dpviz.lab import expectation, experiments, intervals
from dpviz.lab.feasibility import table_default
from dpviz.lab.scenario import Scenario
from dpviz.privacy import METHOD_LABELS, METHODS, Budget, Ledger, compose_runs
from dpviz.privacy.bounds import bound_plan
from dpviz.ui import cached, runs, widgets
from dpviz.ui.panels import upload
from dpviz.ui.panels.risk import spend_text
from dpviz.ui.shell import PageContext
from dpviz.ui.widgets import (
    accept_option_names,
    advanced,
    attempt,
    clamp_state,
    delta_input,
    epsilon_slider,
    escape_markdown,
    method_select,
    show_chart,
)

SYNTHETIC = "synthetic"
CSV = "csv"
WEIGHTS = ("equal", "random")
COVARIANCES = ("spherical", "diagonal", "full")
BOUNDS = ("a radius I give", "read from the data (not private)")
#: (metric name in ``dpviz.estimators.metrics.METRICS["gmm"]``, column title).
ERRORS = (("mean_error", "mean error"), ("weight_error", "weight error"),
          ("covariance_error", "covariance error"))
DASH = "—"
#: A table with at most this many columns also gets the error of the means in each column,
#: in that column's own units (the mean error's distance mixes a file's units).
COLUMN_ERRORS = 12
#: The estimator box's default: for generated data and bundled sets, and for an upload that no
#: estimator suits better (:func:`dpviz.lab.feasibility.table_default`).
FALLBACK = "dp_em"
#: The estimator the page picked itself on its last run: while the box still shows it, the
#: page may pick again for a new table; once the user (or a link) chose another, it stays.
AUTOMATIC = "gmm_estimator_automatic"


def cloud_charge(cloud: Cloud, run: Ledger) -> str:
    """One sentence: the cloud's R runs are charged with the page's run, and the totals."""
    return (f"The cloud is R = {cloud.repeats} more private fits of the same data, so the "
            f"budget bar and the risk panel charge all {cloud.repeats + 1} runs: "
            f"{spend_text(cloud.ledger)} in all, against {spend_text(run)} for the run drawn "
            "alone.")


def ledger_title(cloud: Cloud | None) -> str:
    """The budget bar's title: one run, or the run and the cloud's R runs."""
    if cloud is None:
        return "Where the budget went"
    return f"Where the budget went: this run and the cloud's {cloud.repeats} runs"


def _source_label(source: str) -> str:
    if source == CSV:
        return "Upload a CSV file"
    return "Synthetic Gaussian mixture" if source == SYNTHETIC else DATASETS[source].label


#: A data block, the parameters it brings (an upload's k), an upload's bytes and its public
#: sizes (n, d; ``None`` for generated data and bundled sets).
DataChoice = tuple[dict[str, Any], dict[str, Any], bytes | None, tuple[int, int] | None]


def data_controls(seed: int) -> DataChoice:
    """The data: a synthetic mixture (k, d, n, separation, weights, shape), a set or a CSV.

    ``seed`` is the generated mixture's data seed.
    """
    sources = (SYNTHETIC, *DATASETS, CSV)
    accept_option_names("gmm_source", sources, _source_label)
    source = st.selectbox("Data", sources, format_func=_source_label,
                          key="gmm_source", bind="query-params",
                          help="A generated mixture (its true parameters are known), a "
                               "bundled real set (its classes are the true components) or "
                               "a CSV file of your own.")
    if source == CSV:
        return csv_controls()
    if source != SYNTHETIC:
        return {"dataset": str(source)}, {}, None, None
    a, b, c = st.columns(3)
    k = a.number_input("Components k", min_value=int(limits.COMPONENTS.low),
                       max_value=int(limits.COMPONENTS.high), value=3, step=1, format="%d",
                       key="gmm_k", bind="query-params")
    d = b.number_input("Dimension d", min_value=2, max_value=int(limits.DIMENSIONS.high),
                       value=2, step=1, format="%d", key="gmm_d", bind="query-params",
                       help="Above 2 the figure shows two coordinates (you pick which).")
    n = c.number_input("Rows n", min_value=int(limits.SAMPLE_SIZE.low),
                       max_value=int(limits.SAMPLE_SIZE.high), value=10_000, step=1000,
                       format="%d", key="gmm_n", bind="query-params")
    separation = st.slider("Separation (in standard deviations σ)", min_value=0.0,
                           max_value=20.0, value=6.0, step=0.5, key="gmm_separation",
                           bind="query-params",
                           help="The smallest distance between two true means, in units of "
                                "the largest standard deviation of any component.")
    a, b = st.columns(2)
    weights = a.radio("Weights", WEIGHTS, key="gmm_weights", horizontal=True,
                      bind="query-params", help="random: each weight at least 1/(2k).")
    covariance = b.radio("Covariance shape", COVARIANCES, key="gmm_covariance",
                         horizontal=True, bind="query-params",
                         help="full: a random diagonal turned by a random rotation.")
    return ({"generator": "gmm", "k": int(k), "d": int(d), "n": int(n),
             "separation": float(separation), "weights": str(weights),
             "covariance": str(covariance), "seed": int(seed)}, {}, None, None)


def bound_control(data: Mapping[str, Any]) -> float | str | None:
    """The public bound (radius R of the clipping ball), and where it comes from.

    Returns
    -------
    float, "data" or None
        ``None``: the data's own public radius (synthetic data, or a set that ships one), or
        an upload's bound chosen as ranges (its data block's ``bounds``).
    """
    if "upload" in data:  # the upload step chose it (dpviz.ui.panels.upload.table_upload)
        return None if "bounds" in data else float(st.session_state["gmm_radius"])
    if "generator" in data:
        st.caption("Public bound: the generator's radius R = 1, computed from the true "
                   "parameters (means and covariances), never from the rows — so it is "
                   "public.")
        return None
    info = DATASETS[data["dataset"]] if "dataset" in data else None
    if info is not None and info.radius is not None:
        st.caption(f"Public bound: R = {info.radius:g} ({info.scaling}), from the documented "
                   "range of the values, not from the data.")
        return None
    mode = st.radio("Public bound on the rows' norms", BOUNDS, key="gmm_bound",
                    bind="query-params",
                    help="This data ships no public bound. A radius you can justify without "
                         "looking at the data keeps the guarantee; reading it from the data "
                         "breaks it.")
    if mode == BOUNDS[1]:
        return "data"
    radius = st.number_input("Radius R", min_value=1e-6, value=10.0, step=1.0,
                             key="gmm_radius", bind="query-params",
                             help="Rows are clipped to the ball of this radius.")
    return float(radius)


def param_widget(estimator: str, param: Param) -> Any:
    """A widget for one of a gmm estimator's registry parameters (key ``gmm_<e>_<p>``)."""
    return widgets.param_widget(f"gmm_{estimator}_{param.name}", param)


def _estimator_label(name: str) -> str:
    return TASKS["gmm"][name].label


def label(scenario: Scenario) -> str:
    """The scenario's estimator's label in the registry."""
    return _estimator_label(scenario.estimator)


def automatic_estimator(data: Mapping[str, Any], table: tuple[int, int, int] | None) -> str:
    """The estimator the page picks for ``data``: :data:`FALLBACK` unless an upload suits another.

    For an upload of ``table`` = (n, d, k) (rows, columns, clusters): the first estimator
    that suits those public sizes and can run at the budget it would get (ε and δ as the
    user left them, less a private bound's share).
    """
    if table is None:
        return FALLBACK
    n, d, k = table
    epsilon, delta = _coming("gmm_epsilon", 1.0), _coming("gmm_delta", 1e-5)
    accounting = _coming_method("gmm_accounting", "zcdp")
    share = (data.get("bounds") or {}).get("private")
    if share is not None and math.isfinite(epsilon):
        rest = bound_plan(n, d, Budget(epsilon=epsilon, delta=delta, method=accounting),
                          float(share)).rest
        epsilon, delta = float(rest.epsilon or epsilon), rest.delta
    return table_default("gmm", FALLBACK, n=n, d=d, k=k, epsilon=epsilon, delta=delta,
                         accounting=accounting)


def _coming(key: str, default: float) -> float:
    """The value the number box ``key``, drawn later in this run, will have.

    The one kept in the session, else a link's (the box's first draw takes it from the
    address), else ``default``.
    """
    if key in st.session_state:
        return float(st.session_state[key])
    try:
        return float(st.query_params.get(key, default))
    except ValueError:
        return default


def _coming_method(key: str, default: str) -> str:
    """The accounting method the box ``key``, drawn later in this run, will have.

    The one kept in the session, else a link's (by name, ``linear``, or by its label), else
    ``default``.
    """
    if key in st.session_state:
        return str(st.session_state[key])
    raw = st.query_params.get(key)
    named = {METHOD_LABELS[m]: m for m in METHODS} | {m: m for m in METHODS}
    return named.get(str(raw), default) if raw is not None else default


def preselect_estimator(automatic: str) -> None:
    """Put ``automatic`` in the estimator box before it is drawn, unless someone chose.

    A keyed selectbox keeps its value across runs and ignores ``index``, so the page's pick
    is written to the session state, and only while the box still shows the page's previous
    pick (:data:`AUTOMATIC`); a user's choice stays, and a link's value wins on the box's
    first draw (Streamlit seeds a bound widget from the address then).
    """
    previous = st.session_state.get(AUTOMATIC)
    current = st.session_state.get("gmm_estimator")
    linked = current is None and bool(st.query_params.get("gmm_estimator"))
    if not linked and current in (None, previous) and current != automatic:
        st.session_state["gmm_estimator"] = automatic
    st.session_state[AUTOMATIC] = automatic


def picked_sentence(estimator: str, n: int) -> str:
    """Why the page picked ``estimator`` for an uploaded table of ``n`` rows (plain words).

    Examples
    --------
    >>> picked_sentence("grid_means", 500)[:50]
    'For a table of 500 rows the page picks Grid means:'
    """
    return (f"For a table of {n:,} rows the page picks {_estimator_label(estimator)}: "
            f"{_estimator_label(FALLBACK)}'s noise grows with the whole range of the bound and "
            "would swamp the clusters of a table this small. You can pick another estimator "
            "above.")


def kept_sentence(table: tuple[int, int, int], epsilon: float, delta: float) -> str | None:
    """Why the page keeps :data:`FALLBACK` for a table an estimator suits but cannot yet serve.

    ``None`` when no estimator suits the table's public sizes (n, d, k).

    Examples
    --------
    >>> kept_sentence((150, 2, 3), 1.0, 1e-5).startswith("For a table of 150 rows Grid means")
    True
    >>> kept_sentence((500, 8, 3), 1.0, 1e-5) is None
    True
    """
    n, d, k = table
    for entry in TASKS["gmm"].values():
        if entry.suits is not None and entry.suits(n=n, d=d, k=k):
            reason = entry.cannot_run(n=n, d=d, k=k, epsilon=epsilon, delta=delta)
            return (f"For a table of {n:,} rows {entry.label} would suit, but it cannot run "
                    f"at ε = {epsilon:g}: {reason}. The page keeps {_estimator_label(FALLBACK)}; "
                    "its expected accuracy is stated above the picture.")
    return None


def estimator_controls(data: Mapping[str, Any],
                       table: tuple[int, int, int] | None = None) -> tuple[str, dict[str, Any]]:
    """Estimator (from the registry), its parameters, ε, δ, accounting and the bound.

    ``table`` is an upload's (n, d, k): the box then starts at the estimator that suits it
    (:func:`automatic_estimator`). Returns the estimator's name and the scenario's
    ``params`` (a non-private reference gets ε = ∞ and δ = 0).
    """
    names = tuple(TASKS["gmm"])
    accept_option_names("gmm_estimator", names, _estimator_label)
    automatic = automatic_estimator(data, table)
    preselect_estimator(automatic)
    estimator = str(st.selectbox("Estimator", names, index=names.index(FALLBACK),
                                 format_func=_estimator_label,
                                 key="gmm_estimator", bind="query-params"))
    entry: Estimator = TASKS["gmm"][estimator]
    if table is not None and estimator == automatic != FALLBACK:
        st.caption(picked_sentence(estimator, table[0]))
    elif table is not None and estimator == automatic:
        kept = kept_sentence(table, _coming("gmm_epsilon", 1.0), _coming("gmm_delta", 1e-5))
        if kept is not None:
            st.caption(kept)
    st.caption(entry.paper)
    shown = [p for p in entry.params if p.name != "k" and not p.choice]
    chosen = [p for p in entry.params if p.name != "k" and p.choice]
    params = {p.name: param_widget(estimator, p) for p in shown}
    epsilon = epsilon_slider("gmm_epsilon", label="ε")
    delta = delta_input("gmm_delta", label="δ")
    if entry.notion == "none":
        st.caption(f"{entry.label} is a non-private reference: ε and δ are not used.")
        epsilon, delta = math.inf, 0.0
    radius = bound_control(data)
    with advanced("Accounting and the choices the paper leaves open", "gmm"):
        accounting = method_select("gmm_accounting", value="zcdp")
        for p in chosen:
            params[p.name] = param_widget(estimator, p)
        st.number_input("Repeated runs R (the cloud)", min_value=2, max_value=100, value=10,
                        step=1, format="%d", key="gmm_repeats", bind="query-params",
                        help="How many runs the cloud of private means draws; their seeds "
                             "are derived from the global seed.")
    params.update(epsilon=float(epsilon), delta=float(delta), accounting=str(accounting),
                  radius=radius)
    return estimator, params


def controls(ctx: PageContext) -> tuple[Scenario, bytes | None]:
    """The page's run as one Scenario, and an uploaded file's bytes (``None``: no upload).

    The scenario's seed is the sidebar's (teaching randomness), or ``None`` under secure
    randomness: the page then passes the rerun's fresh entropy to :func:`run`.
    """
    data, public, content, shape = data_controls(ctx.data_seed)
    table = None if shape is None else (*shape, int(public["k"]))
    estimator, params = estimator_controls(data, table)
    return attempt(Scenario.from_dict, {
        "task": "gmm", "estimator": estimator, "data": data, "params": {**public, **params},
        "seed": None if ctx.secure else ctx.seed}), content


#: The controls drawn under the figure's run: a failed run stops before them, and the next
#: run must show them as it uses them (:func:`dpviz.ui.panels.upload.stop_guard`).
FIGURE_CONTROLS = ("gmm_axis_x", "gmm_axis_y", "gmm_iteration", "gmm_cloud")


def projection_controls(d: int, names: Sequence[str]) -> tuple[int, int]:
    """Two coordinates to show when d > 2 (first two by default)."""
    if d <= 2:
        return (0, 1)
    options = tuple(range(d))
    clamp_state("gmm_axis_x", options)
    clamp_state("gmm_axis_y", options)
    a, b = st.columns(2)
    i = a.selectbox("Horizontal axis", options, index=0, format_func=lambda j: names[j],
                    key="gmm_axis_x", bind="query-params")
    j = b.selectbox("Vertical axis", options, index=1, format_func=lambda j: names[j],
                    key="gmm_axis_y", bind="query-params")
    st.caption(f"Projection: coordinates {escape_markdown(names[int(i)])} and "
               f"{escape_markdown(names[int(j)])} (public: a "
               f"fixed choice of axes, not computed from the data).")
    return (int(i), int(j))


def iteration_slider(trajectory: Sequence[Any]) -> int:
    """The DP-EM replay slider, 0 (the start) … J (the result)."""
    last = len(trajectory) - 1
    clamp_state("gmm_iteration", range(last + 1))
    return int(st.slider("Iteration (replay the noisy M-steps)", min_value=0, max_value=last,
                         value=last, step=1, key="gmm_iteration", bind="query-params",
                         help="0 is the start (by default the centres of a few private "
                              "Lloyd iterations, charged to the budget); each step is one "
                              "noisy M-step. Every step is part of the release."))


@dataclass(frozen=True)
class Estimate:
    """The estimate drawn: weights, means and covariances (``None`` if not estimated)."""

    weights: NDArray[np.float64] | None
    means: NDArray[np.float64]
    covariances: NDArray[np.float64] | None


def estimate_of(result: Result, iteration: int | None = None) -> Estimate:
    """The result's estimate, or the trajectory's parameters after ``iteration`` steps."""
    if iteration is not None:
        step = result.diagnostics["trajectory"][iteration]
        return Estimate(np.asarray(step.weights), np.asarray(step.means),
                        np.asarray(step.covariances))
    estimate = result.estimate

    def array(name: str) -> NDArray[np.float64] | None:
        value = estimate.get(name)
        return None if value is None else np.asarray(value, dtype=float)

    means = array("means")
    assert means is not None
    return Estimate(array("weights"), means, array("covariances"))


def matched(truth: Truth, estimate: Estimate) -> Estimate:
    """The estimate's components reordered so that component j estimates true component j.

    Unmatched true components (fewer estimated ones) are left out of the estimate.
    """
    assert truth.means is not None
    order = match_components(truth.means, estimate.means)
    order = order[order >= 0]
    return Estimate(None if estimate.weights is None else estimate.weights[order],
                    estimate.means[order],
                    None if estimate.covariances is None else estimate.covariances[order])


def _cell(value: float) -> str:
    return DASH if not math.isfinite(value) else f"{value:.4g}"


def error_table(rows: Sequence[tuple[str, Result]], truth: Truth) -> pd.DataFrame:
    """One row per result: the errors after matching components (— where none applies).

    A run on a table (its ``choices`` name the columns, at most :data:`COLUMN_ERRORS`) also
    gets each column's error of the means, in that column's units (:func:`column_errors`).
    """
    out = []
    for label, result in rows:
        row: dict[str, str] = {"estimator": label}
        for name, title in ERRORS:
            row[title] = _cell(float(METRICS["gmm"][name](result, truth)))
        columns = result.choices.get("columns") or ()
        means = result.estimate.get("means")
        if 0 < len(columns) <= COLUMN_ERRORS and truth.means is not None:
            errors = (column_errors(truth.means, means) if means is not None and
                      not result.failed else np.full(len(columns), math.nan))
            row.update({f"mean error, {name}": _cell(float(e))
                        for name, e in zip(columns, errors, strict=True)})
        out.append(row)
    return pd.DataFrame(out)


def column_errors(true_means: Any, means: Any) -> NDArray[np.float64]:
    """The error of the means in each column: ``|μ_j − μ̃_j|`` averaged over matched components.

    Components are matched as for the mean error (Hungarian algorithm on the means); each
    column's error is in that column's units.

    Examples
    --------
    >>> column_errors([[10.0, 500.0], [14.0, 900.0]], [[14.5, 880.0], [9.0, 530.0]]).tolist()
    [0.75, 25.0]
    """
    truth, found = np.asarray(true_means, dtype=float), np.asarray(means, dtype=float)
    order = match_components(truth, found)
    kept = order >= 0
    return np.abs(found[order[kept]] - truth[kept]).mean(axis=0)


def csv_controls() -> DataChoice:
    """An uploaded CSV (numbers only, an optional header row) and the k to fit.

    Stops the page with a prompt until a file is uploaded. The data block names the file by
    its name (a label, never a path) and the SHA-256 of its bytes; the file is checked when
    the page loads the data (:func:`mixture_data`), which shows the engine's sentence for a
    bad file.
    """
    k = st.number_input("Components k", min_value=int(limits.COMPONENTS.low),
                        max_value=int(limits.COMPONENTS.high), value=3, step=1, format="%d",
                        key="gmm_csv_k", bind="query-params")
    chosen = upload.table_upload("gmm", prompt="Upload a CSV file to fit a mixture to it.",
                                 radius_key="gmm_radius", min_columns=2)
    n, d = chosen.values.shape
    return chosen.block, {"k": int(k)}, chosen.content, (int(n), int(d))


# --- The page's runs: the scenario, its reference, its data as drawn, the cloud ----------

#: The secure stream of the page's run and of its non-private reference: one start.
STREAM = "gmm"
#: At most this many rows are drawn in the scatter (:data:`dpviz.viz.mixtures.DRAW_ROWS`).
DRAW_ROWS = viz.mixtures.DRAW_ROWS
def run(scenario: Scenario, *, fresh: int, content: bytes | None = None) -> Result:
    """The page's run of ``scenario`` (:func:`dpviz.ui.runs.run` on the page's stream).

    ``fresh`` is the rerun's entropy, used only when the scenario has no seed (secure).
    """
    return runs.run(scenario, fresh=fresh, content=content, stream=STREAM)


def reference_scenario(scenario: Scenario) -> Scenario:
    """Non-private EM on the same data, bound and seed: the error table's reference.

    Run on the page's stream with the same entropy, it starts where the page's run starts.

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
    ...                         "data": {"dataset": "iris"},
    ...                         "params": {"epsilon": 1.0, "radius": 10.0}, "seed": 2})
    >>> r = reference_scenario(s)
    >>> r.estimator, r.params["epsilon"], r.params["radius"], r.seed
    ('em', inf, 10.0, 2)
    """
    return Scenario.from_dict({**scenario.to_dict(), "estimator": "em",
                               "params": {**expectation.em_params(scenario),
                                          "accounting": "zcdp"}})


#: The panel that shows an estimator's steps without noise (issue 21): no ε anywhere on it.
MECHANICS_TITLE = "Mechanics only — not private"
MECHANICS_NOTE = ("The same algorithm with no noise at all, so every step can be seen: how it "
                  "works, not what a private run would release. Nothing here is private and "
                  "no guarantee applies.")
#: Sizes the mechanics can run generated data at (PPE's chunks agree only from about 100 000).
MECHANICS_ROWS = (30_000, 100_000)


def mechanics_scenario(scenario: Scenario, rows: int | None = None) -> Scenario:
    """The scenario without noise (ε = ∞, δ = 0), on ``rows`` generated rows when given.

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "gmm", "estimator": "ppe",
    ...                         "data": {"generator": "gmm", "n": 10_000},
    ...                         "params": {"k": 3, "epsilon": 1.0, "delta": 1e-5}, "seed": 2})
    >>> m = mechanics_scenario(s, 100_000)
    >>> m.estimator, m.params["epsilon"], m.params["delta"], m.data["n"], m.seed
    ('ppe', inf, 0.0, 100000, 2)
    """
    plain = scenario.without_noise()
    if rows is None or "generator" not in plain.data:
        return plain
    return Scenario.from_dict({**plain.to_dict(), "data": {**plain.data, "n": rows}})


def mechanics_path(estimator: str) -> Path:
    """Where ``bench/gmm_mechanics.py`` saves an estimator's precomputed mechanics."""
    return cached.RESULTS / f"mechanics_{estimator}.json"


def saved_mechanics(estimator: str) -> tuple[Result, Scenario] | None:
    """An estimator's precomputed mechanics (a run without noise) and its scenario, if saved.

    For the estimators whose mechanics need more rows than a page runs live (PPE's chunks agree
    only from about 100 000 rows). Read when the panel is open (a few kB; not cached: a
    Result does not pickle).
    """
    path = mechanics_path(estimator)
    if not path.exists():
        return None
    saved = json.loads(path.read_text())

    def arrays(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: arrays(v) for key, v in value.items()}
        return np.asarray(value, dtype=float) if isinstance(value, list) else value

    plain = Scenario.from_dict(saved["scenario"])
    result = Result(estimate=arrays(saved["estimate"]),
                    ledger=Ledger(Budget(epsilon=math.inf)), failed=saved["failed"],
                    diagnostics=arrays(saved["diagnostics"]), estimator=estimator, task="gmm")
    return result, plain


def truth_scenario(scenario: Scenario, result: Result | None = None) -> Scenario:
    """The fit that stands for an upload's "true" components (it has no labels).

    Non-private EM on the same clipped data as the page's run
    (:func:`dpviz.lab.expectation.reference_of`; private ranges as ``result`` released them):
    "non-private EM on your data", a reference, never released.
    """
    data = (upload.reference_block(scenario.data, result) if result is not None else
            dict(scenario.data))
    return expectation.reference_of(replace(scenario, data=data))


#: What an upload's results are compared with: it has no ground truth.
YOUR_DATA_REFERENCE = "non-private EM on your data"


def error_rows(scenario: Scenario, result: Result,
               reference: Result) -> tuple[list[tuple[str, Result]], str]:
    """The error table's rows and a sentence on what they are compared with.

    Generated data and bundled sets: the run and non-private EM from the same start, against
    the true components. An upload has no truth: its run against "non-private EM on your
    data" (:func:`truth_scenario`), and non-private EM is never compared with itself.
    """
    if "upload" not in scenario.data:
        return ([(label(scenario), result), ("EM, non-private (same start)", reference)],
                "The reference row shows what the data allow without privacy.")
    if scenario.estimator == "em":
        return [], (f"This run is non-private EM, the reference itself ({YOUR_DATA_REFERENCE}): "
                    "there is nothing to compare it with.")
    return ([(label(scenario), result)],
            f"Your file has no true components: the errors are distances to "
            f"{YOUR_DATA_REFERENCE} — the same model, fitted without privacy to the same "
            "clipped rows.")


def matching_sentence(reference: str | None = None) -> str:
    """How the private components are matched: to the true ones, or to ``reference``'s.

    Examples
    --------
    >>> matching_sentence(YOUR_DATA_REFERENCE)[:62]
    'Components are matched to those of non-private EM on your data'
    """
    whose = "the true ones" if reference is None else f"those of {reference}"
    component = "true component j" if reference is None else "its component j"
    return (f"Components are matched to {whose} (Hungarian algorithm on the means), so label j "
            f"of the private means estimates {component}.")


@dataclass(frozen=True)
class MixtureData:
    """The rows a scenario runs on, as the page draws them.

    ``truth`` is what the page scores against (an upload's: :func:`truth_scenario`'s fit);
    ``drawn`` holds the indices of the rows the scatter draws (all of them up to
    :data:`DRAW_ROWS`).
    """

    data: NDArray[np.float64]
    labels: NDArray[np.int64]
    truth: Truth
    k: int
    names: tuple[str, ...]
    description: str
    drawn: NDArray[np.intp]


@st.cache_data(max_entries=limits.DATA_CACHE_ENTRIES, show_spinner=False)
def _drawn_and_names(block: str, n: int, d: int) -> tuple[NDArray[np.intp],
                                                         tuple[str, ...]]:
    """The rows the scatter draws (a subsample seeded by the data seed) and column names."""
    data = json.loads(block)
    seed = int(data.get("seed", expectation.REFERENCE_SEED))
    drawn = (np.arange(n) if n <= DRAW_ROWS else
             np.sort(np.random.default_rng(seed).choice(n, DRAW_ROWS, replace=False)))
    names = (tuple(load_dataset(data["dataset"]).names) if "dataset" in data else
             tuple(f"column {i + 1}" for i in range(d)) if "upload" in data else
             tuple(f"x{i + 1}" for i in range(d)))
    return drawn.astype(np.intp), names


def mixture_data(scenario: Scenario, content: bytes | None = None,
                 result: Result | None = None) -> MixtureData:
    """The scenario's rows, truth, k, column names, description and the rows drawn.

    An upload's truth is :func:`truth_scenario`'s fit on the rows ``result``'s run saw.

    Raises
    ------
    ValueError
        Bad data, with the engine's sentence.
    """
    loaded = runs.loaded(scenario, content)
    rows = loaded.data
    n, d = rows.shape
    k = int(scenario.params.get("k") or loaded.public["k"])
    truth, description = loaded.truth, loaded.description
    if truth is None:  # an upload: k components need rows enough (public: n and k)
        validate_mixture_data(rows, k, name=str(scenario.data["upload"]))
        fit = run(truth_scenario(scenario, result), fresh=0, content=content)
        if fit.failed is not None:
            raise ValueError(f"non-private EM found no components in the uploaded file "
                             f"{scenario.data['upload']}: {fit.failed}")
        truth = expectation.fitted_truth(fit, rows)
        bound = (result.choices.get("bounds") if result is not None else None) or \
            f"rows clipped to a ball of radius {scenario.params.get('radius')} about the origin"
        description = (description.rstrip(".") + f". Bound: {bound}. The black components are "
                       f"{YOUR_DATA_REFERENCE} (the file has no true ones).")
    drawn, names = _drawn_and_names(runs.canonical(dict(scenario.data)), n, d)
    names = loaded.names or names  # a CSV's header
    labels = truth.labels if truth.labels is not None else np.zeros(n, dtype=np.int64)
    return MixtureData(rows, labels, truth, k, names, description, drawn)


def cloud_seeds(seed: int, repeats: int) -> tuple[int, ...]:
    """Seeds of the repeated runs, derived from the global seed (never the seed itself).

    Examples
    --------
    >>> a = cloud_seeds(0, 3)
    >>> len(set(a)), a == cloud_seeds(0, 3), a == cloud_seeds(1, 3)
    (3, True, False)
    """
    # 128 bits each: derived from a secure 128-bit seed, a run's seed must keep its entropy.
    state = np.random.SeedSequence([int(seed), 0x6D6D]).generate_state(4 * int(repeats))
    return tuple(int.from_bytes(row.tobytes(), "little") for row in state.reshape(-1, 4))


@dataclass(frozen=True)
class Cloud:
    """R more private fits of the page's data, and what they cost with the page's own run.

    Attributes
    ----------
    means : ndarray
        The private means of the R runs (rows × d; a ⊥ run adds none).
    ledger : Ledger
        Every release of the 1 + R runs (:func:`dpviz.privacy.compose_runs`): the ledger a
        page drawing the cloud must show.
    repeats : int
        R.
    """

    means: NDArray[np.float64]
    ledger: Ledger
    repeats: int


@st.cache_data(max_entries=8, show_spinner="Running the estimator again and again…")
def _cloud(scenario: str, fresh: int, repeats: int, _content: bytes | None = None) -> Cloud:
    s = Scenario.from_dict(json.loads(scenario))
    loaded = runs.loaded(s, _content)
    shape = loaded.data.shape
    k = int(s.params.get("k") or loaded.public["k"])
    check_work("gmm", s.estimator, n=shape[0], d=shape[1], k=k, repeats=repeats,
               generate=False, secure=s.seed is None)
    ledgers = [run(s, fresh=fresh, content=_content).ledger]
    means = []
    for seed in cloud_seeds(fresh if s.seed is None else s.seed, repeats):
        # teaching: the derived seed is the run's; secure: it keys the run's generator
        again = replace(s, seed=None if s.seed is None else seed)
        result = runs.compute(again, fresh=seed, content=_content, stream=STREAM)
        ledgers.append(result.ledger)
        if result.failed is None and result.estimate.get("means") is not None:
            means.append(np.asarray(result.estimate["means"], dtype=float))
    return Cloud(np.concatenate(means) if means else np.empty((0, shape[1])),
                 compose_runs(ledgers), int(repeats))


def cloud(scenario: Scenario, *, fresh: int, repeats: int,
          content: bytes | None = None) -> Cloud:
    """``repeats`` more runs with seeds from :func:`cloud_seeds`, charged with the page's run.

    Each run is another private release of the same data, so the cloud's ledger composes
    the page's run (:func:`run`) and all R runs, ⊥ runs included.
    """
    return _cloud(runs.canonical(scenario.to_dict()), fresh if scenario.seed is None else 0,
                  int(repeats), content)


# --- Expected accuracy, before the picture ------------------------------------------------

def expected_box(scenario: Scenario, result: Result, sizes: tuple[int, int]) -> None:
    """The run's predicted error with its spread, from public inputs only, above the figure.

    :func:`dpviz.lab.expectation.expected` on the run's public shape (``sizes``: a table's
    n and d; private ranges as ``result`` released them), with a progress bar while it is
    simulated (kept per shape); a warning when it is large, with the n or ε that would do.
    Nothing for a non-private run, a bundled set or a bound read from the data; nor for
    generated data, whose error the page measures against the true means on every run (16
    more runs on each ε move would cost the page seconds and tell no more).
    """
    if "upload" not in scenario.data:
        return
    shape = expectation.public_shape(scenario, result.choices, sizes)
    if shape is None or result.failed:
        return
    found = expectation.known(shape)
    if found is None:
        from dpviz.ui.progress import timed_bar

        with timed_bar("Predicting the error from runs on generated data of this public shape",
                       expectation.RUNS, at_most=True) as bar:
            found = attempt(expectation.expected, shape,
                            progress=lambda done, total: bar.step(done, unit="runs",
                                                                  total=total))
    what = "the means" if "upload" in scenario.data else "the private means"
    said = found.sentence(what)
    if found.large:
        st.warning(said, icon=":material/speed:")
    else:
        st.caption(said + " Only public inputs go in: n, d, k, the bound, ε, δ and the "
                   "estimator's parameters.")


# --- Intervals on the private estimates (dpviz.lab.intervals) -----------------------------

@st.cache_data(max_entries=16, show_spinner="Computing the intervals from the released model…")
def _intervals(scenario: str, released: bytes, n: int, _result: Result) -> intervals.Intervals:
    """Cached on the scenario and the released values (``_result`` is not hashed)."""
    return intervals.intervals(Scenario.from_dict(json.loads(scenario)), _result, n)


def intervals_of(scenario: Scenario, result: Result, n: int) -> intervals.Intervals:
    """The run's intervals (post-processing: nothing charged), computed once per release."""
    released = b"".join(np.asarray(result.estimate[key], dtype=float).tobytes()
                        for key in ("weights", "means") if result.estimate.get(key) is not None)
    return _intervals(runs.canonical(scenario.to_dict()), released, int(n), result)


def interval_order(truth: Truth, result: Result) -> NDArray[np.intp]:
    """The released components in the order the page draws them (matched to ``truth``)."""
    assert truth.means is not None
    order = match_components(truth.means, np.asarray(result.estimate["means"], dtype=float))
    return order[order >= 0]


def interval_table(found: intervals.Intervals, order: Sequence[int],
                   names: Sequence[str]) -> pd.DataFrame:
    """One row per component (drawn order): its weight and mean as "5.31 ± 0.42 (90 %)".

    Examples
    --------
    >>> found = intervals.Intervals("bootstrap", (
    ...     intervals.Interval("weights[1]", 0.5, 0.02),
    ...     intervals.Interval("weights[2]", 0.5, 0.02),
    ...     intervals.Interval("means[1][1]", 5.3128, 0.4172),
    ...     intervals.Interval("means[2][1]", -1.0, 0.1)))
    >>> interval_table(found, [1, 0], ["x1"]).iloc[1].tolist()
    ['2', '0.500 ± 0.020 (90 %)', '5.31 ± 0.42 (90 %)']
    """
    named = found.by_name()
    out = []
    for shown, j in enumerate(order):
        row = {"component": str(shown + 1)}
        weight = named.get(f"weights[{j + 1}]")
        row["weight"] = DASH if weight is None else weight.text()
        for i, name in enumerate(names):
            mean = named.get(f"means[{j + 1}][{i + 1}]")
            row[f"mean, {name}"] = DASH if mean is None else mean.text()
        out.append(row)
    return pd.DataFrame(out)


def interval_section(found: intervals.Intervals, order: Sequence[int],
                     names: Sequence[str]) -> None:
    """The private estimates with their intervals and the sentence on what they cover."""
    st.subheader("The private estimates, with their intervals")
    if found.shown:
        st.dataframe(interval_table(found, order, names), hide_index=True,
                     key="gmm_intervals")
    st.caption(escape_markdown(found.sentence()))


# --- Saved benchmarks: the DP-EM paper reproduced, DP-EM against its peers ----------------

PAPER_CLAIM = ("“zCDP and the moments accountant give higher test log-likelihood than linear "
               "and advanced composition, and GGG beats LLG.” — Park et al., DP-EM, at equal "
               "(ε, δ)")
PAPER_FLOOR = -60.0
#: Estimators of ``gmm_mean_errors.csv`` in the order drawn, with labels and colours.
PEERS = {"dp_em": "DP-EM (defaults)", "dp_em_paper_J20": "DP-EM as in the paper",
         "dplloyd_J10": "DPLloyd, J = 10", "diffprivlib_kmeans": "diffprivlib KMeans",
         "em": "EM, non-private"}
PEER_COLORS = {"dp_em": "#e8590c", "dp_em_paper_J20": "#f59f00", "dplloyd_J10": "#1f6feb",
               "diffprivlib_kmeans": "#7048e8", "em": "#1a1a1a"}
#: The ε from which the tight accountants' curves meet the ceiling.
SATURATED = 2.0
SHORT = {"zcdp": "zCDP", "ma": "MA", "pld": "PLD", "linear": "linear", "advanced": "advanced"}


def paper_verdict(rep: experiments.PaperReproduction) -> str:
    """One sentence with the numbers: whether the ordering holds and GGG beats LLG."""
    holds, cells = rep.ordering
    wins, pairs = rep.ggg_wins
    ordering = (f"the ordering min(zCDP, MA) > advanced > linear holds in {holds} of {cells} "
                f"(scenario, ε) cells")
    medians = rep.curves.set_index(["scenario", "accounting", "epsilon"])["median"]
    losses = []
    for method in experiments.TIGHT:
        cells_lost = []
        for eps in sorted(e for e in set(rep.curves["epsilon"]) if e < SATURATED):
            ggg, llg = medians.get(("GGG", method, eps)), medians.get(("LLG", method, eps))
            if ggg is not None and llg is not None and llg > ggg:
                cells_lost.append(f"ε = {eps:g} ({llg:.3g} vs {ggg:.3g})")
        if cells_lost:
            losses.append(f"{SHORT[method]} at " + ", ".join(cells_lost))
    ties = pairs - wins - rep.llg_wins
    if wins == pairs:
        ggg = f"GGG beats LLG in all {pairs} (accounting, ε) cells"
    else:
        ggg = (f"GGG > LLG is not established: GGG is better in {wins}, LLG in "
               f"{rep.llg_wins} and {ties} are ties (the difference within the repeats' "
               f"spread) of {pairs} (accounting, ε) cells")
        if losses:
            ggg += ("; under the tight accountants LLG's median is higher — " + "; ".join(losses)
                    + " (LLG vs GGG)")
    top = rep.curves[(rep.curves["epsilon"] >= SATURATED)
                     & rep.curves["accounting"].isin(experiments.TIGHT)]["median"]
    if len(top) and math.isfinite(rep.ceiling):
        ggg += (f"; from ε = {SATURATED:g} both are within {rep.ceiling - top.min():.2g} of "
                "non-private EM under the tight accountants")
    return f"**Verdict:** {ordering}; {ggg}."


def paper_section() -> None:
    """The DP-EM paper's figure from the saved runs, its claim and the verdict."""
    paper_mode = st.toggle("Paper mode (the paper's own accounting choices)", value=False,
                           key="gmm_paper_mode", bind="query-params",
                           help="λ ≤ 100 moments accountant, classic Gaussian with δᵢ = 1e-8, "
                                "2/n sensitivities and max-norm scaling read from the data — "
                                "which is NOT private. Off: dpviz's defaults (public radius, "
                                "tight sensitivities, analytic Gaussian).")
    table = attempt(cached.saved_table, str(cached.PAPER_CSV))
    rep = attempt(experiments.paper_reproduction, table,
                  "paper_mode" if paper_mode else "dpviz")
    if paper_mode:
        st.warning("Paper mode reads the scaling from the data (max-norm): these runs are "
                   "not private; they show what the paper's accounting gives.",
                   icon=":material/warning:")
    figure, words = st.columns([3, 2], gap="large")
    with figure:
        variant = "paper mode" if paper_mode else "dpviz defaults"
        fig = viz.dp_em_paper_figure(
            rep.curves, ceiling=rep.ceiling, methods=experiments.PAPER_METHODS, floor=PAPER_FLOOR,
            title=f"Test log-likelihood per point against ε — {variant}")
        show_chart(fig, key="gmm_paper", filename="dpviz-dp-em-paper")
    with words:
        st.markdown(f"**The paper's claim:** {PAPER_CLAIM}.")
        st.markdown(paper_verdict(rep))
        st.caption(f"Lines: the median over {rep.repeats} repeats; bands: their quartiles; "
                   f"dashed: non-private EM ({rep.ceiling:.3g}). The paper's Life Science data "
                   "is not shipped: this is a synthetic mixture of the same shape (d = 10, "
                   "k = 3, n = 26 700, 90/10 train/test split, 10 iterations, δ = 1e-4). The "
                   f"y axis starts at {PAPER_FLOOR:g}: lower medians (linear and advanced "
                   "composition at small ε) are off the chart — the table has them. Saved "
                   "by `make bench` (assets/results/dp_em_paper.csv), not run here.")
    medians = rep.curves.pivot_table(index=["scenario", "accounting"], columns="epsilon",
                                     values="median").round(3)
    medians.columns = [f"ε = {e:g}" for e in medians.columns]
    st.dataframe(medians.reset_index(), hide_index=True, key="gmm_paper_medians")


def peers_section() -> None:
    """DP-EM against DPLloyd, diffprivlib's KMeans and non-private EM (saved benchmark)."""
    table = attempt(cached.saved_table, str(cached.ERRORS_CSV))
    medians = experiments.mean_error_medians(table)
    fig = viz.mean_error_boxes(table, PEERS, colors=PEER_COLORS,
                               title="Matched mean error at ε = 1, δ = 1e-5 (per seed)")
    show_chart(fig, key="gmm_peers", filename="dpviz-gmm-peers")
    seeds = int(table["seed"].nunique())

    def m(key: str) -> str:
        return f"{medians[key]:.3g}" if key in medians else DASH

    reading = experiments.peers_reading(table, "dp_em", ("dplloyd_J10", "diffprivlib_kmeans")
                                        ).sentence(PEERS)
    st.markdown(f"**Reading:** {reading} — median matched mean error DP-EM {m('dp_em')} "
                f"with dpviz's defaults (J = 5 after a charged private Lloyd start, "
                f"noise-aware eigenvalue floor) against DPLloyd {m('dplloyd_J10')} and "
                f"diffprivlib's KMeans {m('diffprivlib_kmeans')}; DP-EM as the paper runs it "
                f"(J = 20 from a data-independent start) {m('dp_em_paper_J20')}; non-private "
                f"EM {m('em')} is the floor.")
    st.caption(f"The default scenario (n = 10 000, d = 2, k = 3, separation 6σ, radius 1), "
               f"ε = 1, δ = 1e-5, {seeds} noise seeds on fixed data; error: mean over "
               "components of ‖μ − μ̃‖ after Hungarian matching, in data units (log scale). "
               "diffprivlib's figures come from the saved benchmark "
               "(assets/results/gmm_mean_errors.csv, written by `make bench`); DPLloyd also "
               "runs live: pick it as the estimator above.")
    accuracy = cached.RESULTS / "gmm_estimators_caption.json"  # the saved accuracy table's
    if accuracy.exists():
        from dpviz.lab.provenance import stale

        saved = json.loads(accuracy.read_text())
        st.markdown("**Every mixture estimator, ⊥ counted:** "
                    + escape_markdown(saved["caption"]))
        why = stale(saved.get("made_by") or {}, "gmm")
        st.caption("From the saved accuracy table: every registered estimator on generated "
                   "mixtures (d = 2, k = 3, δ = 1e-5). A ⊥ is either refused before spending "
                   "(the public sizes rule success out: nothing is read or spent) or failed "
                   "after spending." + ("" if why is None else  # the command is the makers'
                                        f" This table may be out of date: "
                                        f"{why.partition(': re-run')[0]}."))
