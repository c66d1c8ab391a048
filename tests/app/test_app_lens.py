"""Privacy lens page: two neighbouring datasets, densities, privacy loss and the audit."""

from __future__ import annotations

import numpy as np
import pytest

from .app_helpers import charts, errors, values

CHARTS = ["lens_densities", "lens_loss", "lens_audit", "lens_ledger"]


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_lens_page_draws_everything(lens):
    assert not lens.exception and not errors(lens)
    assert lens.title[0].value == "Privacy lens"
    assert lens.text_input(key="lens_values").value.startswith("0, 0.35")
    assert len(lens.data_editor) == 1
    assert lens.number_input(key="lens_row").value == 0
    assert lens.number_input(key="lens_new").value == 1.0
    assert lens.radio(key="lens_query").value == "mean"
    assert lens.radio(key="lens_mechanism").value == "Laplace"
    assert lens.number_input(key="lens_epsilon").value == 1.0
    assert lens.selectbox(key="lens_accounting").value == "linear"
    assert lens.select_slider(key="lens_trials").value == 100_000
    assert list(charts(lens)) == CHARTS
    assert [m.label for m in lens.metric] == ["Answer on D", "Answer on D′", "Sensitivity",
                                              "Noise", "Released"]
    assert metric(lens, "Sensitivity") == "0.125"
    assert lens.success[0].value.startswith("Consistent with the claim")


def test_densities_mark_the_true_answers(lens):
    data = charts(lens)["lens_densities"]["data"]
    assert [t["name"] for t in data] == ["output density on D", "output density on D′",
                                         "true answer on D", "true answer on D′",
                                         "one private release on D"]
    assert values(data[2]["x"])[0] == pytest.approx(float(metric(lens, "Answer on D")),
                                                    abs=1e-3)


def test_epsilon_slider_changes_the_figures(lens):
    before = charts(lens)
    lens.number_input(key="lens_epsilon").set_value(2.5).run()
    assert not lens.exception and not errors(lens)
    after = charts(lens)
    assert not np.array_equal(values(before["lens_densities"]["data"][0]["y"]),
                              values(after["lens_densities"]["data"][0]["y"]))
    assert values(after["lens_loss"]["data"][1]["y"])[0] == pytest.approx(2.5)
    assert values(after["lens_audit"]["data"][0]["x"])[0] == pytest.approx(2.5)


def test_gaussian_shades_where_the_loss_exceeds_epsilon(lens):
    lens.radio(key="lens_mechanism").set_value("Gaussian").run()
    assert not lens.exception and not errors(lens)
    loss = charts(lens)["lens_loss"]
    assert loss["layout"].get("shapes"), "no shaded region for the Gaussian"
    assert "exceeds ε with probability" in " ".join(c.value for c in lens.caption)


def test_query_and_neighbour_change_the_answers(lens):
    lens.radio(key="lens_query").set_value("count").run()
    assert (metric(lens, "Answer on D"), metric(lens, "Answer on D′")) == ("4", "5")
    lens.number_input(key="lens_new").set_value(0.0).run()
    assert metric(lens, "Answer on D′") == "4"
    lens.radio(key="lens_query").set_value("sum").run()
    assert metric(lens, "Sensitivity") == "1"


def test_table_edit_changes_the_data(lens):
    editor_key = lens.data_editor[0].key
    lens.session_state[editor_key] = {"edited_rows": {1: {"value": 1.0}}, "added_rows": [],
                                      "deleted_rows": []}
    lens.run()
    assert not lens.exception and not errors(lens)
    assert metric(lens, "Answer on D") == f"{(0 + 1 + .9 + .42 + .71 + .18 + .64 + .83) / 8:.4g}"


def test_seed_changes_the_release_only(lens):
    released = metric(lens, "Released")
    lens.sidebar.number_input(key="seed").set_value(3).run()
    assert metric(lens, "Released") != released
    assert metric(lens, "Answer on D") == "0.5037"


@pytest.mark.parametrize(("widget", "key", "value", "sentence"), [
    ("number_input", "lens_hi", 0.0, "the public range needs lo < hi, got lo = 0, hi = 0"),
    ("number_input", "lens_delta", 1.0, "delta must be >= 0 and < 1, got 1.0"),
    ("number_input", "lens_row", 9, "row must be between 0 and 7, got 9"),
    ("text_input", "lens_values", "0.1, abc, 0.3", "the dataset must be numbers only"),
    ("text_input", "lens_values", "", "the dataset needs at least 1 rows, got 0"),
])
def test_bad_input_shows_the_engine_sentence(lens, widget, key, value, sentence):
    getattr(lens, widget)(key=key).set_value(value).run()
    assert not lens.exception
    assert errors(lens) == [sentence]
    assert charts(lens) == {}


def test_gaussian_with_delta_zero(lens):
    lens.radio(key="lens_mechanism").set_value("Gaussian")
    lens.number_input(key="lens_delta").set_value(0.0).run()
    assert not lens.exception
    assert errors(lens) == ["the Gaussian mean needs delta > 0; use the Laplace mean for pure DP"]
    lens.radio(key="lens_query").set_value("count").run()
    assert errors(lens) == ["a plan with Gaussian releases needs delta > 0"]


def test_tiny_epsilon_and_laplace_delta_zero(lens):
    lens.number_input(key="lens_delta").set_value(0.0)
    lens.number_input(key="lens_epsilon").set_value(0.01).run()
    assert not lens.exception and not errors(lens)
    assert float(metric(lens, "Noise")) == pytest.approx(12.5)
