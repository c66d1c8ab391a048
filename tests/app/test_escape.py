"""escape_markdown: what users send shows as its characters in every message (issue 23, S3)."""

from __future__ import annotations

import pytest

from dpviz.ui import escape_markdown

JOINER = "\u2060"


@pytest.mark.parametrize("sentence", [
    "epsilon must be > 0 and <= 1000, got -1", "gmm_radius must be a number, got 'lots'",
    "Not private: bound read from the data.", "n = 3,000 vertices (d = 1000)"])
def test_ordinary_sentences_come_back_unchanged(sentence):
    assert escape_markdown(sentence) == sentence


@pytest.mark.parametrize("text, escaped", [
    ("![p](http://host/x.png)", f"!\\[p\\](http:{JOINER}//host/x.png)"),
    ("**bold** _it_ `code` ~~s~~ $x$ | t", "\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~s\\~\\~ "
                                            "\\$x\\$ \\| t"),
    ("# title", "\\# title"), ("> quote", "\\> quote"), ("- item", "\\- item"),
    ("12. item", "12\\. item"), ("<img src=x>", "\\<img src=x>"), ("&amp;", "\\&amp;"),
    (":red[x] :material/home:", f":{JOINER}red\\[x\\] :{JOINER}material/home:"),
    ("www.host.com a@host.com", f"www{JOINER}.host.com a@{JOINER}host.com"),
    ("a\n\n    b", "a b"),
])
def test_markdown_syntax_is_escaped(text, escaped):
    assert escape_markdown(text) == escaped


def test_any_value_is_accepted():
    assert escape_markdown(ValueError("x_")) == "x\\_" and escape_markdown(3) == "3"
