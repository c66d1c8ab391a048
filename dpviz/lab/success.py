"""Where an estimator's runs succeed: the smallest n, measured by simulation (issue 29 item 4).

A refusal's n (:func:`dpviz.core.search.rows_needed`, :func:`dpviz.lab.feasibility.blocked`)
is where the estimator's public preconditions stop firing; runs there may still fail (⊥ after
spending) or answer far off. :func:`succeeds_from` measures the smallest n at which at least
:data:`PROBABILITY` of simulated runs succeed, with :func:`dpviz.lab.solve.solve_n` (the same
seeds at every n, :data:`~dpviz.lab.solve.RUNS` runs a point, bisection on log n to 5%) on the
task's generator at public parameters, never on a user's rows. It starts at the
preconditions' n (below it every run is refused) and doubles the range until runs succeed.

A run succeeds when it answers and its matched mean error (data units) is at most a quarter
(:data:`GAP_FRACTION`) of the smallest gap between two true means: the smallest over the
simulated mixtures, or one standard deviation when the means are closer than that. At that
error the found means sit on average a quarter of the way to the next component, so they
stand for the k components (a swap would cost half a gap on each). Only the mixture task's
refusals name an n, so only it has the rule.

Results are kept on disk per public shape (:func:`cache_path`, beside the sweeps' cache);
``bench/succeeds_from.py`` saves the shapes the /gmm page shows by default to :data:`SAVED`,
with its provenance and a held-out check at each n found.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.distance import pdist

from dpviz.core import limits
from dpviz.estimators.registry import TASKS
from dpviz.estimators.work import BATCH, WorkBudget, check_work
from dpviz.lab.claims import Measured, seeds
from dpviz.lab.experiments.cache import cache_directory
from dpviz.lab.feasibility import blocked, sizes_of
from dpviz.lab.provenance import stale
from dpviz.lab.scenario import Scenario, load_data
from dpviz.lab.solve import RUNS, Progress, simulated_share, simulation_seeds, solve_n, steps_needed

#: The share of simulated runs that must succeed.
PROBABILITY = 0.9
#: A run succeeds when its matched mean error is at most this share of the smallest gap
#: between two true means (module docstring).
GAP_FRACTION = 0.25
#: The metric the rule reads.
METRIC = "mean_error"
#: The rule in words, for a page.
RULE = ("a run succeeds when it answers and its means are, on average, within a quarter of "
        "the smallest gap between two true means")
#: The precondition search starts here (it doubles until they hold).
START_ROWS = 1_000
#: Fresh runs of the held-out check at a found n, and how many must succeed.
HELD_OUT_RUNS = 10
HELD_OUT_NEEDED = 8
#: The saved table (``python bench/succeeds_from.py``).
SAVED = Path(__file__).resolve().parents[2] / "assets" / "results" / "succeeds_from.json"
#: Subfolder of the cache folder (:func:`dpviz.lab.experiments.cache.cache_directory`).
CACHE_FOLDER = "succeeds_from"
#: A search started from a page: ten minutes. A search is 5–10 points of 20 runs, each a
#: second or more at the 10⁴–10⁵ rows where the mixtures' preconditions start to hold: at a
#: page sweep's 120 s none would fit.
PAGE = WorkBudget("in a simulation started from a page", 600.0, limits.INTERACTIVE_BYTES,
                  limits.INTERACTIVE_DATA_BYTES,
                  advice="Longer simulations are made offline, for the shapes the page shows "
                         "by default")


@dataclass(frozen=True)
class Shape:
    """The public shape a search depends on: estimator, budget, sizes, generator, parameters.

    The defaults are the /gmm page's (d = 2, k = 3, separation 6σ, equal weights, spherical
    components, δ = 10⁻⁵, zCDP). ``params`` are the estimator's own, as ``(name, value)``
    pairs, sorted. n is not part of it: the search is over n.
    """

    estimator: str
    epsilon: float
    delta: float = 1e-5
    d: int = 2
    k: int = 3
    separation: float = 6.0
    weights: str = "equal"
    covariance: str = "spherical"
    accounting: str = "zcdp"
    params: tuple[tuple[str, Any], ...] = ()
    task: str = "gmm"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``params`` a mapping), which :meth:`from_dict` reads back."""
        return {**asdict(self), "params": dict(self.params)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Shape:
        """A shape from :meth:`to_dict`'s JSON."""
        return cls(**{**d, "params": tuple(sorted(dict(d.get("params") or {}).items()))})

    def key(self, runs: int = RUNS, probability: float = PROBABILITY) -> str:
        """A digest of the shape and the rule: the cache's and the saved table's key."""
        text = json.dumps({**self.to_dict(), "runs": runs, "probability": probability,
                           "gap_fraction": GAP_FRACTION}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def scenario(self, n: int, seed: int) -> Scenario:
        """A run at ``n`` rows; ``seed`` is the data seed and the noise seed."""
        return Scenario.from_dict({
            "task": self.task, "estimator": self.estimator,
            "data": {"generator": "gmm", "k": self.k, "d": self.d, "n": n,
                     "separation": self.separation, "weights": self.weights,
                     "covariance": self.covariance, "seed": seed},
            "params": {"epsilon": self.epsilon, "delta": self.delta,
                       "accounting": self.accounting, **dict(self.params)},
            "seed": seed})

    def sizes(self, n: int) -> dict[str, Any]:
        """:func:`dpviz.lab.feasibility.blocked`'s keywords at ``n`` rows."""
        return sizes_of(TASKS[self.task][self.estimator], n=n, d=self.d, k=self.k,
                        params={"epsilon": self.epsilon, "delta": self.delta,
                                "accounting": self.accounting, **dict(self.params)})


def shape_of(scenario: Scenario, estimator: str) -> Shape | None:
    """The shape of ``estimator`` on a page's scenario, or ``None`` when it has none.

    ``None`` unless the data are the mixture generator's and the budget an ε: a bundled
    set or an upload has no generator to simulate. Parameters at their defaults are left
    out (the page passes its own estimator's, some of which others share).

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
    ...     "data": {"generator": "gmm", "n": 10_000, "seed": 4},
    ...     "params": {"epsilon": 1.0, "delta": 1e-5}})
    >>> shape_of(s, "friendly_core") == Shape("friendly_core", 1.0)
    True
    """
    from dpviz.data import GENERATORS

    epsilon = scenario.params.get("epsilon")
    if scenario.data.get("generator") != "gmm" or epsilon is None or math.isinf(epsilon):
        return None
    block = GENERATORS["gmm"].resolve({key: value for key, value in scenario.data.items()
                                       if key not in ("generator", "test_fraction")})
    entry = TASKS[scenario.task][estimator]
    sizes = sizes_of(entry, n=int(block["n"]), d=int(block["d"]), k=int(block["k"]),
                     params=scenario.params)
    defaults = {p.name: p.default for p in entry.params}
    own = {name: value for name, value in sizes.items()  # a default is the same shape
           if name not in ("n", "d", "k", "epsilon", "delta", "accounting")
           and value != defaults.get(name)}
    return Shape(estimator, float(epsilon), float(sizes["delta"]), int(block["d"]),
                 int(sizes["k"] or block["k"]), float(block["separation"]),
                 str(block["weights"]), str(block["covariance"]), str(sizes["accounting"]),
                 tuple(sorted(own.items())), scenario.task)


@dataclass(frozen=True)
class SuccessFrom:
    """What :func:`succeeds_from` found for a shape.

    Attributes
    ----------
    shape : Shape
    n : int or None
        The smallest n tried at which at least ``probability`` of the runs succeed (every
        larger n tried too); ``None``: not up to ``high``.
    start : int
        Where the preconditions hold (the search's low end).
    high : int
        The largest n simulated.
    runs : int
        Simulated runs per point.
    probability : float
    target : float
        The matched mean error a successful run stays within (data units).
    searched : tuple of (n, share)
        Every point tried, by n.
    seconds : float
        How long the search took.
    stopped : str or None
        Why the search stopped without an answer below :data:`dpviz.core.limits.MAX_ROWS`.
    """

    shape: Shape
    n: int | None
    start: int
    high: int
    runs: int
    probability: float
    target: float
    searched: tuple[tuple[int, float], ...]
    seconds: float
    stopped: str | None = None

    def sentence(self) -> str:
        """The answer in words.

        Examples
        --------
        >>> found = SuccessFrom(Shape("friendly_core", 1.0), 27_000, 14_000, 28_000, 20,
        ...                     0.9, 0.15, ((14_000, 0.1), (27_000, 0.95)), 60.0)
        >>> found.sentence()
        'in simulation, at least 90% of runs succeed from about n = 27,000 rows at this ε \
(20 runs per point)'
        """
        if self.n is not None:
            return (f"in simulation, at least {self.probability:.0%} of runs succeed from "
                    f"about n = {self.n:,} rows at this ε ({self.runs} runs per point)")
        why = f": {self.stopped}" if self.stopped else ""
        return (f"in simulation, fewer than {self.probability:.0%} of runs succeed even at "
                f"n = {self.high:,} rows at this ε ({self.runs} runs per point; searched no "
                f"further{why})")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, which :meth:`from_dict` reads back."""
        return {**asdict(self), "shape": self.shape.to_dict(),
                "searched": [list(point) for point in self.searched]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SuccessFrom:
        """A result from :meth:`to_dict`'s JSON."""
        return cls(**{**d, "shape": Shape.from_dict(d["shape"]),
                      "searched": tuple((int(n), float(s)) for n, s in d["searched"])})


def precondition_rows(shape: Shape) -> int | None:
    """About the smallest n at which the shape's preconditions hold (``None``: none).

    :func:`dpviz.lab.feasibility.blocked` from :data:`START_ROWS` rows, no deadline.

    Examples
    --------
    >>> 13_000 < precondition_rows(Shape("friendly_core", 1.0)) < 15_000
    True
    """
    found = blocked(TASKS[shape.task][shape.estimator], **shape.sizes(START_ROWS), reach=1.0,
                    seconds=math.inf)
    return START_ROWS if found is None else found.n


def threshold(scenario: Scenario, runs: int) -> float:
    """The error a successful run stays within: :data:`GAP_FRACTION` of the smallest gap.

    Over the mixtures of the search's runs (:func:`dpviz.lab.solve.simulation_seeds`; a
    mixture's means do not depend on n), the smallest gap between two true means, or the
    largest standard deviation when it is smaller.

    Examples
    --------
    >>> round(threshold(Shape("friendly_core", 1.0).scenario(10_000, 0), 20), 3)
    0.145
    """
    k = int(scenario.data["k"])
    scales = []
    for data_seed, _ in simulation_seeds(scenario, runs):
        truth = load_data({**scenario.data, "n": 2 * k, "seed": data_seed}).truth
        assert truth is not None and truth.means is not None and truth.covariances is not None
        sigma = math.sqrt(max(float(np.linalg.eigvalsh(c)[-1]) for c in truth.covariances))
        gap = float(pdist(truth.means).min()) if k > 1 else 0.0
        scales.append(max(gap, sigma))
    return GAP_FRACTION * min(scales)


def range_cost(shape: Shape, low: int, *, runs: int = RUNS, budget: WorkBudget = PAGE) -> float:
    """The estimated seconds of searching n in ``[low, 2·low]``, checked against ``budget``.

    Every point is charged at the range's high end (:func:`dpviz.estimators.work.check_work`).

    Raises
    ------
    ValueError
        When it exceeds ``budget``: the sentence names the sizes, the estimate and the limit.

    Examples
    --------
    >>> range_cost(Shape("friendly_core", 1.0), 14_000) < PAGE.seconds
    True
    """
    high = min(2 * low, limits.MAX_ROWS)
    return check_work(shape.task, shape.estimator, n=high, d=shape.d, k=shape.k,
                      repeats=runs * steps_needed(low, high, integer=True), budget=budget).seconds


def succeeds_from(shape: Shape, *, runs: int = RUNS, probability: float = PROBABILITY,
                  seed: int = 0, budget: WorkBudget = BATCH,
                  progress: Progress | None = None) -> SuccessFrom:
    """The smallest n at which ``probability`` of simulated runs succeed (module docstring).

    Ranges ``[m, 2m]`` from the preconditions' n, each searched by
    :func:`dpviz.lab.solve.solve_n` (which tries its high end first) until one succeeds.
    Before each range its estimated work (every point at the range's high end) is checked
    against what is left of ``budget``: the first range beyond it is refused, a later one
    ends the search (``stopped`` says so).

    Parameters
    ----------
    shape : Shape
    runs, probability : int, float
        Simulated runs per point and the share that must succeed.
    seed : int
        The simulation's data and noise seeds derive from it.
    budget : WorkBudget
        The work allowed (default the command line's: memory only).
    progress : callable, optional
        ``progress(done, total)`` after each run; ``total`` grows with each range.

    Raises
    ------
    ValueError
        A task without a rule, no n at which the preconditions hold, or a first range
        beyond ``budget``.
    """
    started = time.perf_counter()
    if shape.task != "gmm":
        raise ValueError(f"simulated success is defined for the gmm task only (its refusals "
                         f"name an n), got {shape.task!r}")
    start = precondition_rows(shape)
    if start is None:
        raise ValueError(f"{TASKS[shape.task][shape.estimator].label}'s preconditions do not "
                         f"hold at ε = {shape.epsilon:g} up to {limits.MAX_ROWS:,} rows: there "
                         "is no n to simulate from")
    scenario = shape.scenario(start, seed)
    target = threshold(scenario, runs)
    searched: dict[int, float] = {}
    counted = {"before": 0, "planned": 0, "done": 0}
    answer, stopped, cost = None, None, 0.0
    low = min(start, limits.MAX_ROWS - 1)

    def report(done: int, total: int) -> None:
        counted["done"] = counted["before"] + done
        if progress is not None:
            progress(counted["done"], counted["before"] + total)

    while True:
        high = min(2 * low, limits.MAX_ROWS)
        try:
            cost += range_cost(shape, low, runs=runs,
                               budget=replace(budget, seconds=budget.seconds - cost))
        except ValueError:
            if not searched:
                raise
            stopped = f"the next range would pass the {budget.seconds:g} s work limit"
            break
        found = solve_n(scenario, metric=METRIC, target=target, probability=probability,
                        runs=runs, low=low, high=high, progress=report)
        counted["before"] = counted["done"]
        searched.update((int(x), share) for x, share in found.searched)
        if found.value is not None:
            answer = int(found.value)
            break
        if high >= limits.MAX_ROWS:
            break
        low = high
    return SuccessFrom(shape, answer, start, max(searched), runs, probability, target,
                       tuple(sorted(searched.items())), time.perf_counter() - started, stopped)


# --- kept results -------------------------------------------------------------------------

def cache_path(shape: Shape, runs: int = RUNS, probability: float = PROBABILITY,
               cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where a search for ``shape`` is kept: ``<cache folder>/succeeds_from/<key>.json``."""
    return cache_directory(cache_dir) / CACHE_FOLDER / f"{shape.key(runs, probability)}.json"


def remember(found: SuccessFrom, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Keep a search's result on disk (:func:`cache_path`); returns the file."""
    path = cache_path(found.shape, found.runs, found.probability, cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(found.to_dict(), ensure_ascii=False))
    return path


def read_saved(path: Path | None = None) -> dict[str, Any]:
    """The saved table (``{"made_by", "rows"}``; default :data:`SAVED`), or no rows."""
    path = SAVED if path is None else path
    return json.loads(path.read_text()) if path.is_file() else {"rows": []}


def known(shape: Shape, *, runs: int = RUNS, probability: float = PROBABILITY,
          cache_dir: str | os.PathLike[str] | None = None,
          saved: Path | None = None) -> SuccessFrom | None:
    """A search for ``shape`` already made: kept on disk, else in the saved table.

    ``saved``: the table (default :data:`SAVED`). A saved row made with another set of
    estimators (:func:`dpviz.lab.provenance.stale`) is not used: its n may no longer hold.
    """
    path = cache_path(shape, runs, probability, cache_dir)
    if path.is_file():
        return SuccessFrom.from_dict(json.loads(path.read_text()))
    table = read_saved(saved)
    if stale(table.get("made_by", {}), shape.task) is not None:
        return None
    key = shape.key(runs, probability)
    for row in table["rows"]:
        if row["key"] == key:
            return SuccessFrom.from_dict(row["found"])
    return None


# --- the held-out check and the claims ----------------------------------------------------

@dataclass(frozen=True)
class HeldOut:
    """Fresh runs at a found n: how many succeeded, of how many, in how long."""

    successes: int
    runs: int
    seed: int
    seconds: float


def held_out(shape: Shape, n: int, *, seed: int, runs: int = HELD_OUT_RUNS) -> HeldOut:
    """``runs`` runs at ``n`` on fresh data and noise (from ``seed``), scored by the rule.

    The threshold is :func:`threshold` over these runs' own mixtures.
    """
    started = time.perf_counter()
    scenario = shape.scenario(n, seed)
    share = simulated_share(scenario, metric=METRIC, target=threshold(scenario, runs),
                            runs=runs)
    return HeldOut(round(share * runs), runs, seed, time.perf_counter() - started)


def _saved_rows(saved: Path | None) -> list[dict[str, Any]]:
    return list(read_saved(saved)["rows"])


def claim_saved_n_hold(fresh: bool, saved: Path | None = None) -> Measured:
    """The saved "succeeds from n = N" values hold: at each N, ≥ 8 of 10 fresh runs succeed."""
    found = []
    for i, row in enumerate(_saved_rows(saved)):
        result = SuccessFrom.from_dict(row["found"])
        if result.n is None:
            continue
        check = held_out(result.shape, result.n, seed=seeds(fresh, 1, salt=i)[0])
        found.append((result, check))
    ok = bool(found) and all(c.successes >= HELD_OUT_NEEDED for _, c in found)
    return Measured(ok, "; ".join(
        f"{r.shape.estimator} at ε = {r.shape.epsilon:g}, n = {r.n:,}: {c.successes}/{c.runs}"
        for r, c in found) or "no saved n")


def claim_saved_table_consistent(fresh: bool, saved: Path | None = None) -> Measured:
    """The saved table agrees with the registry and with its own searches (fast).

    Each row: made on the current registry; its search started where the preconditions hold
    now (within 2%); at its N they hold and the searched share meets the probability; the
    point tried just below N missed it (or N is the start); its sentence says "in
    simulation". ``fresh`` is unused: nothing is random.
    """
    table = read_saved(saved)
    problems = [] if table["rows"] else ["the table is empty"]
    old = stale(table.get("made_by", {}), "gmm")
    if old is not None:
        problems.append(old)
    for row in table["rows"]:
        result = SuccessFrom.from_dict(row["found"])
        shape, name = result.shape, f"{result.shape.estimator} at ε = {result.shape.epsilon:g}"
        now = precondition_rows(shape)
        if now is None or abs(now - result.start) > 0.02 * now:
            problems.append(f"{name}: the preconditions now hold from {now}, the search "
                            f"started at {result.start:,}")
        if row["key"] != shape.key(result.runs, result.probability):
            problems.append(f"{name}: its key is not its shape's")
        if not result.sentence().startswith("in simulation"):
            problems.append(f"{name}: its sentence does not say it was simulated")
        if result.n is None:
            continue
        shares = dict(result.searched)
        below = [share for n, share in result.searched if n < result.n]
        if TASKS[shape.task][shape.estimator].cannot_run(**shape.sizes(result.n)) is not None:
            problems.append(f"{name}: its preconditions fail at n = {result.n:,}")
        if shares.get(result.n, 0.0) < result.probability or (
                result.n != result.start and (not below or below[-1] >= result.probability)):
            problems.append(f"{name}: n = {result.n:,} is not where the searched share "
                            f"crosses {result.probability:.0%}")
    return Measured(not problems, "; ".join(problems) or
                    f"{len(table['rows'])} saved rows agree with the registry and their "
                    "searches")


def search_kept(shape: Shape, *, budget: WorkBudget = BATCH,
                progress: Callable[[int, int], None] | None = None,
                cache_dir: str | os.PathLike[str] | None = None) -> SuccessFrom:
    """:func:`known`, else :func:`succeeds_from` kept on disk (:func:`remember`)."""
    found = known(shape, cache_dir=cache_dir)
    if found is None:
        found = succeeds_from(shape, budget=budget, progress=progress)
        remember(found, cache_dir)
    return found
