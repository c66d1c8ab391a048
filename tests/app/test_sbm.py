"""Stochastic block model page: draws, follows ε, karate club, bad input, deep links."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpviz.estimators.registry import TASKS
from dpviz.lab.experiments import sbm_curves as curves
from dpviz.lab.scenario import Scenario
from dpviz.ui.pages import sbm as sbm_ui
from dpviz.ui.pages import sbm_curves

from .app_helpers import ROOT, TIMEOUT, charts, errors, open_section, values

#: Small graphs keep the page fast under AppTest (the defaults are n = 1000).
SMALL = {"sbm_n": "300"}


def open_sbm(**params: str) -> AppTest:
    """Home, then ``/sbm`` with ``params`` in the link (as a shared link would open it)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    at.switch_page("pages/sbm.py")
    at.query_params.update(params)
    return at.run()


@pytest.fixture
def sbm() -> AppTest:
    return open_sbm(**SMALL)


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def recovered_matrix(at: AppTest) -> np.ndarray:
    trace = next(t for t in charts(at)["sbm_adjacency"]["data"]
                 if t["name"] == "ordered by the recovered ones")
    return values(trace["z"])


def test_page_draws_everything(sbm):
    assert not sbm.exception and not errors(sbm)
    assert sbm.title[0].value == "Stochastic block model"
    assert sbm.radio(key="sbm_source").value == "synthetic"
    assert sbm.number_input(key="sbm_n").value == 300
    assert sbm.number_input(key="sbm_degree").value == 100.0
    assert sbm.slider(key="sbm_signal").value == 0.5
    assert sbm.number_input(key="sbm_epsilon").value == 2.0
    assert sbm.number_input(key="sbm_delta").value == pytest.approx(1e-6)
    assert sbm.selectbox(key="sbm_estimator").value == "weak_recovery"
    assert sbm.selectbox(key="sbm_estimator").options == [TASKS["sbm"][n].label
                                                          for n in TASKS["sbm"]]
    assert sbm.number_input(key="sbm_weak_recovery_tolerance_fraction").value == 0.02
    assert {"sbm_adjacency", "sbm_graph", "sbm_ledger"} <= set(charts(sbm))
    heat = charts(sbm)["sbm_adjacency"]["data"]
    assert [t["name"] for t in heat] == ["ordered by the true communities",
                                         "ordered by the recovered ones"]
    assert values(heat[0]["z"]).shape == (150, 150)  # 2 × 2 pairs a pixel (MAX_PIXELS)
    graph = charts(sbm)["sbm_graph"]["data"]
    assert [t["name"] for t in graph][:3] == ["edges", "community +1", "community -1"]
    assert graph[3]["name"].startswith("mistakes (") and graph[3]["name"].endswith("of 300)")
    error = float(metric(sbm, "Error rate"))
    assert 0 <= error <= 0.5
    assert float(metric(sbm, "Overlap")) == pytest.approx(1 - 2 * error, abs=2e-3)
    assert int(metric(sbm, "Spectra")) > 1
    assert float(metric(sbm, "Certificate")) > 0
    captions = " ".join(c.value for c in sbm.caption)
    assert "p_in = (1 + ε_s)·d/n = 0.5, p_out = (1 − ε_s)·d/n = 0.167" in captions
    assert "Kesten–Stigum" in captions and "Guarantee:" not in captions  # choices closed
    captions = " ".join(c.value for c in open_section(sbm, "sbm_choices_open").caption)
    assert "Guarantee: (2, 1e-06)-edge-DP." in captions


def test_epsilon_changes_the_recovery_but_not_the_projection(sbm):
    before, error = recovered_matrix(sbm), metric(sbm, "Error rate")
    certificate = metric(sbm, "Certificate")
    sbm.number_input(key="sbm_epsilon").set_value(0.3).run()
    assert not sbm.exception and not errors(sbm)
    assert metric(sbm, "Error rate") != error
    assert not np.array_equal(recovered_matrix(sbm), before)
    assert metric(sbm, "Certificate") == certificate


def test_karate_club_is_one_click_away(sbm):
    sbm.radio(key="sbm_source").set_value("karate").run()
    assert not sbm.exception and not errors(sbm)
    assert "sbm_n" not in [n.key for n in sbm.number_input]
    captions = " ".join(c.value for c in sbm.caption)
    assert "Zachary's karate club: 34 members, 78 friendships" in captions
    assert "read off this very graph" in captions
    # the default (private) estimator runs with d and ε_s read off the graph: no guarantee
    assert sbm.warning[0].value.startswith("Not private: ")
    assert "the model parameters d and ε_s were read off this very graph" in sbm.warning[0].value
    graph = charts(sbm)["sbm_graph"]["data"]
    assert graph[3]["name"].endswith("of 34)")
    assert values(charts(sbm)["sbm_adjacency"]["data"][0]["z"]).shape == (34, 34)
    sbm.selectbox(key="sbm_estimator").set_value("spectral").run()
    assert not sbm.exception and not errors(sbm)
    assert metric(sbm, "Error rate") == f"{1 / 34:.3f}"  # node 8, as ALGORITHMS.md §7 says
    assert sbm.warning[0].value.startswith("Not private: non-private reference")
    assert "sbm_ledger" not in charts(sbm)


def test_metropolis_exponential_mechanism_says_it_has_no_guarantee(sbm):
    sbm.selectbox(key="sbm_estimator").set_value("exponential").run()
    assert not sbm.exception and not errors(sbm)
    assert "no privacy guarantee" in sbm.warning[0].value


def _upload(at: AppTest, content: bytes) -> AppTest:
    at.radio(key="sbm_source").set_value("upload").run()
    assert not at.exception
    at.file_uploader(key="sbm_upload").set_value(("edges.csv", content, "text/csv")).run()
    return at


def _two_communities(n: int, inside: float, across: float, seed: int = 0) -> bytes:
    """An edge list of n vertices in two halves (a header row, ids 0 … n−1)."""
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)
             if rng.random() < (inside if (i < n // 2) == (j < n // 2) else across)]
    return ("source,target\n" + "\n".join(f"{i},{j}" for i, j in pairs)).encode()


def test_upload_waits_for_a_file_then_recovers_its_communities(sbm, ran):
    sbm.radio(key="sbm_source").set_value("upload").run()
    assert not sbm.exception and not errors(sbm)
    assert sbm.info[0].value.startswith("Upload an edge list")
    assert any("not kept in the link" in c.value for c in sbm.caption)
    sbm.radio(key="sbm_upload_n_way").set_value("given").run()
    sbm.radio(key="sbm_upload_d_way").set_value("given").run()
    # the generated graph's n = 300 and d = 100 never carry over: n waits for the file
    assert sbm.number_input(key="sbm_upload_n").value is None
    assert sbm.number_input(key="sbm_upload_degree").value is None
    content = _two_communities(40, 0.6, 0.1)
    sbm.selectbox(key="sbm_estimator").set_value("spectral")
    _upload(sbm, content)
    assert not sbm.exception and not errors(sbm)
    # the file's count is a hint, never the value (it is read from the edges): no run yet
    assert sbm.number_input(key="sbm_upload_n").value is None
    assert sbm.number_input(key="sbm_upload_n").placeholder == "its ids suggest 40"
    assert [i.value for i in sbm.info] == [sbm_ui.N_MISSING] and charts(sbm) == {}
    sbm.number_input(key="sbm_upload_n").set_value(40).run()
    assert [i.value for i in sbm.info] == [sbm_ui.D_MISSING]  # d has no default: no run
    assert charts(sbm) == {}
    count = len(ran)
    sbm.number_input(key="sbm_upload_degree").set_value(10.0).run()
    assert not sbm.exception and not errors(sbm)
    assert len(ran) == count + 1 and ran[-1].params["degree"] == 10.0
    edges = content.count(b"\n")
    assert any(f"{edges} edges from the uploaded file edges.csv: n = 40 vertices, given"
               in c.value for c in sbm.caption)
    assert any("it is not private, so that is the only condition" in i.value for i in sbm.info)
    assert "Error rate" not in [m.label for m in sbm.metric]
    assert [t["name"] for t in charts(sbm)["sbm_adjacency"]["data"]] == [
        "ordered by the recovered ones"]


def test_the_issues_graph_says_recovery_cannot_be_expected(ran):
    """77 vertices, d = 6 given, ε_s = 0.5, ε = 2: a near-random split, said before the run."""
    at = open_sbm(sbm_source="upload", sbm_upload_n_way="given", sbm_upload_d_way="given")
    _upload(at, _two_communities(77, 0.1, 0.035, seed=3))
    at.number_input(key="sbm_upload_n").set_value(77)
    at.number_input(key="sbm_upload_degree").set_value(6.0).run()
    assert not at.exception and not errors(at)
    (said,) = [w.value for w in at.warning if w.value.startswith("At n = 77")]
    assert "ε_s²·d = 1.5 is above 1, the Kesten–Stigum threshold" in said
    assert "Private weak recovery at ε = 2" in said and "expect a near-random split" in said
    assert "near-exact recovery at ε = 2 needs ε_s·d of about 96; here it is 3." in said
    assert dict(ran[-1].data)["n"] == 77 and ran[-1].params["degree"] == 6.0
    assert "below 0.65 times the signal from ε ≈ 23" in said
    assert "beyond this page's largest ε (20)" in said
    at.number_input(key="sbm_epsilon").set_value(20.0).run()  # its weak signal: partial
    (said,) = [w.value for w in at.warning if w.value.startswith("At n = 77")]
    assert "even without noise the projection puts about 15% of the vertices" in said
    assert "expect a split better than a coin flip, with many vertices wrong" in said


def test_the_files_count_is_a_hint_not_a_value():
    """n is public only when the user gives it: the ids (read from the edges) only suggest it."""
    at = open_sbm(sbm_source="upload", sbm_upload_n_way="given", sbm_upload_degree="5")
    _upload(at, _two_communities(40, 0.3, 0.05))
    assert at.number_input(key="sbm_upload_n").value is None
    assert at.number_input(key="sbm_upload_n").placeholder == "its ids suggest 40"
    at.number_input(key="sbm_upload_n").set_value(45).run()
    assert at.number_input(key="sbm_upload_n").value == 45  # the user's n is kept
    at.file_uploader(key="sbm_upload").set_value(
        ("other.csv", _two_communities(30, 0.3, 0.05), "text/csv")).run()
    assert not at.exception
    assert at.number_input(key="sbm_upload_n").placeholder == "its ids suggest 30"


@pytest.mark.parametrize("link", [
    {"sbm_upload_n": "50", "sbm_upload_degree": "5"},
    {"sbm_n": "50", "sbm_degree": "5"},  # made when the upload shared the generated keys
    {"sbm_upload_n_way": "given", "sbm_n": "50", "sbm_upload_d_way": "given",
     "sbm_degree": "5"},
])
def test_a_link_that_gives_the_uploads_n_and_d_opens_with_them(link, ran):
    at = open_sbm(sbm_source="upload", **link)
    assert at.radio(key="sbm_upload_n_way").value == "given"
    assert at.number_input(key="sbm_upload_n").value == 50
    assert at.number_input(key="sbm_upload_degree").value == 5.0
    _upload(at, _two_communities(40, 0.3, 0.05))
    assert not at.exception and not errors(at)
    assert dict(ran[-1].data)["n"] == 50 and ran[-1].params["degree"] == 5.0


@pytest.mark.parametrize(("content", "sentence"), [
    (b"0,1\n1,abc\n", "every cell must be a number"),
    (b"0,1\n1,400\n", "has a vertex id of n or more, but n = 300 vertices"),
])
def test_bad_edge_list_shows_the_engine_sentence(content, sentence):
    at = open_sbm(sbm_source="upload", sbm_upload_n="300")  # a link that gives n
    _upload(at, content)
    assert not at.exception
    assert len(errors(at)) == 1 and sentence in errors(at)[0], errors(at)
    assert charts(at) == {}


@pytest.mark.parametrize(("key", "value", "sentence"), [
    ("sbm_n", 5000, "n = 5,000 vertices of average degree 100 is too much work on a page"),
    ("sbm_delta", 1.0, "delta"),
    ("sbm_degree", 400.0, "the edge probability (1 + signal)·degree/n must be at most 1"),
])
def test_bad_parameter_shows_the_engine_sentence(sbm, key, value, sentence):
    sbm.number_input(key=key).set_value(value).run()
    assert not sbm.exception
    assert len(errors(sbm)) == 1 and sentence in errors(sbm)[0], errors(sbm)
    assert charts(sbm) == {}


def test_a_deep_link_reopens_the_scenario():
    at = open_sbm(sbm_n="200", sbm_degree="40", sbm_signal="0.8", sbm_epsilon="3.5",
                  sbm_estimator="randomized_response")
    assert not at.exception and not errors(at)
    assert at.number_input(key="sbm_n").value == 200
    assert at.number_input(key="sbm_degree").value == 40.0
    assert at.slider(key="sbm_signal").value == 0.8
    assert at.number_input(key="sbm_epsilon").value == 3.5
    assert at.selectbox(key="sbm_estimator").value == "randomized_response"
    assert values(charts(at)["sbm_adjacency"]["data"][0]["z"]).shape == (200, 200)
    assert any("Guarantee: 3.5-edge-DP" in c.value
               for c in open_section(at, "sbm_choices_open").caption)


#: Old links (the tests', the browser tests' and the home page's) and the scenario each opens.
OLD_LINKS = [
    ({"sbm_n": "200", "sbm_degree": "40", "sbm_signal": "0.8", "sbm_epsilon": "3.5",
      "sbm_estimator": "randomized_response"},
     {"estimator": "randomized_response",
      "data": {"generator": "sbm", "n": 200, "degree": 40.0, "signal": 0.8, "seed": 0},
      "params": {"epsilon": 3.5, "delta": 1e-6, "accounting": "pld"}, "seed": 0}),
    ({"sbm_n": "150", "sbm_degree": "40", "seed": "7", "sbm_estimator": "spectral"},
     {"estimator": "spectral",
      "data": {"generator": "sbm", "n": 150, "degree": 40.0, "signal": 0.5, "seed": 7},
      "params": {"epsilon": "inf", "delta": 0.0, "accounting": "pld"}, "seed": 7}),
    ({"sbm_source": "karate", "sbm_estimator": "weak_recovery"},
     {"estimator": "weak_recovery", "data": {"dataset": "karate"},
      "params": {"epsilon": 2.0, "delta": 1e-6, "accounting": "pld",
                 "tolerance_fraction": 0.02, "exact_accounting": True}, "seed": 0}),
    ({"sbm_n": "150", "sbm_degree": "40", "secure": "true"},
     {"estimator": "weak_recovery",
      "data": {"generator": "sbm", "n": 150, "degree": 40.0, "signal": 0.5, "seed": 0},
      "params": {"epsilon": 2.0, "delta": 1e-6, "accounting": "pld",
                 "tolerance_fraction": 0.02, "exact_accounting": True}, "seed": None}),
]


@pytest.mark.parametrize(("link", "expected"), OLD_LINKS)
def test_an_old_link_opens_the_same_scenario(ran, link, expected):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/sbm.py")  # the link opened in a new tab: the sidebar reads it too
    at.query_params.update(link)
    at.run()
    assert not at.exception and not errors(at)
    assert ran[-1] == Scenario.from_dict({"task": "sbm", **expected})


def test_card_and_solve_work_on_the_karate_club(ran):
    at = open_sbm(sbm_source="karate")
    assert not at.exception and not errors(at)
    assert dict(ran[-1].data) == {"dataset": "karate"}
    assert "sbm_card_prepare" in [b.key for b in at.button]


@pytest.mark.slow  # three sweeps: 2 s (make test, not make check)
def test_curves_are_computed_live_on_click_for_small_graphs():
    at = open_sbm(sbm_n="150", sbm_degree="40")
    assert not at.exception and not errors(at)
    assert not {"sbm_by_epsilon", "sbm_by_n", "sbm_phase"} & set(charts(at))
    at.button(key="sbm_compute").click().run()
    assert not at.exception and not errors(at)
    figures = charts(at)
    lines = [t["name"] for t in figures["sbm_by_epsilon"]["data"]
             if t.get("showlegend") is not False]
    assert lines == [TASKS["sbm"][n].label for n in (*sbm_curves.PRIVATE, *sbm_curves.REFERENCES)]
    assert "ε = 2" in figures["sbm_by_n"]["layout"]["title"]["text"]
    phase = figures["sbm_phase"]
    assert [t["type"] for t in phase["data"]] == ["heatmap", "heatmap"]
    assert phase["layout"]["shapes"][0]["x0"] == pytest.approx(40 ** -0.5)
    assert any("would look like a bug" in c.value for c in at.caption)
    at.number_input(key="sbm_epsilon").set_value(3.0).run()  # the curves do not depend on ε
    assert figures["sbm_phase"] == charts(at)["sbm_phase"]


def test_large_graphs_read_the_saved_curves():
    at = open_sbm(sbm_n="500", sbm_estimator="spectral")
    assert not at.exception and not errors(at)
    assert "sbm_compute" not in [b.key for b in at.button]
    try:
        curves.load_saved(sbm_curves.SAVED["epsilon"])
    except ValueError as err:
        assert any(str(err) in i.value for i in at.info)
    else:
        assert {"sbm_by_epsilon", "sbm_by_n", "sbm_phase"} <= set(charts(at))
        assert any("seeds per point" in c.value for c in at.caption)
