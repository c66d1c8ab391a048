"""Paired timing: an end-to-end call and its baseline, timed turn about in one process.

Other work on the machine slows both alike when their timed batches alternate, so the ratio
holds under load where two separate medians (one measured while a neighbour ran, the other
not) would not. Each batch is also timed in process CPU time (``time.process_time``): with one
BLAS thread that is the work done, whatever else shares the cores, so its ratio is the one a
target is judged by (on an idle machine the two agree). Used by the speed-ratio entries of
``bench/gmm.py``, ``bench/covariance.py`` and ``bench/sbm.py`` (issue 22: the ratios hold
through ``dpviz.run``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Paired:
    """Wall-clock medians of a call and of its baseline (ms); medians of the per-turn ratios.

    ``ratio`` is the median of the per-turn CPU-time ratios (what a target is judged by),
    ``wall_ratio`` that of the wall-clock ones.
    """

    value_ms: float
    baseline_ms: float
    ratio: float
    wall_ratio: float
    turns: int

    def detail(self) -> dict[str, Any]:
        """What a bench entry stores beside its value."""
        return {"median_paired_cpu_ratio": round(self.ratio, 3),
                "median_paired_wall_ratio": round(self.wall_ratio, 3), "turns": self.turns,
                "timing": "call and baseline timed turn about (batches alternate), median; "
                          "the target is judged on median_paired_cpu_ratio"}


def _batch(fn: Callable[[], Any], number: int) -> tuple[float, float]:
    """Wall-clock and process CPU seconds per call over ``number`` calls."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(number):
        fn()
    return (time.perf_counter() - wall) / number, (time.process_time() - cpu) / number


def paired_ms(fn: Callable[[], Any], baseline: Callable[[], Any], *, turns: int = 15,
              min_time: float = 0.05) -> Paired:
    """Time ``fn`` and ``baseline`` in alternating batches after one warm-up call of each.

    A batch repeats a call until it lasts about ``min_time`` seconds (one call for slow
    ones); ``turns`` pairs of batches are timed, the baseline's first in odd turns and last
    in even ones.
    """
    fn()
    baseline()

    def number(f: Callable[[], Any]) -> int:
        return max(1, round(min_time / max(_batch(f, 1)[1], 1e-9)))

    n_fn, n_base = number(fn), number(baseline)
    values, bases, cpu, wall = [], [], [], []
    for turn in range(turns):
        if turn % 2:
            value, base = _batch(fn, n_fn), _batch(baseline, n_base)
        else:
            base, value = _batch(baseline, n_base), _batch(fn, n_fn)
        values.append(value[0])
        bases.append(base[0])
        wall.append(value[0] / base[0])
        cpu.append(value[1] / max(base[1], 1e-9))
    return Paired(1e3 * statistics.median(values), 1e3 * statistics.median(bases),
                  statistics.median(cpu), statistics.median(wall), turns)
