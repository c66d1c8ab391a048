"""The two-ε attack: exact on teaching randomness (one seed), useless on secure randomness."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz.lab.lens import two_release_attack
from dpviz.viz.noise_reuse import SECURE_ROW, TEACHING_ROW, two_release_figure

VALUES = np.random.default_rng(11).uniform(-2.0, 3.0, size=40)
BUDGETS = [("laplace", 0.0, (1.0, 2.0)), ("laplace", 0.0, (0.3, 5.0)),
           ("gaussian", 1e-5, (1.0, 2.0)), ("gaussian", 1e-6, (0.5, 4.0))]


@pytest.mark.parametrize(("mechanism", "delta", "epsilons"), BUDGETS)
@pytest.mark.parametrize("seed", [0, 7, 2**64 + 5])
def test_one_seed_gives_the_exact_mean_away(mechanism, delta, epsilons, seed):
    attack = two_release_attack(VALUES, mechanism=mechanism, epsilons=epsilons, delta=delta,
                                lo=-1.0, hi=2.0, seed=seed)
    truth = np.clip(VALUES, -1.0, 2.0).mean()
    assert attack.shared_seed and attack.true_mean == pytest.approx(truth, abs=1e-15)
    assert attack.released[0] != attack.released[1]  # two noisy releases ...
    assert abs(attack.released[0] - truth) > 1e-6
    assert attack.error < 1e-12  # ... and the exact statistic from them
    assert attack.recovered == pytest.approx(truth, abs=1e-12)


@pytest.mark.parametrize(("mechanism", "delta", "epsilons"), BUDGETS)
def test_independent_noise_defeats_the_attack(mechanism, delta, epsilons):
    attacks = [two_release_attack(VALUES, mechanism=mechanism, epsilons=epsilons, delta=delta,
                                  lo=-1.0, hi=2.0, seed=None) for _ in range(5)]
    shared = two_release_attack(VALUES, mechanism=mechanism, epsilons=epsilons, delta=delta,
                                lo=-1.0, hi=2.0, seed=3)
    for attack in attacks:
        assert not attack.shared_seed
        # the same releases, only the noise differs (secure noise widens each scale by its
        # grid's relaxation, a few parts in 10⁹)
        assert attack.scales == pytest.approx(shared.scales, rel=1e-6)
        assert attack.error > 1e-6
        assert attack.spent.epsilon == pytest.approx(shared.spent.epsilon)
    # the answer's error is the noise b₁b₂(z₁ − z₂)/(b₂ − b₁): as large as a release's
    b1, b2 = shared.scales
    typical = b1 * b2 / (b2 - b1)
    assert np.median([a.error for a in attacks]) > 1e-3 * typical


def test_the_two_releases_are_charged_together():
    attack = two_release_attack(VALUES, mechanism="laplace", epsilons=(0.5, 2.0), delta=0.0,
                                lo=0.0, hi=1.0, seed=None)
    assert attack.spent.epsilon == pytest.approx(2.5) and attack.spent.delta == 0.0


def test_the_attack_needs_two_epsilons():
    with pytest.raises(ValueError, match="two different epsilons, got 1 twice"):
        two_release_attack(VALUES, mechanism="laplace", epsilons=(1.0, 1.0), delta=0.0,
                           lo=0.0, hi=1.0, seed=0)
    with pytest.raises(ValueError, match="needs delta > 0"):
        two_release_attack(VALUES, mechanism="gaussian", epsilons=(1.0, 2.0), delta=0.0,
                           lo=0.0, hi=1.0, seed=0)


def test_the_figure_draws_both_rows():
    args = {"mechanism": "laplace", "epsilons": (1.0, 2.0), "delta": 0.0, "lo": 0.0, "hi": 1.0}
    teaching = two_release_attack(VALUES, seed=1, **args)
    secure = two_release_attack(VALUES, seed=None, **args)
    fig = two_release_figure([teaching, secure])
    assert [t.name for t in fig.data] == ["release at ε₁ = 1", "release at ε₂ = 2",
                                          "attacker's answer (b₂·o₁ − b₁·o₂)/(b₂ − b₁)",
                                          "true mean (not released)"]
    assert list(fig.data[2].y) == [TEACHING_ROW, SECURE_ROW]
    assert list(fig.data[2].x) == [teaching.recovered, secure.recovered]
    assert fig.layout.shapes[0].x0 == teaching.true_mean
