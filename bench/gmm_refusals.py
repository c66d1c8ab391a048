"""Issue 21 item 2: how fast a mixture run whose public inputs make ⊥ certain is refused.

Each estimator with a precondition (:attr:`dpviz.core.entry.Estimator.can_run`) runs through
:func:`dpviz.run` on n = 10 000 generated rows (d = 2, k = 3) at a budget its preconditions rule
out: the first call (cold: the budget's plan is solved once, about a second under PLD, the
accounting zCDP budgets are composed under) and the median of the next ``--repeats`` (warm: the
solve is cached per public budget), under zCDP and under linear composition. Each answer's
ledger must be empty and its ``failed`` sentence a refusal. Writes
``assets/results/gmm_refusals.json``. ``python bench/gmm_refusals.py [--repeats 20]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dpviz  # noqa: E402
from dpviz.data import gaussian_mixture  # noqa: E402
from dpviz.estimators.gmm.one_cluster import REFUSED  # noqa: E402

OUT = ROOT / "assets" / "results" / "gmm_refusals.json"
#: estimator → the ε at n = 10 000 its preconditions rule out.
CASES = {"private_pca_clustering": 0.25, "sample_aggregate": 1.0, "ppe": 1.0, "stability": 1.0}
TARGET_MS = 50.0


def timed(name: str, epsilon: float, accounting: str, data) -> tuple[float, str]:
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dpviz.run("gmm", name, data, k=3, epsilon=epsilon, delta=1e-5,
                           accounting=accounting, radius=1.0)
    ms = 1000 * (time.perf_counter() - started)
    assert result.ledger.releases == () and (result.failed or "").startswith(REFUSED), name
    return ms, result.failed or ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    data = gaussian_mixture(3, 2, 10_000, separation=6, seed=0).data
    out = {}
    for name, epsilon in CASES.items():
        for accounting in ("zcdp", "linear"):
            cold, sentence = timed(name, epsilon, accounting, data)
            warm = statistics.median(timed(name, epsilon, accounting, data)[0]
                                     for _ in range(args.repeats))
            out[f"{name} ({accounting})"] = {
                "epsilon": epsilon, "cold_ms": round(cold, 1), "warm_ms": round(warm, 2),
                "under_target_warm": warm < TARGET_MS, "sentence": sentence}
            print(f"{name:24s} {accounting:6s} cold {cold:8.1f} ms  warm {warm:7.2f} ms",
                  flush=True)
    OUT.write_text(json.dumps({"n": 10_000, "d": 2, "k": 3, "delta": 1e-5,
                               "target_ms": TARGET_MS, "runs": out}, indent=1,
                              ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
