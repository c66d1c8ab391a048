"""The upload step the table pages share: the file, its columns, and how the bound is chosen.

A user's own table needs what DP needs before anything runs (issue 17): its columns (names
and units, from the CSV's header) and a public bound, chosen one of four labelled ways — a
radius about the origin, ranges typed per column (from domain knowledge, never from the
data), private ranges (a share of ε spent on a private spread and centres, on the run's
ledger) or ranges read from the data (not private). The rows the bound clips are a teaching
diagnostic, labelled non-private; a warning with a suggested fix comes before the figure when
most rows are clipped or the bound is much wider than the data.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpviz.core import limits
from dpviz.data.tables import read_table
from dpviz.estimators.result import Result
from dpviz.lab.scenario import LoadedData, Scenario, budget_of, clipped_in_ball
from dpviz.privacy import Budget
from dpviz.privacy.bounds import (
    CENTRE_BINS,
    CLIPPED_NOTE,
    MAX_ROUNDS,
    SPREAD_FACTORS,
    TYPED_HINT,
    Box,
    bound_plan,
    parse_bounds,
    quantile_rows,
    split_budget,
)
from dpviz.ui.widgets import attempt, escape_markdown, upload_block, upload_table

#: The ways a bound is chosen, and their labels on the page.
WAYS = {"radius": "a radius about the origin (public)",
        "ranges": "ranges I type per column (public)",
        "private": "private ranges: a share of ε estimates them",
        "data": "read from the data (not private)"}
#: Shown beside every upload (tables here, the SBM page's edge list): the size the browser
#: sends (a bigger file is refused there, shown only by a red mark on its name, and never
#: reaches the page) and that links keep no file.
UPLOAD_NOTE = (f"At most {limits.MAX_UPLOAD_BYTES // limits.MEGABYTE} MB: a bigger file is "
               "refused before it is sent, and its name turns red. An uploaded file is not kept "
               "in the link: "
               "a copied link reopens every setting but not the file — upload it again. The "
               "file stays in this browser session only.")
#: The share of ε private ranges spend unless the user moves it.
DEFAULT_SHARE = 0.2
#: Most rows clipped: more than this share of them.
MOST_CLIPPED = 0.5
#: "Much wider than the data": a column's range this many times the data's spread.
TOO_WIDE = 10.0
#: Where a column name's unit is read from: a trailing ``(unit)`` or ``[unit]``.
_UNIT = re.compile(r"^(.*?)\s*[(\[]([^()\[\]]+)[)\]]\s*$")


def _centred_rows(each: float) -> int:
    """The fewest rows whose private ranges are centred, at ``each`` ε per release.

    Both conditions of :func:`~dpviz.privacy.bounds.bound_plan`: the centres' bins and the
    spread's median found.
    """
    return max(quantile_rows(0.5, each, CENTRE_BINS, 2), quantile_rows(0.9, each))


def _centres_need(budget: Budget, share: float, d: int) -> tuple[float, int]:
    """The ε per release of centred ranges from ``share`` of ``budget``, and the rows that need.

    The rows are :func:`_centred_rows` at that ε, rounded to hundreds.
    """
    each, _ = split_budget(budget, share, d + 2)
    return each, round(_centred_rows(each), -2)


_FACTORS = f"{min(SPREAD_FACTORS.values()):g} to {max(SPREAD_FACTORS.values()):g}"
_CENTRED = (f"each column's private centre (the median's bin among {CENTRE_BINS} at the rows' "
            f"private magnitude) ± {_FACTORS} times one private spread, the rows' largest gap "
            f"to the centres, found again inside the ranges when rows allow (up to "
            f"{MAX_ROUNDS} rounds)")
_ABOUT_ZERO = (f"ranges about 0: ± {_FACTORS} times one private spread, the rows' largest "
               "|value|")
#: The share slider's help: both ways private ranges are estimated, and which runs when.
PRIVATE_HELP = ("Two ways, chosen from the public number of rows and ε alone: with enough rows "
                "for every column's centre to be found (from about "
                f"{round(_centred_rows(0.05), -2):,} rows at ε = 0.05 per release — 20 % of "
                f"ε = 1 over 2 columns and their 2 shared releases), {_CENTRED}; with fewer, "
                f"{_ABOUT_ZERO}, in one release. With fewer rows than that one release "
                f"needs (about {quantile_rows(0.5, 0.2):,} at ε = 0.2 — 20 % of ε = 1), they "
                "are refused before anything is spent, and the page says the share or ε from "
                "which they run. The rest of ε goes to the estimator; the budget bar shows "
                "both, and the page says which way ran.")


def private_ranges_method(n: int, d: int, budget: Budget, share: float) -> str:
    """Which way private ranges are estimated for ``n`` rows and ``d`` columns: public inputs.

    The rule the engine follows (:func:`dpviz.privacy.bounds.private_box`), in words; said
    beside ranges that ran (too few rows for the one release are refused before the run:
    :meth:`dpviz.privacy.bounds.BoundPlan.refusal`).

    Examples
    --------
    >>> private_ranges_method(500, 2, Budget(epsilon=1.0), 0.2)[:15]
    'ranges about 0:'
    >>> private_ranges_method(20_000, 2, Budget(epsilon=1.0), 0.2)[:30]
    "each column's private centre ("
    """
    plan = bound_plan(n, d, budget, share)
    if plan.centred:
        return (f"{_CENTRED} ({plan.rounds} round{'s' * (plan.rounds > 1)}, {plan.releases} "
                f"releases at ε = {plan.epsilon:.3g} each; {plan.factor:g} spreads)")
    each, rows = _centres_need(budget, share, d)
    return (f"{_ABOUT_ZERO} (one release at ε = {plan.epsilon:.3g}; {plan.factor:g} spreads: "
            f"{n:,} rows are too few for per-column centres at ε = {each:.3g} per release, "
            f"which need about {rows:,})")


def loose_ranges_note(n: int, d: int, budget: Budget, share: float) -> str | None:
    """A sentence when private ranges are about 0 (few rows): they are loose. Public.

    Measured by ``bench/private_ranges.py`` on generated and real tables at 20 % of ε = 1
    (100 draws each; claim ``private-ranges-loose``): about 0, the ranges were 1.5 to 25 times
    as wide as the rows' 1 %–99 % range (100 to 260 times for columns far from 0, such as
    1 000 ± 10), and kept ≥ 95 % of the rows in 99 % of draws or more but on lognormal
    columns (one draw in four or five lost more).

    Examples
    --------
    >>> loose_ranges_note(500, 2, Budget(epsilon=1.0), 0.2)[:34]
    'With 500 rows, private ranges are '
    >>> loose_ranges_note(20_000, 2, Budget(epsilon=1.0), 0.2) is None
    True
    """
    if bound_plan(n, d, budget, share).centred:
        return None
    return (f"With {n:,} rows, private ranges are about 0 and loose: on generated tables they "
            "were 1.5 to 25 times as wide as the data (far more for a column far from 0), so "
            "the noise that follows is larger than it needs to be. For a result you can rely "
            "on, type ranges from what you know about the columns, give the ranges a larger "
            "share of ε, or bring more rows (centred private ranges need about "
            f"{_centres_need(budget, share, d)[1]:,} at this ε).")


@dataclass(frozen=True)
class TableUpload:
    """What the upload step chose.

    Attributes
    ----------
    block : dict
        The scenario's data block: the upload's label and hash, and ``bounds`` unless the
        bound is a radius.
    content : bytes
        The file's bytes (they travel beside the scenario).
    radius : float or None
        The radius, when the bound is one (``None`` otherwise).
    names : tuple of str
        The columns' names from the header (``column j`` without one).
    values : ndarray
        The rows, for the non-private diagnostics.
    """

    block: dict[str, Any]
    content: bytes
    radius: float | None
    names: tuple[str, ...]
    values: NDArray[np.float64]


def units_table(names: tuple[str, ...]) -> pd.DataFrame:
    """The columns, each with its unit when the header gives one as ``name (unit)``.

    Examples
    --------
    >>> units_table(("height (cm)", "age")).values.tolist()
    [[1, 'height', 'cm'], [2, 'age', '— (put it in the header: name (unit))']]
    """
    rows = []
    for j, name in enumerate(names):
        match = _UNIT.match(name)
        rows.append({"column": j + 1, "name": match.group(1) if match else name,
                     "unit": match.group(2) if match else "— (put it in the header: name (unit))"})
    return pd.DataFrame(rows, columns=["column", "name", "unit"])


def too_few_columns(d: int, needed: int) -> str:
    """What a page whose figures need ``needed`` columns says of a file with ``d``.

    Examples
    --------
    >>> too_few_columns(1, 2)[:54]
    'This page draws its figures from at least 2 columns, a'
    """
    return (f"This page draws its figures from at least {needed} columns, and the file has "
            f"{d}: upload a table with {needed} or more, or fit this one from the command line "
            "(python -m dpviz run TASK ESTIMATOR --data FILE.csv …), which takes any number.")


def table_upload(prefix: str, *, prompt: str, radius_key: str | None = None,
                 radius_value: float = 10.0, min_columns: int = 1) -> TableUpload:
    """The upload step: the file, its columns with units, and the bound chosen.

    Stops the page with ``prompt`` until a file comes, and with a sentence for a bad file or
    a bad typed range. Widget keys start with ``prefix`` (``<prefix>_upload`` is the file);
    the radius widget is ``radius_key`` (default ``<prefix>_radius``, starting at
    ``radius_value``), so old links reopen it. :data:`UPLOAD_NOTE` is shown under the file.
    A table with fewer than ``min_columns`` columns (the page's figures need them) stops the
    page with :func:`too_few_columns`' sentence.
    A run that stopped here leaves the page's later controls undrawn; the next run redraws
    them with the values it uses (:func:`stop_guard`).
    """
    upload = st.file_uploader("CSV file (numbers only, optional header row)", type=["csv"],
                              key=f"{prefix}_upload",
                              help="At most 50 MB and 200 columns; every cell a number, no "
                                   "missing or infinite values. A header row names the "
                                   "columns: write units as name (unit).")
    ran_through = stop_guard(prefix, "upload")
    st.caption(UPLOAD_NOTE)
    if upload is None:
        st.info(prompt, icon=":material/upload_file:")
        st.stop()
    content = attempt(upload_table, upload)
    table = attempt(read_table, content)
    values, names = table.values, table.names
    if values.shape[1] < min_columns:
        st.info(too_few_columns(values.shape[1], min_columns), icon=":material/view_column:")
        st.stop()
    with st.expander(f"Your columns: {values.shape[1]} (names and units from the header)",
                     expanded=values.shape[1] <= 6, icon=":material/view_column:"):
        st.dataframe(units_table(names), hide_index=True, key=f"{prefix}_columns")
    st.session_state.pop(RANGES_NOTE + prefix, None)
    way = str(st.radio("How the bound on the rows is chosen", tuple(WAYS),
                       format_func=WAYS.__getitem__, key=f"{prefix}_bound_way",
                       bind="query-params",
                       help="DP needs a bound fixed before it looks at the rows: every row is "
                            "clipped into it, and the noise is scaled to it."))
    block = upload_block(upload, content)
    radius = None
    if way == "radius":
        radius = float(st.number_input("Radius R", min_value=1e-6, value=radius_value, step=1.0,
                                       key=radius_key or f"{prefix}_radius",
                                       bind="query-params",
                                       help="Rows are clipped to the ball of this radius "
                                            "about the origin (0, …, 0)."))
    else:
        bounds: dict[str, Any] = {way: True}
        if way == "ranges":
            typed = st.text_input("Ranges, one low:high per column, in the table's units",
                                  key=f"{prefix}_ranges", bind="query-params",
                                  placeholder=",".join(["0:100"] * min(values.shape[1], 4)),
                                  help=TYPED_HINT.capitalize() + ".")
            st.caption(f"Typed ranges keep the guarantee only if they are public: "
                       f"{TYPED_HINT}.")
            if not typed.strip():
                st.info("Type one low:high per column to run.", icon=":material/edit:")
                st.stop()
            bounds = attempt(lambda: parse_bounds(typed, values.shape[1]) or {})
        elif way == "private":
            share = st.slider("Share of ε spent on the private ranges", min_value=0.05,
                              max_value=0.5, value=DEFAULT_SHARE, step=0.05,
                              key=f"{prefix}_bound_share", bind="query-params",
                              help=PRIVATE_HELP)
            bounds = {"private": float(share)}
            # filled by refuse_early once the page has drawn its budget, below the share
            st.session_state[RANGES_NOTE + prefix] = (st.empty(), *values.shape, float(share))
        standardise = st.checkbox("Standardise each column by its range", value=False,
                                  key=f"{prefix}_standardise", bind="query-params",
                                  help="Scale every column to [−1, 1] with the range's own "
                                       "ends: public constants (typed), private ones "
                                       "(estimated), or not private ones (read from the "
                                       "data) — never the data's mean or spread.")
        block["bounds"] = {**bounds, "standardise": bool(standardise)}
    chosen = TableUpload(block, content, radius, names, values)
    st.caption(how_chosen(chosen))
    clipped = clipped_before_run(chosen)
    if clipped is not None:
        st.caption(f"Rows the bound clips: {clipped:,} of {len(values):,} ({CLIPPED_NOTE}).")
    ran_through()
    return chosen


#: Session key (and the page's widget prefix): this run's place below the private ranges'
#: share, with the table's n, d and the share (:func:`refuse_early`); set by
#: :func:`table_upload` while private ranges are chosen, per page so another page's cannot be
#: read.
RANGES_NOTE = "_ranges_note_"


def refuse_early(prefix: str, params: Mapping[str, Any]) -> None:
    """Say at the upload step, below the share, that private ranges will be refused.

    The run refuses them before anything is spent when the rows are too few for their one
    release (:meth:`dpviz.privacy.bounds.BoundPlan.refusal`); the same sentence, from public
    inputs only (n, d, the share and the page's budget ``params``; ``prefix`` the page's upload
    widgets', as :func:`table_upload` was given), shows where the ranges
    are chosen, so the fix it names is beside the slider it concerns. Nothing when the
    ranges run, or when the budget is not one the ranges can split (the run says why).
    """
    placed = st.session_state.pop(RANGES_NOTE + prefix, None)
    if placed is None:
        return
    note, n, d, share = placed
    try:
        said = bound_plan(int(n), int(d), budget_of(params), share).refusal(int(n))
    except ValueError:
        return
    if said is not None:
        note.warning(escape_markdown(said), icon=":material/straighten:")


def stop_guard(prefix: str, part: str,
               keys: Sequence[str] | None = None) -> Callable[[], None]:
    """Start a part of the page a run may stop in (``st.stop``); returns the call that ends it.

    When the run before stopped inside this part (it never made that call), the controls
    it left undrawn are redrawn with the values the run uses (:func:`redraw_after_stop`;
    ``keys``: only these). The upload step is one part; a page's figures after a failed run
    are another.
    """
    stopped = f"{prefix}_{part}_stopped"  # set until the part has run through
    if st.session_state.get(stopped):
        redraw_after_stop(prefix, keys)
    st.session_state[stopped] = True

    def ran_through() -> None:
        st.session_state[stopped] = False

    return ran_through


def redraw_after_stop(prefix: str, keys: Sequence[str] | None = None) -> None:
    """Make the page's controls not yet drawn show the values the run will use.

    A run the upload step stopped (no file — as while a new file replaces the old one —, a
    bad file, ranges not typed yet) drew none of the controls after it, and Streamlit skips
    its clean-up after ``st.stop()``: it keeps their values, but the browser redraws them at
    their defaults, so the page ran the bound the user chose and showed another (Streamlit
    issue #4247). This does what the clean-up would have done for the controls the stopped
    run left undrawn (the browser sent back no value for them): a control bound to the link
    keeps its value and, set again before it is drawn, sends it to the browser; any other
    control of the page (key ``<prefix>_…``) is forgotten and comes back at its default.
    ``keys`` limits this to the controls a part knows it leaves undrawn when it stops: the
    browser keeps sending the values of controls it no longer shows, so they cannot be told
    from those the stopped run drew (an expander under a failure, which must stay open).
    Reads Streamlit's internal widget registry (pinned Streamlit 1.67).
    """
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    run = get_script_run_ctx()
    if run is None:
        return
    state = run.session_state._state
    for key in [k for k in st.session_state if str(k).startswith(f"{prefix}_")
                and (keys is None or k in keys)]:
        widget = state.get_widget_id_from_key(str(key))
        metadata = None if widget is None else state.get_widget_metadata(widget)
        if metadata is None or key in run.shared.widget_user_keys_this_run:
            continue  # not a control, or drawn already this run
        if metadata.bind == "query-params":
            st.session_state[key] = st.session_state[key]
        else:
            del st.session_state[key]


def how_chosen(chosen: TableUpload) -> str:
    """One sentence: how the bound was chosen (the page says it beside the result too)."""
    bounds = chosen.block.get("bounds")
    if bounds is None:
        return (f"Bound: a ball of radius {chosen.radius:g} about the origin, chosen by you "
                "(public).")
    if "ranges" in bounds:
        return "Bound: per-column ranges typed by you (public if they come from what you know)."
    if "private" in bounds:
        return (f"Bound: per-column ranges estimated privately with {bounds['private']:.0%} of "
                "ε (charged on the budget bar).")
    return "Bound: per-column ranges read from the data — not private."


def clipped_before_run(chosen: TableUpload) -> int | None:
    """Rows outside a bound known before the run (not private); ``None`` for private ranges."""
    bounds = chosen.block.get("bounds")
    if bounds is None:
        return clipped_in_ball(chosen.values, chosen.radius)
    if "ranges" in bounds:
        ranges = np.asarray(bounds["ranges"], dtype=float)
        return Box(ranges[:, 0], ranges[:, 1], "ranges").clipped_rows(chosen.values)
    if "data" in bounds:
        return 0
    return None


def bound_problems(choices: Mapping[str, Any], values: NDArray[np.float64],
                   names: tuple[str, ...], radius: float | None = None) -> list[str]:
    """Warnings with a suggested fix: most rows clipped, or a bound much wider than the data.

    Read from the run's ``choices`` (its clipped rows, its ranges) and the rows: a
    non-private teaching diagnostic.

    Examples
    --------
    >>> x = np.array([[50.0, 50.0], [60.0, 40.0], [55.0, 45.0]])
    >>> bound_problems({"clipped_rows": {"count": 3, "of": 3}}, x, ("a", "b"), 10.0)[0][:24]
    'Most rows (3 of 3) lie o'
    >>> bound_problems({"ranges": [[0, 1e4], [0, 100]]}, x, ("a", "b"))[0][:32]
    'The bound is much wider than the'
    """
    out = []
    clipped = choices.get("clipped_rows") or {}
    if clipped.get("of") and clipped["count"] > MOST_CLIPPED * clipped["of"]:
        out.append(f"Most rows ({clipped['count']:,} of {clipped['of']:,}) lie outside the "
                   "bound, so they are pulled onto its edge and the estimate piles up there. "
                   "Suggested fix: choose private ranges (a share of ε), or type ranges that "
                   "cover the values your columns can take.")
    spread = np.ptp(values, axis=0) if len(values) else np.zeros(len(names))
    if "ranges" in choices:
        widths = np.diff(np.asarray(choices["ranges"], dtype=float), axis=1)[:, 0]
    elif radius is not None:
        widths = np.full(len(names), 2 * radius)
    else:
        widths = np.zeros(len(names))
    ratio = np.divide(widths, spread, out=np.zeros_like(widths), where=spread > 0)
    if len(ratio) and ratio.max() > TOO_WIDE:
        j = int(ratio.argmax())
        out.append(f"The bound is much wider than the data: {ratio[j]:,.0f} times the spread of "
                   f"column “{names[j]}”, and the noise is scaled to the bound, so it can "
                   "swamp the estimate. Suggested fix: type tighter ranges from what you know "
                   "about the columns, or give the private ranges a larger share of ε (or more "
                   "rows).")
    return out


#: Ranges whose widths differ by more than this factor give, unscaled, noise sized to the
#: widest one on every column. On a 178-row table in units of about 10, 10 and 1 000 (ranges
#: 8:16, 0:15, 0:2000, DP-EM at ε = 1, 5 seeds) the median errors per column were 410, 530 and
#: 290 unscaled — means hundreds of units outside a column 8 wide — and 2.5, 7.4 and 420 with
#: each column standardised by its range.
MIXED_WIDTHS = 10.0


def unscaled_ranges_note(ranges: Any, names: Sequence[str], standardise: bool) -> str | None:
    """A warning when unscaled ranges differ a lot in width, with the fix (public: the ranges).

    Examples
    --------
    >>> unscaled_ranges_note([[8, 16], [0, 2000]], ("alcohol", "proline"), False)[:38]
    'The ranges differ a lot in size: alcoh'
    >>> unscaled_ranges_note([[8, 16], [0, 2000]], ("alcohol", "proline"), True) is None
    True
    """
    widths = np.diff(np.asarray(ranges, dtype=float), axis=1)[:, 0]
    if standardise or len(widths) < 2 or widths.max() <= MIXED_WIDTHS * widths.min():
        return None
    small, big = int(widths.argmin()), int(widths.argmax())
    return (f"The ranges differ a lot in size: {names[small]} is {widths[small]:,.4g} wide, "
            f"{names[big]} {widths[big]:,.4g}. Unscaled, every column gets noise sized to the "
            "widest range, so the narrow columns' estimates can land far outside their range. "
            "Suggested fix: standardise each column by its range (the answer still comes back "
            "in each column's own units).")


def warn_bound(result: Result, scenario: Scenario, loaded: LoadedData) -> None:
    """The upload's warnings (:func:`bound_problems`) and private ranges, before the figure."""
    choices, bounds = result.choices, scenario.data.get("bounds")
    radius = None if bounds is not None else scenario.params.get("radius")
    names = loaded.names or tuple(f"column {j + 1}" for j in range(loaded.data.shape[1]))
    for problem in bound_problems(choices, loaded.data, names,
                                  None if isinstance(radius, str) else radius):
        st.warning(f"{escape_markdown(problem)} (A non-private teaching diagnostic.)",
                   icon=":material/warning:")
    if bounds is not None and "ranges" in choices:
        mixed = unscaled_ranges_note(choices["ranges"], names, bool(bounds.get("standardise")))
        if mixed is not None:
            st.warning(escape_markdown(mixed), icon=":material/straighten:")
    clipped = choices.get("clipped_rows")
    if clipped and bounds is not None and "private" in bounds:
        ranges = "; ".join(f"{escape_markdown(n)} {a:.4g} … {b:.4g}"
                           for n, (a, b) in zip(names, choices.get("ranges", ()), strict=False))
        n, d = loaded.data.shape
        budget, share = budget_of(scenario.params), float(bounds["private"])
        way = private_ranges_method(n, d, budget, share)
        st.caption(f"Private ranges released: {ranges}; from {way}. Rows they clip: "
                   f"{clipped['count']:,} of {clipped['of']:,} ({CLIPPED_NOTE}).")
        loose = loose_ranges_note(n, d, budget, share)
        if loose is not None:
            st.info(loose, icon=":material/straighten:")


def reference_block(block: Mapping[str, Any], result: Result) -> dict[str, Any]:
    """The block a non-private reference fits on: the same clipped data as ``result``'s run.

    Private ranges are the run's release (``result.choices["ranges"]``), fixed as typed
    ranges, so the reference sees exactly the rows the private run saw (post-processing).
    """
    bounds = block.get("bounds")
    if bounds is None or "private" not in bounds or "ranges" not in result.choices:
        return dict(block)
    return {**block, "bounds": {"ranges": result.choices["ranges"],
                                "standardise": bool(bounds.get("standardise"))}}
