"""Issue 7's accuracy table: every GMM estimator on separations 2σ, 4σ, 6σ (the default) and
8σ at ε ∈ {0.5, 1, 4} — matched mean error (median over the successful repeats) and success rate.

The dpviz estimators run as one sweep (:mod:`dpviz.lab.experiments`: every estimator of a repeat
sees the same data); diffprivlib's ``KMeans`` runs on the same data draws (the sweep's data
seeds). Writes ``assets/results/gmm_estimators.csv`` (one row per run) and adds one bench
entry per cell of the default scenario. ``python bench/gmm_table.py [--repeats R]`` runs it
alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpviz.estimators.metrics import matched_mean_error  # noqa: E402
from dpviz.lab.experiments import SweepSpec, run_seeds, run_sweep  # noqa: E402
from dpviz.lab.scenario import load_data  # noqa: E402

TABLE_CSV = ROOT / "assets" / "results" / "gmm_estimators.csv"
ESTIMATORS = ("dp_em", "dplloyd", "private_pca_clustering", "sample_aggregate", "ppe",
              "stability", "em")
SEPARATIONS = (2.0, 4.0, 6.0, 8.0)
EPSILONS = (0.5, 1.0, 4.0)


def table_spec(repeats: int) -> SweepSpec:
    """The sweep: the default scenario's generator, separations × ε, every estimator."""
    return SweepSpec.from_dict({
        "task": "gmm", "estimators": list(ESTIMATORS),
        "data": {"generator": "gmm", "n": 10_000, "d": 2, "k": 3},
        "fixed": {"delta": 1e-5, "k": 3},
        "grid": {"data.separation": list(SEPARATIONS), "epsilon": list(EPSILONS)},
        "repeats": repeats, "seed": 0, "metrics": ["mean_error"],
        "description": "issue 7: every GMM estimator by separation and epsilon"})


def diffprivlib_rows(spec: SweepSpec) -> list[dict[str, Any]]:
    """diffprivlib's KMeans on the sweep's own data draws (same data seeds)."""
    from diffprivlib.models import KMeans

    rows = []
    for point in spec.points():
        for repeat in range(spec.repeats):
            data_seed, _ = run_seeds(spec, point, repeat, "diffprivlib_kmeans")
            block = {**spec.data, "separation": point["data.separation"], "seed": data_seed}
            loaded = load_data(block)
            radius = float(loaded.radius or 1.0)
            started = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = KMeans(n_clusters=3, epsilon=float(point["epsilon"]),
                               bounds=(-radius, radius), random_state=repeat)
                centres = model.fit(np.asarray(loaded.data)).cluster_centers_
            assert loaded.truth is not None and loaded.truth.means is not None
            rows.append({"task": "gmm", "estimator": "diffprivlib_kmeans", **point,
                         "repeat": repeat, "seed": repeat, "data_seed": data_seed,
                         "mean_error": matched_mean_error(loaded.truth.means, centres),
                         "seconds": time.perf_counter() - started, "failed": ""})
    return rows


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Median matched mean error over the successful runs and the success rate per cell."""
    ok = table["failed"] == ""
    grouped = table.assign(ok=ok).groupby(["estimator", "data.separation", "epsilon"],
                                          sort=False)
    return pd.DataFrame({
        "median_error": grouped.apply(lambda g: g.loc[g["ok"], "mean_error"].median(),
                                      include_groups=False),
        "success_rate": grouped["ok"].mean()}).reset_index()


def run_table(repeats: int, jobs: int = 2) -> pd.DataFrame:
    spec = table_spec(repeats)
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = run_sweep(spec, jobs=jobs)
        peers = pd.DataFrame(diffprivlib_rows(spec))
    return pd.concat([table, peers], ignore_index=True)


def bench_gmm_table(b: Any, repeats: int = 5, save: bool = True) -> pd.DataFrame:
    """Add the default scenario's cells as bench entries; save the whole table."""
    started = time.perf_counter()
    table = run_table(repeats)
    if save:
        table.to_csv(TABLE_CSV, index=False)
    cells = summary(table)
    default = cells[(cells["data.separation"] == 6.0) & (cells["epsilon"] == 1.0)]
    em = float(default.loc[default["estimator"] == "em", "median_error"].iloc[0])
    for _, row in default.iterrows():
        value = row["median_error"]
        b.add(f"gmm_table_{row['estimator']}", value,
              "matched mean error", baseline=em, baseline_name="non-private EM",
              note=f"success rate {row['success_rate']:.0%}; n = 10 000, d = 2, k = 3, 6σ, "
                   f"ε = 1, δ = 1e-5, {repeats} repeats; the whole table "
                   f"(4 separations × 3 ε) in assets/results/gmm_estimators.csv, "
                   f"{time.perf_counter() - started:.0f} s")
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    table = run_table(args.repeats)
    if not args.no_save:
        table.to_csv(TABLE_CSV, index=False)
    cells = summary(table)
    wide = cells.pivot_table(index="estimator", columns=["data.separation", "epsilon"],
                             values=["median_error", "success_rate"], sort=False)
    print(wide.round(3).to_string())
    print(json.dumps({"seconds": round(time.perf_counter() - started, 1),
                      "runs": len(table)}))


if __name__ == "__main__":
    main()
