"""One-click audit of an estimator, and the gallery of variants broken on purpose."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from dpviz.estimators.registry import estimator
from dpviz.lab.audit import AUDIT_RUNS, EstimatorAudit, audit_estimator, audit_unavailable
from dpviz.lab.broken_variants import BROKEN_LABEL, audit_gallery
from dpviz.lab.scenario import Scenario
from dpviz.ui.widgets import attempt, escape_markdown, show_chart
from dpviz.viz.audit import audit_comparison, audit_histograms

KEPT = 6  # audits remembered per widget and user


def _remember(key: str, cache_key: tuple[Any, ...], value: Any) -> None:
    """Keep the last :data:`KEPT` answers of one widget in the user's session."""
    store: dict[tuple[Any, ...], Any] = st.session_state.setdefault(f"{key}_results", {})
    store.pop(cache_key, None)
    store[cache_key] = value
    while len(store) > KEPT:
        store.pop(next(iter(store)))


def _recall(key: str, cache_key: tuple[Any, ...]) -> Any:
    return st.session_state.get(f"{key}_results", {}).get(cache_key)


def _with_progress(text: str, work: Callable[[Callable[[float], None]], Any]) -> Any:
    bar = st.progress(0.0, text=text)
    try:
        return attempt(work, lambda fraction: bar.progress(min(1.0, fraction), text=text))
    finally:
        bar.empty()


def _verdict(audit: EstimatorAudit) -> None:
    sentence = audit.sentence()
    sentence = escape_markdown(sentence[0].upper() + sentence[1:])
    if audit.passed:
        st.success(sentence, icon=":material/verified:")
    else:
        st.error(sentence, icon=":material/gpp_bad:")


def audit_seed(scenario: Scenario) -> int:
    """The audit's seed (teaching randomness, shown): the data seed, else the noise seed, else 0.

    Examples
    --------
    >>> audit_seed(Scenario("gmm", "dp_em", {"generator": "gmm", "seed": 4}, {}, seed=9))
    4
    """
    seed = scenario.data.get("seed", scenario.seed)
    return 0 if seed is None else int(seed)


def audit_button(scenario: Scenario, *, key: str) -> EstimatorAudit | None:
    """A button that audits the scenario's estimator at its budget, then figure and verdict.

    The audit runs the estimator on its own neighbouring datasets (not the scenario's data)
    at the scenario's ε, δ (or ρ) and accounting, seeded by :func:`audit_seed`. The answer is
    kept in the user's session (the last few per button), so a rerun shows it again without
    recomputing; a changed budget or estimator asks for a new click.
    """
    task, name = scenario.task, scenario.estimator
    reason = audit_unavailable(task, name)
    if reason is not None:
        st.info(escape_markdown(reason), icon=":material/info:")
        return None
    st.caption(f"Runs the estimator {AUDIT_RUNS:,} times on each of two neighbouring "
               "datasets — the worst case of its sensitivity proof — and bounds the ε it "
               "really has from below (Clopper–Pearson, 95%). A correct estimator's bound "
               "stays at or below the ε its ledger claims; Gaussian noise at small ε is hard "
               "to audit tightly, so a bound near 0 is expected there.")
    params = scenario.params
    epsilon, rho = params.get("epsilon"), params.get("rho")
    delta = float(params.get("delta") or 0.0)
    accounting = str(params.get("accounting") or "zcdp")
    seed = audit_seed(scenario)
    cache_key = (task, name, epsilon, delta, rho, seed, accounting)
    if st.button("Audit this estimator", key=key, icon=":material/policy:"):
        audit = _with_progress(
            f"Auditing: {2 * AUDIT_RUNS:,} runs…",
            lambda progress: audit_estimator(task, name, epsilon=epsilon, delta=delta,
                                             runs=AUDIT_RUNS, seed=seed, accounting=accounting,
                                             rho=rho, progress=progress))
        _remember(key, cache_key, audit)
    audit = _recall(key, cache_key)
    if audit is None:
        return None
    _verdict(audit)
    show_chart(audit_comparison([audit], title=f"Audit of {audit.label}"),
               key=f"{key}_chart", filename=f"dpviz-audit-{task}-{name}")
    show_chart(audit_histograms(audit), key=f"{key}_histograms",
               filename=f"dpviz-audit-{task}-{name}-runs")
    st.caption(f"Neighbours: {escape_markdown(audit.neighbours)}. Statistic: "
               f"{escape_markdown(audit.statistic)}. {audit.runs:,} runs on each dataset in "
               f"{audit.seconds:.1f} s, seed {seed}.")
    return audit


def audit_picker(scenarios: Sequence[Scenario], *, key: str) -> EstimatorAudit | None:
    """A choice among a page's ``scenarios`` (pages that run several), then :func:`audit_button`."""
    by_name = {s.estimator: s for s in scenarios}
    labels = {name: estimator(s.task, name).label for name, s in by_name.items()}
    chosen = st.selectbox("Estimator to audit", list(labels), key=f"{key}_estimator",
                          format_func=lambda name: labels[name])
    return audit_button(by_name[str(chosen)], key=key)


def broken_gallery(key: str, *, epsilon: float = 1.0, seed: int = 0
                   ) -> tuple[EstimatorAudit, ...] | None:
    """Run the variants broken on purpose through the same audit and show each one caught."""
    st.caption(f"Each variant below is **{BROKEN_LABEL}**: a private mean with one classic "
               "mistake, which no page, command or sweep can run. Each claims ε in its own "
               f"ledger; the audit runs it {AUDIT_RUNS:,} times on each of the two datasets "
               "that expose its flaw.")
    cache_key = (float(epsilon), int(seed))
    if st.button("Run the gallery of broken variants", key=key, icon=":material/bug_report:"):
        audits = _with_progress(
            f"Auditing the broken variants: {2 * AUDIT_RUNS:,} runs each…",
            lambda progress: audit_gallery(epsilon=epsilon, runs=AUDIT_RUNS, seed=seed,
                                           progress=progress))
        _remember(key, cache_key, audits)
    audits = _recall(key, cache_key)
    if audits is None:
        return None
    show_chart(audit_comparison(audits, title=f"Broken on purpose: measured ε against the "
                                              f"claimed ε = {epsilon:g}"),
               key=f"{key}_chart", filename="dpviz-audit-broken-gallery")
    for audit in audits:
        caught = "caught" if not audit.passed else "NOT caught"
        with st.container(border=True):
            st.markdown(f"**{escape_markdown(audit.label)}** — {caught}. The flaw: "
                        f"{escape_markdown(audit.broken)}.")
            _verdict(audit)
            st.caption(f"Neighbours: {escape_markdown(audit.neighbours)}. Statistic: "
                       f"{escape_markdown(audit.statistic)}.")
    return audits
