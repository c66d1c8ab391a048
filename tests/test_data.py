"""Data in: ``read_csv`` and ``as_matrix`` (DESIGN.md, the command line: X.csv)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz.core import limits
from dpviz.data import as_matrix, read_csv


def write(tmp_path, content: bytes, name: str = "x.csv"):
    path = tmp_path / name
    path.write_bytes(content)
    return path


# --- what is accepted ---

@pytest.mark.parametrize("content", [
    b"x,y\n1,2\n3.5,-4\n",          # a header row
    b"1,2\n3.5,-4\n",                # no header
    b"\xef\xbb\xbfx,y\n1,2\n3.5,-4\n",  # a UTF-8 byte-order mark (Excel's export)
    b"x,y\r\n1,2\r\n3.5,-4\r\n",    # Windows line ends
    b" x , y \n 1 , 2 \n3.5,  -4\n\n\n",  # spaces round cells, blank lines at the end
    b'"x","y"\n"1","2"\n"3.5","-4"\n',  # quoted cells
    b"x,y\n1e0,2.0E0\n35e-1,-4\n",  # exponent notation
])
def test_read_csv_accepts_ordinary_files(content, tmp_path):
    expected = [[1.0, 2.0], [3.5, -4.0]]
    assert read_csv(content).tolist() == expected
    assert read_csv(write(tmp_path, content)).tolist() == expected
    assert read_csv(str(write(tmp_path, content))).tolist() == expected


def test_read_csv_returns_a_float_matrix_one_row_per_person():
    x = read_csv(b"a,b,c\n" + b"".join(f"{i},{i + 1},{i + 2}\n".encode() for i in range(50)))
    assert x.shape == (50, 3)
    assert x.dtype == np.float64
    assert x[49].tolist() == [49.0, 50.0, 51.0]


def test_read_csv_single_column_and_at_most_200_columns():
    assert read_csv(b"v\n0.5\n0.25\n").tolist() == [[0.5], [0.25]]
    row = ",".join(["1"] * limits.MAX_COLUMNS).encode()
    assert read_csv(row + b"\n" + row + b"\n").shape == (2, limits.MAX_COLUMNS)


def test_read_csv_min_rows_is_adjustable():
    assert read_csv(b"x\n1\n", min_rows=1).tolist() == [[1.0]]


# --- what is refused, with the sentence ---

@pytest.mark.parametrize(("content", "message"), [
    (b"x,y\n1,2\n3,abc\n",
     "the CSV's row 3, column 2 is not a number; every cell must be a number"),
    (b"1,2\nabc,4\n", "the CSV's row 2, column 1 is not a number; every cell must be a number"),
    (b"x,y\n1,2\nnan,4\n", "the CSV has a missing or infinite value in row 3, column 1"),
    (b"x,y\n1,2\n3,NaN\n", "the CSV has a missing or infinite value in row 3, column 2"),
    (b"1,2\n3,inf\n", "the CSV has a missing or infinite value in row 2, column 2"),
    (b"1,2\n-Infinity,4\n", "the CSV has a missing or infinite value in row 2, column 1"),
    (b"1,2\n1e400,4\n", "the CSV has a missing or infinite value in row 2, column 1"),
    (b"x,y\n1,2\n,4\n",
     "the CSV has an empty cell in row 3, column 1; every cell must be a number"),
    (b"1,2\n3,  \n", "the CSV has an empty cell in row 2, column 2; every cell must be a number"),
    (b"x,y\n1,2\n3\n4,5\n", "row 3 of the CSV has 1 cells; the first data row has 2"),
    (b"1,2\n3,4,5\n", "row 2 of the CSV has 3 cells; the first data row has 2"),
    (b"x,y\n1,2\n", "the CSV needs at least 2 rows, got 1"),
    (b"1,2\n", "the CSV needs at least 2 rows, got 1"),
    (b"x,y\n", "the CSV needs at least 2 rows, got 0"),
    (b"", "the CSV is empty"),
    (b"\n  \n\n", "the CSV is empty"),
    ("x,é\n1,2\n3,4\n".encode("latin-1"), "the CSV is not UTF-8 text"),
    (b"\xff\xfe1\x002\x00", "the CSV is not UTF-8 text"),
])
def test_read_csv_refuses_bad_files_with_a_sentence(content, message, tmp_path):
    with pytest.raises(ValueError) as from_bytes:
        read_csv(content)
    assert str(from_bytes.value) == message
    with pytest.raises(ValueError) as from_path:
        read_csv(write(tmp_path, content))
    assert str(from_path.value) == message


def test_read_csv_text_cell_message_names_row_and_column_of_the_file_but_not_the_text():
    # Row numbers are the file's lines, counting the header, so a user can find the cell;
    # the cell itself is never quoted (the file may not be the user's: issue 23, S2).
    body = b"x,y,z\n" + b"1,2,3\n" * 7 + b"1,2,oops\n" + b"1,2,3\n"
    with pytest.raises(ValueError, match=r"row 9, column 3 is not a number") as refused:
        read_csv(body)
    assert "oops" not in str(refused.value)


def test_read_csv_missing_file():
    with pytest.raises(ValueError, match=r"^cannot read the CSV .*missing\.csv: no such file$"):
        read_csv("/nonexistent/dir/missing.csv")


def test_read_csv_a_directory_is_not_a_file(tmp_path):
    with pytest.raises(ValueError, match="it is not a regular file"):
        read_csv(tmp_path)


TOO_BIG = r"^the CSV is SIZE bytes, over the 50 MB \(50,000,000 bytes\) that dpviz takes$"


def test_read_csv_refuses_a_file_over_50_mb_without_reading_it(tmp_path):
    path = tmp_path / "big.csv"
    with path.open("wb") as f:  # sparse: instant, no 50 MB written
        f.truncate(limits.MAX_UPLOAD_BYTES + 1)
    with pytest.raises(ValueError, match=r"^cannot read the CSV .*big\.csv: it is 50,000,001 "
                                         r"bytes, over the 50 MB \(50,000,000 bytes\)"):
        read_csv(path)


def test_read_csv_refuses_upload_bytes_over_50_mb():
    with pytest.raises(ValueError, match=TOO_BIG.replace("SIZE", "[\\d,]+")):
        read_csv(b"1" * (limits.MAX_UPLOAD_BYTES + 2**20))


def test_read_csv_refuses_more_than_200_columns():
    row = ",".join(["1"] * (limits.MAX_COLUMNS + 1)).encode()
    with pytest.raises(ValueError, match=r"^the CSV has 201 columns; dpviz takes at most 200$"):
        read_csv(row + b"\n" + row + b"\n")


def test_read_csv_huge_cell_is_a_sentence():
    with pytest.raises(ValueError):
        read_csv(b"1,2\n" + b"1" * 200_000 + b",3\n")


def test_read_csv_classic_mac_line_ends():
    assert read_csv(b"1,2\r3,4\r").tolist() == [[1.0, 2.0], [3.0, 4.0]]


# --- as_matrix ---

def test_as_matrix_shapes():
    assert as_matrix([1.0, 2.0, 3.0]).shape == (3, 1)
    assert as_matrix([[1, 2], [3, 4]]).dtype == np.float64
    x = np.arange(6.0).reshape(3, 2)
    assert np.array_equal(as_matrix(x), x)


@pytest.mark.parametrize(("data", "message"), [
    ([[1.0, math.nan], [0.0, 1.0]], "data has a missing or infinite value in row 1, column 2"),
    ([[1.0, 2.0], [math.inf, 1.0]], "data has a missing or infinite value in row 2, column 1"),
    ([[1.0, 2.0], [3.0, -math.inf]], "data has a missing or infinite value in row 2, column 2"),
    ([[1.0, 2.0]], "data needs at least 2 rows, got 1"),
    (np.zeros((0, 2)), "data needs at least 2 rows, got 0"),
    (np.zeros((3, 0)), "data has no columns"),
    (np.zeros((2, 201)), "data has 201 columns; dpviz takes at most 200"),
    (np.zeros((2, 2, 2)), "data must be a table (rows × columns), got 3 dimensions"),
    (5.0, "data must be a table (rows × columns), got 0 dimensions"),
    ([["a", "b"], ["c", "d"]], "data must be numbers only"),
    ([[1.0, 2.0], [3.0]], "data must be numbers only"),
])
def test_as_matrix_refuses_with_a_sentence(data, message):
    with pytest.raises(ValueError) as err:
        as_matrix(data)
    assert str(err.value) == message


def test_as_matrix_name_and_min_rows():
    with pytest.raises(ValueError, match="^the neighbour needs at least 3 rows, got 2$"):
        as_matrix([1.0, 2.0], min_rows=3, name="the neighbour")
    assert as_matrix([7.0], min_rows=1).tolist() == [[7.0]]


def test_as_matrix_refuses_complex_numbers():
    with pytest.raises(ValueError, match="data must be"):
        as_matrix(np.array([1 + 2j, 3 + 0j]))
