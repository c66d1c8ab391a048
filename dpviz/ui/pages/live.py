"""The Live class page: a lecturer's class, a student's membership, or the join and open forms.

A lecturer's class shows its code, link, QR code and steps; a student's membership the steps to
predict. A session's seat in the class (joining, teaching, restoring after a reload, sharing a
prediction) is :mod:`dpviz.ui.seat`'s; the shared state is :mod:`dpviz.lab.classroom`'s.
"""

from __future__ import annotations

import hmac
import html
import io
import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from urllib.parse import urlencode, urlsplit

import plotly.graph_objects as go
import segno
import streamlit as st

from dpviz.lab.classroom import MAX_NAME, STEPS, Prediction, Student, normalise_code
from dpviz.ui import seat
from dpviz.ui.pages_list import PAGES
from dpviz.ui.widgets import escape_markdown, show_chart
from dpviz.viz import live as viz_live

_JOIN_ERROR = "_live_join_error"
#: Each step's page and its name on screen, in the class's order: the page list's steps (a
#: step is its page's name).
STEP_PAGES = {p.name: (p.script, p.title)
              for p in sorted((p for p in PAGES if p.step), key=lambda p: STEPS.index(p.name))}
#: Seconds between refreshes of the lecturer's counts.
REFRESH_S = 4
#: What the lecturer's screen says when the class cannot be read or changed.
UNREACHABLE = "The class could not be reached. Try again."
JOIN_HELP = ("Six letters and digits, shown by your lecturer. Your name is shown only to the "
             "lecturer, and only after they reveal a step.")
KEY_HELP = ("This browser comes back to the class by itself after a reload. Keep this key to "
            "come back on another computer; never show it: whoever has it can reveal the "
            "class's predictions.")

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
    """The sentence for one of :data:`dpviz.ui.seat.STORE_ERRORS` (a store's own words, escaped)."""
    return escape_markdown(str(err)) if isinstance(err, ValueError) else UNREACHABLE


def _join() -> None:
    """The join form's callback (it runs before the page, so it may turn predict mode on)."""
    try:
        seat.join(st.session_state.get("live_join_code", ""),
             st.session_state.get("live_join_name", ""))
    except ValueError as err:
        st.session_state[_JOIN_ERROR] = str(err)
        return
    except (sqlite3.Error, OSError):
        st.session_state[_JOIN_ERROR] = UNREACHABLE
        return
    st.session_state[seat.PREDICT] = True  # a student in a class predicts before every reveal


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
    before = st.session_state.get(seat.OPENED)
    if st.button("Open a new class" if not before else "Open your class",
                 icon=":material/co_present:"):
        mine = (str(before["code"]), str(before["token"])) if before else None
        try:
            opened = seat.store().open_class(mine, client=seat.client_key())
            kept = before.get("seat") if before and opened.code == before["code"] else None
            seat.teach(opened.code, opened.token, seat=kept)
        except seat.STORE_ERRORS as err:
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
                    back = seat.store().is_lecturer(code, key.strip())
                    if back:
                        seat.teach(code, key.strip())
                except seat.STORE_ERRORS as err:
                    st.error(_problem(err))
                    return
                if back:
                    st.rerun()
                st.error("No open class has that code and key.")


def _student_panel(student: Student) -> None:
    """What a student sees: their class, where to predict, their own predictions only."""
    classes = seat.store()
    try:
        own = classes.own(student)
        revealed = classes.revealed(student.code)
    except seat.STORE_ERRORS as err:
        st.warning(_problem(err))
        if st.button("Leave", key="live_leave_closed"):
            seat.leave()
            st.rerun()
        return
    if not classes.is_member(student):
        st.warning(seat.CLOSED_NOTE.format(code=escape_markdown(student.code)))
        if st.button("Leave", key="live_leave_dropped"):
            seat.leave()
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
        seat.leave()
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
                seat.store().reveal(code, token, step)
                st.rerun()
            return
        answers = seat.store().predictions(code, token, step)
    except seat.STORE_ERRORS as err:
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
    """Who may come in: lock the class against new students, remove one by name, readmit.

    The names are in a folded expander (the projector shows the class, not who is in it).
    """
    classes = seat.store()
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
                                  help="Their predictions go with them, and no new name joins "
                                       "from their browser or their address (a campus network "
                                       "may share one) until you let removed students back.")
            if st.button("Remove from the class", key="live_remove", disabled=chosen is None):
                classes.remove(code, token, str(chosen))
                st.rerun()
            removed = classes.removed(code, token)
            if removed and st.button(f"Let removed students back in ({removed})",
                                     key="live_readmit"):
                classes.readmit(code, token)
                st.rerun()
    except seat.STORE_ERRORS as err:
        st.warning(_problem(err))


@st.fragment(run_every=REFRESH_S)
def _lecturer_steps(code: str, token: str) -> None:
    """The class's steps, refreshed every :data:`REFRESH_S` seconds as students answer."""
    classes = seat.store()
    try:
        counts, revealed = classes.counts(code), classes.revealed(code)
        joined, locked = classes.students(code), classes.is_locked(code)
    except seat.STORE_ERRORS as err:
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
            seat.stop_teaching()
            st.rerun()
    with right:
        st.image(qr_png(link), width=260, alt=f"QR code of the join link {link}")
    st.subheader("Predictions")
    st.caption("Before you reveal a step you see only how many answered; after, every "
               "prediction against the truth.")
    _lecturer_steps(code, token)


def show() -> None:
    """The Live class page: a lecturer's class, or a student's membership, or the two forms."""
    lecture = st.session_state.get(seat.LECTURE)
    try:
        teaching = lecture is not None and seat.store().is_lecturer(lecture["code"],
                                                               lecture["token"])
    except (sqlite3.Error, OSError):
        st.warning(UNREACHABLE)
        return
    if teaching and lecture is not None:
        _lecturer_panel(str(lecture["code"]), str(lecture["token"]))
        return
    if lecture:
        seat.stop_teaching()  # its class closed
    student = seat.member()
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
