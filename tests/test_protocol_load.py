"""The protocol load test's own checks (bench/protocol_load.py): ε found by its label, the
widget state a browser would send, and isolation failures that it must report."""

import sys
from pathlib import Path

from streamlit.proto.Element_pb2 import Element

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.protocol_load import Run, Student, epsilon_state, find_epsilon, isolation  # noqa: E402


def element(kind: str, label: str, widget_id: str) -> Element:
    e = Element()
    widget = getattr(e, kind)
    widget.label, widget.id = label, widget_id
    return e


def test_the_typed_epsilon_box_is_found_by_its_label_before_the_slider() -> None:
    run = Run(elements=[(element("number_input", "δ", "d"), ""),
                        (element("slider", "ε", "s"), "f1"),
                        (element("number_input", "ε, typed", "box"), "f2")])
    hit = find_epsilon(run)
    assert hit is not None
    found, fragment = hit
    assert (found.number_input.id, fragment) == ("box", "f2")
    assert epsilon_state(found, 1.25).double_value == 1.25
    only_slider = Run(elements=[(element("slider", "ε", "s"), "")])
    hit = find_epsilon(only_slider)
    assert hit is not None
    assert list(epsilon_state(hit[0], 0.5).double_array_value.data) == [0.5]
    assert find_epsilon(Run(elements=[(element("slider", "δ", "x"), "")])) is None


def test_isolation_reports_another_seed_shared_data_and_shared_means() -> None:
    a, b = Student(index=0, seed=1000), Student(index=1, seed=1001)
    a.seeds_shown, b.seeds_shown = {1000.0}, {1001.0}
    a.data_hashes, b.data_hashes = {"d0"}, {"d1"}
    a.means[1.0].add("m0")
    b.means[1.0].add("m1")
    assert isolation([a, b]) == []
    b.seeds_shown.add(1000.0)
    b.data_hashes = {"d0"}
    b.means[1.01].add("m0")
    found = isolation([a, b])
    assert any("was shown seed(s) [1000.0]" in f for f in found)
    assert "students 0 and 1 saw the same data" in found
    assert "students 0 and 1 were shown the same private means" in found
