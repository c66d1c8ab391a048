"""The Gaussian mixtures page's compare view and the new estimators' stories."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from .app_helpers import charts, open_page, open_section


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    return tmp_path


def open_compare(estimators: list[str]) -> AppTest:
    """The /gmm page with its compare view open on ``estimators`` (not every one: the
    preconditions of some solve their accounting cold, seconds each)."""
    at = open_page("gmm")
    at.session_state["gmm_compare_estimators"] = estimators
    return open_section(at, "gmm_compare_open")


def test_compare_view_runs_every_chosen_estimator_on_the_same_data(cache_dir):
    at = open_compare(["dp_em", "dplloyd", "em"])
    at.number_input(key="gmm_compare_repeats").set_value(3).run()
    at.button(key="gmm_compare_run").click().run()
    assert not at.exception, at.exception
    figure = charts(at)["gmm_compare_figure"]
    bars = [t for t in figure["data"] if t["type"] == "bar"]
    assert {t["name"] for t in bars} == {"DP-EM", "DPLloyd (noisy k-means)", "EM (non-private)"}
    assert figure["layout"]["xaxis"]["title"]["text"].startswith("error of the means")
    table = next(d.value for d in at.dataframe if "Estimator" in d.value.columns)
    share = next(c for c in table.columns if c.startswith("share of runs with an answer"))
    assert list(table[share]) == [1.0, 1.0, 1.0]
    error = next(c for c in table.columns if c.startswith("error of the means"))
    errors = dict(zip(table["Estimator"], table[error], strict=True))
    assert all(v >= errors["EM (non-private)"] * 0.5 for v in errors.values())  # privacy costs
    assert list(cache_dir.glob("*.jsonl"))  # the runs went through the sweep cache
    # 3 estimators × 3 repeats, 2 of them private: the page says what they spend together
    assert any("Each of the 6 private runs is another release" in c.value for c in at.caption)
    at.selectbox(key="gmm_compare_measure").set_value("seconds").run()  # one measure a chart
    figure = charts(at)["gmm_compare_figure"]
    assert figure["layout"]["xaxis"]["title"]["text"] == "run time (s, median)"


def test_compare_leaves_out_what_cannot_succeed_says_why_and_what_n_it_needs(cache_dir):
    at = open_compare(["dp_em", "ppe", "sample_aggregate"])
    at.number_input(key="gmm_compare_repeats").set_value(2).run()
    note = next(i.value for i in at.info if "Left out" in i.value)
    assert "cannot succeed" in note and "PPE" in note and "DP-EM" not in note
    # sample-and-aggregate's chunks are too few at the page's n = 10 000: the view says how many
    assert re.search(r"Sample-and-aggregate.*(preconditions hold|at least 90% of runs "
                     r"succeed) from about n = \d{2},\d{3} rows", note), note
    at.button(key="gmm_compare_run").click().run()
    assert not at.exception, at.exception
    bars = [t for t in charts(at)["gmm_compare_figure"]["data"] if t["type"] == "bar"]
    assert {t["name"] for t in bars} == {"DP-EM"}  # the others never ran
    at.checkbox(key="gmm_compare_anyway").check().run()
    at.button(key="gmm_compare_run").click().run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "Estimator" in d.value.columns)
    assert len(table) == 3  # run anyway: every chosen estimator has a row


@pytest.mark.parametrize("estimator, rows, title", [
    ("ppe", "saved", "The agreement test (no noise): passed"),  # precomputed at 100 000 rows
    ("stability", 10_000, "The stability test (no noise)"),
    ("sample_aggregate", 10_000, "Chunk estimates and their aggregate (no noise)"),
])
def test_a_refused_estimator_shows_its_mechanics_apart_and_without_epsilon(estimator, rows,
                                                                          title):
    """At the page's defaults these are refused before spending; their steps are shown as
    'mechanics only — not private', with no ε in that panel (issue 21 item 3)."""
    at = open_page("gmm")
    at.selectbox(key="gmm_estimator").set_value(estimator).run()
    assert not at.exception, at.exception
    assert any("refused before reading the data" in e.value for e in at.error)
    open_section(at, "gmm_mechanics_open")
    at.selectbox(key="gmm_mech_rows").set_value(rows).run()
    assert not at.exception, at.exception
    assert not at.error[1:], [e.value for e in at.error]  # nothing refused in the panel
    mechanics = {key: spec for key, spec in charts(at).items() if key.startswith("mechanics_")}
    titles = [spec["layout"].get("title", {}).get("text", "") for spec in mechanics.values()]
    assert any(t.startswith(title) for t in titles), titles
    for spec in mechanics.values():
        assert "ε" not in json.dumps(spec, ensure_ascii=False)


def test_the_preconditions_never_wait_behind_the_compare_runs(monkeypatch):
    """Another user's queued compare runs hold the compare pool: the preconditions a rerun
    asks go on their own pool (review L7), and still answer from public sizes."""
    from dpviz.estimators.registry import TASKS
    from dpviz.lab.feasibility import sizes_of
    from dpviz.ui import runs
    from dpviz.ui.pages import gmm_compare

    class Busy:
        def submit(self, *args, **kwargs):
            raise AssertionError("a precondition was queued behind the compare runs")

    monkeypatch.setattr(gmm_compare, "pool", lambda: Busy())
    gmm_compare._blocked.clear()
    asked = {name: sizes_of(TASKS["gmm"][name], n=50, d=2, k=3,
                            params={"epsilon": 1.0, "delta": 1e-5})
             for name in ("dp_em", "ppe")}
    found = gmm_compare._blocked(runs.canonical(asked))
    assert found["dp_em"] is None
    assert found["ppe"] is not None and "n = 50" in found["ppe"].reason
    assert gmm_compare.precondition_pool() is not gmm_compare.pool()
