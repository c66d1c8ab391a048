"""Experiment cards on the pages: the link and the card reopen the same numbers."""

from __future__ import annotations

import io
import json
import zipfile
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpviz.data import files, sha256
from dpviz.lab import card as cards
from dpviz.lab import scenario as scenario_module
from dpviz.lab.scenario import Scenario
from dpviz.ui.pages import sbm as sbm_ui
from dpviz.ui.widgets import upload_block

from .app_helpers import ROOT, TIMEOUT, charts, errors, values


def open_gmm(params: dict) -> AppTest:
    """Home, then ``/gmm`` with ``params`` in the link.

    Under AppTest the sidebar's ``seed`` is bound to Home's widget when the link is applied,
    so a seed in the link is dropped on the way to the page (in a browser a deep link runs
    the page alone): the tests here set the seed with its widget.
    """
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/gmm.py")
    at.query_params.update(params)
    at.run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    return at


def private_means(at: AppTest) -> np.ndarray:
    trace = next(t for t in charts(at)["gmm_figure"]["data"] if t["name"] == "private means")
    return np.column_stack([values(trace["x"]), values(trace["y"])])


def link(at: AppTest) -> str:
    return next(c.value for c in at.code if "/gmm?" in c.value)


def test_the_link_reopens_the_same_page_state_and_numbers():
    at = open_gmm({"gmm_n": "2000"})
    at.number_input(key="gmm_epsilon").set_value(2.5)
    at.selectbox(key="gmm_accounting").set_value("pld")
    at.number_input(key="gmm_k").set_value(4).run()
    assert not at.exception and not errors(at)
    url = link(at)
    assert urlsplit(url).path == "/gmm"
    query = {k: v if len(v) > 1 else v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert query == {"gmm_epsilon": "2.5", "gmm_accounting": "Privacy loss distribution",
                     "gmm_k": "4", "gmm_n": "2000", "seed": "0"}
    again = open_gmm(query)
    assert again.number_input(key="gmm_epsilon").value == 2.5
    assert again.number_input(key="gmm_k").value == 4
    np.testing.assert_array_equal(private_means(again), private_means(at))
    assert link(again) == url
    at.number_input(key="seed").set_value(7).run()
    assert "seed=7" in link(at)


def test_the_card_records_the_numbers_the_page_shows():
    at = open_gmm({"gmm_n": "2000"})
    at.number_input(key="seed").set_value(3).run()
    assert "gmm_card_card" not in at.session_state
    at.button(key="gmm_card_prepare").click().run()
    assert not at.exception and not errors(at)
    assert at.get("download_button")  # the card's download appears after "Prepare card"
    _, content = at.session_state["gmm_card_card"]
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        names = set(archive.namelist())
        card = json.loads(archive.read("card.json"))
    assert {"figures/dpviz-gaussian-mixtures.png", "figures/dpviz-gaussian-mixtures.svg",
            "figures/dpviz-gmm-ledger.png", "tables/errors-after-matching.csv",
            "regenerate.sh", "versions.txt"} <= names
    assert card["scenario"]["seed"] == 3 and card["scenario"]["data"]["n"] == 2000
    # the card's private means are the page's (matched order aside)
    recorded = np.asarray(card["result"]["means"])
    shown = private_means(at)
    assert sorted(map(tuple, recorded.round(9))) == sorted(map(tuple, shown.round(9)))
    # and replaying the card gives its numbers exactly
    assert cards.run_card(card).to_dict() == card["result"]


def test_a_changed_scenario_drops_the_prepared_card():
    at = open_gmm({"gmm_n": "2000"})
    at.button(key="gmm_card_prepare").click().run()
    assert at.get("download_button")
    count = len(at.get("download_button"))
    at.number_input(key="gmm_epsilon").set_value(3.0).run()
    assert len(at.get("download_button")) == count - 1


# --- uploads: the name is a label, the card is made from the bytes (issue 23, S1) -----------

class Upload:
    """What ``st.file_uploader`` keeps in the session: a name and the bytes."""

    def __init__(self, name: str, content: bytes) -> None:
        self.name, self._content = name, content

    def getvalue(self) -> bytes:
        return self._content


def csv_bytes(seed: int) -> bytes:
    rows = np.random.default_rng(seed).uniform(-0.5, 0.5, size=(80, 3))
    return ("x,y,z\n" + "".join(",".join(f"{v:.17g}" for v in row) + "\n"
                                for row in rows)).encode()


@pytest.fixture
def no_server_read(monkeypatch):
    def refuse(*args, **kwargs):
        pytest.fail(f"a server file was read: {args}")

    for module in (cards, scenario_module, files):
        monkeypatch.setattr(module, "read_file", refuse)
    monkeypatch.chdir(ROOT)  # where requirements.txt and app.py are


@pytest.mark.parametrize("name", ["requirements.txt", "../app.py", str(ROOT / "app.py"),
                                  "/etc/passwd"])
@pytest.mark.parametrize(("task", "estimator", "params"), [
    ("gmm", "dp_em", {"k": 2, "epsilon": 1.0, "delta": 1e-5, "radius": 10.0}),
    ("covariance", "gauss", {"rho": 0.1, "delta": 0.0, "radius": 1.0})])
def test_an_upload_scenario_records_the_upload_by_its_bytes(task, estimator, params, name,
                                                            no_server_read):
    content = csv_bytes(1)
    block = upload_block(Upload(name, content), content)  # the pages' upload block
    scenario = Scenario.from_dict({"task": task, "estimator": estimator, "data": block,
                                   "params": params, "seed": 4})
    assert dict(scenario.data) == {"upload": name, "sha256": sha256(content)}
    card = cards.make_card(scenario, content=content)
    assert card["data_file"] == {"upload": name, "sha256": sha256(content)}
    assert cards.run_card(card, content=content).to_dict() == card["result"]
    server = (ROOT / "requirements.txt").read_bytes()
    assert sha256(server) not in json.dumps(card)


def test_an_sbm_upload_named_like_a_server_file(no_server_read, ran):
    content = b"0,1\n1,2\n2,3\n3,0\n0,2\n"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/sbm.py")
    at.query_params.update({"sbm_source": sbm_ui.UPLOAD, "sbm_n": "4", "sbm_degree": "2",
                            "sbm_estimator": "randomized_response"})
    at.run()
    at.file_uploader(key="sbm_upload").set_value(("requirements.txt", content, "text/csv"))
    at.run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    scenario = ran[-1]  # the page's run
    assert dict(scenario.data) == {"upload": "requirements.txt", "sha256": sha256(content),
                                   "n": 4}
    card = cards.make_card(scenario, content=content)
    assert card["data_file"]["sha256"] == sha256(content)


def test_no_upload_yet_is_a_sentence_and_no_run(ran):
    at = open_gmm({})
    count = len(ran)
    at.selectbox(key="gmm_source").set_value("csv").run()
    assert not at.exception and not errors(at)
    assert any(i.value.startswith("Upload a CSV file") for i in at.info)
    assert len(ran) == count and "gmm_card_prepare" not in [b.key for b in at.button]


@pytest.mark.parametrize("name", ["assets/results/gmm_mean_errors.csv", "../main/app.csv",
                                  str(ROOT / "assets" / "results" / "gmm_mean_errors.csv")])
def test_prepare_card_on_an_upload_named_like_a_server_file(name, no_server_read):
    content = csv_bytes(2)
    at = open_gmm({})
    at.selectbox(key="gmm_source").set_value("csv").run()
    at.file_uploader(key="gmm_upload").set_value((name, content, "text/csv")).run()
    at.number_input(key="seed").set_value(3).run()
    assert not at.exception and not errors(at), errors(at)
    at.button(key="gmm_card_prepare").click().run()
    assert not at.exception and not errors(at), errors(at)
    _, zipped = at.session_state["gmm_card_card"]
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        card = json.loads(archive.read("card.json"))
    assert card["scenario"]["data"] == {"upload": name, "sha256": sha256(content)}
    assert cards.run_card(card, content=content).to_dict() == card["result"]
    assert any("fingerprint (SHA-256), not its rows" in c.value for c in at.caption)


class FakeBrowser:
    broken = False


def test_a_card_that_stops_waiting_leaves_the_one_browser_starting():
    """A card that times out waiting for the browser does not drop it: the next panel waits
    for the same one, so a loaded server never starts a second (review L2)."""
    import threading

    from dpviz.ui.panels import card as card_ui

    gate, started = threading.Event(), []

    def start():
        started.append(FakeBrowser())
        gate.wait()
        return started[-1]

    kept = card_ui.KeptBrowser(start)
    try:
        assert kept.get(timeout=0) is None  # still starting: this card goes on without it
        assert kept.get(timeout=0) is None  # the next card waits for that same one
        first = kept.starting()
        assert kept.starting() is first
    finally:
        gate.set()
    assert kept.get() is started[0]
    assert len(started) == 1


def test_a_browser_that_failed_or_broke_is_replaced_once():
    from dpviz.ui.panels import card as card_ui

    made = [RuntimeError("no chromium"), FakeBrowser(), FakeBrowser()]

    def start():
        made_now = made.pop(0)
        if isinstance(made_now, Exception):
            raise made_now
        return made_now

    kept = card_ui.KeptBrowser(start)
    assert kept.get() is None  # it failed to start: the card says so
    first = kept.get()  # the next asks again
    assert isinstance(first, FakeBrowser) and kept.get() is first
    first.broken = True  # a failed image closes it
    second = kept.get()
    assert isinstance(second, FakeBrowser) and second is not first and kept.get() is second
    assert made == []
