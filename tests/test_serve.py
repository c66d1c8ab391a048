"""``make serve`` (deploy/): HTTPS, its headers and cookies, a signed route, bounded limits.

The first tests read the rendered nginx configuration. The rest start ``deploy/serve.py``
with two processes on free ports (marked ``slow``; the Chromium one ``browser`` too) and ask
it over HTTPS with curl, as a student's browser and a script would.
"""

import importlib.util
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.processes import free_port, stop, wait_healthy
from dpviz.core import limits as engine_limits

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("serve", ROOT / "deploy" / "serve.py")
assert spec is not None and spec.loader is not None
serve = importlib.util.module_from_spec(spec)
spec.loader.exec_module(serve)

NGINX = shutil.which("nginx")
NO_NGINX = NGINX is None or not serve.js_module(NGINX).is_file()
NEEDS_NGINX = pytest.mark.skipif(
    NO_NGINX, reason=f"make serve needs nginx and {serve.JS_PACKAGE} (apt-get install nginx "
                     f"{serve.JS_PACKAGE})")
NEEDS_OPENSSL = pytest.mark.skipif(shutil.which("openssl") is None,
                                   reason="the self-signed certificate needs openssl")
NEEDS_CURL = pytest.mark.skipif(shutil.which("curl") is None, reason="these checks use curl")
CHROMIUM = Path("/usr/bin/chromium")
#: What every answer carries, errors and redirects included (deploy/nginx.conf.template).
HEADERS = {"x-frame-options": "SAMEORIGIN", "x-content-type-options": "nosniff",
           "referrer-policy": "no-referrer"}


def rendered(tmp_path: Path, backends: list[str], **options: object) -> str:
    return serve.render(serve.TEMPLATE.read_text(encoding="utf-8"), listen="127.0.0.1:8500",
                        backends=backends, run_dir=tmp_path, **options)


def test_every_backend_is_an_upstream_hashed_on_the_signed_route(tmp_path: Path) -> None:
    conf = rendered(tmp_path, ["127.0.0.1:8501", "127.0.0.1:8502", "10.0.0.7:8501"])
    assert not re.findall(r"@[A-Z_]+@", conf)  # every placeholder filled
    upstream = conf.split("upstream dpviz {")[1].split("}")[0]
    assert "hash $route consistent;" in upstream
    assert [line.split()[1] for line in upstream.splitlines() if "server " in line] == \
        ["127.0.0.1:8501", "127.0.0.1:8502", "10.0.0.7:8501"]
    # the key comes from deploy/route.js, which checks the cookie's signature
    assert f"js_import route from {ROOT / 'deploy'}/route.js;" in conf
    assert "js_set $route route.route;" in conf
    assert "env DPVIZ_ROUTE_SECRET;" in conf and "cookie_dpviz_route" not in conf
    for line in ("proxy_http_version 1.1;", "proxy_set_header Upgrade $http_upgrade;",
                 "proxy_set_header Connection $connection_upgrade;"):
        assert line in conf
    assert str(tmp_path / "nginx.pid") in conf


def test_no_backends_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="processes must be ≥ 1, got 0"):
        rendered(tmp_path, [])


def test_only_https_is_served_with_the_certificate_given(tmp_path: Path) -> None:
    conf = rendered(tmp_path, ["127.0.0.1:8501"], cert=Path("/etc/x/full.pem"),
                    key=Path("/etc/x/key.pem"))
    assert [line.strip() for line in conf.splitlines() if line.strip().startswith("listen")] \
        == ["listen 127.0.0.1:8500 ssl http2;"]
    assert "ssl_certificate /etc/x/full.pem;" in conf
    assert "ssl_certificate_key /etc/x/key.pem;" in conf
    assert "ssl_protocols TLSv1.2 TLSv1.3;" in conf
    assert "error_page 497 =301 https://$host:$server_port$request_uri;" in conf
    # HSTS with a real certificate only: with a self-signed one it would forbid the browser's
    # "accept the risk" for the whole host
    assert "add_header Strict-Transport-Security" not in conf
    assert 'add_header Strict-Transport-Security "max-age=86400" always;' in \
        rendered(tmp_path, ["127.0.0.1:8501"], hsts=True)


def test_timeouts_are_bounded(tmp_path: Path) -> None:
    conf = rendered(tmp_path, ["127.0.0.1:8501"])
    timeouts = re.findall(r"^\s*(\w+_timeout) (\w+);", conf, re.M)
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    longest = {name: int(value[:-1]) * seconds[value[-1]] for name, value in timeouts
               if name != "ssl_session_timeout"}  # how long a TLS session may be resumed
    assert longest["proxy_read_timeout"] == 120  # the websocket's: 4 of Streamlit's pings
    assert max(longest.values()) <= 120, longest
    assert "client_header_timeout 10s;" in conf


def test_limits_are_per_address_and_sized_for_a_hall(tmp_path: Path) -> None:
    hall = serve.limits(300)
    # 300 students' first loads within a minute, a third of them at once (deploy/serve.py)
    assert hall["session_burst"] >= 300 and hall["sockets"] >= 300
    assert hall["request_burst"] >= 300 * 10 // 3
    assert serve.limits(600)["sockets"] == 2 * hall["sockets"]
    with pytest.raises(ValueError, match="hall must be ≥ 1, got 0"):
        serve.limits(0)
    conf = rendered(tmp_path, ["127.0.0.1:8501"], hall=300)
    for zone in ("assets", "requests", "sessions"):
        assert re.search(rf"limit_req_zone \$binary_remote_addr zone={zone}:10m rate=\d+r/[sm];",
                         conf), zone
    assert "limit_req zone=sessions burst=300 nodelay;" in conf
    assert "limit_conn sockets 600;" in conf
    assert f"limit_req zone=requests burst={hall['request_burst']} nodelay;" in conf
    assert f"limit_conn connections {hall['connections']};" in conf


def test_nginx_lets_through_what_the_engine_accepts_and_no_more() -> None:
    # the engine refuses a bigger upload with its own sentence; nginx's cap is only a backstop
    envelope = int(serve.MAX_BODY) - engine_limits.MAX_UPLOAD_BYTES
    assert 0 < envelope <= 2**20


def test_the_content_policy_allows_no_script_but_this_origin_and_streamlit_s_own() -> None:
    policy = dict(part.split(" ", 1) for part in serve.content_policy().split("; "))
    index = (serve.streamlit_static() / "index.html").read_text(encoding="utf-8")
    inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", index, re.S)
    scripts = policy["script-src"].split()
    assert scripts[0] == "'self'" and len(scripts) == 1 + len(inline)
    assert all(s.startswith("'sha256-") for s in scripts[1:])
    assert "unsafe-inline" not in policy["script-src"] and "unsafe-eval" not in str(policy)
    assert policy["frame-ancestors"] == "'self'" and policy["object-src"] == "'none'"
    assert policy["default-src"] == "'self'" and policy["connect-src"] == "'self'"


@NEEDS_OPENSSL
def test_the_self_signed_certificate_is_private_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "tls"
    cert, key = serve.self_signed(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    text = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-text"],
                          capture_output=True, text=True, check=True).stdout
    assert "DNS:localhost" in text and "IP Address:127.0.0.1" in text
    first = cert.read_bytes()
    assert serve.self_signed(folder) == (cert, key)
    assert cert.read_bytes() == first  # kept: a browser's exception for it still holds


def test_a_certificate_needs_its_key(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "deploy" / "serve.py"), "--cert",
                           str(tmp_path / "c.pem")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--cert and --key go together" in done.stderr


@NEEDS_NGINX
@NEEDS_OPENSSL
def test_nginx_accepts_the_rendered_configuration(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "deploy" / "serve.py"), "--processes",
                           "3", "--check", "--tls-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


# ---- a running `make serve`: two processes behind nginx, asked over HTTPS -----------------

class Served:
    def __init__(self, url: str, run_dir: Path, cert: Path) -> None:
        self.url, self.run_dir, self.cert = url, run_dir, cert

    def log(self) -> list[str]:
        return (self.run_dir / "access.log").read_text().splitlines()

    def upstreams(self, tag: str) -> list[str]:
        """The processes that answered the requests whose address holds ``tag``."""
        return [line.split()[-2] for line in self.log() if tag in line]


def curl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["curl", "-s", "--max-time", "20", *args], capture_output=True,
                          text=True, timeout=60, check=False)


def head(url: str, *args: str) -> tuple[str, list[tuple[str, str]]]:
    """``curl -k -sI``: the status line and the headers, names in lower case."""
    lines = curl("-k", "-I", *args, url).stdout.splitlines()
    return lines[0].strip(), [(n.strip().lower(), v.strip()) for n, _, v in
                              (line.partition(":") for line in lines[1:] if ":" in line)]


def route_cookie(headers: list[tuple[str, str]]) -> str | None:
    found = [v for n, v in headers if n == "set-cookie" and v.startswith("dpviz_route=")]
    return found[0] if found else None


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    if NO_NGINX or shutil.which("openssl") is None or shutil.which("curl") is None:
        pytest.skip(f"needs nginx, {serve.JS_PACKAGE}, openssl and curl")
    folder = tmp_path_factory.mktemp("serve")
    port = free_port()
    out = folder / "serve.log"
    with open(out, "w") as log:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "deploy" / "serve.py"), "--processes", "2",
             "--port", str(port), "--address", "127.0.0.1",
             "--first-backend-port", str(free_port()), "--tls-dir", str(folder / "tls")],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "DPVIZ_CLASS_DB": str(folder / "classes.sqlite3")})
    url = f"https://127.0.0.1:{port}"
    try:
        try:
            wait_healthy(url, process=process, seconds=180, poll=0.5)
        except RuntimeError as failed:
            raise RuntimeError(out.read_text()) from failed
        conf = re.search(r"nginx config (\S+)/nginx.conf", out.read_text())
        assert conf, out.read_text()
        yield Served(url, Path(conf.group(1)), folder / "tls" / "self-signed.crt")
    finally:
        stop(process, timeout=30)


@pytest.mark.slow
@NEEDS_CURL
def test_https_answers_with_the_headers_and_secure_cookies(served: Served) -> None:
    status, headers = head(served.url + "/gmm")
    assert status == "HTTP/2 200"
    found = dict(headers)
    for name, value in HEADERS.items():
        assert found[name] == value, name
    assert found["content-security-policy"] == serve.content_policy()
    assert "strict-transport-security" not in found  # self-signed
    assert "server" in found and found["server"] == "nginx"  # no version
    cookie = route_cookie(headers)
    assert cookie and re.fullmatch(
        r"dpviz_route=[0-9a-f]{32}\.[\w-]{43}; Path=/; Secure; HttpOnly; SameSite=Lax", cookie)
    # Streamlit's XSRF cookie gets Secure from nginx (it stays readable by the page, which
    # copies it into each upload's header)
    _, health = head(served.url + "/_stcore/health")
    xsrf = [v for n, v in health if n == "set-cookie" and v.startswith("_streamlit_xsrf=")]
    assert xsrf and "Secure" in xsrf[0].split("; ")
    # the certificate verifies against itself for localhost: TLS is nginx's own
    verified = curl("--cacert", str(served.cert), "-o", "-",
                    served.url.replace("127.0.0.1", "localhost") + "/_stcore/health")
    assert verified.returncode == 0 and verified.stdout == "ok", verified.stderr
    # static files come from nginx's copy, with the same headers
    script = re.search(r'src="\./(static/js/index\.[\w-]+\.js)"',
                       (serve.streamlit_static() / "index.html").read_text())
    assert script
    status, headers = head(f"{served.url}/{script.group(1)}")
    found = dict(headers)
    assert status == "HTTP/2 200" and found["content-type"] == "application/javascript"
    assert found["x-content-type-options"] == "nosniff"


@pytest.mark.slow
@NEEDS_CURL
def test_plain_http_is_redirected_to_https(served: Served) -> None:
    plain = served.url.replace("https:", "http:")
    status, headers = head(plain + "/gmm?gmm_k=3")
    assert status.startswith("HTTP/1.1 301")
    assert dict(headers)["location"] == served.url + "/gmm?gmm_k=3"


@pytest.mark.slow
@NEEDS_CURL
def test_a_forged_route_cookie_does_not_choose_the_process(served: Served) -> None:
    _, headers = head(served.url + "/_stcore/health?probe=issued")
    issued = route_cookie(headers)
    assert issued
    value = issued.split(";")[0].split("=", 1)[1]
    key, signature = value.split(".")
    # the cookie nginx signed keeps its browser on one process, and is not issued again
    for i in range(12):
        _, headers = head(served.url + f"/_stcore/health?probe=signed-{i}",
                          "-b", f"dpviz_route={value}")
        assert route_cookie(headers) is None
    assert len(set(served.upstreams("probe=signed-"))) == 1
    # a written value, or a well-formed key under another key's signature, counts as none:
    # each request gets a fresh key (and a new signed cookie), so the requests of one forged
    # cookie spread over both processes (all 24 on one: chance about 1e-7)
    other = f"{'0' * 31}1.{signature}"
    for name, forged in (("plain", "student-1"), ("resigned", other),
                         ("unsigned", key), ("truncated", value[:-1])):
        for i in range(24):
            _, headers = head(served.url + f"/_stcore/health?probe={name}-{i}",
                              "-b", f"dpviz_route={forged}")
            assert route_cookie(headers) is not None, name
        assert len(set(served.upstreams(f"probe={name}-"))) == 2, name


@pytest.mark.slow
@pytest.mark.browser
def test_a_page_renders_under_the_content_policy_in_chromium(served: Served) -> None:
    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium (tests/browser/install_chromium.sh)")
    from playwright.sync_api import sync_playwright

    messages: list[str] = []
    uploads: list[int] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            context = browser.new_context(ignore_https_errors=True,
                                          viewport={"width": 1500, "height": 2000})
            page = context.new_page()
            page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
            page.on("response", lambda r: uploads.append(r.status)
                    if "/_stcore/upload_file/" in r.url else None)
            page.goto(served.url + "/gmm", timeout=60_000)
            page.wait_for_selector('.stApp[data-test-script-state="notRunning"]',
                                   timeout=120_000)
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
            page.screenshot(path="/tmp/serve_https.png")
            assert page.locator('[data-testid="stException"]').count() == 0
            cookies = {c["name"]: c for c in context.cookies()}
            key = cookies["dpviz_route"]["value"].split(".")[0]
            assert cookies["dpviz_route"]["secure"] and cookies["dpviz_route"]["httpOnly"]
            assert cookies["_streamlit_xsrf"]["secure"]
            # an upload reaches the process that holds the session, with the XSRF token
            page.goto(served.url + "/gmm?gmm_source=csv", timeout=60_000)
            page.wait_for_selector('[data-testid="stFileUploader"] input[type="file"]',
                                   state="attached", timeout=120_000)
            rows = "\n".join(f"{i % 3 * 3 + i % 10 / 10},{i % 3 * 2 + i * 3 % 10 / 10}"
                             for i in range(300))
            page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
                {"name": "hall.csv", "mimeType": "text/csv",
                 "buffer": f"a,b\n{rows}\n".encode()})
            deadline = time.monotonic() + 60
            while not uploads and time.monotonic() < deadline:
                page.wait_for_timeout(200)
        finally:
            browser.close()
    assert uploads == [204]
    blocked = [m for m in messages if "Content Security Policy" in m or "pageerror" in m]
    assert blocked == []
    # every request of the browser's key went to one process, its websocket's too (nginx
    # answered the static files itself: no process, "-")
    mine = [line.split()[-2] for line in served.log() if line.endswith(key)]
    mine = [process for process in mine if process != "-"]
    assert any("/_stcore/stream" in line for line in served.log() if line.endswith(key))
    assert len(set(mine)) == 1


@pytest.mark.slow
@NEEDS_CURL
def test_a_burst_of_new_sessions_beyond_a_hall_is_refused(served: Served) -> None:
    # 300 new websockets at once pass (a hall of 300 behind one address), the next are
    # refused with 429 until the bucket refills (300 a minute). A plain GET of the
    # websocket's address counts as an attempt; Streamlit answers it with its page.
    attempts = 340
    args = [a for _ in range(attempts) for a in ("-o", "/dev/null", served.url +
                                                 "/_stcore/stream")]
    codes = curl("-k", "--max-time", "60", "-w", "%{http_code}\n", *args).stdout.split()
    assert len(codes) == attempts
    assert set(codes) <= {"200", "429"}
    # the hall's 300 (less the few sessions the tests before opened, plus the few that refill
    # while the burst runs), and the rest refused
    assert 295 <= codes.count("200") <= 320
    assert codes.count("429") >= 20
