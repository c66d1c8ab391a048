"""The lesson's pages on a 1280×720 projector (issue 34, part 4): nothing cut.

Each of the five predict-then-reveal pages and /live is opened in presenter mode with predict
on, and every metric, button label, title, caption and widget label is measured: its text
must fit its own box (a label cut with an ellipsis is wider than its box), no ancestor that
hides its overflow may clip it (the page's own scrolling containers aside: below the fold is
not cut), and nothing may reach past the screen's right edge.
"""

from __future__ import annotations

import pytest

from .browser_helpers import problems, settle

PROJECTOR = {"width": 1280, "height": 720}
PAGES = ("lens", "gmm", "budget", "covariance", "sbm", "live")

#: The elements measured, and the measure (JavaScript): each cut one as {what, text, how}.
CUT = r"""
() => {
  const kinds = ['[data-testid="stMetricValue"]', '[data-testid="stMetricLabel"]',
                 'button p', 'h1', 'h2', 'h3', '[data-testid="stCaptionContainer"]',
                 'label p', '.gtitle', '.live-code'];
  const cut = [];
  for (const kind of kinds) {
    for (const e of document.querySelectorAll(kind)) {
      const box = e.getBoundingClientRect();
      if ((box.width === 0 && box.height === 0) || e.closest('[data-testid="stSidebar"]'))
        continue;
      const style = getComputedStyle(e);
      const hides = style.overflow !== 'visible';
      const how = [];
      if (hides && e.scrollWidth > e.clientWidth + 1) how.push('wider than its box');
      if (hides && e.scrollHeight > e.clientHeight + 1) how.push('taller than its box');
      if (box.right > window.innerWidth + 1) how.push('past the right edge');
      for (let a = e.parentElement; a; a = a.parentElement) {
        const outer = a.getBoundingClientRect();
        if (outer.height >= window.innerHeight - 5) continue;  // the page's scroller
        const s = getComputedStyle(a);
        if ([s.overflow, s.overflowX, s.overflowY].some(v => v === 'hidden' || v === 'clip')
            && (box.bottom > outer.bottom + 1 || box.right > outer.right + 1
                || box.top < outer.top - 1 || box.left < outer.left - 1)) {
          how.push('clipped by its container');
          break;
        }
      }
      if (how.length) cut.push({what: kind, text: (e.innerText || '').slice(0, 50), how});
    }
  }
  return cut;
}
"""


def test_the_measure_finds_a_cut_label(browser, server):
    tab = browser.new_context(viewport=PROJECTOR).new_page()
    tab.goto(f"{server}/live")
    settle(tab)
    tab.evaluate("""() => { const d = document.createElement('h3');
        d.style = 'width: 20px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis';
        d.innerText = 'Reveal'; document.querySelector('[data-testid="stMain"]').prepend(d); }""")
    assert [c["text"] for c in tab.evaluate(CUT)] == ["Reveal"]


@pytest.mark.parametrize("page", PAGES)
def test_nothing_is_cut_at_1280_by_720(browser, server, page):
    tab = browser.new_context(viewport=PROJECTOR).new_page()
    tab.set_default_timeout(120_000)
    tab.goto(f"{server}/{page}?presenter=true&predict=true")
    tab.wait_for_selector('[data-testid="stApp"]')
    if page != "live":
        tab.wait_for_selector(".js-plotly-plot .main-svg")
    settle(tab)
    assert tab.evaluate(CUT) == []
    assert not problems(tab)
