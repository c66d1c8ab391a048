"""``make serve``'s nginx configuration (deploy/): sticky on a cookie, websockets through."""

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("serve", ROOT / "deploy" / "serve.py")
assert spec is not None and spec.loader is not None
serve = importlib.util.module_from_spec(spec)
spec.loader.exec_module(serve)


def rendered(tmp_path: Path, backends: list[str]) -> str:
    return serve.render(serve.TEMPLATE.read_text(encoding="utf-8"), listen="127.0.0.1:8500",
                        backends=backends, run_dir=tmp_path)


def test_every_backend_is_an_upstream_hashed_on_the_route_cookie(tmp_path: Path) -> None:
    conf = rendered(tmp_path, ["127.0.0.1:8501", "127.0.0.1:8502", "10.0.0.7:8501"])
    assert not re.findall(r"@[A-Z_]+@", conf)  # every placeholder filled
    upstream = conf.split("upstream dpviz {")[1].split("}")[0]
    assert "hash $route consistent;" in upstream
    assert [line.split()[1] for line in upstream.splitlines() if "server " in line] == \
        ["127.0.0.1:8501", "127.0.0.1:8502", "10.0.0.7:8501"]
    for line in ("proxy_http_version 1.1;", "proxy_set_header Upgrade $http_upgrade;",
                 "proxy_set_header Connection $connection_upgrade;", "proxy_read_timeout 1d;"):
        assert line in conf
    assert str(tmp_path / "nginx.pid") in conf


def test_no_backends_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="processes must be ≥ 1, got 0"):
        rendered(tmp_path, [])


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")
def test_nginx_accepts_the_rendered_configuration() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "deploy" / "serve.py"), "--processes",
                           "3", "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
