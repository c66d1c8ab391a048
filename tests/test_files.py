"""The one checked reader of data paths (issue 23, S2): where a path may lead, what it may be."""

from __future__ import annotations

import os

import pytest

from dpviz.core import limits
from dpviz.data import files, read_csv, read_edges, read_file, sha256

SECRET = b"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"


@pytest.fixture
def folder(tmp_path):
    """A card's folder holding rows.csv, beside a secret file outside it."""
    inside = tmp_path / "card"
    inside.mkdir()
    (inside / "rows.csv").write_bytes(b"1,2\n3,4\n")
    (tmp_path / "secret.txt").write_bytes(SECRET)
    return inside


def test_a_relative_path_is_read_from_the_base_folder_not_the_working_one(folder, tmp_path,
                                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert read_file("rows.csv", base=folder, inside=True) == b"1,2\n3,4\n"
    (folder / "sub").mkdir()
    (folder / "sub" / "more.csv").write_bytes(b"5,6\n")
    assert read_file("sub/../sub/more.csv", base=folder, inside=True) == b"5,6\n"
    with pytest.raises(ValueError, match="no such file"):
        read_file("secret.txt", base=folder)  # the working folder is not looked in


@pytest.mark.parametrize("path", ["../secret.txt", "SECRET_ABSOLUTE", "/etc/passwd",
                                  "sub/../../secret.txt"])
def test_a_path_leading_out_of_the_base_folder_is_refused_without_reading(folder, tmp_path,
                                                                          path, monkeypatch):
    path = path.replace("SECRET_ABSOLUTE", str(tmp_path / "secret.txt"))
    monkeypatch.setattr(files.os, "open", lambda *a, **k: pytest.fail("opened"))
    with pytest.raises(ValueError) as refused:
        read_file(path, base=folder, inside=True)
    message = str(refused.value)
    assert message == (f"cannot read the data file {path}: it is outside the folder it is read "
                       "from (a card or a sweep spec reads only files in its own folder or "
                       "below it)")


def test_a_symlink_escaping_the_folder_is_refused_one_inside_is_followed(folder, tmp_path):
    (folder / "link.csv").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(ValueError, match="link.csv: it is outside the folder") as refused:
        read_file("link.csv", base=folder, inside=True)
    assert "daemon" not in str(refused.value)
    (folder / "alias.csv").symlink_to(folder / "rows.csv")
    assert read_file("alias.csv", base=folder, inside=True) == b"1,2\n3,4\n"
    # without a card's folder (a path the user typed) the link is the user's to follow
    assert read_file(folder / "link.csv") == SECRET


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_at_once_before_any_byte_is_read(path, monkeypatch):
    monkeypatch.setattr(files.os, "open", lambda *a, **k: pytest.fail("opened"))
    with pytest.raises(ValueError, match=f"^cannot read the data file {path}: it is not a "
                                         "regular file"):
        read_file(path)
    with pytest.raises(ValueError, match="not a regular file"):
        read_csv(path)


def test_a_pipe_and_a_folder_are_refused_without_blocking(folder):
    os.mkfifo(folder / "pipe.csv")  # opening it for reading would wait for a writer
    with pytest.raises(ValueError, match="pipe.csv: it is not a regular file"):
        read_file("pipe.csv", base=folder, inside=True)
    with pytest.raises(ValueError, match="it is not a regular file"):
        read_file(folder)


def test_a_proc_file_reporting_size_0_is_bounded_by_what_it_yields(monkeypatch):
    assert os.stat("/proc/self/status").st_size == 0
    assert b"Name:" in read_file("/proc/self/status")
    monkeypatch.setattr(limits, "MAX_UPLOAD_BYTES", 16)
    with pytest.raises(ValueError, match=r"^cannot read the data file /proc/self/status: it "
                                         r"yields more than the 0 MB \(16 bytes\)"):
        read_file("/proc/self/status")


def test_a_file_over_the_cap_by_its_size_is_refused_without_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.csv"
    with big.open("wb") as handle:  # sparse: no 50 MB written
        handle.truncate(limits.MAX_UPLOAD_BYTES + 1)
    monkeypatch.setattr(files.os, "open", lambda *a, **k: pytest.fail("opened"))
    with pytest.raises(ValueError, match="it is 50,000,001 bytes, over the 50 MB"):
        read_file(big)


@pytest.mark.parametrize("path", ["", "  ", "a\x00b"])
def test_an_empty_or_nul_path_is_a_sentence(path):
    with pytest.raises(ValueError, match="the data file must be a file path"):
        read_file(path)


@pytest.mark.parametrize("reader", [read_csv, read_edges])
def test_no_reader_message_quotes_the_file(reader, tmp_path):
    path = tmp_path / "passwd"
    path.write_bytes(SECRET * 3)
    with pytest.raises(ValueError) as refused:
        reader(path)
    assert "daemon" not in str(refused.value) and "nologin" not in str(refused.value)
    assert str(refused.value) == (  # row 1 reads as a header; an edge list's width first
        "an edge list has two columns (the two ends of each edge); this CSV has 1"
        if reader is read_edges else "the CSV's row 2, column 1 is not a number; every cell "
        "must be a number")
    path.write_bytes(b"0,1\n0,x-secret-x\n")
    with pytest.raises(ValueError) as refused:
        reader(path)
    assert "secret" not in str(refused.value)


def test_sha256_is_hashlibs_hex():
    assert sha256(b"abc") == ("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
