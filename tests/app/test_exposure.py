"""Privacy exposure page: both panels, the person alone, ε and × 50 change the picture."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from .app_helpers import charts, errors, open_page, values


@pytest.fixture
def exposure() -> AppTest:
    return open_page("exposure")


def trace(at: AppTest, name: str) -> dict:
    return next(t for t in charts(at)["exposure_figure"]["data"] if t["name"] == name)


def points(at: AppTest, name: str) -> np.ndarray:
    t = trace(at, name)
    return np.column_stack([values(t["x"]), values(t["y"])]).astype(float)


def test_page_draws_both_fits_and_marks_the_person(exposure):
    assert not exposure.exception and not errors(exposure)
    assert exposure.title[0].value.startswith("Privacy exposure")
    assert exposure.number_input(key="exposure_epsilon").value == 1.0
    assert exposure.toggle(key="exposure_x50").value is False
    assert exposure.number_input(key="exposure_delta").value == pytest.approx(1e-5)
    assert list(charts(exposure)) == ["exposure_figure", "exposure_ledger"]
    lone = points(exposure, "the person alone")[0]
    assert lone.tolist() == pytest.approx([-0.7, 0.55])
    em = points(exposure, "non-private EM means")
    private = points(exposure, "private means")
    assert em.shape == private.shape == (4, 2)
    # the non-private mean is the person's row; the private one is not
    assert np.linalg.norm(em - lone, axis=1).min() < 1e-6
    assert np.linalg.norm(private - lone, axis=1).min() > 0.05
    assert len(values(trace(exposure, "people (rows)")["x"])) == 104
    assert any("it is their row" in m.value for m in exposure.markdown)
    table = exposure.dataframe[0].value
    assert list(table["data"]) == ["104 people", "5,200 people (× 50)"]


def test_epsilon_moves_the_private_means_only(exposure):
    em, private = points(exposure, "non-private EM means"), points(exposure, "private means")
    exposure.number_input(key="exposure_epsilon").set_value(8.0).run()
    assert not exposure.exception and not errors(exposure)
    assert np.array_equal(points(exposure, "non-private EM means"), em)
    assert not np.array_equal(points(exposure, "private means"), private)


def test_fifty_times_the_data(exposure):
    exposure.toggle(key="exposure_x50").set_value(True).run()
    assert not exposure.exception and not errors(exposure)
    assert len(values(trace(exposure, "people (rows)")["x"])) == 5200
    assert "5,200 people" in charts(exposure)["exposure_figure"]["layout"]["title"]["text"]
    assert any("50 times the data" in m.value for m in exposure.markdown)


def test_bad_delta_shows_the_engine_sentence(exposure):
    exposure.number_input(key="exposure_delta").set_value(0.0).run()
    assert not exposure.exception
    assert len(errors(exposure)) == 1 and "delta > 0" in errors(exposure)[0]
    assert charts(exposure) == {}


def test_home_links_to_the_exposure_demo(home):
    targets = [link.proto.page for link in home.get("page_link")
               if link.proto.label.startswith("One person alone")]
    assert targets and all("exposure" in t for t in targets)


def test_an_old_link_opens_the_same_scenario():
    """``/exposure?exposure_epsilon=2.0&exposure_x50=true&exposure_delta=1e-06`` is DP-EM on
    the demo at × 50 with that budget and the global seed, and non-private EM beside it."""
    from dpviz.lab.scenario import Scenario, run_scenario

    from .app_helpers import ROOT, TIMEOUT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/exposure.py")
    at.query_params.update({"exposure_epsilon": "2.0", "exposure_x50": "true",
                            "exposure_delta": "1e-06"})
    at.run()
    assert not at.exception and not errors(at)
    scenario = {"task": "gmm", "estimator": "dp_em", "seed": 0,
                "data": {"generator": "exposure_demo", "scale": 50, "seed": 0},
                "params": {"epsilon": 2.0, "delta": 1e-6}}
    for name, replay in (("private means", scenario),
                         ("non-private EM means", {**scenario, "estimator": "em", "params": {
                             "epsilon": "inf", "delta": 0.0}})):
        means = run_scenario(Scenario.from_dict(replay)).estimate["means"]
        np.testing.assert_allclose(points(at, name), means, rtol=1e-9)
