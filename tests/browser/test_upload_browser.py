"""The upload step in real Chromium (issue 17): a CSV with units, the default bound's warning
before the figure, private ranges and the comparison with non-private EM on the same rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from test_bounds_upload import SEEDS_500, three_clusters

from dpviz.estimators.metrics import match_components

from .browser_helpers import problems, screenshot, settle

#: Where the issue's closing note keeps its screenshots (made only when the folder exists).
NOTES = Path("/work/notes/shots17")


def upload(page, name: str, content: bytes) -> None:
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": content})
    settle(page)
    page.wait_for_selector(".js-plotly-plot .main-svg")
    settle(page)


def keep(page, name: str, element=None) -> None:
    """The screenshot, in the tests' folder and in the notes' one when it exists."""
    shot = screenshot(page, name)
    if NOTES.is_dir():
        (element or page).screenshot(path=str(NOTES / f"{name}.png"),
                                     **({} if element else {"full_page": True}))
    assert shot.exists()


def plotted_means(page) -> dict[str, np.ndarray]:
    """The mixture figure's means as drawn (Plotly's decoded data), by trace name."""
    traces = page.evaluate(
        """() => document.querySelector('.js-plotly-plot')._fullData.filter(
            t => t.name.includes('means')).map(
            t => ({name: t.name, x: Array.from(t.x), y: Array.from(t.y)}))""")
    return {t["name"]: np.column_stack([t["x"], t["y"]]) for t in traces}


def test_upload_step_warns_then_private_ranges_fit(page, server):
    """The issue's 500-row file: the default radius's warning before the figure; then a second
    500-row file with private ranges at ε = 1, where the page picks grid means and every
    private mean lands within 2 units of non-private EM's on the same rows (teaching seed from
    ``SEEDS_500``: one of 29 in 80 that succeed with this file today)."""
    seed = SEEDS_500["private, second file"]
    page.goto(server + f"/gmm?gmm_source=csv&seed={seed}")
    page.wait_for_selector('[data-testid="stFileUploader"]')
    settle(page)
    assert "Upload a CSV file to fit a mixture to it." in page.content()
    upload(page, "clusters.csv", three_clusters())
    assert problems(page) == []
    text = page.inner_text("body")
    # the columns with their units, the four ways, the default's clipped rows and warning
    for shown in ("height", "cm", "weight", "kg", "ranges I type per column (public)",
                  "private ranges: a share of ε estimates them",
                  "read from the data (not private)",
                  "Rows the bound clips: 500 of 500 (not private",
                  "Most rows (500 of 500) lie outside the bound"):
        assert shown in text, shown
    warning = page.locator('[data-testid="stAlertContentWarning"]').first
    figure = page.locator(".js-plotly-plot").first
    assert warning.bounding_box()["y"] < figure.bounding_box()["y"]  # before it draws
    keep(page, "upload_step", page.locator('[data-testid="stColumn"]').first)
    keep(page, "warning")

    page.get_by_text("private ranges: a share of ε estimates them", exact=True).click()
    settle(page)
    upload(page, "clusters_second.csv", three_clusters(500, seed=8))
    assert problems(page) == []
    text = page.inner_text("body")
    assert "Bound: per-column ranges estimated privately with 20% of ε" in text
    assert "For a table of 500 rows the page picks Grid means" in text
    assert "non-private EM on your data" in text
    assert "Most rows" not in text and "much wider than the data" not in text
    way = page.locator('[data-testid="stRadio"]').filter(
        has_text="How the bound on the rows is chosen").locator("input")
    # the browser reruns the page with no file while it swaps them, and that run stops before
    # the radio: the control must come back showing the way that ran (the text above)
    assert way.evaluate_all("els => els.map(e => e.checked)") == [False, False, True, False]
    means = plotted_means(page)
    private, reference = means["private means"], means["means of non-private EM on your data"]
    order = match_components(reference, private)
    assert np.linalg.norm(private[order] - reference, axis=1).max() < 2.0
    keep(page, "result")
