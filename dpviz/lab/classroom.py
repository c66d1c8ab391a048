"""A live class's shared state, in one SQLite file (issue 19, live class mode).

Pure Python over :mod:`sqlite3` (no Streamlit), so tests and the load test
(``bench/live_class_load.py``) use it as the pages do. A lecturer opens a class and gets a
short code to show and a token that stays in their session; students join with the code and a
name; on a predict-then-reveal step each student's prediction (and the truth their own run
revealed) is stored, and only the holder of the token reads the class's predictions or reveals
a step.

The database is the file named by the environment variable ``DPVIZ_CLASS_DB`` (default
``~/.cache/dpviz/classes.sqlite3``, under ``$XDG_CACHE_HOME`` when that is set). It runs in
WAL mode with a busy timeout, so several server processes (``make serve``) and many
concurrent writers share it; every call opens its own short-lived connection (Streamlit runs
sessions on threads, and a connection is never shared between them).

Everything is bounded: a class expires :data:`CLASS_HOURS` hours after it opened, or
:data:`EMPTY_HOURS` after it opened while no student has joined it (expired classes are
purged whenever a class is opened, and a class past its :data:`CLASS_HOURS` is invisible
before that); a lecturer's session reopening a class gets its own open class back
(:meth:`ClassStore.open_class`); a class holds at most :data:`MAX_STUDENTS` students (a full
class first drops students idle for :data:`EMPTY_HOURS` without a prediction) and
:data:`MAX_PREDICTIONS` predictions (one per student and step); at most :data:`MAX_CLASSES`
classes are open at once; names and values have size limits; and a student keeps one
prediction per step (a new one replaces it). The database's folder is created readable by
its owner only (0700), and the file too (0600).

What one client may do is bounded too (issue 36: a script opened 997 classes, filled a class
in 10 s and guessed codes at 28 a second). Every call that opens a class or joins one may name
its ``client`` (the page passes the browser's address, :func:`dpviz.ui.seat.client_key`); the
store keeps that client's recent attempts and refuses, with a sentence saying when to come
back, past :data:`OPEN_LIMIT` classes opened an hour, :data:`JOIN_LIMIT` joins in ten minutes,
or once :data:`FREE_WRONG_CODES` wrong codes in an hour start an exponential wait
(:func:`wrong_code_wait`). Every client together may open :data:`SERVER_OPEN_LIMIT` classes an
hour, so a flood from many addresses (or from sessions that each name themselves anew, when
no proxy gives the address) fills an hour's allowance, not the store; its classes, empty,
expire after :data:`EMPTY_HOURS`, and a lecturer whose class is open keeps it. A lecturer may
remove a student (no new name then joins from the removed student's seat or client, until the
lecturer lets removed students back in: :meth:`ClassStore.readmit`) and lock the class
against new joins; names are unique in a class (:func:`name_key`); a guess must lie within the
range the page states for its question, and never past :data:`MAX_GUESS` in size, so one
student cannot stretch the axis the class is shown on.

A reload starts a new browser session, so a membership is also a *seat*: a random token the
page keeps in that browser's own address (issue 34). A student's seat stands for their row (the
row's id is the seat's hash, :func:`seat_id`), so the same browser sits down again in the same
place with the answers it gave (:meth:`ClassStore.rejoin`); a lecturer's seat is a second key
to their class, made for the address of the browser that opened it
(:meth:`ClassStore.lecturer_seat`), so the lecturer's key is never in a link. Only hashes of
seats are stored.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import sqlite3
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: The environment variable naming the database file.
DB_ENV = "DPVIZ_CLASS_DB"
#: Class codes: no 0/O, 1/I/L, so a code read off a projector is typed right.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
CLASS_HOURS = 12.0
#: Hours after which a class no student joined expires, and a student who joined but never
#: predicted may be dropped from a full class.
EMPTY_HOURS = 1.0
#: Classes open at once on one database (a new one is refused past it, until some expire).
MAX_CLASSES = 1000
MAX_STUDENTS = 100
#: The predict-then-reveal steps, by page.
STEPS = ("lens", "gmm", "budget", "covariance", "sbm")
#: Every student may answer every step.
MAX_PREDICTIONS = MAX_STUDENTS * len(STEPS)
MAX_NAME = 40
MAX_QUESTION = 300
#: Characters a name may not start with: a spreadsheet opening the lecturer's table reads a
#: cell starting with one of them as a formula.
FORMULA_START = ("=", "+", "-", "@")
FORMULA_NAME = ("name must not start with =, +, - or @ (a spreadsheet would read it as a "
                "formula)")
#: Bytes of one prediction's or one truth's JSON.
MAX_VALUES_BYTES = 4096
BUSY_TIMEOUT_S = 30.0
#: Lecturer seats a class keeps (the oldest is dropped past it): one per browser.
MAX_LECTURER_SEATS = 20
SCHEMA_VERSION = 4
NO_CLASS = ("No open class has that code: check it with your lecturer (a class closes after "
            f"{CLASS_HOURS:g} hours).")
#: Why a newcomer from a removed student's seat or client is refused. The client may be a
#: whole hall behind one address: the lecturer lets removed students back in to let it in.
REMOVED = ("Your lecturer removed a student who joined this class from here, so it takes no "
           "new names from here: ask your lecturer to let removed students back in.")
#: Classes one client may open in :data:`OPEN_WINDOW_S` (a lecturer opens one a lecture).
OPEN_LIMIT = 5
OPEN_WINDOW_S = 3600.0
#: Classes every client together may open in :data:`OPEN_WINDOW_S`. A large university's
#: busiest hour starts a few hundred lectures in every subject, of which the ones teaching
#: with this lab are a handful: 80 is a whole department's timetable starting in one hour,
#: sixteen clients at :data:`OPEN_LIMIT`. And 80 an hour for :data:`CLASS_HOURS` hours (960)
#: stays under :data:`MAX_CLASSES`, so clients alone never fill the store: a flood is over an
#: hour after it stops (its empty classes expire), not when the store's classes close.
SERVER_OPEN_LIMIT = 80
#: The attempts' client that counts every client's (no client key has this form).
EVERY_CLIENT = "*"
#: Joins one client may make in :data:`JOIN_WINDOW_S`. One client address may be a whole
#: lecture hall behind a campus NAT: 300 students joining in a minute or two, each perhaps
#: twice (a typo, another browser), is 600; a script from one address fills at most six
#: classes in ten minutes, and their lecturers can lock them and remove its names.
JOIN_LIMIT = 600
JOIN_WINDOW_S = 600.0
#: Wrong class codes one client may type in :data:`CODE_WINDOW_S` before waiting: a hall's
#: typos. Past them each wrong code doubles the wait (:func:`wrong_code_wait`).
FREE_WRONG_CODES = 20
CODE_WINDOW_S = 3600.0
MAX_CODE_WAIT_S = 600.0
#: The largest size of any number predicted (a page states a tighter range per question).
MAX_GUESS = 1e6
#: Characters of a client key kept.
MAX_CLIENT = 80

Value = float | bool | Sequence[float] | None

_SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    created REAL NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS students (
    class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    student_id TEXT NOT NULL,
    name TEXT NOT NULL,
    joined REAL NOT NULL,
    PRIMARY KEY (class_code, student_id)
);
CREATE TABLE IF NOT EXISTS predictions (
    class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    step TEXT NOT NULL,
    student_id TEXT NOT NULL,
    question TEXT NOT NULL,
    prediction TEXT NOT NULL,
    truth TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (class_code, step, student_id)
);
CREATE TABLE IF NOT EXISTS reveals (
    class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    step TEXT NOT NULL,
    revealed REAL NOT NULL,
    PRIMARY KEY (class_code, step)
);
CREATE TABLE IF NOT EXISTS lecturer_seats (
    seat_hash TEXT PRIMARY KEY,
    class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS locks (
    class_code TEXT PRIMARY KEY REFERENCES classes(code) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS student_clients (
    class_code TEXT NOT NULL,
    student_id TEXT NOT NULL,
    client TEXT NOT NULL,
    PRIMARY KEY (class_code, student_id),
    FOREIGN KEY (class_code, student_id) REFERENCES students(class_code, student_id)
        ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS removed (
    class_code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    student_id TEXT NOT NULL,
    client TEXT
);
CREATE TABLE IF NOT EXISTS attempts (
    client TEXT NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS classes_expires ON classes(expires);
CREATE INDEX IF NOT EXISTS attempts_client ON attempts(client, action, at);
CREATE INDEX IF NOT EXISTS attempts_at ON attempts(at);
"""


def default_path() -> Path:
    """The database file: ``$DPVIZ_CLASS_DB``, else ``dpviz/classes.sqlite3`` in the cache."""
    named = os.environ.get(DB_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or "~/.cache"
    return Path(cache).expanduser() / "dpviz" / "classes.sqlite3"


@dataclass(frozen=True)
class OpenedClass:
    """A class just opened: the code to show, and the lecturer's token (never in a link)."""

    code: str
    token: str
    expires: float


@dataclass(frozen=True)
class Student:
    """A student in a class: the class code, an id (their seat's hash, :func:`seat_id`), a name."""

    code: str
    student_id: str
    name: str


@dataclass(frozen=True)
class Prediction:
    """One student's prediction on one step, with the truth their own run revealed."""

    name: str
    question: str
    prediction: dict[str, Value]
    truth: dict[str, Value]
    created: float


def normalise_code(code: str) -> str:
    """A typed class code in its stored form (upper case, no spaces or dashes)."""
    return "".join(str(code).split()).replace("-", "").upper()


def _check_step(step: str) -> str:
    if step not in STEPS:
        raise ValueError(f"step must be one of {', '.join(STEPS)}, got {step!r}")
    return step


def check_name(name: str) -> str:
    """A display name as stored: stripped, 1 to :data:`MAX_NAME` characters, printable."""
    cleaned = " ".join(str(name).split())
    if not 1 <= len(cleaned) <= MAX_NAME:
        raise ValueError(f"name must be 1 to {MAX_NAME} characters, got {len(cleaned)}")
    if not cleaned.isprintable():
        raise ValueError("name must be printable characters only")
    if cleaned.startswith(FORMULA_START):
        raise ValueError(f"{FORMULA_NAME}, got {cleaned!r}")
    return cleaned


def name_key(name: str) -> str:
    """What makes two names the same in one class: case, spaces and character forms aside.

    Examples
    --------
    >>> name_key("Ann  Lee") == name_key("annlee") == name_key("ＡＮＮ LEE")
    True
    """
    return "".join(unicodedata.normalize("NFKC", str(name)).split()).casefold()


def wrong_code_wait(wrong: int) -> float:
    """Seconds a client waits after its last wrong code, when it typed ``wrong`` in the window.

    Nothing for the first :data:`FREE_WRONG_CODES` (a hall's typos), then 1 s doubling at
    each wrong code, up to :data:`MAX_CODE_WAIT_S`: a script guessing codes gets a few dozen
    tries an hour where it had 28 a second.

    Examples
    --------
    >>> [wrong_code_wait(n) for n in (0, FREE_WRONG_CODES - 1, FREE_WRONG_CODES, 24, 40)]
    [0.0, 0.0, 1.0, 16.0, 600.0]
    """
    if wrong < FREE_WRONG_CODES:
        return 0.0
    return float(min(MAX_CODE_WAIT_S, 2.0 ** min(wrong - FREE_WRONG_CODES, 30)))


class RateLimited(ValueError):
    """A client's limit is reached; the message says when to try again."""


def _span(seconds: float) -> str:
    """``"hour"``, ``"10 minutes"``: a window as the sentences name it."""
    return "hour" if seconds == 3600 else f"{seconds / 60:g} minutes"


def _later(seconds: float) -> str:
    """``"in 3 minutes"``, ``"in 40 seconds"``: a wait as a person reads it (rounded up)."""
    if seconds > 90:
        minutes = math.ceil(seconds / 60)
        return f"in {minutes} minutes"
    whole = max(1, math.ceil(seconds))
    return f"in {whole} second{'' if whole == 1 else 's'}"


def _number(key: str, value: object, *, finite: bool) -> float | bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        number = float(value)
        if math.isfinite(number):
            return number
        if finite:
            raise ValueError(f"{key} must be a finite number, got {number}")
        return None  # an infinite truth (say ε after T rounds) is stored as unknown
    raise ValueError(f"{key} must be a number or a yes/no, got {type(value).__name__}")


def encode_values(values: Mapping[str, object], *, what: str, finite: bool,
                  within: tuple[float, float] | None = None) -> str:
    """The JSON of a prediction (``finite=True``) or a truth: numbers, booleans, number lists.

    Raises ``ValueError`` naming ``what`` for another type, a non-finite prediction, a number
    outside ``within`` (``(low, high)``, when given), or JSON over :data:`MAX_VALUES_BYTES`
    bytes.
    """
    clean: dict[str, Value] = {}
    for key, value in values.items():
        label = f"{what} {str(key)[:20]!r}"
        if not isinstance(key, str) or not 1 <= len(key) <= 40:
            raise ValueError(f"{what} keys must be names of 1 to 40 characters, got {key!r}")
        if isinstance(value, Sequence) and not isinstance(value, str):
            clean[key] = [_number(label, v, finite=finite) for v in value]  # type: ignore[misc]
        else:
            clean[key] = _number(label, value, finite=finite)
    if within is not None:
        low, high = within
        for number in _flat_numbers(clean.values()):
            if not low <= number <= high:
                raise ValueError(f"{what} must be between {low:g} and {high:g}, got {number:g}")
    text = json.dumps(clean, allow_nan=False, separators=(",", ":"))
    if len(text.encode()) > MAX_VALUES_BYTES:
        raise ValueError(f"{what} must be at most {MAX_VALUES_BYTES} bytes of values, "
                         f"got {len(text.encode())}")
    return text


def _flat_numbers(values: Iterable[Value]) -> list[float]:
    """The numbers among encoded values (lists opened; yes/no and unknowns left out)."""
    out: list[float] = []
    for value in values:
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, float):
                out.append(v)
    return out


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_seat() -> str:
    """A random seat token (128 bits, URL-safe): a membership a browser keeps in its address."""
    return secrets.token_urlsafe(16)


def seat_id(seat: str) -> str:
    """The student id a seat stands for: its hash, so the stored id never gives the seat away.

    Examples
    --------
    >>> len(seat_id("abc")), seat_id("abc") == seat_id("abc") != seat_id("abd")
    (32, True)
    """
    return hashlib.sha256(f"seat:{seat}".encode()).hexdigest()[:32]


class ClassStore:
    """The live classes in one SQLite file; every method opens and closes its own connection.

    Parameters
    ----------
    path : str or Path, optional
        The database file (created with its folder). Default :func:`default_path`.
    clock : callable, optional
        Seconds since the epoch (:func:`time.time`); tests pass their own to age a class.
    """

    def __init__(self, path: str | Path | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path).expanduser() if path is not None else default_path()
        self.clock = clock

    def _create(self) -> None:
        """The folder (0700) and the file (0600), when missing: only their owner reads them."""
        if not self.path.parent.exists():
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))

    @contextmanager
    def _connect(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection for one call: a write holds the lock from its start (``IMMEDIATE``)."""
        self._create()
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")  # WAL: safe, one fsync a checkpoint
            if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                conn.execute("PRAGMA journal_mode = WAL")  # persistent: set once per file
                conn.executescript(f"BEGIN IMMEDIATE;{_SCHEMA}"
                                   f"PRAGMA user_version = {SCHEMA_VERSION};COMMIT;")
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()

    def _live(self, conn: sqlite3.Connection, code: str) -> sqlite3.Row | None:
        return conn.execute("SELECT code, token_hash FROM classes WHERE code = ? AND expires > ?",
                            (normalise_code(code), self.clock())).fetchone()

    def _require(self, conn: sqlite3.Connection, code: str) -> str:
        row = self._live(conn, code)
        if row is None:
            raise ValueError(NO_CLASS)
        return str(row[0])

    def _lecturer(self, conn: sqlite3.Connection, code: str, token: str) -> str:
        """The class's code when ``token`` is its key or one of its lecturer seats."""
        row = self._live(conn, code)
        if row is not None and secrets.compare_digest(str(row[1]), _hash(token)):
            return str(row[0])
        if row is not None and conn.execute(
                "SELECT 1 FROM lecturer_seats WHERE class_code = ? AND seat_hash = ?",
                (row[0], _hash(f"lecturer:{token}"))).fetchone():
            return str(row[0])
        raise ValueError("Only the lecturer who opened this class can do that.")

    def _purge(self, conn: sqlite3.Connection) -> int:
        now = self.clock()
        return conn.execute(
            "DELETE FROM classes WHERE expires <= ? OR (created <= ? AND NOT EXISTS "
            "(SELECT 1 FROM students s WHERE s.class_code = classes.code))",
            (now, now - EMPTY_HOURS * 3600)).rowcount

    def _attempts(self, conn: sqlite3.Connection, client: str, action: str,
                  window: float) -> list[float]:
        """When ``client`` tried ``action`` in the last ``window`` seconds, oldest first."""
        rows = conn.execute("SELECT at FROM attempts WHERE client = ? AND action = ? AND at > ? "
                            "ORDER BY at", (client, action, self.clock() - window)).fetchall()
        return [float(r[0]) for r in rows]

    def _record(self, conn: sqlite3.Connection, client: str | None, action: str) -> None:
        """Note one attempt (and forget every attempt older than the longest window)."""
        if client is None:
            return
        now = self.clock()
        conn.execute("DELETE FROM attempts WHERE at <= ?",
                     (now - max(OPEN_WINDOW_S, JOIN_WINDOW_S, CODE_WINDOW_S),))
        conn.execute("INSERT INTO attempts VALUES (?, ?, ?)", (client[:MAX_CLIENT], action, now))

    def _throttle(self, conn: sqlite3.Connection, client: str | None, action: str, limit: int,
                  window: float, what: str) -> None:
        """Raise :class:`RateLimited` when ``client`` has tried ``action`` ``limit`` times.

        ``what`` names the attempts and whose they are (``"joins from here"``).
        """
        if client is None:
            return
        tries = self._attempts(conn, client[:MAX_CLIENT], action, window)
        if len(tries) >= limit:
            wait = tries[-limit] + window - self.clock()
            raise RateLimited(f"Too many {what} in the last {_span(window)}: try again "
                              f"{_later(wait)}.")

    def _code_wait(self, conn: sqlite3.Connection, client: str | None) -> None:
        """Raise :class:`RateLimited` while ``client`` waits after its wrong codes."""
        if client is None:
            return
        wrong = self._attempts(conn, client[:MAX_CLIENT], "code", CODE_WINDOW_S)
        wait = wrong[-1] + wrong_code_wait(len(wrong)) - self.clock() if wrong else 0.0
        if wait > 0:
            raise RateLimited("Too many wrong class codes from here: check the code with your "
                              f"lecturer and try again {_later(wait)}.")

    def purge(self) -> int:
        """Delete expired classes with their students, predictions and reveals; their count.

        A class expires :data:`CLASS_HOURS` after it opened, or :data:`EMPTY_HOURS` after it
        opened while nobody has joined it.
        """
        with self._connect(write=True) as conn:
            return self._purge(conn)

    def open_class(self, mine: tuple[str, str] | None = None, *,
                   client: str | None = None) -> OpenedClass:
        """Open a class (after purging expired ones): its code and the lecturer's token.

        Parameters
        ----------
        mine : (str, str), optional
            The code and token of the class this lecturer's session opened before: while
            it is open it is given back instead of a new one (one open class a session).
        client : str, optional
            Who asks (an address, :func:`dpviz.ui.seat.client_key`): a new class counts
            against their :data:`OPEN_LIMIT` and every client's :data:`SERVER_OPEN_LIMIT`.
            ``None`` (tests, load tests) counts nothing.

        Raises ``ValueError`` when :data:`MAX_CLASSES` classes are open, and
        :class:`RateLimited` when ``client`` opened :data:`OPEN_LIMIT` classes, or every
        client together :data:`SERVER_OPEN_LIMIT`, in the last :data:`OPEN_WINDOW_S` seconds.
        """
        token = secrets.token_urlsafe(24)
        now = self.clock()
        expires = now + CLASS_HOURS * 3600
        with self._connect(write=True) as conn:
            if mine is not None:
                self._purge(conn)  # an empty class past its hour is not given back
                try:
                    code = self._lecturer(conn, *mine)
                except ValueError:
                    pass  # closed or purged: open a new one
                else:
                    until = conn.execute("SELECT expires FROM classes WHERE code = ?",
                                         (code,)).fetchone()[0]
                    return OpenedClass(code, mine[1], float(until))
            # before the purge: a refused request costs a read, not a rolled-back write
            self._throttle(conn, client, "open", OPEN_LIMIT, OPEN_WINDOW_S,
                           "classes opened from here")
            every = None if client is None else EVERY_CLIENT
            self._throttle(conn, every, "open", SERVER_OPEN_LIMIT, OPEN_WINDOW_S,
                           "classes opened on this server")
            self._purge(conn)
            if conn.execute("SELECT COUNT(*) FROM classes").fetchone()[0] >= MAX_CLASSES:
                raise ValueError(f"This server has its {MAX_CLASSES} classes open: try again "
                                 "when one closes.")
            while True:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
                if conn.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone():
                    continue
                conn.execute("INSERT INTO classes VALUES (?, ?, ?, ?)",
                             (code, _hash(token), now, expires))
                self._record(conn, client, "open")
                self._record(conn, every, "open")
                return OpenedClass(code, token, expires)

    def is_open(self, code: str) -> bool:
        """Whether a class with this code is open (exists and has not expired)."""
        with self._connect() as conn:
            return self._live(conn, code) is not None

    def is_lecturer(self, code: str, token: str) -> bool:
        """Whether ``token`` is the token of open class ``code``."""
        try:
            with self._connect() as conn:
                self._lecturer(conn, code, token)
        except ValueError:
            return False
        return True

    def lecturer_seat(self, code: str, token: str) -> str:
        """A new lecturer seat of class ``code`` for one browser's address (key or seat only).

        The seat opens the class as its key does, until the class closes; a class keeps its
        newest :data:`MAX_LECTURER_SEATS`. Raises ``ValueError`` without the class's key.
        """
        seat = new_seat()
        with self._connect(write=True) as conn:
            code = self._lecturer(conn, code, token)
            conn.execute("INSERT INTO lecturer_seats VALUES (?, ?, ?)",
                         (_hash(f"lecturer:{seat}"), code, self.clock()))
            conn.execute("DELETE FROM lecturer_seats WHERE class_code = ? AND seat_hash NOT IN "
                         "(SELECT seat_hash FROM lecturer_seats WHERE class_code = ? "
                         "ORDER BY created DESC, rowid DESC LIMIT ?)",
                         (code, code, MAX_LECTURER_SEATS))
        return seat

    def join(self, code: str, name: str, student_id: str | None = None, *,
             seat: str | None = None, client: str | None = None) -> Student:
        """Join class ``code`` as ``name`` (joining again with the same id or seat renames).

        ``seat`` is the token this browser keeps in its address (:func:`new_seat`): the
        student's id is its hash, so :meth:`rejoin` finds the same row after a reload.
        ``student_id`` is an id given as is (no seat). Either takes no new place when the
        class has it already. A full class first drops the students who joined over
        :data:`EMPTY_HOURS` ago and never predicted. ``client`` (who asks, as for
        :meth:`open_class`) counts the attempt against :data:`JOIN_LIMIT`, and a wrong code
        against :data:`FREE_WRONG_CODES`; it is kept with the student, so that removing them
        (:meth:`remove`) keeps their client out too.

        Raises ``ValueError`` for an unknown or expired code, a bad name, a name someone in
        the class has (:func:`name_key`), a locked class or a removed student's seat or
        client (for a newcomer) or a full class, and :class:`RateLimited` past ``client``'s
        limits.
        """
        name = check_name(name)
        sid = seat_id(seat) if seat else student_id or secrets.token_hex(8)
        refusal = ""
        with self._connect(write=True) as conn:
            self._code_wait(conn, client)
            self._throttle(conn, client, "join", JOIN_LIMIT, JOIN_WINDOW_S, "joins from here")
            self._record(conn, client, "join")
            row = self._live(conn, code)
            if row is None:
                self._record(conn, client, "code")
            else:
                refusal = self._seat(conn, str(row[0]), name, sid, client)
        if row is None:  # raised after the commit: the wrong code stays counted
            raise ValueError(NO_CLASS)
        if refusal:
            raise ValueError(refusal)
        return Student(str(row[0]), sid, name)

    def _seat(self, conn: sqlite3.Connection, code: str, name: str, sid: str,
              client: str | None) -> str:
        """Seat ``sid`` (of ``client``) as ``name`` in open class ``code``: ``""``, or why not."""
        known = conn.execute("SELECT 1 FROM students WHERE class_code = ? AND student_id = ?",
                             (code, sid)).fetchone()
        # who may not join is told so before any name is compared: a locked class or a
        # removed client cannot test which names are in it
        if not known and self._locked(conn, code):
            return "This class is locked: your lecturer lets no one new in."
        if not known and conn.execute(
                "SELECT 1 FROM removed WHERE class_code = ? AND (student_id = ? OR client = ?)",
                (code, sid, client and client[:MAX_CLIENT])).fetchone():
            return REMOVED
        key = name_key(name)
        for (other,) in conn.execute("SELECT name FROM students WHERE class_code = ? AND "
                                     "student_id != ?", (code, sid)):
            if name_key(other) == key:
                return (f"This class already has a student called {name!r}: add an initial "
                        "or your surname.")
        if not known and self._students(conn, code) >= MAX_STUDENTS:
            conn.execute(
                "DELETE FROM students WHERE class_code = ? AND joined <= ? AND NOT EXISTS "
                "(SELECT 1 FROM predictions p WHERE p.class_code = students.class_code "
                "AND p.student_id = students.student_id)",
                (code, self.clock() - EMPTY_HOURS * 3600))
            if self._students(conn, code) >= MAX_STUDENTS:
                return f"This class is full: it has its {MAX_STUDENTS} students."
        conn.execute("INSERT INTO students VALUES (?, ?, ?, ?) ON CONFLICT "
                     "(class_code, student_id) DO UPDATE SET name = excluded.name",
                     (code, sid, name, self.clock()))
        if client is not None:
            conn.execute("INSERT INTO student_clients VALUES (?, ?, ?) ON CONFLICT "
                         "(class_code, student_id) DO UPDATE SET client = excluded.client",
                         (code, sid, client[:MAX_CLIENT]))
        return ""

    @staticmethod
    def _locked(conn: sqlite3.Connection, code: str) -> bool:
        return conn.execute("SELECT 1 FROM locks WHERE class_code = ?",
                            (code,)).fetchone() is not None

    def is_locked(self, code: str) -> bool:
        """Whether open class ``code`` is locked against new students."""
        with self._connect() as conn:
            return self._locked(conn, self._require(conn, code))

    def lock(self, code: str, token: str, locked: bool = True) -> None:
        """Lock class ``code`` against new students, or open it again (the lecturer only).

        Students already in it stay, and may rejoin or rename.
        """
        with self._connect(write=True) as conn:
            code = self._lecturer(conn, code, token)
            if locked:
                conn.execute("INSERT OR IGNORE INTO locks VALUES (?)", (code,))
            else:
                conn.execute("DELETE FROM locks WHERE class_code = ?", (code,))

    def roster(self, code: str, token: str) -> list[Student]:
        """The students of class ``code`` by name (the lecturer only: names are never projected)."""
        with self._connect() as conn:
            code = self._lecturer(conn, code, token)
            rows = conn.execute("SELECT student_id, name FROM students WHERE class_code = ? "
                                "ORDER BY name COLLATE NOCASE, joined", (code,)).fetchall()
        return [Student(code, str(sid), str(name)) for sid, name in rows]

    def remove(self, code: str, token: str, student_id: str) -> None:
        """Remove a student and their predictions from class ``code`` (the lecturer only).

        Their page finds itself out of the class (:meth:`is_member`), and no newcomer joins
        from their seat or the client they joined from (:meth:`join`'s ``client``), under any
        name, until :meth:`readmit`: a client may be a whole hall behind one address, whose
        students already in the class stay and may rejoin or rename.
        """
        with self._connect(write=True) as conn:
            code = self._lecturer(conn, code, token)
            found = conn.execute("SELECT client FROM students s LEFT JOIN student_clients c "
                                 "USING (class_code, student_id) WHERE s.class_code = ? AND "
                                 "s.student_id = ?", (code, student_id)).fetchone()
            if found is None:
                return
            conn.execute("INSERT INTO removed VALUES (?, ?, ?)", (code, student_id, found[0]))
            for table in ("predictions", "students"):
                conn.execute(f"DELETE FROM {table} WHERE class_code = ? AND student_id = ?",
                             (code, student_id))

    def removed(self, code: str, token: str) -> int:
        """How many students the lecturer removed from class ``code`` and keeps out."""
        with self._connect() as conn:
            code = self._lecturer(conn, code, token)
            return int(conn.execute("SELECT COUNT(*) FROM removed WHERE class_code = ?",
                                    (code,)).fetchone()[0])

    def readmit(self, code: str, token: str) -> None:
        """Let removed students, and the clients they joined from, join class ``code`` again."""
        with self._connect(write=True) as conn:
            conn.execute("DELETE FROM removed WHERE class_code = ?",
                         (self._lecturer(conn, code, token),))

    def rejoin(self, code: str, seat: str) -> Student:
        """The student whose seat in class ``code`` is ``seat``: the same row, name and answers.

        Raises ``ValueError`` when the class is closed or has no such student (never joined,
        or dropped from a full class).
        """
        with self._connect() as conn:
            code = self._require(conn, code)
            row = conn.execute("SELECT name FROM students WHERE class_code = ? AND "
                               "student_id = ?", (code, seat_id(seat))).fetchone()
        if row is None:
            raise ValueError(f"You are not in class {code} any more: join it again.")
        return Student(code, seat_id(seat), str(row[0]))

    def is_member(self, student: Student) -> bool:
        """Whether ``student`` is still in their class, and the class still open."""
        with self._connect() as conn:
            code = normalise_code(student.code)
            return self._live(conn, code) is not None and conn.execute(
                "SELECT 1 FROM students WHERE class_code = ? AND student_id = ?",
                (code, student.student_id)).fetchone() is not None

    def submit(self, student: Student, step: str, question: str,
               prediction: Mapping[str, object], truth: Mapping[str, object], *,
               within: tuple[float, float] = (-MAX_GUESS, MAX_GUESS)) -> None:
        """Store ``student``'s prediction on ``step`` (replacing their earlier one there).

        ``within`` is the range the page states for its question's numbers (never wider
        than :data:`MAX_GUESS` either way): the class's figures are drawn on the guesses.
        Raises ``ValueError`` for an unknown or expired class, a student not in it, a step
        outside :data:`STEPS`, a number outside ``within``, values over the limits, or a
        class at :data:`MAX_PREDICTIONS`.
        """
        _check_step(step)
        question = " ".join(str(question).split())[:MAX_QUESTION]
        low, high = within
        said = encode_values(prediction, what="prediction", finite=True,
                             within=(max(low, -MAX_GUESS), min(high, MAX_GUESS)))
        true = encode_values(truth, what="truth", finite=False)
        with self._connect(write=True) as conn:
            code = self._require(conn, student.code)
            if not conn.execute("SELECT 1 FROM students WHERE class_code = ? AND student_id = ?",
                                (code, student.student_id)).fetchone():
                raise ValueError("You are not in this class any more: join it again.")
            replaces = conn.execute("SELECT 1 FROM predictions WHERE class_code = ? AND step = ? "
                                    "AND student_id = ?",
                                    (code, step, student.student_id)).fetchone()
            if not replaces:
                count = conn.execute("SELECT COUNT(*) FROM predictions WHERE class_code = ?",
                                     (code,)).fetchone()[0]
                if count >= MAX_PREDICTIONS:
                    raise ValueError(f"This class has its {MAX_PREDICTIONS} predictions: "
                                     "no more can be stored.")
            conn.execute("INSERT INTO predictions VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT "
                         "(class_code, step, student_id) DO UPDATE SET question = "
                         "excluded.question, prediction = excluded.prediction, truth = "
                         "excluded.truth, created = excluded.created",
                         (code, step, student.student_id, question, said, true, self.clock()))

    def counts(self, code: str) -> dict[str, int]:
        """How many students have answered each step (the only thing shown before a reveal)."""
        with self._connect() as conn:
            code = self._require(conn, code)
            rows = conn.execute("SELECT step, COUNT(*) FROM predictions WHERE class_code = ? "
                                "GROUP BY step", (code,)).fetchall()
        found = dict(rows)
        return {step: int(found.get(step, 0)) for step in STEPS}

    @staticmethod
    def _students(conn: sqlite3.Connection, code: str) -> int:
        return int(conn.execute("SELECT COUNT(*) FROM students WHERE class_code = ?",
                                (code,)).fetchone()[0])

    def students(self, code: str) -> int:
        """How many students have joined class ``code``."""
        with self._connect() as conn:
            return self._students(conn, self._require(conn, code))

    def reveal(self, code: str, token: str, step: str) -> None:
        """Reveal ``step``'s predictions to the class (the lecturer's token only)."""
        _check_step(step)
        with self._connect(write=True) as conn:
            code = self._lecturer(conn, code, token)
            conn.execute("INSERT OR IGNORE INTO reveals VALUES (?, ?, ?)",
                         (code, step, self.clock()))

    def revealed(self, code: str) -> frozenset[str]:
        """The steps of class ``code`` revealed so far."""
        with self._connect() as conn:
            code = self._require(conn, code)
            rows = conn.execute("SELECT step FROM reveals WHERE class_code = ?",
                                (code,)).fetchall()
        return frozenset(str(r[0]) for r in rows)

    def predictions(self, code: str, token: str, step: str) -> list[Prediction]:
        """Every prediction on ``step`` with its student's name, oldest first (lecturer only).

        Raises ``ValueError`` without the class's token, or before ``step`` is revealed.
        """
        _check_step(step)
        with self._connect() as conn:
            code = self._lecturer(conn, code, token)
            if not conn.execute("SELECT 1 FROM reveals WHERE class_code = ? AND step = ?",
                                (code, step)).fetchone():
                raise ValueError("Reveal this step to the class first.")
            rows = conn.execute(
                "SELECT s.name, p.question, p.prediction, p.truth, p.created FROM predictions p "
                "JOIN students s ON s.class_code = p.class_code AND s.student_id = p.student_id "
                "WHERE p.class_code = ? AND p.step = ? ORDER BY p.created, s.name",
                (code, step)).fetchall()
        return [Prediction(str(n), str(q), json.loads(p), json.loads(t), float(c))
                for n, q, p, t, c in rows]

    def own(self, student: Student) -> dict[str, dict[str, Value]]:
        """The student's own predictions by step (what their own screen may show)."""
        with self._connect() as conn:
            code = self._require(conn, student.code)
            rows = conn.execute("SELECT step, prediction FROM predictions WHERE class_code = ? "
                                "AND student_id = ?", (code, student.student_id)).fetchall()
        return {str(step): json.loads(p) for step, p in rows}

    def row_count(self, code: str) -> int:
        """The number of prediction rows stored for class ``code`` (for load tests)."""
        with self._connect() as conn:
            code = self._require(conn, code)
            return int(conn.execute("SELECT COUNT(*) FROM predictions WHERE class_code = ?",
                                    (code,)).fetchone()[0])
