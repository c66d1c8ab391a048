"""Advanced composition when approximate-DP releases use up all of δ."""

import pytest

from dpviz.privacy.accounting import PrivacyEvent, compose
from dpviz.privacy.errors import BudgetError


def test_advanced_falls_back_to_the_linear_sum_when_no_delta_is_left():
    events = [PrivacyEvent("approximate", epsilon=0.5, delta=5e-6, count=2)]
    assert compose(events, 1e-5, "advanced") == pytest.approx(1.0)


def test_advanced_still_refuses_gaussians_without_delta():
    events = [PrivacyEvent("approximate", epsilon=0.5, delta=1e-5),
              PrivacyEvent("gaussian", mu=1.0)]
    with pytest.raises(BudgetError, match="used up"):
        compose(events, 1e-5, "advanced")
