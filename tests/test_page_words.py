"""No page shows a file name, a section sign, an internal seed name or a raw registry key.

Issue 18 item 2: every page rendered at its defaults (:mod:`rendered_pages`, shared with the
risk-panel tests) is read word by word. The glossary is reachable from every risk panel.
"""

from __future__ import annotations

import re

import pytest
from rendered_pages import PAGES, render, words

from dpviz.estimators.metrics import METRICS
from dpviz.estimators.registry import TASKS
from dpviz.ui.pages.glossary import TERMS

#: Registry keys that are also plain English words (a page may say "zero" or "spectral"), and
#: "dplloyd", also an option of DP-EM's initialisation: a link carries the option's words
#: (widgets bound to the URL store what they show), so the page shows it as the link says it.
PLAIN_KEYS = frozenset({"laplace", "gaussian", "em", "exponential", "spectral", "projection",
                        "separate", "adaptive", "zero", "stability", "overlap", "dplloyd"})
FORBIDDEN = {
    "a file name": re.compile(r"[\w-]+\.(?:md|py)\b"),
    "a section sign": re.compile("§"),
    "an internal seed name": re.compile(r"\bseed 00\d\b", re.IGNORECASE),
}


def raw_keys() -> set[str]:
    """The registry's estimator and metric keys that are not plain words."""
    keys = {name for ests in TASKS.values() for name in ests}
    keys |= {name for metrics in METRICS.values() for name in metrics}
    return {key for key in keys if key not in PLAIN_KEYS}


def test_the_plain_keys_are_registry_keys():
    keys = {name for ests in TASKS.values() for name in ests}
    keys |= {name for metrics in METRICS.values() for name in metrics}
    assert PLAIN_KEYS <= keys


@pytest.mark.parametrize("page", PAGES)
def test_no_internal_words_on_the_page(page):
    text = words(render(page))
    assert text
    found = [(what, t) for t in text for what, pattern in FORBIDDEN.items() if pattern.search(t)]
    assert not found, found
    keys = raw_keys()
    # a key as a word of its own, not inside a link's path or query (``/gmm?x=dp_em``)
    shown = [(key, t) for t in text for key in keys
             if re.search(rf"(?<![\w/?=&#.-]){re.escape(key)}(?![\w-])", t)]
    assert not shown, shown


@pytest.mark.parametrize("page", ["budget", "lens", "gmm", "covariance", "sbm"])
def test_the_risk_panel_links_to_the_glossary(page):
    text = " ".join(words(render(page)))
    assert "/glossary#what-epsilon-means" in text and "/glossary#odds" in text


def test_every_glossary_link_has_its_entry():
    anchors = {term.anchor for term in TERMS} | {"three-answers"}
    linked = {anchor for page in PAGES for t in words(render(page))
              for anchor in re.findall(r"/glossary#([\w-]+)", t)}
    assert linked and linked <= anchors, linked - anchors


def test_the_glossary_renders_its_formulas_and_is_in_the_navigation():
    at = render("glossary")
    assert len(at.get("latex")) >= 10
    assert "glossary" in [link.proto.page for link in render("home").get("page_link")]
