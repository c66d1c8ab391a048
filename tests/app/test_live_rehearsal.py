"""The lesson rehearsed (issue 34, part 5): a lecturer and 30 students walk the five
predict-then-reveal steps on the real pages, with 5 student reloads mid-step and a lecturer
reload, and every prediction is counted once.

Each student is an AppTest session (the pages' own scripts, the class store in one SQLite
file, as in a lecture); a reload is a new session opened on the address the old one left, as a
browser's reload is. Between the steps the lecturer reveals on /live and the reveal's figure
must hold every student's prediction. "Orphaned" predict mode is a student page in predict
mode that does not say its Reveal goes to the class.
"""

from __future__ import annotations

import pandas  # noqa: F401  (imported whole before the pages' background warm-up runs)
import pytest
from streamlit.testing.v1 import AppTest

from dpviz.lab.classroom import DB_ENV, STEPS, ClassStore
from dpviz.ui import seat
from dpviz.ui.pages import live

from .app_helpers import ROOT, TIMEOUT, charts, values

STUDENTS = 30
#: The student who reloads on each step, after typing a guess and before pressing Reveal.
RELOADS = {"lens": 0, "gmm": 7, "budget": 14, "covariance": 21, "sbm": 28}
#: The step on which the lecturer reloads (before revealing it).
LECTURER_RELOADS = "budget"
PAGES = {"lens": "lens", "gmm": "gmm", "budget": "budget", "covariance": "covariance",
         "sbm": "sbm"}
REVEAL_KEYS = {"lens": "lens", "gmm": "gmm", "budget": "budget", "covariance": "cov",
               "sbm": "sbm"}


def open_on(params: dict[str, str], page: str) -> AppTest:
    """A new browser session on ``/page?params`` (AppTest opens Home first, then the page,
    whose bound widgets settle on its second run — AppTest's alone)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update(params)
    at.run()
    at.switch_page(f"pages/{page}.py").run().run()
    assert not at.exception, at.exception
    return at


def guesses(i: int, step: str) -> dict[str, float]:
    """Student ``i``'s prediction on ``step`` (distinct per student, inside every limit)."""
    if step == "gmm":
        return {"x": 0.1 * i, "y": -0.05 * i}
    return {"guess": {"lens": 0.1, "budget": 1.0, "covariance": 0.01, "sbm": 0.01}[step]
            * (i + 1)}


def type_guess(at: AppTest, step: str, guess: dict[str, float]) -> None:
    key = REVEAL_KEYS[step]
    if step == "gmm":
        at.number_input(key=f"{key}_guess_x").set_value(guess["x"]).run()
        at.number_input(key=f"{key}_guess_y").set_value(guess["y"]).run()
    else:
        at.number_input(key=f"{key}_guess").set_value(guess["guess"]).run()
    assert not at.exception, at.exception


def in_class(at: AppTest, code: str) -> bool:
    """Whether the page's predict gate says its Reveal goes to class ``code``."""
    return any(f"sends your prediction to class **{code}**" in c.value for c in at.caption)


@pytest.mark.slow
def test_a_lecture_of_thirty_with_reloads_counts_every_prediction_once(tmp_path, monkeypatch):
    path = tmp_path / "classes.sqlite3"
    monkeypatch.setenv(DB_ENV, str(path))
    db = ClassStore(path)
    lecturer = open_on({}, "live")
    next(b for b in lecturer.button if b.label == "Open a new class").click().run()
    code = lecturer.session_state[seat.LECTURE]["code"]

    students: list[AppTest] = []
    for i in range(STUDENTS):
        at = open_on({"join": code}, "live")
        at.text_input(key="live_join_name").input(f"Student {i}")
        next(b for b in at.get("form_submit_button") if b.label == "Join the class").click()
        at.run()
        assert not at.exception, at.exception
        students.append(at)
    assert db.students(code) == STUDENTS

    orphans, reloads, lecturer_reloads = [], 0, 0
    for step in STEPS:
        key = REVEAL_KEYS[step]
        for i, at in enumerate(students):
            at.switch_page(f"pages/{PAGES[step]}.py").run()
            if step == "lens":
                at.run()  # its URL-bound tabs open on AppTest's second run (AppTest's alone)
            assert not at.exception, at.exception
            type_guess(at, step, guesses(i, step))
            if RELOADS[step] == i:  # the phone locked, the tab reloaded: the typed guess is lost
                at = students[i] = open_on(dict(at.query_params), PAGES[step])
                reloads += 1
                type_guess(at, step, guesses(i, step))
            if not (at.session_state["predict"] and in_class(at, code)):
                orphans.append((i, step))
            next(b for b in at.button if b.key == f"{key}_reveal").click().run()
            assert not at.exception, at.exception
            assert any("Your guess" in s.value or "landed" in s.value for s in at.success)
        if step == LECTURER_RELOADS:
            lecturer = open_on(dict(lecturer.query_params), "live")
            lecturer_reloads += 1
            assert lecturer.session_state[seat.LECTURE]["code"] == code  # the same class
        lecturer.run()
        shown = " ".join(m.value for m in lecturer.markdown)
        assert f"**{live.STEP_PAGES[step][1]}** — {STUDENTS} answered" in shown
        next(b for b in lecturer.button if b.key == f"live_reveal_{step}").click().run()
        assert not lecturer.exception, lecturer.exception
        figure = charts(lecturer)[f"live_{step}_0"]
        counted = values(figure["data"][0]["x"])
        assert counted.size == STUDENTS, (step, counted.size)  # the reveal shows them all
        assert "text" not in figure["data"][0]  # and names none of them
        assert db.row_count(code) == STUDENTS * (STEPS.index(step) + 1)

    assert (reloads, lecturer_reloads) == (len(RELOADS), 1)
    assert orphans == []
    assert db.students(code) == STUDENTS  # a reload took no second place
    assert db.row_count(code) == STUDENTS * len(STEPS)  # every prediction stored exactly once
    token = lecturer.session_state[seat.LECTURE]["token"]
    for step in STEPS:
        stored = db.predictions(code, token, step)
        assert sorted(p.name for p in stored) == sorted(f"Student {i}" for i in range(STUDENTS))
        by_name = {p.name: p.prediction for p in stored}
        for i in range(STUDENTS):
            assert by_name[f"Student {i}"] == pytest.approx(guesses(i, step))
    reloaded = students[RELOADS["sbm"]]
    reloaded.switch_page("pages/live.py").run()
    links = [link.proto.label for link in reloaded.get("page_link")]
    assert sum("your prediction is in" in label for label in links) == len(STEPS)
