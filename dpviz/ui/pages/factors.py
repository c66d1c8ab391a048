"""Widgets, tables and sentences of the private factor analysis page (digits)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import ArrayLike

from dpviz.estimators.factor_analysis import digits_factor_images
from dpviz.estimators.result import Result
from dpviz.lab.scenario import Scenario
from dpviz.ui import runs
from dpviz.ui.panels import upload
from dpviz.ui.widgets import advanced, delta_input

#: The budgets at which correctly calibrated noise still leaves structure (ALGORITHMS.md §2).
EPSILONS = (1.0, 2.0, 5.0, 10.0)
MAX_FACTORS = 5
INTRO = ("Factor analysis explains the 64 pixels of scikit-learn's 8 × 8 handwritten digits "
         "by a few **factors**: each column of the loading matrix W is a pattern of pixels, "
         "drawn here as an image (red positive, blue negative). The private version releases "
         "the pixels' second-moment matrix once with Gaussian noise (every row scaled into "
         "the unit ball: pixels / 16 / 8, a public bound) and fits the factors to the noisy "
         "matrix — free post-processing.")
LIMITS = ("**Below ε ≈ 1, correctly calibrated noise hides the factors**: the images turn to "
          "noise, so the budgets offered are ε ∈ {1, 2, 5, 10} and at most 5 factors. The "
          "DP-EM paper's Olivetti faces figure is not reproducible with correctly calibrated "
          "noise, which is why this page uses the digits.")


#: The secure stream of the page's two fits: the non-private one (ε = ∞) is the private
#: one's reference, so they start from the same point.
STREAM = "factor_analysis"


#: The data: the digits (a public bound from the pixel range) or a CSV of one's own.
DIGITS, CSV = "digits", "csv"
SOURCES = {DIGITS: "Handwritten digits (8 × 8)", CSV: "Upload a CSV file"}


def controls(seed: int | None) -> tuple[Scenario, bytes | None]:
    """The private run: the data, ε (one of :data:`EPSILONS`), δ, factors, EM steps.

    ``seed`` is the teaching noise seed, ``None`` under secure randomness. Returns the
    scenario and an upload's bytes (``None`` for the digits).

    Raises
    ------
    ValueError
        A parameter out of its range, with the scenario's sentence.
    """
    source = st.radio("Data", tuple(SOURCES), format_func=SOURCES.__getitem__,
                      horizontal=True, key="factors_source", bind="query-params",
                      help="The digits (their bound comes from the documented pixel range) "
                           "or a CSV file of your own (you choose its bound).")
    data: dict[str, Any] = {"dataset": "digits"}
    content, bound = None, {}
    if source == CSV:
        chosen = upload.table_upload("factors", prompt="Upload a CSV file to find its factors.",
                                     radius_value=1.0)
        data, content = chosen.block, chosen.content
        bound = {} if chosen.radius is None else {"radius": chosen.radius}
    a, b, c = st.columns([3, 2, 2], vertical_alignment="bottom")
    with a:
        epsilon = st.select_slider("ε of the private run", options=EPSILONS, value=2.0,
                                   format_func=lambda e: f"{e:g}", key="factors_epsilon",
                                   bind="query-params",
                                   help="Smaller ε means more noise and more privacy.")
    with b:
        delta = delta_input("factors_delta", label="δ")
    with c:
        factors = st.slider("Factors", min_value=1, max_value=MAX_FACTORS, value=3, step=1,
                            key="factors_count", bind="query-params",
                            help="Columns of W, sorted by norm (most important first).")
    with advanced("EM steps", "factors"):
        iterations = st.number_input("FA-EM steps on the released matrix", min_value=1,
                                     max_value=5000, value=100, step=10, format="%d",
                                     key="factors_iterations", bind="query-params",
                                     help="Post-processing of the one release: free.")
    upload.refuse_early("factors", {"epsilon": float(epsilon), "delta": float(delta)})
    return Scenario.from_dict({
        "task": "factor_analysis", "estimator": "dp_fa", "data": data,
        "params": {"epsilon": float(epsilon), "delta": float(delta), "factors": int(factors),
                   "iterations": int(iterations), **bound}, "seed": seed}), content


def fits(scenario: Scenario, fresh: int | None, content: bytes | None = None
         ) -> tuple[tuple[Result, np.ndarray], tuple[Result, np.ndarray]]:
    """The non-private fit (ε = ∞, δ = 0) and the private one, each with W as images.

    The digits' columns of W as 8 × 8 images; an upload's as one row of its columns (the
    non-private fit on the same clipped rows: private ranges as the private run released
    them). ``fresh`` is the rerun's OS entropy under secure randomness
    (:func:`dpviz.ui.runs.run`); ``content`` an upload's bytes.
    """
    def run(s: Scenario) -> Result:
        return runs.run(s, fresh=fresh, stream=STREAM, content=content)

    if "private" in (scenario.data.get("bounds") or {}):  # its released ranges come first
        private = run(scenario)
        reference = run(Scenario.from_dict({
            **scenario.to_dict(), "data": upload.reference_block(scenario.data, private)
        }).without_noise())
    else:
        reference, private = run(scenario.without_noise()), run(scenario)

    def images(result: Result) -> np.ndarray:
        w = np.asarray(result.estimate["loadings"], dtype=float)
        return digits_factor_images(w) if "dataset" in scenario.data else w.T[:, None, :]

    return (reference, images(reference)), (private, images(private))


def names_table(named: Sequence[tuple[str, ArrayLike]],
                columns: Sequence[str]) -> pd.DataFrame:
    """W of every run in long form for an upload: run, factor, column (its name), loading.

    Examples
    --------
    >>> names_table([("a", np.arange(4.0).reshape(2, 2))], ("x", "y")).iloc[3].astype(str).tolist()
    ['a', '2', 'y', '3.0']
    """
    frames = []
    for label, loadings in named:
        w = np.asarray(loadings, dtype=float)
        row, factor = np.meshgrid(np.arange(w.shape[0]), np.arange(w.shape[1]), indexing="ij")
        frames.append(pd.DataFrame({"run": label, "factor": factor.ravel() + 1,
                                    "column": [columns[int(i)] for i in row.ravel()],
                                    "loading": w.ravel()}))
    return pd.concat(frames, ignore_index=True)


def loadings_table(named: Sequence[tuple[str, ArrayLike]]) -> pd.DataFrame:
    """W of every run in long form: run, factor, pixel row, pixel column, loading.

    Examples
    --------
    >>> table = loadings_table([("a", np.arange(128.0).reshape(64, 2))])
    >>> table.shape, table.iloc[3].astype(str).tolist()
    ((128, 5), ['a', '2', '1', '2', '3.0'])
    """
    frames = []
    for label, loadings in named:
        w = np.asarray(loadings, dtype=float)
        pixel, factor = np.meshgrid(np.arange(w.shape[0]), np.arange(w.shape[1]),
                                    indexing="ij")
        frames.append(pd.DataFrame({"run": label, "factor": factor.ravel() + 1,
                                    "pixel row": pixel.ravel() // 8 + 1,
                                    "pixel column": pixel.ravel() % 8 + 1,
                                    "loading": w.ravel()}))
    return pd.concat(frames, ignore_index=True)


def similarity(reference: Result, private: Result) -> list[float]:
    """|cosine| between matching columns of W (1: the same pattern, up to sign)."""
    a = np.asarray(reference.estimate["loadings"], dtype=float)
    b = np.asarray(private.estimate["loadings"], dtype=float)
    norms = np.linalg.norm(a, axis=0) * np.linalg.norm(b, axis=0)
    cosines = np.abs(np.sum(a * b, axis=0)) / np.where(norms > 0, norms, 1.0)
    return [float(c) for c in cosines]
