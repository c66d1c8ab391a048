"""The expected accuracy of a private run (issue 30 item 1): public inputs only, cached per
public shape, and it holds against real tables' runs (the issue's acceptance walk)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from dpviz.lab import expectation
from dpviz.lab.expectation import Expected, Table, expected, public_shape, table_scenario
from dpviz.lab.scenario import Scenario


def test_the_shape_reads_public_inputs_only():
    typed = table_scenario("dp_em", k=3, epsilon=1.0,
                           bounds={"ranges": [[0, 8], [0, 3]], "standardise": False})
    shape = public_shape(typed, {"clipped_rows": {"count": 7, "of": 150}}, (150, 2))
    assert shape == public_shape(typed, {"clipped_rows": {"count": 0, "of": 150}}, (150, 2))
    assert shape == Table("dp_em", 150, 2, 3, 1.0, ranges=((0.0, 8.0), (0.0, 3.0)))


def test_no_prediction_from_a_bound_read_from_the_data_or_a_non_private_run():
    read = table_scenario("dp_em", k=3, epsilon=1.0, bounds={"data": True})
    assert public_shape(read, {"ranges": [[1, 7], [0, 3]]}, (150, 2)) is None
    plain = table_scenario("em", k=3, epsilon=math.inf, radius=10.0)
    assert public_shape(plain, {}, (150, 2)) is None


def test_private_ranges_predict_from_the_released_box_and_the_estimators_share():
    private = table_scenario("dp_em", k=3, epsilon=1.0, bounds={"private": 0.2})
    assert public_shape(private, {}, (150, 2)) is None  # not released yet
    shape = public_shape(private, {"ranges": [[-5, 9], [-3, 4]]}, (150, 2))
    assert shape.ranges == ((-5.0, 9.0), (-3.0, 4.0)) and shape.budget()["epsilon"] < 1.0


def test_a_prediction_is_kept_per_shape_and_round_trips(tmp_path):
    shape = Table("grid_means", 150, 2, 3, 5.0, radius=10.0)
    first = expected(shape, runs=4, search=False, cache_dir=tmp_path)
    again = expected(shape, runs=4, search=False, cache_dir=tmp_path)
    assert again == replace(first, seconds=0.0)
    assert Expected.from_dict(json.loads(json.dumps(first.to_dict()))) == first
    assert len(list((tmp_path / expectation.CACHE_FOLDER).iterdir())) == 1


def test_defaults_spelled_out_give_the_same_shape_and_prediction():
    """A page passes every parameter, a command only those given: one run, one prediction."""
    from dpviz.estimators.registry import TASKS as REGISTRY

    said = table_scenario("dp_em", k=3, epsilon=1.0, radius=10.0)
    defaults = {p.name: p.default for p in REGISTRY["gmm"]["dp_em"].params if p.name != "k"}
    spelled = replace(said, params={**said.params, **defaults})
    assert public_shape(spelled, {}, (150, 2)) == public_shape(said, {}, (150, 2))
    moved = replace(said, params={**said.params, "iterations": 7})
    assert public_shape(moved, {}, (150, 2)).params == (("iterations", 7),)
    paper = replace(said, params={**said.params, "paper_mode": True})
    assert public_shape(paper, {}, (150, 2)) is None  # the papers' sensitivities: not simulated


def test_the_generated_rows_sit_inside_the_box():
    box = np.array([[8.0, 16.0], [0.0, 15.0], [0.0, 2000.0]])
    rows = expectation.box_rows(box, 3, 2000, seed=3)
    inside = np.all((rows >= box[:, 0]) & (rows <= box[:, 1]), axis=1)
    assert inside.mean() > 0.95


def test_the_default_upload_is_predicted_large(tmp_path):
    measured = expectation.claim_default_upload_warned(fresh=False)
    assert measured.ok, measured.text


@pytest.mark.slow
@pytest.mark.parametrize("case", expectation.walk_cases(), ids=lambda c: c.name)
def test_predictions_hold_against_the_issues_tables(case):
    """Within 2× of 20 real draws' rms error, or said large; at most 1 draw over 3×.

    The known miss (grid means on the petals, well-apart groups) is held to its safe side
    only: it may over-state the error, never under-state it. Grid means, which also simulates
    each draw's release (24 runs with EM, about 1.5 s a draw), is walked over 10 draws here
    (the same rule, at most 1 over 3×); ``bench/expected_accuracy.py`` walks 20.
    """
    from dpviz.estimators.registry import TASKS as REGISTRY

    releases = REGISTRY["gmm"][case.scenario.estimator].described_rows is not None
    walked = expectation.walk(case, draws=10 if releases else expectation.DRAWS)
    assert walked.accepted, walked.line()


@pytest.mark.slow
def test_the_command_line_json_carries_the_prediction(tmp_path):
    from dpviz.data import load_dataset

    path = tmp_path / "petals.csv"
    rows = load_dataset("iris").data[:, 2:4]
    path.write_text("length (cm),width (cm)\n" + "\n".join(f"{a:g},{b:g}" for a, b in rows))
    done = subprocess.run(
        [sys.executable, "-m", "dpviz", "run", "gmm", "grid_means", "--data", str(path),
         "--bounds", "10", "--epsilon", "5", "--delta", "1e-5", "--k", "3", "--expected"],
        capture_output=True, text=True, check=True,
        env={"DPVIZ_CACHE_DIR": str(tmp_path), "PATH": "", "OPENBLAS_NUM_THREADS": "1"})
    said = json.loads(done.stdout)["expected"]
    assert said["rms"] < 0.1 * said["size"] and said["sentence"].startswith("At this n")


# --- covariance uploads ---------------------------------------------------------------------

def test_a_covariance_shape_reads_rho_the_bound_and_the_released_ranges():
    typed = table_scenario("separate", rho=0.1, task="covariance",
                           bounds={"ranges": [[0, 8], [0, 3]], "standardise": False})
    shape = public_shape(typed, {}, (150, 2))
    assert (shape.task, shape.budget_name, shape.amount) == ("covariance", "ρ", 0.1)
    assert shape.size() == pytest.approx(4.0**2 + 1.5**2)  # the box's squared half-diagonal
    private = table_scenario("gauss", epsilon=1.0, task="covariance", bounds={"private": 0.2})
    assert public_shape(private, {}, (150, 2)) is None  # not released yet
    released = public_shape(private, {"ranges": [[-9, 9], [-9, 9]]}, (150, 2))
    assert released.budget()["epsilon"] == pytest.approx(0.8)
    generated = Scenario.from_dict({"task": "covariance", "estimator": "gauss", "data": {
        "generator": "zipf", "n": 1000, "d": 5}, "params": {"rho": 0.1}})
    assert public_shape(generated, {}, (1000, 5)) is None  # measured against the true Σ


def test_a_covariance_prediction_is_in_squared_units_and_searches_rho(tmp_path):
    shape = Table("gauss", 150, 2, 1, math.nan, radius=1.0, task="covariance", rho=0.001)
    found = expected(shape, runs=4, cache_dir=tmp_path)
    assert found.large and found.budget_name == "ρ" and found.task == "covariance"
    said = found.sentence()
    assert said.startswith("At this n and ε expect the matrix about")
    assert "meaningful from about" in said and "ρ = " in said


#: The covariance page's defaults (radius 1, ρ = 0.1) and its advice (private ranges, 20 %),
#: for the estimators it ticks; 20 draws each (bench/expected_accuracy.py walks the rest).
#: The 150-row table's private ranges at 20 % are refused (their one release at ε = 0.2 needs
#: 171 rows: :meth:`dpviz.privacy.bounds.BoundPlan.refusal`); walked at the 26 % share the
#: refusal names. A draw is held to 3× the stated 90th percentile: against the median alone,
#: AdaptiveCov on wine's private ranges (its sparse vector picks the clip radius and branch)
#: passed 3× in 5 of 20 draws, and 4 of 20 on the petals' at 26 %.
COVARIANCE_CASES = [
    expectation.Case(f"{table} {estimator} {label}", *expectation.issue_tables()[table],
                     table_scenario(estimator, rho=0.1, task="covariance", **bound))
    for table, share in (("petals", 0.26), ("wines", 0.2))
    for estimator in ("gauss", "separate", "adaptive")
    for label, bound in (("radius 1", {"radius": 1.0}),
                         (f"private ranges {share:.0%}", {"bounds": {"private": share}}))]


@pytest.mark.parametrize("case", COVARIANCE_CASES, ids=lambda c: c.name)  # about a second each
def test_covariance_predictions_hold_against_the_issues_tables(case):
    walked = expectation.walk(case)
    assert walked.holds, walked.line()


def test_private_ranges_the_page_refuses_are_not_walked():
    from dpviz.privacy import BudgetError

    refused = expectation.Case("petals at 20 %", *expectation.issue_tables()["petals"],
                               table_scenario("gauss", rho=0.1, task="covariance",
                                              bounds={"private": 0.2}))
    with pytest.raises(BudgetError, match="At 150 rows they run from a 26% share of the budget"):
        expectation.walk(refused, draws=1)


def test_the_sentence_states_the_rms_first_then_the_quartiles_and_the_tail():
    said = Expected(0.35, 0.3, 0.2, 0.5, 0.8, 20.0, 32, 0, 1.0).sentence()
    assert "expect the means about 0.35 units off" in said
    assert "(typical runs: 0.2–0.5; 1 run in 10 is further off than 0.8)" in said
    assert "(the root-mean-square error of 32 runs on generated data" in said


def test_the_stated_error_is_the_simulated_runs_root_mean_square():
    """A tail moves the figure stated: the root mean square, not the median (module docstring)."""
    shape = Table("adaptive", 150, 2, 1, math.nan, radius=1.0, task="covariance", rho=0.1)
    found = expectation.simulate(shape, 8)
    assert found.low <= found.median <= found.high <= found.tail
    assert found.median < found.rms < found.size


def test_a_draw_is_held_to_the_stated_expected_error():
    stated = Expected(1.0, 0.9, 0.5, 1.5, 2.5, 100.0, 32, 0, 1.0)
    walked = expectation.Walked("c", (stated,) * 4, (0.5, 1.0, 1.5, 3.1))
    assert walked.over == 1 and walked.measured == pytest.approx(1.8104, abs=1e-4)
    assert walked.holds
    assert not replace(walked, errors=(0.5, 1.0, 3.1, math.nan)).holds


# --- grid means: a run's own release, where it says more than the public shape ------------

def _grid_means_release(seed: int = 0):
    from dpviz.data import load_dataset
    from dpviz.lab.scenario import LoadedData

    rows = load_dataset("iris").data[:, :2]  # the sepals: two species overlap
    scenario = replace(table_scenario("grid_means", k=3, epsilon=5.0,
                                      bounds={"ranges": [[4, 8], [2, 5]], "standardise": False}),
                       seed=seed)
    return scenario, expectation._run(scenario, LoadedData(rows, None, None, "sepals"))


def test_a_centre_spreads_over_the_grid_cells_nearest_it():
    """Each cell's count over 2 noise sd goes to its nearest centre, as mass at the cell's
    middle, plus a cell's own width²/12; a centre with no cell gets a cell's width²."""
    from dpviz.estimators.gmm.grid_means import described_rows
    from dpviz.estimators.result import Result
    from dpviz.privacy import Ledger

    counts = np.zeros((4, 4))
    counts[0, 0] = counts[1, 0] = 10.0  # cells (0.5, 0.5) and (1.5, 0.5)
    counts[3, 3] = 5.0                  # cell (3.5, 3.5)
    counts[2, 1] = 2.0                  # under 2 noise sd: not counted
    result = Result({"means": np.array([[1.0, 0.5], [3.5, 3.5], [0.0, 4.0]]),
                     "weights": np.array([0.6, 0.4, 0.0])}, Ledger(),
                    diagnostics={"grid_counts": counts, "grid_low": np.zeros(2),
                                 "grid_high": np.full(2, 4.0), "grid_noise": 1.0})
    described = described_rows(result)
    variances = np.diagonal(described.covariances, axis1=1, axis2=2)
    np.testing.assert_allclose(variances, [[0.25 + 1 / 12, 1 / 12], [1 / 12, 1 / 12],
                                           [1 + 1 / 12, 1 + 1 / 12]])
    assert described.weights.tolist() == pytest.approx([0.6 / 1.02, 0.4 / 1.02, 0.02 / 1.02])


def test_a_release_describes_its_groups_from_its_centres_weights_and_grid():
    from dpviz.estimators.gmm.grid_means import described_rows

    scenario, result = _grid_means_release()
    described = described_rows(result)
    means, weights, covariances = described.means, described.weights, described.covariances
    variances = np.diagonal(covariances, axis1=1, axis2=2)
    assert np.all(covariances == np.stack([np.diag(v) for v in variances]))
    assert np.array_equal(means, result.estimate["means"])
    assert weights.sum() == pytest.approx(1.0) and weights.min() >= 0.02
    # each spread is at least a grid cell's own (width²/12) and inside the grid's box
    width = (result.diagnostics["grid_high"] - result.diagnostics["grid_low"]) / len(
        result.diagnostics["grid_counts"])
    assert np.all(variances >= width**2 / 12 - 1e-12)
    assert np.all(variances <= (result.diagnostics["grid_high"]
                                - result.diagnostics["grid_low"]) ** 2)
    noisier = replace(result, diagnostics={**result.diagnostics, "grid_counts":
                                           result.diagnostics["grid_counts"] + 1e6})
    assert not np.allclose(described_rows(noisier).covariances, covariances)  # reads the grid
    # a bound read from the data: its grid's box is not private, so nothing is described
    assert described_rows(replace(result, not_private="bound read from the data")) is None


def test_grid_means_states_its_release_when_that_is_larger(tmp_path, monkeypatch):
    monkeypatch.setattr(expectation, "RUNS", 4)
    monkeypatch.setattr(expectation, "RELEASE_RUNS", 6)
    scenario, result = _grid_means_release()
    shape = public_shape(scenario, result.choices, (150, 2))
    own = expectation.release_shape(shape, result)
    assert own is not None and own.table == shape and own.n == 150
    assert expectation.run_shapes(scenario, result, (150, 2)) == (shape, own)
    memo: dict = {}
    found = expectation.for_shapes(shape, own, search=False, memo=memo, cache_dir=tmp_path)
    generic = expected(shape, runs=4, search=False, cache_dir=tmp_path)
    released = expectation.simulate(own, 6)
    assert found.rms == max(generic.rms, released.rms) and released.rms != generic.rms
    assert found.basis == ("release" if released.rms > generic.rms else "shape")
    assert found.runs == (6 if found.basis == "release" else 4)
    # kept per release: the same run again is read back, not simulated
    assert expectation.for_shapes(shape, own, search=False, memo=memo,
                                  only_known=True) is found
    other = replace(result, estimate={**result.estimate,
                                      "means": result.estimate["means"] + 0.1})
    assert expectation.for_shapes(*expectation.run_shapes(scenario, other, (150, 2)),
                                  search=False, memo=memo, only_known=True) is None


def test_a_prediction_without_a_release_model_is_the_public_shapes(tmp_path, monkeypatch):
    from dpviz.data import load_dataset

    monkeypatch.setattr(expectation, "RUNS", 4)
    from dpviz.lab.scenario import LoadedData

    scenario = replace(table_scenario("dp_em", k=3, epsilon=1.0, radius=10.0), seed=1)
    rows = load_dataset("iris").data[:, 2:4]
    result = expectation._run(scenario, LoadedData(rows, None, None, "petals"))
    shape = public_shape(scenario, result.choices, (150, 2))
    assert expectation.release_shape(shape, result) is None
    assert expectation.for_shapes(shape, None, search=False, only_known=True,
                                  cache_dir=tmp_path) is None
    found = expectation.for_run(scenario, result, (150, 2), search=False, cache_dir=tmp_path)
    assert found == replace(expected(shape, runs=4, search=False, cache_dir=tmp_path),
                            seconds=found.seconds)
    assert found.basis == "shape"


def test_the_release_sentence_says_what_it_was_drawn_from():
    drawn = "the groups this run released — its centres, weights and noisy grid"
    said = Expected(0.6, 0.5, 0.4, 0.7, 0.9, 5.0, 24, 0, 1.0, basis="release",
                    drawn=drawn).sentence()
    assert f"runs on rows drawn from {drawn}, no more budget spent" in said
    assert "generated data of the same public shape" in said
    none = Expected(math.nan, math.nan, math.nan, math.nan, math.nan, 5.0, 24, 20, 1.0,
                    basis="release").sentence()
    assert "no answer" in none and "more than" not in none
    assert "rows drawn from this run's release" in none  # nothing said: the release, plainly
    matrix = Expected(0.6, 0.5, 0.4, 0.7, 0.9, 5.0, 24, 0, 1.0, None, None, 600, 16.0,
                      task="covariance", basis="release")
    assert matrix.remedy().endswith("this run's release stay off at every size searched")


def test_each_release_model_says_what_its_rows_are_drawn_from():
    from dpviz.estimators.registry import TASKS as REGISTRY

    models = {(task, name): entry.described_rows for task, entries in REGISTRY.items()
              for name, entry in entries.items() if entry.described_rows is not None}
    assert set(models) == {("gmm", "grid_means"), ("covariance", "emcov"),
                           ("covariance", "adaptive")}
    scenario, result = _grid_means_release()
    shape = public_shape(scenario, result.choices, (150, 2))
    own = expectation.release_shape(shape, result)
    assert own.said.startswith("the groups this run released")
    assert expectation.simulate(own, 1).drawn == own.said


def test_the_memo_keeps_the_latest_releases_only(tmp_path, monkeypatch):
    monkeypatch.setattr(expectation, "RUNS", 2)
    monkeypatch.setattr(expectation, "RELEASE_RUNS", 1)
    memo: dict = {}
    scenario, result = _grid_means_release()
    for i in range(expectation.MEMO + 2):
        moved = replace(result, estimate={**result.estimate,
                                          "means": result.estimate["means"] + 0.01 * i})
        expectation.for_shapes(*expectation.run_shapes(scenario, moved, (150, 2)),
                               search=False, memo=memo, cache_dir=tmp_path)
    assert len(memo) == expectation.MEMO
    assert expectation.for_shapes(*expectation.run_shapes(scenario, result, (150, 2)),
                                  search=False, memo=memo,
                                  only_known=True) is None  # the oldest was dropped


def test_emcov_states_its_release_whose_rows_carry_the_released_matrix(tmp_path, monkeypatch):
    """EMCov's error follows its matrix's eigen-gaps, which generated layouts miss: rows drawn
    from the released matrix (about the bound's centre) carry it."""
    from dpviz.data import load_dataset
    from dpviz.lab.scenario import LoadedData

    monkeypatch.setattr(expectation, "RUNS", 4)
    monkeypatch.setattr(expectation, "RELEASE_RUNS", 4)
    rows = load_dataset("iris").data[:, 2:4]
    typed = {"ranges": [[0, 8], [0, 3]], "standardise": False}
    scenario = replace(table_scenario("emcov", rho=0.1, task="covariance", bounds=typed), seed=2)
    result = expectation._run(scenario, LoadedData(rows, None, None, "petals"))
    shape = public_shape(scenario, result.choices, (150, 2))
    own = expectation.release_shape(shape, result)
    assert own.means == ((4.0, 1.5),) and own.weights == (1.0,) and own.equal_norms
    drawn = replace(own, table=replace(shape, n=20_000)).rows(seed=0)
    about = drawn - np.array([4.0, 1.5])
    released = np.asarray(result.estimate["covariance"])
    values, vectors = np.linalg.eigh(released)
    psd = vectors @ np.diag(np.clip(values, 0, None)) @ vectors.T  # a negative one drawn as 0
    # one norm, √tr, for every row; about the released second moment
    assert np.allclose(np.linalg.norm(about, axis=1), np.sqrt(np.trace(psd)))
    assert np.allclose(about.T @ about / len(about), psd, atol=0.1 * np.abs(psd).max())
    found = expectation.for_run(scenario, result, (150, 2), search=False, cache_dir=tmp_path)
    assert found.task == "covariance" and found.rms >= expected(
        shape, runs=4, search=False, cache_dir=tmp_path).rms


def test_adaptivecov_describes_its_matrix_grown_to_its_released_trace_bound():
    """A sparse vector that stops early shrinks AdaptiveCov's matrix, not its trace bound."""
    from dpviz.data import load_dataset
    from dpviz.estimators.covariance.adaptive import described_rows
    from dpviz.lab.scenario import LoadedData

    rows = load_dataset("iris").data[:, 2:4]
    typed = {"ranges": [[1, 7], [0, 3]], "standardise": False}
    scenario = replace(table_scenario("adaptive", rho=0.1, task="covariance", bounds=typed),
                       seed=3)
    result = expectation._run(scenario, LoadedData(rows, None, None, "petals"))
    described = described_rows(result)
    matrix = np.asarray(result.estimate["covariance"])
    bound = result.diagnostics["trace_estimate"]
    assert np.trace(described.covariances[0]) == pytest.approx(max(bound, np.trace(matrix)))
    assert described.means.tolist() == [[4.0, 1.5]] and not described.equal_norms
    # standardised: the trace bound is in the prepared units, the matrix in the table's
    std = replace(scenario, data={**scenario.data, "bounds": {**typed, "standardise": True}})
    result = expectation._run(std, LoadedData(rows, None, None, "petals"))
    half = np.array([3.0, 1.5])
    inner = described_rows(result).covariances[0] / np.outer(half, half)
    assert np.trace(inner) == pytest.approx(max(result.diagnostics["trace_estimate"], np.trace(
        np.asarray(result.estimate["covariance"]) / np.outer(half, half))))
    # every row clipped onto a ball: the bound reaches r², rows at one norm
    ball = replace(table_scenario("adaptive", rho=0.1, task="covariance", radius=1.0), seed=3)
    result = expectation._run(ball, LoadedData(rows, None, None, "petals"))
    assert result.diagnostics["trace_estimate"] == pytest.approx(1.0)
    assert described_rows(result).equal_norms
