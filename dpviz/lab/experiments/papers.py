"""Summaries of the saved tables that reproduce the DP-EM paper's figure (Park et al.).

:func:`paper_reproduction` reads ``assets/results/dp_em_paper.csv`` (made by the sweep
``assets/sweeps/dp_em_paper.json``), :func:`mean_error_medians` and :func:`peers_reading`
``gmm_mean_errors.csv``. A comparison names a better one only where the winner maps' rule
establishes it (:func:`~dpviz.lab.experiments.winner.contenders`: a paired bootstrap interval
of the median difference that excludes 0); otherwise it is a tie.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpviz.lab.experiments.winner import contenders

#: The paper's accounting methods (in the order drawn) and the tight ones.
PAPER_METHODS = ("linear", "advanced", "zcdp", "ma", "pld")
TIGHT = ("zcdp", "ma", "pld")


@dataclass(frozen=True)
class PaperReproduction:
    """The DP-EM paper's experiment (one variant) summarised from the saved runs.

    ``curves`` has one row per (scenario, accounting, ε): the median test log-likelihood
    per point and its quartiles over the repeats; ``ceiling`` is non-private EM's median.
    ``ordering`` counts the (scenario, ε) cells where min(zCDP, MA) > advanced > linear;
    ``ggg_wins`` the (accounting, ε) cells where GGG is established better than LLG
    (:func:`~dpviz.lab.experiments.winner.contenders`), ``llg_wins`` where LLG is; the rest of
    the ``ggg_wins[1]`` cells are ties.
    """

    curves: pd.DataFrame
    ceiling: float
    repeats: int
    ordering: tuple[int, int]
    ggg_wins: tuple[int, int]
    llg_wins: int = 0


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
    >>> out.ordering, out.ggg_wins, out.llg_wins, out.repeats  # 2 repeats: nothing established
    ((4, 4), (0, 10), 0, 2)
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
    ggg = llg = cells = 0
    for _, cell in runs.groupby(["accounting", "epsilon"]):
        by = {str(s): g.sort_values("repeat")["test_loglik"].to_numpy(dtype=float)
              for s, g in cell.groupby("scenario")}
        if {"GGG", "LLG"} <= set(by) and all(np.isfinite(np.median(by[s])) for s in by):
            cells += 1
            best = contenders({s: by[s] for s in ("GGG", "LLG")}, higher=True)
            ggg += best == ["GGG"]
            llg += best == ["LLG"]
    return PaperReproduction(curves, ceiling, int(runs["repeat"].nunique()), (holds, total),
                             (ggg, cells), llg)


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


@dataclass(frozen=True)
class PeersReading:
    """DP-EM against its peers in the saved benchmark: who is established better.

    ``better``/``worse``: the peers DP-EM is established better / worse than; ``tied``: the
    rest (the difference of medians not established, :func:`~dpviz.lab.experiments.winner
    .contenders`, paired by seed).
    """

    better: tuple[str, ...]
    worse: tuple[str, ...]
    tied: tuple[str, ...]

    def sentence(self, names: dict[str, str]) -> str:
        """In words, e.g. ``'DP-EM beats both peers'`` or ``'DP-EM ties with DPLloyd…'``.

        Examples
        --------
        >>> PeersReading(("a", "b"), (), ()).sentence({"a": "A", "b": "B"})
        'DP-EM beats both peers'
        >>> print(PeersReading(("a",), (), ("b",)).sentence({"a": "A", "b": "B"}))
        DP-EM beats A and ties with B (the difference is within the seeds' spread)
        """
        peers = len(self.better) + len(self.worse) + len(self.tied)
        if peers and len(self.better) == peers:
            return "DP-EM beats both peers" if peers == 2 else "DP-EM beats every peer"
        if peers and len(self.worse) == peers:
            return "DP-EM loses to both peers" if peers == 2 else "DP-EM loses to every peer"
        parts = []
        if self.better:
            parts.append("beats " + " and ".join(names[p] for p in self.better))
        if self.worse:
            parts.append("loses to " + " and ".join(names[p] for p in self.worse))
        if self.tied:
            parts.append("ties with " + " and ".join(names[p] for p in self.tied)
                         + " (the difference is within the seeds' spread)")
        return "DP-EM " + " and ".join(parts)


def peers_reading(table: pd.DataFrame, ours: str, peers: tuple[str, ...]) -> PeersReading:
    """Whether ``ours`` is established better or worse than each peer (errors, paired by seed).

    Examples
    --------
    >>> t = pd.DataFrame({"estimator": ["a"] * 6 + ["b"] * 6 + ["c"] * 6,
    ...                   "seed": list(range(6)) * 3,
    ...                   "error": [1.0, 1.1, 0.9, 1.0, 1.2, 1.0] + [2.0] * 6
    ...                            + [1.1, 0.9, 1.2, 1.0, 1.0, 1.1]})
    >>> peers_reading(t, "a", ("b", "c"))
    PeersReading(better=('b',), worse=(), tied=('c',))
    """
    by = {str(name): g.sort_values("seed")["error"].to_numpy(dtype=float)
          for name, g in table.groupby("estimator")}
    better: list[str] = []
    worse: list[str] = []
    tied: list[str] = []
    for peer in peers:
        if peer not in by or ours not in by:
            continue
        best = contenders({ours: by[ours], peer: by[peer]})
        (better if best == [ours] else worse if best == [peer] else tied).append(peer)
    return PeersReading(tuple(better), tuple(worse), tuple(tied))
