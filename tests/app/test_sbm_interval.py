"""/sbm's error rate on a generated graph says it has no interval, and why (issue 32)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dpviz.lab.intervals import NO_INTERVAL

from .app_helpers import ROOT, TIMEOUT, errors


def test_the_error_rate_says_no_interval():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.query_params.update({"sbm_n": "200"})  # a small graph: the run and layout are quick
    at.switch_page("pages/sbm.py").run()
    assert not at.exception and not errors(at)
    assert any(c.value.startswith(f"Error rate: {NO_INTERVAL} (an interval from the released")
               for c in at.caption)
