"""The server's warm-up (issue 22, cold start) waits until the first page has been served."""

from __future__ import annotations

import logging
import threading

from dpviz.ui import warm


def test_the_warm_up_starts_after_the_first_page_run_ends(monkeypatch, caplog):
    monkeypatch.setattr(warm, "GRACE", 0.0)
    monkeypatch.setattr(warm, "MODULES", ("dpviz.not_a_module",))  # fails at once: logged
    page_done = threading.Event()
    first_run = threading.Thread(target=page_done.wait, daemon=True)
    warmer = threading.Thread(target=warm._warm, args=(first_run,), daemon=True)

    def ours() -> list[logging.LogRecord]:  # another library's records are not the warm-up's
        return [r for r in caplog.records if r.name.startswith("dpviz")]

    first_run.start()
    try:
        with caplog.at_level(logging.ERROR, logger="dpviz"):
            warmer.start()
            warmer.join(0.3)
            assert warmer.is_alive() and not ours()  # the page is still running
            page_done.set()
            warmer.join(30)
    finally:  # whatever failed above, no thread of this test outlives it
        page_done.set()
        warmer.join(30) if warmer.is_alive() else None
        first_run.join(30)
    assert not warmer.is_alive()
    assert any("warming the server up failed" in r.getMessage() for r in ours())
