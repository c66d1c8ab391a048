"""What made a saved result: the command that re-makes it and the registry it ran on.

Every saved map, table and caption under ``assets/results`` has :func:`stamp`'s fields,
either inside it (a JSON object's ``made_by``) or, for a CSV, in the folder's manifest
(:data:`MANIFEST`, written by :func:`record`). A reader (a page, ``make claims``) can then say
which command re-measures it and whether the estimators have changed since (:func:`stale`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dpviz.core.version import VERSION
from dpviz.estimators.registry import version

#: The fields :func:`stamp` writes.
FIELDS = ("command", "registry_version", "dpviz_version", "made")
#: The saved results' folder and its manifest: file name → stamp.
RESULTS = Path(__file__).resolve().parents[2] / "assets" / "results"
MANIFEST = RESULTS / "made_by.json"
#: What a result saved before results recorded their registry has as its version.
UNKNOWN = "unknown"


def stamp(command: str, task: str | None = None) -> dict[str, str]:
    """The provenance of a result made now by ``command`` on ``task``'s registry entries.

    Examples
    --------
    >>> s = stamp("python bench/winner.py --save --task gmm", "gmm")
    >>> sorted(s) == sorted(FIELDS), s["registry_version"] == version("gmm")
    (True, True)
    """
    return {"command": command, "registry_version": version(task),
            "dpviz_version": VERSION,
            "made": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")}


def stale(saved: Mapping[str, Any], task: str | None = None) -> str | None:
    """Why a saved result may be out of date, in words, or ``None`` when it is current.

    Examples
    --------
    >>> stale(stamp("python bench/winner.py --save", "gmm"), "gmm") is None
    True
    >>> stale({}, "gmm")
    'it does not record which estimators made it: it may be older than some of them'
    """
    recorded = saved.get("registry_version")
    if recorded is None or recorded == UNKNOWN:
        return "it does not record which estimators made it: it may be older than some of them"
    if recorded != version(task):
        return ("the estimators or their defaults have changed since it was made: re-run "
                f"{saved.get('command', 'its command')}")
    return None


def record(path: str | os.PathLike[str], command: str, task: str | None = None,
           manifest: Path = MANIFEST) -> dict[str, str]:
    """Note in the manifest that ``command`` just made the result at ``path`` (its stamp)."""
    made = {**stamp(command, task), "task": task or "all"}
    entries = json.loads(manifest.read_text()) if manifest.exists() else {}
    entries[Path(path).name] = made
    manifest.write_text(json.dumps(dict(sorted(entries.items())), indent=1,
                                   ensure_ascii=False) + "\n")
    return made


def made_by(path: str | os.PathLike[str], manifest: Path = MANIFEST) -> dict[str, Any] | None:
    """The stamp of a saved result: its own ``made_by`` (a JSON object) or the manifest's."""
    path = Path(path)
    if path.suffix == ".json":
        try:
            own = json.loads(path.read_text())
        except (OSError, ValueError):
            own = None
        if isinstance(own, dict) and isinstance(own.get("made_by"), dict):
            return dict(own["made_by"])
    entries = json.loads(manifest.read_text()) if manifest.exists() else {}
    found = entries.get(path.name)
    return None if found is None else dict(found)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dpviz.lab.provenance FILE --command CMD [--task T]``: record a result."""
    parser = argparse.ArgumentParser(prog="python -m dpviz.lab.provenance",
                                     description=record.__doc__)
    parser.add_argument("file")
    parser.add_argument("--command", required=True)
    parser.add_argument("--task", default=None)
    args = parser.parse_args(argv)
    record(args.file, args.command, args.task)
    return 0


if __name__ == "__main__":
    sys.exit(main())
