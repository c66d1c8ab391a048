"""The papers' figures are sweeps of the one runner (dpviz.lab.experiments): SBM curves and the
covariance figures run through dpviz.run, and a run's noise seed depends on its estimator's
name, not on what else is registered."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from dpviz.estimators import registry
from dpviz.estimators import run as engine
from dpviz.lab.experiments import SweepSpec, replay, run_sweep
from dpviz.lab.experiments.covariance_figures import figure_sweep, run_figure
from dpviz.lab.experiments.sbm_curves import (
    curve_spec,
    error_curve,
    error_vs_n,
    load_saved,
    phase_diagram,
)


@pytest.fixture
def runs(monkeypatch):
    """Every (task, estimator) handed to dpviz.run, in order."""
    seen: list[tuple[str, str]] = []
    real = engine.run

    def spy(task, estimator, data, **kwargs):
        seen.append((task, estimator))
        return real(task, estimator, data, **kwargs)

    monkeypatch.setattr(engine, "run", spy)  # dpviz.run, where the lab calls it
    return seen


def register_toy(monkeypatch, task: str, like: str, name: str = "aaa_toy") -> None:
    """Register a copy of ``like`` as ``name`` (sorted first in its task)."""
    entries = registry.TASKS[task]
    toy = dataclasses.replace(entries[like], name=name)
    monkeypatch.setattr(registry, "TASKS", MappingProxyType({
        **registry.TASKS, task: MappingProxyType({name: toy, **entries})}))


def test_curves(tmp_path):
    df = error_curve(["weak_recovery", "spectral"], n=120, degree=30.0, signal=0.8,
                     epsilons=[0.5, 8.0], delta=1e-6, seeds=2, cache_dir=str(tmp_path))
    assert len(df) == 8 and df["error"].between(0, 0.5).all()
    assert df.groupby(["estimator", "epsilon"])["seed"].nunique().eq(2).all()  # 2 graphs...
    assert df.groupby("seed")["estimator"].size().eq(4).all()  # ...each seen by every run
    spectral = df[df.estimator == "spectral"]
    assert spectral.groupby("seed")["error"].nunique().eq(1).all()  # ε does not matter
    weak = df[df.estimator == "weak_recovery"].groupby("epsilon")["error"].median()
    assert weak[8.0] < weak[0.5]
    calls = []
    by_n = error_vs_n(["randomized_response"], ns=[60, 120], degree=20.0, signal=0.8,
                      epsilon=2.0, delta=0.0, seeds=1, progress=lambda d, t: calls.append(d),
                      cache_dir=str(tmp_path))
    assert by_n["n"].tolist() == [60, 120] and calls[-1] == 2
    phase = phase_diagram(["randomized_response"], n=100, degree=20.0, signals=[0.05, 0.9],
                          epsilons=[8.0], delta=0.0, seeds=2, cache_dir=str(tmp_path))
    assert list(phase.columns) == ["estimator", "signal", "epsilon", "success_rate",
                                   "median_error", "seeds"]
    assert phase["success_rate"].tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="unknown estimator 'nope'"):
        error_curve(["nope"], n=50, degree=5.0, signal=0.5, epsilons=[1.0], delta=0.0, seeds=1)
    with pytest.raises(ValueError, match="no saved SBM result 'nope'"):
        load_saved("nope")


def test_sbm_curves_run_through_dpviz_run(runs, tmp_path):
    df = error_curve(["randomized_response", "spectral"], n=80, degree=20.0, signal=0.8,
                     epsilons=[1.0, 4.0], delta=0.0, seeds=2, cache_dir=str(tmp_path))
    assert len(runs) == len(df) == 8
    assert sorted(set(runs)) == [("sbm", "randomized_response"), ("sbm", "spectral")]


def test_covariance_figures_run_through_dpviz_run(runs, tmp_path):
    table = run_figure("fig3d", repeats=1, estimators=("gauss", "zero"),
                       cache_dir=str(tmp_path))
    points = len(figure_sweep("fig3d").points())
    assert len(table) == 2 * points and (table["repeats"] == 1).all()
    assert runs == [("covariance", e) for _ in range(points) for e in ("gauss", "zero")]


def test_a_saved_figure_row_replays_alone(tmp_path):
    spec = figure_sweep("fig3d")
    one = SweepSpec.from_dict({**spec.to_dict(), "estimators": ["gauss"], "repeats": 1,
                               "grid": {"rho": [0.1]}, "data": {**spec.data, "n": 2000,
                                                                "d": 10}})
    row = run_sweep(one, cache_dir=tmp_path).iloc[0].to_dict()
    again = replay(one, row)
    assert again["frobenius_error"] == row["frobenius_error"] and again["seed"] == row["seed"]


def test_registering_an_estimator_leaves_the_others_noise_alone(monkeypatch, tmp_path):
    spec = curve_spec(["randomized_response", "gauss_adjacency"], n=80, degree=20.0,
                      signal=0.8, delta=1e-6, grid={"epsilon": [1.0, 2.0]}, seeds=2)
    before = run_sweep(spec, cache_dir=tmp_path / "before")
    register_toy(monkeypatch, "sbm", "spectral")  # sorts before every sbm estimator
    assert list(registry.TASKS["sbm"])[0] == "aaa_toy"
    widened = curve_spec(["aaa_toy", "randomized_response", "gauss_adjacency"], n=80,
                         degree=20.0, signal=0.8, delta=1e-6, grid={"epsilon": [1.0, 2.0]},
                         seeds=2)
    after = run_sweep(widened, cache_dir=tmp_path / "after")
    kept = after[after["estimator"] != "aaa_toy"].reset_index(drop=True)
    columns = ["estimator", "epsilon", "repeat", "seed", "data_seed", "error_rate"]
    assert kept[columns].equals(before[columns])
    assert before["seed"].nunique() == len(before)  # every run its own noise
