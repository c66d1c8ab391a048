"""Root pytest configuration: files pytest must never import, and a suite that cannot leak.

Importing ``dpviz/__main__.py`` runs the command line; importing ``app.py`` or a page runs it.

Every test is checked on the way out: a thread it started that is not a daemon and still runs,
or a Dask client it left open, fails that test by name (a non-daemon thread keeps the
interpreter alive after pytest's summary, and a client whose scheduler is gone logs errors into
later tests). ``pytest-timeout`` (``timeout`` in pyproject.toml) fails a stuck test by name, and
if a non-daemon thread is still alive when the run ends, the process exits with the run's status
instead of waiting for it.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import threading

import pytest

collect_ignore = ["dpviz/__main__.py", "app.py"]
collect_ignore_glob = ["pages/*", "bench/*", ".venv/*"]

#: Seconds a test's threads get to finish after it before they count as left behind.
GRACE = 5.0
#: Threads meant to outlive a test, which Python or their library end at exit by themselves:
#: joblib's reusable process pool (loky) keeps its manager thread for the next parallel call;
#: an event loop's default executor (Playwright's) keeps its idle workers; the compare view's
#: two bounded pools are the server's, shared by every user for its lifetime
#: (``st.cache_resource``; Python joins their idle workers at exit).
KEPT = ("ExecutorManagerThread", "asyncio_", "dpviz-compare")


#: Where the app keeps files between runs, given one temporary folder per test process (each
#: xdist worker its own): the live class's database and the sweeps' cache.
STATE_ENV = {"DPVIZ_CLASS_DB": "classes.sqlite3", "DPVIZ_CACHE_DIR": "sweeps"}


def _scan_components_once() -> None:
    """Scan the installed packages for Streamlit components once per test process.

    Every new ``AppTest`` scans all installed distributions' metadata for Streamlit
    components on its first run (0.7 s each, Streamlit 1.67), for none here; the packages do
    not change during a run, so the first scan's answer is kept for every later AppTest.
    """
    import functools

    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(
        manifest_scanner.scan_component_manifests)


def pytest_configure(config: pytest.Config) -> None:
    """Set up this test process.

    Its own class database and cache, unless the caller named them; Streamlit's components
    scanned once (:func:`_scan_components_once`).
    """
    _scan_components_once()
    if all(name in os.environ for name in STATE_ENV):
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    folder = tempfile.mkdtemp(prefix=f"dpviz-tests-{worker}-")
    config._dpviz_state = folder  # type: ignore[attr-defined]
    for name, leaf in STATE_ENV.items():
        os.environ.setdefault(name, os.path.join(folder, leaf))


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--shuffle SEED``."""
    parser.addoption("--shuffle", type=int, default=None, metavar="SEED",
                     help="run the tests in an order shuffled by SEED (the same in every "
                          "xdist worker), to find tests that depend on one another")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Shuffle the collected tests when ``--shuffle`` is given."""
    seed = config.getoption("--shuffle")
    if seed is not None:
        random.Random(seed).shuffle(items)


def _open_dask_clients() -> list[object]:
    client = getattr(sys.modules.get("distributed.client"), "Client", None)
    instances = getattr(client, "_instances", ()) if client is not None else ()
    return [c for c in list(instances) if getattr(c, "status", "closed") not in ("closed",
                                                                                  "closing")]


def _live_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in threading.enumerate()
            if t not in before and not t.daemon and t is not threading.main_thread()
            and not t.name.startswith(KEPT)]


@pytest.fixture(autouse=True)
def _nothing_left_running():
    """Fail the test that leaves a non-daemon thread running or a Dask client open.

    Also put back ``sys.modules["__main__"]``: Streamlit's ``AppTest`` leaves its script there,
    and a later process started by ``spawn`` (a Dask worker) then ran that script and died.
    """
    before = set(threading.enumerate())
    clients_before = {id(c) for c in _open_dask_clients()}
    main = sys.modules.get("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main
    for thread in _live_threads(before):
        thread.join(GRACE)
    threads = [t.name for t in _live_threads(before)]
    clients = [c for c in _open_dask_clients() if id(c) not in clients_before]
    for client in clients:  # closed here so that the next test is not hit by its errors
        client.close()  # type: ignore[attr-defined]
    assert not threads, f"the test left non-daemon threads running: {threads}"
    assert not clients, f"the test left {len(clients)} Dask client(s) open: {clients}"


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this process's state folder; exit if a thread would keep the run alive.

    A non-daemon thread still running here would keep the finished run from exiting (a hung CI).
    """
    folder = getattr(config, "_dpviz_state", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    stuck = _live_threads(set())
    if stuck:
        status = getattr(config, "_dpviz_status", 1) or 1
        sys.stderr.write(f"\nnon-daemon threads still running after the tests: "
                         f"{[t.name for t in stuck]}; exiting with status {status}\n")
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(int(status))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Keep the run's status for :func:`pytest_unconfigure`."""
    session.config._dpviz_status = exitstatus  # type: ignore[attr-defined]
