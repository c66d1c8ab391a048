"""Bundled real data sets (dpviz.data.datasets): scikit-learn's copies, no download."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpviz.data import DATASETS, load_dataset

EXPECTED = {
    "iris": ((150, 4), [50, 50, 50]),
    "wine": ((178, 13), [59, 71, 48]),
    "breast_cancer": ((569, 30), [212, 357]),
    "digits": ((1797, 64), [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]),
}


def test_the_four_sets_are_registered_read_only():
    assert list(DATASETS) == list(EXPECTED)
    with pytest.raises(TypeError):
        DATASETS["x"] = None  # type: ignore[index]
    json.dumps({name: info.to_dict() for name, info in DATASETS.items()})


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_set_loads_with_its_shape_labels_and_names(name):
    shape, counts = EXPECTED[name]
    ds = load_dataset(name)
    assert ds.name == name
    assert ds.data.shape == shape and ds.data.dtype == np.float64
    assert np.all(np.isfinite(ds.data))
    assert ds.labels.dtype == np.int64
    assert np.bincount(ds.labels).tolist() == counts
    assert len(ds.names) == shape[1]
    assert len(ds.label_names) == len(counts)
    info = DATASETS[name]
    assert (info.n, info.d, info.k) == (*shape, len(counts))
    assert ds.description


def test_digits_rows_are_in_the_unit_ball_with_a_public_radius():
    ds = load_dataset("digits")
    assert ds.radius == 1.0
    assert np.linalg.norm(ds.data, axis=1).max() <= 1.0
    assert ds.data.min() == 0.0 and ds.data.max() == 1 / 8  # pixels 0..16, divided by 16 and 8
    assert DATASETS["digits"].scaling == "pixels / 16 / 8"


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer"])
def test_other_sets_have_no_public_radius_and_say_so(name):
    ds = load_dataset(name)
    assert ds.radius is None
    assert DATASETS[name].scaling == "none"
    assert "no public bound" in ds.description.lower()
    assert "not private" in ds.description


def test_raw_values_are_returned_as_given():
    iris = load_dataset("iris")
    assert iris.data[0].tolist() == [5.1, 3.5, 1.4, 0.2]


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError) as err:
        load_dataset("mnist")
    assert str(err.value) == ("unknown data set 'mnist'; choose one of: iris, wine, "
                              "breast_cancer, digits")
