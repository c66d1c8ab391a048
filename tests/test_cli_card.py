"""``python -m dpviz card …`` and ``python -m dpviz run --card card.json`` (DESIGN.md)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from dpviz import cli
from dpviz.data import sha256, stochastic_block_model
from dpviz.lab import card as cards

ROOT = Path(__file__).resolve().parents[1]


def main(argv, capsys):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "x.csv"
    rows = np.random.default_rng(3).uniform(-0.7, 0.7, size=(300, 2))
    np.savetxt(path, rows, delimiter=",", header="a,b", comments="", fmt="%.17g")
    return path


@pytest.fixture
def gmm_card(csv_path, tmp_path, capsys):
    out = tmp_path / "card.json"
    code, stdout, err = main(["card", "gmm", "dp_em", "--data", csv_path, "--k", "2",
                              "--epsilon", "1", "--delta", "1e-5", "--seed", "4",
                              "--set", "iterations=3", "--out", out], capsys)
    assert code == 0, err
    assert stdout == ""
    return out


def test_card_then_run_card_prints_the_recorded_numbers(gmm_card, csv_path, capsys):
    card = json.loads(gmm_card.read_text())
    assert card["scenario"]["params"]["k"] == 2 and card["scenario"]["params"]["iterations"] == 3
    assert card["scenario"]["seed"] == 4
    # the path is relative to the card's folder, where `run --card` reads it
    assert card["scenario"]["data"] == {"csv": "x.csv"}
    assert card["data_file"] == {"path": "x.csv", "sha256": sha256(csv_path.read_bytes())}
    code, stdout, err = main(["run", "--card", gmm_card], capsys)
    assert code == 0, err
    assert json.loads(stdout) == card["result"]
    # and the same JSON as the run the card records, given as flags
    code, direct, err = main(["run", "gmm", "dp_em", "--data", csv_path, "--k", "2",
                              "--epsilon", "1", "--delta", "1e-5", "--seed", "4",
                              "--set", "iterations=3"], capsys)
    assert code == 0, err
    assert direct == stdout


def test_an_edge_list_card_replays(tmp_path, capsys):
    graph = stochastic_block_model(60, 20.0, 0.8, seed=2)
    edges = tmp_path / "e.csv"
    np.savetxt(edges, graph.edges, fmt="%d", delimiter=",")
    out = tmp_path / "card.json"
    code, _, err = main(["card", "sbm", "randomized_response", "--edges", edges, "--n", "60",
                         "--epsilon", "2", "--degree", "20", "--signal", "0.8", "--seed", "3",
                         "--out", out], capsys)
    assert code == 0, err
    card = json.loads(out.read_text())
    assert card["scenario"]["data"] == {"edges": "e.csv", "n": 60}
    code, stdout, err = main(["run", "--card", out], capsys)
    assert code == 0, err
    assert json.loads(stdout) == card["result"]


def test_run_card_refuses_a_changed_data_file(gmm_card, csv_path, capsys):
    csv_path.write_text(csv_path.read_text() + "0.5,0.5\n")
    code, stdout, err = main(["run", "--card", gmm_card], capsys)
    assert code == 2 and stdout == ""
    assert "x.csv changed since the card was made" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(("argv", "sentence"), [
    (["run"], "run needs TASK and ESTIMATOR"),
    (["card", "gmm"], "card needs TASK and ESTIMATOR"),
    (["card", "gmm", "dp_em", "--epsilon", "1"], "one of the arguments --data --edges"),
    (["run", "--card", "CARD", "--epsilon", "2"], "--card replays the card as recorded; "
                                                  "remove --epsilon"),
    (["run", "--card", "CARD", "--set", "k=3"], "--card replays the card as recorded; "
                                                 "remove --set"),
    (["run", "--card", "CARD", "--k", "3"], "--card replays the card as recorded; remove 3"),
    (["run", "gmm", "dp_em", "--card", "CARD"], "remove gmm, dp_em"),
    (["run", "--card", "missing.json"], "cannot read the card missing.json"),
    (["card", "gmm", "dp_em", "--data", "CSV", "--epsilon", "1", "--set", "nope=1"],
     "nope"),
])
def test_bad_card_commands_exit_2_with_a_sentence(argv, sentence, gmm_card, csv_path, capsys):
    argv = [{"CARD": str(gmm_card), "CSV": str(csv_path)}.get(a, a) for a in argv]
    code, stdout, err = main(argv, capsys)
    assert code == 2 and stdout == ""
    assert sentence in err and err.startswith("dpviz: ")


def test_a_secure_card_cannot_be_run(tmp_path, capsys):
    from dpviz.lab.scenario import Scenario

    card = cards.make_card(Scenario.from_dict({
        "task": "mean", "estimator": "gaussian", "data": {"dataset": "digits"},
        "params": {"epsilon": 1.0, "delta": 1e-6, "radius": 1.0}, "seed": None}))
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    code, _, err = main(["run", "--card", path], capsys)
    assert code == 2 and "secure randomness" in err


def test_the_zip_script_regenerates_the_numbers(gmm_card, csv_path, tmp_path):
    card = cards.read_card(gmm_card)
    content = cards.card_zip(card, {}, {})
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        archive.extractall(tmp_path / "unzipped")
        readme = archive.read("README.txt").decode()
    assert "reads its data from x.csv, relative to the folder of card.json" in readme
    (tmp_path / "unzipped" / "x.csv").write_bytes(csv_path.read_bytes())  # as README says
    script = tmp_path / "unzipped" / "regenerate.sh"
    env = {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["sh", str(script)], capture_output=True, text=True, env=env,
                          timeout=120, check=False, cwd=ROOT)  # run from another folder
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "unzipped" / "result.json").read_text())
    assert result == card["result"]
