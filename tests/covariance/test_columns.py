"""The covariance task takes up to limits.max_columns("covariance") columns (the paper's
Figures 2 and 3(b) go to d = 800); the other tasks keep limits.MAX_COLUMNS."""

from __future__ import annotations

import numpy as np
import pytest

import dpviz
from dpviz.core import limits
from dpviz.lab.experiments.covariance_figures import figure_sweep


def test_covariance_runs_past_the_table_limit_and_other_tasks_do_not():
    x = np.random.default_rng(0).normal(size=(300, 400)) / 20
    result = dpviz.run("covariance", "separate", x, rho=0.1, radius=1.0, seed=0)
    assert result.estimate["covariance"].shape == (400, 400)
    with pytest.raises(ValueError, match="^data has 400 columns; dpviz takes at most 200$"):
        dpviz.run("mean", "gaussian", x, epsilon=1.0, delta=1e-6, radius=1.0, seed=0)


def test_covariance_refuses_more_than_its_own_limit():
    top = limits.max_columns("covariance")
    assert top >= 800
    with pytest.raises(ValueError, match=f"^data has {top + 1} columns; dpviz takes at most "
                                         f"{top}$"):
        dpviz.run("covariance", "gauss", np.zeros((3, top + 1)), rho=0.1, radius=1.0)


@pytest.mark.parametrize("name", ["fig2", "fig3b"])
def test_figures_reach_the_papers_d(name):
    spec = figure_sweep(name)
    assert max(dict(spec.grid)["data.d"]) == 800
