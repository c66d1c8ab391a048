"""Data in: checked file reads, arrays, CSV files and edge lists; generators; bundled sets."""

from typing import TYPE_CHECKING

from dpviz.core.lazy import lazy_names

if TYPE_CHECKING:  # for type checkers; at run time a name's module loads on first use
    from dpviz.data.datasets import DATASETS, Dataset, DatasetInfo, load_dataset
    from dpviz.data.files import read_file, sha256
    from dpviz.data.generators import GENERATORS, GeneratorSpec
    from dpviz.data.graphs import GRAPH_DATASETS, karate_club, read_edges, stochastic_block_model
    from dpviz.data.mixtures import (
        ExposureDemo,
        Mixture,
        exposure_demo,
        gaussian_mixture,
        mixture_radius,
    )
    from dpviz.data.tables import as_matrix, read_csv, validate_mixture_data
    from dpviz.data.zipf import zipf_norm_data

__getattr__ = lazy_names(__name__, {
    "datasets": ("DATASETS", "Dataset", "DatasetInfo", "load_dataset"),
    "files": ("read_file", "sha256"),
    "generators": ("GENERATORS", "GeneratorSpec"),
    "graphs": ("GRAPH_DATASETS", "karate_club", "read_edges", "stochastic_block_model"),
    "mixtures": ("ExposureDemo", "Mixture", "exposure_demo", "gaussian_mixture",
            "mixture_radius"),
    "tables": ("as_matrix", "read_csv", "validate_mixture_data"),
    "zipf": ("zipf_norm_data",),
})

__all__ = ["DATASETS", "GENERATORS", "GRAPH_DATASETS", "Dataset", "DatasetInfo", "ExposureDemo",
           "GeneratorSpec", "Mixture", "as_matrix", "exposure_demo", "gaussian_mixture",
           "karate_club", "load_dataset", "mixture_radius", "read_csv", "read_edges", "read_file",
           "sha256", "stochastic_block_model", "validate_mixture_data", "zipf_norm_data"]
