"""A progress bar whose time left comes from the measured pace of the first steps (issue 22).

The long panels (audit, compare, solve, card) report their steps to one :class:`TimedBar`.
It says what it is doing and no time until a pace is measured, then "about N s left" from
:func:`dpviz.lab.experiments.time_left`: the pace of the steps since the first one reported,
so what comes before the steps (imports, recording runs, starting a browser) does not skew
it; or the caller's own estimate of the work left when the steps differ in cost (the compare
view's estimators).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st


def left_words(seconds: float | None) -> str:
    """The time left in words (``""`` while it is unknown).

    Examples
    --------
    >>> left_words(None), left_words(0.3), left_words(12.4)
    ('', ', under a second left', ', about 12 s left')
    """
    if seconds is None:
        return ""
    if seconds < 1:
        return ", under a second left"
    return f", about {seconds:.0f} s left"


class TimedBar:
    """A ``st.progress`` bar for ``total`` steps that states the time left once it is measured."""

    def __init__(self, text: str, total: int) -> None:
        self.text, self.total = text, max(int(total), 1)
        self.started = time.perf_counter()
        self.first: tuple[int, float] | None = None  # (done, elapsed) at the first step
        self.bar = st.progress(0.0, text=f"{text}…")

    def elapsed(self) -> float:
        """Seconds since the bar was made."""
        return time.perf_counter() - self.started

    def step(self, done: float, *, text: str | None = None, left: float | None = None,
             unit: str = "") -> None:
        """``done`` of the steps finished; the time left is ``left`` or the pace's.

        ``text`` replaces the bar's words for this phase; ``unit`` names the steps
        (``"3 of 20 runs"``).
        """
        if self.first is None:
            self.first = (int(done), self.elapsed())
        elif left is None and done < self.total:
            from dpviz.lab.experiments import time_left  # pandas: not on a page's first run

            left = time_left(int(done), self.total, self.elapsed(), since=self.first)
        count = f": {done:,.0f} of {self.total:,} {unit}" if unit else ""
        self.bar.progress(min(1.0, done / self.total),
                          text=f"{text or self.text}{count}{left_words(left)}")


@contextmanager
def timed_bar(text: str, total: int) -> Iterator[TimedBar]:
    """A :class:`TimedBar` removed when the block ends (finished or failed)."""
    bar = TimedBar(text, total)
    try:
        yield bar
    finally:
        bar.bar.empty()
