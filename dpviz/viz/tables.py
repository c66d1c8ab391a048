"""The data behind a figure, as a table for the CSV download next to every chart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from dpviz.viz.style import plain_text

if TYPE_CHECKING:  # pandas loads on the first download, not with every page that draws a chart
    import pandas as pd


def _column(values: Any, n: int) -> list[Any]:
    if values is None:
        return [None] * n
    out = list(np.asarray(values, dtype=object).ravel())
    if len(out) == n:
        return out
    return [out[0] if out else None] * n


def figure_table(fig: go.Figure) -> pd.DataFrame:
    """Every plotted point of ``fig``, one row each, in long form.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        A figure from :mod:`dpviz.viz`.

    Returns
    -------
    pandas.DataFrame
        Columns ``series``, ``x``, ``y``, ``value`` for heatmap cells (x and y are then the
        cell's column and row), and ``error_minus`` / ``error_plus`` when a trace has error
        bars. Traces without data (legend entries) are left out.

    Examples
    --------
    >>> fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4], name="a"))
    >>> figure_table(fig).to_dict("list")
    {'series': ['a', 'a'], 'x': [1, 2], 'y': [3, 4]}
    """
    import pandas as pd

    frames = []
    errors = heat = False
    for trace in fig.data:
        if isinstance(trace, go.Heatmap) and trace.z is not None:
            z = np.asarray(trace.z, dtype=float)
            rows, cols = np.indices(z.shape)
            xs = (np.asarray(trace.x, dtype=object)[cols] if trace.x is not None else cols)
            ys = (np.asarray(trace.y, dtype=object)[rows] if trace.y is not None else rows)
            frames.append(pd.DataFrame({"series": [trace.name] * z.size, "x": xs.ravel(),
                                        "y": ys.ravel(), "value": z.ravel()}))
            heat = True
            continue
        x, y = getattr(trace, "x", None), getattr(trace, "y", None)
        if x is None or y is None:
            continue
        xs = list(np.asarray(x, dtype=object).ravel())
        ys = list(np.asarray(y, dtype=object).ravel())
        if not xs or all(v is None for v in xs):
            continue
        n = len(xs)
        frame: dict[str, list[Any]] = {"series": [trace.name] * n, "x": xs, "y": ys}
        error = getattr(trace, "error_x", None)
        if error is not None and error.array is not None:
            errors = True
            frame["error_minus"] = _column(error.arrayminus, n)
            frame["error_plus"] = _column(error.array, n)
        frames.append(pd.DataFrame(frame))
    if not frames:
        return pd.DataFrame({"series": [], "x": [], "y": []})
    table = pd.concat(frames, ignore_index=True)
    for column in ("series", "x", "y"):  # names as the user wrote them, safe in a spreadsheet
        table[column] = table[column].map(_cell)
    keep = ["series", "x", "y"] + (["value"] if heat else [])
    return table if errors else table[keep]


def _cell(value: Any) -> Any:
    r"""A text cell as the reader saw it, safe to open in a spreadsheet; other values as-is.

    :func:`~dpviz.viz.style.plain_text`, then ``'`` before a leading ``= + - @`` (or a tab or
    carriage return), so a spreadsheet does not run the cell as a formula.

    Examples
    --------
    >>> _cell("=HYPERLINK(&quot;x&quot;)"), _cell("a &lt;b&gt;"), _cell(-1.5)
    ('\'=HYPERLINK("x")', 'a <b>', -1.5)
    """
    if not isinstance(value, str):
        return value
    text = plain_text(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
