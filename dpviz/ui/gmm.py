"""Widgets, tables and sentences of the Gaussian mixtures page."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from .. import experiments, limits, viz
from ..data import DATASETS
from ..metrics import METRICS, Truth, match_components
from ..privacy import Ledger
from ..registry import TASKS
from ..result import Result
from ..spec import Estimator, Param
from . import engine, widgets
from .engine import DataSpec
from .risk import spend_text
from .widgets import (
    advanced,
    attempt,
    delta_input,
    epsilon_slider,
    escape_markdown,
    method_select,
    show_chart,
    upload_content,
)

SYNTHETIC = "synthetic"
CSV = "csv"
CSV_NOTE = ("An uploaded file is not kept in the link: a copied link reopens every setting "
            "but not the file — upload it again. The file stays in this browser session "
            "only.")
WEIGHTS = ("equal", "random")
COVARIANCES = ("spherical", "diagonal", "full")
BOUNDS = ("a radius I give", "read from the data (not private)")
#: (metric name in ``dpviz.metrics.METRICS["gmm"]``, column title).
ERRORS = (("mean_error", "mean error"), ("weight_error", "weight error"),
          ("covariance_error", "covariance error"))
DASH = "—"


@dataclass(frozen=True)
class RunSettings:
    """The estimator and budget the page asked for (plain values: the cache keys)."""

    estimator: str
    epsilon: float
    delta: float
    accounting: str
    radius: float | str | None
    params: tuple[tuple[str, Any], ...]

    @property
    def label(self) -> str:
        """The estimator's label in the registry."""
        return TASKS["gmm"][self.estimator].label

    @property
    def private(self) -> bool:
        """Whether the estimator is private (non-private references get ε = ∞)."""
        return TASKS["gmm"][self.estimator].notion != "none"

    def engine_args(self, public_radius: float | None) -> dict[str, Any]:
        """Keyword arguments of :func:`dpviz.ui.engine.gmm_run` (except data, k and seed).

        ``radius`` ``None`` (the data's own public bound) becomes ``public_radius``.
        """
        private = self.private
        radius = public_radius if self.radius is None else self.radius
        return {"epsilon": self.epsilon if private else math.inf,
                "delta": self.delta if private else 0.0,
                "accounting": self.accounting, "radius": radius, "params": self.params}


def cloud_charge(cloud: engine.Cloud, run: Ledger) -> str:
    """One sentence: the cloud's R runs are charged with the page's run, and the totals."""
    return (f"The cloud is R = {cloud.repeats} more private fits of the same data, so the "
            f"budget bar and the risk panel charge all {cloud.repeats + 1} runs: "
            f"{spend_text(cloud.ledger)} in all, against {spend_text(run)} for the run drawn "
            "alone.")


def ledger_title(cloud: engine.Cloud | None) -> str:
    """The budget bar's title: one run, or the run and the cloud's R runs."""
    if cloud is None:
        return "Where the budget went"
    return f"Where the budget went: this run and the cloud's {cloud.repeats} runs"


def _source_label(source: str) -> str:
    if source == CSV:
        return "Upload a CSV file"
    return "Synthetic Gaussian mixture" if source == SYNTHETIC else DATASETS[source].label


def accept_option_names(key: str, options: Sequence[str],
                        label: Callable[[str], str]) -> None:
    """Let a link name a bound selectbox's option by its name (``?gmm_source=csv``).

    A bound selectbox writes its option's *label* to the URL (``gmm_source=Upload+a+CSV+file``)
    and drops any other value, so a hand-written link with the option's name opened the
    default instead. Before the widget is created, a name in the link is put into the
    session state (the one way to set a bound widget), and Streamlit rewrites the link to
    the label.
    """
    raw = st.query_params.get(key)
    if (raw in options and raw not in {label(o) for o in options}
            and key not in st.session_state):
        st.session_state[key] = raw


def data_controls(seed: int) -> DataSpec:
    """The data: a synthetic mixture (k, d, n, separation, weights, shape) or a bundled set."""
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
        return ("dataset", str(source))
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
    return ("synthetic", int(k), int(d), int(n), float(separation), str(weights),
            str(covariance), int(seed))


def bound_control(spec: DataSpec) -> float | str | None:
    """The public bound (radius R of the clipping ball), and where it comes from.

    Returns
    -------
    float, "data" or None
        ``None``: the data's own public radius (synthetic data, or a set that ships one).
    """
    if spec[0] == SYNTHETIC:
        st.caption("Public bound: the generator's radius R = 1, computed from the true "
                   "parameters (means and covariances), never from the rows — so it is "
                   "public.")
        return None
    info = None if spec[0] == CSV else DATASETS[spec[1]]
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


def estimator_controls(spec: DataSpec) -> RunSettings:
    """Estimator (from the registry), its parameters, ε, δ, accounting and the bound."""
    names = tuple(TASKS["gmm"])
    accept_option_names("gmm_estimator", names, _estimator_label)
    estimator = str(st.selectbox("Estimator", names, index=names.index("dp_em"),
                                 format_func=_estimator_label,
                                 key="gmm_estimator", bind="query-params"))
    entry: Estimator = TASKS["gmm"][estimator]
    st.caption(entry.paper)
    shown = [p for p in entry.params if p.name != "k" and not p.choice]
    chosen = [p for p in entry.params if p.name != "k" and p.choice]
    params = {p.name: param_widget(estimator, p) for p in shown}
    epsilon = epsilon_slider("gmm_epsilon", label="ε")
    delta = delta_input("gmm_delta", label="δ")
    if entry.notion == "none":
        st.caption(f"{entry.label} is a non-private reference: ε and δ are not used.")
    radius = bound_control(spec)
    with advanced("Accounting and the choices the paper leaves open", "gmm"):
        accounting = method_select("gmm_accounting", value="zcdp")
        for p in chosen:
            params[p.name] = param_widget(estimator, p)
        st.number_input("Repeated runs R (the cloud)", min_value=2, max_value=100, value=10,
                        step=1, format="%d", key="gmm_repeats", bind="query-params",
                        help="How many runs the cloud of private means draws; their seeds "
                             "are derived from the global seed.")
    return RunSettings(estimator, epsilon, delta, accounting, radius,
                       tuple(sorted(params.items())))


def clamp_state(key: str, valid: Sequence[Any]) -> None:
    """Forget a widget's remembered value when it is no longer valid (e.g. d shrank)."""
    if key in st.session_state and st.session_state[key] not in valid:
        del st.session_state[key]


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
    """One row per result: the errors after matching components (— where none applies)."""
    out = []
    for label, result in rows:
        row: dict[str, str] = {"estimator": label}
        for name, title in ERRORS:
            row[title] = _cell(float(METRICS["gmm"][name](result, truth)))
        out.append(row)
    return pd.DataFrame(out)


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_format(v)}" for k, v in value.items())
    return str(value)


def choices_table(choices: Mapping[str, Any]) -> pd.DataFrame:
    """The result's ``choices`` as two text columns.

    Examples
    --------
    >>> choices_table({"radius": 1.0, "noise": {"means": 2.5}}).values.tolist()
    [['radius', '1'], ['noise', 'means 2.5']]
    """
    return pd.DataFrame([{"choice": str(k), "value": _format(v)} for k, v in choices.items()],
                        columns=["choice", "value"])


def csv_controls() -> DataSpec:
    """An uploaded CSV (numbers only, an optional header row) and the k to fit.

    Stops the page with a prompt until a file is uploaded; the file is checked when the
    page loads the data (:func:`dpviz.ui.engine.csv_data`), which shows the engine's
    sentence for a bad file.
    """
    upload = st.file_uploader("CSV file (numbers only, optional header row)", type=["csv"],
                              key="gmm_upload",
                              help="At most 50 MB and 200 columns; every cell a number, "
                                   "no missing or infinite values.")
    k = st.number_input("Components k", min_value=int(limits.COMPONENTS.low),
                        max_value=int(limits.COMPONENTS.high), value=3, step=1, format="%d",
                        key="gmm_csv_k", bind="query-params")
    st.caption(CSV_NOTE)
    if upload is None:
        st.info("Upload a CSV file to fit a mixture to it.", icon=":material/upload_file:")
        st.stop()
    return (CSV, str(upload.name), attempt(upload_content, upload), int(k))


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
    if wins == pairs:
        ggg = f"GGG beats LLG in all {pairs} (accounting, ε) cells"
    else:
        ggg = (f"GGG > LLG does not hold: GGG's median is higher in only {wins} of {pairs} "
               f"(accounting, ε) cells")
        if losses:
            ggg += ("; under the tight accountants LLG is better — " + "; ".join(losses)
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
    table = attempt(engine.saved_table, str(engine.PAPER_CSV))
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
    table = attempt(engine.saved_table, str(engine.ERRORS_CSV))
    medians = experiments.mean_error_medians(table)
    fig = viz.mean_error_boxes(table, PEERS, colors=PEER_COLORS,
                               title="Matched mean error at ε = 1, δ = 1e-5 (per seed)")
    show_chart(fig, key="gmm_peers", filename="dpviz-gmm-peers")
    seeds = int(table["seed"].nunique())

    def m(key: str) -> str:
        return f"{medians[key]:.3g}" if key in medians else DASH

    ours = medians.get("dp_em", math.nan)
    peers = [medians[k] for k in ("dplloyd_J10", "diffprivlib_kmeans") if k in medians]
    reading = ("DP-EM beats both peers" if peers and ours < min(peers) else
               "DP-EM currently loses to both peers" if peers and ours > max(peers) else
               "DP-EM is between the peers")
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
