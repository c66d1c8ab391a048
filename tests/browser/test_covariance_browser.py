"""The Covariance page in real Chromium: loads clean, the budget slider redraws the matrices."""

from __future__ import annotations

import time

from .browser_helpers import open_page, problems, screenshot, settle

#: The heatmaps' values (z) of the first chart that has heatmaps, as JSON text ("" if none).
HEATMAPS = """() => {
    const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
        p => (p.data || []).some(t => t.type === 'heatmap'));
    return plot ? JSON.stringify(plot.data.map(t => t.z)) : '';
}"""


def heatmaps_after_change(tab, before: str, timeout: float = 20.0) -> str:
    """Poll the heatmaps until their values differ from ``before``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        after = tab.evaluate(HEATMAPS)
        if after and after != before:
            return str(after)
        time.sleep(0.2)
    raise AssertionError("the heatmaps did not change")


def test_covariance_budget_slider_redraws(page, server):
    open_page(page, server + "/covariance")
    assert problems(page) == []
    before = page.evaluate(HEATMAPS)
    assert before
    thumb = page.get_by_role("slider", name="ε (stated at δ = 1e-10)")
    thumb.focus()
    thumb.press("ArrowRight")  # ρ = 0.1 → 0.2 on the 1, 2, 5 grid: ε = 3.13 → 4.49
    heatmaps_after_change(page, before)
    settle(page)
    assert problems(page) == []
    assert "cov_rho=4.49" in page.url  # the stop's label, the ε it is stated as
    assert page.get_by_text("Budget: ε = 4.49 at δ = 1e-10", exact=False).count() == 1
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_role("link", name="Covariance").count() == 1
    screenshot(page, "covariance")
