"""Adding an estimator is one module and one registration (issue 16, item 2; issue 31, item 4).

A toy mixture estimator (tests/toy_estimator.py: its function and its registry entry, nothing
else) is registered in a fixture, and the command line, the picker, sweeps, the compare view,
the audit, the card, solve and the work budget all take it with no other edit; it passes
:func:`dpviz.lab.check.check_estimator`, and the registry-wide tests run it when it is
registered for their whole run. The registry stays immutable: the fixture swaps in new
read-only mappings (and every module that imported the old one sees the new).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from toy_estimator import NAME, TOY

import dpviz
import dpviz.estimators.gmm
import dpviz.ui.pages.gmm
import dpviz.ui.pages.gmm_compare
from dpviz import cli
from dpviz.core.entry import Estimator
from dpviz.data import as_matrix
from dpviz.estimators import registry
from dpviz.estimators.result import Result
from dpviz.estimators.work import check_work
from dpviz.lab import card, experiments, solve
from dpviz.lab.audit import audit_estimator, audit_unavailable, neighbour_pair
from dpviz.lab.check import check_estimator
from dpviz.lab.scenario import Scenario
from dpviz.privacy import Ledger, laplace

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = {"task": "gmm", "estimator": NAME,
            "data": {"generator": "gmm", "n": 400, "k": 2, "d": 2, "seed": 1},
            "params": {"epsilon": 1.0, "k": 2}, "seed": 5}


def register(monkeypatch: pytest.MonkeyPatch, entry: Estimator) -> Estimator:
    """The registry with ``entry`` added to the gmm task (new read-only mappings)."""
    original = registry.TASKS
    gmm = MappingProxyType({**original["gmm"], entry.name: entry})
    tasks = MappingProxyType({**original, "gmm": gmm})
    for module in list(sys.modules.values()):
        if getattr(module, "TASKS", None) is original:
            monkeypatch.setattr(module, "TASKS", tasks)
    monkeypatch.setattr(dpviz.estimators.gmm, "ESTIMATORS", gmm)
    return entry


@pytest.fixture()
def toy(monkeypatch):
    """The registry with the toy added to the gmm task."""
    return register(monkeypatch, TOY)


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


def test_it_passes_check_estimator(toy):
    check_estimator(toy)


def test_a_broken_toy_fails_naming_the_clause(monkeypatch):
    def unseeded(data, budget, *, rng, radius=None, k):  # fresh entropy whatever the seed
        return TOY.function(data, budget, rng=np.random.default_rng(), radius=radius, k=k)

    broken = register(monkeypatch, replace(TOY, name="toy_unseeded", function=unseeded))
    with pytest.raises(AssertionError, match="gmm/toy_unseeded fails same_seed_same_output: "
                                             "gmm/toy_unseeded answered differently"):
        check_estimator(broken)


def _refuses_outside_the_ball(data, budget, *, rng, radius=None, k):
    """Refused, as a failed result that spent nothing, when a row lies outside the unit ball."""
    if np.linalg.norm(as_matrix(data), axis=1).max() > 1:
        return Result(estimate={"weights": None, "means": None}, ledger=Ledger(),
                      failed="a row lies outside the ball")
    return TOY.function(data, budget, rng=rng, radius=radius, k=k)


def _silent_at_infinity(data, budget, *, rng, radius=None, k):
    """Releases nothing at ε = ∞ (the exact means, data read outside any release)."""
    if math.isinf(budget.epsilon or 0.0):
        rows = as_matrix(data)
        return Result(estimate={"weights": np.full(k, 1 / k),
                                "means": np.tile(rows.mean(axis=0), (k, 1))}, ledger=Ledger())
    return TOY.function(data, budget, rng=rng, radius=radius, k=k)


def _refuses_every_run(data, budget, *, rng, radius=None, k):
    return Result(estimate={"weights": None, "means": None}, ledger=Ledger(),
                  failed="refused before reading the data")


def _understated(data, budget, *, rng, radius=None, k):
    """The mean of the unclipped rows, its noise calibrated for rows in a ball of radius 0.1."""
    rows = as_matrix(data)
    ledger = Ledger()
    mean = laplace(rows.mean(axis=0), sensitivity=0.2 / len(rows),
                   scale=0.2 / len(rows) / budget.epsilon, rng=rng, ledger=ledger, name="mean")
    return Result(estimate={"weights": np.full(k, 1 / k), "means": np.tile(mean, (k, 1))},
                  ledger=ledger)


BROKEN = {  # a copy of the toy, what is broken, and the clause that must name it
    "no_relation": ({"relation": None}, "states_its_relation"),
    "no_pair_no_reason": ({"neighbours": None}, "audit_pair_are_neighbours"),
    "failed_refusal": ({"function": _refuses_outside_the_ball}, "refuses_neighbours_alike"),
    "silent_at_infinity": ({"function": _silent_at_infinity}, "infinite_epsilon_is_non_private"),
    "spends_nothing": ({"function": _refuses_every_run}, "spends_within_budget"),
    "understated": ({"function": _understated}, "releases_within_their_sensitivity"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_each_broken_toy_fails_its_clause(monkeypatch, name):
    changes, clause = BROKEN[name]
    broken = register(monkeypatch, replace(TOY, name=f"toy_{name}", **changes))
    with pytest.raises(AssertionError, match=f"gmm/toy_{name} fails {clause}: "):
        check_estimator(broken)


def test_a_stated_reason_excuses_a_missing_pair(monkeypatch):
    check_estimator(register(monkeypatch, replace(TOY, name="toy_slow", neighbours=None,
                                                  no_pair="too slow to audit")))
    assert "too slow to audit" in audit_unavailable("gmm", "toy_slow")


def test_its_unmeasured_cost_is_a_pass_over_the_data(toy):
    """Not its task's dearest estimator's cost (that refused it at n = 20 000 as about 5 s)."""
    assert toy.cost.seconds_per_unit is None
    assert check_work("gmm", NAME, n=20_000, d=2, k=3).seconds < 0.1
    with pytest.raises(ValueError, match=f"{NAME}'s time is not measured yet"):
        check_work("gmm", NAME, n=1_000_000, d=50, k=3)


@pytest.mark.slow  # every registry-wide test on the toy: 6-13 s (make test, not make check)
def test_the_registry_wide_tests_pick_it_up():
    """Registered for a whole run (a plugin), each of their cases runs it; no file edited."""
    files = ["tests/test_registry_contract.py", "tests/test_boundary_neighbours.py",
             "tests/privacy/test_secure_sampling.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "toy_estimator",
         "-k", NAME, "-o", "addopts=", *files],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "tests")},
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # the contract's 7 clauses, the boundary's relation and pairs, the secure and seeded runs
    assert "11 passed" in done.stdout, done.stdout[-3000:]
