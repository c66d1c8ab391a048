"""Each engine call of a secure rerun keys its own generator (``dpviz.ui.cached.noise_rng``).

One rerun's secret entropy used to key every call's secure generator alike, so the numpy
draws OpenDP does not make (the Bingham sampler, the truncated Laplace, randomized response's
flips) repeated across the estimators of one /covariance rerun. Only a run and its
non-private reference share a stream, to start from the same point.
"""

from __future__ import annotations

import copy
import secrets

import numpy as np
import pytest

from dpviz.estimators import run as engine
from dpviz.privacy.randomness import is_secure
from dpviz.ui import cached
from dpviz.ui.pages import covariance as cov_ui


def draws(rng: np.random.Generator) -> list[float]:
    """What ``rng`` would draw next (on a copy: the run itself is left as it is)."""
    return copy.deepcopy(rng).random(4).tolist()


def test_one_rerun_gives_each_stream_its_own_secure_key():
    seed = secrets.randbits(128)
    a, b = (cached.noise_rng(seed, True, s) for s in ("covariance/emcov", "covariance/gauss"))
    assert is_secure(a) and is_secure(b)
    assert draws(a) != draws(b)
    assert draws(cached.noise_rng(seed, True, "covariance/emcov")) == draws(a)  # a stream
    assert draws(cached.noise_rng(seed + 1, True, "covariance/emcov")) != draws(a)  # a rerun
    # teaching randomness is the seed's, whatever the stream: the command line replays it
    teaching = [draws(cached.noise_rng(5, False, s)) for s in ("lens", "gmm")]
    assert teaching == [draws(np.random.default_rng(5))] * 2


@pytest.fixture
def seen(monkeypatch):
    """The randomness each ``dpviz.run`` of the pages receives, before the run uses it."""
    calls: list[tuple[str, list[float]]] = []
    run = engine.run

    def spied(task, estimator, *args, **kwargs):
        calls.append((estimator, draws(kwargs["rng"]) if kwargs.get("rng") is not None else
                      draws(np.random.default_rng(kwargs["seed"]))))
        return run(task, estimator, *args, **kwargs)

    monkeypatch.setattr(engine, "run", spied)  # dpviz.run, where the lab calls it
    return calls


def test_the_covariance_estimators_of_one_secure_rerun_draw_apart(seen):
    from dpviz.lab.scenario import Scenario

    def chosen(seed: int | None) -> cov_ui.Chosen:
        return cov_ui.Chosen(tuple(Scenario.from_dict({
            "task": "covariance", "estimator": name,
            "data": {"generator": "zipf", "n": 300, "d": 3, "buckets": 8, "skew": 1.0,
                     "seed": 0},
            "params": {"rho": 0.5, "delta": 0.0, "radius": 1.0}, "seed": seed})
            for name in ("emcov", "separate", "gauss")), None, 0.0)

    cov_ui.run_all(chosen(None), secrets.randbits(128))  # a fresh rerun (and cache key)
    assert [name for name, _ in seen] == ["emcov", "separate", "gauss"]
    keys = [tuple(d) for _, d in seen]
    assert len(set(keys)) == 3, keys
    # teaching randomness: one seed for all of them, as before (and as a card replays it)
    seen.clear()
    cov_ui.run_all(chosen(secrets.randbits(32)), None)
    assert len({tuple(d) for _, d in seen}) == 1


def test_non_private_em_still_starts_where_the_secure_run_starts(seen):
    from dpviz.lab.scenario import Scenario
    from dpviz.ui.pages import gmm_runs

    fresh = secrets.randbits(128)
    scenario = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
                                   "data": {"dataset": "iris"},
                                   "params": {"epsilon": 1.0, "delta": 1e-6, "radius": 10.0}})
    gmm_runs.run(scenario, fresh=fresh)
    gmm_runs.run(gmm_runs.reference_scenario(scenario), fresh=fresh)
    assert [name for name, _ in seen] == ["dp_em", "em"]
    assert seen[0][1] == seen[1][1]
