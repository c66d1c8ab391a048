"""The risk panel on every page at its defaults: one vocabulary, from the run's own ledger.

Issue 18 item 1: the panel states, in order, the ε (and δ) spent — the control's value, or
one sentence why not —, the relation protected, the odds and the best attack; pure DP never
mentions δ; /covariance's panel states the ρ budget at the header's δ. The pages are rendered
once for the session (:mod:`rendered_pages`).
"""

from __future__ import annotations

import re

import pytest
from rendered_pages import render
from streamlit.testing.v1 import AppTest

from dpviz.privacy.risk import ONE_EDGE, REPLACE_ONE

LINES = ("Spent", "Protects", "Odds", "Best attack")
#: The pages whose panel reads a run, with the key of their ε slider.
SLIDERS = {"lens": "lens_epsilon", "gmm": "gmm_epsilon", "sbm": "sbm_epsilon"}
NUMBER = r"([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)"


def panel(at: AppTest) -> dict[str, tuple[int, str]]:
    """The panel's lines by their bold label: (position on the page, the words after it)."""
    out = {}
    for i, markdown in enumerate(at.markdown):
        found = re.match(r"\*\*(Spent|Target|Protects|Odds|Best attack):\*\* (.*)",
                         markdown.value, re.S)
        if found:
            out[found.group(1)] = (i, found.group(2))
    return out


def spent(line: str) -> tuple[float, str]:
    """The ε a "Spent" line states first, and the sentences after its (ε, δ) pair."""
    epsilon = float(re.search(rf"ε = {NUMBER}", line).group(1))
    _, _, rest = line.partition(". ")
    return epsilon, rest


def sentences(text: str) -> int:
    return len(re.findall(r"[.!?](?:\s|$)", text))


@pytest.mark.parametrize("page", sorted(SLIDERS))
def test_the_spent_epsilon_is_the_sliders_or_one_sentence_says_why(page):
    at = render(page)
    lines = panel(at)
    assert [label for label in LINES if label in lines] == list(LINES)
    assert [lines[label][0] for label in LINES] == sorted(lines[label][0] for label in LINES)
    slider = float(at.number_input(key=SLIDERS[page]).value)
    epsilon, why = spent(lines["Spent"][1])
    if abs(epsilon - slider) <= 5e-3 * slider:
        assert why == "", why
    else:  # one sentence, naming both numbers
        assert sentences(why) == 1, why
        assert f"{epsilon:.2f}" in why and f"{slider:.2f}" in why, why


def test_gmm_explains_the_tighter_accounting_and_the_tighter_curve():
    at = render("gmm")
    _, why = spent(panel(at)["Spent"][1])
    assert why.startswith("Tighter accounting found you spent 0.90 of the 1.00 you allowed")
    two = next(c.value for c in at.caption if "promise alone" in c.value)
    advantage = re.search(rf"is \*\*{NUMBER}%\*\*", panel(at)["Best attack"][1]).group(1)
    assert f"allow only {advantage}%" in two and sentences(two) == 1


def test_the_budget_page_states_its_target():
    at = render("budget")
    line = panel(at)["Target"][1]
    assert line.startswith(f"ε = {at.number_input(key='budget_epsilon').value:g}, δ = 1e-05")


def test_the_pure_laplace_lens_never_mentions_delta():
    lines = panel(render("lens"))
    for label in LINES:
        assert "δ" not in lines[label][1], lines[label][1]


def test_each_page_names_the_relation_it_protects():
    assert f"*{REPLACE_ONE.name}*" in panel(render("gmm"))["Protects"][1]
    assert f"*{ONE_EDGE.name}*" in panel(render("sbm"))["Protects"][1]
    assert "a given edge is in the graph" in panel(render("sbm"))["Odds"][1]


def test_covariance_states_the_rho_budget_as_its_header_does():
    at = render("covariance")
    rho = float(at.select_slider(key="cov_rho").value)
    header = next(c.value for c in at.caption if "-zCDP, which implies" in c.value)
    allowed, delta = re.search(rf"\(ε = {NUMBER}, δ = ([0-9.e+-]+)\)-DP", header).groups()
    epsilon, why = spent(panel(at)["Spent"][1])
    assert f"δ = {float(delta):.2g}." in panel(at)["Spent"][1]  # the header's δ, not another
    assert sentences(why) == 1
    assert f"ρ = {rho:g}, stated as ε = {allowed} at δ = {float(delta):.2g}" in why
    assert why.startswith("This page drew 3 private runs") and epsilon > float(allowed)


def test_the_three_advantages_at_epsilon_one_are_explained_side_by_side():
    table = next(d.value for d in render("glossary").dataframe
                 if "best attack's advantage" in d.value.columns)
    for page in ("budget", "lens", "gmm"):
        line = panel(render(page))["Best attack"][1]
        shown = re.search(rf"is \*\*{NUMBER}%\*\*", line).group(1)
        assert f"{shown}%" in table["best attack's advantage"].tolist(), (page, shown)
    assert table["why"].str.len().min() > 40
