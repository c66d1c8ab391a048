"""FriendlyCore (dpviz.estimators.gmm.friendly_core): sensitivities, noise, ledger, refusals."""

from __future__ import annotations

import math
import re
from itertools import permutations

import numpy as np
import pytest

import dpviz
from dpviz.data import gaussian_mixture
from dpviz.estimators.gmm.friendly_core import (
    CORE_MEANS,
    CORE_MIXING,
    CORE_WEIGHT,
    aggregate_tuples,
    can_run,
    core_average,
    core_budget,
    core_weight_sensitivity,
    core_weights,
    friend_matrix,
    friendly_core,
    means_sensitivity,
    mixing_sensitivity,
)
from dpviz.estimators.gmm.one_cluster import REFUSED
from dpviz.estimators.registry import TASKS
from dpviz.lab.feasibility import blocked
from dpviz.privacy import Budget

R = 0.1


def _chain_pair() -> tuple[np.ndarray, np.ndarray]:
    """The weight sensitivity's worst case (k = 1, 1-D, t = 11).

    Ten shared points spread over [0, 1.1r], all on the ramp in both; the changed tuple is
    friends with all of them in D (weight 1) and far away in D′ (weight 0): every shared
    degree drops by one, every shared weight by 1/Δ.
    """
    shared = np.linspace(0.0, 1.1 * R, 10)
    d = np.concatenate([[0.55 * R], shared])[:, None, None]
    d_prime = np.concatenate([[10.0], shared])[:, None, None]
    return d, d_prime


def _random_neighbours(rng: np.random.Generator, t: int = 15, k: int = 2
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tuples around k centres with a spread near r (degrees on the ramp), one replaced."""
    centres = np.array([[0.0, 0.0], [0.8, 0.0]])[:k]
    tuples = centres + rng.normal(scale=rng.uniform(0.2, 0.8) * R, size=(t, k, 2))
    tuples = tuples[:, rng.permutation(k)] if rng.random() < 0.5 else tuples
    mixing = rng.dirichlet(np.full(k, 60.0), size=t)  # weights about 1/k, spread near r_w
    other, other_mix = tuples.copy(), mixing.copy()
    other[0] = centres + rng.normal(scale=rng.choice([0.1, 1.0, 5.0]) * R, size=(k, 2))
    other_mix[0] = rng.dirichlet(np.full(k, rng.choice([1.0, 60.0])))
    return tuples, mixing, other, other_mix


def _set_distance(a: np.ndarray, b: np.ndarray) -> float:
    """min over relabellings of ‖a − b‖₂ (components in rows)."""
    return min(float(np.linalg.norm(a - b[list(p)])) for p in permutations(range(len(a))))


def test_the_core_weight_sensitivity_is_attained_by_the_chain_pair():
    d, d_prime = _chain_pair()
    ones = np.ones((11, 1))
    w, w_prime = (core_weights(friend_matrix(x, ones, R)) for x in (d, d_prime))
    assert w[0] == pytest.approx(1.0) and w_prime[0] == 0.0 and np.all(w_prime[1:] > 0)
    assert abs(w.sum() - w_prime.sum()) == pytest.approx(core_weight_sensitivity(11))


def test_no_neighbour_moves_a_release_further_than_its_sensitivity():
    rng = np.random.default_rng(0)
    moved = {"weight": 0.0, "means": 0.0, "mixing": 0.0}
    for _ in range(300):
        tuples, mixing, other, other_mix = _random_neighbours(rng)
        t, k, _ = tuples.shape
        w = core_weights(friend_matrix(tuples, mixing, R))
        w_prime = core_weights(friend_matrix(other, other_mix, R))
        change = abs(w.sum() - w_prime.sum())
        assert change <= core_weight_sensitivity(t) + 1e-12
        moved["weight"] = max(moved["weight"], change / core_weight_sensitivity(t))
        if w.sum() == 0 or w_prime.sum() == 0:
            continue
        low = min(w.sum(), w_prime.sum())  # any certified W_low ≤ max(W, W′) would do
        means, shares = core_average(tuples, mixing, w)
        means_p, shares_p = core_average(other, other_mix, w_prime)
        gap = _set_distance(means, means_p)
        assert gap <= means_sensitivity(t, k, R, low) + 1e-12
        moved["means"] = max(moved["means"], gap / means_sensitivity(t, k, R, low))
        both, both_p = np.c_[means, shares], np.c_[means_p, shares_p]
        best = min(permutations(range(k)),
                   key=lambda p: float(np.linalg.norm(both - both_p[list(p)])))
        share_gap = float(np.linalg.norm(shares - shares_p[list(best)]))
        assert share_gap <= mixing_sensitivity(t, k, low) + 1e-12
        moved["mixing"] = max(moved["mixing"], share_gap / mixing_sensitivity(t, k, low))
    # the search reaches a real share of each bound: the test could fail
    assert moved["weight"] > 0.3 and moved["means"] > 0.02 and moved["mixing"] > 0.02, moved


def _agreeing_tuples(t: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """t chunks that all agree (k = 2, 2-D): every tuple is in the core with weight 1."""
    rng = np.random.default_rng(5)
    tuples = np.array([[-0.4, 0.1], [0.5, -0.2]]) + rng.normal(scale=0.01, size=(t, 2, 2))
    return tuples, np.tile([0.3, 0.7], (t, 1))


def test_each_release_is_drawn_at_its_sensitivity_and_planned_noise():
    tuples, mixing = _agreeing_tuples()
    spend = core_budget(Budget(epsilon=4.0, delta=1e-5, method="pld"), len(tuples))
    found = aggregate_tuples(tuples, mixing, spend, rng=np.random.default_rng(1),
                             friend_radius=R)
    assert found.failed is None
    rows = {row.name: row for row in found.ledger.releases}
    weight = rows[CORE_WEIGHT]
    assert weight.mechanism == "truncated_laplace"
    assert weight.sensitivity == core_weight_sensitivity(400)
    assert weight.scale == pytest.approx(weight.sensitivity / spend.epsilon)
    assert weight.delta == spend.accounting.histogram_delta
    low = found.diagnostics["certified_core_weight"]
    for name, sensitivity in ((CORE_MEANS, means_sensitivity(400, 2, R, low)),
                              (CORE_MIXING, mixing_sensitivity(400, 2, low))):
        assert rows[name].mechanism == "gaussian"
        assert rows[name].sensitivity == pytest.approx(sensitivity)
        assert rows[name].scale == pytest.approx(spend.solved[name].scale_for(sensitivity))


def test_the_drawn_noise_has_the_recorded_scale():
    tuples, mixing = _agreeing_tuples()
    spend = core_budget(Budget(epsilon=4.0, delta=1e-5, method="pld"), len(tuples))
    exact = core_average(tuples, mixing, np.ones(len(tuples)))[0]
    exact = exact[np.lexsort(exact.T[::-1])]
    weight_noise, mean_noise = [], []
    for seed in range(300):
        found = aggregate_tuples(tuples, mixing, spend, rng=np.random.default_rng(seed),
                                 friend_radius=R)
        rows = {row.name: row for row in found.ledger.releases}
        noisy_total = found.diagnostics["certified_core_weight"] + spend.margin
        weight_noise.append((noisy_total - 400.0) / rows[CORE_WEIGHT].scale)
        mean_noise.extend(np.ravel(found.estimate["means"] - exact) / rows[CORE_MEANS].scale)
    # Laplace(b): sd √2·b (the truncation at A ≈ 12b removes nothing visible); Gaussian: sd σ
    assert np.std(weight_noise) == pytest.approx(math.sqrt(2), rel=0.15)
    assert np.std(mean_noise) == pytest.approx(1.0, rel=0.1)
    assert abs(np.mean(mean_noise)) < 0.15


def test_infinite_epsilon_releases_the_exact_core_average():
    tuples, mixing = _agreeing_tuples(50)
    spend = core_budget(Budget(epsilon=math.inf), 50)
    found = aggregate_tuples(tuples, mixing, spend, rng=np.random.default_rng(0),
                             friend_radius=R)
    means, shares = core_average(tuples, mixing, np.ones(50))
    rank = np.lexsort(means.T[::-1])
    np.testing.assert_allclose(found.estimate["means"], means[rank], atol=1e-12)
    np.testing.assert_allclose(found.estimate["weights"], shares[rank], atol=1e-12)
    assert all(row.scale == 0 for row in found.ledger.releases)


MIXTURE = gaussian_mixture(2, 2, 2_400, separation=8.0, seed=3)


def _run(seed: int, **budget: object):
    return friendly_core(MIXTURE.data, Budget(**{"epsilon": 8.0, "delta": 1e-5, **budget}),
                         rng=np.random.default_rng(seed), k=2, radius=1.0, chunks=60,
                         friend_radius=0.15)


def test_the_same_seed_gives_the_same_output():
    first, again, other = _run(4), _run(4), _run(5)
    assert first.failed is None
    np.testing.assert_array_equal(first.estimate["means"], again.estimate["means"])
    np.testing.assert_array_equal(first.estimate["weights"], again.estimate["weights"])
    assert not np.array_equal(first.estimate["means"], other.estimate["means"])


def test_without_noise_the_core_finds_the_mixture():
    exact = _run(0, epsilon=math.inf)
    truth = MIXTURE.means[np.lexsort(MIXTURE.means.T[::-1])]
    assert exact.failed is None and exact.diagnostics["core_weight"] > 30
    assert np.abs(exact.estimate["means"] - truth).max() < 0.03
    np.testing.assert_allclose(exact.estimate["weights"], MIXTURE.weights[
        np.lexsort(MIXTURE.means.T[::-1])], atol=0.05)


@pytest.mark.parametrize("method", ["pld", "advanced", "linear", "zcdp"])
def test_the_ledger_total_stays_within_the_budget(method):
    tuples, mixing = _agreeing_tuples()
    for epsilon in (1.0, 4.0):
        spend = core_budget(Budget(epsilon=epsilon, delta=1e-5, method=method), len(tuples))
        found = aggregate_tuples(tuples, mixing, spend, rng=np.random.default_rng(0),
                                 friend_radius=R)
        total = found.ledger.total()
        assert found.failed is None and len(found.ledger.releases) == 3
        assert total.epsilon is not None and total.epsilon <= epsilon * (1 + 1e-9)
        assert total.delta <= 1e-5 * (1 + 1e-9)


@pytest.mark.parametrize("params, message", [
    ({"friend_radius": 0.0}, "friend_radius must be"),
    ({"friend_radius": 2.0}, "friend_radius must be"),
    ({"chunks": 700}, "chunks = 700 chunks of at least 2k = 4 rows need 2800 rows"),
    ({"chunks": 3}, "chunks must be"),
    ({"k": 0}, "k must be"),
])
def test_bad_parameters_are_refused_with_a_sentence(params, message):
    args = {"k": 2, "radius": 1.0, "chunks": 60, **params}
    with pytest.raises(ValueError, match=re.escape(message)):
        friendly_core(MIXTURE.data, Budget(epsilon=1.0, delta=1e-5),
                      rng=np.random.default_rng(0), **args)


def test_bad_data_is_refused_with_a_sentence():
    bad = MIXTURE.data.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError) as refused:
        friendly_core(bad, Budget(epsilon=1.0, delta=1e-5), rng=np.random.default_rng(0), k=2)
    assert len(str(refused.value).split()) >= 4


def test_certain_bottom_is_refused_before_spending_and_names_the_n_that_works():
    found = friendly_core(MIXTURE.data, Budget(epsilon=1.0, delta=1e-5),
                          rng=np.random.default_rng(0), k=2, radius=1.0)
    why = TASKS["gmm"]["friendly_core"].cannot_run(n=2_400, d=2, k=2, epsilon=1.0,
                                                   delta=1e-5)
    assert why is not None and "even if every chunk agrees" in why
    assert found.failed.startswith(REFUSED + why)
    assert found.ledger.releases == ()
    needed = int(re.search(r"preconditions hold from about n = ([\d,]+) rows",
                           found.failed).group(1).replace(",", ""))
    assert can_run(n=needed, d=2, k=2, epsilon=1.0, delta=1e-5) is None
    assert can_run(n=int(needed / 1.03), d=2, k=2, epsilon=1.0, delta=1e-5) is not None
    found_later = blocked(TASKS["gmm"]["friendly_core"], n=2_400, d=2, k=2, epsilon=1.0,
                          delta=1e-5, reach=1)
    assert found_later is not None and found_later.n == needed  # one search, one number


def test_the_audit_pair_are_neighbours_it_runs_on():
    entry = TASKS["gmm"]["friendly_core"]
    pair = entry.neighbours()
    a, b = np.asarray(pair.data), np.asarray(pair.neighbour)
    assert a.shape == b.shape and np.sum(np.any(a != b, axis=1)) == 1
    for data in (a, b):
        found = dpviz.run("gmm", "friendly_core", data, epsilon=math.inf, seed=0, **pair.params)
        assert found.failed or math.isfinite(pair.statistic(found))
