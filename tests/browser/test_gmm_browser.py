"""The Gaussian mixtures page in real Chromium: loads clean, the ε slider redraws the figure."""

from __future__ import annotations

from .browser_helpers import figure_data, open_page, problems, screenshot, settle, wait_for_change


def test_gmm_epsilon_slider_redraws(page, server):
    open_page(page, server + "/gmm")
    assert problems(page) == []
    # the mixture and the ledger; the saved benchmarks run only when their section opens
    assert page.locator(".js-plotly-plot").count() == 2
    before = figure_data(page, 0)
    thumb = page.get_by_role("slider", name="ε")
    thumb.focus()
    thumb.press("ArrowRight")  # the next stop of the log-scale slider
    wait_for_change(page, before, 0)
    settle(page)
    assert problems(page) == []
    assert "gmm_epsilon=1.2" in page.url
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_role("link", name="Gaussian mixtures").count() == 1
    screenshot(page, "gmm")
