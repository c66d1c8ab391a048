"""No ε beside a run without a guarantee (issue 30 item 5): one rule, the result's not_private.

A run whose result is marked not private (d read off an uploaded graph; the exponential
mechanism run as a Metropolis chain beyond the sizes its sampling is exact at) shows the
reason and no ε headline; a private run shows its ε as before.
"""

from __future__ import annotations

import pytest
from test_bounds_upload import three_clusters

from dpviz.ui.pages import sbm as sbm_ui

from .app_helpers import charts, errors, open_page


def _spent(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.value for m in at.markdown if str(m.value).startswith("**Privacy budget:")]


def _no_guarantee(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [w.value for w in at.warning if "No privacy guarantee" in str(w.value)]


def _bar_titles(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(c["layout"]["title"]["text"]) for k, c in charts(at).items() if "ledger" in k]


@pytest.mark.slow  # a graph upload run: 3 s (make test, not make check)
def test_a_graph_whose_degree_is_read_states_no_epsilon() -> None:
    at = open_page("sbm")
    at.radio(key="sbm_source").set_value(sbm_ui.UPLOAD).run()
    at.selectbox(key="sbm_estimator").set_value("randomized_response").run()
    content = b"".join(f"{i},{(i + 1) % 12}\n{i},{(i + 3) % 12}\n".encode() for i in range(12))
    at.file_uploader(key="sbm_upload").set_value(("graph.csv", content, "text/csv")).run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    assert not _spent(at) and _no_guarantee(at), (_spent(at), [w.value for w in at.warning])
    assert all("no privacy guarantee" in t for t in _bar_titles(at)) and _bar_titles(at)


@pytest.mark.parametrize("page", ["gmm", "covariance"])
def test_a_table_whose_bound_is_read_from_the_data_states_no_epsilon(page: str) -> None:
    at = open_page(page)
    prefix = "gmm" if page == "gmm" else "cov"
    at.selectbox(key=f"{prefix}_source").set_value("csv").run()
    at.session_state[f"{prefix}_bound_way"] = "data"
    at.file_uploader(key=f"{prefix}_upload").set_value(
        ("clusters.csv", three_clusters(), "text/csv")).run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    assert not _spent(at) and _no_guarantee(at)
    assert _bar_titles(at) and all("no privacy guarantee" in t for t in _bar_titles(at))
    assert not any("together they spend" in c.value for c in at.caption)


@pytest.mark.slow  # two SBM runs: 3 s (make test, not make check)
def test_the_metropolis_chain_states_no_epsilon_and_a_private_run_does() -> None:
    at = open_page("sbm")
    at.number_input(key="sbm_n").set_value(60)
    at.number_input(key="sbm_degree").set_value(20.0)
    at.selectbox(key="sbm_estimator").set_value("exponential").run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    assert not _spent(at) and _no_guarantee(at)
    at.selectbox(key="sbm_estimator").set_value("randomized_response").run()
    assert _spent(at) and not _no_guarantee(at)
