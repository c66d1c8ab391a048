"""The covariance paper's claims read off figure tables
(dpviz.lab.experiments.covariance_figures)."""

import math

import pandas as pd
import pytest

from dpviz.lab.experiments.covariance_figures import crossover, load_saved, verdicts


def frame(rows, figure="fig2"):
    out = pd.DataFrame(rows, columns=["series", "x", "estimator", "mean_error"])
    out["figure"] = figure
    return out


def fig2(crossing_1000=50, crossing_16000=200, adaptive_factor=1.1):
    rows = []
    for series, crossing in (("n=1000", crossing_1000), ("n=16000", crossing_16000)):
        for d in (10, 30, 50, 100, 200, 400):
            gauss, separate = d / 10, (1.3 * d / 10 if d < crossing else d / 20)
            rows += [(series, d, "gauss", gauss), (series, d, "separate", separate),
                     (series, d, "adaptive", adaptive_factor * min(gauss, separate))]
    return frame(rows)


def test_crossover_is_where_separate_stays_below():
    f = fig2(crossing_1000=100)
    assert crossover(f, "n=1000") == 100
    never = frame([("a", 1, "gauss", 1.0), ("a", 1, "separate", 2.0),
                   ("a", 2, "gauss", 1.0), ("a", 2, "separate", 3.0)])
    assert math.isnan(crossover(never, "a"))
    back_and_forth = frame([("a", 1, "gauss", 1.0), ("a", 1, "separate", 0.5),
                            ("a", 2, "gauss", 1.0), ("a", 2, "separate", 2.0),
                            ("a", 3, "gauss", 1.0), ("a", 3, "separate", 0.5)])
    assert crossover(back_and_forth, "a") == 3


def test_verdicts_hold_and_fail_on_the_numbers():
    good = {v.claim.split(";")[0]: v for v in verdicts({"fig2": fig2()})}
    assert all(v.holds for v in good.values())
    late = verdicts({"fig2": fig2(crossing_1000=400)})
    assert not late[0].holds and "from d = 400 (n=1000)" in late[0].numbers
    costly = verdicts({"fig2": fig2(adaptive_factor=2.0)})
    assert not costly[1].holds and "at worst 2.00×" in costly[1].numbers


def test_trace_verdict_reads_the_ratio():
    rows = []
    for trace, scale in ((0.01, 0.1), (1.0, 1.0)):
        rows += [(None, trace, "gauss", 0.5), (None, trace, "separate", scale),
                 (None, trace, "adaptive", scale)]
    v = verdicts({"fig3a": frame(rows, "fig3a").drop(columns="series")})[0]
    assert v.holds and "gauss 1×" in v.numbers and "separate 10×" in v.numbers
    rows = [(None, t, e, 1.0) for t in (0.01, 1.0) for e in ("gauss", "separate", "adaptive")]
    assert not verdicts({"fig3a": frame(rows, "fig3a").drop(columns="series")})[0].holds


@pytest.mark.parametrize("name", ["fig2", "fig3a", "fig3b", "fig3c", "fig3d"])
def test_saved_figures_exist_and_have_the_columns(name):
    saved = load_saved(name)
    assert {"figure", "estimator", "x_name", "x", "n", "d", "rho", "trace", "mean_error",
            "std_error", "repeats"} <= set(saved.columns)
    assert (saved["figure"] == name).all() and (saved["repeats"] >= 1).all()
    assert {"gauss", "separate", "adaptive", "zero"} <= set(saved["estimator"])
