"""The Live class page (issue 19, part 2): open, join, predict, reveal — through AppTest."""

from __future__ import annotations

import pytest

from dpviz.ui import live
from dpviz.ui.classroom import DB_ENV, ClassStore

from .app_helpers import charts, open_page, values

EVIL = "<img src=x onerror=alert(1)> **Bob**"


@pytest.fixture
def db(tmp_path, monkeypatch) -> ClassStore:
    path = tmp_path / "classes.sqlite3"
    monkeypatch.setenv(DB_ENV, str(path))
    return ClassStore(path)


def lecturer_opens():
    at = open_page("live")
    next(b for b in at.button if b.label == "Open a new class").click().run()
    assert not at.exception, at.exception
    return at, at.session_state[live.LECTURE]


def test_lecturer_opens_a_class_and_sees_only_counts_before_the_reveal(db):
    at, lecture = lecturer_opens()
    code, token = lecture["code"], lecture["token"]
    assert db.is_lecturer(code, token)
    assert any(code in h.proto.body for h in at.get("html"))  # the code, shown big
    assert any(f"/live?join={code}" in c.value for c in at.code)
    assert at.get("image")  # the QR code
    assert token not in "".join(m.value for m in at.markdown)  # the key only in its expander
    ann = db.join(code, "Ann")
    bob = db.join(code, EVIL)
    db.submit(ann, "budget", "ε after T rounds?", {"guess": 2.0}, {"answer": 3.1})
    db.submit(bob, "budget", "ε after T rounds?", {"guess": 5.0}, {"answer": 3.1})
    db.submit(ann, "gmm", "Where?", {"x": 1.0, "y": 2.0}, {"x": [0.5, 4.0], "y": [1.5, 0.0]})
    at.run()
    text = " ".join(m.value for m in at.markdown)
    assert "**Privacy budget** — 2 answered" in text
    assert "Ann" not in text and "live_budget_0" not in charts(at)
    next(b for b in at.button if b.key == "live_reveal_budget").click().run()
    assert not at.exception, at.exception
    strip = charts(at)["live_budget_0"]
    assert sorted(values(strip["data"][0]["x"]).tolist()) == [2.0, 5.0]
    assert "&lt;img" in strip["data"][0]["text"][1]  # a typed name is escaped in hover text
    assert any("truth 3.1" in str(a.get("text")) for a in strip["layout"]["annotations"])
    assert db.revealed(code) == frozenset({"budget"})
    assert "live_gmm_0" not in charts(at)  # each step is revealed on its own
    next(b for b in at.button if b.key == "live_reveal_gmm").click().run()
    points = charts(at)["live_gmm_0"]["data"]
    assert [t["name"] for t in points] == ["the class's predictions", "truth"]
    assert sorted(values(points[1]["x"]).tolist()) == [0.5, 4.0]


def test_a_student_joins_from_the_link_and_never_sees_the_others(db):
    opened = db.open_class()
    other = db.join(opened.code, "Other student")
    db.submit(other, "lens", "q", {"epsilon": 0.5}, {"epsilon": 1.0})
    at = open_page()
    at.query_params["join"] = opened.code.lower()
    at.switch_page("pages/live.py").run()
    assert at.text_input[0].value == opened.code  # the link's code, typed for the student
    at.text_input[1].input(EVIL)
    next(b for b in at.get("form_submit_button") if b.label == "Join the class").click().run()
    assert not at.exception, at.exception
    me = at.session_state[live.MEMBER]
    assert me["code"] == opened.code and me["name"] == EVIL
    assert at.session_state["predict"]  # joined students predict on every page
    page = " ".join(m.value for m in at.markdown) + " ".join(s.value for s in at.success)
    assert "Other student" not in page and "0.5" not in page
    assert "\\<img" in page  # the name is shown as typed, never as markup
    assert not charts(at)


def test_a_wrong_code_is_a_clear_message(db):
    at = open_page("live")
    at.text_input[0].input("ZZZZZZ")
    at.text_input[1].input("Ann")
    next(b for b in at.get("form_submit_button") if b.label == "Join the class").click().run()
    assert "No open class has that code" in at.error[0].value
    assert live.MEMBER not in at.session_state


def _sharing_page():
    from dpviz.ui import live

    for guess in (0.5, 0.5, 0.75):  # a rerun repeats a share; a new guess replaces it
        live.share("lens", "How wide?", {"guess": guess}, {"answer": 1.0})


def test_share_sends_only_for_a_member_and_once_per_prediction(db):
    from streamlit.testing.v1 import AppTest

    opened = db.open_class()
    alone = AppTest.from_function(_sharing_page).run()
    assert not alone.exception and not alone.caption and not alone.warning
    assert db.counts(opened.code)["lens"] == 0
    ann = db.join(opened.code, "Ann")
    member = AppTest.from_function(_sharing_page)
    member.session_state[live.MEMBER] = {"code": ann.code, "student_id": ann.student_id,
                                         "name": ann.name}
    member.run()
    assert [c.value for c in member.caption] == [f"Sent to class {opened.code}."] * 2
    assert db.own(ann) == {"lens": {"guess": 0.75}} and db.row_count(opened.code) == 1
    stranger = AppTest.from_function(_sharing_page)
    stranger.session_state[live.MEMBER] = {"code": "ZZZZZZ", "student_id": "x", "name": "X"}
    stranger.run()
    assert "Not sent to your class: No open class has that code" in stranger.warning[0].value
