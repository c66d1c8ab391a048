"""Grid means' column-count cells (``ZOOM_CELLS``), chosen by simulation on generated data.

The first release of grid means (its column counts) finds where the rows are inside the
bound, and the grid is laid over that span. Its cells decide how closely the span fits the
rows when the bound is much wider than they are, as private ranges from a small table are
(medians ± a private gap: about 2.6 times the rows' width on the issue's 500-row table).
Generated mixtures only, never a user's table: k clusters of standard deviation 5 around
centres at least 10 standard deviations apart, placed at random within [0, 100]ᵈ plus the
spread they need, ε = 1, δ = 1e-5, in eight settings (n, d, k) and three bounds — typed
ranges as wide as the rows, typed ranges 2.5 times wider, and private ranges (20 % of the
budget, the page's default). A run succeeds when every matched mean is within 0.4 standard
deviations (2 units) of its cluster's own mean. Every cell runs ``--seeds`` seeds (data and
noise seed s: teaching randomness, a benchmark).

``nice -n 10 python bench/grid_means_defaults.py [--seeds 40] [--cells 10 20]`` prints the
successes per setting and bound for each candidate.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpviz.data.files import sha256  # noqa: E402
from dpviz.estimators.gmm import grid_means  # noqa: E402
from dpviz.estimators.metrics import match_components  # noqa: E402
from dpviz.lab.scenario import Scenario, load_data, run_scenario  # noqa: E402

#: (n, d, k) of the generated tables.
SETTINGS = ((500, 2, 3), (1000, 2, 4), (500, 1, 2), (1000, 3, 3), (3000, 2, 5),
            (2000, 1, 4), (1000, 2, 2), (3000, 3, 4))
BOUNDS = ("as wide as the rows", "2.5 times wider", "private ranges (20 %)")
#: The clusters' standard deviation, in the table's units.
SPREAD = 5.0


def mixture(n: int, d: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and labels of k clusters at least 10 standard deviations apart."""
    rng = np.random.default_rng(1000 + seed)
    span = 15 * k ** (1 / d)
    while True:
        centres = rng.uniform(0, span, (k, d))
        gaps = [np.linalg.norm(centres[i] - centres[j]) for i in range(k) for j in range(i)]
        if min(gaps, default=np.inf) >= 10:
            break
    centres = rng.uniform(0, 100, d) + SPREAD * centres
    labels = rng.integers(0, k, n)
    return centres[labels] + rng.normal(0, SPREAD, (n, d)), labels


def succeeds(n: int, d: int, k: int, bound: str, seed: int) -> bool:
    """Whether grid means at ε = 1 puts every mean within 0.4 SPREAD of its cluster's."""
    x, labels = mixture(n, d, k, seed)
    content = (",".join(f"c{j}" for j in range(d)) + "\n"
               + "\n".join(",".join(f"{v:.4f}" for v in row) for row in x) + "\n").encode()
    low, high = x.min(axis=0), x.max(axis=0)
    middle, half = (low + high) / 2, 1.25 * (high - low)
    bounds = {BOUNDS[0]: {"ranges": np.stack([low, high], 1).tolist()},
              BOUNDS[1]: {"ranges": np.stack([middle - half, middle + half], 1).tolist()},
              BOUNDS[2]: {"private": 0.2}}[bound]
    s = Scenario.from_dict({"task": "gmm", "estimator": "grid_means", "seed": seed,
                            "data": {"upload": "generated.csv", "sha256": sha256(content),
                                     "bounds": bounds},
                            "params": {"epsilon": 1.0, "delta": 1e-5, "k": k}})
    result = run_scenario(s, load_data(s.data, content=content))
    if result.failed is not None:
        return False
    own = np.array([x[labels == j].mean(axis=0) for j in range(k)])
    ours = np.asarray(result.estimate["means"])
    distance = np.linalg.norm(ours[match_components(own, ours)] - own, axis=1)
    return bool(distance.max() < 0.4 * SPREAD)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--cells", type=int, nargs="+", default=[10, 20])
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        for cells in args.cells:
            with mock.patch.object(grid_means, "ZOOM_CELLS", cells):
                totals = dict.fromkeys(BOUNDS, 0)
                print(f"ZOOM_CELLS = {cells}, {args.seeds} seeds per cell")
                for n, d, k in SETTINGS:
                    row = {b: sum(succeeds(n, d, k, b, s) for s in range(args.seeds))
                           for b in BOUNDS}
                    for b in BOUNDS:
                        totals[b] += row[b]
                    print(f"  n = {n}, d = {d}, k = {k}: "
                          + "; ".join(f"{b} {v}" for b, v in row.items()))
                print("  all: " + "; ".join(f"{b} {v} of {len(SETTINGS) * args.seeds}"
                                            for b, v in totals.items()))


if __name__ == "__main__":
    main()
