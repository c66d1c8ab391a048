"""Walk Home's lessons: each step's link opens its page with what dpviz.lab.lessons measured,
and the page's own words agree with the claim measured there."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpviz.lab import lessons
from dpviz.lab.scenario import run_scenario
from dpviz.ui.pages.home import DEMO, LESSON, Step

from .app_helpers import ROOT, TIMEOUT, charts, errors, values


def follow(step: Step) -> AppTest:
    """Open Home, then the step's page with its link's parameters (seed 0, the default)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page(step.entry.page)
    at.query_params.update(dict(step.entry.params))
    at.run()
    assert not at.exception, at.exception
    assert not errors(at)
    return at


def mean_error(at: AppTest) -> float:
    """The private run's mean error in the mixture page's error table."""
    table = next(d.value for d in at.dataframe if "mean error" in d.value.columns)
    return float(table["mean error"][0])


def test_the_lens_step_shows_the_odds_capped_at_e_to_the_epsilon():
    at = follow(LESSON.steps[0])
    said = [c.value for c in at.caption if "privacy loss never leaves" in c.value]
    assert said and f"±{lessons.LENS_EPSILON:g}," in said[0]
    odds = lessons.lens_odds(lessons.LENS_EPSILON, 0)
    loss = values(next(t for t in charts(at)["lens_loss"]["data"]
                       if t["name"] == "privacy loss")["y"])
    assert abs(loss).max() == pytest.approx(odds.loss)
    at.number_input(key="lens_epsilon").set_value(lessons.LENS_ENDS[1]).run()
    assert any(f"±{lessons.LENS_ENDS[1]:g}," in c.value for c in at.caption)


def test_the_exposure_step_shows_the_person_exposed_then_less_noise():
    at = follow(LESSON.steps[1])
    assert at.number_input(key="exposure_epsilon").value == lessons.EXPOSURE_EPSILON
    small, large = (lessons.exposure_comparison(lessons.exposure_scenario(
        lessons.EXPOSURE_EPSILON, lessons.EXPOSURE_DELTA, scale=s, seed=0, data_seed=0))
        for s in lessons.SCALES)
    assert small.exposes and small.protects and lessons.closer(small, large)
    table = at.dataframe[0].value
    assert list(table["DP-EM ↔ EM, mean distance of matched means"]) == \
        [f"{small.gap:.3f}", f"{large.gap:.3f}"]
    said = " ".join(m.value for m in at.markdown)
    assert "it is their row" in said and "keeps it off them" in said
    assert ": closer, because" in said and "the same ε needs less noise" in said
    at.toggle(key="exposure_x50").set_value(True).run()
    assert ": closer, because" in " ".join(m.value for m in at.markdown)


def test_the_budget_step_shows_several_times_less_noise():
    at = follow(LESSON.steps[2])
    gain = lessons.accounting_gain(lessons.budget_solutions())
    assert gain is not None and gain.low >= lessons.SEVERAL
    assert any(f"needs {gain.low:.1f}× the noise" in i.value for i in at.info)


@pytest.mark.parametrize("step", [LESSON.steps[3], DEMO.steps[1]], ids=["lesson", "demo"])
def test_the_mixture_step_runs_the_scenario_measured(step, ran):
    at = follow(step)
    epsilon = float(dict(step.entry.params)["gmm_epsilon"])
    # the page spells out every default the engine fills in: the same run
    same = run_scenario(lessons.gmm_scenario(epsilon, 0)).estimate["means"]
    np.testing.assert_array_equal(run_scenario(ran[0]).estimate["means"], same)
    shown = mean_error(at)
    fit = lessons.gmm_fit(epsilon, 0)
    assert shown == pytest.approx(fit.error, rel=1e-3)
    at.number_input(key="gmm_epsilon").set_value(lessons.GMM_TOP_EPSILON).run()
    assert mean_error(at) < shown


@pytest.mark.slow
@pytest.mark.parametrize("step", [LESSON.steps[4], DEMO.steps[2]], ids=["lesson", "demo"])
def test_the_gallery_step_catches_every_variant(step):
    at = follow(step)
    at.button(key="lens_gallery").click().run()
    assert not at.exception, at.exception
    assert len([e for e in at.error if "privacy violation caught" in e.value.lower()]) == 4
    assert not [w for w in at.warning if "not caught" in w.value]


def test_the_demo_lens_shows_two_overlapping_curves():
    at = follow(DEMO.steps[0])
    figure = charts(at)["lens_densities"]["data"]
    assert len(figure) >= 2
    assert lessons.lens_odds(lessons.DEMO_LENS_EPSILON, 0).overlap > 0.5
