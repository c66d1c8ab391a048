"""Predict, then reveal in real Chromium: guess by a click on the plot, reveal, see the score."""

from __future__ import annotations

import time

from .browser_helpers import open_page, problems, screenshot, settle

#: The first load of the mixtures page runs DP-EM, EM and composes a PLD profile.
LOADED_MACHINE_TIMEOUT = 120_000


def trace_names(tab, index: int = 0) -> list[str]:
    return tab.evaluate(
        "(i) => document.querySelectorAll('.js-plotly-plot')[i].data.map(t => t.name || '')",
        index)


def wait_for_value(locator, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = locator.input_value()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("the click did not fill the guess")


def test_guess_by_click_then_reveal(page, server):
    page.set_default_timeout(LOADED_MACHINE_TIMEOUT)
    open_page(page, server + "/gmm")
    assert "true means" in trace_names(page)
    page.locator('[data-testid="stSidebar"]').get_by_text("Predict, then reveal").click()
    page.wait_for_selector("text=Where will a private mean land?")
    settle(page)
    assert problems(page) == []
    names = trace_names(page)
    assert "true means" not in names and "private means" not in names
    reveal = page.get_by_role("button", name="Reveal", exact=True)
    assert reveal.is_disabled()

    # a click on the plot lands on the faint grid: Plotly's point selection is the guess
    box = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.4)
    x = wait_for_value(page.get_by_label("Guess: x1"))
    y = wait_for_value(page.get_by_label("Guess: x2"))
    settle(page)
    assert float(x) == float(x) and float(y) == float(y)
    assert "your guess" in trace_names(page)
    assert "true means" not in trace_names(page)

    page.get_by_role("button", name="Reveal", exact=True).click()
    page.wait_for_selector("text=from private mean")
    settle(page)
    assert problems(page) == []
    names = trace_names(page)
    assert "true means" in names and "your guess" in names
    assert page.get_by_text("Your guess was off by").count() == 1
    screenshot(page, "predict-reveal")


def test_guess_by_typing_on_the_budget_page(page, server):
    page.set_default_timeout(LOADED_MACHINE_TIMEOUT)
    open_page(page, server + "/budget?predict=true")
    page.wait_for_selector("text=What is ε after")
    settle(page)
    field = page.get_by_label("Your guess: ε after 40 rounds")
    field.fill("1.5")
    field.press("Enter")
    settle(page)
    page.get_by_role("button", name="Reveal", exact=True).click()
    page.wait_for_selector("text=ε after 40 rounds is")
    settle(page)
    assert problems(page) == []
    assert page.get_by_text("off by").count() >= 1
