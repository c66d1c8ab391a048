"""A link's ``presenter=true|false`` sets presenter mode, even when followed inside the app."""

from __future__ import annotations

from .app_helpers import open_page


def presenter(at) -> bool:
    return bool(at.sidebar.toggle(key="presenter").value)


def test_an_in_app_link_turns_presenter_mode_on_and_the_toggle_still_decides():
    at = open_page()  # Home: the session's toggle is off
    assert presenter(at) is False
    at.query_params["presenter"] = "true"  # a link to the budget page, followed in the app
    at.switch_page("pages/budget.py").run()
    assert not at.exception
    assert presenter(at) is True
    assert at.query_params.get("presenter") == "true"
    # the lecturer turns it off on the page the link opened (the URL still says true: the
    # browser, not the server, rewrites it on a click), then on again
    at.sidebar.toggle(key="presenter").set_value(False).run()
    assert presenter(at) is False
    at.run()
    assert presenter(at) is False
    at.sidebar.toggle(key="presenter").set_value(True).run()
    assert presenter(at) is True


def test_an_in_app_link_turns_presenter_mode_off_and_one_without_it_keeps_it():
    at = open_page()
    at.sidebar.toggle(key="presenter").set_value(True).run()
    at.query_params.clear()  # a link without presenter: the mode stays as it is
    at.switch_page("pages/glossary.py").run()
    assert not at.exception
    assert presenter(at) is True
    at.query_params["presenter"] = "false"
    at.switch_page("app.py").run()
    assert not at.exception
    assert presenter(at) is False
