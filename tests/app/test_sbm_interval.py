"""/sbm's error rate on a generated graph says it has no interval, and why, in the engine's
words (issue 32)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dpviz.lab.intervals import NO_ERROR_RATE_INTERVAL, NO_INTERVAL

from .app_helpers import ROOT, TIMEOUT, errors


def test_the_error_rate_says_no_interval():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.query_params.update({"sbm_n": "200"})  # a small graph: the run and layout are quick
    at.switch_page("pages/sbm.py").run()
    assert not at.exception and not errors(at)
    said = next(c.value for c in at.caption if c.value.startswith(NO_INTERVAL.capitalize()))
    assert "'s error rate: on a generated graph the error" in said
    assert said.replace("\\", "").endswith(f"{NO_ERROR_RATE_INTERVAL}).")
