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

from dpviz.ui.covariance import short_label

from .app_helpers import charts, open_page

COV_ERROR = "error ‖Σ̃ − Σ‖ (Frobenius)"
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?%?")


def tokens(at) -> set[str]:
    """Every number written anywhere in the page's text (metric values included)."""
    texts = words(at) + [m.value for m in at.metric]
    return {t for text in texts for t in NUMBER.findall(str(text))}


def renderings(value: float) -> set[str]:
    """The ways a page writes ``value`` (its formats: .3g, .4g, .3f)."""
    return {f"{value:.3g}", f"{value:.4g}", f"{value:.3f}"}


def table(at, column: str):
    """The page's table with ``column``, or ``None``."""
    return next((d.value for d in at.dataframe if column in d.value.columns), None)


def predict_on(page: str):
    at = open_page(page)
    at.toggle(key="predict").set_value(True).run()
    assert not at.exception, at.exception
    return at


def click(at, key: str):
    button = next(b for b in at.button if b.key == key)
    assert not button.disabled
    button.click().run()
    assert not at.exception, at.exception
    return at


def reveal_number(at, key: str, guess: float) -> float:
    """Type ``guess``, press Reveal, and return the answer the reveal states."""
    assert next(b for b in at.button if b.key == f"{key}_reveal").disabled  # nothing guessed
    assert not [s for s in at.success if "Your guess" in s.value]
    at.number_input(key=f"{key}_guess").set_value(guess).run()
    click(at, f"{key}_reveal")
    message = next(s.value for s in at.success if "Your guess" in s.value)
    assert "off by" in message
    return float(message.split("**")[1])


def assert_hidden_then_shown(hidden: set[str], shown: set[str], answers: list[float]) -> None:
    for answer in answers:
        written = renderings(answer)
        assert not written & hidden, f"{answer} shown while hidden: {written & hidden}"
        assert written & shown, f"{answer} not shown after Reveal"


def test_lens_hides_the_noise_scale():
    at = predict_on("lens")
    # Gaussian: at the default ε = 1, Laplace's b = Δ/ε is the sensitivity the page states
    at.radio(key="lens_mechanism").set_value("Gaussian").run()
    hidden, drawn = tokens(at), set(charts(at))
    assert not {"lens_densities", "lens_loss", "lens_ledger"} & drawn
    assert next(m.value for m in at.metric if m.label == "Noise") == "?"
    answer = reveal_number(at, "lens", 0.5)
    assert {"lens_densities", "lens_loss", "lens_ledger"} <= set(charts(at))
    noise = float(next(m.value for m in at.metric if m.label == "Noise"))
    assert noise == pytest.approx(answer, rel=1e-3)
    assert_hidden_then_shown(hidden, tokens(at), [answer])


def test_budget_hides_epsilon_after_t_rounds():
    at = predict_on("budget")
    hidden = tokens(at)
    assert "budget_rounds_chart" not in charts(at)
    answer = reveal_number(at, "budget", 1.0)
    assert "budget_rounds_chart" in charts(at)
    assert_hidden_then_shown(hidden, tokens(at), [answer])


def test_covariance_hides_the_error():
    at = predict_on("covariance")
    hidden, drawn = tokens(at), set(charts(at))
    assert not {"cov_heatmaps", "cov_spectra", "cov_ellipses", "cov_errors"} & drawn
    assert table(at, COV_ERROR) is None
    answer = reveal_number(at, "cov", 0.1)
    shown = table(at, COV_ERROR)
    # the zero matrix's error ‖Σ‖ is the scale the question states, not an answer
    private = shown[shown["estimator"] != short_label("zero")]
    errors = [float(e) for e in private[COV_ERROR] if e != "—"]
    assert answer == pytest.approx(errors[0], rel=1e-2)  # the first chosen estimator's
    assert_hidden_then_shown(hidden, tokens(at), errors)


def test_sbm_hides_the_error_rate():
    at = predict_on("sbm")
    hidden, drawn = tokens(at), set(charts(at))
    assert "sbm_graph" not in drawn
    labels = {m.label for m in at.metric}
    assert not {"Error rate", "Overlap"} & labels
    answer = reveal_number(at, "sbm", 0.25)
    shown = {m.label: m.value for m in at.metric}
    assert float(shown["Error rate"]) == pytest.approx(answer, abs=1e-3)
    assert "sbm_graph" in charts(at)
    assert answer > 0  # a perfect recovery (0) would be written everywhere
    assert_hidden_then_shown(hidden, tokens(at), [answer, 1 - 2 * answer])


def test_gmm_hides_the_private_means_and_their_errors():
    at = predict_on("gmm")
    hidden, drawn = tokens(at), set(charts(at))
    assert "gmm_figure" not in drawn
    assert table(at, "mean error") is None
    assert not [s for s in at.subheader if "How this estimator" in s.value]
    at.number_input(key="gmm_guess_x").set_value(0.0).run()
    at.number_input(key="gmm_guess_y").set_value(0.0).run()
    click(at, "gmm_reveal")
    message = next(s.value for s in at.success if "private mean" in s.value)
    moved = float(re.search(r"the noise moved that mean (\S+) from", message).group(1))
    private = table(at, "mean error").iloc[0]  # the run's row (the second is non-private EM)
    errors = [float(private[c]) for c in ("mean error", "weight error", "covariance error")
              if private[c] != "—"]
    assert errors
    assert_hidden_then_shown(hidden, tokens(at), [*errors])
    assert not renderings(moved) & hidden
