"""A browser's seat in a live class: joined, teaching, restored after a reload, predictions sent.

Every page uses it: :func:`restore` sits a reloaded session down again before the sidebar,
:func:`banner` is the line under each page's title while the session is in a class,
:func:`share` is what the predict-then-reveal gates call on Reveal and :func:`reveal_note`
what they show under Reveal (where the prediction goes). The Live class page
(:mod:`dpviz.ui.pages.live`) joins, opens and comes back to classes through it.

The shared state is :mod:`dpviz.lab.classroom`'s; this module keeps a session's part of it in
``st.session_state``: a student's membership under :data:`MEMBER` (code, id, name, seat), the
seat it had in each class under :data:`SEATS` (so joining again takes no new place), a
lecturer's class under :data:`LECTURE` (code, token and seat — the token never goes in a link)
and the class this session opened under :data:`OPENED` (opening again gives it back: one open
class a session).

What one client may do (open classes, join, type codes) is limited in the store; the client
is the browser's address as :func:`client_key` finds it.

A reload starts a new session with none of that, so each membership is also a seat in the
browser's own address: ``seat=CODE.token`` for a student (:data:`SEAT_PARAM`),
``teach=CODE.token`` for the lecturer (:data:`TEACH_PARAM`), written into the address by every
page and read back from it after a reload (:func:`restore`). A seat is only in that browser's
address bar: no page shows it, and no link the app builds carries it.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
import sqlite3
from collections.abc import Mapping, Sequence

import streamlit as st

from dpviz.lab.classroom import ClassStore, Student, new_seat, normalise_code
from dpviz.ui.widgets import escape_markdown

#: session_state key of a student's membership: {"code", "student_id", "name", "seat"}.
MEMBER = "_live_member"
#: session_state key of a lecturer's class: {"code", "token", "seat"}.
LECTURE = "_live_lecture"
#: session_state key of the class this session opened (kept when it stops teaching it).
OPENED = "_live_opened"
#: session_state key of this session's seat in each class it joined: {code: seat}.
SEATS = "_live_seats"
#: session_state key of the class this session's student left, or found closed: {"code", "why"}.
GONE = "_live_gone"
#: URL parameters of a student's and a lecturer's seat (``CODE.token``, this browser's only).
SEAT_PARAM = "seat"
TEACH_PARAM = "teach"
#: Both: a link the app builds from the address leaves them out (they are the browser's own).
SEAT_PARAMS = frozenset({SEAT_PARAM, TEACH_PARAM})
#: session_state key of the last prediction shared, so a rerun does not write it again.
_LAST_SHARED = "_live_last_shared"
#: session_state key of the sidebar's "Predict, then reveal" toggle (on once a student joins).
PREDICT = "predict"
#: session_state key of this session's client key when the browser's address is unknown.
_CLIENT = "_live_client"
#: What a student's page says, where the Reveal is, when the class will not get the prediction.
LEFT_NOTE = "You left class **{code}**: Reveal shows the answer on this screen only."
CLOSED_NOTE = ("Class **{code}** is closed or no longer has you: Reveal shows the answer on this "
               "screen only. Join a class again on the Live class page.")
ALONE_NOTE = "Not in a class: your prediction stays on this screen."
OWN_DATA_NOTE = ("This question is on your own data: Reveal shows the answer on this screen "
                 "only. Nothing of it — your guess included — is sent to class **{code}**.")
CLOSED_BANNER = ("Class **{code}** is closed or no longer has you: your predictions are not "
                 "sent. Join a class again on the Live class page.")
#: What the class store raises: a sentence (``ValueError``) or a database it cannot reach.
STORE_ERRORS = (ValueError, sqlite3.Error, OSError)


def store() -> ClassStore:
    """The class store at the configured path (a new handle per call: it holds no connection)."""
    return ClassStore()


def client_key() -> str:
    """Who the class store counts this request against: the browser's address, or its session.

    Streamlit gives the script the TCP peer (:attr:`st.context.ip_address`, ``None`` on
    loopback). Behind ``make serve``'s nginx the peer is nginx, on loopback (or on a private
    network with more machines), and nginx appends the client's address to
    ``X-Forwarded-For``: its last entry is the address nginx saw, whatever a client sent
    before it. A public peer is the browser itself, and its headers are not believed (a
    private one is taken for a proxy: a browser reaching Streamlit directly on a private
    network could name itself anew in each request, and escape the limits). An IPv6
    client counts as its /64 (one household or host may hold all of it). With no address
    (run locally, AppTest), the key is this session's own, so a script opening new
    connections is limited by nginx's per-address limits only.
    """
    peer = _ip(st.context.ip_address)
    if peer is None or peer.is_private:
        forwarded = st.context.headers.get("X-Forwarded-For", "")
        peer = _ip(forwarded.rsplit(",", 1)[-1]) or peer
    if peer is None:
        return f"session:{st.session_state.setdefault(_CLIENT, secrets.token_hex(8))}"
    if peer.version == 6:
        return f"ip:{ipaddress.ip_network(f'{peer}/64', strict=False)}"
    return f"ip:{peer}"


def _ip(text: object) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address ``text`` names, or ``None`` (nothing, or not an address)."""
    try:
        return ipaddress.ip_address(str(text).strip())
    except ValueError:
        return None


def member() -> Student | None:
    """The class this session has joined, or ``None``."""
    joined = st.session_state.get(MEMBER)
    if not joined:
        return None
    return Student(str(joined["code"]), str(joined["student_id"]), str(joined["name"]))


def _address(code: str, seat: str) -> str:
    return f"{code}.{seat}"


def _parse_seat(value: str) -> tuple[str, str] | None:
    """``(code, seat)`` from a ``CODE.token`` URL value, or ``None`` for anything else."""
    code, dot, seat = str(value).strip().partition(".")
    if not dot or not 1 <= len(code) <= 12 or not 8 <= len(seat) <= 64:
        return None
    return normalise_code(code), seat


def remember(student: Student, seat: str | None = None) -> None:
    """Keep ``student``'s membership (and seat, also in the address) in this session."""
    st.session_state[MEMBER] = {"code": student.code, "student_id": student.student_id,
                                "name": student.name, "seat": seat}
    st.session_state.pop(GONE, None)
    if seat is not None:
        seats = dict(st.session_state.get(SEATS) or {})
        seats[student.code] = seat
        st.session_state[SEATS] = seats
        st.query_params[SEAT_PARAM] = _address(student.code, seat)


def join(code: str, name: str) -> Student:
    """Join class ``code`` as ``name`` in this session's seat there, if it had one.

    A new seat otherwise; either way the seat goes in the browser's address, so a reload
    finds the same place. Raises ``ValueError`` as :meth:`ClassStore.join` does.
    """
    code = normalise_code(code)
    seat = (st.session_state.get(SEATS) or {}).get(code)
    address = _parse_seat(st.query_params.get(SEAT_PARAM, ""))
    if seat is None and address is not None and address[0] == code:
        seat = address[1]  # this browser's seat, whose class it had left or lost
    seat = seat or new_seat()
    student = store().join(code, name, seat=seat, client=client_key())
    remember(student, seat)
    return student


def leave() -> None:
    """Forget this session's class, and its seat in the address (the answers stay stored)."""
    left = st.session_state.pop(MEMBER, None)
    st.session_state.pop(_LAST_SHARED, None)
    if left:
        st.session_state[GONE] = {"code": str(left["code"]), "why": "left"}
    if SEAT_PARAM in st.query_params:
        del st.query_params[SEAT_PARAM]


def teach(code: str, token: str, seat: str | None = None) -> None:
    """Keep lecturer ``token``'s class ``code`` in this session, and a seat in the address.

    Raises ``ValueError`` (or a store error) when the token does not open the class.
    """
    seat = seat or store().lecturer_seat(code, token)
    st.session_state[LECTURE] = st.session_state[OPENED] = {
        "code": code, "token": token, "seat": seat}
    st.query_params[TEACH_PARAM] = _address(code, seat)


def stop_teaching() -> None:
    """Stop showing the class in this session (it stays open; its seat leaves the address)."""
    st.session_state.pop(LECTURE, None)
    if TEACH_PARAM in st.query_params:
        del st.query_params[TEACH_PARAM]


def restore() -> None:
    """After a reload: sit this session down again in the seats its address holds.

    Called by every page before its sidebar (:func:`dpviz.ui.page`): a student given back
    their row (name and answers) predicts again, as on joining, so the predict toggle is set
    before it is drawn. One whose class closed or dropped them is remembered as gone
    (:func:`reveal_note` says so) and the seat leaves the address. A lecturer's seat gives
    back the class. A session that holds a seat writes it into the address on every run:
    a page opened by a link has a fresh address, and the server's copy of the address is not
    kept up to date between pages, so a write is never skipped as already done.
    """
    classes = store()
    joined = st.session_state.get(MEMBER)
    if joined:
        # Kept as a value of the session's own: a toggle whose value came from the address
        # alone (a reload) is reset on the next page, whose address Streamlit left without it.
        st.session_state[PREDICT] = bool(st.session_state.get(PREDICT, True))
    if joined and joined.get("seat"):
        st.query_params[SEAT_PARAM] = _address(joined["code"], joined["seat"])
    elif not joined and GONE not in st.session_state and SEAT_PARAM in st.query_params:
        address = _parse_seat(st.query_params.get(SEAT_PARAM, ""))
        try:
            if address is None:
                raise ValueError("not a seat")
            remember(classes.rejoin(*address), address[1])
        except STORE_ERRORS:
            st.session_state[GONE] = {"code": address[0] if address else "?", "why": "closed"}
            del st.query_params[SEAT_PARAM]
        else:
            st.session_state[PREDICT] = True  # a student in a class predicts before a reveal
    lecture = st.session_state.get(LECTURE)
    if lecture and lecture.get("seat"):
        st.query_params[TEACH_PARAM] = _address(lecture["code"], lecture["seat"])
    elif not lecture and TEACH_PARAM in st.query_params:
        address = _parse_seat(st.query_params.get(TEACH_PARAM, ""))
        try:
            if address is None or not classes.is_lecturer(*address):
                raise ValueError("not a seat")
            teach(address[0], address[1], seat=address[1])
        except STORE_ERRORS:
            del st.query_params[TEACH_PARAM]


def standing() -> tuple[str, str]:
    """Where this session stands: ``("in" | "closed" | "left" | "none", code)``."""
    student = member()
    if student is not None:
        try:
            inside = store().is_member(student)
        except (sqlite3.Error, OSError):
            inside = True  # unreachable for now: sharing will say so if it stays that way
        return ("in" if inside else "closed"), student.code
    gone = st.session_state.get(GONE)
    if gone:
        return str(gone["why"]), str(gone["code"])
    return "none", ""


def reveal_note(*, public: bool) -> None:
    """Under a Reveal button: where the prediction goes — the class, or nowhere and why.

    ``public``: whether the question derives from public inputs only (:func:`share`); a
    student in a class is told when it does not, and nothing goes.
    """
    where, code = standing()
    shown = escape_markdown(code)
    if where == "in" and not public:
        st.caption(":material/lock: " + OWN_DATA_NOTE.format(code=shown))
    elif where == "in":
        st.caption(f":material/groups: Reveal also sends your prediction to class **{shown}**.")
    elif where == "left":
        st.warning(LEFT_NOTE.format(code=shown), icon=":material/group_off:")
    elif where == "closed":
        st.warning(CLOSED_NOTE.format(code=shown), icon=":material/group_off:")
    elif not st.session_state.get(LECTURE):  # a lecturer trying the step on the projector
        st.caption(ALONE_NOTE)


def share(step: str, question: str, prediction: Mapping[str, float | bool],
          truth: Mapping[str, float | bool | Sequence[float]], *, public: bool,
          within: tuple[float, float]) -> None:
    """Send this student's prediction on ``step`` (and the truth their run revealed) to the class.

    Does nothing unless the session has joined a class. ``step`` is the page's name ("lens",
    "gmm", "budget", "covariance", "sbm"); ``prediction`` holds numbers or booleans (for
    "gmm" a point ``{"x": …, "y": …}``); ``truth`` may also hold lists of numbers (the private
    means' coordinates). ``within`` is the range the page states for the prediction's
    numbers: the store refuses one outside it, with a sentence shown here. The same
    prediction is written once however often the page reruns; a class that closed or is full
    shows a warning instead of failing the page.

    ``public`` says whether ``question`` and ``truth`` derive only from public inputs,
    generated or bundled public data, or ledger-charged private releases. When it is false
    (a student's own upload) nothing is sent: the question's numbers and the truth are
    statistics of the student's data, and the guess is too once made on a page drawn from it
    (a click on a grid over the data's range), so nothing of it reaches the lecturer
    (:func:`reveal_note` says so).
    """
    student = member()
    if student is None or not public:
        return
    sent = json.dumps([student.code, step, dict(prediction), dict(truth)], sort_keys=True,
                      default=str)
    if st.session_state.get(_LAST_SHARED) == sent:
        return
    try:
        store().submit(student, step, question, prediction, truth, within=within)
    except ValueError as err:
        st.warning(f"Not sent to your class: {escape_markdown(str(err))}")
        return
    except (sqlite3.Error, OSError):  # a locked or unreadable database file
        st.warning("Not sent to your class: the class could not be reached. Try again.")
        return
    st.session_state[_LAST_SHARED] = sent
    st.caption(f"Sent to class {student.code}.")


def banner() -> None:
    """A one-line note of the class this session is in (its seat restored by :func:`restore`).

    Nothing when the session is in no class (or left one); a warning when its class closed
    or dropped it, found in this session or on reloading.
    """
    where, code = standing()
    if where == "closed":
        st.warning(CLOSED_BANNER.format(code=escape_markdown(code)), icon=":material/group_off:")
    student = member()
    if where == "in" and student is not None:
        st.caption(f":material/groups: Class **{student.code}** as "
                   f"{escape_markdown(student.name)} — your predictions are sent to your "
                   "lecturer.")
