"""Real data sets that ship inside scikit-learn (no download), with their labels as the truth.

Their classes play the part of the "true" components. Only ``digits`` comes with a public
bound on the rows' norms (its documented pixel range); for the others no bound is known
without reading the data, so ``radius`` is ``None``: the user must give one, or let dpviz
read it from the data, and the result then says ``not_private``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

NO_PUBLIC_BOUND = ("no public bound on the rows' norms ships with this set: give a radius "
                   "you can justify without looking at the data, or read it from the data "
                   "(then the result is not private)")


@dataclass(frozen=True)
class DatasetInfo:
    """What a bundled data set is, before loading it.

    Attributes
    ----------
    name : str
        Registry key (``--set dataset=…``, a sweep's ``{"dataset": name}``).
    label : str
        A title for pages.
    n, d, k : int
        Rows, columns and classes (the "true" components).
    radius : float or None
        A public bound on the rows' norms after ``scaling``, or ``None`` when none is known.
    scaling : str
        What is done to the raw values (``"none"`` for nothing).
    description : str
        One or two sentences: what the rows are, and where the bound comes from.
    """

    name: str
    label: str
    n: int
    d: int
    k: int
    radius: float | None
    scaling: str
    description: str

    def to_dict(self) -> dict[str, object]:
        """The form ``python -m dpviz list`` prints."""
        return {"label": self.label, "n": self.n, "d": self.d, "k": self.k,
                "radius": self.radius, "scaling": self.scaling,
                "description": self.description}


@dataclass(frozen=True)
class Dataset:
    """A loaded data set.

    Attributes
    ----------
    info : DatasetInfo
        Its registry entry (name, sizes, public radius, scaling, description).
    data : ndarray
        The rows, n × d floats, after ``info.scaling``.
    labels : ndarray
        The class of each row, integers ``0 … k−1``: the "true" components.
    names : tuple of str
        The column names.
    label_names : tuple of str
        The name of each class.
    """

    info: DatasetInfo
    data: NDArray[np.float64]
    labels: NDArray[np.int64]
    names: tuple[str, ...]
    label_names: tuple[str, ...]

    @property
    def name(self) -> str:
        """Registry key."""
        return self.info.name

    @property
    def radius(self) -> float | None:
        """The public bound on the rows' norms, or ``None`` (see :data:`NO_PUBLIC_BOUND`)."""
        return self.info.radius

    @property
    def description(self) -> str:
        """What the rows are and where the bound comes from."""
        return self.info.description


DATASETS: Mapping[str, DatasetInfo] = MappingProxyType({
    "iris": DatasetInfo(
        "iris", "Iris flowers", 150, 4, 3, None, "none",
        "150 iris flowers, 4 measurements in cm (sepal and petal length and width), "
        f"3 species of 50 (Fisher, 1936). {NO_PUBLIC_BOUND.capitalize()}."),
    "wine": DatasetInfo(
        "wine", "Wine", 178, 13, 3, None, "none",
        "178 wines from 3 cultivars, 13 chemical measurements on very different scales "
        f"(UCI wine recognition). {NO_PUBLIC_BOUND.capitalize()}."),
    "breast_cancer": DatasetInfo(
        "breast_cancer", "Breast cancer (Wisconsin)", 569, 30, 2, None, "none",
        "569 breast masses, 30 features of cell nuclei from images, malignant or benign "
        f"(UCI Wisconsin diagnostic). {NO_PUBLIC_BOUND.capitalize()}."),
    "digits": DatasetInfo(
        "digits", "Handwritten digits (8 × 8)", 1797, 64, 10, 1.0, "pixels / 16 / 8",
        "1 797 handwritten digits 0–9 as 8 × 8 images. Pixels are documented integers in "
        "0…16; dividing by 16 and by 8 (the DP-EM paper's scaling) puts every row in the "
        "unit ball (64 pixels of at most 1/8: norm at most 1), a public bound because it "
        "comes from the documented pixel range, not from the data."),
})


def load_dataset(name: str) -> Dataset:
    """Load a bundled data set by name (scikit-learn's copy; nothing is downloaded).

    Parameters
    ----------
    name : {"iris", "wine", "breast_cancer", "digits"}
        A key of :data:`DATASETS`.

    Returns
    -------
    Dataset
        The rows as given (digits: pixels / 16 / 8), the classes as labels, the names,
        and the public radius (``None`` when there is none; see :data:`NO_PUBLIC_BOUND`).

    Raises
    ------
    ValueError
        An unknown name; the sentence lists the known ones.

    Examples
    --------
    >>> iris = load_dataset("iris")
    >>> iris.data.shape, np.bincount(iris.labels).tolist(), iris.radius
    ((150, 4), [50, 50, 50], None)
    """
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose one of: {', '.join(DATASETS)}")
    # Imported here: scikit-learn's data loaders are slow to import, and only this needs them.
    from sklearn import datasets as sk

    loader = {"iris": sk.load_iris, "wine": sk.load_wine,
              "breast_cancer": sk.load_breast_cancer, "digits": sk.load_digits}[name]
    bunch = loader()
    data = np.asarray(bunch.data, dtype=float)
    if name == "digits":
        data = data / 16.0 / 8.0
    return Dataset(info=DATASETS[name], data=data,
                   labels=np.asarray(bunch.target, dtype=np.int64),
                   names=tuple(str(c) for c in bunch.feature_names),
                   label_names=tuple(str(c) for c in bunch.target_names))
