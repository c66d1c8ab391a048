"""Private community recovery in stochastic block models (the ``sbm`` task, seed 003 §5).

Every estimator takes a graph (a :class:`~dpviz.data.graphs.Graph`, a ``networkx.Graph``, or
an edge array plus ``n``), a budget, and the **public** model parameters ``degree`` (d) and
``signal`` (ε_s), and returns ``estimate["labels"]`` (±1). Neighbouring graphs differ in one
edge (edge DP).
"""

from collections.abc import Mapping
from types import MappingProxyType

from dpviz.core.entry import CostModel, Estimator, Param, Preparation
from dpviz.core.relations import ONE_EDGE
from dpviz.estimators.neighbours import graph_pair
from dpviz.estimators.sbm.baselines import gauss_adjacency, randomized_response, spectral
from dpviz.estimators.sbm.common import (
                  DEGREE,
                  EXACT_ACCOUNTING,
                  SIGNAL,
                  VERTICES,
                  PreparedGraph,
                  kesten_stigum,
)
from dpviz.estimators.sbm.exact import private_exact_recovery
from dpviz.estimators.sbm.exponential import private_exponential
from dpviz.estimators.sbm.projection import TOLERANCE_FRACTION, Projection, certified_projection
from dpviz.estimators.sbm.weak import nonprivate_projection, prepare_graph, private_weak_recovery

_MODEL = (DEGREE, SIGNAL, VERTICES)
TOLERANCE = Param("tolerance_fraction", "float", TOLERANCE_FRACTION, min=1e-4, max=1.0,
                  choice=True, help="the public solver tolerance as a fraction of the "
                                    "sensitivity: tau* = fraction x Delta (noise is "
                                    "calibrated to Delta + 2 tau*)")
SPLIT = Param("split_probability", "float", 0.5, min=0.05, max=0.95, choice=True,
              help="probability that an edge goes to G1 (the first step); the rest is G2, "
                   "used by majority voting")
#: The certified projection of the whole graph: ε-independent, so computed once per graph.
PROJECTION = Preparation(prepare_graph, ("degree", "signal", "tolerance_fraction"))
PAPER = "Chen, Cohen-Addad, d'Orsi, Epasto, Imola, Steurer & Tiegel, NeurIPS 2023"

ESTIMATORS: Mapping[str, Estimator] = MappingProxyType({
    "weak_recovery": Estimator(
        task="sbm", name="weak_recovery", function=private_weak_recovery, reference="projection",
        relation=ONE_EDGE,
        prepare=PROJECTION,
        cost=CostModel(2.1e-09, base_seconds=0.037, bytes_per_unit=61.0,
                       growth="cubic", draws="pairs"),
        neighbours=graph_pair,
        label="Private weak recovery (certified projection)",
        paper=f"{PAPER}, Algorithm 5.4", notion="edge-DP", outputs=("labels",),
        params=(*_MODEL, TOLERANCE, EXACT_ACCOUNTING)),
    "exact_recovery": Estimator(
        task="sbm", name="exact_recovery", function=private_exact_recovery,
        relation=ONE_EDGE,
        cost=CostModel(2.1e-09, base_seconds=0.044, bytes_per_unit=62.0,
                       growth="cubic", draws="pairs"),
        neighbours=graph_pair,
        label="Private exact recovery (split + majority voting)",
        paper=f"{PAPER}, Algorithms 5.12 and 5.13", notion="edge-DP",
        outputs=("labels",), params=(*_MODEL, TOLERANCE, SPLIT, EXACT_ACCOUNTING)),
    "exponential": Estimator(
        task="sbm", name="exponential", function=private_exponential,
        relation=ONE_EDGE,
        cost=CostModel(1e-09, base_seconds=0.11, bytes_per_unit=5.5, growth="cubic"),
        neighbours=graph_pair,
        label="Exponential mechanism + majority voting",
        paper=f"{PAPER}, Algorithm 5.19", notion="edge-DP",
        outputs=("labels",),
        params=(*_MODEL, SPLIT,
                Param("chain_steps", "int", 20, min=1, max=1000, choice=True,
                      help="n > 20 only: Metropolis swaps per vertex (no mixing bound, so "
                           "no privacy guarantee)"))),
    "randomized_response": Estimator(
        task="sbm", name="randomized_response", function=randomized_response,
        relation=ONE_EDGE,
        reference="spectral",
        cost=CostModel(1.6e-08, bytes_per_unit=6.7, growth="quadratic"),
        neighbours=graph_pair,
        label="Randomized response + spectral",
        paper="Warner 1965 (randomized response), a baseline",
        notion="edge-DP", outputs=("labels",), params=_MODEL),
    "gauss_adjacency": Estimator(
        task="sbm", name="gauss_adjacency", function=gauss_adjacency, reference="spectral",
        relation=ONE_EDGE,
        cost=CostModel(7.1e-08, bytes_per_unit=38.0, growth="quadratic", draws="pairs"),
        neighbours=graph_pair,
        label="Gaussian noise on the adjacency + spectral",
        paper="a baseline: the analytic Gaussian of Balle & Wang 2018",
        notion="edge-DP", outputs=("labels",),
        params=(*_MODEL, EXACT_ACCOUNTING)),
    "spectral": Estimator(
        task="sbm", name="spectral", function=spectral, label="Spectral (non-private)",
        cost=CostModel(8e-08, bytes_per_unit=52.0),
        paper="a baseline: the centred adjacency's leading eigenvector", notion="none",
        outputs=("labels",), params=_MODEL),
    "projection": Estimator(
        task="sbm", name="projection", function=nonprivate_projection,
        prepare=PROJECTION,
        cost=CostModel(2.3e-09, base_seconds=0.029, bytes_per_unit=61.0, growth="cubic"),
        label="Projection without noise (non-private)", paper=f"{PAPER}, Algorithm 5.4",
        notion="none", outputs=("labels",), params=(*_MODEL, TOLERANCE)),
})

__all__ = ["ESTIMATORS", "PROJECTION", "PreparedGraph", "Projection",
           "certified_projection", "prepare_graph", "gauss_adjacency", "kesten_stigum",
           "nonprivate_projection", "private_exact_recovery", "private_exponential",
           "private_weak_recovery", "randomized_response", "spectral"]
