"""The command line, a contract scripts rely on (DESIGN.md, the command line)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from pathlib import Path

import dp_accounting
import numpy as np
import pytest

import dpviz
from dpviz import cli
from dpviz.core import limits
from dpviz.estimators import metrics, registry
from dpviz.estimators.result import to_json_value
from dpviz.privacy import METHODS, PrivacyEvent, clip_to_ball, compose
from dpviz.privacy.calibration import analytic_gaussian_epsilon

ROOT = Path(__file__).resolve().parents[1]
DATA = np.random.default_rng(11).uniform(-0.8, 0.8, size=(120, 2))
#: What a run on a table without a bound says on stderr (issue 30 item 6).
NO_BOUND_LINE = f"dpviz: warning: {cli.NO_BOUND}\n"


def strict_json(text):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def main(argv, capsys):
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "x.csv"
    np.savetxt(path, DATA, delimiter=",", header="a,b", comments="", fmt="%.17g")
    return path


# --- list ---

PARAM_KEYS = {"type", "default", "min", "max", "options", "required", "choice", "help"}


def test_list_has_the_design_shape(capsys):
    code, out, err = main(["list"], capsys)
    assert (code, err) == (0, "")
    listing = strict_json(out)
    tasks = set(registry.TASKS)
    assert set(listing) == tasks | {"metrics", "datasets", "generators"}
    assert isinstance(listing["datasets"], list) and isinstance(listing["generators"], list)
    assert listing["metrics"] == {task: list(metrics.METRICS.get(task, {})) for task in tasks}
    assert listing["metrics"]["mean"] == ["mean_error"]
    assert {"laplace", "gaussian"} <= set(listing["mean"])
    for task in tasks:
        assert listing["metrics"][task] == list(metrics.METRICS.get(task, {}))
        for name, entry in listing[task].items():
            assert set(entry) == {"label", "paper", "notion", "outputs", "params"}, name
            assert isinstance(entry["label"], str) and entry["label"]
            assert isinstance(entry["paper"], str) and entry["paper"]
            assert entry["notion"] in {"pure", "approximate", "zCDP", "edge-DP", "none"}
            assert entry["outputs"] and all(isinstance(o, str) for o in entry["outputs"])
            for pname, p in entry["params"].items():
                assert set(p) == PARAM_KEYS, pname
                assert p["type"] in {"float", "int", "bool", "str"}
                assert isinstance(p["required"], bool) and isinstance(p["choice"], bool)
                assert p["options"] is None or isinstance(p["options"], list)
                assert isinstance(p["help"], str) and p["help"], pname
                for bound in ("min", "max"):
                    assert p[bound] is None or p[bound] in ("inf", "-inf") or isinstance(
                        p[bound], int | float), (pname, bound)


def test_list_describes_the_mean_parameters(capsys):
    params = strict_json(main(["list"], capsys)[1])["mean"]["laplace"]["params"]
    assert list(params)[:7] == ["epsilon", "delta", "rho", "accounting", "seed", "radius",
                                "paper_mode"]
    assert params["center"] == {"type": "float", "default": 0.0, "min": -1e12, "max": 1e12,
                                "options": None, "required": False, "choice": False,
                                "help": params["center"]["help"]}
    assert params["accounting"]["options"] == list(METHODS)
    assert params["accounting"]["choice"] is True
    assert params["epsilon"]["max"] == "inf"  # ε = ∞ is allowed, written as in the run JSON
    assert params["seed"]["max"] == 2**128 - 1  # secure randomness draws 128-bit seeds


def test_list_params_parse_as_list_says(capsys, csv_path):
    """Every parameter `list` gives can be set with --set NAME=VALUE using its default."""
    listing = strict_json(main(["list"], capsys)[1])
    for name, entry in listing["mean"].items():
        common = {p.name for p in registry.COMMON_PARAMS}
        sets = [f"{p}={v['default']}" for p, v in entry["params"].items()
                if p not in common and v["default"] is not None]
        argv = ["run", "mean", name, "--data", str(csv_path), "--epsilon", "1",
                "--delta", "1e-5", "--radius", "1"]
        for item in sets:
            argv += ["--set", item]
        code, out, err = main(argv, capsys)
        assert (code, err) == (0, ""), (name, err)


# --- account ---

ACCOUNT_CASES = [(mech, method) for mech in ("gaussian", "laplace") for method in METHODS]


@pytest.mark.parametrize(("mechanism", "method"), ACCOUNT_CASES)
def test_account_matches_compose(mechanism, method, capsys):
    if mechanism == "gaussian":
        argv = ["--sigma", "2", "--count", "50", "--sensitivity", "1.5"]
        event = PrivacyEvent("gaussian", mu=1.5 / 2, count=50)
    else:
        argv = ["--scale", "10", "--count", "20", "--sensitivity", "1.5"]
        event = PrivacyEvent("laplace", epsilon=1.5 / 10, count=20)
    code, out, err = main(["account", "--mechanism", mechanism, *argv, "--delta", "1e-6",
                           "--method", method], capsys)
    assert (code, err) == (0, "")
    got = strict_json(out)
    assert list(got) == ["epsilon", "delta", "rho", "method"]
    assert got["epsilon"] == compose([event], 1e-6, method)
    assert got["delta"] == 1e-6
    assert got["rho"] == pytest.approx(event.rho * event.count)
    assert got["method"] == method


def test_account_against_closed_forms_and_dp_accounting(capsys):
    def account(*argv):
        code, out, err = main(["account", *argv], capsys)
        assert code == 0, err
        return strict_json(out)["epsilon"]

    # Laplace, pure: ε = count·Δ/b
    assert account("--mechanism", "laplace", "--scale", "10", "--count", "20",
                   "--method", "linear") == pytest.approx(2.0, rel=1e-12)
    # Gaussians under PLD: one Gaussian of μ√count (exact)
    assert account("--mechanism", "gaussian", "--sigma", "2", "--count", "50", "--delta",
                   "1e-6", "--method", "pld") == pytest.approx(
        analytic_gaussian_epsilon(0.5 * math.sqrt(50), 1e-6), rel=1e-9)
    # Gaussians under RDP: dp-accounting's RdpAccountant directly
    acc = dp_accounting.rdp.RdpAccountant()
    acc.compose(dp_accounting.GaussianDpEvent(2.0), 50)
    assert account("--mechanism", "gaussian", "--sigma", "2", "--count", "50", "--delta",
                   "1e-6", "--method", "rdp") == pytest.approx(acc.get_epsilon(1e-6), rel=1e-9)


def test_account_paper_mode_uses_the_classic_gaussian(capsys):
    plain = strict_json(main(["account", "--mechanism", "gaussian", "--sigma", "40", "--count",
                              "10", "--delta", "1e-6", "--method", "linear"], capsys)[1])
    paper = strict_json(main(["account", "--mechanism", "gaussian", "--sigma", "40", "--count",
                              "10", "--delta", "1e-6", "--method", "linear", "--paper-mode"],
                             capsys)[1])
    assert paper["epsilon"] == compose([PrivacyEvent("gaussian", mu=1 / 40, count=10)], 1e-6,
                                       "linear", paper_mode=True)
    assert paper["epsilon"] > plain["epsilon"]


def test_account_out_file(tmp_path, capsys):
    out = tmp_path / "acc.json"
    code, stdout, err = main(["account", "--mechanism", "laplace", "--scale", "2", "--method",
                              "linear", "--out", str(out)], capsys)
    assert (code, stdout, err) == (0, "", "")
    assert strict_json(out.read_text()) == {"epsilon": 0.5, "delta": 0.0, "rho": 0.125,
                                            "method": "linear"}


def test_account_defaults_work_for_a_pure_laplace(capsys):
    code, out, err = main(["account", "--mechanism", "laplace", "--scale", "2"], capsys)
    assert (code, err) == (0, "")
    assert strict_json(out)["epsilon"] == 0.5


# --- run ---

RELEASE_KEYS = ["name", "mechanism", "sensitivity", "norm", "scale", "epsilon", "delta", "rho",
                "count", "part", "sampler"]


@pytest.mark.parametrize("estimator", ["laplace", "gaussian"])
def test_run_prints_exactly_the_design_json(estimator, csv_path, capsys):
    code, out, err = main(["run", "mean", estimator, "--data", str(csv_path), "--epsilon", "0.5",
                           "--delta", "1e-6", "--seed", "4", "--radius", "1.2"], capsys)
    assert (code, err) == (0, "")
    assert out.endswith("\n") and out.count("\n") == 1  # one JSON object, one line
    got = strict_json(out)
    assert list(got) == ["task", "estimator", "seed", "mean", "ledger", "choices", "not_private",
                         "failed"]
    assert (got["task"], got["estimator"], got["seed"]) == ("mean", estimator, 4)
    assert len(got["mean"]) == 2 and all(isinstance(v, float) for v in got["mean"])
    assert list(got["ledger"]) == ["releases", "total"]
    (release,) = got["ledger"]["releases"]
    assert list(release) == RELEASE_KEYS
    assert release["mechanism"] == estimator
    assert release["norm"] == ("L1" if estimator == "laplace" else "L2")
    expected_sensitivity = 2 * 1.2 / 120 * (math.sqrt(2) if estimator == "laplace" else 1)
    assert release["sensitivity"] == pytest.approx(expected_sensitivity, rel=1e-12)
    assert (release["count"], release["part"]) == (1, None)
    assert list(got["ledger"]["total"]) == ["epsilon", "delta", "rho", "method"]
    assert got["ledger"]["total"]["epsilon"] == pytest.approx(0.5, rel=1e-6)
    assert got["ledger"]["total"]["delta"] == 1e-6
    assert got["ledger"]["total"]["method"] == "zcdp"
    assert got["choices"]["radius"] == 1.2
    assert "public, given" in got["choices"]["bound"]
    assert got["not_private"] is None and got["failed"] is None
    # the same numbers as the Python entry point
    same = dpviz.run("mean", estimator, DATA, epsilon=0.5, delta=1e-6, seed=4, radius=1.2)
    assert got["mean"] == same.estimate["mean"].tolist()


def test_run_pure_dp_laplace_without_delta(csv_path, capsys):
    code, out, _ = main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon", "2"],
                        capsys)
    assert code == 0
    got = strict_json(out)
    assert got["ledger"]["total"] == {"epsilon": 2.0, "delta": 0.0, "rho": 2.0,
                                      "method": "linear"}
    assert got["seed"] is None  # OS entropy, never printed
    assert "randomness" not in got["choices"]
    assert "default unit ball" in got["choices"]["bound"]


def test_run_epsilon_inf_writes_inf_as_a_string(csv_path, capsys):
    code, out, _ = main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon", "inf"],
                        capsys)
    assert code == 0
    got = strict_json(out)
    assert got["ledger"]["total"]["epsilon"] == "inf"
    assert got["ledger"]["releases"][0]["scale"] == 0.0
    assert got["mean"] == clip_to_ball(DATA, np.zeros(2), 1.0).mean(axis=0).tolist()
    assert got["choices"]["radius"] == 1.0


def test_run_with_rho(csv_path, capsys):
    code, out, err = main(["run", "mean", "gaussian", "--data", str(csv_path), "--rho", "0.5"],
                          capsys)
    assert (code, err) == (0, NO_BOUND_LINE)
    total = strict_json(out)["ledger"]["total"]
    assert total["rho"] == pytest.approx(0.5) and total["method"] == "zcdp"


def test_run_intervals_give_a_covariance_its_entries_beside_its_eigenvalues(csv_path, capsys):
    argv = ["run", "covariance", "gauss", "--data", str(csv_path), "--rho", "0.5", "--radius",
            "1", "--seed", "3", "--intervals"]
    code, out, _ = main(argv, capsys)
    assert code == 0
    got = strict_json(out)
    assert got["intervals"]["method"] == "weyl" and len(got["intervals"]["values"]) == 2
    entries = got["intervals"]["entries"]
    assert entries["method"] == "entries" and entries["shown"]
    assert [v["name"] for v in entries["values"]] == [
        "covariance[1][1]", "covariance[1][2]", "covariance[2][2]"]
    sigma = got["ledger"]["releases"][-1]["scale"]
    assert all(v["half_width"] == pytest.approx(1.6448536 * sigma) for v in entries["values"])
    assert entries["values"][1]["value"] == got["covariance"][0][1]
    argv[2] = "separate"
    code, out, _ = main(argv, capsys)
    entries = strict_json(out)["intervals"]["entries"]
    assert code == 0 and not entries["shown"] and entries["values"] == []
    assert entries["sentence"].startswith("no interval: coverage not established (SeparateCov")


def test_run_out_file(csv_path, tmp_path, capsys):
    target = tmp_path / "result.json"
    argv = ["run", "mean", "gaussian", "--data", str(csv_path), "--epsilon", "1", "--delta",
            "1e-5", "--seed", "0", "--radius", "1", "--out", str(target)]
    code, out, err = main(argv, capsys)
    assert (code, out, err) == (0, "", "")
    written = strict_json(target.read_text())
    code, out, _ = main(argv[:-2], capsys)
    assert strict_json(out) == written


def test_run_set_center(csv_path, capsys):
    code, out, err = main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon", "1",
                           "--set", "center=0.5", "--radius", "0.1"], capsys)
    assert (code, err) == (0, "")
    got = strict_json(out)
    assert got["choices"]["center"] == [0.5, 0.5]
    # every row is clipped into B((0.5, 0.5), 0.1): the noiseless mean lies in that ball
    inf = strict_json(main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon",
                            "inf", "--set", "center=0.5", "--radius", "0.1"], capsys)[1])
    assert np.linalg.norm(np.array(inf["mean"]) - 0.5) <= 0.1 + 1e-12


def test_run_accepts_estimator_params_as_flags(csv_path, capsys):
    with_set = main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon", "1",
                     "--seed", "0", "--set", "center=0.25"], capsys)
    as_flag = main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon", "1",
                    "--seed", "0", "--center", "0.25"], capsys)
    assert with_set == as_flag
    assert strict_json(as_flag[1])["choices"]["center"] == [0.25, 0.25]


def test_run_radius_data_in_process_warns_once_on_stderr(csv_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # pytest turns warnings into errors
        code, out, err = main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon",
                               "1", "--radius", "data"], capsys)
    assert code == 0
    assert err == "dpviz: not private: bound read from the data\n"
    assert strict_json(out)["not_private"] == "bound read from the data"


def test_run_radius_data_under_warnings_as_errors(csv_path, capsys):
    code, _, err = main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon", "1",
                         "--radius", "data"], capsys)
    assert code == 0, err


# --- bad input: exit 2, one line on stderr, no traceback ---

def make_csv(tmp_path, content: bytes, name="bad.csv"):
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


def big_csv(tmp_path):
    path = tmp_path / "big.csv"
    with path.open("wb") as f:  # sparse: no 50 MB is written
        f.truncate(limits.MAX_UPLOAD_BYTES + 1)
    return str(path)


def wide_csv(tmp_path):
    row = ",".join(["0.1"] * 201).encode()
    return make_csv(tmp_path, row + b"\n" + row + b"\n")


def run_args(data="good", *rest, estimator="laplace", task="mean"):
    return ("run", task, estimator, "--data", data, *rest)


ACCOUNT = ("account", "--mechanism", "gaussian", "--sigma", "1", "--delta", "1e-5")

BAD_CLI = {
    # name: (argv builder, expected substring of the one stderr line)
    "epsilon zero": (lambda p: run_args(p, "--epsilon", "0"),
                     "epsilon must be > 0 and <= 1000, got 0"),
    "epsilon negative": (lambda p: run_args(p, "--epsilon", "-2"),
                         "epsilon must be > 0 and <= 1000, got -2"),
    "epsilon text": (lambda p: run_args(p, "--epsilon", "abc"),
                     "epsilon must be a number, got 'abc'"),
    "epsilon nan": (lambda p: run_args(p, "--epsilon", "nan"), "epsilon must be a number"),
    "delta one": (lambda p: run_args(p, "--epsilon", "1", "--delta", "1"),
                  "delta must be >= 0 and < 1, got 1"),
    "delta above one": (lambda p: run_args(p, "--epsilon", "1", "--delta", "2"),
                        "delta must be >= 0 and < 1, got 2"),
    "delta negative": (lambda p: run_args(p, "--epsilon", "1", "--delta", "-0.001"),
                       "delta must be >= 0 and < 1, got -0.001"),
    "delta negative, equals form": (lambda p: run_args(p, "--epsilon", "1", "--delta=-1e-5"),
                                    "delta must be >= 0 and < 1, got -1e-5"),
    "delta zero gaussian": (lambda p: run_args(p, "--epsilon", "1", "--delta", "0",
                                               estimator="gaussian"),
                            "the Gaussian mean needs delta > 0"),
    "no delta gaussian": (lambda p: run_args(p, "--epsilon", "1", estimator="gaussian"),
                          "the Gaussian mean needs delta > 0"),
    "no budget": (lambda p: run_args(p), "one of the arguments --epsilon --rho is required"),
    "epsilon and rho": (lambda p: run_args(p, "--epsilon", "1", "--rho", "1"),
                        "not allowed with argument"),
    "count zero": (lambda p: (*ACCOUNT, "--count", "0"),
                   "count must be >= 1 and <= 100000, got 0"),
    "count 1e9": (lambda p: (*ACCOUNT, "--count", "1000000000"),
                  "count must be >= 1 and <= 100000, got 1000000000"),
    "count fraction": (lambda p: (*ACCOUNT, "--count", "2.5"), "count must be a whole number"),
    "sigma zero": (lambda p: ("account", "--mechanism", "gaussian", "--sigma", "0", "--delta",
                              "1e-5"), "noise scale must be > 0, got 0"),
    "scale negative": (lambda p: ("account", "--mechanism", "laplace", "--scale", "-1"),
                       "noise scale must be > 0, got -1"),
    "gaussian with scale": (lambda p: ("account", "--mechanism", "gaussian", "--scale", "1",
                                       "--delta", "1e-5"), "--mechanism gaussian needs --sigma"),
    "laplace with sigma": (lambda p: ("account", "--mechanism", "laplace", "--sigma", "1"),
                           "--mechanism laplace needs --scale"),
    "account gaussian delta zero": (lambda p: ACCOUNT[:-2] + ("--method", "pld"),
                                    "needs delta > 0"),
    "unknown mechanism": (lambda p: ("account", "--mechanism", "cauchy", "--scale", "1"),
                          "invalid choice: 'cauchy'"),
    "unknown method": (lambda p: (*ACCOUNT, "--method", "moments"), "invalid choice: 'moments'"),
    "unknown accounting": (lambda p: run_args(p, "--epsilon", "1", "--accounting", "renyi"),
                           "invalid choice: 'renyi'"),
    "unknown task": (lambda p: run_args(p, "--epsilon", "1", task="gmmm"),
                     "unknown task 'gmmm'; the tasks are: mean"),
    "unknown estimator": (lambda p: run_args(p, "--epsilon", "1", estimator="median"),
                          "unknown estimator 'median' for task 'mean'; choose one of: laplace, "
                          "gaussian"),
    "unknown command": (lambda p: ("sweeep",), "invalid choice: 'sweeep'"),
    "no command": (lambda p: (), "the following arguments are required: command"),
    "unknown set name": (lambda p: run_args(p, "--epsilon", "1", "--set", "centre=0"),
                         "unknown parameter 'centre' for mean/laplace; its parameters are: "
                         "center"),
    "unknown flag": (lambda p: run_args(p, "--epsilon", "1", "--k", "3"),
                     "unknown parameter 'k' for mean/laplace"),
    "bad set value": (lambda p: run_args(p, "--epsilon", "1", "--set", "center=abc"),
                      "center must be a number, got 'abc'"),
    "set value out of range": (lambda p: run_args(p, "--epsilon", "1", "--set", "center=1e13"),
                               ("center must be >= ", ", got 1e13")),
    "set without equals": (lambda p: run_args(p, "--epsilon", "1", "--set", "center"),
                           "--set takes NAME=VALUE, got 'center'"),
    "set without name": (lambda p: run_args(p, "--epsilon", "1", "--set", "=1"),
                         "--set takes NAME=VALUE, got '=1'"),
    "flag without value": (lambda p: run_args(p, "--epsilon", "1", "--center"),
                           "--center needs a value"),
    "stray argument": (lambda p: run_args(p, "--epsilon", "1", "extra"),
                       "unexpected argument 'extra'"),
    "list with argument": (lambda p: ("list", "extra"), "unrecognized arguments: extra"),
    "missing data file": (lambda p: run_args(str(Path(p).parent / "nope.csv"), "--epsilon", "1"),
                          "cannot read the CSV "),
    "no data flag": (lambda p: ("run", "mean", "laplace", "--epsilon", "1"),
                     "one of the arguments --data --edges is required"),
    "text cell": (lambda p: run_args(make_csv(Path(p).parent, b"a,b\n1,2\n3,x7\n"),
                                     "--epsilon", "1"),
                  "the CSV's row 3, column 2 is not a number; every cell must be a number"),
    "nan cell": (lambda p: run_args(make_csv(Path(p).parent, b"1,2\nNaN,4\n5,6\n"),
                                    "--epsilon", "1"),
                 "the CSV has a missing or infinite value in row 2, column 1"),
    "empty cell": (lambda p: run_args(make_csv(Path(p).parent, b"1,2\n3,\n5,6\n"),
                                      "--epsilon", "1"), "the CSV has an empty cell in row 2"),
    "one row": (lambda p: run_args(make_csv(Path(p).parent, b"a,b\n1,2\n"), "--epsilon", "1"),
                "the CSV needs at least 2 rows, got 1"),
    "empty csv": (lambda p: run_args(make_csv(Path(p).parent, b""), "--epsilon", "1"),
                  "the CSV is empty"),
    "ragged csv": (lambda p: run_args(make_csv(Path(p).parent, b"1,2\n3,4,5\n6,7\n"),
                                      "--epsilon", "1"),
                   "row 2 of the CSV has 3 cells; the first data row has 2"),
    "non utf-8 csv": (lambda p: run_args(make_csv(Path(p).parent, "é\n1\n2\n".encode("cp1252")),
                                         "--epsilon", "1"), "the CSV is not UTF-8 text"),
    "csv over 50 MB": (lambda p: run_args(big_csv(Path(p).parent), "--epsilon", "1"),
                       "over the 50 MB"),
    "csv with 201 columns": (lambda p: run_args(wide_csv(Path(p).parent), "--epsilon", "1"),
                             "the CSV has 201 columns; dpviz takes at most 200"),
    "negative radius": (lambda p: run_args(p, "--epsilon", "1", "--radius", "-1"),
                        "radius must be > 0 and <= 1e+100, got -1"),
    "zero radius": (lambda p: run_args(p, "--epsilon", "1", "--radius", "0"),
                    "radius must be > 0 and <= 1e+100, got 0"),
    "text radius": (lambda p: run_args(p, "--epsilon", "1", "--radius", "wide"),
                    "radius must be a number, got 'wide'"),
    "negative seed": (lambda p: run_args(p, "--epsilon", "1", "--seed", "-1"),
                      "seed must be >= 0"),
    "fractional seed": (lambda p: run_args(p, "--epsilon", "1", "--seed", "1.5"),
                        "seed must be a whole number, got 1.5"),
}

BAD_CLI_BUGS = {
    # name: (argv builder, reason) — a user's input that currently exits 1 or gives no clear
    # sentence. Fixed means: exit 0 with strict JSON, or exit 2 with one clear line.
    "huge cell": (lambda p: run_args(make_csv(Path(p).parent, b"1,2\n" + b"9" * 200_000 + b",3\n"),
                                     "--epsilon", "1"),
                  "read_csv lets csv.Error ('field larger than field limit') escape: exit 1"),
    "mac line ends": (lambda p: run_args(make_csv(Path(p).parent, b"1,2\r3,4\r5,6\r"),
                                         "--epsilon", "1"),
                      "read_csv lets csv.Error ('new-line character seen in unquoted field') "
                      "escape: exit 1"),
    "epsilon 1000 advanced": (lambda p: run_args(p, "--epsilon", "1000", "--delta", "1e-5",
                                                 "--accounting", "advanced",
                                                 estimator="gaussian"),
                              "accounting._advanced: math.expm1(eps) overflows for a release's "
                              "ε > 709 (OverflowError): exit 1"),
    "laplace epsilon 1000 advanced": (
        lambda p: ("account", "--mechanism", "laplace", "--scale", "0.001", "--delta", "1e-5",
                   "--method", "advanced"),
        "accounting._advanced: math.expm1(1000) overflows: exit 1"),
    "tiny sigma pld": (lambda p: (*ACCOUNT[:-2], "--sigma", "1e-300", "--delta", "1e-5",
                                  "--method", "pld"),
                       "PrivacyEvent.rho / accounting._pld compute mu**2, which raises "
                       "OverflowError for mu > 1.3e154 (use mu * mu, which gives inf): exit 1"),
    "huge sigma rdp": (lambda p: (*ACCOUNT[:-2], "--sigma", "1e300", "--delta", "1e-5",
                                  "--method", "rdp"),
                       "accounting._rdp hands dp-accounting a noise multiplier of 1e300, whose "
                       "noise_multiplier**2 overflows: exit 1"),
    "epsilon 1e300 zcdp": (lambda p: run_args(p, "--epsilon", "1e300", "--delta", "1e-5",
                                              estimator="gaussian"),
                           "calibration.zcdp_epsilon: 'math domain error' (no sentence) for "
                           "ε = 1e300; limits.EPSILON has no finite upper end"),
    "delta negative in exponent form": (
        lambda p: run_args(p, "--epsilon", "1", "--delta", "-1e-5"),
        "cli: argparse takes '-1e-5' for an option ('argument --delta: expected one "
        "argument'), its negative-number pattern has no exponent form"),
    "epsilon negative in exponent form": (
        lambda p: run_args(p, "--epsilon", "-1e-3"),
        "cli: argparse takes '-1e-3' for an option ('argument --epsilon: expected one "
        "argument')"),
}


def check_one_clear_line(code, out, err, expected):
    assert code == 2, err
    assert out == ""
    assert err.startswith("dpviz: ") and err.endswith("\n")
    assert err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err
    for part in (expected,) if isinstance(expected, str) else expected:
        assert part in err


@pytest.mark.parametrize("name", list(BAD_CLI))
def test_bad_input_exits_2_with_one_clear_line(name, csv_path, capsys):
    build, expected = BAD_CLI[name]
    code, out, err = main(list(build(str(csv_path))), capsys)
    check_one_clear_line(code, out, err, expected)


@pytest.mark.parametrize("name", list(BAD_CLI_BUGS))
def test_extreme_input_is_an_answer_or_a_sentence(name, csv_path, capsys):
    """Inputs that once crashed the CLI (the reason says how) now answer or exit 2."""
    build, _was = BAD_CLI_BUGS[name]
    code, out, err = main(list(build(str(csv_path))), capsys)
    if code == 0:
        strict_json(out)
        return
    assert code == 2, err
    assert err.count("\n") == 1
    for unclear in ("internal error", "math domain error", "expected one argument"):
        assert unclear not in err


def test_bad_out_path_exits_2(csv_path, tmp_path, capsys):
    code, out, err = main(["run", "mean", "laplace", "--data", str(csv_path), "--epsilon", "1",
                           "--radius", "1",
                           "--out", str(tmp_path / "no" / "such" / "dir" / "r.json")], capsys)
    check_one_clear_line(code, out, err, "r.json")


# --- the real process: exit codes, stdout and stderr ---

def _python_m_dpviz(args):
    return subprocess.Popen([sys.executable, "-m", "dpviz", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def processes(tmp_path_factory):
    """Start every subprocess case at once (each pays the interpreter's start-up)."""
    tmp = tmp_path_factory.mktemp("cli")
    good = tmp / "x.csv"
    np.savetxt(good, DATA, delimiter=",")
    cases = {
        "list": ["list"],
        "run": ["run", "mean", "gaussian", "--data", str(good), "--epsilon", "1", "--delta",
                "1e-5", "--seed", "3"],
        "radius data": ["run", "mean", "laplace", "--data", str(good), "--epsilon", "1",
                        "--radius", "data"],
        "epsilon zero": ["run", "mean", "laplace", "--data", str(good), "--epsilon", "0"],
        "missing file": ["run", "mean", "laplace", "--data", str(tmp / "none.csv"),
                         "--epsilon", "1"],
        "big csv": ["run", "mean", "laplace", "--data", big_csv(tmp), "--epsilon", "1"],
    }
    started = {name: _python_m_dpviz(args) for name, args in cases.items()}
    done = {}
    for name, proc in started.items():
        out, err = proc.communicate(timeout=120)
        done[name] = (proc.returncode, out, err)
    return done


def test_process_list(processes):
    code, out, err = processes["list"]
    assert (code, err) == (0, "")
    assert strict_json(out) == strict_json(json.dumps(to_json_value(registry.describe())))


def test_process_run_matches_python(processes):
    code, out, err = processes["run"]
    assert (code, err) == (0, NO_BOUND_LINE)
    got = strict_json(out)
    same = dpviz.run("mean", "gaussian", DATA, epsilon=1.0, delta=1e-5, seed=3)
    assert got["mean"] == same.estimate["mean"].tolist()


def test_process_radius_data_warns_on_stderr(processes):
    code, out, err = processes["radius data"]
    assert code == 0
    assert err == "dpviz: not private: bound read from the data\n"
    assert strict_json(out)["not_private"] == "bound read from the data"


@pytest.mark.parametrize(("name", "expected"), [
    ("epsilon zero", "epsilon must be > 0 and <= 1000, got 0"),
    ("missing file", "no such file"),
    ("big csv", "over the 50 MB"),
])
def test_process_bad_input_exits_2(processes, name, expected):
    check_one_clear_line(*processes[name], expected)
