"""Audits that show something, and solve for ε, for ``bench/run.py`` (issue 18 items 3–4).

:func:`bench_audit` times the white-box audit of the releases (10⁶ draws a side) at a claimed
ε = 1 — the Gaussian mean (δ = 10⁻⁵) and the Laplace mean (target: a lower bound ≥ 0.5 in
under 10 s), DP-EM at the /gmm page's budget (target: at least half of what a perfect audit
of the same ledger typically shows with as many draws) — and the gallery of variants broken
on purpose under it (every one caught). :func:`bench_solve` times solve for ε at the /gmm
page's defaults (DP-EM, n = 10 000, d = 2, k = 3, separation 6, matched mean error ≤ 0.1 in
90% of 20 simulated runs; target under 5 s). Each is one timed call in a fresh state (the
audits and the search keep nothing between calls), so the load average is stored with it.

Usage alone: ``python bench/audit.py``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dpviz.lab.audit import white_box_audit  # noqa: E402
from dpviz.lab.broken_variants import audit_gallery  # noqa: E402
from dpviz.lab.scenario import Scenario  # noqa: E402
from dpviz.lab.solve import solve_epsilon  # noqa: E402

AUDIT_SECONDS, AUDIT_BOUND, PERFECT_SHARE, SOLVE_SECONDS = 10.0, 0.5, 0.5, 5.0
#: The /gmm page's default run (its data controls and estimator controls, ε = 1).
GMM_PAGE = {"task": "gmm", "estimator": "dp_em",
            "data": {"generator": "gmm", "k": 3, "d": 2, "n": 10_000, "separation": 6.0,
                     "weights": "equal", "covariance": "spherical", "seed": 0},
            "params": {"epsilon": 1.0, "delta": 1e-5, "accounting": "zcdp"}, "seed": 0}


def _load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def _timed(work: Any) -> tuple[Any, float, float]:
    """``work()``, its wall seconds and its CPU seconds (the wall time on an idle core)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def bench_audit(b: Any) -> None:
    """``white_box_audit_*`` entries: bound, time, and DP-EM against a perfect audit."""
    for name, delta in (("gaussian", 1e-5), ("laplace", 0.0)):
        a, seconds, cpu = _timed(lambda name=name, delta=delta: white_box_audit(
            "mean", name, epsilon=1.0, delta=delta, seed=0))
        b.add(f"white_box_audit_mean_{name}_seconds", seconds, "s",
              target=f"< {AUDIT_SECONDS:g} s with a bound ≥ {AUDIT_BOUND:g} at ε = 1",
              meets=seconds < AUDIT_SECONDS and a.result.epsilon_lower >= AUDIT_BOUND,
              note=f"measured ε ≥ {a.result.epsilon_lower:.3f} (perfect audit typically "
                   f"{a.attainable:.3f}) from {a.runs:,} draws a side; passed: {a.passed}; "
                   f"{cpu:.2f} s of CPU; {_load()}",
              detail={"epsilon_lower": a.result.epsilon_lower, "attainable": a.attainable})
    a, seconds, cpu = _timed(lambda: white_box_audit("gmm", "dp_em", epsilon=1.0, delta=1e-5,
                                                     seed=0))
    share = a.result.epsilon_lower / a.attainable
    b.add("white_box_audit_dp_em_share_of_perfect", share, "ratio",
          target=f"≥ {PERFECT_SHARE:g} of a perfect audit of the same ledger",
          meets=share >= PERFECT_SHARE and a.passed,
          note=f"DP-EM at ε = 1, δ = 1e-5: measured ε ≥ {a.result.epsilon_lower:.3f}, a "
               f"perfect audit typically {a.attainable:.3f}, {a.runs:,} draws a side, "
               f"{seconds:.1f} s ({cpu:.1f} s of CPU); pair: {a.neighbours}; {_load()}",
          detail={"epsilon_lower": a.result.epsilon_lower, "attainable": a.attainable,
                  "seconds": seconds, "cpu_seconds": cpu})
    gallery, seconds, cpu = _timed(lambda: audit_gallery(epsilon=1.0, seed=0, white_box=True))
    caught = sum(not g.passed for g in gallery)
    b.add("white_box_audit_gallery_seconds", seconds, "s",
          target="every broken variant caught", meets=caught == len(gallery),
          note=f"{caught} of {len(gallery)} caught: " + "; ".join(
              f"{g.name} ε ≥ {g.result.epsilon_lower:.2f}{' + finding' if g.findings else ''}"
              for g in gallery) + f"; {cpu:.1f} s of CPU; {_load()}")


def bench_solve(b: Any) -> None:
    """``solve_gmm_page_defaults_seconds``: one solve for ε at the /gmm page's defaults."""
    scenario = Scenario.from_dict(GMM_PAGE)
    solution, seconds, cpu = _timed(lambda: solve_epsilon(
        scenario, metric="mean_error", target=0.1, probability=0.9, runs=20))
    b.add("solve_gmm_page_defaults_seconds", seconds, "s", target=f"< {SOLVE_SECONDS:g} s",
          meets=seconds < SOLVE_SECONDS,
          note=f"{solution.sentence()} Points tried: {len(solution.searched)}; "
               f"{'; '.join(solution.notes)}; {cpu:.1f} s of CPU; {_load()}")


if __name__ == "__main__":
    class _Print:
        def add(self, name: str, value: float, unit: str, **kw: Any) -> None:
            print(name, f"{value:.3g} {unit}", {k: v for k, v in kw.items()})

    bench_solve(_Print())
    bench_audit(_Print())
