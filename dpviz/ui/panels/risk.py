"""The risk panel shown beside every budget: the ε you set first, the details one click away.

Every panel opens with the plain summary a stakeholder reads (issue 35), from
:class:`dpviz.privacy.risk.PlainRisk`: the ε on the slider, one sentence in odds
(Nanayakkara et al. 2023), an overspend said plainly when the page drew more than that, the
best attack as a frequency with a 10 × 10 icon array (Franzen et al. 2022), and a level (low,
moderate, high) by stated, cited thresholds. Then the stakeholder report's button. The
accounted spend ("used 0.90 of your 1.00"), δ, the relation's OpenDP and dp-accounting
names, the attack's advantage and its curves sit in a closed "For experts" section, drawn
only when opened; presenter mode shows the summary alone. A run without a guarantee shows
its reason and no ε. Numbers come from :mod:`dpviz.privacy.risk`, figures from
:mod:`dpviz.viz.risk`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from dpviz.core.limits import CLASS_SIZE
from dpviz.estimators.registry import estimator, relation_of
from dpviz.lab.scenario import USER_KINDS, Scenario
from dpviz.privacy import Allocation, Budget, Ledger, PrivacyEvent
from dpviz.privacy.risk import (
    LOW_FPR,
    REPLACE_ONE,
    PlainRisk,
    Relation,
    Risk,
    Spending,
    picked_out,
    plain_risk,
    risk_of_epsilon,
    risk_of_events,
    spending,
    tighter,
)
from dpviz.ui.panels.report import report_button
from dpviz.ui.shell import PAGE_TITLE, PRESENTER, SECURE
from dpviz.ui.widgets import escape_markdown, lazy_expander, show_chart
from dpviz.viz.risk import icon_array, posterior_figure, tradeoff_figure

#: The glossary page, linked from every term of the panel.
GLOSSARY = "pages/glossary.py"
PRIORS = np.linspace(0.0, 1.0, 101)

#: Each accounting method inside a sentence ("the run set its noise by …").
ACCOUNTING_WORDS = {"linear": "linear composition", "advanced": "advanced composition",
                    "zcdp": "zCDP accounting", "ma": "the moments accountant",
                    "rdp": "Rényi DP accounting", "pld": "privacy loss distributions"}

#: A ledger as plain values (the cache key): ``((part, ((kind, μ, ε, δ, count), ...)), ...)``.
EventKey = tuple[tuple[str | None, tuple[tuple[str, float, float, float, int], ...]], ...]
#: A budget as plain values: ``(ε, δ, ρ, accounting)``.
BudgetKey = tuple[float | None, float, float | None, str]


def glossary(anchor: str, words: str = "In the glossary") -> str:
    """A markdown link to one entry of the glossary page (for help texts and captions)."""
    return f"[{words}](/glossary#{anchor})"


HELP = {
    "headline": "The privacy budget you set: ε bounds how much one person's data can change "
                "what anyone learns about them. Smaller is more private. "
                + glossary("what-epsilon-means", "What the panel says, in the glossary"),
    "frequency": "The strongest attack on these releases, as counts of 100: it guesses who is "
                 "in the data and may wrongly accuse 1 in 100 of those who are not. "
                 + glossary("membership-inference"),
    "level": "Thresholds on ε stated by Google's TensorFlow Privacy guide and Ponomareva et "
             "al. 2023. " + glossary("risk-level"),
    "spent": "ε bounds how much one release can change the odds of anything; δ is the small "
             "chance that bound fails. Smaller is more private. "
             + glossary("epsilon-and-delta"),
    "relation": "What the guarantee hides: the outputs barely change between any two "
                "neighbouring inputs. " + glossary("neighbouring-datasets"),
    "odds": "An attacker's belief after the release, from a 50% prior: at most "
            r"$e^\varepsilon/(1 + e^\varepsilon)$. " + glossary("odds"),
    "attack": "A membership-inference attack guesses whether someone's row was used. Its "
              "true-positive rate is the share of present people it finds; its false-positive "
              "rate the share of absent people it accuses; the advantage is the first minus "
              "the second at its best. " + glossary("membership-inference"),
}


def events_key(ledger: Ledger) -> EventKey:
    """The ledger's events by part, as a hashable tuple of plain values."""
    parts = ledger.events_by_part()
    return tuple((part, tuple((e.kind, e.mu, e.epsilon, e.delta, e.count) for e in events))
                 for part, events in sorted(parts.items(), key=lambda kv: str(kv[0])))


def _parts(key: EventKey) -> dict[str | None, list[PrivacyEvent]]:
    return {part: [PrivacyEvent(kind, mu, eps, d, count)  # type: ignore[arg-type]
                   for kind, mu, eps, d, count in events] for part, events in key}


def _budget_key(budget: Budget) -> BudgetKey:
    return (budget.epsilon, budget.delta, budget.rho, budget.method)


#: Privacy profiles kept (6 kB each): a class of students at 4 ε's each. A profile is keyed by
#: the releases' privacy parameters, set by the plan and ε and not by the data, so the
#: students at one ε share it, seeded or secure.
PROFILES_KEPT = 4 * CLASS_SIZE


@st.cache_data(max_entries=PROFILES_KEPT, show_spinner="Composing the privacy profile…")
def ledger_spending(key: EventKey, budget: BudgetKey, stated_delta: float | None) -> Spending:
    """:func:`dpviz.privacy.risk.spending` of a ledger given by :func:`events_key`."""
    epsilon, delta, rho, method = budget
    return spending(_parts(key), Budget(epsilon=epsilon, delta=delta, rho=rho, method=method),
                    stated_delta)


@st.cache_data(max_entries=32, show_spinner="Composing the plan's privacy profile…")
def plan_risk(key: EventKey, delta: float) -> Risk:
    """:func:`dpviz.privacy.risk.risk_of_events` of a plan given by :func:`events_key`."""
    return risk_of_events(_parts(key), delta)


def number(value: float) -> str:
    """ε or a share as the panel writes it: three significant digits, ``∞`` for no bound."""
    return "∞" if math.isinf(value) else f"{value:.3g}"


def pair_text(epsilon: float, delta: float) -> str:
    """``ε = 1, δ = 1e-05``, or ``ε = 1`` for pure DP (which never mentions δ)."""
    return f"ε = {number(epsilon)}" + (f", δ = {delta:.2g}" if delta > 0 else "")


#: What a budget bar's title adds for a run without a guarantee (no ε is stated for it).
NO_GUARANTEE_TITLE = " — no privacy guarantee: the noise was drawn, no ε applies"


def budget_title(title: str, not_private: str | None) -> str:
    """A budget bar's title, saying so when the run has no guarantee (its ``not_private``).

    Examples
    --------
    >>> budget_title("Where the budget went", None)
    'Where the budget went'
    >>> budget_title("Where the budget went", "d read from the graph")[-23:]
    'was drawn, no ε applies'
    """
    return title if not_private is None else title + NO_GUARANTEE_TITLE


def spend_text(ledger: Ledger) -> str:
    """A ledger's total in a few words (``ε = 1.2, δ = 1e-05`` or ``ρ = 0.4``)."""
    total = ledger.total()
    if total.epsilon is None:
        return f"ρ = {total.rho:.3g}"
    return pair_text(total.epsilon, total.delta)


def allowed_text(spent: Spending) -> str:
    """What the controls allowed, in the words the page's header uses."""
    if spent.allowed_rho is not None:
        return (f"ρ = {spent.allowed_rho:g}, stated as ε = {number(spent.allowed_epsilon)} at "
                f"δ = {spent.delta:.2g} by ε = ρ + 2√(ρ ln(1/δ))")
    return f"ε = {number(spent.allowed_epsilon)}"


def why_different(spent: Spending, method: str, runs: int) -> str | None:
    """One sentence saying why the spent ε is not the allowed one, or ``None`` when it is."""
    if runs > 1:
        return (f"This page drew {runs} private runs on the same data, each within what you "
                f"allowed ({allowed_text(spent)}): together they spent "
                f"ε = {number(spent.epsilon)}.")
    change = spent.change
    if change == 0:
        return None
    if change > 0:
        return (f"These releases compose to more than you allowed ({allowed_text(spent)}), "
                f"so the guarantee is the larger ε = {number(spent.epsilon)}.")
    if spent.allowed_rho is not None:
        return (f"You allowed {allowed_text(spent)}; composing the releases exactly "
                f"(privacy loss distributions) finds a tighter ε = {number(spent.epsilon)}.")
    if method != "pld":
        return (f"Tighter accounting found you spent {spent.epsilon:.2f} of the "
                f"{spent.allowed_epsilon:.2f} you allowed: the run set its noise by "
                f"{ACCOUNTING_WORDS[method]}, which overstates what releases cost, and "
                "composing them exactly (privacy loss distributions) shows the true spend.")
    return (f"The run's releases spent {spent.epsilon:.2f} of the {spent.allowed_epsilon:.2f} "
            "you allowed: it released less than its budget permits.")


#: The kinds of privacy event in words, in the order the sentence names them.
NOISE_WORDS = {"gaussian": "Gaussian", "laplace": "Laplace", "pure": "other pure-DP",
               "approximate": "other approximate-DP"}


def noise_words(key: EventKey) -> str:
    """What the releases are, in a few words, for the sentence on the two curves.

    ``all Gaussian noise``, ``Gaussian and Laplace noise``.
    """
    kinds = {kind for _, events in key for kind, *_ in events}
    names = [words for kind, words in NOISE_WORDS.items() if kind in kinds]
    if len(names) == 1:
        return f"all {names[0]} noise"
    return f"{', '.join(names[:-1])} and {names[-1]} noise"


#: The closed section's label: plain words (what it holds is named inside).
EXPERTS = "For experts: how ε was accounted, δ, and the best attack"


def presenting() -> bool:
    """Whether presenter mode is on (the panel then shows its summary alone)."""
    return bool(st.session_state.get(PRESENTER))


def _summary(plain: PlainRisk) -> None:
    """The plain summary: the ε set, an overspend, the odds, the frequency, the level."""
    st.markdown(f"**Privacy budget: {plain.headline()}** · {plain.level} risk",
                help=HELP["headline"])
    if plain.overspent:
        st.warning(plain.overspent, icon=":material/warning:")
    st.markdown(plain.odds(), help=HELP["odds"])
    icons, words = st.columns([1, 2], vertical_alignment="center")
    with icons:
        st.image(icon_array(plain.picked), caption=f"{plain.picked} in 100 picked out")
    with words:
        st.markdown(f"**In frequencies:** {plain.frequency()}", help=HELP["frequency"])
        st.caption(plain.level_sentence(), help=HELP["level"])


def _close(plain: PlainRisk, *, key: str, accuracy: Mapping[str, pd.DataFrame] | None,
           notes: Sequence[str], experts: Callable[[], None], scenario: Scenario | None = None,
           without_privacy: Collection[str] = ()) -> None:
    """The report's button and the experts' section, both left out in presenter mode."""
    if presenting():
        return
    warnings = [SEEDED_OWN_DATA.replace("**", "")] if seeded_own_data(scenario) else []
    report_button(plain, key=key, title=str(st.session_state.get(PAGE_TITLE, "dpviz")),
                  accuracy=accuracy, notes=notes, warnings=warnings,
                  own_data=own_data(scenario), without_privacy=without_privacy)
    lazy_expander(EXPERTS, experts, key=f"{key}_risk_experts", icon=":material/functions:")


def _pair_lines(relation: Relation, risk: Risk, spent_line: str, *, label: str) -> None:
    """The exact pair, the relation's names, the odds with δ and the best attack."""
    st.markdown(f"**{label}:** {spent_line}", help=HELP["spent"])
    st.markdown(f"**Protects:** neighbours that *{relation.name}*: {relation.sentence}. "
                f"OpenDP calls this distance {relation.opendp}; Google's dp-accounting calls "
                f"the relation {relation.dp_accounting}.", help=HELP["relation"])
    if math.isinf(risk.epsilon):
        st.markdown("**Odds:** no finite ε: the odds are not bounded.", help=HELP["odds"])
    else:
        unless = (f", except on rare outputs (total probability δ = {risk.delta:.2g})"
                  if risk.delta > 0 else "")
        st.markdown(f"**Odds:** someone 50% sure {relation.member} can become at most "
                    f"**{risk.posterior_max:.1%}** sure{unless}.", help=HELP["odds"])
    tpr = float(risk.tpr(LOW_FPR))
    st.markdown(f"**Best attack:** at a {LOW_FPR:.0%} false-positive rate it finds at most "
                f"**{tpr:.1%}** of {relation.members}; its largest advantage (true-positive "
                f"minus false-positive rate) is **{risk.advantage:.1%}**.", help=HELP["attack"])


def _two_curves(own: Risk, worst: Risk, words: str, pair: str) -> str:
    return (f"The ({pair}) promise alone would allow an attack with advantage "
            f"{worst.advantage:.1%} (true-positive rate {float(worst.tpr(LOW_FPR)):.1%} at "
            f"{LOW_FPR:.0%}); these releases, {words}, allow only {own.advantage:.1%}: the "
            "promise covers every mechanism that meets it, while their own trade-off curve "
            "(from their privacy loss distribution) is exact.")


def _curves(own: Risk, worst: Risk | None, *, key: str) -> None:
    """The f-DP trade-off curve (and the looser one) and the posterior bound."""
    fpr, tpr = own.curve()
    looser = worst.curve() if worst is not None else None
    pair = "" if worst is None else pair_text(worst.epsilon, worst.delta)
    show_chart(tradeoff_figure(fpr, tpr, best=own.best, advantage=own.advantage,
                               worst=looser, worst_label=f"any mechanism meeting ({pair}) alone"),
               key=f"{key}_risk_tradeoff",
               filename=f"dpviz-{key}-attack-tradeoff")
    st.caption("The f-DP trade-off curve: every attack errs two ways, it accuses an absent "
               "person (type I error, the false-positive rate) or misses a present one (type "
               "II error). No attack can sit below the curve; random guessing sits on the "
               "diagonal. " + glossary("trade-off-curve"))
    if not math.isinf(own.epsilon):
        show_chart(posterior_figure(PRIORS, own.posterior(PRIORS), epsilon=own.epsilon,
                                    delta=own.delta),
                   key=f"{key}_risk_posterior", filename=f"dpviz-{key}-posterior")


def used_text(spent: Spending) -> str:
    """``Used 0.90 of your 1.00.``: the accounted ε against the ε set.

    Examples
    --------
    >>> from dpviz.privacy.risk import risk_of_epsilon
    >>> worst = risk_of_epsilon(0.9)
    >>> used_text(Spending(0.9012, 1e-5, 1.0, None, worst, worst))
    'Used 0.90 of your 1.00.'
    """
    return f"Used {spent.epsilon:.2f} of your {spent.allowed_epsilon:.2f}."


#: Said first on a run of the user's own data under teaching randomness (one rule for every
#: page): its noise is a function of the seed in the page's link, so the same run on a table of
#: zeros gives the noise away — ``run(X, seed) − run(0, seed)`` recovered a clipped mean
#: exactly. The guarantee that follows is what the same run has with secure randomness.
SEEDED_OWN_DATA = ("**Not a private release:** teaching randomness draws this run's noise "
                   "from the seed in the page's link, so anyone with the link can recompute "
                   "the noise and take it off your data's result. What follows is what the "
                   "same run guarantees with secure randomness: switch it on in the sidebar "
                   "before you show or share a result of your own data.")


def own_data(scenario: Scenario | None) -> bool:
    """Whether ``scenario`` runs the user's own data (a file, an upload: not public)."""
    return scenario is not None and any(kind in scenario.data for kind in USER_KINDS)


def seeded_own_data(scenario: Scenario | None) -> bool:
    """Whether ``scenario`` runs the user's own data under teaching randomness."""
    return own_data(scenario) and not st.session_state.get(SECURE, False)


def risk_panel(ledger: Ledger, scenario: Scenario | None = None, *, key: str, runs: int = 1,
               stated_delta: float | None = None, relation: Relation | None = None,
               not_private: str | None = None,
               accuracy: Mapping[str, pd.DataFrame] | None = None,
               notes: Sequence[str] = (), without_privacy: Collection[str] = ()) -> None:
    """The panel for a run: the ε set in plain words first, the accounting for experts.

    Parameters
    ----------
    ledger : Ledger
        What the page drew: the run's ledger, or several runs composed
        (:func:`dpviz.privacy.compose_runs`); every release is composed exactly (PLD).
    scenario : Scenario, optional
        The page's scenario: its budget is what the controls allowed, its task names the
        relation protected. Without one (the lens) the budget is the one the ledger was
        opened with.
    key : str
        Page prefix of the panel's element keys.
    runs : int
        How many runs of that budget ``ledger`` holds (a cloud, one run per estimator).
    stated_delta : float, optional
        For a ρ budget: the δ at which the page states it as (ε, δ).
    relation : Relation, optional
        The relation when there is no scenario (default: replace one row).
    not_private : str, optional
        Why the run has no guarantee (its result's ``not_private``): then no ε is stated,
        only that sentence — one rule for every page.
    accuracy : mapping, optional
        Caption → table of the page's accuracy, for the stakeholder report.
    notes : sequence of str
        Sentences the report prints under those tables.
    without_privacy : collection of str
        Captions of those tables computed from the rows without noise (distances to the exact
        answer): on the user's own data the report labels them, and its picture, as not
        covered by ε; its seeded-run sentence goes under the report's headline.
    """
    if not_private is not None:
        st.warning(f"**No privacy guarantee:** {escape_markdown(not_private)}. The noise in "
                   "the chart above was added, but no ε describes this run.",
                   icon=":material/gpp_bad:")
        return
    if not ledger.releases:
        st.caption("Nothing in this run was released with calibrated noise, so there is no "
                   "bound on what an attacker learns.")
        return
    budget = scenario.budget if scenario is not None else ledger.budget
    if budget is None:
        raise ValueError("the risk panel needs the budget the run was given")
    if relation is None:
        relation = (relation_of(estimator(scenario.task, scenario.estimator))
                    if scenario is not None else REPLACE_ONE)
    events = events_key(ledger)
    spent = ledger_spending(events, _budget_key(budget), stated_delta)
    plain = plain_risk(spent, relation, runs=runs)
    shown: Relation = relation

    def experts() -> None:
        pure = ", pure differential privacy" if spent.pure else ""
        why = why_different(spent, budget.method, runs)
        st.markdown(f"**{used_text(spent)}**" + (f" {why}" if why else ""))
        _pair_lines(shown, spent.own, f"{pair_text(spent.epsilon, spent.delta)}{pure}.",
                    label="Spent")
        if spent.tighter:
            st.caption(_two_curves(spent.own, spent.worst, noise_words(events),
                                   pair_text(spent.epsilon, spent.delta)))
        _curves(spent.own, spent.worst if spent.tighter else None, key=key)

    with st.container(border=True, key=f"{key}-risk"):
        if seeded_own_data(scenario):
            st.warning(SEEDED_OWN_DATA, icon=":material/key:")
        _summary(plain)
        _close(plain, key=key, accuracy=accuracy, experts=experts, notes=notes,
               scenario=scenario, without_privacy=without_privacy)


def plan_events(allocations: Mapping[str, Allocation]) -> EventKey:
    """A solved plan's releases as the panel's event key (``line → Allocation``)."""
    parts: dict[str | None, list[PrivacyEvent]] = {}
    for allocation in allocations.values():
        parts.setdefault(allocation.release.part, []).append(allocation.event())
    return tuple((part, tuple((e.kind, e.mu, e.epsilon, e.delta, e.count) for e in events))
                 for part, events in sorted(parts.items(), key=lambda kv: str(kv[0])))


def risk_panel_for(epsilon: float, delta: float, *, key: str,
                   plan: Mapping[str, Allocation] | None = None,
                   relation: Relation = REPLACE_ONE) -> None:
    """The panel for an (ε, δ) target alone (the Privacy budget page's), beside a plan.

    Parameters
    ----------
    epsilon, delta : float
        The target.
    key : str
        Page prefix of the panel's element keys.
    plan : mapping, optional
        The solved plan (``line → Allocation``) whose own trade-off curve is set beside the
        pair's worst case; the frequency reads it.
    relation : Relation
        The relation the plan's sensitivities are computed for.
    """
    worst = risk_of_epsilon(epsilon, delta)
    events = plan_events(plan) if plan else None
    own = plan_risk(events, delta) if events else None
    plain = PlainRisk(epsilon, epsilon, delta, picked_out(own or worst), relation)

    def experts() -> None:
        _pair_lines(relation, worst, f"{pair_text(epsilon, delta)}, what every plan on this "
                                     "page is solved to spend.", label="Target")
        if own is not None and events is not None and tighter(own, worst):
            st.caption(f"These numbers hold for any mechanism meeting the target. The plan "
                       f"drawn here, {noise_words(events)}, allows only {own.advantage:.1%} "
                       f"(true-positive rate {float(own.tpr(LOW_FPR)):.1%} at {LOW_FPR:.0%}): "
                       "its own trade-off curve, from its privacy loss distribution, is "
                       "tighter than the pair's worst case.")
            _curves(own, worst, key=key)
        else:
            _curves(worst, None, key=key)

    with st.container(border=True, key=f"{key}-risk"):
        _summary(plain)
        _close(plain, key=key, accuracy=None, notes=(), experts=experts)
