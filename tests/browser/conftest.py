"""Browser tests: a real ``streamlit run`` of the app, driven by Debian's chromium.

``bash tests/browser/install_chromium.sh`` installs the browser (as root); without
``/usr/bin/chromium`` every test here is skipped with that reason. Every test in this folder
is marked ``browser`` and ``slow`` here, so that no file can forget it: ``make check`` and
``-m "not slow"`` never start a server or a browser.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from deploy.processes import free_port, stop, wait_healthy

from .browser_helpers import SCREENSHOTS

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1500, "height": 2000}

MISSING_CHROMIUM = ("browser tests need /usr/bin/chromium: run `bash "
                    "tests/browser/install_chromium.sh` as root (make test does)")


HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """``streamlit run app.py`` on a free port, stopped after the session."""
    if not CHROMIUM.exists():
        pytest.skip(MISSING_CHROMIUM)
    with streamlit_server() as url:
        yield url


@contextmanager
def streamlit_server(env: Mapping[str, str] | None = None, port: int | None = None,
                     log_name: str = "streamlit.log") -> Iterator[str]:
    """Run ``streamlit run app.py`` (with ``env`` added to the environment) until the exit;
    uploads' expected errors come from 2 runs (``small_server.py``)."""
    port = port or free_port()
    SCREENSHOTS.mkdir(exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # each xdist worker's servers: own logs
    log_path = SCREENSHOTS / (f"{worker}-{log_name}" if worker else log_name)
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, str(HERE / "small_server.py"), "run", "app.py",
             "--server.headless", "true", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
        url = f"http://127.0.0.1:{port}"
        try:
            try:
                wait_healthy(url, process=process, seconds=60)
            except RuntimeError as failed:
                raise RuntimeError(f"streamlit did not start; see {log_path}") from failed
            yield url
        finally:
            stop(process)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip(MISSING_CHROMIUM)
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="browser tests need playwright (requirements-dev.txt)")
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    yield tab
    context.close()
