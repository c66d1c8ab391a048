"""``python -m dpviz risk``: the attack advantage, posterior bound and trade-off curve as JSON."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from scipy.stats import norm

from dpviz import cli

ROOT = Path(__file__).resolve().parents[1]


def strict_json(text):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def run(argv, capsys):
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_epsilon_delta(capsys):
    code, out, err = run(["risk", "--epsilon", "1", "--delta", "1e-5"], capsys)
    assert code == 0, err
    payload = strict_json(out)
    e = math.e
    assert payload["advantage"] == pytest.approx((e - 1 + 2e-5) / (e + 1), rel=1e-12)
    assert payload["posterior_max"] == pytest.approx(e / (1 + e), rel=1e-12)
    curve = payload["tradeoff"]
    assert curve[0] == [0.0, pytest.approx(1e-5)] and curve[-1] == [1.0, 1.0]
    fprs = [p[0] for p in curve]
    assert fprs == sorted(fprs)
    assert max(tpr - fpr for fpr, tpr in curve) == pytest.approx(payload["advantage"])


def test_pure_epsilon_without_delta(capsys):
    code, out, _ = run(["risk", "--epsilon", "2"], capsys)
    assert code == 0
    payload = strict_json(out)
    assert payload["delta"] == 0.0
    assert payload["advantage"] == pytest.approx(math.tanh(1.0))


def test_gaussian_plan_is_exact(capsys):
    code, out, err = run(["risk", "--mechanism", "gaussian", "--sensitivity", "1", "--sigma",
                          "2", "--count", "50"], capsys)
    assert code == 0, err
    payload = strict_json(out)
    mu = math.sqrt(50) / 2
    assert payload["advantage"] == pytest.approx(2 * norm.cdf(mu / 2) - 1, rel=1e-12)
    for fpr, tpr in payload["tradeoff"]:
        assert tpr == pytest.approx(1 - norm.cdf(norm.ppf(1 - fpr) - mu), abs=1e-9)
    assert payload["delta"] == 1e-5  # the documented default for plans
    assert payload["source"] == "gaussian"


def test_laplace_plan_and_out_file(tmp_path, capsys):
    target = tmp_path / "risk.json"
    code, out, err = run(["risk", "--mechanism", "laplace", "--scale", "1",
                          "--delta", "1e-6", "--out", str(target)], capsys)
    assert code == 0, err
    assert out == ""
    payload = strict_json(target.read_text())
    assert payload["advantage"] == pytest.approx(1 - math.exp(-0.5), abs=1e-3)
    assert payload["epsilon"] <= 1.0 + 1e-9


@pytest.mark.parametrize(("argv", "needle"), [
    (["risk"], "one of the arguments --epsilon --mechanism is required"),
    (["risk", "--epsilon", "-1"], "epsilon must be > 0"),
    (["risk", "--epsilon", "1", "--delta", "1"], "delta must be >= 0 and < 1"),
    (["risk", "--epsilon", "1", "--mechanism", "gaussian"], "not allowed with argument"),
    (["risk", "--mechanism", "gaussian"], "--mechanism gaussian needs --sigma"),
    (["risk", "--mechanism", "laplace", "--sigma", "1"], "--mechanism laplace needs --scale"),
    (["risk", "--mechanism", "gaussian", "--sigma", "0"], "noise scale must be > 0"),
    (["risk", "--mechanism", "gaussian", "--sigma", "1", "--count", "0"], "count must be"),
    (["risk", "--epsilon", "1", "--sigma", "2"], "--epsilon describes the guarantee alone"),
    (["risk", "--epsilon", "1", "--bogus"], "unrecognized arguments"),
])
def test_bad_input_exits_2_with_a_sentence(argv, needle, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2
    assert out == ""
    assert needle in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_module_entry_point():
    done = subprocess.run([sys.executable, "-m", "dpviz", "risk", "--epsilon", "0.5"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert strict_json(done.stdout)["advantage"] == pytest.approx(math.tanh(0.25))
