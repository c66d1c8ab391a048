"""Issue 23's URL probes, replayed through AppTest: each gets a sentence, never a traceback.

Every probe opens a page the way a shared link does (Home, then the page with the probe's
query parameters). What a probe must show: no exception element, at least one error sentence,
and nothing unescaped (no Markdown link or image reaches a message). The work refusals happen
before any data are made, so these stay fast (no timing is asserted: speed is in bench/).
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

import dpviz.data
import dpviz.ui.pages.home
from dpviz.ui import escape_markdown

from .app_helpers import ROOT, TIMEOUT, errors

PAYLOAD = "![p](http://host/pixel.png) [**Log in again here**](http://host/phish)"
#: A Markdown link or image that survived: ``](`` not preceded by a backslash (the pages'
#: own links to glossary entries aside).
UNESCAPED_LINK = re.compile(r"(?<!\\)\]\((?!/glossary#[\w-]+\))")


def open_with(page: str, **params: str) -> AppTest:
    """Home, then ``pages/<page>.py`` with ``params`` in the link."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    at.switch_page(f"pages/{page}.py")
    at.query_params.update(params)
    return at.run()


def messages(at: AppTest) -> list[str]:
    """The Markdown body of every message element on the page."""
    found = []
    for kind in ("error", "warning", "info", "success", "caption", "markdown"):
        found += [str(e.proto.body) for e in at.get(kind)]
    return found


def assert_sentence(at: AppTest, *words: str) -> str:
    """One error sentence containing ``words``, no exception and nothing unescaped."""
    assert not at.exception, at.exception
    shown = errors(at)
    assert shown, "no sentence shown"
    assert all(not UNESCAPED_LINK.search(body) for body in messages(at)), messages(at)
    sentence = " ".join(shown)
    for word in words:
        assert word in sentence, sentence
    return sentence


def test_the_markdown_payload_in_a_link_is_shown_escaped():
    at = open_with("explorer", explorer_gmm_epsilon_values=PAYLOAD)
    sentence = assert_sentence(at, "is not a number")
    assert escape_markdown("![p](http://host/pixel.png)") in sentence
    assert "\\[\\*\\*Log in again here\\*\\*\\]" in sentence


@pytest.mark.parametrize("params, words", [
    # a command's words are code, so a browser never splits one at its hyphen
    ({"gmm_n": "1000000", "gmm_d": "50"}, ("on a page", "`python` `-m` `dpviz`", "Dask")),
    ({"gmm_n": "1000000", "gmm_d": "200"}, ("on a page", "`python` `-m` `dpviz`")),
    ({"gmm_delta": "1e-320"}, ("delta must be 0 or at least",)),
    ({"gmm_source": "iris", "gmm_radius": "1e308"}, ("radius must be", "1e+100")),
])
def test_gmm_probes_are_refused_with_a_sentence(params, words):
    assert_sentence(open_with("gmm", **params), *words)


@pytest.mark.slow  # 23 s beside the other quick tests
def test_a_big_graph_is_refused_before_any_work():
    at = open_with("sbm", sbm_n="3000", sbm_degree="1000")
    assert_sentence(at, "n = 3,000 vertices", "too much work on a page")


@pytest.mark.parametrize("page, key", [("covariance", "cov_delta"), ("budget", "budget_delta")])
def test_a_denormal_delta_is_refused(page, key):
    params = {key: "1e-320"}
    if page == "covariance":
        params["cov_budget"] = "epsilon"
    assert_sentence(open_with(page, **params), "delta must be 0 or at least")


@pytest.mark.parametrize("value", ["<script>alert(1)</script>", "NaN", "1e-320", "-5",
                                   ":red[x] :material/home: www.host.com"])
def test_odd_values_in_a_link_get_a_sentence(value):
    sentence = assert_sentence(open_with("explorer", explorer_gmm_epsilon_values=value))
    assert not re.search(r"(?<!\\)<script", sentence)  # the tag is escaped: \<script>
    assert ":red[" not in sentence and "www.host" not in sentence


def test_an_unexpected_failure_shows_one_plain_sentence(monkeypatch):
    """The page's error boundary: no trace, no type name, no server path in the browser."""
    def broken(seed: int) -> None:
        raise OSError(f"[Errno 13] Permission denied: '{ROOT}/secret.txt'")

    monkeypatch.setattr(dpviz.ui.pages.home, "example", broken)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    assert errors(at) == [dpviz.ui.widgets.INTERNAL_ERROR]
    assert not any(str(ROOT) in body or "OSError" in body for body in messages(at))


def test_an_unexpected_failure_inside_attempt_shows_the_same_sentence(monkeypatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(dpviz.ui.cached, "lens_view", broken)
    at = open_with("lens")
    assert not at.exception, at.exception
    assert errors(at) == [dpviz.ui.widgets.INTERNAL_ERROR]


@pytest.mark.parametrize("page, source, uploader", [("gmm", ("gmm_source", "csv"), "gmm_upload"),
                                                    ("sbm", ("sbm_source", "upload"),
                                                     "sbm_upload")])
def test_an_upload_too_long_for_a_page_is_refused_before_parsing(page, source, uploader,
                                                                 monkeypatch):
    """A million-row file: refused on its line count; the parser is never called."""
    def parsed(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was parsed")

    monkeypatch.setattr(dpviz.data, "read_csv", parsed)
    monkeypatch.setattr(dpviz.data, "read_edges", parsed)  # the scenario loader's parser
    at = open_with(page)
    control = at.selectbox(key=source[0]) if page == "gmm" else at.radio(key=source[0])
    control.set_value(source[1]).run()
    rows = b"0,1\n" * 1_000_000
    at.file_uploader(key=uploader).set_value(("big.csv", rows, "text/csv")).run()
    sentence = assert_sentence(at, "more than 200,000 rows, outside a page's public data "
                               "domain", "a limit the same for every dataset, stated in advance")
    assert "1,000,000" not in sentence  # the count is private: the sentence names the cap
