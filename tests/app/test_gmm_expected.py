"""/gmm states a run's expected accuracy above the figure and opens an upload on what suits it
(issue 30 items 1 and 2): the issue's 150-row table in cm, with and without ε in the link."""

from __future__ import annotations

import pytest

from .app_helpers import open_page, upload_petals
from .app_helpers import said as page_text

#: The prediction at full size: its search for the n or ε that would do is what is checked.
pytestmark = [pytest.mark.predictions, pytest.mark.slow,  # full predictions: 20 s to set up
              pytest.mark.usefixtures("fresh_prediction_cache")]


def upload(at):
    return upload_petals(at, "gmm")


@pytest.fixture(scope="module")
def default_page():
    return upload(open_page("gmm"))


def test_without_epsilon_in_the_link_the_page_says_why_it_keeps_dp_em(default_page):
    assert default_page.selectbox(key="gmm_estimator").value == "dp_em"
    said = page_text(default_page)
    assert "Grid means would suit, but it cannot run at ε = 1" in said
    assert "needs about n = 326 rows" in said


def test_a_large_expected_error_is_said_above_the_figure_with_what_would_do(default_page):
    warned = [str(w.value) for w in default_page.warning if "expect the means" in str(w.value)]
    assert warned, page_text(default_page)
    assert "meaningful from about" in warned[0] or "not meaningful" in warned[0]
    assert "units off (typical runs:" in warned[0]
    assert "; 1 run in 10 is further off than " in warned[0]  # the tail, not only the middle


def test_with_epsilon_5_in_the_link_grid_means_is_picked_with_a_stated_accuracy():
    at = open_page()
    at.query_params["gmm_epsilon"] = "5"
    at.switch_page("pages/gmm.py").run()
    upload(at)
    assert at.selectbox(key="gmm_estimator").value == "grid_means"
    said = page_text(at)
    assert "the page picks Grid means" in said
    assert "expect the means about" in said
