"""One run described as plain data: which estimator, on which data, with which budget.

A :class:`Scenario` is JSON-able (:meth:`Scenario.to_dict` / :meth:`Scenario.from_dict`), so a
sweep row, a solve-for-ε search and an experiment card can each record and replay a run.
:func:`load_data` turns a scenario's ``data`` block into the rows (or graph) and the truth
they are scored against, :func:`run_scenario` calls :func:`dpviz.run`, and :func:`score`
reads the task's metrics (:data:`dpviz.estimators.metrics.METRICS`) by name.

The ``data`` block is one of (DESIGN.md, the sweep spec):

* ``{"generator": name, **params}`` — a registered generator (:data:`dpviz.data.GENERATORS`)
  with its parameters, ``seed`` being the data seed. The ``gmm`` generator also takes
  ``test_fraction`` (default 0): that share of the rows is held out (split with the data seed)
  as ``truth.test_data`` for the ``test_log_likelihood`` metric and never shown to the
  estimator.
* ``{"dataset": name}`` — a bundled real set (:data:`dpviz.data.DATASETS`), its classes as
  the true components; for the ``sbm`` task a bundled graph (:data:`dpviz.data.GRAPH_DATASETS`:
  ``karate``), its factions as the true communities. A bundled graph's ``degree`` and
  ``signal`` are read off the graph itself: a private run that uses them is marked not
  private (the result's ``not_private``).
* ``{"csv": path}`` — rows from a CSV file (no truth: its metrics are NaN). It may add
  ``"bounds"``: per-column ranges typed by the user (``{"ranges": [[low, high], …]}``),
  estimated privately with a share of the budget (``{"private": 0.1}``, charged on the run's
  ledger) or read from the data (``{"data": true}``, not private), with ``"standardise"``
  (:func:`dpviz.privacy.bounds.parse_bounds`); the run then clips to them (and reports how
  many rows it clipped, a non-private diagnostic) instead of using ``radius``.
* ``{"edges": path, "n": int}`` — an edge list for the ``sbm`` task (no truth). Without
  ``n`` (or with ``null``) n is read from the ids (not private); ``"renumber": true``
  numbers ids with gaps ``0 … m−1`` (:func:`dpviz.data.graphs.edge_list_graph`).
* ``{"upload": label, "sha256": hex}`` — the rows of an uploaded file, named by ``label``
  (the file's name: a label, never a path) and identified by the SHA-256 of its bytes; for the
  ``sbm`` task an edge list, with ``"n"`` (and ``"renumber"``); rows may add ``"bounds"``
  as a csv does. The block does not hold the bytes: whoever loads
  it gives them (:func:`load_data`'s ``content``), and they must match the hash.

A path (``csv``, ``edges``) is read by :func:`dpviz.data.files.read_file`: relative to the
working folder, or to a card's or spec's folder (``base``), and then only inside it.

Public parameters that come with the data — a generated mixture's ``k``, a bundled set's
number of classes, a generated SBM's ``degree`` and ``signal`` — fill the estimator's
parameters of those names when the scenario does not give them; the public ``radius`` of
generated data (or of ``digits``) is used when the scenario's ``params`` give none.

Examples
--------
>>> s = Scenario.from_dict({"task": "gmm", "estimator": "dp_em",
...                         "data": {"generator": "gmm", "n": 2000, "k": 2, "seed": 3},
...                         "params": {"epsilon": 1.0, "delta": 1e-5}, "seed": 0})
>>> loaded = load_data(s.data)
>>> result = run_scenario(s, loaded)
>>> result.ledger.total().epsilon <= 1.0 + 1e-9, sorted(score(s, result, loaded.truth,
...                                                         ["mean_error"]))
(True, ['mean_error'])
>>> Scenario.from_dict(s.to_dict()) == s
True
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from dpviz.core import limits
from dpviz.data.files import read_file, sha256
from dpviz.estimators.metrics import METRICS, Truth
from dpviz.estimators.result import Result, to_json_value
from dpviz.estimators.work import BATCH, WorkBudget
from dpviz.privacy import Budget

#: The kinds of ``data`` block, by their key.
DATA_KINDS = ("generator", "dataset", "csv", "edges", "upload")
#: Kinds that read a file named by a path.
FILE_KINDS = ("csv", "edges")
#: Kinds holding a user's own data (no truth; no synthetic twin to simulate on).
USER_KINDS = ("csv", "edges", "upload")
#: The longest upload label (a file name) a block takes.
MAX_LABEL = 255
#: Generators that make a graph (the ``sbm`` task) rather than rows.
GRAPH_GENERATORS = ("sbm",)
#: Budget parameters a scenario's ``params`` may hold besides the estimator's own.
BUDGET_PARAMS = ("epsilon", "delta", "rho", "accounting", "radius", "paper_mode")
#: Loaded data sets kept in memory (a sweep's jobs reuse one data set across estimators).
LOADED_CACHE = 4


@dataclass(frozen=True)
class Scenario:
    """One run: task, estimator, data, budget and parameters, and the noise seed.

    Attributes
    ----------
    task : str
        ``"gmm"``, ``"covariance"``, ``"sbm"``, ``"mean"`` or ``"factor_analysis"``.
    estimator : str
        Its registry key (``python -m dpviz list``).
    data : mapping
        The data block (see the module docstring).
    params : mapping
        The budget (``epsilon``, ``delta``, ``rho``, ``accounting``, ``radius``,
        ``paper_mode``) and the estimator's own parameters, named as ``list`` names them.
    seed : int or None
        The noise seed: teaching randomness, reproducible and labelled so. ``None`` (the
        default, as for :func:`dpviz.run`) draws the noise from OS entropy: not reproducible.
    """

    task: str
    estimator: str
    data: Mapping[str, Any]
    params: Mapping[str, Any]
    seed: int | None = None

    @property
    def budget(self) -> Budget:
        """The run's privacy budget, from ``params`` (ε or ρ, δ, accounting, paper mode)."""
        return budget_of(self.params)

    def without_noise(self) -> Scenario:
        """The same scenario with no noise: ε = ∞, δ = 0 and no ρ (a reference, never private).

        Examples
        --------
        >>> s = Scenario.from_dict({"task": "mean", "estimator": "gaussian",
        ...                         "data": {"dataset": "iris"},
        ...                         "params": {"rho": 0.5, "radius": 10.0}, "seed": 2})
        >>> plain = s.without_noise()
        >>> plain.budget.non_private, plain.params["delta"], "rho" in plain.params, plain.seed
        (True, 0.0, False, 2)
        """
        params = {name: value for name, value in self.params.items() if name != "rho"}
        return replace(self, params=MappingProxyType({**params, "epsilon": math.inf,
                                                      "delta": 0.0}))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``inf`` as ``"inf"``), which :meth:`from_dict` reads back."""
        return {"task": self.task, "estimator": self.estimator,
                "data": to_json_value(dict(self.data)),
                "params": to_json_value(dict(self.params)), "seed": self.seed}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Scenario:
        """Validate and normalise a scenario's JSON form.

        Every value is parsed by its registry type and range (so two spellings of one
        scenario compare equal), the budget is checked as :class:`~dpviz.privacy.Budget`
        checks it, and the data block is checked against the task.

        Raises
        ------
        ValueError
            A sentence naming the bad field: an unknown task, estimator, parameter, generator
            or data set, a value out of range, data of the wrong kind for the task.
        """
        from dpviz.estimators.registry import estimator as lookup

        if not isinstance(d, Mapping):
            raise ValueError(f"a scenario is a JSON object, got {type(d).__name__}")
        unknown = set(d) - {"task", "estimator", "data", "params", "seed"}
        if unknown:
            raise ValueError(f"unknown scenario field(s) {', '.join(sorted(map(str, unknown)))};"
                             " a scenario has task, estimator, data, params and seed")
        for name in ("task", "estimator", "data"):
            if name not in d:
                raise ValueError(f"the scenario needs a {name!r} field")
        task, name = str(d["task"]), str(d["estimator"])
        entry = lookup(task, name)
        data = normalise_data(task, d["data"])
        params = _normalise_params(entry, d.get("params") or {})
        seed = d.get("seed")
        if seed is not None:
            seed = limits.check_integer(limits.NOISE_SEED, seed)
        return cls(task, name, MappingProxyType(data), MappingProxyType(params), seed)


@dataclass(frozen=True)
class LoadedData:
    """A data block made concrete.

    Attributes
    ----------
    data : object
        What :func:`dpviz.run` takes: an n × d array, or a :class:`~dpviz.data.graphs.Graph`
        for ``sbm``. Arrays are read-only (they are shared through the loader's cache).
    truth : Truth or None
        What results are scored against; ``None`` for a CSV or an edge list.
    radius : float or None
        The public radius that goes with generated data (``None``: the caller's).
    description : str
        One sentence for pages and cards.
    public : mapping
        Public parameters the data come with (``k``; ``degree`` and ``signal`` of a generated
        SBM), given to an estimator that takes them when the scenario does not.
    not_private : str or None
        Why ``public`` is not public after all (a bundled graph's d and ε_s are read off the
        graph), or ``None``: a private run that takes them is marked so.
    names : tuple of str
        A table's column names (a CSV's header), or ``()``.
    caveat : str or None
        Why no private run on these data is private (an edge list's n read from its ids).
    """

    data: Any
    truth: Truth | None
    radius: float | None
    description: str
    public: Mapping[str, Any] = field(default_factory=dict)
    not_private: str | None = None
    names: tuple[str, ...] = ()
    caveat: str | None = None


# --- validation ---------------------------------------------------------------------------

def normalise_data(task: str, data: Any) -> dict[str, Any]:
    """Check a data block against the task; generator parameters parsed, defaults filled.

    Examples
    --------
    >>> normalise_data("covariance", {"generator": "zipf", "n": "1000", "d": 5})["n"]
    1000
    >>> normalise_data("gmm", {"edges": "e.csv", "n": 10})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: an edge list is data for the sbm task, not for gmm; give rows (a generator, ...
    """
    from dpviz.data import DATASETS, GENERATORS, GRAPH_DATASETS

    if not isinstance(data, Mapping):
        raise ValueError(f"the data block is a JSON object such as {{\"generator\": \"gmm\"}}, "
                         f"got {data!r}")
    kinds = [k for k in DATA_KINDS if k in data]
    if len(kinds) != 1:
        raise ValueError(f"the data block needs exactly one of {', '.join(DATA_KINDS)}; got "
                         f"{', '.join(map(str, data)) or 'none'}")
    kind = kinds[0]
    if kind == "dataset" and str(data["dataset"]) not in {**DATASETS, **GRAPH_DATASETS}:
        raise ValueError(f"unknown data set {str(data['dataset'])!r}; choose one of: "
                         f"{', '.join([*DATASETS, *GRAPH_DATASETS])}")
    graph = (kind == "edges" or (kind == "upload" and task == "sbm")
             or (kind == "generator" and str(data["generator"]) in GRAPH_GENERATORS)
             or (kind == "dataset" and str(data["dataset"]) in GRAPH_DATASETS))
    if graph != (task == "sbm"):
        what = ("an edge list" if kind == "edges" else
                f"the {data[kind]!r} generator's data" if kind == "generator" else
                f"the {data[kind]!r} data set" if kind == "dataset" else f"a {kind}")
        need = ("a graph (the sbm generator, a bundled graph or an edge list)" if task == "sbm" else
                "rows (a generator, a dataset or a csv)")
        owner = "the sbm task" if graph else "rows"
        raise ValueError(f"{what} is data for {owner}, not for {task}; give {need}")
    rest = {str(k): v for k, v in data.items() if k != kind}
    if kind == "generator":
        name = str(data["generator"])
        if name not in GENERATORS:
            raise ValueError(f"unknown generator {name!r}; choose one of: "
                             f"{', '.join(GENERATORS)}")
        fraction = rest.pop("test_fraction", 0.0)
        out: dict[str, Any] = {"generator": name, **GENERATORS[name].resolve(rest)}
        if fraction not in (0, 0.0, None):
            if name != "gmm":
                raise ValueError(f"test_fraction holds rows out of the gmm generator only, not "
                                 f"of {name!r}")
            out["test_fraction"] = limits.check_number(
                limits.Limit("test_fraction", 0.0, 1.0, high_open=True), fraction)
        return out
    if kind == "dataset":
        _no_extra(rest, "a dataset")
        return {"dataset": str(data["dataset"])}
    if kind == "upload":
        return _upload_block(data["upload"], rest, graph)
    path = os.fspath(data[kind]) if isinstance(data[kind], os.PathLike) else data[kind]
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"{kind} is a file path, got {path!r}")
    if kind == "csv":
        return {"csv": path, **_bounds(rest, "a csv")}
    return {"edges": path, **_vertices(rest, "an edge list")}


def _bounds(rest: dict[str, Any], what: str) -> dict[str, Any]:
    """A table's ``bounds`` (popped from ``rest``, checked), ``{}`` without; nothing else."""
    from dpviz.privacy.bounds import parse_bounds

    bounds = parse_bounds(rest.pop("bounds", None))
    _no_extra(rest, f"{what} (besides bounds)")
    return {} if bounds is None else {"bounds": bounds}


def _vertices(rest: dict[str, Any], what: str) -> dict[str, Any]:
    """An edge list's ``n`` (``None``: read from the ids) and ``renumber``, popped from ``rest``."""
    n = rest.pop("n", None)
    renumber = rest.pop("renumber", False)
    _no_extra(rest, f"{what} (besides n and renumber)")
    if not isinstance(renumber, bool):
        raise ValueError(f"renumber must be true or false, got {renumber!r}")
    out: dict[str, Any] = {"n": None if n is None else
                           limits.check_integer(limits.SBM_VERTICES, n)}
    return {**out, "renumber": True} if renumber else out


def _upload_block(label: Any, rest: dict[str, Any], graph: bool) -> dict[str, Any]:
    """An upload's block: its label, the SHA-256 of its bytes, and ``n`` for an edge list."""
    if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL:
        raise ValueError(f"an upload's label is its file name, a text of 1 to {MAX_LABEL} "
                         "characters")
    digest = rest.pop("sha256", None)
    if not isinstance(digest, str) or re.fullmatch(r"[0-9a-fA-F]{64}", digest) is None:
        raise ValueError("an upload block needs sha256, the SHA-256 of the uploaded bytes "
                         "(64 hexadecimal digits)")
    out: dict[str, Any] = {"upload": label, "sha256": digest.lower()}
    if graph:
        out.update(_vertices(rest, "an uploaded edge list"))
    else:
        out.update(_bounds(rest, "an uploaded file of rows (besides sha256)"))
    return out


def _no_extra(rest: Mapping[str, Any], what: str) -> None:
    if rest:
        raise ValueError(f"{what} takes no parameters; remove {', '.join(sorted(rest))}")


def _normalise_params(entry: Any, params: Any) -> dict[str, Any]:
    """Budget and estimator parameters parsed; the budget checked as ``Budget`` does."""
    from dpviz.estimators.registry import common_param

    if not isinstance(params, Mapping):
        raise ValueError(f"params is a JSON object of parameter values, got {params!r}")
    out: dict[str, Any] = {}
    for raw_name, value in params.items():
        name = str(raw_name)
        if name == "seed":
            raise ValueError("the noise seed is the scenario's own 'seed' field, not a param")
        if value is None:
            out[name] = None
        elif name == "epsilon":
            out[name] = limits.check_epsilon(value)
        elif name == "delta":  # open at 1, which the registry's Param cannot say
            out[name] = limits.check_number(limits.DELTA, value)
        elif name == "radius":
            out[name] = parse_radius(value)
        elif name in BUDGET_PARAMS:
            out[name] = common_param(name).parse(value)
        else:
            out[name] = entry.param(name).parse(value)
    budget_of(out)
    return out


def budget_of(params: Mapping[str, Any]) -> Budget:
    """The :class:`~dpviz.privacy.Budget` a scenario's ``params`` give (checked as it checks)."""
    return Budget(epsilon=params.get("epsilon"), delta=params.get("delta") or 0.0,
                  rho=params.get("rho"), method=params.get("accounting") or "zcdp",
                  paper_mode=bool(params.get("paper_mode")))


def parse_radius(value: Any) -> float | str | None:
    """A radius: ``None``, ``"data"`` (read from the data: not private) or a number > 0.

    Examples
    --------
    >>> parse_radius("2"), parse_radius("data"), parse_radius(None)
    (2.0, 'data', None)
    """
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() == "data":
        return "data"
    return limits.RADIUS.check(value)


# --- loading ------------------------------------------------------------------------------

def load_data(data: Mapping[str, Any], *, base: str | os.PathLike[str] | None = None,
              content: bytes | None = None) -> LoadedData:
    r"""Make a data block concrete: the data, the truth, the public radius, a description.

    Cheap to call again with the same block: the last :data:`LOADED_CACHE` blocks are kept
    (a file is read again each time, and parsed again when its bytes changed).

    Parameters
    ----------
    data : mapping
        The data block (see the module docstring).
    base : path, optional
        The folder a ``csv`` or ``edges`` path is read from (a card's or a spec's), and then
        only inside it; ``None``: the working folder, anywhere.
    content : bytes, optional
        The data's bytes: required for an ``upload`` block (checked against its
        ``sha256``); for a ``csv`` or ``edges`` block, the file's bytes already read (a card
        checks their hash first), parsed instead of reading the path.

    Raises
    ------
    ValueError
        A bad block (see :func:`normalise_data`), a file that cannot be read
        (:func:`dpviz.data.files.read_file`), an upload without its bytes or with other
        bytes, or bad content, with the reader's sentence (never quoting the content).

    Examples
    --------
    >>> loaded = load_data({"generator": "zipf", "n": 1000, "d": 3, "buckets": 1})
    >>> loaded.data.shape, loaded.radius, loaded.truth.matrix.shape
    ((1000, 3), 1.0, (3, 3))
    >>> rows = b"1,2\n3,4\n"
    >>> load_data({"upload": "rows.csv", "sha256": sha256(rows)}, content=rows).data.tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"the data block is a JSON object, got {data!r}")
    from dpviz.data import GRAPH_DATASETS

    kind = next((k for k in DATA_KINDS if k in data), None)
    graph = (kind == "edges" or (kind == "upload" and "n" in data)
             or (kind == "generator" and str(data.get("generator")) in GRAPH_GENERATORS)
             or (kind == "dataset" and str(data.get("dataset")) in GRAPH_DATASETS))
    block = normalise_data("sbm" if graph else "rows", data)
    if kind in FILE_KINDS:
        if content is None:
            content = read_file(block[kind], base=base, inside=base is not None)
    elif kind == "upload":
        if content is None:
            raise ValueError("an uploaded file's data block holds its name and hash, not its "
                             "bytes: give the file's bytes to load it (a card of an upload "
                             "replays with `python -m dpviz run --card card.json --data FILE`)")
        if sha256(content) != block["sha256"]:
            raise ValueError("the bytes given are not the uploaded file's: their SHA-256 "
                             "differs from the one recorded; give the file the run was made "
                             "from")
    elif content is not None:
        raise ValueError(f"content is the bytes of a file or an upload; a {kind} data block "
                         "takes none")
    return _load(json.dumps(to_json_value(block), sort_keys=True),
                 None if content is None else _Content(content))


class _Content:
    """File bytes keyed by their SHA-256 in the loader's cache, which keeps them no longer.

    Equal and hashed by the digest, so a cached parse of the same bytes is found again;
    :meth:`take` hands the bytes to the parser and drops them, so the cache's key holds the
    digest only.
    """

    __slots__ = ("digest", "raw")

    def __init__(self, raw: bytes) -> None:
        self.raw, self.digest = raw, sha256(raw)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Content) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def take(self) -> bytes:
        raw, self.raw = self.raw, b""
        return raw


@functools.lru_cache(maxsize=LOADED_CACHE)
def _load(key: str, content: _Content | None) -> LoadedData:
    """The loader behind :func:`load_data`, keyed by the block's canonical JSON (and bytes)."""
    from dpviz.data import GENERATORS, GRAPH_DATASETS, load_dataset
    from dpviz.data.graphs import DEGREE_FROM_GRAPH, Graph, edge_list_graph
    from dpviz.data.tables import read_table
    from dpviz.estimators.work import BATCH, check_generator, check_table  # BATCH when called

    block: dict[str, Any] = json.loads(key)
    if "generator" in block:
        name = block.pop("generator")
        fraction = block.pop("test_fraction", 0.0)
        check_generator(name, GENERATORS[name].resolve(block))  # before making the data
        made = GENERATORS[name].generate(**block)
        if name == "gmm":
            test = None
            if fraction:
                made, held = made.split(fraction, seed=block["seed"])
                test = held.data
            return _frozen(LoadedData(
                made.data, Truth.from_mixture(made, test), float(made.radius),
                f"{made.n:,} rows from a mixture of {made.k} Gaussians in {made.d} dimensions, "
                f"means {made.separation:g} σ apart" + (f"; {len(test):,} rows held out"
                                                        if test is not None else "") + ".",
                {"k": made.k}))
        if name == "exposure_demo":
            return _frozen(LoadedData(
                made.data, Truth.from_labels(made.data, made.labels), float(made.radius),
                f"The exposure demo: {len(made.data):,} people in 2-D, {made.scale} of them "
                "alone in a far component.", {"k": made.k}))
        if name == "zipf":
            n, d = made.data.shape
            return _frozen(LoadedData(
                made.data, Truth(matrix=made.matrix), 1.0,
                f"{n:,} rows in {d} dimensions with Zipf norms over {len(made.bucket_norms)} "
                f"buckets (trace {made.trace:.3g}); r = 1 is the generator's public bound."))
        graph = Graph(made.edges, made.n)
        return _frozen(LoadedData(
            graph, Truth(labels=made.labels), None,
            f"A stochastic block model: {made.n:,} vertices, {len(made.edges):,} edges.",
            {"degree": made.degree, "signal": made.signal}))
    if block.get("dataset") in GRAPH_DATASETS:
        bundled = GRAPH_DATASETS[block["dataset"]]()
        return _frozen(LoadedData(
            Graph(bundled.edges, bundled.n), Truth(labels=bundled.labels), None,
            bundled.description, {"degree": bundled.degree, "signal": bundled.signal},
            bundled.not_private))
    if "dataset" in block:
        dataset = load_dataset(block["dataset"])
        return _frozen(LoadedData(dataset.data, Truth.from_labels(dataset.data, dataset.labels),
                                  dataset.radius, dataset.description, {"k": dataset.info.k}))
    assert content is not None  # load_data gives the bytes of a file or an upload
    raw = content.take()
    source = ("the uploaded file " + block["upload"] if "upload" in block else
              Path(block.get("csv") or block["edges"]).name)
    if "n" not in block:
        check_table(raw, BATCH)  # before parsing, as a page's upload (there against its budget)
        table = read_table(raw)
        rows = table.values
        return _frozen(LoadedData(rows, None, None, f"{rows.shape[0]:,} rows × {rows.shape[1]} "
                                                    f"columns from {source}.",
                                  names=table.names))
    check_table(raw, BATCH, columns=2)  # an edge list's two columns, before parsing
    graph, report = edge_list_graph(raw, block["n"], renumber=bool(block.get("renumber")))
    degree = max(2 * len(graph.edges) / graph.n, float(limits.SBM_DEGREE.low))
    # d fills a run that does not give it, which is then not private (as for bundled graphs)
    return _frozen(LoadedData(graph, None, None, f"{len(graph.edges):,} edges from {source}: "
                                                 f"{report.sentence()}", {"degree": degree},
                              DEGREE_FROM_GRAPH, caveat=report.not_private))


def _frozen(loaded: LoadedData) -> LoadedData:
    """Mark every array read-only: the cache hands the same object to every caller."""
    parts = [loaded.data, getattr(loaded.data, "edges", None)]
    if loaded.truth is not None:
        parts += [getattr(loaded.truth, f) for f in ("weights", "means", "covariances",
                                                     "labels", "data", "test_data", "matrix")]
    for part in parts:
        if isinstance(part, np.ndarray):
            part.flags.writeable = False
    return loaded


# --- running and scoring ------------------------------------------------------------------

def preparation(s: Scenario, loaded: LoadedData) -> dict[str, Any] | None:
    """What the scenario's estimator prepares its data with, or ``None`` (no preparation).

    Its entry's ``prepare`` hook (:meth:`dpviz.core.entry.Estimator.preparation`: a graph's
    certified projection, covariance rows clipped with ``XᵀX`` formed) with the run's
    parameters, the data's public facts and its public radius. Equal answers for one data
    block mean equal prepared data, so a caller caches the prepared data on them.
    """
    from dpviz.estimators.registry import estimator as lookup

    if s.data.get("bounds") is not None:  # the run clips to the bounds first: nothing to share
        return None
    radius = s.params.get("radius") or loaded.radius
    return lookup(s.task, s.estimator).preparation({**loaded.public, **s.params,
                                                     "radius": radius})


def run_scenario(s: Scenario, loaded: LoadedData | None = None, *,
                 rng: np.random.Generator | None = None,
                 work: WorkBudget | None = BATCH) -> Result:
    """Run the scenario: :func:`dpviz.run` on its data with its budget, parameters and seed.

    The data's public radius is used when ``params`` give no ``radius``; the data's public
    parameters (``k``, ``degree``, ``signal``) fill the estimator's when ``params`` lack them
    (a private run so filled from a bundled graph's own d and ε_s is marked not private).

    Parameters
    ----------
    s : Scenario
    loaded : LoadedData, optional
        ``load_data(s.data)``, when the caller has it already (its ``data`` may be the
        estimator's prepared data, :func:`preparation`).
    rng : numpy.random.Generator, optional
        Draw from this generator instead of one seeded with the scenario's seed (a page's
        secure generator, keyed afresh on every rerun).
    work : WorkBudget or None
        What :func:`dpviz.run` checks the run's work against; ``None`` when the caller has
        checked it (a page, on its data before preparing them).

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        Bad input, with :func:`dpviz.run`'s sentence.
    """
    from dpviz.estimators.registry import estimator as lookup
    from dpviz.estimators.run import run
    from dpviz.estimators.work import check_scenario

    if loaded is None:
        check_scenario(s.task, s.estimator, s.data, s.params)  # before generating the data
        loaded = load_data(s.data)
    params = dict(s.params)
    entry = lookup(s.task, s.estimator)
    filled = [name for name in loaded.public
              if name in {p.name for p in entry.params} and params.get(name) is None]
    params.update({name: loaded.public[name] for name in filled})
    if params.get("radius") is None:
        params["radius"] = loaded.radius
    for name in ("delta", "accounting", "paper_mode"):
        if params.get(name) is None:
            params.pop(name, None)  # dpviz.run's defaults
    if s.data.get("bounds") is not None:
        result = _run_bounded(s, loaded, params, rng, work)
    else:
        result = run(s.task, s.estimator, loaded.data, seed=s.seed, rng=rng, work=work,
                     **params)
        if loaded.names and isinstance(loaded.data, np.ndarray):  # not prepared data
            result = replace(result, choices={**result.choices, **_table_choices(
                loaded, clipped_in_ball(loaded.data, params.get("radius")))})
    if "n" in s.data and any(kind in s.data for kind in USER_KINDS):  # what the edge list held
        result = replace(result, choices={**result.choices, "edge_list": loaded.description})
    caveats = [loaded.not_private] if filled else []
    caveats += [loaded.caveat] if loaded.caveat else []
    if entry.notion != "none" and any(caveats):
        reasons = "; ".join(r for r in (result.not_private, *caveats) if r)
        result = replace(result, not_private=reasons)
    return result


def _table_choices(loaded: LoadedData, clipped: int | None) -> dict[str, Any]:
    """A table's column names and the rows its bound clipped (a non-private diagnostic)."""
    from dpviz.privacy.bounds import CLIPPED_NOTE

    out: dict[str, Any] = {"columns": list(loaded.names)}
    if clipped is not None:
        out["clipped_rows"] = {"count": clipped, "of": int(loaded.data.shape[0]),
                               "note": CLIPPED_NOTE}
    return out


def clipped_in_ball(x: Any, radius: Any) -> int | None:
    """Rows outside the ball of ``radius`` about the origin (the unit ball for ``None``).

    A radius read from the data (a string) clips nothing. Not private: a teaching diagnostic.

    Examples
    --------
    >>> clipped_in_ball(np.array([[3.0, 4.0], [0.3, 0.4]]), 2.0), clipped_in_ball([[3, 4]], "data")
    (1, 0)
    """
    from dpviz.privacy.bounds import count_outside

    if isinstance(radius, str):  # read from the data: it clips nothing
        return 0
    return count_outside(np.linalg.norm(x, axis=1), 1.0 if radius is None else float(radius))


def _run_bounded(s: Scenario, loaded: LoadedData, params: dict[str, Any],
                 rng: np.random.Generator | None, work: WorkBudget | None) -> Result:
    """Run on a table clipped to the block's ``bounds``; results back in the table's units.

    Private bounds spend their share of the budget first (on the run's ledger, composed with
    the estimator's releases: :func:`dpviz.privacy.bounds.bound_plan`); the estimator runs on
    ``box.prepare(x)`` with the box's radius and the rest of the budget.
    """
    from dpviz.estimators.run import run
    from dpviz.privacy import Ledger
    from dpviz.privacy.bounds import (
        Box,
        bound_plan,
        data_box,
        parse_bounds,
        private_box,
    )
    from dpviz.privacy.randomness import secure_generator

    if params.get("radius") is not None:
        raise ValueError("give the bound once: the data block's bounds or the radius, not both")
    x = loaded.data
    d = x.shape[1]
    bounds = parse_bounds(s.data["bounds"], d)
    assert bounds is not None
    standardise = bool(bounds["standardise"])
    if rng is None:
        rng = secure_generator() if s.seed is None else np.random.default_rng(s.seed)
    budget = budget_of(params)
    # private bounds split an (ε, δ) target sequentially; PLD composes the bound's pure
    # releases with whatever the estimator released, never above the sum of the two parts
    private = "private" in bounds and budget.rho is None and budget.delta > 0
    spent = Ledger(replace(budget, method="pld") if private else budget)
    if "ranges" in bounds:
        ranges = np.asarray(bounds["ranges"], dtype=float)
        box = Box(ranges[:, 0], ranges[:, 1], "ranges", standardise)
    elif "data" in bounds:
        box = data_box(x, standardise=standardise)
    else:
        plan = bound_plan(len(x), d, budget, float(bounds["private"]))
        box = private_box(x, plan=plan, rng=rng, standardise=standardise,
                          ledger=Ledger() if budget.non_private else spent,
                          names=loaded.names or None)
        params = {**params, "epsilon": plan.rest.epsilon, "rho": plan.rest.rho}
    result = run(s.task, s.estimator, box.prepare(x), rng=rng, work=work,
                 **{**params, "radius": box.radius})
    for release in result.ledger.releases:
        spent.record(release)
    # the estimator saw the ranges' ball as a radius it was given: the bound is the ranges',
    # labelled by how they were found (typed, private with its share, read from the data)
    described = box.describe(share=bounds.get("private"))
    choices = {**result.choices, "bound": described, "bounds": described,
               "ranges": box.ranges(),
               "centre": box.center.tolist(),
               **_table_choices(loaded, box.clipped_rows(x))}
    reasons = "; ".join(r for r in (result.not_private, box.not_private) if r) or None
    estimate, diagnostics = box.map_estimate(result.estimate), box.map_estimate(
        result.diagnostics)
    if box.standardise:  # spectra and error bounds do not survive a per-column scaling
        for name, matrix in (("eigenvalues", estimate.get("covariance")),
                             ("true_eigenvalues", diagnostics.get("true_covariance"))):
            if name in diagnostics and matrix is not None:
                diagnostics[name] = np.linalg.eigvalsh(matrix)[::-1]
        if "error_bound" in diagnostics:
            diagnostics["error_bound"] = math.nan
    return replace(result, estimate=estimate, ledger=spent, choices=choices,
                   not_private=reasons, seed=s.seed, diagnostics=diagnostics)


def score(s: Scenario, result: Result, truth: Truth | None,
          names: Sequence[str]) -> dict[str, float]:
    """The metrics ``names`` of the scenario's task, by name (see ``metrics.METRICS``).

    A metric that does not apply — a ⊥ result, no truth, an estimate without the part the
    metric needs — is NaN, never an error, so one column does not stop a sweep.

    Raises
    ------
    ValueError
        An unknown metric name (the sentence lists the task's metrics).

    Examples
    --------
    >>> from dpviz.privacy import Ledger
    >>> s = Scenario("mean", "gaussian", {"csv": "x.csv"}, {"epsilon": 1.0})
    >>> r = Result({"mean": np.array([3.0, 4.0])}, Ledger(),
    ...            diagnostics={"true_mean": np.zeros(2)})
    >>> score(s, r, None, ["mean_error"])
    {'mean_error': 5.0}
    """
    check_metrics(s.task, names)
    out: dict[str, float] = {}
    for name in names:
        try:
            value = float(METRICS[s.task][name](result, truth))
        except ValueError:  # the metric needs what this run or its data does not have
            value = math.nan
        out[name] = value
    return out


def check_metrics(task: str, names: Sequence[str]) -> None:
    """Refuse a metric the task does not have, naming the ones it has.

    Examples
    --------
    >>> check_metrics("covariance", ["overlap"])
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'overlap' for the covariance task; its metrics are: frobenius_error
    """
    known = METRICS.get(task, {})
    for name in names:
        if name not in known:
            listed = ", ".join(known) or "none"
            raise ValueError(f"unknown metric {name!r} for the {task} task; its metrics are: "
                             f"{listed}")

