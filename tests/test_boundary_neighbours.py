"""No refusal that depends on the private data (issue 23, privacy item 3).

A refusal is an output: if an estimator answers on a dataset and refuses on its neighbour,
seeing which happened tells the two apart with certainty, whatever ε the ledger says. So every
registered private estimator runs on neighbouring inputs at the edges of validity — under the
relation *that estimator* protects (its entry's, :func:`dpviz.estimators.registry.relation_of`)
— and both must answer, or both be refused with the same sentence
(:func:`dpviz.lab.check.refuses_neighbours_alike`, whose module docstring lists the pairs of
each relation).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpviz
from dpviz.estimators.registry import TASKS, relation_of
from dpviz.lab import check
from dpviz.privacy.risk import ONE_EDGE, REPLACE_ONE

PRIVATE = [pytest.param(entry, id=f"{entry.task}/{entry.name}") for ests in TASKS.values()
           for entry in ests.values() if entry.notion != "none"]


@pytest.mark.parametrize("entry", PRIVATE)
def test_every_private_estimator_protects_a_relation_with_pairs(entry):
    check.states_its_relation(entry)  # on its entry: the task's data do not say it
    assert relation_of(entry) in (REPLACE_ONE, ONE_EDGE)  # pairs exist for these two
    assert check.pairs(entry)


@pytest.mark.parametrize("entry", PRIVATE)
def test_neighbours_at_the_edges_of_validity_are_treated_alike(entry):
    check.refuses_neighbours_alike(entry)


@pytest.mark.parametrize("name", [e.name for e in TASKS["sbm"].values() if e.notion != "none"])
def test_the_empty_graph_gets_a_private_answer(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dpviz.run("sbm", name, np.zeros((0, 2)), n=8, epsilon=1.0, delta=1e-6,
                           seed=5, **check.PAIR_MODEL)
    labels = np.asarray(result.estimate["labels"])
    assert labels.shape == (8,) and set(np.unique(labels)) <= {-1, 1}
    assert result.failed is None
    assert result.ledger.total().epsilon == pytest.approx(1.0, rel=1e-6)
