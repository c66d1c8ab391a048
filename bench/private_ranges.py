"""Private ranges on generated and real tables (issue 30 item 4, issue 32 item 2).

:func:`bench_private_ranges` (``make bench``) draws the ranges of
:func:`dpviz.privacy.bounds.private_box` :data:`DRAWS` times on each table of
:func:`dpviz.lab.coinpress_claims.range_tables` at 20 % of ε = 1 (the pages' share) and reports,
per table, the share of draws whose ranges lose more than 5 % of the rows and the ranges' width
(the box radius over the rows' own 1–99 % half-widths, median;
:func:`dpviz.lab.coinpress_claims.range_draws`). Beside it, the same for the step it replaced
(:func:`replaced_box`: each column's 5 %/95 % quantiles widened by 25 % from about 9 700 rows
at d = 2, else medians ± a factor times a private quantile of the rows' largest gap; before
2026-11-29), as a baseline.

Entries: ``private_ranges_wine_draws_losing_rows`` (the issue's 178-row table in units of 10,
10 and 1 000; target under 10 %, i.e. ≥ 18 of 20 draws keep 95 %), and
``private_ranges_worst_loss`` (the largest share of failing draws over every table but the
lognormal ones), each with the full table in ``detail``. ``python bench/private_ranges.py``
prints the table alone, then :func:`below_rows`: how often the one release about 0 lands far
off around the rows it needs (the measurement behind
:meth:`dpviz.privacy.bounds.BoundPlan.refusal`).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dpviz.lab.coinpress_claims import range_draws, range_tables  # noqa: E402
from dpviz.privacy import Ledger  # noqa: E402
from dpviz.privacy.bounds import (  # noqa: E402
    MAGNITUDE_FLOORS,
    MAGNITUDES,
    Box,
    private_quantile,
    quantile_rows,
)

DRAWS = 100
SHARE = 0.2
#: The replaced step's grid (0 and ±10^e, e = −3 … 6) and its gap quantiles' factors.
OLD_GRID = np.concatenate([-(10.0 ** np.arange(6.0, -3.005, -0.01)), [0.0],
                           10.0 ** np.arange(-3.0, 6.005, 0.01)])
OLD_GAPS = {0.9: 1.75, 0.75: 2.5, 0.5: 4.0}


def _old_found(n: int, q: float, epsilon: float) -> bool:
    return epsilon * min(q, 1 - q) * n / 2 >= math.log(OLD_GRID.size) + math.log(100)


def replaced_box(x: np.ndarray, rng: np.random.Generator) -> Box:
    """The private ranges before issue 32, at :data:`SHARE` of ε = 1."""
    n, d = x.shape
    ledger, share = Ledger(), SHARE

    def quantile(values: np.ndarray, q: float, epsilon: float, grid: np.ndarray) -> float:
        return private_quantile(values, q, epsilon=epsilon, rng=rng, ledger=ledger, name="old",
                                candidates=grid)

    each = share / (2 * d)
    if _old_found(n, 0.05, each):
        ends = np.array([[quantile(x[:, j], q, each, OLD_GRID) for q in (0.05, 0.95)]
                         for j in range(d)])
        low, high = ends.min(axis=1), np.maximum(ends.max(axis=1), ends.min(axis=1) + 1e-3)
        margin = 0.25 * (high - low)
        return Box(low - margin, high + margin, "private")
    each = share / (d + 1)
    centre = np.array([quantile(x[:, j], 0.5, each, OLD_GRID) for j in range(d)])
    q = next((q for q in OLD_GAPS if _old_found(n, q, each)), 0.5)
    gap = quantile(np.abs(x - centre).max(axis=1), q, each, OLD_GRID[OLD_GRID > 0])
    return Box(centre - OLD_GAPS[q] * gap, centre + OLD_GAPS[q] * gap, "private")


def bench_private_ranges(b: Any) -> None:
    """The private-ranges entries (see the module docstring)."""
    rows = {}
    for name, x in range_tables():
        draws = list(range(DRAWS))
        (lost, width), (old_lost, old_width) = (range_draws(x, draws),
                                                range_draws(x, draws, replaced_box))
        rows[name] = {"losing": lost, "width": width, "replaced_losing": old_lost,
                      "replaced_width": old_width}
        print(f"{name:42s} loses >5 %: {lost:6.1%} (replaced {old_lost:6.1%});  width "
              f"×{width:8.3g} (replaced ×{old_width:8.3g})", flush=True)
    wine = rows["wine, 3 columns (units 10, 10, 1 000)"]
    b.add("private_ranges_wine_draws_losing_rows", wine["losing"], "share of draws",
          baseline=wine["replaced_losing"], baseline_name="the replaced step",
          target="value < 0.10 (≥ 18 of 20 draws keep 95 % of the rows)",
          meets=wine["losing"] < 0.10,
          note=f"178 rows, 3 columns, 20 % of ε = 1, {DRAWS} draws; width ×"
               f"{wine['width']:.3g} of the rows' 1–99 % range (replaced ×"
               f"{wine['replaced_width']:.3g})", detail=rows)
    light = {k: v for k, v in rows.items() if not k.startswith("lognormal")}
    worst = max(light, key=lambda k: light[k]["losing"])
    b.add("private_ranges_worst_loss", light[worst]["losing"], "share of draws",
          baseline=max(v["replaced_losing"] for v in light.values()),
          baseline_name="the replaced step's worst table", target="value < 0.05",
          meets=light[worst]["losing"] < 0.05,
          note=f"every table but the lognormal ones; worst: {worst}")


#: :func:`below_rows`' sizes, draws and the one release's ε (20 % of ρ = 0.1 or of ε = 1).
BELOW_SIZES, BELOW_DRAWS, BELOW_EPSILON = (100, 150, 178, 250, 400), 400, 0.2


def below_rows() -> None:
    """Print, per table and n, the draws whose spread lands under half or over 4 times the
    rows' median largest ``|value|`` (the one release about 0 at :data:`BELOW_EPSILON`, which
    needs :func:`dpviz.privacy.bounds.quantile_rows` rows; the tables resampled to n)."""
    from dpviz.lab.expectation import issue_tables

    tables = issue_tables()
    rng = np.random.default_rng(5)
    print(f"one release at ε = {BELOW_EPSILON:g} needs {quantile_rows(0.5, BELOW_EPSILON)} rows")
    for n in BELOW_SIZES:
        columns = {"petals": tables["petals"][0][rng.integers(0, 150, n)],
                   "wines": tables["wines"][0][rng.integers(0, 178, n)],
                   "normal": rng.normal(0, 1, (n, 2)),
                   "12 ± 1, 5 ± 3, 800 ± 300": np.column_stack(
                       [rng.normal(12, 1, n), rng.normal(5, 3, n), rng.normal(800, 300, n)])}
        for name, x in columns.items():
            largest = np.abs(x).max(axis=1)
            own = float(np.median(largest))
            ratios = np.array([private_quantile(
                largest, 0.5, epsilon=BELOW_EPSILON, rng=np.random.default_rng(seed),
                ledger=Ledger(), name="spread", candidates=MAGNITUDES,
                floors=MAGNITUDE_FLOORS) / own for seed in range(BELOW_DRAWS)])
            far = float(np.mean((ratios < 0.5) | (ratios > 4)))
            print(f"n = {n:4d} {name:26s} far off in {far:6.1%} of {BELOW_DRAWS} draws",
                  flush=True)


class _Quiet:
    def add(self, *_: Any, **__: Any) -> None:
        pass


if __name__ == "__main__":
    bench_private_ranges(_Quiet())
    below_rows()
