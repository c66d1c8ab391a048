"""Cards and sweep specs read only what they should (issue 23, S1 and S2).

An upload is bytes with a label: a card of one is made from the bytes and records their hash,
never reading a server file of that name. A card or a spec reads its data path inside its own
folder, a regular file under the size cap, checks the hash on the bytes it parses, and refuses
a tampered card with a sentence that quotes nothing of the file it points at.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dpviz import cli
from dpviz.data import files, sha256, stochastic_block_model
from dpviz.lab import card as cards
from dpviz.lab import scenario as scenarios
from dpviz.lab.experiments import SweepSpec, run_sweep
from dpviz.lab.scenario import Scenario, load_data

ROOT = Path(__file__).resolve().parents[1]
PASSWD = Path("/etc/passwd")
SECRET_LINE = "server-secret-line-7f3a"


def rows_csv(seed: int = 0, n: int = 120) -> bytes:
    rows = np.random.default_rng(seed).uniform(-0.8, 0.8, size=(n, 2))
    return ("a,b\n" + "".join(f"{x:.17g},{y:.17g}\n" for x, y in rows)).encode()


def main(argv, capsys):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def upload_scenario(label: str, content: bytes, task: str = "mean", **data) -> Scenario:
    estimator = {"mean": "laplace", "gmm": "dp_em", "sbm": "randomized_response"}[task]
    params = ({"epsilon": 2.0, "radius": 1.0} if task != "sbm" else
              {"epsilon": 2.0, "degree": 12.0, "signal": 0.8})
    if task == "gmm":
        params.update(k=2, delta=1e-5, iterations=3)
    return Scenario.from_dict({"task": task, "estimator": estimator,
                               "data": {"upload": label, "sha256": sha256(content), **data},
                               "params": params, "seed": 5})


@pytest.fixture
def no_path_read(monkeypatch):
    """Fail the test if any data path is read through the checked reader."""
    def refuse(*args, **kwargs):
        pytest.fail(f"a server file was read: {args}")

    for module in (cards, scenarios, files):
        monkeypatch.setattr(module, "read_file", refuse)


# --- the upload data block ------------------------------------------------------------------

def test_an_upload_block_is_a_label_and_a_hash():
    digest = sha256(b"1,2\n3,4\n")
    assert scenarios.normalise_data("gmm", {"upload": "../app.py", "sha256": digest.upper()}) \
        == {"upload": "../app.py", "sha256": digest}
    assert scenarios.normalise_data("sbm", {"upload": "e.csv", "sha256": digest, "n": "9"}) \
        == {"upload": "e.csv", "sha256": digest, "n": 9}
    for bad, sentence in [({"upload": "x", "sha256": "abc"}, "needs sha256"),
                          ({"upload": "", "sha256": digest}, "label is its file name"),
                          ({"upload": "x" * 256, "sha256": digest}, "1 to 255 characters"),
                          ({"upload": "x", "sha256": digest, "n": 3}, "remove n")]:
        with pytest.raises(ValueError, match=sentence):
            scenarios.normalise_data("gmm", bad)
    assert scenarios.normalise_data("sbm", {"upload": "e.csv", "sha256": digest}) \
        == {"upload": "e.csv", "sha256": digest, "n": None}  # n read from the ids


def test_an_upload_loads_only_from_its_own_bytes(no_path_read):
    content = rows_csv()
    block = {"upload": "requirements.txt", "sha256": sha256(content)}
    with pytest.raises(ValueError, match="holds its name and hash, not its bytes"):
        load_data(block)
    with pytest.raises(ValueError, match="SHA-256 differs from the one recorded"):
        load_data(block, content=rows_csv(seed=1))
    loaded = load_data(block, content=content)
    assert loaded.data.shape == (120, 2)
    assert "the uploaded file requirements.txt" in loaded.description


# --- cards of uploads: made from the bytes, named files never read --------------------------

@pytest.fixture
def server_file(tmp_path):
    """A valid CSV on the server, with a secret header, named by its absolute path."""
    path = tmp_path / "server" / "private.csv"
    path.parent.mkdir()
    path.write_bytes(f"{SECRET_LINE},b\n".encode() + rows_csv(seed=9)[4:])
    return path


@pytest.mark.parametrize("label", ["requirements.txt", "../app.py", "SERVER_FILE"])
def test_a_card_of_an_upload_is_made_from_the_bytes(label, server_file, no_path_read,
                                                    monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # where requirements.txt is
    label = label.replace("SERVER_FILE", str(server_file))
    content = rows_csv(seed=2)
    card = cards.make_card(upload_scenario(label, content, task="gmm"), content=content)
    assert card["scenario"]["data"] == {"upload": label, "sha256": sha256(content)}
    assert card["data_file"] == {"upload": label, "sha256": sha256(content)}
    assert card["command"] == "python -m dpviz run --card card.json --data FILE"
    text = json.dumps(card)
    assert sha256(server_file.read_bytes()) not in text and SECRET_LINE not in text
    assert content.split(b"\n")[1].split(b",")[0].decode() not in text  # no row is kept
    assert cards.run_card(card, content=content).to_dict() == card["result"]


def test_an_upload_card_replays_only_with_the_same_file():
    content = rows_csv(seed=3)
    card = cards.make_card(upload_scenario("mine.csv", content), content=content)
    with pytest.raises(ValueError, match=r"made from an uploaded file, 'mine.csv', which a "
                                         r"card does not keep: give that file to replay it"):
        cards.run_card(card)
    with pytest.raises(ValueError, match="SHA-256 differs"):
        cards.run_card(card, content=rows_csv(seed=4))
    with pytest.raises(ValueError, match="not its bytes"):
        cards.make_card(upload_scenario("mine.csv", content))
    other = cards.make_card(Scenario.from_dict({
        "task": "mean", "estimator": "laplace", "data": {"dataset": "digits"},
        "params": {"epsilon": 1.0, "radius": 1.0}, "seed": 1}))
    with pytest.raises(ValueError, match="a file is given only to replay a card made from an "
                                         "upload; this card needs no file"):
        cards.run_card(other, content=content)


def test_an_uploaded_edge_list_card(no_path_read):
    graph = stochastic_block_model(40, 12.0, 0.8, seed=1)
    content = "".join(f"{i},{j}\n" for i, j in graph.edges).encode()
    scenario = upload_scenario("requirements.txt", content, task="sbm", n=40)
    card = cards.make_card(scenario, content=content)
    assert card["data_file"] == {"upload": "requirements.txt", "sha256": sha256(content)}
    assert cards.run_card(card, content=content).to_dict() == card["result"]


def test_run_card_with_data_replays_an_upload_card_from_the_command_line(tmp_path, capsys):
    content = rows_csv(seed=6)
    card = cards.make_card(upload_scenario("requirements.txt", content), content=content)
    (tmp_path / "card.json").write_text(json.dumps(card))
    (tmp_path / "requirements.txt").write_bytes(b"numpy==2\n")  # a file of that name: unread
    mine = tmp_path / "elsewhere.csv"
    mine.write_bytes(content)
    code, out, err = main(["run", "--card", tmp_path / "card.json"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--data FILE" in err and "numpy" not in err
    code, out, err = main(["run", "--card", tmp_path / "card.json", "--data", mine], capsys)
    assert code == 0, err
    assert json.loads(out) == card["result"]
    (tmp_path / "other.csv").write_bytes(rows_csv(seed=7))
    code, out, err = main(["run", "--card", tmp_path / "card.json", "--data",
                           tmp_path / "other.csv"], capsys)
    assert code == 2 and "SHA-256 differs" in err
    code, out, err = main(["run", "--card", tmp_path / "card.json", "--data", "/dev/zero"],
                          capsys)
    assert code == 2 and "not a regular file" in err
    code, _, err = main(["run", "--card", tmp_path / "card.json", "--edges", mine], capsys)
    assert code == 2 and "remove --edges" in err


def test_the_zip_of_an_upload_card_says_how_to_replay_it_and_its_script_does(tmp_path):
    content = rows_csv(seed=8)
    label = "my rows'; touch pwned; '.csv"  # a name is a label: never run, never a path
    card = cards.make_card(upload_scenario(label, content), content=content)
    rows = pd.DataFrame({"x": [1.5, 2.5]})  # what a page's figure tables hold: the rows
    figure = go.Figure(go.Scatter(x=[1.5, 2.5], y=[0.0, 1.0]))
    with zipfile.ZipFile(io.BytesIO(cards.card_zip(card, {"rows": figure},
                                                   {"rows": rows}))) as archive:
        assert not any(name.startswith(("figures/", "tables/")) for name in archive.namelist())
        archive.extractall(tmp_path / "unzipped")
    readme = (tmp_path / "unzipped" / "README.txt").read_text()
    assert "no figures and no tables" in readme
    assert "python -m dpviz run --card card.json --data FILE" in readme
    assert "not its rows" in readme and sha256(content) in readme
    script = tmp_path / "unzipped" / "regenerate.sh"
    assert '--data "$1"' in script.read_text() and "pwned" not in script.read_text()
    (tmp_path / "mine.csv").write_bytes(content)
    env = {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["sh", str(script)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 2 and "give the uploaded file" in done.stderr.lower()
    done = subprocess.run(["sh", str(script), "mine.csv"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "unzipped" / "result.json").read_text()) == card["result"]
    assert not (tmp_path / "pwned").exists()


# --- tampered cards -------------------------------------------------------------------------

@pytest.fixture
def csv_card(tmp_path, capsys):
    """A card of a CSV beside it, written by `python -m dpviz card`."""
    (tmp_path / "x.csv").write_bytes(rows_csv(seed=11))
    out = tmp_path / "card.json"
    code, _, err = main(["card", "mean", "laplace", "--data", tmp_path / "x.csv", "--epsilon",
                         "1", "--radius", "1", "--seed", "2", "--out", out], capsys)
    assert code == 0, err
    return out


def passwd_bits() -> list[str]:
    """What must never appear: /etc/passwd's lines and its hash."""
    raw = PASSWD.read_bytes()
    return [sha256(raw)[:12], *(line.split(":")[0] + ":x" for line in
                                raw.decode(errors="replace").splitlines()[:3])]


def tamper(path: Path, *, csv=None, data_file="keep") -> None:
    card = json.loads(path.read_text())
    if csv is not None:
        card["scenario"]["data"] = {"csv": csv}
    if data_file != "keep":
        card["data_file"] = data_file
    path.write_text(json.dumps(card))


@pytest.mark.parametrize(("csv", "data_file", "sentence"), [
    (None, None, "data_file must be {\"path\": 'x.csv'"),
    (None, {"path": "y.csv", "sha256": "0" * 64}, "data_file must be {\"path\": 'x.csv'"),
    (None, {"path": "x.csv", "sha256": "0" * 64}, "x.csv changed since the card was made"),
    ("/etc/passwd", None, "data_file must be {\"path\": '/etc/passwd'"),
    ("/etc/passwd", {"path": "/etc/passwd", "sha256": "0" * 64},
     "cannot read the data file /etc/passwd: it is outside the folder"),
    ("../../../../../etc/passwd", {"path": "../../../../../etc/passwd", "sha256": "0" * 64},
     "it is outside the folder"),
    ("/dev/zero", {"path": "/dev/zero", "sha256": "0" * 64}, "it is outside the folder"),
    ("LINK", {"path": "LINK", "sha256": "0" * 64}, "passwd.csv: it is outside the folder"),
    ("PIPE", {"path": "PIPE", "sha256": "0" * 64}, "pipe.csv: it is not a regular file"),
])
def test_a_tampered_card_is_refused_quoting_nothing_of_the_file(csv_card, csv, data_file,
                                                                 sentence, capsys):
    names = {"LINK": "passwd.csv", "PIPE": "pipe.csv"}
    (csv_card.parent / "passwd.csv").symlink_to(PASSWD)
    os.mkfifo(csv_card.parent / "pipe.csv")
    csv = names.get(csv, csv)
    if isinstance(data_file, dict):
        data_file = {**data_file, "path": names.get(data_file["path"], data_file["path"])}
    tamper(csv_card, csv=csv, data_file=data_file)
    code, out, err = main(["run", "--card", csv_card], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert sentence in err
    for bit in passwd_bits():
        assert bit not in err


def test_a_card_reads_its_data_beside_itself_from_any_working_folder(csv_card, tmp_path,
                                                                     monkeypatch, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.csv").write_bytes(b"1,2\n")  # the working folder's x.csv is not read
    monkeypatch.chdir(elsewhere)
    code, out, err = main(["run", "--card", csv_card], capsys)
    assert code == 0, err
    assert json.loads(out) == json.loads(csv_card.read_text())["result"]
    code, _, err = main(["run", "--card", csv_card, "--data", csv_card.parent / "x.csv"],
                        capsys)
    assert code == 2 and "this card reads its data itself: remove --data" in err
    code, _, err = main(["run", "--card", csv_card, "--seed", "3"], capsys)
    assert code == 2 and "--card replays the card as recorded; remove --seed" in err


def test_card_records_a_file_outside_its_folder_by_name_and_warns(tmp_path, capsys):
    (tmp_path / "x.csv").write_bytes(rows_csv(seed=12))
    (tmp_path / "cards").mkdir()
    out = tmp_path / "cards" / "card.json"
    code, _, err = main(["card", "mean", "laplace", "--data", tmp_path / "x.csv", "--epsilon",
                         "1", "--radius", "1", "--seed", "2", "--out", out], capsys)
    assert code == 0
    assert "outside the card's folder" in err and "copy it beside the card as x.csv" in err
    assert json.loads(out.read_text())["data_file"]["path"] == "x.csv"
    code, _, err = main(["run", "--card", out], capsys)
    assert code == 2 and "x.csv: no such file" in err
    (tmp_path / "cards" / "x.csv").write_bytes((tmp_path / "x.csv").read_bytes())
    assert main(["run", "--card", out], capsys)[0] == 0


@pytest.mark.parametrize("path", ["/dev/zero", "/proc/self/status"])
def test_a_device_or_proc_file_as_card_or_data_is_a_sentence(path, tmp_path, capsys):
    code, _, err = main(["run", "--card", path], capsys)
    assert code == 2 and err.startswith("dpviz: ")
    code, _, err = main(["card", "mean", "laplace", "--data", path, "--epsilon", "1",
                         "--seed", "1"], capsys)
    assert code == 2 and err.startswith("dpviz: ")
    assert "Name:" not in err  # /proc/self/status's content


def test_a_card_nested_too_deeply_is_a_sentence(tmp_path):
    path = tmp_path / "card.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        cards.read_card(path)


# --- sweep specs ----------------------------------------------------------------------------

SPEC = {"task": "mean", "estimators": ["laplace"], "fixed": {"radius": 1.0},
        "grid": {"epsilon": [1.0, 2.0]}, "repeats": 1, "seed": 0, "metrics": ["mean_error"]}


@pytest.fixture
def spec_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "spec"
    folder.mkdir()
    (folder / "rows.csv").write_bytes(rows_csv(seed=13))
    return folder


@pytest.mark.parametrize(("csv", "sentence"), [
    ("/etc/shadow", "cannot read the data file /etc/shadow: it is outside the folder"),
    ("/etc/passwd", "cannot read the data file /etc/passwd: it is outside the folder"),
    ("../../../etc/passwd", "it is outside the folder"),
    ("/dev/zero", "it is outside the folder"),
    ("missing.csv", "cannot read the data file missing.csv: no such file"),
])
def test_a_spec_pointing_at_a_system_file_exits_2_quoting_nothing(csv, sentence, spec_folder,
                                                                  capsys):
    path = spec_folder / "spec.json"
    path.write_text(json.dumps({**SPEC, "data": {"csv": csv}}))
    code, out, err = main(["sweep", path], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert sentence in err
    for bit in passwd_bits():
        assert bit not in err


def test_a_spec_reads_its_csv_beside_itself(spec_folder, tmp_path, monkeypatch, capsys):
    path = spec_folder / "spec.json"
    path.write_text(json.dumps({**SPEC, "data": {"csv": "rows.csv"}}))
    monkeypatch.chdir(tmp_path)
    code, out, err = main(["sweep", path], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 2 and all(r["failed"] == "" for r in rows)
    # the API reads a relative path from the working folder unless given a base
    with pytest.raises(ValueError, match="rows.csv: no such file"):
        SweepSpec.from_dict({**SPEC, "data": {"csv": "rows.csv"}})
    monkeypatch.chdir(spec_folder)
    assert SweepSpec.from_dict({**SPEC, "data": {"csv": "rows.csv"}}).base is None


def test_a_sweep_puts_no_file_content_in_its_failed_column(spec_folder, tmp_path):
    (spec_folder / "notes.csv").write_bytes(f"{SECRET_LINE}\n{SECRET_LINE}\nx\n".encode())
    spec = SweepSpec.from_dict({**SPEC, "data": {"csv": "notes.csv"}}, base=spec_folder)
    table = run_sweep(spec, cache_dir=tmp_path / "cache")
    assert len(table) == 2
    assert all("is not a number" in f and SECRET_LINE not in f for f in table["failed"])


def test_a_sweep_of_an_upload_is_refused():
    with pytest.raises(ValueError, match="a sweep reads its data itself"):
        SweepSpec.from_dict({**SPEC, "data": {"upload": "x.csv", "sha256": "0" * 64}})


def test_the_same_relative_path_in_two_folders_is_two_caches(tmp_path):
    for name, seed in (("a", 1), ("b", 2)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "rows.csv").write_bytes(rows_csv(seed=seed))
    one, two = (SweepSpec.from_dict({**SPEC, "data": {"csv": "rows.csv"}}, base=tmp_path / n)
                for n in ("a", "b"))
    assert one.to_dict() == two.to_dict() and one.digest() != two.digest()
