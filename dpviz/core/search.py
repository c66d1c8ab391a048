"""The search for the smallest n (or ε) at which a public precondition holds.

One search, used by the feasibility report (:func:`dpviz.lab.feasibility.blocked`) and by an
estimator's own refusal sentence (:func:`rows_needed`), so both name the same n. The
preconditions it asks say why a run fails at one size; they never search themselves.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from dpviz.core import limits

#: Relative precision of the searched n (a sentence quotes it to about 2%).
PRECISION = 0.02
#: What a precondition's n does not say.
NOT_SIMULATED = "whether runs then succeed was not simulated"


def smallest(ok: Callable[[float], bool], start: float, high: float, *,
             integer: bool = False, precision: float = PRECISION,
             deadline: float = math.inf) -> tuple[float | None, float, bool]:
    """About the smallest value in ``(start, high]`` where ``ok`` holds, and how far it looked.

    ``ok`` is assumed monotone (more rows or more ε never hurts): doubling from ``start``
    brackets the change, bisection narrows it to ``precision`` (relative; ``precision=1``
    stops at the first doubling that holds). Past ``deadline`` (``time.monotonic()``) the
    search stops with what it has: a value that holds (less tight), or none.

    Returns
    -------
    (float or None, float, bool)
        The value (rounded up for ``integer``), or ``None`` when none was found; the largest
        value checked; whether the value is within ``precision`` of the smallest (``False``:
        the deadline cut the narrowing short, it is only a value that holds).

    Examples
    --------
    >>> found, _, tight = smallest(lambda v: v >= 1234, 100, 10**6, integer=True)
    >>> 1234 <= found <= 1234 * 1.02, tight
    (True, True)
    >>> smallest(lambda v: v * v >= 2.0, 0.5, 10.0)[0] < 1.45, smallest(lambda v: False, 1, 8)
    (True, (None, 8, False))
    """
    low, value = start, start
    while True:
        value = min(value * 2, high)
        if ok(value):
            break
        if value >= high or time.monotonic() > deadline:
            return None, value, False
        low = value
    reached = value
    tight = True
    while value - low > max(precision * value, 1.0 if integer else 0.0):
        if time.monotonic() > deadline:
            tight = False
            break
        middle = (low + value) / 2
        if ok(middle):
            value = middle
        else:
            low = middle
    return (math.ceil(value) if integer else value), reached, tight


def rows_needed(ok: Callable[[int], bool], n: int) -> str:
    """The sentence naming about the smallest n above ``n`` at which ``ok`` holds.

    :func:`smallest` over ``(n, MAX_ROWS]``, no deadline: an estimator's refusal says it.
    Only that its preconditions hold there: whether its runs then succeed depends on the
    data and was not simulated (:mod:`dpviz.lab.success` measures it for generated data).

    Examples
    --------
    >>> rows_needed(lambda m: m >= 5_000, 1_000)
    'its preconditions hold from about n = 5,000 rows at this epsilon (whether runs then \
succeed was not simulated)'
    >>> rows_needed(lambda m: False, 1_000)
    'it would not succeed even at the 1,000,000 rows dpviz reads: use a larger epsilon'
    """
    found, _, _ = smallest(lambda m: ok(int(m)), n, limits.MAX_ROWS, integer=True)
    if found is None:
        return (f"it would not succeed even at the {limits.MAX_ROWS:,} rows dpviz reads: "
                "use a larger epsilon")
    return (f"its preconditions hold from about n = {int(found):,} rows at this epsilon "
            f"({NOT_SIMULATED})")
