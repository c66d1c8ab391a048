"""More pages in real Chromium: exposure and factors follow their ε slider; the CSV link."""

from __future__ import annotations

import time

import pytest

from .browser_helpers import SCREENSHOTS, open_page, problems, screenshot, settle


def all_figures(tab) -> str:
    """Every plotly chart's traces (x, y and z) as JSON text."""
    return tab.evaluate(
        """() => JSON.stringify(Array.from(document.querySelectorAll('.js-plotly-plot')).map(
            p => p.data.map(t => ({x: Array.from(t.x || []), y: Array.from(t.y || []),
                                   z: JSON.stringify(t.z || null)}))))""")


def wait_for_any_change(tab, before: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all_figures(tab) != before:
            return
        time.sleep(0.2)
    raise AssertionError("no figure changed")


def press(tab, name: str, steps: int) -> None:
    thumb = tab.get_by_role("slider", name=name)
    thumb.focus()
    for _ in range(steps):
        thumb.press("ArrowRight")


@pytest.mark.parametrize(("path", "slider", "steps", "param"), [
    ("/exposure", "ε of DP-EM", 1, "exposure_epsilon=1.2"),
    ("/factors", "ε of the private run", 1, "factors_epsilon=5"),
])
def test_epsilon_slider_redraws(page, server, path, slider, steps, param):
    open_page(page, server + path)
    assert problems(page) == []
    before = all_figures(page)
    press(page, slider, steps)
    wait_for_any_change(page, before)
    settle(page)
    assert problems(page) == []
    assert param in page.url
    screenshot(page, path.strip("/"))


@pytest.mark.parametrize("value", ["csv", "Upload+a+CSV+file"])
def test_csv_deep_link_shows_the_uploader(page, server, value):
    page.goto(f"{server}/gmm?gmm_source={value}")
    page.wait_for_selector('[data-testid="stFileUploader"]')
    settle(page)
    assert problems(page) == []
    assert page.locator('[data-testid="stFileUploader"]').count() == 1
    assert "Upload a CSV file" in page.locator('[data-testid="stAlertContentInfo"]').inner_text()
    assert page.locator(".js-plotly-plot").count() == 0
    screenshot(page, f"gmm-csv-link-{value[:3].lower()}")


def test_estimator_link_by_name(page, server):
    open_page(page, server + "/gmm?gmm_estimator=dplloyd")
    assert problems(page) == []
    # the estimator's paper caption and its row of the error table
    assert "Blum, Dwork, McSherry" in page.content()
    assert page.get_by_role("cell", name="DPLloyd (noisy k-means)").count() + \
        page.get_by_text("DPLloyd (noisy k-means)").count() >= 1


def test_gmm_saved_benchmarks_open(page, server):
    open_page(page, server + "/gmm")
    for label in ("Reproduce the DP-EM paper", "DP-EM against the peers"):
        # one section at a time, each run finished before the next click (CI, 2 busy cores)
        page.get_by_text(label).click()
        settle(page)
        section = page.locator('[data-testid="stExpander"]').filter(has_text=label)
        section.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=60_000)
    assert problems(page) == []
    assert "Verdict:" in page.content() and "Reading:" in page.content()
    screenshot(page, "gmm-benchmarks")
    peers = page.locator('[data-testid="stExpander"]').filter(has_text="against the peers")
    peers.screenshot(path=str(SCREENSHOTS / "gmm-peers.png"))
