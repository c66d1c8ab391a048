"""Figures of a live class's predictions against the truth (issue 19, part 2; issue 34: they
are projected, so they carry no names)."""

from __future__ import annotations

import json

from dpviz.viz.live import PREDICTION_COLOR, class_numbers, class_points, class_yes_no
from dpviz.viz.style import COLORS


def test_yes_no_counts_each_answer_and_colours_the_true_one():
    fig = class_yes_no([True, True, False], [False, False], title="Will the audit catch it?")
    (bars,) = fig.data
    assert list(bars.x) == ["yes", "no"] and list(bars.y) == [2, 1]
    assert list(bars.marker.color) == [PREDICTION_COLOR, COLORS["private"]]
    assert fig.layout.title.text.endswith("(truth: no)")


def test_points_draw_each_true_point_once_and_name_nobody():
    fig = class_points([(1.0, 2.0), (3.0, 4.0)], [(0.5, 1.5), (0.5, 1.5), (4.0, 0.0)],
                       title="Where?")
    said, truth = fig.data
    assert said.text is None and "text" not in said.hovertemplate
    assert sorted(zip(truth.x, truth.y, strict=True)) == [(0.5, 1.5), (4.0, 0.0)]


def test_numbers_are_a_histogram_and_one_trace_of_a_line_per_distinct_truth():
    fig = class_numbers([0.2, 0.9, 2.0], [1.0, 1.0, 1.5], title="ε?", label="ε")
    bars, lines = fig.data
    assert bars.type == "histogram" and sorted(bars.x) == [0.2, 0.9, 2.0]
    assert list(lines.x) == [1.0, 1.0, None, 1.5, 1.5, None] and lines.yaxis == "y2"
    assert not fig.layout.shapes and fig.layout.annotations[0].text == "truth 1 to 1.5 (2 values)"
    assert fig.layout.yaxis.title.text == "predictions"


def test_a_hundred_distinct_truths_still_make_two_traces_and_one_annotation():
    fig = class_numbers([0.1 * i for i in range(100)], [1.0 + 0.01 * i for i in range(100)],
                        title="t", label="v")
    assert len(fig.data) == 2 and len(fig.layout.annotations) == 1 and not fig.layout.shapes


def test_no_figure_carries_a_name_anywhere_in_its_json():
    figures = [class_points([(1.0, 2.0)], [(0.0, 0.0)], title="t"),
               class_numbers([0.2, 0.4], [0.3], title="t", label="v"),
               class_yes_no([True], [True], title="t")]
    for fig in figures:
        for trace in json.loads(fig.to_json())["data"]:
            assert "text" not in trace or trace["type"] == "bar"  # a bar's text is its count


def test_a_stored_question_is_escaped_in_every_title():
    question = "<a href='x'>How wide?</a>"
    figures = [class_points([(1.0, 2.0)], [], title=question),
               class_numbers([0.2], [], title=question, label="<b>v</b>"),
               class_yes_no([True], [True], title=question)]
    for fig in figures:
        assert fig.layout.title.text.startswith("&lt;a href='x'&gt;How wide?")
        assert "<a" not in fig.layout.title.text
    assert figures[1].layout.xaxis.title.text == "&lt;b&gt;v&lt;/b&gt;"
