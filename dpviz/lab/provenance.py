"""What made a saved result: the command that re-makes it and the registry it ran on.

Every saved map, table and caption under ``assets/`` carries :func:`stamp`'s fields, so a
reader (a page, ``make claims``) can say which command re-measures it and whether the
estimators have changed since (:func:`stale`).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from dpviz.estimators.registry import version

#: The fields :func:`stamp` writes.
FIELDS = ("command", "registry_version", "dpviz_version", "made")


def stamp(command: str, task: str | None = None) -> dict[str, str]:
    """The provenance of a result made now by ``command`` on ``task``'s registry entries.

    Examples
    --------
    >>> s = stamp("python bench/winner.py --save --task gmm", "gmm")
    >>> sorted(s) == sorted(FIELDS), s["registry_version"] == version("gmm")
    (True, True)
    """
    from dpviz import __version__  # the root imports the lab: not at module level

    return {"command": command, "registry_version": version(task),
            "dpviz_version": __version__,
            "made": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")}


def stale(saved: Mapping[str, Any], task: str | None = None) -> str | None:
    """Why a saved result may be out of date, in words, or ``None`` when it is current.

    Examples
    --------
    >>> stale(stamp("python bench/winner.py --save", "gmm"), "gmm") is None
    True
    >>> stale({}, "gmm")
    'it records no registry version: it was saved before results recorded what made them'
    """
    recorded = saved.get("registry_version")
    if recorded is None:
        return "it records no registry version: it was saved before results recorded what made them"
    if recorded != version(task):
        return (f"it was made with another set of estimators or defaults (registry "
                f"{recorded}, now {version(task)}): re-run {saved.get('command', 'its command')}")
    return None
