"""Every registered metric has a readable label (pages show it, never the metric's name)."""

from __future__ import annotations

import re

import pytest

from dpviz.estimators.metrics import LABELS, METRICS, metric_label


def test_every_metric_has_a_label_and_no_label_is_an_orphan():
    assert {t: set(m) for t, m in LABELS.items()} == {t: set(m) for t, m in METRICS.items()}


@pytest.mark.parametrize("task, name", [(t, n) for t, m in METRICS.items() for n in m])
def test_a_label_never_quotes_an_internal_name(task, name):
    text = metric_label(task, name).text
    assert not re.search(r"\w_\w", text), text  # no snake_case id such as mean_error
    assert text[0].islower() and len(text) > len(name) // 2


def test_an_unknown_metric_is_refused_with_the_task_s_metrics():
    with pytest.raises(ValueError, match="unknown metric 'x' for the task 'sbm'.*overlap"):
        metric_label("sbm", "x")
