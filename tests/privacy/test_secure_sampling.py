"""Secure randomness draws every Laplace and Gaussian release with the exact discrete sampler
(issues 23 and 33).

Every registered private estimator runs its entry's example once on the checks' small data
(:func:`dpviz.lab.check.run`) with ``rng=secure_generator()``: the discrete sampler
(:func:`dpviz.privacy.discrete_noise.add_discrete_noise`) and OpenDP's noisy max are spied on,
numpy's noise draw and the secure generator's own Laplace and Gumbel samplers must never run,
and every Laplace-or-Gaussian row of the ledger says ``sampler: discrete`` and matches a spied
call at its scale, and so does every exponential-mechanism row (an OpenDP selection) unless
its entry says numpy draws its choices (:attr:`~dpviz.core.entry.Estimator.numpy_choice`), where
the row names the exception. No secure row says plain ``numpy``. A seeded run of the same
estimator calls neither.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pytest
from opendp import measurements, measures, metrics
from opendp.mod import enable_features

import dpviz
from dpviz.core.entry import Estimator, always_runs
from dpviz.estimators.registry import TASKS
from dpviz.lab import check
from dpviz.privacy import Release, discrete_noise, mechanisms
from dpviz.privacy.randomness import SecureGenerator, is_secure, secure_generator

PRIVATE = [pytest.param(entry, id=f"{entry.task}/{entry.name}") for ests in TASKS.values()
           for entry in ests.values() if entry.notion != "none"]

#: Mechanisms whose noise is Laplace or Gaussian (AboveThreshold and the stable histogram
#: are Laplace noise on queries and counts).
NOISE_MECHANISMS = {"laplace", "gaussian", "symmetric_gaussian", "above_threshold",
                    "stable_histogram"}


@pytest.fixture(autouse=True)
def past_the_preconditions(monkeypatch):
    """On the checks' small data the estimators with preconditions refuse before drawing
    anything (issue 21): these tests are about how noise is drawn, so each entry's ``can_run``
    is stepped past where its module calls it."""
    for ests in TASKS.values():
        for entry in ests.values():
            if entry.can_run is not always_runs:
                monkeypatch.setattr(sys.modules[entry.can_run.__module__],
                                    entry.can_run.__name__, lambda **_: None)


def _run(entry: Estimator, **randomness: Any) -> dpviz.Result:
    """The entry's example on the checks' data (:func:`dpviz.lab.check.run`), at ε = 2."""
    return check.run(entry, epsilon=2.0, delta=0.0 if entry.notion == "pure" else 1e-6,
                     **randomness)


def _rows(releases: tuple[Release, ...]) -> list[Release]:
    """Every ledger row, composite rows' components included."""
    out: list[Release] = []
    for r in releases:
        out.append(r)
        out.extend(_rows(r.components))
    return out


@pytest.fixture
def spy(monkeypatch):
    """Record the discrete sampler's releases (the truncated Laplace and randomized response's
    flips too) and OpenDP's selections; fail on any numpy draw of noise or flips."""
    calls: list[tuple[str, float, int]] = []
    release, select = discrete_noise.add_discrete_noise, mechanisms._opendp_select
    truncated, flips = (discrete_noise.add_truncated_discrete_laplace,
                        discrete_noise.bernoulli_positions)

    def spied_release(mechanism, values, scale):
        calls.append((mechanism, scale, len(values)))
        return release(mechanism, values, scale)

    def spied_truncated(values, scale, epsilon, delta):
        calls.append(("truncated_laplace", scale, len(values)))
        return truncated(values, scale, epsilon, delta)

    def spied_flips(total, ratio):
        calls.append(("flips", float(ratio), total))
        return flips(total, ratio)

    def spied_select(utilities, scale):
        calls.append(("select", scale, len(utilities)))
        return select(utilities, scale)

    def numpy_noise(mechanism, scale, rng, shape):
        assert not is_secure(rng), f"numpy drew {mechanism} noise from a secure generator"
        calls.append(("numpy", scale, int(np.prod(shape))))
        return np.zeros(shape)

    def forbidden(self, *args, **kwargs):
        raise AssertionError("a secure generator's own Laplace, Gumbel or geometric sampler ran")

    monkeypatch.setattr(discrete_noise, "add_discrete_noise", spied_release)
    monkeypatch.setattr(discrete_noise, "add_truncated_discrete_laplace", spied_truncated)
    monkeypatch.setattr(discrete_noise, "bernoulli_positions", spied_flips)
    monkeypatch.setattr(mechanisms, "_opendp_select", spied_select)
    monkeypatch.setattr(mechanisms, "_numpy_noise", numpy_noise)
    monkeypatch.setattr(SecureGenerator, "laplace", forbidden, raising=False)
    monkeypatch.setattr(SecureGenerator, "gumbel", forbidden, raising=False)
    monkeypatch.setattr(SecureGenerator, "geometric", forbidden, raising=False)
    return calls


@pytest.mark.parametrize("entry", PRIVATE)
def test_a_secure_run_draws_every_laplace_and_gaussian_with_the_discrete_sampler(spy, entry):
    result = _run(entry, rng=secure_generator())
    assert result.seed is None
    rows = _rows(result.ledger.releases)
    noisy = [r for r in rows if r.mechanism in NOISE_MECHANISMS and 0 < r.scale < math.inf]
    assert not [c for c in spy if c[0] == "numpy"]
    for r in noisy:
        assert r.sampler == "discrete", r
        # AboveThreshold records 2Δ/ε and draws the queries' noise at twice that
        assert any(math.isclose(scale, r.scale) for _, scale, _ in spy), r
    drawn = [r for r in rows if r.sampler is not None]
    if drawn and all(r.sampler in ("discrete", "opendp") for r in drawn):
        assert spy, "the ledger says secure samplers, but none was called"
    # OpenDP makes every exponential-mechanism choice at its scale, unless the entry says
    # which choices numpy draws (a sampler OpenDP lacks)
    # no secure row is drawn by numpy unless it names why (the Bingham sampler); the truncated
    # Laplace and randomized response are the discrete sampler's, at the row's scale
    assert not [r for r in rows if r.sampler == "numpy"], rows
    for r in rows:
        if r.mechanism in ("truncated_laplace", "randomized_response") and r.sampler:
            assert r.sampler == "discrete", r
            kind = "truncated_laplace" if r.mechanism == "truncated_laplace" else "flips"
            assert any(c[0] == kind for c in spy), r
            if kind == "truncated_laplace":
                assert any(math.isclose(c[1], r.scale) for c in spy if c[0] == kind), r
    for r in rows:
        if r.mechanism == "exponential" and 0 < r.scale < math.inf:
            if entry.numpy_choice is not None:
                assert r.sampler == mechanisms.NUMPY_BINGHAM, r
                continue
            assert r.sampler == "opendp", r
            assert any(c[0] == "select" and math.isclose(c[1], r.scale) for c in spy), r
    # every estimator releases something with noise here (a run that released nothing would
    # prove nothing) but one whose answer ignores the data, as the zero baseline
    # (check.infinite_epsilon_is_non_private holds it to that)
    assert noisy or drawn or (entry.ignores_data and not rows), rows


@pytest.mark.parametrize("entry", PRIVATE)
def test_a_seeded_run_never_calls_a_secure_sampler(spy, entry):
    result = _run(entry, seed=3)
    assert not [c for c in spy if c[0] != "numpy"]
    assert all(r.sampler in (None, "numpy") for r in _rows(result.ledger.releases))


def test_opendp_charges_what_the_noisy_max_row_records():
    """OpenDP's own privacy map of the noisy max at our scales gives the ledger's ρ."""
    enable_features("contrib")
    floats = mechanisms._opendp_space()[0]
    for sensitivity, scale in ((1.0, 1.0), (0.3, 2.5), (2.0, 0.01)):
        # the exponential mechanism at scale 2Δ/ε is ε-DP, i.e. ε²/8-zCDP (bounded range)
        pick = measurements.make_noisy_max(floats, metrics.linf_distance(T=float),
                                           measures.zero_concentrated_divergence(),
                                           scale=scale)
        epsilon = 2 * sensitivity / scale
        assert pick.map(sensitivity) == pytest.approx(epsilon**2 / 8, rel=1e-12)


def test_a_secure_release_is_a_float_safe_rounding_of_the_value():
    """The value is released on the grid: huge values keep their magnitude, NaN and ∞ pass
    through."""
    rng = secure_generator()
    out = mechanisms.add_noise("gaussian", [1e15, np.nan, np.inf, -2.0], 1.0, rng)
    assert abs(out[0] - 1e15) < 50 and np.isnan(out[1]) and out[2] == np.inf
    assert abs(out[3] + 2.0) < 10
    scalar = mechanisms.add_noise("laplace", 3.0, 1e-9, rng)
    assert scalar.shape == () and abs(float(scalar) - 3.0) < 1e-6


def test_secure_generators_stay_secure_when_copied_and_spawned():
    import copy
    import pickle

    rng = secure_generator()
    assert is_secure(copy.deepcopy(rng)) and is_secure(pickle.loads(pickle.dumps(rng)))
    assert all(is_secure(child) for child in rng.spawn(2))
    assert not is_secure(np.random.default_rng(0))
    a, b = secure_generator(5), secure_generator(5)
    assert a.random() == b.random()
    assert secure_generator().random() != secure_generator().random()
    with pytest.raises(ValueError, match="entropy"):
        secure_generator(-1)
