"""Plotly figure factories: they take results and return ``plotly.graph_objects.Figure``.

Factories never compute statistics, load data or import Streamlit; their colours come from
:mod:`dpviz.viz.style`, so "true" and "private" look the same everywhere.
Names are imported on first use (:mod:`dpviz.core.lazy`), so a page loads the factories it draws.
"""

from typing import TYPE_CHECKING

from dpviz.core.lazy import lazy_names

if TYPE_CHECKING:  # for type checkers; at run time a name's module loads on first use
    from dpviz.viz.exposure import exposure_figure
    from dpviz.viz.factors import factor_images
    from dpviz.viz.intervals import with_interval_bars, with_interval_ellipses
    from dpviz.viz.lens import audit_chart, output_densities, privacy_loss
    from dpviz.viz.mixtures import ellipse, mixture_figure
    from dpviz.viz.noise_reuse import two_release_figure
    from dpviz.viz.papers import dp_em_paper_figure, mean_error_boxes
    from dpviz.viz.privacy import (
        allocation_bar,
        epsilon_by_delta_chart,
        epsilon_by_rounds_chart,
        ledger_bar,
        noise_bars,
    )
    from dpviz.viz.style import COLORS, DATASET_COLORS, METHOD_COLORS, TEMPLATE
    from dpviz.viz.tables import figure_table

__getattr__ = lazy_names(__name__, {
    "exposure": ("exposure_figure",),
    "factors": ("factor_images",),
    "intervals": ("with_interval_bars", "with_interval_ellipses"),
    "lens": ("audit_chart", "output_densities", "privacy_loss"),
    "mixtures": ("ellipse", "mixture_figure"),
    "noise_reuse": ("two_release_figure",),
    "papers": ("dp_em_paper_figure", "mean_error_boxes"),
    "privacy": ("allocation_bar", "epsilon_by_delta_chart", "epsilon_by_rounds_chart",
            "ledger_bar", "noise_bars"),
    "style": ("COLORS", "DATASET_COLORS", "METHOD_COLORS", "TEMPLATE"),
    "tables": ("figure_table",),
})

__all__ = [
    "COLORS", "DATASET_COLORS", "METHOD_COLORS", "TEMPLATE", "allocation_bar", "audit_chart",
    "dp_em_paper_figure", "ellipse", "epsilon_by_delta_chart", "epsilon_by_rounds_chart",
    "exposure_figure", "factor_images", "figure_table", "ledger_bar", "mean_error_boxes",
    "mixture_figure", "noise_bars", "output_densities", "privacy_loss", "two_release_figure",
    "with_interval_bars", "with_interval_ellipses",
]
