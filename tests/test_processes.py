"""deploy/processes.py: the one stop for servers that serve.py, the benches and the tests start."""

import signal
import socket
import subprocess
import sys

from deploy.processes import free_port, stop

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
