"""Every user string a figure shows reaches Plotly escaped (issue 17): a CSV's column names,
a student's name, a typed question. Plotly renders ``<b>``, ``<a href>``, ``<span style>`` and
``<br>`` in titles, legends, ticks and hover text, and ``$…$`` as LaTeX."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz.privacy import Ledger, Release
from dpviz.viz import covariance, figure_table, live, mixtures, predict
from dpviz.viz.privacy import ledger_bar
from dpviz.viz.style import plotly_text
from dpviz.viz.tables import _cell

HOSTILE = ('<b>bold</b> <a href="http://evil.example">link</a> '
           '<span style="font-size:60px">big</span><br>$x^2$ M&amp;M')
#: What Plotly would read as markup in HOSTILE, had it not been escaped.
MARKUP = ("<b>bold", "bold</b>", "<a href", "link</a>", "<span style", "big</span>", "<br>$",
          "$x^2$", "M&amp;M")

ROWS = np.random.default_rng(0).normal(size=(30, 3))
COV = np.stack([np.eye(3)] * 2)
MEANS = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
NAMES = (HOSTILE, "b", "c")


def _strings(fig: go.Figure) -> list[str]:
    """Every string in the figure's JSON (what the browser's Plotly receives)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(fig.to_json()))
    return found


def _ledger() -> Ledger:
    """Private ranges name each release by its column (dpviz.privacy.bounds)."""
    ledger = Ledger()
    ledger.record(Release(f"bound: median of {HOSTILE}", "gaussian", 1.0, "L2", 3.0,
                          epsilon=0.1, delta=1e-7, rho=0.001))
    ledger.record(Release("mean", "gaussian", 1.0, "L2", 3.0, epsilon=0.1, delta=1e-7,
                          rho=0.001))
    return ledger


FACTORIES = {
    "budget bar": lambda: ledger_bar(_ledger()),
    "mixture": lambda: mixtures.mixture_figure(ROWS, MEANS, MEANS, true_covariances=COV,
                                               private_covariances=COV, axis_names=NAMES,
                                               axes=(0, 1)),
    "mixture, y axis": lambda: mixtures.mixture_figure(ROWS, MEANS, MEANS, axis_names=NAMES,
                                                       axes=(1, 0)),
    "guess": lambda: predict.guess_figure(ROWS, ROWS[:, :2], guess=None, axis_names=NAMES),
    "heatmaps": lambda: covariance.matrix_heatmaps([("true", np.eye(3))], tick_labels=NAMES),
    "ellipses": lambda: covariance.ellipses_figure(
        np.eye(3), [("gauss", "Gauss", np.eye(3))], axes=(0, 1), axis_names=NAMES,
        title=f"The matrices on {HOSTILE} and b"),
    "class points": lambda: live.class_points([(1.0, 2.0)], [], title=HOSTILE,
                                              axis_names=(HOSTILE, "y")),
    "class numbers": lambda: live.class_numbers([0.2], [1.0], title=HOSTILE, label=HOSTILE),
    "class yes/no": lambda: live.class_yes_no([True], [False], title=HOSTILE),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_a_hostile_name_reaches_the_figure_escaped(name):
    strings = _strings(FACTORIES[name]())
    shown = [s for s in strings if plotly_text(HOSTILE) in s]
    assert shown, f"{name}: the name is not in the figure"
    for s in strings:
        assert not any(mark in s for mark in MARKUP), f"{name}: unescaped markup in {s!r}"


def test_plotly_text_uses_only_entities_plotly_decodes():
    """Plotly decodes ``&amp; &lt; &gt;`` and numeric entities, not ``&quot;``: quotes and
    apostrophes stay as they are (html.escape's ``&quot;`` would show as those 6 letters)."""
    assert plotly_text("""it's "<b>" & $5""") == """it's "&lt;b&gt;" &amp; &#36;5"""


def test_a_hover_template_shows_a_percent_sign_literally():
    """``%{…}`` in a name that reaches a hover template is a placeholder unless escaped."""
    assert plotly_text("share %{x}") == "share &#37;{x}"
    strings = _strings(ledger_bar(_ledger()))
    assert not any("%{x}" in s and "bound" in s for s in strings)


@pytest.mark.parametrize("name", ["mixture", "budget bar", "heatmaps"])
def test_a_figure_download_holds_the_names_as_written_and_no_formula(name):
    """The CSV beside a chart: the user's names, not their entities; a name starting with
    ``=`` cannot run as a spreadsheet formula."""
    table = figure_table(FACTORIES[name]())
    cells = [str(v) for column in ("series", "x", "y") for v in table[column]]
    assert not any("&lt;" in c or "&#36;" in c for c in cells)
    formula = figure_table(covariance.matrix_heatmaps([("true", np.eye(3))],
                                                      tick_labels=("=cmd()", "b", "c")))
    assert "'=cmd()" in set(formula["x"]) and not any(str(v).startswith("=") for v in formula["x"])
    assert [_cell(v) for v in ("=1+1", "@SUM(A1)", "-2", "ok", 3.0)] == [
        "'=1+1", "'@SUM(A1)", "'-2", "ok", 3.0]
