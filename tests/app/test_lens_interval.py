"""The Privacy lens's one private mean carries its 90 % interval and what it covers (issue 32)."""

from __future__ import annotations

import re

from dpviz.lab.intervals import NO_INTERVAL

from .app_helpers import errors, open_page


def test_the_released_mean_has_its_interval_and_a_count_says_none():
    at = open_page("lens")
    assert not at.exception and not errors(at)
    line = next(c.value for c in at.caption if c.value.startswith("Released: "))
    assert re.match(r"^Released: -?\d+\.\d+ ± \d+\.\d+ \(90 %\)\. ", line)
    assert "clipped to the public bound" in line and "not the bias clipping adds" in line
    at.radio(key="lens_query").set_value("count").run()
    assert not at.exception and not errors(at)
    assert any(c.value.startswith(f"{NO_INTERVAL} (measured for the mean query only)")
               for c in at.caption)
