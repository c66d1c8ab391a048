"""Grid means (grid_means.py): sensitivity, noise, budget, refusals, the exact answer."""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import pytest
from scipy import stats

import dpviz
from dpviz.estimators.gmm import grid_means as gm
from dpviz.estimators.gmm.one_cluster import REFUSED
from dpviz.estimators.registry import TASKS
from dpviz.privacy import Budget, clip_to_ball, solve
from dpviz.privacy.audit import recording

RADIUS = 4.0
CENTRES = np.array([[-2.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
_rng = np.random.default_rng(20261126)
X = np.concatenate([_rng.normal(centre, 0.3, size=(400, 2)) for centre in CENTRES])
BUDGET = Budget(epsilon=1.0, delta=1e-5)


def run(data=X, budget=BUDGET, **kw):
    kw.setdefault("k", 3)
    kw.setdefault("rng", np.random.default_rng(0))
    kw.setdefault("radius", RADIUS)
    return gm.grid_means(data, budget, **kw)


def points_of(data, radius=RADIUS):
    """The rows as the estimator counts them: clipped to the ball, in unit-ball coordinates."""
    return clip_to_ball(np.asarray(data, dtype=float), np.zeros(np.shape(data)[1]),
                        radius) / radius


def grid_box(column_counts, scale):
    """The box the grid is laid over (unit-ball coordinates), read from the released column
    counts (post-processing: the windows of two cells whose noisy count clears ``ZOOM_Z`` of
    their noise, ``√2·σ``, and at least one row)."""
    noisy = np.asarray(column_counts, dtype=float).reshape(-1, gm.ZOOM_CELLS)
    return gm.occupied_box(noisy, 1.0, max(gm.ZOOM_Z * math.sqrt(2) * scale, 1.0))


def replace_one(data, i, row):
    out = np.array(data, dtype=float)
    out[i] = row
    return out


def _unit(v):
    return v / np.linalg.norm(v)


# --- sensitivity on neighbouring data sets ---

@pytest.mark.parametrize("d", [1, 2, 3])
def test_a_replaced_row_moves_the_grid_by_at_most_sqrt_2(d):
    """Random neighbours, rows outside the box, on cell boundaries and at the box's corners."""
    rng = np.random.default_rng(d)
    worst = 0.0
    for _ in range(150):
        cells = int(rng.integers(2, 12))
        low = rng.uniform(-1.0, -0.2, size=d)
        high = rng.uniform(0.2, 1.0, size=d)
        data = rng.uniform(-1.2, 1.2, size=(int(rng.integers(1, 30)), d))
        i = int(rng.integers(len(data)))
        width = (high - low) / cells
        boundary = low + width * rng.integers(0, cells + 1, size=d)
        for new in (rng.uniform(-1.2, 1.2, size=d), -data[i], 5 * rng.normal(size=d),
                    boundary, np.nextafter(boundary, -np.inf), np.nextafter(boundary, np.inf),
                    np.where(rng.random(d) < 0.5, low, high)):
            change = np.linalg.norm(gm.histogram(data, low, high, cells)
                                    - gm.histogram(replace_one(data, i, new), low, high, cells))
            assert change in (0.0, pytest.approx(math.sqrt(2)))
            worst = max(worst, change)
    assert worst == pytest.approx(gm.grid_sensitivity())


def test_a_row_moved_across_a_cell_boundary_attains_sqrt_2():
    low, high = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    on_edge = np.array([[0.0, 0.5], [0.3, 0.3]])  # x = 0 is the edge of cells 1 and 2 of 4
    just_below = replace_one(on_edge, 0, [-1e-12, 0.5])
    change = gm.histogram(on_edge, low, high, 4) - gm.histogram(just_below, low, high, 4)
    assert sorted(change[change != 0].tolist()) == [-1.0, 1.0]
    assert np.linalg.norm(change) == pytest.approx(gm.grid_sensitivity())


@pytest.mark.parametrize("d", [1, 2, 3])
def test_a_replaced_row_moves_the_column_counts_by_at_most_sqrt_2d(d):
    rng = np.random.default_rng(10 + d)
    worst = 0.0
    for _ in range(100):
        data = rng.uniform(-1.0, 1.0, size=(int(rng.integers(1, 20)), d))
        i = int(rng.integers(len(data)))
        for new in (rng.uniform(-1, 1, size=d), -data[i], np.sign(rng.normal(size=d))):
            change = np.linalg.norm(gm.marginals(data, 1.0)
                                    - gm.marginals(replace_one(data, i, new), 1.0))
            worst = max(worst, change)
    assert worst <= gm.marginal_sensitivity(d) + 1e-12
    corner = np.full((1, d), -1.0)  # every column's count moves from its first cell to its last
    change = np.linalg.norm(gm.marginals(corner, 1.0) - gm.marginals(-corner, 1.0))
    assert change == pytest.approx(gm.marginal_sensitivity(d))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_a_replaced_row_moves_counts_by_sqrt_2_and_clipped_sums_by_2r_at_most(d):
    """Random neighbours; far rows (clipped); ties between two centres; opposite offsets."""
    rng = np.random.default_rng(20 + d)
    worst_counts = worst_sums = 0.0
    for _ in range(200):
        k = int(rng.integers(1, 6))
        centres = rng.uniform(-1, 1, size=(k, d))
        radius = float(rng.uniform(0.05, 1.0))
        data = rng.uniform(-1.5, 1.5, size=(int(rng.integers(k, 30)), d))
        i = int(rng.integers(len(data)))
        a, b = centres[rng.integers(k)], centres[rng.integers(k)]
        nearest = centres[gm.nearest_centre(data[i:i + 1], centres)[0]]
        for new in (rng.uniform(-1.5, 1.5, size=d), (a + b) / 2,
                    2 * nearest - data[i],  # the same cluster, the opposite offset
                    b + 10 * radius * _unit(rng.normal(size=d))):
            counts, sums = gm.local_statistics(data, centres, radius)
            counts2, sums2 = gm.local_statistics(replace_one(data, i, new), centres, radius)
            worst_counts = max(worst_counts, float(np.linalg.norm(counts - counts2)))
            worst_sums = max(worst_sums, float(np.linalg.norm(sums - sums2)) / radius)
    assert worst_counts == pytest.approx(gm.grid_sensitivity())
    assert worst_sums <= gm.sums_sensitivity(1.0) * (1 + 1e-12)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_opposite_offsets_in_one_cluster_attain_2r(d):
    """One row far out on one side of its centre, its replacement far out on the other: both
    offsets are clipped to r and the cluster's sum moves by 2r, beyond √2·r (the two-cluster
    case), while no count moves."""
    centres = np.array([np.zeros(d), np.full(d, 5.0)])
    u, r = _unit(np.arange(1.0, d + 1)), 0.3
    others = np.array([np.full(d, 0.1), np.full(d, 4.9)])
    data = np.vstack([3 * r * u, others])
    neighbour = np.vstack([-3 * r * u, others])
    counts, sums = gm.local_statistics(data, centres, r)
    counts2, sums2 = gm.local_statistics(neighbour, centres, r)
    np.testing.assert_array_equal(counts, counts2)
    change = np.linalg.norm(sums - sums2)
    assert change == pytest.approx(gm.sums_sensitivity(r), rel=1e-12)
    assert change > math.sqrt(2) * r * 1.4


def test_rows_in_two_clusters_move_the_sums_by_sqrt_2_r():
    centres = np.array([[0.0, 0.0], [5.0, 0.0]])
    data = np.array([[-1.0, 0.0], [0.1, 0.0], [5.1, 0.0]])
    neighbour = replace_one(data, 0, [6.0, 0.0])
    counts, sums = gm.local_statistics(data, centres, 0.5)
    counts2, sums2 = gm.local_statistics(neighbour, centres, 0.5)
    assert np.linalg.norm(counts - counts2) == pytest.approx(math.sqrt(2))
    assert np.linalg.norm(sums - sums2) == pytest.approx(math.sqrt(2) * 0.5)


def replayed_changes(data, neighbour, budget=BUDGET, **kw):
    """Every release's change between neighbours, the neighbour's run replaying the first's
    outputs (so both compute their releases after the same earlier outputs: adaptive
    composition's condition), with the sensitivity the ledger recorded."""
    with recording() as first:
        result = run(data, budget, rng=np.random.default_rng(1), **kw)
    with recording(replay=first.releases) as second:
        run(neighbour, budget, rng=np.random.default_rng(2), **kw)
    assert second.replayed
    assert [r.name for r in result.ledger.releases] == [r.name for r in first.releases]
    assert [r.sensitivity for r in first.releases] == [r.sensitivity for r in second.releases]
    return [(a.name, b.change(a), a.sensitivity) for a, b in zip(first.releases,
                                                                 second.releases, strict=True)]


def test_every_release_of_a_run_moves_within_its_recorded_sensitivity():
    rng = np.random.default_rng(30)
    moved = set()
    for trial in range(12):
        i = int(rng.integers(len(X)))
        new = (rng.uniform(-RADIUS, RADIUS, size=2), -X[i], CENTRES[trial % 3],
               np.array([1e6, -1e6]))[trial % 4]
        budget = Budget(epsilon=float(rng.choice([0.8, 2.0, math.inf])), delta=1e-5)
        for name, change, sensitivity in replayed_changes(X, replace_one(X, i, new), budget):
            assert change <= sensitivity * (1 + 1e-12), (trial, name, change, sensitivity)
            if change > 0:
                moved.add(name.split(",")[0])
    assert {"grid counts", "clipped sums"} <= moved  # the pairs did move the releases


def test_the_estimator_attains_2r_on_its_first_step_sums():
    """Row 0 beside cluster 0 and its mirror image through the first centre (the peak)."""
    base = replace_one(X, 0, CENTRES[0] + [-1.2, -0.3])
    peak = run(base, Budget(epsilon=math.inf)).diagnostics["centres"][0]
    first = peak[np.argmin(np.linalg.norm(peak - CENTRES[0], axis=1))]
    mirrored = replace_one(base, 0, 2 * first - base[0])
    changes = replayed_changes(base, mirrored, Budget(epsilon=math.inf))
    step = {name: (change, sensitivity) for name, change, sensitivity in changes}
    change, sensitivity = step["clipped sums, step 1"]
    r = run(base, Budget(epsilon=math.inf)).diagnostics["radii"][0] / RADIUS  # unit ball
    assert change == pytest.approx(2 * r, rel=1e-9)
    assert change <= sensitivity * (1 + 1e-12)  # the ledger's sensitivity covers it …
    assert sensitivity == pytest.approx(change, rel=1e-9)  # … and is attained
    assert change > 1.4 * math.sqrt(2) * r  # √2·r would under-state it
    assert step["cluster sizes, step 1"][0] == 0.0


# --- the noise ---

def test_released_minus_exact_is_gaussian_at_the_ledger_scale():
    """Each release kind's noise, over many runs, standardised by the ledger's σ: N(0, 1) is
    accepted, σ·√2 and σ/√2 are rejected. The exact values are recomputed independently."""
    points = points_of(X)
    noise: dict[str, list[np.ndarray]] = {}
    for seed in range(250):
        with recording() as seen:
            result = run(rng=np.random.default_rng(seed))
        rows = result.ledger.releases
        assert len(rows) == len(seen.releases)
        low, high = grid_box(seen.releases[0].output, rows[0].scale)
        cells = result.choices["cells"]
        exact = {"column counts": gm.marginals(points, 1.0).ravel(),
                 "grid counts": gm.histogram(points, low, high, cells).ravel()}
        # the diagnostics are in data units; the releases are made in the unit ball's
        centres = result.diagnostics["centres"] / RADIUS
        radii = result.diagnostics["radii"] / RADIUS
        assert radii[0] == pytest.approx(np.max(high - low) / cells, rel=1e-12)
        for s, r in enumerate(radii):
            counts, sums = gm.local_statistics(points, centres[s], r)
            exact[f"cluster sizes, step {s + 1}"] = counts
            exact[f"clipped sums, step {s + 1}"] = sums.ravel()
        exact["final cluster sizes"] = gm.local_statistics(points, centres[-1], 0.0)[0]
        assert {row.name for row in rows} == set(exact)
        for row, recorded in zip(rows, seen.releases, strict=True):
            assert (row.name, row.scale) == (recorded.name, recorded.scale)
            np.testing.assert_allclose(recorded.noised, exact[row.name], atol=1e-9)
            kind = row.name.split(",")[0]
            noise.setdefault(kind, []).append((recorded.output.ravel() - exact[row.name])
                                              / row.scale)
    for kind, parts in noise.items():
        z = np.concatenate(parts)
        assert stats.kstest(z, stats.norm(0, 1).cdf).pvalue > 1e-3, kind
        assert stats.kstest(z, stats.norm(0, math.sqrt(2)).cdf).pvalue < 1e-4, kind
        assert stats.kstest(z, stats.norm(0, 1 / math.sqrt(2)).cdf).pvalue < 1e-4, kind


def test_each_scale_is_the_planned_multiplier_times_the_sensitivity():
    result = run(steps=3, grid_share=0.4)
    allocations = solve(gm.plan(3, 0.4), BUDGET)
    kinds = {"column counts": "marginals", "grid counts": "grid", "cluster sizes": "counts",
             "clipped sums": "sums", "final cluster sizes": "sizes"}
    for row in result.ledger.releases:
        planned = allocations[kinds[row.name.split(",")[0]]]
        assert row.scale == pytest.approx(planned.scale_for(row.sensitivity), rel=1e-12)


def test_epsilon_inf_releases_the_exact_values():
    with recording() as seen:
        result = run(budget=Budget(epsilon=math.inf))
    for recorded in seen.releases:
        np.testing.assert_array_equal(recorded.output.ravel(), recorded.noised)
    assert all(row.scale == 0 and row.sampler is None for row in result.ledger.releases)


# --- the budget and the ledger ---

@pytest.mark.parametrize("method", ["zcdp", "linear", "advanced", "ma", "rdp", "pld"])
def test_the_ledger_total_meets_an_epsilon_budget(method):
    budget = Budget(epsilon=1.5, delta=1e-5, method=method)
    result = run(budget=budget)
    assert result.failed is None
    total = result.ledger.total()
    assert total.method == method
    assert total.epsilon <= 1.5 * (1 + 1e-9)
    assert total.epsilon == pytest.approx(1.5, rel=1e-5)


def test_the_ledger_total_meets_a_rho_budget():
    result = run(budget=Budget(rho=0.05), steps=4)
    assert result.failed is None
    assert result.ledger.total().rho <= 0.05 * (1 + 1e-12)
    assert result.ledger.total().rho == pytest.approx(0.05, rel=1e-9)


@pytest.mark.parametrize("steps", [1, 3])
def test_the_ledger_records_every_release_with_its_sensitivity(steps):
    with recording() as seen:
        result = run(steps=steps)
    rows = result.ledger.releases
    assert [r.name for r in rows] == [r.name for r in seen.releases]
    radii = result.diagnostics["radii"]
    expected = {"column counts": gm.marginal_sensitivity(2),
                "grid counts": gm.grid_sensitivity()}
    for s in range(steps):
        expected[f"cluster sizes, step {s + 1}"] = gm.grid_sensitivity()
        expected[f"clipped sums, step {s + 1}"] = gm.sums_sensitivity(radii[s] / RADIUS)
    expected["final cluster sizes"] = gm.grid_sensitivity()
    assert {r.name: r.sensitivity for r in rows} == pytest.approx(expected, rel=1e-12)
    assert len(rows) == len(expected)
    assert all((r.mechanism, r.norm, r.count) == ("gaussian", "L2", 1) for r in rows)
    assert len(radii) == steps
    np.testing.assert_allclose(radii[1:], radii[:-1] / 2)
    assert result.choices["sensitivity norm"] == "L2"
    assert "replace-one" in result.choices["sensitivity reason"]


# --- refusal before spending ---

REFUSED_AT = {"n": 200, "d": 2, "k": 3, "epsilon": 1.0, "delta": 1e-5}


def test_can_run_gives_the_refusal_sentence():
    why = gm.can_run(**REFUSED_AT)
    assert why == gm.refusal(200, 2, 3, Budget(epsilon=1.0, delta=1e-5))
    assert why == TASKS["gmm"]["grid_means"].cannot_run(**REFUSED_AT)
    assert why.startswith("grid means cannot find k = 3 clusters in n = 200 rows at "
                          "epsilon = 1: ")
    needed = int(re.search(r"it needs about n = ([\d,]+) rows", why)[1].replace(",", ""))
    assert gm.can_run(**{**REFUSED_AT, "n": needed}) is None
    assert gm.can_run(**{**REFUSED_AT, "n": needed - 1}) is not None
    assert gm.can_run(**{**REFUSED_AT, "epsilon": math.inf}) is None
    assert gm.can_run(**{**REFUSED_AT, "delta": 0.0}) == (
        "grid means adds Gaussian noise: it needs delta > 0")


@pytest.mark.parametrize("budget", [Budget(epsilon=1.0, delta=1e-5), Budget(rho=0.005),
                                    Budget(epsilon=1.0)], ids=["epsilon", "rho", "pure"])
def test_a_refusal_spends_nothing_and_is_the_same_on_neighbours(budget):
    rng = np.random.default_rng(40)
    data = rng.uniform(-0.7, 0.7, size=(200, 2))
    why = gm.refusal(200, 2, 3, budget)
    assert why is not None
    answers = []
    for rows in (data, replace_one(data, 0, [0.9, -0.1]), replace_one(data, 7, [-5.0, 3.0])):
        result = run(rows, budget, radius=1.0)
        assert result.failed == REFUSED + why
        assert result.ledger.releases == ()
        assert all(value is None for value in result.estimate.values())
        answers.append(result.to_dict())
    assert answers[0] == answers[1] == answers[2]


def test_more_than_three_columns_is_the_too_many_columns_sentence_everywhere():
    data = np.random.default_rng(41).uniform(-0.5, 0.5, size=(2000, 4))
    sentence = gm.too_many_columns(4)
    assert gm.can_run(n=2000, d=4, k=2, epsilon=1.0, delta=1e-5) == sentence
    assert gm.can_run(n=2000, d=4, k=2, epsilon=None, delta=0.0) == sentence
    for rows in (data, replace_one(data, 0, np.ones(4))):
        with pytest.raises(ValueError) as err:
            run(rows, radius=1.0, k=2)
        assert str(err.value) == sentence
        with pytest.raises(ValueError) as err:
            dpviz.run("gmm", "grid_means", rows, epsilon=1.0, delta=1e-5, k=2, seed=0)
        assert str(err.value) == sentence


# --- what is computed ---

@pytest.mark.parametrize(("d", "sizes"), [(1, (60, 90)), (2, (50, 80, 120)), (3, (70, 40, 90))])
def test_epsilon_inf_on_tight_separated_clusters_returns_their_means(d, sizes):
    """Rows within 0.05 of three centres ≥ 2.5 apart: the first step's radius (a cell) holds
    every row's offset, so it lands on the cluster's mean, which later steps keep."""
    rng = np.random.default_rng(50 + d)
    centres = np.array([[-2.0, 0.5, -1.0], [1.5, -1.0, 1.0], [0.5, 2.0, -0.5]])[:len(sizes), :d]
    clusters = [c + 0.05 * _unit_rows(rng.normal(size=(m, d))) * rng.random((m, 1))
                for c, m in zip(centres, sizes, strict=True)]
    data = np.concatenate(clusters)[rng.permutation(sum(sizes))]
    result = run(data, Budget(epsilon=math.inf), k=len(sizes), steps=3)
    means = result.estimate["means"]
    order = np.argmin(np.linalg.norm(means[:, None] - centres[None], axis=2), axis=1)
    assert sorted(order.tolist()) == list(range(len(sizes)))
    expected = np.array([clusters[j].mean(axis=0) for j in order])
    np.testing.assert_allclose(means, expected, atol=1e-9)
    np.testing.assert_allclose(result.estimate["weights"],
                               np.array(sizes)[order] / sum(sizes), atol=1e-12)
    assert result.estimate["covariances"] is None
    assert result.diagnostics["centres"].shape == (4, len(sizes), d)


def _unit_rows(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_recovers_the_clusters_at_a_moderate_budget():
    errors = []
    for seed in range(5):
        means = run(rng=np.random.default_rng(seed)).estimate["means"]
        errors.append(np.linalg.norm(means[:, None] - CENTRES[None], axis=2).min(axis=0).max())
    assert np.median(errors) < 0.3


def test_same_seed_same_output_and_another_seed_differs():
    first, again = run(rng=np.random.default_rng(3)), run(rng=np.random.default_rng(3))
    other = run(rng=np.random.default_rng(4))
    np.testing.assert_array_equal(first.diagnostics["centres"], again.diagnostics["centres"])
    assert not np.array_equal(first.estimate["means"], other.estimate["means"])


# --- bad inputs and the registry entry ---

@pytest.mark.parametrize(("kwargs", "message"), [
    ({"cells": 1}, "cells must be >= 2 and <= 256, got 1"),
    ({"cells": 257}, "cells must be >= 2 and <= 256, got 257"),
    ({"cells": 2.5}, "cells must be a whole number, got 2.5"),
    ({"steps": 0}, "steps must be >= 1 and <= 6, got 0"),
    ({"steps": 7}, "steps must be >= 1 and <= 6, got 7"),
    ({"grid_share": 0.01}, "grid_share must be >= 0.05 and <= 0.8, got 0.01"),
    ({"grid_share": 0.85}, "grid_share must be >= 0.05 and <= 0.8, got 0.85"),
    ({"grid_share": float("nan")}, "grid_share must be a number, got NaN"),
    ({"k": 0}, "k must be >= 1 and <= 100, got 0"),
    ({"k": 2.5}, "k must be a whole number, got 2.5"),
])
def test_bad_parameters_are_sentences(kwargs, message):
    with pytest.raises(ValueError) as err:
        run(**kwargs)
    assert str(err.value) == message


def test_too_many_cells_and_too_many_clusters_are_sentences():
    cube = np.random.default_rng(60).uniform(-0.5, 0.5, size=(50, 3))
    with pytest.raises(ValueError) as err:
        run(cube, k=2, cells=41)
    assert str(err.value) == ("cells must make at most 65,536 cells in all: 41 per axis in 3 "
                              "columns make 68,921")
    assert run(cube, Budget(epsilon=math.inf), k=2, cells=40).choices["cells"] == 40
    with pytest.raises(ValueError) as err:
        run(X[:3], k=5)
    assert str(err.value) == "k = 5 clusters need at least 5 rows, got 3"
    with pytest.raises(ValueError, match="missing or infinite value in row 2, column 1"):
        run(np.array([[0.0, 0.0], [np.nan, 1.0], [1.0, 1.0]]), k=2)


@pytest.mark.parametrize("grid_share", [gm.SHARE_RANGE.low, gm.SHARE_RANGE.high])
@pytest.mark.parametrize("steps", [gm.STEPS_RANGE.low, gm.STEPS_RANGE.high])
def test_every_allowed_share_and_step_count_runs_within_the_budget(grid_share, steps):
    result = run(budget=Budget(epsilon=50.0, delta=1e-5), grid_share=grid_share, steps=steps)
    assert result.failed is None
    assert result.ledger.total().epsilon <= 50.0 * (1 + 1e-9)


def test_registry_entry_runs_as_dpviz_run_calls_it():
    entry = TASKS["gmm"]["grid_means"]
    assert (entry.task, entry.name, entry.notion) == ("gmm", "grid_means", "approximate")
    defaults = inspect.signature(gm.grid_means).parameters
    assert entry.resolve({"k": "3"}) == {"k": 3, "cells": None,
                                         "grid_share": defaults["grid_share"].default,
                                         "steps": defaults["steps"].default}
    with pytest.raises(ValueError, match="needs the parameter 'k'"):
        entry.resolve({})
    result = dpviz.run("gmm", "grid_means", X, epsilon=2.0, delta=1e-5, k=3, seed=0,
                       radius=RADIUS, cells="12")
    assert result.failed is None
    assert result.estimate["means"].shape == (3, 2)
    assert result.choices["cells"] == 12
    pair = entry.neighbours()
    assert len(pair.data) == len(pair.neighbour) == 300
