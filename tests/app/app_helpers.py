"""AppTest helpers: open a page the way a browser would, and read its figures back."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60


def open_page(page: str | None = None) -> AppTest:
    """Run Home, then switch to ``pages/<page>.py`` (a page opened alone has no Home)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    if page is not None:
        at.switch_page(f"pages/{page}.py").run()
    return at


def open_section(at: AppTest, key: str) -> AppTest:
    """Open a :func:`dpviz.ui.lazy_expander` (its body runs only while open) and rerun."""
    at.session_state[key] = True
    return at.run()


def charts(at: AppTest) -> dict[str, dict[str, Any]]:
    """The page's plotly figures by chart key."""
    out = {}
    for chart in at.get("plotly_chart"):
        key = chart.proto.id.rsplit("-", 1)[-1]
        out[key] = json.loads(chart.proto.spec)
    return out


def values(data: Any) -> np.ndarray:
    """A trace's x, y or z as an array (Plotly writes numpy arrays as base64 ``bdata``, with a
    matrix's shape as a string such as ``"300, 300"``)."""
    if isinstance(data, dict) and "bdata" in data:
        array = np.frombuffer(base64.b64decode(data["bdata"]), dtype=np.dtype(data["dtype"]))
        if "shape" not in data:
            return array
        return array.reshape([int(s) for s in str(data["shape"]).split(",")])
    return np.asarray(data)


def errors(at: AppTest) -> list[str]:
    """The text of every ``st.error`` on the page."""
    return [e.value for e in at.error]


def petals_csv() -> bytes:
    """The issue's 150-row table in cm (two petal columns, three groups), as an upload's bytes."""
    from dpviz.lab.expectation import issue_tables

    rows, _ = issue_tables()["petals"]
    return ("petal length (cm),petal width (cm)\n"
            + "\n".join(f"{a:g},{b:g}" for a, b in rows)).encode()


def upload_petals(at: AppTest, prefix: str) -> AppTest:
    """Upload :func:`petals_csv` on the page whose keys start with ``prefix`` (gmm, cov)."""
    at.selectbox(key=f"{prefix}_source").set_value("csv").run()
    at.file_uploader(key=f"{prefix}_upload").set_value(
        ("petals.csv", petals_csv(), "text/csv")).run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    return at


def said(at: AppTest) -> str:
    """Every caption, warning and info on the page, as one string."""
    return " ".join(str(e.value) for e in [*at.caption, *at.warning, *at.info])
