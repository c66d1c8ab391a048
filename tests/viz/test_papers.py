"""The saved-benchmark figures: the DP-EM paper's curves and the peers' error boxes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpviz import viz
from dpviz.viz.style import COLORS, METHOD_COLORS

METHODS = ("linear", "zcdp")


@pytest.fixture
def curves() -> pd.DataFrame:
    rows = [{"scenario": s, "accounting": a, "epsilon": e,
             "median": -10.0 / e + i + j, "low": -10.0 / e + i + j - 1,
             "high": -10.0 / e + i + j + 1}
            for j, s in enumerate(("GGG", "LLG")) for i, a in enumerate(METHODS)
            for e in (4.0, 0.1, 1.0)]
    return pd.DataFrame(rows)


def test_paper_figure_panels_lines_bands_and_ceiling(curves):
    fig = viz.dp_em_paper_figure(curves, ceiling=7.5, methods=METHODS)
    names = [t.name for t in fig.data]
    assert names == ["GGG linear quartiles", "GGG linear", "GGG zCDP quartiles", "GGG zCDP",
                     "GGG non-private EM", "LLG linear quartiles", "LLG linear",
                     "LLG zCDP quartiles", "LLG zCDP", "LLG non-private EM",
                     "linear", "zCDP", "non-private EM"]
    line = fig.data[3]
    np.testing.assert_array_equal(line.x, [0.1, 1.0, 4.0])  # sorted by ε
    np.testing.assert_allclose(line.y, [-99.0, -9.0, -1.5])
    assert line.line.color == METHOD_COLORS["zcdp"] and line.xaxis == "x"
    band = fig.data[2]
    np.testing.assert_allclose(band.y, [-98.0, -8.0, -0.5, -2.5, -10.0, -100.0])
    assert band.fill == "toself"
    assert fig.data[6].xaxis == "x2" and fig.data[6].y[0] == pytest.approx(-100.0 + 1)
    ceiling = fig.data[4]
    assert list(ceiling.y) == [7.5, 7.5] and ceiling.line.dash == "dash"
    assert ceiling.line.color == COLORS["true"]
    assert [t.showlegend for t in fig.data[-3:]] == [None, None, None]
    assert all(t.showlegend is False for t in fig.data[:-3])
    assert fig.layout.xaxis.type == fig.layout.xaxis2.type == "log"
    assert [a.text for a in fig.layout.annotations] == ["GGG", "LLG"]


def test_paper_figure_floor_and_no_ceiling(curves):
    fig = viz.dp_em_paper_figure(curves, ceiling=None, methods=("zcdp",), floor=-60)
    assert [t.name for t in fig.data] == ["GGG zCDP quartiles", "GGG zCDP",
                                          "LLG zCDP quartiles", "LLG zCDP", "zCDP"]
    assert fig.layout.yaxis.range[0] == -60 and fig.layout.yaxis.range[1] > 1.5
    table = viz.figure_table(fig)
    assert set(table["series"]) == {"GGG zCDP quartiles", "GGG zCDP", "LLG zCDP quartiles",
                                    "LLG zCDP"}


def test_mean_error_boxes_one_box_per_estimator_in_order():
    errors = pd.DataFrame({"estimator": ["b", "b", "a", "a", "a", "skip"],
                           "seed": [0, 1, 0, 1, 2, 0],
                           "error": [0.1, 0.2, 1.0, 2.0, 3.0, 9.0]})
    fig = viz.mean_error_boxes(errors, {"a": "A", "b": "B", "missing": "M"},
                               colors={"a": "#123456"})
    assert [t.type for t in fig.data] == ["box", "box"]
    assert [t.name for t in fig.data] == ["A", "B"]
    np.testing.assert_allclose(fig.data[0].y, [1.0, 2.0, 3.0])
    assert list(fig.data[0].x) == ["A"] * 3 and list(fig.data[0].customdata) == [0, 1, 2]
    assert fig.data[0].marker.color == "#123456" and fig.data[0].boxpoints == "all"
    assert fig.layout.yaxis.type == "log"
    table = viz.figure_table(fig)
    assert len(table) == 5 and list(table["x"]) == ["A"] * 3 + ["B"] * 2
