"""A page's current run as a :class:`~dpviz.scenario.Scenario`, read from its widgets' state.

Solve-for-ε and experiment cards both need "the run this page shows" as plain data; this
module reads it from ``st.session_state`` (the widget keys of :mod:`dpviz.ui.gmm`,
:mod:`dpviz.ui.covariance`) and the sidebar's seed. A widget not
drawn yet reads as the page's default. An uploaded file is bytes with a name: its block is
``{"upload": name, "sha256": hash of the bytes}``, its name a
label and never a path; :func:`page_upload` gives the bytes to whoever runs the scenario.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import streamlit as st

from ..data.files import sha256
from ..registry import TASKS
from ..scenario import MAX_LABEL, Scenario
from . import covariance as cov_ui
from . import gmm as gmm_ui

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


#: The session key of each page's file uploader.
UPLOADS = {"gmm": "gmm_upload", "covariance": "cov_upload"}


def _bytes(state: Mapping[str, Any], key: str) -> bytes:
    """The uploaded file's bytes, or a sentence while there is none."""
    upload = state.get(key)
    if upload is None:
        raise ValueError("upload a file first: the scenario is the run on its rows")
    return bytes(upload.getvalue())


def _upload(state: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The data block of an upload: its name as a label, the SHA-256 of its bytes."""
    label = str(getattr(state.get(key), "name", "")).strip()[:MAX_LABEL] or "uploaded file"
    return {"upload": label, "sha256": sha256(_bytes(state, key))}


def page_upload(page: str) -> bytes | None:
    """The bytes of the file uploaded on ``page`` (``None``: none is).

    What an ``upload`` scenario of the page runs on: its block holds their SHA-256.
    """
    state = cast(Mapping[str, Any], st.session_state)
    key = UPLOADS.get(page)
    return None if key is None or state.get(key) is None else _bytes(state, key)


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
        data = _upload(state, "gmm_upload")
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
        data = _upload(state, "cov_upload")
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


PAGES: Mapping[str, Callable[[Mapping[str, Any]], Scenario]] = {
    "gmm": gmm_scenario, "covariance": covariance_scenario}


def scenario_of_page(page: str, *, estimator: str | None = None) -> Scenario:
    """The run the page shows now, as a scenario (its widgets' state and the global seed).

    Parameters
    ----------
    page : {"gmm", "covariance"}
        The page (its file name in ``pages/``).
    estimator : str, optional
        The covariance page runs several estimators: which one (default the first ticked).

    Raises
    ------
    ValueError
        An unknown page, with a sentence.
    """
    if page not in PAGES:
        raise ValueError(f"no scenario for the page {page!r}; the pages with one are: "
                         f"{', '.join(PAGES)}")
    state = cast(Mapping[str, Any], st.session_state)  # read-only use of a mapping
    if page == "covariance":
        return covariance_scenario(state, estimator)
    return PAGES[page](state)
