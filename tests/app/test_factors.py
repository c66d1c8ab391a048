"""Private factor analysis page: W as images, ε and the number of factors change them."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from .app_helpers import charts, errors, open_page, values


@pytest.fixture
def factors() -> AppTest:
    return open_page("factors")


def image(z: dict | list) -> np.ndarray:
    if isinstance(z, dict):  # base64 with the shape as text ("8, 8")
        shape = tuple(int(v) for v in str(z.pop("shape")).split(","))
        return values(z).reshape(shape).astype(float)
    return np.asarray(z, dtype=float)


def images(at: AppTest) -> dict[str, np.ndarray]:
    return {t["name"]: image(t["z"]) for t in charts(at)["factors_figure"]["data"]}


def test_page_draws_the_factors_and_says_where_noise_wins(factors):
    assert not factors.exception and not errors(factors)
    assert factors.title[0].value == "Private factor analysis"
    assert factors.select_slider(key="factors_epsilon").value == 2.0
    assert factors.select_slider(key="factors_epsilon").options == ["1", "2", "5", "10"]
    assert factors.slider(key="factors_count").value == 3
    assert factors.number_input(key="factors_iterations").value == 100
    assert list(charts(factors)) == ["factors_figure", "factors_ledger"]
    shown = images(factors)
    assert list(shown) == [f"{run}, factor {j}" for run in ("non-private (ε = ∞)", "ε = 2")
                           for j in (1, 2, 3)]
    assert all(z.shape == (8, 8) for z in shown.values())
    info = " ".join(i.value for i in factors.info)
    assert "Below ε ≈ 1" in info and "Olivetti" in info
    assert len(factors.metric) == 3


def test_epsilon_changes_the_private_images_only(factors):
    before = images(factors)
    factors.select_slider(key="factors_epsilon").set_value(10.0).run()
    assert not factors.exception and not errors(factors)
    after = images(factors)
    assert np.array_equal(after["non-private (ε = ∞), factor 1"],
                          before["non-private (ε = ∞), factor 1"])
    assert "ε = 10, factor 1" in after and "ε = 2, factor 1" not in after


def test_number_of_factors(factors):
    factors.slider(key="factors_count").set_value(5).run()
    assert not factors.exception and not errors(factors)
    assert len(images(factors)) == 10
    assert len(factors.metric) == 5


def test_bad_delta_shows_the_engine_sentence(factors):
    factors.number_input(key="factors_delta").set_value(0.0).run()
    assert not factors.exception
    assert len(errors(factors)) == 1 and "delta > 0" in errors(factors)[0]
    assert charts(factors) == {}


def test_an_old_link_opens_the_same_scenario(monkeypatch):
    """A link written before the page built a scenario opens the run it named (and its
    non-private reference: the same scenario at ε = ∞)."""
    from streamlit.testing.v1 import AppTest

    from dpviz.ui import runs

    from .app_helpers import ROOT, TIMEOUT

    seen: list[dict] = []
    real = runs.run

    def spy(scenario, **kwargs):
        seen.append(scenario.to_dict())
        return real(scenario, **kwargs)

    monkeypatch.setattr(runs, "run", spy)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/factors.py")  # the link opened in a new tab: the sidebar reads it
    at.query_params.update({"factors_epsilon": "5", "factors_count": "2",
                            "factors_iterations": "50", "seed": "3"})
    at.run()
    assert not at.exception and not errors(at)
    private = {"task": "factor_analysis", "estimator": "dp_fa", "data": {"dataset": "digits"},
               "params": {"epsilon": 5.0, "delta": 1e-5, "factors": 2, "iterations": 50},
               "seed": 3}
    reference = {**private, "params": {**private["params"], "epsilon": "inf", "delta": 0.0}}
    assert seen == [reference, private]
