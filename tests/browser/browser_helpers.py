"""Helpers of the browser tests: load a page, wait for Streamlit, read a chart's data."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"


def open_page(tab, url: str) -> None:
    """Load a page and wait until its script has run and its charts are drawn."""
    tab.goto(url)
    tab.wait_for_selector('[data-testid="stApp"]')
    tab.wait_for_selector(".js-plotly-plot .main-svg")
    settle(tab)


def settle(tab) -> None:
    """Wait until Streamlit is no longer running the script.

    Both signs are read: the app's script state (set as soon as a run starts) and the status
    widget (shown only after a run has taken a moment). A run the last action started is
    waited for up to 0.3 s to show itself (at once when it does), so a run that has just
    begun counts.
    """
    try:
        tab.wait_for_function(
            "() => document.querySelector('.stApp:not([data-test-script-state=\"notRunning\"])')",
            timeout=300)
    except PlaywrightTimeout:  # no run started (or one already over): nothing to wait for
        pass
    tab.wait_for_function(
        "() => document.querySelector('.stApp[data-test-script-state=\"notRunning\"]')"
        " && !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)
    time.sleep(0.3)


def figure_data(tab, index: int = 0) -> str:
    """The plotted data of the ``index``-th plotly chart on the page, as JSON text.

    Read from Plotly's ``_fullData``: there numpy arrays (sent base64-encoded as
    ``{dtype, bdata}``) are already decoded into typed arrays, so the numbers are compared.
    """
    return tab.evaluate(
        """(i) => JSON.stringify(document.querySelectorAll('.js-plotly-plot')[i]._fullData.map(
            t => ({x: Array.from(t.x || []), y: Array.from(t.y || [])})))""", index)


def wait_for_change(tab, before: str, index: int = 0, timeout: float = 20.0) -> str:
    """Poll the chart until its data differ from ``before``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        after = figure_data(tab, index)
        if after != before:
            return after
        time.sleep(0.2)
    raise AssertionError("the figure did not change")


def problems(tab) -> list[str]:
    """Text of every exception or error box on the page."""
    boxes = tab.locator('[data-testid="stException"], '
                        '[data-testid="stAlertContentError"] [data-testid="stMarkdownContainer"]')
    return [boxes.nth(i).inner_text().strip() for i in range(boxes.count())]


def screenshot(tab, name: str) -> Path:
    path = SCREENSHOTS / f"{name}.png"
    tab.screenshot(path=str(path), full_page=True)
    return path
