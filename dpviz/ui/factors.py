"""Widgets, tables and sentences of the private factor analysis page (digits)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import ArrayLike

from ..result import Result
from ..scenario import Scenario
from .engine import factor_run
from .widgets import advanced, delta_input

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


@dataclass(frozen=True)
class Controls:
    """What the page asked for (plain values: the cache keys)."""

    epsilon: float
    delta: float
    factors: int
    iterations: int

    def scenario(self, seed: int | None) -> Scenario:
        """The private run on the digits as a scenario (``seed``: ``None`` when secure)."""
        return Scenario.from_dict({
            "task": "factor_analysis", "estimator": "dp_fa", "data": {"dataset": "digits"},
            "params": {"epsilon": self.epsilon, "delta": self.delta, "factors": self.factors,
                       "iterations": self.iterations}, "seed": seed})


def controls() -> Controls:
    """ε (one of :data:`EPSILONS`), δ, the number of factors and the EM steps."""
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
    return Controls(float(epsilon), float(delta), int(factors), int(iterations))


def runs(settings: Controls, seed: int, secure: bool = False
         ) -> tuple[tuple[Result, np.ndarray], tuple[Result, np.ndarray]]:
    """The non-private fit (ε = ∞) and the private one, each with W as images."""
    reference = factor_run(epsilon=math.inf, delta=0.0, factors=settings.factors,
                           iterations=settings.iterations, seed=seed, secure=secure)
    private = factor_run(epsilon=settings.epsilon, delta=settings.delta,
                         factors=settings.factors, iterations=settings.iterations, seed=seed,
                         secure=secure)
    return reference, private


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
