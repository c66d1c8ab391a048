"""The live class store (issue 19, part 2): expiry, caps, isolation, concurrency."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading

import pytest

from dpviz.lab import classroom
from dpviz.lab.classroom import ClassStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path, clock) -> ClassStore:
    return ClassStore(tmp_path / "classes.sqlite3", clock=clock)


def test_codes_are_short_and_unambiguous_and_the_token_is_the_lecturers_only(store):
    opened = store.open_class()
    assert len(opened.code) == classroom.CODE_LENGTH
    assert set(opened.code) <= set(classroom.ALPHABET)
    assert not set("01OIL") & set(classroom.ALPHABET)
    assert store.is_open(opened.code.lower()) and store.is_lecturer(opened.code, opened.token)
    assert not store.is_lecturer(opened.code, "guess")
    with pytest.raises(ValueError, match="Only the lecturer"):
        store.reveal(opened.code, "guess", "gmm")
    with pytest.raises(ValueError, match="Only the lecturer"):
        store.predictions(opened.code, "guess", "gmm")
    raw = sqlite3.connect(store.path).execute("SELECT token_hash FROM classes").fetchone()[0]
    assert opened.token not in raw  # only its hash is stored


def test_predictions_stay_hidden_until_the_reveal_and_a_new_one_replaces_the_old(store):
    opened = store.open_class()
    ann = store.join(opened.code, "  Ann   Lee ")
    assert ann.name == "Ann Lee"
    store.submit(ann, "gmm", "Where?", {"x": 1.0, "y": 2.0}, {"x": [0.5, 3.0], "y": [1, 2]})
    store.submit(ann, "gmm", "Where?", {"x": 1.5, "y": 2.5}, {"x": [0.5, 3.0], "y": [1, 2]})
    assert store.counts(opened.code)["gmm"] == 1
    with pytest.raises(ValueError, match="Reveal this step"):
        store.predictions(opened.code, opened.token, "gmm")
    store.reveal(opened.code, opened.token, "gmm")
    (only,) = store.predictions(opened.code, opened.token, "gmm")
    assert (only.name, only.prediction, only.truth) == (
        "Ann Lee", {"x": 1.5, "y": 2.5}, {"x": [0.5, 3.0], "y": [1.0, 2.0]})
    assert store.own(ann) == {"gmm": {"x": 1.5, "y": 2.5}}


def test_classes_are_isolated(store):
    first, second = store.open_class(), store.open_class()
    assert first.code != second.code
    ann = store.join(first.code, "Ann")
    store.submit(ann, "lens", "q", {"epsilon": 0.3}, {"epsilon": 1.0})
    store.reveal(second.code, second.token, "lens")
    assert store.predictions(second.code, second.token, "lens") == []
    assert store.counts(second.code)["lens"] == 0 and store.students(second.code) == 0
    with pytest.raises(ValueError, match="Only the lecturer"):  # one class's token, another's code
        store.predictions(first.code, second.token, "lens")
    intruder = classroom.Student(second.code, ann.student_id, "Ann")
    with pytest.raises(ValueError, match="not in this class"):
        store.submit(intruder, "lens", "q", {"epsilon": 0.3}, {})


def test_classes_expire_and_are_purged(store, clock):
    old = store.open_class()
    student = store.join(old.code, "Ann")
    store.submit(student, "sbm", "q", {"caught": True}, {"caught": False})
    clock.now += classroom.CLASS_HOURS * 3600 + 1
    assert not store.is_open(old.code)
    with pytest.raises(ValueError, match="No open class"):
        store.join(old.code, "Bob")
    with pytest.raises(ValueError, match="No open class"):
        store.submit(student, "sbm", "q", {"caught": True}, {})
    store.open_class()  # purges on open
    conn = sqlite3.connect(store.path)
    assert conn.execute("SELECT COUNT(*) FROM classes").fetchone()[0] == 1
    assert conn.execute("SELECT COUNT(*) FROM students").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 0


def test_caps_and_size_limits_give_clear_messages(store, monkeypatch):
    monkeypatch.setattr(classroom, "MAX_STUDENTS", 2)
    monkeypatch.setattr(classroom, "MAX_PREDICTIONS", 3)
    opened = store.open_class()
    ann, bob = store.join(opened.code, "Ann"), store.join(opened.code, "Bob")
    with pytest.raises(ValueError, match="This class is full"):
        store.join(opened.code, "Cy")
    assert store.join(opened.code, "Ann again", ann.student_id).name == "Ann again"  # a rename
    for step in ("lens", "gmm"):
        store.submit(ann, step, "q", {"v": 1}, {})
    store.submit(bob, "lens", "q", {"v": 1}, {})
    with pytest.raises(ValueError, match="has its 3 predictions"):
        store.submit(bob, "gmm", "q", {"v": 1}, {})
    store.submit(bob, "lens", "q", {"v": 2}, {})  # replacing one is still allowed
    with pytest.raises(ValueError, match="name must be 1 to 40 characters, got 41"):
        store.join(opened.code, "x" * 41)
    with pytest.raises(ValueError, match="name must be 1 to 40 characters, got 0"):
        store.join(opened.code, "   ")
    with pytest.raises(ValueError, match="printable"):
        store.join(opened.code, "a\u0000b")
    with pytest.raises(ValueError, match="must be a finite number, got nan"):
        store.submit(ann, "lens", "q", {"v": float("nan")}, {})
    with pytest.raises(ValueError, match="must be a number or a yes/no, got str"):
        store.submit(ann, "lens", "q", {"v": "<b>"}, {})
    with pytest.raises(ValueError, match="at most 4096 bytes"):
        store.submit(ann, "lens", "q", {"v": 1}, {"x": [1.5] * 2000})
    with pytest.raises(ValueError, match="step must be one of"):
        store.submit(ann, "explorer", "q", {"v": 1}, {})


def test_open_classes_are_capped_until_some_expire(store, clock, monkeypatch):
    monkeypatch.setattr(classroom, "MAX_CLASSES", 2)
    store.open_class()
    store.open_class()
    with pytest.raises(ValueError, match="has its 2 classes open"):
        store.open_class()
    clock.now += classroom.CLASS_HOURS * 3600 + 1
    assert store.is_open(store.open_class().code)  # the expired two were purged first


def test_an_infinite_truth_is_stored_as_unknown(store):
    opened = store.open_class()
    ann = store.join(opened.code, "Ann")
    store.submit(ann, "budget", "q", {"epsilon": 2.0}, {"epsilon": float("inf")})
    store.reveal(opened.code, opened.token, "budget")
    assert store.predictions(opened.code, opened.token, "budget")[0].truth == {"epsilon": None}


def test_the_database_path_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(classroom.DB_ENV, str(tmp_path / "a" / "c.sqlite3"))
    assert ClassStore().path == tmp_path / "a" / "c.sqlite3"
    monkeypatch.delenv(classroom.DB_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert classroom.default_path() == tmp_path / "dpviz" / "classes.sqlite3"


def test_another_process_sees_the_same_class(tmp_path):
    path = tmp_path / "shared.sqlite3"
    here = ClassStore(path)
    opened = here.open_class()
    # the module alone (it needs only the standard library), as another server process has it
    script = ("import importlib.util as u, json, sys; "
              "spec = u.spec_from_file_location('classroom', sys.argv[3]); "
              "m = sys.modules['classroom'] = u.module_from_spec(spec); "
              "spec.loader.exec_module(m); "
              "s = m.ClassStore(sys.argv[1]); st = s.join(sys.argv[2], 'From afar'); "
              "s.submit(st, 'lens', 'q', {'epsilon': 0.7}, {'epsilon': 1.0}); "
              "print(json.dumps(s.counts(sys.argv[2])))")
    out = subprocess.run([sys.executable, "-c", script, str(path), opened.code, classroom.__file__],
                         capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout.strip().splitlines()[-1])["lens"] == 1
    here.reveal(opened.code, opened.token, "lens")
    assert [p.name for p in here.predictions(opened.code, opened.token, "lens")] == ["From afar"]
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_thirty_concurrent_students_lose_nothing(store):
    opened = store.open_class()
    failures: list[BaseException] = []

    def student(i: int) -> None:
        try:
            me = store.join(opened.code, f"Student {i}")
            for step in classroom.STEPS:
                store.submit(me, step, "q", {"v": float(i)}, {"v": 1.0})
        except BaseException as err:  # reported below: a lost write fails the test
            failures.append(err)

    threads = [threading.Thread(target=student, args=(i,), daemon=True) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a student's writes never finished"
    assert not failures
    assert store.students(opened.code) == 30
    assert store.row_count(opened.code) == 30 * len(classroom.STEPS)
    assert set(store.counts(opened.code).values()) == {30}


def test_a_full_class_can_answer_every_step(store):
    assert classroom.MAX_PREDICTIONS >= classroom.MAX_STUDENTS * len(classroom.STEPS)
    opened = store.open_class()
    students = [store.join(opened.code, f"Student {i}") for i in range(classroom.MAX_STUDENTS)]
    for me in students:
        for step in classroom.STEPS:
            store.submit(me, step, "q", {"v": 1.0}, {})
    assert store.row_count(opened.code) == classroom.MAX_STUDENTS * len(classroom.STEPS)


def test_a_session_reopening_gets_its_open_class_back(store, clock):
    opened = store.open_class()
    again = store.open_class((opened.code, opened.token))
    assert (again.code, again.token, again.expires) == (opened.code, opened.token, opened.expires)
    assert store.open_class((opened.code, "not the token")).code != opened.code
    store.join(opened.code, "Ann")  # not empty: it stays open its 12 hours
    clock.now += classroom.CLASS_HOURS * 3600 + 1
    assert store.open_class((opened.code, opened.token)).code != opened.code


def test_empty_classes_expire_after_an_hour_and_are_purged_before_the_cap(store, clock,
                                                                          monkeypatch):
    monkeypatch.setattr(classroom, "MAX_CLASSES", 2)
    taught, empty = store.open_class(), store.open_class()
    store.join(taught.code, "Ann")
    with pytest.raises(ValueError, match="has its 2 classes open"):
        store.open_class()
    clock.now += classroom.EMPTY_HOURS * 3600 - 60
    with pytest.raises(ValueError, match="has its 2 classes open"):
        store.open_class()
    clock.now += 120
    third = store.open_class()  # the empty one was purged first
    assert store.is_open(taught.code) and store.is_open(third.code)
    assert not store.is_open(empty.code)


def test_rejoining_takes_no_new_place_and_a_full_class_drops_idle_students(store, clock,
                                                                          monkeypatch):
    monkeypatch.setattr(classroom, "MAX_STUDENTS", 2)
    opened = store.open_class()
    ann, bob = store.join(opened.code, "Ann"), store.join(opened.code, "Bob")
    store.submit(ann, "lens", "q", {"v": 1.0}, {})
    assert store.join(opened.code.lower(), "Bob", bob.student_id) == bob  # the same place
    with pytest.raises(ValueError, match="This class is full"):
        store.join(opened.code, "Cy")
    clock.now += classroom.EMPTY_HOURS * 3600 + 1
    cy = store.join(opened.code, "Cy")  # Bob joined an hour ago and never predicted
    assert store.students(opened.code) == 2
    store.submit(ann, "gmm", "q", {"v": 1.0}, {})  # Ann, who predicted, kept her place
    store.submit(cy, "gmm", "q", {"v": 1.0}, {})
    with pytest.raises(ValueError, match="not in this class any more"):
        store.submit(bob, "gmm", "q", {"v": 1.0}, {})


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x\")", "+1", "-2+3", "@SUM(A1)",
                                  "  =cmd"])
def test_names_a_spreadsheet_would_run_are_refused(store, name):
    opened = store.open_class()
    with pytest.raises(ValueError) as err:
        store.join(opened.code, name)
    assert str(err.value).startswith(classroom.FORMULA_NAME)
    assert store.join(opened.code, "Ann-Marie O'Neil").name == "Ann-Marie O'Neil"


def test_the_database_folder_and_file_are_the_owners_only(tmp_path):
    path = tmp_path / "new" / "classes.sqlite3"
    ClassStore(path).open_class()
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert path.stat().st_mode & 0o777 == 0o600
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if extra.exists():
            assert extra.stat().st_mode & 0o077 == 0


def test_a_seat_sits_a_reloaded_browser_down_in_the_same_row_with_its_answers(store):
    """Issue 34: a reload keeps the student's place; joining again takes none."""
    opened = store.open_class()
    seat = classroom.new_seat()
    ann = store.join(opened.code, "Ann", seat=seat)
    assert ann.student_id == classroom.seat_id(seat)
    store.submit(ann, "lens", "How wide?", {"guess": 1.0}, {"answer": 2.0})
    back = store.rejoin(opened.code.lower(), seat)
    assert back == ann and store.own(back) == {"lens": {"guess": 1.0}}
    assert store.join(opened.code, "Ann L", seat=seat).student_id == ann.student_id
    assert store.students(opened.code) == 1 and store.row_count(opened.code) == 1
    with pytest.raises(ValueError, match="not in class"):
        store.rejoin(opened.code, classroom.new_seat())
    raw = "".join(str(r) for r in sqlite3.connect(store.path).execute("SELECT * FROM students"))
    assert seat not in raw  # only the seat's hash is stored
    assert store.is_member(ann)
    assert not store.is_member(classroom.Student(opened.code, "x" * 32, "Nobody"))


def test_a_lecturer_seat_opens_the_class_as_its_key_does_and_nothing_else(store, clock,
                                                                             monkeypatch):
    opened, other = store.open_class(), store.open_class()
    seat = store.lecturer_seat(opened.code, opened.token)
    assert seat != opened.token and store.is_lecturer(opened.code, seat)
    assert not store.is_lecturer(other.code, seat)
    with pytest.raises(ValueError, match="Only the lecturer"):
        store.lecturer_seat(opened.code, "guess")
    ann = store.join(opened.code, "Ann")
    store.submit(ann, "sbm", "q", {"guess": 0.2}, {"answer": 0.1})
    store.reveal(opened.code, seat, "sbm")
    assert [p.name for p in store.predictions(opened.code, seat, "sbm")] == ["Ann"]
    assert store.open_class((opened.code, seat)).code == opened.code  # "Open your class"
    raw = "".join(str(r) for r in sqlite3.connect(store.path).execute(
        "SELECT * FROM lecturer_seats"))
    assert seat not in raw
    monkeypatch.setattr(classroom, "MAX_LECTURER_SEATS", 2)
    seats = [store.lecturer_seat(opened.code, opened.token) for _ in range(3)]
    assert [store.is_lecturer(opened.code, s) for s in seats] == [False, True, True]
    clock.now += classroom.CLASS_HOURS * 3600 + 1
    assert not store.is_lecturer(opened.code, seats[-1]) and not store.is_lecturer(
        opened.code, opened.token)
    store.purge()
    count = sqlite3.connect(store.path).execute("SELECT COUNT(*) FROM lecturer_seats")
    assert count.fetchone()[0] == 0  # purged with their class


def test_a_seat_in_a_closed_class_or_dropped_from_a_full_one_is_refused(store, clock,
                                                                         monkeypatch):
    opened = store.open_class()
    seat = classroom.new_seat()
    store.join(opened.code, "Ann", seat=seat)
    monkeypatch.setattr(classroom, "MAX_STUDENTS", 1)
    clock.now += classroom.EMPTY_HOURS * 3600 + 1
    store.join(opened.code, "Bob")  # full: Ann, idle without a prediction, is dropped
    with pytest.raises(ValueError, match="not in class"):
        store.rejoin(opened.code, seat)
    clock.now += classroom.CLASS_HOURS * 3600
    with pytest.raises(ValueError, match="No open class"):
        store.rejoin(opened.code, seat)


def test_a_version_1_database_gains_the_seats_and_keeps_its_classes(tmp_path, clock):
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(classroom._SCHEMA.split("CREATE TABLE IF NOT EXISTS lecturer_seats")[0]
                      + "PRAGMA user_version = 1;")
    old.execute("INSERT INTO classes VALUES ('ABCDEF', ?, ?, ?)",
                (classroom._hash("key"), clock.now, clock.now + 3600))
    old.commit()
    old.close()
    store = ClassStore(path, clock=clock)
    seat = store.lecturer_seat("ABCDEF", "key")
    assert store.is_lecturer("ABCDEF", seat)
    store.lock("ABCDEF", seat)  # and the locks and attempts of version 3, the bans of 4
    assert store.is_locked("ABCDEF") and store.open_class(client="ip:192.0.2.1").code
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == classroom.SCHEMA_VERSION


# Issue 36: a live class under abuse — per-client limits, lock and remove, unique names,
# bounded guesses.

def test_a_thousand_scripted_opens_from_one_client_open_a_handful_and_a_lecturer_still_opens(
        store, clock):
    opened, refusals = 0, set()
    for _ in range(1000):
        try:
            store.open_class(client="ip:203.0.113.9")
        except classroom.RateLimited as err:
            refusals.add(str(err))
        else:
            opened += 1
    assert opened == classroom.OPEN_LIMIT
    assert refusals == {"Too many classes opened from here in the last hour: try again in 60 "
                        "minutes."}
    assert store.is_open(store.open_class(client="ip:198.51.100.7").code)  # another lecturer
    clock.now += classroom.OPEN_WINDOW_S + 1
    store.open_class(client="ip:203.0.113.9")  # an hour on, this client may open again
    rows = sqlite3.connect(store.path).execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    assert rows == 2  # its own and every client's: refused ones not stored, old ones forgotten


def test_reopening_a_sessions_own_class_is_not_a_new_class_for_the_limit(store):
    mine = store.open_class(client="me")
    for _ in range(3 * classroom.OPEN_LIMIT):
        assert store.open_class((mine.code, mine.token), client="me").code == mine.code


@pytest.mark.slow
def test_a_hall_of_300_behind_one_address_joins_twice_over_within_the_limit(store):
    """The join limit's sizing: 300 students behind one campus NAT each join twice at once."""
    classes = [store.open_class().code for _ in range(3)]
    for i in range(600):  # three classes of 100; every student joins again (a rename)
        store.join(classes[i % 3], f"Student {i % 300}" + " B" * (i // 300),
                   seat=f"seat-{i % 300}", client="ip:192.0.2.1")
    assert [store.students(code) for code in classes] == [100, 100, 100]
    with pytest.raises(classroom.RateLimited, match="Too many joins"):
        store.join(store.open_class().code, "Script", client="ip:192.0.2.1")


def test_joins_from_one_client_stop_at_the_limit_until_its_window_passes(store, clock,
                                                                        monkeypatch):
    monkeypatch.setattr(classroom, "JOIN_LIMIT", 3)
    code = store.open_class().code
    for i in range(3):
        store.join(code, f"Script {i}", client="ip:192.0.2.2")
    with pytest.raises(classroom.RateLimited, match="Too many joins from here in the last 10 "
                                                    "minutes: try again in 10 minutes"):
        store.join(code, "Script 3", client="ip:192.0.2.2")
    assert store.join(code, "Ann", client="ip:192.0.2.3").name == "Ann"  # another address
    clock.now += classroom.JOIN_WINDOW_S
    assert store.join(code, "Script 3", client="ip:192.0.2.2").name == "Script 3"
    assert store.students(code) == 5


def test_wrong_codes_wait_longer_and_longer_after_a_halls_worth_of_typos(store, clock):
    right = store.open_class().code
    wrong = "ZZZZZZ" if right != "ZZZZZZ" else "YYYYYY"
    for i in range(classroom.FREE_WRONG_CODES):
        with pytest.raises(ValueError, match="No open class"):
            store.join(wrong, f"Guess {i}", client="guesser")
    with pytest.raises(classroom.RateLimited, match="Too many wrong class codes from here: "
                                                    "check the code .* in 1 second"):
        store.join(right, "Ann", client="guesser")  # even the right code waits: it would tell
    assert store.join(right, "Bob", client="typist").code == right  # another client does not
    waits = []
    for i in range(12):
        clock.now += classroom.wrong_code_wait(classroom.FREE_WRONG_CODES + i)
        with pytest.raises(ValueError, match="No open class"):
            store.join(wrong, "Guess", client="guesser")
        with pytest.raises(classroom.RateLimited) as err:
            store.join(wrong, "Guess", client="guesser")
        waits.append(str(err.value).split("again ")[1])
    assert waits[:3] == ["in 2 seconds.", "in 4 seconds.", "in 8 seconds."]
    assert waits[-1] == "in 10 minutes."  # capped
    clock.now += classroom.MAX_CODE_WAIT_S
    assert store.join(right, "Ann", client="guesser").code == right


def test_the_lecturer_removes_a_student_and_locks_the_class(store):
    opened = store.open_class()
    ann, troll = store.join(opened.code, "Ann"), store.join(opened.code, "Troll")
    store.submit(troll, "lens", "q", {"guess": 3.0}, {"answer": 1.0})
    assert [s.name for s in store.roster(opened.code, opened.token)] == ["Ann", "Troll"]
    with pytest.raises(ValueError, match="Only the lecturer"):
        store.remove(opened.code, "guess", troll.student_id)
    with pytest.raises(ValueError, match="Only the lecturer"):
        store.lock(opened.code, "guess")
    with pytest.raises(ValueError, match="Only the lecturer"):
        store.roster(opened.code, "guess")
    store.remove(opened.code, opened.token, troll.student_id)
    assert not store.is_member(troll) and store.counts(opened.code)["lens"] == 0
    with pytest.raises(ValueError, match="not in this class any more"):
        store.submit(troll, "lens", "q", {"guess": 3.0}, {})
    store.lock(opened.code, opened.token)
    assert store.is_locked(opened.code)
    with pytest.raises(ValueError, match="This class is locked: your lecturer lets no one new"):
        store.join(opened.code, "Troll again")
    assert store.join(opened.code, "Ann B", ann.student_id).name == "Ann B"  # in: may rename
    store.lock(opened.code, opened.token, locked=False)
    assert not store.is_locked(opened.code) and store.join(opened.code, "Cy").name == "Cy"


@pytest.mark.parametrize("taken", ["ann lee", "ANN LEE", "  Ann   Lee ", "AnnLee", "ＡＮＮ ＬＥＥ"])
def test_names_are_unique_in_a_class_whatever_their_case_and_spaces(store, taken):
    opened = store.open_class()
    ann = store.join(opened.code, "Ann Lee")
    with pytest.raises(ValueError, match="This class already has a student called"):
        store.join(opened.code, taken)
    assert store.join(opened.code, taken, ann.student_id).student_id == ann.student_id  # her own
    assert store.join(store.open_class().code, taken).name  # another class: free
    assert store.students(opened.code) == 1


def test_a_guess_outside_its_questions_range_is_refused_and_never_stored(store):
    opened = store.open_class()
    ann = store.join(opened.code, "Ann")
    with pytest.raises(ValueError, match="prediction must be between -1e[+]06 and 1e[+]06, "
                                         "got 1e[+]300"):
        store.submit(ann, "lens", "q", {"guess": 1e300}, {"answer": 1.0})
    with pytest.raises(ValueError, match="prediction must be between 0 and 0.5, got 0.7"):
        store.submit(ann, "sbm", "q", {"guess": 0.7}, {"answer": 0.1}, within=(0.0, 0.5))
    with pytest.raises(ValueError, match="between 0 and 2, got -1"):
        store.submit(ann, "gmm", "q", {"x": 1.0, "y": -1.0}, {}, within=(0.0, 2.0))
    store.submit(ann, "sbm", "q", {"guess": 0.5}, {"answer": 1e300}, within=(0.0, 0.5))
    assert store.row_count(opened.code) == 1  # a truth is the page's own: not bounded


def test_a_flood_of_opens_from_many_clients_fills_an_hours_allowance_and_then_expires(
        store, clock):
    """Issue 36: every client's opens share a bound, so many addresses cannot fill the store;
    the flood's empty classes expire, and an hour on a real lecturer opens one."""
    mine = store.open_class(client="ip:198.51.100.7")  # a lecturer's class before the flood
    opened, refusals = 1, set()
    for i in range(300):
        try:
            store.open_class(client=f"ip:10.0.{i // 250}.{i % 250}")
        except classroom.RateLimited as err:
            refusals.add(str(err))
        else:
            opened += 1
    assert opened == classroom.SERVER_OPEN_LIMIT
    assert refusals == {"Too many classes opened on this server in the last hour: try again "
                        "in 60 minutes."}
    with pytest.raises(classroom.RateLimited, match="on this server"):
        store.open_class(client="ip:192.0.2.50")  # a lecturer during the flood waits
    again = store.open_class((mine.code, mine.token), client="ip:198.51.100.7")
    assert again.code == mine.code  # the lecturer's own open class is given back
    store.join(mine.code, "Ann")
    clock.now += classroom.OPEN_WINDOW_S + 1
    assert store.is_open(store.open_class(client="ip:192.0.2.50").code)
    count = sqlite3.connect(store.path).execute("SELECT COUNT(*) FROM classes").fetchone()[0]
    assert count == 2  # the flood's empty classes are gone; the lecturer's stays
    # the bound alone keeps clients from filling the store while a class lives
    assert classroom.SERVER_OPEN_LIMIT * classroom.CLASS_HOURS < classroom.MAX_CLASSES


def test_a_removed_student_cannot_come_back_under_a_new_name_from_their_client(store):
    opened = store.open_class()
    troll = store.join(opened.code, "Troll", seat="troll-seat", client="ip:203.0.113.9")
    hall = store.join(opened.code, "Ann", seat="ann-seat", client="ip:203.0.113.9")
    store.join(opened.code, "Bob", client="ip:198.51.100.7")
    store.remove(opened.code, opened.token, troll.student_id)
    assert store.removed(opened.code, opened.token) == 1
    for seat, client in (("new-seat", "ip:203.0.113.9"), ("troll-seat", "ip:192.0.2.1")):
        with pytest.raises(ValueError, match="^Your lecturer removed a student who joined "
                                             "this class from here"):
            store.join(opened.code, "Nice Name", seat=seat, client=client)
    assert store.join(opened.code, "Ann Lee", seat="ann-seat",  # in already: may rename
                      client="ip:203.0.113.9").name == "Ann Lee"
    assert store.is_member(hall) and store.students(opened.code) == 2
    assert store.join(opened.code, "Cy", client="ip:192.0.2.2").name == "Cy"  # elsewhere
    other = store.open_class()  # the ban is this class's only
    assert store.join(other.code, "Troll", seat="troll-seat", client="ip:203.0.113.9")
    with pytest.raises(ValueError, match="Only the lecturer"):
        store.readmit(opened.code, other.token)
    store.readmit(opened.code, opened.token)
    assert store.removed(opened.code, opened.token) == 0
    assert store.join(opened.code, "Troll", seat="troll-seat", client="ip:203.0.113.9")


def test_who_may_not_join_learns_no_names(store):
    """A locked class or a removed client is refused as such before any name is compared:
    the "already has a student called" answer would tell them who is in the class."""
    opened = store.open_class()
    store.join(opened.code, "Ann Lee", client="ip:198.51.100.7")
    troll = store.join(opened.code, "Troll", seat="troll-seat", client="ip:203.0.113.9")
    store.remove(opened.code, opened.token, troll.student_id)
    with pytest.raises(ValueError, match="^Your lecturer removed a student"):
        store.join(opened.code, "Ann Lee", seat="new-seat", client="ip:203.0.113.9")
    store.lock(opened.code, opened.token)
    with pytest.raises(ValueError, match="^This class is locked"):
        store.join(opened.code, "Ann Lee", client="ip:192.0.2.5")
