"""The protocol load test's own checks (bench/protocol_load.py): ε found by its label, the
widget state a browser would send, isolation failures that it must report, and the students
per core it states."""

import sys
from pathlib import Path

from streamlit.proto.Element_pb2 import Element

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.protocol_load import (  # noqa: E402
    Run,
    Student,
    epsilon_state,
    find_epsilon,
    find_toggle,
    isolation,
    per_core,
    toggle_state,
)


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


def test_epsilon_is_a_word_of_the_label_and_the_signal_is_not_it() -> None:
    run = Run(elements=[(element("number_input", "Signal ε_s", "signal"), ""),
                        (element("number_input", "Privacy ε, typed", "box"), "")])
    hit = find_epsilon(run)
    assert hit is not None and hit[0].number_input.id == "box"
    assert find_epsilon(Run(elements=[(element("slider", "Signal ε_s", "s"), "")])) is None
    stated = Run(elements=[(element("slider", "ε (stated at δ = 1e-10)", "cov"), "")])
    assert find_epsilon(stated) is not None


def test_the_secure_toggle_is_found_by_its_label_and_switched_on() -> None:
    run = Run(elements=[(element("checkbox", "Predict first", "p"), ""),
                        (element("checkbox", "Secure randomness", "secure"), "")])
    toggle = find_toggle(run, "Secure randomness")
    assert toggle is not None
    state = toggle_state(toggle, True)
    assert (state.id, state.bool_value) == ("secure", True)
    assert find_toggle(Run(), "Secure randomness") is None


def test_a_shared_dataset_is_no_violation_where_the_page_gives_everyone_one() -> None:
    a, b = Student(index=0, seed=1000), Student(index=1, seed=1001)
    a.data_hashes, b.data_hashes = {"d"}, {"d"}
    assert "students 0 and 1 saw the same data" in isolation([a, b])
    assert isolation([a, b], own_data=False) == []


def test_students_per_core_is_the_largest_class_held_over_the_processes() -> None:
    def entry(students: int, processes: int, p95: float, errors: int = 0) -> dict:
        return {"page": "sbm", "mode": "secure", "students": students, "processes": processes,
                "turnaround": {"p95_s": p95}, "error_count": errors}

    assert per_core([entry(30, 2, 0.4), entry(60, 2, 0.9), entry(120, 2, 1.4)]) == \
        {"sbm/secure": 30}
    assert per_core([entry(30, 1, 0.5, errors=1)]) == {"sbm/secure": 0}
    # a class that held above one that missed at fewer per process does not count
    assert per_core([entry(30, 1, 1.2), entry(120, 2, 0.7)]) == {"sbm/secure": 0}
