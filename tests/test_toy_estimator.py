"""Adding an estimator is one module and one registration (issue 16, item 2).

A toy mixture estimator is registered in a fixture — its function and its registry entry,
nothing else — and the command line, the picker, sweeps, the compare view, the audit, the
card and solve all take it with no other edit. The registry stays immutable: the fixture
swaps in new read-only mappings (and every module that imported the old one sees the new).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import dpviz
import dpviz.estimators.gmm
import dpviz.ui.gmm
import dpviz.ui.gmm_compare
from dpviz import cli
from dpviz.core.entry import Estimator, shared_k
from dpviz.data import as_matrix
from dpviz.estimators import registry
from dpviz.estimators.mean import private_mean
from dpviz.estimators.neighbours import mixture_pair
from dpviz.estimators.result import Result
from dpviz.lab import card, experiments, solve
from dpviz.lab.audit import audit_estimator, audit_unavailable, neighbour_pair
from dpviz.lab.scenario import Scenario
from dpviz.privacy import Budget

ROOT = Path(__file__).resolve().parents[1]
NAME = "toy_centroid"


def toy_centroid(data: object, budget: Budget, *, rng: np.random.Generator,
                 radius: float | str | None = None, k: int) -> Result:
    """Every component at the Laplace mean of all rows, with equal weights."""
    inner = private_mean(as_matrix(data), budget, rng=rng, radius=radius, mechanism="laplace")
    means = np.tile(inner.estimate["mean"], (k, 1))
    return replace(inner, estimate={"weights": np.full(k, 1.0 / k), "means": means})


TOY = Estimator(task="gmm", name=NAME, function=toy_centroid, label="Toy centroid",
                paper="a test fixture", notion="pure", outputs=("weights", "means"),
                params=(shared_k(),), neighbours=mixture_pair)

SCENARIO = {"task": "gmm", "estimator": NAME,
            "data": {"generator": "gmm", "n": 400, "k": 2, "d": 2, "seed": 1},
            "params": {"epsilon": 1.0, "k": 2}, "seed": 5}


@pytest.fixture()
def toy(monkeypatch):
    """The registry with the toy added to the gmm task (new read-only mappings)."""
    original = registry.TASKS
    gmm = MappingProxyType({**original["gmm"], NAME: TOY})
    tasks = MappingProxyType({**original, "gmm": gmm})
    for module in list(sys.modules.values()):
        if getattr(module, "TASKS", None) is original:
            monkeypatch.setattr(module, "TASKS", tasks)
    monkeypatch.setattr(dpviz.estimators.gmm, "ESTIMATORS", gmm)
    return TOY


def test_the_command_line_lists_and_runs_it(toy, tmp_path, capsys):
    assert cli.main(["list"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["gmm"][NAME]["label"] == "Toy centroid"
    assert listed["gmm"][NAME]["params"]["k"]["max"] == 100
    rows = tmp_path / "rows.csv"
    np.savetxt(rows, np.random.default_rng(0).uniform(-0.5, 0.5, (50, 2)), delimiter=",")
    assert cli.main(["run", "gmm", NAME, "--data", str(rows), "--epsilon", "1", "--seed", "3",
                     "--radius", "1", "--set", "k=2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert np.asarray(out["means"]).shape == (2, 2)
    assert cli.main(["run", "gmm", NAME, "--data", str(rows), "--epsilon", "1",
                     "--set", "k=0"]) == 2
    assert "k must be >= 1" in capsys.readouterr().err


def test_the_picker_offers_it(toy):
    assert NAME in registry.describe()["gmm"]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/gmm.py").run()
    picker = at.selectbox(key="gmm_estimator")
    assert NAME in picker.options or "Toy centroid" in picker.options
    picker.set_value(NAME).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_a_sweep_and_the_compare_view_run_it(toy, tmp_path):
    spec = experiments.SweepSpec.from_dict({
        "task": "gmm", "estimators": [NAME, "dplloyd"], "data": SCENARIO["data"],
        "fixed": {"k": 2}, "grid": {"epsilon": [0.5, 2.0]}, "repeats": 2, "seed": 0,
        "metrics": ["mean_error"]})
    table = experiments.run_sweep(spec, jobs=1, cache_dir=tmp_path)
    ours = table[table["estimator"] == NAME]
    assert len(ours) == 4 and (ours["failed"] == "").all()
    assert np.isfinite(ours["mean_error"]).all()
    compare = experiments.compare_spec(Scenario.from_dict(SCENARIO), [NAME, "dp_em"],
                                       repeats=2)
    table = experiments.run_sweep(compare, jobs=1, cache_dir=tmp_path)
    assert set(table["estimator"]) == {NAME, "dp_em"}
    assert (table.loc[table["estimator"] == NAME, "failed"] == "").all()


def test_the_audit_uses_its_entrys_neighbours(toy):
    assert audit_unavailable("gmm", NAME) is None
    assert neighbour_pair("gmm", NAME).params["k"] == 2
    audit = audit_estimator("gmm", NAME, epsilon=1.0, runs=1_000, seed=0)
    assert audit.passed, audit.sentence()
    assert audit.claimed_epsilon == pytest.approx(1.0)
    assert audit.result.epsilon_lower > 0.1  # one Laplace release: the pair shows most of it


def test_a_card_replays_it(toy):
    made = card.make_card(Scenario.from_dict(SCENARIO))
    assert made["reproducible"] and made["scenario"]["estimator"] == NAME
    replayed = card.run_card(made)
    assert json.loads(json.dumps(replayed.to_dict())) == made["result"]


def test_solve_finds_its_epsilon(toy):
    answer = solve.solve_epsilon(Scenario.from_dict(SCENARIO), metric="weight_error",
                                 target=0.5, runs=4)
    assert answer.value is not None and math.isfinite(answer.value)
    assert answer.parameter == "epsilon"


def test_its_defaults_need_nothing_else(toy):
    assert toy.cannot_run(n=10, d=2, k=2, epsilon=1.0) is None  # can_run's default
    assert toy.preparation({"k": 2}) is None  # no prepare hook: the data as given
    assert toy.story is None
    run = dpviz.run("gmm", NAME, np.zeros((20, 2)), epsilon=1.0, k=2, seed=0, radius=1.0)
    assert run.ledger.total().epsilon == pytest.approx(1.0)
