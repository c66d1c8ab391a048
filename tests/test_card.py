"""Experiment cards: the round trip reproduces the numbers exactly; the zip; bad cards."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dpviz.data import sha256
from dpviz.lab import card as cards
from dpviz.lab.scenario import Scenario

SCENARIOS = {
    "gmm": {"task": "gmm", "estimator": "dp_em",
            "data": {"generator": "gmm", "n": 600, "k": 2, "seed": 4},
            "params": {"epsilon": 1.0, "delta": 1e-5}, "seed": 11},
    "covariance": {"task": "covariance", "estimator": "separate",
                   "data": {"generator": "zipf", "n": 400, "d": 4, "seed": 2},
                   "params": {"rho": 0.3}, "seed": 5},
    "sbm": {"task": "sbm", "estimator": "randomized_response",
            "data": {"generator": "sbm", "n": 80, "degree": 20, "signal": 0.8, "seed": 1},
            "params": {"epsilon": 2.0}, "seed": 3},
    "mean": {"task": "mean", "estimator": "laplace", "data": {"dataset": "digits"},
             "params": {"epsilon": 0.5, "radius": 1.0}, "seed": 9},
}


def scenario(name: str, **changes) -> Scenario:
    return Scenario.from_dict({**SCENARIOS[name], **changes})


@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "rows.csv"
    rows = np.random.default_rng(0).uniform(-0.5, 0.5, size=(200, 3))
    np.savetxt(path, rows, delimiter=",", fmt="%.17g")
    return path


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_card_replays_the_same_numbers_through_its_file(name, tmp_path):
    card = cards.make_card(scenario(name))
    assert card["reproducible"] and card["note"] is None and card["data_file"] is None
    assert card["scenario"]["seed"] == SCENARIOS[name]["seed"]
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    replayed = cards.run_card(cards.read_card(path))
    assert json.loads(json.dumps(replayed.to_dict())) == card["result"]
    assert replayed.to_dict()["seed"] == SCENARIOS[name]["seed"]


def test_another_seed_gives_other_numbers_so_the_round_trip_can_fail():
    card = cards.make_card(scenario("gmm"))
    other = dict(card, scenario={**card["scenario"], "seed": 12})
    with pytest.warns(UserWarning, match="replayed numbers differ"):
        result = cards.run_card(other)
    assert result.to_dict()["means"] != card["result"]["means"]


def test_the_card_records_versions_command_and_time():
    card = cards.make_card(scenario("mean"))
    assert card["dpviz_card"] == cards.CARD_VERSION
    assert card["command"] == "python -m dpviz run --card card.json"
    assert card["versions"]["python"].startswith("3.11")
    assert card["versions"]["numpy"] == np.__version__
    assert set(cards.PACKAGES) <= set(card["versions"])
    assert card["dpviz_version"] and card["created"].endswith("+00:00")


def test_a_csv_card_records_the_file_hash_and_refuses_a_changed_file(csv_path):
    s = Scenario.from_dict({"task": "covariance", "estimator": "gauss",
                            "data": {"csv": str(csv_path)}, "params": {"rho": 1.0},
                            "seed": 0})
    card = cards.make_card(s)
    assert card["data_file"] == {"path": str(csv_path), "sha256": sha256(csv_path.read_bytes())}
    assert cards.run_card(card).to_dict() == card["result"]
    with open(csv_path, "a") as handle:
        handle.write("0.1,0.2,0.3\n")
    with pytest.raises(ValueError, match=r"rows\.csv changed since the card was made") as err:
        cards.run_card(card)
    assert sha256(csv_path.read_bytes())[:8] not in str(err.value)  # nothing of the file
    csv_path.unlink()
    with pytest.raises(ValueError, match="cannot read the data file .*rows.csv: no such file"):
        cards.run_card(card)


def test_a_secure_card_keeps_no_seed_and_refuses_to_replay():
    card = cards.make_card(scenario("mean", seed=None))
    assert card["reproducible"] is False and card["result"] is None
    assert card["scenario"]["seed"] is None and "cannot be reproduced" in card["note"]
    with pytest.raises(ValueError, match="secure randomness .* cannot be reproduced"):
        cards.run_card(card)


@pytest.mark.parametrize(("mutate", "sentence"), [
    (lambda c: [], "this is not a dpviz card"),
    (lambda c: {k: v for k, v in c.items() if k != "versions"},
     "the card has no 'versions' field"),
    (lambda c: {**c, "dpviz_card": 99}, "format version is 99"),
    (lambda c: {**c, "scenario": {**c["scenario"], "estimator": "nope"}},
     "unknown estimator 'nope'"),
    (lambda c: {**c, "scenario": {**c["scenario"], "params": {"epsilon": -1}}},
     "epsilon must be > 0"),
    (lambda c: {**c, "result": None}, "records no result"),
    (lambda c: {**c, "data_file": "x.csv"}, "data_file must be null"),
    (lambda c: {**c, "versions": None}, "versions must be a JSON object"),
    (lambda c: {**c, "reproducible": "yes"}, "reproducible must be true or false"),
])
def test_bad_cards_are_refused_with_a_sentence(mutate, sentence):
    card = cards.make_card(scenario("mean"))
    with pytest.raises(ValueError, match=sentence):
        cards.run_card(mutate(card))


def test_read_card_says_what_is_wrong_with_the_file(tmp_path):
    path = tmp_path / "card.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match=r"is not JSON \(line 1, column 2"):
        cards.read_card(path)
    with pytest.raises(ValueError, match="cannot read the card"):
        cards.read_card(tmp_path / "missing.json")
    assert cards.read_card(json.dumps(cards.make_card(scenario("mean"))).encode())


FIGURES = {"the scatter": go.Figure(go.Scatter(x=[1, 2], y=[3, 4], name="private means"))}
TABLES = {"errors / ε": pd.DataFrame({"estimator": ["DP-EM"], "mean error": [0.125]})}


def unzip(content: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.slow  # figures exported by kaleido: 3 s (make test, not make check)
def test_the_zip_holds_the_card_versions_figures_tables_and_script():
    card = cards.make_card(scenario("mean"))
    files = unzip(cards.card_zip(card, FIGURES, TABLES))
    assert set(files) == {"card.json", "versions.txt", "README.txt", "regenerate.sh",
                          "figures/the-scatter.png", "figures/the-scatter.svg",
                          "tables/errors-e.csv"}
    assert json.loads(files["card.json"]) == card
    assert files["figures/the-scatter.png"].startswith(b"\x89PNG")
    assert b"<svg" in files["figures/the-scatter.svg"][:400]
    assert pd.read_csv(io.BytesIO(files["tables/errors-e.csv"]))["mean error"][0] == 0.125
    assert f"numpy {np.__version__}" in files["versions.txt"].decode()
    assert "python -m dpviz run --card card.json" in files["regenerate.sh"].decode()
    assert "PNG and SVG" in files["README.txt"].decode()


def test_without_a_browser_the_zip_has_html_and_json_and_says_why(monkeypatch, caplog):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    card = cards.make_card(scenario("mean", seed=None))
    files = unzip(cards.card_zip(card, FIGURES, TABLES))
    assert "figures/the-scatter.png" not in files
    assert b"<html>" in files["figures/the-scatter.html"][:100]
    assert json.loads(files["figures/the-scatter.json"])["data"][0]["name"] == "private means"
    readme = files["README.txt"].decode()
    assert ("PNG and SVG are missing: no browser could draw the figures on the server. Open "
            "the HTML files") in readme
    # the browser's error (a server path, the exception) goes to the server's log only
    assert "nonexistent" not in readme and "Error" not in readme
    logged = [r for r in caplog.records if r.name == "dpviz" and r.exc_info]
    assert logged and "ChromeNotFoundError" in caplog.text
    assert "Not reproducible" in readme
    assert "exit 1" in files["regenerate.sh"].decode()


class FakeKaleido:
    """Kaleido without Chromium: what :class:`dpviz.lab.card.Browser` calls on it."""

    def __init__(self, **options):
        self.closed = False

    async def open(self):
        return None

    async def calc_fig(self, fig, opts):
        return b"\x89PNG" if opts["format"] == "png" else b"<svg/>"

    async def close(self):
        self.closed = True


class Hooks:
    """The exit hooks registered, in place of :mod:`atexit` (which cannot list them)."""

    def __init__(self):
        self.hooks = []

    def register(self, hook):
        self.hooks.append(hook)

    def unregister(self, hook):
        self.hooks = [h for h in self.hooks if h != hook]


def test_a_closed_browser_leaves_no_exit_hook(monkeypatch):
    """Each card of an upload starts and closes its own browser: none stays registered with
    atexit until the process ends (review L2)."""
    import kaleido

    monkeypatch.setattr(kaleido, "Kaleido", FakeKaleido)
    monkeypatch.setenv("BROWSER_PATH", "/fake/chromium")
    monkeypatch.setattr(cards, "atexit", Hooks())
    kept = cards.Browser()
    assert cards.atexit.hooks == [kept.close]  # an open browser is closed at exit
    for _ in range(3):  # upload cards: a browser of their own each
        files, reason = cards.figure_images(FIGURES)
        assert reason is None and files["figures/the-scatter.png"].startswith(b"\x89PNG")
    assert cards.atexit.hooks == [kept.close]
    kept.close()
    kept.close()
    assert kept.kaleido.closed and cards.atexit.hooks == []
