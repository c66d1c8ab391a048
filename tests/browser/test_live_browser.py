"""Live class mode end to end (issue 19, part 2): one lecturer, two students, a restart;
and (issue 34) a student and a lecturer reloading at 1280×720.

The lecturer opens a class on /live; two students join it from the join link in their own
browsers, one through a second server process on the same database file, and predict
through the Privacy budget page's predict-then-reveal gate (its Reveal sends the prediction
to the class); the lecturer reveals and sees both. The servers are then stopped and a new
one started on the same file: the lecturer comes back with the class's code and key and the
class, its predictions and its reveal are still there. A student of another class sees
nothing of the first.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from .browser_helpers import figure_data, problems, screenshot, settle
from .conftest import CHROMIUM, MISSING_CHROMIUM, VIEWPORT, streamlit_server
from .test_projector_fit import CUT

GUESSES = {"Ann": 2.5, "Bob <b>7</b>": 7.25}


@pytest.fixture
def db_env(tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(MISSING_CHROMIUM)
    return {"DPVIZ_CLASS_DB": str(tmp_path / "classes.sqlite3")}


def visit(browser, url: str):
    tab = browser.new_context(viewport=VIEWPORT).new_page()
    tab.set_default_timeout(30_000)
    tab.goto(url)
    tab.wait_for_selector('[data-testid="stApp"]')
    settle(tab)
    return tab


def open_class(browser, url: str) -> tuple[object, str]:
    tab = visit(browser, f"{url}/live")
    tab.get_by_role("button", name="Open a new class").click()
    code = tab.locator(".live-code").inner_text(timeout=30_000).strip()
    assert re.fullmatch(r"[A-Z2-9]{6}", code), code
    return tab, code


def join(browser, url: str, code: str, name: str):
    tab = visit(browser, f"{url}/live?join={code}")
    typed = tab.locator(".st-key-live_join_code input")
    expect(typed).to_have_value(code, timeout=30_000)  # filled in from the link
    tab.locator(".st-key-live_join_name input").fill(name)
    tab.get_by_role("button", name="Join the class").click()
    tab.get_by_text(f"You are in class {code}").wait_for()
    return tab


def predict_budget(tab, guess: float) -> None:
    """From the student's class panel, open Privacy budget in predict mode; guess; Reveal."""
    tab.get_by_role("link", name=re.compile("Privacy budget —")).click()
    box = tab.get_by_label(re.compile("Your guess: ε after"))
    box.wait_for()
    settle(tab)  # the new page's first run has finished: it cannot redraw the box over a guess
    box.fill(str(guess))
    box.press("Enter")
    settle(tab)
    expect(box).to_have_value(re.compile(rf"^{re.escape(f'{guess:g}')}\.?0*$"))  # kept
    tab.locator(".st-key-budget_reveal button").click()
    tab.get_by_text(re.compile(r"Your guess .* was off by")).wait_for(timeout=60_000)
    settle(tab)
    assert not problems(tab)


def wait_for_text(tab, pattern: str, timeout: float = 30.0) -> None:
    """Poll until the page's text matches (the lecturer's panel refreshes itself)."""
    deadline = time.monotonic() + timeout
    while not re.search(pattern, tab.locator("body").inner_text()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{pattern!r} never appeared")
        time.sleep(0.5)


def class_strip(tab) -> list[float]:
    tab.locator(".st-key-live_budget_0 .js-plotly-plot .main-svg").first.wait_for()
    return sorted(json.loads(figure_data(tab, 0))[0]["x"])


def test_a_class_predicts_reveals_and_survives_a_restart(browser, db_env):
    with (streamlit_server(db_env, log_name="live-1.log") as url,
          streamlit_server(db_env, log_name="live-1b.log") as second):
        lecturer, code = open_class(browser, url)
        assert f"/live?join={code}" in lecturer.locator('[data-testid="stCode"]').first.inner_text()
        lecturer.get_by_text("Lecturer key (do not project)").click()
        key = lecturer.locator(".st-key-live_key [data-testid='stCode']").inner_text().strip()
        # Bob joins through a second server process on the same file, as `make serve` runs
        students = {name: join(browser, where, code, name)
                    for name, where in zip(GUESSES, (url, second), strict=True)}
        banner = students["Bob <b>7</b>"]
        assert banner.get_by_text("as Bob <b>7</b>").count()  # shown as typed, not markup
        for name, tab in students.items():
            predict_budget(tab, GUESSES[name])
        wait_for_text(lecturer, r"Privacy budget — 2 answered")
        body = lecturer.locator("body").inner_text()
        assert "Ann" not in body and "2.5" not in body  # counts only, before the reveal
        assert "Ann" not in banner.locator("body").inner_text()  # nor another student's name
        lecturer.locator(".st-key-live_reveal_budget button").click()
        assert class_strip(lecturer) == sorted(GUESSES.values())
        screenshot(lecturer, "live-class-revealed")
        assert not problems(lecturer)

    with streamlit_server(db_env, log_name="live-2.log") as url:  # a new process, same file
        back = visit(browser, f"{url}/live")
        back.get_by_text("Come back to a class you opened").click()
        back.locator(".st-key-live_resume_code input").fill(code)
        back.locator(".st-key-live_resume_key input").fill(key)
        back.get_by_role("button", name="Come back").click()
        assert back.locator(".live-code").inner_text().strip() == code
        assert class_strip(back) == sorted(GUESSES.values())  # still revealed, nothing lost

        other_lecturer, other_code = open_class(browser, url)
        assert other_code != code
        outsider = join(browser, url, other_code, "Cy")
        seen = outsider.locator("body").inner_text()
        assert code not in seen and "Ann" not in seen and "Bob" not in seen
        predict_budget(outsider, 1.0)
        seen = outsider.locator("body").inner_text()
        assert code not in seen and "Ann" not in seen and "7.25" not in seen
        wait_for_text(other_lecturer, r"Privacy budget — 1 answered")
        other_lecturer.locator(".st-key-live_reveal_budget button").click()
        assert class_strip(other_lecturer) == [1.0]  # only its own student
        wait_for_text(back, r"Privacy budget — 2 answered")  # the first class unchanged


PROJECTOR = {"width": 1280, "height": 720}


def fits(locator) -> bool:
    """Whether an element's text is whole: a label cut with an ellipsis is wider than its box."""
    return locator.evaluate("e => e.scrollWidth <= e.clientWidth + 1")


def test_a_reload_keeps_the_class_for_a_student_and_the_lecturer(browser, db_env):
    """Issue 34: a student reloading mid-step and a lecturer reloading stay in their class;
    the projected reveal names nobody and shows the question whole."""
    from dpviz.lab.classroom import ClassStore

    store = ClassStore(db_env["DPVIZ_CLASS_DB"])
    with streamlit_server(db_env, log_name="live-reload.log") as url:
        lecturer = browser.new_context(viewport=PROJECTOR).new_page()
        lecturer.set_default_timeout(30_000)
        lecturer.goto(f"{url}/live?presenter=true")
        settle(lecturer)
        lecturer.get_by_role("button", name="Open a new class").click()
        code = lecturer.locator(".live-code").inner_text(timeout=30_000).strip()
        student = browser.new_context(viewport=PROJECTOR).new_page()
        student.set_default_timeout(30_000)
        student.goto(f"{url}/live?join={code}")
        settle(student)
        student.locator(".st-key-live_join_name input").fill("Ann")
        student.get_by_role("button", name="Join the class").click()
        student.get_by_text(f"You are in class {code}").wait_for()
        student.reload()  # on the class panel: the next page must still predict
        settle(student)
        student.get_by_role("link", name=re.compile("Privacy budget —")).click()
        box = student.get_by_label(re.compile("Your guess: ε after"))
        box.wait_for()
        settle(student)
        box.fill("3.5")
        box.press("Enter")
        settle(student)
        student.reload()  # mid-step: the typed guess goes, the class stays
        settle(student)
        student.get_by_text(f"Class {code} as Ann").wait_for()
        student.get_by_text(f"Reveal also sends your prediction to class {code}").wait_for()
        reveal = student.locator(".st-key-budget_reveal button")
        assert fits(reveal.locator("p").first), "the Reveal label is cut"
        box.fill("3.5")
        box.press("Enter")
        settle(student)
        reveal.click()
        student.get_by_text(re.compile(r"Your guess .* was off by")).wait_for(timeout=60_000)
        screenshot(student, "live-student-after-reload")
        assert student.evaluate(CUT) == []
        assert store.students(code) == 1 and store.row_count(code) == 1

        lecturer.reload()  # the lecturer's browser: the same class, not a new one
        settle(lecturer)
        assert lecturer.locator(".live-code").inner_text().strip() == code
        wait_for_text(lecturer, r"Privacy budget — 1 answered")
        lecturer.locator(".st-key-live_reveal_budget button").click()
        assert class_strip(lecturer) == [3.5]
        body = lecturer.locator("body").inner_text()
        assert "Ann" not in body  # the names stay in the folded table
        assert "What is ε after T = 40 rounds at the same noise?" in body  # whole
        assert "Ann" not in figure_data(lecturer, 0)
        screenshot(lecturer, "live-reveal-anonymous")
        assert lecturer.evaluate(CUT) == []
        assert not problems(lecturer) and not problems(student)
