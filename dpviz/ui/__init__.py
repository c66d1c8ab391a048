"""The Streamlit layer: the only package in dpviz that imports Streamlit.

Pages call :func:`page` first, then build their widgets from the helpers here and draw
figures from :mod:`dpviz.viz` with :func:`show_chart`. Three kinds of module, in layers (the
``ui-layers`` import contract): :mod:`dpviz.ui.pages` holds the page bodies, one page's each;
:mod:`dpviz.ui.panels` the panels several pages show (predict, risk, audit, card, solve,
winner, upload…); the modules here the shell and widgets every page uses (the page frame, the
widgets, the cached engine calls, the runs, the progress bar, the live-class seat, the page
list and the warm-up).
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

if TYPE_CHECKING:  # loads on first use: a page without cached engine calls skips its imports
    from dpviz.ui import cached

__getattr__ = lazy_names(__name__, {"cached": ()})

__all__ = [
    "PageContext", "advanced", "attempt", "cached", "choices_table", "delta_input",
    "epsilon_slider", "escape_markdown", "intro", "lazy_expander", "main_columns",
    "method_select", "navigation", "page", "show_chart",
]
