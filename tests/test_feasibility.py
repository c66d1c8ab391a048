"""dpviz.lab.feasibility: an entry's public preconditions, and the n or ε from which they hold."""

from __future__ import annotations

import pytest

from dpviz.core import search
from dpviz.core.entry import Estimator
from dpviz.lab import feasibility
from dpviz.lab.feasibility import Blocked, blocked


class Clock:
    """The search's clock in these tests: it moves only when a toy's check takes its time, so
    a loaded machine does not change how far a time-limited search gets."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def clock(monkeypatch) -> Clock:
    fake = Clock()
    for module in (feasibility, search):  # the deadline is set in one and read in the other
        monkeypatch.setattr(module, "time", fake)
    return fake


def toy(rows: int = 5_000, epsilon: float = 3.0, pause: float = 0.0,
        clock: Clock | None = None) -> Estimator:
    """An entry that succeeds from ``rows`` rows, or from ``epsilon`` (a public rule only);
    each check takes ``pause`` seconds of ``clock``."""

    def can_run(*, n, epsilon: float | None = None, **_):
        if clock is not None:
            clock.now += pause
        if n >= rows or (epsilon is not None and epsilon >= globals_epsilon):
            return None
        return f"needs n >= {rows} or epsilon >= {globals_epsilon}"

    globals_epsilon = epsilon
    return Estimator(task="gmm", name="toy", function=lambda *a, **k: None, label="Toy",
                     paper="", notion="approximate", outputs=(), can_run=can_run)


def test_an_entry_that_can_run_is_not_blocked():
    assert blocked(toy(), n=10_000, epsilon=1.0) is None


def test_the_n_and_the_epsilon_where_the_preconditions_hold_are_found():
    found = blocked(toy(), n=1_000, epsilon=1.0, delta=1e-5)
    assert isinstance(found, Blocked) and found.reason == "needs n >= 5000 or epsilon >= 3.0"
    assert 5_000 <= found.n <= 5_100 and found.tight
    assert found.epsilon == 4.0  # doubling from 1: the first ε that holds, at most 2× the least
    assert found.remedy() == ("its preconditions hold from about n = " + f"{found.n:,}" +
                              " rows at this ε, or by ε = 4 at this n (whether runs then "
                              "succeed was not simulated)")


def test_without_an_epsilon_search_only_n_is_said():
    found = blocked(toy(), n=1_000, epsilon=1.0, reach=1.0)
    assert found.epsilon is None
    assert found.remedy().endswith("rows at this ε (whether runs then succeed was not simulated)")


def test_nothing_up_to_the_limits_is_said_plainly():
    found = blocked(toy(rows=10**9, epsilon=10**6), n=1_000, epsilon=1.0)
    assert found.n is None and found.epsilon is None
    assert found.remedy() == ("neither more rows (up to 1,000,000) nor ε up to 4 alone is "
                              "enough")


def test_a_slow_precondition_gets_a_looser_answer_that_says_so(clock):
    found = blocked(toy(pause=0.05, clock=clock), n=1_000, epsilon=1.0, reach=1.0,
                    seconds=0.12)
    assert found.n is not None and found.n >= 5_000 and not found.tight
    assert found.remedy().startswith("its preconditions hold by n = ")
    gone = blocked(toy(rows=10**9, pause=0.05, clock=clock), n=1_000, epsilon=1.0, reach=1.0,
                   seconds=0.01)
    assert gone.remedy().endswith("alone is enough (searched no further)")


def test_sizes_the_entrys_calculator_refuses_are_its_reason():
    def can_run(*, n, epsilon=None, **_):
        if epsilon is not None and epsilon > 100:
            raise ValueError(f"epsilon must be <= 100, got {epsilon:g}")
        return None if n >= 5_000 else "needs n >= 5000"

    entry = Estimator(task="gmm", name="toy", function=lambda *a, **k: None, label="Toy",
                      paper="", notion="approximate", outputs=(), can_run=can_run)
    assert entry.cannot_run(n=10_000, epsilon=200.0, seed=3) == "epsilon must be <= 100, got 200"
    found = blocked(entry, n=1_000, epsilon=80.0)  # the ε search meets the refusal: no ε
    assert found.n is not None and 5_000 <= found.n and found.epsilon is None
