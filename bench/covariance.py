"""Private covariance benchmarks for ``bench/run.py`` (issue 5).

* ``separate_cov_vs_eigh_time`` / ``gauss_cov_vs_eigh_time``: the estimators at n = 10 000,
  d = 200 against forming ``XᵀX`` plus one ``numpy.linalg.eigh`` of d × d, same run (targets
  1.5× and 1.2×, DESIGN.md).
* ``covariance_page_recompute``: a slider move at the page defaults (n = 10 000, d = 50,
  ρ = 0.1, N = 4): the four zCDP estimators on the cached prepared data.
* ``covariance_paper_error_<estimator>``: mean error at the paper's defaults (d = 200,
  n = 50 000, ρ = 0.1, N = 4), against ALGORITHMS.md §6's faithful-run reference.
* Figures 2 and 3 (:mod:`dpviz.covariance.reproduction`): saved to
  ``assets/results/covariance_<figure>.csv`` (specs in ``assets/sweeps/dong_<figure>.json``);
  quick mode runs a reduced grid (2 repeats, Figure 3(d) only) and saves nothing.

One BLAS/OpenMP thread throughout (``threadpool_limits(1)``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from dpviz.covariance import ESTIMATORS, prepare
from dpviz.covariance.reproduction import SPECS, run_figure, saved_path
from dpviz.data.zipf import zipf_norm_data
from dpviz.privacy import Budget

SWEEPS = Path(__file__).resolve().parents[1] / "assets" / "sweeps"
REFERENCE = {"zero": 2.2e-2, "gauss": 9e-3, "separate": 2.8e-3}
PAGE_DEFAULTS = {"n": 10_000, "d": 50, "rho": 0.1, "buckets": 4}


def figure_repeats(point: Mapping[str, float]) -> int:
    """50 repeats (the paper's) where a repeat is cheap; 20, then 10, for the big points."""
    cost = point["n"] * point["d"] ** 2
    return 50 if cost <= 2.1e9 else (20 if cost <= 1.1e10 else 10)


def _speed(b: Any) -> None:
    z = zipf_norm_data(10_000, 200, seed=0)
    x = z.data

    def baseline() -> Any:
        return np.linalg.eigh(x.T @ x / len(x))

    base = b.time_ms(baseline)
    for name, target in (("separate", 1.5), ("gauss", 1.2)):
        function = ESTIMATORS[name].function
        value = b.time_ms(lambda f=function: f(x, Budget(rho=0.1),
                                               rng=np.random.default_rng(0)))
        b.add(f"{name}_cov_vs_eigh_time", value, "ms", baseline=base,
              baseline_name="x.T @ x / n plus one numpy.linalg.eigh (n = 10 000, d = 200)",
              target=f"ratio ≤ {target:g}", meets=value / base <= target,
              note="the registered estimator on raw rows (validation, clipping, XᵀX, noise, "
                   "eigendecompositions, ledger); ρ = 0.1, Zipf data N = 4; 1 BLAS thread")


def _page(b: Any) -> None:
    z = zipf_norm_data(PAGE_DEFAULTS["n"], PAGE_DEFAULTS["d"],
                       buckets=PAGE_DEFAULTS["buckets"], seed=0)
    prepared = prepare(z.data, None)  # what the page caches with the data

    def move() -> None:
        for name in ("gauss", "separate", "adaptive", "zero"):
            ESTIMATORS[name].function(prepared, Budget(rho=PAGE_DEFAULTS["rho"]),
                                      rng=np.random.default_rng(0))

    b.add("covariance_page_recompute", b.time_ms(move), "ms", target="≤ 300 ms",
          meets=None, note="gauss + separate + adaptive + zero on cached prepared data at "
                           "n = 10 000, d = 50, ρ = 0.1, N = 4 (the page defaults)")
    meets = b.results["covariance_page_recompute"]["value"] <= 300
    b.results["covariance_page_recompute"]["meets_target"] = meets


def _paper_errors(b: Any, quick: bool) -> None:
    repeats = 2 if quick else 10
    errors: dict[str, list[float]] = {n: [] for n in ESTIMATORS}
    for rep in range(repeats):
        z = zipf_norm_data(50_000, 200, seed=rep)
        prepared = prepare(z.data, None)
        for name, est in ESTIMATORS.items():
            r = est.function(prepared, Budget(rho=0.1), rng=np.random.default_rng(1000 + rep))
            errors[name].append(float(np.linalg.norm(r.estimate["covariance"] - z.matrix)))
    for name, values in errors.items():
        ref = REFERENCE.get(name)
        b.add(f"covariance_paper_error_{name}", float(np.mean(values)), "Frobenius",
              baseline=ref, baseline_name="ALGORITHMS.md §6 faithful-run reference" if ref
              else None, note=f"mean over {repeats} repeats (fresh data and noise), d = 200, "
                              "n = 50 000, ρ = 0.1, N = 4",
              detail={"errors": values})


def _figures(b: Any, quick: bool) -> None:
    names = ["fig3d"] if quick else list(SPECS)
    for name in names:
        start = time.perf_counter()
        frame = run_figure(name, repeats=2 if quick else 50,
                           repeats_for=None if quick else figure_repeats)
        seconds = time.perf_counter() - start
        if not quick:
            frame.to_csv(saved_path(name), index=False)
            spec = SPECS[name]
            SWEEPS.mkdir(parents=True, exist_ok=True)
            (SWEEPS / f"dong_{name}.json").write_text(json.dumps({
                "task": "covariance", "figure": name, "description": spec.description,
                "x_name": spec.x_name, "points": [dict(p) for p in spec.points],
                "repeats": "50; 20 where n·d² > 2.1e9; 10 where n·d² > 1.1e10",
                "estimators": sorted(frame["estimator"].unique().tolist()),
                "seeds": "data seed = repeat, noise seed = 1000 + repeat"}, indent=2) + "\n")
        best = frame.groupby("estimator")["mean_error"].mean().to_dict()
        b.add(f"covariance_{name}_run", seconds * 1e3, "ms",
              note=f"{len(frame)} rows, {'quick: 2 repeats, not saved' if quick else 'saved'}",
              detail={"mean error by estimator": best})


def bench_covariance(b: Any, quick: bool) -> None:
    """All covariance entries (see the module docstring)."""
    with threadpool_limits(limits=1):
        _speed(b)
        _page(b)
        _paper_errors(b, quick)
        _figures(b, quick)
