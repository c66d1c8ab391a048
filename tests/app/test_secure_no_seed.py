"""Secure mode shows no seed anywhere, and its noise comes from OpenDP (issue 23, items 5–6).

Every page is opened with secure randomness on while the sidebar's OS entropy is pinned to a
known 128-bit value; no rendered element — text, help tooltips, links, figure specs — may
contain that value (in decimal or hex), and no element but a figure's data (the PPE sample
sizes reach 10¹⁹) any number of 20 digits or more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dpviz.privacy import discrete_noise
from dpviz.ui import pages_list, shell

from .app_helpers import errors, open_page

#: The session's entropy while the tests run (what ``secrets.randbits(128)`` returns).
ENTROPY = 0xC0FFEE_5EC12E7_0DDBA11_DECAF_0B5E5  # 120 bits
LONG_NUMBER = re.compile(r"\d{20,}")
#: Streamlit's own hex ids, never drawn from the session's entropy: a page link's target (a
#: hash of the page's URL path: the Live class page's, of "live", holds 21 digits in a row)
#: and a download button's file id (random hex: one held 21 digits in a row in CI-like runs).
PAGE_HASH = re.compile(r'(page_script_hash|deferred_file_id): "[0-9a-f]+"')
PAGES = [page.name for page in pages_list.PAGES if page.script.startswith("pages/")]


def rendered(node: Any) -> Iterator[tuple[str, str]]:
    """``(type, protobuf text)`` of every element under ``node`` (labels, help, specs…)."""
    proto = getattr(node, "proto", None)
    if proto is not None:
        yield getattr(node, "type", ""), str(proto)
    children = getattr(node, "children", None) or {}
    for child in children.values():
        yield from rendered(child)


@pytest.fixture
def pinned_entropy(monkeypatch):
    monkeypatch.setattr(shell.secrets, "randbits", lambda bits: ENTROPY)
    return ENTROPY


#: Smaller sizes where a page's default takes seconds in secure mode (the SBM page's
#: n(n − 1)/2 OpenDP draws, said on the page; ``make bench`` times the default).
FASTER = {"sbm": {"sbm_n": 200}}
#: Closed sections opened too: where a run's choices or the noise-reuse lesson could name one.
OPENED = {"gmm": ("gmm_choices_open",), "covariance": ("cov_choices_open",),
          "sbm": ("sbm_choices_open",), "lens": ("lens_reuse_open",)}


def secure_page(page: str) -> AppTest:
    at = open_page(page)
    for key, value in FASTER.get(page, {}).items():
        at.number_input(key=key).set_value(value)
    for key in OPENED.get(page, ()):
        at.session_state[key] = True
    at.toggle(key="secure").set_value(True).run()
    assert not at.exception, at.exception
    assert not errors(at), errors(at)
    return at


@pytest.mark.parametrize("page", PAGES)
def test_no_rendered_page_contains_the_seed_in_secure_mode(pinned_entropy, page):
    at = secure_page(page)
    elements = list(rendered(at._tree))
    text = "\n".join(proto for _, proto in elements)
    assert text, "nothing rendered"
    for shown in (str(pinned_entropy), f"{pinned_entropy:x}", f"{pinned_entropy:X}"):
        assert shown not in text, f"{page} shows the secure entropy"
    for kind, proto in elements:
        if kind != "plotly_chart":
            assert not LONG_NUMBER.findall(PAGE_HASH.sub("", proto)), (
                f"{page} shows a long number in a {kind}")


def test_the_check_would_see_a_seed_if_one_were_shown(pinned_entropy):
    """In teaching mode the lens's tooltip names its seed: the walker does read tooltips."""
    at = open_page("lens")
    at.number_input(key="seed").set_value(4242).run()
    assert any("seed 4242" in proto for _, proto in rendered(at._tree))


def test_a_secure_page_draws_its_noise_with_the_discrete_sampler(monkeypatch):
    calls: list[str] = []
    original = discrete_noise.add_discrete_noise

    def spied(mechanism, values, scale):
        calls.append(mechanism)
        return original(mechanism, values, scale)

    monkeypatch.setattr(discrete_noise, "add_discrete_noise", spied)
    at = open_page("gmm")
    assert not calls  # teaching randomness: numpy's seeded draws
    at.toggle(key="secure").set_value(True).run()
    assert not at.exception and not errors(at)
    assert calls and set(calls) <= {"laplace", "gaussian"}


def test_the_sbm_page_runs_secure_at_its_default_size():
    """n = 1 000: 499 500 discrete Gaussian entries, about 0.1 s (issue 33; OpenDP's sampler
    made the page refuse it)."""
    at = open_page("sbm")
    at.toggle(key="secure").set_value(True).run()
    assert not at.exception and not errors(at)
