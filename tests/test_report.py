"""The stakeholder report (issue 35 item 6): one self-contained page, every user string escaped.

Built from the same :class:`PlainRisk` the risk panel opens with, for a run at ε = 1 on each
page's relation: the report states that ε, the odds and the frequency sentence word for word
(escaped), its icon array has N orange icons, and a hostile title, file name, column or link
never reaches it as markup.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest
from predicting import small_predictions
from rendered_pages import ROOT, TIMEOUT
from streamlit.testing.v1 import AppTest

from dpviz.lab.report import WITHOUT_PRIVACY, Table, report_html
from dpviz.privacy import Budget, PrivacyEvent
from dpviz.privacy.risk import ONE_EDGE, REPLACE_ONE, plain_risk, spending
from dpviz.ui.panels import risk as risk_ui
from dpviz.ui.panels.report import tables_of
from dpviz.ui.panels.risk import SEEDED_OWN_DATA
from dpviz.viz.risk import icon_array

ROWS = np.random.default_rng(5).normal(0.0, 1.0, (120, 2))
CSV = ("a,b\n" + "\n".join(f"{x:.5f},{y:.5f}" for x, y in ROWS) + "\n").encode()
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
#: A run at ε = 1 as each page's releases spend it: pure Laplace (the lens), Gaussian
#: releases with a Laplace count (DP-EM's), Gaussian releases on a graph (the SBM).
RUNS = {
    "lens": ({None: [PrivacyEvent("laplace", epsilon=1.0)]}, Budget(epsilon=1.0), REPLACE_ONE),
    "gmm": ({None: [PrivacyEvent("gaussian", mu=0.35, count=5),
                    PrivacyEvent("laplace", epsilon=0.1)]},
            Budget(epsilon=1.0, delta=1e-5), REPLACE_ONE),
    "sbm": ({None: [PrivacyEvent("gaussian", mu=0.5)]}, Budget(epsilon=1.0, delta=1e-6),
            ONE_EDGE),
}


def _report(run: str, **extra: object) -> tuple[str, object]:
    parts, budget, relation = RUNS[run]
    plain = plain_risk(spending(parts, budget), relation)
    args = {"title": "Gaussian mixtures", "plain": plain, "icons": icon_array(plain.picked),
            "link": "http://localhost:8501/gmm?gmm_epsilon=1", **extra}
    return report_html(**args), plain  # type: ignore[arg-type]


@pytest.mark.parametrize("run", sorted(RUNS))
def test_the_report_states_the_epsilon_set_the_odds_and_the_frequency(run):
    page, plain = _report(run)
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>")
    assert "Privacy budget: ε = 1<" in page and plain.headline() == "ε = 1"
    assert html.escape(plain.odds()) in page and html.escape(plain.frequency()) in page
    assert f"at most {plain.picked} in 100" in page
    assert page.count('fill="#e8590c"') == 2 * plain.picked  # head and body of each icon
    assert "<script" not in page and "src=" not in page.replace('src="', "")  # self-contained


def test_no_user_string_reaches_the_report_unescaped():
    table = pd.DataFrame({HOSTILE: [HOSTILE, 1.5]})
    page, _ = _report("gmm", title=HOSTILE, link=f'http://x/"{HOSTILE}', notes=[HOSTILE],
                      tables=tables_of({HOSTILE: table}), made=HOSTILE)
    assert "<script" not in page and "<img" not in page
    assert page.count(html.escape(HOSTILE)) >= 6  # title ×2, caption, column, cell, note, made
    assert re.search(r'href="http://x/&quot;&lt;script', page)  # the link cannot close href


def test_an_overspend_is_in_the_report():
    parts = {None: [PrivacyEvent("laplace", epsilon=1.0, count=3)]}
    plain = plain_risk(spending(parts, Budget(epsilon=1.0)), REPLACE_ONE, runs=3)
    page = report_html(title="t", plain=plain, icons="", link="")
    assert plain.overspent and html.escape(plain.overspent) in page
    assert "together they spent ε = 3, more than you set" in page


def test_the_accuracy_tables_keep_their_cells_as_text():
    (table,) = tables_of({"errors": pd.DataFrame({"estimator": ["DP-EM"], "mean error": [0.12]})})
    assert table == Table("errors", ["estimator", "mean error"], [["DP-EM", "0.12"]])
    page = report_html(title="t", plain=plain_risk(spending(*RUNS["lens"][:2]), REPLACE_ONE),
                       icons="", link="", tables=[table], notes=["Each ± is a 90 % interval."])
    assert "<h2>Accuracy</h2>" in page and "<td>0.12</td>" in page and "90 % interval" in page


def test_a_seeded_own_data_sentence_sits_under_the_headline_as_an_overspend_does():
    page, _ = _report("gmm", warnings=[HOSTILE], notes=["a note"])
    headline = page.index('<p class="epsilon">')
    said = page.index(f'<p class="warning">{html.escape(HOSTILE)}</p>')
    assert headline < said < page.index(html.escape(_report("gmm")[1].odds()))
    assert said == page.index("</p>", headline) + len("</p>")  # directly under it
    assert "<script" not in page


def test_what_is_computed_from_the_users_rows_without_privacy_is_labelled():
    rows = {"errors": pd.DataFrame({"estimator": ["DP-EM"], "mean error": [0.1]}),
            "intervals": pd.DataFrame({"mean": ["1 ± 0.2"]})}
    public, _ = _report("gmm", picture="<svg></svg>", tables=tables_of(rows))
    assert WITHOUT_PRIVACY not in public and "not covered by ε" not in public
    own, _ = _report("gmm", picture="<svg></svg>", picture_without_privacy=True,
                     tables=tables_of(rows, without_privacy=["errors"]))
    label = html.escape(WITHOUT_PRIVACY)
    assert own.count(label) == 2  # the picture and the error table, not the intervals
    assert own.index(label) < own.index('<div class="picture">')
    errors, intervals = own.split("<table>")[1:]
    assert label in errors and label not in intervals


def _report_arguments(monkeypatch, *, upload: bool) -> dict[str, object]:
    """What /gmm's risk panel hands the report button (generated data, or an upload)."""
    seen: dict[str, object] = {}
    monkeypatch.setattr(risk_ui, "report_button", lambda plain, **kw: seen.update(kw))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/gmm.py").run()
    if upload:
        at.selectbox(key="gmm_source").set_value("csv").run()
        at.number_input(key="gmm_csv_k").set_value(2)
        at.file_uploader(key="gmm_upload").set_value(("mine.csv", CSV, "text/csv")).run()
    assert not at.exception, at.exception
    return seen


@pytest.mark.slow  # an upload on /gmm and its report: 2 s (make test, not make check)
def test_an_upload_s_report_labels_its_non_private_parts(monkeypatch):
    small_predictions(monkeypatch)  # the report is tested, not the prediction (14 s in full)
    own = _report_arguments(monkeypatch, upload=True)
    assert own["own_data"] and own["warnings"] == [SEEDED_OWN_DATA.replace("**", "")]
    assert SEEDED_OWN_DATA.replace("**", "") not in own["notes"]  # not small under Accuracy
    assert "Errors after matching components" in own["without_privacy"]
    (errors,) = tables_of(own["accuracy"], own["without_privacy"])[:1]
    assert errors.without_privacy
    public = _report_arguments(monkeypatch, upload=False)
    assert not public["own_data"] and not public["warnings"]
