"""Issue 19 in real Chromium: Home's lesson and demo paths followed link by link, and ε typed.

Every step's link opens its page with no error box and with the step's settings applied (a
bound setting the page refuses is dropped from the URL, so each must still be there). Home
is shot at 1280×720, the size the paths are written for.
"""

from __future__ import annotations

import time
from urllib.parse import unquote_plus

import pytest

from dpviz.ui.pages.home import PATHS, USES

from .browser_helpers import (
    SCREENSHOTS,
    figure_data,
    open_page,
    problems,
    screenshot,
    settle,
    wait_for_change,
)

IDLE = '.stApp[data-test-script-state="notRunning"]'
ERROR_BOXES = ('[data-testid="stException"], [data-testid="stAlertContentError"], '
               '[data-testid="stAlert"]:has([data-testid="stAlertContentError"])')


def idle(tab) -> None:
    """Wait until the page's script has run to its end."""
    time.sleep(0.3)
    tab.wait_for_selector(IDLE, timeout=60_000)
    settle(tab)


def cut_links(tab) -> list[str]:
    """Links in the main area whose text overflows its box (cut or hidden)."""
    return tab.evaluate(
        """() => Array.from(document.querySelectorAll(
                '[data-testid="stMain"] [data-testid="stPageLink-NavLink"]'))
            .filter(a => Array.from(a.querySelectorAll('*')).concat([a]).some(
                e => e.scrollWidth > e.clientWidth + 1))
            .map(a => a.innerText)""")


@pytest.fixture
def small(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    yield tab
    context.close()


def test_home_at_1280_shows_the_paths_first_and_cuts_no_link(small, server):
    small.goto(server)
    idle(small)
    assert problems(small) == []
    first = small.locator('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]').first
    assert first.is_visible() and first.bounding_box()["y"] < 720  # above the fold
    assert "1. Two datasets" in first.inner_text()  # the lesson path comes first
    small.screenshot(path=str(SCREENSHOTS / "home-1280.png"))  # what a lecturer sees first
    assert cut_links(small) == []
    small.get_by_role("tab", name=PATHS[1].title, exact=False).click()
    time.sleep(0.5)
    assert cut_links(small) == []
    small.screenshot(path=str(SCREENSHOTS / "home-1280-demo.png"))
    for use in reversed(USES):  # the three ways in, each tab's links
        small.get_by_role("tab", name=use.title).click()
        time.sleep(0.5)
        assert cut_links(small) == [], use.title
    small.get_by_role("heading", name="Three ways in").scroll_into_view_if_needed()
    small.screenshot(path=str(SCREENSHOTS / "home-1280-ways-in.png"))


@pytest.mark.parametrize("path", PATHS, ids=["lesson", "demo"])
def test_every_step_of_the_path_opens_its_scenario(small, server, path):
    for number, step in enumerate(path.steps, start=1):
        small.goto(server)
        idle(small)
        small.get_by_role("tab", name=path.title, exact=False).click()
        link = small.get_by_role("link", name=f"{number}. {step.entry.label}", exact=False)
        link.click()
        page_name = step.entry.page.removeprefix("pages/").removesuffix(".py")
        small.wait_for_url(f"**/{page_name}?**")
        idle(small)
        assert small.locator(ERROR_BOXES).count() == 0, (step.entry.label, problems(small))
        url = unquote_plus(small.url)
        for key, value in step.entry.params:
            if key.endswith("_epsilon"):  # the box shows it (a link's value equal to the
                # widget's default is dropped from the address, so the box is the check)
                epsilon = small.locator(f'.st-key-{key} input[type="number"]')
                assert float(epsilon.input_value()) == float(value), (step.entry.label, key)
            else:
                assert f"{key}={value}" in url, (step.entry.label, key, url)
        presenter = small.locator('.st-key-presenter input[type="checkbox"]')
        # the session's toggle was off on Home: a link's presenter=true turns it on
        assert presenter.is_checked() == (("presenter", "true") in step.entry.params), url
        screenshot(small, f"path-{'lesson' if path is PATHS[0] else 'demo'}-{number}")


def test_typing_epsilon_on_gmm_reaches_the_run_and_the_url(page, server):
    open_page(page, server + "/gmm?gmm_epsilon=1.5")  # an old link, from the linear slider
    box = page.locator('.st-key-gmm_epsilon input[type="number"]')
    assert float(box.input_value()) == 1.5
    before = figure_data(page, 0)
    box.fill("0.3")
    box.press("Enter")
    wait_for_change(page, before, 0)
    settle(page)
    assert problems(page) == []
    assert "gmm_epsilon=0.3" in page.url
    assert float(box.input_value()) == 0.3
    slider = page.get_by_role("slider", name="ε")
    assert slider.get_attribute("aria-valuetext") in ("0.3", None)
    screenshot(page, "gmm-epsilon-typed")
