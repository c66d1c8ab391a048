"""``python -m dpviz sweep SPEC.json`` (DESIGN.md, the command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dpviz import cli
from dpviz.lab.experiments import SweepSpec, read_table, run_sweep

ROOT = Path(__file__).resolve().parents[1]
SPEC = {"task": "covariance", "estimators": ["gauss", "separate"],
        "data": {"generator": "zipf", "n": 600, "d": 4}, "fixed": {},
        "grid": {"rho": [0.1, 1.0]}, "repeats": 2, "seed": 3,
        "metrics": ["frobenius_error"]}


@pytest.fixture
def spec_path(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(SPEC))
    return path


def main(argv, capsys):
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_lines_on_stdout_equal_the_engines_table(spec_path, tmp_path, capsys):
    code, out, err = main(["sweep", str(spec_path)], capsys)
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    table = run_sweep(SweepSpec.from_dict(SPEC), cache_dir=tmp_path / "other")
    assert len(rows) == len(table) == 8
    assert [r["frobenius_error"] for r in rows] == table["frobenius_error"].tolist()
    assert set(rows[0]) == set(table.columns)
    assert "8/8 runs" in err.splitlines()[-1]  # progress on stderr


@pytest.mark.parametrize("name", ["results.csv", "results.json"])
def test_out_file_by_suffix(spec_path, tmp_path, capsys, name):
    out_path = tmp_path / name
    code, out, _ = main(["sweep", str(spec_path), "--out", str(out_path)], capsys)
    assert code == 0 and out == ""
    text = out_path.read_text()
    if name.endswith(".csv"):
        assert text.startswith("task,estimator,rho,repeat,seed,data_seed,frobenius_error,")
    else:
        assert json.loads(text.splitlines()[0])["task"] == "covariance"
    table = read_table(out_path)
    assert len(table) == 8 and (table["failed"] == "").all()


def test_two_jobs_give_the_same_rows(spec_path, tmp_path, capsys):
    first = tmp_path / "a.csv"
    main(["sweep", str(spec_path), "--out", str(first), "--cache-dir", str(tmp_path / "a")],
         capsys)
    second = tmp_path / "b.csv"
    code, _, _ = main(["sweep", str(spec_path), "--out", str(second), "--jobs", "2",
                       "--cache-dir", str(tmp_path / "b")], capsys)
    assert code == 0
    pd.testing.assert_frame_equal(read_table(first).drop(columns="seconds"),
                                  read_table(second).drop(columns="seconds"))


@pytest.mark.parametrize(("content", "words"), [
    ("{not json", "is not JSON"),
    (json.dumps({**SPEC, "metrics": ["overlap"]}), "unknown metric 'overlap'"),
    (json.dumps({**SPEC, "grid": {"colour": [1]}}), "unknown grid key 'colour'"),
    (json.dumps({**SPEC, "estimators": ["nope"]}), "unknown estimator 'nope'"),
])
def test_a_bad_spec_exits_2_with_one_sentence(tmp_path, capsys, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = main(["sweep", str(path)], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_missing_spec_and_bad_jobs(tmp_path, capsys):
    code, _, err = main(["sweep", str(tmp_path / "none.json")], capsys)
    assert code == 2 and "cannot read the sweep spec" in err
    code, _, err = main(["sweep", str(tmp_path / "none.json"), "--jobs", "0"], capsys)
    assert code == 2 and "--jobs must be >= 1" in err


def test_as_a_process(spec_path, tmp_path):
    out = tmp_path / "r.csv"
    done = subprocess.run([sys.executable, "-m", "dpviz", "sweep", str(spec_path), "--out",
                           str(out)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert len(read_table(out)) == 8
