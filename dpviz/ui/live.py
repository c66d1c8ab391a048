"""Live class mode in a Streamlit session: the Live class page, a prediction shared, a banner.

:func:`show` draws the page (a lecturer's class with its code, link, QR code and steps; a
student's membership; or the forms to join or open a class), :func:`share` is what the
predict-then-reveal gates call on Reveal, and :func:`banner` is the line every page shows
under its title while the session is in a class.

The shared state is :mod:`dpviz.ui.classroom`'s; this module keeps a session's part of it in
``st.session_state``: a student's membership under :data:`MEMBER` (code, random id, name),
the ids it had in each class under :data:`STUDENT_IDS` (so joining again takes no new place),
a lecturer's class under :data:`LECTURE` (code and token — the token never goes in a link) and
the class this session opened under :data:`OPENED` (opening again gives it back: one open class
a session).
"""

from __future__ import annotations

import html
import io
import json
import sqlite3
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
    normalise_code,
)
from dpviz.ui.widgets import escape_markdown, show_chart
from dpviz.viz import live as viz_live

#: session_state key of a student's membership: {"code", "student_id", "name"}.
MEMBER = "_live_member"
#: session_state key of a lecturer's class: {"code", "token"}.
LECTURE = "_live_lecture"
#: session_state key of the class this session opened (kept when it stops teaching it).
OPENED = "_live_opened"
#: session_state key of this session's student id in each class it joined: {code: id}.
STUDENT_IDS = "_live_student_ids"
#: session_state key of the last prediction shared, so a rerun does not write it again.
_LAST_SHARED = "_live_last_shared"
#: session_state key of the sidebar's "Predict, then reveal" toggle (on once a student joins).
PREDICT = "predict"
_JOIN_ERROR = "_live_join_error"
#: Each step's page and its name on screen.
STEP_PAGES = {"lens": ("pages/lens.py", "Privacy lens"),
              "gmm": ("pages/gmm.py", "Gaussian mixtures"),
              "budget": ("pages/budget.py", "Privacy budget"),
              "covariance": ("pages/covariance.py", "Covariance"),
              "sbm": ("pages/sbm.py", "Stochastic block model")}
#: Longest figure title (a question is cut there).
TITLE_CHARS = 90
#: Seconds between refreshes of the lecturer's counts.
REFRESH_S = 4
#: The question stored in place of one asked on a student's own data (with no truth).
OWN_DATA = ("Asked on the student's own data: only the prediction is shared; the question's "
            "numbers and the answer stay on the student's screen.")
#: What the lecturer's screen says when the class cannot be read or changed.
UNREACHABLE = "The class could not be reached. Try again."
JOIN_HELP = ("Six letters and digits, shown by your lecturer. Your name is shown only to the "
             "lecturer, and only after they reveal a step.")
KEY_HELP = ("Keep this key to come back to the class after a reload or on another computer. "
            "Never show it: whoever has it can reveal the class's predictions.")


def store() -> ClassStore:
    """The class store at the configured path (a new handle per call: it holds no connection)."""
    return ClassStore()


def member() -> Student | None:
    """The class this session has joined, or ``None``."""
    joined = st.session_state.get(MEMBER)
    if not joined:
        return None
    return Student(str(joined["code"]), str(joined["student_id"]), str(joined["name"]))


def remember(student: Student) -> None:
    """Keep ``student``'s membership, and their id in that class, in this session."""
    st.session_state[MEMBER] = {"code": student.code, "student_id": student.student_id,
                                "name": student.name}
    ids = dict(st.session_state.get(STUDENT_IDS) or {})
    ids[student.code] = student.student_id
    st.session_state[STUDENT_IDS] = ids


def join(code: str, name: str) -> Student:
    """Join class ``code`` as ``name`` with this session's earlier id there, if it had one.

    Raises ``ValueError`` as :meth:`ClassStore.join` does.
    """
    known = (st.session_state.get(STUDENT_IDS) or {}).get(normalise_code(code))
    student = store().join(code, name, student_id=known)
    remember(student)
    return student


def leave() -> None:
    """Forget this session's class."""
    st.session_state.pop(MEMBER, None)
    st.session_state.pop(_LAST_SHARED, None)


def share(step: str, question: str, prediction: Mapping[str, float | bool],
          truth: Mapping[str, float | bool | Sequence[float]], *, public: bool) -> None:
    """Send this student's prediction on ``step`` (and the truth their run revealed) to the class.

    Does nothing unless the session has joined a class. ``step`` is the page's name ("lens",
    "gmm", "budget", "covariance", "sbm"); ``prediction`` holds numbers or booleans (for
    "gmm" a point ``{"x": …, "y": …}``); ``truth`` may also hold lists of numbers (the private
    means' coordinates). The same prediction is written once however often the page reruns;
    a class that closed or is full shows a warning instead of failing the page.

    ``public`` says whether ``question`` and ``truth`` derive only from public inputs,
    generated or bundled public data, or ledger-charged private releases. When it is false
    (a student's own upload), only the prediction is sent: the question is stored as
    :data:`OWN_DATA` and the truth as nothing, so no exact statistic of the student's data
    reaches the lecturer.
    """
    student = member()
    if student is None:
        return
    if not public:
        question, truth = OWN_DATA, {}
    sent = json.dumps([student.code, step, dict(prediction), dict(truth)], sort_keys=True,
                      default=str)
    if st.session_state.get(_LAST_SHARED) == sent:
        return
    try:
        store().submit(student, step, question, prediction, truth)
    except ValueError as err:
        st.warning(f"Not sent to your class: {escape_markdown(str(err))}")
        return
    except (sqlite3.Error, OSError):  # a locked or unreadable database file
        st.warning("Not sent to your class: the class could not be reached. Try again.")
        return
    st.session_state[_LAST_SHARED] = sent
    st.caption(f"Sent to class {student.code}." if public else
               f"Sent to class {student.code}: your prediction only (your data's numbers "
               "and the answer stay on your screen).")


def banner() -> None:
    """A one-line note of the class this session is in (nothing when it is in none)."""
    student = member()
    if student is None:
        return
    st.caption(f":material/groups: Class **{student.code}** as {escape_markdown(student.name)}"
               " — your predictions are sent to your lecturer.")


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


#: What the class store raises: a sentence (``ValueError``) or a database it cannot reach.
STORE_ERRORS = (ValueError, sqlite3.Error, OSError)


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
            opened = store().open_class(mine)
        except STORE_ERRORS as err:
            st.error(_problem(err))
        else:
            st.session_state[LECTURE] = st.session_state[OPENED] = {
                "code": opened.code, "token": opened.token}
            st.rerun()
    with st.expander("Come back to a class you opened"):
        with st.form("live_resume"):
            code = st.text_input("Class code", max_chars=12, key="live_resume_code")
            key = st.text_input("Lecturer key", type="password", max_chars=64,
                                key="live_resume_key")
            if st.form_submit_button("Come back"):
                code = normalise_code(code)
                if store().is_lecturer(code, key.strip()):
                    st.session_state[LECTURE] = st.session_state[OPENED] = {
                        "code": code, "token": key.strip()}
                    st.rerun()
                st.error("No open class has that code and key.")


def _student_panel(student: Student) -> None:
    """What a student sees: their class, where to predict, their own predictions only."""
    classes = store()
    try:
        own = classes.own(student)
        revealed = classes.revealed(student.code)
    except ValueError as err:
        st.warning(escape_markdown(str(err)))
        if st.button("Leave"):
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


def class_figures(step: str, answers: Sequence[Prediction]) -> list[go.Figure]:
    """The class's predictions on ``step`` against the truth: one figure a predicted quantity.

    A prediction with ``x`` and ``y`` is a point (its truth: ``truth["x"]``, ``truth["y"]``,
    numbers or lists of the private means' coordinates); any other key is a number or a yes/no
    judged against ``truth`` under the same key, else under ``"answer"`` (the predict gates
    send ``{"guess": …}`` against ``{"answer": …}``).
    """
    label = STEP_PAGES[step][1]
    names = [a.name for a in answers]
    question = answers[0].question if answers else label
    if len(question) > TITLE_CHARS:
        question = question[:TITLE_CHARS - 1].rstrip() + "…"
    figures: list[go.Figure] = []
    keys = list(dict.fromkeys(k for a in answers for k in a.prediction))
    if "x" in keys and "y" in keys:
        keys = [k for k in keys if k not in ("x", "y")]
        pairs = [(n, (a.prediction["x"], a.prediction["y"])) for n, a in zip(names, answers,
                                                                             strict=True)
                 if "x" in a.prediction and "y" in a.prediction]
        truth: list[tuple[float, float]] = []
        for a in answers:
            tx, ty = _flat([a.truth.get("x")]), _flat([a.truth.get("y")])
            truth.extend((float(x), float(y)) for x, y in zip(tx, ty, strict=False))  # type: ignore[arg-type]
        figures.append(viz_live.class_points([n for n, _ in pairs],
                                             [p for _, p in pairs], truth,  # type: ignore[misc]
                                             title=question))
    for key in keys:
        said = [(a.name, a.prediction[key]) for a in answers if key in a.prediction]
        truths = _flat(a.truth.get(key, a.truth.get("answer")) for a in answers)
        if all(isinstance(v, bool) for _, v in said):
            figures.append(viz_live.class_yes_no([bool(v) for _, v in said],
                                                 [bool(t) for t in truths], title=question))
        else:
            figures.append(viz_live.class_numbers(
                [n for n, _ in said], [float(v) for _, v in said],  # type: ignore[arg-type]
                [float(t) for t in truths if not isinstance(t, bool)],  # type: ignore[arg-type]
                title=question, label="prediction" if key == "guess" else key))
    return figures


def _step_view(code: str, token: str, step: str, answered: int, revealed: bool) -> None:
    """One step of the lecturer's view: the count before the reveal, everything after."""
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
    for i, fig in enumerate(class_figures(step, answers)):
        show_chart(fig, key=f"live_{step}_{i}", filename=f"dpviz-class-{step}-{i}")
    st.dataframe(_values_table(answers), hide_index=True)


@st.fragment(run_every=REFRESH_S)
def _lecturer_steps(code: str, token: str) -> None:
    """The class's steps, refreshed every :data:`REFRESH_S` seconds as students answer."""
    classes = store()
    try:
        counts, revealed = classes.counts(code), classes.revealed(code)
        joined = classes.students(code)
    except STORE_ERRORS as err:
        st.warning(_problem(err))
        return
    st.metric("Students joined", joined)
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
            st.session_state.pop(LECTURE, None)
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
    if lecture and store().is_lecturer(lecture["code"], lecture["token"]):
        _lecturer_panel(str(lecture["code"]), str(lecture["token"]))
        return
    st.session_state.pop(LECTURE, None)
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
