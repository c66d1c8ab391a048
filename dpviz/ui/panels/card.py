"""The experiment card panel of an estimator page: a link to the scenario, and the card zip.

The card (:mod:`dpviz.lab.card`) replays the page's run headless with the same numbers; the link
reopens the page with the same widgets, since every widget is bound to the URL (issue 9,
part 5). Building the zip draws every figure as PNG and SVG in a browser (kaleido's, one per
server, started in the background when a card panel is first shown: starting it took most of a
card's time), so it waits for a "Prepare card" click, under a progress bar, and is kept in the
session until the scenario changes.

A card of an uploaded file is made from the upload's bytes — its name is a label, never a
path the server reads — and records their SHA-256 and the name, not the rows.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import replace
from urllib.parse import urlencode, urlsplit

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpviz.lab.card import (
    COMMAND,
    IMAGE_TIMEOUT,
    UPLOAD_COMMAND,
    Browser,
    card_zip,
    image_export_available,
    make_card,
)
from dpviz.lab.scenario import Scenario
from dpviz.ui.progress import timed_bar
from dpviz.ui.widgets import SHOWN_FIGURES
from dpviz.viz import figure_table

UPLOAD_NOTE = ("It keeps the uploaded file's name and fingerprint (SHA-256), not its rows, "
               "and no figures or tables (they draw the rows): a replay needs that same file "
               "as `FILE`, and refuses any other.")
#: The page of each task (``pages/<name>.py``, served at ``/<name>``).
PAGES = {"gmm": "gmm", "covariance": "covariance", "sbm": "sbm"}


def bound_params() -> dict[str, str | list[str]]:
    """Every URL-bound widget away from its default, written as the browser writes it.

    The browser keeps its address bar in step with the bound widgets, but the server's
    ``st.query_params`` is not refreshed on a rerun of the same page, so the link is built
    from the widgets themselves, with Streamlit's own serializers (internal API, pinned
    Streamlit 1.67).
    """
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    from streamlit.runtime.state.query_params import _coerce_value_for_query_url

    run = get_script_run_ctx()
    if run is None:
        return {}
    state = run.session_state._state
    widgets = state._new_widget_state
    out: dict[str, str | list[str]] = {}
    for name, binding in sorted(state.query_params._bindings_by_param.items()):
        metadata = widgets.widget_metadata.get(binding.widget_id)
        if metadata is None or binding.widget_id not in widgets:
            continue
        value = widgets[binding.widget_id]
        if name in state._new_session_state:  # set by a callback this run (the ε slider's)
            value = state._new_session_state[name]
        if value == metadata.deserializer(None):
            continue
        out[name] = _coerce_value_for_query_url(metadata.serializer(value), metadata.value_type)
    return out


def scenario_url(scenario: Scenario) -> str:
    """The link that reopens the page of ``scenario`` as it is now: its path and query.

    The widgets are bound to the URL, so the page's query parameters are its state
    (:func:`bound_params`); the global seed is added when it is not there (it is left out at
    its default), except in secure mode, where the link carries ``secure=true`` and no seed.
    """
    params = bound_params()
    if scenario.seed is not None and not st.session_state.get("secure"):
        params.setdefault("seed", str(scenario.seed))
    base = ""
    url = st.context.url
    if url:
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
    path = PAGES.get(scenario.task, scenario.task)
    return f"{base}/{path}?{urlencode(params, doseq=True)}"


def _prepare(scenario: Scenario, content: bytes | None, figures: Mapping[str, go.Figure],
             tables: Mapping[str, pd.DataFrame]) -> bytes:
    """The card's zip under a bar: the scenario's run, the browser, one step per figure.

    The bar's pace counts from the browser being ready (its first step), so its time left is
    the figures' own pace.
    """
    drawing = "Preparing the card: drawing the figures"
    with timed_bar("Preparing the card: running the scenario", 1 + len(figures)) as bar:
        card = make_card(scenario, content=content)
        shown = dict(tables)
        for name, fig in figures.items():
            shown.setdefault(f"{name} (figure data)", figure_table(fig))
        browser = kept_browser() if figures and "upload" not in scenario.data else None
        bar.step(1, text=drawing)
        return card_zip(card, figures, shown, browser=browser,
                        progress=lambda done, total: bar.step(1 + done, text=drawing))


def card_button(scenario: Scenario, figures: Mapping[str, go.Figure],
                tables: Mapping[str, pd.DataFrame], *, key: str,
                content: bytes | None = None) -> None:
    """The scenario link, a "Prepare card" button, then the card zip's download button.

    Parameters
    ----------
    scenario : Scenario
        The page's run (its controls' scenario).
    figures : mapping
        Name → figure, as drawn on the page.
    tables : mapping
        Name → table of numbers shown on the page.
    key : str
        Prefix of the widgets' keys and of the session entry that keeps the zip.
    content : bytes, optional
        The uploaded file's bytes, for a scenario run on an upload: the card is made from
        them (their SHA-256 is the scenario's).
    """
    secure = bool(st.session_state.get("secure"))
    if secure:
        scenario = replace(scenario, seed=None)
    url = scenario_url(scenario)
    st.markdown(f"[Link to this scenario]({url}): it reopens this page with these settings"
                + (" (new noise: secure randomness)." if secure else " and numbers."))
    st.code(url, language=None)
    fingerprint = json.dumps(scenario.to_dict(), sort_keys=True)
    kept = st.session_state.get(f"{key}_card")
    if st.button("Prepare card", key=f"{key}_prepare", icon=":material/inventory_2:",
                 help="Runs the scenario again headless and draws every figure as PNG and "
                      "SVG (a second or two)."):
        zipped = _prepare(scenario, content, figures, tables)
        kept = st.session_state[f"{key}_card"] = (fingerprint, zipped)
    if kept is not None and kept[0] == fingerprint:
        st.download_button("Download the card (zip)", data=kept[1],
                           file_name=f"dpviz-card-{scenario.task}-{scenario.estimator}.zip",
                           mime="application/zip", key=f"{key}_download", on_click="ignore",
                           icon=":material/download:")
    upload = "upload" in scenario.data
    if secure:
        st.caption("Secure randomness: the card records the scenario but cannot reproduce "
                   "its numbers (no seed was kept).")
    else:
        st.caption("The card holds the scenario (every parameter and the seed), the numbers, "
                   "the figures (PNG, SVG) and tables (CSV), the package versions and "
                   f"`regenerate.sh`: `{UPLOAD_COMMAND if upload else COMMAND}` prints the "
                   "same numbers.")
    if upload:
        st.caption(UPLOAD_NOTE)


class KeptBrowser:
    """The server's one figure browser, started in the background, replaced only once it failed.

    A card's figures are drawn by kaleido's browser, and starting it is most of a first
    card's time; it starts when a card panel is first shown, so "Prepare card" finds it up.
    One browser for every user (they take turns, :class:`dpviz.lab.card.Browser`). A card
    that stops waiting for it leaves it starting, and the next panel waits for that same one:
    a new browser starts only after the last one failed to start or broke, so the server runs
    at most one at a time, however loaded.

    Parameters
    ----------
    start : callable
        Makes a started browser (:class:`dpviz.lab.card.Browser`); it runs on its own thread.
    """

    def __init__(self, start: Callable[[], Browser]) -> None:
        self._start = start
        self._lock = threading.Lock()
        self._future: Future[Browser] | None = None

    def starting(self) -> Future[Browser]:
        """The browser's future, starting one when there is none or the last failed or broke."""
        with self._lock:
            future = self._future
            if future is None or (future.done() and (future.exception() is not None
                                                     or future.result().broken)):
                future = self._future = Future()
                threading.Thread(target=self._run, args=(future,), daemon=True,
                                 name="dpviz-card-browser-start").start()
            return future

    def _run(self, future: Future[Browser]) -> None:
        try:
            future.set_result(self._start())
        except Exception as err:  # no browser: the card says so when it is made
            future.set_exception(err)

    def get(self, timeout: float = IMAGE_TIMEOUT) -> Browser | None:
        """The browser once up, or ``None`` after ``timeout`` seconds, or when it failed or broke.

        A browser still starting is kept for the next card; one that failed or broke is
        replaced when the next panel asks (:meth:`starting`).
        """
        try:
            browser = self.starting().result(timeout=timeout)
        except Exception:  # figure_images then tries a browser of its own, and says why not
            return None
        return None if browser.broken else browser


@st.cache_resource(show_spinner=False)
def _browser() -> KeptBrowser:
    """The server's one :class:`KeptBrowser` (one per server process)."""
    return KeptBrowser(Browser)


def kept_browser() -> Browser | None:
    """The server's browser once started, or ``None`` (:meth:`KeptBrowser.get`)."""
    return _browser().get()


def card_panel(scenario: Scenario, *, key: str,
               tables: Mapping[str, pd.DataFrame] | None = None,
               content: bytes | None = None) -> None:
    """The card panel of a page: its scenario, the figures it has shown this run, ``tables``.

    Parameters
    ----------
    scenario : Scenario
        The run the card replays (the page's controls' scenario).
    key : str
        Prefix of the panel's widget keys.
    tables : mapping, optional
        Tables shown on the page (each figure's data is added as CSV too).
    content : bytes, optional
        The uploaded file's bytes, for a scenario run on an upload: the card is made from
        them (its name is a label, never a path).
    """
    st.subheader("Experiment card")
    if image_export_available() and os.environ.get("DPVIZ_CARD_BROWSER") != "on-click":
        # DPVIZ_CARD_BROWSER=on-click: start it at the first "Prepare card" only
        _browser().starting()
    figures = dict(st.session_state.get(SHOWN_FIGURES, {}))
    card_button(scenario, figures, tables or {}, key=key,
                content=content if "upload" in scenario.data else None)
