"""Issue 30: private ranges too few rows for are refused at the upload step, beside the share."""

from __future__ import annotations

import pytest

from dpviz.lab.scenario import budget_of
from dpviz.privacy.bounds import bound_plan

from .app_helpers import open_page, upload_petals

REFUSED = "Private ranges need at least"


@pytest.mark.parametrize(("prefix", "page"), [("cov", "covariance"), ("gmm", "gmm")])
def test_the_upload_step_says_private_ranges_will_be_refused(prefix, page):
    at = upload_petals(open_page(page), prefix)
    at.radio(key=f"{prefix}_bound_way").set_value("private").run()
    at.slider(key=f"{prefix}_bound_share").set_value(0.05).run()
    refused = [str(w.value) for w in at.warning if REFUSED in str(w.value)]
    assert refused, [str(w.value) for w in at.warning]
    assert "At 150 rows they run from" in refused[0]  # what would do, at this page's budget
    at.slider(key=f"{prefix}_bound_share").set_value(0.5).run()
    assert not [w for w in at.warning if REFUSED in str(w.value)]


def test_the_sentence_is_the_runs_own():
    """The note and the run's refusal are one sentence from public inputs (n, d, share, budget)."""
    plan = bound_plan(150, 2, budget_of({"rho": 0.1}), 0.2)
    assert plan.refusal(150).startswith(REFUSED)
    assert bound_plan(150, 2, budget_of({"rho": 0.1}), 0.5).refusal(150) is None
