"""Experiment cards on the pages: the link and the card reopen the same numbers."""

from __future__ import annotations

import io
import json
import zipfile
from urllib.parse import parse_qs, urlsplit

import numpy as np
from streamlit.testing.v1 import AppTest

from dpviz import card as cards

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
    at.slider(key="gmm_epsilon").set_value(2.5)
    at.selectbox(key="gmm_accounting").set_value("pld")
    at.number_input(key="gmm_k").set_value(4).run()
    assert not at.exception and not errors(at)
    url = link(at)
    assert urlsplit(url).path == "/gmm"
    query = {k: v if len(v) > 1 else v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert query == {"gmm_epsilon": "2.5", "gmm_accounting": "pld", "gmm_k": "4",
                     "gmm_n": "2000", "seed": "0"}
    again = open_gmm(query)
    assert again.slider(key="gmm_epsilon").value == 2.5
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
    at.slider(key="gmm_epsilon").set_value(3.0).run()
    assert len(at.get("download_button")) == count - 1
