"""The glossary: every term the pages use, in plain words first and as a formula second.

Each entry has an anchor, so a help text links straight to it
(:func:`dpviz.ui.panels.risk.glossary`).
The three "best attack's advantage" numbers the pages give at ε = 1 are computed here, side by
side, from :mod:`dpviz.privacy.risk` (never typed in).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dpviz.privacy import PrivacyEvent, calibration
from dpviz.privacy.risk import (
    ADD_OR_REMOVE_ONE,
    LOW_FPR,
    ONE_EDGE,
    REPLACE_ONE,
    risk_of_epsilon,
    risk_of_events,
    risk_of_gaussian,
)

#: The budget at which the pages' three advantages are compared.
COMPARED = (1.0, 1e-5)


@dataclass(frozen=True)
class Term:
    """One glossary entry.

    Attributes
    ----------
    anchor : str
        The entry's link target (``/glossary#anchor``).
    title : str
        The term as the pages write it.
    plain : str
        What it means, in plain words (markdown).
    formulas : tuple of str
        LaTeX, shown with ``st.latex`` after the words.
    source : str
        Where the definition comes from.
    """

    anchor: str
    title: str
    plain: str
    formulas: tuple[str, ...] = ()
    source: str = ""


def _relations() -> str:
    return "\n".join(f"- **{r.name.capitalize()}**: {r.sentence}. OpenDP: `{r.opendp}`; "
                     f"dp-accounting: `{r.dp_accounting}`."
                     for r in (REPLACE_ONE, ADD_OR_REMOVE_ONE, ONE_EDGE))


TERMS: tuple[Term, ...] = (
    Term("what-epsilon-means", "What this ε means (the risk panel)",
         "Beside every budget a panel says, first and in plain words: the **ε you set**; "
         "what it means as **odds** (one person's data changes the chance of any result by "
         "at most a factor eᵋ, so someone 50% sure can become at most 73% sure at ε = 1); "
         "the best attack **in frequencies** with a 10 × 10 icon array (an attacker who may "
         "wrongly accuse 1 in 100 people not in the data picks out at most N in 100 of those "
         "who are, N read off the releases' own curve at 1% and rounded up); and a "
         "**risk level**. When a page drew several runs that together spend more than you "
         "set, the summary says so. Everything else — the ε the releases really used (\"used "
         "0.90 of your 1.00\"), δ, ρ, the relation's library names, the advantage and the "
         "curves — is in its closed \"For experts\" section. Each term is explained below."),
    Term("epsilon-and-delta", "ε and δ (the privacy budget)",
         "A release is differentially private when changing one person's data barely changes "
         "what anyone can see: the probability of every possible output moves by at most a "
         "factor eᵋ, except for a small probability δ. Smaller ε means more privacy and "
         "more noise; δ is kept far below one over the number of people.",
         (r"\Pr[M(D) \in S] \;\le\; e^{\varepsilon}\,\Pr[M(D') \in S] + \delta"
          r"\quad\text{for all neighbours } D, D' \text{ and all sets of outputs } S",),
         "Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Definition 2.4."),
    Term("pure-dp", "Pure differential privacy",
         "The guarantee with δ = 0: the factor eᵋ holds for every output, with no "
         "exception. The Laplace mechanism gives it; Gaussian noise cannot.",
         (r"\Pr[M(D) \in S] \;\le\; e^{\varepsilon}\,\Pr[M(D') \in S]",)),
    Term("neighbouring-datasets", "Neighbouring datasets (what is protected)",
         "The guarantee compares two inputs that differ in one unit of privacy. Which pairs "
         "count is part of the promise:\n\n" + _relations() + "\n\nEvery table on these "
         "pages protects *replace one row* (the number of rows is public); graphs protect "
         "*add or remove one edge*."),
    Term("sensitivity", "Sensitivity Δ",
         "The most one change between neighbours can move the exact answer. Noise is scaled "
         "to it: a statistic that one person can move a lot needs a lot of noise.",
         (r"\Delta \;=\; \max_{D \sim D'} \lVert f(D) - f(D') \rVert",)),
    Term("mechanisms", "Laplace and Gaussian noise",
         "The two ways most releases here add noise. Laplace noise of scale b = Δ/ε gives "
         "pure ε-DP. Gaussian noise of standard deviation σ gives (ε, δ)-DP; many Gaussian "
         "releases compose smoothly, which is why long plans use it.",
         (r"M(D) = f(D) + \mathrm{Lap}\!\left(\tfrac{\Delta_1}{\varepsilon}\right)",
          r"M(D) = f(D) + \mathcal{N}(0, \sigma^2 I),\qquad "
          r"\mu = \Delta_2/\sigma"),
         "Dwork et al. 2006; Balle & Wang 2018 (analytic Gaussian)."),
    Term("accounting", "Composition and accounting",
         "Every private release spends part of the budget. Accounting adds the parts up: "
         "**linear** composition sums the ε's; **advanced** composition, **zCDP**, the "
         "**moments accountant** and **Rényi DP** track the releases more tightly; the "
         "**privacy loss distribution** (PLD) composes them exactly. Tighter accounting "
         "needs less noise for the same guarantee, and can find that a run spent less than "
         "the accounting it used claimed.",
         (r"\varepsilon_{\text{linear}} = \sum_i \varepsilon_i",)),
    Term("rho-zcdp", "ρ (zero-concentrated DP, zCDP)",
         "Another currency for the budget, used by Gaussian noise: each release spends "
         "ρ = Δ²/(2σ²), and the ρ's of several releases simply add up. Budget bars are "
         "drawn in ε for everyone; ρ is in the panels' expert details. A total ρ is stated "
         "as an (ε, δ) guarantee by a conversion.",
         (r"\rho_{\text{total}} = \sum_i \rho_i,\qquad "
          r"\varepsilon = \rho + 2\sqrt{\rho \ln(1/\delta)}",),
         "Bun & Steinke 2016, Proposition 1.3 (the conversion); Canonne, Kamath & Steinke "
         "2020 give a tighter one."),
    Term("privacy-loss-distribution", "Privacy loss distribution (PLD)",
         "How much more likely each output is under one neighbour than under the other, as "
         "a distribution. Composing releases convolves their distributions; the result "
         "gives the exact ε at every δ, the tightest accounting there is.",
         (r"L(o) = \ln\frac{\Pr[M(D) = o]}{\Pr[M(D') = o]},\qquad "
          r"\delta(\varepsilon) = \mathbb{E}\big[(1 - e^{\varepsilon - L})_+\big]",),
         "Koskela, Jälkö & Honkela 2020; Google's dp-accounting library."),
    Term("membership-inference", "Membership inference, TPR and FPR",
         "An attack that looks at the release and guesses whether a given person's row was "
         "used. Its **true-positive rate** (TPR) is the share of present people it finds; "
         "its **false-positive rate** (FPR) the share of absent people it wrongly accuses. "
         "The panel quotes the best TPR at an FPR of 1%: an attacker who may accuse one "
         "innocent person in a hundred.",
         (r"\mathrm{TPR} = \Pr[\text{says in} \mid \text{in}],\qquad "
          r"\mathrm{FPR} = \Pr[\text{says in} \mid \text{out}]",),
         "Shokri et al. 2017; Carlini et al. 2022 (reading attacks at a low FPR)."),
    Term("advantage", "The best attack's advantage",
         "How much better than a coin flip the best attack can do: its true-positive rate "
         "minus its false-positive rate, at the best threshold. 0% is guessing, 100% is "
         "certainty. An (ε, δ) guarantee alone allows at most the first formula; a given "
         "mechanism often allows less (see the three answers below).",
         (r"\max_{\text{tests}}(\mathrm{TPR} - \mathrm{FPR}) \;\le\; "
          r"\frac{e^{\varepsilon} - 1 + 2\delta}{e^{\varepsilon} + 1}",
          r"\text{Gaussian releases (}\mu\text{-GDP): } 2\Phi(\mu/2) - 1"),
         "Kairouz, Oh & Viswanath 2015, Theorem 2.1; Dong, Roth & Su 2022."),
    Term("odds", "The odds: how sure an attacker can become",
         "Someone who was 50% sure that you are in the data can, after seeing an ε-DP "
         "release, become at most 73% sure at ε = 1, 88% at ε = 2, 98% at ε = 4. With δ > 0 "
         "the bound holds except on rare outputs of total probability δ. Odds were the "
         "explanation people understood best in a user study.",
         (r"\text{posterior} \;\le\; \frac{p\,e^{\varepsilon}}{p\,e^{\varepsilon} + 1 - p}"
          r"\;\overset{p = 1/2}{=}\; \frac{e^{\varepsilon}}{1 + e^{\varepsilon}}",),
         "Nanayakkara et al., USENIX Security 2023 (odds-based explanations)."),
    Term("risk-level", "Risk level: low, moderate, high",
         "The panel's one word for a guarantee, by thresholds on its ε: **low** up to ε = 1, "
         "**moderate** up to ε = 10, **high** above (or with no bound). Google's TensorFlow "
         "Privacy guide says ε should usually be \"a small constant (less than 10, or for "
         "more stringent privacy guarantees, less than 1)\"; Ponomareva et al. draw the same "
         "two lines as tiers of guarantee. They are conventions, not laws: the frequency "
         "beside them says what this release allows.",
         (),
         "TensorFlow Privacy, \"Measure privacy\" guide; Ponomareva et al., \"How to DP-fy "
         "ML\", JAIR 2023, Section 5.2."),
    Term("trade-off-curve", "The f-DP trade-off curve (type I and type II errors)",
         "Every membership test errs two ways: it accuses an absent person (type I error α, "
         "the false-positive rate) or misses a present one (type II error β, one minus the "
         "true-positive rate). The trade-off curve is the smallest β any test can reach at "
         "each α; a private release keeps every test above it. It is the whole picture of "
         "which the advantage and the TPR at 1% are two points.",
         (r"\beta(\alpha) \;\ge\; \max\{0,\; 1 - \delta - e^{\varepsilon}\alpha,\; "
          r"e^{-\varepsilon}(1 - \delta - \alpha)\}",
          r"\text{Gaussian: } \beta(\alpha) = \Phi\big(\Phi^{-1}(1 - \alpha) - \mu\big)"),
         "Dong, Roth & Su 2022, Definitions 2.1–2.7."),
    Term("audit", "Audit (a measured lower bound on ε)",
         "Run the mechanism many times on two neighbouring datasets and count how often a "
         "fixed test says 'the first'. The counts give a lower bound on ε at 95% confidence "
         "(Clopper–Pearson intervals): a correct mechanism's bound stays at or below the "
         "claim; a bug shows up as a bound above it.",
         (r"\hat\varepsilon \;\ge\; \ln\frac{\underline{\mathrm{TPR}} - \delta}"
          r"{\overline{\mathrm{FPR}}}",),
         "Jagielski, Ullman & Oprea 2020; Nasr et al. 2021."),
    Term("randomness", "Teaching randomness and secure randomness",
         "With a seed (teaching randomness) every rerun and every link draws the same noise, "
         "so a lesson can be repeated; such noise can be recomputed, so it protects no one. "
         "Secure randomness draws fresh noise from the operating system each time, as a "
         "real release must."),
    Term("clipping", "Public bound and clipping",
         "Sensitivity needs a bound on what one row can be. Rows are scaled or clipped into "
         "a ball of public radius R chosen without looking at the data; a radius read from "
         "the data would itself leak."),
    Term("dp-em-scenarios", "GGG and LLG (DP-EM's noise)",
         "DP-EM releases, at every iteration, the mixture's weights, means and covariances "
         "with noise. **GGG**: Gaussian noise on all three. **LLG**: Laplace noise on the "
         "weights and the means, Gaussian on the covariances.",
         source="Park, Foulds, Chaudhuri & Welling, AISTATS 2017, Algorithm 1."),
    Term("certificate", "The projection's certificate (stochastic block model)",
         "Private weak recovery projects the graph onto a convex set; the solver stops when "
         "it can certify that its answer is within a public tolerance of the exact "
         "projection. The certificate is that distance divided by the number of vertices: "
         "a diagnostic for the lesson, not part of the release.",
         (r"\tau_C / n \;\le\; \tau^*",),
         "Chen, Cohen-Addad, d'Orsi, Epasto, Imola, Steurer & Tiegel, NeurIPS 2023, "
         "Algorithm 5.4."),
    Term("kesten-stigum", "Kesten–Stigum threshold",
         "In a two-community graph of average degree d where an edge is (1 ± ε_s) times "
         "likelier inside than across, no algorithm, private or not, beats a coin flip "
         "below this threshold.",
         (r"\varepsilon_s^2\, d > 1",)),
    Term("errors", "Error measures",
         "How far an estimate is from the truth, in the data's units. **Error of the "
         "means**: the average distance between each true mean and the private one matched "
         "to it. **Weight error**: the summed difference of the mixture weights. "
         "**Covariance error** and **error of the matrix**: the Frobenius distance (every "
         "entry's difference, squared, summed, square-rooted). **Error rate** of a "
         "community recovery: the share of vertices put on the wrong side (0.5 is a coin "
         "flip); **overlap** is 1 − 2 × error rate.",
         (r"\frac{1}{k}\sum_j \lVert \mu_j - \tilde\mu_{\pi(j)} \rVert_2,\qquad "
          r"\lVert \tilde\Sigma - \Sigma \rVert_F = "
          r"\Big(\sum_{ab} (\tilde\Sigma_{ab} - \Sigma_{ab})^2\Big)^{1/2}",)),
    Term("interval", "Interval of a private estimate (“5.31 ± 0.42 (90 %)”)",
         "A range the page expects to hold the value being estimated in 90 runs of 100. It "
         "is worked out from the released numbers and the known amount of noise only, so it "
         "costs no extra privacy. It covers the noise and, for the mixtures, the luck of the "
         "draw of the rows; it does **not** cover the bias a tight bound adds by clipping "
         "rows, and a run that found the wrong clusters or gave no answer (⊥) can miss. The "
         "page shows one only where simulations measured that at least 88 of 100 such "
         "intervals held; elsewhere it says “no interval: coverage not established”.",
         (r"\tilde\theta \pm z_{0.95}\,\sigma,\qquad z_{0.95} \approx 1.645",),
         "Ferrando, Wang & Sheldon, AISTATS 2022 (parametric bootstrap for private "
         "intervals); Karwa & Vadhan, ITCS 2018."),
    Term("no-answer", "⊥ (no answer)",
         "Some estimators may refuse to answer (their noisy checks fail). The refusal is "
         "itself private: it depends on the data only through noisy releases, so seeing it "
         "teaches an attacker no more than ε allows."),
)


@dataclass(frozen=True)
class Answer:
    """One page's "best attack's advantage" at the compared budget, and why it is what it is."""

    page: str
    bounds: str
    advantage: float
    tpr: float
    why: str


def three_answers(epsilon: float = COMPARED[0], delta: float = COMPARED[1]) -> list[Answer]:
    """The three pages' advantages at one budget, computed from :mod:`dpviz.privacy.risk`.

    The Privacy budget page bounds any mechanism meeting (ε, δ); the Privacy lens gives one
    Laplace release its own (pure) curve; the Gaussian mixtures page composes DP-EM's
    Gaussian releases, whose noise zCDP accounting sets for (ε, δ): they act as one Gaussian
    release with ``μ = √(2ρ)``.
    """
    promise = risk_of_epsilon(epsilon, delta)
    laplace = risk_of_events({None: [PrivacyEvent("laplace", epsilon=epsilon)]}, 0.0)
    rho = calibration.zcdp_rho_for(epsilon, delta)
    gaussian = risk_of_gaussian(1.0, 1.0 / math.sqrt(2 * rho), 1, delta)
    return [
        Answer("Privacy budget", f"any mechanism meeting (ε = {epsilon:g}, δ = {delta:g})",
               promise.advantage, float(promise.tpr(LOW_FPR)),
               "The promise alone: the worst case over every mechanism that keeps it, whose "
               "trade-off curve has a sharp corner."),
        Answer("Privacy lens", f"one Laplace release with ε = {epsilon:g}", laplace.advantage,
               float(laplace.tpr(LOW_FPR)),
               "Laplace noise reaches the factor eᵋ only on part of its outputs, so its own "
               "curve is rounder than the promise's corner."),
        Answer("Gaussian mixtures", f"DP-EM's releases, noise set by zCDP for "
                                    f"(ε = {epsilon:g}, δ = {delta:g})",
               gaussian.advantage, float(gaussian.tpr(LOW_FPR)),
               f"Gaussian noise is far from the corner, and zCDP accounting leaves slack: "
               f"the releases, nearly all Gaussian, act as one Gaussian release with "
               f"μ ≈ {gaussian.mu:.2f}, whose "
               f"exact ε at δ = {delta:g} is below the {epsilon:g} allowed."),
    ]


def answers_table(answers: list[Answer]) -> pd.DataFrame:
    """The three answers as the page's table."""
    return pd.DataFrame({
        "page": [a.page for a in answers],
        "what the number bounds": [a.bounds for a in answers],
        "best attack's advantage": [f"{a.advantage:.1%}" for a in answers],
        f"true-positive rate at {LOW_FPR:.0%} false positives": [f"{a.tpr:.1%}"
                                                                 for a in answers],
        "why": [a.why for a in answers],
    })


def _entry(term: Term) -> None:
    st.subheader(term.title, anchor=term.anchor)
    st.markdown(term.plain)
    for formula in term.formulas:
        st.latex(formula)
    if term.source:
        st.caption(term.source)


def show() -> None:
    """The glossary page: a table of contents, the three answers side by side, every term."""
    st.markdown("Every term the pages use, in plain words first and as a formula second. "
                "Each help icon on the pages links to its entry here.")
    st.markdown(" · ".join(f"[{t.title}](#{t.anchor})" for t in TERMS))
    epsilon, delta = COMPARED
    st.subheader(f"Three answers at ε = {epsilon:g}, side by side", anchor="three-answers")
    answers = three_answers()
    st.markdown(f"At ε = {epsilon:g} the Privacy budget, Privacy lens and Gaussian mixtures "
                f"pages give the best attack's advantage as "
                f"{', '.join(f'{a.advantage:.1%}' for a in answers)}. All three are right: "
                "each bounds a different thing. The (ε, δ) promise bounds every mechanism "
                "that keeps it; a particular mechanism's own trade-off curve is tighter.")
    st.dataframe(answers_table(answers), hide_index=True, key="glossary_answers")
    st.caption("The odds ('50% sure becomes at most 71–73% sure') depend on ε alone, so they "
               "hardly differ between the pages: the advantage and the true-positive rate "
               "read the whole trade-off curve.")
    for term in TERMS:
        _entry(term)
