"""FriendlyCore's public constants by simulation, and FriendlyCore against sample-and-aggregate.

Generated data only (``dpviz.data.gaussian_mixture``: k = 3, d = 2, separations 4σ, 6σ, 8σ,
δ = 10⁻⁵); never a user's data.

``--constants``: for each data set the chunks' k-tuples are fitted once per chunk size
(rows per chunk m ∈ {50, 100, 200}) and FriendlyCore's aggregation
(:func:`dpviz.estimators.gmm.friendly_core.aggregate_tuples`) runs on them for every friend
radius r ∈ {0.05, 0.08, 0.1, 0.12, 0.15} (units of R), core-weight plan level ∈ {3, 6} and
ε ∈ {1, 4}; prints the median matched mean error and the success rate per setting.

Default: the comparison at n = 10 000 and 100 000, ε ∈ {1, 4}: FriendlyCore (its defaults) and
sample-and-aggregate (its other defaults) on the same chunks (same chunk count t = n/200 and
seed, so the same shuffle and the same per-chunk fits), and sample-and-aggregate with its own
automatic chunk count; mean matched error over the successful runs and the success rate.
Run it under ``nice -n 10``: ``python bench/friendly_core.py [--constants] [--repeats R]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dpviz  # noqa: E402
from dpviz.data import gaussian_mixture  # noqa: E402
from dpviz.estimators.gmm.friendly_core import (  # noqa: E402
    aggregate_tuples,
    automatic_chunks,
    core_budget,
)
from dpviz.estimators.gmm.sample_aggregate import chunk_estimates  # noqa: E402
from dpviz.estimators.metrics import matched_mean_error  # noqa: E402
from dpviz.privacy import Budget  # noqa: E402

K, D, DELTA = 3, 2, 1e-5
SEPARATIONS = (4.0, 6.0, 8.0)
EPSILONS = (1.0, 4.0)
SIZES = (10_000, 100_000)
CHUNK_ROWS = (50, 100, 200)
RADII = (0.05, 0.08, 0.1, 0.12, 0.15)
LEVELS = (3.0, 6.0)


def constants(repeats: int) -> pd.DataFrame:
    """The grid of the module docstring: one row per run of the aggregation."""
    rows = []
    for separation, n, seed in product(SEPARATIONS, SIZES, range(repeats)):
        mix = gaussian_mixture(K, D, n, separation=separation, seed=seed)
        shuffled = mix.data[np.random.default_rng(seed).permutation(n)]  # radius 1: unit ball
        for m in CHUNK_ROWS:
            t = min(n // m, n // (2 * K), 2_000)
            means, weights, _ = chunk_estimates(shuffled, t, K)
            tuples, mixing = means.reshape(t, K, D), weights.reshape(t, K)
            for r, level, epsilon in product(RADII, LEVELS, EPSILONS):
                spend = core_budget(Budget(epsilon=epsilon, delta=DELTA, method="pld"), t,
                                    level)
                found = aggregate_tuples(tuples, mixing, spend,
                                         rng=np.random.default_rng(1_000 + seed), friend_radius=r)
                means_out = found.estimate["means"]
                rows.append({"separation": separation, "n": n, "seed": seed, "rows_per_chunk": m,
                             "chunks": t, "r": r, "level": level, "epsilon": epsilon,
                             "core_fraction": found.diagnostics.get("core_weight", np.nan) / t,
                             "ok": found.failed is None,
                             "error": (np.nan if means_out is None
                                       else matched_mean_error(mix.means, means_out))})
        print(f"separation {separation:g}, n = {n}, seed {seed}: done", flush=True)
    return pd.DataFrame(rows)


def comparison(repeats: int) -> pd.DataFrame:
    """FriendlyCore and sample-and-aggregate on the same chunks, one row per run."""
    rows = []
    for separation, n, epsilon, repeat in product(SEPARATIONS, SIZES, EPSILONS, range(repeats)):
        mix = gaussian_mixture(K, D, n, separation=separation, seed=repeat)
        t = automatic_chunks(n, K)
        for label, name, chunks in (("friendly_core", "friendly_core", t),
                                    ("sample_aggregate, same chunks", "sample_aggregate", t),
                                    ("sample_aggregate, its own chunks", "sample_aggregate",
                                     None)):
            started = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                found = dpviz.run("gmm", name, mix.data, epsilon=epsilon, delta=DELTA, k=K,
                                  radius=1.0, chunks=chunks, seed=repeat)
            means_out = found.estimate.get("means")
            rows.append({"estimator": label, "separation": separation, "n": n,
                         "epsilon": epsilon, "repeat": repeat, "chunks": chunks or "automatic",
                         "ok": found.failed is None, "failed": found.failed or "",
                         "error": (np.nan if means_out is None
                                   else matched_mean_error(mix.means, means_out)),
                         "seconds": time.perf_counter() - started})
        print(f"separation {separation:g}, n = {n}, epsilon {epsilon:g}, repeat {repeat}: done",
              flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    """Run the constants grid or the comparison and print its summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--constants", action="store_true")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, help="also write every run to this CSV")
    args = parser.parse_args()
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    with threadpool_limits(1):
        if args.constants:
            table = constants(args.repeats)
            keys = ["n", "epsilon", "rows_per_chunk", "r", "level"]
        else:
            table = comparison(args.repeats)
            keys = ["n", "epsilon", "separation", "estimator"]
    if args.out is not None:
        table.to_csv(args.out, index=False)
    summary = table.groupby(keys).agg(success=("ok", "mean"), mean_error=("error", "mean"),
                                      median_error=("error", "median"))
    if args.constants:
        summary["core_fraction"] = table.groupby(keys)["core_fraction"].mean()
    print(summary.round(4).to_string())


if __name__ == "__main__":
    main()
