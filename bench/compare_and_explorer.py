"""Issue 20: the /gmm compare view at the page defaults, and the explorer's time estimate.

``compare``: what the compare view does at the /gmm defaults (n = 10 000, d = 2, k = 3,
separation 6, ε = 1, δ = 1e-5, zCDP, 5 repeats, 2 processes, fresh cache): every private
entry's preconditions with the n search (:func:`dpviz.lab.feasibility.blocked`, as the view
asks when its section opens, cached per server afterwards), then the sweep of the rest (the
"Compare" click). ``--all`` runs every estimator ("run them anyway").

``explorer``: the explorer's default sweep (DP-EM and DPLloyd, ε in 0.25…4, 10 repeats at
n = 10 000, or ``--n``/``--repeats``) against the page's prediction, and the time left the
progress bar shows at points of the sweep against the old pace from the start.

Run with one BLAS thread: ``OPENBLAS_NUM_THREADS=1 python bench/compare_and_explorer.py compare``;
each part prints the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DPVIZ_CACHE_DIR", tempfile.mkdtemp())

from dpviz.estimators.registry import TASKS  # noqa: E402
from dpviz.lab import experiments  # noqa: E402
from dpviz.lab.feasibility import blocked  # noqa: E402
from dpviz.lab.scenario import Scenario, load_data  # noqa: E402


def load() -> str:
    return "load average " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def compare(everything: bool) -> None:
    entry = TASKS["gmm"]["dp_em"]
    params = {p.name: p.default for p in entry.params if p.name != "k" and not p.choice}
    params.update(epsilon=1.0, delta=1e-5, accounting="zcdp")
    scenario = Scenario.from_dict({
        "task": "gmm", "estimator": "dp_em",
        "data": {"generator": "gmm", "k": 3, "d": 2, "n": 10_000, "separation": 6.0,
                 "weights": "equal", "covariance": "spherical", "seed": 0},
        "params": {k: v for k, v in params.items() if v is not None}, "seed": 0})
    print(load())
    started = time.perf_counter()
    n, d = load_data(scenario.data).data.shape
    skipped, took = {}, {}
    for name, e in TASKS["gmm"].items():
        if e.notion != "none":
            t = time.perf_counter()
            why = blocked(e, n=n, d=d, k=3, epsilon=1.0, delta=1e-5, accounting="zcdp",
                          reach=1.0)
            took[name] = time.perf_counter() - t
            if why is not None:
                skipped[name] = why.remedy()
    checked = time.perf_counter()
    chosen = [name for name in TASKS["gmm"] if everything or name not in skipped]
    spec = experiments.compare_spec(scenario, chosen, repeats=5)
    table = experiments.run_sweep(spec, jobs=2)
    done = time.perf_counter()
    print(f"preconditions {checked - started:.1f} s ("
          + ", ".join(f"{k} {v:.1f}" for k, v in took.items()) + f"); compare {done - checked:.1f}"
          f" s for {spec.runs} runs; together {done - started:.1f} s")
    for name, remedy in skipped.items():
        print(f"  left out {name}: {remedy}")
    print(table.groupby("estimator", sort=False).agg(
        median_seconds=("seconds", "median"),
        failed=("failed", lambda f: int((f != "").sum()))).to_string())
    print(load())


def explorer(n: int, repeats: int) -> None:
    from dpviz.ui.pages.explorer import build_spec, predicted_seconds, seconds_left

    spec = build_spec({"task": "gmm", "estimators": ["dp_em", "dplloyd"],
                       "data": {"generator": "gmm", "n": n, "d": 2, "k": 3, "separation": 6.0},
                       "fixed": {"delta": 1e-5, "accounting": "zcdp"},
                       "grid": {"epsilon": "0.25, 0.5, 1, 2, 4"}, "repeats": repeats,
                       "seed": 0, "metrics": ["mean_error"]})
    predicted = predicted_seconds(spec, 2)
    print(load())
    marks: list[tuple[int, float]] = []
    lines = []

    def progress(done: int, total: int, elapsed: float) -> None:
        if not marks or (len(marks) == 1 and done - marks[0][0] >= 2):
            marks.append((done, elapsed))
        left = seconds_left(done, total, elapsed, predicted=predicted,
                            since=marks[1] if len(marks) == 2 else None)
        lines.append((done, elapsed, left, experiments.time_left(done, total, elapsed)))

    started = time.perf_counter()
    experiments.run_sweep(spec, jobs=2, progress=progress)
    actual = time.perf_counter() - started
    print(f"{spec.runs} runs: predicted {sum(predicted):.1f} s, took {actual:.1f} s")
    for share in (1 / spec.runs, 0.05, 0.1, 0.25, 0.5, 0.75):
        done, elapsed, left, old = next(row for row in lines if row[0] >= share * spec.runs)
        print(f"  after {done}/{spec.runs} runs ({elapsed:.1f} s): the page says {left:.1f} s "
              f"left (ends at {elapsed + left:.1f} s); the pace from the start said "
              f"{'-' if old is None else f'{old:.0f}'} s")
    print(load())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("compare", "explorer"))
    parser.add_argument("--all", action="store_true", help="compare: run every estimator")
    parser.add_argument("--n", type=int, default=10_000, help="explorer: rows")
    parser.add_argument("--repeats", type=int, default=10, help="explorer: repeats")
    args = parser.parse_args()
    if args.part == "compare":
        compare(args.all)
    else:
        explorer(args.n, args.repeats)
