"""An upload is never a path (issue 23, S1), in a real browser against ``streamlit run``.

A valid file uploaded under the name of a server file — ``requirements.txt``, a server CSV's
relative path, a ``../`` path, the absolute path of a file holding a secret — makes, on
"Prepare card", a card of the uploaded bytes: the card's data block is the upload's name and
hash, its numbers replay from the uploaded bytes, and nothing of the server file (its content,
hash or statistics) appears on the page or anywhere in the card zip. (/gmm's uploader takes
``.csv`` names only, so ``requirements.txt`` and ``../app.py`` are refused there before any
card; /sbm's takes ``.txt`` too.)
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from dpviz.data import read_csv, sha256
from dpviz.lab import card as cards

from .browser_helpers import open_page, problems, screenshot, settle

ROOT = Path(__file__).resolve().parents[2]
MARKER = "secretmarker7c1e"


def csv_bytes(seed: int, header: str = "x,y,z") -> bytes:
    rows = np.random.default_rng(seed).normal(size=(300, 3)) + np.repeat(
        np.array([[0.0, 0.0, 0.0], [4.0, 4.0, 4.0], [-4.0, 4.0, 0.0]]), 100, axis=0)
    return (header + "\n" + "".join(",".join(f"{v:.6f}" for v in row) + "\n"
                                    for row in rows)).encode()


SERVER_CSV = "assets/results/gmm_mean_errors.csv"  # relative to the server's folder


@pytest.fixture
def server_secret(tmp_path_factory) -> Path:
    """A valid CSV on the server with a secret header line, named by its absolute path."""
    path = tmp_path_factory.mktemp("server") / "private.csv"
    path.write_bytes(csv_bytes(99, header=f"{MARKER},b,c"))
    return path


def open_upload(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('[data-testid="stFileUploader"]')
    settle(page)


def forbidden(path: Path) -> list[str]:
    """What must not appear if the server file was read: its marker, content, hash, means."""
    raw = path.read_bytes()
    lines = raw.decode().splitlines()
    try:
        means = [f"{m:.4f}" for m in read_csv(raw).mean(axis=0)]
    except ValueError:  # a table with text columns: no column means to leak
        means = []
    return [sha256(raw), sha256(raw)[:12], lines[0], lines[1], *means]


def upload(page, name: str, content: bytes, mime: str = "text/csv") -> None:
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": name, "mimeType": mime, "buffer": content})
    settle(page)


def prepare_card(page) -> dict[str, bytes]:
    """Press "Prepare card", download the zip through the browser, return its files."""
    page.get_by_role("button", name="Prepare card").click()
    download_button = page.get_by_role("button", name="Download the card (zip)")
    download_button.wait_for(timeout=120_000)
    settle(page)
    with page.expect_download(timeout=60_000) as info:
        download_button.click()
    content = Path(info.value.path()).read_bytes()
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def check_no_leak(page, files: dict[str, bytes], bad: list[str]) -> None:
    shown = page.content()
    everything = b"\n".join(files.values()).decode(errors="replace")
    for item in bad:
        assert item not in shown, item
        assert item not in everything, item


@pytest.mark.parametrize("name", ["requirements.txt", "../app.py"])
def test_gmm_uploader_refuses_names_that_are_not_csv(page, server, name):
    open_upload(page, f"{server}/gmm?gmm_source=csv")
    upload(page, name, csv_bytes(1))
    assert "files are not allowed" in page.locator('[data-testid="stFileUploader"]').inner_text()
    assert page.get_by_role("button", name="Prepare card").count() == 0
    assert page.locator(".js-plotly-plot").count() == 0
    served = (ROOT / name.replace("../", "")).read_text().splitlines()
    assert not any(line.strip() and line in page.content() for line in served[:5])


@pytest.mark.parametrize("name", [SERVER_CSV, f"../{ROOT.name}/{SERVER_CSV}", "SERVER_FILE"])
def test_gmm_card_of_an_upload_named_like_a_server_file(page, server, name, server_secret):
    name = name.replace("SERVER_FILE", str(server_secret))
    content = csv_bytes(1)
    open_upload(page, f"{server}/gmm?gmm_source=csv&gmm_csv_k=3&seed=2")
    upload(page, name, content)
    page.wait_for_selector(".js-plotly-plot .main-svg")
    settle(page)
    assert problems(page) == []
    files = prepare_card(page)
    assert problems(page) == []
    card = json.loads(files["card.json"])
    assert card["scenario"]["data"] == {"upload": name, "sha256": sha256(content)}
    assert card["data_file"] == {"upload": name, "sha256": sha256(content)}
    # the numbers are the uploaded bytes' (they replay from them) ...
    assert cards.run_card(card, content=content).to_dict() == card["result"]
    # ... and nothing of any server file of that name is anywhere
    for server_file in (ROOT / SERVER_CSV, server_secret):
        check_no_leak(page, files, forbidden(server_file))
    assert "--data FILE" in files["README.txt"].decode()
    assert "keeps the uploaded file's name and fingerprint" in page.content()
    screenshot(page, f"security-gmm-upload-{sha256(name.encode())[:6]}")


@pytest.mark.parametrize("name", ["requirements.txt", "SERVER_FILE"])
def test_sbm_card_of_an_edge_list_named_like_a_server_file(page, server, name,
                                                           tmp_path_factory):
    secret = tmp_path_factory.mktemp("server") / "edges.txt"
    secret.write_text(f"{MARKER}_a,{MARKER}_b\n0,1\n1,2\n")
    name = name.replace("SERVER_FILE", str(secret))
    edges = np.array([(i, j) for i in range(30) for j in range(i + 1, 30)
                      if (i < 15) == (j < 15) and (i * 7 + j) % 3 == 0])
    content = "".join(f"{i},{j}\n" for i, j in edges).encode()
    open_upload(page, f"{server}/sbm?sbm_source=upload&sbm_n=30&sbm_degree=5&seed=2")
    upload(page, name, content, mime="text/plain")
    page.wait_for_selector(".js-plotly-plot .main-svg")
    settle(page)
    assert problems(page) == []
    files = prepare_card(page)
    assert problems(page) == []
    card = json.loads(files["card.json"])
    assert card["scenario"]["data"] == {"upload": name, "sha256": sha256(content), "n": 30}
    assert cards.run_card(card, content=content).to_dict() == card["result"]
    requirements = (ROOT / "requirements.txt").read_bytes()
    lines = [line for line in requirements.decode().splitlines() if line.strip()]
    check_no_leak(page, files, [sha256(requirements), *lines[:3], MARKER,
                                sha256(secret.read_bytes())])
    screenshot(page, f"security-sbm-upload-{sha256(name.encode())[:6]}")


def test_pages_ask_nothing_of_other_hosts(page, server):
    """A class's browsers talk to this server only: no font, icon or script from elsewhere
    (a material-icon favicon made every browser fetch it from Google's font servers)."""
    elsewhere: list[str] = []
    page.on("request", lambda r: elsewhere.append(r.url)
            if not r.url.startswith((server, "data:", "blob:")) else None)
    for path in ("/", "/gmm", "/sbm"):
        open_page(page, server + path)
    assert elsewhere == []
    icon = page.evaluate("() => document.querySelector('link[rel~=\"icon\"]').href")
    assert icon.startswith(f"{server}/media/")  # bytes the server sends, never a path
