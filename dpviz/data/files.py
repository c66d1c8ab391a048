"""The one checked reader of data files named by a path (a card's, a spec's, a command line's).

An upload is bytes and never reaches this module; a path does, and every path dpviz reads as
data comes through :func:`read_file`: resolved against a base folder (symlinks followed),
kept inside that folder when the base is a card's or a sweep spec's, a regular file (no
device, pipe or folder), and at most :data:`dpviz.core.limits.MAX_UPLOAD_BYTES` by its size *and*
by what is read (``/proc`` files report size 0). Messages name the path as given and never
quote the file's content.

Examples
--------
>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> _ = (Path(folder) / "rows.csv").write_bytes(b"1,2")
>>> read_file("rows.csv", base=folder, inside=True)
b'1,2'
>>> read_file("/dev/zero")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: cannot read the data file /dev/zero: it is not a regular file (a device, ...
>>> read_file("../outside.csv", base=folder, inside=True)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: cannot read the data file ../outside.csv: it is outside the folder it is read ...
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from dpviz.core import limits


def sha256(content: bytes) -> str:
    """The SHA-256 of ``content``, in hex (what cards and upload blocks record).

    Examples
    --------
    >>> sha256(b"")[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(content).hexdigest()


def too_big(size: int, what: str = "the CSV") -> str:
    """The sentence for ``size`` bytes over the cap.

    Examples
    --------
    >>> too_big(50_000_001)
    'the CSV is 50,000,001 bytes, over the 50 MB (50,000,000 bytes) that dpviz takes'
    """
    cap = limits.MAX_UPLOAD_BYTES
    return (f"{what} is {size:,} bytes, over the {cap // limits.MEGABYTE} MB ({cap:,} bytes) "
            "that dpviz takes")


def resolve(path: str | os.PathLike[str], *, base: str | os.PathLike[str] | None = None,
            inside: bool = False, what: str = "the data file") -> Path:
    """Where ``path`` leads: resolved against ``base`` (default the working folder).

    Symlinks are followed; with ``inside``, the result must lie in ``base`` (or below it).
    The file itself is checked by :func:`read_file`.

    Parameters
    ----------
    path : path
        As the user, the card or the spec gave it.
    base : path, optional
        The folder a relative path is read from (a card's or a spec's folder); ``None``: the
        working folder.
    inside : bool
        Refuse a path that leads out of ``base`` (``..``, an absolute path, a symlink).
    what : str
        What to call the file in messages.

    Raises
    ------
    ValueError
        ``cannot read <what> <path>: it is outside the folder it is read from …``.
    """
    folder = Path(os.path.abspath(base if base is not None else os.curdir))
    given = os.fspath(path)
    if not given.strip() or "\x00" in given:
        raise ValueError(f"{what} must be a file path, got {given!r}")
    real = Path(os.path.realpath(folder / given))
    if inside:
        root = Path(os.path.realpath(folder))
        if real != root and root not in real.parents:
            raise ValueError(f"cannot read {what} {given}: it is outside the folder it is read "
                             "from (a card or a sweep spec reads only files in its own folder "
                             "or below it)")
    return real


def read_file(path: str | os.PathLike[str], *, base: str | os.PathLike[str] | None = None,
              inside: bool = False, what: str = "the data file") -> bytes:
    """The bytes of a data file, checked before and while it is read.

    Parameters
    ----------
    path, base, inside, what
        As :func:`resolve` takes them.

    Returns
    -------
    bytes
        At most :data:`dpviz.core.limits.MAX_UPLOAD_BYTES` of them.

    Raises
    ------
    ValueError
        ``cannot read <what> <path>: …`` — no such file, outside the base folder, not a
        regular file (``/dev/zero`` is refused before any byte is read), over the size cap
        (by its size, or by what it yields), or the system's reason. Never the content.
    """
    given = os.fspath(path)
    real = resolve(path, base=base, inside=inside, what=what)

    def refuse(reason: str) -> ValueError:
        return ValueError(f"cannot read {what} {given}: {reason}")

    cap = limits.MAX_UPLOAD_BYTES
    try:
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode):
            raise refuse("it is not a regular file (a device, a pipe or a folder is not data)")
        if info.st_size > cap:
            raise refuse(too_big(info.st_size, "it"))
        flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        handle = os.open(real, flags)  # O_NOFOLLOW: no symlink swapped in since realpath
    except FileNotFoundError:
        raise refuse("no such file") from None
    except OSError as err:
        raise refuse(err.strerror or type(err).__name__) from None
    with os.fdopen(handle, "rb") as file:
        opened = os.fstat(file.fileno())
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            raise refuse("it changed while it was opened")
        try:
            content = file.read(cap + 1)  # bounded: /proc files report size 0
        except OSError as err:
            raise refuse(err.strerror or type(err).__name__) from None
    if len(content) > cap:
        raise refuse(f"it yields more than the {cap // limits.MEGABYTE} MB ({cap:,} bytes) "
                     "that dpviz takes")
    return content
