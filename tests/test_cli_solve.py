"""``python -m dpviz solve``: JSON out, exit 2 with a sentence on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dpviz import cli
from dpviz.lab.scenario import Scenario
from dpviz.lab.solve import solve_epsilon

ROOT = Path(__file__).resolve().parents[1]
MEAN = ["solve", "mean", "laplace", "--generator", "gmm", "--set-data", "n=500",
        "--set-data", "k=1", "--set-data", "d=2"]


def strict_json(text):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def main(argv, capsys):
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_solve_prints_the_answer_and_the_curve(capsys):
    code, out, err = main([*MEAN, "--target", "mean_error=0.02", "--runs", "10", "--seed",
                           "0"], capsys)
    assert code == 0, err
    payload = strict_json(out)
    assert payload["parameter"] == "epsilon" and payload["method"] == "simulation"
    assert payload["runs"] == 10 and payload["reachable"] is True
    assert all(len(pair) == 2 for pair in payload["searched"])
    xs = [x for x, _ in payload["searched"]]
    assert xs == sorted(xs) and payload["epsilon"] in xs
    scenario = Scenario.from_dict({"task": "mean", "estimator": "laplace",
                                   "data": {"generator": "gmm", "n": 500, "k": 1, "d": 2},
                                   "params": {"epsilon": 1.0}, "seed": 0})
    same = solve_epsilon(scenario, metric="mean_error", target=0.02, runs=10)
    assert payload["epsilon"] == same.value


def test_solve_for_n_and_the_closed_form(capsys, tmp_path):
    code, out, err = main([*MEAN, "--target", "mean_error=0.02", "--runs", "5", "--for", "n",
                           "--epsilon", "2", "--seed", "0"], capsys)
    assert code == 0, err
    payload = strict_json(out)
    assert payload["parameter"] == "n" and payload["epsilon"] == 2.0
    assert float(payload["n"]).is_integer()
    target = tmp_path / "solve.json"
    code, out, err = main(["solve", "mean", "gaussian", "--generator", "gmm", "--set-data",
                           "k=1", "--delta", "1e-5", "--target", "mean_error=0.01",
                           "--probability", "0.95", "--out", str(target)], capsys)
    assert code == 0 and out == "", err
    payload = strict_json(target.read_text())
    assert payload["method"] == "closed form" and payload["probability"] == 0.95


def test_unreachable_is_null_not_an_error(capsys):
    code, out, err = main([*MEAN, "--target", "mean_error=1e-9", "--runs", "3",
                           "--high", "1"], capsys)
    assert code == 0, err
    payload = strict_json(out)
    assert payload["epsilon"] is None and payload["reachable"] is False
    assert "not reachable even at ε = 1" in payload["reason"]


@pytest.mark.parametrize("extra, message", [
    (["--target", "mean_error"], "METRIC=VALUE"),
    (["--target", "overlap=0.9"], "unknown metric 'overlap' for the mean task"),
    (["--target", "mean_error=x"], "must be a number"),
    (["--target", "mean_error=0.1", "--probability", "0"], "probability must be > 0"),
    (["--target", "mean_error=0.1", "--runs", "0"], "runs must be"),
    (["--target", "mean_error=0.1", "--set-data", "q=1"], "unknown parameter 'q'"),
    ([], "the following arguments are required: --target"),
])
def test_bad_arguments_exit_2_with_a_sentence(capsys, extra, message):
    code, out, err = main([*MEAN, *extra], capsys)
    assert code == 2 and out == ""
    assert err.startswith("dpviz: ") and message in err and "Traceback" not in err


def test_private_files_and_missing_sources_are_refused(capsys, tmp_path):
    rows = tmp_path / "x.csv"
    rows.write_text("1,2\n3,4\n")
    code, _, err = main(["solve", "mean", "laplace", "--data", str(rows), "--target",
                         "mean_error=0.1"], capsys)
    assert code == 2 and "solve needs a synthetic twin" in err
    code, _, err = main(["solve", "mean", "laplace", "--target", "mean_error=0.1"], capsys)
    assert code == 2 and "exactly one of --generator" in err
    code, _, err = main(["solve", "mean", "laplace", "--dataset", "iris", "--set-data",
                         "n=5", "--target", "mean_error=0.1"], capsys)
    assert code == 2 and "--set-data sets a generator's parameters" in err
    code, _, err = main(["solve", "--target", "mean_error=0.1"], capsys)
    assert code == 2 and "solve needs TASK and ESTIMATOR" in err


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "dpviz", *MEAN, "--target", "mean_error=0.05",
                           "--runs", "3", "--seed", "0"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert strict_json(proc.stdout)["epsilon"] > 0
