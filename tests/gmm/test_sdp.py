"""The clustering program's solver (dpviz.estimators.gmm.sdp): feasibility, certificate, vs
cvxpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz.estimators.gmm.sdp import (
    NotConvergedError,
    far_pairs,
    feasible_point,
    project_box,
    solve_clustering_program,
)


def clusters(m, seed, spread=0.1):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [0.6, 0.0], [0.3, 0.52]])
    return centres[rng.integers(3, size=m)] + rng.normal(0, spread, size=(m, 2))


def assert_feasible(w, far):
    assert np.allclose(w, w.T)
    assert np.allclose(np.diag(w), 1.0)
    assert w.min() >= 0.0 and w.max() <= 1.0 + 1e-12
    assert np.all(w[far] == 0.0)
    assert np.linalg.eigvalsh(w).min() >= -1e-9


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_answer_is_feasible_and_certified(seed):
    x = clusters(60, seed)
    out = solve_clustering_program(x, 0.4, tolerance=0.05)
    assert_feasible(out.matrix, far_pairs(x, 0.4))
    assert out.certificate <= 0.05
    assert out.certificate == pytest.approx(math.sqrt(2 * out.gap), abs=1e-6)
    assert np.linalg.eigvalsh(out.dual).min() >= -1e-9  # the dual certificate is PSD


def cvxpy_projection(x, distance):
    cp = pytest.importorskip("cvxpy")
    m = len(x)
    far = far_pairs(x, distance)
    w = cp.Variable((m, m), PSD=True)
    cons = [cp.diag(w) == 1, w >= 0, w <= 1]
    if far.any():
        cons.append(w[far] == 0)
    cp.Problem(cp.Minimize(cp.sum_squares(w - np.ones((m, m)))), cons).solve(
        solver="SCS", eps=1e-9, max_iters=200_000)
    return w.value


@pytest.mark.parametrize("seed,m,distance", [(0, 12, 0.4), (1, 25, 0.35), (2, 40, 0.5)])
def test_matches_cvxpy_within_the_certificate(seed, m, distance):
    x = clusters(m, seed)
    tolerance = 2e-2
    ours = solve_clustering_program(x, distance, tolerance=tolerance).matrix
    reference = cvxpy_projection(x, distance)
    # SCS at eps 1e-9 is accurate to far below our certified 2e-2
    assert np.linalg.norm(ours - reference) <= tolerance + 1e-5 * m


def test_a_loose_certificate_is_honest():
    """The true distance to the optimum never exceeds the certificate."""
    x = clusters(30, 4)
    exact = cvxpy_projection(x, 0.4)
    for tol in (1.0, 0.3, 0.1):
        out = solve_clustering_program(x, 0.4, tolerance=tol)
        assert np.linalg.norm(out.matrix - exact) <= out.certificate + 1e-6


def test_points_all_far_apart_give_the_identity():
    x = np.arange(8, dtype=float)[:, None] * 10
    out = solve_clustering_program(x, 1.0, tolerance=1e-9)
    assert np.array_equal(out.matrix, np.eye(8))


def test_identical_points_give_all_ones():
    out = solve_clustering_program(np.zeros((7, 3)), 0.1, tolerance=1e-9)
    assert np.allclose(out.matrix, 1.0)


def test_a_chain_with_no_consistent_clustering_still_solves():
    """Each point is near its neighbours only: no partition is consistent, yet K is never
    empty (the identity is in it), so the program is solved and certified."""
    x = np.arange(20, dtype=float)[:, None] * 0.3
    out = solve_clustering_program(x, 0.35, tolerance=1e-2)
    assert_feasible(out.matrix, far_pairs(x, 0.35))
    assert 0 < out.matrix[0, 1] < 1


def test_feasible_point_repairs_a_box_point():
    rng = np.random.default_rng(0)
    b = project_box(rng.uniform(-0.5, 1.5, size=(10, 10)), np.zeros((10, 10), bool))
    b = (b + b.T) / 2
    assert_feasible(feasible_point(b), np.zeros((10, 10), bool))


def test_bad_inputs_are_sentences():
    with pytest.raises(ValueError, match="distance must be > 0"):
        solve_clustering_program(np.zeros((3, 1)), 0.0, tolerance=0.1)
    with pytest.raises(ValueError, match="tolerance must be > 0"):
        solve_clustering_program(np.zeros((3, 1)), 1.0, tolerance=0.0)
    with pytest.raises(ValueError, match="finite"):
        solve_clustering_program(np.array([[np.nan]]), 1.0, tolerance=0.1)


def test_an_impossible_tolerance_raises_instead_of_releasing():
    x = clusters(30, 5)
    with pytest.raises(NotConvergedError, match="not certified"):
        solve_clustering_program(x, 0.4, tolerance=1e-14, max_iterations=10)
