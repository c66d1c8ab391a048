"""Predict, then reveal hides its answer (issue 19, part 3): every page, every text element.

Each of the five pages is rendered with ``predict`` on; the answer (read from the same run once
revealed) must not appear in any text the hidden page shows — markdown, captions, metrics,
alerts, widget labels and help, table cells — and must appear after Reveal. The charts that
draw the answer are absent while hidden.
"""

from __future__ import annotations

import re

import pytest
from rendered_pages import words
from streamlit.testing.v1 import AppTest
from test_bounds_upload import three_clusters

from dpviz.lab.classroom import DB_ENV, MAX_QUESTION, ClassStore
from dpviz.ui import seat
from dpviz.ui.pages.covariance import short_label
from dpviz.ui.panels import predict

from .app_helpers import ROOT, TIMEOUT, charts

COV_ERROR = "error ‖Σ̃ − Σ‖ (Frobenius)"
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?%?")


def tokens(at) -> set[str]:
    """Every number written anywhere in the page's text (metric values included)."""
    texts = words(at) + [m.value for m in at.metric]
    return {t for text in texts for t in NUMBER.findall(str(text))}


def renderings(value: float) -> set[str]:
    """The ways a page writes ``value`` (its formats: .3g, .4g, .3f)."""
    return {f"{value:.3g}", f"{value:.4g}", f"{value:.3f}"}


@pytest.fixture
def shared(monkeypatch) -> list[tuple]:
    """What Reveal hands to the live class (:func:`dpviz.ui.seat.share`), in order.

    Each call is (step, question, prediction, truth, public, within).
    """
    calls: list[tuple] = []
    monkeypatch.setattr(predict, "share",
                        lambda *args, public, within: calls.append((*args, public, within)))
    return calls


def table(at, column: str):
    """The page's table with ``column``, or ``None``."""
    return next((d.value for d in at.dataframe if column in d.value.columns), None)


def predict_on(page: str, **state: object) -> AppTest:
    """Home, then ``page`` opened with predict on (and widget ``state``) in its first run."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(f"pages/{page}.py").run()
    for key, value in state.items():
        assert at.session_state[key] == value
    at.toggle(key="predict").set_value(True).run()
    assert not at.exception, at.exception
    return at


def click(at, key: str):
    button = next(b for b in at.button if b.key == key)
    assert not button.disabled
    button.click().run()
    assert not at.exception, at.exception
    return at


def reveal_number(at, key: str, guess: float, shared: list[tuple], step: str) -> float:
    """Type ``guess``, press Reveal, and return the answer the reveal states.

    Reveal shares the guess and the answer with the live class once, under ``step``.
    """
    assert next(b for b in at.button if b.key == f"{key}_reveal").disabled  # nothing guessed
    assert not [s for s in at.success if "Your guess" in s.value]
    label = at.number_input(key=f"{key}_guess").label
    at.number_input(key=f"{key}_guess").set_value(guess).run()
    click(at, f"{key}_reveal")
    message = next(s.value for s in at.success if "Your guess" in s.value)
    assert "off by" in message
    answer = float(message.split("**")[1])
    assert [(c[0], c[2]) for c in shared] == [(step, {"guess": guess})]
    assert shared[0][3]["answer"] == pytest.approx(answer, rel=1e-2)
    assert "Predict, then reveal" not in shared[0][1]  # the plain question, no Markdown
    assert len(shared[0][1]) <= MAX_QUESTION
    assert shared[0][4] is True  # generated or public data: the question and truth may go
    low, high = shared[0][5]  # the range stated from public inputs holds the answer
    assert low == 0 <= answer <= high and label.endswith(f"(0 to {high:.3g})")
    return answer


def assert_hidden_then_shown(hidden: set[str], shown: set[str], answers: list[float]) -> None:
    for answer in answers:
        written = renderings(answer)
        assert not written & hidden, f"{answer} shown while hidden: {written & hidden}"
        assert written & shown, f"{answer} not shown after Reveal"


def test_lens_hides_the_noise_scale(shared):
    # Gaussian: at the default ε = 1, Laplace's b = Δ/ε is the sensitivity the page states
    at = predict_on("lens", lens_mechanism="Gaussian", lens_trials=20_000)
    hidden, drawn = tokens(at), set(charts(at))
    assert not {"lens_densities", "lens_loss", "lens_ledger"} & drawn
    assert next(m.value for m in at.metric if m.label == "Noise") == "?"
    answer = reveal_number(at, "lens", 0.5, shared, "lens")
    assert {"lens_densities", "lens_loss", "lens_ledger"} <= set(charts(at))
    noise = float(next(m.value for m in at.metric if m.label == "Noise"))
    assert noise == pytest.approx(answer, rel=1e-3)
    assert_hidden_then_shown(hidden, tokens(at), [answer])
    at.radio(key="lens_mechanism").set_value("Laplace").run()  # a new scenario: hidden again
    assert next(m.value for m in at.metric if m.label == "Noise") == "?"
    assert at.number_input(key="lens_guess").value is None


def test_budget_hides_epsilon_after_t_rounds(shared):
    at = predict_on("budget")
    hidden = tokens(at)
    assert "budget_rounds_chart" not in charts(at)
    answer = reveal_number(at, "budget", 1.0, shared, "budget")
    assert "budget_rounds_chart" in charts(at)
    assert_hidden_then_shown(hidden, tokens(at), [answer])


def test_covariance_hides_the_error(shared):
    at = predict_on("covariance")
    hidden, drawn = tokens(at), set(charts(at))
    assert not {"cov_heatmaps", "cov_spectra", "cov_ellipses", "cov_errors"} & drawn
    assert table(at, COV_ERROR) is None
    answer = reveal_number(at, "cov", 0.1, shared, "covariance")
    shown = table(at, COV_ERROR)
    # the zero matrix's error ‖Σ‖ is the scale the question states, not an answer
    private = shown[shown["estimator"] != short_label("zero")]
    errors = [float(e) for e in private[COV_ERROR] if e != "—"]
    assert answer == pytest.approx(errors[0], rel=1e-2)  # the first chosen estimator's
    assert_hidden_then_shown(hidden, tokens(at), errors)


def test_sbm_hides_the_error_rate(shared):
    at = predict_on("sbm", sbm_n=200)  # a small graph: the layout and the run are quick
    hidden, drawn = tokens(at), set(charts(at))
    assert "sbm_graph" not in drawn
    labels = {m.label for m in at.metric}
    assert not {"Error rate", "Overlap"} & labels
    answer = reveal_number(at, "sbm", 0.25, shared, "sbm")
    shown = {m.label: m.value for m in at.metric}
    assert float(shown["Error rate"]) == pytest.approx(answer, abs=1e-3)
    assert "sbm_graph" in charts(at)
    assert answer > 0  # a perfect recovery (0) would be written everywhere
    assert_hidden_then_shown(hidden, tokens(at), [answer, 1 - 2 * answer])


def test_gmm_hides_the_private_means_and_their_errors(shared):
    at = predict_on("gmm")
    hidden, drawn = tokens(at), set(charts(at))
    assert "gmm_figure" not in drawn
    assert table(at, "mean error") is None
    assert not [s for s in at.subheader if "How this estimator" in s.value]
    at.number_input(key="gmm_guess_x").set_value(0.0).run()
    at.number_input(key="gmm_guess_y").set_value(0.0).run()
    click(at, "gmm_reveal")
    assert [(c[0], c[2], c[4]) for c in shared] == [("gmm", {"x": 0.0, "y": 0.0}, True)]
    assert len(shared[0][3]["x"]) == len(shared[0][3]["y"]) >= 2  # every private mean
    low, high = shared[0][5]  # the click grid's box, a width wider: the means lie in it
    means = shared[0][3]["x"] + shared[0][3]["y"]
    assert low <= min(means) and max(means) <= high
    message = next(s.value for s in at.success if "private mean" in s.value)
    moved = float(re.search(r"the noise moved that mean (\S+) from", message).group(1))
    private = table(at, "mean error").iloc[0]  # the run's row (the second is non-private EM)
    errors = [float(private[c]) for c in ("mean error", "weight error", "covariance error")
              if private[c] != "—"]
    assert errors
    assert_hidden_then_shown(hidden, tokens(at), [*errors])
    assert not renderings(moved) & hidden


@pytest.fixture
def class_db(tmp_path, monkeypatch) -> ClassStore:
    monkeypatch.setenv(DB_ENV, str(tmp_path / "classes.sqlite3"))
    return ClassStore(tmp_path / "classes.sqlite3")


def test_covariance_on_an_upload_sends_the_class_nothing_and_says_so(class_db):
    """‖Σ‖, the exact error ‖Σ̃ − Σ‖ and the guess made on a student's own file stay there."""
    opened = class_db.open_class()
    ann = class_db.join(opened.code, "Ann")
    at = predict_on("covariance")
    at.session_state[seat.MEMBER] = {"code": ann.code, "student_id": ann.student_id,
                                     "name": ann.name}
    at.selectbox(key="cov_source").set_value("csv").run()
    at.file_uploader(key="cov_upload").set_value(
        ("clusters.csv", three_clusters(), "text/csv")).run()
    assert not at.exception, at.exception
    note = ":material/lock: " + seat.OWN_DATA_NOTE.format(code=opened.code)
    assert note in [c.value for c in at.caption]  # where the Reveal is
    assert not any("sends your prediction" in c.value for c in at.caption)
    at.number_input(key="cov_guess").set_value(0.1).run()
    click(at, "cov_reveal")
    assert class_db.row_count(opened.code) == 0
    assert not any("Sent to class" in c.value for c in at.caption)


def test_gmm_on_an_upload_marks_its_question_not_public(shared):
    at = predict_on("gmm")
    at.selectbox(key="gmm_source").set_value("csv").run()
    at.file_uploader(key="gmm_upload").set_value(
        ("clusters.csv", three_clusters(), "text/csv")).run()
    at.number_input(key="gmm_guess_x").set_value(0.0).run()
    at.number_input(key="gmm_guess_y").set_value(0.0).run()
    click(at, "gmm_reveal")
    assert [(c[0], c[2], c[4]) for c in shared] == [("gmm", {"x": 0.0, "y": 0.0}, False)]
