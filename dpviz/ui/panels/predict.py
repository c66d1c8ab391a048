"""Predict, then reveal (issue 9, part 4; issue 19, part 3): guess a result, then see it.

With the sidebar's "Predict, then reveal" toggle on (``predict``, bound to the URL), five
pages ask one question each and hide every number that gives its answer away until the
student presses Reveal:

- Privacy lens: how wide the noise is (Laplace b or Gaussian σ) — :func:`lens_question`;
- Gaussian mixtures: where a private mean lands (a click on the plot, over a faint clickable
  grid, or typed coordinates) — :func:`mixture_gate`;
- Privacy budget: ε after T rounds — :func:`rounds_question`;
- Covariance: the Frobenius error of the first private estimator — :func:`covariance_question`;
- Stochastic block model: the share of vertices put in the wrong community —
  :func:`sbm_question`.

A number is asked by :func:`number_gate`; every gate shares one state, one Reveal (which also
hands the prediction to the live class, :func:`dpviz.ui.seat.share`) and one Guess again.
What goes to the class follows one rule: the question and its truth go with the prediction
only when they derive from public inputs, generated or bundled public data
(:func:`from_public_data`), or ledger-charged private releases; on a student's own upload
nothing is sent, the guess included (``Question.public``; the Reveal says so). Every guess lies
in a range the page states from public inputs (``Question.high``; the click grid's box for a
mean), which the class store enforces too: one student cannot stretch the axis the class is
shown on.
Reveal shows the answer and how far off the guess was. Guesses live in ``st.session_state``
(per user, never in the link); a new scenario (data, estimator, ε, δ, seed) forgets the guess
and hides the answer again. The gate returns whether the page may show its answer-bearing
parts; the page skips them otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from numpy.typing import ArrayLike, NDArray

from dpviz.estimators.metrics import community_error
from dpviz.lab.lens import LensView
from dpviz.lab.scenario import USER_KINDS, Scenario
from dpviz.privacy import METHOD_LABELS
from dpviz.ui.runs import canonical
from dpviz.ui.seat import reveal_note, share
from dpviz.ui.widgets import escape_markdown
from dpviz.viz.predict import add_guess, guess_figure

if TYPE_CHECKING:
    from dpviz.estimators.result import Result


class CovarianceRun(Protocol):
    """A covariance run as its question reads it (the covariance page's ``Run``)."""

    @property
    def name(self) -> str:
        """Its estimator's registry key."""

    @property
    def label(self) -> str:
        """Its estimator's short label."""

    @property
    def result(self) -> Result:
        """Its run's result."""

    @property
    def error(self) -> float:
        """‖Σ̃ − Σ‖_F against the unclipped data's Σ."""

GRID_SIDE = 41
#: Margin around the rows' range in which a guess may be clicked, as a share of the range.
GRID_MARGIN = 0.05
#: A typed mean may lie this many widths of the click grid beyond it, either way (a private
#: mean at a small ε may land well outside the data's range).
GUESS_REACH = 2.0
#: The largest noise scale a lens guess may be, in units of the query's sensitivity Δ: at the
#: slider's smallest ε (0.01) Laplace's b is 100 Δ and Gaussian's σ under 750 Δ for δ ≥ 1e-12.
LENS_HIGH = 1000.0
#: The largest covariance error a guess may be, in units of the public bound on ‖Σ‖ (r² for
#: rows in a ball of radius r: ‖XᵀX/n‖_F ≤ max ‖x‖²), never of ‖Σ‖ itself (the data's).
COVARIANCE_HIGH = 1000.0
#: The largest covariance error a guess may be when the bound is not public (ranges read from
#: the data or released privately): a fixed cap, so the box says nothing of the data.
COVARIANCE_UNBOUNDED = 1e12
#: The largest ε after T rounds a guess may be, in units of the linear composition T × ε₁
#: (an upper bound of the answer: every accountant does at least as well).
BUDGET_HIGH = 10.0


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


def guess_box(grid: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The box a typed mean may lie in: the click grid's, :data:`GUESS_REACH` widths wider.

    Examples
    --------
    >>> low, high = guess_box([[0.0, 10.0], [1.0, 30.0]])
    >>> low.tolist(), high.tolist()
    ([-2.0, -30.0], [3.0, 70.0])
    """
    points = np.asarray(grid, dtype=float)
    low, high = points.min(axis=0), points.max(axis=0)
    reach = GUESS_REACH * (high - low)
    return low - reach, high + reach


#: Widget keys of a gate's guess inputs, after its page prefix.
GUESS_SUFFIXES = ("_guess", "_guess_x", "_guess_y")
#: What the page shows in place of a hidden number or panel.
HIDDEN = "Hidden until you reveal your guess."


@dataclass(frozen=True)
class Question:
    """One number a page asks for before it shows it (:func:`number_gate`).

    Attributes
    ----------
    step : str
        The page, as the live class names its steps (``"lens"``, ``"budget"`` …).
    prompt : str
        The question in one or two plain sentences (no Markdown: the live class stores it).
    label : str
        The guess box's label.
    name : str
        What the answer is, in the reveal: "ε after 40 rounds".
    answer : float
        The truth, from the page's own run.
    note : str
        A sentence added to the reveal (what the answer teaches).
    high : float
        The largest guess allowed (the smallest is 0: every question asks for a size), from
        public inputs only (a range built on the answer would give it away), stated in the
        guess box's label and enforced by the class store.
    public : bool
        Whether ``prompt`` and ``answer`` derive only from public inputs, generated or
        bundled public data, or ledger-charged private releases. If not (a student's own
        upload), the live class gets the prediction alone (:func:`dpviz.ui.seat.share`).
    """

    step: str
    prompt: str
    label: str
    name: str
    answer: float
    note: str = ""
    high: float = field(kw_only=True)
    public: bool = field(kw_only=True)

    def score(self, guess: float) -> str:
        """The reveal's sentence: the answer and how far off ``guess`` was.

        Examples
        --------
        >>> Question("budget", "?", "ε", "ε after 2 rounds", 2.0, high=40,
        ...          public=True).score(1.5)
        'ε after 2 rounds is **2**. Your guess 1.5 was off by 0.5 (25% of the answer).'
        >>> Question("budget", "?", "ε", "ε after 2 rounds", math.inf, high=40,
        ...          public=True).score(1.5)
        'ε after 2 rounds is **inf**. Your guess 1.5 was off by inf.'
        """
        off = abs(guess - self.answer)
        share = (f" ({off / abs(self.answer):.0%} of the answer)"
                 if self.answer and math.isfinite(self.answer) else "")
        return (f"{self.name} is **{self.answer:.3g}**. Your guess {guess:.3g} was off by "
                f"{off:.3g}{share}." + (f" {self.note}" if self.note else ""))


def from_public_data(*scenarios: Scenario) -> bool:
    """Whether every scenario runs on generated or bundled public data (no user's own file).

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "covariance", "estimator": "gauss",
    ...                         "data": {"upload": "mine.csv", "sha256": "0" * 64},
    ...                         "params": {"rho": 0.5}})
    >>> from_public_data(s)
    False
    """
    return not any(kind in s.data for s in scenarios for kind in USER_KINDS)


def enabled() -> bool:
    """Whether the sidebar's predict-then-reveal toggle is on."""
    return bool(st.session_state.get("predict", False))


def _name(key: str) -> str:
    return f"_predict_{key}"


def _forget(key: str) -> None:
    for suffix in GUESS_SUFFIXES:
        st.session_state.pop(f"{key}{suffix}", None)


def _state(key: str, scenario: Hashable) -> dict[str, Any]:
    """The user's guess state for ``key``; a new scenario resets it (and the inputs)."""
    token = hash(scenario)
    state = st.session_state.get(_name(key))
    if state is None or state["token"] != token:
        _forget(key)
        state = {"token": token, "revealed": False, "click": None}
        st.session_state[_name(key)] = state
    return state


def _guessed(keys: Mapping[str, str]) -> dict[str, float] | None:
    """The guess typed in the inputs ``name → widget key``, or ``None`` while one is empty."""
    values = {name: st.session_state.get(widget) for name, widget in keys.items()}
    known = {name: float(v) for name, v in values.items() if v is not None}
    return known if len(known) == len(values) else None


def _reveal(key: str, step: str, question: str, guesses: Mapping[str, str],
            truth: Mapping[str, float | Sequence[float]], public: bool,
            within: tuple[float, float]) -> None:
    """Reveal's callback: show the answer and hand the prediction to the live class.

    ``public``: whether anything may go (``Question.public``); ``within``: the guess's range.
    """
    prediction = _guessed(guesses)
    if prediction is None:  # the inputs were cleared as the button was pressed
        return
    st.session_state[_name(key)]["revealed"] = True
    share(step, question, prediction, truth, public=public, within=within)


def _again(key: str) -> None:
    st.session_state[_name(key)]["revealed"] = False
    _forget(key)


def _reveal_button(key: str, *, step: str, question: str, guesses: Mapping[str, str],
                   truth: Mapping[str, float | Sequence[float]], public: bool,
                   within: tuple[float, float]) -> None:
    """Reveal, as wide as its label, then where the prediction goes (a class, or why not)."""
    st.button("Reveal", key=f"{key}_reveal", type="primary", on_click=_reveal,
              args=(key, step, question, guesses, truth, public, within),
              disabled=_guessed(guesses) is None, icon=":material/visibility:",
              width="content")
    reveal_note(public=public)


def _again_button(key: str) -> None:
    st.button("Guess again", key=f"{key}_again", on_click=_again, args=(key,),
              icon=":material/replay:")


def _ask(prompt: str) -> None:
    st.info(f"**Predict, then reveal.** {prompt}", icon=":material/psychology_alt:")


def _revealed_guess(state: dict[str, Any], guesses: Mapping[str, str]) -> dict[str, float]:
    """The guess behind a revealed state; back to hidden (a rerun) if it was cleared."""
    guess = _guessed(guesses)
    if guess is None:
        state["revealed"] = False
        st.rerun()
    assert guess is not None
    return guess


def number_gate(question: Question | None, *, scenario: Hashable, key: str) -> bool:
    """Ask ``question`` in predict mode, hiding its answer until Reveal.

    Parameters
    ----------
    question : Question or None
        What to ask (``None``: the run has nothing to ask, e.g. an upload without a truth).
    scenario : hashable
        What the page ran (public inputs only: under secure randomness no seed); a change
        forgets the guess and hides the answer again.
    key : str
        Page prefix of the keys.

    Returns
    -------
    bool
        Whether the page may show the answer and everything that gives it away: outside
        predict mode, with no question, and after Reveal.
    """
    if not enabled() or question is None:
        return True
    state = _state(key, scenario)
    guesses = {"guess": f"{key}_guess"}
    _ask(question.prompt)
    if not state["revealed"]:
        st.number_input(f"{question.label} (0 to {question.high:.3g})", min_value=0.0,
                        max_value=question.high, value=None, format="%.4g", key=f"{key}_guess")
        _reveal_button(key, step=question.step, question=question.prompt,
                       guesses=guesses, truth={"answer": question.answer},
                       public=question.public, within=(0.0, question.high))
        return False
    guess = _revealed_guess(state, guesses)["guess"]
    st.success(question.score(guess), icon=":material/visibility:")
    _again_button(key)
    return True


def scenario_token(*scenarios: Scenario) -> str:
    """The gate's reset key for a page's scenarios (their canonical JSON)."""
    return canonical([s.to_dict() for s in scenarios])


def _clicked(event: Any) -> tuple[float, float] | None:
    points = (event or {}).get("selection", {}).get("points", []) if isinstance(
        event, Mapping) else getattr(getattr(event, "selection", None), "points", [])
    if not points:
        return None
    last = points[-1]
    return float(last["x"]), float(last["y"])


def mixture_gate(fig: go.Figure, *, scenario: Scenario, rows: ArrayLike,
                 private_means: ArrayLike, true_means: ArrayLike, axes: tuple[int, int],
                 names: Sequence[str], reference: str | None = None, key: str = "gmm") -> bool:
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
    reference : str, optional
        What ``true_means`` are when the data have no truth (a user's file: "non-private EM
        on your data"); the sentences then name it instead of "the true means".
    key : str
        Page prefix of the keys.

    Returns
    -------
    bool
        Whether the page may show ``fig`` and every number that reveals the private means
        or their errors: always outside predict mode, and after Reveal.
    """
    if not enabled():
        return True
    state = _state(key, scenario_token(scenario))
    x_key, y_key = f"{key}_guess_x", f"{key}_guess_y"
    guesses = {"x": x_key, "y": y_key}
    if state["revealed"]:
        return _mixture_reveal(fig, state, guesses, private_means, true_means, axes,
                               reference=reference, key=key)
    prompt = (f"The {_black(reference)} and the private means are hidden. Where will a "
              "private mean land? Click on the plot (or type the coordinates), then press "
              "Reveal.")
    _ask(prompt)
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
    a, b = st.columns(2, vertical_alignment="bottom")
    low, high = guess_box(grid)
    # a CSV header is the user's text: Streamlit renders Markdown (links, images) in labels
    for column, axis, widget in ((a, 0, x_key), (b, 1, y_key)):
        column.number_input(f"Guess: {escape_markdown(names[axes[axis]])}", value=None,
                            min_value=float(low[axis]), max_value=float(high[axis]),
                            format="%.4g", key=widget)
    private = np.asarray(private_means, dtype=float)[:, list(axes)]
    # the private means are charged on the ledger, but on an upload the estimator may be a
    # non-private one, or its bounds read from the data, and the grid clicked on is drawn
    # over the data's range: there nothing goes to the class, the guess included
    _reveal_button(key, step="gmm", question="Where will a private mean land?",
                   guesses=guesses, truth={"x": private[:, 0].tolist(),
                                           "y": private[:, 1].tolist()},
                   public=from_public_data(scenario),
                   within=(float(low.min()), float(high.max())))
    return False


def _black(reference: str | None) -> str:
    """The black means' name: ``"true means"``, or ``"means of <reference>"`` on a user's file."""
    return "true means" if reference is None else f"means of {reference}"


def _typed(x_key: str, y_key: str) -> tuple[float, float] | None:
    guess = _guessed({"x": x_key, "y": y_key})
    return None if guess is None else (guess["x"], guess["y"])


def _mixture_reveal(fig: go.Figure, state: dict[str, Any], guesses: Mapping[str, str],
                    private_means: ArrayLike, true_means: ArrayLike, axes: tuple[int, int], *,
                    reference: str | None, key: str) -> bool:
    typed = _revealed_guess(state, guesses)
    guess = typed["x"], typed["y"]
    add_guess(fig, guess)
    score = score_mean_guess(guess, private_means, true_means, axes)
    whose = "the true one" if reference is None else f"the matching mean of {reference}"
    a, b = st.columns(2)
    a.metric("Your guess was off by", f"{score.distance:.3g}",
             help="The distance from your guess to the nearest private mean, in the data's "
                  "units (the plotted coordinates).")
    b.metric("Relative to the noise", f"{score.relative:.2g}×",
             help=f"Your distance divided by how far privacy moved that mean from {whose}: "
                  "below 1 you beat the noise.")
    st.success(f"Your guess ({guess[0]:.3g}, {guess[1]:.3g}) landed {score.distance:.3g} "
               f"from private mean {score.component + 1}; the noise moved that mean "
               f"{score.noise:.3g} from {whose} ({score.relative:.2g}× that distance). "
               f"The {_black(reference)} (black) are shown now.", icon=":material/visibility:")
    _again_button(key)
    return True


def rounds_question(rounds: Sequence[int], by_rounds: Mapping[str, ArrayLike], held: str,
                    delta: float) -> Question:
    """Privacy budget: one round costs ε₁ at the held method's noise; guess ε after T rounds.

    ``rounds`` and ``by_rounds`` are the ε-by-rounds chart's (the chart draws up to twice the
    plan's rounds).
    """
    curve = np.asarray(by_rounds[held], dtype=float)
    first, top = float(curve[0]), int(rounds[-1])
    method = METHOD_LABELS.get(held, held)
    return Question(
        "budget", f"One round of this plan costs ε₁ = {first:.3g} (δ = {delta:.2g}, {method}). "
                  f"What is ε after T = {top} rounds at the same noise?",
        f"Your guess: ε after {top} rounds", f"ε after {top} rounds", float(curve[-1]),
        note=f"({method}.) Adding up the rounds (linear composition) would say {top} × "
             f"{first:.3g} = {top * first:.3g}.", high=BUDGET_HIGH * top * first,
        public=True)  # the plan alone: no data


def lens_question(view: LensView) -> Question:
    """Privacy lens: guess how wide the noise will be (Laplace b or Gaussian σ).

    Public: Δ and the noise scale depend on the query, the public range, the budget and the
    number of rows n (public under replace-one DP), never on the rows' values.
    """
    scale = "b" if view.mechanism == "laplace" else "σ"
    spread = ("the average distance of a noisy answer from the true one" if scale == "b" else
              "the standard deviation of the noisy answers")
    return Question(
        "lens", f"The query's sensitivity is Δ = {view.sensitivity:.4g}. How wide will the "
                f"noise be at this ε and δ? Guess the {view.mechanism.capitalize()} scale "
                f"{scale}: {spread}.",
        f"Your guess: {scale}", f"The noise scale {scale}", float(view.allocation.scale),
        note=("With the whole ε on one release, Laplace needs b = Δ/ε: halve ε and the noise "
              "doubles." if scale == "b" else "Gaussian σ grows like Δ·√(2 ln(1.25/δ))/ε: "
              "a smaller δ costs noise too."), high=LENS_HIGH * view.sensitivity, public=True)


def covariance_question(runs: Sequence[CovarianceRun],
                        scenarios: Sequence[Scenario]) -> Question | None:
    """Covariance: the Frobenius error ‖Σ̃ − Σ‖ of the first chosen estimator that releases.

    The zero matrix's error ‖Σ‖_F is given as the scale (``None`` when only the zero
    reference or non-private estimators were chosen). Both are exact statistics of the data:
    on a user's own data (``scenarios``, the runs' scenarios) the question is not public.
    """
    private = [run for run in runs if run.result.ledger.releases and run.name != "zero"]
    if not private:
        return None
    run = private[0]
    zero = float(np.linalg.norm(np.asarray(run.result.diagnostics["true_covariance"])))
    bound = covariance_bound(scenarios[0]) if scenarios else None
    return Question(
        "covariance", f"How far will {run.label}'s private matrix land from the true Σ? Guess "
                      f"its error ‖Σ̃ − Σ‖ (Frobenius). For scale: answering the zero matrix "
                      f"is off by ‖Σ‖ = {zero:.3g}.",
        f"Your guess: {run.label}'s error", f"{run.label}'s error ‖Σ̃ − Σ‖", run.error,
        note="Compare it with the zero matrix: a private estimate is worth releasing only "
             "below that.",
        high=COVARIANCE_UNBOUNDED if bound is None else COVARIANCE_HIGH * bound,
        public=from_public_data(*scenarios))


def covariance_bound(scenario: Scenario) -> float | None:
    """The public bound on ‖Σ‖_F of clipped rows, from the scenario's public inputs only.

    ``r²`` for rows clipped to a ball of radius r (``‖XᵀX/n‖_F ≤ max ‖x‖² ≤ r²``); for typed
    ranges ``Σ max(low², high²)``, the largest squared norm in the box; ``None`` when the bound
    is not public (ranges read from the data or released privately).

    Examples
    --------
    >>> covariance_bound(Scenario("covariance", "gauss", {"generator": "gaussian"},
    ...                           {"radius": 2.0}))
    4.0
    >>> covariance_bound(Scenario("covariance", "gauss", {
    ...     "upload": "t.csv", "sha256": "0" * 64,
    ...     "bounds": {"ranges": [[-1.0, 3.0], [0.0, 2.0]], "standardise": False}}, {}))
    13.0
    """
    radius = scenario.params.get("radius")
    if isinstance(radius, int | float) and not isinstance(radius, bool):
        return float(radius) ** 2
    ranges = (scenario.data.get("bounds") or {}).get("ranges")
    if ranges:
        return float(sum(max(low * low, high * high) for low, high in ranges))
    return None


def sbm_question(labels: ArrayLike | None, found: ArrayLike) -> Question | None:
    """Stochastic block model: the share of vertices put in the wrong community.

    ``None`` for a graph without known communities (an upload); with them the graph is
    generated or a bundled public one, so the question is public.
    """
    if labels is None:
        return None
    return Question(
        "sbm", "What share of the vertices will the private algorithm put in the wrong "
               "community at this ε? 0 is perfect, 0.5 a coin flip.",
        "Your guess: error rate", "The error rate",
        community_error(np.asarray(labels), np.asarray(found)), high=0.5,
        note="Privacy noise on the edges blurs the two blocks; below the Kesten–Stigum "
             "threshold not even the non-private answer beats a coin flip.", public=True)
