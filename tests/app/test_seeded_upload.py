"""A run of the user's own data under teaching randomness says first that it is not a private
release (issue 36 item 3): its noise is a function of the seed in the link."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz.ui.panels.risk import SEEDED_OWN_DATA

from .app_helpers import errors, open_page

ROWS = np.random.default_rng(5).normal(0.0, 1.0, (120, 2))
CSV = ("a,b\n" + "\n".join(f"{x:.5f},{y:.5f}" for x, y in ROWS) + "\n").encode()


def _warnings(at) -> list[str]:
    return [str(w.value) for w in at.warning]


@pytest.mark.parametrize("secure", [False, True])
def test_an_upload_under_a_seed_is_not_called_a_private_release(secure):
    at = open_page("gmm")
    if secure:
        at.toggle(key="secure").set_value(True).run()
    at.selectbox(key="gmm_source").set_value("csv").run()
    at.number_input(key="gmm_csv_k").set_value(2)
    at.file_uploader(key="gmm_upload").set_value(("mine.csv", CSV, "text/csv")).run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    assert (SEEDED_OWN_DATA in _warnings(at)) is not secure


def test_generated_data_under_a_seed_keeps_its_guarantee_line():
    at = open_page("gmm")
    assert not at.exception
    assert SEEDED_OWN_DATA not in _warnings(at)
