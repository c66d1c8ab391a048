"""Widgets, numbers and sentences of the privacy exposure page (DP-EM paper, Fig. 1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import ArrayLike

from dpviz.estimators.metrics import match_components
from dpviz.estimators.result import Result
from dpviz.lab.scenario import Scenario
from dpviz.ui import runs
from dpviz.ui.gmm import reference_scenario
from dpviz.ui.shell import PageContext
from dpviz.ui.widgets import attempt, delta_input, epsilon_slider

#: The data's size multipliers: the paper's small set and 50 times more people.
SCALES = (1, 50)
INTRO = ("A small data set of 104 people, three groups and **one person alone** (ringed). "
         "A mixture of four Gaussians fitted without privacy gives that person a component "
         "of their own, so its mean *is* their row: publishing the model publishes them. "
         "DP-EM adds noise calibrated to any one person's influence, so its means cannot "
         "land on anyone in particular.")


#: The secure stream of DP-EM and of non-private EM, its reference: one start.
STREAM = "exposure"


def controls(ctx: PageContext) -> Scenario:
    """ε, δ and the "× 50 data" toggle: DP-EM on the exposure demo, as one Scenario.

    The demo's public radius (1, true by construction) and k = 4 come with its data; the
    seed is the sidebar's (teaching randomness), ``None`` under secure randomness.
    """
    a, b, c = st.columns([3, 2, 2], vertical_alignment="bottom")
    with a:
        epsilon = epsilon_slider("exposure_epsilon", label="ε of DP-EM")
    with b:
        delta = delta_input("exposure_delta", label="δ of DP-EM")
    with c:
        bigger = st.toggle("× 50 data", value=False, key="exposure_x50", bind="query-params",
                           help="Every group 50 times larger; the far component now holds "
                                "50 people (the person alone and 49 neighbours).")
    return attempt(Scenario.from_dict, {
        "task": "gmm", "estimator": "dp_em",
        "data": {"generator": "exposure_demo", "scale": SCALES[1] if bigger else SCALES[0],
                 "seed": ctx.data_seed},
        "params": {"epsilon": float(epsilon), "delta": float(delta)},
        "seed": None if ctx.secure else ctx.seed})


def at_scale(scenario: Scenario, scale: int) -> Scenario:
    """The same run on the demo at another size."""
    return Scenario.from_dict({**scenario.to_dict(),
                               "data": {**scenario.data, "scale": int(scale)}})


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


def compare(scenario: Scenario, *, fresh: int) -> Comparison:
    """DP-EM's run of ``scenario`` and non-private EM from the same start (both cached).

    ``fresh`` is the rerun's entropy (secure randomness: it keys both runs' one stream);
    the data use the scenario's data seed, so secure randomness redraws the noise, not the
    data.
    """
    stream = f"{STREAM}/{scenario.data['scale']}"  # each size its own key, its two runs one
    reference = runs.run(reference_scenario(scenario), fresh=fresh, stream=stream)
    private = runs.run(scenario, fresh=fresh, stream=stream)
    lone = runs.loaded(scenario).data[-1]  # the person alone is the demo's last row
    return Comparison(int(scenario.data["scale"]), reference, private, lone)


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
