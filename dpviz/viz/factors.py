"""Factor analysis figures: the columns of the loading matrix W as images.

The factory only draws: the page turns each run's loadings into images
(:func:`dpviz.estimators.factor_analysis.digits_factor_images`) and passes them in, one row per run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from plotly.subplots import make_subplots

from dpviz.viz.style import TEMPLATE

#: Diverging: negative loadings blue, positive red, zero white.
FACTOR_COLORSCALE = "RdBu_r"


def factor_images(rows: Sequence[tuple[str, ArrayLike]], *,
                  title: str = "The columns of W as images") -> go.Figure:
    """A grid of heatmaps: one row per run, one column per factor.

    Parameters
    ----------
    rows : sequence of (label, images)
        ``images`` is factors × h × w (every row the same number of factors); the label
        names the run (e.g. ``"non-private (ε = ∞)"``).
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap`` per image, row by row, named ``"<label>, factor <j>"``. Each image
        has its own colour range, symmetric about 0 (a factor's sign and scale are
        arbitrary: the likelihood depends only on WWᵀ); pixel (0, 0) is at the top left.
    """
    if not rows:
        raise ValueError("factor_images needs at least one row of images")
    stacks = [np.asarray(images, dtype=float) for _, images in rows]
    factors = stacks[0].shape[0]
    if any(s.ndim != 3 or s.shape[0] != factors for s in stacks):
        raise ValueError("every row needs factors × h × w images with the same number of "
                         "factors")
    titles = [f"factor {j + 1}" if i == 0 else "" for i in range(len(rows))
              for j in range(factors)]
    fig = make_subplots(rows=len(rows), cols=factors, subplot_titles=titles,
                        row_titles=[label for label, _ in rows],
                        horizontal_spacing=0.02, vertical_spacing=0.06)
    for i, ((label, _), images) in enumerate(zip(rows, stacks, strict=True), start=1):
        for j, image in enumerate(images, start=1):
            top = float(np.max(np.abs(image))) or 1.0
            fig.add_trace(go.Heatmap(
                z=image, zmin=-top, zmax=top, zmid=0.0, colorscale=FACTOR_COLORSCALE,
                showscale=False, name=f"{label}, factor {j}",
                hovertemplate=f"{label}, factor {j}<br>pixel (row %{{y}}, column %{{x}}): "
                              "%{z:.3g}<extra></extra>"),
                row=i, col=j)
    fig.update_xaxes(showticklabels=False, showgrid=False, ticks="", constrain="domain")
    fig.update_yaxes(showticklabels=False, showgrid=False, ticks="", autorange="reversed",
                     constrain="domain")
    for index in range(1, len(rows) * factors + 1):
        suffix = "" if index == 1 else str(index)
        fig.update_layout({f"yaxis{suffix}": {"scaleanchor": f"x{suffix}", "scaleratio": 1}})
    fig.update_layout(template=TEMPLATE, title=title, height=170 * len(rows) + 110,
                      margin={"l": 20, "r": 160, "t": 90, "b": 20})
    fig.for_each_annotation(lambda a: a.update(textangle=0, xanchor="left")
                            if a.textangle == 90 else None)
    return fig
