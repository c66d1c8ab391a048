"""The contract every registered estimator keeps (issue 16, item 6; issue 31, item 4).

Every clause of :func:`dpviz.lab.check.check_estimator` runs on every registry entry, on its
entry's example (tests/test_boundary_neighbours.py runs the neighbouring pairs' clause): the
ledger stays within the budget under every method it accepts, the same seed gives the same
output, bad input is refused with a sentence, ε = ∞ gives the non-private answer, and the
audit pair are neighbours the estimator runs on. The cases are built from the registry alone,
so a new estimator is covered by registering it. The tests below the clauses state what the
non-private answer is for the tasks with a closed form.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz.estimators.registry import TASKS
from dpviz.lab import check

CLAUSES = [clause for clause in check.CLAUSES if clause is not check.refuses_neighbours_alike]


def _entries(task: str | None = None) -> list:
    return [pytest.param(entry, id=f"{entry.task}/{entry.name}")
            for name in TASKS if task in (None, name) for entry in TASKS[name].values()]


@pytest.mark.parametrize("clause", CLAUSES, ids=lambda clause: clause.__name__)
@pytest.mark.parametrize("entry", _entries())
def test_every_entry_keeps_the_contract(entry, clause):
    clause(entry)


@pytest.mark.parametrize("entry", _entries("mean"))
def test_at_infinite_epsilon_a_mean_is_the_rows_mean(entry):
    rows, _ = check.instance(entry)
    result = check.run(entry, epsilon=math.inf, seed=3)
    np.testing.assert_allclose(result.estimate["mean"], rows.mean(axis=0), atol=1e-12)


@pytest.mark.parametrize("entry", _entries("covariance"))
def test_at_infinite_epsilon_a_covariance_is_the_second_moment(entry):
    """Dong et al.'s target XᵀX/n; an estimator that releases nothing: the zero matrix."""
    rows, _ = check.instance(entry)
    result = check.run(entry, epsilon=math.inf, seed=3)
    truth = rows.T @ rows / len(rows)
    np.testing.assert_allclose(result.diagnostics["true_covariance"], truth, atol=1e-12)
    expected = truth if result.ledger.releases else np.zeros_like(truth)
    np.testing.assert_allclose(result.estimate["covariance"], expected, atol=1e-12)
