"""How estimators describe themselves: parameters, hooks and costs, stated on one entry.

Pages build their widgets, the CLI parses ``--set NAME=VALUE`` and ``python -m dpviz list``
prints the registry, all from these descriptions. Everything else a service needs to know
about one estimator is a hook on its :class:`Estimator` entry, with a default that suits an
estimator which says nothing: its audit neighbours (:attr:`Estimator.neighbours`), its page
story (:class:`Story`), the public work it can do once for every budget
(:class:`Preparation`), whether it can succeed at public sizes (:attr:`Estimator.can_run`),
whether it is a page's default for a user's table (:attr:`Estimator.suits`), its work-cost
coefficients (:class:`CostModel`), the neighbouring relation it protects
(:attr:`Estimator.relation`), a small run for tests and checks (:attr:`Estimator.example`) and
its non-private reference (:attr:`Estimator.reference`). Adding an estimator is one module and
one registration; :func:`dpviz.lab.check.check_estimator` then runs the contract on it.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from dpviz.core import limits
from dpviz.core.relations import Relation

ParamType = Literal["float", "int", "bool", "str"]
#: How ``--set NAME=…`` asks for a parameter whose default is "the estimator picks it".
AUTOMATIC = ("none", "auto", "automatic")


@dataclass(frozen=True)
class Param:
    """One estimator parameter.

    Parameters
    ----------
    name : str
        Keyword name (also the CLI's ``--set`` name).
    type : {"float", "int", "bool", "str"}
        How a value is parsed.
    default : object
        Used when the caller gives nothing (``None`` for required parameters).
    min, max : float or None
        Inclusive range of numeric parameters.
    options : tuple or None
        The allowed values of a categorical parameter.
    required : bool
        Whether a call must give it.
    choice : bool
        A constant the paper leaves open, chosen by dpviz: pages show it as a labelled choice.
    help : str
        One sentence for the widget's help and ``list``.
    """

    name: str
    type: ParamType
    default: Any = None
    min: float | None = None
    max: float | None = None
    options: tuple[Any, ...] | None = None
    required: bool = False
    choice: bool = False
    help: str = ""

    def parse(self, value: Any) -> Any:
        """Parse and validate a value (a string from the CLI, or a Python value).

        Examples
        --------
        >>> Param("iterations", "int", 20, min=1, max=500).parse("30")
        30
        >>> Param("iterations", "int", 20, min=1, max=500).parse("0")
        Traceback (most recent call last):
        ...
        ValueError: iterations must be >= 1 and <= 500, got 0
        """
        if (self.default is None and not self.required
                and (value is None or str(value).strip().lower() in AUTOMATIC)):
            return None  # "automatic": the estimator picks it
        if self.type == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("true", "1", "yes", "on"):
                return True
            if text in ("false", "0", "no", "off"):
                return False
            raise ValueError(f"{self.name} must be true or false, got {value!r}")
        if self.type == "str":
            text = str(value)
            if self.options is not None and text not in self.options:
                raise ValueError(f"{self.name} must be one of {', '.join(map(str, self.options))},"
                                 f" got {text!r}")
            return text
        limit = limits.Limit(self.name, -math.inf if self.min is None else self.min,
                             math.inf if self.max is None else self.max)
        if self.type == "int":
            return limits.check_integer(limit, value)
        return limits.check_number(limit, value)

    def to_dict(self) -> dict[str, Any]:
        """The form ``python -m dpviz list`` prints."""
        return {"type": self.type, "default": self.default, "min": self.min, "max": self.max,
                "options": list(self.options) if self.options is not None else None,
                "required": self.required, "choice": self.choice, "help": self.help}


def shared_k(limit: limits.Limit = limits.COMPONENTS, *,
             help: str = "number of components") -> Param:
    """The required parameter ``k`` of every mixture estimator, its range from :mod:`limits`.

    ``limit`` is :data:`dpviz.core.limits.COMPONENTS` unless the estimator cannot fit as many
    (then a smaller :mod:`dpviz.core.limits` constant whose comment says why).

    Examples
    --------
    >>> shared_k().max == limits.COMPONENTS.high, shared_k(limits.COMPONENTS_PER_CHUNK).max
    (True, 20)
    """
    return Param("k", "int", None, min=limit.low, max=limit.high, required=True, help=help)


#: The shared ``k``: the pages' widgets and every mixture estimator read its range.
K = shared_k()


#: Why a run cannot succeed at public sizes, or ``None`` when it can (see Estimator.can_run).
CanRun = Callable[..., "str | None"]


def always_runs(**_: Any) -> None:
    """The default precondition: nothing public rules the run out."""
    return None


@dataclass(frozen=True)
class StoryInputs:
    """What the page knows besides the result, handed to a story (all public or generated).

    Attributes
    ----------
    rows : ndarray or None
        The data the run saw (n × d).
    labels : ndarray or None
        The generating component of each row, when the data were generated.
    true_means : ndarray or None
        The generating means (k × d), when known; on a user's file, ``reference``'s means.
    k : int or None
        The number of components asked for.
    reference : str or None
        What ``true_means`` are when the data have no truth ("non-private EM on your data");
        figures then name it instead of "true means".
    names : tuple of str or None
        The columns' names (a CSV's header on an upload), for axes; ``None``: ``x1 … xd``.
    """

    rows: Any = None
    labels: Any = None
    true_means: Any = None
    k: int | None = None
    reference: str | None = None
    names: tuple[str, ...] | None = None


@dataclass(frozen=True)
class StoryFigure:
    """One figure of a story, with the key and file name its chart is shown under."""

    figure: Any
    key: str
    filename: str


#: A story's rows: each row is one figure, or several side by side.
StoryRows = Sequence[Sequence[StoryFigure]]


@dataclass(frozen=True)
class Story:
    """How an estimator got its answer: a sentence and the figures drawn from its result.

    Attributes
    ----------
    intro : str
        The sentence that introduces the story.
    figures : callable or str
        ``figures(result, inputs: StoryInputs) -> StoryRows``, or its ``"module:function"``
        path, imported when the story is drawn (so an estimator module need not import the
        figure factories of :mod:`dpviz.viz`, which import the estimators).
    calculator : str or None
        A public sample-size calculator the page shows under the story, by name (e.g.
        ``"ppe"``): what sample the estimator's guarantee needs.
    """

    intro: str
    figures: Callable[..., StoryRows] | str
    calculator: str | None = None

    def rows(self, result: Any, inputs: StoryInputs) -> StoryRows:
        """The figures of ``result``'s story, row by row (plain plotly figures)."""
        draw = self.figures
        if isinstance(draw, str):
            module, _, name = draw.partition(":")
            draw = getattr(importlib.import_module(module), name)
        return draw(result, inputs)


@dataclass(frozen=True)
class Preparation:
    """Work on the data that no budget changes, done once and reused for every ε.

    ``function(data, **values)`` returns prepared data that the estimator accepts in place of
    the data; ``params`` names the resolved parameters it depends on (``radius`` is the run's
    public radius). Entries with equal preparations share the prepared data.
    """

    function: Callable[..., Any]
    params: tuple[str, ...] = ()

    def values(self, resolved: Mapping[str, Any]) -> dict[str, Any]:
        """The values the preparation depends on, picked from a run's resolved parameters."""
        return {name: resolved.get(name) for name in self.params}


@dataclass(frozen=True)
class DescribedRows:
    """The rows a release describes (:attr:`Estimator.described_rows`): a Gaussian mixture.

    ``means`` (k × d), ``weights`` (k) and ``covariances`` (k × d × d), as arrays.
    ``equal_norms``: each drawn row is moved along its offset from its component's mean to
    the length ``√tr(covariance)`` (the released matrix's directions, one norm: rows a bound
    clips all share its radius; in the table's units, so not one norm in the estimator's
    when the columns were standardised by unequal ranges). ``said``: what the rows were
    drawn from, in words the page's sentence ends on.
    """

    means: Any
    weights: Any
    covariances: Any
    equal_norms: bool = False
    said: str = "this run's release"


@dataclass(frozen=True)
class CostModel:
    """The coefficients of :mod:`dpviz.estimators.work`'s cost model for one estimator.

    Measured by ``python bench/work_costs.py`` (see :mod:`dpviz.estimators.work`). ``None``
    seconds: not measured yet, each time unit charged as one pass over the data
    (:data:`dpviz.estimators.work.UNMEASURED_SECONDS`), and a refusal says the cost is a guess.

    Attributes
    ----------
    seconds_per_unit : float or None
        Seconds per time unit (:func:`dpviz.estimators.work.units`).
    base_seconds : float
        Seconds a run takes whatever its size.
    bytes_per_unit : float
        Peak bytes per memory unit.
    growth : {"edges", "quadratic", "cubic"}
        For graphs: work linear in the edges, in every pair of vertices (n²), or n³ (dense
        eigendecompositions); for mixtures, "quadratic" adds every pair of rows (n²).
    draws : {"few", "pairs", "symmetric", "mixture_iterations"}
        The noise entries one run draws (:func:`dpviz.estimators.work.secure_draws`): O(n + d),
        one per vertex pair, one symmetric d × d matrix, or DP-EM's k mixture parameters per
        iteration.
    chunk_rows : int
        For estimators that fit a learner on t disjoint chunks: the rows per chunk when the
        run does not set ``chunks`` (t = n / chunk_rows); 0 for the others.
    seconds_per_chunk : float
        Seconds per chunk fit (the learner's fixed cost, which dominates at small chunks).
    seconds_per_pair : float
        Seconds per pair of the t·k candidates the aggregation compares ((t·k)² pairs).
    """

    seconds_per_unit: float | None = None
    base_seconds: float = 0.0
    bytes_per_unit: float = 64.0
    growth: Literal["edges", "quadratic", "cubic"] = "edges"
    draws: Literal["few", "pairs", "symmetric", "mixture_iterations"] = "few"
    chunk_rows: int = 0
    seconds_per_chunk: float = 0.0
    seconds_per_pair: float = 0.0


@dataclass(frozen=True)
class Estimator:
    """A registry entry: the function, what it is, its parameters and its hooks.

    ``function(data, budget, *, rng, radius, **params)`` returns a
    :class:`~dpviz.estimators.result.Result`.

    Attributes
    ----------
    relation : Relation or None
        The neighbouring relation its guarantee protects, as its module's docstring proves it;
        a private entry must state it. ``None``: not private, the task's data
        (:func:`dpviz.estimators.registry.relation_of`).
    example : mapping
        Its own parameters (required ones included) for a small, fast run on
        :func:`dpviz.lab.check.instance`'s data — 400 rows of two columns in the unit ball, or
        a graph of 12 vertices — that releases something where it can; tests and
        :func:`~dpviz.lab.check.check_estimator` run it.
    small_example : mapping or None
        Its parameters for :mod:`dpviz.lab.check`'s neighbouring tables of 12 rows, where they
        must differ from :attr:`example` for it to answer; ``None``: :attr:`example`.
    reference : str or None
        The estimator of its task whose answer it gives at ε = ∞, run with the same example
        (``None``: the same algorithm with no noise, every release at scale 0).
    fails_when_small : str or None
        Why its private steps legitimately fail (⊥ after spending) on the checks' small data
        — 400 or 12 rows at ε = 1 — even past :attr:`can_run`; ``None``: it answers there.
    ignores_data : bool
        Its answer never reads the data and it releases nothing (a baseline): at ε = ∞ and
        from a secure generator its ledger may stay empty.
    numpy_choice : str or None
        Why a secure run draws its exponential-mechanism choices with numpy, not OpenDP's noisy
        max (a sampler OpenDP lacks); ``None``: OpenDP makes every choice.
    neighbours : callable or None
        ``neighbours() -> dpviz.estimators.neighbours.NeighbourPair``: the worst-case neighbouring
        pair of its sensitivity proof and a statistic of the release, for the audit (``None``: no
        pair defined yet, and the audit says so).
    no_pair : str or None
        Why a private entry has no :attr:`neighbours` yet, a sentence the audit shows; every
        private entry has a pair or this.
    story : Story or None
        The page's "how it got its answer" panel (``None``: no story).
    prepare : Preparation or None
        ε-independent work done once (``None``: the data are used as given).
    can_run : callable
        ``can_run(*, n, d, k, epsilon, delta, **params) -> str | None``: a sentence saying
        why a run cannot succeed at these public sizes and what n or ε it would need, or
        ``None``. Public inputs only.
    cost : CostModel
        Its work-cost coefficients (:mod:`dpviz.estimators.work`).
    suits : callable or None
        ``suits(*, n, d, k) -> bool``: whether this entry is a page's default for a user's
        table of these public sizes (:func:`dpviz.lab.feasibility.table_default`, which also
        asks :attr:`can_run`); ``None``: never the default by size.
    described_rows : callable or None
        ``described_rows(result) -> DescribedRows or None``: the Gaussian mixture its
        release describes (:class:`DescribedRows`), post-processing only;
        :mod:`dpviz.lab.expectation` draws rows from it to state a run's expected error from
        its own release where that is larger than the public shape's (``None``: the public
        shape's alone).
    """

    task: str
    name: str
    function: Callable[..., Any]
    label: str
    paper: str
    notion: str
    outputs: tuple[str, ...]
    params: tuple[Param, ...] = ()
    neighbours: Callable[[], Any] | None = None
    story: Story | None = None
    prepare: Preparation | None = None
    can_run: CanRun = always_runs
    cost: CostModel = CostModel()
    suits: Callable[..., bool] | None = None
    described_rows: Callable[..., Any] | None = None
    relation: Relation | None = None
    example: Mapping[str, Any] = field(default_factory=dict, hash=False)
    small_example: Mapping[str, Any] | None = field(default=None, hash=False)
    reference: str | None = None
    fails_when_small: str | None = None
    ignores_data: bool = False
    numpy_choice: str | None = None
    no_pair: str | None = None

    def param(self, name: str) -> Param:
        """The parameter called ``name``; a ``ValueError`` names the ones that exist."""
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise ValueError(f"unknown parameter {name!r} for {self.task}/{self.name}; "
                         f"its parameters are: {known}")

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled in, every value parsed, unknown and missing names refused."""
        for name in given:
            self.param(name)
        out = {}
        for p in self.params:
            if p.name in given and given[p.name] is not None:
                out[p.name] = p.parse(given[p.name])
            elif p.required:
                raise ValueError(f"{self.task}/{self.name} needs the parameter {p.name!r}")
            else:
                out[p.name] = p.default
        return out

    def cannot_run(self, *, n: int, d: int = 1, k: int | None = None,
                   epsilon: float | None = None, delta: float = 0.0,
                   accounting: str = "zcdp", **params: Any) -> str | None:
        """Why a run at these public sizes cannot succeed (:attr:`can_run`), or ``None``.

        The entry's own parameters not given take their defaults (an own ``n``, ``d`` or
        ``k``, such as the block-model entries' vertex count, is the size given here); other
        names (budget keywords such as ``seed`` or ``rho``) are ignored. Sizes the entry's
        own calculator refuses (a ``ValueError``, e.g. a huge ε) are a reason too: its text.

        Examples
        --------
        >>> from dpviz.estimators.registry import estimator
        >>> estimator("gmm", "dp_em").cannot_run(n=10, d=2, k=3, epsilon=1.0) is None
        True
        >>> estimator("gmm", "ppe").cannot_run(n=1000, d=2, k=3, epsilon=1.0,
        ...                                    delta=1e-5)[:27]
        'PPE cannot succeed with n ='
        """
        try:
            values = {p.name: p.parse(params[p.name]) if params.get(p.name) is not None
                      else p.default for p in self.params if p.name not in ("k", "n", "d")}
            return self.can_run(n=n, d=d, k=k, epsilon=epsilon, delta=delta,
                                accounting=accounting, **values)
        except ValueError as err:
            return str(err)

    def preparation(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """What this entry's :attr:`prepare` step depends on, or ``None`` when it has none.

        ``params`` are the run's parameters (public facts of the data, such as a graph's
        degree, included; ``radius`` the run's public radius); defaults fill the rest. ``None``
        too when a value it needs is not known: the run then takes the data as given and says
        what is missing. Equal answers for one data set mean equal prepared data, so a caller
        caches on them.

        Examples
        --------
        >>> from dpviz.estimators.registry import estimator
        >>> estimator("sbm", "projection").preparation({"degree": 5, "signal": 0.5})
        {'degree': 5.0, 'signal': 0.5, 'tolerance_fraction': 0.02}
        >>> estimator("sbm", "spectral").preparation({"degree": 5, "signal": 0.5}) is None
        True
        """
        if self.prepare is None:
            return None
        own = {p.name for p in self.params}
        given = {k: v for k, v in params.items() if k in own and v is not None}
        try:
            resolved = {**params, **self.resolve(given)}
        except ValueError:
            return None
        values = self.prepare.values(resolved)
        return None if any(v is None for v in values.values()) else values

    def prepared(self, data: Any, values: Mapping[str, Any]) -> Any:
        """``data`` prepared for this entry with :meth:`preparation`'s ``values``."""
        if self.prepare is None:
            return data
        return self.prepare.function(data, **values)

    def to_dict(self, common: tuple[Param, ...]) -> dict[str, Any]:
        """The form ``python -m dpviz list`` prints (common budget parameters first)."""
        return {"label": self.label, "paper": self.paper, "notion": self.notion,
                "outputs": list(self.outputs),
                "params": {p.name: p.to_dict() for p in (*common, *self.params)}}
