"""The sweep cache: every finished run appended to ``<folder>/<spec digest>.jsonl``.

A folder that pages fill (the SBM page's live curves) is kept bounded by :func:`bound_cache`.
"""

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



def bound_cache(directory: Path, *, files: int, size: float,
                keep: Path | None = None) -> list[Path]:
    """Evict the oldest sweep files of ``directory``: keep at most ``files``, ``size`` bytes.

    Returns the removed paths. Oldest by modification time; ``keep`` (the file just used)
    is touched first, so it is the newest and the last to go. A file another process removed
    meanwhile is skipped.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for i, name in enumerate("abc"):
    ...     _ = (folder / f"{name}.jsonl").write_text("{}")
    ...     os.utime(folder / f"{name}.jsonl", (i, i))
    >>> [p.name for p in bound_cache(folder, files=2, size=1e9)]
    ['a.jsonl']
    """
    if keep is not None and keep.is_file():
        keep.touch()
    found = []
    for path in directory.glob("*.jsonl"):
        try:
            stat = path.stat()
        except OSError:
            continue
        found.append((stat.st_mtime, stat.st_size, path))
    found.sort(key=lambda entry: (entry[0], entry[2].name))
    total = sum(entry[1] for entry in found)
    removed: list[Path] = []
    for _, bytes_, path in found:
        if len(found) - len(removed) <= files and total <= size:
            break
        path.unlink(missing_ok=True)
        removed.append(path)
        total -= bytes_
    return removed


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
