"""Sweep throughput for ``bench/run.py`` (issue 8): runs per second, serial vs ``--jobs 2``.

:func:`bench_sweep` runs the same 200 DP-EM runs (the ``gmm`` generator's and DP-EM's
defaults: n = 10 000, d = 2, k = 3, five ε values × 40 repeats) once in this process and
once on two local processes (joblib's loky, one BLAS thread each), each with an empty cache,
and checks that both give the same table. The process pool is started by a small warm-up
sweep first (as on the explorer page, where it stays up between sweeps), so the entry
measures throughput, not the pool's start. Target: ≥ 1.7 × on 2 cores.

Usage alone: ``python bench/sweep.py [--runs-only]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dpviz.lab.experiments import SweepSpec, run_sweep  # noqa: E402

TARGET = 1.7
DP_EM_SPEC = {"task": "gmm", "estimators": ["dp_em"], "data": {"generator": "gmm"},
              "fixed": {"delta": 1e-5}, "grid": {"epsilon": [0.25, 0.5, 1.0, 2.0, 4.0]},
              "repeats": 40, "seed": 0, "metrics": ["mean_error"]}


def timed_sweep(spec: SweepSpec, jobs: int) -> tuple[float, Any]:
    """Wall seconds of one sweep with a fresh cache, and its table."""
    with tempfile.TemporaryDirectory() as cache:
        start = time.perf_counter()
        table = run_sweep(spec, jobs=jobs, cache_dir=cache)
        return time.perf_counter() - start, table


def warm_pool(jobs: int) -> None:
    """Start the local process pool (and its imports) with a tiny sweep."""
    tiny = SweepSpec.from_dict({**DP_EM_SPEC, "data": {"generator": "gmm", "n": 200},
                                "grid": {"epsilon": [1.0]}, "repeats": 2 * jobs})
    timed_sweep(tiny, jobs)


def bench_sweep(b: Any) -> None:
    """``sweep_throughput_jobs2``: runs/s on 2 processes, baseline runs/s serial."""
    spec = SweepSpec.from_dict(DP_EM_SPEC)
    serial_s, serial = timed_sweep(spec, 1)
    warm_pool(2)
    parallel_s, parallel = timed_sweep(spec, 2)
    same = serial.drop(columns="seconds").equals(parallel.drop(columns="seconds"))
    value, baseline = spec.runs / parallel_s, spec.runs / serial_s
    b.add("sweep_throughput_jobs2", value, "runs/s", baseline=baseline,
          baseline_name="the same sweep serial (--jobs 1)",
          target=f"ratio ≥ {TARGET:g} on 2 cores", meets=value / baseline >= TARGET,
          note=f"{spec.runs} DP-EM runs at the defaults (n = 10 000, d = 2, k = 3, 5 ε × 40 "
               f"repeats): {serial_s:.1f} s serial, {parallel_s:.1f} s on 2 loky processes "
               f"(pool warm); same table: {same}; load average {os.getloadavg()[0]:.1f} "
               f"on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    class _Print:
        def add(self, name: str, value: float, unit: str, **kw: Any) -> None:
            print(name, f"{value:.3g} {unit}", {k: v for k, v in kw.items()})

    bench_sweep(_Print())
