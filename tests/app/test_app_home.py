"""Home: the picture, the three sentences, the three ways in, the shared sidebar."""

from __future__ import annotations

from dpviz.ui.pages.home import DEMO

from .app_helpers import charts, values


def test_home_runs_with_picture_and_entries(home):
    assert not home.exception
    assert home.title[0].value.startswith("dpviz")
    figures = charts(home)
    assert list(figures) == ["home_densities"]
    names = [trace["name"] for trace in figures["home_densities"]["data"]]
    assert names[:2] == ["output density on D", "output density on D′"]
    assert len(home.markdown) >= 3
    # three uses, each with links, plus the sidebar's navigation
    links = home.get("page_link")
    targets = {link.proto.page for link in links}
    assert any("budget" in t for t in targets) and any("lens" in t for t in targets)
    assert len(links) >= 3 + 7
    assert "coming soon" not in " ".join(m.value.lower() for m in home.markdown)


def test_sidebar_has_seed_presenter_and_caption(home):
    seed = home.sidebar.number_input(key="seed")
    assert seed.value == 0
    assert home.sidebar.toggle(key="presenter").value is False
    assert any("not for real releases" in c.value for c in home.sidebar.caption)


def test_presenter_mode_changes_the_figure(home):
    before = charts(home)["home_densities"]["layout"]
    home.sidebar.toggle(key="presenter").set_value(True).run()
    assert not home.exception
    after = charts(home)["home_densities"]["layout"]
    assert "font" not in before
    assert after["font"]["size"] > before["template"]["layout"]["font"]["size"]
    # the chart fits one projector screen beside its controls (at most 440 px)
    assert after["height"] != before.get("height", 450) and after["height"] <= 440


def test_seed_moves_nothing_on_home_but_is_accepted(home):
    before = values(charts(home)["home_densities"]["data"][0]["y"])
    home.sidebar.number_input(key="seed").set_value(7).run()
    assert not home.exception
    assert (values(charts(home)["home_densities"]["data"][0]["y"]) == before).all()


def test_the_lesson_path_comes_first_numbered_timed_and_linked(home):
    """Issue 19, part 1: a numbered 50-minute lesson and a 10-minute demo, before anything."""
    from urllib.parse import parse_qsl

    from dpviz.ui.pages.home import DEMO, LESSON

    assert LESSON.minutes == 50 and DEMO.minutes == 10
    steps = [link for link in home.main.get("page_link")
             if link.proto.label[0].isdigit()]
    assert len(steps) == len(LESSON.steps) + len(DEMO.steps)
    first_link = home.main.get("page_link")[0]
    assert first_link.proto.label.startswith("1. ")  # the paths are the first thing shown
    for link, (number, step) in zip(
            steps, [*enumerate(LESSON.steps, 1), *enumerate(DEMO.steps, 1)], strict=True):
        assert link.proto.label == f"{number}. {step.entry.label} · {step.minutes} min"
        assert step.entry.page.removeprefix("pages/").removesuffix(".py") in link.proto.page
        assert dict(parse_qsl(link.proto.query_string)) == dict(step.entry.params)
    words = " ".join(m.value for m in home.main.get("markdown"))
    for path in (LESSON, DEMO):
        for step in path.steps:
            assert f"**Show:** {step.show}" in words
            assert f"**Ask {path.audience}:** {step.ask}" in words
            assert f"**What the answer teaches:** {step.teaches}" in words
    assert "_epsilon" not in words and "lens_" not in words  # plain words, no ids
    tabs = [t.label for t in home.tabs]
    assert tabs[:2] == ["A first class on differential privacy (50 min)",
                        "A ten-minute demo for stakeholders (10 min)"]
    # the three ways in are still there, after the paths
    assert any(h.value == "Three ways in" for h in home.subheader)


def test_the_demo_path_links_open_presenter_mode_and_home_has_no_button_for_it(home):
    """The demo's links carry presenter=true, which sets the toggle even inside the app."""
    assert home.sidebar.toggle(key="presenter").value is False
    assert not [b for b in home.button if b.key and b.key.startswith("home_presenter")]
    first = DEMO.steps[0].entry  # clicked on Home
    home.query_params.update(dict(first.params))
    home.switch_page(first.page).run()
    assert not home.exception
    assert home.sidebar.toggle(key="presenter").value is True


def test_a_page_says_it_is_loading_on_the_run_that_opens_it_only(home):
    """Issue 34: a first load showed a blank column; the browser hides the note once the run
    ends (tests/browser/test_first_load.py), and reruns draw none."""
    def notes(at):
        return [m.value for m in at.markdown if m.value.startswith("Loading the")]

    assert notes(home) == ["Loading the Home page…"]
    home.run()
    assert notes(home) == []
    home.switch_page("pages/budget.py").run()
    assert notes(home) == ["Loading the Privacy budget page…"]
