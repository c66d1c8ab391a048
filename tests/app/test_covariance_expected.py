"""/covariance states each private run's expected accuracy above the figures for an upload
(issue 30 item 1): the issue's 150-row table in cm at the page's defaults (radius 1: every row
clipped) and with private ranges, whose prediction CoinPress finds large."""

from __future__ import annotations

import os

import pytest

from dpviz.lab.expectation import issue_tables
from dpviz.lab.experiments.cache import CACHE_ENV

from .app_helpers import errors, open_page

#: Uploads whose expected accuracy is simulated (6 s a test): make test, not make check.
pytestmark = [pytest.mark.slow, pytest.mark.predictions]


def petals() -> bytes:
    rows, _ = issue_tables()["petals"]
    return ("petal length (cm),petal width (cm)\n"
            + "\n".join(f"{a:g},{b:g}" for a, b in rows)).encode()


def upload(at):
    at.selectbox(key="cov_source").set_value("csv").run()
    at.file_uploader(key="cov_upload").set_value(("petals.csv", petals(), "text/csv")).run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    return at


def _said(at) -> str:
    return " ".join(str(e.value) for e in [*at.caption, *at.warning, *at.info])


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    """Predictions kept in a fresh folder: each test simulates what it states."""
    saved = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("cache"))
    yield
    if saved is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = saved


def test_the_estimator_drawn_gets_a_prediction_in_its_own_units():
    """By default one estimator is drawn (issue 35): its prediction, and no other."""
    at = upload(open_page("covariance"))
    said = _said(at)
    assert "At this n and ε expect AdaptiveCov's matrix about" in said, said
    assert "off in Frobenius norm, in the columns' squared units" in said
    assert "GaussCov's matrix" not in said and "SeparateCov's matrix" not in said
    assert "Only public inputs go in" in said


def test_every_compared_private_estimator_gets_a_prediction():
    at = open_page("covariance")
    at.toggle(key="cov_compare").set_value(True).run()
    said = _said(upload(at))
    for label in ("GaussCov", "SeparateCov", "AdaptiveCov"):
        assert f"At this n and ε expect {label}'s matrix about" in said, said
    assert "Zero" not in said.split("At this n")[1]  # it releases nothing: no prediction


def test_a_large_prediction_says_what_n_or_rho_would_do():
    at = open_page()
    at.query_params["cov_estimators"] = ["coinpress"]
    at.switch_page("pages/covariance.py").run()
    upload(at)
    warned = [str(w.value) for w in at.warning if "expect CoinPress" in str(w.value)]
    assert warned, _said(at)
    assert "meaningful from about" in warned[0] or "not meaningful" in warned[0]
    assert "the largest second moment the bound allows" in warned[0]
