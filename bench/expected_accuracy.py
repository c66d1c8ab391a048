"""Issue 30's acceptance, measured: the stated expected error against 20 noise draws per page.

For the issue's three files — 150 rows of petals in cm (3 groups), 178 wines in units of about
10, 10 and 1 000, the 77-vertex, 254-edge co-appearance graph (Les Misérables) — at each
page's defaults and after the page's advice, :data:`DRAWS` noise draws with fresh seeds:

- /gmm and /covariance: each draw's error against that run's non-private reference
  (:func:`dpviz.lab.expectation.scored`) beside the prediction the page states for that
  draw (:func:`dpviz.lab.expectation.for_run`'s: its public shape's, or its own release's
  where larger and the estimator's release describes its rows; the median draw's searched
  as the page searches it, with the n or budget that would do when large). Each is held to
  the figure the sentence states first, the expected error (the simulated runs'
  root-mean-square error, :class:`dpviz.lab.expectation.Expected`): a case passes when the
  draws' root-mean-square error is within 2× of it or the page says what n or ε is needed,
  and at most 1 of 20 draws passes 3× it (:attr:`dpviz.lab.expectation.Walked.holds`).
  Private ranges the page refuses (too few rows for their one release) print the refusal,
  then the case is walked again at the share the refusal names (the page's advice).
- /sbm: the recovery outlook (:func:`dpviz.lab.recovery.recovery_outlook`) at the public n,
  d, ε_s and ε beside private weak recovery's disagreement with the non-private projection's
  split on the graph itself (its communities are unknown), and whether the sentence says
  from what ε recovery is expected.
- Private ranges: the wine table's, at 20 % of ε = 1 (:func:`dpviz.lab.coinpress_claims.
  wine_kept`), how many of 20 draws keep ≥ 95 % of the rows (target ≥ 18).

- /gmm, the register's walk (:func:`dpviz.lab.expectation.walk_cases`): typed ranges and
  grid means at ε = 5 on both tables, :data:`dpviz.lab.expectation.KNOWN_MISS` among them.

- Held out (:func:`heldout_cases`): other column sets of the public iris and wine tables,
  standing in for the held-out check's files, held to its rule alone (at most 1 of 20 draws
  over 3× the error stated).

``python bench/expected_accuracy.py [--draws 20] [--only gmm,covariance,walk,sbm,ranges,heldout]``
prints one line per case, then a table: per case the stated expected error and 90th
percentile, the measured root mean square, mean and median, the draws over 3× the stated
expected error, and whether the measured root mean square is within 2× of it (or the
prediction is large). The predictions
are kept in the cache folder, like the pages'.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dpviz.lab import expectation  # noqa: E402
from dpviz.lab.claims import seeds  # noqa: E402
from dpviz.lab.expectation import Case, issue_tables, table_scenario, walk  # noqa: E402
from dpviz.privacy import Budget, BudgetError  # noqa: E402
from dpviz.privacy.bounds import bound_plan  # noqa: E402

DRAWS = 20
#: The covariance page's defaults for an upload: radius 1, ρ = 0.1, the estimators it ticks
#: (Zero releases nothing and gets no prediction); its advice when every row is clipped:
#: private ranges with 20 % of the budget.
COVARIANCE_TICKED = ("gauss", "separate", "adaptive")
RHO = 0.1
SHARE = 0.2


def gmm_cases() -> list[Case]:
    """/gmm: the defaults (DP-EM, radius 10, ε = 1) and after the advice, per table.

    The advice: the ε the warning names (the estimator the page then picks,
    :func:`dpviz.lab.feasibility.table_default`), and for wine, whose rows the radius clips,
    private ranges (the bound's warning).
    """
    from dpviz.lab.feasibility import table_default

    cases = []
    for name, k in (("petals", 3), ("wines", 3)):
        rows, names = issue_tables()[name]
        n, d = rows.shape
        default = table_scenario("dp_em", k=k, epsilon=1.0, radius=10.0)
        cases.append(Case(f"/gmm {name}: DP-EM, radius 10, ε = 1 (defaults)", rows, names,
                          default))
        said = expectation.expected(expectation.public_shape(default, {}, (n, d)))
        if said.large and said.epsilon_from is not None:
            epsilon = float(said.epsilon_from)
            picked = table_default("gmm", "dp_em", n=n, d=d, k=k, epsilon=epsilon,
                                   delta=1e-5)
            cases.append(Case(f"/gmm {name}: {picked}, radius 10, ε = {epsilon:g} (advice: ε)",
                              rows, names,
                              table_scenario(picked, k=k, epsilon=epsilon, radius=10.0)))
        cases.append(Case(f"/gmm {name}: DP-EM, private ranges {SHARE:.0%}, ε = 1 (advice: "
                          "bound)", rows, names,
                          table_scenario("dp_em", k=k, epsilon=1.0,
                                         bounds={"private": SHARE, "standardise": False})))
    return cases


def covariance_cases() -> list[Case]:
    """/covariance: radius 1 and ρ = 0.1 (defaults), private ranges (advice), per estimator."""
    cases = []
    for name in ("petals", "wines"):
        rows, names = issue_tables()[name]
        for estimator in COVARIANCE_TICKED:
            cases.append(Case(f"/covariance {name}: {estimator}, radius 1, ρ = {RHO:g} "
                              "(defaults)", rows, names,
                              table_scenario(estimator, rho=RHO, radius=1.0,
                                             task="covariance")))
            cases.append(Case(f"/covariance {name}: {estimator}, private ranges {SHARE:.0%}, "
                              f"ρ = {RHO:g} (advice: bound)", rows, names,
                              table_scenario(estimator, rho=RHO, task="covariance",
                                             bounds={"private": SHARE,
                                                     "standardise": False})))
    return cases


def heldout_tables() -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
    """Column sets of the public iris and wine tables that no case of the issue's runs.

    The prediction's constants were measured on the issue's two tables (the petals; wine's
    alcohol, colour intensity and proline); two of these sets share a column with them, and
    the sepals' gap is one of the figures behind :data:`dpviz.lab.expectation.SEPARATIONS`.
    So they stand in for the held-out check's files, not as files never looked at.
    """
    from dpviz.data import load_dataset

    iris, wine = load_dataset("iris"), load_dataset("wine")
    chosen = {"iris sepals": (iris, (0, 1)), "iris sepal and petal length": (iris, (0, 2)),
              "wine malic acid, ash, alcalinity": (wine, (1, 2, 3)),
              "wine flavanoids, colour": (wine, (6, 9))}
    return {name: (table.data[:, list(columns)], tuple(table.names[j] for j in columns))
            for name, (table, columns) in chosen.items()}


def typed_around(rows: np.ndarray) -> dict[str, Any]:
    """Typed ranges as a user who knows the columns would type them: each column's least and
    greatest value rounded outward to whole units."""
    return {"ranges": [[float(np.floor(a)), float(np.ceil(b))]
                       for a, b in zip(rows.min(axis=0), rows.max(axis=0), strict=True)],
            "standardise": False}



def covariance_others() -> tuple[str, ...]:
    """The private estimators /covariance offers beside those it ticks, which a user may tick
    (not a baseline that releases nothing)."""
    from dpviz.estimators.registry import TASKS

    return tuple(name for name, entry in TASKS["covariance"].items()
                 if entry.notion != "none" and not entry.ignores_data
                 and name not in COVARIANCE_TICKED)


def heldout_cases() -> list[Case]:
    """:func:`heldout_tables` at /gmm's defaults, grid means at ε = 5 (radius 10), DP-EM and
    grid means inside :func:`typed_around` ranges, and /covariance at ρ = 0.1, radius 1 (its
    default) and inside typed ranges, for the three estimators it ticks and the two a user
    may tick. Held to the held-out rule only: at most 1 of 20 draws over 3× the error stated.
    """
    cases = []
    for name, (rows, names) in heldout_tables().items():
        typed = typed_around(rows)
        for label, scenario in (
                ("DP-EM, radius 10, ε = 1", table_scenario("dp_em", k=3, epsilon=1.0,
                                                           radius=10.0)),
                ("grid means, radius 10, ε = 5", table_scenario("grid_means", k=3,
                                                                epsilon=5.0, radius=10.0)),
                ("DP-EM, typed ranges, ε = 1", table_scenario("dp_em", k=3, epsilon=1.0,
                                                              bounds=typed)),
                ("grid means, typed ranges, ε = 5", table_scenario("grid_means", k=3,
                                                                   epsilon=5.0, bounds=typed)),
                *((f"{estimator} covariance, radius 1, ρ = {RHO:g}",
                   table_scenario(estimator, rho=RHO, radius=1.0, task="covariance"))
                  for estimator in COVARIANCE_TICKED + covariance_others()),
                *((f"{estimator} covariance, typed ranges, ρ = {RHO:g}",
                   table_scenario(estimator, rho=RHO, bounds=typed, task="covariance"))
                  for estimator in COVARIANCE_TICKED + covariance_others())):
            cases.append(Case(f"held out, {name}: {label}", rows, names, scenario))
    return cases


def run_tables(cases: list[Case], draws: int, *,
               heldout: bool = False) -> list[expectation.Walked]:
    """Walk each case with fresh seeds; one line each, and a follow-up for a large one.

    ``heldout``: the cases are held to the held-out rule alone (at most 1 draw over 3×).

    A case the page refuses (private ranges on too few rows) prints the refusal and is walked
    again at the share it names (:func:`advised_share`).
    """
    out = []
    pending = list(cases)
    while pending:
        case = pending.pop(0)
        started = time.perf_counter()
        try:
            walked = walk(case, draws=draws, fresh=True, search=True)
        except BudgetError as refused:
            print(f"{case.name}: refused before any release (said: {refused})", flush=True)
            pending.insert(0, advised_share(case))
            continue
        if heldout:
            verdict = "holds (the held-out rule)" if walked.rare else "MISSES"
        else:
            verdict = ("holds" if walked.holds else "holds on its safe side (the known miss)"
                       if walked.accepted else "MISSES")
        print(f"{walked.line()} — {verdict} ({time.perf_counter() - started:.0f} s)",
              flush=True)
        follow = _advised(walked)
        if follow is not None:
            print(f"    the page's sentence: {follow}", flush=True)
        out.append(walked)
    return out


def advised_share(case: Case) -> Case:
    """``case`` at the share of the budget its refusal names (the page's advice)."""
    params, bounds = case.scenario.params, case.scenario.data["bounds"]
    n, d = case.rows.shape
    budget = (Budget(rho=params["rho"]) if params.get("rho") is not None
              else Budget(epsilon=params["epsilon"], delta=params["delta"]))
    share, _ = bound_plan(n, d, budget, float(bounds["private"])).needed(n)
    scenario = replace(case.scenario, data={**case.scenario.data,
                                            "bounds": {**bounds, "private": share}})
    return Case(f"{case.name.split(' (')[0].replace(f'{SHARE:.0%}', f'{share:.0%}')} "
                "(advice: share)", case.rows, case.names, scenario)


def table(walked: list[expectation.Walked]) -> list[str]:
    """The acceptance table: stated expected error and tail, measured rms, mean and median,
    the rms ratio of a draw's error to the error stated beside it, draws over 3× that, and
    within 2× (``large``: the page says what n or ε is needed)."""
    head = (f"{'case':78s} {'expected':>9s} {'90 %':>9s} {'rms':>9s} {'mean':>9s} "
            f"{'median':>9s} {'ratio':>6s} {'>3×':>6s} within 2×")
    rows = [head]
    for w in walked:
        e = w.expected
        within = "yes" if w.within else "large" if e.large else "NO"
        rows.append(f"{w.case[:78]:78s} {e.rms:9.3g} {e.tail:9.3g} {w.measured:9.3g} "
                    f"{w.measured_mean:9.3g} {w.measured_median:9.3g} {w.ratio:6.2f} "
                    f"{w.over:>3d}/{len(w.errors):<2d} {within}")
    return rows


def _advised(walked: expectation.Walked) -> str | None:
    e = walked.expected
    return e.sentence() if e.large else None


def sbm_lines(draws: int) -> list[str]:
    """/sbm on the co-appearance graph: the outlook at d = 6 and after its advice (ε)."""
    import scipy.linalg

    from dpviz.data.graphs import les_miserables
    from dpviz.estimators.metrics import community_error
    from dpviz.estimators.sbm.common import labels_from_scores
    from dpviz.estimators.sbm.weak import prepare_graph, private_weak_recovery
    from dpviz.lab.recovery import BANDS, recovery_outlook
    from dpviz.privacy import Budget

    graph = les_miserables()
    n, degree, signal, delta = graph.n, 6.0, 0.5, 1e-6
    prepared = prepare_graph(graph, degree=degree, signal=signal)
    _, vector = scipy.linalg.eigh(prepared.projection.matrix, subset_by_index=[n - 1, n - 1])
    reference = labels_from_scores(vector[:, 0])
    lines = [f"/sbm les_miserables (n = {n}, {len(graph.edges)} edges): defaults read d from "
             "the graph, not private: the page says so and states no outlook (nothing to "
             "measure)."]
    epsilons = [2.0]
    first = recovery_outlook("weak_recovery", n=n, degree=degree, signal=signal,
                             epsilon=2.0, delta=delta)
    if first.epsilon_recovers is not None:
        epsilons.append(round(first.epsilon_recovers, 1))
    for epsilon in epsilons:
        out = recovery_outlook("weak_recovery", n=n, degree=degree, signal=signal,
                               epsilon=epsilon, delta=delta)
        errors = [community_error(reference, private_weak_recovery(
            prepared, Budget(epsilon=epsilon, delta=delta), rng=np.random.default_rng(seed),
            degree=degree, signal=signal).estimate["labels"]) for seed in seeds(True, draws)]
        low, high = BANDS[str(out.regime)]
        inside = sum(low <= e <= high for e in errors)
        says = "says from what ε" if "from ε ≈" in out.sentence else "names no ε"
        lines.append(
            f"/sbm les_miserables, d = {degree:g}, ε_s = {signal:g}, ε = {epsilon:g}: "
            f"outlook {out.regime} (band {low:g}–{high:g}), {says}; disagreement with the "
            f"non-private projection's split: median {statistics.median(errors):.3f} "
            f"({min(errors):.3f}–{max(errors):.3f}), in the band in {inside} of {draws}")
        lines.append(f"    the page's sentence: {out.sentence}")
    return lines


def ranges_line(draws: int) -> str:
    """The wine table's private ranges: draws keeping ≥ 95 % of its rows (target ≥ 18/20)."""
    from dpviz.lab.coinpress_claims import WINE_KEPT, wine_kept

    kept = wine_kept(seeds(True, draws))
    held = sum(k >= WINE_KEPT for k in kept)
    return (f"private ranges, wine (178 rows; proline 278–1 680), 20 % of ε = 1: ≥ 95 % of "
            f"the rows kept in {held} of {draws} draws (least {min(kept):.1%})")


def main(argv: list[str] | None = None) -> int:
    """Print every case's figures; exit 1 when one misses."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=DRAWS)
    parser.add_argument("--only", default="gmm,covariance,walk,sbm,ranges,heldout")
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    misses, walked = 0, []
    if "ranges" in only:
        print(ranges_line(args.draws), flush=True)
    if "sbm" in only:
        for line in sbm_lines(args.draws):
            print(line, flush=True)
    if "covariance" in only:
        walked += run_tables(covariance_cases(), args.draws)
    if "gmm" in only:
        walked += run_tables(gmm_cases(), args.draws)
    if "walk" in only:
        walked += run_tables(list(expectation.walk_cases()), args.draws)
    held = run_tables(heldout_cases(), args.draws, heldout=True) if "heldout" in only else []
    for row in table(walked + held):
        print(row, flush=True)
    misses = (sum(not w.accepted for w in walked)
              + sum(not w.rare for w in held))
    print(f"{misses} case{'s' * (misses != 1)} missed" if misses else "every case holds")
    return int(misses > 0)


if __name__ == "__main__":
    sys.exit(main())
