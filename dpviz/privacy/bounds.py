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
from dpviz.privacy.errors import BudgetError, PrivacyLeakWarning

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
#: The grid of the public magnitudes a private range chooses among: 10^e for e = −3, −2.99,
#: …, 12 (2.3 % apart). Fixed in advance and the same for every data set.
MAGNITUDE_STEP = 0.01
MAGNITUDES: NDArray[np.float64] = 10.0 ** np.arange(-3.0, 12.0 + MAGNITUDE_STEP / 2,
                                                    MAGNITUDE_STEP)
MAGNITUDES.flags.writeable = False
#: A magnitude c is chosen for a quantile lying anywhere in ``[c/BAND, c]``, not at c only:
#: the ~30 candidates of a doubling all score best, so rows packed within 2 % of one value (a
#: column of 1 000 ± 10) lose nothing to the grid's spacing. With a point target they fell
#: between two candidates, every candidate scored far below the best possible, and the
#: 1 500 candidates beyond the data won (a third of the draws on 200 such rows).
BAND = 2.0
#: The band's lower ends (the first candidate's reaches down to every value ≤ 10⁻³, zeros too).
MAGNITUDE_FLOORS: NDArray[np.float64] = np.concatenate([[-np.inf], MAGNITUDES[1:] / BAND])
MAGNITUDE_FLOORS.flags.writeable = False
#: How many candidates a band holds: the candidates that all score best.
BAND_WIDTH = round(math.log10(BAND) / MAGNITUDE_STEP)
#: The exponential mechanism finds a quantile q when the candidates beyond the data, each
#: ``min(q, 1 − q)·n`` below the best, weigh less than this share of the best ones:
#: ``ε·min(q, 1 − q)·n/2 ≥ ln(candidates/best) + ln(1/share)`` (:func:`quantile_found`).
QUANTILE_MISS = 1e-2
#: The spread's quantiles and factors: a range is ``centre ± factor·s``, s the q-quantile of
#: the rows' largest gap to the centres, q the highest found at the public n and ε. With the
#: band s lies in ``[Q_q, 2Q_q]``; the factors take ``Q_q`` past the rows' 97.5 % gap for
#: normal and t₃ columns (their ratios: 2.1–5.5 at q = 0.5, 1.3–1.8 at 0.9), and 0.975 and
#: 0.99 bound the rows lost whatever the columns' tails. Lognormal columns (σ = 1) about 0
#: need up to 7 at q = 0.5: at 200 rows they lose more than 5 % in one draw in five
#: (bench/private_ranges.py).
SPREAD_FACTORS = MappingProxyType({0.99: 1.1, 0.975: 1.25, 0.9: 1.75, 0.75: 2.5, 0.5: 4.0})
#: The centres' public bins (Karwa–Vadhan's histogram at the scale found): ``CENTRE_BINS`` bins
#: over ``±CENTRE_SPAN·S``, S the rows' private magnitude; a bin c is chosen when the column's
#: median lies within one bin width of it (2 bins score best).
CENTRE_BINS = 64
CENTRE_SPAN = 4.0
#: The most rounds of centres and spread (each one a histogram inside the last ranges).
MAX_ROUNDS = 3
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
        ``centres``, every step's, and its grid's box ``grid_low``, ``grid_high``; the
        chunks' ``candidates``, ``chunk_means``, the stability learner's ``centroids`` and
        KSSU's ``lifted_centres``) get ``center + scale·m``; grid means' ``radii`` become
        per-column half-axes ``r·scale`` (steps × d: a radius's ball is an ellipse in the
        table's units); second moments (``covariance``, ``covariances``,
        ``chunk_covariances``) ``S·C·S`` (a covariance task's matrix is then the second
        moment about :attr:`center`); ``loadings`` are scaled row-wise, ``noise_variances``
        by ``scale²``; a mixture's trajectory step by step. Other entries are kept.
        """
        c, s = self.center, self.scale
        out: dict[str, Any] = {}
        for key, value in dict(values).items():
            if value is None:
                out[key] = value
            elif key in ("mean", "means", "true_mean", "start_centres", "centres", "grid_low",
                         "grid_high", "candidates", "chunk_means", "centroids",
                         "lifted_centres"):
                out[key] = c + s * np.asarray(value, dtype=float)
            elif key == "radii":
                out[key] = np.multiply.outer(np.asarray(value, dtype=float), s)
            elif key in ("covariance", "covariances", "true_covariance", "chunk_covariances"):
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


def quantile_scores(column: ArrayLike, q: float, candidates: NDArray[np.float64],
                    floors: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """Each candidate's score as the column's ``q``-quantile; sensitivity 1.

    Candidate i stands for the band ``[floorsᵢ, candidatesᵢ]`` (default the point
    ``candidatesᵢ``) and scores ``−max(0, q·n − #{x ≤ candidatesᵢ}, #{x ≤ floorsᵢ} − q·n)``:
    0 when the quantile lies in its band, else how many rows it is off by. Replacing one row
    moves each count by at most 1, so each score by at most 1 (a maximum of 1-Lipschitz
    terms); n is public under replace-one neighbours.

    Examples
    --------
    >>> quantile_scores([1.0, 2.0, 3.0, 4.0], 0.5, np.array([1.0, 2.0, 4.0]),
    ...                 np.array([0.0, 1.5, 3.5])).tolist()
    [-1.0, 0.0, -1.0]
    """
    values = np.sort(np.asarray(column, dtype=float))
    high = np.searchsorted(values, candidates, side="right")
    low = high if floors is None else np.searchsorted(values, floors, side="right")
    target = q * values.size
    return np.minimum(0.0, np.minimum(high - target, target - low))


def private_quantile(column: ArrayLike, q: float, *, epsilon: float, rng: np.random.Generator,
                     ledger: Any, name: str, candidates: NDArray[np.float64],
                     floors: NDArray[np.float64] | None = None) -> float:
    """A public candidate near the column's ``q``-quantile, by the exponential mechanism; ε-DP.

    The exponential mechanism on :func:`quantile_scores` (sensitivity 1), recorded on
    ``ledger``.

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> x, rng = np.arange(1000.0), np.random.default_rng(0)
    >>> private_quantile(x, 0.5, epsilon=math.inf, rng=rng, ledger=Ledger(), name="median",
    ...                  candidates=np.array([0.0, 499.0, 500.0, 999.0]))
    499.0
    >>> round(private_quantile(x, 0.5, epsilon=math.inf, rng=rng, ledger=Ledger(), name="m",
    ...                        candidates=MAGNITUDES, floors=MAGNITUDE_FLOORS), 1)
    501.2
    """
    from dpviz.privacy.mechanisms import exponential

    index = exponential(quantile_scores(column, q, candidates, floors), sensitivity=1.0,
                        epsilon=epsilon, rng=rng, ledger=ledger, name=name)
    return float(candidates[index])


def quantile_rows(q: float, epsilon: float, candidates: int = MAGNITUDES.size,
                  best: int = BAND_WIDTH) -> int:
    """The fewest rows whose ``q``-quantile :func:`private_quantile` finds at ``epsilon``.

    ``n ≥ 2(ln(candidates/best) + ln(1/QUANTILE_MISS))/(ε·min(q, 1 − q))``: the candidates
    beyond the data, each ``min(q, 1 − q)·n`` below the ``best`` that score 0, then weigh at
    most :data:`QUANTILE_MISS` of them. Public (n is public under replace-one neighbours).

    Examples
    --------
    >>> quantile_rows(0.5, 0.2), quantile_rows(0.5, 0.05, CENTRE_BINS, 2)
    (171, 646)
    """
    if math.isinf(epsilon):
        return 0
    return math.ceil(2 * _quantile_odds(candidates, best) / (epsilon * min(q, 1 - q)))


def _quantile_odds(candidates: int, best: int) -> float:
    """``ln(candidates/best) + ln(1/QUANTILE_MISS)``: the log-weight a quantile's margin beats."""
    return math.log(candidates / best) + math.log(1 / QUANTILE_MISS)


def quantile_epsilon(n: int, q: float, candidates: int = MAGNITUDES.size,
                     best: int = BAND_WIDTH) -> float:
    """The least ε at which :func:`private_quantile` finds the ``q``-quantile of ``n`` rows.

    :func:`quantile_rows`' condition solved for ε. Public.

    Examples
    --------
    >>> round(quantile_epsilon(171, 0.5), 3), round(quantile_epsilon(150, 0.5), 3)
    (0.199, 0.227)
    """
    return 2 * _quantile_odds(candidates, best) / (n * min(q, 1 - q))


def quantile_found(n: int, q: float, epsilon: float, candidates: int = MAGNITUDES.size,
                   best: int = BAND_WIDTH) -> bool:
    """Whether ``n`` rows are enough for :func:`quantile_rows`.

    Examples
    --------
    >>> quantile_found(178, 0.5, 0.2), quantile_found(178, 0.75, 0.2)
    (True, False)
    """
    return n >= quantile_rows(q, epsilon, candidates, best)


def spread_quantile(n: int, epsilon: float) -> float:
    """The highest of :data:`SPREAD_FACTORS`' quantiles found at ``n`` and ``epsilon`` (else ½).

    Examples
    --------
    >>> spread_quantile(178, 0.2), spread_quantile(5_000, 0.05), spread_quantile(20_000, 0.2)
    (0.5, 0.9, 0.99)
    """
    return next((q for q in SPREAD_FACTORS if quantile_found(n, q, epsilon)), 0.5)


@dataclass(frozen=True)
class BoundPlan:
    """How private ranges spend their share of a budget (public: n, d, the budget, the share).

    Attributes
    ----------
    rounds : int
        How many times every column's centre and the spread are released (0: once the
        spread about 0, one release; r > 0: the rows' magnitude, then r rounds of ``d``
        centres and a spread, ``1 + r(d + 1)`` releases).
    releases : int
        The bound's releases.
    epsilon : float
        Each release's ε (pure DP).
    quantile : float
        The spread's quantile (:func:`spread_quantile`).
    rest : Budget
        What the estimator gets.
    share : float
        The share of the budget the bound spends.
    """

    rounds: int
    releases: int
    epsilon: float
    quantile: float
    rest: Budget
    share: float

    @property
    def centred(self) -> bool:
        """Whether the ranges have per-column centres (else they are about 0)."""
        return self.rounds > 0

    @property
    def factor(self) -> float:
        """The ranges' half-width in spreads (:data:`SPREAD_FACTORS`)."""
        return SPREAD_FACTORS[self.quantile]

    def needed(self, n: int) -> tuple[float, float]:
        """The share (at this budget) and the budget (at this share) from which ranges run.

        Those at which the one release finds the spread's median of ``n`` rows, rounded up (to
        a percent, to 3 digits) so that the figures said run. Public.

        Examples
        --------
        >>> bound_plan(150, 2, Budget(epsilon=1.0), 0.2).needed(150)
        (0.23, 1.14)
        """
        rho = self.rest.rho is not None
        whole = float((self.rest.rho if rho else self.rest.epsilon) or 0.0) / (1 - self.share)
        more = (quantile_epsilon(n, 0.5) / self.epsilon) ** (2 if rho else 1)
        digits = 10.0 ** (math.floor(math.log10(whole * more)) - 2)
        return (math.ceil(round(100 * self.share * more, 9)) / 100,
                float(round(math.ceil(round(whole * more / digits, 9)) * digits, 12)))

    def refusal(self, n: int) -> str | None:
        """Why private ranges are refused for ``n`` rows, and what would do; ``None``: they run.

        Ranges about 0 rest on one release, the median of the rows' largest ``|value|``; below
        :func:`quantile_rows` at its ε that median is not found reliably, and the ranges are
        refused before anything is spent rather than kept with a warning. Measured by
        ``bench/private_ranges.py`` (``below_rows``: petals, wines, normal and 12 ± 1, 5 ± 3,
        800 ± 300 columns resampled to n; 400 draws each; one release at ε = 0.2, which needs
        171 rows): the spread landed under half or over 4 times the rows' median in 20–23 % of
        draws at n = 100, 2–6 % at 150, 0.5–2.5 % at 178, at most 0.8 % at 250 and none at 400 —
        the chance the condition bounds (the candidates beyond the data weigh
        ``(candidates/best)·e^(−εn/4)`` of the best: 28 % at 100 rows, 2.8 % at 150, 0.7 % at
        178). Through the estimators the tail is larger: on the issue's 150-row table at
        ρ = 0.1 and a 20 % share, GaussCov's median error over 20 draws was 2.2 times the
        stated median, and AdaptiveCov passed 3 times the stated 90th percentile in 2 draws;
        on the 178-row table every estimator held. A warning would leave a result whose error
        the page cannot state; the sentence says the share (or the budget) from which the
        ranges run at this n. Public: n, the plan's ε per release, its share and the budget.

        Examples
        --------
        >>> said = bound_plan(150, 2, Budget(rho=0.1), 0.2).refusal(150)
        >>> said[:52]
        'Private ranges need at least 171 rows at this budget'
        >>> said[said.index("At 150"):said.index(" at a 20%", said.index("At 150"))]
        'At 150 rows they run from a 26% share of the budget, or ε = 3.58 (ρ = 0.129 at δ = 1e-10)'
        >>> bound_plan(178, 3, Budget(epsilon=1.0), 0.2).refusal(178) is None
        True
        """
        rows = quantile_rows(0.5, self.epsilon)
        if self.centred or n >= rows:
            return None
        share, amount = self.needed(n)
        ways = [f"a {share:.0%} share of the budget"] if share < 1 else []
        whole = Budget(rho=amount) if self.rest.rho is not None else None
        ways.append(f"{f'ε = {amount:.3g}' if whole is None else whole.stated()} at a "
                    f"{self.share:.0%} share")
        return (f"Private ranges need at least {rows:,} rows at this budget and share (their "
                "one release, the median of the rows' largest |value|, at ε = "
                f"{self.epsilon:.3g}), and the table has {n:,}: refused before anything is "
                f"spent. At {n:,} rows they run from {', or '.join(ways)}; or type ranges from "
                "what you know about the columns, or give a radius.")


def bound_plan(n: int, d: int, budget: Budget, share: float) -> BoundPlan:
    """Choose the private ranges' rounds and split ``share`` of ``budget`` among their releases.

    The most rounds (up to :data:`MAX_ROUNDS`) at whose per-release ε :func:`quantile_found`
    finds each column's centre among the :data:`CENTRE_BINS` bins and the spread's 90 %
    quantile; with none, one release about 0 spends the whole share (:func:`split_budget`,
    so a ρ budget's share is ρ). A centre missed only widens the ranges (the spread is
    measured from it); a spread missed low cuts rows. Gaps to a centre have heavier tails
    than magnitudes about 0 (a lognormal column's 97.5 % gap is 10 times its median gap), so
    centred ranges rest on the 90 % quantile or above: on the median, lognormal columns of
    1 000 rows lost more than 5 % of their rows in 46 % of draws, on the 75 % quantile 33 %
    at 5 000 rows, on the 90 % none (bench/private_ranges.py).

    Examples
    --------
    >>> plan = bound_plan(178, 3, Budget(epsilon=1.0), 0.2)
    >>> plan.rounds, plan.releases, round(plan.epsilon, 3), plan.factor
    (0, 1, 0.2, 4.0)
    >>> plan = bound_plan(20_000, 2, Budget(rho=0.1, delta=1e-6), 0.3)
    >>> plan.rounds, round(plan.releases * plan.epsilon ** 2 / 2 + plan.rest.rho, 12)
    (3, 0.1)
    """
    for rounds in range(MAX_ROUNDS, 0, -1):
        releases = 1 + rounds * (d + 1)
        each, rest = split_budget(budget, share, releases)
        if quantile_found(n, 0.5, each, CENTRE_BINS, 2) and quantile_found(n, 0.9, each):
            return BoundPlan(rounds, releases, each, spread_quantile(n, each), rest, share)
    each, rest = split_budget(budget, share, 1)
    return BoundPlan(0, 1, each, spread_quantile(n, each), rest, share)


def private_box(x: ArrayLike, *, plan: BoundPlan, rng: np.random.Generator, ledger: Any,
                names: Sequence[str] | None = None, standardise: bool = False) -> Box:
    """Per-column private ranges ``mⱼ ± f·s``: Karwa–Vadhan's range at a searched scale.

    Karwa & Vadhan (ITCS 2018, §4) find a column's range from a private histogram over bins
    whose width is the column's scale; the scale being unknown, it is searched first over
    magnitudes that grow geometrically, and (as CoinPress does for balls) the search can be
    repeated inside the range found. For a table the scale and the spread are each one
    release over the rows' largest cell, shared by every column; only the centres are per
    column. Releases (pure ε each, :func:`private_quantile`; n public, replace-one):

    1. with rounds only: S, the rows' magnitude — the median of ``maxⱼ |xⱼ|`` over
       :data:`MAGNITUDES` (within a band of :data:`BAND`); the first round's ranges are
       ``±CENTRE_SPAN·S``;
    2. each round: every column's centre ``mⱼ`` — the bin of :data:`CENTRE_BINS` over its
       current range that holds its median (a histogram at the scale found), then the spread
       s — the ``plan.quantile``-quantile of ``maxⱼ |xⱼ − mⱼ|`` over :data:`MAGNITUDES`; the
       next ranges are ``mⱼ ± plan.factor·s``;
    3. without rounds: the spread about ``mⱼ = 0`` (public) alone.

    Each score has sensitivity 1 (one row is one value of the statistic scored), and each
    statistic and candidate set is a function of the data and of earlier releases only, so
    the releases compose sequentially: ``plan.releases × plan.epsilon`` of pure ε (``ε²/2`` of
    ρ each). The ranges are the last round's, post-processing, within ±:data:`RANGE_LIMIT`
    (the limit typed ranges have: the grid's top times the factor passes it, and a release
    that far off — one draw in 150 at 178 rows — left ranges no prediction or link could
    hold); which releases run depends on public n, d and ε only (:func:`bound_plan`).

    Raises
    ------
    BudgetError
        Before any release, when ``plan`` is one release and the rows are too few for it
        (:meth:`BoundPlan.refusal`, whose sentence says the share or budget that would do).

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> rows = np.random.default_rng(0).normal(1000.0, 10.0, (5_000, 2))
    >>> plan = bound_plan(5_000, 2, Budget(epsilon=1.0), 0.2)
    >>> box = private_box(rows, plan=plan, rng=np.random.default_rng(1), ledger=Ledger())
    >>> plan.rounds, box.clipped_rows(rows), [round(v) for v in box.ranges()[0]]
    (1, 0, [692, 1175])
    """
    rows = np.atleast_2d(np.asarray(x, dtype=float))
    refused = plan.refusal(len(rows))
    if refused is not None:
        raise BudgetError(refused)
    d = rows.shape[1]
    names = list(names or [f"column {j + 1}" for j in range(d)])
    epsilon = plan.epsilon

    def magnitude(values: NDArray[np.float64], q: float, what: str) -> float:
        return private_quantile(values, q, epsilon=epsilon, rng=rng, ledger=ledger,
                                name=f"bound: {what}", candidates=MAGNITUDES,
                                floors=MAGNITUDE_FLOORS)

    def spread(centre: NDArray[np.float64], what: str) -> float:
        return magnitude(np.abs(rows - centre).max(axis=1), plan.quantile,
                         f"spread{what} ({plan.quantile:.1%} quantile of the rows' largest gap "
                         "to the centres)")

    if not plan.rounds:
        half = min(plan.factor * spread(np.zeros(d), ""), RANGE_LIMIT)
        return Box(np.full(d, -half), np.full(d, half), "private", standardise)
    scale = magnitude(np.abs(rows).max(axis=1), 0.5, "the rows' magnitude (median of their "
                      "largest |value|)")
    low, high = np.full(d, -CENTRE_SPAN * scale), np.full(d, CENTRE_SPAN * scale)
    for r in range(plan.rounds):
        turn = f", round {r + 1} of {plan.rounds}" if plan.rounds > 1 else ""
        centre = np.empty(d)
        for j in range(d):
            width = (high[j] - low[j]) / CENTRE_BINS
            bins = np.linspace(low[j] + width / 2, high[j] - width / 2, CENTRE_BINS)
            centre[j] = private_quantile(rows[:, j], 0.5, epsilon=epsilon, rng=rng,
                                         ledger=ledger, name=f"bound: centre of {names[j]}{turn}",
                                         candidates=bins + width, floors=bins - width) - width
        half = plan.factor * spread(centre, turn)
        low, high = (np.maximum(centre - half, -RANGE_LIMIT),
                     np.minimum(centre + half, RANGE_LIMIT))
    return Box(low, high, "private", standardise)


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
