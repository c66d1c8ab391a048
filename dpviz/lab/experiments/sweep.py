"""The sweep spec (DESIGN.md): what runs, and every run's seeds and scenario.

:class:`SweepSpec` is the JSON spec the explorer page builds and ``python -m dpviz sweep``
reads; :func:`run_seeds` derives a run's data and noise seeds (the noise seed from the
estimator's name, never its position), :func:`scenario_dict` the scenario it runs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from dpviz.core import limits
from dpviz.data.files import read_file, resolve
from dpviz.estimators.metrics import METRICS
from dpviz.estimators.result import to_json_value
from dpviz.lab.scenario import BUDGET_PARAMS, FILE_KINDS, Scenario, check_metrics, normalise_data

#: Top-level fields of a sweep spec (DESIGN.md, the sweep spec).
SPEC_FIELDS = ("task", "estimators", "data", "fixed", "grid", "repeats", "seed", "metrics",
               "description")
#: The most runs one sweep may hold (grid points × repeats × estimators).
MAX_RUNS = 100_000
REPEATS = limits.Limit("repeats", 1, 10_000)
JOBS = limits.Limit("jobs", 1, 256)
#: Columns every row has besides the grid's and the metrics'.
RUN_COLUMNS = ("repeat", "seed", "data_seed")
TAIL_COLUMNS = ("seconds", "failed", "not_private")


@dataclass(frozen=True)
class SweepSpec:
    """A sweep: estimators × grid points × repeats on one data block, scored by metrics.

    Attributes
    ----------
    task : str
        A registry task.
    estimators : tuple of str
        Its estimators, in the order rows list them.
    data : mapping
        The data block (:mod:`dpviz.lab.scenario`). A generator's ``seed`` left out is derived
        per run (every repeat a fresh draw); given, every run uses that one draw.
    fixed : mapping
        Budget and estimator parameters shared by every run. A parameter an estimator does
        not have is not passed to it (e.g. ``iterations`` to a covariance estimator).
    grid : tuple of (key, values)
        Swept parameters, in order: ``data.X`` for a data parameter, plain names for the
        budget and the estimators' parameters.
    repeats : int
        Runs per grid point and estimator.
    seed : int
        The spec's seed, from which every run's data and noise seeds are derived.
    metrics : tuple of str
        The task's metrics (``python -m dpviz list``).
    description : str
        Free text (a title for pages and cards).
    base : str or None
        The folder a ``csv`` or ``edges`` path is read from, and then only inside it (the spec
        file's folder); ``None``: the working folder.
    """

    task: str
    estimators: tuple[str, ...]
    data: Mapping[str, Any]
    fixed: Mapping[str, Any]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    repeats: int
    seed: int
    metrics: tuple[str, ...]
    description: str = ""
    base: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *,
                  base: str | os.PathLike[str] | None = None) -> SweepSpec:
        """Validate a spec's JSON form: every run's scenario is checked before any runs.

        Parameters
        ----------
        d : mapping
            The spec's JSON.
        base : path, optional
            The spec file's folder: a data path is read from there, and only inside it;
            ``None``: the working folder.

        Raises
        ------
        ValueError
            A sentence naming the bad field: unknown task, estimator, metric or grid key, a
            value out of range, an empty grid list, too many runs; a data file that cannot be
            read (:func:`dpviz.data.files.read_file`: outside ``base``, not a regular file,
            over 50 MB), never quoting it.

        Examples
        --------
        >>> spec = SweepSpec.from_dict({"task": "covariance", "estimators": ["gauss"],
        ...     "data": {"generator": "zipf", "n": 1000, "d": 5}, "fixed": {},
        ...     "grid": {"rho": [0.1, 1]}, "repeats": 2, "seed": 0,
        ...     "metrics": ["frobenius_error"]})
        >>> spec.runs
        4
        >>> SweepSpec.from_dict({**spec.to_dict(), "grid": {"data.q": [1]}})
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown grid key 'data.q': unknown parameter 'q' for the generator 'zipf'; ...
        """
        from dpviz.estimators.registry import estimator as lookup

        if not isinstance(d, Mapping):
            raise ValueError(f"a sweep spec is a JSON object, got {type(d).__name__}")
        unknown = sorted(set(map(str, d)) - set(SPEC_FIELDS))
        if unknown:
            raise ValueError(f"unknown sweep spec field(s) {', '.join(unknown)}; a spec has "
                             f"{', '.join(SPEC_FIELDS)}")
        for name in ("task", "estimators", "data"):
            if name not in d:
                raise ValueError(f"the sweep spec needs a {name!r} field")
        task = str(d["task"])
        names = d["estimators"]
        if isinstance(names, str) or not isinstance(names, Sequence) or not names:
            raise ValueError("estimators must be a non-empty list of registry names, got "
                             f"{names!r}")
        estimators = tuple(dict.fromkeys(str(n) for n in names))
        entries = [lookup(task, name) for name in estimators]
        data = normalise_data(task, d["data"])
        if "seed" not in d["data"]:
            data.pop("seed", None)  # derived per run
        folder = None if base is None else os.path.abspath(base)
        if "upload" in data:
            raise ValueError("a sweep reads its data itself: give a generator, a dataset or a "
                             "file path (csv, edges), not an upload")
        path = data.get("csv") or data.get("edges")
        if path is not None:  # refused now, not run by run
            read_file(path, base=folder, inside=folder is not None)
        fixed = d.get("fixed") or {}
        if not isinstance(fixed, Mapping):
            raise ValueError(f"fixed must be a JSON object of parameter values, got {fixed!r}")
        for key in fixed:
            _check_param_key(str(key), entries, "fixed")
        grid_in = d.get("grid") or {}
        if not isinstance(grid_in, Mapping):
            raise ValueError("grid must be a JSON object of lists, e.g. {\"epsilon\": [0.1, 1]}")
        grid = []
        for raw_key, values in grid_in.items():
            key = str(raw_key)
            if isinstance(values, str) or not isinstance(values, Sequence) or not values:
                raise ValueError(f"grid {key!r} must be a non-empty list of values, got "
                                 f"{values!r}")
            if key.startswith("data."):
                for value in values:
                    try:
                        normalise_data(task, {**d["data"], key[5:]: value})
                    except ValueError as err:
                        raise ValueError(f"unknown grid key {key!r}: {err}" if "unknown" in
                                         str(err) else f"grid {key!r}: {err}") from None
                    if key[5:] in FILE_KINDS:
                        read_file(value, base=folder, inside=folder is not None)
            else:
                _check_param_key(key, entries, "grid")
            grid.append((key, tuple(values)))
        repeats = limits.check_integer(REPEATS, d.get("repeats", 1))
        seed = limits.check_integer(limits.SEED, d.get("seed", 0))
        metrics = tuple(str(m) for m in (d.get("metrics") or METRICS.get(task, {})))
        if not metrics:
            raise ValueError(f"the {task} task has no metrics to sweep")
        check_metrics(task, metrics)
        spec = cls(task, estimators, MappingProxyType(data),
                   MappingProxyType({str(k): v for k, v in fixed.items()}), tuple(grid),
                   repeats, seed, metrics, str(d.get("description") or ""), folder)
        if spec.runs > MAX_RUNS:
            raise ValueError(f"the sweep has {spec.runs:,} runs; dpviz runs at most "
                             f"{MAX_RUNS:,} in one sweep: shorten the grid or the repeats")
        for point in spec.points():  # every value checked now, not half-way through
            for name in estimators:
                scenario_dict(spec, point, name, data_seed=0, noise_seed=0)
        return spec

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, which :meth:`from_dict` reads back."""
        out: dict[str, Any] = {
            "task": self.task, "estimators": list(self.estimators), "data": dict(self.data),
            "fixed": dict(self.fixed), "grid": {k: list(v) for k, v in self.grid},
            "repeats": self.repeats, "seed": self.seed, "metrics": list(self.metrics)}
        if self.description:
            out["description"] = self.description
        return to_json_value(out)

    @property
    def runs(self) -> int:
        """How many runs the sweep holds."""
        return math.prod(len(v) for _, v in self.grid) * self.repeats * len(self.estimators)

    @property
    def columns(self) -> list[str]:
        """The result table's columns, in order."""
        return ["task", "estimator", *(k for k, _ in self.grid), *RUN_COLUMNS, *self.metrics,
                *TAIL_COLUMNS]

    def points(self) -> list[dict[str, Any]]:
        """Every grid point, the last key varying fastest."""
        keys = [k for k, _ in self.grid]
        return [dict(zip(keys, values, strict=True))
                for values in itertools.product(*(v for _, v in self.grid))]

    def digest(self) -> str:
        """A hash of the spec, the file it reads and the dpviz version: its cache file's name."""
        from dpviz.core.version import VERSION

        path = self.data.get("csv") or self.data.get("edges")
        where = None if path is None else str(resolve(path, base=self.base))
        text = json.dumps({"spec": self.to_dict(), "dpviz": VERSION, "file": where},
                          sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:24]


def _check_param_key(key: str, entries: Sequence[Any], where: str) -> None:
    if key == "seed":
        raise ValueError(f"{where} cannot set the seed: every run's noise seed is derived from "
                         "the spec's seed; set the spec's \"seed\" field")
    if key.startswith("data."):
        raise ValueError(f"{where} cannot hold the data key {key!r}: give fixed data "
                         "parameters in the data block")
    if key in BUDGET_PARAMS or any(p.name == key for e in entries for p in e.params):
        return
    known = sorted({p.name for e in entries for p in e.params} | set(BUDGET_PARAMS))
    raise ValueError(f"unknown {where} key {key!r}: no estimator of the sweep has it; the "
                     f"keys are data.<generator parameter> and {', '.join(known)}")


def digest_int(value: Any) -> int:
    """A 64-bit integer naming ``value`` (its canonical JSON, SHA-256): a seed's name part.

    The same value gives the same integer in every process and version of Python (unlike
    ``hash``), so a name keys a seed: :func:`run_seeds` and the pages' noise streams.

    Examples
    --------
    >>> digest_int("gauss") == digest_int("gauss"), digest_int("gauss") == digest_int("zero")
    (True, False)
    >>> digest_int({"b": 1, "a": 2}) == digest_int({"a": 2, "b": 1})
    True
    """
    text = json.dumps(to_json_value(value), sort_keys=True)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def run_seeds(spec: SweepSpec, point: Mapping[str, Any], repeat: int,
              estimator: str) -> tuple[int, int]:
    """The (data seed, noise seed) of one run, from ``numpy.random.SeedSequence``.

    The data seed comes from (spec seed, the point's ``data.*`` coordinates, repeat): every
    estimator and every budget of a repeat sees the same data (a paired comparison). The noise
    seed comes from (spec seed, the whole point, repeat, estimator).

    Examples
    --------
    >>> spec = SweepSpec("mean", ("laplace", "gaussian"), {"generator": "gmm"}, {},
    ...                  (("epsilon", (1.0, 2.0)),), 1, 0, ("mean_error",))
    >>> a = run_seeds(spec, {"epsilon": 1.0}, 0, "laplace")
    >>> b = run_seeds(spec, {"epsilon": 2.0}, 0, "gaussian")
    >>> a[0] == b[0], a[1] == b[1]
    (True, False)
    """
    data_point = {k: v for k, v in point.items() if k.startswith("data.")}
    data_seed = np.random.SeedSequence([spec.seed, digest_int(data_point), repeat])
    noise_seed = np.random.SeedSequence([spec.seed, digest_int(dict(point)), repeat,
                                         digest_int(estimator)])
    return (int(data_seed.generate_state(1)[0]), int(noise_seed.generate_state(1)[0]))


def scenario_dict(spec: SweepSpec, point: Mapping[str, Any], estimator: str, *,
                  data_seed: int, noise_seed: int) -> dict[str, Any]:
    """The validated :class:`~dpviz.lab.scenario.Scenario` JSON of one run of the sweep."""
    from dpviz.estimators.registry import estimator as lookup

    own = {p.name for p in lookup(spec.task, estimator).params} | set(BUDGET_PARAMS)
    data = dict(spec.data)
    params = {k: v for k, v in spec.fixed.items() if k in own}
    for key, value in point.items():
        if key.startswith("data."):
            data[key[5:]] = value
        elif key in own:
            params[key] = value
    if "generator" in data and "seed" not in data:
        data["seed"] = data_seed
    return Scenario.from_dict({"task": spec.task, "estimator": estimator, "data": data,
                               "params": params, "seed": noise_seed}).to_dict()
