"""Data in: validation of arrays and CSV files, with sentences a person can act on."""

from .tables import as_matrix, read_csv

__all__ = ["as_matrix", "read_csv"]
