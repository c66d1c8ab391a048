"""The PPE semimetric (Arbas 2023 §5, §6.2; ALGORITHMS.md §5)."""

import itertools

import numpy as np
import pytest
import scipy.linalg

from dpviz.estimators.gmm.semimetric import (
    Components,
    Z,
    bottleneck,
    component_distances,
    dist_comp,
    dist_cov,
    dist_param,
    mixtures_within,
    perfect_matching,
    within_distance,
)


def spd(rng, d, spread=1.0):
    a = rng.normal(size=(d, d)) * spread
    return a @ a.T + 0.5 * np.eye(d)


def frobenius_form(s1, s2):
    r1 = np.real(scipy.linalg.sqrtm(s1))
    r2 = np.real(scipy.linalg.sqrtm(s2))
    i2 = np.linalg.inv(s2)
    i1 = np.linalg.inv(s1)
    eye = np.eye(len(s1))
    return max(np.linalg.norm(r1 @ i2 @ r1 - eye), np.linalg.norm(r2 @ i1 @ r2 - eye))


@pytest.mark.parametrize("d", [1, 2, 5])
def test_dist_cov_equals_the_frobenius_form(d):
    rng = np.random.default_rng(d)
    for _ in range(20):
        s1, s2 = spd(rng, d), spd(rng, d)
        assert dist_cov(s1, s2) == pytest.approx(frobenius_form(s1, s2), rel=1e-8)
        assert dist_cov(s1, s2) == pytest.approx(dist_cov(s2, s1), rel=1e-10)


def test_the_vectorised_distance_matches_the_definition():
    rng = np.random.default_rng(3)
    k, d = 4, 3
    a, b = ((rng.dirichlet(np.ones(k)), rng.normal(size=(k, d)),
             np.stack([spd(rng, d) for _ in range(k)])) for _ in range(2))
    matrix = component_distances(a, b)
    for i, j in itertools.product(range(k), range(k)):
        gap = a[1][i] - b[1][j]
        mahal = max(np.sqrt(gap @ np.linalg.solve(a[2][i], gap)),
                    np.sqrt(gap @ np.linalg.solve(b[2][j], gap)))
        expected = max(abs(a[0][i] - b[0][j]), mahal, dist_cov(a[2][i], b[2][j]))
        assert matrix[i, j] == pytest.approx(expected, rel=1e-9)
        assert dist_comp(a[0][i], a[1][i], a[2][i], b[0][j], b[1][j], b[2][j]) == \
            pytest.approx(expected, rel=1e-9)


def test_affine_invariance():
    rng = np.random.default_rng(4)
    d = 3
    a_map, shift = rng.normal(size=(d, d)) + 3 * np.eye(d), rng.normal(size=d)
    w1, w2 = 0.3, 0.35
    m1, m2 = rng.normal(size=d), rng.normal(size=d)
    s1, s2 = spd(rng, d), spd(rng, d)
    before = dist_comp(w1, m1, s1, w2, m2, s2)
    after = dist_comp(w1, a_map @ m1 + shift, a_map @ s1 @ a_map.T,
                      w2, a_map @ m2 + shift, a_map @ s2 @ a_map.T)
    assert after == pytest.approx(before, rel=1e-7)


def near(rng, base, size, d):
    w, m, s = base
    root = np.real(scipy.linalg.sqrtm(s))
    e = rng.normal(size=(d, d)) * size / d
    return (w + rng.normal() * size / 3, m + root @ rng.normal(size=d) * size / np.sqrt(d),
            root @ scipy.linalg.expm((e + e.T) / 2) @ root)


def test_triangle_inequality_is_three_halves_approximate_when_restricted():
    # 1-restricted (3/2)-approximate: d(a, c) <= z (d(a, b) + d(b, c)) when both are <= 1
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(3000):
        d = int(rng.integers(1, 4))
        a = (rng.uniform(0.1, 0.9), rng.normal(size=d), spd(rng, d))
        size = rng.uniform(0.05, 1.5)
        b = near(rng, a, size, d)
        c = near(rng, b, size, d)
        ab, bc, ac = dist_comp(*a, *b), dist_comp(*b, *c), dist_comp(*a, *c)
        if ab <= 1 and bc <= 1 and ab + bc > 0:
            worst = max(worst, ac / (ab + bc))
    assert worst <= Z
    assert worst > 1.0  # the plain triangle inequality fails: z > 1 is needed


def brute_param(dist):
    k = dist.shape[0]
    return min(max(dist[i, p[i]] for i in range(k)) for p in itertools.permutations(range(k)))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_matching_test_agrees_with_all_permutations(k):
    rng = np.random.default_rng(k)
    for _ in range(200):
        dist = rng.uniform(0, 1, size=(k, k))
        exact = brute_param(dist)
        for threshold in (exact - 1e-12, exact, rng.uniform(0, 1)):
            assert within_distance(dist, threshold) == (exact <= threshold)
        value, pi = bottleneck(dist)
        assert value == exact
        assert max(dist[i, pi[i]] for i in range(k)) == exact


def test_dist_param_is_order_free():
    a = ([0.2, 0.8], [[0.0], [5.0]], [[[1.0]], [[2.0]]])
    b = ([0.8, 0.2], [[5.0], [0.0]], [[[2.0]], [[1.0]]])
    assert dist_param(a, b) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(("t", "k"), [(6, 1), (7, 2), (6, 3), (4, 6)])
def test_mixtures_within_matches_brute_force(t, k):
    rng = np.random.default_rng(10 * t + k)
    d = 2
    base = [(rng.dirichlet(np.ones(k)), rng.normal(size=(k, d)) * 3,
             np.stack([spd(rng, d) for _ in range(k)])) for _ in range(2)]
    mixtures = []
    for i in range(t):
        w, m, s = base[i % 2]
        order = rng.permutation(k)
        mixtures.append((w[order] + rng.normal(size=k) * 0.01,
                         m[order] + rng.normal(size=(k, d)) * 0.05, s[order]))
    comps = Components.of(np.concatenate([m[0] for m in mixtures]),
                          np.concatenate([m[1] for m in mixtures]),
                          np.concatenate([m[2] for m in mixtures]))
    for threshold in (0.01, 0.05, 0.1, 0.3, 10.0):
        got = mixtures_within(comps, k, threshold)
        expected = np.array([[dist_param(a, b) <= threshold for b in mixtures] for a in mixtures])
        assert np.array_equal(got, expected), threshold


def test_perfect_matching_and_bad_inputs():
    assert perfect_matching(np.zeros((2, 2), dtype=bool)) is None
    with pytest.raises(ValueError, match="square"):
        perfect_matching(np.ones((2, 3), dtype=bool))
    with pytest.raises(ValueError, match="not positive definite"):
        dist_comp(0.5, [0.0], [[-1.0]], 0.5, [0.0], [[1.0]])
    with pytest.raises(ValueError, match="m weights"):
        Components.of([0.5, 0.5], [[0.0]], [[[1.0]]])
    with pytest.raises(ValueError, match="do not split"):
        mixtures_within(Components.of([1.0] * 3, [[0.0]] * 3, [[[1.0]]] * 3), 2, 0.1)
