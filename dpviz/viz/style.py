"""One look for every figure: the colour map, the method colours and the Plotly template.

Every factory in :mod:`dpviz.viz` takes its colours from here, so "true" (a non-private
value, shown as ground truth) and "private" (a released value) look the same on every page.
"""

from __future__ import annotations

import textwrap
from types import MappingProxyType
from typing import Any

import plotly.graph_objects as go

#: Ground truth (never released) versus what a mechanism released.
COLORS = MappingProxyType({
    "true": "#1a1a1a",
    "private": "#e8590c",
})

#: The two neighbouring datasets of the privacy lens.
DATASET_COLORS = MappingProxyType({
    "D": "#1f6feb",
    "D′": "#c2255c",
})

#: One colour per accounting method (``dpviz.privacy.METHODS``).
METHOD_COLORS = MappingProxyType({
    "linear": "#868e96",
    "advanced": "#495057",
    "zcdp": "#1f6feb",
    "ma": "#7048e8",
    "rdp": "#0ca678",
    "pld": "#e8590c",
})

#: Short names of the accounting methods, for axes.
METHOD_SHORT = MappingProxyType({
    "linear": "linear",
    "advanced": "advanced",
    "zcdp": "zCDP",
    "ma": "MA",
    "rdp": "RDP",
    "pld": "PLD",
})

#: Colours of the lines of a plan or the rows of a ledger, in order: twelve, as many as a
#: budget bar shows before it groups releases by mechanism.
SERIES_COLORS = ("#1f6feb", "#e8590c", "#0ca678", "#7048e8", "#c2255c", "#f59f00",
                 "#495057", "#15aabf", "#8d6e63", "#94d82d", "#f783ac", "#99e9f2")

#: Where the privacy loss exceeds ε, and the ±ε band.
SHADE_COLOR = "rgba(232, 89, 12, 0.15)"
BAND_COLOR = "#868e96"
#: Light greys: a map cell that needs no colour, a tie, an axis line.
PALE_COLOR, TIE_COLOR, LINE_COLOR = "#e9ecef", "#ced4da", "#adb5bd"

FONT_FAMILY = "Inter, 'Source Sans Pro', 'Helvetica Neue', Arial, sans-serif"

#: Plotly copies a template into each figure, so figures cannot change this one.
TEMPLATE = go.layout.Template(
    layout=go.Layout(
        font={"family": FONT_FAMILY, "size": 14, "color": "#1a1a1a"},
        paper_bgcolor="white",
        plot_bgcolor="white",
        margin={"l": 60, "r": 20, "t": 56, "b": 40},
        colorway=list(SERIES_COLORS),
        hovermode="closest",
        modebar={"orientation": "v"},  # upright at the right edge: never over the title
        # Anchored to the figure's bottom edge, the legend stacks below the x-axis title
        # (Plotly adds both to the margin) instead of overlapping it.
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0,
                "xanchor": "left", "x": 0, "traceorder": "normal"},
        xaxis={"showgrid": True, "gridcolor": "#eceff1", "zeroline": False,
               "linecolor": LINE_COLOR, "ticks": "outside", "automargin": True},
        yaxis={"showgrid": True, "gridcolor": "#eceff1", "zeroline": False,
               "linecolor": LINE_COLOR, "ticks": "outside", "automargin": True},
        title={"font": {"size": 17}, "x": 0, "xanchor": "left"},
    )
)


def legend_on_top() -> dict[str, Any]:
    """Layout for short figures (a single bar or dot): the legend between title and plot.

    The title is pinned to the figure's top edge and reserves its own margin
    (``yref="container"``, ``automargin``); the legend, just above the plot, pushes the plot
    down by as many rows as it wraps to, so a legend of long names never runs over the title
    in a narrow column.

    Examples
    --------
    >>> fig = go.Figure(layout={"template": TEMPLATE})
    >>> _ = fig.update_layout(title="Where the budget went", **legend_on_top())
    >>> fig.layout.title.text, fig.layout.title.yref, fig.layout.legend.y
    ('Where the budget went', 'container', 1.02)
    """
    return {"legend": {"yref": "paper", "yanchor": "bottom", "y": 1.02, "xanchor": "left",
                       "x": 0},
            "title_yref": "container", "title_y": 1, "title_yanchor": "top",
            "title_automargin": True, "title_pad": {"t": 10},
            "margin": {"t": 10, "b": 50}}


def tint(color: str, amount: float) -> str:
    """``color`` (``#rrggbb``) mixed with white (``amount`` 1: white).

    Examples
    --------
    >>> tint("#1a1a1a", 0.5), tint("#1a1a1a", 1.0)
    ('rgb(140,140,140)', 'rgb(255,255,255)')
    """
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    mix = [round(c + (255 - c) * amount) for c in (r, g, b)]
    return f"rgb({mix[0]},{mix[1]},{mix[2]})"


#: What Plotly's pseudo-HTML reads as markup (tags, entities, a ``$…$`` formula, a hover
#: template's ``%{…}``), as entities it decodes (``&amp; &lt; &gt;`` and numeric ones, not
#: ``&quot;``).
_PLOTLY_MARKUP = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;",
                                "%": "&#37;"})


def plotly_text(text: object) -> str:
    """``text`` for a Plotly title, axis title, legend, tick or hover text, shown literally.

    Every user string that enters a figure (a CSV's column names, a student's name, a typed
    question) goes through this: Plotly renders ``<b>``, ``<a href>``, ``<span style>`` and
    ``<br>`` in every text it draws, and a string between ``$`` signs as LaTeX.

    Examples
    --------
    >>> plotly_text('<a href="http://x">M&M</a> $y$')
    '&lt;a href="http://x"&gt;M&amp;M&lt;/a&gt; &#36;y&#36;'
    """
    return str(text).translate(_PLOTLY_MARKUP)


def plain_text(text: object) -> str:
    """A figure's text as the reader sees it, for a table or an image's alt text.

    Undoes :func:`plotly_text` (and :func:`wrapped`'s line breaks), so a download holds the
    user's column names, not their entities.

    Examples
    --------
    >>> plain_text(plotly_text("<b>x</b> 5% $y$") + "<br>next")
    '<b>x</b> 5% $y$ next'
    """
    import html

    return html.unescape(str(text).replace("<br>", " "))


def wrapped(text: str, width: int = 55) -> str:
    """``text`` broken into Plotly lines (``<br>``) of at most ``width`` characters.

    Axis titles do not wrap by themselves; a long one is cut off at the figure's edge.

    Examples
    --------
    >>> wrapped("the mixture's mean projected on u", width=20)
    "the mixture's mean<br>projected on u"
    """
    return "<br>".join(textwrap.wrap(text, width))


def log_ticks(low: float = 1e-4, high: float = 1e4) -> dict[str, list]:
    """Tick values 1, 2, 5 × 10ᵏ between ``low`` and ``high``, labelled in full.

    Plotly's own log ticks label 20 and 50 as "2" and "5"; these read as numbers.

    Examples
    --------
    >>> log_ticks(1, 10)["ticktext"]
    ['1', '2', '5', '10']
    """
    values = [m * 10.0**e for e in range(-16, 17) for m in (1, 2, 5)]
    shown = [v for v in values if low * (1 - 1e-9) <= v <= high * (1 + 1e-9)]
    return {"tickvals": shown, "ticktext": [f"{v:g}" for v in shown]}


def series_color(index: int) -> str:
    """The colour of the ``index``-th series (plan line, ledger row), cycling.

    Examples
    --------
    >>> series_color(0) == series_color(len(SERIES_COLORS))
    True
    """
    return SERIES_COLORS[index % len(SERIES_COLORS)]


def method_color(method: str) -> str:
    """The colour of an accounting method (grey for an unknown name)."""
    return METHOD_COLORS.get(method, "#868e96")


Skeleton = dict[str, Any]


def skeleton(fig: go.Figure) -> Skeleton:
    """A figure validated once, as plain values: what :func:`refill` swaps data into.

    A factory builds it through Plotly's validating API from its shape alone (titles, trace
    kinds, panels) and caches it on that shape; Plotly validates every property it is given
    (``go.Figure``, ``add_trace``, ``update_layout``), which was about half the server CPU of
    an ε move on /covariance (issue 33), and a move changes the data, not the shape.
    """
    return fig.to_dict()


def refill(shape: Skeleton, traces: list[dict[str, Any]],
           layout: dict[str, Any] | None = None) -> go.Figure:
    """``shape`` with its data swapped in, not validated again.

    Trace ``i`` of ``shape`` takes the properties of ``traces[i]`` (top-level names, values as
    a validated figure holds them: arrays, lists, strings); ``layout`` sets properties by
    dotted path (``{"xaxis.title.text": "ε"}``). ``shape`` itself is never changed, so it
    may be cached and shared between sessions.

    Examples
    --------
    >>> shape = skeleton(go.Figure(go.Bar(x=[0], name="a"), layout={"title": "t"}))
    >>> fig = refill(shape, [{"x": [2.0]}], {"title.text": "u"})
    >>> fig.data[0].x, fig.data[0].name, fig.layout.title.text, shape["data"][0]["x"]
    ((2.0,), 'a', 'u', [0])
    """
    if len(traces) != len(shape["data"]):
        raise ValueError(f"the skeleton has {len(shape['data'])} traces, got {len(traces)}")
    data = [{**old, **new} for old, new in zip(shape["data"], traces, strict=True)]
    drawn = dict(shape["layout"])
    for path, value in (layout or {}).items():
        *parents, leaf = path.split(".")
        node = drawn
        for name in parents:  # copy the dicts on the path, share the rest
            node[name] = dict(node.get(name, {}))
            node = node[name]
        node[leaf] = value
    return go.Figure({"data": data, "layout": drawn}, _validate=False)
