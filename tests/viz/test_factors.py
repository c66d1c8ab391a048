"""The factor-image factory: one heatmap per run and factor, symmetric colour ranges."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz import viz


def test_grid_of_heatmaps():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 8, 8)), rng.normal(size=(3, 8, 8))
    fig = viz.factor_images([("non-private (ε = ∞)", a), ("ε = 2", b)], title="W")
    assert [t.type for t in fig.data] == ["heatmap"] * 6
    assert [t.name for t in fig.data] == [f"{run}, factor {j}"
                                          for run in ("non-private (ε = ∞)", "ε = 2")
                                          for j in (1, 2, 3)]
    for trace, image in zip(fig.data, [*a, *b], strict=True):
        np.testing.assert_array_equal(trace.z, image)
        top = np.abs(image).max()
        assert (trace.zmin, trace.zmax) == pytest.approx((-top, top))
        assert trace.showscale is False
    # five subplot titles (three factors) and two row titles
    texts = [ann.text for ann in fig.layout.annotations]
    assert texts[:3] == ["factor 1", "factor 2", "factor 3"]
    assert "non-private (ε = ∞)" in texts and "ε = 2" in texts
    assert fig.layout.yaxis.autorange == "reversed"
    assert fig.layout.yaxis4.scaleanchor == "x4"
    assert fig.data[4].xaxis == "x5" and fig.data[4].yaxis == "y5"


def test_all_zero_image_and_bad_input():
    fig = viz.factor_images([("zero", np.zeros((1, 8, 8)))])
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-1.0, 1.0)
    with pytest.raises(ValueError, match="at least one row"):
        viz.factor_images([])
    with pytest.raises(ValueError, match="same number of factors"):
        viz.factor_images([("a", np.zeros((2, 8, 8))), ("b", np.zeros((3, 8, 8)))])
