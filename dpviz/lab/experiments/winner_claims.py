"""What the saved winner maps and the /gmm accuracy caption claim, re-measured (the register).

A map's verdict on a cell is its contenders (:func:`verdicts`): the winner alone when its lead
is established, every tied estimator otherwise, none where no private estimator answers. A
held-out re-run (:func:`held_out`: the same cells, seeds derived from another spec seed) holds
the saved verdict when the two agree (:func:`agree`). The checks ``claim_*`` are listed in
``assets/claims.toml`` (:mod:`dpviz.lab.claims`).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpviz.estimators.metrics import metric_label
from dpviz.lab.claims import Measured, seeds
from dpviz.lab.experiments.sweep import SweepSpec, scenario_dict
from dpviz.lab.experiments.winner import (
    METRICS,
    RESULTS,
    SavedMap,
    load_map,
    map_settings,
    map_skips,
    map_spec,
    private_estimators,
    run_map,
    same_settings,
    winners,
)

#: The tasks with a saved map.
TASKS = ("gmm", "covariance", "sbm")
#: The share of re-run cells whose verdicts must agree with the saved ones.
AGREEMENT = 0.8
#: The /gmm page's accuracy caption (``bench/gmm_table.py``).
CAPTION = RESULTS / "gmm_estimators_caption.json"

Cell = tuple[float, float]


def verdicts(cells: pd.DataFrame, x: str, y: str) -> dict[Cell, frozenset[str]]:
    """Per cell of :func:`~dpviz.lab.experiments.winner.winners`: its contenders.

    The winner alone when its lead is established, the tied otherwise, none without an answer.

    Examples
    --------
    >>> cells = pd.DataFrame({"e": [1, 2], "n": [10, 10], "winner": ["a", None],
    ...                       "tied": [[], []]})
    >>> verdicts(cells, "e", "n") == {(1.0, 10.0): {"a"}, (2.0, 10.0): frozenset()}
    True
    """
    out = {}
    for row in cells.to_dict(orient="records"):
        names = row["tied"] or ([row["winner"]] if isinstance(row["winner"], str) else [])
        out[float(row[x]), float(row[y])] = frozenset(names)
    return out


def agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two verdicts on one cell agree.

    A named winner must be among the other's contenders, and the two must share one; two
    cells without an answer agree.

    Examples
    --------
    >>> s = frozenset
    >>> agree(s("a"), s("ab")), agree(s("a"), s("b")), agree(s("ab"), s("bc")), agree(s(), s())
    (True, False, True, True)
    """
    if not a or not b:
        return a == b
    if (len(a) == 1 and not a <= b) or (len(b) == 1 and not b <= a):
        return False
    return bool(a & b)


@dataclass(frozen=True)
class Agreement:
    """How a held-out re-run's verdicts compare with the saved ones, cell by cell."""

    cells: int
    agreeing: int
    identical: int
    saved_ties: int
    fresh_ties: int
    seconds: float

    @property
    def share(self) -> float:
        """The share of cells whose verdicts agree."""
        return self.agreeing / max(self.cells, 1)

    def text(self) -> str:
        """The figures in words."""
        return (f"{self.agreeing} of {self.cells} cells agree ({self.share:.0%}; identical "
                f"verdicts in {self.identical}); ties: {self.saved_ties} saved, "
                f"{self.fresh_ties} re-run; {self.seconds:.0f} s")


def compare(saved: Mapping[Cell, frozenset[str]],
            fresh: Mapping[Cell, frozenset[str]], seconds: float = 0.0) -> Agreement:
    """:func:`agree` over the cells of ``fresh`` (each also in ``saved``)."""
    pairs = [(saved[cell], verdict) for cell, verdict in fresh.items()]
    return Agreement(len(pairs), sum(agree(a, b) for a, b in pairs),
                     sum(a == b for a, b in pairs), sum(len(a) > 1 for a, _ in pairs),
                     sum(len(b) > 1 for _, b in pairs), seconds)


def spread(values: Sequence[Any], count: int | None) -> list[Any]:
    """``count`` of ``values`` spread evenly, ends included (all of them for ``None``).

    Examples
    --------
    >>> spread([1, 2, 3, 4, 5], 3), spread([1, 2], None)
    ([1, 3, 5], [1, 2])
    """
    if count is None or count >= len(values):
        return list(values)
    picks = np.unique(np.linspace(0, len(values) - 1, count).round().astype(int))
    return [values[i] for i in picks]


def held_out(saved: SavedMap, seed: int, *, across: int | None = None, up: int | None = None,
             jobs: int = 2) -> Agreement:
    """Re-run a saved map's cells with seeds derived from ``seed``; compare the verdicts.

    ``across``, ``up``: how many of the grid's values to re-run on each axis (spread evenly;
    all by default). The runs are cached in a folder removed afterwards: fresh seeds never
    come again.
    """
    spec = saved.spec
    (x, xs), (y, ys) = spec.grid
    again = SweepSpec.from_dict({**spec.to_dict(), "seed": seed,
                                 "grid": {x: spread(xs, across), y: spread(ys, up)}})
    higher = metric_label(spec.task, spec.metrics[0]).higher_is_better
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as cache:
        table = run_map(again, jobs=jobs, cache_dir=cache)
    seconds = time.perf_counter() - started
    before = verdicts(winners(saved.table, x, y, spec.metrics[0], higher=higher), x, y)
    after = verdicts(winners(table, x, y, spec.metrics[0], higher=higher), x, y)
    return compare(before, after, seconds)


def map_problems(saved: SavedMap) -> list[str]:
    """What a saved map gets wrong, in words (none: it is complete and at the page's defaults).

    A registered private estimator that is missing although its public preconditions hold
    somewhere on the map; an estimator that is not private; settings other than the page's
    defaults (:func:`~dpviz.lab.experiments.winner.map_settings`, what its title says); a
    metric other than the page's default; no record of the command that made it.
    """
    spec = saved.spec
    task = spec.task
    out = []
    private = private_estimators(task)
    for name in private:
        if name in spec.estimators:
            continue
        probe = SweepSpec.from_dict({**spec.to_dict(), "estimators": [name]})
        skip = map_skips(probe)
        if any(skip(scenario_dict(probe, point, name, data_seed=0, noise_seed=0)) is None
               for point in probe.points()):
            out.append(f"{name} can run on the {task} map but is not on it")
    out += [f"{name} on the {task} map is not a private estimator"
            for name in spec.estimators if name not in private]
    (x, xs), (y, ys) = spec.grid
    data, fixed = map_settings(task)
    if not same_settings(spec, map_spec(task, x, y, xs, ys, data=data, fixed=fixed,
                                        repeats=spec.repeats)):
        out.append(f"the {task} map holds {dict(spec.data)}, {dict(spec.fixed)} fixed, not the "
                   f"page's defaults {data}, {fixed}")
    if spec.metrics[0] != METRICS[task][0]:
        out.append(f"the {task} map ranks by {spec.metrics[0]}, not {METRICS[task][0]}")
    if not saved.provenance.get("command"):
        out.append(f"the {task} map does not record the command that made it")
    return out


def claim_saved_maps_complete(fresh: bool) -> Measured:
    """Every saved map lists every private estimator that can run on it, at the page's defaults.

    And records what made it. Reads the saved files only (``fresh`` changes nothing).
    """
    problems = []
    for task in TASKS:
        saved = load_map(task)
        problems += [f"no saved {task} map"] if saved is None else map_problems(saved)
    return Measured(not problems, "; ".join(problems) or
                    f"the {', '.join(TASKS)} maps are complete and at the pages' defaults")


#: Values re-run per axis by the maps' claims (3 × 3 = 9 cells each).
CLAIM_VALUES = 3


def map_holds(task: str, fresh: bool, salt: int) -> Measured:
    """The saved ``task`` map's verdicts on 9 cells hold on a re-run with other seeds."""
    saved = load_map(task)
    if saved is None:
        return Measured(False, f"no saved {task} map")
    (seed,) = seeds(fresh, 1, salt)
    found = held_out(saved, seed, across=CLAIM_VALUES, up=CLAIM_VALUES)
    return Measured(found.share >= AGREEMENT, f"seed {seed}: {found.text()}")


def claim_gmm_map_holds(fresh: bool) -> Measured:
    """The saved mixtures map's winners and ties hold on held-out seeds (9 cells)."""
    return map_holds("gmm", fresh, 1)


def claim_covariance_map_holds(fresh: bool) -> Measured:
    """The saved covariance map's winners and ties hold on held-out seeds (9 cells)."""
    return map_holds("covariance", fresh, 2)


def claim_sbm_map_holds(fresh: bool) -> Measured:
    """The saved SBM map's winners and ties hold on held-out seeds (9 cells)."""
    return map_holds("sbm", fresh, 3)


# --- the /gmm page's accuracy caption ---------------------------------------------------------

def caption_verdicts(cells: Sequence[Mapping[str, Any]]) -> dict[Cell, frozenset[str]]:
    """The caption file's cells (``n``, ``epsilon``, ``winner``, ``tied``) as verdicts."""
    return {(float(c["n"]), float(c["epsilon"])):
            frozenset(c["tied"] or ([c["winner"]] if isinstance(c["winner"], str) else []))
            for c in cells}


def claim_accuracy_caption_holds(fresh: bool) -> Measured:
    """The /gmm accuracy caption's winners and ties at n = 10 000 hold on held-out seeds.

    Re-runs the caption's n = 10 000 cells at its separation (its saved spec, another seed);
    the peer outside the registry (diffprivlib's KMeans) is left out of both verdicts.
    """
    saved = json.loads(CAPTION.read_text())
    spec = SweepSpec.from_dict(saved["specs"][0])
    (seed,) = seeds(fresh, 1, 4)
    grid = {key: [saved["separation"]] if key == "data.separation" else list(values)
            for key, values in spec.grid}
    private = [name for name in spec.estimators if name in private_estimators("gmm")]
    again = SweepSpec.from_dict({**spec.to_dict(), "seed": seed, "grid": grid,
                                 "estimators": private})
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as cache:
        table = run_map(again, jobs=2, cache_dir=cache).assign(n=spec.data["n"])
    seconds = time.perf_counter() - started
    fresh_cells = winners(table, "n", "epsilon", "mean_error")
    after = verdicts(fresh_cells, "n", "epsilon")
    before = {cell: frozenset(n for n in names if n in private)
              for cell, names in caption_verdicts(saved["cells"]).items()}
    found = compare(before, after, seconds)
    return Measured(found.share >= AGREEMENT, f"seed {seed}: {found.text()}")
