"""The shared set-up every page makes first: page config, sidebar, navigation and style.

dpviz runs in Streamlit's pages-directory mode (DESIGN.md, Streamlit notes): ``app.py`` is the
Home page, every file in ``pages/`` is a page, and each starts with :func:`page`, which plays
the part a router would.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from .. import limits

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"

#: The grouped navigation: (group, ((script, label, icon), ...)). A page appears once its file
#: exists, so pages still to come are never mentioned.
NAVIGATION: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("Start", (("app.py", "Home", ":material/home:"),)),
    ("Privacy", (("pages/budget.py", "Privacy budget", ":material/account_balance_wallet:"),
                 ("pages/lens.py", "Privacy lens", ":material/visibility:"))),
    ("Estimators", (("pages/gmm.py", "Gaussian mixtures", ":material/bubble_chart:"),
                    ("pages/exposure.py", "Privacy exposure", ":material/person_search:"),
                    ("pages/factors.py", "Factor analysis", ":material/grid_view:"),
                    ("pages/covariance.py", "Covariance", ":material/grid_on:"),
                    ("pages/sbm.py", "Stochastic block model", ":material/hub:"))),
)

SEED_HELP = ("Seeds every random draw on every page, so a link reopens the same numbers. "
             "Seeded noise is for teaching and research: a real release needs secure "
             "randomness.")
PRESENTER_HELP = "Larger text and fewer controls (advanced settings hidden), for a projector."


@dataclass(frozen=True)
class PageContext:
    """What the sidebar decided for this run of a page.

    Attributes
    ----------
    seed : int
        The global seed.
    presenter : bool
        Whether presenter mode is on.
    """

    seed: int
    presenter: bool


@st.cache_data(max_entries=4, show_spinner=False)
def _css(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def navigation() -> None:
    """The grouped ``st.page_link`` navigation (the sidebar's, also usable in a page)."""
    with st.container(key="navigation"):
        for group, entries in NAVIGATION:
            present = [e for e in entries if (ROOT / e[0]).is_file()]
            if not present:
                continue
            st.caption(group)
            for script, label, icon in present:
                st.page_link(script, label=label, icon=icon)


def page(title: str) -> PageContext:
    """Set up a page: config, sidebar (navigation, seed, presenter mode), style and title.

    Parameters
    ----------
    title : str
        The page's title (also the browser tab's).

    Returns
    -------
    PageContext
        The seed and presenter mode chosen in the sidebar.
    """
    st.set_page_config(page_title=f"{title} · dpviz", page_icon=":material/shield_lock:",
                       layout="wide", initial_sidebar_state="expanded")
    with st.sidebar:
        st.markdown("## dpviz")
        navigation()
        st.divider()
        seed = st.number_input("Seed", min_value=int(limits.SEED.low),
                               max_value=int(limits.SEED.high), value=0, step=1, format="%d",
                               key="seed", bind="query-params", help=SEED_HELP)
        st.caption("Teaching randomness — reproducible, not for real releases.")
        presenter = st.toggle("Presenter mode", value=False, key="presenter",
                              bind="query-params", help=PRESENTER_HELP)
    css = _css("app.css") + (_css("presenter.css") if presenter else "")
    st.html(f"<style>{css}</style>")
    st.title(title)
    return PageContext(seed=int(seed), presenter=bool(presenter))
