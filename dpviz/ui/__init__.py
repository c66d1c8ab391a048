"""The Streamlit layer: the only package in dpviz that imports Streamlit.

Pages call :func:`page` first, then build their widgets from the helpers here and draw
figures from :mod:`dpviz.viz` with :func:`show_chart`.
"""

from typing import TYPE_CHECKING

from dpviz.core.lazy import lazy_names
from dpviz.ui.shell import PageContext, intro, main_columns, navigation, page
from dpviz.ui.widgets import (
    advanced,
    attempt,
    choices_table,
    delta_input,
    epsilon_slider,
    escape_markdown,
    lazy_expander,
    method_select,
    show_chart,
)

if TYPE_CHECKING:  # the page modules load on first use: Home does not import the budget's
    from dpviz.ui import budget, cached, home, lens

__getattr__ = lazy_names(__name__, {"budget": (), "cached": (), "home": (), "lens": ()})

__all__ = [
    "PageContext", "advanced", "attempt", "budget", "cached", "choices_table", "delta_input",
    "epsilon_slider", "escape_markdown", "home", "intro", "lazy_expander", "lens", "main_columns",
    "method_select", "navigation", "page", "show_chart",
]
