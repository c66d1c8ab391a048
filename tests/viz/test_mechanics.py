"""No ε beside a run without a guarantee (issue 21 item 3).

Every not-private mode of the registry's mixture estimators — each story's mechanics (the
scenario without noise, :func:`dpviz.ui.pages.gmm_runs.mechanics_scenario`) and the non-private
references — is drawn, and no ε may appear in its figures or in the panel's words.
"""

from __future__ import annotations

import json
import math
import warnings

import pytest

from dpviz.core.entry import StoryInputs
from dpviz.estimators.registry import TASKS
from dpviz.lab.scenario import Scenario, load_data, run_scenario
from dpviz.ui.pages.gmm_runs import MECHANICS_NOTE, MECHANICS_TITLE, mechanics_scenario

EPSILONS = ("ε", "ϵ", "epsilon", "Epsilon")
DATA = {"generator": "gmm", "n": 2_000, "d": 2, "k": 3, "separation": 8.0, "seed": 0}
#: Each story's estimator, and the non-private references.
MODES = sorted(name for name, entry in TASKS["gmm"].items()
               if entry.story is not None or entry.notion == "none")


def text_of(figure) -> str:
    return json.dumps(figure.to_plotly_json(), ensure_ascii=False, default=str)


def test_the_panel_says_not_private_and_names_no_epsilon():
    assert "not private" in MECHANICS_TITLE
    for words in (MECHANICS_TITLE, MECHANICS_NOTE):
        assert not any(e in words for e in EPSILONS)


@pytest.mark.parametrize("name", MODES)
def test_no_epsilon_is_drawn_beside_a_run_without_a_guarantee(name):
    entry = TASKS["gmm"][name]
    private = Scenario.from_dict({"task": "gmm", "estimator": name, "data": DATA,
                                  "params": {"k": 3, "epsilon": 1.0, "delta": 1e-5},
                                  "seed": 0})
    plain = mechanics_scenario(private) if entry.notion != "none" else private
    assert math.isinf(plain.params["epsilon"]) or entry.notion == "none"
    loaded = load_data(plain.data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_scenario(plain, loaded)
    assert not result.ledger.releases or all(math.isinf(r.epsilon or math.inf)
                                             for r in result.ledger.releases)
    if entry.story is None:
        return
    rows = entry.story.rows(result, StoryInputs(rows=loaded.data, labels=loaded.truth.labels,
                                                true_means=loaded.truth.means, k=3))
    assert rows, f"{name}: its mechanics draw nothing"
    for row in rows:
        for figure in row:
            drawn = text_of(figure.figure)
            assert not any(e in drawn for e in EPSILONS), (name, figure.key)
            assert "private" not in figure.figure.layout.title.text.lower().replace(
                "not private", ""), (name, figure.key)
