"""Experiment cards: one run recorded so that anyone can replay it and get the same numbers.

A card is JSON: the :class:`~dpviz.lab.scenario.Scenario` (every parameter and the noise seed),
the SHA-256 of the data file it reads or of the uploaded file it was made from, the run's
own JSON (:meth:`dpviz.estimators.result.Result.to_dict`), the package versions, the dpviz version,
the headless command that replays it and the time it was made. ``python -m dpviz card …`` writes
one, ``python -m dpviz run --card card.json`` replays it (issue 9, part 5), and the pages export it
as a zip with their figures and tables (:func:`card_zip`).

A run with secure randomness (``seed=None``: noise from OS entropy) cannot be replayed, and its
card says so: it records the scenario but no numbers, and :func:`run_card` refuses it.

Data files: a card's data path is read relative to the card's folder and only inside it
(:func:`dpviz.data.files.read_file`), its SHA-256 checked on the bytes read, which are the
bytes parsed. A card of an uploaded file records the file's name and SHA-256 but not its
rows (they are the user's private data): it replays only when given the same file
(``python -m dpviz run --card card.json --data FILE``).

Examples
--------
>>> from dpviz.lab.scenario import Scenario
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

import asyncio
import atexit
import io
import json
import logging
import os
import platform
import re
import shlex
import threading
import warnings
import zipfile
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpviz.data.files import read_file, sha256
from dpviz.estimators.result import Result, to_json_value
from dpviz.lab.scenario import Scenario, load_data, run_scenario

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

#: The card format's version (a card states it; :func:`read_card` refuses others).
CARD_VERSION = 1
#: The command that replays a card saved as ``card.json``.
COMMAND = "python -m dpviz run --card card.json"
#: The command that replays a card of an uploaded file (the card does not hold its rows).
UPLOAD_COMMAND = COMMAND + " --data FILE"
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


def data_path(scenario: Scenario) -> str | None:
    """The file a scenario reads (a CSV or an edge list), or ``None``."""
    path = scenario.data.get("csv") or scenario.data.get("edges")
    return None if path is None else str(path)


def make_card(scenario: Scenario, *, content: bytes | None = None,
              base: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Run a scenario and record it as a card.

    Parameters
    ----------
    scenario : Scenario
        What to run; ``seed=None`` (secure randomness) makes a card that records the scenario
        only and says it cannot be reproduced.
    content : bytes, optional
        The data's bytes: required for an ``upload`` scenario (they must match its
        ``sha256``); for a CSV or edge list, the bytes already read (the path is then the
        name the card records); else the file is read from ``base``.
    base : path, optional
        The folder a data path is read from (and only inside it); ``None``: the working
        folder.

    Returns
    -------
    dict
        The card's JSON: ``dpviz_card`` (the format version), ``scenario``, ``data_file``
        (``{"path", "sha256"}`` of a CSV or edge list, ``{"upload", "sha256"}`` of an uploaded
        file, else ``None``), ``result`` (the run's JSON, ``None`` for a secure run),
        ``reproducible``, ``note``, ``versions``, ``dpviz_version``, ``command`` and
        ``created`` (UTC, ISO 8601). The data's rows are never in it.

    Raises
    ------
    ValueError
        Bad input, with the engine's sentence; an upload without its bytes or with other ones.
    """
    from dpviz.core.version import VERSION

    path = data_path(scenario)
    if path is not None and content is None:
        content = read_file(path, base=base, inside=base is not None)
    loaded = load_data(scenario.data, content=content)
    data_file = _data_file(scenario, None if content is None else sha256(content))
    reproducible = scenario.seed is not None
    result = _json(run_scenario(scenario, loaded).to_dict()) if reproducible else None
    return {"dpviz_card": CARD_VERSION, "scenario": _json(scenario.to_dict()),
            "data_file": data_file, "result": result, "reproducible": reproducible,
            "note": None if reproducible else SECURE_NOTE, "versions": versions(),
            "dpviz_version": VERSION,
            "command": UPLOAD_COMMAND if "upload" in scenario.data else COMMAND,
            "created": datetime.now(UTC).isoformat(timespec="seconds")}


def _data_file(scenario: Scenario, digest: str | None) -> dict[str, str] | None:
    """A card's ``data_file`` for ``scenario``: what its data are read from, and their hash."""
    if "upload" in scenario.data:
        return {"upload": scenario.data["upload"], "sha256": scenario.data["sha256"]}
    path = data_path(scenario)
    return None if path is None or digest is None else {"path": path, "sha256": digest}


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
    scenario = Scenario.from_dict(card["scenario"])
    out["scenario"] = _json(scenario.to_dict())
    _check_data_file(scenario, card["data_file"])
    if not isinstance(card["reproducible"], bool):
        raise ValueError("the card's reproducible must be true or false")
    if not isinstance(card["versions"], Mapping):
        raise ValueError("the card's versions must be a JSON object of package versions")
    if card["reproducible"] and not isinstance(card["result"], Mapping):
        raise ValueError("the card says it is reproducible but records no result")
    return out


def _check_data_file(scenario: Scenario, data_file: Any) -> None:
    """Refuse a ``data_file`` that is not the one the scenario reads (a tampered card)."""
    if "upload" in scenario.data:
        if data_file != _data_file(scenario, None):
            raise ValueError("the card's data_file must be {\"upload\": …, \"sha256\": …} "
                             "with the label and SHA-256 of its scenario's uploaded file")
        return
    path = data_path(scenario)
    if path is None:
        if data_file is not None:
            raise ValueError("the card's data_file must be null: its scenario reads no file")
        return
    if not (isinstance(data_file, Mapping) and set(data_file) == {"path", "sha256"}
            and data_file["path"] == path and isinstance(data_file["sha256"], str)
            and re.fullmatch(r"[0-9a-f]{64}", data_file["sha256"]) is not None):
        raise ValueError(f"the card's data_file must be {{\"path\": {path!r}, \"sha256\": …}}: "
                         "the file its scenario reads and that file's SHA-256")


def read_card(source: str | os.PathLike[str] | bytes) -> dict[str, Any]:
    """Read and validate a card from a file path or the bytes of an upload.

    Raises
    ------
    ValueError
        The file cannot be read (:func:`dpviz.data.files.read_file`: a regular file of at most
        50 MB), is not JSON, or is not a valid card (:func:`check_card`).
    """
    if isinstance(source, bytes):
        raw, name = source, "the uploaded card"
    else:
        raw, name = read_file(source, what="the card"), f"the card {os.fspath(source)}"
    try:
        card = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{name} is not JSON (line {err.lineno}, column {err.colno}: "
                         f"{err.msg})") from None
    except RecursionError:
        raise ValueError(f"{name} is nested too deeply to be a card") from None
    return check_card(card)


def run_card(card: Mapping[str, Any], *, base: str | os.PathLike[str] | None = None,
             content: bytes | None = None) -> Result:
    """Replay a card: the same scenario, data and seed, so the same numbers.

    Warns (``UserWarning``) when the numbers differ from the card's recorded result, naming
    the package versions that differ (another numpy may draw differently).

    Parameters
    ----------
    card : mapping
        The card's JSON (:func:`read_card`).
    base : path, optional
        The card's folder: its data path is read from there, and only inside it (the command
        line gives the card file's folder); ``None``: the working folder.
    content : bytes, optional
        The uploaded file, for a card made from an upload (which does not hold its rows);
        refused for any other card.

    Raises
    ------
    ValueError
        An invalid card (a ``data_file`` that is not the scenario's is one); a card of a
        secure run (nothing to replay); a data file that cannot be read or changed since the
        card was made (its SHA-256 differs); an upload's card without the file, or with
        another. No message quotes the data.
    """
    card = check_card(card)
    if not card["reproducible"]:
        raise ValueError("this card records a run with secure randomness (no seed): the noise "
                         "was not kept, so it cannot be reproduced")
    scenario = Scenario.from_dict(card["scenario"])
    path = data_path(scenario)
    if "upload" in scenario.data:
        if content is None:
            raise ValueError(f"this card was made from an uploaded file, "
                             f"{scenario.data['upload']!r}, which a card does not keep: give "
                             f"that file to replay it ({UPLOAD_COMMAND})")
    elif content is not None:
        raise ValueError("a file is given only to replay a card made from an upload; this "
                         "card " + ("reads its own data file" if path else "needs no file"))
    elif path is not None:
        content = read_file(path, base=base, inside=base is not None)
        if sha256(content) != card["data_file"]["sha256"]:
            raise ValueError(f"the data file {path} changed since the card was made (its SHA-256 "
                             "differs from the card's); restore the original file to reproduce "
                             "the card")
    result = run_scenario(scenario, load_data(scenario.data, content=content))
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


LOG = logging.getLogger("dpviz")
#: Why a zip has no PNG or SVG: the browser's own error (paths, versions) is logged on the
#: server, never written into the zip.
NO_BROWSER = "no browser could draw the figures on the server"
#: Seconds kaleido waits for one image, and for its browser to start or close.
IMAGE_TIMEOUT = 60


class Browser:
    """Kaleido's browser on its own event-loop thread, to draw many cards' figures.

    Starting the browser is most of a first card's time (seconds); a server keeps one
    (the card panel holds it with ``st.cache_resource``) and its users take turns
    (:attr:`lock`). Every call waits at most :data:`IMAGE_TIMEOUT` seconds: a browser that
    fails is marked :attr:`broken` and closed, never waited on forever. An open browser is
    closed at exit; :meth:`close` drops that hook, so a closed one (a card's own) is not kept
    until the process ends.

    Raises
    ------
    Exception
        Whatever kaleido raises when no browser can start (e.g. ``ChromeNotFoundError``).
    """

    def __init__(self) -> None:
        import kaleido

        if "BROWSER_PATH" not in os.environ and CHROMIUM.is_file():
            os.environ["BROWSER_PATH"] = str(CHROMIUM)
        self.lock = threading.Lock()
        self.broken = False
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="dpviz-card-browser")
        self.thread.start()

        async def start() -> Any:
            browser = kaleido.Kaleido(n=1, timeout=IMAGE_TIMEOUT, mathjax=False)
            await browser.open()
            return browser

        try:
            self.kaleido = self._run(start())
        except BaseException:
            self._stop()
            raise
        atexit.register(self.close)

    def _stop(self) -> None:
        """Stop the event loop's thread and close the loop."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(IMAGE_TIMEOUT)
        if not self.thread.is_alive():
            self.loop.close()

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(IMAGE_TIMEOUT)

    def image(self, fig: go.Figure, fmt: str) -> bytes:
        """One figure as ``fmt`` (``"png"``, ``"svg"``); a failure marks the browser broken."""
        try:
            return bytes(self._run(self.kaleido.calc_fig(fig, opts={"format": fmt})))
        except BaseException:
            self.broken = True
            self.close()
            raise

    def close(self) -> None:
        """Close the browser and stop its thread, and drop its exit hook (idempotent)."""
        atexit.unregister(self.close)
        if self.loop.is_closed() or not self.loop.is_running():
            return
        try:
            self._run(self.kaleido.close())
        except Exception:  # closing a broken browser: log, go on
            LOG.warning("card figures: kaleido's browser did not close", exc_info=True)
        finally:
            self._stop()


def figure_images(figures: Mapping[str, go.Figure], *, browser: Browser | None = None,
                  progress: Callable[[int, int], None] | None = None
                  ) -> tuple[dict[str, bytes], str | None]:
    """Each figure as PNG and SVG through kaleido's browser.

    Parameters
    ----------
    figures : mapping
        Name → figure.
    browser : Browser, optional
        A kept browser (a server's); ``None`` starts one for this call and closes it.
    progress : callable, optional
        ``progress(done, total)`` after each figure drawn.

    Returns
    -------
    files : dict
        ``{"figures/<name>.png": bytes, "figures/<name>.svg": bytes}``; empty on failure.
    reason : str or None
        :data:`NO_BROWSER` when no image was made (the failure itself is logged to the
        ``dpviz`` logger), or ``None``.
    """
    if not figures:
        return {}, None
    own = browser is None
    try:
        if browser is None:
            browser = Browser()
        files = {}
        with browser.lock:
            for i, (name, fig) in enumerate(figures.items()):
                for fmt in ("png", "svg"):
                    files[f"figures/{_file_name(name)}.{fmt}"] = browser.image(fig, fmt)
                if progress is not None:
                    progress(i + 1, len(figures))
        return files, None
    except Exception:  # any failure of the browser: fall back, never crash
        LOG.warning("card figures: kaleido could not draw them", exc_info=True)
        return {}, NO_BROWSER
    finally:
        if own and browser is not None:
            browser.close()


def card_zip(card: Mapping[str, Any], figures: Mapping[str, go.Figure],
             tables: Mapping[str, pd.DataFrame], *, browser: Browser | None = None,
             progress: Callable[[int, int], None] | None = None) -> bytes:
    """The card as a zip: JSON, versions, figures (PNG + SVG), tables (CSV) and a script.

    Parameters
    ----------
    card : mapping
        From :func:`make_card`.
    figures : mapping
        Name → figure, as the page drew them (the engine does not build figures).
    tables : mapping
        Name → table of the numbers shown.
    browser, progress
        As in :func:`figure_images`.

    Returns
    -------
    bytes
        A zip with ``card.json``, ``versions.txt``, ``README.txt``, ``regenerate.sh``,
        ``figures/<name>.png`` and ``.svg`` (or, when no browser can draw them,
        ``figures/<name>.html`` — self-contained — and ``.json``, with the reason in
        ``README.txt``) and ``tables/<name>.csv``. A card of an uploaded file has no
        figures and no tables: they draw the uploaded rows and non-private statistics of
        them (the true components, the true matrix), which the card must not carry.
    """
    card = check_card(card)
    if "upload" in card["scenario"]["data"]:  # they draw the rows and non-private statistics
        figures, tables = {}, {}
    files: dict[str, bytes] = {"card.json": json.dumps(card, indent=2).encode() + b"\n"}
    files["versions.txt"] = "".join(f"{name} {version or 'not installed'}\n" for name, version
                                    in [("dpviz", card["dpviz_version"]),
                                        *card["versions"].items()]).encode()
    images, reason = figure_images(figures, browser=browser, progress=progress)
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
    """``regenerate.sh``: the replay command, run from anywhere (a card reads beside itself)."""
    upload = "upload" in card["scenario"]["data"]
    head = ("#!/bin/sh\n# Replays this experiment card headless, where dpviz is installed:\n"
            f"#   {UPLOAD_COMMAND if upload else COMMAND}\n"
            "# (PYTHON=path/to/python picks the interpreter.)\n")
    if not card["reproducible"]:
        note = shlex.quote(f"This card cannot be replayed: {card['note']}.")
        return head + f"echo {note} >&2\nexit 1\n"
    run = '${PYTHON:-python} -m dpviz run --card "$here/card.json"'
    if upload:
        head += ("# The card was made from an uploaded file and does not hold its rows: give "
                 "that file,\n#   sh regenerate.sh FILE\n"
                 'if [ "$#" -ne 1 ]; then\n'
                 "  echo 'Give the uploaded file this card was made from: sh regenerate.sh "
                 "FILE' >&2\n  exit 2\nfi\n")
        run += ' --data "$1"'
    return (head + 'set -e\nhere=$(dirname "$0")\n' + run + ' > "$here/result.json"\n'
            "echo 'result.json holds the same JSON as the card’s \"result\".'\n")


def _readme(card: Mapping[str, Any], figures: Mapping[str, Any], reason: str | None) -> str:
    scenario = card["scenario"]
    lines = [f"dpviz experiment card: {scenario['task']} / {scenario['estimator']}, made "
             f"{card['created']} with dpviz {card['dpviz_version']}.", "",
             "card.json      the scenario (every parameter and the seed), the run's numbers "
             "and the versions",
             "versions.txt   Python and package versions",
             "regenerate.sh  the headless command: " + card["command"]]
    if "upload" not in scenario["data"]:
        lines.append("tables/        the numbers shown, as CSV")
    if figures:
        lines.append("figures/       the figures, as "
                     + ("PNG and SVG" if reason is None else "self-contained HTML and plotly "
                                                                 "JSON"))
    if reason is not None and figures:
        lines += ["", f"PNG and SVG are missing: {reason}. Open the HTML files in a browser "
                      "to see and save the figures."]
    data = scenario["data"]
    if "upload" in data:
        lines += ["", f"Made from an uploaded file, {data['upload']!r} (SHA-256 {data['sha256']}). "
                      "The card keeps its name and hash, not its rows: they are the data the "
                      "privacy guarantee protects. For the same reason it holds no figures and "
                      "no tables (they draw the rows and non-private statistics of them), only "
                      "the private result in card.json. To replay, give the same file: "
                      f"{UPLOAD_COMMAND} (or sh regenerate.sh FILE); another file is refused."]
    elif card["data_file"] is not None:
        lines += ["", f"The card reads its data from {card['data_file']['path']}, relative to "
                      "the folder of card.json (and only inside it); put the file there to "
                      "replay. Its SHA-256 is checked."]
    if not card["reproducible"]:
        lines += ["", f"Not reproducible: {card['note']}."]
    return "\n".join(lines) + "\n"
