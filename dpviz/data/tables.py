"""Validation of numeric tables: arrays given in Python and CSV files given by users.

One row per person, numeric columns, an optional header row (DESIGN.md, the command line).
"""

from __future__ import annotations

import codecs
import csv
import io
import math
import os
import re
from array import array
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.data.files import read_file, too_big


def as_matrix(data: Any, *, min_rows: int = 2, name: str = "data",
              check_finite: bool = True, row_cap: bool = True,
              max_columns: int = limits.MAX_COLUMNS) -> NDArray[np.float64]:
    """Return ``data`` as a finite float matrix (n × d), or raise ``ValueError``.

    A 1-D input is one column. A float64 array comes back as itself (no copy: the
    estimators never edit their input in place). ``check_finite=False`` leaves the NaN/inf
    check to a caller that gets it cheaper (e.g. from row norms it computes anyway) and
    calls ``as_matrix`` again for the sentence when it fails. ``row_cap=False`` leaves the
    cap on rows (:data:`dpviz.core.limits.MAX_ROWS`) to a caller with its own (an edge list's).
    ``max_columns``: a task's own cap on columns (:func:`dpviz.core.limits.max_columns`).

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
    if arr.shape[1] > max_columns:
        raise ValueError(f"{name} has {arr.shape[1]} columns; dpviz takes at most "
                         f"{max_columns}")
    return arr


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


#: Commas past which a CSV's first line is counted, not parsed: ``csv.reader`` makes a Python
#: string of every field, and a first line of millions of them is itself the attack.
FIRST_LINE_COMMAS = 4 * limits.MAX_COLUMNS
_NOT_A_LINE_END = re.compile(rb"[^\r\n]")


def table_shape(raw: bytes) -> tuple[int, int]:
    r"""A CSV's rows and columns, read without parsing it: what a cap checks before any parse.

    The rows are its line endings counted (``\n``, or ``\r`` alone, as ``csv`` reads them),
    less a header row (a first line no cell of which is a number): an upper bound, since a
    blank line counts too. The columns are the first line's cells, that line alone read by
    ``csv.reader``; a first line of more than :data:`FIRST_LINE_COMMAS` commas is counted by
    its commas.

    Examples
    --------
    >>> table_shape(b"height,weight\n170,60\n180,75\n")
    (2, 2)
    >>> table_shape(b"1,2,3\r4,5,6")
    (2, 3)
    >>> table_shape(b"")
    (0, 0)
    """
    text = _NOT_A_LINE_END.search(raw, len(codecs.BOM_UTF8) * raw.startswith(codecs.BOM_UTF8))
    start = text.start() if text else len(raw)  # past leading blank lines
    lines = max(raw.count(b"\n", start), raw.count(b"\r", start)) + (
        start < len(raw) and not raw.endswith((b"\n", b"\r")))
    end = min((i for i in (raw.find(b"\n", start), raw.find(b"\r", start)) if i >= 0),
              default=len(raw))
    commas = raw.count(b",", start, end)  # no copy of the line before its size is known
    if commas > FIRST_LINE_COMMAS:
        return lines, commas + 1
    cells = next(csv.reader([raw[start:end].decode("utf-8", errors="replace")]), [])
    header = bool(cells) and not any(_is_number(c) for c in cells)
    return lines - header, len(cells)


#: The longest column name kept from a CSV's header (longer ones are cut).
MAX_NAME = 60


@dataclass(frozen=True)
class Table:
    """A CSV read by :func:`read_table`: its numbers and its column names.

    Attributes
    ----------
    values : ndarray
        n × d floats.
    names : tuple of str
        The header's names (cut to :data:`MAX_NAME` characters; an empty one is
        ``column j``), or ``column 1 … column d`` when the file has no header row.
    """

    values: NDArray[np.float64]
    names: tuple[str, ...]


def read_table(source: str | os.PathLike[str] | bytes, *, min_rows: int = 2,
               row_cap: bool = True) -> Table:
    r"""Read a numeric CSV with its column names (see :func:`read_csv` for the checks).

    Examples
    --------
    >>> t = read_table(b"height (cm),weight (kg)\n170,60\n180,75\n")
    >>> t.names, t.values.shape
    (('height (cm)', 'weight (kg)'), (2, 2))
    >>> read_table(b"1,2\n3,4\n").names
    ('column 1', 'column 2')
    """
    header: list[str] = []
    values = read_csv(source, min_rows=min_rows, row_cap=row_cap, header=header)
    d = values.shape[1]
    names = tuple((str(h).strip()[:MAX_NAME] or f"column {j + 1}") if j < len(header) else
                  f"column {j + 1}" for j, h in enumerate(header[:d] + [""] * (d - len(header))))
    return Table(values, names)


def read_csv(source: str | os.PathLike[str] | bytes, *, min_rows: int = 2,
             row_cap: bool = True, header: list[str] | None = None) -> NDArray[np.float64]:
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
    header : list, optional
        Filled with the header row's names when the file has one (:func:`read_table`).

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
    # Streamed: the bytes are decoded line by line (a whole decoded copy in a StringIO takes
    # four bytes a character), each row becomes floats as it is read, the width is checked on
    # the first data row and the row count as it grows, so a huge file is refused early and
    # never held as text cells (Python strings take ~50 bytes each).
    values = array("d")  # 8 bytes a cell (a list of Python floats takes 32)
    width, first_line, seen, count = 0, 1, False, 0
    reader = csv.reader(io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig", newline=""))
    try:
        for row in reader:
            if not any(c.strip() for c in row):
                continue
            if not seen:
                seen = True
                if not any(_is_number(c) for c in row):  # a header row: no cell is a number
                    first_line = 2
                    if header is not None:
                        header[:] = row[:limits.MAX_COLUMNS + 1]
                    width = -len(row)  # the header's width, checked on the first data row
                    continue
            i = count
            if i == 0:
                if width < 0 and -width != len(row):
                    raise ValueError(f"the CSV's header has {-width} names but its first data "
                                     f"row has {len(row)} cells")
                width = len(row)
                if width > limits.MAX_COLUMNS:
                    raise ValueError(f"the CSV has {width} columns; dpviz takes at most "
                                     f"{limits.MAX_COLUMNS}")
            elif len(row) != width:
                raise ValueError(f"row {i + first_line} of the CSV has {len(row)} cells; the "
                                 f"first data row has {width}")
            if row_cap and i >= limits.MAX_ROWS:
                raise ValueError(f"the CSV has more than {limits.MAX_ROWS} rows; dpviz takes at "
                                 f"most {limits.MAX_ROWS}")
            if not row_cap and i > limits.SBM_EDGES:
                break  # one row past the edge cap is kept: read_edges refuses it
            values.extend(_numbers(row, i + first_line))
            count += 1
    except UnicodeDecodeError:
        raise ValueError("the CSV is not UTF-8 text") from None
    except csv.Error as err:
        raise ValueError(f"the CSV cannot be read: {err}") from None
    if not seen and min_rows > 0:
        raise ValueError("the CSV is empty")
    if not count and min_rows == 0:  # e.g. the edge list of the empty graph: a valid input
        return np.empty((0, 0))
    return as_matrix(np.frombuffer(values, dtype=float).reshape(count, max(width, 0)),
                     min_rows=min_rows, name="the CSV", row_cap=row_cap)


def _numbers(row: list[str], line: int) -> list[float]:
    """A CSV row's cells as finite floats; a sentence naming the cell (never quoting it)."""
    out = []
    for j, raw in enumerate(row):
        cell = raw.strip()
        try:
            value = float(cell)
        except ValueError:
            place = f"row {line}, column {j + 1}"
            problem = (f"the CSV has an empty cell in {place}" if not cell else
                       f"the CSV's {place} is not a number")  # never the cell's text
            raise ValueError(f"{problem}; every cell must be a number") from None
        if not math.isfinite(value):
            raise ValueError(f"the CSV has a missing or infinite value in row {line}, "
                             f"column {j + 1}")
        out.append(value)
    return out


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
