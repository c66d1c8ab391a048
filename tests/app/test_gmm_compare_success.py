"""The compare view says where a left-out estimator's runs succeed, simulated or not (issue 29)."""

from __future__ import annotations

import pytest

from dpviz.lab import success
from dpviz.lab.success import Shape, SuccessFrom

from .app_helpers import errors, open_page, open_section

NOT_SIMULATED = "(whether runs then succeed was not simulated)"


@pytest.fixture()
def nothing_kept(tmp_path, monkeypatch):
    """An empty cache folder and no saved table: nothing simulated yet."""
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(success, "SAVED", tmp_path / "no_table.json")
    return tmp_path


def open_compare(estimators: list[str], epsilon: float = 1.0):
    at = open_page("gmm")
    at.session_state["gmm_compare_estimators"] = estimators
    at.session_state["gmm_epsilon"] = epsilon
    return open_section(at, "gmm_compare_open")


def note(at) -> str:
    return next(i.value for i in at.info if "Left out" in i.value)


def test_without_a_simulation_it_says_the_preconditions_n_and_offers_to_simulate(
        nothing_kept, monkeypatch):
    at = open_compare(["dp_em", "friendly_core"])
    assert not at.exception and not errors(at)
    said = note(at)
    assert "its preconditions hold from about n = 1" in said and NOT_SIMULATED in said
    assert "would succeed" not in said
    assert any("within a quarter of the smallest gap" in c.value for c in at.caption)
    button = at.button(key="gmm_compare_simulate_friendly_core")
    assert button.label == "Simulate where it succeeds"
    assert any(c.value.startswith("FriendlyCore") and "not simulated yet" in c.value
               and "s of server time" in c.value for c in at.caption)

    def simulated(shape: Shape, *, budget, progress, **_) -> SuccessFrom:
        assert budget is success.PAGE and shape == Shape("friendly_core", 1.0)
        progress(20, 120)
        return SuccessFrom(shape, 31_000, 14_000, 31_000, 20, 0.9, 0.145,
                           ((14_000, 0.0), (31_000, 0.95)), 30.0)

    monkeypatch.setattr(success, "succeeds_from", simulated)
    button.click().run()
    assert not at.exception and not errors(at)
    said = note(at)
    assert ("in simulation, at least 90% of runs succeed from about n = 31,000 rows at this ε "
            "(20 runs per point)") in said and NOT_SIMULATED not in said
    assert not [b for b in at.button if b.key == "gmm_compare_simulate_friendly_core"]
    assert list((nothing_kept / success.CACHE_FOLDER).glob("*.json"))  # kept for next time


def test_a_search_beyond_the_pages_work_limit_is_not_offered(nothing_kept):
    at = open_compare(["dp_em", "sample_aggregate"], epsilon=0.5)
    assert not at.exception and not errors(at)
    assert not [b for b in at.button if b.key == "gmm_compare_simulate_sample_aggregate"]
    assert any(c.value.startswith("Sample-and-aggregate") and "not simulated" in c.value
               and "too much work in a simulation started from a page" in c.value
               for c in at.caption)
