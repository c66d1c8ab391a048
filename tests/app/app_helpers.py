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
