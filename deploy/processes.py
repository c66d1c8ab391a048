"""Servers a program starts and must stop: a free port, the wait until one answers, the stop.

Shared by ``deploy/serve.py``, the benches (``bench/``) and the browser tests'
``tests/browser/conftest.py``; it imports nothing of dpviz, so none of them depends on another.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
import time
import urllib.request
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on at the moment of the call."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def healthy(url: str, timeout: float = 2.0) -> bool:
    """Whether the Streamlit server at ``url`` answers its health check (``/_stcore/health``).

    An ``https`` URL's certificate is not verified: the servers checked are our own, often
    behind ``make serve``'s self-signed certificate, and the answer read is only "ok".
    """
    unverified = ssl._create_unverified_context() if url.startswith("https:") else None
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout,
                                    context=unverified) as answer:
            return bool(answer.read().strip() == b"ok")
    except OSError:
        return False


def wait_healthy(url: str, *, process: subprocess.Popen[Any] | None = None,
                 seconds: float = 120.0, poll: float = 0.3) -> None:
    """Wait until the server at ``url`` answers, checking every ``poll`` seconds.

    Raises
    ------
    RuntimeError
        When ``process`` (the server, if given) exits first, or nothing answers within
        ``seconds``.
    """
    deadline = time.monotonic() + seconds
    while not healthy(url, timeout=min(2.0, max(poll, 0.5))):
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server at {url} exited with code {process.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"no server answered at {url} within {seconds:g} s")
        time.sleep(poll)


def stop(*processes: subprocess.Popen[Any], timeout: float = 20.0) -> None:
    """Stop processes this program started: terminate each, kill those still running after.

    Parameters
    ----------
    *processes : subprocess.Popen
        In the order to stop them (a front end before its back ends); one already exited is
        only reaped.
    timeout : float
        Seconds all of them together get to exit after the terminate signal (one deadline,
        not one each); then the rest are killed. Every process is reaped on return.
    """
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + timeout
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
