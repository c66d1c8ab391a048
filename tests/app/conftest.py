"""Fixtures: each page opened through Home, as ``AppTest`` needs."""

from __future__ import annotations

import pytest
from predicting import small_predictions
from streamlit.testing.v1 import AppTest

from dpviz.lab.scenario import Scenario
from dpviz.ui import runs

from .app_helpers import open_page


@pytest.fixture(autouse=True)
def _small_predictions(request, monkeypatch) -> None:
    """:func:`small_predictions` for every test, unless it is about them: the tests marked
    ``predictions`` and tests/test_expectation.py check the full prediction."""
    if request.node.get_closest_marker("predictions") is None:
        small_predictions(monkeypatch)


@pytest.fixture(scope="module")
def small_predictions_module():
    """:func:`small_predictions` for a module-scoped page, set up before any test's own
    fixtures (the autouse one comes too late for it)."""
    with pytest.MonkeyPatch.context() as patch:
        small_predictions(patch)
        yield


@pytest.fixture
def ran(monkeypatch) -> list[Scenario]:
    """The scenarios the pages run through :func:`dpviz.ui.runs.run`, in order."""
    seen: list[Scenario] = []
    real = runs.run

    def record(scenario: Scenario, **kwargs):
        seen.append(scenario)
        return real(scenario, **kwargs)

    monkeypatch.setattr(runs, "run", record)
    return seen


@pytest.fixture
def home() -> AppTest:
    return open_page()


@pytest.fixture
def budget() -> AppTest:
    return open_page("budget")


@pytest.fixture
def lens() -> AppTest:
    return open_page("lens")


@pytest.fixture(scope="module")
def fresh_prediction_cache(tmp_path_factory):
    """Predictions kept in a fresh folder for the module: each test simulates what it states."""
    import os

    from dpviz.lab.experiments.cache import CACHE_ENV

    saved = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("cache"))
    yield
    if saved is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = saved
