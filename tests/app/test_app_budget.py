"""Privacy budget page: widgets, the solver's numbers on screen, bad input as sentences."""

from __future__ import annotations

import numpy as np
import pytest

from .app_helpers import charts, errors, values

CHARTS = ["budget_noise", "budget_rounds_chart", "budget_bar", "budget_delta_chart"]


def test_budget_page_draws_everything(budget):
    assert not budget.exception
    assert budget.title[0].value == "Privacy budget"
    for key in ("budget_plan",):
        assert budget.radio(key=key).value == "DP-EM GGG"
    assert budget.number_input(key="budget_epsilon").value == 1.0
    assert budget.number_input(key="budget_delta").value == pytest.approx(1e-5)
    assert budget.number_input(key="budget_rounds").value == 20
    assert budget.number_input(key="budget_k").value == 3
    assert budget.toggle(key="budget_paper").value is False
    assert budget.selectbox(key="budget_hold").value == "pld"
    assert list(charts(budget)) == CHARTS
    assert len(budget.dataframe) == 1
    # one CSV per chart, and the risk panel's stakeholder report (issue 35)
    assert len(budget.get("download_button")) == len(CHARTS) + 1


def test_headline_states_the_ratio(budget):
    message = budget.info[0].value
    assert message.startswith("Linear composition needs 11.5×")
    assert "Privacy loss distribution" in message and "506.8" in message


def test_noise_bars_show_every_method(budget):
    bars = charts(budget)["budget_noise"]["data"]
    assert len(bars) == 1 and bars[0]["type"] == "bar"
    assert list(bars[0]["x"]) == ["linear", "advanced", "zCDP", "MA", "RDP", "PLD"]
    y = values(bars[0]["y"])
    assert y[0] == pytest.approx(506.78, rel=1e-3) and y[-1] == pytest.approx(44.14, rel=1e-3)


def test_epsilon_slider_changes_the_noise(budget):
    before = values(charts(budget)["budget_noise"]["data"][0]["y"])
    budget.number_input(key="budget_epsilon").set_value(2.0).run()
    assert not budget.exception
    after = values(charts(budget)["budget_noise"]["data"][0]["y"])
    assert np.all(after < before)


def test_paper_mode_reproduces_seed_002(budget):
    budget.number_input(key="budget_rounds").set_value(10)
    budget.number_input(key="budget_delta").set_value(1e-4)
    budget.toggle(key="budget_paper").set_value(True).run()
    assert not budget.exception
    y = values(charts(budget)["budget_noise"]["data"][0]["y"])
    # ALGORITHMS.md §1.2 regression targets: linear 366.2, zCDP (Bun–Steinke) 36.86
    assert y[0] == pytest.approx(366.2, abs=0.1)
    assert y[2] == pytest.approx(36.86, abs=0.01)


def test_llg_and_free_plans(budget):
    budget.radio(key="budget_plan").set_value("DP-EM LLG").run()
    assert not budget.exception and not errors(budget)
    names = [t["name"] for t in charts(budget)["budget_noise"]["data"]]
    assert names == ["weights", "means", "covariances"]
    budget.radio(key="budget_plan").set_value("Free plan").run()
    assert not budget.exception and not errors(budget)
    assert budget.selectbox(key="budget_mech1").value == "gaussian"
    budget.number_input(key="budget_lines").set_value(3).run()
    assert budget.selectbox(key="budget_mech3").value == "pure"
    names = [t["name"] for t in charts(budget)["budget_noise"]["data"]]
    assert names == ["line 1: gaussian", "line 2: laplace", "line 3: pure"]


def test_hold_method_changes_the_rounds_curve(budget):
    before = charts(budget)["budget_rounds_chart"]
    budget.selectbox(key="budget_hold").set_value("linear").run()
    after = charts(budget)["budget_rounds_chart"]
    assert before["layout"]["title"]["text"] != after["layout"]["title"]["text"]
    pld_before = values(before["data"][5]["y"])
    pld_after = values(after["data"][5]["y"])
    assert np.all(pld_after < pld_before)  # linear's noise is larger, so PLD certifies less ε


def test_delta_zero_with_gaussians_is_a_sentence(budget):
    budget.number_input(key="budget_delta").set_value(0.0).run()
    assert not budget.exception
    assert errors(budget) == ["a plan with Gaussian releases needs delta > 0"]
    assert charts(budget) == {}


def test_delta_zero_pure_plan_only_linear(budget):
    budget.radio(key="budget_plan").set_value("Free plan").run()
    budget.selectbox(key="budget_mech1").set_value("laplace")
    budget.number_input(key="budget_delta").set_value(0.0)
    budget.selectbox(key="budget_hold").set_value("linear").run()
    assert not budget.exception and not errors(budget)
    table = budget.dataframe[0].value.set_index("method")
    assert table.loc["Linear composition", "note"] == ""
    assert "needs delta > 0" in table.loc["zCDP", "note"]
    assert list(charts(budget)["budget_noise"]["data"][0]["x"]) == ["linear"]
    budget.selectbox(key="budget_hold").set_value("pld").run()
    assert not budget.exception
    assert errors(budget) == ["Privacy loss distribution needs delta > 0; with delta = 0 only "
                              "linear composition (pure epsilon-DP) applies"]


@pytest.mark.parametrize(("key", "value", "sentence"), [
    ("budget_delta", 1.0, "delta must be >= 0 and < 1, got 1.0"),
    ("budget_k", 100_000, "the plan makes 4000020 releases; dpviz composes at most 100000"),
])
def test_bad_input_shows_the_engine_sentence(budget, key, value, sentence):
    budget.number_input(key=key).set_value(value).run()
    assert not budget.exception
    assert errors(budget) == [sentence]
    assert charts(budget) == {}


def test_zero_weight_is_a_sentence(budget):
    budget.radio(key="budget_plan").set_value("Free plan").run()
    budget.number_input(key="budget_weight1").set_value(0.0).run()
    assert not budget.exception
    assert errors(budget) == ["weight must be > 0, got 0.0"]


@pytest.mark.parametrize("count", [10**9, 0])
def test_a_count_out_of_range_is_refused(budget, count):
    budget.radio(key="budget_plan").set_value("Free plan").run()
    budget.number_input(key="budget_count1").set_value(count).run()
    assert not budget.exception and not errors(budget)
    value = budget.number_input(key="budget_count1").value
    assert value >= 1 and value <= 100_000


def test_tiny_epsilon(budget):
    budget.number_input(key="budget_epsilon").set_value(0.01).run()
    assert not budget.exception
    assert not errors(budget)
