"""The one page list (issue 37, item 4): the folder, the navigation, /live's steps, the warm-up."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from dpviz.lab.classroom import STEPS
from dpviz.ui import pages_list, warm
from dpviz.ui.pages import home, live

ROOT = Path(__file__).resolve().parents[1]


def test_every_file_of_pages_is_in_the_list_and_every_listed_page_is_a_file():
    on_disk = {"app.py", *(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))}
    assert {p.script for p in pages_list.PAGES} == on_disk
    assert len({p.script for p in pages_list.PAGES}) == len(pages_list.PAGES)


def test_the_steps_of_a_live_class_are_the_pages_marked_as_steps():
    assert {p.name for p in pages_list.PAGES if p.step} == set(STEPS)
    assert tuple(live.STEP_PAGES) == STEPS


def test_the_warm_up_imports_modules_that_exist():
    assert warm.MODULES and all(importlib.util.find_spec(m) for m in warm.MODULES)


def test_homes_links_go_to_listed_pages_and_a_wrong_one_is_refused():
    entries = [s.entry for path in home.PATHS for s in path.steps]
    entries += [e for use in home.USES for e in use.entries]
    assert {e.page for e in entries} <= {p.script for p in pages_list.PAGES}
    with pytest.raises(ValueError, match="pages/nope.py is not a page"):
        home.Entry("pages/nope.py", "Nowhere", ":material/block:")
