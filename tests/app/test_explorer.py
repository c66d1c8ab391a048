"""Trade-off explorer page: widgets, a tiny sweep to the end, the curves, bad grid text."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from .app_helpers import charts, errors, open_page


@pytest.fixture
def explorer(tmp_path, monkeypatch) -> AppTest:
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    return open_page("explorer")


def small_sweep(at: AppTest) -> AppTest:
    """A tiny gmm sweep in this process: 2 points × 2 repeats × 2 estimators."""
    at.text_input(key="explorer_gmm_epsilon_values").set_value("0.5, 4").run()
    at.number_input(key="explorer_repeats").set_value(2).run()
    at.radio(key="explorer_jobs").set_value(1).run()
    return at


def test_the_page_opens_with_the_widgets_and_no_result(explorer):
    assert not explorer.exception and not errors(explorer)
    assert explorer.title[0].value == "Trade-off explorer"
    assert explorer.selectbox(key="explorer_task").value == "gmm"
    assert explorer.multiselect(key="explorer_gmm_estimators").value == ["dp_em", "dplloyd"]
    assert "Set the sweep, then run it." in [i.value for i in explorer.info]
    assert not charts(explorer)


def test_a_small_sweep_runs_to_the_end_and_draws_the_curves(explorer, tmp_path):
    at = small_sweep(explorer)
    at.button(key="explorer_run").click().run()
    assert not at.exception and not errors(at)
    figure = charts(at)["explorer_curves"]
    lines = [t for t in figure["data"] if t.get("mode") == "lines+markers"]
    assert len(lines) == 2 and len(figure["data"]) == 4  # a band per estimator
    summary = at.dataframe[0].value
    assert set(summary["count"]) == {2} and len(summary) == 4
    assert list(tmp_path.glob("*.jsonl"))  # finished runs kept on disk
    spec = json.loads(at.code[1].value)
    assert spec["grid"] == {"epsilon": [0.5, 4.0]} and spec["repeats"] == 2
    assert "python -m dpviz sweep spec.json" in at.code[0].value
    at.selectbox(key="explorer_metric_drawn").set_value("mean_error").run()
    assert "explorer_curves" in charts(at)  # the result stays after a rerun


def test_bad_grid_text_gives_a_sentence(explorer):
    explorer.text_input(key="explorer_gmm_epsilon_values").set_value("0.5, lots").run()
    assert not explorer.exception
    assert any("'lots' is not a number" in e for e in errors(explorer))
    explorer.text_input(key="explorer_gmm_epsilon_values").set_value("0.5, -1").run()
    assert any("epsilon must be > 0" in e for e in errors(explorer))


def test_switching_task_offers_its_estimators_and_grid(explorer):
    explorer.selectbox(key="explorer_task").set_value("covariance").run()
    assert not explorer.exception and not errors(explorer)
    assert explorer.selectbox(key="explorer_covariance_x").value == "rho"
    assert explorer.text_input(key="explorer_covariance_rho_values").value == "0.01, 0.1, 1"
