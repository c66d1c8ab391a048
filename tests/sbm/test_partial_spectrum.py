"""The certified projection from the top of the spectrum (large graphs) agrees with the dense
solver, and its certificate holds whatever eigenpairs the Lanczos iterations return."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz.data.graphs import stochastic_block_model
from dpviz.estimators.sbm import projection
from dpviz.estimators.sbm.projection import (
    _Spectrum,
    certified_projection,
    duality_certificate,
    partial_certificate,
    projection_sensitivity,
    scaled_centred_adjacency,
)

N, DEGREE, SIGNAL = 300, 40.0, 0.6


@pytest.fixture(scope="module")
def graph():
    return stochastic_block_model(N, DEGREE, SIGNAL, seed=1)


@pytest.fixture(scope="module")
def both(graph):
    return {method: certified_projection(graph, None, DEGREE, SIGNAL, method=method)
            for method in ("dense", "partial")}


def test_partial_and_dense_projections_agree(graph, both):
    dense, partial = both["dense"], both["partial"]
    assert partial.certificate <= partial.tolerance == dense.tolerance
    # both within τ* of the one exact projection X̂: within 2τ* of each other
    assert np.linalg.norm(partial.matrix - dense.matrix) <= 2 * partial.tolerance
    assert np.allclose(np.diag(partial.matrix), 1 / N)
    assert np.linalg.eigvalsh(partial.matrix).min() > -1e-12
    # and the partial one is within its certificate of a tightly solved projection
    tight = certified_projection(graph, None, DEGREE, SIGNAL, method="dense",
                                 tolerance=1e-6 * projection_sensitivity(N, DEGREE, SIGNAL))
    assert (np.linalg.norm(partial.matrix - tight.matrix)
            <= partial.certificate + tight.certificate)


def test_auto_takes_the_partial_spectrum_from_its_threshold(graph, both, monkeypatch):
    monkeypatch.setattr(projection, "PARTIAL_VERTICES", N)
    auto = certified_projection(graph, None, DEGREE, SIGNAL)
    assert np.array_equal(auto.matrix, both["partial"].matrix)  # deterministic, too
    with pytest.raises(ValueError, match="^method must be one of auto, dense, partial, got "
                                         "'lobpcg'$"):
        certified_projection(graph, None, DEGREE, SIGNAL, method="lobpcg")


def test_a_missed_positive_eigenvalue_falls_back_to_the_dense_certificate(graph):
    m = scaled_centred_adjacency(graph, DEGREE, SIGNAL)
    y = np.full(N, -float(np.linalg.eigvalsh(m)[-40]))  # M = G + Diag y: 39 positive
    m[np.diag_indices(N)] += y
    full = _Spectrum.of(m)
    r = full.positive
    keep = [0, *range(2, r + 1)]  # the second eigenpair missed, the first non-positive kept
    partial = _Spectrum(full.values[keep], full.vectors[:, keep], r - 1,
                        float(full.values[r:].mean()))
    dense_tau, dense_c = duality_certificate(m, y, full)
    tau, c = partial_certificate(partial, y, float(np.linalg.norm(m)), np.inf,
                                 lambda v: m @ v, lambda: m.copy())
    assert tau == dense_tau and np.array_equal(c, dense_c)
    # with every positive eigenpair the check passes and the bound is the dense one's or above
    whole = _Spectrum(full.values[:r + 1], full.vectors[:, :r + 1], r,
                      float(full.values[r:].mean()))
    tau, c = partial_certificate(whole, y, float(np.linalg.norm(m)), np.inf,
                                 lambda v: m @ v, lambda: m.copy())
    assert tau >= dense_tau - 1e-9 and tau == pytest.approx(dense_tau, rel=1e-6)
    assert np.allclose(c, dense_c)


def test_the_saved_error_vs_n_shows_the_crossover_the_page_states():
    from dpviz.lab.experiments.sbm_curves import load_saved
    from dpviz.ui.pages.sbm_curves import RR_CAPTION

    runs = load_saved("error_vs_n")
    median = runs.groupby(["estimator", "n"])["error"].median()
    weak, rr = median["weak_recovery"], median["randomized_response"]
    assert rr[5000] < weak[5000] and weak[10_000] < rr[10_000]
    for value in (rr[5000], weak[5000], rr[10_000], weak[10_000]):
        assert f"{value:.2f}".lstrip("0") in RR_CAPTION
