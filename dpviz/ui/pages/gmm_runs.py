"""The mixtures page's runs and what it draws from them.

The page's run and its non-private reference, the noiseless mechanics runs, the truth a run is
scored against, the drawn data (:class:`MixtureData`), the cloud of repeated runs
(:class:`Cloud`) and the error tables. The page's controls are :mod:`dpviz.ui.pages.gmm`'s.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpviz import viz
from dpviz.core import limits
from dpviz.data import load_dataset, validate_mixture_data
from dpviz.estimators.metrics import METRICS, Truth, match_components
from dpviz.estimators.result import Result
from dpviz.estimators.work import check_work
from dpviz.lab import expectation
from dpviz.lab.scenario import Scenario
from dpviz.privacy import Budget, Ledger, compose_runs
from dpviz.ui import cached, runs
from dpviz.ui.pages.gmm import label
from dpviz.ui.panels import upload
from dpviz.ui.panels.risk import spend_text

#: (metric name in ``dpviz.estimators.metrics.METRICS["gmm"]``, column title).
ERRORS = (("mean_error", "mean error"), ("weight_error", "weight error"),
          ("covariance_error", "covariance error"))
DASH = "—"
#: A table with at most this many columns also gets the error of the means in each column,
#: in that column's own units (the mean error's distance mixes a file's units).
COLUMN_ERRORS = 12


def cloud_charge(cloud: Cloud, run: Ledger) -> str:
    """One sentence: the cloud's R runs are charged with the page's run, and the totals."""
    return (f"The cloud is R = {cloud.repeats} more private fits of the same data, so the "
            f"budget bar and the risk panel charge all {cloud.repeats + 1} runs: "
            f"{spend_text(cloud.ledger)} in all, against {spend_text(run)} for the run drawn "
            "alone.")


def ledger_title(cloud: Cloud | None) -> str:
    """The budget bar's title: one run, or the run and the cloud's R runs."""
    if cloud is None:
        return "Where the budget went"
    return f"Where the budget went: this run and the cloud's {cloud.repeats} runs"


@dataclass(frozen=True)
class Estimate:
    """The estimate drawn: weights, means and covariances (``None`` if not estimated)."""

    weights: NDArray[np.float64] | None
    means: NDArray[np.float64]
    covariances: NDArray[np.float64] | None


def estimate_of(result: Result, iteration: int | None = None) -> Estimate:
    """The result's estimate, or the trajectory's parameters after ``iteration`` steps."""
    if iteration is not None:
        step = result.diagnostics["trajectory"][iteration]
        return Estimate(np.asarray(step.weights), np.asarray(step.means),
                        np.asarray(step.covariances))
    estimate = result.estimate

    def array(name: str) -> NDArray[np.float64] | None:
        value = estimate.get(name)
        return None if value is None else np.asarray(value, dtype=float)

    means = array("means")
    assert means is not None
    return Estimate(array("weights"), means, array("covariances"))


def matched(truth: Truth, estimate: Estimate) -> Estimate:
    """The estimate's components reordered so that component j estimates true component j.

    Unmatched true components (fewer estimated ones) are left out of the estimate.
    """
    assert truth.means is not None
    order = match_components(truth.means, estimate.means)
    order = order[order >= 0]
    return Estimate(None if estimate.weights is None else estimate.weights[order],
                    estimate.means[order],
                    None if estimate.covariances is None else estimate.covariances[order])


def _cell(value: float) -> str:
    return DASH if not math.isfinite(value) else f"{value:.4g}"


def error_table(rows: Sequence[tuple[str, Result]], truth: Truth) -> pd.DataFrame:
    """One row per result: the errors after matching components (— where none applies).

    A run on a table (its ``choices`` name the columns, at most :data:`COLUMN_ERRORS`) also
    gets each column's error of the means, in that column's units (:func:`column_errors`).
    """
    out = []
    for estimator, result in rows:
        row: dict[str, str] = {"estimator": estimator}
        for name, title in ERRORS:
            row[title] = _cell(float(METRICS["gmm"][name](result, truth)))
        columns = result.choices.get("columns") or ()
        means = result.estimate.get("means")
        if 0 < len(columns) <= COLUMN_ERRORS and truth.means is not None:
            errors = (column_errors(truth.means, means) if means is not None and
                      not result.failed else np.full(len(columns), math.nan))
            row.update({f"mean error, {name}": _cell(float(e))
                        for name, e in zip(columns, errors, strict=True)})
        out.append(row)
    return pd.DataFrame(out)


def column_errors(true_means: Any, means: Any) -> NDArray[np.float64]:
    """The error of the means in each column: ``|μ_j − μ̃_j|`` averaged over matched components.

    Components are matched as for the mean error (Hungarian algorithm on the means); each
    column's error is in that column's units.

    Examples
    --------
    >>> column_errors([[10.0, 500.0], [14.0, 900.0]], [[14.5, 880.0], [9.0, 530.0]]).tolist()
    [0.75, 25.0]
    """
    truth, found = np.asarray(true_means, dtype=float), np.asarray(means, dtype=float)
    order = match_components(truth, found)
    kept = order >= 0
    return np.abs(found[order[kept]] - truth[kept]).mean(axis=0)


#: The secure stream of the page's run and of its non-private reference: one start.
STREAM = "gmm"
#: At most this many rows are drawn in the scatter (:data:`dpviz.viz.mixtures.DRAW_ROWS`).
DRAW_ROWS = viz.mixtures.DRAW_ROWS
def run(scenario: Scenario, *, fresh: int, content: bytes | None = None) -> Result:
    """The page's run of ``scenario`` (:func:`dpviz.ui.runs.run` on the page's stream).

    ``fresh`` is the rerun's entropy, used only when the scenario has no seed (secure).
    """
    return runs.run(scenario, fresh=fresh, content=content, stream=STREAM)


def reference_scenario(scenario: Scenario) -> Scenario:
    """Non-private EM on the same data, bound and seed: the error table's reference.

    Run on the page's stream with the same entropy, it starts where the page's run starts.

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
    ...                         "data": {"dataset": "iris"},
    ...                         "params": {"epsilon": 1.0, "radius": 10.0}, "seed": 2})
    >>> r = reference_scenario(s)
    >>> r.estimator, r.params["epsilon"], r.params["radius"], r.seed
    ('em', inf, 10.0, 2)
    """
    return Scenario.from_dict({**scenario.to_dict(), "estimator": "em",
                               "params": {**expectation.em_params(scenario),
                                          "accounting": "zcdp"}})


#: The panel that shows an estimator's steps without noise (issue 21): no ε anywhere on it.
MECHANICS_TITLE = "Mechanics only — not private"
MECHANICS_NOTE = ("The same algorithm with no noise at all, so every step can be seen: how it "
                  "works, not what a private run would release. Nothing here is private and "
                  "no guarantee applies.")
#: Sizes the mechanics can run generated data at (PPE's chunks agree only from about 100 000).
MECHANICS_ROWS = (30_000, 100_000)


def mechanics_scenario(scenario: Scenario, rows: int | None = None) -> Scenario:
    """The scenario without noise (ε = ∞, δ = 0), on ``rows`` generated rows when given.

    Examples
    --------
    >>> s = Scenario.from_dict({"task": "gmm", "estimator": "ppe",
    ...                         "data": {"generator": "gmm", "n": 10_000},
    ...                         "params": {"k": 3, "epsilon": 1.0, "delta": 1e-5}, "seed": 2})
    >>> m = mechanics_scenario(s, 100_000)
    >>> m.estimator, m.params["epsilon"], m.params["delta"], m.data["n"], m.seed
    ('ppe', inf, 0.0, 100000, 2)
    """
    plain = scenario.without_noise()
    if rows is None or "generator" not in plain.data:
        return plain
    return Scenario.from_dict({**plain.to_dict(), "data": {**plain.data, "n": rows}})


def mechanics_path(estimator: str) -> Path:
    """Where ``bench/gmm_mechanics.py`` saves an estimator's precomputed mechanics."""
    return cached.RESULTS / f"mechanics_{estimator}.json"


def saved_mechanics(estimator: str) -> tuple[Result, Scenario] | None:
    """An estimator's precomputed mechanics (a run without noise) and its scenario, if saved.

    For the estimators whose mechanics need more rows than a page runs live (PPE's chunks agree
    only from about 100 000 rows). Read when the panel is open (a few kB; not cached: a
    Result does not pickle).
    """
    path = mechanics_path(estimator)
    if not path.exists():
        return None
    saved = json.loads(path.read_text())

    def arrays(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: arrays(v) for key, v in value.items()}
        return np.asarray(value, dtype=float) if isinstance(value, list) else value

    plain = Scenario.from_dict(saved["scenario"])
    result = Result(estimate=arrays(saved["estimate"]),
                    ledger=Ledger(Budget(epsilon=math.inf)), failed=saved["failed"],
                    diagnostics=arrays(saved["diagnostics"]), estimator=estimator, task="gmm")
    return result, plain


def truth_scenario(scenario: Scenario, result: Result | None = None) -> Scenario:
    """The fit that stands for an upload's "true" components (it has no labels).

    Non-private EM on the same clipped data as the page's run
    (:func:`dpviz.lab.expectation.reference_of`; private ranges as ``result`` released them):
    "non-private EM on your data", a reference, never released.
    """
    data = (upload.reference_block(scenario.data, result) if result is not None else
            dict(scenario.data))
    return expectation.reference_of(replace(scenario, data=data))


#: What an upload's results are compared with: it has no ground truth.
YOUR_DATA_REFERENCE = "non-private EM on your data"


def error_rows(scenario: Scenario, result: Result,
               reference: Result) -> tuple[list[tuple[str, Result]], str]:
    """The error table's rows and a sentence on what they are compared with.

    Generated data and bundled sets: the run and non-private EM from the same start, against
    the true components. An upload has no truth: its run against "non-private EM on your
    data" (:func:`truth_scenario`), and non-private EM is never compared with itself.
    """
    if "upload" not in scenario.data:
        return ([(label(scenario), result), ("EM, non-private (same start)", reference)],
                "The reference row shows what the data allow without privacy.")
    if scenario.estimator == "em":
        return [], (f"This run is non-private EM, the reference itself ({YOUR_DATA_REFERENCE}): "
                    "there is nothing to compare it with.")
    return ([(label(scenario), result)],
            f"Your file has no true components: the errors are distances to "
            f"{YOUR_DATA_REFERENCE} — the same model, fitted without privacy to the same "
            "clipped rows.")


def matching_sentence(reference: str | None = None) -> str:
    """How the private components are matched: to the true ones, or to ``reference``'s.

    Examples
    --------
    >>> matching_sentence(YOUR_DATA_REFERENCE)[:62]
    'Components are matched to those of non-private EM on your data'
    """
    whose = "the true ones" if reference is None else f"those of {reference}"
    component = "true component j" if reference is None else "its component j"
    return (f"Components are matched to {whose} (Hungarian algorithm on the means), so label j "
            f"of the private means estimates {component}.")


@dataclass(frozen=True)
class MixtureData:
    """The rows a scenario runs on, as the page draws them.

    ``truth`` is what the page scores against (an upload's: :func:`truth_scenario`'s fit);
    ``drawn`` holds the indices of the rows the scatter draws (all of them up to
    :data:`DRAW_ROWS`).
    """

    data: NDArray[np.float64]
    labels: NDArray[np.int64]
    truth: Truth
    k: int
    names: tuple[str, ...]
    description: str
    drawn: NDArray[np.intp]


@st.cache_data(max_entries=limits.DATA_CACHE_ENTRIES, show_spinner=False)
def _drawn_and_names(block: str, n: int, d: int) -> tuple[NDArray[np.intp],
                                                         tuple[str, ...]]:
    """The rows the scatter draws (a subsample seeded by the data seed) and column names."""
    data = json.loads(block)
    seed = int(data.get("seed", expectation.REFERENCE_SEED))
    drawn = (np.arange(n) if n <= DRAW_ROWS else
             np.sort(np.random.default_rng(seed).choice(n, DRAW_ROWS, replace=False)))
    names = (tuple(load_dataset(data["dataset"]).names) if "dataset" in data else
             tuple(f"column {i + 1}" for i in range(d)) if "upload" in data else
             tuple(f"x{i + 1}" for i in range(d)))
    return drawn.astype(np.intp), names


def mixture_data(scenario: Scenario, content: bytes | None = None,
                 result: Result | None = None) -> MixtureData:
    """The scenario's rows, truth, k, column names, description and the rows drawn.

    An upload's truth is :func:`truth_scenario`'s fit on the rows ``result``'s run saw.

    Raises
    ------
    ValueError
        Bad data, with the engine's sentence.
    """
    loaded = runs.loaded(scenario, content)
    rows = loaded.data
    n, d = rows.shape
    k = int(scenario.params.get("k") or loaded.public["k"])
    truth, description = loaded.truth, loaded.description
    if truth is None:  # an upload: k components need rows enough (public: n and k)
        validate_mixture_data(rows, k, name=str(scenario.data["upload"]))
        fit = run(truth_scenario(scenario, result), fresh=0, content=content)
        if fit.failed is not None:
            raise ValueError(f"non-private EM found no components in the uploaded file "
                             f"{scenario.data['upload']}: {fit.failed}")
        truth = expectation.fitted_truth(fit, rows)
        bound = (result.choices.get("bounds") if result is not None else None) or \
            f"rows clipped to a ball of radius {scenario.params.get('radius')} about the origin"
        description = (description.rstrip(".") + f". Bound: {bound}. The black components are "
                       f"{YOUR_DATA_REFERENCE} (the file has no true ones).")
    drawn, names = _drawn_and_names(runs.canonical(dict(scenario.data)), n, d)
    names = loaded.names or names  # a CSV's header
    labels = truth.labels if truth.labels is not None else np.zeros(n, dtype=np.int64)
    return MixtureData(rows, labels, truth, k, names, description, drawn)


def cloud_seeds(seed: int, repeats: int) -> tuple[int, ...]:
    """Seeds of the repeated runs, derived from the global seed (never the seed itself).

    Examples
    --------
    >>> a = cloud_seeds(0, 3)
    >>> len(set(a)), a == cloud_seeds(0, 3), a == cloud_seeds(1, 3)
    (3, True, False)
    """
    # 128 bits each: derived from a secure 128-bit seed, a run's seed must keep its entropy.
    state = np.random.SeedSequence([int(seed), 0x6D6D]).generate_state(4 * int(repeats))
    return tuple(int.from_bytes(row.tobytes(), "little") for row in state.reshape(-1, 4))


@dataclass(frozen=True)
class Cloud:
    """R more private fits of the page's data, and what they cost with the page's own run.

    Attributes
    ----------
    means : ndarray
        The private means of the R runs (rows × d; a ⊥ run adds none).
    ledger : Ledger
        Every release of the 1 + R runs (:func:`dpviz.privacy.compose_runs`): the ledger a
        page drawing the cloud must show.
    repeats : int
        R.
    """

    means: NDArray[np.float64]
    ledger: Ledger
    repeats: int


@st.cache_data(max_entries=8, show_spinner="Running the estimator again and again…")
def _cloud(scenario: str, fresh: int, repeats: int, _content: bytes | None = None) -> Cloud:
    s = Scenario.from_dict(json.loads(scenario))
    loaded = runs.loaded(s, _content)
    shape = loaded.data.shape
    k = int(s.params.get("k") or loaded.public["k"])
    check_work("gmm", s.estimator, n=shape[0], d=shape[1], k=k, repeats=repeats,
               generate=False, secure=s.seed is None)
    ledgers = [run(s, fresh=fresh, content=_content).ledger]
    means = []
    for seed in cloud_seeds(fresh if s.seed is None else s.seed, repeats):
        # teaching: the derived seed is the run's; secure: it keys the run's generator
        again = replace(s, seed=None if s.seed is None else seed)
        result = runs.compute(again, fresh=seed, content=_content, stream=STREAM)
        ledgers.append(result.ledger)
        if result.failed is None and result.estimate.get("means") is not None:
            means.append(np.asarray(result.estimate["means"], dtype=float))
    return Cloud(np.concatenate(means) if means else np.empty((0, shape[1])),
                 compose_runs(ledgers), int(repeats))


def cloud(scenario: Scenario, *, fresh: int, repeats: int,
          content: bytes | None = None) -> Cloud:
    """``repeats`` more runs with seeds from :func:`cloud_seeds`, charged with the page's run.

    Each run is another private release of the same data, so the cloud's ledger composes
    the page's run (:func:`run`) and all R runs, ⊥ runs included.
    """
    return _cloud(runs.canonical(scenario.to_dict()), fresh if scenario.seed is None else 0,
                  int(repeats), content)
