"""Each page in real Chromium: loads clean, a slider redraws the figure, links reopen scenarios."""

from __future__ import annotations

from .browser_helpers import figure_data, open_page, problems, screenshot, settle, wait_for_change


def move_slider(tab, name: str, steps: int) -> None:
    """``steps`` presses on the ε slider: one press moves one stop of its log scale."""
    thumb = tab.get_by_role("slider", name=name)
    thumb.focus()
    for _ in range(steps):
        thumb.press("ArrowRight")


def epsilon_box(tab, key: str) -> float:
    """The value in an ε widget's number box (the slider shows the nearest stop)."""
    return float(tab.locator(f'.st-key-{key} input[type="number"]').input_value())


def test_home(page, server):
    open_page(page, server + "/")
    assert problems(page) == []
    assert page.locator(".js-plotly-plot").count() == 1
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_role("link", name="Privacy budget").count() == 1
    assert sidebar.get_by_role("link", name="Privacy lens").count() == 1
    assert "coming soon" not in page.content().lower()
    screenshot(page, "home")


def test_budget_slider_redraws(page, server):
    open_page(page, server + "/budget")
    assert problems(page) == []
    assert page.locator(".js-plotly-plot").count() == 4
    before = figure_data(page, 0)
    move_slider(page, "ε (target)", 5)
    wait_for_change(page, before, 0)
    settle(page)
    assert problems(page) == []
    assert epsilon_box(page, "budget_epsilon") == 3.0  # 1 → 1.2, 1.5, 2, 2.5, 3: five stops
    assert "budget_epsilon=3" in page.url
    screenshot(page, "budget")


def test_lens_slider_redraws(page, server):
    open_page(page, server + "/lens")
    assert problems(page) == []
    assert page.locator(".js-plotly-plot").count() == 4
    before = figure_data(page, 0)
    move_slider(page, "ε", 5)
    wait_for_change(page, before, 0)
    settle(page)
    assert problems(page) == []
    assert page.locator('[data-testid="stAlertContentSuccess"]').count() == 1
    screenshot(page, "lens")


def test_deep_link_reopens_the_scenario(page, server):
    open_page(page, server + "/lens?lens_epsilon=2.5&lens_query=sum&lens_mechanism=Gaussian"
                             "&lens_delta=0.001&seed=4")
    assert problems(page) == []
    assert epsilon_box(page, "lens_epsilon") == 2.5
    assert page.get_by_role("radio", name="sum").is_checked()
    assert page.get_by_role("radio", name="Gaussian").is_checked()
    assert page.get_by_role("spinbutton", name="Seed").input_value() == "4"
    assert page.get_by_role("spinbutton", name="δ").input_value() == "1.0e-3"
    assert page.locator(".js-plotly-plot").nth(1).locator(".shapelayer path").count() >= 1
    screenshot(page, "lens-deep-link")


def test_bad_link_values_fall_back_to_defaults(page, server):
    open_page(page, server + "/lens?lens_epsilon=-1&lens_query=median&seed=abc")
    assert problems(page) == []
    assert epsilon_box(page, "lens_epsilon") == 1.0
    assert page.get_by_role("radio", name="mean").is_checked()
    assert page.get_by_role("spinbutton", name="Seed").input_value() == "0"


def test_home_preset_opens_the_paper_setting(page, server):
    open_page(page, server + "/")
    page.get_by_role("tab", name="Research").click()  # the three ways in are tabs under the paths
    page.get_by_role("link", name="The DP-EM paper's setting, in paper mode").click()
    page.wait_for_url("**/budget?**")
    page.wait_for_selector(".js-plotly-plot .main-svg")
    settle(page)
    assert "budget_paper=true" in page.url
    assert page.get_by_role("spinbutton", name="Iterations J").input_value() == "10"
    assert "366.2" in page.locator('[data-testid="stAlertContentInfo"]').inner_text()


def test_presenter_mode(page, server):
    open_page(page, server + "/lens?presenter=true")
    assert problems(page) == []
    assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "19px"
    assert not page.locator(".st-key-advanced-lens").is_visible()
    screenshot(page, "lens-presenter")
    open_page(page, server + "/budget?presenter=true&budget_plan=DP-EM+LLG")
    assert problems(page) == []
    screenshot(page, "budget-presenter")


def test_bad_input_is_a_sentence(page, server):
    open_page(page, server + "/lens")
    hi = page.get_by_role("spinbutton", name="Public hi")
    hi.fill("-1")
    hi.press("Enter")
    page.wait_for_selector('[data-testid="stAlertContentError"]')
    settle(page)
    assert problems(page) == ["the public range needs lo < hi, got lo = 0, hi = -1"]
    assert page.locator('[data-testid="stException"]').count() == 0
    screenshot(page, "lens-bad-input")
