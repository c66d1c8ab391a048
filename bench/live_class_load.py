"""A live class under load: 30 students submit predictions to one class at the same moment.

Issue 19, part 2. A lecturer opens a class in a fresh SQLite file (the store the pages use,
:mod:`dpviz.lab.classroom`); ``--students`` student processes (or threads, ``--threads``),
released together by a barrier, each join the class and submit a prediction on every
predict-then-reveal step, ``--rounds`` times (a later round replaces the earlier answer, as a
student guessing again does). Every process opens its own short-lived connections, as two
Streamlit server processes do on one file. It reports:

- the wall time of the whole burst and each write's latency (p50 / p95 / max);
- rows: the class must end with ``students × steps`` predictions, each holding its student's
  last round (a lost or stale write shows as a missing row or an older value), and
  ``students`` students.

Not part of CI: ``.venv/bin/python bench/live_class_load.py`` (writes
``bench/live_class_load.json``); exits 1 when anything was lost.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import queue
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = Path(__file__).with_name("live_class_load.json")

from dpviz.lab.classroom import STEPS, ClassStore  # noqa: E402  (after the repository's path)


def student(path: str, code: str, i: int, rounds: int, start: Any, out: Any) -> None:
    """One student: wait for the others, join, answer every step ``rounds`` times."""
    store = ClassStore(path)
    start.wait()
    latencies: list[float] = []
    errors: list[str] = []
    try:
        t = time.perf_counter()
        me = store.join(code, f"Student {i}")
        latencies.append(time.perf_counter() - t)
        for r in range(rounds):
            for step in STEPS:
                t = time.perf_counter()
                store.submit(me, step, "load test", {"guess": float(1000 * i + r)},
                             {"answer": 1.0})
                latencies.append(time.perf_counter() - t)
    except Exception as err:  # reported: a failed write is a lost prediction
        errors.append(f"student {i}: {err!r}")
    out.put((latencies, errors))


def run(students: int, rounds: int, threads: bool) -> dict[str, Any]:
    """Open a class, release the students together, and check what the class holds."""
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "classes.sqlite3")
        store = ClassStore(path)
        opened = store.open_class()
        if threads:
            start: Any = threading.Barrier(students + 1)
            out: Any = queue.Queue()
            workers: list[Any] = [threading.Thread(target=student, args=(
                path, opened.code, i, rounds, start, out)) for i in range(students)]
        else:
            ctx = mp.get_context("fork")
            start, out = ctx.Barrier(students + 1), ctx.Queue()
            workers = [ctx.Process(target=student, args=(path, opened.code, i, rounds, start,
                                                         out)) for i in range(students)]
        for w in workers:
            w.start()
        start.wait()
        began = time.perf_counter()
        results = [out.get(timeout=600) for _ in workers]
        wall = time.perf_counter() - began
        for w in workers:
            w.join()
        latencies = sorted(x for lat, _ in results for x in lat)
        errors = [e for _, errs in results for e in errs]
        for step in STEPS:
            store.reveal(opened.code, opened.token, step)
        last = {step: {p.name: p.prediction["guess"] for p in
                       store.predictions(opened.code, opened.token, step)} for step in STEPS}
        stale = [f"{step}/{name}" for step, answers in last.items()
                 for name, value in answers.items()
                 if value != 1000 * int(name.split()[-1]) + rounds - 1]
        rows = store.row_count(opened.code)
        joined = store.students(opened.code)
    expected = students * len(STEPS)
    return {
        "mode": "threads" if threads else "processes",
        "students": students, "rounds": rounds, "writes": len(latencies),
        "wall_s": round(wall, 3),
        "writes_per_s": round(len(latencies) / wall, 1),
        "latency_ms": {"p50": round(1000 * statistics.median(latencies), 2),
                       "p95": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 2),
                       "max": round(1000 * latencies[-1], 2)} if latencies else None,
        "rows": rows, "rows_expected": expected, "students_joined": joined,
        "stale": stale, "errors": errors,
        "lost_nothing": rows == expected and joined == students and not stale and not errors,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if not 1 <= args.students <= 100:
        parser.error(f"students must be 1 to 100, got {args.students}")
    if not 1 <= args.rounds <= 100:
        parser.error(f"rounds must be 1 to 100, got {args.rounds}")
    report = [run(args.students, args.rounds, threads=False),
              run(args.students, args.rounds, threads=True)]
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for r in report:
        print(f"{r['mode']:9s}: {r['students']} students × {r['rounds']} rounds × "
              f"{len(STEPS)} steps = {r['writes']} writes in {r['wall_s']} s "
              f"({r['writes_per_s']}/s; p50 {r['latency_ms']['p50']} ms, p95 "
              f"{r['latency_ms']['p95']} ms, max {r['latency_ms']['max']} ms); rows "
              f"{r['rows']}/{r['rows_expected']}, students {r['students_joined']}, stale "
              f"{len(r['stale'])}, errors {len(r['errors'])}: "
              f"{'nothing lost' if r['lost_nothing'] else 'LOST'}")
    return 0 if all(r["lost_nothing"] for r in report) else 1


if __name__ == "__main__":
    sys.exit(main())
