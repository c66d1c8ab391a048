"""Fixtures: each page opened through Home, as ``AppTest`` needs."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.lab.scenario import Scenario
from dpviz.ui import runs

from .app_helpers import open_page


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
