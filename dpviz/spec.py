"""How estimators describe themselves: parameters with types and ranges, stated as data.

Pages build their widgets, the CLI parses ``--set NAME=VALUE`` and ``python -m dpviz list``
prints the registry, all from these descriptions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from . import limits

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


@dataclass(frozen=True)
class Estimator:
    """A registry entry: the function, what it is, and its parameters.

    ``function(data, budget, *, rng, radius, **params)`` returns a :class:`~dpviz.result.Result`.
    """

    task: str
    name: str
    function: Callable[..., Any]
    label: str
    paper: str
    notion: str
    outputs: tuple[str, ...]
    params: tuple[Param, ...] = ()

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

    def to_dict(self, common: tuple[Param, ...]) -> dict[str, Any]:
        """The form ``python -m dpviz list`` prints (common budget parameters first)."""
        return {"label": self.label, "paper": self.paper, "notion": self.notion,
                "outputs": list(self.outputs),
                "params": {p.name: p.to_dict() for p in (*common, *self.params)}}
