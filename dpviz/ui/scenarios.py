"""A page's current run as a :class:`~dpviz.scenario.Scenario`, read from its widgets' state.

Solve-for-ε and experiment cards both need "the run this page shows" as plain data; this
module reads it from ``st.session_state`` (the widget keys of :mod:`dpviz.ui.gmm`,
:mod:`dpviz.ui.covariance` and :mod:`dpviz.ui.sbm`) and the sidebar's seed. A widget not
drawn yet reads as the page's default. An uploaded file is described by its name only
(``{"csv": name}`` or ``{"edges": name, "n": n}``): not a path any later run can read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import streamlit as st

from ..registry import TASKS
from ..scenario import Scenario
from . import covariance as cov_ui
from . import gmm as gmm_ui
from . import sbm as sbm_ui

#: The sidebar keeps the seed here while secure randomness hides its widget (dpviz.ui.shell).
KEPT_SEED = "_kept_seed"


def _seeds(state: Mapping[str, Any]) -> tuple[int, int | None]:
    """The data seed and the noise seed (``None`` under secure randomness)."""
    data_seed = int(state.get("seed", state.get(KEPT_SEED, 0)))
    return data_seed, None if state.get("secure") else data_seed


def _own_params(state: Mapping[str, Any], prefix: str, task: str, estimator: str,
                skip: Sequence[str] = ()) -> dict[str, Any]:
    """The estimator's registry parameters from their widgets (``<prefix>_<e>_<p>``)."""
    return {p.name: state[f"{prefix}_{estimator}_{p.name}"]
            for p in TASKS[task][estimator].params
            if p.name not in skip and f"{prefix}_{estimator}_{p.name}" in state}


def _upload_name(state: Mapping[str, Any], key: str) -> str:
    upload = state.get(key)
    return str(getattr(upload, "name", "uploaded file"))


def _budget(state: Mapping[str, Any], task: str, estimator: str, prefix: str,
            epsilon: float, delta: float) -> dict[str, Any]:
    """ε and δ from the page's widgets (a non-private reference: ε = ∞)."""
    if TASKS[task][estimator].notion == "none":
        return {"epsilon": math.inf, "delta": 0.0}
    return {"epsilon": float(state.get(f"{prefix}_epsilon", epsilon)),
            "delta": float(state.get(f"{prefix}_delta", delta))}


def gmm_scenario(state: Mapping[str, Any]) -> Scenario:
    """The Gaussian mixtures page's run (:mod:`dpviz.ui.gmm`'s widgets)."""
    data_seed, noise_seed = _seeds(state)
    source = str(state.get("gmm_source", gmm_ui.SYNTHETIC))
    estimator = str(state.get("gmm_estimator", "dp_em"))
    params = _own_params(state, "gmm", "gmm", estimator, skip=("k",))
    data: dict[str, Any]
    if source == gmm_ui.SYNTHETIC:
        data = {"generator": "gmm", "k": state.get("gmm_k", 3), "d": state.get("gmm_d", 2),
                "n": state.get("gmm_n", 10_000),
                "separation": state.get("gmm_separation", 6.0),
                "weights": state.get("gmm_weights", "equal"),
                "covariance": state.get("gmm_covariance", "spherical"), "seed": data_seed}
    elif source == gmm_ui.CSV:
        data = {"csv": _upload_name(state, "gmm_upload")}
        params["k"] = state.get("gmm_csv_k", 3)
    else:
        data = {"dataset": source}
    radius: float | str | None = None  # the data's own public radius
    if source == gmm_ui.CSV or (source != gmm_ui.SYNTHETIC
                                and gmm_ui.DATASETS[source].radius is None):
        read = state.get("gmm_bound", gmm_ui.BOUNDS[0]) == gmm_ui.BOUNDS[1]
        radius = "data" if read else float(state.get("gmm_radius", 10.0))
    params.update(_budget(state, "gmm", estimator, "gmm", 1.0, 1e-5),
                  accounting=state.get("gmm_accounting", "zcdp"), radius=radius)
    return Scenario.from_dict({"task": "gmm", "estimator": estimator, "data": data,
                               "params": params, "seed": noise_seed})


def covariance_scenario(state: Mapping[str, Any], estimator: str | None = None) -> Scenario:
    """The Covariance page's run of ``estimator`` (default the first one ticked)."""
    data_seed, _ = _seeds(state)
    source = str(state.get("cov_source", cov_ui.SYNTHETIC))
    chosen = list(state.get("cov_estimators") or cov_ui.DEFAULT_ESTIMATORS)
    name = estimator or chosen[0]
    data: dict[str, Any]
    radius = cov_ui.UNIT_RADIUS
    if source == cov_ui.SYNTHETIC:
        data = {"generator": "zipf", "n": state.get("cov_n", 10_000),
                "d": state.get("cov_d", 50), "buckets": state.get("cov_buckets", 4),
                "skew": state.get("cov_skew", 3.0), "seed": data_seed}
    elif source == cov_ui.DIGITS:
        data = {"dataset": cov_ui.DIGITS}
    else:
        data = {"csv": _upload_name(state, "cov_upload")}
        radius = float(state.get("cov_radius", cov_ui.UNIT_RADIUS))
    params = _own_params(state, "cov", "covariance", name)
    if state.get("cov_budget", cov_ui.RHO) == cov_ui.RHO:
        params.update(rho=float(state.get("cov_rho", 0.1)), delta=0.0)
    else:
        params.update(epsilon=float(state.get("cov_epsilon", 1.0)),
                      delta=float(state.get("cov_delta", 1e-5)))
    params["radius"] = radius
    noise = None if state.get("secure") else cov_ui.noise_seed(data_seed)
    return Scenario.from_dict({"task": "covariance", "estimator": name, "data": data,
                               "params": params, "seed": noise})


def sbm_scenario(state: Mapping[str, Any]) -> Scenario:
    """The stochastic block model page's run (:mod:`dpviz.ui.sbm`'s widgets).

    Raises
    ------
    ValueError
        For Zachary's karate club, which no scenario data block describes yet.
    """
    data_seed, noise_seed = _seeds(state)
    source = str(state.get("sbm_source", sbm_ui.SYNTHETIC))
    if source == sbm_ui.KARATE:
        raise ValueError("Zachary's karate club is a real graph with no scenario form yet: "
                         "choose the synthetic SBM to solve for ε or record a card")
    estimator = str(state.get("sbm_estimator", sbm_ui.DEFAULT_ESTIMATOR))
    params = _own_params(state, "sbm", "sbm", estimator, skip=tuple(sbm_ui.GRAPH_PARAMS))
    n, degree = int(state.get("sbm_n", 1000)), float(state.get("sbm_degree", 100.0))
    signal = float(state.get("sbm_signal", 0.5))
    data: dict[str, Any]
    if source == sbm_ui.UPLOAD:
        data = {"edges": _upload_name(state, "sbm_upload"), "n": n}
        params.update(degree=degree, signal=signal)
    else:
        data = {"generator": "sbm", "n": n, "degree": degree, "signal": signal,
                "seed": data_seed}
    params.update(_budget(state, "sbm", estimator, "sbm", 2.0, 1e-6),
                  accounting=state.get("sbm_accounting", "pld"))
    return Scenario.from_dict({"task": "sbm", "estimator": estimator, "data": data,
                               "params": params, "seed": noise_seed})


PAGES: Mapping[str, Callable[[Mapping[str, Any]], Scenario]] = {
    "gmm": gmm_scenario, "covariance": covariance_scenario, "sbm": sbm_scenario}


def scenario_of_page(page: str, *, estimator: str | None = None) -> Scenario:
    """The run the page shows now, as a scenario (its widgets' state and the global seed).

    Parameters
    ----------
    page : {"gmm", "covariance", "sbm"}
        The page (its file name in ``pages/``).
    estimator : str, optional
        The covariance page runs several estimators: which one (default the first ticked).

    Raises
    ------
    ValueError
        An unknown page, or data no scenario describes (the karate club), with a sentence.
    """
    if page not in PAGES:
        raise ValueError(f"no scenario for the page {page!r}; the pages with one are: "
                         f"{', '.join(PAGES)}")
    state = cast(Mapping[str, Any], st.session_state)  # read-only use of a mapping
    if page == "covariance":
        return covariance_scenario(state, estimator)
    return PAGES[page](state)


def budget_widget(page: str) -> tuple[str, tuple[float, ...] | None]:
    """The page's budget widget (its key) and, for a select slider, its options.

    Examples
    --------
    >>> budget_widget("gmm")
    ('gmm_epsilon', None)
    """
    if page == "covariance" and st.session_state.get("cov_budget", cov_ui.RHO) == cov_ui.RHO:
        return "cov_rho", cov_ui.RHO_GRID
    return {"gmm": "gmm_epsilon", "covariance": "cov_epsilon", "sbm": "sbm_epsilon"}[page], None
