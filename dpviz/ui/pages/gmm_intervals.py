"""The mixtures page's uncertainty: the expected accuracy box and the released model's intervals."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpviz.estimators.metrics import Truth, match_components
from dpviz.estimators.result import Result
from dpviz.lab import intervals
from dpviz.lab.scenario import Scenario
from dpviz.ui import runs
from dpviz.ui.pages.gmm_runs import DASH
from dpviz.ui.widgets import (
    as_sentence,
    escape_markdown,
)


def expected_box(scenario: Scenario, result: Result, sizes: tuple[int, int]) -> None:
    """The run's predicted error with its spread, above the figure.

    :func:`dpviz.lab.expectation.for_run` (``sizes``: a table's n and d; private ranges as
    ``result`` released them): public inputs only, or for grid means also its own release
    where that says more (post-processing), with a progress bar while it is simulated (kept
    per shape, and per release in the session); a warning when it is large, with the n or ε
    that would do. Nothing for a non-private run, a bundled set or a bound read from the
    data; nor for generated data, whose error the page measures against the true means on
    every run (16 more runs on each ε move would cost the page seconds and tell no more).
    """
    if "upload" not in scenario.data:
        return
    found = runs.expected_of(scenario, result, sizes, "the error")
    if found is None:
        return
    said = found.sentence("the means")
    if found.large:
        st.warning(said, icon=":material/speed:")
    elif found.basis == "release":
        st.caption(said)
    else:
        st.caption(said + " Only public inputs go in: n, d, k, the bound, ε, δ and the "
                   "estimator's parameters.")


@st.cache_data(max_entries=16, show_spinner="Computing the intervals from the released model…")
def _intervals(scenario: str, released: bytes, n: int, _result: Result) -> intervals.Intervals:
    """Cached on the scenario and the released values (``_result`` is not hashed)."""
    return intervals.intervals(Scenario.from_dict(json.loads(scenario)), _result, n)


def intervals_of(scenario: Scenario, result: Result, n: int) -> intervals.Intervals:
    """The run's intervals (post-processing: nothing charged), computed once per release."""
    released = b"".join(np.asarray(result.estimate[key], dtype=float).tobytes()
                        for key in ("weights", "means", "covariances")
                        if result.estimate.get(key) is not None)
    return _intervals(runs.canonical(scenario.to_dict()), released, int(n), result)


def interval_order(truth: Truth, result: Result) -> NDArray[np.intp]:
    """The released components in the order the page draws them (matched to ``truth``)."""
    assert truth.means is not None
    order = match_components(truth.means, np.asarray(result.estimate["means"], dtype=float))
    return order[order >= 0]


def interval_table(found: intervals.Intervals, order: Sequence[int],
                   names: Sequence[str]) -> pd.DataFrame:
    """One row per component (drawn order): its weight and mean as "5.31 ± 0.42 (90 %)".

    Examples
    --------
    >>> found = intervals.Intervals("bootstrap", (
    ...     intervals.Interval("weights[1]", 0.5, 0.02),
    ...     intervals.Interval("weights[2]", 0.5, 0.02),
    ...     intervals.Interval("means[1][1]", 5.3128, 0.4172),
    ...     intervals.Interval("means[2][1]", -1.0, 0.1)))
    >>> interval_table(found, [1, 0], ["x1"]).iloc[1].tolist()
    ['2', '0.500 ± 0.020 (90 %)', '5.31 ± 0.42 (90 %)']
    """
    named = found.by_name()
    out = []
    for shown, j in enumerate(order):
        row = {"component": str(shown + 1)}
        weight = named.get(f"weights[{j + 1}]")
        row["weight"] = DASH if weight is None else weight.text()
        for i, name in enumerate(names):
            mean = named.get(f"means[{j + 1}][{i + 1}]")
            row[f"mean, {name}"] = DASH if mean is None else mean.text()
        out.append(row)
    return pd.DataFrame(out)


def interval_section(found: intervals.Intervals, order: Sequence[int],
                     names: Sequence[str]) -> None:
    """The private estimates with their intervals and the sentence on what they cover."""
    st.subheader("The private estimates, with their intervals")
    if found.shown:
        st.dataframe(interval_table(found, order, names), hide_index=True,
                     key="gmm_intervals")
    st.caption(escape_markdown(as_sentence(found.sentence())))
