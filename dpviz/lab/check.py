"""The contract every registered estimator keeps, checked on one entry (issue 31, item 4).

scikit-learn's ``check_estimator`` is the model: :func:`check_estimator` runs every clause of
:data:`CLAUSES` on one registry entry, with its :attr:`~dpviz.core.entry.Estimator.example`
parameters on a small public instance of its relation's data (:func:`instance`), and raises an
``AssertionError`` naming the clause that failed. The registry's tests run the clauses one by
one over every entry, so a new estimator is covered by being registered. Not checked: the
sensitivity of releases other than Laplace and Gaussian noise, nor of an entry without an
audit pair (:func:`releases_within_their_sensitivity`).

The neighbouring pairs of :func:`refuses_neighbours_alike` follow the relation the entry
protects (:func:`~dpviz.estimators.registry.relation_of`):

* replace one row (bounded DP): ``n`` is public, so a pair has the same number of rows and
  refusals on ``n`` are refusals on public inputs. The pairs replace one row: at the clipping
  bound in one, outside it (just outside, far outside, at the float limit) in the other — at
  n = 1, n = 2 and :data:`SMALL_N` — and make a column constant or not, all rows zero or not.
* one edge (edge DP): ``n``, ``degree`` and ``signal`` are public; the pairs are the empty
  graph and a one-edge graph, and the complete graph and the complete graph less one edge.
  The edge count is private, so its cap (``limits.SBM_EDGES``) is dpviz's public data domain
  (tests/data/test_graphs.py checks both readers draw that line alike).

An entry protecting another relation (add or remove one row: ``n`` private) fails until
pairs for it are written here.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from unittest import mock

import networkx as nx
import numpy as np

from dpviz.core.entry import Estimator, always_runs
from dpviz.data import gaussian_mixture, stochastic_block_model
from dpviz.data.graphs import Graph
from dpviz.estimators.registry import TASKS, estimator, relation_of
from dpviz.estimators.result import Result
from dpviz.estimators.run import run as run_estimator
from dpviz.lab.audit import (
    NOTHING_RELEASED,
    audit_unavailable,
    pair_findings,
    same_output,
)
from dpviz.privacy import METHODS
from dpviz.privacy.risk import ONE_EDGE, REPLACE_ONE

EPSILON, DELTA = 1.0, 1e-5
#: The rows of the neighbouring pairs where an estimator must answer (not only refuse).
SMALL_N = 12
#: The public model of every graph the checks use (12 vertices: the exponential mechanism
#: enumerates every labelling rather than running its chain).
GRAPH_MODEL = {"degree": 6.0, "signal": 0.9}
#: The public model of the edge-neighbour pairs (sparse, as the pairs are).
PAIR_MODEL = {"degree": 1.0, "signal": 0.5}


@functools.cache
def _rows() -> np.ndarray:
    mixture = gaussian_mixture(2, 2, 400, separation=6.0, seed=0)
    return mixture.data / np.linalg.norm(mixture.data, axis=1).max()  # inside the unit ball


def instance(entry: Estimator) -> tuple[Any, dict[str, Any]]:
    """Small public data of ``entry``'s relation and the run's public parameters.

    Replace-one: 400 rows of a separated two-component mixture in the unit ball (radius 1);
    one edge: a 12-vertex block-model graph and its model (:data:`GRAPH_MODEL`), the names the
    entry takes.

    Examples
    --------
    >>> data, public = instance(estimator("mean", "laplace"))
    >>> data.shape, public
    ((400, 2), {'radius': 1.0})
    """
    relation = relation_of(entry)
    if relation == ONE_EDGE:
        sbm = stochastic_block_model(12, GRAPH_MODEL["degree"], GRAPH_MODEL["signal"], seed=0)
        return Graph(sbm.edges, sbm.n), _own(entry, GRAPH_MODEL)
    if relation == REPLACE_ONE:
        return _rows(), {"radius": 1.0}
    raise AssertionError(f"{_who(entry)}: the checks have no data for the relation "
                         f"{relation.name!r} (dpviz.lab.check builds replace-one rows and "
                         "one-edge graphs)")


def run(entry: Estimator, data: Any = None, *, example: Mapping[str, Any] | None = None,
        **given: Any) -> Result:
    """One run of ``entry`` on ``data`` (default :func:`instance`'s), ``given`` on top.

    ``example`` are its own parameters (default its
    :attr:`~dpviz.core.entry.Estimator.example`). Not-private and precondition warnings are
    silenced: the result says them.
    """
    default, public = instance(entry)
    params = {**public, **(entry.example if example is None else example), **given}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_estimator(entry.task, entry.name, default if data is None else data,
                             **params)


def states_its_relation(entry: Estimator) -> None:
    """A private entry states the relation it protects, one the checks have pairs for.

    :attr:`~dpviz.core.entry.Estimator.relation`: its task's data do not say it.
    """
    if entry.notion == "none":
        return
    relation = entry.relation
    _require(relation is not None,
             f"{_who(entry)} is private but states no neighbouring relation on its entry")
    _require(relation in (REPLACE_ONE, ONE_EDGE),
             f"{_who(entry)} protects {getattr(relation, 'name', None)!r}, which the checks "
             "have no pairs for")


def spends_within_budget(entry: Estimator) -> None:
    """The ledger's total stays within the budget under every accounting method it accepts.

    A method it does not compose in is refused with a sentence that says so. Past its public
    preconditions, a private run spends and answers (:func:`answers`), and at least one
    method's run spends.
    """
    accepted, spent = [], []
    for method in METHODS:
        try:
            with past_preconditions(entry):
                result = run(entry, epsilon=EPSILON, delta=DELTA, accounting=method, seed=0)
        except ValueError as err:
            _require("accounting" in str(err) or "compose" in str(err),
                     f"{_who(entry)} refused accounting {method!r} without naming it: {err}")
            continue
        accepted.append(method)
        spent.append(bool(result.ledger.releases))
        answers(entry, result, f"under {method!r}")
        total = result.ledger.total()
        _require(total.epsilon is not None and total.epsilon <= EPSILON * (1 + 1e-9),
                 f"{_who(entry)} spent {total} under {method!r}, more than ε = {EPSILON:g}")
        _require(total.delta <= DELTA * (1 + 1e-9),
                 f"{_who(entry)} spent {total} under {method!r}, more than δ = {DELTA:g}")
    _require(accepted, f"{_who(entry)} accepted no accounting method")
    _require(entry.notion == "none" or entry.ignores_data or any(spent),
             f"{_who(entry)} released nothing under any accounting method")


def same_seed_same_output(entry: Estimator) -> None:
    """Two runs with one seed give the same answer and the same spend (:func:`answers`)."""
    with past_preconditions(entry):
        first = run(entry, epsilon=EPSILON, delta=DELTA, seed=7)
        again = run(entry, epsilon=EPSILON, delta=DELTA, seed=7)
    answers(entry, first, "with seed 7")
    _require(same_output(first, again),
             f"{_who(entry)} answered differently with the same seed")
    _require(first.ledger.total() == again.ledger.total(),
             f"{_who(entry)} spent differently with the same seed")


def refuses_bad_input_with_a_sentence(entry: Estimator) -> None:
    """Bad data, and a parameter below its range, are refused with a ``ValueError`` sentence.

    The bad data: a table with one missing cell, or an edge list naming a vertex a 3-vertex
    graph does not have. The parameter is the entry's first bounded number.
    """
    data, _ = instance(entry)
    more: dict[str, Any] = {}
    if relation_of(entry) == ONE_EDGE:
        bad, more = np.array([[0, 1], [1, 7]]), {"n": 3}
    else:
        bad = np.array(data)
        bad[3, 1] = np.nan
    try:
        run(entry, bad, epsilon=EPSILON, delta=DELTA, seed=0, **more)
    except ValueError as err:
        message = str(err)
    else:
        raise AssertionError(f"{_who(entry)} answered on bad data")
    _require(len(message.split()) >= 4 and "Traceback" not in message,
             f"{_who(entry)} refused bad data without a sentence: {message!r}")
    bounded = [(p.name, p.min) for p in entry.params
               if p.type in ("int", "float") and p.min is not None and p.min > -1e9]
    if not bounded:
        return
    name, low = bounded[0]
    try:
        below: dict[str, Any] = {name: low - 1}
        run(entry, epsilon=EPSILON, delta=DELTA, seed=0, **below)
    except ValueError as err:
        _require(f"{name} must be" in str(err), f"{_who(entry)} refused {name} = {low - 1:g} "
                 f"without naming it and its range: {err}")
    else:
        raise AssertionError(f"{_who(entry)} took {name} = {low - 1:g}, below its minimum "
                             f"{low:g}")


def infinite_epsilon_is_non_private(entry: Estimator) -> None:
    """At ε = ∞ it gives the non-private answer.

    A non-private estimator: the same answer whatever ε, and nothing spent. An entry with a
    :attr:`~dpviz.core.entry.Estimator.reference`: exactly the reference's answer with the same
    parameters and seed (±1 labels up to a flip of every sign, which names the same
    communities). Any other: the same algorithm with no noise — at least one release, every
    one at scale 0 (what randomness is left samples chunks, splits or starts). Only an entry
    that :attr:`~dpviz.core.entry.Estimator.ignores_data` releases nothing, and its answer is
    then the one it gives on other data, at any ε. A private run answers (:func:`answers`).
    """
    with past_preconditions(entry):
        result = run(entry, epsilon=math.inf, seed=3)
    if entry.notion == "none":
        _require(same_output(result, run(entry, epsilon=EPSILON, delta=DELTA, seed=3)),
                 f"{_who(entry)} is not private but its answer depends on ε")
        _require(result.ledger.total().epsilon == 0.0, f"{_who(entry)} is not private but spent")
        return
    if entry.reference is not None:
        reference = estimator(entry.task, entry.reference)
        shared = {k: v for k, v in entry.example.items() if k in _names(reference)}
        theirs = run(reference, epsilon=math.inf, seed=3, **shared)
        _require(same_output(result, theirs) or _flipped(result, theirs),
                 f"{_who(entry)} at ε = ∞ differs from its reference {entry.reference!r}")
        return
    if not entry.ignores_data:
        answers(entry, result, "at ε = ∞")
        scales = [release.scale for release in result.ledger.releases]
        _require(all(scale == 0.0 for scale in scales),
                 f"{_who(entry)} at ε = ∞ still adds noise: scales {scales}")
        return
    _require(result.failed is None and not result.ledger.releases,
             f"{_who(entry)} ignores the data, yet at ε = ∞ it released or failed")
    other, more = _other_data(entry)
    for epsilon, delta in ((EPSILON, DELTA), (math.inf, 0.0)):
        again = run(entry, other, epsilon=epsilon, delta=delta, seed=3, **more)
        _require(same_output(result, again),
                 f"{_who(entry)} releases nothing, yet its answer depends on the data or on ε")


def audit_pair_are_neighbours(entry: Estimator) -> None:
    """Its audit pair (if any) are neighbours under its relation, and it runs on both.

    A non-private estimator has no claim to audit; a private one without a pair states why on
    its entry (:attr:`~dpviz.core.entry.Estimator.no_pair`), and the audit shows that sentence
    (:func:`~dpviz.lab.audit.audit_unavailable`).
    """
    why_not = audit_unavailable(entry.task, entry.name)
    if entry.notion == "none":
        _require("not private" in (why_not or ""), f"{_who(entry)}: the audit says {why_not!r}")
        return
    if entry.neighbours is None:
        reason = entry.no_pair
        _require(reason, f"{_who(entry)} is private, has no audit pair and states no reason "
                         "(Estimator.no_pair)")
        _require("no audit neighbour" in (why_not or "") and str(reason) in (why_not or ""),
                 f"{_who(entry)} has no pair, and the audit says {why_not!r}")
        return
    _require(why_not is None, f"{_who(entry)} has a pair, yet the audit says {why_not!r}")
    pair = entry.neighbours()
    a, b = np.asarray(pair.data), np.asarray(pair.neighbour)
    if relation_of(entry) == ONE_EDGE:
        edges_a, edges_b = ({tuple(sorted(e)) for e in x.tolist()} for x in (a, b))
        _require(len(edges_a) == len(a) and len(edges_b) == len(b)
                 and len(edges_a ^ edges_b) == 1,
                 f"{_who(entry)}'s audit graphs do not differ in exactly one edge")
    else:
        _require(a.shape == b.shape and np.sum(np.any(a != b, axis=1)) == 1,
                 f"{_who(entry)}'s audit tables do not differ in exactly one row")
    for data in (pair.data, pair.neighbour):
        released = run(entry, data, epsilon=EPSILON, delta=DELTA, seed=0, **pair.params)
        _require(released.failed or math.isfinite(pair.statistic(released)),
                 f"{_who(entry)}'s audit statistic is not finite on its own pair")


def releases_within_their_sensitivity(entry: Estimator) -> None:
    """On its audit pair each Laplace and Gaussian release keeps within its sensitivity.

    Each moves by at most its declared sensitivity, its noise is not calibrated from the data,
    and nothing else reaches the output (:func:`~dpviz.lab.audit.pair_findings`, past its
    preconditions: the run on D recorded, the run on D′ replaying it). Not checked: an entry
    with no pair or one that ignores the data, one refused on its pair that says why it fails
    on small data, and releases through a mechanism the white-box audit cannot replay (the
    exponential mechanism, randomized response …), whose sensitivities only the black-box
    audit measures.
    """
    if entry.notion == "none" or entry.neighbours is None or entry.ignores_data:
        return
    delta = 0.0 if entry.notion == "pure" else DELTA
    try:
        with past_preconditions(entry):
            found = pair_findings(entry.task, entry.name, epsilon=EPSILON, delta=delta)
    except ValueError as err:
        _require("Use the black-box audit" in str(err),
                 f"{_who(entry)} was refused on its audit pair: {err}")
        return
    if entry.fails_when_small:  # refused on its small pair: nothing to check
        found = tuple(f for f in found if f != NOTHING_RELEASED)
    _require(not found, f"{_who(entry)} on its audit pair: {'; '.join(found)}")


def refuses_neighbours_alike(entry: Estimator) -> None:
    """Neighbouring inputs at the edges of validity both answer, or are refused alike.

    A refusal is an output: answering on a dataset and refusing on its neighbour tells the two
    apart whatever ε the ledger says. The pairs are :func:`pairs`'s, the parameters the
    entry's :attr:`~dpviz.core.entry.Estimator.small_example` (else its example). A refusal
    is a ``ValueError`` or a result that failed having spent nothing. On every pair but those
    of one or two rows the entry must answer (:func:`answers`; past its public preconditions
    if they refuse there): the pairs exercise it, not only its refusals.
    """
    if entry.notion == "none":
        return
    for label, data, neighbour, params in pairs(entry):
        first, second = (_outcome(entry, given, params) for given in (data, neighbour))
        _require(first == second, f"{_who(entry)}, {label}: {first!r} but {second!r}")
        if not label.startswith(("1 row:", "2 rows:")):
            for given in (data, neighbour):
                with past_preconditions(entry):
                    result = _small_run(entry, given, params)
                answers(entry, result, label)


#: Every clause, in the order :func:`check_estimator` runs them.
CLAUSES: tuple[Callable[[Estimator], None], ...] = (
    states_its_relation, spends_within_budget, same_seed_same_output,
    refuses_bad_input_with_a_sentence, infinite_epsilon_is_non_private,
    audit_pair_are_neighbours, releases_within_their_sensitivity, refuses_neighbours_alike)


def answers(entry: Estimator, result: Result, where: str) -> None:
    """A private run that must answer spent something and did not fail.

    Not required of an entry that :attr:`~dpviz.core.entry.Estimator.ignores_data` (it
    releases nothing), nor of one that says why it fails on small data
    (:attr:`~dpviz.core.entry.Estimator.fails_when_small`; :func:`spends_within_budget` still
    has it spend under some method).
    """
    if entry.notion == "none" or entry.ignores_data or entry.fails_when_small:
        return
    _require(result.ledger.releases, f"{_who(entry)} released nothing {where}: "
                                     f"{result.failed or 'no ledger row'}")
    _require(result.failed is None, f"{_who(entry)} failed {where}: {result.failed}")


@contextlib.contextmanager
def past_preconditions(entry: Estimator) -> Iterator[None]:
    """Inside the block ``entry``'s module finds its ``can_run`` always true.

    The checks' data are small: where an estimator's public preconditions refuse them, the
    clauses that need a release step past the refusal (the estimator's module calls its
    :attr:`~dpviz.core.entry.Estimator.can_run` by name).
    """
    if entry.can_run is always_runs:
        yield
        return
    with mock.patch.object(sys.modules[entry.can_run.__module__], entry.can_run.__name__,
                           always_runs):
        yield


def check_estimator(entry: Estimator) -> None:
    """Run the contract on one registered estimator; raise naming the clause it breaks.

    Parameters
    ----------
    entry : Estimator
        A registry entry, registered (the runs go through :func:`dpviz.run`, by its task and
        name), whose :attr:`~dpviz.core.entry.Estimator.example` gives a small run.

    Raises
    ------
    AssertionError
        ``"task/name fails <clause>: <what happened>"``, for the first clause of
        :data:`CLAUSES` it breaks, or when it is not registered.

    Examples
    --------
    >>> check_estimator(estimator("mean", "laplace"))
    >>> from dataclasses import replace
    >>> check_estimator(replace(estimator("mean", "laplace"), name="unregistered"))
    Traceback (most recent call last):
    ...
    AssertionError: mean/unregistered is not registered: check_estimator runs it as dpviz.run does
    """
    _require(TASKS.get(entry.task, {}).get(entry.name) == entry,
             f"{_who(entry)} is not registered: check_estimator runs it as dpviz.run does")
    for clause in CLAUSES:
        try:
            clause(entry)
        except AssertionError as err:
            raise AssertionError(f"{_who(entry)} fails {clause.__name__}: {err}") from err


def pairs(entry: Estimator) -> list[tuple[str, Any, Any, dict[str, Any]]]:
    """``(label, D, D′, params)``: neighbours under ``entry``'s relation at the edges of validity.

    Examples
    --------
    >>> [label for label, *_ in pairs(estimator("sbm", "spectral"))][:1]
    ['2 vertices: the empty graph / one edge']
    """
    relation = relation_of(entry)
    if relation == ONE_EDGE:
        return [(label, g, h, {"n": n, **_own(entry, PAIR_MODEL)})
                for label, g, h, n in _graph_pairs()]
    if relation == REPLACE_ONE:
        return [(label, x, y, {}) for label, x, y in _table_pairs()]
    raise AssertionError(f"{_who(entry)}: no neighbouring pairs for the relation "
                         f"{relation.name!r}")


def _table_pairs() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Replace-one pairs (default bound: the unit ball)."""
    out = []
    outside = {"just outside": [1.0 + 1e-9, 0.0], "outside": [5.0, 0.0],
               "far outside": [-1e200, 1e200], "at the float limit": [1.7e308, -1.7e308]}
    for n in (1, 2, SMALL_N):
        base = np.random.default_rng(n).uniform(-0.3, 0.3, size=(n, 2))
        at_bound = base.copy()
        at_bound[0] = [0.6, 0.8]
        for where, row in outside.items():
            other = base.copy()
            other[0] = row
            out.append((f"{n} row{'s' if n > 1 else ''}: a row at the bound / {where}",
                        at_bound, other))
    constant = np.full((SMALL_N, 2), 0.25)
    varied = constant.copy()
    varied[0] = [0.25, -0.5]
    out.append(("every row equal / one row differs (a constant column)", constant, varied))
    zeros = np.zeros((SMALL_N, 2))
    one = zeros.copy()
    one[0] = [1.0, 0.0]
    out.append(("every row zero / one row on the bound", zeros, one))
    return out


def _graph_pairs() -> list[tuple[str, Any, Any, int]]:
    """Edge-neighbour pairs: ``(label, G, G′, n)``."""
    out: list[tuple[str, Any, Any, int]] = []
    for n in (2, 6, 22):  # 22: the exponential mechanism leaves exact enumeration (n ≤ 20)
        empty = np.zeros((0, 2), dtype=np.int64)
        out.append((f"{n} vertices: the empty graph / one edge", empty, np.array([[0, 1]]), n))
    complete = np.array(list(itertools.combinations(range(5), 2)))
    out.append(("5 vertices: the complete graph / less one edge", complete, complete[1:], 5))
    one_edge = nx.empty_graph(4)
    one_edge.add_edge(0, 1)
    out.append(("networkx, 4 vertices: no edges / one edge", nx.empty_graph(4), one_edge, 0))
    return out


def _small_run(entry: Estimator, data: Any, params: dict[str, Any]) -> Result:
    delta = 0.0 if entry.notion == "pure" else 1e-6
    return run(entry, data, example=entry.small_example, epsilon=EPSILON, delta=delta, seed=3,
               radius=None, **params)


def _outcome(entry: Estimator, data: Any, params: dict[str, Any]) -> str:
    """``"answered"``, or the refusal's sentence (any other exception propagates).

    A refusal: a ``ValueError``, or a failed result that spent nothing.
    """
    try:
        result = _small_run(entry, data, params)
    except ValueError as err:
        return f"refused: {err}"
    if result.failed is not None and not result.ledger.releases:
        return f"refused: {result.failed}"
    return "answered"


def _require(condition: Any, message: str) -> None:
    """Raise an ``AssertionError`` with ``message`` unless ``condition`` (``-O`` keeps it)."""
    if not condition:
        raise AssertionError(message)


def _other_data(entry: Estimator) -> tuple[Any, dict[str, Any]]:
    """Data of :func:`instance`'s shape with other values: half the rows, or no edges."""
    data, _ = instance(entry)
    if relation_of(entry) == ONE_EDGE:
        return np.zeros((0, 2), dtype=np.int64), {"n": data.n}
    return data / 2, {}


def _flipped(a: Result, b: Result) -> bool:
    ours, theirs = a.estimate.get("labels"), b.estimate.get("labels")
    return (ours is not None and theirs is not None
            and np.array_equal(np.asarray(ours), -np.asarray(theirs)))


def _names(entry: Estimator) -> set[str]:
    return {p.name for p in entry.params}


def _own(entry: Estimator, values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k in _names(entry)}


def _who(entry: Estimator) -> str:
    return f"{entry.task}/{entry.name}"
