"""Widgets and display helpers every page shares.

Ranges come from :mod:`dpviz.core.limits`; widgets carry explicit keys and are bound to the URL,
so a copied link reopens the scenario.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpviz.core import limits
from dpviz.core.entry import Param
from dpviz.data.files import sha256
from dpviz.estimators.work import BIGGER_JOBS, check_table
from dpviz.lab.scenario import MAX_LABEL
from dpviz.privacy import METHOD_LABELS, METHODS
from dpviz.viz import figure_table
from dpviz.viz.style import plain_text

if TYPE_CHECKING:
    import pandas as pd

T = TypeVar("T")

PRESENTER_FONTS = MappingProxyType({"font_size": 17, "title_font_size": 21,
                                    "legend_font_size": 16})
DEFAULT_HEIGHT = 450
#: Plotly toolbar buttons left out (kept: PNG, zoom, pan, reset), so it stays short.
TOOLBAR_REMOVED = ("select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d",
                   "toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian")
#: Presenter mode's chart height at most (px), so a page's main chart and its ε fit on one
#: 1280 × 720 projector screen; taller figures (several rows of panels) keep their height.
PRESENTER_HEIGHT = 440
#: Session key of the figures this run of the page has shown, by file name (the experiment
#: card zips them); :func:`dpviz.ui.shell.page` empties it at the start of every run.
SHOWN_FIGURES = "_shown_figures"
#: Characters that open Markdown (or Streamlit, KaTeX) syntax anywhere in a line.
_ALWAYS = frozenset("\\`*[]~|$")
#: Characters that open a block only at the start of a line (``#`` heading, ``>`` quote,
#: ``-``/``+``/``=`` list or rule).
_LINE_START = frozenset("#>+-=")
#: Word joiner (U+2060): invisible, and it breaks the patterns Streamlit's renderer matches on
#: the *decoded* text, where a backslash escape no longer shows (GFM autolinks ``http://``,
#: ``www.``, ``a@b.c``; emoji ``:name:``; the ``:material/`` icon rewrite).
_JOINER = "\u2060"
_WWW = re.compile(r"(?i)(www)(?=\.)")
_ORDERED = re.compile(r"\d+[.)]")
#: What a page says when something other than a bad input went wrong (the trace goes to the
#: server's log, never to the browser).
INTERNAL_ERROR = ("Something went wrong on the server while drawing this page. The details "
                  "are in the server's log; try other settings or reload the page.")
LOG = logging.getLogger("dpviz")
#: Session key prefix: a selectbox set from an option's name in the link, not yet written back
#: (the value: how many runs set it again); :func:`accept_option_names` tries ``LINK_RUNS`` runs.
_NAMED = "_named_in_link_"
LINK_RUNS = 3


def escape_markdown(text: object) -> str:
    r"""``text`` as Markdown that renders literally, for ``st.error``, ``st.caption`` and kin.

    What a user typed, uploaded or put in a link reaches messages through this, so a value
    such as ``![p](http://host/pixel.png)`` shows as those characters instead of fetching an
    image. Only what could start Markdown is touched, so an ordinary sentence comes back
    unchanged (``"epsilon must be > 0, got -1"``):

    - backslash-escaped (CommonMark, section 2.4): ``\ ` * [ ] ~ | $`` everywhere; ``_``
      unless inside a word; ``<`` before a tag or autolink; ``&`` before an entity;
      ``# > + - =`` and ``1.`` at the start;
    - a word joiner (U+2060, invisible) after a ``:`` followed by a non-space, after ``@``
      and inside ``www.``: Streamlit's renderer finds GFM autolinks, emoji and its
      ``:material/`` icons in the decoded text, where escapes no longer count, and its
      ``:color[...]`` directives need ``:`` right before the name;
    - runs of white space (newlines included) become one space, so no value opens a block.

    Streamlit still draws its typographic arrows and relations (`` <= `` as ≤, `` -> `` as
    →) between spaces. A browser check of every construct above is in
    ``tests/browser/test_probes_browser.py``.

    Parameters
    ----------
    text : object
        Any value; ``str(text)`` is escaped.

    Returns
    -------
    str
        Markdown whose rendering is ``text``'s characters (plus invisible joiners).

    Examples
    --------
    >>> escape_markdown("[Log in](http://host/x)")
    '\\[Log in\\](http:\u2060//host/x)'
    >>> escape_markdown("gmm_radius must be > 0, got -1")
    'gmm_radius must be > 0, got -1'
    """
    line = _WWW.sub(rf"\1{_JOINER}", " ".join(str(text).split()))
    ordered = _ORDERED.match(line)
    marker = ordered.end() - 1 if ordered else 0  # "1." would start a list
    out = []
    for i, char in enumerate(line):
        before = line[i - 1] if i else ""
        after = line[i + 1] if i + 1 < len(line) else ""
        if (char in _ALWAYS or (i == 0 and char in _LINE_START) or (ordered and i == marker)
                or _opens_inline(char, before, after)):
            out.append("\\" + char)
        elif char == "@" or (char == ":" and after and not after.isspace()):
            out.append(char + _JOINER)
        else:
            out.append(char)
    return "".join(out)


def as_sentence(text: str) -> str:
    """A clause worded for running text (the engine's reasons), shown on its own as a sentence.

    Examples
    --------
    >>> as_sentence("no interval: coverage not established (nothing was released)")
    'No interval: coverage not established (nothing was released).'
    >>> as_sentence("Each ± is a 90 % interval.")
    'Each ± is a 90 % interval.'
    """
    return f"{text[:1].upper()}{text[1:]}{'' if text.endswith('.') else '.'}"


#: A command line quoted in a sentence (:data:`dpviz.estimators.work.BIGGER_JOBS`).
_COMMAND = re.compile(r"python -m dpviz(?: (?:run|solve|sweep)\b)?(?: --[a-z]+(?: [A-Z]+)?)*")


def sentence_markdown(text: object) -> str:
    """A sentence as Markdown that renders literally, its commands as code unsplit at hyphens.

    :func:`escape_markdown`, then each word of a ``python -m dpviz …`` command becomes a code
    span (kept whole by the app's style sheet, ``assets/app.css``): a browser broke
    ``python -`` / ``m dpviz`` and ``sweep --`` / ``scheduler`` across lines; now a command
    wraps only between its words, and copies as typed. The pattern matches letters, spaces
    and hyphens only (which escaping leaves alone), so a span holds nothing Markdown could
    read.

    Examples
    --------
    >>> sentence_markdown("go to the command line (python -m dpviz run or solve)")
    'go to the command line (`python` `-m` `dpviz` `run` or solve)'
    """
    def code(command: re.Match[str]) -> str:
        return " ".join(f"`{word}`" for word in command.group().split())

    return _COMMAND.sub(code, escape_markdown(text))


def _opens_inline(char: str, before: str, after: str) -> bool:
    """Whether ``char`` between ``before`` and ``after`` can open emphasis, a tag or an entity."""
    letter = after.isascii() and after.isalpha()
    if char == "_":  # inside a word (snake_case) it cannot (CommonMark, section 6.2)
        return not (before.isalnum() and after.isalnum())
    if char == "<":
        return letter or after in ("/", "!", "?")
    return char == "&" and (letter or after == "#")


def show_failure(err: Exception) -> None:
    """Show what went wrong as one sentence, never a trace or a server path.

    A ``ValueError`` is the engine's sentence about a bad input (``"epsilon must be > 0,
    got 0"``): shown escaped, since it may quote what the user typed. Anything else is a
    bug: its trace goes to the server's log (logger ``"dpviz"``) and the page shows
    :data:`INTERNAL_ERROR`.
    """
    if isinstance(err, ValueError):
        st.error(sentence_markdown(err), icon=":material/error:")
    else:
        LOG.error("page failed", exc_info=err)
        st.error(INTERNAL_ERROR, icon=":material/error:")


#: An edge list's columns (its two ends): how :func:`upload_content` counts any upload's rows.
EDGE_COLUMNS = 2


def upload_content(upload: Any) -> bytes:
    """An upload's bytes, refused when over :data:`dpviz.core.limits.MAX_UPLOAD_BYTES`.

    Checks the size Streamlit reports before the bytes are copied, then the lines counted
    against a page's cap as rows of two columns, an edge list's (:func:`dpviz.estimators.work.
    check_table`; a first line of another width gets the edge list's or the table's own
    sentence later); a table's own columns are checked by :func:`upload_table`. Nothing is
    parsed before.

    Raises
    ------
    ValueError
        Naming the limit and where bigger files go.
    """
    if int(upload.size) > limits.MAX_UPLOAD_BYTES:
        cap = limits.MAX_UPLOAD_BYTES // limits.MEGABYTE
        raise ValueError(f"the file has {int(upload.size) / limits.MEGABYTE:,.0f} MB; a page "
                         f"reads at most {cap} MB. {BIGGER_JOBS}.")
    content = bytes(upload.getvalue())
    check_table(content, columns=EDGE_COLUMNS)
    return content


def upload_table(upload: Any) -> bytes:
    """A table upload's bytes, refused before any parsing when too big for a page.

    After :func:`upload_content`, the rows × columns read without parsing
    (:func:`dpviz.estimators.work.check_table`: the lines counted, the first line's cells)
    against a page's public data domain; the sentence names the cap for that many columns.
    """
    content = upload_content(upload)
    check_table(content)
    return content


def upload_block(upload: Any, content: bytes) -> dict[str, Any]:
    """A scenario's data block for an upload: its name as a label, the SHA-256 of its bytes.

    The name is a label, never a path; the bytes travel beside the scenario (``content=``).
    """
    label = str(getattr(upload, "name", "")).strip()[:MAX_LABEL] or "uploaded file"
    return {"upload": label, "sha256": sha256(content)}


def attempt(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call the engine; on an exception show a sentence (:func:`show_failure`) and stop.

    The page draws nothing that depends on the failed call. Streamlit's own control flow
    (``st.stop``, reruns) raises ``BaseException`` subclasses, which pass through.
    """
    try:
        return function(*args, **kwargs)
    except Exception as err:  # the page's error boundary
        show_failure(err)
        st.stop()
        raise  # st.stop() raises; this line is for type checkers


def advanced(label: str, key: str) -> DeltaGenerator:
    """An expander for advanced settings, hidden (not removed) in presenter mode.

    The widgets inside keep rendering, so their values and URL parameters survive a switch
    to presenter mode; presenter CSS hides the ``st-key-advanced-*`` container.
    """
    return st.container(key=f"advanced-{key}").expander(label, icon=":material/tune:")


def lazy_expander(label: str, body: Callable[[], object], *, key: str,
                  icon: str | None = None) -> None:
    """An expander whose ``body`` runs only while it is open.

    A closed section costs nothing on a rerun: no engine work, no figure is built or sent
    to the browser. Opening it reruns the page (Streamlit's ``on_change="rerun"``) and its
    open state is the session's ``st.session_state[key]``. Pages put every optional panel
    (audit, solve, paper reproductions, comparisons) in one, so moving ε redraws only what
    ε changes: the load test of thirty students on one server (``bench/load_test.py``)
    measures why.
    """
    box = st.expander(label, icon=icon, key=key, on_change="rerun")
    if box.open:
        with box:
            body()


#: The ε slider's stops, 0.01 to 20 (:data:`dpviz.core.limits.EPSILON_UI`): rounded values
#: about evenly spaced in log ε, denser from 0.1 to 2 (half the track), where choices are made.
EPSILON_STOPS = (0.01, 0.015, 0.02, 0.03, 0.05, 0.07,
                 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9,
                 1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0, 15.0, 20.0)
#: The covariance page's ρ slider's stops (the solve panel sets it too): ρ on a log grid
#: 1, 2, 5 × 10ᵏ, as the covariance paper's Figure 3d spans 1e-4 … 10.
RHO_GRID: tuple[float, ...] = tuple(float(f"{m}e{e}") for e in range(-4, 1) for m in (1, 2, 5))
RHO_GRID += (10.0,)
_EPSILON_HELP = ("The privacy budget: smaller ε means more noise and more privacy. Slide "
                 "(the stops are spaced on a log scale) or type any value from "
                 f"{limits.EPSILON_UI.low:g} to {limits.EPSILON_UI.high:g} in the box. "
                 "[ε and δ in the glossary](/glossary#epsilon-and-delta)")


def nearest_stop(epsilon: float) -> float:
    """The slider stop nearest ``epsilon`` in log scale (where the slider shows a typed value).

    Examples
    --------
    >>> nearest_stop(0.37), nearest_stop(1.0), nearest_stop(100.0)
    (0.4, 1.0, 20.0)
    """
    return min(EPSILON_STOPS, key=lambda stop: abs(math.log(stop / epsilon)))


def _slid(key: str) -> None:
    """The slider moved: its stop becomes the number box's value (and the URL's)."""
    st.session_state[key] = st.session_state[f"{key}_slider"]


def epsilon_slider(key: str, *, value: float = 1.0, label: str = "ε (target)") -> float:
    """ε: a log-scale slider with a number box beside it, over :data:`limits.EPSILON_UI`.

    The number box holds the value, under ``key`` and bound to the URL, so a typed ε such as
    0.37 and an old link (``?gmm_epsilon=1.5``) open as they are. The slider
    (``key + "_slider"``, over :data:`EPSILON_STOPS`) shows the stop nearest that value and,
    when moved, sets the box.

    Returns
    -------
    float
        The number box's ε.
    """
    # the box level with the track (bottom-aligned, no label spacer); a phone stacks them
    track, box = st.columns([3, 1], gap="small", vertical_alignment="bottom")
    epsilon = float(box.number_input(
        f"{label}, typed", min_value=limits.EPSILON_UI.low, max_value=limits.EPSILON_UI.high,
        value=value, step=0.01, format="%g", key=key, bind="query-params",
        label_visibility="collapsed"))
    slider = f"{key}_slider"
    if st.session_state.get(slider) != nearest_stop(epsilon):  # before the slider is drawn
        st.session_state[slider] = nearest_stop(epsilon)
    track.select_slider(label, EPSILON_STOPS, format_func=lambda stop: f"{stop:g}", key=slider,
                        on_change=_slid, args=(key,), help=_EPSILON_HELP)
    return epsilon


def delta_input(key: str, *, value: float = 1e-5, label: str = "δ (target)") -> float:
    """δ, typed (``1e-5``); the engine checks ``0 ≤ δ < 1`` and says so otherwise."""
    return float(st.number_input(
        label, min_value=limits.DELTA.low, value=value, step=1e-6, format="%.1e", key=key,
        bind="query-params",
        help="The small probability the guarantee may fail; 0 is pure DP (Laplace only). "
             "A common choice is below 1/n. [In the glossary](/glossary#epsilon-and-delta)"))


def accept_option_names(key: str, options: Sequence[str],
                        label: Callable[[str], str]) -> None:
    """Let a link name a bound selectbox's option by its name (``?gmm_source=csv``).

    A bound selectbox writes its option's *label* to the URL (``gmm_source=Upload+a+CSV+file``)
    and drops any other value, so a hand-written link with the option's name opened the
    default instead. Before the widget is created, a name in the link is put into the
    session state (the one way to set a bound widget). Streamlit still drops the name from
    the link, and writes a value set so to the link only on a run after the browser has
    sent the widget back: so the value is set again on the next :data:`LINK_RUNS` runs until
    the link shows the label (after an upload, the address keeps ``gmm_source``).
    """
    accept_link_values(key, {o: o for o in options if o not in {label(x) for x in options}},
                       label)


def accept_link_values(key: str, given: Mapping[str, Any],
                       label: Callable[[Any], str]) -> None:
    """Let a link carry a bound widget's value as links wrote it before the label changed.

    ``given`` maps what a link may carry (an option's name, an old label, ``?cov_rho=0.1``)
    to the widget's value; ``label`` is the widget's ``format_func``. The value goes into the
    session state before the widget is created, again on the next :data:`LINK_RUNS` runs until
    the link shows the label (:func:`accept_option_names`).
    """
    pending = _NAMED + key
    raw = st.query_params.get(key)
    if pending in st.session_state:
        if key not in st.session_state or raw == label(st.session_state[key]) or \
                st.session_state[pending] >= LINK_RUNS:
            del st.session_state[pending]
        else:
            st.session_state[pending] += 1
            st.session_state[key] = st.session_state[key]  # Streamlit writes it to the link
        return
    if raw is not None and raw in given and key not in st.session_state:
        st.session_state[key] = given[raw]
        st.session_state[pending] = 0


def clamp_state(key: str, valid: Sequence[Any]) -> None:
    """Forget a widget's remembered value when it is no longer valid (e.g. d shrank)."""
    if key in st.session_state and st.session_state[key] not in valid:
        del st.session_state[key]


def _choice_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_choice_text(v)}" for k, v in value.items())
    return str(value)


def choices_table(choices: Mapping[str, Any]) -> pd.DataFrame:
    """The result's ``choices`` as two text columns.

    Examples
    --------
    >>> choices_table({"radius": 1.0, "noise": {"means": 2.5}}).values.tolist()
    [['radius', '1'], ['noise', 'means 2.5']]
    """
    import pandas as pd  # loaded with the first table shown, not with every page

    return pd.DataFrame([{"choice": str(k), "value": _choice_text(v)}
                         for k, v in choices.items()], columns=["choice", "value"])


def method_select(key: str, *, value: str = "pld", label: str = "Accounting") -> str:
    """The accounting method, one of :data:`dpviz.privacy.METHODS`."""
    accept_option_names(key, METHODS, METHOD_LABELS.__getitem__)  # old links say ``pld``
    return str(st.selectbox(
        label, METHODS, index=METHODS.index(value), format_func=METHOD_LABELS.__getitem__,
        key=key, bind="query-params",
        help="How the releases' privacy losses add up; tighter methods certify a smaller ε "
             "for the same noise. [Accounting in the glossary](/glossary#accounting)"))


def show_chart(fig: go.Figure, *, key: str, filename: str, alt: str | None = None) -> None:
    """Show a figure with a PNG toolbar button and a CSV download of the data it plots.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        From a :mod:`dpviz.viz` factory.
    key : str
        The chart's key (the CSV button's is ``key + "-csv"``).
    filename : str
        Base name of the PNG and CSV files.
    alt : str, optional
        A text description of the chart.
    """
    if st.session_state.get("presenter"):
        fig = go.Figure(fig)  # a copy: a figure may be cached and shared between sessions
        height = fig.layout.height or DEFAULT_HEIGHT
        fig.update_layout(height=height if height > 700 else min(int(height * 1.2),
                                                                  PRESENTER_HEIGHT),
                          **PRESENTER_FONTS)
    # the toolbar on hover only and short (upright at the right edge: the viz template)
    config = {"displaylogo": False, "displayModeBar": "hover",
              "modeBarButtonsToRemove": TOOLBAR_REMOVED,
              "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2}}
    st.plotly_chart(fig, theme=None, width="stretch", key=key, config=config,
                    alt=alt or plain_text(fig.layout.title.text or ""))
    st.session_state.setdefault(SHOWN_FIGURES, {})[filename] = fig  # for the experiment card
    # deferred: the table is built on a click, not on every rerun (15 ms a figure)
    st.download_button("Download the data (CSV)",
                       data=lambda: figure_table(fig).to_csv(index=False),
                       file_name=f"{filename}.csv", mime="text/csv", key=f"{key}-csv",
                       on_click="ignore", icon=":material/download:", type="tertiary")


def param_widget(key: str, param: Param, label: str | None = None) -> Any:
    """A widget for one registry parameter, with its default, range and help.

    Parameters
    ----------
    key : str
        The widget's key and URL parameter (pages use ``<page>_<estimator>_<param>``).
    param : Param
        The registry's description: its type picks the widget.
    label : str, optional
        Defaults to the parameter's name in words.
    """
    label = label or param.name.replace("_", " ").capitalize()
    if param.type == "bool":
        return bool(st.toggle(label, value=bool(param.default), key=key,
                              bind="query-params", help=param.help))
    if param.options is not None:
        options = tuple(param.options)
        return st.selectbox(label, options, index=options.index(param.default), key=key,
                            bind="query-params", help=param.help)
    automatic = param.default is None  # "automatic": the estimator picks it (say how in help)
    placeholder = "automatic" if automatic else None
    if param.type == "int":
        value = st.number_input(label, min_value=int(param.min or 0),
                                max_value=None if param.max is None else int(param.max),
                                value=None if automatic else int(param.default), step=1,
                                format="%d", key=key, bind="query-params", help=param.help,
                                placeholder=placeholder)
        return None if value is None else int(value)
    number = st.number_input(label, min_value=param.min, max_value=param.max,
                             value=None if automatic else float(param.default), format="%g",
                             key=key, bind="query-params", help=param.help,
                             placeholder=placeholder)
    return None if number is None else float(number)
