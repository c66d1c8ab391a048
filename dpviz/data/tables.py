"""Validation of numeric tables: arrays given in Python and CSV files given by users.

One row per person, numeric columns, an optional header row (DESIGN.md, the command line).
"""

from __future__ import annotations

import csv
import io
import math
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.data.files import read_file, too_big


def as_matrix(data: Any, *, min_rows: int = 2, name: str = "data",
              check_finite: bool = True, row_cap: bool = True) -> NDArray[np.float64]:
    """Return ``data`` as a finite float matrix (n × d), or raise ``ValueError``.

    A 1-D input is one column. A float64 array comes back as itself (no copy: the
    estimators never edit their input in place). ``check_finite=False`` leaves the NaN/inf
    check to a caller that gets it cheaper (e.g. from row norms it computes anyway) and
    calls ``as_matrix`` again for the sentence when it fails. ``row_cap=False`` leaves the
    cap on rows (:data:`dpviz.core.limits.MAX_ROWS`) to a caller with its own (an edge list's).

    Examples
    --------
    >>> as_matrix([1.0, 2.0, 3.0]).shape
    (3, 1)
    >>> as_matrix([[1.0, float("nan")], [0.0, 1.0]])
    Traceback (most recent call last):
    ...
    ValueError: data has a missing or infinite value in row 1, column 2
    """
    try:
        raw = np.asarray(data)
        if np.iscomplexobj(raw):
            raise ValueError(f"{name} must be real numbers, not complex ones")
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError) as err:
        if "complex" in str(err):
            raise
        raise ValueError(f"{name} must be numbers only") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a table (rows × columns), got {arr.ndim} dimensions")
    if check_finite and not np.isfinite(arr).all():  # find the cell only when one is bad
        row, col = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} has a missing or infinite value in row {row + 1}, "
                         f"column {col + 1}")
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} needs at least {min_rows} rows, got {arr.shape[0]}")
    if row_cap and arr.shape[0] > limits.MAX_ROWS:
        raise ValueError(f"{name} has {arr.shape[0]} rows; dpviz takes at most {limits.MAX_ROWS}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has no columns")
    if arr.shape[1] > limits.MAX_COLUMNS:
        raise ValueError(f"{name} has {arr.shape[1]} columns; dpviz takes at most "
                         f"{limits.MAX_COLUMNS}")
    return arr


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def read_csv(source: str | os.PathLike[str] | bytes, *, min_rows: int = 2,
             row_cap: bool = True) -> NDArray[np.float64]:
    r"""Read a numeric CSV (optional header row) into an n × d matrix.

    Parameters
    ----------
    source : path or bytes
        The bytes of an upload, or a path typed by the user (read from the working folder by
        :func:`dpviz.data.files.read_file`: a regular file of at most 50 MB).
    min_rows : int
        Fewest rows accepted; with 0, a file with no rows of numbers (empty, or a header
        only) reads as a 0 × 0 matrix.
    row_cap : bool
        Refuse more than :data:`dpviz.core.limits.MAX_ROWS` rows (as :func:`as_matrix`);
        ``False`` for a caller that checks its own cap (an edge list's,
        :func:`dpviz.data.graphs.read_edges`). The 50 MB cap holds either way.

    Raises
    ------
    ValueError
        With the row and column of the first problem: a file over 50 MB, a cell that is not
        a number, a ragged row, a missing or infinite value, too few rows, too many columns.
        No message quotes a cell.

    Examples
    --------
    >>> read_csv(b"x,y\n1,2\n3,4\n").tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> read_csv(b"1,2\n3,abc\n")
    Traceback (most recent call last):
    ...
    ValueError: the CSV's row 2, column 2 is not a number; every cell must be a number
    """
    raw = source if isinstance(source, bytes) else read_file(source, what="the CSV")
    if len(raw) > limits.MAX_UPLOAD_BYTES:
        raise ValueError(too_big(len(raw)))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("the CSV is not UTF-8 text") from None
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline=""))
                if any(c.strip() for c in row)]
    except csv.Error as err:
        raise ValueError(f"the CSV cannot be read: {err}") from None
    if not rows and min_rows > 0:
        raise ValueError("the CSV is empty")
    first_line = 1
    if rows and not any(_is_number(c) for c in rows[0]):  # a header row: no cell is a number
        header, rows, first_line = rows[0], rows[1:], 2
        if rows and len(header) != len(rows[0]):
            raise ValueError(f"the CSV's header has {len(header)} names but its first data "
                             f"row has {len(rows[0])} cells")
    if not rows and min_rows == 0:  # e.g. the edge list of the empty graph: a valid input
        return np.empty((0, 0))
    if row_cap and len(rows) > limits.MAX_ROWS:
        raise ValueError(f"the CSV has {len(rows)} rows; dpviz takes at most {limits.MAX_ROWS}")
    width = len(rows[0]) if rows else 0
    values = np.empty((len(rows), width))
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"row {i + first_line} of the CSV has {len(row)} cells; the first "
                             f"data row has {width}")
        for j, cell in enumerate(row):
            cell = cell.strip()
            try:
                values[i, j] = float(cell)
            except ValueError:
                place = f"row {i + first_line}, column {j + 1}"
                problem = (f"the CSV has an empty cell in {place}" if not cell else
                           f"the CSV's {place} is not a number")  # never the cell's text
                raise ValueError(f"{problem}; every cell must be a number") from None
            if not math.isfinite(values[i, j]):
                raise ValueError(f"the CSV has a missing or infinite value in row "
                                 f"{i + first_line}, column {j + 1}")
    return as_matrix(values, min_rows=min_rows, name="the CSV", row_cap=row_cap)


def validate_mixture_data(x: Any, k: Any, *, name: str = "data") -> NDArray[np.float64]:
    """Check that ``x`` can hold a mixture of ``k`` components; return it as a float matrix.

    Everything :func:`as_matrix` checks (numbers only, no missing or infinite values, at
    most 200 columns), and: ``k`` is a whole number from 1 to 100, at most the number of
    rows, with at least two rows per component. These depend on ``n`` and ``k`` only, both
    public under replace-one neighbours; nothing here looks at the values (a constant column
    is accepted: refusing it would tell apart two datasets that differ in one row).

    Parameters
    ----------
    x : array-like
        The rows (n × d), e.g. from :func:`read_csv`.
    k : int
        The number of components asked for.
    name : str
        What to call the data in messages.

    Raises
    ------
    ValueError
        A sentence naming the problem.

    Examples
    --------
    >>> validate_mixture_data([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0]], 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: data has 3 rows, too few for k = 2 components: at least 4 are needed ...
    """
    k = limits.check_integer(limits.COMPONENTS, k)
    arr = as_matrix(x, min_rows=1, name=name)
    n = arr.shape[0]
    if k > n:
        raise ValueError(f"k must be at most the number of rows: {name} has {n} rows, "
                         f"too few for k = {k} components")
    per = limits.MIN_ROWS_PER_COMPONENT
    if n < per * k:
        raise ValueError(f"{name} has {n} rows, too few for k = {k} components: at least "
                         f"{per * k} are needed ({per} per component)")
    return arr
