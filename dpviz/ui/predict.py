"""Predict, then reveal (issue 9, part 4): guess a result before the page shows it.

With the sidebar's "Predict, then reveal" toggle on (``predict``, bound to the URL), the
Gaussian mixtures page hides the true and the private means until the student has guessed
where a private mean lands — by a click on the plot (Plotly point selection over a faint
clickable grid) or by typing the coordinates — and the Privacy budget page hides ε after T
rounds until the student has guessed it. Reveal shows the answer and how far off the guess
was. Guesses live in ``st.session_state`` (per user, never in the link); a new scenario
(data, estimator, ε, δ, seed) forgets the guess and hides the answer again.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from numpy.typing import ArrayLike, NDArray

from dpviz.lab.scenario import Scenario
from dpviz.privacy import METHOD_LABELS
from dpviz.ui.runs import canonical
from dpviz.viz.predict import add_guess, guess_figure

GRID_SIDE = 41
#: Margin around the rows' range in which a guess may be clicked, as a share of the range.
GRID_MARGIN = 0.05


@dataclass(frozen=True)
class MeanGuess:
    """How far a guess landed from the nearest private mean, in the plotted coordinates.

    Attributes
    ----------
    component : int
        The private mean nearest the guess (0-based, matched to true component ``component``).
    distance : float
        ‖guess − private mean‖ in data units.
    noise : float
        ‖private mean − true mean‖ of that component: how far privacy moved it (the scale
        the guess is judged against).
    """

    component: int
    distance: float
    noise: float

    @property
    def relative(self) -> float:
        """``distance / noise`` (``inf`` when the noise did not move the mean)."""
        return self.distance / self.noise if self.noise > 0 else math.inf


def score_mean_guess(guess: tuple[float, float], private_means: ArrayLike,
                     true_means: ArrayLike, axes: tuple[int, int] = (0, 1)) -> MeanGuess:
    """Score a guess against the nearest private mean (means already matched to the truth).

    Examples
    --------
    >>> s = score_mean_guess((0.0, 0.0), [[3.0, 4.0], [10.0, 0.0]], [[0.0, 0.0], [9.0, 0.0]])
    >>> s.component, s.distance, s.noise
    (0, 5.0, 5.0)
    """
    private = np.asarray(private_means, dtype=float)[:, list(axes)]
    truth = np.asarray(true_means, dtype=float)[:, list(axes)]
    distances = np.linalg.norm(private - np.asarray(guess, dtype=float), axis=1)
    j = int(np.argmin(distances))
    return MeanGuess(j, float(distances[j]), float(np.linalg.norm(private[j] - truth[j])))


def click_grid(rows: ArrayLike, axes: tuple[int, int]) -> NDArray[np.float64]:
    """A square grid of clickable points over the rows' range (plus a margin)."""
    data = np.asarray(rows, dtype=float)[:, list(axes)]
    low, high = data.min(axis=0), data.max(axis=0)
    pad = GRID_MARGIN * np.maximum(high - low, 1e-9)
    xs = np.linspace(low[0] - pad[0], high[0] + pad[0], GRID_SIDE)
    ys = np.linspace(low[1] - pad[1], high[1] + pad[1], GRID_SIDE)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def enabled() -> bool:
    """Whether the sidebar's predict-then-reveal toggle is on."""
    return bool(st.session_state.get("predict", False))


def _state(key: str, scenario: Hashable) -> dict[str, Any]:
    """The user's guess state for ``key``; a new scenario resets it (and the inputs)."""
    token = hash(scenario)
    name = f"_predict_{key}"
    state = st.session_state.get(name)
    if state is None or state["token"] != token:
        for widget in (f"{key}_guess_x", f"{key}_guess_y", f"{key}_guess"):
            st.session_state.pop(widget, None)
        state = {"token": token, "revealed": False, "click": None}
        st.session_state[name] = state
    return state


def _reveal(name: str) -> None:
    st.session_state[name]["revealed"] = True


def _again(key: str) -> None:
    st.session_state[f"_predict_{key}"]["revealed"] = False
    for widget in (f"{key}_guess_x", f"{key}_guess_y", f"{key}_guess"):
        st.session_state.pop(widget, None)


def _clicked(event: Any) -> tuple[float, float] | None:
    points = (event or {}).get("selection", {}).get("points", []) if isinstance(
        event, Mapping) else getattr(getattr(event, "selection", None), "points", [])
    if not points:
        return None
    last = points[-1]
    return float(last["x"]), float(last["y"])


def mixture_gate(fig: go.Figure, *, scenario: Scenario, rows: ArrayLike,
                 private_means: ArrayLike, true_means: ArrayLike, axes: tuple[int, int],
                 names: Sequence[str], key: str = "gmm") -> bool:
    """Gaussian mixtures in predict mode: guess a private mean, then reveal.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The page's figure with the true and private means (shown only after Reveal, with
        the guess drawn on it).
    scenario : Scenario
        The page's run; a change resets the guess. Its seed is the teaching seed (``None``
        under secure randomness, whose new entropy on every rerun must not reset it).
    rows : array-like
        The rows drawn.
    private_means, true_means : array-like
        k × d, matched.
    axes : (int, int)
        The shown coordinates.
    names : sequence of str
        Coordinate names.
    key : str
        Page prefix of the keys.

    Returns
    -------
    bool
        Whether the page should show ``fig`` itself: always outside predict mode, and after
        Reveal.
    """
    if not enabled():
        return True
    state = _state(key, canonical(scenario.to_dict()))
    name = f"_predict_{key}"
    x_key, y_key = f"{key}_guess_x", f"{key}_guess_y"
    if state["revealed"]:
        return _mixture_reveal(fig, state, private_means, true_means, axes, key=key)
    st.info("**Predict, then reveal.** The true and the private means are hidden. Where will "
            "a private mean land? Click on the plot (or type the coordinates), then press "
            "Reveal.", icon=":material/psychology_alt:")
    guess = _typed(x_key, y_key)
    grid = click_grid(rows, axes)
    event = st.plotly_chart(guess_figure(rows, grid, guess=guess, axes=axes, axis_names=names),
                            theme=None, width="stretch", key=f"{key}_guess_chart",
                            on_select="rerun", selection_mode=("points",),
                            config={"displaylogo": False})
    click = _clicked(event)
    if click is not None and click != state["click"]:
        state["click"] = click
        st.session_state[x_key], st.session_state[y_key] = click
        st.rerun()
    a, b, c = st.columns([2, 2, 1], vertical_alignment="bottom")
    a.number_input(f"Guess: {names[axes[0]]}", value=None, format="%.4g", key=x_key)
    b.number_input(f"Guess: {names[axes[1]]}", value=None, format="%.4g", key=y_key)
    c.button("Reveal", key=f"{key}_reveal", type="primary", on_click=_reveal, args=(name,),
             disabled=_typed(x_key, y_key) is None, icon=":material/visibility:")
    return False


def _typed(x_key: str, y_key: str) -> tuple[float, float] | None:
    x, y = st.session_state.get(x_key), st.session_state.get(y_key)
    return None if x is None or y is None else (float(x), float(y))


def _mixture_reveal(fig: go.Figure, state: dict[str, Any], private_means: ArrayLike,
                    true_means: ArrayLike, axes: tuple[int, int], *, key: str) -> bool:
    guess = _typed(f"{key}_guess_x", f"{key}_guess_y")
    if guess is None:  # revealed without a guess (e.g. the inputs were cleared)
        state["revealed"] = False
        st.rerun()
    assert guess is not None
    add_guess(fig, guess)
    score = score_mean_guess(guess, private_means, true_means, axes)
    a, b = st.columns(2)
    a.metric("Your guess was off by", f"{score.distance:.3g}",
             help="The distance from your guess to the nearest private mean, in the data's "
                  "units (the plotted coordinates).")
    b.metric("Relative to the noise", f"{score.relative:.2g}×",
             help="Your distance divided by how far privacy moved that mean from its true "
                  "value: below 1 you beat the noise.")
    st.success(f"Your guess ({guess[0]:.3g}, {guess[1]:.3g}) landed {score.distance:.3g} "
               f"from private mean {score.component + 1}; the noise moved that mean "
               f"{score.noise:.3g} from the true one ({score.relative:.2g}× that distance). "
               "The true means (black) are shown now.", icon=":material/visibility:")
    st.button("Guess again", key=f"{key}_again", on_click=_again, args=(key,),
              icon=":material/replay:")
    return True


def rounds_gate(rounds: Sequence[int], by_rounds: Mapping[str, ArrayLike], held: str,
                delta: float, *, key: str = "budget") -> bool:
    """Privacy budget in predict mode: guess ε after T rounds, then reveal.

    The question: one round at the held method's noise costs ε₁; what is ε after the
    largest number of rounds the chart draws, under that method?

    Returns
    -------
    bool
        Whether the page should show the ε-by-rounds chart (outside predict mode, or after
        Reveal).
    """
    if not enabled():
        return True
    curve = np.asarray(by_rounds[held], dtype=float)
    answer, first, top = float(curve[-1]), float(curve[0]), int(rounds[-1])
    state = _state(key, (tuple(rounds), held, tuple(np.round(curve, 12)), delta))
    name = f"_predict_{key}"
    method = METHOD_LABELS.get(held, held)
    st.info(f"**Predict, then reveal.** One round of this plan costs ε₁ = {first:.3g} "
            f"(δ = {delta:.2g}, {method}). What is ε after **T = {top}** rounds at the same "
            "noise?", icon=":material/psychology_alt:")
    if not state["revealed"]:
        a, b = st.columns([3, 1], vertical_alignment="bottom")
        a.number_input(f"Your guess: ε after {top} rounds", min_value=0.0, value=None,
                       format="%.4g", key=f"{key}_guess")
        b.button("Reveal", key=f"{key}_reveal", type="primary", on_click=_reveal,
                 args=(name,), disabled=st.session_state.get(f"{key}_guess") is None,
                 icon=":material/visibility:")
        return False
    guess = st.session_state.get(f"{key}_guess")
    if guess is None:
        state["revealed"] = False
        st.rerun()
    off = abs(float(guess) - answer)
    st.success(f"ε after {top} rounds is **{answer:.3g}** ({method}). Your guess "
               f"{float(guess):.3g} was off by {off:.3g} ({off / answer:.0%} of the answer). "
               f"Adding up the rounds (linear composition) would say {top} × {first:.3g} = "
               f"{top * first:.3g}.", icon=":material/visibility:")
    st.button("Guess again", key=f"{key}_again", on_click=_again, args=(key,),
              icon=":material/replay:")
    return True
