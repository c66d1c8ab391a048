"""The pages' one run path: a :class:`~dpviz.lab.scenario.Scenario` in, its data and its result out.

Each estimator page's controls return one Scenario (data + estimator + budget + parameters +
seed); every panel of the page — the main figure, compare, card, solve, audit, risk — takes
that Scenario (or the :class:`~dpviz.estimators.result.Result` of :func:`run`), never another
widget's state. The caches key on the scenario's canonical JSON, so one scenario is run once per
server, whichever panel asks first.

Randomness: a teaching scenario carries its seed; under secure randomness the scenario's seed
is ``None`` and the page passes the rerun's fresh OS entropy (``fresh``, never shown), which
keys the run's secure generator and its cache entry, so each rerun draws new noise.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import replace
from typing import Any

import streamlit as st

from dpviz.core import limits
from dpviz.estimators.result import Result, to_json_value
from dpviz.estimators.work import INTERACTIVE, check_run, check_scenario
from dpviz.lab.scenario import LoadedData, Scenario, load_data, preparation, run_scenario
from dpviz.ui.cached import noise_rng


def canonical(value: Any) -> str:
    """The JSON a cache keys on (sorted keys, ``inf`` as ``"inf"``).

    Examples
    --------
    >>> canonical({"b": 1, "a": float("inf")})
    '{"a": "inf", "b": 1}'
    """
    return json.dumps(to_json_value(value), sort_keys=True)


@st.cache_data(max_entries=limits.DATA_CACHE_ENTRIES, max_size=limits.DATA_CACHE_BYTES,
               show_spinner=False)
def _loaded(block: str, _content: bytes | None = None) -> LoadedData:
    """The data block made concrete (an upload's bytes are keyed by their SHA-256 in ``block``)."""
    return load_data(json.loads(block), content=_content)


def loaded(scenario: Scenario, content: bytes | None = None) -> LoadedData:
    """The scenario's data, truth, public radius and description (cached per data block).

    ``content`` is an uploaded file's bytes, for a scenario whose data block is an upload.
    """
    return _loaded(canonical(dict(scenario.data)), content)


@st.cache_data(max_entries=limits.DATA_CACHE_ENTRIES, max_size=limits.DATA_CACHE_BYTES,
               show_spinner=False)
def _prepared(block: str, task: str, estimator: str, values: str,
              _content: bytes | None = None) -> Any:
    """The data prepared with ``values`` by the estimator's hook (once per data and values)."""
    from dpviz.estimators.registry import estimator as lookup

    data = _loaded(block, _content).data
    return lookup(task, estimator).prepared(data, json.loads(values))


def compute(s: Scenario, *, fresh: int | None = None, content: bytes | None = None,
            stream: str | None = None) -> Result:
    """One run of a scenario, uncached (:func:`run` caches it; a page's cloud of repeats not).

    Checked once against the page's work budget with the page's own work on it
    (:data:`~dpviz.estimators.work.PAGE_SECONDS`: the figures and panels a page builds from
    a run), on its data before their preparation (the engine's own check is then skipped),
    its data loaded and prepared through the caches;
    ``fresh`` keys a secure generator on ``stream`` (default ``"<task>/<estimator>"``,
    :func:`~dpviz.ui.cached.noise_rng`), ``None``: the scenario's seed (teaching).
    """
    from dpviz.estimators.registry import preparation_owner

    if s.seed is not None:
        fresh = None  # teaching randomness: the seed alone decides the noise
    secure = fresh is not None
    check_scenario(s.task, s.estimator, s.data, s.params, INTERACTIVE, secure=secure,
                   page=True)
    block = canonical(dict(s.data))
    data = _loaded(block, content)
    check_run(s.task, s.estimator, data.data, {**data.public, **s.params}, INTERACTIVE,
              secure=secure, page=True)
    values = preparation(s, data)
    if values is not None:
        owner = preparation_owner(s.task, s.estimator)
        data = replace(data, data=_prepared(block, s.task, owner, canonical(values), content))
    rng = None if fresh is None else noise_rng(fresh, True, stream or f"{s.task}/{s.estimator}")
    with warnings.catch_warnings():  # the result's not_private says it; the page shows it
        warnings.simplefilter("ignore")
        return run_scenario(s, data, rng=rng, work=None)


@st.cache_data(max_entries=64, show_spinner=False)
def _run(scenario: str, fresh: int | None, stream: str | None,
         _content: bytes | None = None) -> Result:
    """One run of a scenario's JSON; ``fresh`` keys a secure generator (``None``: teaching)."""
    return compute(Scenario.from_dict(json.loads(scenario)), fresh=fresh, content=_content,
                   stream=stream)


def run(scenario: Scenario, *, fresh: int | None = None, content: bytes | None = None,
        stream: str | None = None) -> Result:
    """The scenario's result, cached: every panel of a page reads the run from here.

    Parameters
    ----------
    scenario : Scenario
        The page's run; its seed is teaching randomness (``None`` under secure randomness).
    fresh : int, optional
        The rerun's fresh OS entropy under secure randomness (the page context's seed): keys
        the run's secure generator and its cache entry. ``None`` for a teaching scenario.
    content : bytes, optional
        An uploaded file's bytes, for a scenario whose data block is an upload.
    stream : str, optional
        The secure generator's stream (default ``"<task>/<estimator>"``): a run and its
        non-private reference name one stream to start from the same point.

    Raises
    ------
    ValueError
        Bad input or too much work for a page, with the engine's sentence.
    """
    if scenario.seed is not None:
        fresh = None  # teaching randomness: the seed alone decides the noise
    elif fresh is None:  # a cached entropy draw would replay one "secure" noise to everyone
        raise ValueError("a secure run (no seed) needs the rerun's fresh entropy")
    return _run(canonical(scenario.to_dict()), fresh, stream, content)


#: The session's predictions from releases (:func:`expected_of`), bounded by the engine.
EXPECTED_MEMO = "expected_from_releases"


def expected_of(scenario: Scenario, result: Result, sizes: tuple[int, int],
                what: str) -> Any:
    """A run's expected error (:func:`dpviz.lab.expectation.for_run`), or ``None``.

    Read back when kept (per public shape on disk, per release in the session); otherwise
    simulated under a progress bar that names ``what`` is predicted.
    """
    from dpviz.lab import expectation
    from dpviz.ui.progress import timed_bar
    from dpviz.ui.widgets import attempt

    shapes = expectation.run_shapes(scenario, result, sizes)
    if shapes is None:
        return None
    memo = st.session_state.setdefault(EXPECTED_MEMO, {})
    found = expectation.for_shapes(*shapes, memo=memo, only_known=True)
    if found is not None:
        return found
    with timed_bar(f"Predicting {what} from runs on generated data of this public shape"
                   + " and on rows drawn from this run's release" * (shapes[1] is not None),
                   expectation.RUNS, at_most=True) as bar:
        return attempt(expectation.for_shapes, *shapes, memo=memo,
                       progress=lambda done, total: bar.step(done, unit="runs", total=total))
