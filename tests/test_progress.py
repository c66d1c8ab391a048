"""Progress bars tell the truth (issue 29 item 5): wall time since the click, the time left
from the pace of runs actually computed — not cache hits, not the checks before the runs."""

from __future__ import annotations

import pytest

from dpviz.lab.experiments.tables import Pace
from dpviz.ui import progress


class Clock:
    """A fake monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Bar:
    """Stands in for ``st.progress``: keeps the last text."""

    def __init__(self) -> None:
        self.text = ""

    def progress(self, value: float, text: str = "") -> None:
        self.text = text

    def empty(self) -> None:
        self.text = ""


def test_the_pace_counts_from_runs_computed_after_every_process_started():
    clock = Clock()
    pace = Pace(warm=2, clock=clock)
    clock.now += 17.0  # the precondition checks: before the runner's first report
    assert pace.report(150, 400) is None  # 150 skipped or read from disk: no pace from them
    clock.now += 3.0
    assert pace.report(151, 400) is None  # each process's first run: start-up
    clock.now += 0.1
    assert pace.report(152, 400) is None  # the pace starts counting here
    for _ in range(10):  # then one run every 0.4 s
        clock.now += 0.4
        left = pace.report(pace.since[0] + _ + 1, 400)
    assert left == pytest.approx(0.4 * (400 - 162))
    assert pace.elapsed() == pytest.approx(17.0 + 3.1 + 4.0)  # wall time since the start


def test_the_issue_s_bar_would_have_said_more_than_two_seconds_left():
    # 246 of 400 runs at 20 s of a 101 s run, 150 of them skipped at once after 17 s of checks
    clock = Clock()
    pace = Pace(warm=2, clock=clock)
    clock.now += 17.0
    pace.report(150, 400)
    clock.now += 1.0
    pace.report(152, 400)
    seconds_a_run = (101.0 - 18.0) / (400 - 152)
    for done in range(153, 247):
        clock.now += seconds_a_run
        left = pace.report(done, 400)
    assert pace.elapsed() == pytest.approx(18.0 + 94 * seconds_a_run)
    assert left == pytest.approx(101.0 - pace.elapsed(), rel=0.01)


def test_a_sweep_s_bar_states_wall_time_and_the_measured_time_left(monkeypatch):
    bar = Bar()
    monkeypatch.setattr(progress.st, "progress", lambda value, text="": bar)
    clock = Clock()
    timed = progress.TimedBar("Computing the map", 400, warm=2, clock=clock)
    clock.now += 17.0
    timed.runs(150, 400, 0.0)  # the runner's own elapsed (0 s) is not what the bar says
    assert bar.text == "Computing the map: 150 of 400 runs, 17 s elapsed"
    for done in (151, 152, 153, 154):
        clock.now += 0.5
        timed.runs(done, 400, 0.0)
    assert bar.text == "Computing the map: 154 of 400 runs, 19 s elapsed, about 123 s left"
    assert timed.first == (152, pytest.approx(18.0))


def test_a_panel_s_bar_counts_from_its_first_step(monkeypatch):
    bar = Bar()
    monkeypatch.setattr(progress.st, "progress", lambda value, text="": bar)
    clock = Clock()
    timed = progress.TimedBar("Auditing", 10, clock=clock)
    clock.now += 5.0  # imports before the first step
    timed.step(1)
    assert bar.text == "Auditing"
    clock.now += 2.0
    timed.step(2)
    assert bar.text == "Auditing, about 16 s left"
