"""``make serve N=4``: N Streamlit processes behind nginx over HTTPS, in the foreground.

Issue 22, part 5; issue 36, part 4. One Streamlit process runs every session's script on the
threads of one Python interpreter, so it uses about one core; N processes on consecutive ports
(``--first-backend-port``, …) behind one nginx (``--port``) use N. The nginx configuration is
rendered from ``deploy/nginx.conf.template`` into a fresh run folder (printed at start).

nginx answers HTTPS only: with ``--cert``/``--key`` (a real certificate, PEM), or else with a
self-signed one that this script makes with ``openssl`` and keeps in ``deploy/tls/`` (git-ignored,
the folder 0700, the key 0600) for 90 days, so a browser's exception for it lasts across runs.
Plain HTTP sent to the port is redirected to HTTPS; no other port is opened. nginx hashes every
request on a routing cookie that it signs (``deploy/route.js``, with a secret drawn for this
run), so a session's websocket, uploads and media reach the process that holds it and a client
cannot choose its process. Request, session and connection limits per client address are sized
for ``--hall`` students behind one address (:func:`limits`).

All processes share one random cookie secret and the live-class database (``DPVIZ_CLASS_DB``,
default ``~/.cache/dpviz/classes.sqlite3``, one SQLite file on this machine's disk). File
watching is off: a changed source file does not reload a serving process.

Ctrl-C (or SIGTERM) stops nginx and every process; if any of them dies, the rest are stopped
and the exit code is 1. ``--check`` renders the configuration and runs ``nginx -t`` on it.

Usage: ``python deploy/serve.py --processes 4 [--port 8500] [--cert FILE --key FILE]``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib.util
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from deploy.processes import healthy, stop  # noqa: E402

DEPLOY = ROOT / "deploy"
TEMPLATE = DEPLOY / "nginx.conf.template"
#: Where the self-signed certificate is kept between runs (git-ignored; only its owner enters).
TLS_DIR = DEPLOY / "tls"
#: How long a self-signed certificate is made for, and how long it must still run to be reused.
SELF_SIGNED_DAYS = 90
RENEW_SECONDS = 86_400
#: How long a backend may take to answer its health check (a cold start under load).
START_SECONDS = 180.0
#: The engine's upload limit (dpviz.core.limits.MAX_UPLOAD_BYTES, 50 MB; not imported: that
#: would load numpy here) and 1 MiB for the multipart envelope, in bytes (tests/test_serve.py
#: checks the two agree).
MAX_BODY = str(50_000_000 + 2**20)
#: dpviz.lab.classroom's variable and default (not imported: the dpviz package loads numpy).
DB_ENV = "DPVIZ_CLASS_DB"
DEFAULT_DB = "the default, ~/.cache/dpviz/classes.sqlite3"
#: The students one client address may stand for: a lecture hall behind one campus NAT.
HALL = 300
#: What the page may load, and from where: only this origin (:func:`content_policy` adds the
#: hashes of the inline scripts in Streamlit's own page). Streamlit's page sets inline styles
#: (its CSS-in-JS, Plotly's SVG) and shows data: images and fonts; its websocket is on this
#: origin. No other inline or evaluated script, no plugin, no other site may frame it.
CSP = ("default-src 'self'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
       "worker-src 'self' blob:; frame-src 'self'; object-src 'none'; base-uri 'self'; "
       "form-action 'self'; frame-ancestors 'self'")
#: With a real certificate only: a browser that saw it keeps to HTTPS for a day (a lecture and
#: its evening), and the next run may still drop back to a self-signed certificate.
HSTS = '        add_header Strict-Transport-Security "max-age=86400" always;'
NO_HSTS = "        # no Strict-Transport-Security: a self-signed certificate (deploy/serve.py)"
#: Debian's package for nginx's JavaScript module, which signs the routing cookie.
JS_PACKAGE = "libnginx-mod-http-js"


def limits(hall: int) -> dict[str, int]:
    """The limits nginx sets per client address, for ``hall`` students behind one address.

    Measured in Chromium on ``/gmm`` (tests/test_serve.py): a tab's first load asks for about
    130 static files (scripts, styles, fonts; nginx serves them from disk, and the browser
    keeps them for a year) and about 10 requests that reach a Streamlit process (the page, its
    health and host checks, the icon, a figure's image), then opens one websocket, its
    session, over which every later move of a widget travels. A student may keep two tabs.
    The whole hall arrives within the same minute, a third of it in the same moment.

    >>> hall = limits(300)
    >>> hall["request_rate"], hall["request_burst"], hall["session_rate"], hall["sockets"]
    (60, 1200, 300, 600)
    """
    if hall < 1:
        raise ValueError(f"hall must be ≥ 1, got {hall}")
    assets, requests, tabs = 130, 12, 2
    return {
        # static files a second: the hall's first loads spread over a minute; a third of the
        # hall loading at once
        "asset_rate": hall * assets // 60,
        "asset_burst": hall * assets // 3,
        # requests to the processes a second, alike (12: the 10 measured and a figure or
        # download of a move); the rate also lets every student fetch a figure every 5 s
        "request_rate": hall * requests // 60,
        "request_burst": hall * requests // 3,
        # new websockets a minute, each a session whose page runs at once: every student
        # once a minute, all of them in the same moment
        "session_rate": hall,
        "session_burst": hall,
        # requests in flight to the processes, and websockets open (one per tab)
        "connections": hall * tabs,
        "sockets": hall * tabs,
    }


def streamlit_static() -> Path:
    """The installed Streamlit's ``static`` folder (its page, scripts, styles and fonts).

    Found without importing Streamlit, which would start its machinery in this process.
    """
    spec = importlib.util.find_spec("streamlit")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("streamlit is not installed in this Python (run `make serve`)")
    return Path(spec.submodule_search_locations[0]) / "static"


def content_policy(index_html: str | None = None) -> str:
    """The Content-Security-Policy, allowing the inline scripts of Streamlit's page by hash.

    Streamlit's ``index.html`` carries one small inline script (``window.prerenderReady =
    false``); its SHA-256 is allowed, and no other inline script. ``index_html`` defaults to
    the installed Streamlit's page, read without importing Streamlit.

    >>> content_policy("<script>a()</script><script src='x.js'></script>").split("; ")[1]
    "script-src 'self' 'sha256-qVpDBgj7bpq5hMAcGp3AOc79J3Y1Z4HvySTwKrWDoy4='"
    """
    if index_html is None:
        index_html = (streamlit_static() / "index.html").read_text(encoding="utf-8")
    inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", index_html, re.S)
    hashes = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'"
        for s in inline)
    return CSP.format(scripts=hashes)


def render(template: str, *, listen: str, backends: list[str], run_dir: Path,
           cert: Path = Path("cert.pem"), key: Path = Path("key.pem"), hsts: bool = False,
           hall: int = HALL, js_module: Path = Path("ngx_http_js_module.so")) -> str:
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
              "@PROCESSES@": str(len(backends)), "@MAX_BODY@": MAX_BODY,
              "@DEPLOY_DIR@": str(DEPLOY), "@JS_MODULE@": str(js_module),
              "@CERT@": str(cert), "@KEY@": str(key), "@CSP@": content_policy(),
              "@HSTS@": HSTS if hsts else NO_HSTS, "@HALL@": str(hall),
              **{f"@{name.upper()}@": str(value) for name, value in limits(hall).items()}}
    for name, value in filled.items():
        template = template.replace(name, value)
    return template


def self_signed(folder: Path = TLS_DIR) -> tuple[Path, Path]:
    """A self-signed certificate and its key in ``folder``: the kept one, or a new one.

    The kept pair is reused while it runs for another day, so a browser that accepted it keeps
    its exception. A new one names this machine (its host names, localhost, 127.0.0.1 and ::1)
    and has a P-256 key; the folder is 0700 and the key 0600.
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    cert, key = folder / "self-signed.crt", folder / "self-signed.key"
    if cert.is_file() and key.is_file() and subprocess.run(
            ["openssl", "x509", "-checkend", str(RENEW_SECONDS), "-noout", "-in", str(cert)],
            capture_output=True, check=False).returncode == 0:
        key.chmod(0o600)
        return cert, key
    names = {"localhost", socket.gethostname(), socket.getfqdn()}
    alt = ",".join([*(f"DNS:{n}" for n in sorted(names) if re.fullmatch(r"[\w.-]+", n)),
                    "IP:127.0.0.1", "IP:::1"])
    new_cert, new_key = folder / "new.crt", folder / "new.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", str(SELF_SIGNED_DAYS), "-subj", "/CN=dpviz self-signed",
         "-addext", f"subjectAltName={alt}", "-keyout", str(new_key), "-out", str(new_cert)],
        check=True, capture_output=True, preexec_fn=lambda: os.umask(0o077))
    new_key.chmod(0o600)
    new_key.replace(key)
    new_cert.replace(cert)
    return cert, key


def js_module(nginx: str) -> Path:
    """The path of nginx's JavaScript module (``ngx_http_js_module.so``) for this nginx."""
    built = subprocess.run([nginx, "-V"], capture_output=True, text=True, check=False).stderr
    found = re.search(r"--modules-path=(\S+)", built)
    return Path(found.group(1) if found else "/usr/lib/nginx/modules") / "ngx_http_js_module.so"


def main(argv: list[str] | None = None) -> int:
    """Start the processes and nginx, wait for Ctrl-C or a process's exit, stop them all."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4, help="Streamlit processes (N)")
    parser.add_argument("--port", type=int, default=8500, help="nginx's public HTTPS port")
    parser.add_argument("--address", default="0.0.0.0", help="nginx's listening address")
    parser.add_argument("--first-backend-port", type=int, default=8501,
                        help="the first process's port; the others follow it (localhost only)")
    parser.add_argument("--cert", type=Path,
                        help="a real certificate (PEM, with its chain); default: self-signed")
    parser.add_argument("--key", type=Path, help="the certificate's private key (PEM)")
    parser.add_argument("--tls-dir", type=Path, default=TLS_DIR,
                        help="where the self-signed certificate is kept (default deploy/tls)")
    parser.add_argument("--hall", type=int, default=HALL,
                        help="students that may share one client address (campus NAT); the "
                             "request, session and connection limits scale with it")
    parser.add_argument("--pid-file", help="write the processes' pids here once all answer")
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    parser.add_argument("--check", action="store_true",
                        help="render the configuration, run `nginx -t` on it and exit")
    args = parser.parse_args(argv)
    if args.processes < 1:
        print(f"processes must be ≥ 1, got {args.processes}", file=sys.stderr)
        return 2
    if args.hall < 1:
        print(f"hall must be ≥ 1, got {args.hall}", file=sys.stderr)
        return 2
    if (args.cert is None) != (args.key is None):
        print("--cert and --key go together: give both, or neither for a self-signed "
              "certificate", file=sys.stderr)
        return 2
    if not Path(args.nginx).is_file():
        print(f"nginx not found (looked for {args.nginx}): install it with "
              f"`apt-get install nginx {JS_PACKAGE}`, or pass --nginx PATH", file=sys.stderr)
        return 2
    module = js_module(args.nginx)
    if not module.is_file():
        print(f"nginx's JavaScript module ({module}), which signs the routing cookie, is "
              f"missing: install it with `apt-get install {JS_PACKAGE}`", file=sys.stderr)
        return 2
    if args.cert is not None:
        unreadable = [str(p) for p in (args.cert, args.key) if not os.access(p, os.R_OK)]
        if unreadable:
            print(f"cannot read {', '.join(unreadable)}", file=sys.stderr)
            return 2
        cert, key = args.cert.resolve(), args.key.resolve()
    elif shutil.which("openssl") is None:
        print("openssl, which makes the self-signed certificate, is not installed: "
              "`apt-get install openssl`, or give a certificate with --cert and --key",
              file=sys.stderr)
        return 2
    else:
        cert, key = self_signed(args.tls_dir)

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
    # Streamlit's static files, for nginx to serve itself (readable by its workers wherever
    # the virtual environment lives)
    shutil.copytree(streamlit_static() / "static", run_dir / "www" / "static")
    for folder in (run_dir / "www", *(p for p in (run_dir / "www").rglob("*") if p.is_dir())):
        folder.chmod(0o755)
    conf = run_dir / "nginx.conf"
    conf.write_text(render(TEMPLATE.read_text(encoding="utf-8"),
                           listen=f"{args.address}:{args.port}",
                           backends=[f"127.0.0.1:{p}" for p in ports], run_dir=run_dir,
                           cert=cert, key=key, hsts=args.cert is not None, hall=args.hall,
                           js_module=module),
                    encoding="utf-8")
    nginx = [args.nginx, "-p", str(run_dir), "-c", str(conf), "-e", str(run_dir / "error.log")]
    # the routing cookie's key, for nginx alone (deploy/route.js reads it from the environment)
    nginx_env = {**os.environ, "DPVIZ_ROUTE_SECRET": secrets.token_hex(32)}
    # the configuration and the certificate are checked before any process starts
    checked = subprocess.run([*nginx, "-t", *([] if args.check else ["-q"])], env=nginx_env,
                             check=False)
    if args.check or checked.returncode != 0:
        shutil.rmtree(run_dir, ignore_errors=True)
        return checked.returncode

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
          f"live-class database {env.get(DB_ENV) or DEFAULT_DB}, nginx config {conf}, "
          f"certificate {cert}", flush=True)
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
        procs.append(subprocess.Popen(nginx, env=nginx_env))
        if args.pid_file:
            Path(args.pid_file).write_text(" ".join(str(p.pid) for p in procs[:-1]) + "\n")
        kind = "a real certificate" if args.cert else "a self-signed certificate"
        print(f"dpviz: serving on https://{args.address}:{args.port} with {kind} "
              "(Ctrl-C stops)", flush=True)
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
