"""/covariance's intervals: GaussCov's eigenvalues as "5.31 ± 0.42 (90 %)" and as bars; the
estimators and entries without a measured interval say so in one line (issue 32 item 3)."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from dpviz.estimators.registry import TASKS
from dpviz.lab.intervals import NO_INTERVAL

from .app_helpers import ROOT, TIMEOUT, charts, errors, values

INTERVAL = re.compile(r"^-?\d+\.\d+ ± \d+\.\d+ \(90 %\)$")


def test_gausscov_eigenvalues_have_intervals_and_separatecov_says_none():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.query_params["cov_estimators"] = [TASKS["covariance"][n].label  # a link: one run
                                         for n in ("gauss", "separate")]
    at.switch_page("pages/covariance.py").run()
    assert not at.exception and not errors(at)
    table = next(d.value for d in at.dataframe if "eigenvalue" in d.value.columns)
    assert list(table.columns) == ["eigenvalue", "GaussCov"]
    assert len(table) == 50 and all(INTERVAL.match(cell) for cell in table["GaussCov"])
    traces = {t["name"]: t for t in charts(at)["cov_spectra"]["data"]}
    assert len(values(traces["GaussCov"]["error_y"]["array"])) == 50
    assert "error_y" not in traces["SeparateCov"]
    captions = [c.value for c in at.caption]
    assert any("every eigenvalue of the clipped rows' second moment" in c for c in captions)
    line = next(c for c in captions if c.startswith(f"{NO_INTERVAL} (SeparateCov"))
    assert f"The matrix entries: {NO_INTERVAL}" in line
    assert "separate" not in line  # the label, never the registry key
