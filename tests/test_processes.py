"""deploy/processes.py: the one stop for servers that serve.py, the benches and the tests start."""

import signal
import socket
import subprocess
import sys

import pytest

from deploy.processes import free_port, healthy, stop, wait_healthy

#: A child that ignores the terminate signal (it must be killed) and says when it is ready.
STUBBORN = ("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(60)")


def test_stop_terminates_kills_the_stubborn_and_reaps_every_process():
    polite = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    stubborn = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE,
                                text=True)
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    assert stubborn.stdout is not None and stubborn.stdout.readline() == "ready\n"
    stop(done, polite, stubborn, timeout=0.5)
    assert polite.returncode == -signal.SIGTERM
    assert stubborn.returncode == -signal.SIGKILL
    assert done.returncode == 0
    stubborn.stdout.close()


def test_free_port_can_be_listened_on():
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
        s.listen()


#: A one-route server answering Streamlit's health check with "ok" on the port it is given.
HEALTH = ("import http.server, sys\n"
          "class H(http.server.BaseHTTPRequestHandler):\n"
          "    def do_GET(self):\n"
          "        ok = self.path == '/_stcore/health'\n"
          "        self.send_response(200 if ok else 404); self.end_headers()\n"
          "        self.wfile.write(b'ok' if ok else b'')\n"
          "    def log_message(self, *a): pass\n"
          "http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()\n")


def test_wait_healthy_returns_once_the_server_answers_and_raises_when_it_exits():
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    assert not healthy(url)
    server = subprocess.Popen([sys.executable, "-c", HEALTH, str(port)])
    try:
        wait_healthy(url, process=server, seconds=30, poll=0.05)
        assert healthy(url)
    finally:
        stop(server)
    dead = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(RuntimeError, match="exited with code 3"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", process=dead, seconds=30, poll=0.05)
    with pytest.raises(RuntimeError, match="no server answered"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", seconds=0.2, poll=0.05)
