"""/gmm's intervals: the private estimates as "5.31 ± 0.42 (90 %)", the ellipses, the sentence;
another estimator says why it has none, in the engine's words."""

from __future__ import annotations

import re

from dpviz.estimators.registry import TASKS
from dpviz.lab.intervals import NO_INTERVAL, NO_MIXTURE_INTERVAL

from .app_helpers import charts, errors, open_page

INTERVAL = re.compile(r"^-?\d+\.\d+ ± \d+\.\d+ \(90 %\)$")


def test_defaults_show_intervals_on_the_private_means():
    at = open_page("gmm")
    assert not at.exception and not errors(at)
    table = next(d.value for d in at.dataframe if "weight" in d.value.columns
                 and "component" in d.value.columns)
    assert list(table.columns) == ["component", "weight", "mean, x1", "mean, x2"]
    assert all(INTERVAL.match(cell) for cell in table[["weight", "mean, x1", "mean, x2"]]
               .to_numpy().ravel())
    said = [c.value for c in at.caption if "costs no privacy" in c.value]
    assert said and "not the bias of a bound that clips" in said[0]
    names = [t["name"] for t in charts(at)["gmm_figure"]["data"]]
    assert names[-1] == "90 % intervals of the private means"


def test_an_unmeasured_shape_says_no_interval():
    at = open_page("gmm")
    at.number_input(key="gmm_k").set_value(4).run()
    assert not at.exception and not errors(at)
    assert any(c.value.startswith(NO_INTERVAL.capitalize()) for c in at.caption)
    assert "90 % intervals of the private means" not in [
        t["name"] for t in charts(at)["gmm_figure"]["data"]]


def test_another_estimator_says_why_it_has_no_interval():
    at = open_page("gmm")
    at.selectbox(key="gmm_estimator").set_value("dplloyd").run()
    assert not at.exception and not errors(at)
    label = TASKS["gmm"]["dplloyd"].label.split(" (")[0]  # without its bracketed aside
    said = [c.value for c in at.caption if c.value.startswith(NO_INTERVAL.capitalize())]
    assert said == [f"{NO_INTERVAL.capitalize()} ({label}: {NO_MIXTURE_INTERVAL['dplloyd']})."]
    assert not any("component" in d.value.columns and "weight" in d.value.columns
                   for d in at.dataframe)
