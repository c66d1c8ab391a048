"""Widgets and sentences of the Privacy lens page."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpviz.core import limits
from dpviz.data import as_matrix
from dpviz.lab import intervals
from dpviz.lab.lens import (
    DEFAULT_NEW_VALUE,
    DEFAULT_RANGE,
    DEFAULT_ROW,
    DEFAULT_THRESHOLD,
    DEFAULT_VALUES,
    QUERIES,
    LensView,
)
from dpviz.privacy import AuditResult
from dpviz.ui.widgets import (
    advanced,
    attempt,
    delta_input,
    epsilon_slider,
    escape_markdown,
    method_select,
)

QUERY_CAPTIONS = ("how many values are ≥ the threshold", "sum of the values clipped to [lo, hi]",
                  "mean of the values clipped to [lo, hi]")
MECHANISMS = ("Laplace", "Gaussian")
TRIALS = (20_000, 50_000, 100_000, 200_000)
VERSION_KEY = "lens_table_version"


@dataclass(frozen=True)
class LensSettings:
    """Everything the lens page asked for (plain values: the cache keys)."""

    values: tuple[float, ...]
    row: int
    new_value: float
    query: str
    mechanism: str
    epsilon: float
    delta: float
    method: str
    lo: float
    hi: float
    threshold: float
    trials: int

    def engine_args(self) -> dict[str, Any]:
        """Keyword arguments of :func:`dpviz.ui.cached.lens_view`."""
        out = asdict(self)
        out.pop("trials")
        return out


def format_values(values: Sequence[float]) -> str:
    """The dataset as the link's text: ``"0, 0.35, nan"``.

    Examples
    --------
    >>> format_values([0.0, 0.35, float("nan")])
    '0, 0.35, nan'
    """
    return ", ".join(f"{v:.12g}" for v in values)


def apply_edits(base: Sequence[float], edits: Mapping[str, Any]) -> list[float]:
    """The table after ``st.data_editor``'s edit state (edited, added, deleted rows).

    Examples
    --------
    >>> apply_edits([1.0, 2.0, 3.0], {"edited_rows": {0: {"value": 9.0}},
    ...                              "added_rows": [{"value": 4.0}], "deleted_rows": [1]})
    [9.0, 3.0, 4.0]
    """
    rows = [float(v) for v in base]
    for position, change in (edits.get("edited_rows") or {}).items():
        index = int(position)
        if 0 <= index < len(rows) and "value" in change:
            rows[index] = math.nan if change["value"] is None else float(change["value"])
    deleted = {int(i) for i in edits.get("deleted_rows") or []}
    rows = [v for i, v in enumerate(rows) if i not in deleted]
    for added in edits.get("added_rows") or []:
        value = added.get("value")
        rows.append(math.nan if value is None else float(value))
    return rows


def _sync_table(key: str, base: tuple[float, ...]) -> None:
    """Write the edited table into the link's text and start a fresh editor on it."""
    values = apply_edits(base, st.session_state[key])
    st.session_state["lens_values"] = format_values(values)
    st.session_state[VERSION_KEY] = st.session_state.get(VERSION_KEY, 0) + 1


def dataset_editor() -> tuple[float, ...]:
    """The dataset D: a text field (part of the link) and an editable table of it."""
    text = st.text_input("Dataset D (comma-separated values; kept in the link)",
                         format_values(DEFAULT_VALUES), key="lens_values",
                         bind="query-params")
    cells = [cell.strip() for cell in text.split(",") if cell.strip()]
    base = attempt(as_matrix, cells, min_rows=1, name="the dataset")[:, 0]
    version = st.session_state.setdefault(VERSION_KEY, 0)
    key = f"lens_table_{version}"
    table = st.data_editor(
        pd.DataFrame({"value": base}), key=key, num_rows="dynamic",
        on_change=_sync_table, args=(key, tuple(float(v) for v in base)),
        column_config={"value": st.column_config.NumberColumn("value", format="%.4g")},
        width="stretch")
    return tuple(float(v) for v in pd.to_numeric(table["value"], errors="coerce"))


def controls() -> LensSettings:
    """All the lens's widgets, in reading order."""
    values = dataset_editor()
    a, b = st.columns(2)
    row = a.number_input("Row replaced in D′", min_value=0, value=DEFAULT_ROW, step=1,
                         format="%d", key="lens_row", bind="query-params",
                         help="The neighbour D′ is D with this row (numbered from 0) replaced.")
    new_value = b.number_input("New value in D′", value=DEFAULT_NEW_VALUE, step=0.1,
                               key="lens_new", bind="query-params")
    query = st.radio("Query", QUERIES, captions=QUERY_CAPTIONS, key="lens_query",
                     horizontal=True, index=QUERIES.index("mean"), bind="query-params")
    a, b, c = st.columns(3)
    lo = a.number_input("Public lo", value=DEFAULT_RANGE[0], step=0.1, key="lens_lo",
                        bind="query-params")
    hi = b.number_input("Public hi", value=DEFAULT_RANGE[1], step=0.1, key="lens_hi",
                        bind="query-params")
    threshold = c.number_input("Threshold", value=DEFAULT_THRESHOLD, step=0.1,
                               key="lens_threshold", bind="query-params",
                               disabled=query != "count",
                               help="The count query counts values ≥ this.")
    mechanism = st.radio("Mechanism", MECHANISMS, key="lens_mechanism", horizontal=True,
                         bind="query-params")
    epsilon = epsilon_slider("lens_epsilon", label="ε")
    delta = delta_input("lens_delta", label="δ")
    with advanced("Accounting and audit", "lens"):
        method = method_select("lens_accounting", value="linear")
        trials = st.select_slider(
            "Audit runs per dataset", TRIALS, value=100_000, key="lens_trials",
            bind="query-params",
            help=f"More runs tighten the interval (the engine takes "
                 f"{int(limits.AUDIT_TRIALS.low):,} to {int(limits.AUDIT_TRIALS.high):,}).")
    return LensSettings(values, int(row), float(new_value), str(query),
                        str(mechanism).lower(), epsilon, delta, method, float(lo), float(hi),
                        float(threshold), int(trials))


def metrics(view: LensView, seed: int | None, *, noise_shown: bool = True) -> None:
    """The numbers behind the figures, in one row of metrics (``seed`` None: secure mode).

    ``noise_shown`` False hides the noise scale (predict mode asks for it).
    """
    columns = st.columns(5)
    columns[0].metric("Answer on D", f"{view.answer_d:.4g}")
    columns[1].metric("Answer on D′", f"{view.answer_d_prime:.4g}",
                      delta=f"{view.answer_d_prime - view.answer_d:+.4g}", delta_color="off")
    columns[2].metric("Sensitivity", f"{view.sensitivity:.4g}",
                      help="Δ: the most one replaced row can move the answer (public).")
    columns[3].metric("Noise", f"{view.allocation.scale:.4g}" if noise_shown else "?",
                      help="Laplace b or Gaussian σ, from the budget solver."
                           + ("" if noise_shown else " Hidden until you reveal your guess."))
    columns[4].metric("Released", f"{view.released:.4g}",
                      help=(f"One release drawn on D with seed {seed} (teaching randomness: "
                            "the noise can be recomputed from it)." if seed is not None else
                            "One private release drawn on D from cryptographic bits, by the "
                            "exact discrete sampler on a fine grid (float-safe)."))
    if noise_shown:  # the interval's width gives the noise away
        st.caption(escape_markdown(interval_line(view)))


def interval_line(view: LensView) -> str:
    """The released mean's 90 % interval and what it covers; count and sum say why none."""
    if view.result is None:
        return intervals.none("measured for the mean query only").sentence()
    found = intervals.mean_intervals(view.result)
    if not found.shown:
        return found.sentence()
    return f"Released: {found.rows[0].text()}. {found.sentence()}"


def loss_caption(view: LensView, epsilon: float, delta: float) -> str:
    """What the privacy-loss chart says, in a sentence or two."""
    if not np.isfinite(view.privacy_loss).any():
        return "No noise: the outputs on D and D′ differ with certainty."
    if view.mechanism == "laplace":
        bound = view.sensitivity / view.allocation.scale
        return (f"Laplace: the privacy loss never leaves ±Δ/b = ±{bound:.4g}, whatever the "
                "output — pure DP. (Accounting other than linear may spend a little of δ to "
                "give Laplace slightly less noise.)")
    return (f"Gaussian: the loss is unbounded; it exceeds ε with probability "
            f"{view.loss_exceeds_epsilon:.2e} under D (shaded outputs). δ = {delta:.1e} "
            f"bounds what those outputs reveal beyond the factor eᵋ.")


def verdict(result: AuditResult) -> None:
    """The audit's verdict sentence, green when consistent with the claim."""
    sentence = (f"{result.verdict()[0].upper()}{result.verdict()[1:]} — {result.trials:,} runs "
                f"on each dataset, rejection set output {result.direction} "
                f"{result.threshold:.4g}.")
    if result.passed:
        st.success(sentence, icon=":material/verified:")
    else:
        st.error(sentence, icon=":material/gpp_bad:")
    st.caption("An audit can only show a lower bound: a correct mechanism's interval sits at "
               "or below the claimed ε, and the bound approaches it only with the worst-case "
               "neighbour and many runs.")
