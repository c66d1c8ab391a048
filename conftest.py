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
import sys
import threading

import pytest

collect_ignore = ["dpviz/__main__.py", "app.py"]
collect_ignore_glob = ["pages/*", "bench/*", ".venv/*"]

#: Seconds a test's threads get to finish after it before they count as left behind.
GRACE = 5.0
#: Threads meant to outlive a test, which Python or their library end at exit by themselves:
#: joblib's reusable process pool (loky) keeps its manager thread for the next parallel call;
#: an event loop's default executor (Playwright's) keeps its idle workers.
KEPT = ("ExecutorManagerThread", "asyncio_")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--shuffle", type=int, default=None, metavar="SEED",
                     help="run the tests in an order shuffled by SEED (the same in every "
                          "xdist worker), to find tests that depend on one another")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
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
    """Fail the test that leaves a non-daemon thread running or a Dask client open."""
    before = set(threading.enumerate())
    clients_before = {id(c) for c in _open_dask_clients()}
    yield
    for thread in _live_threads(before):
        thread.join(GRACE)
    threads = [t.name for t in _live_threads(before)]
    clients = [c for c in _open_dask_clients() if id(c) not in clients_before]
    for client in clients:  # closed here so that the next test is not hit by its errors
        client.close()  # type: ignore[attr-defined]
    assert not threads, f"the test left non-daemon threads running: {threads}"
    assert not clients, f"the test left {len(clients)} Dask client(s) open: {clients}"


def pytest_unconfigure(config: pytest.Config) -> None:
    """Exit now if a non-daemon thread would keep the finished run alive (a hung CI)."""
    stuck = _live_threads(set())
    if stuck:
        status = getattr(config, "_dpviz_status", 1) or 1
        sys.stderr.write(f"\nnon-daemon threads still running after the tests: "
                         f"{[t.name for t in stuck]}; exiting with status {status}\n")
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(int(status))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config._dpviz_status = exitstatus  # type: ignore[attr-defined]
