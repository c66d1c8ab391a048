"""The command line on graphs: ``run sbm … --edges E.csv --n N`` (DESIGN.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpviz import cli
from dpviz.data.graphs import stochastic_block_model

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def edges_csv(tmp_path):
    graph = stochastic_block_model(60, 20.0, 0.8, seed=0)
    path = tmp_path / "E.csv"
    np.savetxt(path, graph.edges, fmt="%d", delimiter=",", header="u,v", comments="")
    return path


def test_weak_recovery_prints_labels(edges_csv):
    out = subprocess.run(
        [sys.executable, "-m", "dpviz", "run", "sbm", "weak_recovery", "--edges",
         str(edges_csv), "--n", "60", "--epsilon", "2", "--delta", "1e-6", "--degree", "20",
         "--signal", "0.8", "--seed", "0"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert len(payload["labels"]) == 60 and set(payload["labels"]) == {-1, 1}
    assert payload["ledger"]["total"]["epsilon"] <= 2.0
    assert payload["choices"]["tolerance_fraction"] == 0.02


@pytest.mark.parametrize(("rows", "sentence"), [
    ("0,1\n1,0\n", "rows 1 and 2 list the same edge twice (once reversed)"),
    ("0,1\n0,99\n", "row 2, column 2 has a vertex id of n or more, but n = 60"),
    ("0,1\n0,x\n", "row 2, column 2 is not a number"),
])
def test_bad_edge_list_exits_2(tmp_path, capsys, rows, sentence):
    path = tmp_path / "bad.csv"
    path.write_text(rows)
    code = cli.main(["run", "sbm", "spectral", "--edges", str(path), "--n", "60",
                     "--epsilon", "1", "--degree", "20", "--signal", "0.8"])
    err = capsys.readouterr().err
    assert code == 2 and sentence in err and err.count("\n") == 1


def test_data_and_edges_are_exclusive(edges_csv, capsys):
    assert cli.main(["run", "sbm", "spectral", "--edges", str(edges_csv), "--data",
                     str(edges_csv), "--n", "60", "--epsilon", "1"]) == 2
    assert "not allowed with" in capsys.readouterr().err
    assert cli.main(["run", "sbm", "spectral", "--n", "60", "--epsilon", "1"]) == 2
    assert "one of the arguments --data --edges is required" in capsys.readouterr().err


def test_missing_n_is_read_from_the_ids_and_marked(edges_csv, capsys):
    code = cli.main(["run", "sbm", "spectral", "--edges", str(edges_csv), "--epsilon", "1",
                     "--degree", "20", "--signal", "0.8"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and "n = 60 vertices, read from the edge list's ids" \
        in out["choices"]["edge_list"]
