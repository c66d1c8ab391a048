"""The stochastic block model page in real Chromium: loads clean, the ε slider redraws."""

from __future__ import annotations

from .browser_helpers import figure_data, open_page, problems, screenshot, settle, wait_for_change

#: The graph drawing: its vertices move between communities (and rings) when ε moves.
GRAPH_CHART = 1


def test_sbm_epsilon_slider_redraws(page, server):
    open_page(page, server + "/sbm")
    assert problems(page) == []
    # matrix, graph, ledger; then the three curves when the saved runs are there
    assert page.locator(".js-plotly-plot").count() in (3, 6)
    before = figure_data(page, GRAPH_CHART)
    thumb = page.locator('input[type=range][aria-label="Privacy ε"]')
    thumb.focus()
    thumb.press("ArrowLeft")  # the stop below 2 on the log-scale slider
    wait_for_change(page, before, GRAPH_CHART)
    settle(page)
    assert problems(page) == []
    assert "sbm_epsilon=1.5" in page.url
    screenshot(page, "sbm")
    page.locator(".js-plotly-plot").last.scroll_into_view_if_needed()
    screenshot(page, "sbm-saved-curves")


def test_sbm_curves_computed_live_on_a_small_graph(page, server):
    open_page(page, server + "/sbm?sbm_n=150&sbm_degree=40")
    page.get_by_role("button", name="Compute curves").click()
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 6",
                           timeout=60_000)
    settle(page)
    assert problems(page) == []
    page.locator(".js-plotly-plot").nth(4).scroll_into_view_if_needed()
    screenshot(page, "sbm-curves")
