"""Intervals on private estimates, from the released values and the recorded noise alone.

An interval here is post-processing: it reads a result's released values, the noise scales
its ledger records and the run's public inputs (n, the bound, the budget, the estimator's
parameters), never the data, so it charges nothing (Dwork & Roth 2014, Proposition 2.1).
Intervals are stated at :data:`LEVEL` (90 %) and shown only where ``bench/intervals.py``
measured their coverage at ≥ :data:`THRESHOLD` over ≥ 500 simulated releases
(:data:`COVERAGE_PATH`); elsewhere the answer is :data:`NO_INTERVAL`.

Three kinds:

* **closed form, value + noise** (the ``mean`` task's Laplace and Gaussian means, CoinPress's
  last step): the release is ``θ + Z`` with Z's law known from the ledger, so
  ``θ̃ ± q·scale`` covers θ with probability exactly the level — q = Φ⁻¹(0.95) for a Gaussian,
  ln 10 for a Laplace (``P(|Z| ≤ t) = 1 − e^{−t/b}``). θ is the **clipped** rows' mean: the
  interval says nothing of the clipping bias (Karwa & Vadhan 2018, §1, on why a private
  interval for the population needs more than the noise).
* **Weyl bound** (GaussCov's eigenvalues, Amin, Dick, Kulesza, Muñoz Medina & Vassilvitskii
  2019, Algorithm 1): the noise is σ·E with E symmetric Gaussian, and the released spectrum is
  the noisy one clamped to [0, r²]; by Weyl's inequality and since the clamp is 1-Lipschitz
  and the target's eigenvalues lie in [0, r²], every ``|λ̃ᵢ − λᵢ| ≤ σ‖E‖₂``. The half-width is
  σ times the 90 % quantile of ‖E‖₂ (simulated from E's public law), so the intervals hold
  **together** with probability ≥ 90 % — for the clipped rows' second moment XᵀX/n.
* **parametric bootstrap** (DP-EM's mixture means and weights; Efron & Tibshirani 1993,
  §6.5; Ferrando, Wang & Sheldon 2022, "Parametric bootstrap for differentially private
  confidence intervals", AISTATS, Algorithm 1): :data:`DRAWS` data sets of the public n are
  drawn from the *released* mixture and the estimator is re-run on each at the same budget,
  bound and parameters; the interval is ``θ̃ ± Φ⁻¹(0.95)·sd*`` per coordinate and the
  ellipse ``{x : (x − μ̃)ᵀ C*⁻¹ (x − μ̃) ≤ χ²₂(0.9)}`` with sd*, C* the bootstrap estimates'
  spread (components matched to the released ones). It covers the **true** component means
  and weights where the bench measured it (generated mixtures), and says nothing of runs that
  found the wrong clusters beyond what its measured coverage includes.
"""

from __future__ import annotations

import functools
import json
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpviz.estimators.registry import estimator as registered
from dpviz.estimators.result import Result, to_json_value
from dpviz.lab.provenance import RESULTS
from dpviz.lab.scenario import Scenario

#: The level every interval is stated at.
LEVEL = 0.9
#: Φ⁻¹(0.95): a Gaussian's two-sided 90 % quantile (the standard library's, not scipy.stats:
#: a page that shows a closed form does not pay scipy.stats's second of import).
Z = statistics.NormalDist().inv_cdf(0.5 + LEVEL / 2)
#: χ²₂'s 90 % quantile, −2 ln(1 − 0.9) (two degrees of freedom: an exponential of mean 2).
CHI2_2 = -2 * math.log(1 - LEVEL)
#: The measured coverage below which no interval is shown (issue 32: ≥ 88 % for 90 %).
THRESHOLD = 0.88
#: The sentence shown instead of an interval where coverage was not measured high enough.
NO_INTERVAL = "no interval: coverage not established"
#: The coverage table ``bench/intervals.py --save`` writes.
COVERAGE_PATH = RESULTS / "interval_coverage.json"
#: Bootstrap re-runs per interval: at the /gmm defaults (n = 10 000) about 0.4 s.
DRAWS = 30
#: The bootstrap's own noise: public, fixed, so the same release gives the same interval.
BOOTSTRAP_SEED = 20_261_130
#: Draws of the symmetric Gaussian noise's spectral norm for its quantile (the Weyl bound),
#: up to d = 10; fewer above (each costs d³), never under :data:`MIN_NORM_DRAWS`: ‖E‖₂
#: concentrates as d grows (its spread shrinks like d^(−1/6) against its 2√d), so a few
#: hundred draws place the quantile within a fraction of a per cent.
NORM_DRAWS = 4_000
MIN_NORM_DRAWS = 300
#: The largest d whose norm quantile is simulated (about 0.6 s there, on one core); above, no
#: interval on the eigenvalues.
MAX_WEYL_D = 100
#: The budget keys of a scenario's params (everything else is the estimator's own).
BUDGET_KEYS = frozenset({"epsilon", "delta", "rho", "accounting", "seed", "radius",
                         "paper_mode"})
#: The generated mixture's keys that define a measured family (with the estimator, accounting
#: and δ); n and ε are measured on a grid.
FAMILY_KEYS = ("k", "d", "separation", "weights", "covariance")

#: What each kind of interval covers, and what not, in plain words.
COVERS = {
    "closed form": ("the mean of the rows as the estimator saw them (clipped to the public "
                    "bound) — not the bias clipping adds, and not the population's mean"),
    "weyl": ("every eigenvalue of the clipped rows' second moment XᵀX/n, together — not the "
             "bias clipping adds"),
    "bootstrap": ("the true component means and weights, as measured on generated mixtures "
                  "of this shape — not the bias of a bound that clips, and a run that found "
                  "the wrong clusters can miss"),
}


@dataclass(frozen=True)
class Interval:
    """One released value and its interval ``value ± half_width`` at :data:`LEVEL`.

    Examples
    --------
    >>> Interval("means[1][1]", 5.3128, 0.4172).text()
    '5.31 ± 0.42 (90 %)'
    """

    name: str
    value: float
    half_width: float

    def text(self) -> str:
        """``"5.31 ± 0.42 (90 %)"``: the value to the half-width's precision (2 figures)."""
        decimals = max(0, 1 - math.floor(math.log10(self.half_width))) if (
            self.half_width > 0 and math.isfinite(self.half_width)) else 3
        return f"{self.value:.{decimals}f} ± {self.half_width:.{decimals}f} ({percent(LEVEL)})"

    def to_dict(self) -> dict[str, Any]:
        """JSON form: name, value, low, high, half width."""
        return {"name": self.name, "value": self.value, "half_width": self.half_width,
                "low": self.value - self.half_width, "high": self.value + self.half_width}


@dataclass(frozen=True)
class Intervals:
    """A result's intervals, or why it has none.

    Attributes
    ----------
    method : str or None
        ``"closed form"``, ``"weyl"`` or ``"bootstrap"``; ``None`` when none is shown.
    rows : tuple of Interval
        One per released coordinate that has an interval.
    reason : str or None
        :data:`NO_INTERVAL` and why (``None`` when intervals are shown).
    coverage : float or None
        The lowest coverage measured over the settings this run lies in.
    ellipses : mapping
        For 2-D intervals of means, where their joint coverage (part ``ellipse``) was measured
        ≥ :data:`THRESHOLD`: ``"centres"`` (k × d) and ``"shapes"`` (k × d × d); the region is
        ``{x : (x − c)ᵀ S⁻¹ (x − c) ≤ 1}`` on the first two coordinates' sub-matrix.
    """

    method: str | None
    rows: tuple[Interval, ...] = ()
    reason: str | None = None
    coverage: float | None = None
    ellipses: Mapping[str, Any] = field(default_factory=dict)

    @property
    def shown(self) -> bool:
        """Whether there are intervals to show."""
        return self.method is not None and bool(self.rows)

    def sentence(self) -> str:
        """What the intervals cover and what not, in one plain sentence (or the reason)."""
        if not self.shown:
            return str(self.reason)
        measured = (f" (measured: at least {percent(self.coverage)} of simulated releases "
                    "covered)" if self.coverage is not None else "")
        return (f"Each ± is a {percent(LEVEL)} interval computed from the released values and "
                f"the known noise alone, so it costs no privacy{measured}. It covers "
                f"{COVERS[str(self.method)]}.")

    def by_name(self) -> dict[str, Interval]:
        """The intervals under their names."""
        return {row.name: row for row in self.rows}

    def to_dict(self) -> dict[str, Any]:
        """The run JSON's ``intervals``."""
        return to_json_value({"level": LEVEL, "method": self.method,
                              "shown": self.shown, "sentence": self.sentence(),
                              "coverage": self.coverage,
                              "values": [row.to_dict() for row in self.rows],
                              **({"ellipses": dict(self.ellipses)} if self.ellipses else {})})


def percent(share: float) -> str:
    """``0.9`` → ``"90 %"``.

    Examples
    --------
    >>> percent(0.9), percent(0.885)
    ('90 %', '88.5 %')
    """
    return f"{100 * share:.3g} %"


def none(why: str) -> Intervals:
    """No interval, with :data:`NO_INTERVAL` and ``why``."""
    return Intervals(None, reason=f"{NO_INTERVAL} ({why})")


# --- the coverage table -------------------------------------------------------------------

@functools.cache
def _table(path: Path) -> tuple[Mapping[str, Any], ...]:
    if not path.exists():
        return ()
    return tuple(json.loads(path.read_text()).get("rows", ()))


def coverage_rows(path: Path | None = None) -> tuple[Mapping[str, Any], ...]:
    """The measured settings (default: :data:`COVERAGE_PATH`'s).

    Each has ``task``, ``estimator``, ``family``, ``n``, ``epsilon``, ``releases`` and
    ``coverage`` (by part: ``mean``, ``ellipse``, ``eigenvalues``, ``means``, ``weights``).
    """
    return _table(COVERAGE_PATH if path is None else path)


def _lowest(rows: Sequence[Mapping[str, Any]], part: str) -> float | None:
    values = [float(r["coverage"][part]) for r in rows if part in r["coverage"]]
    return min(values) if values else None


def _bracket(grid: Sequence[float], value: float) -> tuple[float, ...] | None:
    """The measured grid values on either side of ``value`` (one if it is on the grid)."""
    points = sorted(set(grid))
    if not points or not points[0] <= value <= points[-1]:
        return None
    on = [p for p in points if math.isclose(p, value, rel_tol=1e-9)]
    if on:
        return (on[0],)
    return (max(p for p in points if p < value), min(p for p in points if p > value))


def measured(task: str, estimator: str, part: str, *, family: Mapping[str, Any] | None = None,
             n: int | None = None, epsilon: float | None = None,
             rows: Sequence[Mapping[str, Any]] | None = None) -> float | None:
    """The coverage measured for this setting: the lowest over the settings it lies between.

    Without ``family`` (closed forms, whose coverage depends on the noise alone) every
    measured setting of the estimator counts. With one, the run's (n, ε) must lie inside the
    grid measured for that family, and the lowest coverage of the grid points around it is
    returned. ``None``: not measured.

    Examples
    --------
    >>> rows = [{"task": "mean", "estimator": "gaussian", "n": 100, "epsilon": 1.0,
    ...          "coverage": {"mean": 0.9}, "family": {}},
    ...         {"task": "mean", "estimator": "gaussian", "n": 10000, "epsilon": 4.0,
    ...          "coverage": {"mean": 0.87}, "family": {}}]
    >>> measured("mean", "gaussian", "mean", rows=rows)
    0.87
    >>> measured("mean", "laplace", "mean", rows=rows) is None
    True
    """
    rows = coverage_rows() if rows is None else rows
    mine = [r for r in rows if r["task"] == task and r["estimator"] == estimator]
    if family is None:
        return _lowest(mine, part)
    mine = [r for r in mine if r.get("family") == dict(family)]
    if n is None or epsilon is None or not mine:
        return None
    ns = _bracket([float(r["n"]) for r in mine], float(n))
    eps = _bracket([float(r["epsilon"]) for r in mine], float(epsilon))
    if ns is None or eps is None:
        return None
    corners = [r for r in mine if any(math.isclose(r["n"], a) for a in ns)
               and any(math.isclose(r["epsilon"], e) for e in eps)]
    if len(corners) < len(ns) * len(eps):
        return None
    return _lowest(corners, part)


# --- the three kinds ----------------------------------------------------------------------

def _label(result: Result) -> str:
    """The estimator's label in plain words (never its registry key)."""
    return str(registered(result.task, result.estimator).label)


def _last_release(result: Result) -> Any:
    return result.ledger.releases[-1]


def mean_intervals(result: Result, rows: Sequence[Mapping[str, Any]] | None = None
                   ) -> Intervals:
    """Closed-form intervals on a ``mean`` result: ``released ± q·scale`` per coordinate.

    The last release is the mean plus noise of the recorded scale (for CoinPress in units of
    ``choices["scale"]``); the ellipse (Gaussian noise) is the disc of radius
    ``σ·√χ²₂(0.9)``.

    Examples
    --------
    >>> from dpviz import run
    >>> r = run("mean", "gaussian", [[0.1, 0.2], [0.3, 0.4]], epsilon=1.0, delta=1e-5, seed=0)
    >>> rows = [{"task": "mean", "estimator": "gaussian", "coverage": {"mean": 0.9}}]
    >>> iv = mean_intervals(r, rows)
    >>> sigma = r.ledger.releases[-1].scale
    >>> round(iv.rows[0].half_width / sigma, 4)
    1.6449
    """
    coverage = measured("mean", result.estimator, "mean", rows=rows)
    if coverage is None or coverage < THRESHOLD:
        return none(f"{_label(result)}: measured coverage "
                    f"{'none' if coverage is None else percent(coverage)}")
    last = _last_release(result)
    scale = float(last.scale) * float(result.choices.get("scale", 1.0))
    gaussian = last.mechanism in ("gaussian", "symmetric_gaussian")
    q = Z if gaussian else math.log(1 / (1 - LEVEL))
    mean = np.atleast_1d(np.asarray(result.estimate["mean"], dtype=float))
    out = tuple(Interval(f"mean[{i + 1}]", float(v), q * scale) for i, v in enumerate(mean))
    ellipses = {}
    ellipse = measured("mean", result.estimator, "ellipse", rows=rows)
    if gaussian and mean.size >= 2 and ellipse is not None and ellipse >= THRESHOLD:
        radius2 = CHI2_2 * scale**2
        ellipses = {"centres": mean[None], "shapes": radius2 * np.eye(mean.size)[None]}
    return Intervals("closed form", out, coverage=coverage, ellipses=ellipses)


@functools.cache
def spectral_quantile(d: int, level: float = LEVEL) -> float:
    """The ``level`` quantile of ‖E‖₂, GaussCov's symmetric noise at σ = 1.

    E has i.i.d. N(0, 1) entries on and above the diagonal, mirrored below; the quantile is
    read off :data:`NORM_DRAWS` draws with a fixed seed (fewer above d = 10, at least
    :data:`MIN_NORM_DRAWS`), drawn in blocks so memory stays under 10 MB.

    Examples
    --------
    >>> 1.0 < spectral_quantile(1) < 1.8  # |N(0, 1)|'s 90 % quantile is 1.645
    True
    """
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = max(MIN_NORM_DRAWS, min(NORM_DRAWS, NORM_DRAWS * 10**3 // d**3))
    block = max(1, min(draws, 10**6 // d**2))
    norms = []
    for start in range(0, draws, block):
        upper = np.triu(rng.standard_normal((min(block, draws - start), d, d)))
        e = upper + np.transpose(np.triu(upper, 1), (0, 2, 1))
        norms.append(np.abs(np.linalg.eigvalsh(e)).max(axis=1))
    return float(np.quantile(np.concatenate(norms), level))


def eigenvalue_intervals(result: Result, rows: Sequence[Mapping[str, Any]] | None = None
                         ) -> Intervals:
    """Weyl-bound intervals on GaussCov's eigenvalues (see the module docstring).

    Examples
    --------
    >>> from dpviz import run
    >>> x = np.random.default_rng(0).normal(size=(500, 3)) * 0.3
    >>> r = run("covariance", "gauss", x, rho=0.5, seed=0)
    >>> rows = [{"task": "covariance", "estimator": "gauss", "coverage": {"eigenvalues": 0.95}}]
    >>> iv = eigenvalue_intervals(r, rows)
    >>> len(iv.rows), iv.method
    (3, 'weyl')
    """
    last = _last_release(result)
    if last.mechanism != "symmetric_gaussian":
        return none("the eigenvalues' bound needs Gaussian noise (zCDP); LapCov's is not "
                    "measured")
    coverage = measured("covariance", result.estimator, "eigenvalues", rows=rows)
    if coverage is None or coverage < THRESHOLD:
        return none(f"{_label(result)}'s eigenvalues: measured coverage "
                    f"{'none' if coverage is None else percent(coverage)}")
    covariance = np.asarray(result.estimate["covariance"], dtype=float)
    if covariance.shape[0] > MAX_WEYL_D:
        return none(f"the noise's norm is simulated only up to d = {MAX_WEYL_D}")
    values = np.linalg.eigvalsh(covariance)[::-1]
    half = float(last.scale) * spectral_quantile(covariance.shape[0])
    return Intervals("weyl", tuple(Interval(f"eigenvalues[{i + 1}]", float(v), half)
                                   for i, v in enumerate(values)), coverage=coverage)


def family_of(scenario: Scenario) -> dict[str, Any] | None:
    """The measured family a mixture scenario belongs to, or ``None``.

    ``None``: not a generated mixture, a bound or ρ given, or an estimator parameter moved
    from its default. The family is the generator's shape (:data:`FAMILY_KEYS`) with the
    accounting and δ: the bootstrap's coverage depends on how separated the clusters are, so
    it is measured per shape, not assumed.
    """
    from dpviz.estimators.registry import estimator as lookup

    data = scenario.data
    if data.get("generator") != "gmm":
        return None
    entry = lookup(scenario.task, scenario.estimator)
    defaults = {p.name: p.default for p in entry.params}
    own = {k: v for k, v in scenario.params.items() if k not in BUDGET_KEYS and k != "k"}
    if any(name in defaults and value != defaults[name] for name, value in own.items()):
        return None
    if scenario.params.get("radius") is not None or scenario.params.get("rho") is not None:
        return None
    return {**{key: data[key] for key in FAMILY_KEYS},
            "accounting": scenario.params.get("accounting") or "zcdp",
            "delta": float(scenario.params.get("delta") or 0.0)}


def _draw_mixture(weights: NDArray[np.float64], means: NDArray[np.float64],
                  covariances: NDArray[np.float64], n: int,
                  rng: np.random.Generator) -> NDArray[np.float64]:
    labels = rng.choice(len(weights), size=n, p=weights / weights.sum())
    d = means.shape[1]
    roots = np.linalg.cholesky(covariances + 1e-12 * np.eye(d))
    return means[labels] + np.einsum("nij,nj->ni", roots[labels], rng.standard_normal((n, d)))


def match_to(reference: NDArray[np.float64], means: NDArray[np.float64]) -> NDArray[np.intp]:
    """The order of ``means``'s components that puts each beside ``reference``'s.

    The Hungarian algorithm on squared distances (Kuhn 1955).
    """
    from scipy.optimize import linear_sum_assignment  # here: only the bootstrap pays for it

    rows, cols = linear_sum_assignment(((reference[:, None] - means[None]) ** 2).sum(axis=-1))
    order = np.empty(len(reference), dtype=np.intp)
    order[rows] = cols
    return order


def bootstrap_replicates(scenario: Scenario, result: Result, n: int,
                         draws: int = DRAWS) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The estimator re-run on ``draws`` data sets of n rows from the released mixture.

    Same budget, public bound (``choices["radius"]``) and parameters; components matched to
    the released ones. Returns the means (draws × k × d) and weights (draws × k). The
    re-runs' ledgers are simulations on made-up data, never charged.
    """
    from dpviz.estimators.run import run

    weights, means, covariances = (np.asarray(result.estimate[key], dtype=float)
                                   for key in ("weights", "means", "covariances"))
    rng = np.random.default_rng([BOOTSTRAP_SEED, n])
    params = {key: value for key, value in scenario.params.items()
              if key not in ("seed", "radius") and value is not None}
    params.update(k=len(weights), radius=float(result.choices["radius"]))
    boot_means, boot_weights = [], []
    for _ in range(draws):
        x = _draw_mixture(weights, means, covariances, n, rng)
        again = run(scenario.task, scenario.estimator, x, rng=rng, **params)
        if again.failed:
            continue
        order = match_to(means, np.asarray(again.estimate["means"]))
        boot_means.append(np.asarray(again.estimate["means"])[order])
        boot_weights.append(np.asarray(again.estimate["weights"])[order])
    return np.array(boot_means), np.array(boot_weights)


def mixture_intervals(scenario: Scenario, result: Result, n: int,
                      rows: Sequence[Mapping[str, Any]] | None = None,
                      draws: int = DRAWS) -> Intervals:
    """Parametric-bootstrap intervals on a mixture's means and weights (module docstring).

    Shown only for a generated mixture in a family and (n, ε) range whose coverage was
    measured ≥ :data:`THRESHOLD` for both the means and the weights.
    """
    family = family_of(scenario)
    if family is None:
        return none("measured only on generated mixtures, with the estimator's defaults and "
                    "the generator's own bound")
    epsilon = scenario.params.get("epsilon")
    found = [measured("gmm", scenario.estimator, part, family=family, n=n,
                      epsilon=None if epsilon is None else float(epsilon), rows=rows)
             for part in ("means", "weights")]
    if any(c is None for c in found):
        label = registered(scenario.task, scenario.estimator).label
        return none(f"{label} was not measured at this shape, n and ε")
    coverage = min(c for c in found if c is not None)
    if coverage < THRESHOLD:
        return none(f"measured {percent(coverage)} of simulated releases covered here")
    boot_means, boot_weights = bootstrap_replicates(scenario, result, n, draws)
    if len(boot_means) < max(3, draws // 2):
        return none("most bootstrap re-runs failed")
    means = np.asarray(result.estimate["means"], dtype=float)
    weights = np.asarray(result.estimate["weights"], dtype=float)
    sd_means, sd_weights = boot_means.std(axis=0, ddof=1), boot_weights.std(axis=0, ddof=1)
    out = [Interval(f"weights[{j + 1}]", float(weights[j]), Z * float(sd_weights[j]))
           for j in range(len(weights))]
    out += [Interval(f"means[{j + 1}][{i + 1}]", float(means[j, i]), Z * float(sd_means[j, i]))
            for j in range(means.shape[0]) for i in range(means.shape[1])]
    ellipses = {}
    ellipse = measured("gmm", scenario.estimator, "ellipse", family=family, n=n,
                       epsilon=float(epsilon), rows=rows)  # type: ignore[arg-type]
    if ellipse is not None and ellipse >= THRESHOLD:
        centred = boot_means - boot_means.mean(axis=0)
        spread = np.einsum("bki,bkj->kij", centred, centred) / (len(boot_means) - 1)
        ellipses = {"centres": means, "shapes": CHI2_2 * spread}
    return Intervals("bootstrap", tuple(out), coverage=coverage, ellipses=ellipses)


def intervals(scenario: Scenario, result: Result, n: int,
              rows: Sequence[Mapping[str, Any]] | None = None) -> Intervals:
    """The intervals of a run's released values (:data:`NO_INTERVAL` where not established).

    Parameters
    ----------
    scenario : Scenario
        The run's public inputs (task, estimator, data block, budget, parameters).
    result : Result
        Its answer; only the released values, the ledger's noise scales and ``choices`` are
        read.
    n : int
        The number of rows (public).
    rows : sequence of mapping, optional
        The coverage table (default :data:`COVERAGE_PATH`'s).

    Returns
    -------
    Intervals
        Charging nothing: the result's ledger is not touched.
    """
    if result.failed:
        return none("the run gave no answer (⊥)")
    if result.not_private:
        return none("the run is not private; its intervals were not measured")
    if not result.ledger.releases:
        return none("nothing was released with noise")
    if scenario.data.get("bounds") is not None:
        return none("a table's ranges rescale the release; not measured")
    if scenario.task == "mean":
        return mean_intervals(result, rows)
    if scenario.task == "covariance" and scenario.estimator == "gauss":
        return eigenvalue_intervals(result, rows)
    if scenario.task == "gmm" and scenario.estimator == "dp_em":
        return mixture_intervals(scenario, result, n, rows)
    return none(f"{registered(scenario.task, scenario.estimator).label} was not measured")
