"""Predict, then reveal (issue 9, part 4) and the risk panel (part 2; issue 35)."""

from __future__ import annotations

import math
from hashlib import sha256

import numpy as np
import pytest

from dpviz.lab.scenario import Scenario, load_data, run_scenario
from dpviz.ui.pages.covariance import Run as CovarianceRun
from dpviz.ui.panels.predict import (
    COVARIANCE_HIGH,
    click_grid,
    covariance_question,
    score_mean_guess,
)

from .app_helpers import charts, open_page, open_section

TRUE_MEANS = "true means"


def trace_names(figure):
    return [t.get("name") for t in figure["data"]]


@pytest.fixture
def gmm_predict():
    at = open_page("gmm")
    at.toggle(key="predict").set_value(True).run()
    assert not at.exception, at.exception
    return at


def reveal_button(at):
    return next(b for b in at.button if b.key == "gmm_reveal")


def test_gmm_hides_the_means_until_a_guess_is_revealed(gmm_predict):
    at = gmm_predict
    shown = charts(at)
    assert "gmm_figure" not in shown  # neither true nor private means on screen
    guess = shown["gmm_guess_chart"]
    assert TRUE_MEANS not in trace_names(guess) and "private means" not in trace_names(guess)
    assert "your guess" not in trace_names(guess)
    assert "Predict, then reveal" in at.info[0].value
    assert reveal_button(at).disabled  # nothing to reveal before a guess
    assert not at.success

    at.number_input(key="gmm_guess_x").set_value(0.1).run()
    at.number_input(key="gmm_guess_y").set_value(-0.2).run()
    assert not at.exception
    assert "your guess" in trace_names(charts(at)["gmm_guess_chart"])
    assert not reveal_button(at).disabled

    reveal_button(at).click().run()
    assert not at.exception
    shown = charts(at)
    assert "gmm_guess_chart" not in shown
    names = trace_names(shown["gmm_figure"])
    assert TRUE_MEANS in names and "your guess" in names
    message = at.success[0].value
    assert "landed" in message and "from private mean" in message
    labels = {m.label: m.value for m in at.metric}
    distance = float(labels["Your guess was off by"])
    assert distance > 0 and labels["Relative to the noise"].endswith("×")


def test_a_new_epsilon_hides_the_answer_again(gmm_predict):
    at = gmm_predict
    at.number_input(key="gmm_guess_x").set_value(0.0).run()
    at.number_input(key="gmm_guess_y").set_value(0.0).run()
    reveal_button(at).click().run()
    assert "gmm_figure" in charts(at)
    at.number_input(key="gmm_epsilon").set_value(2.0).run()
    assert not at.exception
    assert "gmm_figure" not in charts(at)
    assert at.number_input(key="gmm_guess_x").value is None  # the guess is forgotten


def test_guess_again_forgets_the_guess(gmm_predict):
    at = gmm_predict
    at.number_input(key="gmm_guess_x").set_value(0.3).run()
    at.number_input(key="gmm_guess_y").set_value(0.3).run()
    reveal_button(at).click().run()
    next(b for b in at.button if b.key == "gmm_again").click().run()
    assert not at.exception
    assert "gmm_figure" not in charts(at)
    assert reveal_button(at).disabled


def test_predict_off_is_the_ordinary_page():
    at = open_page("gmm")
    assert not at.exception
    shown = charts(at)
    assert "gmm_figure" in shown and "gmm_guess_chart" not in shown
    assert TRUE_MEANS in trace_names(shown["gmm_figure"])


def test_budget_page_guess_epsilon_after_t_rounds():
    at = open_page("budget")
    at.toggle(key="predict").set_value(True).run()
    assert not at.exception
    assert "budget_rounds_chart" not in charts(at)
    question = next(i.value for i in at.info if "Predict, then reveal" in i.value)
    assert "T = 40" in question  # the chart draws 1 … 2 × the plan's 20 iterations
    at.number_input(key="budget_guess").set_value(2.0).run()
    next(b for b in at.button if b.key == "budget_reveal").click().run()
    assert not at.exception
    assert "budget_rounds_chart" in charts(at)
    message = at.success[0].value
    assert "ε after 40 rounds is" in message and "off by" in message
    answer = float(message.split("**")[1])
    assert answer > 1.0 and answer < 2.0  # twice the rounds: more than the target, far less than 2ε


def test_risk_panel_beside_the_gmm_budget():
    at = open_page("gmm")
    frequency = next(m.value for m in at.markdown if m.value.startswith("**In frequencies:**"))
    assert "pick out at most 2 in 100" in frequency  # DP-EM at ε = 1, δ = 1e-5, by PLD
    assert "becomes at most 73.1% sure" in " ".join(m.value for m in at.markdown)
    at = open_section(at, "gmm_risk_experts")
    assert not at.exception
    attack = next(m.value for m in at.markdown if m.value.startswith("**Best attack:**"))
    odds = next(m.value for m in at.markdown if m.value.startswith("**Odds:**"))
    advantage = float(attack.split("**")[5].rstrip("%")) / 100
    posterior = float(odds.split("**")[3].rstrip("%")) / 100
    assert 0.05 < advantage < 0.2  # DP-EM at ε = 1, δ = 1e-5, composed by PLD
    assert 0.5 < posterior < math.e / (1 + math.e) + 1e-3
    assert "50% sure" in odds
    shown = charts(at)
    assert {"gmm_risk_tradeoff", "gmm_risk_posterior"} <= set(shown)
    names = trace_names(shown["gmm_risk_tradeoff"])
    assert any(n.startswith("largest advantage") for n in names)


def test_risk_panel_on_the_budget_page():
    at = open_section(open_page("budget"), "budget_risk_experts")
    panel = " ".join(m.value for m in at.markdown if m.value.startswith(("**Odds", "**Best")))
    assert "**46.2%**" in panel and "**73.1%**" in panel  # ε = 1, δ = 1e-5


def test_score_and_grid():
    score = score_mean_guess((1.0, 1.0), [[0.0, 0.0], [1.0, 2.0]], [[0.0, 0.5], [1.0, 1.5]])
    assert score.component == 1 and score.distance == 1.0 and score.noise == 0.5
    assert score.relative == 2.0
    grid = click_grid([[0.0, 0.0], [1.0, 2.0]], (0, 1))
    assert grid.shape == (41 * 41, 2)
    assert grid[:, 0].min() < 0 < 1 < grid[:, 0].max()


@pytest.mark.parametrize("bound", [{"radius": 20.0}, {"ranges": [[-12.0, 12.0], [-16.0, 16.0]]}])
def test_the_covariance_guess_range_comes_from_public_inputs_only(bound):
    """Two uploads with the same public bound but different rows get the same guess range,
    stated in the box's label and sent to the live class (issue 9's Question.high)."""
    rng = np.random.default_rng(3)
    highs = []
    for spread in (1.0, 5.0):
        content = "".join(f"{a:.4f},{b:.4f}\n" for a, b in rng.normal(0, spread, (200, 2)))
        data = {"upload": "rows.csv", "sha256": sha256(content.encode()).hexdigest()}
        params: dict[str, object] = {"epsilon": 1.0, "delta": 1e-6}
        if "radius" in bound:
            params["radius"] = bound["radius"]
        else:
            data["bounds"] = {"ranges": bound["ranges"], "standardise": False}
        s = Scenario.from_dict({"task": "covariance", "estimator": "gauss", "data": data,
                                "params": params, "seed": 0})
        result = run_scenario(s, load_data(s.data, content=content.encode()))
        question = covariance_question([CovarianceRun("gauss", "Gauss", result)], [s])
        assert question is not None and not question.public
        highs.append(question.high)
    assert highs[0] == highs[1] == COVARIANCE_HIGH * 400.0
