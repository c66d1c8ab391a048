"""The cloud of R repeated runs is charged: the ledger beside it composes all 1 + R runs."""

from __future__ import annotations

import math
import re

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.privacy import PrivacyEvent, calibration
from dpviz.privacy.risk import risk_of_events

from .app_helpers import charts, errors, open_page, values

REPEATS = 3
DELTA = 1e-5  # the page's default δ


def bar_total(at: AppTest) -> tuple[float, str]:
    """The budget bar's total length and its axis title (ρ under zCDP)."""
    figure = charts(at)["gmm_ledger"]
    total = sum(float(values(trace["x"]).sum()) for trace in figure["data"])
    return total, figure["layout"]["xaxis"]["title"]["text"]


def risk_epsilon(at: AppTest) -> float:
    """The ε the risk panel's summary says the runs spent together (the ε set when within)."""
    warning = [w.value for w in at.warning if "together they spent" in w.value]
    text = warning[0] if warning else next(
        m.value for m in at.markdown if m.value.startswith("**Privacy budget:"))
    return float(re.findall(r"ε = ([0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)", text)[-1])


@pytest.fixture
def gmm() -> AppTest:
    return open_page("gmm")


def test_the_ledger_beside_the_cloud_charges_every_run(gmm):
    assert gmm.selectbox(key="gmm_estimator").value == "dp_em"  # GGG: Gaussians only
    one, axis = bar_total(gmm)
    assert axis.startswith("ε spent")
    one_rho = calibration.zcdp_rho_for(one, DELTA)
    one_risk = risk_epsilon(gmm)
    assert not any("more private fits" in c.value for c in gmm.caption)

    gmm.number_input(key="gmm_repeats").set_value(REPEATS)
    gmm.toggle(key="gmm_cloud").set_value(True).run()
    assert not gmm.exception and not errors(gmm)
    assert any(t["name"] == "private means, repeated runs"
               for t in charts(gmm)["gmm_figure"]["data"])

    # the bar: ε of 1 + R runs as the run's zCDP accounting composes them (ρ adds up)
    total, _ = bar_total(gmm)
    rho = (1 + REPEATS) * one_rho
    assert total == pytest.approx(calibration.zcdp_epsilon(rho, DELTA), rel=1e-6)
    assert (charts(gmm)["gmm_ledger"]["layout"]["title"]["text"]
            == f"Where the budget went: this run and the cloud's {REPEATS} runs")
    # the sentence: the composed ε under the run's zCDP accounting, and one run's
    note = next(c.value for c in gmm.caption if "more private fits" in c.value)
    composed = calibration.zcdp_epsilon(rho, DELTA)
    alone = calibration.zcdp_epsilon(one_rho, DELTA)
    assert f"charge all {1 + REPEATS} runs: ε = {composed:.3g}, δ = 1e-05 in all" in note
    assert f"against ε = {alone:.3g}, δ = 1e-05 for the run drawn alone" in note
    # the risk panel: the same 1 + R runs composed by PLD (Gaussians: one with μ = √(2ρ);
    # the page's PLD is discretised, and it prints 3 digits)
    expected = risk_of_events({None: [PrivacyEvent("gaussian", mu=math.sqrt(2 * rho))]}, DELTA)
    assert risk_epsilon(gmm) == pytest.approx(expected.epsilon, rel=1e-2)
    assert risk_epsilon(gmm) > one_risk

    gmm.toggle(key="gmm_cloud").set_value(False).run()
    assert bar_total(gmm)[0] == pytest.approx(one, rel=1e-12)
    assert risk_epsilon(gmm) == 1.0  # one run: the summary states the ε set
