"""Accuracy first: the smallest ε (or n) that meets a stated accuracy (issue 9, part 1).

A user states what they need — "matched mean error ≤ 0.1 with probability 0.9", "≥ 95% of
the vertices right" — and :func:`solve_epsilon` finds the smallest privacy budget whose
simulated runs meet it that often; :func:`solve_n` finds the smallest number of rows (or
vertices) at a given budget.

How. The share of runs meeting the target is estimated from ``runs`` simulated runs of the
scenario: each draws fresh data from the scenario's generator (public parameters, never the
user's rows) and fresh noise. The runs' data and noise seeds are fixed once per call and
reused at every budget (common random numbers), so the share is monotone in practice. First
the share without privacy (ε = ∞) is measured: no budget beats it, and the answer is stated
beside it. The question asked is never changed: a probability beyond that share gets no
answer, with the reason and, kept apart, the answer at the highest probability within reach
(:func:`beyond_ceiling`, :attr:`Solution.lower`). Then a bisection over the numbers with two
significant digits (:func:`search_grid`, the points 1 and 3 times a power of ten first) finds
where the share crosses the probability; the answer is a point tried, printed as found. A
run's result at one budget is reused at the others where it decides them (met at ε: met above
it; missed: missed below), so each run is simulated at a few budgets, not at every point.
Where the error's distribution is known in closed form — the private mean
(:mod:`dpviz.estimators.mean`): its error is the norm of the noise, Gaussian (``σ·χ_d``) or
one-dimensional Laplace (``b·Exp(1)``) — the share is exact and no run is simulated
(:func:`mean_error_share`).

The page's panel and ``python -m dpviz solve`` ask one :class:`Question` (:func:`ask`): the
same scenario, defaults and seeds, and :meth:`Question.command` writes the command line that
asks it again.

A ⊥ run (``Result.failed``) and a NaN metric count as runs that miss the target.
"""

from __future__ import annotations

import functools
import inspect
import math
import shlex
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from dpviz.core import limits
from dpviz.estimators.metrics import LABELS, METRICS, metric_label
from dpviz.estimators.work import check_scenario
from dpviz.lab.scenario import (
    BUDGET_PARAMS,
    USER_KINDS,
    LoadedData,
    Scenario,
    check_metrics,
    load_data,
    preparation,
    run_scenario,
    score,
)
from dpviz.privacy import Budget

Direction = Literal["at_most", "at_least"]
Progress = Callable[[int, int], None]

#: Whether a metric is an error (met when ≤ the target) or a score (met when ≥ it), from its
#: label's ``higher_is_better`` (:data:`dpviz.estimators.metrics.LABELS`).
DIRECTIONS: Mapping[str, Direction] = MappingProxyType({
    name: "at_least" if label.higher_is_better else "at_most"
    for labels in LABELS.values() for name, label in labels.items()})
#: The symbol of each parameter searched.
SYMBOLS = MappingProxyType({"epsilon": "ε", "rho": "ρ", "n": "n"})
#: Relative precision of a search for n: it stops when the bracket's ends are within 5%.
RTOL = 0.05
#: Points of a closed form's curve (a log grid over the search range, plus the answer).
CLOSED_FORM_POINTS = 25
#: The default search range of ε (the pages' slider range) and of ρ (the covariance page's).
EPSILON_RANGE = (limits.EPSILON_UI.low, limits.EPSILON_UI.high)
RHO_RANGE = (1e-4, 10.0)
#: Simulated runs per point by default (the page's runs box and ``solve --runs``). Kept at 20:
#: the answer is a quantile of each run's ε needed, measured on these runs, so fresh seeds
#: move it. Measured on the mixtures page's default question (DP-EM, n = 10 000,
#: error of the means ≤ 0.1), five fresh seeds each: at 80%, ε from 0.36 to 0.83 with 20
#: runs (about 1 s a solve), 0.35 to 0.92 with 50 (2 to 3 s), 0.38 to 0.49 with 100 (4 to
#: 7 s); at 90%, with 20 runs three of five got no answer (the non-private share measured at
#: 85 or 90%: :func:`beyond_ceiling`), with 100 runs all five did (0.52 to 0.90). Five times
#: the runs would cost the network page's default (weak recovery, n = 1 000) five minutes
#: instead of one, so 20 stays the default and a user who needs a firmer answer raises it.
RUNS = 20
#: The probability asked by default (the page's slider and ``solve --probability``).
PROBABILITY_DEFAULT = 0.9
#: Salt of the simulation's seed sequence (keeps its streams apart from a page's noise seeds).
_SOLVE_SALT = 0x501E
PROBABILITY = limits.Limit("probability", 0.0, 1.0, low_open=True)
RUNS_LIMIT = limits.Limit("runs", 1, 1000)


@dataclass(frozen=True)
class Target:
    """An accuracy target: ``metric ≤ value`` for an error, ``≥ value`` for a score.

    Examples
    --------
    >>> t = make_target("sbm", "overlap", 0.9)
    >>> t.describe(), t.met([0.95, 0.5, float("nan")]).tolist()
    ('overlap with the true communities ≥ 0.9', [True, False, False])
    """

    task: str
    metric: str
    value: float

    @property
    def direction(self) -> Direction:
        """``"at_most"`` for an error, ``"at_least"`` for a score."""
        return DIRECTIONS[self.metric]

    def met(self, values: ArrayLike) -> NDArray[np.bool_]:
        """Which metric values meet the target (NaN never does)."""
        v = np.asarray(values, dtype=float)
        with np.errstate(invalid="ignore"):
            ok = v <= self.value if self.direction == "at_most" else v >= self.value
        return np.asarray(ok & np.isfinite(v))

    def describe(self) -> str:
        """The target in words, e.g. ``'error of the means ≤ 0.1'`` (the metric's label)."""
        title = metric_label(self.task, self.metric).title
        return f"{title} {'≤' if self.direction == 'at_most' else '≥'} {self.value:g}"


def make_target(task: str, metric: str, value: float | str) -> Target:
    """Check a target against the task's metrics; a ``ValueError`` says what is wrong.

    Examples
    --------
    >>> make_target("gmm", "mean_error", "0.1")
    Target(task='gmm', metric='mean_error', value=0.1)
    >>> make_target("gmm", "overlap", 0.9)
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'overlap' for the gmm task; its metrics are: mean_error, \
weight_error, covariance_error, test_log_likelihood, nicv, adjusted_rand
    """
    if task not in METRICS:
        raise ValueError(f"the task {task!r} has no metrics to solve for; the tasks with "
                         f"metrics are: {', '.join(METRICS)}")
    check_metrics(task, [metric])
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"the target value of {metric} must be a number, got {value!r}"
                         ) from None
    if not math.isfinite(number):
        raise ValueError(f"the target value of {metric} must be a finite number, got {value!r}")
    return Target(task, metric, number)


def parse_target(task: str, text: str) -> Target:
    """A target written ``METRIC=VALUE`` (the command line's ``--target``).

    Examples
    --------
    >>> parse_target("covariance", "frobenius_error=0.05").describe()
    'error of the matrix ≤ 0.05'
    """
    metric, sep, value = text.partition("=")
    if not sep or not metric.strip() or not value.strip():
        raise ValueError(f"a target is METRIC=VALUE (e.g. mean_error=0.1), got {text!r}")
    return make_target(task, metric.strip(), value.strip())


# --- the bisection ------------------------------------------------------------------------

@dataclass(frozen=True)
class Search:
    """What :func:`bisect_smallest` found: the answer (or ``None``) and every point tried."""

    answer: float | None
    searched: tuple[tuple[float, float], ...]


def bisect_smallest(share: Callable[[float], float], low: float, high: float,
                    probability: float, *, rtol: float = RTOL,
                    integer: bool = False) -> Search:
    """The smallest x in [low, high] with ``share(x) ≥ probability``, by bisection on log x.

    ``share`` is assumed non-decreasing. ``high`` is tried first (``None`` if even it fails),
    then ``low`` (the answer if it already succeeds); then the bracket is halved at its
    geometric mid-point until its ends are within a factor ``1 + rtol`` (or, with
    ``integer``, adjacent integers). The answer is the bracket's upper end: a point that was
    tried and met the probability.

    Parameters
    ----------
    share : callable
        x ↦ the share of runs meeting the target at x.
    low, high : float
        The search range, ``0 < low < high``.
    probability : float
        The share to reach.
    rtol : float
        Relative width at which to stop.
    integer : bool
        Search integers (the number of rows).

    Returns
    -------
    Search
        The answer and the points tried, sorted by x.

    Examples
    --------
    >>> s = bisect_smallest(lambda x: float(x >= 3.0), 0.1, 100.0, 0.9, rtol=0.01)
    >>> 3.0 <= s.answer <= 3.03, s.searched[0], s.searched[-1]
    (True, (0.1, 0.0), (100.0, 1.0))
    >>> bisect_smallest(lambda n: float(n >= 1234), 10, 10_000, 0.5, rtol=0,
    ...                 integer=True).answer
    1234.0
    >>> bisect_smallest(lambda x: 0.5, 1.0, 10.0, 0.9).answer is None
    True
    """
    _check_range(low, high)
    tried: dict[float, float] = {}

    def at(x: float) -> float:
        if x not in tried:
            tried[x] = float(share(x))
        return tried[x]

    def done() -> Search:
        return Search(answer, tuple(sorted(tried.items())))

    answer: float | None = None
    if at(high) < probability:
        return done()
    answer = high
    if at(low) >= probability:
        answer = low
        return done()
    lo, hi = low, high
    while hi > lo * (1 + rtol) and (not integer or hi - lo > 1):
        mid = math.sqrt(lo * hi)
        if integer:
            mid = float(min(max(round(mid), lo + 1), hi - 1))
        if at(mid) >= probability:
            hi = mid
        else:
            lo = mid
    answer = hi
    return done()


def _check_range(low: float, high: float) -> None:
    if not 0 < low < high:
        raise ValueError(f"the search range must have 0 < low < high, got low = {low:g}, "
                         f"high = {high:g}")


def steps_needed(low: float, high: float, rtol: float = RTOL, integer: bool = False) -> int:
    """At most how many points :func:`bisect_smallest` tries (for a progress bar).

    Examples
    --------
    >>> steps_needed(0.01, 20.0)
    10
    """
    halvings = math.ceil(math.log2(max(math.log(high / low) / math.log1p(rtol), 1.0)))
    if integer:
        halvings = min(halvings, math.ceil(math.log2(max(high - low, 2.0))))
    return 2 + halvings


def two_digit_grid(low: float, high: float) -> tuple[float, ...]:
    """Every number with two significant digits in ``[low, high]``, and the two ends.

    The budget search's points: its answer is printed with two significant digits and is
    a point that was tried.

    Examples
    --------
    >>> two_digit_grid(0.95, 1.3)
    (0.95, 0.96, 0.97, 0.98, 0.99, 1.0, 1.1, 1.2, 1.3)
    """
    _check_range(low, high)
    out = {float(low), float(high)}
    for exponent in range(math.floor(math.log10(low)) - 1, math.floor(math.log10(high)) + 1):
        out.update(v for k in range(10, 100) if low <= (v := float(f"{k}e{exponent}")) <= high)
    return tuple(sorted(out))


def _coarse(x: float) -> bool:
    """1, 3 or 10 times a power of ten: the grid's coarse points, tried first."""
    mantissa = float(f"{x:.1e}".split("e")[0])
    return mantissa in (1.0, 3.0)


def search_grid(share: Callable[[float], float], grid: tuple[float, ...],
                probability: float) -> Search:
    """The smallest point of a sorted ``grid`` with ``share(x) ≥ probability``.

    ``share`` is assumed non-decreasing and to meet the probability beyond the grid (the
    non-private end). Bisection on the grid's index, coarse points first: while the bracket
    holds a point that is 1 or 3 times a power of ten, the middle one of those is tried, then
    the grid's middle. Neither end is tried unless the bisection reaches it; ``None`` when
    the last point fails.

    Examples
    --------
    >>> s = search_grid(lambda x: float(x >= 2.5), two_digit_grid(0.01, 20.0), 0.9)
    >>> s.answer, [x for x, _ in s.searched]
    (2.5, [0.3, 1.0, 2.0, 2.2, 2.3, 2.4, 2.5, 3.0])
    """
    tried: dict[float, float] = {}

    def at(i: int) -> float:
        if grid[i] not in tried:
            tried[grid[i]] = float(share(grid[i]))
        return tried[grid[i]]

    lo, hi = -1, len(grid)  # below the grid fails, beyond it meets (assumed, not tried)
    while hi - lo > 1:
        inside = [i for i in range(lo + 1, hi) if _coarse(grid[i])]
        mid = inside[len(inside) // 2] if inside else (lo + hi) // 2
        if at(mid) >= probability:
            hi = mid
        else:
            lo = mid
    answer = grid[hi] if hi < len(grid) else None
    return Search(answer, tuple(sorted(tried.items())))


# --- the answer ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Solution:
    """The smallest budget (or n) meeting a target with the probability asked.

    Attributes
    ----------
    parameter : {"epsilon", "rho", "n"}
        What was searched.
    value : float or None
        The answer: the smallest point tried whose share met the probability (every larger
        point tried met it too); ``None`` when even ``high`` does not, or when the probability
        is beyond what the runs reach without privacy (:func:`beyond_ceiling`).
    target : Target
    probability : float
        The probability asked for, never changed.
    runs : int
        Simulated runs per point (0 for a closed form: the share is exact).
    searched : tuple of (x, share)
        Every point tried, by x: the curve to draw.
    method : {"simulation", "closed form"}
    low, high : float
        The search range.
    epsilon : float or None
        The answer as ε: the answer itself for ``"epsilon"``; for ``"rho"`` the ε it implies
        at the scenario's δ (Bun & Steinke), ``None`` without δ; for ``"n"`` the fixed ε.
    reason : str or None
        Why there is no answer.
    notes : tuple of str
        What the reader should know (⊥ runs, a bundled data set, a run that is not private).
    ceiling : float or None
        The share meeting the target without privacy (ε = ∞): what no budget beats.
    lower : Solution or None
        When the probability asked is beyond ``ceiling``: the search at the highest
        probability within reach, on the same runs. Not the question asked: a page shows it
        as a warning (:meth:`alternative`).
    """

    parameter: str
    value: float | None
    target: Target
    probability: float
    runs: int
    searched: tuple[tuple[float, float], ...]
    method: str
    low: float
    high: float
    epsilon: float | None = None
    reason: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    ceiling: float | None = None
    lower: Solution | None = None

    @property
    def reachable(self) -> bool:
        """Whether the target is met within the search range."""
        return self.value is not None

    def share_at(self, x: float) -> float:
        """The share measured at a point tried."""
        return dict(self.searched)[x]

    def sentence(self) -> str:
        """The answer in words, two significant digits, beside the non-private share.

        Examples
        --------
        >>> sol = Solution("epsilon", 2.6, make_target("gmm", "mean_error", 0.1), 0.8, 20,
        ...                ((2.6, 0.8),), "simulation", 0.01, 20.0, ceiling=0.9)
        >>> print(sol.sentence())
        ε = 2.6 gives error of the means ≤ 0.1 in 80% of runs or more (20 simulated runs per \
point; without privacy 90% of runs do).
        """
        if self.value is None:
            reason = self.reason or "not reachable"
            return f"{reason[0].upper()}{reason[1:]}."
        how = (f"in {self.probability:.0%} of runs or more ({self.runs} simulated runs per "
               "point" if self.method == "simulation" else
               f"with probability {self.probability:.0%} or more (closed form")
        if self.ceiling is not None:
            how += f"; without privacy {self.ceiling:.0%} of runs do"
        shown = (f"{self.value:,.0f}" if self.parameter == "n" or self.value >= 100 else
                 f"{self.value:.2g}")
        return f"{SYMBOLS[self.parameter]} = {shown} gives {self.target.describe()} {how})."

    def alternative(self) -> str | None:
        """The answer at the highest probability within reach, apart from the one asked.

        ``None`` unless the probability asked is beyond reach (:attr:`lower`).

        Examples
        --------
        >>> goal = make_target("gmm", "mean_error", 0.1)
        >>> lower = Solution("epsilon", 2.0, goal, 0.85, 20, ((2.0, 0.85),), "simulation",
        ...                  0.01, 20.0, ceiling=0.9)
        >>> print(Solution("epsilon", None, goal, 0.9, 20, (), "simulation", 0.01, 20.0,
        ...                ceiling=0.9, lower=lower).alternative())
        Not the question asked — at the lower probability of 85%, ε = 2 gives error of the \
means ≤ 0.1 in 85% of runs or more (20 simulated runs per point; without privacy 90% of runs \
do).
        """
        if self.lower is None:
            return None
        said = self.lower.sentence()
        return (f"Not the question asked — at the lower probability of "
                f"{self.lower.probability:.0%}, {said[0].lower()}{said[1:]}")

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``python -m dpviz solve``: ``{"epsilon", "searched", …}``.

        ``probability`` and ``requested_probability`` are both the probability asked;
        ``at_lower_probability`` is :attr:`lower`'s JSON (or ``null``).
        """
        out: dict[str, Any] = {"epsilon": self.epsilon}
        if self.parameter != "epsilon":
            out[self.parameter] = self.value
        out.update({
            "searched": [[x, share] for x, share in self.searched],
            "parameter": self.parameter, "reachable": self.reachable,
            "target": {"metric": self.target.metric, "value": self.target.value,
                       "direction": self.target.direction},
            "probability": self.probability, "runs": self.runs, "method": self.method,
            "low": self.low, "high": self.high, "reason": self.reason,
            "notes": list(self.notes), "ceiling": self.ceiling,
            "requested_probability": self.probability,
            "at_lower_probability": None if self.lower is None else self.lower.to_dict()})
        return out


# --- simulated runs -----------------------------------------------------------------------

def simulation_seeds(scenario: Scenario, runs: int) -> tuple[tuple[int, int], ...]:
    """Each simulated run's (data seed, noise seed), the same at every point of a search.

    Derived from the scenario's data seed and noise seed (a ``SeedSequence``), so other
    seeds give fresh data and fresh noise; a noise seed ``None`` draws from OS entropy.

    Examples
    --------
    >>> s = Scenario("mean", "laplace", {"generator": "zipf", "seed": 1}, {"epsilon": 1.0},
    ...              seed=0)
    >>> a = simulation_seeds(s, 3)
    >>> len(a), a == simulation_seeds(s, 3), a == simulation_seeds(replace(s, seed=1), 3)
    (3, True, False)
    """
    if scenario.seed is None:
        sequence = np.random.SeedSequence()
    else:
        sequence = np.random.SeedSequence(
            [_SOLVE_SALT, int(scenario.data.get("seed", 0) or 0), int(scenario.seed)])
    state = sequence.generate_state(2 * runs, dtype=np.uint32)
    return tuple((int(state[2 * i]), int(state[2 * i + 1])) for i in range(runs))


def synthetic_twin(scenario: Scenario) -> None:
    """Refuse a scenario whose data are a user's file: simulations need a generator.

    Raises
    ------
    ValueError
        For a CSV or an edge list.
    """
    if any(kind in scenario.data for kind in USER_KINDS):
        what = "edge list" if scenario.task == "sbm" else "CSV file"
        generator = "the sbm generator" if scenario.task == "sbm" else "a generator"
        raise ValueError(
            f"solve needs a synthetic twin: simulating runs on your {what} would use the "
            f"private data themselves; describe data like yours with {generator} (public "
            "parameters such as n, d and k) and solve on that")


class _Simulator:
    """Runs the scenario at a point over the fixed seeds and scores it (one search's state).

    With ``monotone`` (a budget search), each run remembers the smallest budget at which it
    met the target and the largest at which it missed: at a larger budget it is counted as
    meeting it, at a smaller one as missing it, without running again (common random
    numbers make each run's error fall with the budget in practice; not a theorem).
    """

    def __init__(self, scenario: Scenario, target: Target, runs: int,
                 progress: Progress | None, total_points: int, *, reuse_data: bool,
                 monotone: bool = False) -> None:
        synthetic_twin(scenario)
        check_scenario(scenario.task, scenario.estimator, scenario.data, scenario.params)
        self.scenario, self.target = scenario, target
        self.seeds = simulation_seeds(scenario, runs)
        self.generated = "generator" in scenario.data
        self.progress, self.total = progress, total_points * runs
        self.done = 0
        self.reuse_data = reuse_data
        self.loaded: dict[int, LoadedData] = {}
        self.failed = 0
        self.not_private: str | None = None
        self.monotone = monotone
        # the smallest budget each run met the target at, the largest it missed it at (NaN:
        # none yet, and every comparison with NaN is false)
        self.met_from = np.full(runs, np.nan)
        self.missed_to = np.full(runs, np.nan)
        self.inferred = 0

    def _data(self, i: int, scenario: Scenario) -> LoadedData:
        if i in self.loaded:
            return self.loaded[i]
        block = dict(scenario.data)
        if self.generated:
            block["seed"] = self.seeds[i][0]
        loaded = _prepared(scenario, load_data(block))
        if self.reuse_data:
            self.loaded[i] = loaded
        return loaded

    def _value(self, i: int, scenario: Scenario) -> float:
        loaded = self._data(i, scenario)
        run = replace(scenario, seed=self.seeds[i][1])
        with warnings.catch_warnings():  # a not-private run is noted once, below
            warnings.simplefilter("ignore")
            result = run_scenario(run, loaded)
        self.failed += result.failed is not None
        self.not_private = self.not_private or result.not_private
        self.done += 1
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)
        return float(score(run, result, loaded.truth, [self.target.metric])[self.target.metric])

    def met(self, scenario: Scenario, budget: float | None = None) -> NDArray[np.bool_]:
        """Which runs meet the target (``budget``: the point searched, for the inference)."""
        out = np.zeros(len(self.seeds), dtype=bool)
        for i in range(len(self.seeds)):
            if self.monotone and budget is not None and (
                    budget >= self.met_from[i] or budget <= self.missed_to[i]):
                out[i] = budget >= self.met_from[i]
                self.inferred += 1
                continue
            out[i] = bool(self.target.met([self._value(i, scenario)])[0])
            if budget is not None and out[i]:
                self.met_from[i] = np.fmin(self.met_from[i], budget)
            elif budget is not None:
                self.missed_to[i] = np.fmax(self.missed_to[i], budget)
        return out

    def share(self, scenario: Scenario, budget: float | None = None) -> float:
        return float(self.met(scenario, budget).mean())

    def notes(self) -> tuple[str, ...]:
        out = []
        if not self.generated:
            out.append("the data are a bundled public set: the runs vary the noise only")
        if self.failed:
            out.append(f"{self.failed} of {self.done} simulated runs gave no answer (⊥) and "
                       "count as missing the target")
        if self.not_private:
            out.append(f"the runs are not private: {self.not_private}")
        if self.inferred:
            out.append(f"{self.done} runs were simulated; {self.inferred} more results were "
                       "read from the same run at another budget (a run that met the target "
                       "meets it at a larger budget, one that missed it misses it at a "
                       "smaller one)")
        return tuple(out)


def simulated_share(scenario: Scenario, *, metric: str, target: float,
                    runs: int = RUNS) -> float:
    """The share of ``runs`` simulated runs of the scenario, at its own budget, meeting a target.

    The runs' seeds come from the scenario's (:func:`simulation_seeds`): other seeds give a
    fresh check of an answer. A ⊥ run counts as missing the target.

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "mean", "estimator": "laplace",
    ...     "data": {"generator": "gmm", "n": 1000, "d": 2, "k": 1}, "params": {"epsilon": 5},
    ...     "seed": 0})
    >>> simulated_share(s, metric="mean_error", target=0.01, runs=10)
    1.0
    """
    goal = make_target(scenario.task, metric, target)
    runs = limits.check_integer(RUNS_LIMIT, runs)
    return _Simulator(scenario, goal, runs, None, 1, reuse_data=False).share(scenario)


def _prepared(scenario: Scenario, loaded: LoadedData) -> LoadedData:
    """The data as the estimator takes them prepared, once per data set.

    Its entry's ``prepare`` hook: a graph's certified projection, covariance rows clipped with
    ``XᵀX`` formed.
    """
    from dpviz.estimators.registry import estimator as lookup

    values = preparation(scenario, loaded)
    if values is None:
        return loaded
    return replace(loaded, data=lookup(scenario.task, scenario.estimator).prepared(
        loaded.data, values))


def _check(scenario: Scenario, probability: float, runs: int) -> tuple[float, int]:
    from dpviz.estimators.registry import estimator as lookup

    if lookup(scenario.task, scenario.estimator).notion == "none":
        raise ValueError(f"{scenario.estimator} is not private: its accuracy does not depend "
                         "on the privacy budget, so there is nothing to solve for")
    return (PROBABILITY.check(probability), limits.check_integer(RUNS_LIMIT, runs))


def _budget_parameter(scenario: Scenario) -> str:
    return "rho" if scenario.params.get("rho") is not None else "epsilon"


def _at_budget(scenario: Scenario, parameter: str, value: float) -> Scenario:
    params = {**scenario.params, "epsilon": None, "rho": None, parameter: value}
    return replace(scenario, params=MappingProxyType(params))


def _as_epsilon(scenario: Scenario, parameter: str, value: float | None) -> float | None:
    if value is None or parameter == "epsilon":
        return value
    epsilon = Budget(rho=value).epsilon_at(float(scenario.params.get("delta") or 0.0))
    return epsilon if math.isfinite(epsilon) else None


def _unreachable(parameter: str, high: float, share: float, target: Target,
                 probability: float) -> str:
    return (f"not reachable even at {SYMBOLS[parameter]} = {high:g}: {share:.0%} of runs meet "
            f"{target.describe()}, {probability:.0%} needed")


# --- closed form: the private mean --------------------------------------------------------

def mean_error_share(scale: float, d: int, mechanism: str, target: float) -> float | None:
    """``P(‖noise‖₂ ≤ target)`` for the private mean's noise, or ``None`` without a closed form.

    The mean's error against the clipped data's mean is the norm of its noise (Dwork & Roth
    2014, §3.3 and App. A): d independent ``N(0, σ²)`` have ``‖·‖₂ = σ·χ_d``, so the share
    is ``F_{χ²_d}((t/σ)²)``; one ``Laplace(b)`` has ``|·| ~ Exp(1/b)``, share
    ``1 − e^{−t/b}``. The norm of d > 1 Laplace draws has no closed form (``None``).

    Examples
    --------
    >>> round(mean_error_share(1.0, 1, "laplace", math.log(10)), 6)
    0.9
    >>> round(mean_error_share(2.0, 1, "gaussian", 2 * 1.6448536), 4)
    0.9
    >>> mean_error_share(1.0, 3, "laplace", 1.0) is None
    True
    """
    if target <= 0:
        return 0.0
    if scale == 0:  # no noise (ε = ∞): the clipped data's own mean
        return 1.0
    if mechanism == "gaussian":
        return float(stats.chi2.cdf((target / scale) ** 2, d))
    if mechanism == "laplace" and d == 1:
        return float(-math.expm1(-target / scale))
    return None


def _closed_form(scenario: Scenario, target: Target) -> Callable[[Scenario], float] | None:
    """The exact share at a budget, when the scenario is a private mean with a closed form."""
    if scenario.task != "mean" or target.metric != "mean_error":
        return None
    loaded = load_data(scenario.data)
    d = int(np.asarray(loaded.data).shape[1])
    if mean_error_share(1.0, d, scenario.estimator, 1.0) is None:
        return None

    def share(at: Scenario) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scale = float(run_scenario(at, loaded).diagnostics["noise_scale"])
        value = mean_error_share(scale, d, at.estimator, target.value)
        assert value is not None
        return value

    return share


# --- the searches -------------------------------------------------------------------------

def solve_epsilon(scenario: Scenario, *, metric: str, target: float,
                  probability: float = PROBABILITY_DEFAULT, runs: int = RUNS,
                  low: float | None = None, high: float | None = None,
                  progress: Progress | None = None) -> Solution:
    """The smallest privacy budget whose runs meet ``metric``'s target with ``probability``.

    The budget searched is the one the scenario states: ε, or ρ when its ``params`` give
    ``rho`` (the covariance page's budget). Everything else — data generator, δ,
    accounting, the estimator's parameters — is the scenario's. The probability asked is
    kept: beyond what the runs reach without privacy (:func:`beyond_ceiling`) there is no
    answer, and the answer at the highest probability within reach is kept apart
    (:attr:`Solution.lower`).

    Parameters
    ----------
    scenario : Scenario
        With a generator (or a bundled data set) as its data: a CSV or an edge list is
        refused (``solve needs a synthetic twin``).
    metric : str
        One of the task's metrics (``python -m dpviz list``); errors are met when ≤
        ``target``, scores (overlap, adjusted Rand, test log-likelihood) when ≥ it.
    target : float
        The accuracy needed.
    probability : float
        The share of runs that must meet it, in (0, 1].
    runs : int
        Simulated runs per point, each with its own data and noise seeds (common to every
        point). Ignored where a closed form gives the share exactly (the private mean).
    low, high : float, optional
        The search range (default the pages' ε slider, 0.01 … 20; ρ 1e-4 … 10).
    progress : callable, optional
        Called as ``progress(done, total)`` after each simulated run; ``total`` is
        :func:`most_runs` of the same range.

    Returns
    -------
    Solution
        ``value`` is ``None`` when the target is not met even at ``high``, or when the
        probability is beyond reach (``reason`` says why).

    Raises
    ------
    ValueError
        A bad metric, target, probability, run count or range; a CSV or edge-list scenario;
        a non-private estimator.

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "mean", "estimator": "gaussian",
    ...     "data": {"generator": "gmm", "n": 1000, "d": 2, "k": 1},
    ...     "params": {"epsilon": 1.0, "delta": 1e-5}})
    >>> sol = solve_epsilon(s, metric="mean_error", target=0.05)
    >>> sol.method, round(sol.value, 2)
    ('closed form', 0.32)
    """
    goal = make_target(scenario.task, metric, target)
    probability, runs = _check(scenario, probability, runs)
    parameter, lo, hi = _search_range(scenario, low, high)
    grid = two_digit_grid(lo, hi)
    exact = _closed_form(scenario, goal) if "generator" in scenario.data or (
        "dataset" in scenario.data) else None
    if exact is not None:
        closed = exact

        def share(x: float) -> float:
            return closed(_at_budget(scenario, parameter, x))

        ceiling = closed(scenario.without_noise())
        if beyond_ceiling(probability, ceiling, 0):
            return _solution(scenario, parameter, None, goal, probability, 0, (), "closed form",
                             lo, hi, (), ceiling=ceiling,
                             reason=_beyond(parameter, goal, probability, ceiling, 0))
        search = search_grid(share, grid, probability)
        # every point is exact: draw a log grid and the answer, not the bisection's cluster
        curve = {float(x): share(float(x)) for x in np.geomspace(lo, hi, CLOSED_FORM_POINTS)}
        curve.update(search.searched if search.answer is None else
                     [(search.answer, dict(search.searched)[search.answer])])
        return _solution(scenario, parameter, search.answer, goal, probability, 0,
                         tuple(sorted(curve.items())), "closed form", lo, hi, (),
                         ceiling=ceiling)
    simulator = _Simulator(scenario, goal, runs, progress, grid_steps(grid), reuse_data=True,
                           monotone=True)

    def simulated(x: float) -> float:
        return simulator.share(_at_budget(scenario, parameter, x), x)

    ceiling = simulator.share(scenario.without_noise(), math.inf)
    if beyond_ceiling(probability, ceiling, runs):
        lower = None
        within = highest_within_reach(ceiling, runs)
        if within is not None:  # the same runs, most of them already decided: cheap
            found = search_grid(simulated, grid, within)
            lower = _solution(scenario, parameter, found.answer, goal, within, runs,
                              found.searched, "simulation", lo, hi, (), ceiling=ceiling)
        return _solution(scenario, parameter, None, goal, probability, runs, (), "simulation",
                         lo, hi, simulator.notes(), ceiling=ceiling, lower=lower,
                         reason=_beyond(parameter, goal, probability, ceiling, runs, within))
    search = search_grid(simulated, grid, probability)
    return _solution(scenario, parameter, search.answer, goal, probability, runs,
                     search.searched, "simulation", lo, hi, simulator.notes(), ceiling=ceiling)


def _search_range(scenario: Scenario, low: float | None,
                  high: float | None) -> tuple[str, float, float]:
    """The budget searched (``"epsilon"`` or ``"rho"``) and its range, checked."""
    parameter = _budget_parameter(scenario)
    default = RHO_RANGE if parameter == "rho" else EPSILON_RANGE
    lo = float(default[0] if low is None else low)
    hi = float(default[1] if high is None else high)
    if parameter == "epsilon":
        lo, hi = limits.check_epsilon(lo), limits.check_epsilon(hi)
    _check_range(lo, hi)
    return parameter, lo, hi


@functools.lru_cache(maxsize=16)
def grid_steps(grid: tuple[float, ...]) -> int:
    """At most how many points :func:`search_grid` tries on ``grid``, and the non-private end.

    Counted, not bounded: the search is run on the grid against every possible crossing.

    Examples
    --------
    >>> grid_steps(two_digit_grid(0.01, 20.0)), grid_steps(two_digit_grid(1e-4, 10.0))
    (11, 12)
    """
    def crossing(edge: float) -> Callable[[float], float]:
        return lambda x: float(x >= edge)

    return 1 + max(len(search_grid(crossing(edge), grid, 0.5).searched)
                   for edge in (*grid, math.inf))


def most_runs(scenario: Scenario, runs: int = RUNS, low: float | None = None,
              high: float | None = None) -> int:
    """At most how many runs :func:`solve_epsilon` simulates: its progress bar's total.

    Examples
    --------
    >>> most_runs(Scenario("gmm", "dp_em", {"generator": "gmm"}, {"epsilon": 1.0}))
    220
    """
    _, lo, hi = _search_range(scenario, low, high)
    return grid_steps(two_digit_grid(lo, hi)) * runs


def runs_needed(probability: float, runs: int) -> int:
    """How many of ``runs`` runs must meet the target for a share of ``probability``.

    Examples
    --------
    >>> runs_needed(0.9, 20), runs_needed(0.89, 20), runs_needed(0.91, 20)
    (18, 18, 19)
    """
    return math.ceil(round(probability * runs, 9))


def beyond_ceiling(probability: float, ceiling: float, runs: int) -> bool:
    """Whether no budget can be said to reach ``probability``, given the non-private share.

    No budget beats the runs without privacy: a run that misses the target at ε = ∞ is
    counted as missing it at every ε. With an exact share (``runs`` = 0, a closed form) a
    probability above ``ceiling`` is out of reach. With simulated runs it is decided in
    whole runs: out of reach when the probability needs more runs than meet the target
    without privacy, or exactly as many while some run misses it even then. In that tie the
    answer would rest on the hardest run that meets the target without privacy, and the
    measured ceiling is itself uncertain by about ``√(c(1 − c)/runs)`` (±7 points at 90% of
    20 runs): the true non-private share is as likely below the probability as above it. A
    tie with every run meeting the target without privacy is searched: nothing shows the
    estimator falling short.

    Examples
    --------
    >>> beyond_ceiling(0.9, 0.9, 20), beyond_ceiling(0.89, 0.9, 20), beyond_ceiling(0.85, 0.9, 20)
    (True, True, False)
    >>> beyond_ceiling(0.99, 1.0, 20), beyond_ceiling(0.9, 0.9, 0)
    (False, False)
    """
    if runs == 0:
        return probability > ceiling
    met, needed = round(ceiling * runs), runs_needed(probability, runs)
    return needed > met or (needed == met < runs)


def highest_within_reach(ceiling: float, runs: int) -> float | None:
    """The highest probability a search on ``runs`` runs can answer (``None``: none).

    One run fewer than meet the target without privacy.

    Examples
    --------
    >>> highest_within_reach(0.9, 20), highest_within_reach(0.05, 20)
    (0.85, None)
    """
    met = round(ceiling * runs)
    return (met - 1) / runs if met > 1 else None


def _beyond(parameter: str, goal: Target, probability: float, ceiling: float, runs: int,
            within: float | None = None) -> str:
    """Why ``probability`` is beyond reach (:func:`beyond_ceiling`), and what would do."""
    symbol = SYMBOLS[parameter]
    if runs == 0:
        return (f"even without privacy only {ceiling:.0%} of runs meet {goal.describe()}: no "
                f"{symbol} reaches {probability:.0%}; a looser target would")
    met = round(ceiling * runs)
    tie = runs_needed(probability, runs) == met
    said = (f"even without privacy only {ceiling:.0%} of runs ({met} of {runs}) meet "
            f"{goal.describe()}")
    if tie:
        margin = math.sqrt(ceiling * (1 - ceiling) / runs)
        said += (f", and {probability:.0%} needs every one of them: the answer would rest on "
                 f"the hardest of those runs, and a share measured on {runs} runs is uncertain "
                 f"by about ±{100 * margin:.0f} percentage points, so no {symbol} can be said "
                 f"to reach {probability:.0%}")
    else:
        said += f"; no {symbol} reaches {probability:.0%}"
    ways = ["a looser target"]
    if within is not None:
        ways.append(f"a probability of at most {within:.0%}")
    if tie:
        ways.append("more simulated runs")
    return f"{said}; ask for {', '.join(ways[:-1])}{' or ' if len(ways) > 1 else ''}{ways[-1]}"


def _solution(scenario: Scenario, parameter: str, answer: float | None, goal: Target,
              probability: float, runs: int, searched: tuple[tuple[float, float], ...],
              method: str, lo: float, hi: float, notes: tuple[str, ...], *,
              ceiling: float | None = None, reason: str | None = None,
              lower: Solution | None = None) -> Solution:
    if answer is None and reason is None:
        reason = _unreachable(parameter, hi, dict(searched)[hi], goal, probability)
    elif answer == lo:
        notes += (f"already met at the low end of the search ({lo:g}): the answer is at most "
                  "that",)
    epsilon = (_as_epsilon(scenario, parameter, answer) if parameter != "n"
               else scenario.params.get("epsilon"))
    return Solution(parameter, answer, goal, probability, runs, searched, method, lo, hi,
                    epsilon, reason, notes, ceiling, lower)


def _n_range(scenario: Scenario, low: float | None, high: float | None) -> tuple[int, int]:
    from dpviz.data import GENERATORS

    if "generator" not in scenario.data:
        raise ValueError("solving for n needs generated data: give a generator (with an n) "
                         "as the scenario's data")
    spec = GENERATORS[str(scenario.data["generator"])]
    known = {p.name: p for p in spec.params}
    if "n" not in known:
        raise ValueError(f"the generator {spec.name!r} has no parameter n to solve for")
    param = known["n"]
    current = int(scenario.data.get("n") or param.default)
    floor = int(param.min or 2)
    if spec.name == "sbm":  # p_in = (1 + ε_s)d/n must stay ≤ 1
        floor = max(floor, math.ceil((1 + float(scenario.data["signal"]))
                                     * float(scenario.data["degree"])) + 1)
    lo = max(floor, current // 10) if low is None else low
    hi = min(int(param.max or current * 10), current * 10) if high is None else high
    lo_n = limits.check_integer(limits.Limit("low", floor, float(param.max or math.inf)), lo)
    hi_n = limits.check_integer(limits.Limit("high", floor, float(param.max or math.inf)), hi)
    return lo_n, hi_n


def solve_n(scenario: Scenario, epsilon: float | None = None, *, metric: str, target: float,
            probability: float = PROBABILITY_DEFAULT, runs: int = RUNS, low: int | None = None,
            high: int | None = None, progress: Progress | None = None) -> Solution:
    """The smallest n (rows, or vertices) whose runs meet the target at a fixed budget.

    Bisection on log n over the generator's ``n``, with the same seeds at every n (the
    data differ with n, but each run's seeds do not).

    Parameters
    ----------
    scenario : Scenario
        Its data must be a generator with an ``n``.
    epsilon : float, optional
        The budget to hold (default the scenario's own ε or ρ).
    metric, target, probability, runs, progress
        As :func:`solve_epsilon`.
    low, high : int, optional
        The range of n (default a tenth to ten times the scenario's n, within the
        generator's range; for an SBM above ``(1 + ε_s)·d``).

    Returns
    -------
    Solution
        With ``parameter == "n"``.

    Raises
    ------
    ValueError
        As :func:`solve_epsilon`, and for data without an ``n``.
    """
    goal = make_target(scenario.task, metric, target)
    probability, runs = _check(scenario, probability, runs)
    synthetic_twin(scenario)
    if epsilon is not None:
        scenario = _at_budget(scenario, "epsilon", limits.check_epsilon(epsilon))
    lo, hi = _n_range(scenario, low, high)

    def at(n: float) -> Scenario:
        return replace(scenario, data=MappingProxyType({**scenario.data, "n": int(n)}))

    simulator = _Simulator(scenario, goal, runs, progress,
                           steps_needed(lo, hi, integer=True), reuse_data=False)
    search = bisect_smallest(lambda n: simulator.share(at(n)), lo, hi, probability,
                             integer=True)
    searched = tuple((float(int(x)), s) for x, s in search.searched)
    answer = None if search.answer is None else float(int(search.answer))
    return _solution(scenario, "n", answer, goal, probability, runs, searched, "simulation",
                     float(lo), float(hi), simulator.notes())


# --- one question: the page's panel and the command line ---------------------------------

@dataclass(frozen=True)
class Question:
    """A solve-for-ε question, as the page's panel and ``python -m dpviz solve`` both ask it.

    Made by :func:`ask`, which checks it and writes the scenario in the one form both build:
    the budget with every field (``dpviz.run``'s defaults where unset), the estimator's
    parameters without those left unset. :meth:`command` writes the command line that builds
    the same scenario again, so the page and the command line answer with the same data
    generator, estimator settings and seeds.
    """

    scenario: Scenario
    target: Target
    probability: float
    runs: int = RUNS

    def solve(self, *, low: float | None = None, high: float | None = None,
              progress: Progress | None = None) -> Solution:
        """The answer: :func:`solve_epsilon` on the question."""
        return solve_epsilon(self.scenario, metric=self.target.metric, target=self.target.value,
                             probability=self.probability, runs=self.runs, low=low, high=high,
                             progress=progress)

    def most_runs(self) -> int:
        """At most how many runs :meth:`solve` simulates (0 with a closed form)."""
        if _closed_form(self.scenario, self.target) is not None:
            return 0
        return most_runs(self.scenario, self.runs)

    def command(self) -> str:
        """The command line asking this question: every parameter the scenario carries.

        A budget field at ``dpviz.run``'s default is left out (the command line's default is
        the same); ``--seed`` only for a fixed (teaching) noise seed.

        Examples
        --------
        >>> s = Scenario.from_dict({"task": "mean", "estimator": "laplace",
        ...     "data": {"generator": "gmm", "n": 500, "k": 1}, "params": {"epsilon": 1.0},
        ...     "seed": 3})
        >>> print(ask(s, metric="mean_error", target=0.05, runs=10).command())
        python -m dpviz solve mean laplace --generator gmm --set-data k=1 --set-data d=2 \
--set-data n=500 --set-data separation=6.0 --set-data weights=equal --set-data \
covariance=spherical --set-data seed=0 --epsilon 1.0 --seed 3 --target mean_error=0.05 \
--probability 0.9 --runs 10
        """
        s = self.scenario
        data = dict(s.data)
        words = ["python", "-m", "dpviz", "solve", s.task, s.estimator]
        if "generator" in data:
            words += ["--generator", str(data.pop("generator"))]
            for name, value in data.items():
                words += ["--set-data", f"{name}={_flag(value)}"]
        else:
            words += ["--dataset", str(data["dataset"])]
        for name, default in _budget_defaults().items():
            value = s.params[name]
            if value != default:
                flag = "--" + name.replace("_", "-")
                words += [flag] if value is True else [flag, _flag(value)]
        for name, value in s.params.items():
            if name not in BUDGET_PARAMS:
                words += ["--set", f"{name}={_flag(value)}"]
        if s.seed is not None:
            words += ["--seed", str(s.seed)]
        words += ["--target", f"{self.target.metric}={_flag(self.target.value)}",
                  "--probability", _flag(self.probability), "--runs", str(self.runs)]
        return shlex.join(words)


def ask(scenario: Scenario, *, metric: str, target: float, probability: float = PROBABILITY_DEFAULT,
        runs: int = RUNS) -> Question:
    """The question "the smallest ε giving ``metric`` within ``target`` with ``probability``".

    Raises
    ------
    ValueError
        As :func:`solve_epsilon` (bad metric, target, probability or runs; a CSV or edge
        list; a non-private estimator).

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
    ...     "data": {"generator": "gmm"}, "params": {"epsilon": 1.0, "iterations": 5}})
    >>> dict(ask(s, metric="mean_error", target=0.1).scenario.params)
    {'epsilon': 1.0, 'delta': 0.0, 'rho': None, 'accounting': 'zcdp', 'radius': None, \
'paper_mode': False, 'iterations': 5}
    """
    goal = make_target(scenario.task, metric, target)
    probability, runs = _check(scenario, probability, runs)
    synthetic_twin(scenario)
    given = {name: value for name, value in scenario.params.items() if value is not None}
    budget = {name: given.pop(name, default) for name, default in _budget_defaults().items()}
    return Question(replace(scenario, params=MappingProxyType({**budget, **given})), goal,
                    probability, runs)


@functools.cache
def _budget_defaults() -> dict[str, Any]:
    """The budget's fields at ``dpviz.run``'s defaults (the command line's too)."""
    from dpviz.estimators.run import run

    defaults = inspect.signature(run).parameters
    return {name: defaults[name].default for name in BUDGET_PARAMS}


def _flag(value: Any) -> str:
    """A value as the command line reads it back to the same value (floats by ``repr``).

    Examples
    --------
    >>> _flag(True), _flag(1e-05), _flag(0.1), _flag(3), _flag("GGG")
    ('true', '1e-05', '0.1', '3', 'GGG')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)
