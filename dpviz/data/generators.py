"""The data generators' registry: each generator with its parameters, stated as data.

``python -m dpviz list`` prints it; sweeps name a generator in their ``data`` block
(``{"generator": "gmm", "k": 3, …}``) and call :meth:`GeneratorSpec.generate`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from dpviz.core import limits
from dpviz.core.entry import Param
from dpviz.data.graphs import SBM_PARAMS, stochastic_block_model
from dpviz.data.mixtures import COVARIANCE_TYPES, exposure_demo, gaussian_mixture
from dpviz.data.zipf import ZIPF_PARAMS, zipf_norm_data


@dataclass(frozen=True)
class GeneratorSpec:
    """A registry entry for a data generator: the function and its parameters.

    ``python -m dpviz list`` prints :meth:`to_dict`; sweeps name a generator in their
    ``data`` block (``{"generator": "gmm", "k": 3, …}``) and call :meth:`generate`.
    """

    name: str
    function: Callable[..., Any]
    label: str
    params: tuple[Param, ...]

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled in and every value parsed; an unknown name is refused."""
        known = {p.name: p for p in self.params}
        for name in given:
            if name not in known:
                raise ValueError(f"unknown parameter {name!r} for the generator {self.name!r}; "
                                 f"its parameters are: {', '.join(known)}")
        return {p.name: p.parse(given[p.name]) if given.get(p.name) is not None else p.default
                for p in self.params}

    def generate(self, **given: Any) -> Any:
        """Resolve the parameters and call the generator.

        Examples
        --------
        >>> GENERATORS["gmm"].generate(n="500", k=2).data.shape
        (500, 2)
        """
        return self.function(**self.resolve(given))

    def to_dict(self) -> dict[str, Any]:
        """The form ``python -m dpviz list`` prints."""
        return {"label": self.label, "params": {p.name: p.to_dict() for p in self.params}}


_SEED_PARAM = Param("seed", "int", 0, min=0, max=limits.SEED.high,
                    help="seed of the data generator (the same seed gives the same data)")

GENERATORS: Mapping[str, GeneratorSpec] = MappingProxyType({
    "gmm": GeneratorSpec("gmm", gaussian_mixture, "Gaussian mixture", (
        Param("k", "int", 3, min=limits.COMPONENTS.low, max=limits.COMPONENTS.high,
              help="number of components"),
        Param("d", "int", 2, min=limits.DIMENSIONS.low, max=limits.DIMENSIONS.high,
              help="dimension"),
        Param("n", "int", 10_000, min=limits.SAMPLE_SIZE.low, max=limits.SAMPLE_SIZE.high,
              help="number of rows (at least 2k)"),
        Param("separation", "float", 6.0, min=limits.SEPARATION.low,
              max=limits.SEPARATION.high,
              help="smallest distance between two means, in largest standard deviations"),
        Param("weights", "str", "equal",
              help="'equal', 'random', or k comma-separated positive weights summing to 1"),
        Param("covariance", "str", "spherical", options=COVARIANCE_TYPES,
              help="spherical (sigma^2 I), diagonal, or full (a randomly rotated diagonal)"),
        _SEED_PARAM)),
    "exposure_demo": GeneratorSpec("exposure_demo", exposure_demo,
                                   "Privacy exposure demo (one person alone in a component)", (
        Param("scale", "int", 1, min=limits.EXPOSURE_SCALE.low, max=limits.EXPOSURE_SCALE.high,
              help="size multiplier: 104 x scale rows; the far component holds scale people"),
        _SEED_PARAM)),
    "zipf": GeneratorSpec("zipf", zipf_norm_data,
                          "Zipf-norm rows (the covariance paper's generator)", ZIPF_PARAMS),
    "sbm": GeneratorSpec("sbm", stochastic_block_model,
                         "Stochastic block model (two balanced communities)", SBM_PARAMS),
})
"""Every data generator by name: ``python -m dpviz list`` prints them, sweeps call them."""
