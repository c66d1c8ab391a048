"""dpviz.lab.scenario: JSON round trip, validation, loading, running and scoring."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import dpviz
from dpviz.data import gaussian_mixture, sha256
from dpviz.estimators.registry import TASKS
from dpviz.lab.scenario import LoadedData, Scenario, load_data, run_scenario, score

GMM = {"task": "gmm", "estimator": "dp_em",
       "data": {"generator": "gmm", "n": 1500, "k": 2, "d": 2, "seed": 4},
       "params": {"epsilon": 1.0, "delta": 1e-5, "iterations": 3}, "seed": 7}

#: Small data for every task, as a scenario's data block.
SMALL = {
    "mean": {"generator": "gmm", "n": 300, "k": 2, "seed": 1},
    "gmm": {"generator": "gmm", "n": 600, "k": 2, "seed": 1},
    "factor_analysis": {"generator": "gmm", "n": 300, "d": 6, "k": 2, "seed": 1},
    "covariance": {"generator": "zipf", "n": 500, "d": 4, "seed": 1},
    "sbm": {"generator": "sbm", "n": 120, "degree": 20, "signal": 0.8, "seed": 1},
}


def test_round_trip_through_json():
    s = Scenario.from_dict(GMM)
    again = Scenario.from_dict(json.loads(json.dumps(s.to_dict())))
    assert again == s
    assert s.params["iterations"] == 3 and s.data["separation"] == 6.0  # defaults filled


def test_infinite_epsilon_round_trips_as_text():
    s = Scenario.from_dict({**GMM, "estimator": "em", "params": {"epsilon": "inf"}})
    assert s.params["epsilon"] == math.inf
    text = json.dumps(s.to_dict(), allow_nan=False)
    assert Scenario.from_dict(json.loads(text)) == s


def test_two_spellings_are_one_scenario():
    a = Scenario.from_dict(GMM)
    b = Scenario.from_dict({**GMM, "data": {**GMM["data"], "n": "1500"},
                            "params": {**GMM["params"], "iterations": "3"}})
    assert a == b


@pytest.mark.parametrize(("change", "words"), [
    ({"task": "nope"}, "unknown task 'nope'"),
    ({"estimator": "nope"}, "unknown estimator 'nope' for task 'gmm'"),
    ({"params": {"epsilon": 1.0, "bogus": 1}}, "unknown parameter 'bogus'"),
    ({"params": {"epsilon": -1.0}}, "epsilon must be > 0"),
    ({"params": {"delta": 1e-5}}, "give a privacy budget as epsilon or as rho"),
    ({"params": {"epsilon": 1.0, "iterations": 0}}, "iterations must be >= 1"),
    ({"params": {"epsilon": 1.0, "seed": 3}}, "the scenario's own 'seed'"),
    ({"params": {"epsilon": 1.0, "radius": -2}}, "radius must be > 0"),
    ({"data": {"generator": "nope"}}, "unknown generator 'nope'"),
    ({"data": {"generator": "gmm", "q": 1}}, "unknown parameter 'q'"),
    ({"data": {"dataset": "nope"}}, "unknown data set 'nope'"),
    ({"data": {"csv": "a.csv", "dataset": "iris"}}, "exactly one of"),
    ({"data": {"edges": "e.csv", "n": 5}}, "data for the sbm task, not for gmm"),
    ({"data": {"generator": "zipf", "test_fraction": 0.1}}, "gmm generator only"),
    ({"seed": -1}, "seed must be >= 0"),
    ({"colour": "red"}, "unknown scenario field(s) colour"),
])
def test_bad_scenarios_say_what_is_wrong(change, words):
    with pytest.raises(ValueError) as info:
        Scenario.from_dict({**GMM, **change})
    assert words in str(info.value)


def test_a_graph_for_a_rows_task_and_rows_for_sbm_are_refused():
    with pytest.raises(ValueError, match="give a graph"):
        Scenario.from_dict({"task": "sbm", "estimator": "spectral",
                            "data": {"dataset": "iris"}, "params": {"epsilon": 1.0}})
    with pytest.raises(ValueError, match="give rows"):
        Scenario.from_dict({"task": "covariance", "estimator": "gauss",
                            "data": {"generator": "sbm"}, "params": {"rho": 0.1}})


def test_generated_mixture_matches_the_generator_and_holds_rows_out():
    loaded = load_data({"generator": "gmm", "n": 1000, "k": 3, "seed": 2, "test_fraction": 0.2})
    mixture = gaussian_mixture(3, 2, 1000, seed=2)
    train, test = mixture.split(0.2, seed=2)
    np.testing.assert_array_equal(loaded.data, train.data)
    np.testing.assert_array_equal(loaded.truth.test_data, test.data)
    assert loaded.radius == pytest.approx(mixture.radius)
    assert loaded.public == {"k": 3}


def test_loading_again_is_answered_from_memory_and_read_only():
    block = {"generator": "zipf", "n": 800, "d": 3, "seed": 5}
    first = load_data(block)
    assert load_data(dict(reversed(list(block.items())))) is first
    assert load_data({**block, "seed": 6}) is not first
    with pytest.raises(ValueError, match="read-only"):
        first.data[0, 0] = 1.0


def test_a_changed_file_is_read_again(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n3,4\n5,7\n")
    first = load_data({"csv": str(path)})
    assert first.truth is None and first.radius is None and first.data.shape == (3, 2)
    path.write_text("a,b\n1,2\n3,4\n")
    assert load_data({"csv": str(path)}).data.shape == (2, 2)


def test_edges_and_missing_files(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("0,1\n1,2\n2,3\n")
    loaded = load_data({"edges": str(path), "n": 5})
    assert loaded.data.n == 5 and loaded.data.edges.tolist() == [[0, 1], [1, 2], [2, 3]]
    with pytest.raises(ValueError, match="no such file"):
        load_data({"csv": str(tmp_path / "missing.csv")})


def test_a_path_is_read_from_the_base_folder_and_only_inside_it(tmp_path, monkeypatch):
    (tmp_path / "card").mkdir()
    (tmp_path / "card" / "x.csv").write_text("1,2\n3,4\n")
    (tmp_path / "y.csv").write_text("5,6\n7,8\n")
    monkeypatch.chdir(tmp_path)
    assert load_data({"csv": "x.csv"}, base=tmp_path / "card").data.tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match="y.csv: it is outside the folder"):
        load_data({"csv": "../y.csv"}, base=tmp_path / "card")
    assert load_data({"csv": "y.csv"}).data.shape == (2, 2)  # no base: the working folder
    # bytes already read (a card checked their hash) are parsed instead of the path
    assert load_data({"csv": "nowhere.csv"}, content=b"0,1\n1,0\n").data.shape == (2, 2)
    with pytest.raises(ValueError, match="a dataset data block takes none"):
        load_data({"dataset": "iris"}, content=b"0,1\n1,0\n")


def test_an_upload_scenario_round_trips_without_its_bytes():
    digest = sha256(b"0,1\n1,2\n")
    s = Scenario.from_dict({"task": "sbm", "estimator": "randomized_response",
                            "data": {"upload": "requirements.txt", "sha256": digest, "n": 3},
                            "params": {"epsilon": 1.0, "degree": 1.0, "signal": 0.5},
                            "seed": 1})
    assert Scenario.from_dict(s.to_dict()) == s
    assert s.to_dict()["data"] == {"upload": "requirements.txt", "sha256": digest, "n": 3}
    with pytest.raises(ValueError, match="not its bytes"):
        run_scenario(s)
    loaded = load_data(s.data, content=b"0,1\n1,2\n")
    assert loaded.data.edges.tolist() == [[0, 1], [1, 2]] and loaded.truth is None
    with pytest.raises(ValueError, match="csv is a file path"):
        Scenario.from_dict({**s.to_dict(), "task": "mean", "estimator": "laplace",
                            "params": {"epsilon": 1.0}, "data": {"csv": ["a.csv"]}})


def test_run_scenario_is_dpviz_run_with_the_datas_public_parameters():
    s = Scenario.from_dict(GMM)
    loaded = load_data(s.data)
    result = run_scenario(s, loaded)
    direct = dpviz.run("gmm", "dp_em", loaded.data, k=2, epsilon=1.0, delta=1e-5, seed=7,
                       radius=loaded.radius, iterations=3)
    np.testing.assert_array_equal(result.estimate["means"], direct.estimate["means"])
    assert result.seed == 7 and result.ledger.total().epsilon <= 1.0 + 1e-9
    again = run_scenario(s)
    np.testing.assert_array_equal(again.estimate["means"], result.estimate["means"])


def test_the_scenarios_own_k_and_radius_win_over_the_datas():
    s = Scenario.from_dict({**GMM, "params": {**GMM["params"], "k": 3, "radius": 50.0}})
    result = run_scenario(s)
    assert np.asarray(result.estimate["means"]).shape == (3, 2)
    assert result.choices["radius"] == 50.0


def test_sbm_takes_degree_and_signal_from_the_generator():
    s = Scenario.from_dict({"task": "sbm", "estimator": "spectral", "data": SMALL["sbm"],
                            "params": {"epsilon": "inf"}})
    loaded = load_data(s.data)
    result = run_scenario(s, loaded)
    values = score(s, result, loaded.truth, ["overlap", "error_rate"])
    assert values["overlap"] == pytest.approx(1 - 2 * values["error_rate"])
    assert values["overlap"] > 0.5  # degree 20, signal 0.8: far above the threshold


def test_score_is_nan_where_a_metric_does_not_apply(tmp_path):
    path = tmp_path / "x.csv"
    rows = np.random.default_rng(0).normal(size=(200, 2))
    np.savetxt(path, rows, delimiter=",")
    s = Scenario.from_dict({"task": "gmm", "estimator": "dplloyd", "data": {"csv": str(path)},
                            "params": {"epsilon": 1.0, "k": 2}})
    loaded = load_data(s.data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_scenario(s, loaded)
    values = score(s, result, loaded.truth, ["mean_error", "nicv"])
    assert math.isnan(values["mean_error"]) and math.isnan(values["nicv"])
    with pytest.raises(ValueError, match="unknown metric 'overlap' for the gmm task"):
        score(s, result, loaded.truth, ["overlap"])


@pytest.mark.parametrize(("task", "name"),
                         [(t, e) for t, ests in TASKS.items() for e in ests])
def test_every_estimator_runs_on_the_shared_read_only_data(task, name):
    budget = {"rho": 0.5} if task == "covariance" else {"epsilon": 2.0, "delta": 1e-5}
    params = {**budget, "iterations": 2} if task in ("gmm", "factor_analysis") else budget
    entry = TASKS[task][name]
    params = {k: v for k, v in params.items()
              if k in ("epsilon", "delta", "rho") or any(p.name == k for p in entry.params)}
    s = Scenario.from_dict({"task": task, "estimator": name, "data": SMALL[task],
                            "params": params, "seed": 3})
    loaded = load_data(s.data)
    assert isinstance(loaded, LoadedData)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_scenario(s, loaded)
    assert result.estimator == name


def test_the_karate_club_is_a_bundled_graph_whose_model_is_read_off_it():
    s = Scenario.from_dict({"task": "sbm", "estimator": "weak_recovery",
                            "data": {"dataset": "karate"},
                            "params": {"epsilon": 2.0, "delta": 1e-6}, "seed": 0})
    loaded = load_data(s.data)
    assert loaded.data.n == 34 and loaded.truth.labels.shape == (34,)
    assert "read off this very graph" in loaded.description
    assert "read off this very graph" in run_scenario(s, loaded).not_private
    given = Scenario.from_dict({**s.to_dict(), "params": {"epsilon": 2.0, "delta": 1e-6,
                                                          "degree": 5.0, "signal": 0.5}})
    assert run_scenario(given, loaded).not_private is None  # d and ε_s given as public
    with pytest.raises(ValueError, match="the 'karate' data set is data for the sbm task"):
        Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
                            "data": {"dataset": "karate"}, "params": {"epsilon": 1.0}})
    with pytest.raises(ValueError, match="the 'iris' data set is data for rows, not for sbm"):
        Scenario.from_dict({"task": "sbm", "estimator": "spectral",
                            "data": {"dataset": "iris"}, "params": {"epsilon": 1.0}})
