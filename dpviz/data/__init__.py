"""Data in: validation of arrays and CSV files, synthetic mixtures, bundled real sets."""

from .datasets import DATASETS, Dataset, DatasetInfo, load_dataset
from .mixtures import (
    GENERATORS,
    ExposureDemo,
    GeneratorSpec,
    Mixture,
    exposure_demo,
    gaussian_mixture,
    mixture_radius,
)
from .tables import as_matrix, read_csv, validate_mixture_data

__all__ = ["DATASETS", "GENERATORS", "Dataset", "DatasetInfo", "ExposureDemo", "GeneratorSpec",
           "Mixture", "as_matrix", "exposure_demo", "gaussian_mixture", "load_dataset",
           "mixture_radius", "read_csv", "validate_mixture_data"]
