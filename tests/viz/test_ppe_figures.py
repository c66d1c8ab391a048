"""Figures of the PPE story and of the sample-size calculator (dpviz.viz.ppe)."""

import math
import warnings

import numpy as np
import pytest

from dpviz.estimators.gmm import ppe
from dpviz.estimators.gmm.ppe import private_populous_estimator
from dpviz.estimators.gmm.sample_size import sample_size_plan
from dpviz.privacy import Budget
from dpviz.viz.ppe import (
    agreement_figure,
    chunks_figure,
    mask_figure,
    noisy_test_figure,
    plan_table,
    sample_size_figure,
)


def run(x, budget, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return private_populous_estimator(x, budget, rng=np.random.default_rng(0), **kwargs)


def past_the_calculator(x, budget, **kwargs):
    """The private path itself: the calculator refuses it at any testable n."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ppe, "can_run", lambda **_: None)
        return run(x, budget, **kwargs)


@pytest.fixture(scope="module")
def refused():
    x = np.random.default_rng(0).normal(size=(400, 2))
    return past_the_calculator(x, Budget(epsilon=1.0, delta=1e-6), k=2, chunks=10)


@pytest.fixture(scope="module")
def released():
    # constant rows: every chunk's mixture is the same, so the test passes
    return past_the_calculator(np.tile([[1.0, 2.0]], (2 * 584, 1)),
                               Budget(epsilon=1.0, delta=1e-6), k=1)


def test_chunks_figure_plots_every_chunk_mean(refused):
    fig = chunks_figure(refused)
    points = next(t for t in fig.data if t.name.startswith("chunk means"))
    assert np.allclose(points.x, refused.diagnostics["chunk_means"][:, :, 0].ravel())
    assert "not released" in points.name
    assert not any(t.name == "released (masked)" for t in fig.data)


def test_agreement_and_test_figures(refused):
    fig = agreement_figure(refused)
    assert np.allclose(fig.data[0].y, refused.diagnostics["agreement"])
    assert fig.layout.shapes[0].y0 == 0.6
    test = noisy_test_figure(refused)
    assert list(test.data[0].y) == [refused.diagnostics["Q"], refused.diagnostics["noisy_Q"],
                                    refused.diagnostics["threshold"]]
    assert "refused" in test.layout.title.text


def test_mask_figure_shows_unmasked_and_masked(released, refused):
    fig = mask_figure(released)
    masked = next(t for t in fig.data if t.name == "masked B(Y_j) (released)")
    assert np.allclose(masked.x, released.estimate["means"][:, 0])
    unmasked = next(t for t in fig.data if t.name == "unmasked Y_j (not released)")
    assert np.allclose(unmasked.y, released.diagnostics["unmasked"]["means"][:, 1])
    assert "nothing released" in mask_figure(refused).layout.title.text
    chunks = chunks_figure(released)
    assert any(t.name == "released (masked)" for t in chunks.data)


def test_sample_size_figure_is_on_log_axes():
    plans = [sample_size_plan(1.0, 1e-6, 2, 2, a, 0.05, 0.5) for a in (0.05, 0.1, 0.5)]
    fig = sample_size_figure(plans, sample_at_hand=1e4)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    n_trace = fig.data[0]
    assert list(n_trace.x) == [0.05, 0.1, 0.5]
    assert list(n_trace.y) == [p.n for p in plans]
    assert list(fig.data[3].y) == [1 / p.radius for p in plans]
    by_eps = sample_size_figure(plans, against="epsilon")
    assert list(by_eps.data[0].x) == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="against"):
        sample_size_figure(plans, against="n")
    table = plan_table(plans[1])
    assert table["quantity"][0] == "t" and len(table["value"]) == len(table["meaning"])
    assert math.isclose(float(table["value"][-1]), plans[1].n, rel_tol=1e-3)
