"""The Covariance page's controls, scenarios and runs (seed 001).

The controls return one :class:`~dpviz.lab.scenario.Scenario` per ticked estimator (same data
block, same budget), and every run goes through :func:`dpviz.ui.runs.run`: the data are
made, and the rows clipped with ``XᵀX`` formed (the entries' ``prepare`` hook), once per data
block, so a ρ move costs only the noise and the eigendecompositions. The panels drawn from the
runs are :mod:`dpviz.ui.pages.covariance_results`'s, the paper's figures
:mod:`dpviz.ui.pages.covariance_paper`'s; the figures come from :mod:`dpviz.viz.covariance`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st

from dpviz.core import limits
from dpviz.core.entry import Estimator, Param
from dpviz.data import load_dataset
from dpviz.data.zipf import BUCKETS, SKEW
from dpviz.estimators.covariance.emcov import DELTA_FOR_RHO
from dpviz.estimators.metrics import frobenius_error
from dpviz.estimators.registry import TASKS
from dpviz.estimators.result import Result
from dpviz.lab.scenario import LoadedData, Scenario
from dpviz.privacy import Budget
from dpviz.privacy.calibration import zcdp_epsilon
from dpviz.ui import runs, widgets
from dpviz.ui.panels import upload
from dpviz.ui.widgets import (
    RHO_GRID,
    accept_link_values,
    accept_option_names,
    advanced,
    delta_input,
    epsilon_slider,
)

SYNTHETIC, DIGITS, CSV = "synthetic", "digits", "csv"


SOURCES = (SYNTHETIC, DIGITS, CSV)
SOURCE_LABELS = {SYNTHETIC: "Synthetic: Zipf-distributed norms (the paper's generator)",
                 DIGITS: "Handwritten digits (8 × 8, pixels / 16 / 8)",
                 CSV: "Upload a CSV file"}
RHO, EPSILON = "rho", "epsilon"
BUDGETS = (RHO, EPSILON)
#: Plain words: the paper's budget is ρ (zCDP), named only in the experts' section.
BUDGET_LABELS = {RHO: "As the paper sets it", EPSILON: "ε, δ"}
#: The budget radio's labels in links written before issue 35 (a link carries the label).
OLD_BUDGET_LABELS = {"ρ (zCDP, the paper's)": RHO}
#: The estimator drawn on a first visit: the paper's own proposal (:data:`ESTIMATOR_WHY`).
DEFAULT_ESTIMATOR = "adaptive"
ESTIMATOR_WHY = ("AdaptiveCov by default: it is the paper's own proposal, and it needs no "
                 "choice from you: it spends a small share of the budget choosing how far to "
                 "clip the rows, then runs whichever of SeparateCov and GaussCov it predicts "
                 "is more accurate on these data.")
#: The estimators ticked when comparing (EMCov, O(d) eigendecompositions, on request).
DEFAULT_ESTIMATORS = ("gauss", "separate", "adaptive", "zero")
#: The one sentence that says what a comparison costs (issue 35 item 2).
COMPARE_COST = ("Each estimator drawn is another private release of the same data: comparing "
                "them spends one budget per estimator drawn.")
#: Synthetic rows at most: the page caches n × d floats per data set.
MAX_PAGE_ROWS = 100_000
#: Heatmaps show at most the leading block of this size (six 100 × 100 panels stay light).
HEATMAP_BLOCK = 100
#: The public radius of the generator and of the digits (rows in the unit ball).
UNIT_RADIUS = 1.0
DASH = "—"
#: Axis titles of the swept parameters of the paper's figures.
AXIS_TITLES = {"d": "dimension d", "n": "rows n", "rho": "ρ (zCDP)",
               "trace": "trace of Σ (mean squared norm)"}

def noise_seed(seed: int) -> int:
    """The estimators' noise seed, derived from the global seed (the data use the seed itself).

    Drawing the noise from the same stream as the synthetic data would correlate them.

    Examples
    --------
    >>> noise_seed(0) == noise_seed(0), noise_seed(0) == noise_seed(1), noise_seed(0) == 0
    (True, False, False)
    """
    # 128 bits: derived from a secure 128-bit seed, the noise seed must keep its entropy.
    state = np.random.SeedSequence([int(seed), 0xC0]).generate_state(4, dtype=np.uint32)
    return int.from_bytes(state.tobytes(), "little")


@dataclass(frozen=True)
class Chosen:
    """What the page's controls chose: one scenario per ticked estimator, in order.

    Every scenario has the same data block, budget and radius (each estimator spends the
    whole budget on the same data); ``content`` is an uploaded file's bytes (``None`` for
    generated data or the digits) and ``stated_delta`` the δ at which a ρ budget is stated
    as (ε, δ) — shown only, never spent.
    """

    scenarios: tuple[Scenario, ...]
    content: bytes | None
    stated_delta: float

    @property
    def radius(self) -> float:
        """The public bound r on the rows' norms (an upload's ranges: the run's own radius)."""
        return float(self.scenarios[0].params.get("radius") or math.nan)

    def budget_text(self) -> str:
        """The budget in plain words: ε (with δ), a ρ budget as the ε it is stated as."""
        params = self.scenarios[0].params
        epsilon, delta = params.get("epsilon"), params.get("delta")
        if params.get("rho") is None:
            if not delta:
                return f"ε = {epsilon:g}, δ = 0: pure ε-DP (the Laplace variants)"
            return f"(ε = {epsilon:g}, δ = {delta:g})-DP"
        eps = self.scenarios[0].budget.epsilon_at(self.stated_delta)
        return (f"ε = {eps:.3g} at δ = {self.stated_delta:g}, as the paper sets it (Gaussian "
                "noise)")


def rho_label(rho: float, delta: float) -> str:
    """A ρ stop of the budget slider as the ε it is stated as at ``delta`` (what the page shows).

    Bun & Steinke's ``ε = ρ + 2√(ρ ln(1/δ))``, the paper's conversion and the risk panel's
    headline, so the slider and the headline say the same ε.

    Examples
    --------
    >>> rho_label(0.1, 1e-10), rho_label(1.0, 1e-10)
    ('3.13', '10.6')
    """
    return f"{Budget(rho=rho).epsilon_at(delta):.3g}"


def rho_text(rho: float, delta: float) -> str:
    """The paper's budget for experts: ρ, zCDP, both conversions to ε at ``delta``.

    Examples
    --------
    >>> rho_text(0.1, 1e-10)[:60]
    'The paper budgets in ρ, zero-concentrated DP (zCDP): here ρ '
    """
    return (f"The paper budgets in ρ, zero-concentrated DP (zCDP): here ρ = {rho:g}, stated "
            f"as (ε = {rho_label(rho, delta)}, δ = {delta:g})-DP by ε = ρ + 2√(ρ ln(1/δ)) "
            "(Bun & Steinke's conversion, the paper's, and the ε the slider shows). The "
            "tighter conversion that the budget bar, the risk panel's details and the audit "
            f"use gives ε = {zcdp_epsilon(rho, delta):.3g} at the same δ. ρ's add up across "
            "releases. [ρ in the glossary](/glossary#rho-zcdp)")


@dataclass(frozen=True)
class Run:
    """One estimator's run on the page: its registry key, short label and result."""

    name: str
    label: str
    result: Result

    @property
    def error(self) -> float:
        """‖Σ̃ − Σ‖_F against the unclipped data's Σ."""
        return frobenius_error(self.result.diagnostics["true_covariance"],
                               self.result.estimate["covariance"])


def _label(name: str) -> str:
    return TASKS["covariance"][name].label


def short_label(name: str) -> str:
    """An estimator's label without its parenthesis, for legends and panel titles.

    Examples
    --------
    >>> short_label("gauss")
    'GaussCov'
    """
    return _label(name).split(" (")[0]


def data_controls(seed: int) -> tuple[dict[str, Any], bytes | None]:
    """The data block (the Zipf-norm generator, the digits or a CSV upload) and its bytes.

    The bytes are an upload's (its block holds their SHA-256), ``None`` otherwise.
    """
    accept_option_names("cov_source", SOURCES, SOURCE_LABELS.__getitem__)
    source = st.selectbox("Data", SOURCES, format_func=SOURCE_LABELS.__getitem__,
                          key="cov_source", bind="query-params",
                          help="The paper's synthetic data (its true Σ is known exactly), a "
                               "real set in the unit ball, or a CSV file of your own.")
    if source == DIGITS:
        return {"dataset": DIGITS}, None
    if source == CSV:
        return csv_controls()
    a, b, c = st.columns(3)
    n = a.number_input("Rows n", min_value=int(limits.SAMPLE_SIZE.low),
                       max_value=MAX_PAGE_ROWS, value=10_000, step=1000, format="%d",
                       key="cov_n", bind="query-params")
    d = b.number_input("Dimension d", min_value=2, max_value=int(limits.DIMENSIONS.high),
                       value=50, step=10, format="%d", key="cov_d", bind="query-params")
    buckets = c.number_input("Buckets N", min_value=int(BUCKETS.low),
                             max_value=int(BUCKETS.high), value=4, step=1,
                             format="%d", key="cov_buckets", bind="query-params",
                             help="Row norms take the values 2^(k−N), k = 1…N, the common "
                                  "rows the small ones: a larger N gives a smaller trace "
                                  "(N = 1: every row has norm 1, trace 1).")
    with advanced("The generator's skew", "cov-data"):
        skew = st.number_input("Skew s of the Zipf norms", min_value=SKEW.low,
                               max_value=SKEW.high,
                               value=3.0, step=0.5, key="cov_skew", bind="query-params",
                               help="Bucket k holds a share of the rows ∝ k^(−s); the "
                                    "paper's s = 3.")
    return {"generator": "zipf", "n": int(n), "d": int(d), "buckets": int(buckets),
            "skew": float(skew), "seed": int(seed)}, None


def csv_controls() -> tuple[dict[str, Any], bytes]:
    """An uploaded CSV through the upload step (:func:`dpviz.ui.panels.upload.table_upload`)."""
    chosen = upload.table_upload("cov", prompt="Upload a CSV file to estimate its covariance.",
                                 radius_key="cov_radius", radius_value=UNIT_RADIUS,
                                 min_columns=2)
    return chosen.block, chosen.content


def param_widget(estimator: str, param: Param) -> Any:
    """A widget for one of a covariance estimator's registry parameters (key ``cov_<e>_<p>``)."""
    return widgets.param_widget(f"cov_{estimator}_{param.name}", param,
                                f"{_label(estimator)}: {param.name.replace('_', ' ')}")


def budget_controls() -> tuple[dict[str, float], float]:
    """The budget as scenario parameters, and the δ at which a ρ budget is stated as ε.

    As the paper sets it, the page budgets in ρ (zCDP, δ = 0 in the scenario) and the slider
    shows each ρ as the ε it is stated as at that δ; ρ, the δ and both conversions sit in a
    closed section for experts. Or ε and δ (δ = 0: the pure-DP Laplace variants). Links that
    carry ρ itself (``?cov_rho=0.1``) or the radio's old label open as they did.
    """
    shown = {label: name for name, label in BUDGET_LABELS.items()}
    accept_link_values("cov_budget", {**{n: n for n in BUDGETS if n not in shown},
                                      **OLD_BUDGET_LABELS}, BUDGET_LABELS.__getitem__)
    mode = st.radio("Budget as", BUDGETS, format_func=BUDGET_LABELS.__getitem__,
                    horizontal=True, key="cov_budget", bind="query-params",
                    help="As the paper sets it: Gaussian noise, its budget stated as ε at a "
                         "tiny δ. Or an (ε, δ) target of your own; δ = 0 with ε runs the "
                         "pure-DP (Laplace) variants.")
    if mode == EPSILON:
        epsilon = epsilon_slider("cov_epsilon", label="ε")
        delta = delta_input("cov_delta", label="δ (0: pure DP)")
        return {"epsilon": epsilon, "delta": delta}, delta
    slider = st.container()
    experts = advanced("The paper's budget, for experts", "cov-budget")
    with experts:
        stated = delta_input("cov_rho_delta", value=DELTA_FOR_RHO,
                             label="δ at which the paper's ρ is stated as ε")
    delta = stated if 0 < stated < 1 else DELTA_FOR_RHO  # a bad δ is refused below

    def label(rho: float) -> str:
        return rho_label(rho, delta)

    accept_link_values("cov_rho", {f"{r:g}": r for r in RHO_GRID
                                   if f"{r:g}" not in set(map(label, RHO_GRID))}, label)
    rho = slider.select_slider(
        f"ε (stated at δ = {delta:g})", RHO_GRID, value=0.1, format_func=label,
        key="cov_rho", bind="query-params",
        help="The privacy budget: smaller ε, more noise and more privacy. The paper sets its "
             "Gaussian noise by ρ (zero-concentrated DP); each stop is a ρ of its curves, "
             "shown as the ε it gives at this δ. [ρ in the glossary](/glossary#rho-zcdp)")
    with experts:
        st.caption(rho_text(float(rho), delta))
    if delta != stated:
        raise ValueError(f"δ must be above 0 and below 1 to state the paper's budget as ε, "
                         f"got {stated:g}")
    return {"rho": float(rho), "delta": 0.0}, stated


def radius_control(data: Mapping[str, Any]) -> float | None:
    """The public radius r: the data's own (generator, digits: 1) or one the user gives (CSV).

    An upload's bound comes from the upload step (:func:`dpviz.ui.panels.upload.table_upload`): its
    radius, or ``None`` for ranges (the data block's ``bounds``).
    """
    if "upload" not in data:
        return UNIT_RADIUS
    return None if "bounds" in data else float(st.session_state["cov_radius"])


def accept_estimator_names(key: str, names: Sequence[str]) -> None:
    """Let a link name the estimators by registry key (``?cov_estimators=gauss``).

    A bound multiselect writes its options' labels to the URL and drops other values; keys
    in the link are put into the session state before the widget is created (as
    :func:`dpviz.ui.widgets.accept_option_names` does for a selectbox).
    """
    given = st.query_params.get_all(key)
    if given and set(given) <= set(names) and key not in st.session_state:
        st.session_state[key] = list(dict.fromkeys(given))


def accept_old_estimator_link(names: Sequence[str]) -> None:
    """Open a link written when the page drew every ticked estimator (``?cov_estimators=…``).

    Two or more estimators turn the comparison on (the multiselect then reads them); one
    becomes the estimator drawn alone. Only a link without the comparison's own parameter.
    """
    given = st.query_params.get_all("cov_estimators")
    if not given or "cov_compare" in st.session_state or "cov_compare" in st.query_params:
        return
    by_label = {_label(n): n for n in names}
    keys = list(dict.fromkeys(by_label.get(g, g) for g in given))
    if not set(keys) <= set(names):
        return
    if len(keys) > 1:
        st.session_state["cov_compare"] = True
    elif "cov_estimator" not in st.session_state and "cov_estimator" not in st.query_params:
        st.session_state["cov_estimator"] = keys[0]


def estimator_controls() -> list[str]:
    """The estimators drawn: one (the paper's AdaptiveCov by default), or several to compare.

    Comparing is an explicit choice whose caption says it spends one budget per estimator.
    Stops the page while no estimator is ticked.
    """
    names = tuple(TASKS["covariance"])
    accept_old_estimator_link(names)
    compare = st.toggle("Compare estimators", key="cov_compare", bind="query-params",
                        help="Draw several estimators on the same data and overlay them.")
    if not compare:
        # the default first: a link's name in the session state meets no `index` then
        alone = (DEFAULT_ESTIMATOR, *(n for n in names if n != DEFAULT_ESTIMATOR))
        accept_option_names("cov_estimator", alone, _label)
        name = st.selectbox("Estimator", alone, format_func=_label, key="cov_estimator",
                            bind="query-params")
        st.caption(ESTIMATOR_WHY)
        return [str(name)]
    st.caption(COMPARE_COST)
    accept_estimator_names("cov_estimators", names)
    chosen = st.multiselect("Estimators", names,
                            default=[n for n in DEFAULT_ESTIMATORS if n in names],
                            format_func=_label, key="cov_estimators", bind="query-params",
                            help="Each runs on the same data with the whole budget; the "
                                 "figures overlay them.")
    if not chosen:
        st.info("Pick at least one estimator.", icon=":material/checklist:")
        st.stop()
    return list(chosen)


def controls(data_seed: int, seed: int | None) -> Chosen:
    """The page's scenarios: data, the estimator(s) drawn, their parameters, budget, r.

    One estimator unless the user compares several; stops the page while none is ticked.

    Parameters
    ----------
    data_seed : int
        The generated data's seed.
    seed : int or None
        The teaching noise seed (:func:`noise_seed` of the global seed), or ``None`` under
        secure randomness.

    Raises
    ------
    ValueError
        A parameter out of its range, with the scenario's sentence.
    """
    data, content = data_controls(data_seed)
    budget, stated = budget_controls()  # the control the lesson teaches: on a projector's screen
    upload.refuse_early("cov", budget)
    chosen = estimator_controls()
    entries: list[Estimator] = [TASKS["covariance"][n] for n in chosen]
    st.caption(" · ".join(f"{e.label}: {e.paper}" for e in entries))
    radius = radius_control(data)
    params = {e.name: {p.name: param_widget(e.name, p) for p in e.params if not p.choice}
              for e in entries}
    with advanced("The choices the paper leaves open", "cov"):
        for e in entries:
            for p in e.params:
                if p.choice:
                    params[e.name][p.name] = param_widget(e.name, p)
        if not any(p.choice for e in entries for p in e.params):
            st.caption("The chosen estimators leave nothing open.")
    scenarios = tuple(Scenario.from_dict({
        "task": "covariance", "estimator": name, "data": data,
        "params": {**params[name], **budget, "radius": radius}, "seed": seed})
        for name in chosen)
    return Chosen(scenarios, content, stated)


@st.cache_data(max_entries=8, show_spinner=False)
def _dataset_names(name: str) -> tuple[str, ...]:
    return tuple(load_dataset(name).names)


def column_names(scenario: Scenario, loaded: LoadedData) -> tuple[str, ...]:
    """The coordinates' names: ``x1…xd`` (generated), the digits' pixels, or ``column j``."""
    if "dataset" in scenario.data:
        return _dataset_names(str(scenario.data["dataset"]))
    prefix = "x" if "generator" in scenario.data else "column "
    return loaded.names or tuple(f"{prefix}{j + 1}" for j in range(loaded.data.shape[1]))


def description(scenario: Scenario, loaded: LoadedData) -> str:
    """One sentence on the data, its true trace and why r is public (an upload: its size)."""
    n, d = loaded.data.shape
    data = scenario.data
    if "generator" in data:
        assert loaded.truth is not None and loaded.truth.matrix is not None  # zipf's Σ
        trace = float(np.trace(loaded.truth.matrix))
        return (f"{n:,} rows in {d} dimensions: X = ZU, centred, row norms Zipf-distributed "
                f"over N = {int(data['buckets'])} buckets 2^(k−N) with skew "
                f"{float(data['skew']):g}; trace of Σ = XᵀX/n: {trace:.3g} (r = 1, public: "
                "the generator's).")
    if "dataset" in data:
        return (f"{n:,} handwritten digits as {d} pixels / 16 / 8: every row in the unit "
                "ball, so r = 1 is public (it comes from the documented pixel range 0…16).")
    return loaded.description


def run_all(chosen: Chosen, fresh: int | None) -> tuple[tuple[Run, ...], float]:
    """Every chosen scenario's (cached) run, and the engine time they took in seconds.

    ``fresh`` is the rerun's OS entropy under secure randomness (:func:`dpviz.ui.runs.run`).
    """
    start = time.perf_counter()
    done = tuple(Run(s.estimator, short_label(s.estimator),
                     runs.run(s, fresh=fresh, content=chosen.content))
                 for s in chosen.scenarios)
    return done, time.perf_counter() - start
