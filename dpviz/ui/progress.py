"""A progress bar whose time left comes from the measured pace of the first steps (issue 22).

The long panels (audit, compare, solve, card, the winner map) report their steps to one
:class:`TimedBar`. It says what it is doing and no time until a pace is measured, then "about
N s left" from :class:`dpviz.lab.experiments.tables.Pace`: the pace of the steps since the
first one reported (or since each process finished its first run, ``warm``), so what comes
before the steps (imports, recording runs, starting a browser, runs read from disk) does not
skew it; or the caller's own estimate of the work left when the steps differ in cost (the
compare view's estimators). A sweep's bar (:meth:`TimedBar.runs`) also states the wall time
since it was made: since the button was pressed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st


def left_words(seconds: float | None, *, at_most: bool = False) -> str:
    """The time left in words (``""`` while it is unknown); ``at_most`` for an upper bound.

    Examples
    --------
    >>> left_words(None), left_words(0.3), left_words(12.4, at_most=True)
    ('', ', under a second left', ', at most about 12 s left')
    """
    if seconds is None:
        return ""
    if seconds < 1:
        return ", under a second left"
    return f", {'at most ' if at_most else ''}about {seconds:.0f} s left"


class TimedBar:
    """A ``st.progress`` bar for ``total`` steps that states the time left once it is measured.

    ``at_most``: ``total`` is an upper bound (a search that may stop early), and so is the
    time left, which says so. ``warm``: steps to finish after the first report before the
    pace counts (a sweep's processes). ``clock``: seconds, monotonic (a test's fake clock).
    """

    def __init__(self, text: str, total: int, *, at_most: bool = False, warm: int = 0,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        from dpviz.lab.experiments.tables import Pace  # pandas: not on a page's first run

        self.text, self.total, self.at_most = text, max(int(total), 1), at_most
        self.pace = Pace(warm=warm, clock=clock)
        self.bar = st.progress(0.0, text=f"{text}…")

    @property
    def first(self) -> tuple[int, float] | None:
        """``(done, elapsed)`` when the pace started counting (``None`` before)."""
        return self.pace.since

    def elapsed(self) -> float:
        """Seconds since the bar was made."""
        return self.pace.elapsed()

    def step(self, done: float, *, text: str | None = None, left: float | None = None,
             unit: str = "", total: int | None = None, measured: bool = True,
             elapsed: bool = False) -> None:
        """``done`` of the steps finished; the time left is ``left`` or the pace's.

        ``text`` replaces the bar's words for this phase; ``unit`` names the steps
        (``"3 of 20 runs"``); ``total`` replaces the number of steps; ``measured=False``:
        the caller measures the time left itself (``left``; ``None``: not yet known);
        ``elapsed``: state the seconds since the bar was made.
        """
        if total is not None:
            self.total = max(int(total), 1)
        pace = self.pace.report(int(done), self.total)
        if measured and left is None and done < self.total:
            left = pace
        most = "at most " if self.at_most else ""
        count = f": {done:,.0f} of {most}{self.total:,} {unit}" if unit else ""
        took = f", {self.elapsed():.0f} s elapsed" if elapsed else ""
        words = left_words(left, at_most=self.at_most)
        self.bar.progress(min(1.0, done / self.total),
                          text=f"{text or self.text}{count}{took}{words}")

    def runs(self, done: int, total: int, _elapsed: float = 0.0) -> None:
        """A sweep runner's ``progress`` callback.

        The runner's own elapsed time is not used: it starts after the checks that precede
        the runs.
        """
        self.step(done, unit="runs", total=total, elapsed=True)


@contextmanager
def timed_bar(text: str, total: int, *, at_most: bool = False,
              warm: int = 0) -> Iterator[TimedBar]:
    """A :class:`TimedBar` removed when the block ends (finished or failed)."""
    bar = TimedBar(text, total, at_most=at_most, warm=warm)
    try:
        yield bar
    finally:
        bar.bar.empty()
