"""Warm a fresh server in the background: the other pages' modules and the figures all share.

A page imports only what it draws (:mod:`dpviz.core.lazy`), so a fresh server's first page is
quick; the first visit to another page would then wait for scikit-learn, networkx, pandas and
scipy, and the first PLD or RDP composition for dp-accounting. :func:`warm_up`, called by every
page, starts one thread per server process that imports them and builds the saved figures
every user sees alike, once the first page has been served: its run has ended and its browser
has had :data:`GRACE` seconds to fetch the page's chart code (Streamlit's Plotly bundle) from
this process. A fixed delay from the first page's start is too short on a busy machine,
where the warm-up then held the interpreter's lock while the server was still sending that
bundle. The thread shares the lock with the pages' runs, so it is not also given a lower CPU
priority, which would let it stall a page's run while it holds the lock. It holds no per-user
state: what it builds lives in the modules and in Streamlit's caches.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time

import streamlit as st

from dpviz.ui.pages_list import PAGES

#: The pages' modules (each imports its engine), from the page list; the registry's tasks are
#: imported after them.
MODULES = tuple(dict.fromkeys(module for page in PAGES for module in page.warm))
#: Libraries the engine imports inside the functions that need them, not with its modules:
#: dp-accounting (0.1-0.3 s) is the first PLD or RDP composition's
#: (:mod:`dpviz.privacy.accounting`), OpenDP (about 60 ms of CPU) the first secure release's
#: (:mod:`dpviz.privacy.mechanisms`).
LIBRARIES = ("dp_accounting", "opendp.measurements")
#: The saved figures every user sees alike, built once: (module, function). Named, not
#: imported: the shell that starts the warm-up sits below the pages' bodies.
FIGURES = (("dpviz.ui.pages.sbm_curves", "saved_curve_figures"),)
#: Seconds after the first page's run ends before the warm-up starts: its browser then
#: fetches the page's chart code (Streamlit's Plotly bundle) from this process.
GRACE = 3.0
#: The longest the warm-up waits for the first page's run to end.
LONGEST_RUN = 60.0
LOG = logging.getLogger("dpviz")


def _warm(first_run: threading.Thread) -> None:
    """Import :data:`MODULES`, :data:`LIBRARIES` and every task's estimators; build :data:`FIGURES`.

    ``first_run`` is the thread of the first page's run: Streamlit runs a session's queued
    runs on one thread that ends when they are done, so joining it waits for the first page
    (at most :data:`LONGEST_RUN` seconds), then :data:`GRACE` more.
    """
    first_run.join(LONGEST_RUN)
    time.sleep(GRACE)
    try:
        for name in MODULES + LIBRARIES:
            importlib.import_module(name)
        from dpviz.estimators.registry import TASKS

        for task in TASKS:
            TASKS[task]
        for module, function in FIGURES:
            getattr(importlib.import_module(module), function)()
    except Exception:  # a warm-up failure costs speed, never a page: the page says its own
        LOG.exception("warming the server up failed")


@st.cache_resource(max_entries=1, show_spinner=False)
def _started() -> threading.Thread:
    thread = threading.Thread(target=_warm, args=(threading.current_thread(),),
                              name="dpviz-warm-up", daemon=True)
    thread.start()
    return thread


def warm_up() -> None:
    """Start the warm-up once per server process (a no-op outside a running server)."""
    if st.runtime.exists():
        _started()
