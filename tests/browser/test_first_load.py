"""Issue 34, part 4: a first load shows words, not a blank column; step 5 lists its variants.

Every page is opened in a fresh browser context (its first load: no session, no browser
cache). A script the browser runs before the page's own records, frame by frame, when
Streamlit's frame has mounted, when the main column first shows text and when the shell's
"Loading the … page…" note (:func:`dpviz.ui.shell.loading_note`) first shows. The clock the
assertion holds to 1 s starts at the mount: before it the browser is still fetching and
starting Streamlit's own code, which no page can speed up (0.7-1 s of a fresh context on a
busy two-core machine); the times from navigation are in the failure message. The note must
also go once the run has ended.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from dpviz.lab.broken_variants import BROKEN_VARIANTS
from dpviz.ui.pages.home import LESSON
from dpviz.ui.pages_list import PAGES as LISTED

from .browser_helpers import problems, screenshot, settle

PROJECTOR = {"width": 1280, "height": 720}
PAGES = tuple(page.script for page in LISTED)
#: Milliseconds from Streamlit's frame mounting to words in the main column.
FIRST_WORDS = 1_000
#: A run still going this long after the first words must have shown the note with them.
NOTE_SLACK = 250
#: Milliseconds the note may outlast its run: the sheet that hides it (``app.css``, sent by
#: ``st.html``, whose code the browser fetches on first use) can arrive after a quick page's
#: run has ended (0.1-0.5 s here; 3 s while the server's warm-up imports hold the
#: interpreter).
LINGER = 5_000

#: Records, from navigation (performance.now()), the first frame of each sign; stops at the
#: first frame after the run has ended without the note.
RECORDER = r"""
window.__firstLoad = {};
const frame = () => {
  const seen = window.__firstLoad, now = performance.now();
  const app = document.querySelector('.stApp');
  const main = document.querySelector('[data-testid="stMain"]');
  const text = main ? main.innerText : '';
  if (app && seen.mounted === undefined) seen.mounted = now;
  if (text.trim() && seen.words === undefined) {
    seen.words = now;
    seen.first = text.trim().slice(0, 80);
  }
  const note = text.includes('Loading the');
  if (note && seen.note === undefined) seen.note = now;
  if (seen.words !== undefined && seen.ended === undefined
      && app.getAttribute('data-test-script-state') === 'notRunning') seen.ended = now;
  if (seen.ended !== undefined && !note) {
    seen.gone = now;
    return;
  }
  requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
"""


def first_load(browser, url: str) -> dict:
    """Open ``url`` in a fresh context; what :data:`RECORDER` saw, once the run has ended."""
    context = browser.new_context(viewport=PROJECTOR)
    context.add_init_script(RECORDER)
    tab = context.new_page()
    tab.set_default_timeout(120_000)
    try:
        tab.goto(url, wait_until="commit")
        tab.wait_for_function("() => window.__firstLoad && window.__firstLoad.gone")
        seen = tab.evaluate("() => window.__firstLoad")
        settle(tab)
        seen["problems"] = problems(tab)
    finally:
        context.close()
    return seen


@pytest.mark.parametrize("script", PAGES)
def test_a_first_load_shows_words_within_a_second_of_mounting(browser, server, script):
    path = "" if script == "app.py" else script.removeprefix("pages/").removesuffix(".py")
    seen = first_load(browser, f"{server}/{path}")
    times = {k: round(seen[k]) for k in ("mounted", "words", "note", "ended", "gone")
             if k in seen}
    assert seen["words"] - seen["mounted"] <= FIRST_WORDS, (times, seen["first"])
    if seen["ended"] - seen["words"] > NOTE_SLACK:  # a run worth waiting for says so
        assert "note" in seen and seen["note"] - seen["words"] <= NOTE_SLACK, times
    assert seen["gone"] - seen["ended"] <= LINGER, times  # the note goes with its run
    assert not seen["problems"]


def test_step_5s_gallery_lists_its_variants_before_run(browser, server):
    step = LESSON.steps[4]
    context = browser.new_context(viewport=PROJECTOR)
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    try:
        page = step.entry.page.removeprefix("pages/").removesuffix(".py")
        tab.goto(f"{server}/{page}?{urlencode(step.entry.params)}")
        settle(tab)
        main = tab.locator('[data-testid="stMain"]')
        for variant in BROKEN_VARIANTS.values():
            listed = main.get_by_text(f"{variant.label}. The mistake: {variant.flaw}.")
            assert listed.is_visible(), variant.label
        assert main.get_by_role("button", name="Run the gallery of broken variants").is_visible()
        assert main.locator(".js-plotly-plot").count() == 0  # no verdicts before Run
        assert not problems(tab)
        screenshot(tab, "first-gallery-before-run")
    finally:
        context.close()
