"""A toy mixture estimator: its function and its registry entry, nothing else (issue 16, item 2).

tests/test_toy_estimator.py registers it for one test at a time; as a pytest plugin
(``-p toy_estimator``, with ``tests/`` on the path) it is registered for a whole run, which shows
the registry-wide tests pick it up with no edit to their files.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import numpy as np

import dpviz.estimators.gmm
from dpviz.core.entry import Estimator, shared_k
from dpviz.core.relations import REPLACE_ONE
from dpviz.data import as_matrix
from dpviz.estimators.mean import private_mean
from dpviz.estimators.neighbours import mixture_pair
from dpviz.estimators.result import Result
from dpviz.privacy import Budget

NAME = "toy_centroid"


def toy_centroid(data: object, budget: Budget, *, rng: np.random.Generator,
                 radius: float | str | None = None, k: int) -> Result:
    """Every component at the Laplace mean of all rows, with equal weights."""
    inner = private_mean(as_matrix(data), budget, rng=rng, radius=radius, mechanism="laplace")
    means = np.tile(inner.estimate["mean"], (k, 1))
    return replace(inner, estimate={"weights": np.full(k, 1.0 / k), "means": means})


TOY = Estimator(task="gmm", name=NAME, function=toy_centroid, label="Toy centroid",
                paper="a test fixture", notion="pure", outputs=("weights", "means"),
                params=(shared_k(),), relation=REPLACE_ONE, neighbours=mixture_pair,
                example={"k": 2})


def pytest_configure(config: object) -> None:
    """As a plugin: the toy in the gmm task's mapping, which the registry reads on each use."""
    gmm = dpviz.estimators.gmm
    gmm.ESTIMATORS = MappingProxyType({**gmm.ESTIMATORS, NAME: TOY})
