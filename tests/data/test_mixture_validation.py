"""Validation of data for a mixture of k components (dpviz.data.validate_mixture_data)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz.data import read_csv, validate_mixture_data


def table(n, d=2, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def test_accepts_good_data_and_returns_a_float_matrix():
    x = validate_mixture_data([[1, 2], [3, 5], [4, 4], [0, 1]], 2)
    assert x.dtype == np.float64 and x.shape == (4, 2)
    assert validate_mixture_data(table(2), 1).shape == (2, 2)


@pytest.mark.parametrize(("data", "k", "message"), [
    (table(10), 0, "k must be >= 1 and <= 100, got 0"),
    (table(10), -2, "k must be >= 1 and <= 100, got -2"),
    (table(10), 1.5, "k must be a whole number, got 1.5"),
    (table(10), "three", "k must be a number, got 'three'"),
    (table(3), 4, "k must be at most the number of rows: data has 3 rows, too few for "
                  "k = 4 components"),
    (table(5), 3, "data has 5 rows, too few for k = 3 components: at least 6 are needed "
                  "(2 per component)"),
    (table(1), 1, "data has 1 rows, too few for k = 1 components: at least 2 are needed "
                  "(2 per component)"),
    # what as_matrix already checks comes through unchanged
    ([[1.0, math.nan], [0.0, 1.0], [2.0, 3.0]], 1,
     "data has a missing or infinite value in row 1, column 2"),
    ([["a", "b"], ["c", "d"]], 1, "data must be numbers only"),
    (np.zeros((4, 201)), 1, "data has 201 columns; dpviz takes at most 200"),
])
def test_refuses_with_a_sentence(data, k, message):
    with pytest.raises(ValueError) as err:
        validate_mixture_data(data, k)
    assert str(err.value) == message


def test_a_constant_column_is_accepted_like_its_neighbour():
    # one row replaced makes column 2 constant or not: a refusal would tell them apart
    varied = np.array([[1.0, 2.0], [3.0, 2.0], [0.0, 2.0], [5.0, 9.0]])
    constant = varied.copy()
    constant[3, 1] = 2.0
    assert validate_mixture_data(constant, 2).tolist() == constant.tolist()
    assert validate_mixture_data(varied, 2).tolist() == varied.tolist()
    x = read_csv(b"age,height,site\n30,1.7,4\n41,1.8,4\n52,1.6,4\n")
    assert validate_mixture_data(x, 1, name="the CSV").shape == (3, 3)


def test_a_nearly_constant_column_is_accepted():
    x = np.array([[0.0, 1.0], [1.0, 1.0 + 1e-12], [2.0, 1.0], [3.0, 1.0]])
    assert validate_mixture_data(x, 2).shape == (4, 2)
