"""Live class mode in a Streamlit session: the Live class page, a prediction shared, a banner.

:func:`show` draws the page (a lecturer's class with its code, link, QR code and steps; a
student's membership; or the forms to join or open a class), :func:`share` is what the
predict-then-reveal gates call on Reveal, :func:`reveal_note` what they show under Reveal
(where the prediction goes), and :func:`banner` is the line every page shows under its title
while the session is in a class.

The shared state is :mod:`dpviz.ui.classroom`'s; this module keeps a session's part of it in
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

import hmac
import html
import io
import ipaddress
import json
import secrets
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import urlencode, urlsplit

import plotly.graph_objects as go
import segno
import streamlit as st

from dpviz.ui.classroom import (
    MAX_NAME,
    STEPS,
    ClassStore,
    Prediction,
    Student,
    new_seat,
    normalise_code,
)
from dpviz.ui.pages_list import PAGES
from dpviz.ui.widgets import escape_markdown, show_chart
from dpviz.viz import live as viz_live

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
_JOIN_ERROR = "_live_join_error"
#: Each step's page and its name on screen, in the class's order: the page list's steps (a
#: step is its page's name).
STEP_PAGES = {p.name: (p.script, p.title)
              for p in sorted((p for p in PAGES if p.step), key=lambda p: STEPS.index(p.name))}
#: session_state key of this session's client key when the browser's address is unknown.
_CLIENT = "_live_client"
#: Seconds between refreshes of the lecturer's counts.
REFRESH_S = 4
#: What the lecturer's screen says when the class cannot be read or changed.
UNREACHABLE = "The class could not be reached. Try again."
JOIN_HELP = ("Six letters and digits, shown by your lecturer. Your name is shown only to the "
             "lecturer, and only after they reveal a step.")
KEY_HELP = ("This browser comes back to the class by itself after a reload. Keep this key to "
            "come back on another computer; never show it: whoever has it can reveal the "
            "class's predictions.")
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


def join_link(code: str) -> str:
    """The link students open to join class ``code``: absolute when the page's address is known."""
    url = st.context.url
    base = ""
    if url:
        parsed = urlsplit(url)
        prefix = parsed.path.rsplit("/", 1)[0] if "/" in parsed.path else ""
        base = f"{parsed.scheme}://{parsed.netloc}{prefix}"
    return f"{base}/live?{urlencode({'join': code})}"


def qr_png(text: str) -> bytes:
    """A QR code of ``text`` as PNG bytes (segno, error correction M)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()


def _problem(err: Exception) -> str:
    """The sentence to show for one of :data:`STORE_ERRORS` (a store's own words, escaped)."""
    return escape_markdown(str(err)) if isinstance(err, ValueError) else UNREACHABLE


def _join() -> None:
    """The join form's callback (it runs before the page, so it may turn predict mode on)."""
    try:
        join(st.session_state.get("live_join_code", ""),
             st.session_state.get("live_join_name", ""))
    except ValueError as err:
        st.session_state[_JOIN_ERROR] = str(err)
        return
    except (sqlite3.Error, OSError):
        st.session_state[_JOIN_ERROR] = UNREACHABLE
        return
    st.session_state[PREDICT] = True  # a student in a class predicts before every reveal


def _join_form() -> None:
    """Code and name; joining keeps the membership in this session."""
    invited = normalise_code(str(st.query_params.get("join", "")))[:12]
    with st.form("live_join"):
        st.text_input("Class code", value=invited, max_chars=12, help=JOIN_HELP,
                      key="live_join_code")
        st.text_input("Your name", max_chars=MAX_NAME, key="live_join_name")
        st.form_submit_button("Join the class", type="primary", on_click=_join)
    failed = st.session_state.pop(_JOIN_ERROR, None)
    if failed:
        st.error(escape_markdown(failed))


def _open_form() -> None:
    """Open a new class, or come back to one with its code and lecturer key."""
    before = st.session_state.get(OPENED)
    if st.button("Open a new class" if not before else "Open your class",
                 icon=":material/co_present:"):
        mine = (str(before["code"]), str(before["token"])) if before else None
        try:
            opened = store().open_class(mine, client=client_key())
            kept = before.get("seat") if before and opened.code == before["code"] else None
            teach(opened.code, opened.token, seat=kept)
        except STORE_ERRORS as err:
            st.error(_problem(err))
        else:
            st.rerun()
    with st.expander("Come back to a class you opened"):
        with st.form("live_resume"):
            code = st.text_input("Class code", max_chars=12, key="live_resume_code")
            key = st.text_input("Lecturer key", type="password", max_chars=64,
                                key="live_resume_key")
            if st.form_submit_button("Come back"):
                code = normalise_code(code)
                try:
                    back = store().is_lecturer(code, key.strip())
                    if back:
                        teach(code, key.strip())
                except STORE_ERRORS as err:
                    st.error(_problem(err))
                    return
                if back:
                    st.rerun()
                st.error("No open class has that code and key.")


def _student_panel(student: Student) -> None:
    """What a student sees: their class, where to predict, their own predictions only."""
    classes = store()
    try:
        own = classes.own(student)
        revealed = classes.revealed(student.code)
    except STORE_ERRORS as err:
        st.warning(_problem(err))
        if st.button("Leave", key="live_leave_closed"):
            leave()
            st.rerun()
        return
    if not classes.is_member(student):
        st.warning(CLOSED_NOTE.format(code=escape_markdown(student.code)))
        if st.button("Leave", key="live_leave_dropped"):
            leave()
            st.rerun()
        return
    st.success(f"You are in class **{student.code}** as {escape_markdown(student.name)}.")
    st.markdown("Open a page below: it hides its answer until you predict it, then sends your "
                "prediction to your lecturer. Nobody sees the others' predictions until the "
                "lecturer reveals them.")
    for step, (script, label) in STEP_PAGES.items():
        sent = "your prediction is in" if step in own else "not predicted yet"
        shown = " · revealed by your lecturer" if step in revealed else ""
        st.page_link(script, label=f"{label} — {sent}{shown}", icon=":material/psychology_alt:")
    if st.button("Leave the class", type="tertiary"):
        leave()
        st.rerun()


def _values_table(answers: Sequence[Prediction]) -> list[dict[str, object]]:
    """One row per student: name, then each predicted and true value."""
    rows: list[dict[str, object]] = []
    for a in answers:
        row: dict[str, object] = {"student": a.name}
        row.update({f"predicted {k}": v for k, v in a.prediction.items()})
        row.update({f"true {k}": json.dumps(v) if isinstance(v, list) else v
                    for k, v in a.truth.items()})
        rows.append(row)
    return rows


def _flat(values: Iterable[object]) -> list[object]:
    out: list[object] = []
    for v in values:
        out.extend(v if isinstance(v, list) else [v])
    return [v for v in out if v is not None]


def class_question(step: str, answers: Sequence[Prediction]) -> str:
    """The question the class answered on ``step``, whole: the one most students were asked.

    Students who moved a slider were asked with other numbers; the line then says how many.
    """
    if not answers:
        return STEP_PAGES[step][1]
    asked = Counter(a.question for a in answers)
    question, count = asked.most_common(1)[0]
    others = len(answers) - count
    return question + (f" ({others} of {len(answers)} students were asked it with other "
                       "numbers.)" if others else "")


def _counted(label: str, n: int) -> str:
    return f"{label}: {n} prediction{'' if n == 1 else 's'}"


def anonymous_order(answers: Sequence[Prediction], secret: str) -> list[Prediction]:
    """``answers`` in an order fixed for the class but unrelated to the names table's.

    Sorted by a keyed hash (HMAC-SHA256) of each student's name under ``secret`` (the
    lecturer's key): reruns draw the same figure, and a student who knows the roster cannot
    compute the order, so a projected point's place in the figure's data says nothing of whose
    it is (the names table lists the store's order, which is the order of arrival).

    Examples
    --------
    >>> said = [Prediction(n, "q", {"guess": 1.0}, {}, 0.0) for n in "ABCDE"]
    >>> [a.name for a in anonymous_order(said, "k")] == [a.name for a in anonymous_order(
    ...     list(reversed(said)), "k")]
    True
    """
    return sorted(answers, key=lambda a: hmac.new(secret.encode(), a.name.encode(),
                                                  "sha256").digest())


def class_figures(step: str, answers: Sequence[Prediction], *,
                  secret: str) -> list[go.Figure]:
    """The class's predictions on ``step`` against the truth: one figure a predicted quantity.

    Anonymous (the figures are projected): the distribution of the predictions, and the
    truth, in :func:`anonymous_order` under ``secret`` (the lecturer's key). A prediction
    with ``x`` and ``y`` is a point (its truth: ``truth["x"]``, ``truth["y"]``, numbers or
    lists of the private means' coordinates); any other key is a number or a yes/no judged
    against ``truth`` under the same key, else under ``"answer"`` (the predict gates send
    ``{"guess": …}`` against ``{"answer": …}``). Each title is the step and the number of
    predictions; the question is shown whole above them (:func:`class_question`).
    """
    label = STEP_PAGES[step][1]
    answers = anonymous_order(answers, secret)
    figures: list[go.Figure] = []
    keys = list(dict.fromkeys(k for a in answers for k in a.prediction))
    if "x" in keys and "y" in keys:
        keys = [k for k in keys if k not in ("x", "y")]
        points = [(float(a.prediction["x"]), float(a.prediction["y"]))  # type: ignore[arg-type]
                  for a in answers if "x" in a.prediction and "y" in a.prediction]
        truth: list[tuple[float, float]] = []
        for a in answers:
            tx, ty = _flat([a.truth.get("x")]), _flat([a.truth.get("y")])
            truth.extend((float(x), float(y)) for x, y in zip(tx, ty, strict=False))  # type: ignore[arg-type]
        figures.append(viz_live.class_points(points, truth, title=_counted(label, len(points))))
    for key in keys:
        said = [a.prediction[key] for a in answers if key in a.prediction]
        truths = _flat(a.truth.get(key, a.truth.get("answer")) for a in answers)
        title = _counted(label, len(said))
        if all(isinstance(v, bool) for v in said):
            figures.append(viz_live.class_yes_no([bool(v) for v in said],
                                                 [bool(t) for t in truths], title=title))
        else:
            figures.append(viz_live.class_numbers(
                [float(v) for v in said],  # type: ignore[arg-type]
                [float(t) for t in truths if not isinstance(t, bool)],  # type: ignore[arg-type]
                title=title, label="prediction" if key == "guess" else key))
    return figures


def _step_view(code: str, token: str, step: str, answered: int, revealed: bool) -> None:
    """One step of the lecturer's view: the count before the reveal, everything after.

    After it, the question whole, the anonymous figures, and the names only in a collapsed
    table (the lecturer's own: it stays closed on the projector unless opened).
    """
    label = STEP_PAGES[step][1]
    st.markdown(f"**{label}** — {answered} answered")
    try:
        if not revealed:
            if st.button("Reveal to the class", key=f"live_reveal_{step}",
                         disabled=answered == 0):
                store().reveal(code, token, step)
                st.rerun()
            return
        answers = store().predictions(code, token, step)
    except STORE_ERRORS as err:
        st.warning(_problem(err))
        return
    if not answers:
        st.caption("Revealed: nobody has answered yet.")
        return
    st.markdown(escape_markdown(class_question(step, answers)))
    for i, fig in enumerate(class_figures(step, answers, secret=token)):
        show_chart(fig, key=f"live_{step}_{i}", filename=f"dpviz-class-{step}-{i}")
    with st.expander("Who predicted what (names: do not project)", expanded=False):
        st.dataframe(_values_table(answers), hide_index=True, key=f"live_names_{step}")


def _door(code: str, token: str, locked: bool) -> None:
    """Who may come in: lock the class against new students, and remove one by name.

    The names are in a folded expander (the projector shows the class, not who is in it).
    """
    classes = store()
    try:
        if st.button("Let new students join again" if locked else
                     "Lock the class: no new students", key="live_lock",
                     icon=":material/lock_open:" if locked else ":material/lock:"):
            classes.lock(code, token, not locked)
            st.rerun()
        with st.expander("Remove a student (names: do not project)", expanded=False):
            names = {s.student_id: s.name for s in classes.roster(code, token)}
            chosen = st.selectbox("Student", list(names), index=None, format_func=names.__getitem__,
                                  key="live_remove_who",
                                  help="Their predictions go with them; lock the class to "
                                       "keep them from joining again.")
            if st.button("Remove from the class", key="live_remove", disabled=chosen is None):
                classes.remove(code, token, str(chosen))
                st.rerun()
    except STORE_ERRORS as err:
        st.warning(_problem(err))


@st.fragment(run_every=REFRESH_S)
def _lecturer_steps(code: str, token: str) -> None:
    """The class's steps, refreshed every :data:`REFRESH_S` seconds as students answer."""
    classes = store()
    try:
        counts, revealed = classes.counts(code), classes.revealed(code)
        joined, locked = classes.students(code), classes.is_locked(code)
    except STORE_ERRORS as err:
        st.warning(_problem(err))
        return
    st.metric("Students joined", joined)
    if locked:
        st.caption(":material/lock: Locked: nobody new can join; the students in it stay.")
    _door(code, token, locked)
    for step in STEPS:
        with st.container(border=True):
            _step_view(code, token, step, counts[step], step in revealed)


def _lecturer_panel(code: str, token: str) -> None:
    """What the lecturer sees: the code big, the link and its QR code, then each step."""
    link = join_link(code)
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.caption("Class code")
        st.html(f"<p class='live-code' style='font-size:4.5rem;font-weight:700;"
                f"letter-spacing:0.3em;margin:0;font-family:monospace'>{html.escape(code)}</p>")
        st.markdown(f"Students open **{escape_markdown(link)}** or scan the code, then type "
                    "their name.")
        st.code(link, language=None)
        with st.expander("Lecturer key (do not project)"), st.container(key="live_key"):
            st.caption(KEY_HELP)
            st.code(token, language=None)
        if st.button("Stop teaching this class here", type="tertiary"):
            stop_teaching()
            st.rerun()
    with right:
        st.image(qr_png(link), width=260, alt=f"QR code of the join link {link}")
    st.subheader("Predictions")
    st.caption("Before you reveal a step you see only how many answered; after, every "
               "prediction against the truth.")
    _lecturer_steps(code, token)


def show() -> None:
    """The Live class page: a lecturer's class, or a student's membership, or the two forms."""
    lecture = st.session_state.get(LECTURE)
    try:
        teaching = lecture is not None and store().is_lecturer(lecture["code"],
                                                               lecture["token"])
    except (sqlite3.Error, OSError):
        st.warning(UNREACHABLE)
        return
    if teaching and lecture is not None:
        _lecturer_panel(str(lecture["code"]), str(lecture["token"]))
        return
    if lecture:
        stop_teaching()  # its class closed
    student = member()
    if student is not None:
        _student_panel(student)
        return
    join, teach = st.columns(2, gap="large")
    with join:
        st.subheader("Join a class")
        _join_form()
    with teach:
        st.subheader("Teach a class")
        st.markdown("Open a class, show its code, and see what your students predict — "
                    "each step revealed only when you choose.")
        _open_form()
