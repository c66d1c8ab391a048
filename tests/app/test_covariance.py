"""Covariance page: widgets, figures that follow the budget, the estimators, the data, bad input."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpviz.core import limits
from dpviz.estimators.registry import TASKS
from dpviz.lab.experiments import covariance_figures as reproduction
from dpviz.privacy.calibration import zcdp_epsilon
from dpviz.ui.pages import covariance as cov_ui
from dpviz.ui.pages import covariance_paper, covariance_results
from dpviz.ui.widgets import RHO_GRID

from .app_helpers import ROOT, TIMEOUT, charts, errors, open_page, open_section, values

LIVE_CHARTS = ["cov_spectra", "cov_ellipses", "cov_heatmaps", "cov_errors", "cov_adaptive",
               "cov_ledger_bar"]


@pytest.fixture
def cov() -> AppTest:
    return open_page("covariance")


def live_charts(at: AppTest) -> list[str]:
    return [k for k in charts(at) if k != "cov_paper"]


def heatmap(at: AppTest, name: str) -> np.ndarray:
    trace = next(t for t in charts(at)["cov_heatmaps"]["data"] if t["name"] == name)
    return values(trace["z"])


def table(at: AppTest):
    return next(d.value for d in at.dataframe if "error ‖Σ̃ − Σ‖ (Frobenius)" in d.value.columns)


def test_page_draws_everything(cov):
    """By default one estimator, the paper's AdaptiveCov, drawn and charged (issue 35)."""
    assert not cov.exception and not errors(cov)
    assert cov.title[0].value == "Covariance"
    assert cov.selectbox(key="cov_source").value == "synthetic"
    assert (cov.number_input(key="cov_n").value, cov.number_input(key="cov_d").value,
            cov.number_input(key="cov_buckets").value) == (10_000, 50, 4)
    assert cov.radio(key="cov_budget").value == "rho"
    assert cov.select_slider(key="cov_rho").value == pytest.approx(0.1)
    assert cov.toggle(key="cov_compare").value is False
    assert cov.selectbox(key="cov_estimator").value == cov_ui.DEFAULT_ESTIMATOR == "adaptive"
    assert set(cov.selectbox(key="cov_estimator").options) == {
        TASKS["covariance"][n].label for n in TASKS["covariance"]}
    assert cov_ui.ESTIMATOR_WHY in [c.value for c in cov.caption]
    assert live_charts(cov) == LIVE_CHARTS
    traces = charts(cov)["cov_heatmaps"]["data"]
    assert [t["name"] for t in traces] == ["true Σ = XᵀX/n", "AdaptiveCov"]
    assert len({(t["zmin"], t["zmax"]) for t in traces}) == 1  # one shared colour scale
    assert heatmap(cov, "true Σ = XᵀX/n").shape == (50, 50)
    assert list(table(cov)["estimator"]) == ["AdaptiveCov"]
    budget = next(c.value for c in cov.caption if "Budget:" in c.value)
    assert "Budget: ε = 3.13 at δ = 1e-10, as the paper sets it" in budget
    experts = next(c.value for c in cov.caption if c.value.startswith("The paper budgets in ρ"))
    assert "ρ = 0.1, stated as (ε = 3.13, δ = 1e-10)-DP by ε = ρ + 2√(ρ ln(1/δ))" in experts
    assert f"gives ε = {zcdp_epsilon(0.1, 1e-10):.3g} at the same δ" in experts
    adaptive = next(c.value for c in cov.caption if c.value.startswith("AdaptiveCov first"))
    assert "clipped the rows to τ̃ =" in adaptive
    assert "cov_ledger" not in [r.key for r in cov.radio]  # one run: one bar, no picker


def test_the_budget_slider_shows_epsilon_at_the_pages_delta(cov):
    """Its stops are ρ's of the paper's curves, each shown as the ε the risk panel heads with."""
    slider = cov.select_slider(key="cov_rho")
    assert slider.label == "ε (stated at δ = 1e-10)"
    assert list(slider.proto.options) == [cov_ui.rho_label(r, 1e-10) for r in RHO_GRID]
    assert "3.13" in slider.proto.options and "0.1" not in slider.proto.options
    assert any(m.value.startswith("**Privacy budget: ε = 3.13**") for m in cov.markdown)
    cov.number_input(key="cov_rho_delta").set_value(1e-5).run()
    assert not cov.exception and not errors(cov)
    slider = cov.select_slider(key="cov_rho")
    assert slider.value == pytest.approx(0.1) and slider.label == "ε (stated at δ = 1e-05)"
    assert any(m.value.startswith(f"**Privacy budget: ε = {cov_ui.rho_label(0.1, 1e-5)}**")
               for m in cov.markdown)
    cov.number_input(key="cov_rho_delta").set_value(0.0).run()
    assert not cov.exception
    assert errors(cov) == ["δ must be above 0 and below 1 to state the paper's budget as ε, "
                           "got 0"]


def test_rho_moves_the_private_matrices_and_errors(cov):
    label = cov_ui.short_label(cov_ui.DEFAULT_ESTIMATOR)
    before, errors_before = heatmap(cov, label), table(cov)["error ‖Σ̃ − Σ‖ (Frobenius)"].tolist()
    truth = heatmap(cov, "true Σ = XᵀX/n")
    cov.select_slider(key="cov_rho").set_value(10.0).run()
    assert not cov.exception and not errors(cov)
    after = heatmap(cov, label)
    assert not np.array_equal(before, after)
    np.testing.assert_array_equal(heatmap(cov, "true Σ = XᵀX/n"), truth)
    assert table(cov)["error ‖Σ̃ − Σ‖ (Frobenius)"].tolist() != errors_before
    # more budget, less noise: the matrix moves towards the truth
    assert np.linalg.norm(after - truth) < np.linalg.norm(before - truth)


def compare(at: AppTest) -> AppTest:
    at.toggle(key="cov_compare").set_value(True).run()
    assert not at.exception and not errors(at)
    return at


def test_comparing_is_an_explicit_choice_that_says_its_cost(cov):
    assert cov_ui.COMPARE_COST not in [c.value for c in cov.caption]
    compare(cov)
    assert cov_ui.COMPARE_COST in [c.value for c in cov.caption]
    chosen = [n for n in cov_ui.DEFAULT_ESTIMATORS if n in TASKS["covariance"]]
    assert cov.multiselect(key="cov_estimators").value == chosen
    assert cov.multiselect(key="cov_estimators").options == [
        TASKS["covariance"][n].label for n in TASKS["covariance"]]
    labels = [cov_ui.short_label(n) for n in chosen]
    assert labels[:3] == ["GaussCov", "SeparateCov", "AdaptiveCov"]
    assert [t["name"] for t in charts(cov)["cov_heatmaps"]["data"]] == ["true Σ = XᵀX/n",
                                                                        *labels]
    assert list(table(cov)["estimator"]) == labels
    cov.toggle(key="cov_compare").set_value(False).run()  # back to the one drawn
    assert list(table(cov)["estimator"]) == ["AdaptiveCov"]


def test_estimators_follow_the_multiselect(cov):
    compare(cov)
    cov.multiselect(key="cov_estimators").set_value(["gauss", "zero"]).run()
    assert not cov.exception and not errors(cov)
    names = [t["name"] for t in charts(cov)["cov_heatmaps"]["data"]]
    assert names[1:] == [cov_ui.short_label(n) for n in ("gauss", "zero")]
    assert "cov_adaptive" not in charts(cov)
    np.testing.assert_array_equal(heatmap(cov, cov_ui.short_label("zero")), 0.0)
    cov.multiselect(key="cov_estimators").set_value([]).run()
    assert not cov.exception and not errors(cov)
    assert live_charts(cov) == [] and cov.info[0].value == "Pick at least one estimator."


def test_pure_dp_budget_runs_the_laplace_variants(cov):
    cov.radio(key="cov_budget").set_value("epsilon").run()
    cov.number_input(key="cov_delta").set_value(0.0).run()
    assert not cov.exception and not errors(cov)
    assert any("pure ε-DP" in c.value for c in cov.caption)
    assert table(cov)["spent"].tolist()[0].startswith("ε = 1, δ = 0")
    compare(cov)
    assert table(cov)["spent"].tolist()[-1] == "nothing released"  # the zero matrix


def test_digits_data(cov):
    cov.selectbox(key="cov_source").set_value("digits").run()
    assert not cov.exception and not errors(cov)
    assert heatmap(cov, "true Σ = XᵀX/n").shape == (64, 64)
    assert any("1,797 handwritten digits" in c.value for c in cov.caption)
    x_title = charts(cov)["cov_ellipses"]["layout"]["xaxis"]["title"]["text"]
    assert x_title == "pixel_0_0"


def test_large_d_shows_the_leading_block(cov):
    cov.number_input(key="cov_n").set_value(2000)
    cov.number_input(key="cov_d").set_value(150).run()
    assert not cov.exception and not errors(cov)
    assert heatmap(cov, "true Σ = XᵀX/n").shape == (cov_ui.HEATMAP_BLOCK,) * 2
    title = charts(cov)["cov_heatmaps"]["layout"]["title"]["text"]
    assert "the leading 100 × 100 block of 150 × 150" in title


def test_axis_pickers_change_the_ellipses(cov):
    before = charts(cov)["cov_ellipses"]["data"][0]
    cov.selectbox(key="cov_axis_y").set_value(7).run()
    assert not cov.exception and not errors(cov)
    fig = charts(cov)["cov_ellipses"]
    assert fig["layout"]["yaxis"]["title"]["text"] == "x8"
    assert not np.array_equal(values(fig["data"][0]["y"]), values(before["y"]))


@pytest.mark.parametrize(("key", "value", "sentence"), [
    ("cov_delta", 1.5, "delta must be >= 0 and < 1, got 1.5"),
])
def test_bad_budget_shows_the_engine_sentence(cov, key, value, sentence):
    cov.radio(key="cov_budget").set_value("epsilon").run()
    cov.number_input(key=key).set_value(value).run()
    assert not cov.exception
    assert errors(cov) == [sentence]
    assert live_charts(cov) == []


def _open_link(params: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.query_params.update(params)
    at.switch_page("pages/covariance.py").run()
    assert not at.exception and not errors(at)
    return at


def test_a_copied_link_reopens_the_scenario(cov):
    """A link as the browser wrote it before issue 35 (ρ itself; options by label)."""
    compare(cov)
    cov.select_slider(key="cov_rho").set_value(1.0)
    cov.number_input(key="cov_d").set_value(20)
    cov.number_input(key="cov_buckets").set_value(1)
    cov.multiselect(key="cov_estimators").set_value(["gauss", "separate"]).run()
    cov.selectbox(key="cov_axis_x").set_value(3).run()
    assert not cov.exception and not errors(cov)
    link = {"cov_rho": "1", "cov_d": "20", "cov_buckets": "1", "cov_axis_x": "x4",
            "cov_estimators": [TASKS["covariance"][n].label for n in ("gauss", "separate")]}
    at = _open_link(link)
    assert at.select_slider(key="cov_rho").value == pytest.approx(1.0)
    assert at.number_input(key="cov_d").value == 20
    assert at.multiselect(key="cov_estimators").value == ["gauss", "separate"]
    assert at.selectbox(key="cov_axis_x").value == 3
    assert heatmap(at, "true Σ = XᵀX/n").shape == (20, 20)
    assert any("trace of Σ = XᵀX/n: 1 " in c.value for c in at.caption)
    np.testing.assert_array_equal(heatmap(at, cov_ui.short_label("gauss")),
                                  heatmap(cov, cov_ui.short_label("gauss")))
    assert at.toggle(key="cov_compare").value is True  # two estimators: the comparison
    # as the browser writes it now: the stop's label, the ε it is stated as
    at = _open_link({"cov_rho": cov_ui.rho_label(1.0, 1e-10), "cov_estimator": "GaussCov "
                     "(LapCov for pure DP)", "cov_d": "20", "cov_buckets": "1"})
    assert at.select_slider(key="cov_rho").value == pytest.approx(1.0)
    assert at.selectbox(key="cov_estimator").value == "gauss"
    assert at.toggle(key="cov_compare").value is False
    np.testing.assert_array_equal(heatmap(at, cov_ui.short_label("gauss")),
                                  heatmap(cov, cov_ui.short_label("gauss")))


def test_an_old_link_with_one_estimator_draws_it_alone():
    at = _open_link({"cov_estimators": "coinpress", "cov_budget": "ρ (zCDP, the paper's)"})
    assert at.toggle(key="cov_compare").value is False
    assert at.selectbox(key="cov_estimator").value == "coinpress"
    assert at.radio(key="cov_budget").value == "rho"
    at = _open_link({"cov_estimator": "gauss", "cov_budget": "ε, δ"})  # hand-written: a name
    assert at.selectbox(key="cov_estimator").value == "gauss"
    assert at.radio(key="cov_budget").value == "epsilon"


def test_a_link_cannot_smuggle_in_a_budget_outside_the_widgets():
    at = _open_link({"cov_rho": "0", "cov_epsilon": "-1"})
    assert at.select_slider(key="cov_rho").value == pytest.approx(0.1)
    at = _open_link({"cov_budget": "epsilon", "cov_epsilon": "-1"})
    assert at.number_input(key="cov_epsilon").value >= limits.EPSILON_UI.low


def _bar_epsilon(at) -> float:
    return sum(float(values(trace["x"]).sum()) for trace in charts(at)["cov_ledger_bar"]["data"])


def _risk_epsilon(at) -> float:
    """The ε the risk panel's summary says the drawn runs spent together."""
    text = next(w.value for w in at.warning if "together they spent" in w.value)
    return float(re.search(r"together they spent ε = ([0-9]+(?:\.[0-9]+)?)", text).group(1))


def test_the_ledger_charges_every_drawn_estimator_and_shows_each(cov):
    single = _bar_epsilon(cov)  # one run: its own ρ = 0.1, in ε at the page's δ
    assert single == pytest.approx(zcdp_epsilon(0.1, 1e-10), rel=1e-9)
    assert not any("together they spent" in w.value for w in cov.warning)  # one run: within
    compare(cov)
    title = charts(cov)["cov_ledger_bar"]["layout"]["title"]["text"]
    assert title == "Where the budget of all 3 drawn runs went"
    assert cov.radio(key="cov_ledger").options == ["All 3 drawn", "GaussCov", "SeparateCov",
                                                   "AdaptiveCov"]
    # in ε, as the run's zCDP accounting composes ρ = 3 × 0.1, at the page's δ
    assert _bar_epsilon(cov) == pytest.approx(zcdp_epsilon(0.3, 1e-10), rel=1e-9)
    note = next(c.value for c in cov.caption if "private releases of the same data" in c.value)
    assert "draws 3 private releases" in note
    together = _risk_epsilon(cov)
    cov.radio(key="cov_ledger").set_value("adaptive").run()
    assert not cov.exception and not errors(cov)
    fig = charts(cov)["cov_ledger_bar"]
    assert fig["layout"]["title"]["text"] == "Where AdaptiveCov's budget went"
    assert len(fig["data"]) >= 3  # trace bound, radius search, final release
    assert _bar_epsilon(cov) == pytest.approx(zcdp_epsilon(0.1, 1e-10), rel=1e-9)
    assert _risk_epsilon(cov) == together  # the risk panel charges everything drawn
    cov.multiselect(key="cov_estimators").set_value(["gauss"]).run()
    assert "cov_ledger" not in [r.key for r in cov.radio]
    assert not any("together they spent" in w.value for w in cov.warning)  # one run: within


def test_a_pure_dp_estimator_listed_first_is_charged_with_the_others():
    at = _open_link({"cov_estimators": ["emcov", "gauss"]})  # errors() checked there
    assert at.radio(key="cov_ledger").options == ["All 2 drawn", "EMCov", "GaussCov"]
    assert any("draws 2 private releases" in c.value for c in at.caption)


def test_a_hand_written_link_may_use_registry_names():
    at = _open_link({"cov_estimators": ["separate", "zero"], "cov_source": "digits",
                     "cov_budget": "epsilon", "cov_paper_figure": "fig3a"})
    assert at.multiselect(key="cov_estimators").value == ["separate", "zero"]
    assert at.selectbox(key="cov_source").value == "digits"
    assert at.radio(key="cov_budget").value == "epsilon"
    assert at.selectbox(key="cov_paper_figure").value == "fig3a"


# --- CSV upload ---------------------------------------------------------------------------

def _csv(rows: np.ndarray) -> bytes:
    lines = [",".join(f"{v:.6f}" for v in row) for row in rows]
    return ("a,b,c\n" + "\n".join(lines) + "\n").encode()


def _upload(at: AppTest, content: bytes, name: str = "mine.csv") -> AppTest:
    at.selectbox(key="cov_source").set_value("csv").run()
    assert not at.exception
    at.file_uploader(key="cov_upload").set_value((name, content, "text/csv")).run()
    return at


def test_csv_asks_for_a_file(cov):
    cov.selectbox(key="cov_source").set_value("csv").run()
    assert not cov.exception and not errors(cov)
    assert cov.info[0].value.startswith("Upload a CSV file")
    assert any("not kept in the link" in c.value for c in cov.caption)
    assert live_charts(cov) == []


def test_csv_upload_clips_and_says_how_many(cov):
    rng = np.random.default_rng(4)
    rows = rng.normal(size=(400, 3)) * 0.3
    rows[:7] *= 20  # norms far above r = 1
    _upload(cov, _csv(rows))
    assert not cov.exception and not errors(cov)
    assert cov.number_input(key="cov_radius").value == 1.0
    clipped = int((np.linalg.norm(np.round(rows, 6), axis=1) > 1).sum())
    assert clipped >= 7
    assert cov.info[0].value.startswith(f"{clipped:,} rows had a norm above r = 1")
    assert "This count is not private (a teaching diagnostic)" in cov.info[0].value
    assert set(table(cov)["rows clipped (not private)"]) == {clipped}
    assert any("rows clipped (not private: a teaching diagnostic)" in c.value
               for c in cov.caption)
    assert any("400 rows × 3 columns from the uploaded file mine.csv" in c.value
               for c in cov.caption)
    cov.number_input(key="cov_radius").set_value(100.0).run()
    assert not cov.exception and not errors(cov)
    assert not any("rows had a norm above" in i.value for i in cov.info)


@pytest.mark.parametrize(("content", "sentence"), [
    (b"a,b\n1,2\n3,nan\n", "the CSV has a missing or infinite value in row 3, column 2"),
    (b"a,b\n1,2\n", "the CSV needs at least 2 rows, got 1"),
    (b"1," * (limits.MAX_UPLOAD_BYTES // 2 + 1), "50 MB"),
])
def test_bad_csv_shows_the_engine_sentence(cov, content, sentence):
    _upload(cov, content)
    assert not cov.exception
    assert len(errors(cov)) == 1 and sentence in errors(cov)[0]
    assert live_charts(cov) == []


# --- The paper's figures from the saved runs ----------------------------------------------

@pytest.fixture
def saved(monkeypatch, tmp_path):
    """A small saved Figure 2 in a temporary results folder (the page's cache cleared)."""
    rows = [("fig2", e, "d", d, n, d, 0.1, 1.0, err * (1 + d / 100), err / 10, 50, f"n={n}")
            for e, err in (("gauss", 1e-2), ("separate", 5e-3)) for n in (1000, 16000)
            for d in (10, 100)]
    import pandas as pd

    pd.DataFrame(rows, columns=[*reproduction.COLUMNS, "series"]).to_csv(
        tmp_path / "covariance_fig2.csv", index=False)
    monkeypatch.setattr(reproduction, "RESULTS", tmp_path)
    covariance_paper.saved_figure.clear()
    yield tmp_path
    covariance_paper.saved_figure.clear()


def test_paper_panel_draws_a_saved_figure_with_its_claim(saved):
    at = open_page("covariance")
    assert not at.exception and not errors(at)
    assert at.selectbox(key="cov_paper_figure").value == "fig2"
    fig = charts(at)["cov_paper"]
    gauss, separate = (cov_ui.short_label(n) for n in ("gauss", "separate"))
    assert [t["name"] for t in fig["data"]] == [f"{gauss}, n=1000", f"{separate}, n=1000",
                                                f"{gauss}, n=16000", f"{separate}, n=16000"]
    np.testing.assert_allclose(values(fig["data"][0]["y"]), [1.1e-2, 2e-2])
    assert fig["layout"]["xaxis"]["title"]["text"] == "dimension d"
    claim = next(m.value for m in at.markdown if m.value.startswith("**The paper's claim:**"))
    assert "SeparateCov much better at high d" in claim
    assert any("Mean error over 50 repeats per point" in c.value for c in at.caption)
    verdict = next(m.value for m in at.markdown if m.value.startswith("**Verdict"))
    assert verdict.startswith("**Verdict — does not hold:** At trace 1, GaussCov is slightly")
    assert "SeparateCov stays below GaussCov from d = 10 (n=1000), 10 (n=16000)" in verdict
    at.selectbox(key="cov_paper_figure").set_value("fig3d").run()
    assert not at.exception and not errors(at)
    assert "cov_paper" not in charts(at)
    assert at.warning[0].value.startswith("no saved results for fig3d")


def test_engine_time_at_the_defaults_is_measured(cov):
    caption = next(c.value for c in cov.caption if c.value.startswith("Engine time"))
    milliseconds = float(caption.split(":")[1].split("ms")[0])
    assert 0 <= milliseconds < 300
    cov.toggle(key="presenter").set_value(True).run()
    assert not cov.exception and not errors(cov)
    assert not any(c.value.startswith("Engine time") for c in cov.caption)


def test_a_labelled_choice_reaches_the_run(cov):
    key = "cov_adaptive_compat_released_code"
    assert cov.toggle(key=key).value is False
    cov.toggle(key=key).set_value(True)
    open_section(cov, "cov_choices_open")
    assert not cov.exception and not errors(cov)
    choices = next(d.value for d in cov.dataframe if "choice" in d.value.columns)
    assert not choices.empty and set(choices["estimator"]) == {"AdaptiveCov"}
    adaptive = choices[choices["estimator"] == "AdaptiveCov"].set_index("choice")["value"]
    assert adaptive["compat_released_code"] == "True"


# --- Old links open the same scenarios ----------------------------------------------------

def _link_scenarios(monkeypatch, params: dict) -> list[dict]:
    """The scenarios the page runs when opened from ``params`` (spying on the one run path)."""
    from dpviz.ui import runs

    seen: list[dict] = []
    real = runs.run

    def spy(scenario, **kwargs):
        seen.append(scenario.to_dict())
        return real(scenario, **kwargs)

    monkeypatch.setattr(runs, "run", spy)
    _open_link(params)
    return list({str(s): s for s in seen}.values())  # each once, in order


def _expected(estimator: str, data: dict, budget: dict) -> dict:
    own = {p.name: p.default for p in TASKS["covariance"][estimator].params}
    return {"task": "covariance", "estimator": estimator, "data": data,
            "params": {**own, **budget, "radius": 1.0}, "seed": cov_ui.noise_seed(0)}


def test_an_old_link_opens_the_same_scenarios(monkeypatch):
    """The links above (written before the page built scenarios) open the runs they named."""
    link = {"cov_rho": "1", "cov_d": "20", "cov_buckets": "1", "cov_axis_x": "x4",
            "cov_estimators": [TASKS["covariance"][n].label for n in ("gauss", "separate")]}
    data = {"generator": "zipf", "n": 10_000, "d": 20, "buckets": 1, "skew": 3.0, "seed": 0}
    assert _link_scenarios(monkeypatch, link) == [
        _expected(n, data, {"rho": 1.0, "delta": 0.0}) for n in ("gauss", "separate")]
    link = {"cov_estimators": ["separate", "zero"], "cov_source": "digits",
            "cov_budget": "epsilon", "cov_paper_figure": "fig3a"}
    assert _link_scenarios(monkeypatch, link) == [
        _expected(n, {"dataset": "digits"}, {"epsilon": 1.0, "delta": 1e-5})
        for n in ("separate", "zero")]


def test_the_stakeholder_report_gets_the_pages_accuracy(monkeypatch):
    """The risk panel's report button receives the error table of the estimator drawn."""
    from dpviz.ui.panels import risk

    seen: dict = {}
    monkeypatch.setattr(risk, "report_button", lambda plain, **kwargs: seen.update(kwargs))
    at = open_page("covariance")
    assert not at.exception and not errors(at)
    (caption, frame), = seen["accuracy"].items()
    assert caption == "Errors of the private matrices"
    assert frame["estimator"].tolist() == ["AdaptiveCov"]
    assert frame["spent"].tolist() == [f"ε = {zcdp_epsilon(0.1, 1e-10):.3g}, δ = 1e-10"]
    assert seen["notes"] == [covariance_results.ERRORS_NOTE]
