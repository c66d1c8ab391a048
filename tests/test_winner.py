"""Winner maps (issue 20 item 1): who wins where, skipped runs, lines, saved maps, the CLI."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from dpviz import cli
from dpviz.estimators.registry import TASKS
from dpviz.lab.experiments import winner, winner_claims
from dpviz.lab.experiments.cache import read_cache
from dpviz.viz.winner import answers_figure, winner_map_figure

GMM_SIZES = {"generator": "gmm", "n": 1000, "d": 2, "k": 3}


def test_a_map_is_a_two_key_sweep_of_every_private_estimator():
    spec = winner.map_spec("sbm", "data.signal", "data.degree", [0.1, 0.5], [10.0, 50.0],
                           repeats=1)
    assert [k for k, _ in spec.grid] == ["data.signal", "data.degree"]
    assert set(spec.estimators) == {n for n, e in TASKS["sbm"].items() if e.notion != "none"}
    assert "spectral" not in spec.estimators
    covariance = winner.map_spec("covariance", "epsilon", "data.d", [1.0], [10],
                                 fixed={"rho": 0.1, "delta": 1e-5}, repeats=1)
    assert "rho" not in covariance.fixed  # an ε axis replaces a fixed ρ
    with pytest.raises(ValueError, match="unknown axis 'data.colour' for the gmm map"):
        winner.map_spec("gmm", "epsilon", "data.colour", [1.0], [1], repeats=1)
    with pytest.raises(ValueError, match="two different axes"):
        winner.map_spec("gmm", "epsilon", "epsilon", [1.0], [1.0], repeats=1)


def cell_table(errors, n=100, failed=None):
    """Rows of one cell (ε = 1, ``n``): each estimator's errors, repeat by repeat."""
    return [{"estimator": name, "epsilon": 1.0, "n": n, "repeat": r, "err": v,
             "failed": (failed or {}).get(name, "" if not math.isnan(v) else "⊥")}
            for name, values in errors.items() for r, v in enumerate(values)]


def test_winner_margin_and_who_failed_per_cell():
    rows = cell_table({"a": [1.0, 1.2, 1.1, 1.0, 1.1], "b": [2.0, 2.0, 2.1, 1.9, 2.0]})
    rows += cell_table({"a": [1.0, 1.0] + [math.nan] * 3, "b": [0.4, 0.5, 0.6, 0.5, 0.4]}, 200)
    rows += cell_table({"c": [math.nan] * 5}, 100, {"c": winner.NOT_RUN + "too few rows"})
    rows += cell_table({"c": [math.nan] * 5}, 200, {"c": winner.NOT_RUN + "too few rows"})
    cells = winner.winners(pd.DataFrame(rows), "epsilon", "n", "err")
    first, second = cells.to_dict(orient="records")
    assert (first["winner"], first["runner_up"], first["tied"]) == ("a", "b", [])
    assert first["margin"] == pytest.approx(1 - 1.1 / 2.0)
    assert first["not_run"] == ["c"] and first["failed"] == []
    # a failed 3 of 5: its median is ⊥, so b wins alone among the answers
    assert second["winner"] == "b" and second["runner_up"] is None and second["margin"] == 1.0
    assert second["failed"] == ["a"] and second["not_run"] == ["c"] and second["tied"] == []
    higher = winner.winners(pd.DataFrame(rows), "epsilon", "n", "err", higher=True)
    assert higher["winner"].tolist() == ["b", "b"]
    exact = pd.DataFrame(cell_table({"b": [0.0] * 5, "a": [0.0] * 5, "c": [0.2] * 5}))
    (tie,) = winner.winners(exact, "epsilon", "n", "err").to_dict(orient="records")
    assert tie["tied"] == ["a", "b"] and tie["margin"] == 0.0  # c is established worse


def test_a_winner_is_named_only_where_its_lead_is_established():
    close = {"a": [1.00, 1.30, 0.90, 1.10, 1.20], "b": [1.12, 1.00, 1.25, 1.15, 0.95],
             "c": [5.0, 5.1, 4.9, 5.2, 5.0]}
    (cell,) = winner.winners(pd.DataFrame(cell_table(close)), "epsilon", "n",
                             "err").to_dict(orient="records")
    assert cell["winner"] == "a" and cell["tied"] == ["a", "b"]  # c is worse, a and b are not
    # the same verdict however the rows are ordered, and on every reading (seeded by the data)
    shuffled = pd.DataFrame(cell_table(close)).sample(frac=1.0, random_state=3)
    assert winner.winners(shuffled, "epsilon", "n", "err")["tied"].tolist() == [["a", "b"]]
    few = {name: values[:3] for name, values in close.items()}  # too few repeats to tell
    (three,) = winner.winners(pd.DataFrame(cell_table(few)), "epsilon", "n",
                              "err").to_dict(orient="records")
    assert sorted(three["tied"]) == ["a", "b", "c"]
    summary = winner.winner_summary(
        winner.map_spec("gmm", "epsilon", "data.n", [1.0], [100], repeats=5,
                        estimators=["dp_em", "dplloyd", "ppe"]),
        pd.DataFrame(cell_table({"dp_em": close["a"], "dplloyd": close["b"],
                                 "ppe": close["c"]})).rename(columns={"n": "data.n",
                                                                     "err": "mean_error"}))
    (json_cell,) = summary["cells"]
    assert json_cell["tied"] == ["dp_em", "dplloyd"] and "bootstrap" in summary["rule"]


def test_answers_that_are_not_private_never_win():
    table = pd.DataFrame(cell_table({"a": [0.0] * 5, "b": [0.3, 0.3, 0.35, 0.3, 0.32]}))
    table["not_private"] = ["no privacy guarantee: a Metropolis chain" if name == "a" else ""
                            for name in table["estimator"]]
    (cell,) = winner.winners(table, "epsilon", "n", "err").to_dict(orient="records")
    assert cell["winner"] == "b" and cell["tied"] == [] and cell["not_private"] == ["a"]
    assert cell["scores"]["a"] == 0.0  # its answers are still shown where it answers


def test_preconditions_rule_out_runs_from_public_sizes_only():
    scenario = {"task": "gmm", "estimator": "ppe", "data": GMM_SIZES,
                "params": {"epsilon": 1.0, "delta": 1e-5}}
    assert winner.cannot_succeed(scenario).startswith(winner.NOT_RUN + "PPE cannot succeed")
    assert winner.cannot_succeed({**scenario, "estimator": "dp_em"}) is None
    graph = {"task": "sbm", "estimator": "weak_recovery", "data": {
        "generator": "sbm", "n": 300, "degree": 20.0, "signal": 0.5},
        "params": {"epsilon": 1.0, "delta": 1e-6, "n": 300}}
    assert winner.cannot_succeed(graph) is None
    assert winner.cannot_succeed({**scenario, "data": {"dataset": "iris"}}) is None


def test_skipped_runs_are_failed_rows_not_run_and_not_cached(tmp_path):
    spec = winner.map_spec("gmm", "epsilon", "data.n", [0.5, 2.0], [300, 600], repeats=1,
                           estimators=["dp_em", "ppe"])
    table = winner.run_map(spec, cache_dir=tmp_path)
    ppe = table[table["estimator"] == "ppe"]
    assert len(table) == 8 and ppe["failed"].str.startswith(winner.NOT_RUN).all()
    assert (ppe["seconds"] == 0).all()
    assert (table.loc[table["estimator"] == "dp_em", "failed"] == "").all()
    cached = read_cache(tmp_path / f"{spec.digest()}.jsonl")
    assert {row["estimator"] for row in cached.values()} == {"dp_em"}
    cells = winner.winners(table, "epsilon", "data.n", "mean_error")
    assert set(cells["winner"]) == {"dp_em"} and all(c == ["ppe"] for c in cells["not_run"])
    fig = winner_map_figure(cells, winner.AXES["gmm"]["epsilon"],
                            winner.AXES["gmm"]["data.n"], [0.5, 2.0], [300, 600], task="gmm",
                            metric="mean_error", labels={"dp_em": "DP-EM", "ppe": "PPE"})
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert [t.name for t in heat] == ["DP-EM"]
    assert "cannot succeed here, not run" in heat[0].text[0][0]
    assert list(fig.layout.xaxis.ticktext) == ["0.5", "2"]
    panels = answers_figure(cells, winner.AXES["gmm"]["epsilon"], winner.AXES["gmm"]["data.n"],
                            [0.5, 2.0], [300, 600], labels={"dp_em": "DP-EM", "ppe": "PPE"})
    assert [t.z.tolist() for t in panels.data if t.type == "heatmap"] == [[[0, 0], [0, 0]],
                                                                         [[2, 2], [2, 2]]]


def test_thresholds_lie_where_the_papers_put_them():
    sbm = winner.map_spec("sbm", "data.degree", "data.signal", [5.0, 200.0], [0.05, 1.0],
                          repeats=1)
    (ks,) = winner.threshold_lines(sbm)
    assert len(ks.points) > 10
    for degree, signal in ks.points:
        assert signal**2 * degree == pytest.approx(1.0, rel=0.1)
    cov = winner.map_spec("covariance", "data.n", "data.d", [1000, 50_000], [10, 400],
                          repeats=1)
    (crossover,) = winner.threshold_lines(cov)
    for n, d in crossover.points:
        assert d == pytest.approx(n ** (2 / 3), rel=0.1)
    (flat,) = winner.threshold_lines(winner.map_spec("sbm", "epsilon", "data.n", [1.0, 2.0],
                                                     [200, 400], repeats=1))
    assert flat.points == () and flat.note == "the whole map lies above this threshold"


def test_preconditions_are_asked_along_their_boundary_and_agree_everywhere(monkeypatch):
    spec = winner.map_spec("gmm", "epsilon", "data.n", [2.0, 8.0], [500, 4000, 20_000],
                           repeats=1, estimators=["dp_em", "private_pca_clustering"])
    asked = []
    real = winner.cannot_succeed

    def counted(scenario):
        asked.append((scenario["params"]["epsilon"], scenario["data"]["n"]))
        return real(scenario)

    monkeypatch.setattr(winner, "cannot_succeed", counted)
    skip = winner.map_skips(spec)
    assert len(asked) <= 5  # 2 ε + 3 n, not 6 cells; DP-EM states no precondition
    entry = TASKS["gmm"]["private_pca_clustering"]
    for epsilon in (2.0, 8.0):
        for n in (500, 4000, 20_000):
            scenario = {"task": "gmm", "estimator": "private_pca_clustering",
                        "data": {**GMM_SIZES, "n": n},
                        "params": {"epsilon": epsilon, "delta": 1e-5}}
            truth = entry.cannot_run(n=n, d=2, k=3, epsilon=epsilon, delta=1e-5)
            assert (skip(scenario) is None) == (truth is None), (epsilon, n)
            assert skip({**scenario, "estimator": "dp_em"}) is None


def test_a_sample_size_bound_runs_along_the_cells_it_was_skipped_in():
    spec = winner.map_spec("gmm", "epsilon", "data.n", [1.0, 4.0], [500, 2000, 8000],
                           repeats=1, estimators=["dp_em", "ppe"])
    needs = {1.0: 8000, 4.0: 2000}  # ppe runs from this n on
    table = pd.DataFrame([
        {"estimator": name, "epsilon": e, "data.n": n,
         "failed": winner.NOT_RUN + "too few" if name == "ppe" and n < needs[e] else ""}
        for name in ("dp_em", "ppe") for e in (1.0, 4.0) for n in (500, 2000, 8000)])
    (line,) = winner.bound_lines(spec, table)
    assert line.estimator == "ppe" and line.note == ""
    (e0, n0), (e1, n1), (e2, n2), (e3, n3) = line.points
    assert n0 == n1 == pytest.approx(math.sqrt(2000 * 8000))  # between 2 000 and 8 000 rows
    assert n2 == n3 == pytest.approx(math.sqrt(500 * 2000))
    assert e0 == pytest.approx(0.5) and e1 == e2 == pytest.approx(2.0) and e3 == pytest.approx(8)
    nowhere = table.assign(failed=[winner.NOT_RUN if n == "ppe" else ""
                                   for n in table["estimator"]])
    (none,) = winner.bound_lines(spec, nowhere)
    assert none.points == () and none.note == "cannot succeed anywhere on this map"


def test_a_saved_map_reads_back(tmp_path):
    spec = winner.map_spec("covariance", "epsilon", "data.n", [0.5, 2.0], [1000, 2000],
                           data={"d": 5}, repeats=1)
    table = winner.run_map(spec, cache_dir=tmp_path / "cache")
    lines = winner.threshold_lines(spec)
    winner.save_map(spec, table, lines, 1.5, command="python bench/winner.py --save",
                    folder=tmp_path)
    saved = winner.load_map("covariance", folder=tmp_path)
    assert saved is not None and saved.spec == spec and saved.lines == tuple(lines)
    assert saved.provenance["command"] == "python bench/winner.py --save"
    assert saved.stale() is None
    pd.testing.assert_frame_equal(saved.table.drop(columns="seconds"),
                                  table.drop(columns="seconds"), check_dtype=False)
    assert winner.load_map("sbm", folder=tmp_path) is None


def test_the_command_line_prints_and_writes_the_winner_summary(tmp_path, capsys):
    spec = {"task": "covariance", "estimators": ["gauss", "zero"],
            "data": {"generator": "zipf", "n": 600, "d": 4}, "fixed": {},
            "grid": {"rho": [0.01, 1.0], "data.n": [300, 3000]}, "repeats": 2, "seed": 3,
            "metrics": ["frobenius_error"]}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    out = tmp_path / "winner.json"
    code = cli.main(["sweep", str(path), "--cache-dir", str(tmp_path / "c"), "--winner",
                     str(out)])
    captured = capsys.readouterr()
    assert code == 0
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert len(rows) == 16 and all(r["task"] == "covariance" for r in rows)  # rows unchanged
    summary = json.loads(out.read_text())
    assert summary["axes"] == ["rho", "data.n"] and len(summary["cells"]) == 4
    for cell in summary["cells"]:
        assert cell["winner"] in ("gauss", "zero") and 0 <= cell["margin"] <= 1
        said = (f"a tie: {', '.join(cell['tied'])} (no lead established)" if cell["tied"]
                else cell["winner"])  # 2 repeats: no lead can be established
        assert f"winner at rho = {cell['rho']}, data.n = {cell['data.n']}: {said}" \
            in captured.err
    path.write_text(json.dumps({**spec, "grid": {"rho": [0.1]}}))
    assert cli.main(["sweep", str(path), "--winner", str(out)]) == 2
    assert "--winner needs a grid with two keys" in capsys.readouterr().err


def test_a_saved_map_that_misses_an_estimator_or_the_page_defaults_is_caught():
    complete = winner.map_spec("covariance", "epsilon", "data.n", [0.5, 2.0], [1000, 2000],
                               repeats=1)
    made = {"command": "python bench/winner.py --save --task covariance"}
    assert winner_claims.map_problems(winner.SavedMap(complete, pd.DataFrame(), (), 0.0,
                                                      made)) == []
    missing = winner.map_spec("covariance", "epsilon", "data.n", [0.5, 2.0], [1000, 2000],
                              repeats=1, estimators=["gauss", "separate"], data={"d": 200})
    problems = winner_claims.map_problems(winner.SavedMap(missing, pd.DataFrame(), (), 0.0))
    assert any(p.startswith("adaptive can run on the covariance map") for p in problems)
    assert any("not the page's defaults" in p for p in problems)
    assert any("does not record the command" in p for p in problems)


def test_the_saved_maps_list_every_private_estimator_at_the_pages_defaults():
    measured = winner_claims.claim_saved_maps_complete(fresh=False)
    assert measured.ok, measured.text
