"""The Live class page (issue 19, part 2): open, join, predict, reveal — through AppTest."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from dpviz.lab import classroom
from dpviz.lab.classroom import DB_ENV, FORMULA_NAME, OPEN_LIMIT, ClassStore, Prediction, Student
from dpviz.ui import seat
from dpviz.ui.pages import live
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
    return at, at.session_state[seat.LECTURE]


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
    names = next(e for e in at.expander if e.label.startswith("Who predicted"))
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
    me = at.session_state[seat.MEMBER]
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
    assert seat.MEMBER not in at.session_state


def _sharing_page():
    from dpviz.ui import seat

    for guess in (0.5, 0.5, 0.75):  # a rerun repeats a share; a new guess replaces it
        seat.share("lens", "How wide?", {"guess": guess}, {"answer": 1.0}, public=True,
                   within=(0.0, 10.0))


def _sharing_own_data():
    from dpviz.ui import seat

    seat.share("covariance", "For scale: ‖Σ‖ = 3.217.", {"guess": 0.5}, {"answer": 0.1234},
               public=False, within=(0.0, 10.0))
    seat.reveal_note(public=False)


def _sharing_too_far():
    from dpviz.ui import seat

    seat.share("lens", "How wide?", {"guess": 1e300}, {"answer": 1.0}, public=True,
               within=(0.0, 10.0))


def test_share_sends_only_for_a_member_and_once_per_prediction(db):
    from streamlit.testing.v1 import AppTest

    opened = db.open_class()
    alone = AppTest.from_function(_sharing_page).run()
    assert not alone.exception and not alone.caption and not alone.warning
    assert db.counts(opened.code)["lens"] == 0
    ann = db.join(opened.code, "Ann")
    member = AppTest.from_function(_sharing_page)
    member.session_state[seat.MEMBER] = {"code": ann.code, "student_id": ann.student_id,
                                         "name": ann.name}
    member.run()
    assert [c.value for c in member.caption] == [f"Sent to class {opened.code}."] * 2
    assert db.own(ann) == {"lens": {"guess": 0.75}} and db.row_count(opened.code) == 1
    stranger = AppTest.from_function(_sharing_page)
    stranger.session_state[seat.MEMBER] = {"code": "ZZZZZZ", "student_id": "x", "name": "X"}
    stranger.run()
    assert "Not sent to your class: No open class has that code" in stranger.warning[0].value


def member_of(at, student) -> None:
    at.session_state[seat.MEMBER] = {"code": student.code, "student_id": student.student_id,
                                     "name": student.name}


def test_a_question_on_the_students_own_data_sends_nothing_and_says_so(db):
    """Issue 36: a guess on an upload's page (its grid drawn over the data) is data too."""
    from streamlit.testing.v1 import AppTest

    opened = db.open_class()
    ann = db.join(opened.code, "Ann")
    at = AppTest.from_function(_sharing_own_data)
    member_of(at, ann)
    at.run()
    assert not at.exception, at.exception
    assert [c.value for c in at.caption] == [
        ":material/lock: " + seat.OWN_DATA_NOTE.format(code=opened.code)]
    assert db.row_count(opened.code) == 0 and db.counts(opened.code)["covariance"] == 0


def test_a_guess_outside_its_questions_range_is_not_sent_and_says_why(db):
    from streamlit.testing.v1 import AppTest

    opened = db.open_class()
    at = AppTest.from_function(_sharing_too_far)
    member_of(at, db.join(opened.code, "Ann"))
    at.run()
    assert at.warning[0].value == "Not sent to your class: " + escape_markdown(
        "prediction must be between 0 and 10, got 1e+300")
    assert db.row_count(opened.code) == 0


def test_a_lecturer_session_opens_one_class_and_gets_it_back(db):
    at, lecture = lecturer_opens()
    next(b for b in at.button if b.label == "Stop teaching this class here").click().run()
    assert seat.LECTURE not in at.session_state
    next(b for b in at.button if b.label == "Open your class").click().run()
    assert not at.exception, at.exception
    assert at.session_state[seat.LECTURE] == lecture
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
    first = at.session_state[seat.MEMBER]["student_id"]
    next(b for b in at.button if b.label == "Leave the class").click().run()
    assert seat.MEMBER not in at.session_state
    join_as(at, opened.code, "Ann B")
    assert at.session_state[seat.MEMBER]["student_id"] == first
    assert db.students(opened.code) == 1


def test_a_name_a_spreadsheet_would_run_is_refused_with_the_engines_sentence(db):
    opened = db.open_class()
    at = join_as(open_page("live"), opened.code, "=HYPERLINK(1)")
    assert at.error[0].value.startswith(escape_markdown(FORMULA_NAME))  # as typed, not markup
    assert seat.MEMBER not in at.session_state and db.students(opened.code) == 0


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
    at.session_state[seat.LECTURE] = {"code": "<i>X</i>", "token": "t"}
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
    address = at.query_params[seat.SEAT_PARAM]
    assert address.startswith(f"{opened.code}.") and address.split(".")[1] not in shown_text(at)
    me = at.session_state[seat.MEMBER]
    db.submit(Student(me["code"], me["student_id"], me["name"]), "budget", "ε after T rounds?",
              {"guess": 2.0}, {"answer": 3.1})
    back = reload(at, "live")
    assert back.session_state[seat.MEMBER]["student_id"] == me["student_id"]
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
    assert budget.session_state["predict"] and seat.MEMBER in budget.session_state  # back on
    assert f"Class **{opened.code}** as Ann" in shown_text(budget)  # the banner is back
    assert f"sends your prediction to class **{opened.code}**" in shown_text(budget)
    budget.number_input(key="budget_guess").set_value(4.0).run()
    next(b for b in budget.button if b.key == "budget_reveal").click().run()
    assert not budget.exception, budget.exception
    assert db.row_count(opened.code) == 1 and db.students(opened.code) == 1
    next(b for b in budget.button if b.key == "budget_again").click().run()
    budget.switch_page("pages/live.py").run()
    next(b for b in budget.button if b.label == "Leave the class").click().run()
    assert seat.SEAT_PARAM not in budget.query_params
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
    assert seat.CLOSED_BANNER.format(code=opened.code) in warned  # under the title
    assert seat.CLOSED_NOTE.format(code=opened.code) in warned  # and where the Reveal is
    assert seat.SEAT_PARAM not in budget.query_params and budget.session_state["predict"]
    alone = open_page("budget")
    alone.toggle(key="predict").set_value(True).run()
    assert seat.ALONE_NOTE in [c.value for c in alone.caption]  # solo: no class, said plainly


def test_a_lecturer_who_reloads_gets_the_class_back_without_the_key_on_screen(db):
    at, lecture = lecturer_opens()
    teach = at.query_params[seat.TEACH_PARAM]
    code, held = teach.split(".")
    assert code == lecture["code"] and held != lecture["token"]
    assert db.is_lecturer(code, held)
    ann = db.join(code, "Ann")
    db.submit(ann, "lens", "How wide will the noise be?", {"guess": 1.0}, {"answer": 2.0})
    back = reload(at, "live")
    assert back.session_state[seat.LECTURE]["code"] == code
    assert any(code in h.proto.body for h in back.get("html"))  # the same class, not a new one
    assert "**Privacy lens** — 1 answered" in shown_text(back)
    page = shown_text(back) + " ".join(h.proto.body for h in back.get("html"))
    assert held not in page and lecture["token"] not in page
    back.switch_page("pages/budget.py").run()
    back.toggle(key="predict").set_value(True).run()  # trying a step on the projector
    assert any(b.key == "budget_reveal" for b in back.button)
    assert not any(c.value == seat.ALONE_NOTE for c in back.caption)
    back.switch_page("pages/live.py").run()
    next(b for b in back.button if b.label == "Stop teaching this class here").click().run()
    assert seat.TEACH_PARAM not in back.query_params
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


# Issue 36: the live class under abuse.

def test_the_lecturers_figures_for_100_students_with_distinct_truths_cost_little_cpu():
    """Every step revealed, each student asked with their own numbers: under 0.3 s of CPU."""
    numbers = [Prediction(f"S{i}", f"q{i}", {"guess": 0.1 * i}, {"answer": 1.0 + 0.01 * i},
                          0.0) for i in range(100)]
    points = [Prediction(f"S{i}", "q", {"x": 0.1 * i, "y": 0.2 * i},
                         {"x": [1.0 + 0.01 * i, 5.0], "y": [0.5, 2.0 + 0.01 * i]}, 0.0)
              for i in range(100)]
    start = time.process_time()
    figures = [fig for step in live.STEP_PAGES
               for fig in live.class_figures(step, points if step == "gmm" else numbers,
                                             secret="lecturer key")]
    sent = [fig.to_json() for fig in figures]  # what Streamlit sends to the browser
    spent = time.process_time() - start
    assert len(sent) == 5 and max(len(fig.data) for fig in figures) == 2
    assert spent < 0.3, f"the lecturer's figures took {spent:.2f} s of CPU"


def test_client_keys_believe_nginx_and_not_a_public_peers_headers(monkeypatch):
    class Context:
        def __init__(self, peer, forwarded=""):
            self.ip_address = peer
            self.headers = {"X-Forwarded-For": forwarded} if forwarded else {}

    cases = [(None, "6.6.6.6, 203.0.113.5", "ip:203.0.113.5"),  # behind nginx, on loopback
             ("10.0.0.2", "203.0.113.5", "ip:203.0.113.5"),  # nginx on another machine
             ("93.184.216.34", "1.2.3.4", "ip:93.184.216.34"),  # a browser: headers lie
             ("2001:db8::1:2", "", "ip:2001:db8::/64")]
    for peer, forwarded, key in cases:
        monkeypatch.setattr(seat.st, "context", Context(peer, forwarded))
        assert seat.client_key() == key


def _client_twice():
    from dpviz.ui import seat

    seat.st.write(seat.client_key(), seat.client_key())


def test_with_no_address_the_client_is_the_session():
    from streamlit.testing.v1 import AppTest

    first, second = (AppTest.from_function(_client_twice).run() for _ in range(2))
    (a,), (b,) = (set(at.markdown[0].value.split()) for at in (first, second))
    assert a.startswith("session:") and b.startswith("session:") and a != b


def test_a_client_past_its_classes_is_told_when_to_come_back_and_another_still_opens(
        db, monkeypatch):
    for _ in range(OPEN_LIMIT):
        db.open_class(client="ip:203.0.113.9")
    monkeypatch.setattr(seat, "client_key", lambda: "ip:203.0.113.9")
    at = open_page("live")
    next(b for b in at.button if b.label == "Open a new class").click().run()
    assert [e.value for e in at.error] == [
        "Too many classes opened from here in the last hour: try again in 60 minutes."]
    assert seat.LECTURE not in at.session_state
    monkeypatch.setattr(seat, "client_key", lambda: "ip:198.51.100.7")
    lecturer_opens()  # a real lecturer elsewhere


def test_wrong_codes_from_one_client_make_it_wait(db, monkeypatch):
    monkeypatch.setattr(classroom, "FREE_WRONG_CODES", 1)
    # a wait longer than a loaded machine's rerun: 1 s (the first step) could pass between them
    monkeypatch.setattr(classroom, "wrong_code_wait", lambda wrong: 0.0 if wrong < 1 else 600.0)
    monkeypatch.setattr(seat, "client_key", lambda: "ip:203.0.113.9")
    code = db.open_class().code
    at = join_as(open_page("live"), "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY", "Ann")
    assert "No open class has that code" in at.error[0].value
    join_as(at, code, "Ann")
    assert at.error[0].value.startswith("Too many wrong class codes from here")
    assert seat.MEMBER not in at.session_state and db.students(code) == 0


def test_a_name_taken_in_the_class_is_refused_with_a_sentence(db):
    opened = db.open_class()
    db.join(opened.code, "Ann Lee")
    at = join_as(open_page("live"), opened.code, "  ann   LEE")
    assert at.error[0].value == escape_markdown(
        "This class already has a student called 'ann LEE': add an initial or your surname.")
    assert seat.MEMBER not in at.session_state


def test_the_lecturer_locks_the_class_and_removes_a_student(db):
    at, lecture = lecturer_opens()
    code = lecture["code"]
    ann, troll = db.join(code, "Ann"), db.join(code, EVIL)
    db.submit(troll, "lens", "q", {"guess": 9.0}, {"answer": 1.0})
    at.run()
    next(b for b in at.button if b.key == "live_lock").click().run()
    assert not at.exception, at.exception
    assert db.is_locked(code) and any("Locked" in c.value for c in at.caption)
    with pytest.raises(ValueError, match="locked"):
        db.join(code, "Newcomer")
    assert next(b for b in at.button if b.key == "live_lock").label.startswith("Let new")
    who = at.selectbox(key="live_remove_who")
    assert who.options == [EVIL, "Ann"]  # by name, in the lecturer's folded expander
    who.set_value(troll.student_id).run()
    next(b for b in at.button if b.key == "live_remove").click().run()
    assert not at.exception, at.exception
    assert not db.is_member(troll) and db.is_member(ann)
    assert db.counts(code)["lens"] == 0 and "**Privacy lens** — 0 answered" in shown_text(at)
    assert at.selectbox(key="live_remove_who").options == ["Ann"]
    next(b for b in at.button if b.key == "live_lock").click().run()
    assert not db.is_locked(code)


def test_a_removed_student_is_told_why_a_new_name_is_refused_until_the_lecturer_readmits(
        db, monkeypatch):
    at, lecture = lecturer_opens()
    code = lecture["code"]
    monkeypatch.setattr(seat, "client_key", lambda: "ip:203.0.113.9")
    student = join_as(open_page("live"), code, "Troll")
    (troll,) = db.roster(code, lecture["token"])
    at.run()
    at.selectbox(key="live_remove_who").set_value(troll.student_id).run()
    next(b for b in at.button if b.key == "live_remove").click().run()
    next(b for b in student.run().button if b.key == "live_leave_dropped").click().run()
    join_as(student, code, "Nice Name")  # the same browser, under a new name
    assert student.error[0].value == escape_markdown(classroom.REMOVED)
    assert db.students(code) == 0
    next(b for b in at.button if b.key == "live_readmit").click().run()
    assert not at.exception and not any(b.key == "live_readmit" for b in at.button)
    join_as(student, code, "Nice Name")
    assert not student.error and db.students(code) == 1


def test_the_projected_points_are_not_in_the_names_tables_order():
    """A small class: the figure's data order is a fixed shuffle, not the names table's."""
    said = [Prediction(name, "q", {"x": float(i), "y": 2.0 * i}, {"x": [0.0], "y": [0.0]}, 0.0)
            for i, name in enumerate(["Ann", "Bo", "Cy", "Di", "Ed"])]
    names_order = [row["predicted x"] for row in live._values_table(said)]
    (fig,) = live.class_figures("gmm", said, secret="lecturer key")
    projected = list(fig.data[0].x)
    assert sorted(projected) == sorted(names_order) and projected != names_order
    (again,) = live.class_figures("gmm", list(reversed(said)), secret="lecturer key")
    assert list(again.data[0].x) == projected  # stable: reruns draw the same figure
    numbers = [Prediction(a.name, "q", {"guess": a.prediction["x"]}, {"answer": 1.0}, 0.0)
               for a in said]
    (histogram,) = live.class_figures("lens", numbers, secret="lecturer key")
    assert list(histogram.data[0].x) == projected
