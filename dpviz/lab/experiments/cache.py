"""The sweep cache: every finished run appended to ``<folder>/<spec digest>.jsonl``."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

CACHE_ENV = "DPVIZ_CACHE_DIR"
DEFAULT_CACHE = Path("~/.cache/dpviz/sweeps")


def cache_directory(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where finished runs are kept.

    The argument, else the environment variable ``DPVIZ_CACHE_DIR``, else
    ``~/.cache/dpviz/sweeps``.
    """
    chosen = cache_dir if cache_dir is not None else os.environ.get(CACHE_ENV) or DEFAULT_CACHE
    return Path(chosen).expanduser()


def make_cache(directory: Path) -> None:
    """Create the cache folder; a sentence when it is a file or cannot be made."""
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"the cache folder {directory} is a file, not a folder; give a folder "
                         "for the finished runs (--cache-dir)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"cannot make the cache folder {directory}: {err.strerror}") from None



def read_cache(path: Path) -> dict[str, dict[str, Any]]:
    """The finished runs kept in a cache file, by run key (a line cut short is skipped)."""
    found: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return found
    for line in path.read_text().splitlines():
        try:
            entry = json.loads(line)
            found[entry["key"]] = entry["row"]
        except (ValueError, KeyError, TypeError):  # a line cut short by a kill: run it again
            continue
    return found


def from_json_value(value: Any) -> Any:
    """A value read back from JSON: ``"inf"``/``"-inf"`` as infinities, ``null`` as NaN."""
    return math.inf if value == "inf" else -math.inf if value == "-inf" else (
        math.nan if value is None else value)
