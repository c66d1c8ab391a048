"""The server's warm-up (issue 22, cold start) waits until the first page has been served."""

from __future__ import annotations

import logging
import threading

from dpviz.ui import warm


def test_the_warm_up_starts_after_the_first_page_run_ends(monkeypatch, caplog):
    monkeypatch.setattr(warm, "GRACE", 0.0)
    monkeypatch.setattr(warm, "MODULES", ("dpviz.not_a_module",))  # fails at once: logged
    page_done = threading.Event()
    first_run = threading.Thread(target=page_done.wait)
    first_run.start()
    warmer = threading.Thread(target=warm._warm, args=(first_run,))
    with caplog.at_level(logging.ERROR, logger="dpviz"):
        warmer.start()
        warmer.join(0.3)
        assert warmer.is_alive() and not caplog.records  # the page is still running
        page_done.set()
        warmer.join(30)
    assert not warmer.is_alive()
    assert "warming the server up failed" in caplog.text
