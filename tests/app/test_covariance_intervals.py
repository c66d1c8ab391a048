"""/covariance's intervals: GaussCov's eigenvalues as "5.31 ± 0.42 (90 %)" and as bars, its
matrix entries as a table (small d) or their widths in a sentence; the estimators without a
measured interval say why in the engine's words (issue 32 item 3)."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from dpviz.estimators.registry import TASKS
from dpviz.lab.intervals import NO_ENTRY_INTERVAL, NO_INTERVAL

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
    line = next(c for c in captions
                if c.startswith(f"{NO_INTERVAL.capitalize()} (SeparateCov"))
    assert "separate" not in line  # the label, never the registry key
    # d = 50: the entries' widths in a sentence, SeparateCov's entries with the engine's reason
    entries = next(c for c in captions if c.startswith("GaussCov's 1,275 entries on and above"))
    assert re.search(r"each is its released value ± \d\.\d+(e-\d+)? \(90 %\)\.", entries)
    assert "each entry of the clipped rows' second moment" in entries
    separate = TASKS["covariance"]["separate"].label.split(" (")[0]
    said = f"{NO_INTERVAL.capitalize()} ({separate}'s entries: {NO_ENTRY_INTERVAL['separate']})."
    assert said in captions
    assert not any("entry" in d.value.columns for d in at.dataframe)

def test_a_small_gausscov_shows_its_entries_in_a_table():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.query_params.update({"cov_estimator": "gauss", "cov_d": "3", "cov_n": "2000"})
    at.switch_page("pages/covariance.py").run()
    assert not at.exception and not errors(at)
    table = next(d.value for d in at.dataframe if "entry" in d.value.columns)
    assert list(table.columns) == ["entry", "GaussCov"]
    assert table["entry"].tolist() == ["x1, x1", "x1, x2", "x1, x3", "x2, x2", "x2, x3",
                                       "x3, x3"]
    assert all(INTERVAL.match(cell) for cell in table["GaussCov"])
    assert any(c.value.startswith("Each ± is a 90 % interval") and "one at a time" in c.value
               for c in at.caption)
