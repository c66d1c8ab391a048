"""No internal id on the explorer or the compare view: every rendered string is grepped.

Estimator keys (``dp_em``), metric keys (``mean_error``, ``nicv``), summary columns
(``success_rate``) and task keys (``gmm``) belong in exported files and specs, never in the
words, labels, options, tables or charts a user reads (issue 20).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from google.protobuf.json_format import MessageToDict

from dpviz.estimators.metrics import METRICS
from dpviz.estimators.registry import TASKS

from .app_helpers import open_page, open_section

#: Keys that are also plain English words (a label may say "separate" or "mean").
WORDS = {"mean", "covariance", "laplace", "gaussian", "gauss", "separate", "adaptive", "zero",
         "spectral", "projection", "exponential", "overlap", "stability", "seconds", "runs"}
IDS = sorted(({*TASKS, *(n for t in TASKS.values() for n in t),
               *(m for t in METRICS.values() for m in t),
               "success_rate", "seconds", "succeeded", "data_seed"} - WORDS), key=len,
             reverse=True)
PATTERN = re.compile(r"(?<![\w./-])(" + "|".join(map(re.escape, IDS)) + r")(?![\w-])")
#: Proto fields whose strings are shown (labels, help, options, bodies, values).
SHOWN = {"label", "help", "body", "options", "value", "text", "placeholder", "caption",
         "formattedOptions", "defaultValue"}
#: Plotly keys whose strings are drawn (titles, names, hover, category and tick labels).
DRAWN = {"text", "name", "hovertemplate", "ticktext", "categoryarray", "y", "x"}


def _strings(value: Any, keys: set[str], inside: bool = False) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, keys, inside or key in keys)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, keys, inside)
    elif isinstance(value, str) and inside:
        yield value


def rendered(node: Any) -> Iterator[str]:
    """Every string a user can read under ``node`` (an AppTest block or element)."""
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "expandable"):
            yield proto.expandable.label
        for child in children.values():
            yield from rendered(child)
        return
    proto = getattr(node, "proto", None)
    if proto is None:
        return
    if node.type == "plotly_chart":
        yield from _strings(json.loads(proto.spec), DRAWN)
        return
    if node.type in ("arrow_data_frame", "dataframe"):
        frame: pd.DataFrame = node.value
        yield from map(str, frame.columns)
        for column in frame.columns:
            if frame[column].dtype == object:
                yield from map(str, frame[column])
        return
    yield from _strings(MessageToDict(proto), SHOWN)


def internal_ids(node: Any) -> list[tuple[str, str]]:
    return [(m.group(1), text[:120]) for text in rendered(node)
            for m in PATTERN.finditer(text)]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_the_grep_finds_an_id_when_there_is_one():
    assert PATTERN.search("the dp_em run") and PATTERN.search("nicv")
    assert PATTERN.search("gmm") and not PATTERN.search("DP-EM, PPE, NICV, /gmm page")


def test_no_internal_id_on_the_explorer_before_and_after_a_sweep(cache_dir):
    at = open_page("explorer")
    at.multiselect(key="explorer_gmm_estimators").set_value(
        ["dp_em", "dplloyd", "ppe"]).run()
    at.text_input(key="explorer_gmm_epsilon_values").set_value("0.5, 4").run()
    at.number_input(key="explorer_gmm_data_n").set_value(1000).run()
    at.number_input(key="explorer_repeats").set_value(2).run()
    at.radio(key="explorer_jobs").set_value(1).run()
    assert not at.exception and not internal_ids(at.main), internal_ids(at.main)
    at.button(key="explorer_run").click().run()
    assert not at.exception and at.get("plotly_chart")
    texts = list(rendered(at.main))  # the walk reads options, chart traces and table columns
    assert {"DP-EM", "Estimator", "10th percentile"} <= set(texts)
    assert any(t.startswith("error of the means") for t in texts)
    assert not internal_ids(at.main), internal_ids(at.main)
    for task in ("covariance", "sbm", "mean"):
        at.selectbox(key="explorer_task").set_value(task).run()
        assert not at.exception and not internal_ids(at.main), (task, internal_ids(at.main))


def test_no_internal_id_on_the_compare_view_after_a_run(cache_dir):
    at = open_page("gmm")  # not every estimator: some preconditions solve accounting cold
    at.session_state["gmm_compare_estimators"] = ["dp_em", "dplloyd", "em", "ppe"]
    open_section(at, "gmm_compare_open")
    at.number_input(key="gmm_compare_repeats").set_value(2).run()
    assert "PPE" in next(i.value for i in at.info if "Left out" in i.value)
    at.checkbox(key="gmm_compare_anyway").check().run()  # its failures' table is read too
    at.button(key="gmm_compare_run").click().run()
    assert not at.exception, at.exception
    view = next(e for e in at.expander if e.label.startswith("Compare every estimator"))
    assert "DP-EM" in set(rendered(view))  # the chart's bars and the table are read
    for measure in ("nicv", "success_rate"):
        assert not internal_ids(view), internal_ids(view)
        at.selectbox(key="gmm_compare_measure").set_value(measure).run()
        view = next(e for e in at.expander if e.label.startswith("Compare every estimator"))
