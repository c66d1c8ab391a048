"""Shared fixtures for the privacy-core tests: seeded generators, nothing global."""

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh generator with a fixed seed, so no statistical test fails by chance."""
    return np.random.default_rng(20240607)
