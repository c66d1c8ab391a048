"""``streamlit run`` for the browser tests, with uploads' expected errors predicted from 2 runs.

The first upload of each public shape otherwise runs the full prediction (32 runs and a
search, 10–25 s of CPU) inside the server; no browser test reads its figures, and
tests/test_expectation.py and the tests marked ``predictions`` check them. Usage: ``python
tests/browser/small_server.py ARGS`` with the arguments of ``streamlit run``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS.parent), str(TESTS)]  # the project (dpviz) and tests/predicting.py
from predicting import small_predictions  # noqa: E402  (tests/ is not a package)
from streamlit.web import cli  # noqa: E402

if __name__ == "__main__":
    small_predictions(pytest.MonkeyPatch())
    sys.exit(cli.main(args=sys.argv[1:], prog_name="streamlit"))
