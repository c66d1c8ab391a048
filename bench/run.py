"""dpviz benchmarks: ``make bench`` → ``bench/results.json`` and a table on stdout.

Every entry is ``{"value", "unit", "baseline", "ratio", "target", ...}``, all measured in this
one run (ratio = value / baseline, so < 1 means dpviz is faster). Times are the median over
repeats of ``time.perf_counter`` after a warm-up; fast calls are batched so one timed batch
lasts at least ``--min-time`` seconds. The BLAS thread settings are printed and stored with
every entry (the Makefile exports ``OPENBLAS_NUM_THREADS=1``; the ``…_2threads`` entries
raise the limit to 2 with threadpoolctl).

The Gaussian-mixture entries (``dp_em_vs_sklearn_time``, ``gmm_mean_error_*``,
``dp_em_paper_ordering*``) come from ``bench/gmm.py`` and run under one BLAS/OpenMP thread;
accuracy entries carry their medians in a ``detail`` field. ``DPVIZ_BENCH_QUICK=1`` (or
``--quick``) shortens the paper reproduction to 1 repeat and 2 ε values.

Usage: ``python bench/run.py [--out bench/results.json] [--quick]``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dp_accounting  # noqa: E402
import numpy as np  # noqa: E402
from dp_accounting.pld import privacy_loss_distribution as dpa_pld  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

import dpviz  # noqa: E402
from bench.gmm import bench_gmm  # noqa: E402
from dpviz import lens  # noqa: E402
from dpviz.privacy import (  # noqa: E402
    METHODS,
    Budget,
    PlannedRelease,
    PrivacyEvent,
    compose,
    solve,
)
from dpviz.privacy.plans import (  # noqa: E402
    Plan,
    epsilon_by_delta,
    epsilon_by_rounds,
    solve_methods,
)

EPSILON, DELTA = 1.0, 1e-5
PAGE_TARGET_MS = 300.0


# --- timing ---

def time_per_call(fn: Callable[[], Any], *, min_time: float, repeats: int) -> float:
    """Median seconds per call of ``fn`` over ``repeats`` timed batches, after a warm-up."""
    fn()  # warm-up: imports, caches, first allocations
    number = 1
    while True:  # batch size so one batch lasts at least min_time
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time or number >= 1_000_000:
            break
        number = max(number * 2, int(number * min_time / max(elapsed, 1e-9) * 1.2))
    samples = [elapsed / number]
    for _ in range(repeats - 1):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def blas_threads() -> int | None:
    """The BLAS thread count in force (numpy's OpenBLAS), or None without a BLAS."""
    counts = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
    return max(counts) if counts else None


class Bench:
    """Collects entries; ``add`` stores one measured benchmark."""

    def __init__(self, min_time: float, repeats: int) -> None:
        self.min_time = min_time
        self.repeats = repeats
        self.results: dict[str, dict[str, Any]] = {}

    def time_ms(self, fn: Callable[[], Any]) -> float:
        return 1e3 * time_per_call(fn, min_time=self.min_time, repeats=self.repeats)

    def add(self, name: str, value: float, unit: str, *, baseline: float | None = None,
            baseline_name: str | None = None, target: str | None = None,
            meets: bool | None = None, note: str = "",
            detail: dict[str, Any] | None = None) -> None:
        ratio = value / baseline if baseline else None
        self.results[name] = {
            "value": value, "unit": unit, "baseline": baseline, "ratio": ratio,
            "target": target, "meets_target": meets, "baseline_is": baseline_name,
            "blas_threads": blas_threads(), "note": note,
        }
        if detail is not None:
            self.results[name]["detail"] = detail
        shown = f"{name}: {value:.4g} {unit}"
        if baseline:
            shown += f" (baseline {baseline:.4g}, ratio {ratio:.3g})"
        print(shown, file=sys.stderr, flush=True)


# --- the Privacy budget page ---

ROUNDS = tuple(int(r) for r in np.unique(np.round(np.linspace(1, 40, 15))))
DELTAS = tuple(float(d) for d in np.logspace(-12, -2, 15))


def budget_page(scenario: str) -> Callable[[], Any]:
    """What the page recomputes on a slider move: every method's noise and both curves.

    The curves hold the noise at the PLD solution (the page's default) and draw every method.
    """
    def recompute() -> Any:
        plan = Plan.dp_em(20, 3, scenario)
        solutions = solve_methods(plan, Budget(epsilon=EPSILON, delta=DELTA))
        held = solutions["pld"]
        assert not isinstance(held, str), held
        by_rounds = epsilon_by_rounds(plan, held, ROUNDS, DELTA)
        by_delta = epsilon_by_delta(plan, held, DELTAS)
        return solutions, by_rounds, by_delta

    return recompute


def budget_page_with_dp_accounting(scenario: str) -> Callable[[], Any]:
    """The page's PLD column and curves computed with dp-accounting's PLD alone.

    σ from ``calibrate_dp_mechanism`` on a PLD accountant; ε by rounds and ε(δ) at that σ.
    Only one method (dpviz's page draws six), so this is a lower bound on a dp-accounting page.
    """
    k = 3

    def one_round(z: float) -> Any:
        if scenario == "GGG":
            return dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(z), 2 * k + 1)
        return dp_accounting.ComposedDpEvent([
            dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(z), k + 1),
            dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(z), k)])

    def pld_of_round(z: float) -> Any:
        if scenario == "GGG":
            return dpa_pld.from_gaussian_mechanism(z).self_compose(2 * k + 1)
        lap = dpa_pld.from_laplace_mechanism(z).self_compose(k + 1)
        return lap.compose(dpa_pld.from_gaussian_mechanism(z).self_compose(k))

    def recompute() -> Any:
        z = dp_accounting.calibrate_dp_mechanism(
            dp_accounting.pld.PLDAccountant,
            lambda s: dp_accounting.SelfComposedDpEvent(one_round(s), 20),
            EPSILON, DELTA, dp_accounting.ExplicitBracketInterval(5.0, 500.0), tol=1e-3)
        per_round = pld_of_round(z)
        by_rounds = [per_round.self_compose(r).get_epsilon_for_delta(DELTA) for r in ROUNDS]
        whole = per_round.self_compose(20)
        by_delta = [whole.get_epsilon_for_delta(d) for d in DELTAS]
        return z, by_rounds, by_delta

    return recompute


def bench_budget_page(b: Bench, quick: bool) -> None:
    for scenario in ("GGG", "LLG"):
        value = b.time_ms(budget_page(scenario))
        baseline = None if quick else b.time_ms(budget_page_with_dp_accounting(scenario))
        solutions, by_rounds, by_delta = budget_page(scenario)()
        z, ref_rounds, ref_delta = budget_page_with_dp_accounting(scenario)()
        held = solutions["pld"]
        assert not isinstance(held, str)
        gap = max(abs(held["weights"].multiplier / z - 1),
                  float(np.max(np.abs(by_rounds["pld"] / np.array(ref_rounds) - 1))),
                  float(np.max(np.abs(by_delta["pld"] / np.array(ref_delta) - 1))))
        b.add(f"budget_page_recompute_{scenario}", value, "ms", baseline=baseline,
              baseline_name="dp-accounting PLD: calibrate σ + the PLD curves only (1 method)",
              target=f"value < {PAGE_TARGET_MS:g} ms", meets=value < PAGE_TARGET_MS,
              note=f"Plan.dp_em(20, 3, {scenario!r}), ε = 1, δ = 1e-5: solve_methods (6 methods)"
                   f" + epsilon_by_rounds ({len(ROUNDS)} counts) + epsilon_by_delta "
                   f"({len(DELTAS)} deltas), every method, noise held at PLD's; PLD σ and "
                   f"curves agree with dp-accounting's to {gap:.1e} (relative)")


# --- the accountant and the solver, per call ---

def bench_accountant(b: Bench) -> None:
    sigma, count = 20.0, 70
    gaussians = [PrivacyEvent("gaussian", mu=1 / sigma, count=count)]
    laplaces = [PrivacyEvent("laplace", epsilon=1 / sigma, count=count)]

    def dpa_gaussian_pld() -> float:
        return dpa_pld.from_gaussian_mechanism(sigma).self_compose(count) \
            .get_epsilon_for_delta(DELTA)

    def dpa_laplace_pld() -> float:
        return dpa_pld.from_laplace_mechanism(sigma).self_compose(count) \
            .get_epsilon_for_delta(DELTA)

    def dpa_rdp(event: Any) -> Callable[[], float]:
        def run() -> float:
            acc = dp_accounting.rdp.RdpAccountant()
            acc.compose(event, count)
            return acc.get_epsilon(DELTA)
        return run

    base_g_pld = b.time_ms(dpa_gaussian_pld)
    base_g_rdp = b.time_ms(dpa_rdp(dp_accounting.GaussianDpEvent(sigma)))
    cases = [
        ("compose_70_gaussians_pld", gaussians, "pld", base_g_pld,
         "dp-accounting PLD: from_gaussian_mechanism + self_compose + get_epsilon_for_delta",
         "dpviz composes Gaussians exactly (one Gaussian of μ√70, analytic)"),
        ("compose_70_gaussians_rdp", gaussians, "rdp", base_g_rdp,
         "dp-accounting RdpAccountant directly", "dpviz wraps the same RdpAccountant"),
        ("compose_70_gaussians_zcdp", gaussians, "zcdp", base_g_rdp,
         "dp-accounting RdpAccountant directly", "ρ sum + CKS conversion"),
        ("compose_70_gaussians_ma", gaussians, "ma", base_g_rdp,
         "dp-accounting RdpAccountant directly", "moments accountant, λ ≤ 10⁴"),
        ("compose_70_laplace_pld", laplaces, "pld", b.time_ms(dpa_laplace_pld),
         "dp-accounting PLD: from_laplace_mechanism + self_compose + get_epsilon_for_delta",
         "dpviz uses dp-accounting's PLD at a coarser grid (1e-3), capped by the linear sum"),
        ("compose_70_laplace_rdp", laplaces, "rdp",
         b.time_ms(dpa_rdp(dp_accounting.LaplaceDpEvent(sigma))),
         "dp-accounting RdpAccountant directly", ""),
    ]
    for name, events, method, baseline, baseline_name, note in cases:
        value = b.time_ms(lambda events=events, method=method: compose(events, DELTA, method))
        b.add(name, value, "ms/call", baseline=baseline, baseline_name=baseline_name,
              target="ratio ≤ 1 where the baseline does the same work", note=note)

    plan = [PlannedRelease("all", "gaussian", count=count)]
    baselines = {
        "pld": (lambda: dp_accounting.get_sigma_gaussian(EPSILON, DELTA) * math.sqrt(count),
                "dp-accounting get_sigma_gaussian (analytic Gaussian) × √70"),
        "rdp": (lambda: dp_accounting.calibrate_dp_mechanism(
            dp_accounting.rdp.RdpAccountant,
            lambda s: dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(s), count),
            EPSILON, DELTA, dp_accounting.LowerEndpointAndGuess(1e-2, 10.0)),
                "dp-accounting calibrate_dp_mechanism on an RdpAccountant"),
    }
    for method in METHODS:
        budget = Budget(epsilon=EPSILON, delta=DELTA, method=method)
        value = b.time_ms(lambda budget=budget: solve(plan, budget))
        base_fn, base_name = baselines.get(method, (None, None))
        baseline = b.time_ms(base_fn) if base_fn else None
        b.add(f"solve_70_gaussians_{method}", value, "ms/call", baseline=baseline,
              baseline_name=base_name,
              target="ratio ≤ 1" if baseline else None,
              note="budget solver: σ of 70 Gaussian releases for ε = 1, δ = 1e-5")


# --- the Privacy lens page ---

LENS_VALUES = (0.0, 0.35, 0.9, 0.42, 0.71, 0.18, 0.64, 0.83)  # the page's default table
LENS_TRIALS = 100_000  # the page's default "Audit runs per dataset"


def lens_page(mechanism: str, method: str) -> Callable[[], Any]:
    def recompute() -> Any:
        neighbour = lens.neighbour(LENS_VALUES, 0, 1.0)
        budget = Budget(epsilon=EPSILON, delta=DELTA, method=method)
        view = lens.look(LENS_VALUES, neighbour, query="mean", mechanism=mechanism,
                         budget=budget, lo=0.0, hi=1.0, rng=np.random.default_rng(0))
        return lens.audit_view(view, epsilon=EPSILON, delta=DELTA, trials=LENS_TRIALS, seed=0)

    return recompute


def bench_lens(b: Bench) -> None:
    for mechanism, method in (("laplace", "linear"), ("gaussian", "pld")):
        value = b.time_ms(lens_page(mechanism, method))
        b.add(f"lens_page_recompute_{mechanism}", value, "ms",
              target=f"value < {PAGE_TARGET_MS:g} ms", meets=value < PAGE_TARGET_MS,
              note=f"lens.look (mean query, page defaults, {method}) + audit_view with "
                   f"{LENS_TRIALS:,} trials per dataset")


# --- the mean estimator ---

def bench_mean(b: Bench, suffix: str = "") -> None:
    x = np.random.default_rng(0).normal(size=(10_000, 10))
    baseline = b.time_ms(lambda: x.mean(axis=0))
    for estimator, kw in (("laplace", {}), ("gaussian", {"delta": DELTA})):
        value = b.time_ms(lambda estimator=estimator, kw=kw: dpviz.run(
            "mean", estimator, x, epsilon=EPSILON, radius=3.0, seed=0, **kw))
        b.add(f"mean_{estimator}_n10000_d10{suffix}", value, "ms", baseline=baseline,
              baseline_name="numpy x.mean(axis=0) of the same array",
              target=None,
              note="dpviz.run: validate, clip to B(0, 3), solve the budget (zCDP), add noise")


# --- main ---

def environment() -> dict[str, Any]:
    return {
        "python": platform.python_version(), "numpy": np.__version__,
        "dp_accounting": importlib.metadata.version("dp-accounting"),
        "cpus": os.cpu_count(), "machine": platform.machine(),
        "env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                               "MKL_NUM_THREADS")},
        "blas": [{k: p.get(k) for k in ("internal_api", "version", "num_threads", "prefix")}
                 for p in threadpool_info() if p.get("user_api") == "blas"],
    }


def table(results: dict[str, dict[str, Any]]) -> str:
    def fmt(v: Any, spec: str = ".4g") -> str:
        return "—" if v is None else format(v, spec)

    head = f"{'benchmark':<40} {'value':>10} {'unit':<10} {'baseline':>10} {'ratio':>7} " \
           f"{'thr':>3}  target"
    lines = [head, "-" * len(head)]
    for name, r in results.items():
        verdict = "" if r["meets_target"] is None else (" ✓" if r["meets_target"] else " ✗")
        lines.append(f"{name:<40} {fmt(r['value']):>10} {r['unit']:<10} "
                     f"{fmt(r['baseline']):>10} {fmt(r['ratio'], '.3g'):>7} "
                     f"{fmt(r['blas_threads'], 'd'):>3}  {r['target'] or ''}{verdict}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results.json"))
    parser.add_argument("--quick", action="store_true", help="short batches, no page baselines")
    args = parser.parse_args(argv)
    b = Bench(min_time=0.05 if args.quick else 0.25, repeats=3 if args.quick else 7)

    started = time.perf_counter()
    env = environment()
    print(f"dpviz bench — Python {env['python']}, numpy {env['numpy']}, dp-accounting "
          f"{env['dp_accounting']}, {env['cpus']} CPUs", flush=True)
    print(f"BLAS: {env['blas']}; env {env['env']}", flush=True)

    bench_budget_page(b, args.quick)
    bench_accountant(b)
    bench_lens(b)
    bench_mean(b)
    with threadpool_limits(limits=2, user_api="blas"):
        bench_mean(b, suffix="_2threads")
    bench_gmm(b, args.quick)

    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(b.results, indent=2, allow_nan=False) + "\n")
    print(table(b.results))
    print(f"wrote {args.out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
