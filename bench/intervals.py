"""Coverage of the intervals of :mod:`dpviz.lab.intervals`, measured (issue 32 items 3–4).

For each supported estimator and setting, simulated releases — fresh data and fresh noise
each, :data:`RELEASES` per setting of a closed form and :data:`BOOTSTRAP_RELEASES` of the
bootstrap — go through the engine's own interval code (given a table that lets it
compute), and the share of intervals that hold their target is counted:

* the ``mean`` task's Laplace and Gaussian means and CoinPress: each coordinate's interval
  against the clipped rows' mean (CoinPress: the rows' own mean), and the Gaussian's 90 %
  disc against both coordinates at once (``ellipse``); d = 2, rows N(0.2, 0.3²) per column,
  n ∈ {100, 10 000}, ε ∈ {0.3, 1, 4}, δ = 10⁻⁵ for the Gaussian ones;
* GaussCov's eigenvalues (Weyl bound), all d = 3 intervals at once, and its entries and
  LapCov's (δ = 0) one at a time, against the rows' second moment (rows inside the unit ball,
  so nothing is clipped), n ∈ {100, 1 000, 10 000};
* DP-EM's means (each coordinate), weights and 2-D ellipses against the true mixture, on
  the /gmm page's generated mixture (k = 3, d = 2, separation 6, equal weights, spherical,
  zCDP, δ = 10⁻⁵, a new mixture per release), n ∈ {1 000, 3 000, 10 000}, ε ∈ {0.3, 1, 4}:
  first the closed form (noise and sampling, :data:`RELEASES` per setting), then, only where
  its means or weights fell short, the bootstrap (each release's interval re-runs DP-EM
  :data:`~dpviz.lab.intervals.DRAWS` times).

2 000 releases put a coverage of 90 % within ±1.1 % (two standard errors) of its measure, so
a closed form measured at 88 % is not a 500-release accident (±2.7 %).

``python bench/intervals.py --save`` writes the table the engine reads
(``assets/results/interval_coverage.json``, stamped and in the manifest) and its entries into
``bench/results.json`` (``intervals_*``, the full table in ``detail``); about 40 minutes on one
core, most of it DP-EM's bootstrap at n = 10 000. ``--releases 50`` for a quick look (every
setting at 50; not saved).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dpviz.lab import intervals as iv  # noqa: E402
from dpviz.lab.provenance import record, stamp  # noqa: E402
from dpviz.lab.scenario import Scenario, load_data, run_scenario  # noqa: E402

RELEASES = 2_000
BOOTSTRAP_RELEASES = 500
EPSILONS = (0.3, 1.0, 4.0)
DELTA = 1e-5
MEAN_NS = (100, 10_000)
COVARIANCE_NS = (100, 1_000, 10_000)
MIXTURE_NS = (1_000, 3_000, 10_000)
MIXTURE = {"generator": "gmm", "k": 3, "d": 2, "separation": 6.0, "weights": "equal",
           "covariance": "spherical"}
MIXTURE_FAMILY = {**{k: MIXTURE[k] for k in iv.FAMILY_KEYS}, "accounting": "zcdp",
                  "delta": DELTA}
#: A mixture's two kinds, cheapest first: the bootstrap is measured only where the closed
#: form fell short.
MIXTURE_METHODS = ("closed form", "bootstrap")
COMMAND = "python bench/intervals.py --save"
#: A table under which the engine computes every interval (the bench measures; it does not
#: read the coverage it is measuring).
MEASURING = [{"task": task, "estimator": name, "family": family, "n": n, "epsilon": e,
              "coverage": {"mean": 1.0, "ellipse": 1.0, "eigenvalues": 1.0, "entries": 1.0,
                           "entries, pure": 1.0}}
             for task, name, family, grid in (
                 ("mean", "gaussian", None, MEAN_NS), ("mean", "laplace", None, MEAN_NS),
                 ("mean", "coinpress", None, MEAN_NS),
                 ("covariance", "gauss", None, COVARIANCE_NS))
             for n in grid for e in EPSILONS] + [
    {"task": "gmm", "estimator": "dp_em", "method": method, "n": n, "epsilon": e,
     "family": MIXTURE_FAMILY, "coverage": {"means": 1.0, "weights": 1.0, "ellipse": 1.0}}
    for method in MIXTURE_METHODS for n in MIXTURE_NS for e in EPSILONS]


def _scenario(task: str, estimator: str, data: Mapping[str, Any], epsilon: float,
              seed: int, **params: Any) -> Scenario:
    return Scenario.from_dict({"task": task, "estimator": estimator, "data": dict(data),
                               "params": {"epsilon": epsilon, **params}, "seed": seed})


def _noise_seed(n: int, epsilon: float, release: int) -> int:
    """A noise seed of its own for each setting's each release."""
    return int(np.random.default_rng([n, round(100 * epsilon), release]).integers(2**31))


def _covered(values: np.ndarray, half: np.ndarray, target: np.ndarray) -> np.ndarray:
    return np.abs(values - target) <= half


def mean_coverage(estimator: str, n: int, epsilon: float, releases: int) -> dict[str, float]:
    """Each coordinate's and the disc's coverage of the mean's target (module docstring)."""
    hits, joint = [], []
    extra = {} if estimator == "laplace" else {"delta": DELTA}
    if estimator == "coinpress":
        extra["radius"] = 10.0
    for r in range(releases):
        x = np.random.default_rng([1, n, r]).normal(0.2, 0.3, size=(n, 2))
        result = _run("mean", estimator, x, epsilon, _noise_seed(n, epsilon, r), **extra)
        got = iv.mean_intervals(result, MEASURING)
        target = np.asarray(result.diagnostics["true_mean"])
        values = np.array([row.value for row in got.rows])
        half = np.array([row.half_width for row in got.rows])
        hits.extend(_covered(values, half, target))
        if got.ellipses:
            shape = got.ellipses["shapes"][0]
            gap = values - target
            joint.append(float(gap @ np.linalg.solve(shape, gap)) <= 1.0)
    out = {"mean": float(np.mean(hits))}
    if joint:
        out["ellipse"] = float(np.mean(joint))
    return out


def _run(task: str, estimator: str, x: np.ndarray, epsilon: float, seed: int,
         **params: Any) -> Any:
    from dpviz import run

    return run(task, estimator, x, epsilon=epsilon, seed=seed, **params)


def covariance_coverage(n: int, epsilon: float, releases: int) -> dict[str, float]:
    """GaussCov's eigenvalues (all d = 3 at once) and entries (each), LapCov's entries (each).

    Against the rows' second moment; rows inside the unit ball, so nothing is clipped.
    """
    together, entries, pure = [], [], []
    for r in range(releases):
        rng = np.random.default_rng([2, n, r])
        x = rng.normal(0.0, 1.0, size=(n, 3)) * np.array([0.4, 0.2, 0.1])
        x /= np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]  # inside the ball
        target = x.T @ x / n
        upper = target[np.triu_indices(3)]
        seed = _noise_seed(n, epsilon, r)
        result = _run("covariance", "gauss", x, epsilon, seed, delta=DELTA)
        values, half = _bounds(iv.eigenvalue_intervals(result, MEASURING))
        together.append(bool(_covered(values, half, np.linalg.eigvalsh(target)[::-1]).all()))
        entries.extend(_covered(*_bounds(iv.entry_intervals(result, MEASURING)), upper))
        laplace = _run("covariance", "gauss", x, epsilon, seed, delta=0.0)
        pure.extend(_covered(*_bounds(iv.entry_intervals(laplace, MEASURING)), upper))
    return {"eigenvalues": float(np.mean(together)), "entries": float(np.mean(entries)),
            "entries, pure": float(np.mean(pure))}


def _bounds(got: iv.Intervals) -> tuple[np.ndarray, np.ndarray]:
    """The intervals' values and half-widths (every one must be there: the bench's table
    lets the engine compute them all)."""
    assert got.shown, got.reason
    return (np.array([row.value for row in got.rows]),
            np.array([row.half_width for row in got.rows]))


def mixture_coverage(n: int, epsilon: float, releases: int,
                     method: str = "closed form") -> dict[str, float]:
    """DP-EM's means, weights and ellipses against the true mixture, through the engine.

    ``method``: the kind measured (the engine is given a table with that kind only).
    """
    table = [row for row in MEASURING if row.get("method", method) == method]
    means_hit, weights_hit, ellipse_hit, skipped = [], [], [], 0
    for r in range(releases):
        s = _scenario("gmm", "dp_em", {**MIXTURE, "n": n, "seed": r}, epsilon,
                      _noise_seed(n, epsilon, r),
                      delta=DELTA, accounting="zcdp")
        loaded = load_data(s.data)
        result = run_scenario(s, loaded)
        got = iv.mixture_intervals(s, result, n, table)
        if not got.shown:  # ⊥ or failed re-runs: counted as a miss
            skipped += 1
            means_hit.append(False)
            weights_hit.append(False)
            ellipse_hit.append(False)
            continue
        truth = loaded.truth
        assert truth is not None and truth.means is not None and truth.weights is not None
        released = np.asarray(result.estimate["means"])
        order = iv.match_to(released, np.asarray(truth.means))  # truth of each component
        true_means, true_weights = np.asarray(truth.means)[order], np.asarray(
            truth.weights)[order]
        named = got.by_name()
        for j, (mu, w) in enumerate(zip(true_means, true_weights, strict=True)):
            wi = named[f"weights[{j + 1}]"]
            weights_hit.append(abs(wi.value - w) <= wi.half_width)
            for i, m in enumerate(mu):
                mi = named[f"means[{j + 1}][{i + 1}]"]
                means_hit.append(abs(mi.value - m) <= mi.half_width)
            gap = released[j] - mu
            shape = got.ellipses["shapes"][j]
            ellipse_hit.append(float(gap @ np.linalg.solve(shape, gap)) <= 1.0)
    return {"means": float(np.mean(means_hit)), "weights": float(np.mean(weights_hit)),
            "ellipse": float(np.mean(ellipse_hit)), "no_interval": skipped / releases}


def settings() -> Iterator[tuple[str, str, str | None, dict[str, Any] | None, int, float]]:
    """(task, estimator, method, family, n, ε) of every setting, in the order run."""
    for row in MEASURING:
        yield (row["task"], row["estimator"], row.get("method"), row["family"], row["n"],
               row["epsilon"])


def measure(releases: int | None = None) -> list[dict[str, Any]]:
    """The coverage table: one row per setting (``releases`` for each, else each kind's own).

    A mixture's bootstrap is measured only at the (n, ε) where the closed form's means or
    weights fell short of the threshold: elsewhere the engine never reaches it.
    """
    rows: list[dict[str, Any]] = []
    for task, estimator, method, family, n, epsilon in settings():
        if method == "bootstrap" and _closed_form_holds(rows, n, epsilon):
            continue
        start = time.perf_counter()
        count = releases or (BOOTSTRAP_RELEASES if method == "bootstrap" else RELEASES)
        if task == "mean":
            coverage = mean_coverage(estimator, n, epsilon, count)
        elif task == "covariance":
            coverage = covariance_coverage(n, epsilon, count)
        else:
            coverage = mixture_coverage(n, epsilon, count, str(method))
        seconds = time.perf_counter() - start
        rows.append({"task": task, "estimator": estimator, "family": family, "n": n,
                     "epsilon": epsilon, "releases": count, "coverage": coverage,
                     "seconds": round(seconds, 1), **({"method": method} if method else {})})
        shown = ", ".join(f"{k} {v:.3f}" for k, v in coverage.items())
        print(f"{task:10s} {estimator:9s} {method or '':11s} n={n:<6d} ε={epsilon:<4g} {shown}"
              f"  ({seconds:.0f} s)", file=sys.stderr, flush=True)
    return rows


def _closed_form_holds(rows: list[dict[str, Any]], n: int, epsilon: float) -> bool:
    """Whether DP-EM's closed form was measured ≥ the threshold at (n, ε), means and weights."""
    return any(r.get("method") == "closed form" and r["n"] == n and r["epsilon"] == epsilon
               and min(r["coverage"]["means"], r["coverage"]["weights"]) >= iv.THRESHOLD
               for r in rows)


def bench_intervals(b: Any, releases: int | None = None) -> list[dict[str, Any]]:
    """Measure the table and add its entries to ``b`` (:class:`bench.run.Bench`)."""
    rows = measure(releases)
    kinds = dict.fromkeys((r["task"], r["estimator"], r.get("method")) for r in rows)
    for task, estimator, method in kinds:
        mine = [r for r in rows if (r["task"], r["estimator"], r.get("method")) == (
            task, estimator, method)]
        worst = min(min(v for k, v in r["coverage"].items() if k != "no_interval")
                    for r in mine)
        kind = "" if method is None else "_" + method.replace(" ", "_")
        b.add(f"intervals_{task}_{estimator}{kind}_worst_coverage", worst, "share of intervals",
              target=f"value >= {iv.THRESHOLD} where the page shows an interval (90 % stated)",
              meets=worst >= iv.THRESHOLD,
              note=f"{mine[0]['releases']} simulated releases per setting; n × ε grid "
                   f"{sorted({r['n'] for r in mine})} × {list(EPSILONS)}",
              detail={"rows": mine})
    return rows


class _Collect:
    """Entries as ``bench/run.py``'s ``Bench.add`` stores them (ratio-free: coverage)."""

    def __init__(self) -> None:
        self.results: dict[str, dict[str, Any]] = {}

    def add(self, name: str, value: float, unit: str, *, target: str, meets: bool, note: str,
            detail: dict[str, Any]) -> None:
        self.results[name] = {"value": value, "unit": unit, "baseline": None, "ratio": None,
                              "target": target, "meets_target": bool(meets),
                              "baseline_is": None, "blas_threads": None, "note": note,
                              "detail": detail}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=int,
                        help=f"per setting (default {RELEASES}, the bootstrap's "
                             f"{BOOTSTRAP_RELEASES})")
    parser.add_argument("--save", action="store_true",
                        help="write the engine's table and the bench/results.json entries")
    args = parser.parse_args(argv)
    collect = _Collect()
    rows = bench_intervals(collect, args.releases)
    if args.save:
        if args.releases is not None:
            parser.error("--save measures each kind at its own count; drop --releases")
        iv.COVERAGE_PATH.write_text(json.dumps(
            {"made_by": stamp(COMMAND), "level": iv.LEVEL, "threshold": iv.THRESHOLD,
             "draws": iv.DRAWS, "rows": rows}, indent=1, ensure_ascii=False) + "\n")
        record(iv.COVERAGE_PATH, COMMAND)
        results = ROOT / "bench" / "results.json"
        saved = json.loads(results.read_text()) if results.exists() else {}
        kept = {k: v for k, v in saved.items() if not k.startswith("intervals_")}  # renamed
        results.write_text(json.dumps({**kept, **collect.results}, indent=1,
                                      ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
