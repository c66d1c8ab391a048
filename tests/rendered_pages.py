"""Every page rendered once at its defaults (AppTest), shared by the tests that read them.

Rendering a page takes seconds, so :func:`render` keeps each page's AppTest for the test
session: the risk-panel tests (tests/test_risk_pages.py) and the page-words test
(tests/test_page_words.py) read the same renders.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120
#: Every page: Home (``app.py``) and each file of ``pages/``, by name.
PAGES = ("home", *sorted(p.stem for p in (ROOT / "pages").glob("*.py")))
#: Element kinds whose words a user reads, and the fields that hold them.
KINDS = ("markdown", "caption", "info", "warning", "error", "success", "exception", "subheader",
         "header", "title", "latex", "metric", "expander", "tabs", "tab", "toggle", "button",
         "slider", "select_slider", "number_input", "selectbox", "multiselect", "radio",
         "text_input", "text_area", "checkbox", "download_button", "page_link", "text")
FIELDS = ("body", "label", "value", "help", "placeholder", "caption")


@functools.cache
def render(page: str) -> AppTest:
    """``page`` ("home" or a file name of ``pages/`` without ``.py``) run at its defaults."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    if page != "home":
        at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, f"{page}: {at.exception}"
    return at


def _strings(value: object) -> list[str]:
    return [value] if isinstance(value, str) and value else []


def words(at: AppTest) -> list[str]:
    """Every piece of text the page shows: bodies, labels, help texts, options, tables."""
    out: list[str] = []
    for kind in KINDS:
        for element in at.get(kind):
            proto = element.proto
            for name in FIELDS:
                out.extend(_strings(getattr(proto, name, None)))
            out.extend(str(option) for option in getattr(proto, "options", ()))
    for table in at.get("dataframe"):
        frame = table.value
        if isinstance(frame, pd.DataFrame):
            out.extend(str(c) for c in frame.columns)
            out.extend(v for v in frame.astype(str).to_numpy().ravel().tolist())
    return out
