"""``make serve N=4``: N Streamlit processes behind nginx with sticky sessions, in the foreground.

Issue 22, part 5. One Streamlit process runs every session's script on the threads of one
Python interpreter, so it uses about one core; N processes on consecutive ports
(``--first-backend-port``, …) behind one nginx (``--port``) use N. The nginx configuration is
rendered from ``deploy/nginx.conf.template`` into a fresh run folder (printed at start): nginx
hashes every request on a routing cookie it sets on a browser's first request, so a session's
websocket, uploads and media always reach the process that holds it. All processes share one
random cookie secret and the live-class database (``DPVIZ_CLASS_DB``, default
``~/.cache/dpviz/classes.sqlite3``, one SQLite file on this machine's disk). File watching is
off: a changed source file does not reload a serving process.

Ctrl-C (or SIGTERM) stops nginx and every process; if any of them dies, the rest are stopped
and the exit code is 1. ``--check`` renders the configuration and runs ``nginx -t`` on it.

Usage: ``python deploy/serve.py --processes 4 [--port 8500] [--first-backend-port 8501]``.
"""

from __future__ import annotations

import argparse
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from deploy.processes import healthy, stop  # noqa: E402

TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
#: How long a backend may take to answer its health check (a cold start under load).
START_SECONDS = 180.0
#: Larger than Streamlit's server.maxUploadSize (50 MB), which is the limit that applies.
MAX_BODY = "64m"
#: dpviz.ui.classroom's variable and default (not imported: that would load Streamlit here).
DB_ENV = "DPVIZ_CLASS_DB"
DEFAULT_DB = "the default, ~/.cache/dpviz/classes.sqlite3"


def render(template: str, *, listen: str, backends: list[str], run_dir: Path) -> str:
    """The nginx configuration for ``backends`` (``host:port`` each), listening on ``listen``.

    >>> print(render("listen @LISTEN@; @UPSTREAMS@", listen="8500",
    ...              backends=["127.0.0.1:8501", "10.0.0.2:8501"], run_dir=Path("/run/x")))
    listen 8500;         server 127.0.0.1:8501 max_fails=0;
            server 10.0.0.2:8501 max_fails=0;
    """
    if not backends:
        raise ValueError("processes must be ≥ 1, got 0")
    # max_fails=0: a process busy for a while is not taken out of the hash, which would move
    # its students' later requests to a process that does not hold their sessions
    upstreams = "\n".join(f"        server {b} max_fails=0;" for b in backends)
    filled = {"@UPSTREAMS@": upstreams, "@LISTEN@": listen, "@RUN_DIR@": str(run_dir),
              "@PROCESSES@": str(len(backends)), "@MAX_BODY@": MAX_BODY}
    for name, value in filled.items():
        template = template.replace(name, value)
    return template


def main(argv: list[str] | None = None) -> int:
    """Start the processes and nginx, wait for Ctrl-C or a process's exit, stop them all."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4, help="Streamlit processes (N)")
    parser.add_argument("--port", type=int, default=8500, help="nginx's public port")
    parser.add_argument("--address", default="0.0.0.0", help="nginx's listening address")
    parser.add_argument("--first-backend-port", type=int, default=8501,
                        help="the first process's port; the others follow it (localhost only)")
    parser.add_argument("--pid-file", help="write the processes' pids here once all answer")
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    parser.add_argument("--check", action="store_true",
                        help="render the configuration, run `nginx -t` on it and exit")
    args = parser.parse_args(argv)
    if args.processes < 1:
        print(f"processes must be ≥ 1, got {args.processes}", file=sys.stderr)
        return 2
    if not Path(args.nginx).is_file():
        print(f"nginx not found (looked for {args.nginx}): install it with "
              "`apt-get install nginx`, or pass --nginx PATH", file=sys.stderr)
        return 2

    ports = [args.first_backend_port + i for i in range(args.processes)]
    run_dir = Path(tempfile.mkdtemp(prefix="dpviz-serve-"))
    # nginx's workers drop root to `nobody`: they must pass through the folder (not list it)
    # and write its tmp/, which nobody else may; the logs (addresses, class codes) stay private
    run_dir.chmod(0o711)
    (run_dir / "tmp").mkdir(mode=0o700)
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(run_dir / "tmp", nobody.pw_uid, nobody.pw_gid)
    for log in ("access.log", "error.log"):
        (run_dir / log).touch(mode=0o600)
    conf = run_dir / "nginx.conf"
    conf.write_text(render(TEMPLATE.read_text(encoding="utf-8"),
                           listen=f"{args.address}:{args.port}",
                           backends=[f"127.0.0.1:{p}" for p in ports], run_dir=run_dir),
                    encoding="utf-8")
    nginx = [args.nginx, "-p", str(run_dir), "-c", str(conf), "-e", str(run_dir / "error.log")]
    if args.check:
        checked = subprocess.run([*nginx, "-t"], check=False).returncode
        shutil.rmtree(run_dir, ignore_errors=True)
        return checked

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1",
           # one secret for all: a cookie signed by one process is read by another
           "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}
    procs: list[subprocess.Popen[bytes]] = []
    stopping = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    print(f"dpviz: {args.processes} Streamlit process(es) on ports {ports[0]}–{ports[-1]}, "
          f"live-class database {env.get(DB_ENV) or DEFAULT_DB}, nginx config {conf}", flush=True)
    try:
        for port in ports:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
                 "--server.port", str(port), "--server.address", "127.0.0.1",
                 "--server.headless", "true", "--server.fileWatcherType", "none",
                 "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env))
        deadline = time.monotonic() + START_SECONDS
        waiting = set(ports)
        while waiting and not stopping:
            if any(p.poll() is not None for p in procs):
                print("dpviz: a Streamlit process exited while starting", file=sys.stderr)
                return 1
            if time.monotonic() > deadline:
                print(f"dpviz: ports {sorted(waiting)} did not answer within "
                      f"{START_SECONDS:g} s", file=sys.stderr)
                return 1
            waiting = {p for p in waiting if not healthy(f"http://127.0.0.1:{p}")}
            time.sleep(0.5)
        if stopping:
            return 0
        procs.append(subprocess.Popen(nginx))
        if args.pid_file:
            Path(args.pid_file).write_text(" ".join(str(p.pid) for p in procs[:-1]) + "\n")
        print(f"dpviz: serving on http://{args.address}:{args.port} (Ctrl-C stops)", flush=True)
        while not stopping:
            if any(p.poll() is not None for p in procs):
                print("dpviz: a process exited; stopping the others", file=sys.stderr)
                return 1
            time.sleep(0.5)
        return 0
    finally:
        stop(*procs[::-1])  # nginx first, so no request reaches a stopping process
        shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
