"""``streamlit run`` with the server's turnaround of every rerun written to a log.

Used by ``bench/load_test.py`` to separate the server's share of a redraw from the browsers'
(thirty Chromium renderers on the same two cores). For each session it records the time from
a rerun request arriving (``BackMsg.rerun_script``) to the server sending that run's
``script_finished``, both on the server's event loop, with the request's query string (the
student's seed) and the wall-clock time, one JSON object per line::

    python bench/timed_server.py LOG.jsonl --server.port 8501 ...

A bench tool, not part of the app: it wraps two Streamlit internals (``AppSession.
handle_backmsg`` and ``Runtime._send_message``) and is checked against the Streamlit version
in ``requirements.txt`` by the load test itself (no turnaround logged is reported as a
problem).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def install(log_path: str) -> None:
    """Wrap the two methods so every rerun's turnaround is appended to ``log_path``."""
    from streamlit.runtime import app_session, runtime

    waiting: dict[str, tuple[float, str]] = {}
    log = open(log_path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - open for life
    handle = app_session.AppSession.handle_backmsg
    send = runtime.Runtime._send_message

    def handle_backmsg(self: Any, msg: Any) -> None:
        if msg.WhichOneof("type") == "rerun_script":
            # the oldest request still waiting: a later one that overtakes it answers both
            waiting.setdefault(self.id, (time.monotonic(), msg.rerun_script.query_string))
        handle(self, msg)

    def send_message(self: Any, info: Any, msg: Any) -> None:
        send(self, info, msg)
        if msg.WhichOneof("type") == "script_finished":
            started = waiting.pop(info.session.id, None)
            if started is not None:
                log.write(json.dumps({"wall": time.time(), "query": started[1],
                                      "seconds": time.monotonic() - started[0]}) + "\n")

    app_session.AppSession.handle_backmsg = handle_backmsg  # type: ignore[method-assign]
    runtime.Runtime._send_message = send_message  # type: ignore[method-assign]


def main() -> None:
    """``timed_server.py LOG [streamlit run options…]``: serve ``app.py`` from the cwd."""
    install(sys.argv[1])
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", "app.py", *sys.argv[2:]]
    cli.main()


if __name__ == "__main__":
    main()
