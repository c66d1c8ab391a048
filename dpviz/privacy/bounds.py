"""Public bounds and clipping (ALGORITHMS.md §1.3).

A sensitivity needs a public bound: a ball ``B(c, R)`` every row is clipped into before
anything is computed. A bound read from the data is not private; the result then carries
``not_private`` with the reason, and a :class:`PrivacyLeakWarning` is issued.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
from dpviz.privacy.budget import Budget
from dpviz.privacy.errors import PrivacyLeakWarning

DATA_BOUND_REASON = "bound read from the data"


@dataclass(frozen=True)
class Ball:
    """The public ball ``B(center, radius)`` rows are clipped into.

    Attributes
    ----------
    center : ndarray
        Its centre (d,).
    radius : float
        Its radius.
    source : {"public", "default", "data"}
        ``public``: given by the user; ``default``: the unit ball, assumed; ``data``: read
        from the data (not private).
    """

    center: NDArray[np.float64]
    radius: float
    source: str = "public"

    @property
    def not_private(self) -> str | None:
        """The reason the guarantee fails, or ``None``."""
        return DATA_BOUND_REASON if self.source == "data" else None

    def to_unit(self, x: ArrayLike) -> NDArray[np.float64]:
        """Clip rows into the ball, then map it onto the unit ball: ``(x − c)/R``.

        Estimators work on the unit ball, where the sensitivities are stated, and map their
        releases back with :meth:`from_unit` and :meth:`covariance_from_unit` (post-processing).

        Examples
        --------
        >>> ball = Ball(np.array([1.0, 1.0]), 2.0)
        >>> ball.to_unit([[1.0, 5.0]]).tolist()
        [[0.0, 1.0]]
        """
        return (clip_to_ball(x, self.center, self.radius) - self.center) / self.radius

    def from_unit(self, points: ArrayLike) -> NDArray[np.float64]:
        """Map points (e.g. released means) from the unit ball back to data units."""
        return self.center + self.radius * np.asarray(points, dtype=float)

    def covariance_from_unit(self, covariances: ArrayLike) -> NDArray[np.float64]:
        """Map covariance matrices from unit-ball units back to data units (× R²)."""
        return self.radius**2 * np.asarray(covariances, dtype=float)

    def describe(self) -> str:
        """Say what the bound is and where it came from."""
        where = {"public": "public, given", "default": "default unit ball — no bound was given",
                 "data": "read from the data — not private"}[self.source]
        return f"rows clipped to a ball of radius {self.radius:g} ({where})"


def clip_to_ball(x: ArrayLike, center: ArrayLike, radius: float) -> NDArray[np.float64]:
    """``x ← c + (x − c)·min(1, R/‖x − c‖)`` row by row.

    Examples
    --------
    >>> clip_to_ball([[3.0, 4.0], [0.1, 0.0]], [0.0, 0.0], 1.0).round(2).tolist()
    [[0.6, 0.8], [0.1, 0.0]]
    """
    rows = np.atleast_2d(np.asarray(x, dtype=float))
    c = np.asarray(center, dtype=float)
    offset = rows - c
    norms = np.linalg.norm(offset, axis=1, keepdims=True)
    factor = np.ones_like(norms)
    over = norms > radius
    factor[over] = radius / norms[over]
    return c + offset * factor


#: A row counts as clipped when its norm exceeds R by more than this relative rounding margin:
#: rows scaled to norm exactly R come out as R(1 + 1e-16). (Clipping itself still scales them.)
CLIP_COUNT_TOLERANCE = 1e-12


def count_outside(norms: ArrayLike, radius: float) -> int:
    """How many rows the page should report as clipped: norm > R beyond rounding.

    Examples
    --------
    >>> count_outside([1.0 + 1e-16, 1.5, 0.2], 1.0)
    1
    """
    return int(np.count_nonzero(np.asarray(norms, dtype=float)
                                > radius * (1.0 + CLIP_COUNT_TOLERANCE)))


def resolve_ball(x: NDArray[np.float64], radius: float | str | None,
                 center: ArrayLike | None = None) -> Ball:
    """Turn the user's ``radius`` into a :class:`Ball`.

    Parameters
    ----------
    x : ndarray
        The data (n × d); read only when ``radius == "data"``.
    radius : float, "data" or None
        A public radius; ``None`` for the unit ball (the result's ``choices`` say so);
        ``"data"`` to read the smallest ball about ``center`` containing every row (not private).
    center : array-like, optional
        The public centre (default the origin).
    """
    d = x.shape[1]
    c = np.zeros(d) if center is None else np.asarray(center, dtype=float)
    if radius is None:
        return Ball(c, 1.0, "default")
    if isinstance(radius, str):
        if radius.strip().lower() != "data":
            try:
                radius = float(radius)
            except ValueError:
                raise ValueError(
                    f"radius must be a positive number or 'data', got {radius!r}") from None
        else:
            warnings.warn(f"not private: {DATA_BOUND_REASON}", PrivacyLeakWarning, stacklevel=2)
            r = float(np.max(np.linalg.norm(x - c, axis=1))) if len(x) else 1.0
            return Ball(c, r if r > 0 else 1.0, "data")
    return Ball(c, limits.RADIUS.check(radius), "public")



# --- The bound of a user's own table: ranges typed, estimated privately, or read from the data

#: How a table's bound is chosen (a data block's ``bounds``): per-column ranges the user types,
#: ranges estimated privately with a share of the budget, ranges read from the data.
BOUND_KINDS = ("ranges", "private", "data")
#: The quantiles a private range estimates in each column. Extreme ones (1 %, 99 %) fail at
#: small n: every candidate beyond the data scores only ``q·n`` below the best, and there are
#: hundreds of them; 5 % and 95 % score ``0.05·n`` below it.
PRIVATE_QUANTILES = (0.05, 0.95)
#: The exponential mechanism finds a quantile q when the ``|QUANTILE_GRID|`` candidates beyond
#: the data, each ``min(q, 1 − q)·n`` below the best, weigh less than this share of it:
#: ``ε·min(q, 1 − q)·n/2 ≥ ln |grid| + ln(1/share)``.
QUANTILE_MISS = 1e-2
#: Below that for the 5 % and 95 % quantiles (at 20 % of ε = 1 and d = 2: under about 9 700
#: rows), the ranges come from medians instead (:func:`median_box`): each column's private
#: median ``mⱼ``, and one private quantile of the rows' largest column gap
#: ``maxⱼ |xⱼ − mⱼ|``. The gap's quantile is the highest of these found at the public n and ε,
#: and each column's range is ``mⱼ ±`` its factor times the gap: the factors take a normal
#: column (d = 1) to about ±2.7σ … ±2.9σ (more for d > 1, whose largest gap is larger).
#: Measured on the issue's 500-row, 3-cluster table at 20 % of ε = 1, seeds 0–9: the
#: 5 %/95 % ranges had radii of 500 to 10⁶ on every seed (at 5 000 rows too); these 163–205 on
#: nine seeds and 13 261 on one (the data's own: 70), clipping no row.
GAP_QUANTILES = MappingProxyType({0.9: 1.75, 0.75: 2.5, 0.5: 4.0})
#: Each end of a private range moves out by this share of its width (post-processing), so
#: the 5 % of rows beyond each quantile are mostly kept (about 1.4 % clipped for a normal).
PRIVATE_MARGIN = 0.25
#: The public candidates of a private quantile: 0 and ±10^e for e = −3, −2.99, …, 6 (2.3 %
#: apart). Fixed in advance and the same for every data set, so choosing among them is private.
QUANTILE_GRID: NDArray[np.float64] = np.concatenate(
    [-(10.0 ** np.arange(6.0, -3.005, -0.01)), [0.0], 10.0 ** np.arange(-3.0, 6.005, 0.01)])
QUANTILE_GRID.flags.writeable = False
#: The gap's candidates: the grid's positive values (a distance is never negative).
GAP_GRID: NDArray[np.float64] = QUANTILE_GRID[QUANTILE_GRID > 0]
GAP_GRID.flags.writeable = False
#: The largest magnitude a typed range may have (larger values overflow squared norms).
RANGE_LIMIT = 1e12
#: What a user must know about typed ranges.
TYPED_HINT = ("typed ranges must come from what you know about the columns (their units, an "
              "instrument's or a form's range), never from looking at the data")
#: How the clipped-rows count is labelled wherever it is shown.
CLIPPED_NOTE = ("not private: a teaching diagnostic computed from the data, not released and "
                "not charged to the budget")
_HOW = MappingProxyType({"ranges": "per-column ranges typed by the user (public, given)",
        "private": "per-column ranges estimated privately{share} (charged on the run's ledger)",
        "data": "per-column ranges read from the data — not private"})


@dataclass(frozen=True)
class Box:
    """Per-column ranges ``[low_j, high_j]`` a table's cells are clipped into.

    The estimators see ``(clip(x) − center)/scale``, which lies in the ball of radius
    :attr:`radius` about the origin (their public bound), and their releases are mapped back
    to the table's units by :meth:`map_estimate` (post-processing).

    Attributes
    ----------
    low, high : ndarray
        The ranges (d,), ``low < high``.
    source : {"ranges", "private", "data"}
        Typed by the user, estimated privately, or read from the data (not private).
    standardise : bool
        Scale every column to ``[−1, 1]`` (by the ranges' half-widths, public or private
        constants); otherwise the columns keep their units and are only centred.

    Examples
    --------
    >>> box = Box(np.array([0.0, 0.0]), np.array([100.0, 10.0]), "ranges")
    >>> box.prepare([[150.0, 5.0]]).tolist(), round(box.radius, 3)
    ([[50.0, 0.0]], 50.249)
    >>> box.map_estimate({"mean": np.zeros(2)})["mean"].tolist()
    [50.0, 5.0]
    """

    low: NDArray[np.float64]
    high: NDArray[np.float64]
    source: str
    standardise: bool = False

    @property
    def center(self) -> NDArray[np.float64]:
        """The ranges' midpoints."""
        return (self.low + self.high) / 2

    @property
    def scale(self) -> NDArray[np.float64]:
        """Per-column divisors: the half-widths when standardising, else ones."""
        half = (self.high - self.low) / 2
        return half if self.standardise else np.ones_like(half)

    @property
    def radius(self) -> float:
        """The public radius of the prepared rows: the norm of the scaled half-widths."""
        return float(np.linalg.norm((self.high - self.low) / 2 / self.scale))

    @property
    def not_private(self) -> str | None:
        """The reason the guarantee fails (ranges read from the data), or ``None``."""
        return DATA_BOUND_REASON if self.source == "data" else None

    def prepare(self, x: ArrayLike) -> NDArray[np.float64]:
        """Clip every cell into its column's range, centre, and scale (a row-wise map)."""
        return (np.clip(np.asarray(x, dtype=float), self.low, self.high) - self.center) \
            / self.scale

    def clipped_rows(self, x: ArrayLike) -> int:
        """How many rows have a cell outside its range: not private (:data:`CLIPPED_NOTE`)."""
        rows = np.asarray(x, dtype=float)
        return int(np.count_nonzero(((rows < self.low) | (rows > self.high)).any(axis=1)))

    def map_estimate(self, values: Any) -> dict[str, Any]:
        """Releases (or diagnostics) in the prepared units back in the table's units.

        Locations (``mean``, ``means``, ``true_mean``, ``start_centres``; grid means'
        ``centres``, every step's, and its grid's box ``grid_low``, ``grid_high``) get
        ``center + scale·m``; grid means' ``radii`` become per-column half-axes ``r·scale``
        (steps × d: a radius's ball is an ellipse in the table's units); second moments
        (``covariance``, ``covariances``) ``S·C·S`` (a covariance task's matrix is then the
        second moment about :attr:`center`); ``loadings`` are scaled row-wise,
        ``noise_variances`` by ``scale²``; a mixture's trajectory step by step. Other entries
        are kept.
        """
        c, s = self.center, self.scale
        out: dict[str, Any] = {}
        for key, value in dict(values).items():
            if value is None:
                out[key] = value
            elif key in ("mean", "means", "true_mean", "start_centres", "centres", "grid_low",
                         "grid_high"):
                out[key] = c + s * np.asarray(value, dtype=float)
            elif key == "radii":
                out[key] = np.multiply.outer(np.asarray(value, dtype=float), s)
            elif key in ("covariance", "covariances", "true_covariance"):
                out[key] = np.asarray(value, dtype=float) * np.multiply.outer(s, s)
            elif key == "loadings":
                out[key] = np.asarray(value, dtype=float) * s[:, None]
            elif key == "noise_variances":
                out[key] = np.asarray(value, dtype=float) * s**2
            elif key == "trajectory":
                out[key] = tuple(replace(step, **self.map_estimate(
                    {"means": step.means, "covariances": step.covariances})) for step in value)
            else:
                out[key] = value
        return out

    def ranges(self) -> list[list[float]]:
        """The ranges as ``[[low, high], …]`` (a data block's ``ranges``)."""
        return [[float(a), float(b)] for a, b in zip(self.low, self.high, strict=True)]

    def describe(self, share: float | None = None) -> str:
        """Say how the bound was found, and what the estimators' radius is.

        ``share``: the share of the budget private ranges spent, said when given.

        Examples
        --------
        >>> Box(np.zeros(2), np.ones(2), "private").describe(share=0.2)[:60]
        'per-column ranges estimated privately with 20% of the budget'
        """
        spent = "" if share is None else f" with {share:.0%} of the budget"
        scaled = ("each column scaled to [−1, 1] by its range" if self.standardise else
                  "columns centred, in their own units")
        return (f"{_HOW[self.source].format(share=spent)}; {scaled}; rows then lie within "
                f"radius {self.radius:.4g}")


def parse_bounds(value: Any, d: int | None = None) -> dict[str, Any] | None:
    """A table's bound choice, checked: ``None`` or a block of one of :data:`BOUND_KINDS`.

    ``{"ranges": [[low, high], …]}``, ``{"private": share}`` or ``{"data": True}``, each with
    ``"standardise"`` (true or false).

    Strings are the command line's: ``"data"``, ``"private:0.1"`` (a tenth of the budget),
    ``"0:100,0:100"`` (one ``low:high`` per column).

    Parameters
    ----------
    value : str, mapping or None
    d : int, optional
        The number of columns, when known: typed ranges must give one per column.

    Raises
    ------
    ValueError
        One sentence naming the problem.

    Examples
    --------
    >>> parse_bounds("private:0.1")
    {'private': 0.1, 'standardise': False}
    >>> parse_bounds("0:100, -5:5")["ranges"]
    [[0.0, 100.0], [-5.0, 5.0]]
    >>> parse_bounds("5:1")
    Traceback (most recent call last):
    ...
    ValueError: bounds: column 1's range must have low < high, got 5 and 1
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "data":
            value = {"data": True}
        elif text.startswith("private"):
            _, sep, part = text.partition(":")
            value = {"private": part if sep else None}
        else:
            pairs = [part.split(":") for part in text.split(",")]
            if any(len(p) != 2 for p in pairs):
                raise ValueError("bounds must be 'data', 'private:SHARE' (e.g. private:0.1) or "
                                 f"one low:high per column (e.g. 0:100,0:100), got {value!r}")
            value = {"ranges": pairs}
    if not isinstance(value, Mapping):
        raise ValueError(f"bounds must be one of {', '.join(BOUND_KINDS)}, got {value!r}")
    kinds = [k for k in BOUND_KINDS if k in value]
    extra = set(map(str, value)) - {*BOUND_KINDS, "standardise"}
    if len(kinds) != 1 or extra:
        raise ValueError(f"bounds need exactly one of {', '.join(BOUND_KINDS)} (and optionally "
                         f"standardise), got {', '.join(sorted(map(str, value))) or 'none'}")
    standardise = value.get("standardise", False)
    if not isinstance(standardise, bool):
        raise ValueError(f"bounds' standardise must be true or false, got {standardise!r}")
    kind = kinds[0]
    if kind == "data":
        return {"data": True, "standardise": standardise}
    if kind == "private":
        given = value["private"]
        if given is None:
            raise ValueError("private bounds need the share of the budget they spend, e.g. "
                             "private:0.1 for 10 %")
        try:
            share = float(given)
        except (TypeError, ValueError):
            raise ValueError(f"the private bounds' share must be a number between 0 and 1, got "
                             f"{given!r}") from None
        if not 0 < share < 1:
            raise ValueError(f"the private bounds' share of the budget must be > 0 and < 1, got "
                             f"{share:g}")
        return {"private": share, "standardise": standardise}
    ranges = value["ranges"]
    if not isinstance(ranges, list | tuple) or not ranges:
        raise ValueError("bounds' ranges are one [low, high] per column")
    out = []
    for j, pair in enumerate(ranges):
        try:
            low, high = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise ValueError(f"bounds: column {j + 1}'s range must be two numbers, low:high")\
                from None
        if not (math.isfinite(low) and math.isfinite(high)) or max(abs(low), abs(high)) \
                > RANGE_LIMIT:
            raise ValueError(f"bounds: column {j + 1}'s range must be finite numbers of at most "
                             f"{RANGE_LIMIT:g} in size")
        if not low < high:
            raise ValueError(f"bounds: column {j + 1}'s range must have low < high, got {low:g} "
                             f"and {high:g}")
        out.append([low, high])
    if d is not None and len(out) != d:
        raise ValueError(f"bounds give {len(out)} column range{'s' * (len(out) != 1)}, but the "
                         f"table has {d} column{'s' * (d != 1)}")
    return {"ranges": out, "standardise": standardise}


def quantile_releases(d: int) -> int:
    """How many private quantiles the private ranges of ``d`` columns release (two each)."""
    return len(PRIVATE_QUANTILES) * d


def private_quantile(column: ArrayLike, q: float, *, epsilon: float,
                     rng: np.random.Generator, ledger: Any, name: str,
                     candidates: NDArray[np.float64] = QUANTILE_GRID) -> float:
    """The ``q``-quantile of a column, chosen by the exponential mechanism; ε-DP.

    Among the public ``candidates`` (default :data:`QUANTILE_GRID`), ``t`` scores
    ``−|#{x ≤ t} − q·n|``:
    replacing one row moves the count by at most 1 (sensitivity 1; ``n`` is public under
    replace-one neighbours). Recorded on ``ledger``.

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> x = np.arange(1000.0)
    >>> round(private_quantile(x, 0.5, epsilon=math.inf, rng=np.random.default_rng(0),
    ...                        ledger=Ledger(), name="median"), 1)
    501.2
    """
    from dpviz.privacy.mechanisms import exponential

    values = np.sort(np.asarray(column, dtype=float))
    counts = np.searchsorted(values, candidates, side="right")
    utility = -np.abs(counts - q * values.size)
    index = exponential(utility, sensitivity=1.0, epsilon=epsilon, rng=rng, ledger=ledger,
                        name=name)
    return float(candidates[index])


def quantile_rows(q: float, epsilon: float) -> int:
    """The fewest rows whose ``q``-quantile the exponential mechanism at ``epsilon`` finds.

    ``n ≥ 2(ln |QUANTILE_GRID| + ln(1/QUANTILE_MISS)) / (ε·min(q, 1 − q))``: the candidates
    beyond the data then weigh at most :data:`QUANTILE_MISS` of the best one. Public (n is
    public under replace-one neighbours).

    Examples
    --------
    >>> quantile_rows(0.05, 0.05), quantile_rows(0.5, 0.05)
    (9682, 969)
    """
    if math.isinf(epsilon):
        return 0
    needed = math.log(QUANTILE_GRID.size) + math.log(1 / QUANTILE_MISS)
    return math.ceil(2 * needed / (epsilon * min(q, 1 - q)))


def quantile_found(n: int, q: float, epsilon: float) -> bool:
    """Whether ``n`` rows are enough for the ``q``-quantile at ``epsilon`` (:func:`quantile_rows`).

    Examples
    --------
    >>> quantile_found(20_000, 0.05, 0.05), quantile_found(500, 0.05, 0.05)
    (True, False)
    """
    return n >= quantile_rows(q, epsilon)


@dataclass(frozen=True)
class BoundPlan:
    """How private ranges spend their share of a budget (public: n, d, the budget, the share).

    Attributes
    ----------
    medians : bool
        Whether the ranges come from medians (:func:`median_box`, ``d + 1`` releases) rather
        than from the 5 %/95 % quantiles (``2d`` releases).
    releases : int
        The bound's releases.
    epsilon : float
        Each release's ε (pure DP).
    rest : Budget
        What the estimator gets.
    """

    medians: bool
    releases: int
    epsilon: float
    rest: Budget


def bound_plan(n: int, d: int, budget: Budget, share: float) -> BoundPlan:
    """Choose the private ranges' way and split ``share`` of ``budget`` among its releases.

    The quantiles run when :func:`quantile_found` finds the 5 % quantile of ``n`` rows at the
    ε each of their ``2d`` releases would get; otherwise the medians' ``d + 1`` releases share
    the same part of the budget (:func:`split_budget`, so a ρ budget's share is ρ, not ε).

    Examples
    --------
    >>> bound_plan(500, 2, Budget(epsilon=1.0), 0.2).releases
    3
    >>> plan = bound_plan(500, 2, Budget(rho=0.1, delta=1e-6), 0.3)
    >>> round(plan.releases * plan.epsilon ** 2 / 2 + plan.rest.rho, 12)
    0.1
    """
    each, rest = split_budget(budget, share, quantile_releases(d))
    if quantile_found(n, min(PRIVATE_QUANTILES), each):
        return BoundPlan(False, quantile_releases(d), each, rest)
    each, rest = split_budget(budget, share, d + 1)
    return BoundPlan(True, d + 1, each, rest)


def private_box(x: ArrayLike, *, plan: BoundPlan, rng: np.random.Generator, ledger: Any,
                names: Sequence[str] | None = None, standardise: bool = False) -> Box:
    """Per-column private ranges, ``plan.releases`` releases at ``plan.epsilon`` on ``ledger``.

    Quantiles (enough rows, :func:`bound_plan`): the quantiles :data:`PRIVATE_QUANTILES` of
    every column. Post-processing: a range whose two ends land on one candidate is widened to
    the next candidate above, then each end moves out by :data:`PRIVATE_MARGIN` of the width.
    Medians (fewer rows): :func:`median_box`.
    """
    rows = np.atleast_2d(np.asarray(x, dtype=float))
    n, d = rows.shape
    names = list(names or [f"column {j + 1}" for j in range(d)])
    epsilon = plan.epsilon
    if plan.medians:
        return median_box(rows, epsilon=epsilon, rng=rng, ledger=ledger, names=names,
                          standardise=standardise)
    low, high = np.empty(d), np.empty(d)
    for j in range(d):
        ends = [private_quantile(rows[:, j], q, epsilon=epsilon, rng=rng, ledger=ledger,
                                 name=f"bound: {q:.0%} quantile of {names[j]}")
                for q in PRIVATE_QUANTILES]
        low[j] = min(ends)
        above = QUANTILE_GRID[QUANTILE_GRID > low[j]]
        high[j] = max(max(ends), above[0] if above.size else low[j] + 1.0)
    margin = PRIVATE_MARGIN * (high - low)
    return Box(low - margin, high + margin, "private", standardise)


def median_box(x: ArrayLike, *, epsilon: float, rng: np.random.Generator, ledger: Any,
               names: Sequence[str], standardise: bool = False) -> Box:
    """Ranges ``mⱼ ± f·s`` for every column, from ``d + 1`` releases at ``epsilon`` each.

    ``mⱼ`` is column j's private median; ``s`` a private quantile q of ``maxⱼ |xⱼ − mⱼ|``
    (each row's L∞ distance to the released centre; candidates: the grid's positive values),
    q the highest of :data:`GAP_QUANTILES` that :func:`quantile_found` finds at ``epsilon``
    and n (public), ``f`` its factor (:func:`private_quantile` for all). A median scores
    ``n/2`` above every candidate beyond the data, ten times the 5 % quantile's margin, so it
    is found with ten times fewer rows.
    """
    rows = np.atleast_2d(np.asarray(x, dtype=float))
    n, d = rows.shape
    centre = np.array([private_quantile(rows[:, j], 0.5, epsilon=epsilon, rng=rng,
                                        ledger=ledger, name=f"bound: median of {names[j]}")
                       for j in range(d)])
    q = next((q for q in GAP_QUANTILES if quantile_found(n, q, epsilon)), 0.5)
    gap = private_quantile(np.abs(rows - centre).max(axis=1), q, epsilon=epsilon, rng=rng,
                           ledger=ledger, candidates=GAP_GRID,
                           name=f"bound: {q:.0%} quantile of the rows' largest gap to the "
                                "medians")
    half = GAP_QUANTILES[q] * gap
    return Box(centre - half, centre + half, "private", standardise)


def data_box(x: ArrayLike, *, standardise: bool = False) -> Box:
    """Per-column ranges read from the data (min and max): not private, and a warning."""
    warnings.warn(f"not private: {DATA_BOUND_REASON}", PrivacyLeakWarning, stacklevel=2)
    rows = np.atleast_2d(np.asarray(x, dtype=float))
    low, high = rows.min(axis=0), rows.max(axis=0)
    flat = high <= low
    return Box(np.where(flat, low - 0.5, low), np.where(flat, high + 0.5, high), "data",
               standardise)


def split_budget(budget: Budget, share: float, releases: int) -> tuple[float, Budget]:
    """Split a budget between ``releases`` pure-DP bound releases and the estimator.

    A ρ budget: the bound takes the share of ρ (each release ``ε_b`` with ``ε_b²/2`` of it)
    and the estimator the rest, so the ledger's composed ρ is the budget's. An (ε, δ) budget:
    the bound takes the share of ε and the estimator ``((1 − share)·ε, δ)``, by sequential
    composition — valid whatever the estimator composes under (several mixture estimators
    plan under PLD or linear composition even when asked for zCDP accounting, so a ρ split of
    an (ε, δ) target would overspend with them). At ε = ∞ both halves are ∞ (no noise).

    Returns
    -------
    (float, Budget)
        The ε of each bound release, and the estimator's budget.

    Examples
    --------
    >>> each, rest = split_budget(Budget(epsilon=1.0), 0.1, 4)
    >>> round(each, 6), round(rest.epsilon, 6)
    (0.025, 0.9)
    """
    if budget.non_private:
        return math.inf, budget
    if budget.rho is not None:
        return (math.sqrt(2 * share * budget.rho / releases),
                replace(budget, rho=(1 - share) * budget.rho))
    epsilon = budget.epsilon or 0.0
    return share * epsilon / releases, replace(budget, epsilon=(1 - share) * epsilon)
