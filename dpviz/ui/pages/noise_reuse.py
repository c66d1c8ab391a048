"""The Privacy lens's lesson on noise reuse: two releases on one seed give the mean away.

The engine is :func:`dpviz.lab.lens.two_release_attack`; the figure
:func:`dpviz.viz.noise_reuse.two_release_figure`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from dpviz.lab.lens import TwoReleases, two_release_attack
from dpviz.ui.pages.lens import LensSettings
from dpviz.ui.widgets import attempt, show_chart
from dpviz.viz.noise_reuse import row_label, two_release_figure

INTRO = (
    "With **teaching randomness** the page draws its noise from one seed, so at every ε the "
    "noise is the same standard draw z times that ε's noise scale b: a release is "
    "o = m + b·z. That is what makes the ε slider move the picture smoothly — and it is not "
    "private. Two releases of the same mean at two ε are two equations with two unknowns, "
    "m and z. Anyone who sees both outputs and the two scales (every ledger prints them) "
    "solves them, without knowing the seed: m = (b₂·o₁ − b₁·o₂)/(b₂ − b₁).")
OUTRO = (
    "With **secure randomness** every release draws fresh noise from the operating system: "
    "the two releases carry two independent draws, and the same arithmetic gives an answer "
    "that is off by b₁b₂(z₁ − z₂)/(b₂ − b₁), no better than either release — and the two "
    "releases together cost what their ledgers compose to, more than either alone. Both rows "
    "use this page's data, public range, mechanism, δ and accounting, at ε₁ = the page's ε "
    "and ε₂ = 2ε₁; the secure row is drawn afresh on every rerun.")


def _cost(attack: TwoReleases) -> str:
    if attack.shared_seed:
        return "no guarantee: the seed gives the noise away"
    delta = f", δ = {attack.spent.delta:.2g}" if attack.spent.delta else ""
    return f"ε = {attack.spent.epsilon:.3g}{delta}"


def attack_table(attacks: Sequence[TwoReleases]) -> pd.DataFrame:
    """One row per attack: the releases, their scales and cost, the answer and its error."""
    return pd.DataFrame([
        {"randomness": row_label(a),
         "release o₁ (ε₁)": f"{a.released[0]:.6g}", "release o₂ (ε₂)": f"{a.released[1]:.6g}",
         "noise scales b₁, b₂": f"{a.scales[0]:.4g}, {a.scales[1]:.4g}",
         "attacker's answer": f"{a.recovered:.12g}",
         "true mean (not released)": f"{a.true_mean:.12g}",
         "attacker's error": f"{a.error:.2g}",
         "what both releases cost": _cost(a)} for a in attacks])


def lesson(settings: LensSettings, seed: int) -> None:
    """The lesson: plain words, the two rows drawn, and their numbers.

    Parameters
    ----------
    settings : LensSettings
        The lens page's data, range, mechanism, ε, δ and accounting.
    seed : int
        The seed of the teaching-randomness row (both of its releases use it).
    """
    args = {"mechanism": settings.mechanism, "delta": settings.delta, "lo": settings.lo,
            "hi": settings.hi, "accounting": settings.method,
            "epsilons": (settings.epsilon, 2 * settings.epsilon)}
    teaching = attempt(two_release_attack, settings.values, seed=seed, **args)
    secure = attempt(two_release_attack, settings.values, seed=None, **args)
    st.markdown(INTRO)
    show_chart(two_release_figure([teaching, secure]), key="lens_reuse",
               filename="dpviz-lens-noise-reuse")
    st.dataframe(attack_table([teaching, secure]), hide_index=True, key="lens_reuse_table")
    st.caption(OUTRO)
