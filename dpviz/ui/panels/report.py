"""The stakeholder report's button: every page with a risk panel offers the same one-pager.

The risk panel (:func:`dpviz.ui.panels.risk.risk_panel`) calls :func:`report_button` with its plain
summary; the picture is the first figure the page showed this run, the accuracy the tables
the page passes. The HTML itself is built by :func:`dpviz.lab.report.report_html` when the
button is clicked (Plotly's SVG export through kaleido's browser takes seconds).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime
from urllib.parse import urlencode

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpviz.core.version import VERSION
from dpviz.lab.card import figure_images
from dpviz.lab.report import Table, report_html
from dpviz.privacy.risk import PlainRisk
from dpviz.ui.panels.card import bound_params, kept_browser
from dpviz.ui.widgets import SHOWN_FIGURES
from dpviz.viz.risk import icon_array

LOG = logging.getLogger("dpviz")
#: Figures that are not the page's picture: the budget bar and the panel's own curves.
NOT_PICTURES = ("ledger", "budget-bar", "attack-tradeoff", "posterior")


def page_link() -> str:
    """The address that reopens this page as it is: its path and URL-bound widgets."""
    params = bound_params()
    base = st.context.url or ""
    return f"{base}?{urlencode(params, doseq=True)}" if params else base


def picture() -> go.Figure | None:
    """The first figure the page showed this run (its main one), if any."""
    shown: Mapping[str, go.Figure] = st.session_state.get(SHOWN_FIGURES, {})
    return next((fig for name, fig in shown.items()
                 if not any(word in name for word in NOT_PICTURES)), None)


def tables_of(accuracy: Mapping[str, pd.DataFrame],
              without_privacy: Collection[str] = ()) -> list[Table]:
    """The page's accuracy tables as the report's plain tables (every cell as text).

    ``without_privacy``: the captions of the tables computed from the user's rows without
    noise (labelled so in the report).
    """
    return [Table(caption, [str(c) for c in frame.columns],
                  frame.astype(str).to_numpy().tolist(), caption in without_privacy)
            for caption, frame in accuracy.items()]


def svg_of(fig: go.Figure | None) -> str | None:
    """The figure as SVG markup through kaleido's browser, or ``None`` when it cannot."""
    if fig is None:
        return None
    files, _ = figure_images({"picture": fig}, browser=kept_browser())
    svg = files.get("figures/picture.svg")
    return svg.decode() if svg else None


def report_button(plain: PlainRisk, *, key: str, title: str,
                  accuracy: Mapping[str, pd.DataFrame] | None = None,
                  notes: Sequence[str] = (), warnings: Sequence[str] = (),
                  own_data: bool = False, without_privacy: Collection[str] = ()) -> None:
    """A download button of the stakeholder report (built on the click).

    Parameters
    ----------
    plain : PlainRisk
        The risk panel's summary.
    key : str
        Page prefix of the button's key (``<key>_report``).
    title : str
        The page's title.
    accuracy : mapping, optional
        Caption → table of the page's accuracy (errors, intervals).
    notes : sequence of str
        Sentences under the tables (what an interval covers).
    warnings : sequence of str
        Sentences directly under the headline (a seeded run of the user's own data).
    own_data : bool
        The run is of the user's own rows: the picture (their rows, the exact answer) is
        labelled as computed without privacy, and so are the tables in ``without_privacy``.
    without_privacy : collection of str
        Captions of the accuracy tables computed from the rows without noise (distances to
        the exact answer); labelled on the user's own data only (a public set's are public).
    """
    tables = tables_of(accuracy or {}, without_privacy if own_data else ())
    link, fig = page_link(), picture()
    made = (f"Made by dpviz {VERSION} on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC from the "
            "run shown on the page.")

    def build() -> str:
        return report_html(title=title, plain=plain, icons=icon_array(plain.picked),
                           link=link, picture=svg_of(fig), tables=tables, notes=notes,
                           made=made, warnings=warnings, picture_without_privacy=own_data)

    st.download_button("Report for stakeholders (one page, HTML)", data=build,
                       file_name=f"dpviz-{key}-report.html", mime="text/html",
                       key=f"{key}_report", on_click="ignore", icon=":material/summarize:",
                       help="The picture, the ε you set, the risk in words and frequencies, "
                            "the accuracy and the link, as one page to share or print.")
