"""Parameter limits, stated once as data.

The widgets, the command line, the engine's validation and the property tests all import
these, so a range can never differ between the page and the engine.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np


@dataclass(frozen=True)
class Limit:
    """A closed or half-open numeric range for one parameter.

    Parameters
    ----------
    name : str
        The parameter's name as a user sees it in messages.
    low, high : float
        The range's ends.
    low_open, high_open : bool
        Whether an end is excluded.
    """

    name: str
    low: float
    high: float
    low_open: bool = False
    high_open: bool = False

    def check(self, value: object) -> float:
        """Return ``value`` as a float, or raise ``ValueError`` naming the range.

        Examples
        --------
        >>> EPSILON.check(0.5)
        0.5
        >>> EPSILON.check(-1)
        Traceback (most recent call last):
        ...
        ValueError: epsilon must be > 0 and <= 1000, got -1
        """
        return check_number(self, value)

    def describe(self) -> str:
        """Say the range in words, e.g. ``'> 0 and <= 100'``."""
        low = f"{'>' if self.low_open else '>='} {_fmt(self.low)}"
        if math.isinf(self.high):
            return low
        return f"{low} and {'<' if self.high_open else '<='} {_fmt(self.high)}"


def _fmt(value: float) -> str:
    if isinstance(value, int) or (float(value).is_integer() and abs(value) < 1e16):
        return str(int(value))
    return f"{value:g}"


def check_number(limit: Limit, value: object) -> float:
    """Validate one number against ``limit``; the error names the parameter and the value."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{limit.name} must be a number, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{limit.name} must be a number, got {value!r}") from None
    if math.isnan(number):
        raise ValueError(f"{limit.name} must be a number, got NaN")
    if number != 0 and abs(number) < sys.float_info.min:  # subnormal: 1/x overflows
        raise ValueError(f"{limit.name} must be 0 or at least {sys.float_info.min:.1e} in "
                         f"size, got {value}")
    too_low = number <= limit.low if limit.low_open else number < limit.low
    too_high = number >= limit.high if limit.high_open else number > limit.high
    if too_low or too_high:
        raise ValueError(f"{limit.name} must be {limit.describe()}, got {value}")
    return number


def check_epsilon(value: object) -> float:
    """Validate ε: ``inf`` (no privacy) or a number in :data:`EPSILON`'s range.

    Examples
    --------
    >>> check_epsilon("inf"), check_epsilon(2)
    (inf, 2.0)
    """
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        try:
            if math.isinf(float(value)) and float(value) > 0:
                return math.inf
        except ValueError:
            pass
    return check_number(EPSILON, value)


def check_integer(limit: Limit, value: object) -> int:
    """Validate a whole number against ``limit``, exactly (a 128-bit seed stays exact).

    Examples
    --------
    >>> check_integer(NOISE_SEED, 2**128 - 1) == 2**128 - 1
    True
    >>> check_integer(SEED, "7")
    7
    """
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value)
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        exact = int(value)
        too_low = exact <= limit.low if limit.low_open else exact < limit.low
        too_high = exact >= limit.high if limit.high_open else exact > limit.high
        if too_low or too_high:
            raise ValueError(f"{limit.name} must be {limit.describe()}, got {value}")
        return exact
    number = check_number(limit, value)
    if number != int(number):
        raise ValueError(f"{limit.name} must be a whole number, got {value}")
    return int(number)


# Privacy parameters. epsilon = inf is allowed separately (check_epsilon) and means "no noise"
# (the non-private answer); finite values stop at 1000, far past any meaningful guarantee and
# well inside floating point (e^epsilon overflows past 709).
EPSILON = Limit("epsilon", 0.0, 1000.0, low_open=True)
EPSILON_UI = Limit("epsilon", 0.01, 20.0)  # slider range on pages
DELTA = Limit("delta", 0.0, 1.0, high_open=True)
DELTA_POSITIVE = Limit("delta", 0.0, 1.0, low_open=True, high_open=True)
RHO = Limit("rho", 0.0, math.inf, low_open=True, high_open=True)
SENSITIVITY = Limit("sensitivity", 0.0, math.inf, low_open=True, high_open=True)
NOISE_SCALE = Limit("noise scale", 0.0, math.inf, low_open=True, high_open=True)
COUNT = Limit("count", 1, 100_000)
WEIGHT = Limit("weight", 0.0, math.inf, low_open=True, high_open=True)
#: Public bounds stop at 1e100: squared and multiplied by n·d they stay finite (1e308 overflowed).
RADIUS = Limit("radius", 0.0, 1e100, low_open=True)
SEED = Limit("seed", 0, 2**32 - 1)
#: A noise seed: the seeds a person types stay below 2³², but secure randomness draws 128
#: bits from the OS (a 32-bit seed could be found by trying them all against the output).
NOISE_SEED = Limit("seed", 0, 2**128 - 1)

# Audit sizes: enough trials for a tight Clopper-Pearson interval, few enough to stay live.
AUDIT_TRIALS = Limit("trials", 1_000, 2_000_000)

# Data limits (shared with the data layer).
#: The browser's file uploader refuses more than ``server.maxUploadSize`` (50) × 10⁶ bytes
#: (.streamlit/config.toml): the engine takes the same, so a file is refused by one sentence.
MAX_UPLOAD_BYTES = 50_000_000
#: Bytes in the megabyte the messages state (the browser's).
MEGABYTE = 10**6
#: Rows a page reads from one upload: a page's fits stay within INTERACTIVE_SECONDS at this n
#: for small d (``dpviz.estimators.work`` checks the rest); bigger files go through the command
#: line.
INTERACTIVE_ROWS = 200_000

# Work per request (``dpviz.estimators.work``): estimated from public sizes before any work starts.
#: Server seconds one engine call on a page may take (the others a page makes are cheap).
INTERACTIVE_SECONDS = 4.0
#: Peak memory one engine call on a page may add.
INTERACTIVE_BYTES = 400 * 2**20
#: Data one cached page entry may hold.
INTERACTIVE_DATA_BYTES = 24 * 2**20
#: Students whose data one process keeps ready: each student's seed makes its own data set,
#: and with fewer entries than students every ε move loaded and prepared its data again
#: (/sbm's 2.9 s projection from the 4th student on, issue 33).
CLASS_SIZE = 60
#: Entries a page's data cache keeps: a class's data sets, one each.
DATA_CACHE_ENTRIES = CLASS_SIZE
#: Pickled bytes a data cache keeps (Streamlit drops the least recently used beyond it), so
#: a class of uploads cannot fill the memory: a class of graphs prepared at /sbm's default
#: n = 1 000 is 60 × 8.4 MiB = 503 MiB; of /covariance's data 60 × 3.8 MiB (measured).
DATA_CACHE_BYTES = 512 * 2**20
#: Server seconds of a sweep started from the explorer page (a progress bar shows it).
SWEEP_SECONDS = 120.0
#: The on-disk cache of the SBM page's live curves keeps at most this many sweep files and
#: bytes (the oldest used evicted first): every new graph a visitor draws adds files.
CURVE_CACHE_FILES = 64
CURVE_CACHE_BYTES = 64 * 2**20
#: Share of the machine's memory one command-line or API run may use.
BATCH_MEMORY_SHARE = 0.25
#: Columns of a table: what a CSV file or an upload may have, and what a run of a task
#: without its own limit in :data:`TASK_COLUMNS` takes.
MAX_COLUMNS = 200
#: Columns a run of these tasks takes through :func:`dpviz.run` (the command line, sweeps):
#: the covariance paper's Figures 2 and 3(b) go to d = 800. The pages stop sooner: their
#: widgets at :data:`DIMENSIONS`, uploads at :data:`MAX_COLUMNS`, and ``dpviz.estimators.work``'s
#: time budget refuses what would take over :data:`INTERACTIVE_SECONDS`.
TASK_COLUMNS = MappingProxyType({"covariance": 1_000})
MAX_ROWS = 1_000_000

# Mixture sizes (the GMM generator, CSV validation for mixtures, the GMM widgets).
# k components need at least MIN_ROWS_PER_COMPONENT rows each on average (n >= 2k).
COMPONENTS = Limit("k", 1, 100)
#: k for the learners that fit k components on every chunk or subsample and then aggregate
#: (sample-and-aggregate's t·k candidates, the stability learner's m × m program over k
#: centres): beyond 20 each chunk holds too few rows per component for the aggregate to agree.
COMPONENTS_PER_CHUNK = Limit("k", 1, 20)
DIMENSIONS = Limit("d", 1, MAX_COLUMNS)


def max_columns(task: str) -> int:
    """The most columns a run of ``task`` takes (:data:`TASK_COLUMNS`, else :data:`MAX_COLUMNS`).

    Examples
    --------
    >>> max_columns("covariance"), max_columns("gmm")
    (1000, 200)
    """
    return TASK_COLUMNS.get(task, MAX_COLUMNS)

SAMPLE_SIZE = Limit("n", 2, MAX_ROWS)
MIN_ROWS_PER_COMPONENT = 2
# Separation between means, in standard deviations (0: every mean at the origin).
SEPARATION = Limit("separation", 0.0, 100.0)
# The exposure demo's size multiplier (the paper's Fig. 1 uses 1 and 50).
EXPOSURE_SCALE = Limit("scale", 1, 100)

# Stochastic block models (ALGORITHMS.md §7). Sparse methods (spectral, randomized response)
# take up to SBM_VERTICES; the certified projection holds dense n × n matrices (three of
# them, 2.4 GB at n = 10 000) and ends with an O(n³) factorisation and eigenvector, so the
# projection-based estimators stop earlier (pages far earlier: ``dpviz.estimators.work``'s time
# budget).
SBM_VERTICES = Limit("n", 2, 20_000)
SBM_PROJECTION_VERTICES = 10_000
SBM_DEGREE = Limit("degree", 0.01, 20_000.0)
SBM_SIGNAL = Limit("signal", 0.001, 1.0)
# Exact sampling of the exponential mechanism enumerates every balanced labelling.
SBM_ENUMERATION_VERTICES = 20
# Randomized response materialises its noisy graph: at most this many noisy pairs (~0.5 GB).
SBM_RR_PAIRS = 40_000_000
#: The most edges a graph may have: dpviz's public data domain under edge DP (``as_graph`` and
#: ``read_edges`` refuse more, for every dataset alike, so a refusal tells no two graphs in the
#: domain apart), and the SBM generator's cap on its expected edge count n·d/2 (10 million
#: edges ≈ 160 MB as int64 pairs).
SBM_EDGES = 10_000_000
