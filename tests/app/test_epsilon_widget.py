"""ε as people use it (issue 19, part 5): on every page a typed ε reaches the run, and an old
link's ε (a value off the slider's stops) opens as it was.

Each case opens its page from a link carrying ε = 0.37, then types 0.3 in the number box; the
page's own words about its run (the risk panel, the scenario's link, the figure's legend)
must state that ε.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.ui.panels.audit import GALLERY_TAB
from dpviz.ui.widgets import EPSILON_STOPS, nearest_stop

from .app_helpers import ROOT, TIMEOUT, charts, errors


def _text(at: AppTest) -> str:
    return "\n".join(e.value for e in [*at.markdown, *at.caption, *at.code])


def _spent(at: AppTest, epsilon: float) -> bool:
    """The risk panel's headline: the ε set (issue 35)."""
    return f"**Privacy budget: ε = {epsilon:.3g}**" in _text(at)


def _target(at: AppTest, epsilon: float) -> bool:
    return f"**Privacy budget: ε = {epsilon:.3g}**" in _text(at)


def _linked(page: str, key: str) -> Callable[[AppTest, float], bool]:
    """The scenario's link carries ``key=epsilon`` (the numbers as the browser writes them)."""
    def check(at: AppTest, epsilon: float) -> bool:
        found = re.search(rf"/{page}\?(?:\S*&)?{key}=([0-9.e+-]+)", _text(at))
        return found is not None and float(found.group(1)) == epsilon
    return check


def _gallery(at: AppTest, epsilon: float) -> bool:
    at.button(key="lens_gallery").click().run()
    title = charts(at)["lens_gallery_chart"]["layout"]["title"]["text"]
    return title.endswith(f"claimed ε = {epsilon:g}")


#: page, ε key, other link parameters, the check that the run used an ε.
CASES = [
    ("lens", "lens_epsilon", {}, _spent),
    ("gmm", "gmm_epsilon", {"gmm_n": "2000"}, _linked("gmm", "gmm_epsilon")),
    ("sbm", "sbm_epsilon", {"sbm_n": "200", "sbm_degree": "40", "sbm_signal": "0.8"},
     _linked("sbm", "sbm_epsilon")),
    ("covariance", "cov_epsilon", {"cov_budget": "epsilon"},
     _linked("covariance", "cov_epsilon")),
    ("budget", "budget_epsilon", {}, _target),
    ("exposure", "exposure_epsilon", {}, _spent),
    ("lens", "gallery_epsilon", {"lens_tab": GALLERY_TAB}, _gallery),
]


def _open(page: str, params: dict[str, str]) -> AppTest:
    """Home, then the page from a link with ``params`` (as a shared link opens it)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page(f"pages/{page}.py")
    at.query_params.update(params)
    return at.run()


@pytest.mark.parametrize(("page", "key", "params", "used"), CASES,
                         ids=[case[1] for case in CASES])
def test_an_old_link_opens_and_a_typed_epsilon_is_the_runs(page, key, params, used):
    at = _open(page, {**params, key: "0.37"})
    assert not at.exception and not errors(at), (at.exception, errors(at))
    assert at.number_input(key=key).value == pytest.approx(0.37)
    assert at.select_slider(key=f"{key}_slider").value == 0.4  # the nearest stop shows it
    assert used(at, 0.37)
    at.number_input(key=key).set_value(0.3).run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    assert at.select_slider(key=f"{key}_slider").value == 0.3
    assert used(at, 0.3)


def test_the_slider_sets_the_box_and_keeps_the_useful_range_wide():
    at = _open("gmm", {"gmm_n": "2000"})
    at.select_slider(key="gmm_epsilon_slider").set_value(2.0).run()
    assert at.number_input(key="gmm_epsilon").value == 2.0
    assert _linked("gmm", "gmm_epsilon")(at, 2.0)
    # log scale: 0.1 to 2, where ε is chosen, takes at least half the track
    span = EPSILON_STOPS.index(2.0) - EPSILON_STOPS.index(0.1)
    assert span / (len(EPSILON_STOPS) - 1) >= 0.5
    assert nearest_stop(0.01) == EPSILON_STOPS[0] and nearest_stop(20.0) == EPSILON_STOPS[-1]


def test_a_link_outside_the_range_falls_back_to_the_default():
    at = _open("budget", {"budget_epsilon": "50"})
    assert not at.exception
    assert at.number_input(key="budget_epsilon").value == 1.0
    assert at.select_slider(key="budget_epsilon_slider").value == 1.0
