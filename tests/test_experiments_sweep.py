"""Sweeps: determinism (serial, local processes, Dask), the disk cache, cancelling, replay,
export, bad specs (dpviz.lab.experiments)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dpviz.lab.experiments import (
    SweepSpec,
    cache_directory,
    read_table,
    replay,
    run_sweep,
    scenario_for_row,
    write_table,
)
from dpviz.lab.scenario import load_data, run_scenario

SPEC = {"task": "gmm", "estimators": ["dp_em", "dplloyd"],
        "data": {"generator": "gmm", "n": 1200, "k": 2}, "fixed": {"delta": 1e-5,
                                                                    "iterations": 3},
        "grid": {"epsilon": [0.5, 2.0]}, "repeats": 3, "seed": 11,
        "metrics": ["mean_error", "weight_error"]}


@pytest.fixture
def spec() -> SweepSpec:
    return SweepSpec.from_dict(SPEC)


@pytest.fixture(scope="module")
def serial(tmp_path_factory) -> pd.DataFrame:
    return run_sweep(SweepSpec.from_dict(SPEC), cache_dir=tmp_path_factory.mktemp("serial"))


def without_time(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns="seconds").reset_index(drop=True)


def test_the_table_has_one_row_per_run_in_grid_order(serial, spec):
    assert list(serial.columns) == ["task", "estimator", "epsilon", "repeat", "seed",
                                    "data_seed", "mean_error", "weight_error", "seconds",
                                    "failed", "not_private"]
    assert len(serial) == spec.runs == 12
    assert serial["estimator"].tolist()[:4] == ["dp_em", "dplloyd", "dp_em", "dplloyd"]
    assert serial["epsilon"].tolist() == [0.5] * 6 + [2.0] * 6
    assert (serial["failed"] == "").all() and serial["mean_error"].notna().all()


def test_every_estimator_and_budget_sees_the_same_data_and_fresh_noise(serial):
    per_repeat = serial.groupby("repeat")["data_seed"].nunique()
    assert (per_repeat == 1).all()
    assert serial["data_seed"].nunique() == 3  # a fresh draw per repeat
    assert serial["seed"].nunique() == len(serial)  # every run its own noise


def test_errors_shrink_with_epsilon(serial):
    means = serial.groupby("epsilon")["mean_error"].mean()
    assert means[2.0] < means[0.5]


@pytest.mark.slow
def test_same_spec_same_table_serial_and_on_two_processes(serial, spec, tmp_path):
    again = run_sweep(spec, cache_dir=tmp_path / "again")
    assert again.attrs["cached"] == 0
    pd.testing.assert_frame_equal(without_time(again), without_time(serial))
    parallel = run_sweep(spec, jobs=2, cache_dir=tmp_path / "parallel")
    pd.testing.assert_frame_equal(without_time(parallel), without_time(serial))


def test_same_table_on_a_thread_pool_each_finished_row_reported(serial, spec, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    seen: list[str] = []
    with ThreadPoolExecutor(2) as pool:
        threaded = run_sweep(spec, executor=pool, cache_dir=tmp_path,
                             finished=lambda row: seen.append(str(row["estimator"])))
    pd.testing.assert_frame_equal(without_time(threaded), without_time(serial))
    assert sorted(seen) == sorted(serial["estimator"])  # one report per run, as it ends


@pytest.fixture
def dask_scheduler():
    """A local Dask cluster's address, the cluster closed after the test; a client the sweep
    left open then fails the test (the root conftest's check)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.mark.slow
def test_same_table_on_a_dask_cluster(serial, spec, tmp_path, dask_scheduler):
    on_dask = run_sweep(spec, scheduler=dask_scheduler, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(without_time(on_dask), without_time(serial))


def test_an_unreachable_scheduler_is_a_sentence(spec, tmp_path, monkeypatch):
    monkeypatch.setattr("dpviz.lab.experiments.runner.SCHEDULER_TIMEOUT", 1)
    with pytest.raises(ValueError, match="cannot reach the Dask scheduler"):
        run_sweep(spec, scheduler="tcp://127.0.0.1:9", cache_dir=tmp_path)


def test_a_second_run_is_answered_from_disk(spec, tmp_path, monkeypatch):
    first = run_sweep(spec, cache_dir=tmp_path)
    calls = []
    monkeypatch.setattr("dpviz.lab.experiments.runner.run_scenario",
                        lambda *a, **k: calls.append(1) or run_scenario(*a, **k))
    second = run_sweep(spec, cache_dir=tmp_path)
    assert calls == [] and second.attrs["cached"] == spec.runs
    pd.testing.assert_frame_equal(second, first)  # seconds too: the time it took then
    bigger = SweepSpec.from_dict({**SPEC, "repeats": 4})  # another spec: another file
    assert run_sweep(bigger, cache_dir=tmp_path).attrs["cached"] == 0
    assert len(calls) == bigger.runs


def test_a_cancelled_sweep_loses_no_finished_run(serial, spec, tmp_path):
    done = []
    first = run_sweep(spec, cache_dir=tmp_path, progress=lambda d, t, s: done.append((d, t)),
                      should_stop=lambda: done[-1][0] >= 5)
    assert len(first) == 5 and done[0] == (0, 12)
    progress = []
    rest = run_sweep(spec, cache_dir=tmp_path, progress=lambda d, t, s: progress.append(d))
    assert rest.attrs["cached"] == 5 and progress[0] == 5 and progress[-1] == 12
    keys = ["estimator", "epsilon", "repeat"]
    pd.testing.assert_frame_equal(rest.set_index(keys).loc[first.set_index(keys).index],
                                  first.set_index(keys))  # the finished runs, as they were
    pd.testing.assert_frame_equal(without_time(rest), without_time(serial))


def test_a_run_cut_short_on_disk_is_run_again(spec, tmp_path):
    run_sweep(spec, cache_dir=tmp_path)
    path = tmp_path / f"{spec.digest()}.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])
    assert run_sweep(spec, cache_dir=tmp_path).attrs["cached"] == spec.runs - 1


def test_cache_location(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path / "env"))
    assert cache_directory() == tmp_path / "env"
    assert cache_directory(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv("DPVIZ_CACHE_DIR")
    assert cache_directory().parts[-3:] == (".cache", "dpviz", "sweeps")


def test_any_row_replays_alone(serial, spec):
    row = serial.iloc[7].to_dict()
    again = replay(spec, row)
    assert again["mean_error"] == row["mean_error"] and again["seed"] == row["seed"]
    scenario = scenario_for_row(spec, row)
    assert scenario.seed == row["seed"] and scenario.data["seed"] == row["data_seed"]
    assert scenario.params["epsilon"] == row["epsilon"]
    assert run_scenario(scenario, load_data(scenario.data)).seed == row["seed"]


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_export_round_trip(serial, spec, tmp_path, suffix):
    path = tmp_path / f"results.{suffix}"
    write_table(serial, path)
    back = read_table(path)
    pd.testing.assert_frame_equal(back, serial, check_dtype=False)
    assert replay(spec, back.iloc[3].to_dict())["mean_error"] == serial["mean_error"][3]


def test_infinite_epsilon_and_failed_runs_round_trip(tmp_path):
    spec = SweepSpec.from_dict({"task": "gmm", "estimators": ["em"],
                                "data": {"generator": "gmm", "k": 3},
                                "fixed": {"epsilon": "inf", "iterations": 2},
                                "grid": {"data.n": [4, 300]}, "repeats": 1, "seed": 0,
                                "metrics": ["mean_error"]})
    table = run_sweep(spec, cache_dir=tmp_path)
    assert "at least" in table["failed"][0] and math.isnan(table["mean_error"][0])
    assert table["failed"][1] == "" and table["mean_error"][1] >= 0
    for suffix in ("csv", "jsonl"):
        write_table(table, tmp_path / f"t.{suffix}")
        pd.testing.assert_frame_equal(read_table(tmp_path / f"t.{suffix}"), table,
                                      check_dtype=False)
    again = run_sweep(spec, cache_dir=tmp_path)  # NaN and the reason survive the cache
    pd.testing.assert_frame_equal(again, table)


def test_spec_round_trip(spec):
    assert SweepSpec.from_dict(spec.to_dict()) == spec
    assert SweepSpec.from_dict(spec.to_dict()).digest() == spec.digest()


@pytest.mark.parametrize(("change", "words"), [
    ({"task": "nope"}, "unknown task 'nope'"),
    ({"estimators": ["dp_em", "nope"]}, "unknown estimator 'nope'"),
    ({"estimators": []}, "estimators must be a non-empty list"),
    ({"metrics": ["overlap"]}, "unknown metric 'overlap' for the gmm task"),
    ({"grid": {"colour": [1]}}, "unknown grid key 'colour'"),
    ({"grid": {"data.colour": [1]}}, "unknown grid key 'data.colour'"),
    ({"grid": {"data.n": [0]}}, "grid 'data.n': n must be >= 2"),
    ({"grid": {"epsilon": []}}, "grid 'epsilon' must be a non-empty list"),
    ({"grid": {"epsilon": [1, -1]}}, "epsilon must be > 0"),
    ({"grid": {"seed": [1, 2]}}, "grid cannot set the seed"),
    ({"fixed": {"data.n": 5}}, "give fixed data parameters in the data block"),
    ({"fixed": {"bogus": 5}}, "unknown fixed key 'bogus'"),
    ({"repeats": 0}, "repeats must be >= 1"),
    ({"repeats": 10_000, "grid": {"epsilon": list(range(1, 11))}}, "at most 100,000"),
    ({"data": {"edges": "e.csv", "n": 4}}, "not for gmm"),
    ({"colour": 1}, "unknown sweep spec field(s) colour"),
])
def test_bad_specs_say_what_is_wrong(change, words):
    with pytest.raises(ValueError) as info:
        SweepSpec.from_dict({**SPEC, **change})
    assert words in str(info.value)


def test_a_parameter_only_some_estimators_have_goes_to_those(tmp_path):
    spec = SweepSpec.from_dict({"task": "covariance", "estimators": ["gauss", "separate"],
                                "data": {"generator": "zipf", "n": 800, "d": 4},
                                "grid": {"eigenvector_share": [0.3, 0.7]},
                                "fixed": {"rho": 0.5}, "repeats": 1, "seed": 0})
    table = run_sweep(spec, cache_dir=tmp_path)
    assert list(table["failed"]) == [""] * 4 and spec.metrics == ("frobenius_error",)
    gauss = table[table["estimator"] == "gauss"]["frobenius_error"]
    separate = table[table["estimator"] == "separate"]["frobenius_error"]
    assert separate.nunique() == 2 and gauss.nunique() == 2  # noise differs per point
