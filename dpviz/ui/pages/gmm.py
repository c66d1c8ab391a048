"""The Gaussian mixtures page's controls: its data, its estimator with its parameters, its axes.

The page's runs and what it draws from them are :mod:`dpviz.ui.pages.gmm_runs`'s, its
intervals :mod:`dpviz.ui.pages.gmm_intervals`'s, its paper sections
:mod:`dpviz.ui.pages.gmm_paper`'s and its compare view :mod:`dpviz.ui.pages.gmm_compare`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from dpviz.core import limits
from dpviz.core.entry import Estimator, Param
from dpviz.data import DATASETS
from dpviz.estimators.registry import TASKS
from dpviz.lab.feasibility import table_default
from dpviz.lab.scenario import Scenario
from dpviz.privacy import METHOD_LABELS, METHODS, Budget
from dpviz.privacy.bounds import bound_plan
from dpviz.ui import widgets
from dpviz.ui.panels import upload
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
)

SYNTHETIC = "synthetic"
CSV = "csv"
WEIGHTS = ("equal", "random")
COVARIANCES = ("spherical", "diagonal", "full")
BOUNDS = ("a radius I give", "read from the data (not private)")


#: The estimator box's default: for generated data and bundled sets, and for an upload that no
#: estimator suits better (:func:`dpviz.lab.feasibility.table_default`).
FALLBACK = "dp_em"
#: The estimator the page picked itself on its last run: while the box still shows it, the
#: page may pick again for a new table; once the user (or a link) chose another, it stays.
AUTOMATIC = "gmm_estimator_automatic"


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
    upload.refuse_early("gmm", params)
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
