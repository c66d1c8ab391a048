"""Winner maps (issue 20 item 1, issue 29): the live 5 × 5 map's time, and the saved maps.

:func:`bench_winner` (``make bench``) times the live coarse map the pages compute at their
default settings — 5 × 5 cells of ε × n, every private estimator, the pages' repeats
(:data:`dpviz.lab.experiments.winner.LIVE_REPEATS`), on 2 local processes, with an empty
cache — for each task, precondition checks included. Target: under 60 s on 2 cores.

``python bench/winner.py --save [--task gmm] [--scheduler tcp://HOST:PORT]`` regenerates the
saved full-resolution maps under ``assets/`` (run it under ``nice -n 10``) at the pages'
default settings (:func:`dpviz.lab.experiments.winner.map_settings`), each with the command
that made it and the registry version: the grids and repeats of :data:`SAVED` (enough
repeats for the tie rule, :data:`dpviz.lab.experiments.winner.MIN_REPEATS`, to name winners).
``--seed S`` re-runs a map with other seeds and prints how many cells' verdicts agree with
the saved map's (:func:`dpviz.lab.experiments.winner_claims.held_out`) without saving.
``python bench/winner.py`` alone prints the live maps' times.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dpviz.lab.experiments import winner, winner_claims  # noqa: E402
from dpviz.lab.experiments.runner import run_sweep  # noqa: E402
from dpviz.lab.experiments.sweep import SweepSpec  # noqa: E402

TARGET_SECONDS = 60.0
LIVE_POINTS, LIVE_JOBS = winner.LIVE_POINTS, winner.LIVE_JOBS
#: The saved maps: per task, (values across, values up, repeats), ε across and n up. Made on 2
#: niced processes under load ≈ 7–9: mixtures 542 s (62 cells name a winner, 28 ties),
#: covariance 61 s (86, 14), SBM 515 s (44, 36); re-run with ``--seed 1``, every cell's verdict
#: agreed (90/90, 100/100, 80/80: a named winner among the other's contenders, the
#: contenders shared), identical in 79/90, 91/100, 65/80.
SAVED: dict[str, tuple[int, int, int]] = {"gmm": (10, 9, 10), "covariance": (10, 10, 20),
                                          "sbm": (10, 8, 5)}


def live_spec(task: str) -> SweepSpec:
    """The live map the page computes at its defaults (its ranges, repeats and settings)."""
    x, y = winner.DEFAULT_AXES
    axes = winner.AXES[task]
    data, fixed = winner.map_settings(task)
    return winner.map_spec(task, x, y, axes[x].values(LIVE_POINTS),
                           axes[y].values(LIVE_POINTS), data=data, fixed=fixed,
                           repeats=winner.LIVE_REPEATS[task])


def cpu_times() -> dict[int, float]:
    """User + system CPU seconds of this process and of each live child (the loky workers)."""
    import psutil

    me = psutil.Process()
    out = {me.pid: sum(me.cpu_times()[:2])}
    for child in me.children(recursive=True):
        try:
            out[child.pid] = sum(child.cpu_times()[:2])
        except psutil.Error:  # a worker that ended meanwhile
            continue
    return out


def timed_map(spec: SweepSpec, jobs: int) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one map (checks, runs and lines) with a fresh cache.

    CPU: what each process alive at the end spent since the start (a worker that ended on
    the way is not counted, so this may undercount).
    """
    with tempfile.TemporaryDirectory() as cache:
        start, before = time.perf_counter(), cpu_times()
        table = winner.run_map(spec, jobs=jobs, cache_dir=cache)
        winner.threshold_lines(spec)
        winner.bound_lines(spec, table)
        wall, after = time.perf_counter() - start, cpu_times()
        cpu = sum(value - before.get(pid, 0.0) for pid, value in after.items())
        return wall, cpu, table


def warm_pool(jobs: int) -> None:
    """Start the local process pool (as on a running server, where it stays up)."""
    tiny = SweepSpec.from_dict({"task": "gmm", "estimators": ["dp_em"],
                                "data": {"generator": "gmm", "n": 200}, "fixed": {"delta": 1e-5},
                                "grid": {"epsilon": [1.0]}, "repeats": 2 * jobs})
    with tempfile.TemporaryDirectory() as cache:
        run_sweep(tiny, jobs=jobs, cache_dir=cache)


def bench_winner(b: Any) -> None:
    """``winner_live_map_<task>``: seconds of the live 5 × 5 map at the page defaults."""
    warm_pool(LIVE_JOBS)
    for task in ("gmm", "covariance", "sbm"):
        spec = live_spec(task)
        load = os.getloadavg()[0]
        seconds, cpu, table = timed_map(spec, LIVE_JOBS)
        skipped = int(table["failed"].str.startswith(winner.NOT_RUN).sum())
        b.add(f"winner_live_map_{task}", seconds, "s",
              target=f"value < {TARGET_SECONDS:g} s on 2 cores, 2 processes",
              meets=seconds < TARGET_SECONDS,
              note=f"{LIVE_POINTS} × {LIVE_POINTS} map of ε × n at the page defaults, "
                   f"{len(spec.estimators)} private estimators × {spec.repeats} repeats = "
                   f"{spec.runs} runs ({skipped} skipped by their preconditions), "
                   f"{LIVE_JOBS} loky processes (pool warm), 1 BLAS thread each, fresh cache, "
                   f"precondition checks and lines included; {cpu:.0f} CPU seconds (this "
                   f"process and its workers); load average {load:.1f} at the start on "
                   f"{os.cpu_count()} CPUs",
              detail={"cpu_seconds": round(cpu, 1), "load_average": round(load, 2),
                      "runs": spec.runs, "skipped": skipped})


def saved_spec(task: str) -> SweepSpec:
    """The spec of ``task``'s saved map (:data:`SAVED`) at the page's default settings."""
    x, y = winner.DEFAULT_AXES
    across, up, repeats = SAVED[task]
    axes = winner.AXES[task]
    data, fixed = winner.map_settings(task)
    return winner.map_spec(task, x, y, axes[x].values(across), axes[y].values(up), data=data,
                           fixed=fixed, repeats=repeats)


def save(task: str, jobs: int, scheduler: str | None = None) -> None:
    """Run and save ``task``'s full-resolution map (:data:`SAVED`), locally or on Dask."""
    spec = saved_spec(task)
    start = time.perf_counter()
    table = winner.run_map(spec, jobs=jobs, scheduler=scheduler)
    ran = time.perf_counter() - start
    lines = [*winner.threshold_lines(spec), *winner.bound_lines(spec, table)]
    seconds = time.perf_counter() - start
    drawn = seconds - ran
    before = winner.load_map(task)
    if table.attrs.get("cached") == len(table) and before is not None and before.spec == spec:
        seconds = before.seconds  # every run read back from the cache: keep the time it took
    winner.save_map(spec, table, lines, seconds,
                    command=f"python bench/winner.py --save --task {task}")
    cells = winner.winners(table, "epsilon", "data.n", spec.metrics[0])
    ties = int(sum(1 for t in cells["tied"] if t))
    print(f"{task}: {spec.runs} runs ({int(table['failed'].str.startswith(winner.NOT_RUN).sum())}"
          f" skipped) in {ran:.0f} s wall, {float(table['seconds'].sum()):.0f} s in runs; "
          f"lines {drawn:.0f} s; {len(cells) - ties} cells name a winner, {ties} are ties",
          flush=True)


def held_out(task: str, seed: int, jobs: int) -> None:
    """Re-run ``task``'s saved map with seeds derived from ``seed``; print the agreement."""
    saved = winner.load_map(task)
    if saved is None:
        raise SystemExit(f"no saved {task} map: run --save first")
    found = winner_claims.held_out(saved, seed, jobs=jobs)
    print(f"{task}, seed {seed}: {found.text()}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", action="store_true", help="regenerate the saved maps")
    parser.add_argument("--task", choices=tuple(SAVED), action="append",
                        help="only this task (repeatable)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--scheduler", help="tcp://HOST:PORT of a Dask scheduler")
    parser.add_argument("--seed", type=int,
                        help="re-run the saved maps with seeds derived from this; print how "
                             "many cells agree (nothing saved)")
    args = parser.parse_args()
    if args.seed is not None:
        for name in args.task or tuple(SAVED):
            held_out(name, args.seed, args.jobs)
    elif args.save:
        for name in args.task or tuple(SAVED):
            save(name, args.jobs, args.scheduler)
    else:
        class _Print:
            def add(self, name: str, value: float, unit: str, **kw: Any) -> None:
                print(name, f"{value:.3g} {unit}", kw.get("note", ""), flush=True)

        bench_winner(_Print())
