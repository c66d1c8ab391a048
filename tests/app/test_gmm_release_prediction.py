"""/gmm states grid means' expected error from its own release where that says more (issue 30's
held-out check), and keeps it per release: a rerun of the same run is not simulated again."""

from __future__ import annotations

from dpviz.lab import expectation

from .app_helpers import open_page, upload_petals
from .app_helpers import said as page_text


def test_a_release_based_figure_is_said_as_such_and_kept_for_the_rerun(monkeypatch):
    calls: list[int] = []
    real = expectation.simulate

    def counted(shape, runs=expectation.RUNS, **kwargs):
        if isinstance(shape, expectation.Released):
            calls.append(runs)
        return real(shape, runs, **kwargs)

    monkeypatch.setattr(expectation, "simulate", counted)
    # the release's figure is stated whenever it exists (here), to see the page say it
    monkeypatch.setattr(expectation, "stated", lambda found, own: own or found)
    at = open_page()
    at.query_params["gmm_epsilon"] = "5"
    at.switch_page("pages/gmm.py").run()
    upload_petals(at, "gmm")
    assert at.selectbox(key="gmm_estimator").value == "grid_means"
    said = page_text(at)
    assert "runs on rows drawn from the groups this run released" in said, said
    assert "Only public inputs go in" not in said  # it read the release too
    assert calls == [expectation.RELEASE_RUNS]
    at.run()  # the same run again: the session keeps its prediction
    assert calls == [expectation.RELEASE_RUNS] and not at.exception
    assert "runs on rows drawn from the groups this run released" in page_text(at)
