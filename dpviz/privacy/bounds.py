"""Public bounds and clipping (ALGORITHMS.md §1.3).

A sensitivity needs a public bound: a ball ``B(c, R)`` every row is clipped into before
anything is computed. A bound read from the data is not private; the result then carries
``not_private`` with the reason, and a :class:`PrivacyLeakWarning` is issued.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpviz.core import limits
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
    factor = np.minimum(1.0, radius / np.maximum(norms, np.finfo(float).tiny))
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
