"""The Trade-off explorer in real Chromium: a small sweep runs to the end, the CSV downloads."""

from __future__ import annotations

import pandas as pd

from .browser_helpers import problems, screenshot, settle

#: 2 ε values × 2 repeats × 2 estimators, in the server's process (no pool to start).
SMALL = "/explorer?explorer_gmm_epsilon_values=0.5,+4&explorer_repeats=2&explorer_jobs=1"


def test_a_small_sweep_runs_and_its_csv_downloads(page, server):
    page.goto(server + SMALL)
    page.wait_for_selector('[data-testid="stApp"]')
    settle(page)
    assert problems(page) == []
    page.get_by_role("button", name="Run the sweep").click()
    page.get_by_role("button", name="Results (CSV)").wait_for(timeout=120_000)
    page.wait_for_selector(".js-plotly-plot .main-svg")
    settle(page)
    assert problems(page) == []
    with page.expect_download() as info:
        page.get_by_role("button", name="Results (CSV)").click()
    download = info.value
    assert download.suggested_filename == "results.csv"
    table = pd.read_csv(download.path())
    assert len(table) == 8 and set(table["estimator"]) == {"dp_em", "dplloyd"}
    assert sorted(set(table["epsilon"])) == [0.5, 4.0]
    assert table["mean_error"].notna().all()
    screenshot(page, "explorer")
