"""Every command-line and API crash of issue 23 (S4) is one sentence: exit 2, or a ValueError.

Each probe goes through the command line (``cli.main`` or a real process where the crash was
in the interpreter's shutdown) and, where it reaches :func:`dpviz.run`, through the API too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import dpviz
from dpviz import cli
from dpviz.estimators import registry
from dpviz.lab import experiments
from dpviz.lab.card import make_card
from dpviz.lab.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
ROWS = np.random.default_rng(3).uniform(-0.5, 0.5, size=(60, 2))
BUDGET = ["--epsilon", "1", "--delta", "1e-5"]
SPEC = {"task": "mean", "estimators": ["gaussian"], "data": {"generator": "zipf", "n": 200,
                                                             "d": 2},
        "fixed": {"delta": 1e-5}, "grid": {"epsilon": [1.0, 2.0]}, "repeats": 1, "seed": 0,
        "metrics": ["mean_error"]}


def refused(capsys, argv, *words):
    """Run the command line; it must exit 2 with one ``dpviz:`` sentence holding ``words``."""
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert_one_sentence(err, *words)
    return err


def assert_one_sentence(err, *words):
    lines = [line for line in err.splitlines() if not line.startswith("dpviz: sweep:")]
    assert len(lines) == 1 and lines[0].startswith("dpviz: "), err
    assert "Traceback" not in err and "internal error" not in err
    for word in words:
        assert word in lines[0]


@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "x.csv"
    np.savetxt(path, ROWS, delimiter=",", fmt="%.17g")
    return path


@pytest.fixture
def spec_path(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(SPEC))
    return path


def nested(depth):
    return "[" * depth + "]" * depth


# --- parameters that have their own flag, or are not parameters ---

@pytest.mark.parametrize(("given", "words"), [
    (["--set", "seed=5"], ["seed is not an estimator parameter", "--seed 5"]),
    (["--set", "epsilon=2"], ["epsilon is not an estimator parameter", "--epsilon 2"]),
    (["--paper_mode", "true"], ["paper_mode is not an estimator parameter", "--paper-mode"]),
    (["--set", "task=gmm"], ["task is not an estimator parameter"]),
    (["--rng", "x"], ["rng is not an estimator parameter"]),
])
@pytest.mark.parametrize("command", ["run", "card"])
def test_a_budget_or_run_argument_given_as_a_parameter_is_refused(capsys, csv_path, command,
                                                                  given, words):
    refused(capsys, [command, "mean", "gaussian", "--data", str(csv_path), *BUDGET, *given],
            *words)


def test_solve_refuses_the_seed_as_a_parameter_too(capsys):
    refused(capsys, ["solve", "mean", "gaussian", "--generator", "zipf", "--target",
                     "mean_error=0.5", "--set", "seed=5"], "--seed 5")


# --- data of the wrong kind ---

def test_an_edge_list_for_rows_and_rows_for_a_graph_are_refused(capsys, tmp_path, csv_path):
    edges = tmp_path / "e.csv"
    edges.write_text("0,1\n1,2\n")
    refused(capsys, ["run", "gmm", "dp_em", "--edges", str(edges), *BUDGET, "--k", "2"],
            "--edges is an edge list, data for the sbm task", "--data")
    refused(capsys, ["run", "sbm", "spectral", "--data", str(csv_path), "--epsilon", "1",
                     "--n", "4", "--degree", "2", "--signal", "0.5"], "give --edges")


@pytest.mark.parametrize("task", ["gmm", "mean", "covariance"])
def test_a_graph_given_as_rows_is_refused(task):
    with pytest.raises(ValueError, match=f"a graph is data for the sbm task, not for {task}"):
        dpviz.run(task, next(iter(registry.TASKS[task])), nx.karate_club_graph(),
                  epsilon=1.0, delta=1e-5, rho=None)


def test_an_id_of_2_to_the_64_minus_1_is_not_reported_as_minus_1(capsys, tmp_path):
    edges = tmp_path / "e.csv"
    edges.write_text(f"0,1\n1,{2**64 - 1}\n")
    err = refused(capsys, ["run", "sbm", "spectral", "--edges", str(edges), "--n", "4",
                           "--epsilon", "1", "--degree", "2", "--signal", "0.5"], "too large")
    assert "-1" not in err
    for ids in (np.array([[0, 1], [1, 2**64 - 1]], dtype=np.uint64), [[0, 1], [1, 2**64 - 1]]):
        with pytest.raises(ValueError, match="too large") as caught:
            dpviz.run("sbm", "spectral", ids, n=4, epsilon=1.0, degree=2.0, signal=0.5)
        assert "-1" not in str(caught.value)


# --- API arguments of the wrong type ---

@pytest.mark.parametrize(("change", "words"), [
    ({"rng": "x"}, "rng must be a numpy.random.Generator, got str"),
    ({"task": ["gmm"]}, "task must be a name such as 'gmm', got a list"),
    ({"estimator": {"dp_em": 1}}, "estimator must be a name such as 'dp_em', got a dict"),
])
def test_the_api_refuses_arguments_of_the_wrong_type(change, words):
    kwargs = {"task": "mean", "estimator": "gaussian", "data": ROWS, "epsilon": 1.0,
              "delta": 1e-5, **change}
    with pytest.raises(ValueError, match=words.replace(".", r"\.")):
        dpviz.run(**kwargs)


# --- cards and specs ---

def test_deeply_nested_json_in_a_card_or_a_spec_is_a_sentence(capsys, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(nested(100_000))
    refused(capsys, ["run", "--card", str(deep)], "nested too deeply")
    refused(capsys, ["sweep", str(deep), "--cache-dir", str(tmp_path / "cache")],
            "nested too deeply")


def test_a_card_whose_versions_are_null_is_a_sentence(capsys, tmp_path):
    scenario = Scenario.from_dict({"task": "mean", "estimator": "laplace",
                                   "data": {"generator": "zipf", "n": 200, "d": 2, "seed": 1},
                                   "params": {"epsilon": 1.0}, "seed": 4})
    card = make_card(scenario)
    card["versions"] = None
    card["result"]["mean"] = [9.0, 9.0]  # the replay differs: the versions are compared
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    refused(capsys, ["run", "--card", str(path)], "versions")


# --- sweeps: the cache folder, the number of processes, the scheduler ---

def test_a_cache_dir_that_is_a_file_is_a_sentence(capsys, tmp_path, spec_path):
    a_file = tmp_path / "cache"
    a_file.write_text("")
    refused(capsys, ["sweep", str(spec_path), "--cache-dir", str(a_file)], "is a file")
    refused(capsys, ["sweep", str(spec_path), "--cache-dir", str(a_file / "below")],
            "cannot make the cache folder")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        experiments.run_sweep(experiments.SweepSpec.from_dict(SPEC), cache_dir=a_file)


def test_jobs_are_capped_at_the_runs_and_the_cores_and_stderr_says_so(capsys, tmp_path,
                                                                      spec_path):
    code = cli.main(["sweep", str(spec_path), "--jobs", "256", "--cache-dir",
                     str(tmp_path / "cache")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    cores = len(os.sched_getaffinity(0))
    capped = min(2, cores)
    assert f"dpviz: warning: jobs = 256 capped at {capped}: the sweep has 2 runs to do" \
        in captured.err
    assert len(captured.out.splitlines()) == 2
    with pytest.warns(UserWarning, match="capped"):
        assert experiments.worker_count(256, 1000) == cores


def test_a_scheduler_that_is_not_an_address_exits_2_without_a_destructor_traceback(spec_path,
                                                                                   tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "dpviz", "sweep", str(spec_path),
                           "--scheduler", "notaurl", "--cache-dir", str(tmp_path / "cache")],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False,
                          timeout=120)
    assert done.returncode == 2
    assert_one_sentence(done.stderr, "--scheduler must be tcp://HOST:PORT", "'notaurl'")


@pytest.mark.parametrize("address", ["tcp://host", "http://h:1", "tcp://:8786", "tcp://h:x",
                                     "tcp://h:99999", ""])
def test_malformed_scheduler_addresses_are_refused_before_a_client_is_made(address):
    with pytest.raises(ValueError, match="--scheduler must be tcp://HOST:PORT"):
        experiments.check_scheduler(address)


# --- the last resort ---

@pytest.mark.parametrize(("error", "words"), [
    (RecursionError, "nested too deeply"),
    (MemoryError, "out of memory"),
])
def test_memory_and_recursion_errors_are_sentences(capsys, monkeypatch, error, words):
    def explode(*_args, **_kwargs):
        raise error

    monkeypatch.setattr(cli, "_account", explode)
    refused(capsys, ["account", "--mechanism", "gaussian", "--sigma", "1"], words)


def test_a_bug_is_still_an_internal_error_with_exit_1(capsys, monkeypatch):
    def explode(*_args, **_kwargs):
        raise KeyError("bug")

    monkeypatch.setattr(cli, "_account", explode)
    assert cli.main(["account", "--mechanism", "gaussian", "--sigma", "1"]) == 1
    assert "internal error (KeyError)" in capsys.readouterr().err
