"""``run``'s bounds on the command line (issue 30 items 3 and 6): how the bound was found,
what a run without one says, ``--bounds R``, and estimates in the table's own units."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpviz import cli

#: Three columns in units of about 10, 10 and 1 000 (the issue's mixed-unit table).
rng = np.random.default_rng(5)
GROUPS = rng.integers(0, 3, 400)
CENTRES = np.array([[12.0, 3.0, 400.0], [14.0, 8.0, 900.0], [13.0, 12.0, 1500.0]])
ROWS = CENTRES[GROUPS] + np.array([0.4, 0.8, 50.0]) * rng.standard_normal((400, 3))
RANGES = "8:16,0:15,0:2000"


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "mixed.csv"
    np.savetxt(path, ROWS, delimiter=",", header="alcohol,color,proline", comments="",
               fmt="%.6g")
    return path


def run(capsys, *argv):
    code = cli.main(["run", *argv])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if code == 0 else None, captured.err


def gmm(table, *extra):
    return ("gmm", "em", "--data", str(table), "--k", "3", "--epsilon", "inf", "--seed", "0",
            *extra)


def test_a_table_without_a_bound_says_its_rows_are_clipped_to_the_unit_ball(table, capsys):
    code, out, err = run(capsys, *gmm(table))
    assert code == 0
    assert err == f"dpviz: warning: {cli.NO_BOUND}\n"
    assert "every row outside the unit ball B(0, 1) is clipped" in err
    assert "--bounds R" in err and "--bounds private:SHARE" in err and "LOW:HIGH" in err
    assert not any(c.isdigit() for c in err.split("B(0, 1)")[1])  # no count of rows
    assert "default unit ball" in out["choices"]["bound"]
    assert np.linalg.norm(out["means"], axis=1).max() <= 1 + 1e-9


@pytest.mark.parametrize(("bound", "label"), [
    (["--bounds", "2000"], "rows clipped to a ball of radius 2000 (public, given)"),
    (["--radius", "2000"], "rows clipped to a ball of radius 2000 (public, given)"),
    (["--bounds", RANGES], "per-column ranges typed by the user (public, given)"),
    (["--bounds", "private:0.2"], "per-column ranges estimated privately with 20% of the "
                                  "budget"),
    (["--bounds", "data"], "per-column ranges read from the data — not private"),
    (["--radius", "data"], "read from the data — not private"),
])
def test_the_json_labels_the_bound_by_how_it_was_found(table, capsys, bound, label):
    code, out, err = run(capsys, "gmm", "dp_em", "--data", str(table), "--k", "3",
                         "--epsilon", "1", "--delta", "1e-5", "--seed", "0", *bound)
    assert code == 0, err
    assert label in out["choices"]["bound"]
    assert "public" not in out["choices"]["bound"] or "given" in label
    assert cli.NO_BOUND not in err


def test_bounds_r_is_radius_r(table, capsys):
    _, by_bounds, _ = run(capsys, *gmm(table, "--bounds", "2000"))
    _, by_radius, _ = run(capsys, *gmm(table, "--radius", "2000"))
    assert by_bounds == by_radius


@pytest.mark.parametrize(("value", "sentence"), [
    ("-1", "--bounds R is the radius of a ball about the origin: it must be > 0"),
    ("0", "--bounds R is the radius of a ball about the origin: it must be > 0"),
    ("wide", "bounds must be 'data', 'private:SHARE'"),
])
def test_a_bad_bounds_is_one_sentence_and_exit_2(table, capsys, value, sentence):
    code, _, err = run(capsys, *gmm(table, "--bounds", value))
    assert code == 2 and err.count("\n") == 1 and sentence in err, err


def test_bounds_and_radius_together_are_refused(table, capsys):
    code, _, err = run(capsys, *gmm(table, "--bounds", "5", "--radius", "5"))
    assert code == 2 and "give it or --radius, not both" in err


def test_estimates_come_back_in_the_tables_units(table, capsys):
    """Typed ranges centre the columns inside; the JSON's means are in the CSV's units."""
    code, out, err = run(capsys, *gmm(table, "--bounds", RANGES))
    assert code == 0, err
    means = np.array(out["means"])
    assert np.abs(means[np.argsort(means[:, 2])] - CENTRES).max(axis=0).tolist() <= [
        0.2, 0.2, 10.0]
    assert out["choices"]["columns"] == ["alcohol", "color", "proline"]
    assert out["choices"]["centre"] == [12.0, 7.5, 1000.0]  # what was taken off inside
    code, out, err = run(capsys, "gmm", "grid_means", "--data", str(table), "--k", "3",
                         "--epsilon", "8", "--delta", "1e-5", "--seed", "0", "--bounds", RANGES)
    assert code == 0, err
    means = np.array(out["means"])[np.argsort(np.array(out["means"])[:, 2])]
    assert np.abs(means - CENTRES).max(axis=0).tolist() <= [10.0, 10.0, 100.0]
