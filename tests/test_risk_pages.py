"""The risk panel on every page: the ε set first, in words and frequencies (issues 18 and 35).

Issue 35: at ε = 1 each panel's headline is the slider's ε; its frequency sentence's N is
the run's own curve at a 1 % false-positive rate, ``⌈100·TPR(1 %)⌉`` (read off the curve the
panel's expert section draws); an overspend is said in the summary; the accounting ("used
0.90 of your 1.00"), the relation's library names and the advantage sit in the closed
"For experts" section; no expert term is visible with every expander closed. Pages at their
defaults come from :mod:`rendered_pages` (shared with the page-words test); a page moved to
ε = 1 or with its experts' section open is rendered here, once per session.
"""

from __future__ import annotations

import base64
import functools
import json
import math
import re

import numpy as np
import pytest
from rendered_pages import PAGES, ROOT, TIMEOUT, render
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block

from dpviz.privacy import METHOD_LABELS
from dpviz.privacy.risk import (
    ONE_EDGE,
    REPLACE_ONE,
    SAME_EPSILON,
    Spending,
    plain_risk,
    risk_of_epsilon,
)
from dpviz.viz.style import METHOD_SHORT

#: The pages with a risk panel, the key of their ε control and its prefix of element keys.
PANELS = {"gmm": "gmm_epsilon", "lens": "lens_epsilon", "budget": "budget_epsilon",
          "sbm": "sbm_epsilon", "covariance": "cov_epsilon"}
NUMBER = r"([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)"
#: Words a stakeholder should not meet before opening a section (issue 35 item 5).
EXPERT_TERMS = re.compile(r"ρ|f-DP|\bPLDs?\b|type I\b|type II\b|privacy loss distribution|"
                          r"trade-off curve|zCDP", re.IGNORECASE)
#: Pages whose subject is the accounting methods: their names are the page's vocabulary.
ACCOUNTING_PAGES = frozenset({"budget", "papers"})
#: The glossary explains every term.
NOT_CHECKED = {"glossary": "explains every expert term, by design"}


def _prefix(page: str) -> str:
    return "cov" if page == "covariance" else page


@functools.cache
def at_one(page: str, experts: bool = False) -> AppTest:
    """``page`` with ε = 1 (covariance: an ε budget of 1), its experts' section open or not."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page(f"pages/{page}.py").run()
    if page == "covariance":
        at.radio(key="cov_budget").set_value("epsilon").run()
    if at.number_input(key=PANELS[page]).value != 1.0:
        at.number_input(key=PANELS[page]).set_value(1.0).run()
    if experts:
        at.session_state[f"{_prefix(page)}_risk_experts"] = True
        at.run()
    assert not at.exception, at.exception
    return at


def headline(at: AppTest) -> float:
    """The ε the panel opens with."""
    text = next(m.value for m in at.markdown if m.value.startswith("**Privacy budget: ε = "))
    return float(re.match(rf"\*\*Privacy budget: ε = {NUMBER}\*\*", text).group(1))


def frequency(at: AppTest) -> int:
    """N of "at most N in 100"."""
    text = next(m.value for m in at.markdown if m.value.startswith("**In frequencies:**"))
    return int(re.search(r"pick out at most (\d+) in 100", text).group(1))


def _values(data: object) -> np.ndarray:
    """A trace's x or y (Plotly writes numpy arrays as base64 ``bdata``)."""
    if isinstance(data, dict) and "bdata" in data:
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=np.dtype(data["dtype"]))
    return np.asarray(data)


def own_tpr_at_one_percent(at: AppTest, page: str) -> float:
    """The run's own curve at FPR 1 %, read off the figure the experts' section draws."""
    chart = next(c for c in at.get("plotly_chart")
                 if c.proto.id.endswith(f"{_prefix(page)}_risk_tradeoff"))
    trace = next(t for t in json.loads(chart.proto.spec)["data"]
                 if t.get("name") == "the best attack these releases allow")
    x, beta = _values(trace["x"]), _values(trace["y"])
    (i,) = [i for i, a in enumerate(x) if a == pytest.approx(0.01, abs=1e-12)]
    return 1.0 - float(beta[i])


def markdown_line(at: AppTest, label: str) -> str:
    return next(m.value for m in at.markdown if m.value.startswith(f"**{label}:**"))


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(PANELS))
def test_at_epsilon_one_the_headline_is_the_sliders_and_n_is_the_runs_curve(page):
    at = at_one(page, experts=True)
    assert headline(at) == at.number_input(key=PANELS[page]).value == 1.0
    tpr = own_tpr_at_one_percent(at, page)
    assert frequency(at) == max(1, math.ceil(100 * tpr - 1e-9)), tpr
    assert at.get("download_button") and any(
        b.proto.id.endswith(f"{_prefix(page)}_report") for b in at.get("download_button"))


def test_the_lens_frequency_is_the_laplace_closed_form():
    """Laplace at ε = 1: TPR(α) = e·α below the kink, so 2.72 in 100 → at most 3."""
    at = render("lens")
    assert headline(at) == 1.0 and frequency(at) == math.ceil(100 * math.e * 0.01)


def test_gmm_says_the_accounted_spend_only_in_the_experts_section():
    closed = render("gmm")
    assert not any("Used 0.90 of your 1.00" in m.value for m in closed.markdown)
    used = next(m.value for m in at_one("gmm", experts=True).markdown
                if m.value.startswith("**Used 0.90 of your 1.00.**"))
    assert "Tighter accounting found you spent 0.90 of the 1.00 you allowed" in used


def test_an_overspend_is_said_in_the_summary():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/covariance.py").run()
    at.toggle(key="cov_compare").set_value(True).run()  # three drawn, each within the budget
    assert not at.exception, at.exception
    (warning,) = [w.value for w in at.warning if "private runs on the same data" in w.value]
    stated = headline(at)
    spent = float(re.search(rf"together they spent ε = {NUMBER}", warning).group(1))
    assert spent > stated and "more than you set" in warning
    assert f"each within your ε = {stated:.3g}" in warning


def test_the_expert_details_name_the_relation_and_the_pair():
    gmm, sbm = at_one("gmm", experts=True), at_one("sbm", experts=True)
    assert f"*{REPLACE_ONE.name}*" in markdown_line(gmm, "Protects")
    assert REPLACE_ONE.opendp in markdown_line(gmm, "Protects")
    assert f"*{ONE_EDGE.name}*" in markdown_line(sbm, "Protects")
    assert "a given edge is in the graph" in markdown_line(sbm, "Odds")
    assert "pairs of vertices that are not linked" in markdown_line(sbm, "In frequencies")
    assert "δ" not in markdown_line(at_one("lens", experts=True), "Spent")  # pure Laplace


def _visible(node: object, out: list[str], hidden: bool = False) -> None:
    """Text outside closed sections: expander and popover bodies and help texts left out."""
    if isinstance(node, Block):
        if node.type == "expander":
            out.append(node.label)  # type: ignore[attr-defined]
        hidden = hidden or node.type in ("expander", "popover")
        for child in node.children.values():
            _visible(child, out, hidden)
        return
    if hidden:
        return
    proto = node.proto
    for name in ("body", "label", "value", "placeholder", "caption"):
        value = getattr(proto, name, None)
        if isinstance(value, str) and value:
            out.append(value)
    out.extend(str(option) for option in getattr(proto, "options", ()) or ())
    frame = getattr(node, "value", None) if node.type == "dataframe" else None
    if frame is not None and hasattr(frame, "columns"):
        out.extend(str(c) for c in frame.columns)
        out.extend(frame.astype(str).to_numpy().ravel().tolist())


def visible_words(at: AppTest, page: str) -> list[str]:
    out: list[str] = []
    _visible(at._tree, out)
    if page in ACCOUNTING_PAGES:  # the methods compared by name are these pages' subject
        names = sorted({*METHOD_LABELS, *METHOD_LABELS.values(), *METHOD_SHORT.values()},
                       key=len, reverse=True)
        out = [re.sub("|".join(map(re.escape, names)), "", text) for text in out]
    return out


@pytest.mark.parametrize("page", [p for p in PAGES if p not in NOT_CHECKED])
def test_no_expert_term_is_visible_with_every_section_closed(page):
    found = [t for t in visible_words(render(page), page) if EXPERT_TERMS.search(t)]
    assert not found, found


def test_the_experts_section_holds_the_terms_the_summary_leaves_out():
    at = at_one("gmm", experts=True)
    text = " ".join(m.value for m in [*at.markdown, *at.caption])
    for term in ("δ", "trade-off curve", "type I", "privacy loss distribution", "advantage",
                 REPLACE_ONE.dp_accounting):
        assert term in text, term


def test_the_three_advantages_at_epsilon_one_are_explained_side_by_side():
    table = next(d.value for d in render("glossary").dataframe
                 if "best attack's advantage" in d.value.columns)
    for page in ("budget", "lens", "gmm"):
        line = markdown_line(at_one(page, experts=True), "Best attack")
        shown = re.search(rf"is \*\*{NUMBER}%\*\*", line).group(1)
        assert f"{shown}%" in table["best attack's advantage"].tolist(), (page, shown)
    assert table["why"].str.len().min() > 40


@pytest.mark.slow
def test_presenter_mode_shows_the_summary_alone():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/gmm.py").run()
    at.toggle(key="presenter").set_value(True).run()
    assert not at.exception
    assert headline(at) == 1.0 and frequency(at) >= 1
    assert not [e for e in at.expander if e.label.startswith("For experts")]
    assert not any(b.proto.id.endswith("gmm_report") for b in at.get("download_button"))


def test_a_spend_just_above_the_slider_is_never_understated():
    """Within SAME_EPSILON above the slider the headline and the odds state the spend."""
    used = 2.5 * (1 + SAME_EPSILON / 2)
    worst = risk_of_epsilon(used)
    plain = plain_risk(Spending(used, 0.0, 2.5, None, worst, worst), REPLACE_ONE)
    assert plain.overspent is None and plain.guarantee == used == plain.epsilon
    assert plain.headline() == "ε = 2.51"
    under = plain_risk(Spending(0.999, 0.0, 1.0, None, worst, worst), REPLACE_ONE)
    assert under.headline() == "ε = 1" and under.guarantee == 1.0  # the slider's, not less
