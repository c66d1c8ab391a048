"""Refusal before spending (issue 21 item 2), through the entry point every caller uses.

For each mixture estimator with public preconditions, at sizes they rule out: ``dpviz.run``
answers ⊥ with the entry's own sentence (the same one the compare view and the explorer read,
:meth:`dpviz.core.entry.Estimator.cannot_run`), an empty ledger and no estimate, and the answer
is the same on two unrelated data sets of the same size — a refusal that depends on the rows
would itself leak. Under linear composition and under zCDP (whose budgets the histogram
estimators solve under PLD, a few hundredths of a second once per public budget). (How fast:
``bench/gmm_refusals.py``.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpviz
from dpviz.estimators.gmm.one_cluster import REFUSED
from dpviz.estimators.registry import TASKS

#: estimator → (n, ε, what the sentence must say it needs).
CASES = {
    "private_pca_clustering": (3_000, 1.0, "its preconditions hold from about n = 4,"),
    "sample_aggregate": (10_000, 1.0, "its preconditions hold from about n = 3"),
    "friendly_core": (10_000, 0.5, "its preconditions hold from about n = "),
    "ppe": (10_000, 1.0, "its guarantee needs about n = "),
    "stability": (10_000, 1.0, "it would need a subsample of about m = 8.6e+05 rows"),
    "grid_means": (200, 0.5, "it needs about n = "),
}


@pytest.mark.parametrize("accounting", ["linear", "zcdp"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_certain_bottom_is_refused_with_an_empty_ledger_on_any_rows(name, accounting):
    n, epsilon, needs = CASES[name]
    entry = TASKS["gmm"][name]
    why = entry.cannot_run(n=n, d=2, k=3, epsilon=epsilon, delta=1e-5, accounting=accounting)
    assert why is not None
    rng = np.random.default_rng(0)
    answers = []
    for rows in (rng.normal(size=(n, 2)), rng.uniform(-1, 1, size=(n, 2))):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing about the rows was even looked at
            result = dpviz.run("gmm", name, rows, k=3, epsilon=epsilon, delta=1e-5,
                               accounting=accounting, radius=1.0, seed=0)
        assert result.failed.startswith(REFUSED + why) and needs in result.failed
        assert "would succeed" not in result.failed  # a precondition's n is not a success's
        assert result.ledger.releases == ()
        assert all(value is None for value in result.estimate.values())
        assert result.to_dict()["ledger"]["releases"] == []
        answers.append(result.to_dict())
    assert answers[0] == answers[1]
