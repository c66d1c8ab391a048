"""The covariance page's results: errors, expected accuracy, heatmaps, spectra, intervals, ledger.

Each panel draws the page's runs (:class:`dpviz.ui.pages.covariance.Run`); the controls and the
runs themselves are :mod:`dpviz.ui.pages.covariance`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from dpviz.estimators.covariance.emcov import DELTA_FOR_RHO
from dpviz.lab import intervals
from dpviz.lab.scenario import Scenario
from dpviz.privacy import Ledger, compose_runs
from dpviz.ui.pages.covariance import DASH, HEATMAP_BLOCK, Chosen, Run, short_label
from dpviz.ui.panels import upload
from dpviz.ui.panels.risk import budget_title, risk_panel
from dpviz.ui.runs import expected_of
from dpviz.ui.widgets import (
    as_sentence,
    choices_table,
    clamp_state,
    escape_markdown,
    show_chart,
)
from dpviz.viz import covariance as cov_viz
from dpviz.viz import ledger_bar, with_interval_bars


def _cell(value: float) -> str:
    return DASH if not math.isfinite(value) else f"{value:.3g}"


#: The error table's column of clipped rows: an exact count, shown for the lesson only.
CLIPPED = "rows clipped (not private)"


def clipped_note(clipped: int, radius: float) -> str:
    """The sentence above the figures: how many rows were clipped, labelled not private.

    Examples
    --------
    >>> clipped_note(7, 1.0)[:60]
    '7 rows had a norm above r = 1 and were clipped to it before '
    """
    return (f"{clipped:,} rows had a norm above r = {radius:g} and were clipped to it before "
            "any release. This count is not private (a teaching diagnostic): it is read "
            "exactly from the data and released with no noise.")


def spent_text(ledger: Ledger, stated_delta: float) -> str:
    """What one run spent, in ε: a ρ budget's total at the page's δ, as the budget bar says."""
    if not ledger.releases:
        return "nothing released"
    if ledger.budget is not None and ledger.budget.rho is not None and stated_delta > 0:
        return f"ε = {ledger.total(delta=stated_delta).epsilon:.3g}, δ = {stated_delta:.3g}"
    total = ledger.total()
    return f"ε = {total.epsilon:.3g}, δ = {total.delta:.3g}"


def error_table(runs: Sequence[Run], stated_delta: float = DELTA_FOR_RHO) -> pd.DataFrame:
    """One row per run: the error, its stated bound, the ε spent and rows clipped.

    ``stated_delta``: the δ at which a ρ budget's spend is stated as ε (the page's).
    """
    rows = []
    for run in runs:
        diagnostics = run.result.diagnostics
        rows.append({"estimator": run.label,
                     "error ‖Σ̃ − Σ‖ (Frobenius)": _cell(run.error),
                     "theoretical bound": _cell(float(diagnostics.get("error_bound",
                                                                      math.nan))),
                     "spent": spent_text(run.result.ledger, stated_delta),
                     CLIPPED: int(diagnostics.get("rows_clipped", 0))})
    return pd.DataFrame(rows)


#: The stakeholder report's sentence under the error table.
ERRORS_NOTE = ("Error: the Frobenius distance between the private and the true matrix of the "
               "unclipped rows, in the data's squared units; bound: the paper's "
               "high-probability bound at this budget.")


def expected_panel(runs: Sequence[Run], scenarios: Sequence[Scenario],
                   sizes: tuple[int, int]) -> list[str]:
    """Each private run's predicted error on an upload, above the figures.

    :func:`dpviz.ui.runs.expected_of` on each run (``sizes``: the table's n and d; private
    ranges as the run released them): public inputs, and for EMCov and AdaptiveCov their own
    release where that says more, with a progress bar while it is simulated, after a warning
    when most rows were clipped (the prediction leaves their bias out): a warning for each
    prediction that is large, with the n or the budget that would do, and one caption for the
    others. Nothing for generated data or the digits (the page measures every run against the
    true matrix), nor for a run that released nothing, gave no answer or read its bound from
    the data. Returns the sentences said (the stakeholder report prints them).
    """
    if "upload" not in scenarios[0].data:
        return []
    clipped = max(int(run.result.diagnostics.get("rows_clipped", 0)) for run in runs)
    problems = upload.bound_problems({"clipped_rows": {"count": clipped, "of": sizes[0]}},
                                     np.empty((0, sizes[1])), ("",) * sizes[1])
    for problem in problems:  # the prediction leaves the clipping's bias out: say it first
        st.warning(f"{escape_markdown(problem)} (A non-private teaching diagnostic.)",
                   icon=":material/warning:")
    said: list[tuple[bool, str, str]] = []
    for run, scenario in zip(runs, scenarios, strict=True):
        if not run.result.ledger.releases:
            continue
        found = expected_of(scenario, run.result, sizes, f"{run.label}'s error")
        if found is not None:
            said.append((found.large, found.sentence(f"{run.label}'s matrix"), found.basis))
    for large, sentence, _ in said:
        if large:
            st.warning(escape_markdown(sentence), icon=":material/speed:")
    fine = [(sentence, basis) for large, sentence, basis in said if not large]
    if fine:
        inputs = ("n, d, the bound, the budget and each estimator's parameters" + (
            "; for a figure drawn from a run's release, that release too (no more budget)"
            if any(basis == "release" for _, basis in fine) else ""))
        st.caption(escape_markdown(" ".join(sentence for sentence, _ in fine))
                   + f" Only public inputs go in: {inputs}.")
    return [sentence for _, sentence, _ in said]


def heatmaps_panel(runs: Sequence[Run], names: Sequence[str]) -> None:
    """The true and the private matrices on one colour scale (the leading block if d is big)."""
    truth = np.asarray(runs[0].result.diagnostics["true_covariance"], dtype=float)
    d = truth.shape[0]
    m = min(d, HEATMAP_BLOCK)
    panels = [("true Σ = XᵀX/n", truth[:m, :m])]
    panels += [(run.label, np.asarray(run.result.estimate["covariance"])[:m, :m])
               for run in runs]
    block = "" if m == d else f" (the leading {m} × {m} block of {d} × {d})"
    fig = cov_viz.matrix_heatmaps(panels, tick_labels=names[:m],
                                  title=f"The true and the private matrices{block}")
    show_chart(fig, key="cov_heatmaps", filename="dpviz-covariance-matrices")
    st.caption("One colour scale for every panel (symmetric about 0, white = 0): a colour is "
               "the same number everywhere; hover for the values."
               + (f" Showing the first {m} coordinates only, to keep the page light; the "
                  "errors use the whole matrices." if m < d else ""))


def spectra_panel(runs: Sequence[Run], scenarios: Sequence[Scenario], n: int) -> None:
    """The true eigenvalues with each estimate's overlaid, and their intervals where measured."""
    found = run_intervals(runs, scenarios, n)
    fig = cov_viz.spectra_figure(
        runs[0].result.diagnostics["true_eigenvalues"],
        [(run.name, run.label, run.result.diagnostics["eigenvalues"]) for run in runs])
    for run, got in zip(runs, found, strict=True):
        if got.shown:
            with_interval_bars(fig, run.label, [row.half_width for row in got.rows])
    show_chart(fig, key="cov_spectra", filename="dpviz-covariance-eigenvalues")
    interval_section(runs, found)


def run_intervals(runs: Sequence[Run], scenarios: Sequence[Scenario], n: int,
                  part: str | None = None) -> list[intervals.Intervals]:
    """Each run's intervals (post-processing of its release: nothing charged).

    ``part``: ``None`` for the eigenvalues, ``"entries"`` for the matrix's entries.
    """
    return [intervals.intervals(scenario, run.result, n, part=part)
            for run, scenario in zip(runs, scenarios, strict=True)]


def eigenvalue_table(runs: Sequence[Run], found: Sequence[intervals.Intervals]) -> pd.DataFrame:
    """One row per eigenvalue, one column per run with intervals: "5.31 ± 0.42 (90 %)".

    Examples
    --------
    >>> got = intervals.Intervals("weyl", (intervals.Interval("eigenvalues[1]", 0.5312, 0.042),
    ...                                    intervals.Interval("eigenvalues[2]", 0.1, 0.042)))
    >>> eigenvalue_table([Run("gauss", "GaussCov", None)], [got]).iloc[0].tolist()
    ['λ1', '0.531 ± 0.042 (90 %)']
    """
    shown = [(run, got) for run, got in zip(runs, found, strict=True) if got.shown]
    size = max(len(got.rows) for _, got in shown)
    return pd.DataFrame({"eigenvalue": [f"λ{i + 1}" for i in range(size)],
                         **{run.label: [row.text() for row in got.rows] for run, got in shown}})


def reasons(runs: Sequence[Run], found: Sequence[intervals.Intervals]) -> list[str]:
    """Why each run without intervals has none, one sentence each, naming the run."""
    return [as_sentence(str(got.reason) if run.label in str(got.reason) else
                        f"{run.label}: {got.reason}")
            for run, got in zip(runs, found, strict=True) if not got.shown]


def interval_section(runs: Sequence[Run], found: Sequence[intervals.Intervals]) -> None:
    """The eigenvalues with their intervals and what they cover; one line per run without."""
    if any(got.shown for got in found):
        st.dataframe(eigenvalue_table(runs, found), hide_index=True, key="cov_intervals")
        sentence = next(got.sentence() for got in found if got.shown)
        st.caption(escape_markdown(f"The bars and the table: {sentence[0].lower()}"
                                   f"{sentence[1:]}"))
    lines = reasons(runs, found)
    if lines:
        st.caption(escape_markdown(" ".join(lines)))


#: Up to this d the entries' intervals are a table (d(d + 1)/2 rows: 36 at d = 8); above,
#: one sentence per run gives their widths.
ENTRY_TABLE_D = 8


def entry_table(runs: Sequence[Run], found: Sequence[intervals.Intervals],
                names: Sequence[str]) -> pd.DataFrame:
    """One row per entry on and above the diagonal, one column per run with intervals.

    Examples
    --------
    >>> got = intervals.Intervals("entries", (
    ...     intervals.Interval("covariance[1][1]", 0.5312, 0.042),
    ...     intervals.Interval("covariance[1][2]", 0.1, 0.042),
    ...     intervals.Interval("covariance[2][2]", 0.2, 0.042)))
    >>> entry_table([Run("gauss", "GaussCov", None)], [got], ["x1", "x2"]).iloc[1].tolist()
    ['x1, x2', '0.100 ± 0.042 (90 %)']
    """
    pairs = [(i, j) for i in range(len(names)) for j in range(i, len(names))]
    table = {"entry": [f"{names[i]}, {names[j]}" for i, j in pairs]}
    for run, got in zip(runs, found, strict=True):
        if got.shown:
            named = got.by_name()
            table[run.label] = [named[f"covariance[{i + 1}][{j + 1}]"].text()
                                for i, j in pairs]
    return pd.DataFrame(table)


def entry_widths(label: str, got: intervals.Intervals) -> str:
    """The widths of a run's entry intervals in one sentence: the typical and the widest.

    Examples
    --------
    >>> got = intervals.Intervals("entries", tuple(
    ...     intervals.Interval(f"covariance[1][{j}]", 0.1, 0.00042) for j in (1, 2, 3)))
    >>> entry_widths("GaussCov", got).split(": ")[1]
    'each is its released value ± 0.00042 (90 %).'
    """
    widths = [row.half_width for row in got.rows]
    typical, widest = f"{float(np.median(widths)):.2g}", f"{max(widths):.2g}"
    spread = (f"± {widest}" if typical == widest else
              f"± {typical} typically, ± {widest} at the widest")
    return (f"{label}'s {len(widths):,} entries on and above the diagonal: each is its "
            f"released value {spread} ({intervals.percent(intervals.LEVEL)}).")


def entries_panel(runs: Sequence[Run], scenarios: Sequence[Scenario],
                  names: Sequence[str], n: int) -> None:
    """The private matrices' entries with their intervals, in the matrices' own units.

    For d up to :data:`ENTRY_TABLE_D` a table of "0.531 ± 0.042 (90 %)", above it one
    sentence per run on the widths; then what the intervals cover, and a line on why each
    run without has none. The heatmaps show the released matrices unscaled (an upload's in
    its columns' squared units), and the intervals are in the same units.
    """
    found = run_intervals(runs, scenarios, n, part="entries")
    shown = [(run, got) for run, got in zip(runs, found, strict=True) if got.shown]
    small = len(names) <= ENTRY_TABLE_D
    if shown and small:
        st.dataframe(entry_table(runs, found, names), hide_index=True,
                     key="cov_entry_intervals")
    if shown:
        widths = [] if small else [entry_widths(run.label, got) for run, got in shown]
        st.caption(escape_markdown(" ".join([*widths, shown[0][1].sentence()])))
    lines = reasons(runs, found)
    if lines:
        st.caption(escape_markdown(" ".join(lines)))


@st.fragment
def ellipses_panel(runs: Sequence[Run], names: Sequence[str]) -> None:
    """Two coordinates (axis pickers) and each matrix's ellipse on them; reruns alone."""
    d = len(names)
    options = tuple(range(d))
    clamp_state("cov_axis_x", options)
    clamp_state("cov_axis_y", options)
    a, b = st.columns(2)
    i = a.selectbox("Horizontal axis", options, index=0, format_func=names.__getitem__,
                    key="cov_axis_x", bind="query-params")
    j = b.selectbox("Vertical axis", options, index=1, format_func=names.__getitem__,
                    key="cov_axis_y", bind="query-params")
    fig = cov_viz.ellipses_figure(
        runs[0].result.diagnostics["true_covariance"],
        [(run.name, run.label, run.result.estimate["covariance"]) for run in runs],
        axes=(int(i), int(j)), axis_names=names,
        title=f"The matrices on {names[int(i)]} and {names[int(j)]}")
    show_chart(fig, key="cov_ellipses", filename="dpviz-covariance-ellipses")
    st.caption("Each curve is {v : vᵀ S⁻¹ v = 1} for the 2 × 2 block S of a matrix on the "
               "two coordinates, centred at 0 (Σ is a second-moment matrix, not centred). A "
               "block the noise made indefinite is drawn with its negative axis at 0.")


def errors_panel(runs: Sequence[Run], stated_delta: float = DELTA_FOR_RHO) -> None:
    """The Frobenius error of each estimator with its theoretical bound: bars and a table."""
    fig = cov_viz.error_chart([(run.name, run.label, run.error,
                               float(run.result.diagnostics.get("error_bound", math.nan)))
                              for run in runs])
    show_chart(fig, key="cov_errors", filename="dpviz-covariance-errors")
    st.dataframe(error_table(runs, stated_delta), hide_index=True, key="cov_error_table")
    st.caption("Error: the Frobenius distance $\\lVert\\tilde\\Sigma - \\Sigma\\rVert_F$ "
               "against Σ of the unclipped rows, in the data's squared units. Bound: the "
               "paper's high-probability bound for the estimator at this budget (— where it "
               "states none); SeparateCov's and AdaptiveCov's bounds read "
               "the true trace (and AdaptiveCov's its true clipping bias), so, like the "
               "errors, they are ground truth for the lesson, not releases; so is the count "
               "of rows clipped (not private: a teaching diagnostic). Zero's error is "
               "$\\lVert\\Sigma\\rVert_F$: an estimator above it is worse than saying "
               "nothing.")


def adaptive_panel(run: Run) -> None:
    """AdaptiveCov's story: the proxies over the radius grid, the chosen τ̃ and branch."""
    diagnostics = run.result.diagnostics
    tau, branch = float(diagnostics["clip_radius"]), short_label(str(diagnostics["branch"]))
    fig = cov_viz.adaptive_proxies_figure(diagnostics["proxies"], clip_radius=tau,
                                          branch=branch)
    show_chart(fig, key="cov_adaptive", filename="dpviz-adaptivecov")
    st.caption(f"AdaptiveCov first released an upper bound on the trace, "
               f"tr̃ = {float(diagnostics['trace_estimate']):.3g}; its two error proxies "
               "depend on the data only through tr̃. The sparse vector technique then walked "
               "the radii τ = r·2^(−l) down until the bias bound B(τ) (from the norms' "
               f"histogram, not released) passed the smaller proxy: it fired at step "
               f"l = {int(diagnostics['svt_index'])}, so it clipped the rows to "
               f"τ̃ = {tau:.3g} and ran {branch}, the cheaper proxy there."
               + (f" Its bound in the table is {diagnostics['error_bound_note']}."
                  if diagnostics.get("error_bound_note") else ""))


#: The budget bar's choice that shows every drawn run together.
ALL_DRAWN = "all"


def ledger_panel(runs: Sequence[Run], chosen: Chosen, *,
                 accuracy: Mapping[str, pd.DataFrame] | None = None,
                 notes: Sequence[str] = ()) -> None:
    """The budget bar of every drawn run together, or of one, and the risk of them all.

    Each estimator compared is another private release of the same data, so what the page
    draws is charged as all of them (:func:`dpviz.privacy.compose_runs`): the risk panel
    always reads that composition, and one sentence says so. Bars state a ρ budget as ε at
    the page's δ. ``accuracy`` and ``notes`` go to the stakeholder report.
    """
    spending = [run for run in runs if run.result.ledger.releases]
    if not spending:
        st.caption("Nothing was released with noise: no budget spent.")
        return
    drawn = (spending[0].result.ledger if len(spending) == 1 else
             compose_runs([run.result.ledger for run in spending]))
    unguaranteed = [f"{run.label}: {run.result.not_private}" for run in spending
                    if run.result.not_private]
    name, ledger = ALL_DRAWN, drawn
    title, reason = f"Where {spending[0].label}'s budget went", "; ".join(unguaranteed) or None
    if len(spending) > 1:
        labels = {ALL_DRAWN: f"All {len(spending)} drawn",
                  **{run.name: run.label for run in spending}}
        clamp_state("cov_ledger", tuple(labels))
        name = st.radio("Budget bar of", tuple(labels), format_func=labels.__getitem__,
                        horizontal=True, key="cov_ledger", bind="query-params")
        title = f"Where the budget of all {len(spending)} drawn runs went"
    if name != ALL_DRAWN:
        run = next(r for r in spending if r.name == name)
        ledger, title = run.result.ledger, f"Where {run.label}'s budget went"
        reason = run.result.not_private
    show_chart(ledger_bar(ledger, title=budget_title(title, reason),
                          delta=chosen.stated_delta or None),
               key="cov_ledger_bar", filename=f"dpviz-covariance-ledger-{name}")
    if len(spending) > 1 and not unguaranteed:
        st.caption(f"This page draws {len(spending)} private releases of the same data, one per "
                   "estimator, each within the budget: the risk panel charges them all. A real "
                   "release publishes one.")
    risk_panel(drawn, chosen.scenarios[0], key="cov", runs=len(spending),
               stated_delta=chosen.stated_delta or None,
               not_private="; ".join(unguaranteed) or None, accuracy=accuracy, notes=notes,
               without_privacy=tuple(accuracy or ()))  # each: a distance to the true matrix


def choices_panel(runs: Sequence[Run]) -> None:
    """Each run's ``choices``: the constants the paper leaves open, as used."""
    table = pd.concat([choices_table(run.result.choices).assign(estimator=run.label)
                       for run in runs], ignore_index=True)
    st.dataframe(table[["estimator", "choice", "value"]], hide_index=True,
                 key="cov_choices")
