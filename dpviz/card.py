"""Experiment cards: one run recorded so that anyone can replay it and get the same numbers.

A card is JSON: the :class:`~dpviz.scenario.Scenario` (every parameter and the noise seed),
the SHA-256 of a data file it reads, the run's own JSON (:meth:`dpviz.result.Result.to_dict`),
the package versions, the dpviz version, the headless command that replays it and the time it
was made. ``python -m dpviz card …`` writes one, ``python -m dpviz run --card card.json`` replays
it (issue 9, part 5), and the pages export it as a zip with their figures and tables
(:func:`card_zip`).

A run with secure randomness (``seed=None``: noise from OS entropy) cannot be replayed, and its
card says so: it records the scenario but no numbers, and :func:`run_card` refuses it.

Examples
--------
>>> from dpviz.scenario import Scenario
>>> s = Scenario.from_dict({"task": "covariance", "estimator": "gauss",
...                         "data": {"generator": "zipf", "n": 500, "d": 3, "seed": 1},
...                         "params": {"rho": 0.5}, "seed": 7})
>>> card = make_card(s)
>>> card["reproducible"], card["command"]
(True, 'python -m dpviz run --card card.json')
>>> run_card(card).to_dict() == card["result"]
True
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import re
import tempfile
import warnings
import zipfile
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .result import Result, to_json_value
from .scenario import Scenario, run_scenario

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

#: The card format's version (a card states it; :func:`read_card` refuses others).
CARD_VERSION = 1
#: The command that replays a card saved as ``card.json``.
COMMAND = "python -m dpviz run --card card.json"
#: Packages whose versions a card records (distribution names).
PACKAGES = ("numpy", "scipy", "scikit-learn", "networkx", "pandas", "dp-accounting", "plotly",
            "streamlit", "kaleido")
#: Where Debian puts the browser kaleido drives to draw PNG and SVG.
CHROMIUM = Path("/usr/bin/chromium")
#: Why a secure run's card holds no numbers.
SECURE_NOTE = ("secure randomness: the noise came from OS entropy and was not kept, so this "
               "run cannot be reproduced; the card records the scenario, not its numbers")
FIELDS = ("dpviz_card", "scenario", "data_file", "result", "reproducible", "note", "versions",
          "dpviz_version", "command", "created")


def versions() -> dict[str, str | None]:
    """Python's and each package's installed version (``None`` when not installed).

    Read from the installed distributions' metadata, so nothing (Streamlit in particular) is
    imported.

    Examples
    --------
    >>> sorted(versions())[:3]
    ['dp-accounting', 'kaleido', 'networkx']
    """
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file, in hex (a sentence if it cannot be read)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as err:
        raise ValueError(f"cannot read the data file {path}: {err.strerror}") from None
    return digest.hexdigest()


def data_path(scenario: Scenario) -> str | None:
    """The file a scenario reads (a CSV or an edge list), or ``None``."""
    path = scenario.data.get("csv") or scenario.data.get("edges")
    return None if path is None else str(path)


def make_card(scenario: Scenario) -> dict[str, Any]:
    """Run a scenario and record it as a card.

    Parameters
    ----------
    scenario : Scenario
        What to run; ``seed=None`` (secure randomness) makes a card that records the scenario
        only and says it cannot be reproduced.

    Returns
    -------
    dict
        The card's JSON: ``dpviz_card`` (the format version), ``scenario``, ``data_file``
        (``{"path", "sha256"}`` of a CSV or edge list, else ``None``), ``result`` (the run's
        JSON, ``None`` for a secure run), ``reproducible``, ``note``, ``versions``,
        ``dpviz_version``, ``command`` and ``created`` (UTC, ISO 8601).

    Raises
    ------
    ValueError
        Bad input, with the engine's sentence.
    """
    from . import __version__

    path = data_path(scenario)
    data_file = None if path is None else {"path": path, "sha256": file_sha256(path)}
    reproducible = scenario.seed is not None
    result = _json(run_scenario(scenario).to_dict()) if reproducible else None
    return {"dpviz_card": CARD_VERSION, "scenario": _json(scenario.to_dict()),
            "data_file": data_file, "result": result, "reproducible": reproducible,
            "note": None if reproducible else SECURE_NOTE, "versions": versions(),
            "dpviz_version": __version__, "command": COMMAND,
            "created": datetime.now(UTC).isoformat(timespec="seconds")}


def _json(value: Any) -> Any:
    """``value`` as it reads back from JSON (so a card compares equal to its saved file)."""
    return json.loads(json.dumps(to_json_value(value), allow_nan=False))


def check_card(card: Any) -> dict[str, Any]:
    """Validate a card's JSON; return it with its scenario normalised.

    Raises
    ------
    ValueError
        A sentence naming what is wrong: not a card, another format version, a missing
        field, a bad scenario.

    Examples
    --------
    >>> check_card({"dpviz_card": 1})
    Traceback (most recent call last):
    ...
    ValueError: the card has no 'scenario' field; a card has dpviz_card, scenario, data_file, \
result, reproducible, note, versions, dpviz_version, command and created
    """
    if not isinstance(card, Mapping) or "dpviz_card" not in card:
        raise ValueError("this is not a dpviz card: a card is a JSON object with a "
                         "'dpviz_card' field, written by `python -m dpviz card` or a page's "
                         "'Prepare card' button")
    if card["dpviz_card"] != CARD_VERSION:
        raise ValueError(f"the card's format version is {card['dpviz_card']!r}; this dpviz "
                         f"reads version {CARD_VERSION}")
    for name in FIELDS:
        if name not in card:
            raise ValueError(f"the card has no {name!r} field; a card has "
                             f"{', '.join(FIELDS[:-1])} and {FIELDS[-1]}")
    out = dict(card)
    out["scenario"] = _json(Scenario.from_dict(card["scenario"]).to_dict())
    data_file = card["data_file"]
    if data_file is not None and not (isinstance(data_file, Mapping)
                                      and isinstance(data_file.get("path"), str)
                                      and isinstance(data_file.get("sha256"), str)):
        raise ValueError("the card's data_file must be null or {\"path\": …, \"sha256\": …}, "
                         f"got {data_file!r}")
    if card["reproducible"] and not isinstance(card["result"], Mapping):
        raise ValueError("the card says it is reproducible but records no result")
    return out


def read_card(source: str | os.PathLike[str] | bytes) -> dict[str, Any]:
    """Read and validate a card from a file path or the bytes of an upload.

    Raises
    ------
    ValueError
        The file cannot be read, is not JSON, or is not a valid card (:func:`check_card`).
    """
    if isinstance(source, bytes):
        text, name = source.decode("utf-8", errors="replace"), "the uploaded card"
    else:
        name = f"the card {source}"
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as err:
            raise ValueError(f"cannot read {name}: {err.strerror}") from None
    try:
        card = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{name} is not JSON (line {err.lineno}, column {err.colno}: "
                         f"{err.msg})") from None
    return check_card(card)


def run_card(card: Mapping[str, Any]) -> Result:
    """Replay a card: the same scenario, data and seed, so the same numbers.

    Warns (``UserWarning``) when the numbers differ from the card's recorded result, naming
    the package versions that differ (another numpy may draw differently).

    Raises
    ------
    ValueError
        An invalid card; a card of a secure run (nothing to replay); a data file that
        changed since the card was made (its SHA-256 differs).
    """
    card = check_card(card)
    if not card["reproducible"]:
        raise ValueError("this card records a run with secure randomness (no seed): the noise "
                         "was not kept, so it cannot be reproduced")
    scenario = Scenario.from_dict(card["scenario"])
    data_file = card["data_file"]
    if data_file is not None:
        now = file_sha256(data_file["path"])
        if now != data_file["sha256"]:
            raise ValueError(f"the data file {data_file['path']} changed since the card was "
                             f"made (SHA-256 {now[:12]}… instead of {data_file['sha256'][:12]}…);"
                             " restore the original file to reproduce the card")
    result = run_scenario(scenario)
    if _json(result.to_dict()) != card["result"]:
        changed = {name: (was, now) for name, now in versions().items()
                   if (was := card["versions"].get(name)) != now}
        listed = ", ".join(f"{n} {a} → {b}" for n, (a, b) in changed.items()) or "none"
        warnings.warn(f"the replayed numbers differ from the card's (package versions that "
                      f"differ: {listed})", UserWarning, stacklevel=2)
    return result


# --- the zip a page exports ---------------------------------------------------------------

def _file_name(name: str) -> str:
    """A safe file name for a figure or table name.

    Examples
    --------
    >>> _file_name("Errors after matching / ε = 1")
    'Errors-after-matching-e-1'
    """
    plain = name.replace("ε", "e").replace("ρ", "rho").replace("δ", "delta")
    return re.sub(r"[^A-Za-z0-9_.]+", "-", plain).strip("-") or "figure"


def image_export_available() -> bool:
    """Whether kaleido has a browser to draw PNG and SVG with (``BROWSER_PATH`` or chromium)."""
    path = os.environ.get("BROWSER_PATH")
    return Path(path).is_file() if path else CHROMIUM.is_file()


def figure_images(figures: Mapping[str, go.Figure]) -> tuple[dict[str, bytes], str | None]:
    """Each figure as PNG and SVG through kaleido, in one browser session.

    Sets ``BROWSER_PATH`` to Debian's chromium when it is unset and the file exists.

    Returns
    -------
    files : dict
        ``{"figures/<name>.png": bytes, "figures/<name>.svg": bytes}``; empty on failure.
    reason : str or None
        Why no image was made (no browser, kaleido failed), or ``None``.
    """
    if not figures:
        return {}, None
    if "BROWSER_PATH" not in os.environ and CHROMIUM.is_file():
        os.environ["BROWSER_PATH"] = str(CHROMIUM)
    try:
        import kaleido

        with tempfile.TemporaryDirectory(prefix="dpviz-card-") as tmp:
            jobs = [{"fig": fig, "path": str(Path(tmp) / f"{_file_name(name)}.{fmt}"),
                     "opts": {"format": fmt}}
                    for name, fig in figures.items() for fmt in ("png", "svg")]
            kaleido.write_fig_from_object_sync(jobs, kopts={"mathjax": False})
            return {f"figures/{Path(job['path']).name}": Path(job["path"]).read_bytes()
                    for job in jobs}, None
    except Exception as err:  # any failure of the browser: fall back, never crash
        return {}, f"{type(err).__name__}: {err}".strip()


def card_zip(card: Mapping[str, Any], figures: Mapping[str, go.Figure],
             tables: Mapping[str, pd.DataFrame]) -> bytes:
    """The card as a zip: JSON, versions, figures (PNG + SVG), tables (CSV) and a script.

    Parameters
    ----------
    card : mapping
        From :func:`make_card`.
    figures : mapping
        Name → figure, as the page drew them (the engine does not build figures).
    tables : mapping
        Name → table of the numbers shown.

    Returns
    -------
    bytes
        A zip with ``card.json``, ``versions.txt``, ``README.txt``, ``regenerate.sh``,
        ``figures/<name>.png`` and ``.svg`` (or, when no browser can draw them,
        ``figures/<name>.html`` — self-contained — and ``.json``, with the reason in
        ``README.txt``) and ``tables/<name>.csv``.
    """
    card = check_card(card)
    files: dict[str, bytes] = {"card.json": json.dumps(card, indent=2).encode() + b"\n"}
    files["versions.txt"] = "".join(f"{name} {version or 'not installed'}\n" for name, version
                                    in [("dpviz", card["dpviz_version"]),
                                        *card["versions"].items()]).encode()
    images, reason = figure_images(figures)
    files.update(images)
    if reason is not None:
        for name, fig in figures.items():
            base = f"figures/{_file_name(name)}"
            files[f"{base}.html"] = fig.to_html(include_plotlyjs=True, full_html=True).encode()
            files[f"{base}.json"] = fig.to_json().encode()
    for name, table in tables.items():
        files[f"tables/{_file_name(name)}.csv"] = table.to_csv(index=False).encode()
    files["regenerate.sh"] = _script(card).encode()
    files["README.txt"] = _readme(card, figures, reason).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(name, date_time=datetime.now().timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if name.endswith(".sh") else 0o644) << 16
            archive.writestr(info, content)
    return buffer.getvalue()


def _script(card: Mapping[str, Any]) -> str:
    head = ("#!/bin/sh\n# Replays this experiment card headless, where dpviz is installed:\n"
            f"#   {COMMAND}\n# (PYTHON=path/to/python picks the interpreter.)\n")
    if not card["reproducible"]:
        return (head + f"echo 'This card cannot be replayed: {card['note']}.' >&2\nexit 1\n")
    return (head + "set -e\ncd \"$(dirname \"$0\")\"\n"
            f"{COMMAND.replace('python', '${PYTHON:-python}', 1)} > result.json\n"
            "echo 'result.json holds the same JSON as the card’s \"result\".'\n")


def _readme(card: Mapping[str, Any], figures: Mapping[str, Any], reason: str | None) -> str:
    scenario = card["scenario"]
    lines = [f"dpviz experiment card: {scenario['task']} / {scenario['estimator']}, made "
             f"{card['created']} with dpviz {card['dpviz_version']}.", "",
             "card.json      the scenario (every parameter and the seed), the run's numbers "
             "and the versions",
             "versions.txt   Python and package versions",
             "regenerate.sh  the headless command: " + COMMAND,
             "tables/        the numbers shown, as CSV"]
    if figures:
        lines.append("figures/       the figures, as "
                     + ("PNG and SVG" if reason is None else "self-contained HTML and plotly "
                                                                 "JSON"))
    if reason is not None and figures:
        lines += ["", f"PNG and SVG are missing: no browser could draw them ({reason}). "
                      "Open the HTML files in a browser to see and save the figures."]
    if not card["reproducible"]:
        lines += ["", f"Not reproducible: {card['note']}."]
    return "\n".join(lines) + "\n"
