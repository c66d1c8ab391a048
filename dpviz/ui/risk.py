"""The "What this ε means" panel shown beside every budget (issue 9, part 2).

The numbers come from :mod:`dpviz.privacy.risk`: from a run's own ledger (its whole privacy
profile, composed by PLD) or from an (ε, δ) pair; the figures from :mod:`dpviz.viz.risk`.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpviz.privacy import Ledger, PrivacyEvent
from dpviz.privacy.risk import Risk, risk_of_epsilon, risk_of_events
from dpviz.ui.widgets import show_chart
from dpviz.viz.risk import posterior_figure, tradeoff_figure

#: δ of the posterior bound when the budget has none (a ρ budget) but a release needs one.
DEFAULT_DELTA = 1e-5
PRIORS = np.linspace(0.0, 1.0, 101)
ADVANTAGE_HELP = ("Advantage: the largest true-positive rate minus false-positive rate of any "
                  "test that tries to tell whether one person's row was in the data (Kairouz "
                  "et al. 2015; Dong, Roth & Su 2019); 0% is a coin flip. The posterior: an "
                  "attacker's belief after the release from a 50% prior, e^ε/(1 + e^ε), "
                  "except with probability δ.")

#: A ledger as plain values (the cache key): ``((part, ((kind, μ, ε, δ, count), ...)), ...)``.
EventKey = tuple[tuple[str | None, tuple[tuple[str, float, float, float, int], ...]], ...]


def events_key(ledger: Ledger) -> EventKey:
    """The ledger's events by part, as a hashable tuple of plain values."""
    parts = ledger.events_by_part()
    return tuple((part, tuple((e.kind, e.mu, e.epsilon, e.delta, e.count) for e in events))
                 for part, events in sorted(parts.items(), key=lambda kv: str(kv[0])))


@st.cache_data(max_entries=64, show_spinner="Composing the privacy profile…")
def ledger_risk(key: EventKey, delta: float) -> Risk:
    """:func:`dpviz.privacy.risk.risk_of_events` of a ledger given by :func:`events_key`."""
    parts = {part: [PrivacyEvent(kind, mu, eps, d, count)  # type: ignore[arg-type]
                    for kind, mu, eps, d, count in events] for part, events in key}
    return risk_of_events(parts, delta)


def _delta_for(ledger: Ledger, delta: float | None) -> float:
    if delta is not None and delta > 0:
        return float(delta)
    budget_delta = ledger.budget.delta if ledger.budget is not None else 0.0
    if budget_delta > 0:
        return float(budget_delta)
    pure = all(r.event().kind in ("laplace", "pure") for r in ledger.releases)
    return 0.0 if pure else DEFAULT_DELTA


def sentences(risk: Risk) -> tuple[str, str]:
    """The panel's two sentences: the posterior bound and the attack, with the numbers."""
    if np.isinf(risk.epsilon):
        belief = ("With δ = 0 these releases have no finite ε: a posterior bound needs "
                  "δ > 0.")
    else:
        unless = f", except with probability δ = {risk.delta:.2g}" if risk.delta > 0 else ""
        belief = (f"An attacker who was 50% sure that a given person is in the data is at "
                  f"most **{risk.posterior_max:.1%}** sure after seeing this release"
                  f"{unless} (ε = {risk.epsilon:.3g}).")
    fpr, tpr = risk.best
    attack = (f"The best membership-inference attack is right about present people at most "
              f"{risk.advantage:.1%} more often than it is wrong about absent ones (e.g. "
              f"true-positive rate {tpr:.1%} at false-positive rate {fpr:.1%}).")
    return belief, attack


def _show(risk: Risk, *, key: str, origin: str) -> None:
    with st.container(border=True, key=f"{key}-risk"):
        st.markdown(f"**What this ε means** · best attack's advantage "
                    f"**{risk.advantage:.1%}** · 50% sure becomes at most "
                    f"**{risk.posterior_max:.1%}**", help=ADVANTAGE_HELP)
        belief, attack = sentences(risk)
        st.markdown(belief)
        st.caption(f"{attack} {origin}")
        # drawn on demand: two more figures on every page would slow each rerun
        if st.toggle("Show the attack's trade-off curve and the posterior bound",
                     value=False, key=f"{key}_risk_curves", bind="query-params"):
            fpr, tpr = risk.curve()
            show_chart(tradeoff_figure(fpr, tpr, best=risk.best, advantage=risk.advantage),
                       key=f"{key}_risk_tradeoff", filename=f"dpviz-{key}-attack-tradeoff")
            if not np.isinf(risk.epsilon):
                show_chart(posterior_figure(PRIORS, risk.posterior(PRIORS),
                                            epsilon=risk.epsilon, delta=risk.delta),
                           key=f"{key}_risk_posterior", filename=f"dpviz-{key}-posterior")


def spend_text(ledger: Ledger) -> str:
    """A ledger's total in a few words (``ε = 1.2, δ = 1e-05`` or ``ρ = 0.4``)."""
    total = ledger.total()
    if total.epsilon is None:
        return f"ρ = {total.rho:.3g}"
    return f"ε = {total.epsilon:.3g}" + (f", δ = {total.delta:.2g}" if total.delta else "")


def risk_panel(ledger: Ledger, delta: float | None = None, *, key: str) -> None:
    """The panel for a run: advantage, posterior bound and curve, from the run's own ledger.

    Parameters
    ----------
    ledger : Ledger
        The run's ledger; every release is composed (PLD, the whole ε(δ) profile).
    delta : float, optional
        δ of the posterior bound; defaults to the budget's (1e-5 for a ρ budget with
        Gaussian releases).
    key : str
        Page prefix of the panel's element keys.
    """
    if not ledger.releases:
        st.caption("Nothing in this run was released with calibrated noise, so there is no "
                   "bound on what an attacker learns.")
        return
    chosen = _delta_for(ledger, delta)
    risk = ledger_risk(events_key(ledger), chosen)
    _show(risk, key=key, origin="Computed from this run's own ledger: every release composed "
                                "by privacy-loss distributions (its whole ε(δ) curve), "
                                "which can be tighter than the accounting the run used.")


def risk_panel_for(epsilon: float, delta: float, *, key: str) -> None:
    """The panel for an (ε, δ) guarantee alone (e.g. the Privacy budget page's target)."""
    risk = risk_of_epsilon(epsilon, delta)
    _show(risk, key=key, origin="From the (ε, δ) pair alone: any mechanism meeting it.")
