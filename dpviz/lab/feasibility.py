"""Whether an estimator can succeed at public sizes, and from what n or ε it would.

Each registry entry states its public preconditions
(:meth:`dpviz.core.entry.Estimator.cannot_run`: a sample-size bound, GoodRadius's slack, PPE's
calculator …). :func:`blocked` asks them at a run's sizes and, when the answer is no, searches
the smallest n (at the same ε) and the smallest ε (at the same n) at which the entry says yes.
Only public inputs go in (sizes, budget, parameters), so leaving an estimator out, or saying
what it would need, tells nothing about anyone's row. The compare view and the explorer use it
to skip runs that cannot succeed and to say why.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dpviz.core import limits
from dpviz.core.entry import Estimator

#: Budget names a precondition takes as keywords of its own (not estimator parameters).
BUDGET_NAMES = ("epsilon", "delta", "rho", "accounting", "seed", "radius", "paper_mode")
#: Relative precision of the searched n (a sentence quotes it to about 2%).
PRECISION = 0.02
#: How far above the run's ε the search looks (a precondition may solve its accounting afresh
#: for every ε, up to seconds each: private PCA's GoodRadius rounds do).
EPSILON_REACH = 4.0


@dataclass(frozen=True)
class Blocked:
    """Why an estimator cannot succeed, and what would let it.

    Attributes
    ----------
    reason : str
        The entry's own sentence (:meth:`~dpviz.core.entry.Estimator.cannot_run`).
    n : int or None
        About the smallest n at which it can succeed at the same ε (``None``: none up to
        :data:`dpviz.core.limits.MAX_ROWS`).
    epsilon : float or None
        An ε at which it can succeed at the same n, at most twice the smallest (doubling from
        the run's ε); ``None``: none up to ``reach``, or the run has no ε.
    reach : float or None
        The largest ε searched (``None``: ε was not searched).
    """

    reason: str
    n: int | None
    epsilon: float | None
    reach: float | None = None

    def remedy(self) -> str:
        """What would let it succeed, in words.

        Examples
        --------
        >>> Blocked("too small", 40_000, 4.0).remedy()
        'it would succeed from about n = 40,000 rows at this ε, or by ε = 4 at this n'
        >>> Blocked("too small", None, None, reach=4.0).remedy()
        'neither more rows (up to 1,000,000) nor ε up to 4 alone is enough'
        """
        ways = []
        if self.n is not None:
            ways.append(f"from about n = {self.n:,} rows at this ε")
        if self.epsilon is not None:
            ways.append(f"by ε = {self.epsilon:.3g} at this n")
        if not ways:
            more = "" if self.reach is None else f" nor ε up to {self.reach:.3g}"
            return f"neither more rows (up to {limits.MAX_ROWS:,}){more} alone is enough"
        return "it would succeed " + ", or ".join(ways)


def smallest(ok: Callable[[float], bool], start: float, high: float, *,
             integer: bool = False, precision: float = PRECISION) -> float | None:
    """About the smallest value in ``(start, high]`` where ``ok`` holds, or ``None``.

    ``ok`` is assumed monotone (more rows or more ε never hurts): doubling from ``start``
    brackets the change, bisection narrows it to ``precision`` (relative; to 1 for
    ``integer``; ``precision=1`` stops at the first doubling that holds).

    Examples
    --------
    >>> smallest(lambda v: v >= 1234, 100, 10**6, integer=True)
    1234
    >>> round(smallest(lambda v: v * v >= 2.0, 0.5, 10.0), 1), smallest(lambda v: False, 1, 8)
    (1.4, None)
    """
    low, value = start, start
    while True:
        value = min(value * 2, high)
        if ok(value):
            break
        if value >= high:
            return None
        low = value
    while value - low > max(precision * value, 1.0 if integer else 0.0):
        middle = (low + value) / 2
        if integer:
            middle = math.floor(middle)
        if ok(middle):
            value = middle
        else:
            low = middle
    if integer:  # the bisection may stop a few short of 1: finish it one step at a time
        value = math.ceil(value)
        while value - 1 > low and ok(value - 1):
            value -= 1
        return int(value)
    return value


def blocked(entry: Estimator, *, n: int, d: int = 1, k: int | None = None,
            epsilon: float | None = None, delta: float = 0.0, accounting: str = "zcdp",
            params: Mapping[str, Any] | None = None,
            reach: float = EPSILON_REACH) -> Blocked | None:
    """Why ``entry`` cannot succeed at these public sizes and what would let it, or ``None``.

    Parameters
    ----------
    entry : Estimator
        A registry entry.
    n, d, k : int
        Public sizes (rows or vertices, columns, components).
    epsilon, delta : float
        The run's budget (``epsilon=None``: a ρ budget; then only n is searched).
    accounting : str
        How releases are composed.
    params : mapping, optional
        The run's parameters; budget names and other estimators' parameters are ignored.
    reach : float
        The ε search stops at ``reach`` × the run's ε (by doubling); 1 or less: n alone is
        searched (cheaper: some preconditions solve their accounting afresh for every ε).

    Examples
    --------
    >>> from dpviz.estimators.registry import estimator
    >>> found = blocked(estimator("gmm", "private_pca_clustering"), n=10_000, d=2, k=3,
    ...                 epsilon=1.0, delta=1e-5)
    >>> found.reason[:40], 10_000 < found.n < 40_000, found.epsilon
    ('private PCA + clustering needs about n >', True, 2.0)
    >>> blocked(estimator("gmm", "dp_em"), n=10_000, d=2, k=3, epsilon=1.0) is None
    True
    """
    own = {key: value for key, value in (params or {}).items() if key not in BUDGET_NAMES}

    def why(**change: Any) -> str | None:
        sizes = {"n": n, "d": d, "k": k, "epsilon": epsilon, "delta": delta, **change}
        return entry.cannot_run(**sizes, accounting=accounting, **own)

    def succeeds(**change: Any) -> bool:
        try:
            return why(**change) is None
        except ValueError:  # sizes the entry's own calculator refuses (e.g. a huge ε)
            return False

    reason = why()
    if reason is None:
        return None
    rows = smallest(lambda m: succeeds(n=int(m)), n, limits.MAX_ROWS, integer=True)
    if epsilon is None or math.isinf(epsilon) or reach <= 1:
        return Blocked(reason, None if rows is None else int(rows), None)
    top = min(epsilon * reach, limits.EPSILON.high)
    budget = smallest(lambda e: succeeds(epsilon=e), epsilon, top, precision=1.0)
    return Blocked(reason, None if rows is None else int(rows), budget, top)
