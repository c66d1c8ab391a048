"""Winner maps on the pages (issue 20 item 1): the saved map at once, a live map on request."""

from __future__ import annotations

import pytest

from dpviz.lab.experiments import winner

from .app_helpers import charts, open_page, open_section


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    return tmp_path


@pytest.mark.skipif(winner.load_map("covariance") is None, reason="no saved covariance map")
def test_the_saved_map_opens_with_its_grid_and_readable_names(cache_dir):
    at = open_section(open_page("covariance"), "cov_winner_open")
    assert not at.exception, at.exception
    figure = charts(at)["covariance_winner_saved_figure"]
    names = {t["name"] for t in figure["data"] if t["type"] == "heatmap"}
    assert names and names <= {"GaussCov", "SeparateCov", "AdaptiveCov", "EMCov", "Zero matrix",
                               "tie", "no answer"}
    assert figure["layout"]["xaxis"]["title"]["text"] == "ε (privacy budget)"
    saved = winner.load_map("covariance")
    (_, xs), (_, ys) = saved.spec.grid
    assert any(f"{len(xs)} × {len(ys)} grid, {saved.spec.repeats} repeats" in c.value
               for c in at.caption)
    assert not list(cache_dir.glob("*.jsonl"))  # drawn from the saved runs: nothing ran
    assert any("cells name a winner" in c.value for c in at.caption)  # and how many are ties
    # made at the page's defaults: its heading says so and no caption says yours differ
    assert not any("Your settings differ" in c.value for c in at.caption)


@pytest.mark.parametrize(("page", "task", "key"), [("gmm", "gmm", "gmm_winner_open"),
                                                  ("sbm", "sbm", "sbm_winner_open")])
def test_each_saved_map_is_at_its_page_s_default_settings(cache_dir, page, task, key):
    if winner.load_map(task) is None:
        pytest.skip(f"no saved {task} map")
    at = open_section(open_page(page), key)
    assert not at.exception, at.exception
    assert f"{task}_winner_saved_figure" in charts(at)
    assert not any("Your settings differ" in c.value for c in at.caption)


@pytest.mark.slow  # a live map's runs: 3 s (make test, not make check)
def test_the_live_map_runs_at_the_pages_settings(cache_dir):
    at = open_section(open_page("covariance"), "cov_winner_open")
    at.selectbox(key="covariance_winner_y").set_value("data.d").run()
    assert "covariance_winner_saved_figure" not in charts(at)  # no saved map for these axes
    at.slider(key="covariance_winner_epsilon_range").set_value((1.0, 4.0)).run()
    at.slider(key="covariance_winner_data.d_range").set_value((10, 10)).run()
    at.button(key="covariance_winner_run").click().run()
    assert not at.exception, at.exception
    figure = charts(at)["covariance_winner_live_figure"]
    assert [t for t in figure["data"] if t["type"] == "heatmap"]
    assert list(figure["layout"]["xaxis"]["ticktext"]) == ["1", "1.4", "2", "2.8", "4"]
    assert list(figure["layout"]["yaxis"]["ticktext"]) == ["10"]
    assert any("Computed in" in c.value for c in at.caption)
    assert list(cache_dir.glob("*.jsonl"))  # through the sweep runner and its cache


@pytest.mark.slow  # every task's saved map drawn: 4-9 s (make test, not make check)
@pytest.mark.skipif(winner.load_map("covariance") is None, reason="no saved covariance map")
def test_the_explorer_offers_every_tasks_map(cache_dir):
    at = open_section(open_page("explorer"), "explorer_winner_open")
    assert not at.exception, at.exception
    at.selectbox(key="explorer_winner_task").set_value("covariance").run()
    assert not at.exception, at.exception
    assert "explorer_winner_covariance_saved_figure" in charts(at)
