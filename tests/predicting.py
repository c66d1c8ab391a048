"""Pages that predict an upload's error from 2 runs with no search, for tests of other things.

A full prediction (32 runs and a search for the n or ε that would do) costs an upload 10–25 s
of CPU; the tests marked ``predictions`` and tests/test_expectation.py check it.
"""

from __future__ import annotations

import pytest

from dpviz.lab import expectation


def small_predictions(patch: pytest.MonkeyPatch) -> None:
    """Patch :func:`dpviz.lab.expectation.expected` and the release's runs to 2, no search."""
    full = expectation.expected

    def small(shape, **kwargs):
        return full(shape, **{**kwargs, "runs": 2, "search": False})

    patch.setattr(expectation, "expected", small)
    patch.setattr(expectation, "RUNS", 2)
    patch.setattr(expectation, "RELEASE_RUNS", 2)
    patch.setattr(expectation, "searched", lambda shape, found, **_: found)
