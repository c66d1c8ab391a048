"""Sweeps: grid × repeats, seeded per run, cached per finished run, run in parallel.

One runner serves every grid dpviz runs (the explorer page, ``python -m dpviz sweep``, the
compare views and the papers' saved figures), each run through
:func:`dpviz.lab.scenario.run_scenario`
and so :func:`dpviz.run`:

* :mod:`~dpviz.lab.experiments.sweep` — the spec (:class:`SweepSpec`) and every run's seeds;
* :mod:`~dpviz.lab.experiments.runner` — :func:`run_sweep`, :func:`replay`;
* :mod:`~dpviz.lab.experiments.cache` — finished runs on disk;
* :mod:`~dpviz.lab.experiments.tables` — tables written and read, summaries, the compare view;
* :mod:`~dpviz.lab.experiments.papers` — the DP-EM paper's saved tables summarised;
* :mod:`~dpviz.lab.experiments.sbm_curves` — the SBM error curves and phase diagram;
* :mod:`~dpviz.lab.experiments.covariance_figures` — the covariance paper's Figures 2 and 3.
Names are imported on first use (:mod:`dpviz.core.lazy`): a page that reads one module (the sweep's
seeds, a progress bar's estimate) does not load pandas with the others.
"""

from typing import TYPE_CHECKING

from dpviz.core.lazy import lazy_names

if TYPE_CHECKING:  # for type checkers; at run time a name's module loads on first use
    from dpviz.lab.experiments.cache import cache_directory
    from dpviz.lab.experiments.papers import (
        PAPER_METHODS,
        TIGHT,
        PaperReproduction,
        PeersReading,
        mean_error_medians,
        paper_reproduction,
        peers_reading,
    )
    from dpviz.lab.experiments.runner import (
        check_scheduler,
        replay,
        run_sweep,
        scenario_for_row,
        worker_count,
    )
    from dpviz.lab.experiments.sweep import SweepSpec, run_seeds, scenario_dict
    from dpviz.lab.experiments.tables import (
        COMPARE_METRICS,
        compare_spec,
        compare_summary,
        progress_line,
        read_table,
        summarise,
        time_left,
        write_table,
    )

__getattr__ = lazy_names(__name__, {
    "cache": ("cache_directory",),
    "papers": ("PAPER_METHODS", "TIGHT", "PaperReproduction", "PeersReading",
               "mean_error_medians", "paper_reproduction", "peers_reading"),
    "runner": ("check_scheduler", "replay", "run_sweep", "scenario_for_row", "worker_count"),
    "sweep": ("SweepSpec", "run_seeds", "scenario_dict"),
    "tables": ("COMPARE_METRICS", "compare_spec", "compare_summary", "progress_line",
            "read_table", "summarise", "time_left", "write_table"),
})

__all__ = ["COMPARE_METRICS", "PAPER_METHODS", "TIGHT", "PaperReproduction", "PeersReading",
           "SweepSpec",
           "cache_directory", "check_scheduler", "compare_spec", "compare_summary",
           "mean_error_medians", "paper_reproduction", "peers_reading", "progress_line",
           "read_table",
           "replay", "run_seeds", "run_sweep", "scenario_dict", "scenario_for_row",
           "summarise", "time_left", "worker_count", "write_table"]
