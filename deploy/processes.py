"""Servers a program starts and must stop: a free port to run one on, and the stop itself.

Shared by ``deploy/serve.py``, the benches (``bench/``) and the browser tests'
``tests/browser/conftest.py``; it imports nothing of dpviz, so none of them depends on another.
"""

from __future__ import annotations

import socket
import subprocess
import time
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on at the moment of the call."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
