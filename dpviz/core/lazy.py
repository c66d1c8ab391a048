"""Packages whose public names are imported on first use (PEP 562).

``import dpviz.privacy`` used to import every module of the package, and with them scipy's
optimisers and statistics, OpenDP and dp-accounting, before a page had drawn anything: a fresh
server's first page waited seconds for modules only other pages use (issue 22). A package
built with :func:`lazy_names` imports a name's module when the name is first read.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, modules: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A package's module-level ``__getattr__`` that imports each name from its module.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    modules : mapping
        Submodule (relative to ``package``) → the names the package takes from it. A
        submodule's own name is also served (``dpviz.ui.cached`` after ``from dpviz import ui``).

    Returns
    -------
    callable
        ``__getattr__(name)``: the name's value, kept in the package's namespace afterwards
        (as an import would), or ``AttributeError`` for a name the package does not have.
    """
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:  # noqa: N807 - PEP 562's name
        if name in where:
            value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        elif name in modules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
