"""The accuracy table (issues 7 and 21): every registered GMM estimator, honest about ⊥.

At n = 10 000 on separations 2σ, 4σ, 6σ (the default) and 8σ, and at n = 30 000 and 100 000 on
6σ, each at ε ∈ {0.5, 1, 4}: matched mean error (median over the successful repeats) and how
each run ended — ``ok``, ``refused`` (before spending: the entry's public preconditions made ⊥
certain, nothing read, empty ledger) or ``failed`` (⊥ after spending). Every estimator of
:data:`dpviz.estimators.registry.TASKS` runs (a new registration joins the table by itself),
as sweeps of :mod:`dpviz.lab.experiments` (every estimator of a repeat sees the same data, no
disk cache: the table is always today's code); diffprivlib's ``KMeans`` runs on the same data
draws. Writes ``assets/results/gmm_estimators.csv`` (one row per run) and
``assets/results/gmm_estimators_caption.json`` (the /gmm page's sentence: who wins where, with
the numbers, a winner named only where its lead is established, ties listed otherwise:
:func:`dpviz.lab.experiments.winner.winners`), and adds one bench entry per estimator at the
default scenario. ``nice -n 10 python bench/gmm_table.py [--repeats R] [--big-repeats R]``
runs it alone; the caption records the command and registry version that made it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpviz.estimators.gmm.one_cluster import REFUSED  # noqa: E402
from dpviz.estimators.metrics import matched_mean_error  # noqa: E402
from dpviz.estimators.registry import TASKS  # noqa: E402
from dpviz.lab.experiments import SweepSpec, run_seeds, run_sweep  # noqa: E402
from dpviz.lab.experiments.winner import RULE, winners  # noqa: E402
from dpviz.lab.provenance import record, stamp  # noqa: E402
from dpviz.lab.scenario import load_data  # noqa: E402

TABLE_CSV = ROOT / "assets" / "results" / "gmm_estimators.csv"
CAPTION_JSON = ROOT / "assets" / "results" / "gmm_estimators_caption.json"
ESTIMATORS = tuple(TASKS["gmm"])
SEPARATIONS = (2.0, 4.0, 6.0, 8.0)
EPSILONS = (0.5, 1.0, 4.0)
SIZES = (30_000, 100_000)
#: The default scenario's separation: the larger sizes run at it only.
DEFAULT_SEPARATION = 6.0
PEER = "diffprivlib_kmeans"


def table_specs(repeats: int, big_repeats: int,
                estimators: tuple[str, ...] = ESTIMATORS) -> tuple[SweepSpec, SweepSpec]:
    """The sweeps: n = 10 000 by separation × ε, and the larger n at 6σ by ε."""
    common = {"task": "gmm", "estimators": list(estimators),
              "fixed": {"delta": 1e-5, "k": 3}, "seed": 0, "metrics": ["mean_error"]}
    small = SweepSpec.from_dict({
        **common, "data": {"generator": "gmm", "n": 10_000, "d": 2, "k": 3},
        "grid": {"data.separation": list(SEPARATIONS), "epsilon": list(EPSILONS)},
        "repeats": repeats,
        "description": "issues 7 and 21: every GMM estimator by separation and epsilon"})
    big = SweepSpec.from_dict({
        **common, "data": {"generator": "gmm", "d": 2, "k": 3,
                           "separation": DEFAULT_SEPARATION},
        "grid": {"data.n": list(SIZES), "epsilon": list(EPSILONS)}, "repeats": big_repeats,
        "description": "issue 21: every GMM estimator at n = 30 000 and 100 000"})
    return small, big


def outcome(failed: str) -> str:
    """``ok``, ``refused`` (before spending) or ``failed`` (after spending)."""
    return "ok" if not failed else "refused" if failed.startswith(REFUSED) else "failed"


def diffprivlib_rows(spec: SweepSpec) -> list[dict[str, Any]]:
    """diffprivlib's KMeans on the sweep's own data draws (same data seeds)."""
    from diffprivlib.models import KMeans

    rows = []
    for point in spec.points():
        for repeat in range(spec.repeats):
            data_seed, _ = run_seeds(spec, point, repeat, PEER)
            block = {**spec.data, **{key[5:]: value for key, value in point.items()
                                     if key.startswith("data.")}, "seed": data_seed}
            loaded = load_data(block)
            radius = float(loaded.radius or 1.0)
            started = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = KMeans(n_clusters=3, epsilon=float(point["epsilon"]),
                               bounds=(-radius, radius), random_state=repeat)
                centres = model.fit(np.asarray(loaded.data)).cluster_centers_
            assert loaded.truth is not None and loaded.truth.means is not None
            rows.append({"task": "gmm", "estimator": PEER, **point,
                         "repeat": repeat, "seed": repeat, "data_seed": data_seed,
                         "mean_error": matched_mean_error(loaded.truth.means, centres),
                         "seconds": time.perf_counter() - started, "failed": ""})
    return rows


KEYS = ["estimator", "n", "data.separation", "epsilon"]


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per cell: median matched mean error over the successful runs, and how the runs ended."""
    ended = table["failed"].fillna("").map(outcome)
    grouped = table.assign(ended=ended).groupby(KEYS, sort=False)
    return pd.DataFrame({
        "median_error": grouped.apply(lambda g: g.loc[g["ended"] == "ok", "mean_error"].median(),
                                      include_groups=False),
        "success_rate": grouped["ended"].apply(lambda e: (e == "ok").mean()),
        "refused": grouped["ended"].apply(lambda e: (e == "refused").mean()),
        "failed": grouped["ended"].apply(lambda e: (e == "failed").mean()),
        "runs": grouped.size()}).reset_index()


def _label(name: str) -> str:
    return TASKS["gmm"][name].label if name in TASKS["gmm"] else "diffprivlib's KMeans"


def ranked(table: pd.DataFrame) -> pd.DataFrame:
    """Per (n, ε) at the default separation: the private estimators' and the peer's winner or
    tie (:func:`dpviz.lab.experiments.winner.winners`: lowest median error, ⊥ the worst)."""
    private = table["estimator"].map(lambda e: e == PEER or TASKS["gmm"][e].notion != "none")
    at = table[(table["data.separation"] == DEFAULT_SEPARATION) & private]
    return winners(at.sort_values(["n", "epsilon"], kind="stable"), "n", "epsilon",
                   "mean_error")


def caption(table: pd.DataFrame) -> str:
    """Who wins where at the default separation, with the numbers (the /gmm page's sentence).

    Per (n, ε) the winner and the runner-up where the lead is established, else the tied;
    then which estimators never succeed, and why.
    """
    parts = []
    for row in ranked(table).to_dict(orient="records"):
        where = f"n = {int(row['n']):,}, ε = {row['epsilon']:g}"
        scores = row["scores"]
        if row["winner"] is None:
            parts.append(f"{where}: none succeeds")
        elif row["tied"]:
            parts.append(f"{where}: a tie between " + ", ".join(
                f"{_label(name)} {scores[name]:.3g}" for name in row["tied"]))
        else:
            second = ("" if row["runner_up"] is None else
                      f" (next {_label(row['runner_up'])} {row['runner_up_score']:.3g})")
            parts.append(f"{where}: {_label(row['winner'])} {row['score']:.3g}{second}")
    cells = summary(table)
    at = cells[(cells["data.separation"] == DEFAULT_SEPARATION)
               & cells["estimator"].map(lambda e: e == PEER or TASKS["gmm"][e].notion != "none")]
    never = []
    for name, rows in at.groupby("estimator"):
        if rows["success_rate"].max() == 0:
            why = ("refused before spending" if rows["refused"].mean() == 1 else
                   "failed after spending" if rows["failed"].mean() == 1 else
                   "refused or failed")
            never.append(f"{_label(name)} ({why})")
    repeats = cells.groupby("n")["runs"].max()
    text = (f"Lowest median matched mean error at {DEFAULT_SEPARATION:g}σ among the private "
            "estimators (a ⊥ counts as the worst); a winner is named only where a paired "
            "bootstrap (95%) shows its lead over every other, otherwise the tied are listed — "
            + "; ".join(parts) + ". Repeats per cell: "
            + ", ".join(f"{int(r)} at n = {n:,}" for n, r in repeats.items()) + ".")
    if never:
        text += " Never succeeding at these sizes: " + ", ".join(never) + "."
    return text


def _located(table: pd.DataFrame, spec: SweepSpec) -> pd.DataFrame:
    """The sweep's rows with their n and separation, whichever of them the grid swept."""
    for column in ("n", "separation"):
        if f"data.{column}" not in table:
            table[f"data.{column}"] = spec.data[column]
    return table


def run_table(repeats: int, big_repeats: int, jobs: int = 2,
              only: tuple[str, ...] = ()) -> pd.DataFrame:
    """Every run of the table, or only those of the estimators ``only``.

    A run's data and noise seeds come from its point, repeat and estimator, not from which
    other estimators run, so a partial table merges with the saved one (:func:`merged`).
    """
    estimators = tuple(e for e in only if e != PEER) if only else ESTIMATORS
    parts = []
    with threadpool_limits(limits=1), warnings.catch_warnings(), \
            tempfile.TemporaryDirectory() as cache:
        warnings.simplefilter("ignore")
        for spec in table_specs(repeats, big_repeats, estimators or ESTIMATORS[:1]):
            if estimators:
                parts.append(_located(run_sweep(spec, jobs=jobs, cache_dir=cache), spec))
            if not only or PEER in only:
                parts.append(_located(pd.DataFrame(diffprivlib_rows(spec)), spec))
    out = pd.concat(parts, ignore_index=True).rename(columns={"data.n": "n"})
    out["failed"] = out["failed"].fillna("")
    out["outcome"] = out["failed"].map(outcome)
    return out


def merged(table: pd.DataFrame) -> pd.DataFrame:
    """The saved table with ``table``'s estimators' rows replaced by ``table``'s."""
    saved = pd.read_csv(TABLE_CSV, keep_default_na=False)
    saved["mean_error"] = pd.to_numeric(saved["mean_error"], errors="coerce")
    kept = saved[~saved["estimator"].isin(set(table["estimator"]))]
    return pd.concat([kept, table], ignore_index=True)


def save(table: pd.DataFrame, repeats: int, big_repeats: int, command: str) -> None:
    """Write the table and the caption, each with what made it (``command``, the registry)."""
    table.to_csv(TABLE_CSV, index=False)
    record(TABLE_CSV, command, "gmm")
    cells = [{"n": int(row["n"]), "epsilon": float(row["epsilon"]), "winner": row["winner"],
              "tied": row["tied"], "median": row["score"], "runner_up": row["runner_up"],
              "runner_up_median": row["runner_up_score"]}
             for row in ranked(table).to_dict(orient="records")]
    CAPTION_JSON.write_text(json.dumps(
        {"caption": caption(table), "separation": DEFAULT_SEPARATION, "rule": RULE,
         "cells": cells,
         "specs": [spec.to_dict() for spec in table_specs(repeats, big_repeats)],
         "made_by": stamp(command, "gmm")}, ensure_ascii=False, indent=1,
        default=lambda v: None) + "\n")


def bench_gmm_table(b: Any, repeats: int = 5, big_repeats: int = 3,
                    save_table: bool = True) -> pd.DataFrame:
    """Add the default scenario's cells as bench entries; save the whole table."""
    started = time.perf_counter()
    table = run_table(repeats, big_repeats)
    if save_table:
        save(table, repeats, big_repeats, "make bench")
    cells = summary(table)
    default = cells[(cells["data.separation"] == DEFAULT_SEPARATION) & (cells["epsilon"] == 1.0)
                    & (cells["n"] == 10_000)]
    em = float(default.loc[default["estimator"] == "em", "median_error"].iloc[0])
    for _, row in default.iterrows():
        value = row["median_error"]
        b.add(f"gmm_table_{row['estimator']}", value,
              "matched mean error", baseline=em, baseline_name="non-private EM",
              note=f"success rate {row['success_rate']:.0%} (refused before spending "
                   f"{row['refused']:.0%}, failed after {row['failed']:.0%}); n = 10 000, d = 2, "
                   f"k = 3, 6σ, ε = 1, δ = 1e-5, {repeats} repeats; the whole table (4 "
                   "separations × 3 ε at n = 10 000, 3 ε at 30 000 and 100 000) in "
                   f"assets/results/gmm_estimators.csv, {time.perf_counter() - started:.0f} s")
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--big-repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--only", action="append", default=[],
                        choices=(*ESTIMATORS, PEER),
                        help="rerun these estimators only and merge with the saved table")
    args = parser.parse_args()
    started = time.perf_counter()
    table = run_table(args.repeats, args.big_repeats, args.jobs, tuple(args.only))
    if args.only:
        table = merged(table)
    if not args.no_save:
        save(table, args.repeats, args.big_repeats,
             " ".join(["python", "bench/gmm_table.py", *sys.argv[1:]]))
    cells = summary(table)
    wide = cells.pivot_table(index="estimator", columns=["n", "data.separation", "epsilon"],
                             values=["median_error", "success_rate"], sort=False)
    with pd.option_context("display.width", 250, "display.max_columns", 200):
        print(wide.round(3).to_string())
    print(caption(table))
    print(json.dumps({"seconds": round(time.perf_counter() - started, 1),
                      "runs": len(table)}))


if __name__ == "__main__":
    main()
