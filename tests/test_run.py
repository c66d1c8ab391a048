"""``dpviz.run``: the one entry point of the CLI, the pages and the sweeps (DESIGN.md)."""

from __future__ import annotations

import contextlib
import json
import math
import signal

import numpy as np
import pytest

import dpviz
from dpviz import cli
from dpviz.core import limits
from dpviz.estimators.result import Result
from dpviz.privacy import METHODS, BudgetError

X = np.random.default_rng(42).uniform(-1.0, 1.0, size=(300, 3)) * 0.6
ESTIMATORS = ("laplace", "gaussian")


def strict_json(text):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


# --- reproducibility ---

@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_same_inputs_and_seed_give_the_same_output(estimator):
    a = dpviz.run("mean", estimator, X, epsilon=0.5, delta=1e-6, seed=123)
    b = dpviz.run("mean", estimator, X.copy(), epsilon=0.5, delta=1e-6, seed=123)
    assert a.to_dict() == b.to_dict()
    assert np.array_equal(a.estimate["mean"], b.estimate["mean"])
    c = dpviz.run("mean", estimator, X, epsilon=0.5, delta=1e-6, seed=124)
    assert not np.array_equal(a.estimate["mean"], c.estimate["mean"])


def test_the_seed_is_recorded_and_replays():
    result = dpviz.run("mean", "laplace", X, epsilon=1.0, seed=2**32 - 1)
    assert result.seed == 2**32 - 1
    again = dpviz.run("mean", "laplace", X, epsilon=1.0, seed=result.seed)
    assert np.array_equal(result.estimate["mean"], again.estimate["mean"])


def test_seed_none_draws_fresh_noise():
    a = dpviz.run("mean", "laplace", X, epsilon=1.0, seed=None)
    b = dpviz.run("mean", "laplace", X, epsilon=1.0, seed=None)
    assert a.seed is None and b.seed is None
    assert not np.array_equal(a.estimate["mean"], b.estimate["mean"])
    assert a.to_dict()["seed"] is None


def test_a_given_generator_is_used_and_advanced():
    rng = np.random.default_rng(5)
    first = dpviz.run("mean", "gaussian", X, epsilon=1.0, delta=1e-5, rng=rng)
    second = dpviz.run("mean", "gaussian", X, epsilon=1.0, delta=1e-5, rng=rng)
    assert not np.array_equal(first.estimate["mean"], second.estimate["mean"])
    replay = dpviz.run("mean", "gaussian", X, epsilon=1.0, delta=1e-5,
                       rng=np.random.default_rng(5))
    assert np.array_equal(first.estimate["mean"], replay.estimate["mean"])


def test_a_given_generator_is_not_reported_as_seed_zero():
    result = dpviz.run("mean", "laplace", X, epsilon=1.0, rng=np.random.default_rng(5))
    replay = dpviz.run("mean", "laplace", X, epsilon=1.0, seed=result.seed)
    assert result.seed is None or np.array_equal(result.estimate["mean"],
                                                 replay.estimate["mean"])


def test_the_input_array_is_not_modified():
    data = np.array([[3.0, 4.0], [0.1, 0.2], [0.0, -5.0]])
    before = data.copy()
    dpviz.run("mean", "laplace", data, epsilon=1.0, radius=1.0)
    assert np.array_equal(data, before)


# --- the result and its JSON ---

@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_to_dict_is_exactly_the_run_json(estimator):
    result = dpviz.run("mean", estimator, X, epsilon=1.0, delta=1e-5, seed=3, radius=0.9)
    assert isinstance(result, Result)
    out = result.to_dict()
    assert list(out) == ["task", "estimator", "seed", "mean", "ledger", "choices",
                         "not_private", "failed"]
    assert (out["task"], out["estimator"], out["seed"]) == ("mean", estimator, 3)
    assert out["mean"] == result.estimate["mean"].tolist()
    assert len(out["mean"]) == 3
    assert out["not_private"] is None and out["failed"] is None
    (release,) = out["ledger"]["releases"]
    assert set(release) == {"name", "mechanism", "sensitivity", "norm", "scale", "epsilon",
                            "delta", "rho", "count", "part", "sampler"}
    assert release["count"] == 1 and release["part"] is None
    assert release["sampler"] == "numpy"  # seeded: teaching randomness
    total = out["ledger"]["total"]
    assert set(total) == {"epsilon", "delta", "rho", "method"}
    assert total["epsilon"] == pytest.approx(1.0, rel=1e-6)
    assert total["delta"] == 1e-5
    assert out["choices"]["radius"] == 0.9
    assert strict_json(json.dumps(out, allow_nan=False)) == out


def test_to_dict_writes_infinity_as_a_string():
    out = dpviz.run("mean", "laplace", X, epsilon=math.inf).to_dict()
    text = json.dumps(out, allow_nan=False)  # raises on inf / nan
    back = strict_json(text)
    assert back["ledger"]["releases"][0]["epsilon"] == "inf"
    assert back["ledger"]["total"]["epsilon"] == "inf"


def test_the_cli_prints_what_to_dict_gives(tmp_path, capsys):
    path = tmp_path / "x.csv"
    np.savetxt(path, X, delimiter=",", header="a,b,c", comments="", fmt="%.17g")
    assert cli.main(["run", "mean", "gaussian", "--data", str(path), "--epsilon", "0.8",
                     "--delta", "1e-6", "--seed", "9", "--radius", "2"]) == 0
    printed = strict_json(capsys.readouterr().out)
    expected = strict_json(json.dumps(dpviz.run("mean", "gaussian", X, epsilon=0.8, delta=1e-6,
                                                seed=9, radius=2.0).to_dict()))
    # a CSV adds what only a file has: its column names and the clipped rows, a non-private
    # teaching diagnostic labelled as such
    clipped = printed["choices"].pop("clipped_rows")
    assert printed["choices"].pop("columns") == ["a", "b", "c"]
    outside = int((np.linalg.norm(X, axis=1) > 2.0).sum())
    assert (clipped["count"], clipped["of"]) == (outside, len(X))
    assert "not private" in clipped["note"]
    assert printed == expected


# --- the ledger meets the budget ---

BUDGET_CASES = [(est, method, eps, delta)
                for est in ESTIMATORS
                for method in METHODS
                for eps in (0.1, 1.0, 5.0)
                for delta in ((0.0, 1e-5) if est == "laplace" else (1e-5, 1e-9))]


@pytest.mark.parametrize(("estimator", "method", "epsilon", "delta"), BUDGET_CASES)
def test_ledger_total_meets_the_budget(estimator, method, epsilon, delta):
    result = dpviz.run("mean", estimator, X, epsilon=epsilon, delta=delta, accounting=method)
    total = result.ledger.total()
    assert total.delta == delta
    # delta = 0 is pure DP: only linear composition applies
    assert total.method == (method if delta > 0 else "linear")
    # never above the target (up to float rounding, see the strict test below) …
    assert total.epsilon <= epsilon * (1 + 1e-12)
    # … and not wastefully below it: the solver spends the whole budget
    assert total.epsilon == pytest.approx(epsilon, rel=1e-6)
    again = result.ledger.total(method=total.method, delta=delta)
    assert again == total


def test_ledger_total_never_exceeds_the_budget_strictly():
    over = []
    for estimator, method, epsilon, delta in BUDGET_CASES:
        result = dpviz.run("mean", estimator, X, epsilon=epsilon, delta=delta,
                           accounting=method)
        if result.ledger.total().epsilon > epsilon:
            over.append((estimator, method, epsilon, delta, result.ledger.total().epsilon))
    assert over == []


@pytest.mark.parametrize("method", ["zcdp", "rdp", "pld", "advanced"])
def test_paper_mode_meets_the_budget(method):
    result = dpviz.run("mean", "gaussian", X, epsilon=0.5, delta=1e-5, accounting=method,
                       paper_mode=True)
    assert result.ledger.total().epsilon == pytest.approx(0.5, rel=1e-6)
    assert result.choices["gaussian calibration"] == "classic"


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_rho_budget_is_met_in_rho(estimator):
    result = dpviz.run("mean", estimator, X, rho=0.125)
    total = result.ledger.total()
    assert total.rho == pytest.approx(0.125, rel=1e-9)
    assert total.method == "zcdp"


def test_no_noise_at_epsilon_inf_and_any_method():
    for method in METHODS:
        result = dpviz.run("mean", "gaussian", X, epsilon=math.inf, delta=1e-5,
                           accounting=method)
        assert result.ledger.releases[0].scale == 0.0
        assert np.array_equal(result.estimate["mean"], result.diagnostics["true_mean"])


def test_more_budget_means_less_noise():
    for estimator in ESTIMATORS:
        scales = [dpviz.run("mean", estimator, X, epsilon=e, delta=1e-5).ledger.releases[0].scale
                  for e in (0.1, 0.5, 1.0, 4.0)]
        assert all(a > b for a, b in zip(scales, scales[1:], strict=False)), (estimator, scales)


def test_tighter_accounting_needs_less_noise_for_the_gaussian():
    scale = {m: dpviz.run("mean", "gaussian", X, epsilon=1.0, delta=1e-5,
                          accounting=m).ledger.releases[0].scale for m in METHODS}
    # one release: PLD (the exact analytic Gaussian) is optimal; zCDP's conversion costs
    assert scale["pld"] <= min(scale.values()) * (1 + 1e-9)
    assert scale["linear"] == pytest.approx(scale["pld"], rel=1e-6)
    assert scale["zcdp"] > scale["pld"]


# --- bad input: a ValueError with a sentence, the same one the CLI prints ---

BAD = [
    # (python keyword arguments, CLI arguments, message, CLI prefix)
    ({"epsilon": -1.0}, ["--epsilon", "-1.0"], "epsilon must be > 0 and <= 1000, got -1.0",
     "argument --epsilon: "),
    ({"epsilon": 1.0, "delta": 1.0}, ["--epsilon", "1", "--delta", "1.0"],
     "delta must be >= 0 and < 1, got 1.0", "argument --delta: "),
    ({"epsilon": 1.0, "delta": -0.1}, ["--epsilon", "1", "--delta", "-0.1"],
     "delta must be >= 0 and < 1, got -0.1", "argument --delta: "),
    ({"epsilon": 1.0, "seed": -1}, ["--epsilon", "1", "--seed", "-1"],
     f"seed must be {limits.NOISE_SEED.describe()}, got -1", "argument --seed: "),
    ({"epsilon": 1.0, "radius": -1.0}, ["--epsilon", "1", "--radius", "-1.0"],
     "radius must be > 0 and <= 1e+100, got -1.0", ""),
    ({"epsilon": 1.0, "center": "abc"}, ["--epsilon", "1", "--set", "center=abc"],
     "center must be a number, got 'abc'", ""),
    ({"epsilon": 1.0, "center": "2e12"}, ["--epsilon", "1", "--set", "center=2e12"],
     f"center must be {limits.Limit('center', -1e12, 1e12).describe()}, got 2e12", ""),
    ({"epsilon": 1.0, "centre": "0"}, ["--epsilon", "1", "--set", "centre=0"],
     "unknown parameter 'centre' for mean/laplace; its parameters are: center", ""),
    ({"rho": -1.0}, ["--rho", "-1.0"], "rho must be > 0, got -1.0", "argument --rho: "),
]


@pytest.mark.parametrize(("kwargs", "argv", "message", "prefix"), BAD)
def test_bad_input_is_a_sentence_shared_with_the_cli(kwargs, argv, message, prefix, tmp_path,
                                                     capsys):
    with pytest.raises(ValueError) as err:
        dpviz.run("mean", "laplace", X, **kwargs)
    assert str(err.value) == message
    path = tmp_path / "x.csv"
    np.savetxt(path, X, delimiter=",")
    assert cli.main(["run", "mean", "laplace", "--data", str(path), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"dpviz: {prefix}{message}\n"


@pytest.mark.parametrize(("task", "estimator", "message"), [
    ("gmmm", "laplace",
     "unknown task 'gmmm'; the tasks are: mean, gmm, factor_analysis, covariance, sbm"),
    ("mean", "median", "unknown estimator 'median' for task 'mean'; choose one of: laplace, "
                       "gaussian, coinpress"),
])
def test_unknown_names_are_a_sentence_shared_with_the_cli(task, estimator, message, tmp_path,
                                                          capsys):
    with pytest.raises(ValueError, match=f"^{message}$"):
        dpviz.run(task, estimator, X, epsilon=1.0)
    path = tmp_path / "x.csv"
    np.savetxt(path, X, delimiter=",")
    assert cli.main(["run", task, estimator, "--data", str(path), "--epsilon", "1"]) == 2
    assert capsys.readouterr().err == f"dpviz: {message}\n"


@pytest.mark.parametrize(("data", "kwargs", "message"), [
    (X, {}, "give a privacy budget as epsilon or as rho, not both or neither"),
    (X, {"epsilon": 1.0, "rho": 0.5}, "give a privacy budget as epsilon or as rho, not both or "
                                      "neither"),
    (X, {"epsilon": 0.0}, "epsilon must be > 0 and <= 1000, got 0.0"),
    (X, {"epsilon": math.nan}, "epsilon must be a number, got NaN"),
    (X, {"epsilon": 1.0, "accounting": "moments"},
     "accounting method must be one of linear, advanced, zcdp, ma, rdp, pld, got 'moments'"),
    (X, {"epsilon": 1.0, "seed": 1.5}, "seed must be a whole number, got 1.5"),
    (X, {"epsilon": 1.0, "radius": 0.0}, "radius must be > 0 and <= 1e+100, got 0.0"),
    (X, {"epsilon": 1.0, "radius": "wide"}, "radius must be a positive number or 'data', got "
                                            "'wide'"),
    (X, {"epsilon": 1.0, "radius": math.inf}, "radius must be > 0 and <= 1e+100, got inf"),
    (X[:1], {"epsilon": 1.0}, "data needs at least 2 rows, got 1"),
    (np.where(np.arange(9).reshape(3, 3) == 4, np.nan, 0.0), {"epsilon": 1.0},
     "data has a missing or infinite value in row 2, column 2"),
    (np.zeros((3, 201)), {"epsilon": 1.0}, "data has 201 columns; dpviz takes at most 200"),
    ([["a"], ["b"]], {"epsilon": 1.0}, "data must be numbers only"),
])
def test_bad_input_raises_value_error_with_a_sentence(data, kwargs, message):
    with pytest.raises(ValueError) as err:
        dpviz.run("mean", "laplace", data, **kwargs)
    assert str(err.value) == message


def test_gaussian_without_delta_is_a_budget_error():
    with pytest.raises(BudgetError, match="^the Gaussian mean needs delta > 0; use the Laplace "
                                          "mean for pure DP$"):
        dpviz.run("mean", "gaussian", X, epsilon=1.0)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"epsilon": "abc"}, "epsilon must be a number, got 'abc'"),
    ({"epsilon": 1.0, "delta": "abc"}, "delta must be a number, got 'abc'"),
    ({"epsilon": 1.0, "delta": None}, "delta must be a number, got None"),
])
def test_non_numeric_budget_is_a_sentence(kwargs, message):
    with pytest.raises(ValueError) as err:
        dpviz.run("mean", "laplace", X, **kwargs)
    assert str(err.value) == message


def test_seed_range_message_gives_the_exact_maximum():
    with pytest.raises(ValueError, match=str(2**128 - 1)):
        dpviz.run("mean", "laplace", X, epsilon=1.0, seed=-1)


@contextlib.contextmanager
def time_limit(seconds):
    def stop(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_tiny_epsilon_under_zcdp_finishes():
    with time_limit(1.5):
        try:
            result = dpviz.run("mean", "gaussian", X, epsilon=1e-17, delta=1e-5)
        except ValueError:
            return  # a sentence is an acceptable answer too
    # At delta = 1e-5 an epsilon of 1e-17 is almost all delta: the Gaussian's total variation
    # (about 0.4 * sensitivity / sigma) must stay below delta, and it does, just.
    release = result.ledger.releases[0]
    assert result.ledger.total().epsilon <= 1e-17
    mu = release.sensitivity / release.scale
    assert 0.4 * mu < 1e-5 < 0.4 * mu * 2


def test_a_128_bit_seed_is_used_exactly():
    """Secure randomness draws 128-bit seeds: a float round trip would keep only 53 bits."""
    seed = 2**127 + 12345
    a = dpviz.run("mean", "laplace", X, epsilon=1.0, seed=seed)
    b = dpviz.run("mean", "laplace", X, epsilon=1.0, seed=seed + 1)
    assert a.seed == seed
    assert a.to_dict()["mean"] != b.to_dict()["mean"]
