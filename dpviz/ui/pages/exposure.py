"""Widgets, numbers and sentences of the privacy exposure page (DP-EM paper, Fig. 1)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dpviz.lab.lessons import (
    EXPOSURE_DELTA,
    SCALES,
    Comparison,
    closer,
    exposure_comparison,
    exposure_scenario,
    means_of,
)
from dpviz.lab.scenario import Scenario
from dpviz.ui import runs
from dpviz.ui.shell import PageContext
from dpviz.ui.widgets import attempt, delta_input, epsilon_slider

__all__ = ["SCALES", "at_scale", "compare", "controls", "explanation", "means_of",
           "summary_table"]

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
        delta = delta_input("exposure_delta", value=EXPOSURE_DELTA, label="δ of DP-EM")
    with c:
        bigger = st.toggle("× 50 data", value=False, key="exposure_x50", bind="query-params",
                           help="Every group 50 times larger; the far component now holds "
                                "50 people (the person alone and 49 neighbours).")
    return attempt(exposure_scenario, epsilon, delta, scale=SCALES[1] if bigger else SCALES[0],
                   seed=None if ctx.secure else ctx.seed, data_seed=ctx.data_seed)


def at_scale(scenario: Scenario, scale: int) -> Scenario:
    """The same run on the demo at another size."""
    return Scenario.from_dict({**scenario.to_dict(),
                               "data": {**scenario.data, "scale": int(scale)}})


def compare(scenario: Scenario, *, fresh: int) -> Comparison:
    """DP-EM's run of ``scenario`` and non-private EM from the same start (both cached).

    ``fresh`` is the rerun's entropy (secure randomness: it keys both runs' one stream);
    the data use the scenario's data seed, so secure randomness redraws the noise, not the
    data.
    """
    stream = f"{STREAM}/{scenario.data['scale']}"  # each size its own key, its two runs one
    return exposure_comparison(scenario, lambda s: runs.run(s, fresh=fresh, stream=stream),
                               runs.loaded)


def summary_table(comparisons: list[Comparison]) -> pd.DataFrame:
    """One row per data size: the distances the page's sentence talks about."""
    return pd.DataFrame([{
        "data": f"{104 * c.scale:,} people" + (" (× 50)" if c.scale > 1 else ""),
        "EM's nearest mean to the person alone": f"{c.reference_to_lone:.3f}",
        "DP-EM's nearest mean to the person alone": f"{c.private_to_lone:.3f}",
        "DP-EM ↔ EM, mean distance of matched means": f"{c.gap:.3f}",
    } for c in comparisons])


def explanation(shown: Comparison, other: Comparison) -> str:
    """The sentence under the figure, from the numbers of this run and of the table's other row.

    Whether EM's mean is the person's row, whether DP-EM's stay away and whether more data
    brought DP-EM closer to EM are read from the numbers, never assumed.
    """
    small, large = sorted((shown, other), key=lambda c: c.scale)
    trend = ("closer, because with more people each person's influence shrinks and the same "
             "ε needs less noise" if closer(small, large) else
             "no closer at this ε (more data lower the noise, but not enough here to outweigh "
             "where DP-EM's start put its components; try a larger ε)")
    if shown.scale == small.scale:
        exposed = ("— it is their row" if shown.exposes else
                   "— this run's EM gave them no component of their own (it stopped at "
                   "another fit)")
        kept = ("the noise that protects everyone keeps it off them" if shown.protects else
                "near them by chance — the noise hides any one person's influence, not "
                "where the means fall")
        return (f"Non-private EM's nearest mean is {shown.reference_to_lone:.3f} from the "
                f"person alone {exposed}. DP-EM's nearest mean is "
                f"{shown.private_to_lone:.3f} away: {kept}. With {large.scale} times the "
                f"data (the table's other row) and the same ε, DP-EM's means sit on average "
                f"{large.gap:.3f} from EM's, against {small.gap:.3f} here: {trend}.")
    far = (f" DP-EM's nearest mean is still {shown.private_to_lone:.3f} from the person "
           "alone: the far component, 1% of the rows, is the last to follow."
           if shown.protects else "")
    return (f"With {large.scale} times the data the far component holds {large.scale} "
            f"people, so non-private EM's mean there is an aggregate, not one person's row. "
            f"The private means sit on average {large.gap:.3f} from the non-private ones, "
            f"against {small.gap:.3f} with the small data at the same ε: {trend}.{far}")


def fit_caption() -> str:
    """What both fits run, from DP-EM's own defaults (so the sentence follows them)."""
    from dpviz.estimators.gmm import dp_em

    return (f"Both fits run DP-EM's defaults with k = 4 — a start from "
            f"{dp_em.INIT_ITERATIONS} private Lloyd steps ({dp_em.INIT_SHARE:.0%} of the "
            f"budget), then {dp_em.DEFAULT_ITERATIONS} EM steps — the non-private one with no "
            "noise (exactly EM); both clip rows to the unit ball, a public bound, true by "
            "construction of this data set. DP-EM adds up its releases' budgets with a tight "
            "accountant. Distances are in the data's units (the ball has radius 1).")
