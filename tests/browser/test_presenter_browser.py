"""Presenter mode on a projector (1280 × 720) and the pages on a phone (390 × 844), in Chromium.

Screenshots go to ``tests/browser/screenshots/presenter-<page>.png`` and ``phone-<page>.png``.
"""

from __future__ import annotations

import pytest

from .browser_helpers import SCREENSHOTS, problems, screenshot

#: A first load may run DP-EM, the covariance estimators or the SBM solver on a busy machine.
LOAD_TIMEOUT = 180_000
PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
#: Each page's main chart and the control it teaches (element keys).
TAUGHT = {"lens": ("lens_densities", "lens_epsilon"), "budget": ("budget_noise", "budget_epsilon"),
          "gmm": ("gmm_figure", "gmm_epsilon"), "covariance": ("cov_spectra", "cov_rho"),
          "sbm": ("sbm_adjacency", "sbm_epsilon")}
FINISHED = '.stApp[data-test-script-state="notRunning"]'

#: Visible labels (widgets, metrics) and metric values, outside the sidebar, whose text is
#: wider than their box (cut or ellipsised), or with a word broken across two lines.
CUT_LABELS = """() => {
  const shown = [...document.querySelectorAll(
      '[data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"], ' +
      '[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"], ' +
      '[data-testid="stMetricValue"]')]
    .filter(e => e.offsetParent !== null && !e.closest('[data-testid="stSidebar"]'));
  const broken = e => {
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const m of n.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) return true;
      }
    }
    return false;
  };
  return shown.filter(e => e.scrollWidth > e.clientWidth + 1 || broken(e))
    .map(e => e.innerText.trim());
}"""


def box(tab, selector: str) -> dict[str, float]:
    found = tab.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


def within(found: dict[str, float], viewport: dict[str, int]) -> bool:
    return (found["x"] >= 0 and found["y"] >= 0
            and found["x"] + found["width"] <= viewport["width"] + 1
            and found["y"] + found["height"] <= viewport["height"] + 1)


def load(tab, url: str, chart: str) -> None:
    tab.goto(url)
    tab.wait_for_selector(f".st-key-{chart} .js-plotly-plot .main-svg")
    tab.wait_for_selector(FINISHED)
    tab.wait_for_timeout(800)  # fonts and plotly's last resize
    tab.wait_for_selector(FINISHED)


def sidebar_closed(tab) -> bool:
    found = tab.locator('[data-testid="stSidebar"]').bounding_box()
    return found is None or found["x"] + found["width"] <= 1


@pytest.fixture
def projector(browser, server):
    context = browser.new_context(viewport=PROJECTOR)
    tab = context.new_page()
    tab.set_default_timeout(LOAD_TIMEOUT)
    yield tab
    context.close()


@pytest.fixture
def phone(browser, server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    tab = context.new_page()
    tab.set_default_timeout(LOAD_TIMEOUT)
    yield tab
    context.close()


@pytest.mark.parametrize("name", list(TAUGHT))
def test_presenter_fits_a_projector(projector, server, name):
    chart, control = TAUGHT[name]
    load(projector, f"{server}/{name}?presenter=true", chart)
    screenshot_path = SCREENSHOTS / f"presenter-{name}.png"
    projector.screenshot(path=str(screenshot_path))  # one projector screen, not the whole page
    assert problems(projector) == []
    assert sidebar_closed(projector)
    figure = box(projector, f".st-key-{chart} .js-plotly-plot")
    taught = box(projector, f".st-key-{control}")
    assert within(figure, PROJECTOR), f"the main chart leaves the screen: {figure}"
    assert within(taught, PROJECTOR), f"{control} leaves the screen: {taught}"
    assert figure["x"] + figure["width"] <= taught["x"], "the chart is left of its control"
    assert projector.evaluate(CUT_LABELS) == []
    assert projector.locator(".st-key-page-intro").first.is_hidden()
    assert projector.get_by_role("link", name="Reset to scenario").is_visible()
    assert screenshot_path.stat().st_size > 0


def test_reset_returns_to_the_scenario(projector, server):
    """ε back to the link's 0.3, δ (not in the link) back to its default, in widget and URL."""
    load(projector, f"{server}/lens?presenter=true&lens_epsilon=0.3", "lens_densities")
    epsilon = projector.locator(".st-key-lens_epsilon input")
    delta = projector.locator(".st-key-lens_delta input")
    default_delta = float(delta.input_value())
    assert float(epsilon.input_value()) == pytest.approx(0.3)
    for field, value, shown in ((epsilon, "2", "lens_epsilon=2"), (delta, "1e-3", "lens_delta=")):
        field.fill(value)
        field.press("Enter")
        projector.wait_for_function(f"() => location.search.includes('{shown}')")
        projector.wait_for_selector(FINISHED)
    projector.get_by_role("link", name="Reset to scenario").click()
    projector.wait_for_function("() => !location.search.includes('lens_delta')")
    projector.wait_for_selector(FINISHED)
    projector.wait_for_timeout(500)
    assert float(epsilon.input_value()) == pytest.approx(0.3)
    assert float(delta.input_value()) == pytest.approx(default_delta)
    assert "lens_epsilon=0.3" in projector.url and "presenter=true" in projector.url
    assert "reset" not in projector.url
    assert problems(projector) == []


@pytest.mark.parametrize("name", ["gmm", "covariance"])
def test_phone_shows_the_chart_before_the_controls(phone, server, name):
    chart = TAUGHT[name][0]
    load(phone, f"{server}/{name}", chart)
    screenshot(phone, f"phone-{name}")
    assert problems(phone) == []
    assert sidebar_closed(phone)
    figure = box(phone, f".st-key-{chart} .js-plotly-plot")
    controls = box(phone, f".st-key-main-{name} [data-testid='stColumn']")  # the first: controls
    assert figure["y"] < controls["y"], "a long control comes before the chart"
    # the toolbar, shown on a tap, stays off the chart's title
    phone.locator(f".st-key-{chart} .js-plotly-plot").tap()
    phone.wait_for_timeout(300)
    toolbar = box(phone, f".st-key-{chart} .modebar")
    title = box(phone, f".st-key-{chart} .gtitle")
    assert (title["x"] + title["width"] <= toolbar["x"]
            or title["y"] >= toolbar["y"] + toolbar["height"]), "the toolbar covers the title"


def test_phone_heatmap_titles_apart(phone, server):
    load(phone, f"{server}/covariance", "cov_heatmaps")
    titles = phone.evaluate(
        """() => [...document.querySelectorAll('.st-key-cov_heatmaps .annotation-text')]
            .map(e => { const b = e.getBoundingClientRect();
                        return [b.left, b.right, Math.round(b.top)]; })""")
    assert len(titles) >= 2
    for (_, right, top), (other_left, _, other_top) in zip(titles, titles[1:], strict=False):
        if top == other_top:  # the same row of panels
            assert right <= other_left, f"panel titles overlap: {titles}"
