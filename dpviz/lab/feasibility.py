"""Whether an estimator can succeed at public sizes, and from what n or ε its preconditions hold.

Each registry entry states its public preconditions
(:meth:`dpviz.core.entry.Estimator.cannot_run`: a sample-size bound, GoodRadius's slack, PPE's
calculator …). :func:`blocked` asks them at a run's sizes and, when the answer is no, searches
the smallest n (at the same ε) and the smallest ε (at the same n) at which the entry says yes.
Only public inputs go in (sizes, budget, parameters), so leaving an estimator out, or saying
what it would need, tells nothing about anyone's row. The compare view and the explorer use it
to skip runs that cannot succeed and to say why. Where a precondition stops firing runs may
still fail: the n from which they succeed is measured by simulation
(:mod:`dpviz.lab.success`), and :meth:`Blocked.remedy` says which of the two it names.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from dpviz.core import limits
from dpviz.core.entry import Estimator
from dpviz.core.search import NOT_SIMULATED, smallest
from dpviz.estimators.registry import TASKS

#: Seconds :func:`blocked` may search (some preconditions take seconds a call: then the
#: answer is a looser bound, or none, and says how far it looked).
SEARCH_SECONDS = 3.0
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
        About the smallest n at which its preconditions hold at the same ε (``None``: none up
        to :data:`dpviz.core.limits.MAX_ROWS`).
    epsilon : float or None
        An ε at which they hold at the same n, at most twice the smallest (doubling from the
        run's ε); ``None``: none up to ``reach``, or the run has no ε.
    reach : float or None
        The largest ε searched (``None``: ε was not searched).
    rows : int
        The largest n searched.
    tight : bool
        Whether ``n`` is within 2% of the smallest (``False``: the search ran out of time,
        ``n`` only holds).
    simulated : str or None
        Where simulated runs succeed at the same ε, in words
        (:meth:`dpviz.lab.success.SuccessFrom.sentence`), when known for the run's public
        shape.
    """

    reason: str
    n: int | None
    epsilon: float | None
    reach: float | None = None
    rows: int = limits.MAX_ROWS
    tight: bool = True
    simulated: str | None = None

    def remedy(self) -> str:
        """What would let it run, in words: simulated success where known, else preconditions.

        Examples
        --------
        >>> print(Blocked("too small", 40_000, 4.0).remedy())
        its preconditions hold from about n = 40,000 rows at this ε, or by ε = 4 at this n \
(whether runs then succeed was not simulated)
        >>> Blocked("too small", None, None, reach=4.0).remedy()
        'neither more rows (up to 1,000,000) nor ε up to 4 alone is enough'
        """
        ways = []
        if self.n is not None and self.simulated is None:
            ways.append(f"{'from about' if self.tight else 'by'} n = {self.n:,} rows at this ε")
        if self.epsilon is not None:
            ways.append(f"by ε = {self.epsilon:.3g} at this n")
        if not ways and self.simulated is None:
            more = "" if self.reach is None else f" nor ε up to {self.reach:.3g}"
            last = "" if self.rows >= limits.MAX_ROWS else " (searched no further)"
            return f"neither more rows (up to {self.rows:,}){more} alone is enough{last}"
        said = [] if self.simulated is None else [self.simulated]
        if ways:
            said.append(f"its preconditions hold {', or '.join(ways)} ({NOT_SIMULATED})")
        return "; ".join(said)


def blocked(entry: Estimator, *, n: int, d: int = 1, k: int | None = None,
            epsilon: float | None = None, delta: float = 0.0, accounting: str = "zcdp",
            reach: float = EPSILON_REACH, seconds: float = SEARCH_SECONDS,
            **params: Any) -> Blocked | None:
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
    **params
        The run's parameters (:func:`sizes_of`); names not the entry's own are ignored.
    reach : float
        The ε search stops at ``reach`` × the run's ε (by doubling); 1 or less: n alone is
        searched (cheaper: some preconditions solve their accounting afresh for every ε).
    seconds : float
        How long the search may take after the first answer (then it says what it found).

    Examples
    --------
    >>> from dpviz.estimators.registry import estimator
    >>> found = blocked(estimator("gmm", "private_pca_clustering"), n=2_000, d=2, k=3,
    ...                 epsilon=1.0, delta=1e-5, reach=1)
    >>> found.reason[:24], 2_000 < found.n < 10_000, found.epsilon
    ('private PCA + clustering', True, None)
    >>> blocked(estimator("gmm", "dp_em"), n=10_000, d=2, k=3, epsilon=1.0) is None
    True
    """
    def why(**change: Any) -> str | None:
        sizes = {"n": n, "d": d, "k": k, "epsilon": epsilon, "delta": delta, **change}
        return entry.cannot_run(**sizes, accounting=accounting, **params)

    def succeeds(**change: Any) -> bool:
        return why(**change) is None

    reason = why()
    if reason is None:
        return None
    deadline = time.monotonic() + seconds
    rows, checked, tight = smallest(lambda m: succeeds(n=int(m)), n, limits.MAX_ROWS,
                                    integer=True, deadline=deadline)
    found = Blocked(reason, None if rows is None else int(rows), None, rows=int(checked),
                    tight=tight)
    if epsilon is None or math.isinf(epsilon) or reach <= 1:
        return found
    top = min(epsilon * reach, limits.EPSILON.high)
    budget, checked, _ = smallest(lambda e: succeeds(epsilon=e), epsilon, top, precision=1.0,
                                  deadline=deadline)
    return replace(found, epsilon=budget, reach=checked)


def sizes_of(entry: Estimator, *, n: int, d: int, params: Mapping[str, Any],
             k: int | None = None) -> dict[str, Any]:
    """The public sizes and budget a precondition reads, as :func:`blocked`'s keywords.

    Also :meth:`~dpviz.core.entry.Estimator.cannot_run`'s. ``params`` are the run's
    parameters and budget (``None`` values left out); of the rest only the entry's own
    parameters are kept, so equal sizes give equal answers (a cache key); ``k`` is the
    data's, when the parameters do not set it.

    Examples
    --------
    >>> from dpviz.estimators.registry import estimator
    >>> sizes_of(estimator("gmm", "ppe"), n=1000, d=2, k=3,
    ...          params={"epsilon": 1.0, "delta": 1e-5, "seed": 4})
    {'n': 1000, 'd': 2, 'k': 3, 'epsilon': 1.0, 'delta': 1e-05, 'accounting': 'zcdp'}
    """
    given = {key: value for key, value in params.items() if value is not None}
    epsilon, k = given.get("epsilon"), given.get("k") or k
    own = {p.name for p in entry.params} - {"n", "d", "k"}
    return {"n": int(n), "d": int(d), "k": None if k is None else int(k),
            "epsilon": None if epsilon is None else float(epsilon),
            "delta": float(given.get("delta") or 0.0),
            "accounting": str(given.get("accounting") or "zcdp"),
            **{key: value for key, value in given.items() if key in own}}


def table_default(task: str, fallback: str, *, n: int, d: int, k: int | None,
                  epsilon: float | None, delta: float = 0.0,
                  accounting: str = "zcdp") -> str:
    """The estimator a page picks for a user's table: the first that suits it, or ``fallback``.

    An entry suits when its :attr:`~dpviz.core.entry.Estimator.suits` says so at these
    public sizes and its :meth:`~dpviz.core.entry.Estimator.cannot_run` finds nothing against
    the run (so the default is never a refusal). ``epsilon`` and ``delta`` are the
    estimator's own budget (a private bound's share taken off). Public inputs only.

    Examples
    --------
    >>> table_default("gmm", "dp_em", n=500, d=2, k=3, epsilon=1.0, delta=1e-5)
    'grid_means'
    >>> table_default("gmm", "dp_em", n=20, d=2, k=2, epsilon=1.0, delta=1e-5)
    'dp_em'
    >>> table_default("gmm", "dp_em", n=500, d=8, k=3, epsilon=1.0, delta=1e-5)
    'dp_em'
    """
    for name, entry in TASKS[task].items():
        if (entry.suits is not None and entry.suits(n=n, d=d, k=k)
                and entry.cannot_run(n=n, d=d, k=k, epsilon=epsilon, delta=delta,
                                     accounting=accounting) is None):
            return name
    return fallback
