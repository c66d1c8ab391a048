"""Summaries of the saved tables that reproduce the DP-EM paper's figure (Park et al.).

:func:`paper_reproduction` reads ``assets/results/dp_em_paper.csv`` (made by the sweep
``assets/sweeps/dp_em_paper.json``), :func:`mean_error_medians` ``gmm_mean_errors.csv``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

#: The paper's accounting methods (in the order drawn) and the tight ones.
PAPER_METHODS = ("linear", "advanced", "zcdp", "ma", "pld")
TIGHT = ("zcdp", "ma", "pld")


@dataclass(frozen=True)
class PaperReproduction:
    """The DP-EM paper's experiment (one variant) summarised from the saved runs.

    ``curves`` has one row per (scenario, accounting, ε): the median test log-likelihood
    per point and its quartiles over the repeats; ``ceiling`` is non-private EM's median.
    ``ordering`` counts the (scenario, ε) cells where min(zCDP, MA) > advanced > linear;
    ``ggg_wins`` the (accounting, ε) cells where GGG's median beats LLG's.
    """

    curves: pd.DataFrame
    ceiling: float
    repeats: int
    ordering: tuple[int, int]
    ggg_wins: tuple[int, int]


def paper_reproduction(table: pd.DataFrame, variant: str) -> PaperReproduction:
    """Medians and quartiles of ``dp_em_paper.csv``'s runs for ``variant``, and the verdict.

    Examples
    --------
    >>> rows = [("dpviz", s, a, e, r, -1.0 * (5 - i) - (s == "LLG") + r)
    ...         for i, a in enumerate(PAPER_METHODS) for s in ("GGG", "LLG")
    ...         for e in (0.5, 1.0) for r in (0, 1)]
    >>> t = pd.DataFrame(rows, columns=["variant", "scenario", "accounting", "epsilon",
    ...                                 "repeat", "test_loglik"])
    >>> out = paper_reproduction(t, "dpviz")
    >>> out.ordering, out.ggg_wins, out.repeats
    ((4, 4), (10, 10), 2)
    """
    runs = table[table["variant"] == variant]
    if runs.empty:
        raise ValueError(f"the saved benchmark has no runs of the variant {variant!r}")
    grouped = runs.groupby(["scenario", "accounting", "epsilon"])["test_loglik"]
    curves = pd.DataFrame({"median": grouped.median(), "low": grouped.quantile(0.25),
                           "high": grouped.quantile(0.75)}).reset_index()
    em = table.loc[table["variant"] == "nonprivate_em", "test_loglik"]
    ceiling = float(em.median()) if len(em) else math.nan
    medians = curves.set_index(["scenario", "accounting", "epsilon"])["median"]
    holds = total = 0
    for _, cell in medians.groupby(level=["scenario", "epsilon"]):
        m = cell.droplevel(["scenario", "epsilon"])
        if all(a in m for a in ("zcdp", "ma", "advanced", "linear")):
            total += 1
            holds += bool(min(m["zcdp"], m["ma"]) > m["advanced"] > m["linear"])
    wide = medians.unstack("scenario")
    wins = (0, 0)
    if {"GGG", "LLG"} <= set(wide.columns):
        both = wide[["GGG", "LLG"]].dropna()
        wins = (int((both["GGG"] > both["LLG"]).sum()), len(both))
    return PaperReproduction(curves, ceiling, int(runs["repeat"].nunique()), (holds, total),
                             wins)


def mean_error_medians(table: pd.DataFrame) -> dict[str, float]:
    """The median matched mean error of each estimator in ``gmm_mean_errors.csv``.

    Examples
    --------
    >>> mean_error_medians(pd.DataFrame({"estimator": ["a", "a", "a", "b"],
    ...                                  "error": [1.0, 3.0, 2.0, 0.5]}))
    {'a': 2.0, 'b': 0.5}
    """
    grouped = table.groupby("estimator", sort=False)["error"].median()
    return {str(k): float(v) for k, v in grouped.items()}
