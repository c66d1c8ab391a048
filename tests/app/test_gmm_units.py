"""An upload's columns keep their own units on /gmm (issue 30 item 3): the scatter's axes, the
reference's ellipses and the error table, whatever centring or scaling runs inside."""

from __future__ import annotations

import numpy as np
import pytest

from .app_helpers import charts, errors, open_page, values

#: A mixed-units upload: 2 s to set up, 4 s in all (make test; make check is at its budget).
pytestmark = pytest.mark.slow

#: Three columns in units of about 10, 10 and 1 000 (the issue's mixed-unit table).
rng = np.random.default_rng(7)
GROUPS = rng.integers(0, 3, 300)
CENTRES = np.array([[12.0, 3.0, 400.0], [14.0, 8.0, 900.0], [13.0, 12.0, 1500.0]])
ROWS = CENTRES[GROUPS] + np.array([0.4, 0.8, 50.0]) * rng.standard_normal((300, 3))
NAMES = ("alcohol", "color", "proline")


def mixed_units() -> bytes:
    return ("alcohol,color,proline\n" + "\n".join(
        ",".join(f"{v:.4f}" for v in row) for row in ROWS)).encode()


@pytest.fixture(scope="module")
def page(small_predictions_module):
    at = open_page("gmm")
    at.selectbox(key="gmm_source").set_value("csv").run()
    at.file_uploader(key="gmm_upload").set_value(("mixed.csv", mixed_units(), "text/csv")).run()
    at.radio(key="gmm_bound_way").set_value("ranges").run()
    at.text_input(key="gmm_ranges").set_value("8:16,0:15,0:2000").run()
    at.selectbox(key="gmm_estimator").set_value("dp_em").run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    return at


def _traces(at):
    return {t["name"]: t for t in charts(at)["gmm_figure"]["data"]}


def test_the_axes_stay_in_the_columns_units(page):
    layout = charts(page)["gmm_figure"]["layout"]
    assert "alcohol" in str(layout["xaxis"]["title"]) and "color" in str(layout["yaxis"]["title"])
    assert "scaleanchor" not in layout["yaxis"]  # columns of different units, not one scale
    for axis, column in (("xaxis", 0), ("yaxis", 1)):
        shown = layout[axis].get("range")
        low, high = ROWS[:, column].min(), ROWS[:, column].max()
        if shown is not None:  # kept on the rows' span, in the column's units
            assert low - 2 < shown[0] <= low and high <= shown[1] < high + 2
    rows = _traces(page)["data (rows drawn)"]
    assert values(rows["x"]).min() >= ROWS[:, 0].min() - 1e-3


def test_private_means_beyond_the_view_are_marked_at_its_edge_with_their_values(page):
    traces = _traces(page)
    layout = charts(page)["gmm_figure"]["layout"]
    private = np.column_stack([values(traces["private means"]["x"]),
                               values(traces["private means"]["y"])])
    kept = [layout[a].get("range") for a in ("xaxis", "yaxis")]
    outside = np.zeros(len(private), dtype=bool)
    for i, span in enumerate(kept):
        if span is not None:
            outside |= (private[:, i] < span[0]) | (private[:, i] > span[1])
    edge = traces.get("private means beyond the view (at its edge)")
    assert (edge is not None) == bool(outside.any())
    if edge is not None:
        assert np.allclose(values(edge["customdata"]), private[outside])


def test_the_reference_fit_is_in_each_columns_scale(page):
    """Non-private EM's 1σ ellipses: the column's spread (0.4), not the largest column's."""
    ellipse = _traces(page)["1σ ellipses of non-private EM on your data"]
    x = np.array([v for v in ellipse["x"] if v is not None], dtype=float)
    assert x.max() - x.min() < 5
    means = np.column_stack([values(_traces(page)["means of non-private EM on your data"][a])
                             for a in ("x", "y")])
    assert np.abs(np.sort(means[:, 0]) - np.sort(CENTRES[:, 0])).max() < 0.3


def test_the_error_table_gives_each_columns_error_in_its_units(page):
    table = next(d.value for d in page.dataframe if "mean error" in d.value.columns)
    assert [f"mean error, {n}" for n in NAMES] == [c for c in table.columns
                                                   if c.startswith("mean error, ")]


def test_ranges_of_very_different_widths_suggest_standardising_and_it_helps():
    at = open_page("gmm")
    at.selectbox(key="gmm_source").set_value("csv").run()
    at.file_uploader(key="gmm_upload").set_value(("mixed.csv", mixed_units(), "text/csv")).run()
    at.radio(key="gmm_bound_way").set_value("ranges").run()
    at.text_input(key="gmm_ranges").set_value("8:16,0:15,0:2000").run()
    at.selectbox(key="gmm_estimator").set_value("dp_em").run()

    def suggested() -> list[str]:
        return [w.value for w in at.warning if w.value.startswith("The ranges differ a lot")]

    def alcohol_error() -> float:
        table = next(d.value for d in at.dataframe if "mean error, alcohol" in d.value.columns)
        return float(table["mean error, alcohol"].iloc[0])

    (said,) = suggested()
    assert "alcohol is 8 wide, proline 2,000" in said and "standardise each column" in said
    unscaled = alcohol_error()
    at.checkbox(key="gmm_standardise").check().run()
    assert not at.exception and not errors(at) and suggested() == []
    assert alcohol_error() < 8 < unscaled  # within the column's range, once scaled by it
