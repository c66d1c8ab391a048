"""The Live class page (issue 19, part 2): open, join, predict, reveal — through AppTest."""

from __future__ import annotations

import json
import sqlite3

import pytest

from dpviz.ui import live
from dpviz.ui.classroom import DB_ENV, FORMULA_NAME, ClassStore, Student
from dpviz.ui.widgets import escape_markdown

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
    assert "text" not in strip["data"][0]  # projected: the distribution, no names
    assert "Ann" not in json.dumps(charts(at)) and "img" not in json.dumps(charts(at))
    assert any("truth 3.1" in str(a.get("text")) for a in strip["layout"]["annotations"])
    names = next(e for e in at.expander if "names" in e.label)
    assert not names.proto.expanded  # the names stay folded on the projector
    assert names.dataframe[0].value["student"].tolist() == ["Ann", EVIL]
    assert db.revealed(code) == frozenset({"budget"})
    assert "live_gmm_0" not in charts(at)  # each step is revealed on its own
    next(b for b in at.button if b.key == "live_reveal_gmm").click().run()
    points = charts(at)["live_gmm_0"]["data"]
    assert [t["name"] for t in points] == ["predictions", "truth"]
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
        live.share("lens", "How wide?", {"guess": guess}, {"answer": 1.0}, public=True)


def _sharing_own_data():
    from dpviz.ui import live

    live.share("covariance", "For scale: ‖Σ‖ = 3.217.", {"guess": 0.5}, {"answer": 0.1234},
               public=False)


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


def member_of(at, student) -> None:
    at.session_state[live.MEMBER] = {"code": student.code, "student_id": student.student_id,
                                     "name": student.name}


def test_a_question_on_the_students_own_data_sends_the_prediction_only(db):
    from streamlit.testing.v1 import AppTest

    opened = db.open_class()
    ann = db.join(opened.code, "Ann")
    at = AppTest.from_function(_sharing_own_data)
    member_of(at, ann)
    at.run()
    assert "your prediction only" in at.caption[0].value
    db.reveal(opened.code, opened.token, "covariance")
    (only,) = db.predictions(opened.code, opened.token, "covariance")
    assert (only.question, only.prediction, only.truth) == (live.OWN_DATA, {"guess": 0.5}, {})
    raw = "".join(str(r) for r in sqlite3.connect(db.path).execute("SELECT * FROM predictions"))
    assert "3.217" not in raw and "0.1234" not in raw


def test_a_lecturer_session_opens_one_class_and_gets_it_back(db):
    at, lecture = lecturer_opens()
    next(b for b in at.button if b.label == "Stop teaching this class here").click().run()
    assert live.LECTURE not in at.session_state
    next(b for b in at.button if b.label == "Open your class").click().run()
    assert not at.exception, at.exception
    assert at.session_state[live.LECTURE] == lecture
    assert db.is_lecturer(lecture["code"], lecture["token"])


def join_as(at, code: str, name: str):
    at.text_input[0].input(code)
    at.text_input[1].input(name)
    next(b for b in at.get("form_submit_button") if b.label == "Join the class").click().run()
    assert not at.exception, at.exception
    return at


def test_rejoining_from_the_same_session_takes_no_new_place(db):
    opened = db.open_class()
    at = join_as(open_page("live"), opened.code, "Ann")
    first = at.session_state[live.MEMBER]["student_id"]
    next(b for b in at.button if b.label == "Leave the class").click().run()
    assert live.MEMBER not in at.session_state
    join_as(at, opened.code, "Ann B")
    assert at.session_state[live.MEMBER]["student_id"] == first
    assert db.students(opened.code) == 1


def test_a_name_a_spreadsheet_would_run_is_refused_with_the_engines_sentence(db):
    opened = db.open_class()
    at = join_as(open_page("live"), opened.code, "=HYPERLINK(1)")
    assert at.error[0].value.startswith(escape_markdown(FORMULA_NAME))  # as typed, not markup
    assert live.MEMBER not in at.session_state and db.students(opened.code) == 0


def test_an_unreachable_class_is_a_sentence_on_the_lecturers_screen(db, monkeypatch):
    at, lecture = lecturer_opens()
    ann = db.join(lecture["code"], "Ann")
    db.submit(ann, "lens", "q", {"guess": 1.0}, {"answer": 2.0})
    at.run()

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    reveal = ClassStore.reveal
    monkeypatch.setattr(ClassStore, "reveal", locked)
    next(b for b in at.button if b.key == "live_reveal_lens").click().run()
    assert not at.exception, at.exception
    assert live.UNREACHABLE in [w.value for w in at.warning]
    monkeypatch.setattr(ClassStore, "reveal", reveal)
    db.reveal(lecture["code"], lecture["token"], "lens")
    monkeypatch.setattr(ClassStore, "predictions", locked)
    at.run()
    assert not at.exception, at.exception
    assert live.UNREACHABLE in [w.value for w in at.warning]


def test_the_class_code_is_escaped_in_its_html(db, monkeypatch):
    monkeypatch.setattr(ClassStore, "is_lecturer", lambda self, code, token: True)
    at = open_page("live")
    at.session_state[live.LECTURE] = {"code": "<i>X</i>", "token": "t"}
    at.run()
    bodies = " ".join(h.proto.body for h in at.get("html"))
    assert "&lt;i&gt;X&lt;/i&gt;" in bodies and "<i>" not in bodies


# Issue 34: a live class survives a reload, and predict mode always says where Reveal goes.

def reload(at, page: str | None = None):
    """The same browser reloading: a new session opened on the address ``at`` left."""
    from streamlit.testing.v1 import AppTest

    from .app_helpers import ROOT, TIMEOUT

    again = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    again.query_params.update(at.query_params)
    again.run()
    assert not again.exception, again.exception
    if page is not None:
        # A browser opens the page itself; AppTest opens Home, then the page, whose first run
        # does not see a URL-bound toggle (predict) yet — AppTest's alone: the second run does.
        again.switch_page(f"pages/{page}.py").run().run()
        assert not again.exception, again.exception
    return again


def shown_text(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                    + [s.value for s in at.success] + [w.value for w in at.warning])


def test_a_student_who_reloads_is_back_in_the_same_place_with_the_answers_given(db):
    opened = db.open_class()
    at = join_as(open_page("live"), opened.code, "Ann")
    seat = at.query_params[live.SEAT_PARAM]
    assert seat.startswith(f"{opened.code}.") and seat.split(".")[1] not in shown_text(at)
    me = at.session_state[live.MEMBER]
    db.submit(Student(me["code"], me["student_id"], me["name"]), "budget", "ε after T rounds?",
              {"guess": 2.0}, {"answer": 3.1})
    back = reload(at, "live")
    assert back.session_state[live.MEMBER]["student_id"] == me["student_id"]
    assert "You are in class" in back.success[0].value
    links = [link.proto.label for link in back.get("page_link")]
    assert "Privacy budget — your prediction is in" in links
    assert not back.get("form_submit_button")  # nothing to rejoin: no second student
    assert db.students(opened.code) == 1


def test_a_reloaded_student_predicts_into_the_class_and_a_left_one_is_told_where_reveal_is(db):
    opened = db.open_class()
    at = join_as(open_page("live"), opened.code, "Ann")
    at.query_params.pop("predict")  # a link followed inside the app can drop it from the address
    budget = reload(at, "budget")
    assert budget.session_state["predict"] and live.MEMBER in budget.session_state  # back on
    assert f"Class **{opened.code}** as Ann" in shown_text(budget)  # the banner is back
    assert f"sends your prediction to class **{opened.code}**" in shown_text(budget)
    budget.number_input(key="budget_guess").set_value(4.0).run()
    next(b for b in budget.button if b.key == "budget_reveal").click().run()
    assert not budget.exception, budget.exception
    assert db.row_count(opened.code) == 1 and db.students(opened.code) == 1
    next(b for b in budget.button if b.key == "budget_again").click().run()
    budget.switch_page("pages/live.py").run()
    next(b for b in budget.button if b.label == "Leave the class").click().run()
    assert live.SEAT_PARAM not in budget.query_params
    budget.switch_page("pages/budget.py").run()
    assert budget.session_state["predict"]
    assert any("You left class" in w.value for w in budget.warning)  # where the Reveal is
    assert not any("sends your prediction" in c.value for c in budget.caption)


def test_a_student_whose_class_closed_is_told_so_after_a_reload(db, monkeypatch):
    opened = db.open_class()
    at = join_as(open_page("live"), opened.code, "Ann")
    at.query_params["predict"] = "true"
    sqlite3.connect(db.path).execute("PRAGMA foreign_keys = ON").execute(
        "DELETE FROM classes").connection.commit()
    budget = reload(at, "budget")
    warned = [w.value for w in budget.warning]
    assert live.CLOSED_BANNER.format(code=opened.code) in warned  # under the title
    assert live.CLOSED_NOTE.format(code=opened.code) in warned  # and where the Reveal is
    assert live.SEAT_PARAM not in budget.query_params and budget.session_state["predict"]
    alone = open_page("budget")
    alone.toggle(key="predict").set_value(True).run()
    assert live.ALONE_NOTE in [c.value for c in alone.caption]  # solo: no class, said plainly


def test_a_lecturer_who_reloads_gets_the_class_back_without_the_key_on_screen(db):
    at, lecture = lecturer_opens()
    teach = at.query_params[live.TEACH_PARAM]
    code, seat = teach.split(".")
    assert code == lecture["code"] and seat != lecture["token"]
    assert db.is_lecturer(code, seat)
    ann = db.join(code, "Ann")
    db.submit(ann, "lens", "How wide will the noise be?", {"guess": 1.0}, {"answer": 2.0})
    back = reload(at, "live")
    assert back.session_state[live.LECTURE]["code"] == code
    assert any(code in h.proto.body for h in back.get("html"))  # the same class, not a new one
    assert "**Privacy lens** — 1 answered" in shown_text(back)
    page = shown_text(back) + " ".join(h.proto.body for h in back.get("html"))
    assert seat not in page and lecture["token"] not in page
    back.switch_page("pages/budget.py").run()
    back.toggle(key="predict").set_value(True).run()  # trying a step on the projector
    assert any(b.key == "budget_reveal" for b in back.button)
    assert not any(c.value == live.ALONE_NOTE for c in back.caption)
    back.switch_page("pages/live.py").run()
    next(b for b in back.button if b.label == "Stop teaching this class here").click().run()
    assert live.TEACH_PARAM not in back.query_params
    assert db.is_open(code)  # the class goes on; this browser just stopped showing it


def test_the_reveal_shows_the_question_whole(db):
    at, lecture = lecturer_opens()
    question = ("One round of this plan costs ε₁ = 0.5 (δ = 1e-06, Gaussian). What is ε after "
                "T = 40 rounds at the same noise? " + "More words. " * 8).strip()
    for name in ("Ann", "Bob", "Cy"):
        student = db.join(lecture["code"], name)
        db.submit(student, "budget", question if name != "Cy" else "Other numbers?",
                  {"guess": 3.0}, {"answer": 4.0})
    db.reveal(lecture["code"], lecture["token"], "budget")
    at.run()
    assert any(m.value == escape_markdown(question) + " (1 of 3 students were asked it with "
               "other numbers.)" for m in at.markdown)
    assert charts(at)["live_budget_0"]["layout"]["title"]["text"] == (
        "Privacy budget: 3 predictions")


def test_no_link_the_app_builds_carries_a_seat(db):
    at, lecture = lecturer_opens()
    student = join_as(open_page("live"), db.open_class().code, "Ann")
    for session in (at, student):
        for page in ("budget", "lens"):
            reopened = reload(session, page)  # its opening address holds the seat
            links = [link.proto.query_string for link in reopened.get("page_link")]
            assert any("reset=1" in q for q in links)  # "Reset to scenario"
            assert not any("seat=" in q or "teach=" in q for q in links), links
