"""The registry: every task's estimators, and the parameters every run shares.

Pages, the command line and sweeps build their widgets and loops from here, so a new
estimator appears everywhere by being added to its task's ``ESTIMATORS`` mapping.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from dpviz import data
from dpviz.core import limits
from dpviz.core.entry import Estimator, Param
from dpviz.privacy import METHODS
from dpviz.privacy.risk import ONE_EDGE, REPLACE_ONE, Relation

#: Each task's module under ``dpviz.estimators`` (its ``ESTIMATORS`` mapping).
TASK_MODULES: Mapping[str, str] = MappingProxyType({
    "mean": "mean", "gmm": "gmm", "factor_analysis": "factor_analysis",
    "covariance": "covariance", "sbm": "sbm",
})


class _Tasks(Mapping[str, Mapping[str, Estimator]]):
    """Task → its estimators by name, a task's module imported when the task is first read.

    The tasks' names need no import; a page about means does not load scikit-learn (the
    mixtures' module) or networkx (the graphs'), which cost a fresh server seconds.
    """

    def __getitem__(self, task: str) -> Mapping[str, Estimator]:
        module = importlib.import_module(f"dpviz.estimators.{TASK_MODULES[task]}")
        return MappingProxyType(dict(module.ESTIMATORS))

    def __iter__(self) -> Iterator[str]:
        return iter(TASK_MODULES)

    def __len__(self) -> int:
        return len(TASK_MODULES)


TASKS: Mapping[str, Mapping[str, Estimator]] = _Tasks()

COMMON_PARAMS: tuple[Param, ...] = (
    Param("epsilon", "float", None, min=0.0, max=float("inf"), help="target epsilon (> 0; "
          "inf for the non-private answer); give epsilon or rho"),
    Param("delta", "float", 0.0, min=0.0, max=limits.DELTA.high, help="target delta, "
          ">= 0 and < 1 (0 for pure DP)"),
    Param("rho", "float", None, min=0.0, help="target rho for a zCDP budget, instead of epsilon"),
    Param("accounting", "str", "zcdp", options=METHODS, choice=True,
          help="how releases are composed (delta = 0 forces linear)"),
    Param("seed", "int", None, min=0, max=limits.NOISE_SEED.high,
          help="a fixed noise seed: teaching randomness, the noise can be recomputed from it "
               "(not a private release); default fresh OS entropy, never shown"),
    Param("radius", "str", None, help="public radius R of the clipping ball B(center, R); "
          "default the unit ball; 'data' reads it from the data (not private)"),
    Param("paper_mode", "bool", False, help="reproduce the paper's own accounting choices"),
)

#: The data of each task's estimators: rows (a non-private entry's data are these) or a
#: graph's edges. A private entry states the relation it protects on its entry.
RELATIONS: Mapping[str, Relation] = MappingProxyType({
    "mean": REPLACE_ONE, "gmm": REPLACE_ONE, "factor_analysis": REPLACE_ONE,
    "covariance": REPLACE_ONE, "sbm": ONE_EDGE,
})


def relation_of(entry: Estimator) -> Relation:
    """The neighbouring relation ``entry`` protects (not private: its task's data's).

    Raises
    ------
    ValueError
        For a private entry that states no relation: its guarantee is proved for one.

    Examples
    --------
    >>> relation_of(estimator("sbm", "spectral")).name
    'add or remove one edge'
    """
    if entry.relation is not None:
        return entry.relation
    if entry.notion != "none":
        raise ValueError(f"{entry.task}/{entry.name} is private but its entry states no "
                         "neighbouring relation (Estimator.relation)")
    return RELATIONS[entry.task]


def common_param(name: str) -> Param:
    """One of the parameters every run shares."""
    return next(p for p in COMMON_PARAMS if p.name == name)


def estimator(task: str, name: str) -> Estimator:
    """Look up an estimator; a ``ValueError`` lists what exists.

    Examples
    --------
    >>> estimator(["gmm"], "dp_em")
    Traceback (most recent call last):
    ...
    ValueError: task must be a name such as 'gmm', got a list
    """
    for what, value, example in (("task", task, "gmm"), ("estimator", name, "dp_em")):
        if not isinstance(value, str):
            raise ValueError(f"{what} must be a name such as {example!r}, got a "
                             f"{type(value).__name__}")
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; the tasks are: {', '.join(TASKS)}")
    if name not in TASKS[task]:
        raise ValueError(f"unknown estimator {name!r} for task {task!r}; choose one of: "
                         f"{', '.join(TASKS[task])}")
    return TASKS[task][name]


def preparation_owner(task: str, name: str) -> str:
    """The first estimator of ``task`` with ``name``'s preparation: a cache's key for it.

    Estimators with one preparation so share the prepared data.

    Examples
    --------
    >>> preparation_owner("sbm", "projection"), preparation_owner("covariance", "emcov")
    ('weak_recovery', 'gauss')
    """
    entry = estimator(task, name)
    return next(other for other, e in TASKS[task].items() if e.prepare == entry.prepare)


def check_data(task: str, data: Any) -> None:
    """Refuse a graph given as rows: only the ``sbm`` task reads a graph.

    Examples
    --------
    >>> import networkx as nx
    >>> check_data("gmm", nx.karate_club_graph())
    Traceback (most recent call last):
    ...
    ValueError: a graph is data for the sbm task, not for gmm; give rows (an n × d array)
    """
    # a graph object exists only once its module is loaded: no import just to ask
    graphs = tuple(getattr(sys.modules.get(module), name, None) for module, name in
                   (("dpviz.data.graphs", "Graph"), ("networkx", "Graph")))
    if task != "sbm" and isinstance(data, tuple(t for t in graphs if t is not None)):
        raise ValueError(f"a graph is data for the sbm task, not for {task}; give rows (an "
                         "n × d array)")


def describe() -> dict[str, Any]:
    """What ``python -m dpviz list`` prints."""
    out: dict[str, Any] = {task: {name: est.to_dict(COMMON_PARAMS) for name, est in ests.items()}
                           for task, ests in TASKS.items()}
    from dpviz.estimators import metrics

    out["metrics"] = {task: list(metrics.METRICS.get(task, {})) for task in TASKS}
    out["datasets"] = list(data.DATASETS)
    out["generators"] = list(data.GENERATORS)
    return out


def version(task: str | None = None) -> str:
    """A short fingerprint of the registry (one task's entries, or every task's).

    A hash of what ``python -m dpviz list`` prints for them: names, labels, papers, notions,
    outputs, parameters and their defaults. A saved result records it
    (:func:`dpviz.lab.provenance.stamp`), so a result made before an estimator was added or a
    default changed says so.

    Examples
    --------
    >>> len(version("gmm")), version("gmm") == version("gmm"), version("gmm") == version("sbm")
    (12, True, False)
    """
    import hashlib
    import json

    described = describe()
    part = described if task is None else described[task]
    text = json.dumps(part, sort_keys=True, default=str, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]
