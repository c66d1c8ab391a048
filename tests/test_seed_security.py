"""No free seed (issue 23, privacy item 1): OS entropy unless a seed is asked for, and then a label.

The red team's attack: a run's JSON printed ``"seed": 0`` beside the Gaussian mean, so anyone
redrew the noise, ``np.array(o["mean"]) - default_rng(o["seed"]).normal(0, scale, d)``, and
read the clipped mean exactly. It must work only with teaching randomness, which says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.random import default_rng

import dpviz
from dpviz import cli
from dpviz.estimators import registry
from dpviz.estimators.result import TEACHING_RANDOMNESS
from dpviz.privacy.randomness import secure_generator

ROOT = Path(__file__).resolve().parents[1]
DATA = np.random.default_rng(23).uniform(-0.5, 0.5, size=(200, 3))  # inside B(0, 1): no clipping
FLAGS = ["--epsilon", "1", "--delta", "1e-5"]


@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "x.csv"
    np.savetxt(path, DATA, delimiter=",", fmt="%.17g")
    return path


def cli_run(capsys, *argv):
    code = cli.main(["run", "mean", "gaussian", *argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), out.err


def recover(o):
    """The red team's snippet: subtract the noise redrawn from the printed seed."""
    scale = o["ledger"]["releases"][0]["scale"]
    return np.array(o["mean"]) - default_rng(o["seed"]).normal(0, scale, len(o["mean"]))


@pytest.mark.slow  # two command-line processes: 10 s (make test, not make check)
def test_the_command_line_twice_gives_fresh_noise_and_prints_no_seed(csv_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    outputs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "dpviz", "run", "mean", "gaussian",
                               "--data", str(csv_path), *FLAGS], capture_output=True,
                              text=True, env=env, cwd=ROOT, check=False, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "seed" not in done.stderr
        outputs.append(json.loads(done.stdout))
    first, second = outputs
    assert first["seed"] is None and second["seed"] is None
    assert "randomness" not in first["choices"]
    assert first["mean"] != second["mean"]


def test_an_explicit_seed_is_labelled_teaching_randomness(csv_path, capsys):
    o, _ = cli_run(capsys, "--data", str(csv_path), *FLAGS, "--seed", "3")
    assert o["seed"] == 3
    assert o["choices"]["randomness"] == TEACHING_RANDOMNESS
    again, _ = cli_run(capsys, "--data", str(csv_path), *FLAGS, "--seed", "3")
    assert again["mean"] == o["mean"]


def test_the_red_team_snippet_recovers_the_mean_only_with_teaching_randomness(csv_path,
                                                                               capsys):
    clipped_mean = DATA.mean(axis=0)  # every row inside the unit ball
    teaching, _ = cli_run(capsys, "--data", str(csv_path), *FLAGS, "--seed", "3")
    assert np.allclose(recover(teaching), clipped_mean, rtol=0, atol=1e-12)
    secure, _ = cli_run(capsys, "--data", str(csv_path), *FLAGS)
    scale = secure["ledger"]["releases"][0]["scale"]
    assert secure["seed"] is None
    # default_rng(None) is fresh entropy: the "recovered" mean is off by noise of that scale
    assert np.abs(recover(secure) - clipped_mean).max() > 1e-6 * scale


def test_the_api_defaults_to_secure_randomness():
    a = dpviz.run("mean", "gaussian", DATA, epsilon=1.0, delta=1e-5)
    b = dpviz.run("mean", "gaussian", DATA, epsilon=1.0, delta=1e-5)
    assert a.seed is None and a.to_dict()["seed"] is None
    assert "randomness" not in a.choices
    assert not np.array_equal(a.estimate["mean"], b.estimate["mean"])
    assert registry.common_param("seed").default is None


def test_a_seed_or_a_plain_generator_is_teaching_randomness_and_a_secure_one_is_not():
    seeded = dpviz.run("mean", "laplace", DATA, epsilon=1.0, seed=0)
    assert seeded.choices["randomness"] == TEACHING_RANDOMNESS
    assert seeded.to_dict()["choices"]["randomness"] == TEACHING_RANDOMNESS
    plain = dpviz.run("mean", "laplace", DATA, epsilon=1.0, rng=np.random.default_rng(1))
    assert plain.seed is None and plain.choices["randomness"] == TEACHING_RANDOMNESS
    secure = dpviz.run("mean", "laplace", DATA, epsilon=1.0, rng=secure_generator())
    assert secure.seed is None and "randomness" not in secure.choices


def test_a_card_without_a_seed_records_no_numbers_and_one_with_a_seed_replays(csv_path,
                                                                               capsys):
    code = cli.main(["card", "mean", "gaussian", "--data", str(csv_path), *FLAGS])
    secure = json.loads(capsys.readouterr().out)
    assert code == 0
    assert secure["reproducible"] is False and secure["result"] is None
    assert secure["scenario"]["seed"] is None
    code = cli.main(["card", "mean", "gaussian", "--data", str(csv_path), *FLAGS,
                     "--seed", "5"])
    teaching = json.loads(capsys.readouterr().out)
    assert code == 0 and teaching["reproducible"] is True
    assert teaching["scenario"]["seed"] == 5
    assert teaching["result"]["choices"]["randomness"] == TEACHING_RANDOMNESS
