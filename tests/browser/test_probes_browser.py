"""Issue 23's link probes in real Chromium: the Markdown payload renders as text, nothing is
fetched from its host, and refused sizes show a sentence, never a traceback."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest

from .browser_helpers import settle

PAYLOAD = "![p](http://host/pixel.png) [**Log in again here**](http://host/phish)"


def _requests_to_host(tab) -> list[str]:
    seen: list[str] = []
    tab.on("request", lambda request: seen.append(request.url))
    return seen


def test_the_markdown_payload_renders_as_plain_text(page, server):
    seen = _requests_to_host(page)
    page.goto(f"{server}/explorer?explorer_gmm_epsilon_values={quote(PAYLOAD)}")
    page.wait_for_selector('[data-testid="stAlertContentError"]')
    settle(page)
    error = page.locator('[data-testid="stAlertContentError"]').first
    text = error.inner_text().replace("\u2060", "")
    assert "![p](http://host/pixel.png)" in text
    assert "[**Log in again here**](http://host/phish)" in text
    assert page.locator('img[src*="host/"]').count() == 0
    assert page.locator('a[href*="//host"]').count() == 0
    assert error.locator("a, img, strong").count() == 0
    assert not [url for url in seen if urlsplit(url).hostname == "host"]


@pytest.mark.parametrize("query, words", [
    ("/gmm?gmm_n=1000000&gmm_d=50", "on a page"),
    ("/sbm?sbm_n=3000&sbm_degree=1000", "too much work on a page"),
    ("/gmm?gmm_delta=1e-320", "delta must be 0 or at least"),
])
def test_refused_sizes_show_a_sentence_and_no_trace(page, server, query, words):
    page.goto(server + query)
    page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=15_000)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    text = page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    assert words in text and "Traceback" not in text and "/work" not in text
