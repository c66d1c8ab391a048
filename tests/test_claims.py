"""The claims register (issue 29 item 6): well formed, and its fast claims hold on fixed seeds.

``make claims`` re-runs every claim with fresh seeds; here the fast ones run with the fixed
seeds of ``check(fresh=False)``, so a change that breaks a stated number fails the suite.
"""

from __future__ import annotations

import pytest

from dpviz.lab.claims import Measured, read_register

CLAIMS = read_register()
FAST = [c for c in CLAIMS if c.fast]


def test_every_claim_names_a_check_that_exists() -> None:
    for claim in CLAIMS:
        assert callable(claim.function()), claim.name
        assert claim.where and claim.states and claim.tolerance, claim.name


@pytest.mark.parametrize("claim", FAST, ids=[c.name for c in FAST])
def test_fast_claims_hold(claim) -> None:  # type: ignore[no-untyped-def]
    measured = claim.run(fresh=False)
    assert isinstance(measured, Measured)
    assert measured.ok, f"{claim.name}: {claim.states} — measured: {measured.text}"
