"""One-click audit of an estimator, and the gallery of variants broken on purpose."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from dpviz.estimators.registry import estimator
from dpviz.lab.audit import (
    AUDIT_RUNS,
    WHITE_BOX_DRAWS,
    EstimatorAudit,
    audit_estimator,
    audit_reach,
    audit_unavailable,
    white_box_audit,
)
from dpviz.lab.broken_variants import (
    BROKEN_LABEL,
    BROKEN_VARIANTS,
    GALLERY_RUNS,
    audit_gallery,
    catch_advice,
)
from dpviz.lab.scenario import Scenario
from dpviz.ui.progress import timed_bar
from dpviz.ui.widgets import (
    as_sentence,
    attempt,
    epsilon_slider,
    escape_markdown,
    show_chart,
    show_failure,
)
from dpviz.viz.audit import audit_comparison, audit_histograms

KEPT = 6  # audits remembered per widget and user
STEPS = 1_000  # steps of an audit's progress bar (the engine reports fractions)


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
    """``work(progress)`` under a bar whose time left is the pace of its first fractions."""
    with timed_bar(text, STEPS) as bar:
        return attempt(work, lambda fraction: bar.step(round(fraction * STEPS)))


def _verdict(audit: EstimatorAudit, advice: str | None = None) -> None:
    """The audit's sentence: green only when it passed and could have failed.

    A broken variant that was not caught is a warning, with ``advice`` on what would catch it.
    """
    sentence = audit.sentence()
    if advice:
        sentence = f"{sentence[:-1]}; {advice}."
    sentence = escape_markdown(as_sentence(sentence))
    if audit.broken is not None and not audit.caught:
        st.warning(sentence, icon=":material/help:")
    elif audit.broken is None and audit.passed and audit.proves_little:
        st.info(sentence, icon=":material/info:")
    elif audit.passed:
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


METHODS = {"white-box": "White-box audit of the releases",
           "black-box": "Black-box audit of the whole estimator"}


def _budget(scenario: Scenario, stated_delta: float | None) -> dict[str, Any]:
    """The audit's budget: the scenario's, a ρ budget stated at the page's ``stated_delta``."""
    params = scenario.params
    delta = float(params.get("delta") or 0.0)
    if params.get("rho") is not None and not delta and stated_delta:
        delta = stated_delta  # the δ the page states ρ at: a ρ run's noise does not depend on it
    return {"epsilon": params.get("epsilon"), "rho": params.get("rho"), "delta": delta,
            "accounting": str(params.get("accounting") or "zcdp")}


def audit_button(scenario: Scenario, *, key: str, stated_delta: float | None = None
                 ) -> EstimatorAudit | None:
    """What the audits can show at the scenario's budget, then one button for each.

    Before anything runs, one sentence states the bound a perfect audit typically reaches
    from the black-box audit's runs and from the white-box audit's draws, for this run's own
    ledger (:func:`dpviz.lab.audit.audit_reach`, one run on the audit's pair), and a warning
    when an audit cannot reach half the claim, so that passing it proves little
    (:meth:`~dpviz.lab.audit.Reach.caveat`). The white-box
    audit of the releases (button ``key``; seconds) is offered first; the black-box audit of
    the whole estimator (``{key}_black``) second. Both audit the estimator on its own
    neighbouring datasets (not the scenario's data) at the scenario's ε, δ (or ρ) and
    accounting, seeded by :func:`audit_seed` (teaching randomness). Answers are kept in the
    user's session (the last few per button), so a rerun shows them again.
    """
    task, name = scenario.task, scenario.estimator
    reason = audit_unavailable(task, name)
    if reason is not None:
        st.info(escape_markdown(reason), icon=":material/info:")
        return None
    budget = _budget(scenario, stated_delta)
    seed = audit_seed(scenario)
    cache_key = (task, name, *budget.values(), seed)
    reach = _recall(f"{key}_reach", cache_key)
    if reach is None:
        try:
            reach = audit_reach(task, name, seed=seed, **budget)
        except ValueError as err:  # a budget the audit cannot test: the rest of the page stays
            show_failure(err)
            return None
        _remember(f"{key}_reach", cache_key, reach)
    st.markdown(escape_markdown(reach.sentence()))
    caveat = reach.caveat()
    if caveat is not None:
        st.warning(escape_markdown(caveat), icon=":material/help:")
    white_box = reach.white_box_reason is None
    if white_box:
        st.caption(f"**{METHODS['white-box']}** (seconds): the estimator's own code computes "
                   "each private release's value on two neighbouring datasets chosen to "
                   f"change them most; {WHITE_BOX_DRAWS:,} outputs are drawn with the same "
                   "noise, and the best test of that known noise bounds ε from below. It "
                   "checks the code's real sensitivity and its noise.")
    else:
        st.caption(escape_markdown(as_sentence(reach.white_box_reason)))
    st.caption(f"**{METHODS['black-box']}** (slower): runs the estimator {AUDIT_RUNS:,} times "
               "on each of two neighbouring datasets and tests one number of its output; it "
               "sees only what a user sees, so it shows less.")
    left, right = st.columns(2)
    if white_box and left.button(METHODS["white-box"], key=key, icon=":material/policy:",
                                 type="primary"):
        _remember(key, (*cache_key, "white-box"), _with_progress(
            f"White-box audit: recording the releases, then {WHITE_BOX_DRAWS:,} draws on "
            "each dataset",
            lambda progress: white_box_audit(task, name, seed=seed, progress=progress,
                                             **budget)))
    if right.button(METHODS["black-box"], key=f"{key}_black", icon=":material/fact_check:"):
        _remember(key, (*cache_key, "black-box"), _with_progress(
            f"Black-box audit: {2 * AUDIT_RUNS:,} runs",
            lambda progress: audit_estimator(task, name, runs=AUDIT_RUNS, seed=seed,
                                             progress=progress, **budget)))
    shown = None
    for method, suffix in (("white-box", ""), ("black-box", "_black")):
        audit = _recall(key, (*cache_key, method))
        if audit is not None:
            _show(audit, key=f"{key}{suffix}", seed=seed)
            shown = shown or audit
    return shown


def _show(audit: EstimatorAudit, *, key: str, seed: int) -> None:
    """One audit's verdict, its figure and the sample's histogram."""
    st.markdown(f"**{METHODS[audit.method]}**")
    _verdict(audit)
    filename = f"dpviz-audit-{audit.task}-{audit.name}-{audit.method}"
    show_chart(audit_comparison([audit], title=f"{METHODS[audit.method]}: {audit.label}"),
               key=f"{key}_chart", filename=filename)
    show_chart(audit_histograms(audit), key=f"{key}_histograms", filename=f"{filename}-runs")
    unit = "draws" if audit.method == "white-box" else "runs"
    st.caption(f"Neighbours: {escape_markdown(audit.neighbours)}. Statistic: "
               f"{escape_markdown(audit.statistic)}. {audit.runs:,} {unit} on each dataset in "
               f"{audit.seconds:.1f} s, teaching randomness from seed {seed}.")


def audit_picker(scenarios: Sequence[Scenario], *, key: str, stated_delta: float | None = None
                 ) -> EstimatorAudit | None:
    """A choice among a page's ``scenarios`` (pages that run several), then :func:`audit_button`."""
    by_name = {s.estimator: s for s in scenarios}
    labels = {name: estimator(s.task, name).label for name, s in by_name.items()}
    chosen = st.selectbox("Estimator to audit", list(labels), key=f"{key}_estimator",
                          format_func=lambda name: labels[name])
    return audit_button(by_name[str(chosen)], key=key, stated_delta=stated_delta)


GALLERY_TAB = "Broken on purpose: the audit gallery"
"""The lens page's tab holding :func:`broken_gallery` (its label is the link's value)."""


def broken_gallery(key: str, *, epsilon: float = 1.0, seed: int = 0
                   ) -> tuple[EstimatorAudit, ...] | None:
    """Run the variants broken on purpose through an audit and say which it caught.

    The audit is chosen first: the black-box audit of the whole variant (the default, with its
    runs; :data:`~dpviz.lab.broken_variants.GALLERY_RUNS`) or the white-box audit of its
    releases. A variant is caught when the measured lower bound on ε exceeds its claim;
    otherwise the page says what would catch it.
    """
    st.markdown(f"Each variant below is **{BROKEN_LABEL}**: a private mean with one classic "
                "mistake, which no page, command or sweep can run. Each claims ε in its own "
                "ledger; the audit runs it on the two neighbouring datasets that expose its "
                "flaw. It is caught when the measured lower bound on ε is above the claim. A "
                "correct estimator passes the same audits (the estimator pages' audit panels).")
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    method = left.segmented_control("Audit", list(METHODS)[::-1], default="black-box",
                                    format_func=METHODS.__getitem__, key=f"{key}_method",
                                    required=True)
    method = "black-box" if method is None else str(method)
    white_box = method == "white-box"
    runs = right.select_slider("Runs on each dataset", GALLERY_RUNS, value=GALLERY_RUNS[0],
                               format_func=lambda r: f"{r:,}", key=f"{key}_runs",
                               disabled=white_box,
                               help="More runs let the black-box audit show a larger ε, and "
                                    "take longer.")
    runs = int(runs)
    sample = (f"{WHITE_BOX_DRAWS:,} draws of its releases" if white_box else
              f"{runs:,} runs of the whole variant")
    st.caption(f"Each variant is audited with {sample} on each dataset, teaching randomness "
               f"from seed {seed}.")
    cache_key = (float(epsilon), int(seed), method, runs)
    if st.button("Run the gallery of broken variants", key=key, icon=":material/bug_report:"):
        audits = _with_progress(
            f"Auditing the broken variants: {sample} each",
            lambda progress: audit_gallery(epsilon=epsilon, seed=seed, progress=progress,
                                           runs=WHITE_BOX_DRAWS if white_box else runs,
                                           white_box=white_box))
        _remember(key, cache_key, audits)
    audits = _recall(key, cache_key)
    if audits is None:  # the lecturer reads the mistakes out before the run (Home's step 5)
        st.caption("The audit's verdict on each variant appears here after Run.")
    else:
        show_chart(audit_comparison(audits, title=f"Broken on purpose: measured ε against the "
                                                  f"claimed ε = {epsilon:g}"),
                   key=f"{key}_chart", filename="dpviz-audit-broken-gallery")
    for index, variant in enumerate(BROKEN_VARIANTS.values()):
        audit = None if audits is None else audits[index]  # audit_gallery keeps this order
        said = ("" if audit is None else
                " — caught" if audit.caught else " — not caught at these settings")
        with st.container(border=True):
            st.markdown(f"**{escape_markdown(variant.label)}**{said}. The mistake: "
                        f"{escape_markdown(variant.flaw)}.")
            if audit is not None:
                _verdict(audit, None if audit.caught else catch_advice(audit))
                st.caption(f"Neighbours: {escape_markdown(audit.neighbours)}. Statistic: "
                           f"{escape_markdown(audit.statistic)}. {audit.seconds:.1f} s.")
    return audits


def gallery_tab(seed: int) -> None:
    """The gallery's own tab: its ε, then :func:`broken_gallery`."""
    epsilon = epsilon_slider("gallery_epsilon", label="ε each variant claims")
    broken_gallery("lens_gallery", epsilon=epsilon, seed=seed)
