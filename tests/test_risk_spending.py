"""What a run spent against what it was allowed, the relations, and the panel's sentences.

Issue 18 item 1, without a page: :func:`dpviz.privacy.risk.spending`, the relations named as
OpenDP and dp-accounting name them, the sentence saying why the spent ε is not the allowed
one, and the glossary's three answers at ε = 1.
"""

from __future__ import annotations

import math

import dp_accounting
import opendp.prelude as dp
import pytest

from dpviz.estimators.registry import RELATIONS, TASKS
from dpviz.privacy import METHODS, Budget, PrivacyEvent, calibration
from dpviz.privacy.risk import (
    ADD_OR_REMOVE_ONE,
    ONE_EDGE,
    REPLACE_ONE,
    risk_of_epsilon,
    spending,
)
from dpviz.ui.pages.glossary import three_answers
from dpviz.ui.panels.risk import noise_words, why_different


def gaussian(rho: float) -> dict[str | None, list[PrivacyEvent]]:
    """One Gaussian release of zCDP parameter ρ (μ = √(2ρ))."""
    return {None: [PrivacyEvent("gaussian", mu=math.sqrt(2 * rho))]}


def sentences(text: str) -> int:
    return sum(text.count(end) for end in (". ", ".\n")) + text.endswith(".")


@pytest.mark.parametrize("relation", [REPLACE_ONE, ADD_OR_REMOVE_ONE, ONE_EDGE])
def test_relations_are_named_as_the_libraries_name_them(relation):
    assert relation.dp_accounting in dp_accounting.NeighboringRelation.__members__
    assert hasattr(dp, relation.opendp)


def test_every_task_states_its_relation():
    assert set(RELATIONS) == set(TASKS)
    assert RELATIONS["sbm"] is ONE_EDGE and RELATIONS["gmm"] is REPLACE_ONE


def test_pure_releases_spend_pure_epsilon_whatever_delta_the_budget_allows():
    spent = spending({None: [PrivacyEvent("laplace", epsilon=0.5, count=2)]},
                     Budget(epsilon=1.0, delta=1e-5, method="linear"))
    assert spent.pure and spent.delta == 0 and spent.epsilon == pytest.approx(1.0)
    assert spent.change == 0 and why_different(spent, "linear", 1) is None


def test_zcdp_planned_gaussians_spend_less_and_say_so_in_one_sentence():
    rho = calibration.zcdp_rho_for(1.0, 1e-5)
    spent = spending(gaussian(rho), Budget(epsilon=1.0, delta=1e-5, method="zcdp"))
    assert 0.85 < spent.epsilon < 0.95 and spent.delta == 1e-5 and spent.change < 0
    why = why_different(spent, "zcdp", 1)
    assert why is not None and sentences(why) == 1
    assert why.startswith(f"Tighter accounting found you spent {spent.epsilon:.2f} of the 1.00")
    # the releases' own curve is far tighter than the pair's corner: both are said
    assert spent.tighter and spent.own.advantage < 0.11 < 0.4 < spent.worst.advantage
    assert spent.worst == risk_of_epsilon(spent.epsilon, 1e-5)


def test_a_rho_budget_is_stated_at_the_pages_delta():
    spent = spending(gaussian(0.1), Budget(rho=0.1), stated_delta=1e-10)
    assert spent.delta == 1e-10 and spent.allowed_rho == 0.1
    assert spent.allowed_epsilon == pytest.approx(calibration.zcdp_epsilon_bun_steinke(0.1, 1e-10))
    assert spent.epsilon < spent.allowed_epsilon
    why = why_different(spent, "zcdp", 1)
    assert why is not None and "ρ = 0.1, stated as ε = 3.13 at δ = 1e-10" in why


def test_several_runs_charged_together_are_said_so():
    spent = spending(gaussian(0.3), Budget(rho=0.1), stated_delta=1e-10)
    why = why_different(spent, "zcdp", 3)
    assert why is not None and why.startswith("This page drew 3 private runs")
    assert f"together they spent ε = {spent.epsilon:.3g}." in why and sentences(why) == 1


def test_noise_in_words():
    assert noise_words(((None, (("gaussian", 1.0, 0.0, 0.0, 3),)),)) == "all Gaussian noise"
    assert noise_words(((None, (("gaussian", 1.0, 0.0, 0.0, 3), ("laplace", 0.0, 1.0, 0.0, 1))),
                        )) == "Gaussian and Laplace noise"


def test_the_three_answers_at_epsilon_one():
    promise, laplace, gaussian_releases = three_answers()
    assert promise.advantage == pytest.approx(math.tanh(0.5) + 2e-5 / (math.e + 1))  # 46.2%
    assert laplace.advantage == pytest.approx(1 - math.exp(-0.5), abs=1e-3)  # 39.3%
    assert 0.09 < gaussian_releases.advantage < 0.105  # DP-EM's 9.8% on /gmm
    assert promise.tpr > laplace.tpr - 1e-9 and laplace.tpr > gaussian_releases.tpr


@pytest.mark.parametrize("method", METHODS)
def test_every_accounting_method_has_its_sentence(method):
    rho = calibration.zcdp_rho_for(1.0, 1e-5)
    spent = spending(gaussian(rho / 4), Budget(epsilon=1.0, delta=1e-5, method=method))
    why = why_different(spent, method, 1)
    assert why is not None and sentences(why) == 1  # a quarter of ρ spends less
    assert f"spent {spent.epsilon:.2f} of the 1.00 you allowed" in why
