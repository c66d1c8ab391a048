"""Fixtures: each page opened through Home, as ``AppTest`` needs."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from .app_helpers import open_page


@pytest.fixture
def home() -> AppTest:
    return open_page()


@pytest.fixture
def budget() -> AppTest:
    return open_page("budget")


@pytest.fixture
def lens() -> AppTest:
    return open_page("lens")
