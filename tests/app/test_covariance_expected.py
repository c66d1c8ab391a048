"""/covariance states each private run's expected accuracy above the figures for an upload
(issue 30 item 1): the issue's 150-row table in cm at the page's defaults (radius 1: every row
clipped) and with private ranges, whose prediction CoinPress finds large."""

from __future__ import annotations

import pytest

from .app_helpers import open_page, upload_petals
from .app_helpers import said as page_text

#: Uploads whose expected accuracy is simulated (6 s a test): make test, not make check.
pytestmark = [pytest.mark.slow, pytest.mark.predictions,
              pytest.mark.usefixtures("fresh_prediction_cache")]


def upload(at):
    return upload_petals(at, "cov")


def test_the_estimator_drawn_gets_a_prediction_in_its_own_units():
    """By default one estimator is drawn (issue 35): its prediction, and no other."""
    at = upload(open_page("covariance"))
    said = page_text(at)
    assert "At this n and ε expect AdaptiveCov's matrix about" in said, said
    assert "off in Frobenius norm, in the columns' squared units" in said
    assert "GaussCov's matrix" not in said and "SeparateCov's matrix" not in said
    assert "Only public inputs go in" in said


def test_every_compared_private_estimator_gets_a_prediction():
    at = open_page("covariance")
    at.toggle(key="cov_compare").set_value(True).run()
    said = page_text(upload(at))
    for label in ("GaussCov", "SeparateCov", "AdaptiveCov"):
        assert f"At this n and ε expect {label}'s matrix about" in said, said
    assert "Zero" not in said.split("At this n")[1]  # it releases nothing: no prediction


def test_a_large_prediction_says_what_n_or_rho_would_do():
    at = open_page()
    at.query_params["cov_estimators"] = ["coinpress"]
    at.switch_page("pages/covariance.py").run()
    upload(at)
    warned = [str(w.value) for w in at.warning if "expect CoinPress" in str(w.value)]
    assert warned, page_text(at)
    assert "meaningful from about" in warned[0] or "not meaningful" in warned[0]
    assert "the largest second moment the bound allows" in warned[0]
