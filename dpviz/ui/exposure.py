"""Widgets, numbers and sentences of the privacy exposure page (DP-EM paper, Fig. 1)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import ArrayLike

from ..metrics import match_components
from ..result import Result
from .engine import exposure_data, exposure_run
from .widgets import delta_input, epsilon_slider

#: The data's size multipliers: the paper's small set and 50 times more people.
SCALES = (1, 50)
INTRO = ("A small data set of 104 people, three groups and **one person alone** (ringed). "
         "A mixture of four Gaussians fitted without privacy gives that person a component "
         "of their own, so its mean *is* their row: publishing the model publishes them. "
         "DP-EM adds noise calibrated to any one person's influence, so its means cannot "
         "land on anyone in particular.")


@dataclass(frozen=True)
class Controls:
    """What the page asked for."""

    epsilon: float
    delta: float
    scale: int


def controls() -> Controls:
    """ε, δ and the "× 50 data" toggle."""
    a, b, c = st.columns([3, 2, 2], vertical_alignment="bottom")
    with a:
        epsilon = epsilon_slider("exposure_epsilon", label="ε of DP-EM")
    with b:
        delta = delta_input("exposure_delta", label="δ of DP-EM")
    with c:
        bigger = st.toggle("× 50 data", value=False, key="exposure_x50", bind="query-params",
                           help="Every group 50 times larger; the far component now holds "
                                "50 people (the person alone and 49 neighbours).")
    return Controls(float(epsilon), float(delta), SCALES[1] if bigger else SCALES[0])


def nearest(means: ArrayLike, point: ArrayLike) -> float:
    """The distance from ``point`` to the nearest of ``means``.

    Examples
    --------
    >>> nearest([[0.0, 0.0], [3.0, 4.0]], [3.0, 0.0])
    3.0
    """
    gaps = np.linalg.norm(np.asarray(means, dtype=float) - np.asarray(point, dtype=float),
                          axis=1)
    return float(gaps.min())


def mean_gap(reference: ArrayLike, means: ArrayLike) -> float:
    """Mean distance between matched means (Hungarian matching on the means).

    Examples
    --------
    >>> mean_gap([[0.0, 0.0], [1.0, 0.0]], [[1.0, 0.5], [0.0, 0.0]])
    0.25
    """
    ref = np.asarray(reference, dtype=float)
    est = np.asarray(means, dtype=float)
    order = match_components(ref, est)
    keep = order >= 0
    return float(np.mean(np.linalg.norm(ref[keep] - est[order[keep]], axis=1)))


def means_of(result: Result) -> np.ndarray:
    """The result's means (k × 2)."""
    return np.asarray(result.estimate["means"], dtype=float)


@dataclass(frozen=True)
class Comparison:
    """Non-private EM and DP-EM on one data size, and how far apart they land."""

    scale: int
    reference: Result
    private: Result
    lone: np.ndarray

    @property
    def reference_to_lone(self) -> float:
        """Distance from the person alone to non-private EM's nearest mean."""
        return nearest(means_of(self.reference), self.lone)

    @property
    def private_to_lone(self) -> float:
        """Distance from the person alone to DP-EM's nearest mean."""
        return nearest(means_of(self.private), self.lone)

    @property
    def gap(self) -> float:
        """Mean distance between DP-EM's and non-private EM's matched means."""
        return mean_gap(means_of(self.reference), means_of(self.private))


def compare(scale: int, *, epsilon: float, delta: float, seed: int,
            data_seed: int | None = None, secure: bool = False) -> Comparison:
    """Run both estimators (cached) on the demo at ``scale``, the data seeded too.

    The data use ``data_seed`` (default ``seed``): secure randomness redraws the noise, not
    the data.
    """
    data_seed = seed if data_seed is None else data_seed
    demo = exposure_data(scale, data_seed)
    reference = exposure_run("em", scale=scale, data_seed=data_seed, epsilon=math.inf,
                             delta=0.0, seed=seed, secure=secure)
    private = exposure_run("dp_em", scale=scale, data_seed=data_seed, epsilon=epsilon,
                           delta=delta, seed=seed, secure=secure)
    return Comparison(scale, reference, private, demo.data[demo.lone_index])


def summary_table(comparisons: list[Comparison]) -> pd.DataFrame:
    """One row per data size: the distances the page's sentence talks about."""
    return pd.DataFrame([{
        "data": f"{104 * c.scale:,} people" + (" (× 50)" if c.scale > 1 else ""),
        "EM's nearest mean to the person alone": f"{c.reference_to_lone:.3f}",
        "DP-EM's nearest mean to the person alone": f"{c.private_to_lone:.3f}",
        "DP-EM ↔ EM, mean distance of matched means": f"{c.gap:.3f}",
    } for c in comparisons])


def explanation(shown: Comparison, other: Comparison) -> str:
    """The sentence under the figure, with the numbers of this run."""
    if shown.scale == 1:
        return (f"Non-private EM's nearest mean is {shown.reference_to_lone:.3f} from the "
                f"person alone — it is their row. DP-EM's nearest mean is "
                f"{shown.private_to_lone:.2f} away: the noise that protects everyone keeps "
                f"it off them. Switch on **× 50 data**: with more people each person's "
                f"influence shrinks, so the same ε needs less noise.")
    trend = "closer to" if shown.gap < other.gap else "no closer to"
    return (f"With 50 times the data the far component holds 50 people, so non-private "
            f"EM's mean there is an aggregate, not one person's row. The private means sit "
            f"on average {shown.gap:.2f} from the non-private ones ({other.gap:.2f} with "
            f"the small data): {trend} them at the same ε. Larger ε or more data bring "
            f"them closer still; the far component, 1% of the rows, is the last to "
            f"follow.")
