"""Checks of what the "Solve for ε" panel states, for the claims register (:mod:`dpviz.lab.claims`).

Each re-measures one statement on the mixtures page's default question — DP-EM on its default
mixture (n = 10 000), error of the means ≤ 0.1 with probability 90%, :data:`~dpviz.lab.solve.RUNS`
runs a point — with fixed seeds, or with seeds from OS entropy when ``fresh``.
"""

from __future__ import annotations

import json
import math
import shlex
import statistics
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from dpviz.estimators.result import to_json_value
from dpviz.lab.claims import Measured, seeds
from dpviz.lab.scenario import Scenario
from dpviz.lab.solve import (
    PROBABILITY_DEFAULT,
    RUNS,
    Question,
    ask,
    beyond_ceiling,
    simulated_share,
)

ROOT = Path(__file__).resolve().parents[2]
#: The page's default question: its metric and target.
METRIC, TARGET = "mean_error", 0.1


def default_question(seed: int | None) -> Question:
    """The mixtures page's default question, its runs seeded by ``seed`` (``None``: entropy)."""
    scenario = Scenario.from_dict({
        "task": "gmm", "estimator": "dp_em",
        "data": {"generator": "gmm", "k": 3, "d": 2, "n": 10_000, "separation": 6.0,
                 "weights": "equal", "covariance": "spherical", "seed": 0},
        "params": {"epsilon": 1.0, "delta": 1e-5, "accounting": "zcdp", "iterations": 5},
        "seed": seed})
    return ask(scenario, metric=METRIC, target=TARGET, probability=PROBABILITY_DEFAULT)


def claim_solve_keeps_the_asked_probability(fresh: bool) -> Measured:
    """The answer is for the probability asked, a lower probability only apart.

    Met by the runs at the answer, or no answer with the reason (beyond the non-private share).
    """
    question = default_question(None if fresh else 0)
    solution = question.solve()
    out = solution.to_dict()
    asked = question.probability
    kept = out["probability"] == out["requested_probability"] == asked == solution.probability
    if solution.value is not None:
        ok = kept and solution.share_at(solution.value) >= asked
        said = f"ε = {solution.value:g}, {solution.share_at(solution.value):.0%} of runs there"
    else:
        assert solution.ceiling is not None
        lower = solution.lower
        ok = (kept and solution.reason is not None
              and beyond_ceiling(asked, solution.ceiling, solution.runs)
              and (lower is None or lower.probability < asked))
        said = (f"no answer (without privacy {solution.ceiling:.0%})"
                + ("" if lower is None else
                   f"; apart from it, at {lower.probability:.0%}: ε = {lower.value}"))
    return Measured(ok, f"asked {asked:.0%}, answered for {out['probability']:.0%}: {said}")


def claim_solve_page_and_command_line_agree(fresh: bool) -> Measured:
    """The command the panel shows gives the page's answer: the same JSON."""
    question = default_question(seeds(True, 1)[0] if fresh else 0)  # a teaching seed
    page = json.loads(json.dumps(to_json_value(question.solve().to_dict())))
    done = subprocess.run([sys.executable, "-m", "dpviz", *shlex.split(question.command())[3:]],
                          capture_output=True, text=True, cwd=ROOT, timeout=600, check=False)
    if done.returncode != 0:
        return Measured(False, f"the command failed: {done.stderr.strip()}")
    typed = json.loads(done.stdout)
    return Measured(typed == page, f"seed {question.scenario.seed}: page ε = {page['epsilon']}, "
                                   f"command line ε = {typed['epsilon']} (lower: "
                                   f"{(page['at_lower_probability'] or {}).get('epsilon')} and "
                                   f"{(typed['at_lower_probability'] or {}).get('epsilon')})")


def claim_solve_ceiling_uncertainty(fresh: bool) -> Measured:
    """"A share measured on 20 runs is uncertain by about ±√(c(1 − c)/20)", as the refusal says.

    The spread of the non-private share over ten sets of runs, within a factor of 2 of that.
    """
    plain = default_question(0).scenario.without_noise()
    groups = 10
    shares = [simulated_share(replace(plain, seed=None if fresh else seed), metric=METRIC,
                              target=TARGET, runs=RUNS) for seed in seeds(False, groups, 29)]
    mean = statistics.fmean(shares)
    stated = math.sqrt(mean * (1 - mean) / RUNS)
    spread = statistics.stdev(shares)
    ok = stated / 2 <= spread <= 2 * stated if stated > 0 else spread == 0
    return Measured(ok, f"{groups} sets of {RUNS} runs: non-private share {mean:.0%} on "
                        f"average, spread ±{100 * spread:.1f} points against ±{100 * stated:.1f} "
                        "stated")
