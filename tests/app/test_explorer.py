"""Trade-off explorer page: widgets, a tiny sweep to the end, the curves, bad grid text."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from .app_helpers import charts, errors, open_page, values


@pytest.fixture
def explorer(tmp_path, monkeypatch) -> AppTest:
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    return open_page("explorer")


def small_sweep(at: AppTest) -> AppTest:
    """A tiny gmm sweep in this process: 2 points × 2 repeats × 2 estimators."""
    at.text_input(key="explorer_gmm_epsilon_values").set_value("0.5, 4").run()
    at.number_input(key="explorer_gmm_data_n").set_value(2000).run()
    at.number_input(key="explorer_repeats").set_value(3).run()
    at.radio(key="explorer_jobs").set_value(1).run()
    return at


def test_the_page_opens_with_the_widgets_and_no_result(explorer):
    assert not explorer.exception and not errors(explorer)
    assert explorer.title[0].value == "Trade-off explorer"
    assert explorer.selectbox(key="explorer_task").value == "gmm"
    assert explorer.multiselect(key="explorer_gmm_estimators").value == ["dp_em", "dplloyd"]
    assert explorer.number_input(key="explorer_gmm_data_n").value == 10_000  # beside ε
    assert "Set the sweep, then run it." in [i.value for i in explorer.info]
    assert any("predicted" not in c.value and "about" in c.value and "s on 2 processes"
               in c.value for c in explorer.caption)  # the cost model's estimate, up front
    assert not charts(explorer)


def test_a_small_sweep_at_my_n_runs_to_the_end_and_draws_readable_curves(explorer, tmp_path):
    at = small_sweep(explorer)
    at.button(key="explorer_run").click().run()
    assert not at.exception and not errors(at)
    figure = charts(at)["explorer_curves"]
    lines = [t for t in figure["data"] if t.get("mode") == "lines+markers"]
    assert [t["name"] for t in lines] == ["DP-EM", "DPLloyd (noisy k-means)"]
    assert len(figure["data"]) == 4  # a band per estimator
    assert figure["layout"]["xaxis"]["type"] == "log"  # ε on a log axis
    assert figure["layout"]["yaxis"]["title"]["text"].startswith("error of the means")
    bands = [values(t["y"]) for t in figure["data"] if t.get("fill") == "toself"]
    assert all((band >= 0).all() for band in bands)  # quantiles of errors: never below zero
    summary = at.dataframe[0].value
    assert set(summary["runs with an answer"]) == {3} and len(summary) == 4
    assert {"Estimator", "privacy ε", "median", "10th percentile"} <= set(summary.columns)
    assert list(tmp_path.glob("*.jsonl"))  # finished runs kept on disk
    assert "python -m dpviz sweep spec.json" in at.code[0].value
    assert any(c.value.startswith("The sweep took") and "predicted about" in c.value
               for c in at.caption)
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


@pytest.mark.parametrize("task, key, grid", [
    ("gmm", "data.n", "2500, 5000, 10000, 20000"),
    ("gmm", "data.separation", "1.5, 3, 6, 12"),
    ("gmm", "delta", "1e-7, 1e-6, 1e-5, 1e-4"),
    ("sbm", "data.signal", "0.15, 0.3, 0.6, 1"),
])
def test_switching_the_swept_parameter_keeps_a_grid_and_the_run_button(explorer, task, key,
                                                                         grid):
    explorer.selectbox(key="explorer_task").set_value(task).run()
    explorer.selectbox(key=f"explorer_{task}_x").set_value(key).run()
    assert not explorer.exception and not errors(explorer)
    assert explorer.text_input(key=f"explorer_{task}_{key}_values").value == grid
    assert explorer.button(key="explorer_run")  # still there
    held = {n.key for n in explorer.number_input}
    assert f"explorer_{task}_data_{key[5:]}" not in held  # the swept one is not held fixed
    if key == "delta":
        assert f"explorer_{task}_epsilon" in held


def test_an_estimator_that_cannot_succeed_is_listed_and_run_only_when_asked(explorer):
    at = explorer
    at.multiselect(key="explorer_gmm_estimators").set_value(
        ["dp_em", "private_pca_clustering"]).run()
    at.text_input(key="explorer_gmm_epsilon_values").set_value("0.5, 1").run()
    at.number_input(key="explorer_gmm_data_n").set_value(2000).run()
    assert not at.exception and not errors(at)
    note = next(i.value for i in at.info if "before any run" in i.value)
    assert "Private PCA" in note and "cannot succeed anywhere on this grid" in note
    assert "its preconditions hold from about n = " in note
    assert any(c.value.startswith("20 runs: 2 points × 10 repeats × 1 estimator,")
               for c in at.caption)
    at.checkbox(key="explorer_anyway").check().run()
    assert any(c.value.startswith("40 runs: 2 points × 10 repeats × 2 estimators")
               for c in at.caption)
