"""Live class mode in a Streamlit session: join, share a prediction, show the class's banner.

The shared state is :mod:`dpviz.ui.classroom`'s; this module keeps a session's part of it in
``st.session_state``: a student's membership under :data:`MEMBER` (code, random id, name) and
a lecturer's class under :data:`LECTURE` (code and token — the token never goes in a link).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence

import streamlit as st

from dpviz.ui.classroom import ClassStore, Student
from dpviz.ui.widgets import escape_markdown

#: session_state key of a student's membership: {"code", "student_id", "name"}.
MEMBER = "_live_member"
#: session_state key of a lecturer's class: {"code", "token"}.
LECTURE = "_live_lecture"
#: session_state key of the last prediction shared, so a rerun does not write it again.
_LAST_SHARED = "_live_last_shared"
#: The page, as a link target.
PAGE = "pages/live.py"


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
    """Keep ``student``'s membership in this session."""
    st.session_state[MEMBER] = {"code": student.code, "student_id": student.student_id,
                                "name": student.name}


def leave() -> None:
    """Forget this session's class."""
    st.session_state.pop(MEMBER, None)
    st.session_state.pop(_LAST_SHARED, None)


def share(step: str, question: str, prediction: Mapping[str, float | bool],
          truth: Mapping[str, float | bool | Sequence[float]]) -> None:
    """Send this student's prediction on ``step`` (and the truth their run revealed) to the class.

    Does nothing unless the session has joined a class. ``step`` is the page's name ("lens",
    "gmm", "budget", "covariance", "sbm"); ``prediction`` holds numbers or booleans (for
    "gmm" a point ``{"x": …, "y": …}``); ``truth`` may also hold lists of numbers (the private
    means' coordinates). The same prediction is written once however often the page reruns;
    a class that closed or is full shows a warning instead of failing the page.
    """
    student = member()
    if student is None:
        return
    sent = json.dumps([student.code, step, dict(prediction)], sort_keys=True, default=str)
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
    st.caption(f"Sent to class {student.code}.")


def banner() -> None:
    """A one-line note of the class this session is in (nothing when it is in none)."""
    student = member()
    if student is None:
        return
    st.caption(f":material/groups: Class **{student.code}** as {escape_markdown(student.name)}"
               " — your predictions are sent to your lecturer.")
