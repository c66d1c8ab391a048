"""The audit panel on an estimator page, and the broken-variant gallery's tab on the lens page."""

from __future__ import annotations

import pytest

from dpviz.lab.broken_variants import BROKEN_VARIANTS
from dpviz.ui.pages.home import USES
from dpviz.ui.panels.audit import GALLERY_TAB

from .app_helpers import charts, errors, open_page, open_section


@pytest.mark.slow  # an SBM audit: 4 s (make test, not make check)
def test_the_audit_button_on_the_sbm_page_shows_a_verdict():
    at = open_page("sbm")
    assert not at.exception
    assert "sbm_audit" not in [b.key for b in at.button]  # a closed section runs nothing
    open_section(at, "sbm_audit_open")
    assert "sbm_audit_chart" not in charts(at)
    at.button(key="sbm_audit").click().run()
    assert not at.exception, at.exception
    verdicts = [s.value for s in at.success if "Measured ε ≥" in s.value]
    assert len(verdicts) == 1 and "consistent with the claim" in verdicts[0]
    shown = charts(at)
    assert {"sbm_audit_chart", "sbm_audit_histograms"} <= set(shown)
    assert not errors(at)
    # a rerun shows the kept answer without a new click
    at.run()
    assert "sbm_audit_chart" in charts(at)


def test_the_gallery_lists_every_variant_and_its_mistake_before_run():
    """Home's step 5 has the lecturer read the mistakes out first; Run adds the verdicts."""
    at = open_page("lens")
    at.query_params["lens_tab"] = GALLERY_TAB
    at.run()
    listed = [m.value for m in at.markdown if "The mistake:" in m.value]
    assert listed == [f"**{v.label}**. The mistake: {v.flaw}." for v in BROKEN_VARIANTS.values()]
    assert "lens_gallery_chart" not in charts(at)
    assert not at.error and not at.warning


@pytest.mark.slow
@pytest.mark.parametrize("method, caught", [("black-box", 4), ("white-box", 3)])
def test_the_gallery_tab_on_the_lens_page_says_which_variants_it_caught(method, caught):
    """Caught means a measured bound above the claim: the black-box audit (the default) catches
    all four; the white-box audit finds the reused noise but measures nothing there."""
    at = open_page("lens")
    at.query_params["lens_tab"] = GALLERY_TAB  # the link from Home
    at.run()
    assert "lens_densities" not in charts(at)  # only the open tab runs
    assert at.segmented_control(key="lens_gallery_method").value == "black-box"
    at.segmented_control(key="lens_gallery_method").set_value(method).run()
    at.button(key="lens_gallery").click().run()
    assert not at.exception, at.exception
    said = [e.value for e in at.error if "privacy violation caught" in e.value.lower()]
    assert len(said) == caught
    missed = [w.value for w in at.warning if "not caught at these settings" in w.value]
    assert len(missed) == 4 - caught
    if missed:
        assert "the black-box audit measures it" in missed[0]
    assert "lens_gallery_chart" in charts(at)
    assert sum("broken on purpose" in m.value for m in at.markdown) >= 1


@pytest.mark.slow  # two audits: 4 s (make test, not make check)
def test_a_claim_above_what_the_runs_show_is_not_caught_until_more_runs():
    at = open_page("lens")
    at.query_params.update({"lens_tab": GALLERY_TAB, "gallery_epsilon": "6"})
    at.run()
    at.button(key="lens_gallery").click().run()
    assert not at.exception, at.exception
    missed = [w.value for w in at.warning if "not caught at these settings" in w.value]
    assert len(missed) == 4 and all("10,000 runs" in m for m in missed)
    at.select_slider(key="lens_gallery_runs").set_value(10_000).run()
    at.button(key="lens_gallery").click().run()
    assert len([e for e in at.error if "privacy violation caught" in e.value.lower()]) == 4


def test_home_links_to_the_gallery_tab():
    links = [e for use in USES for e in use.entries if dict(e.params).get("lens_tab")]
    assert [dict(e.params)["lens_tab"] for e in links] == [GALLERY_TAB]


def test_the_audit_panel_says_what_each_audit_can_show_before_running():
    at = open_page("gmm")
    open_section(at, "gmm_audit_open")
    assert not at.exception, at.exception
    said = [m.value for m in at.markdown if "A perfect test typically shows" in m.value]
    assert len(said) == 1 and "draws of its" in said[0]
    # DP-EM at ε = 1: 1 000 black-box runs can show about 0.02; the page says what that proves
    weak = [w.value for w in at.warning if "so passing it proves little" in w.value]
    assert len(weak) == 1 and "against a claim of 1.00" in weak[0]
    assert "white-box audit can show about" in weak[0]
    assert {"gmm_audit", "gmm_audit_black"} <= {b.key for b in at.button}
    assert "gmm_audit_chart" not in charts(at)  # nothing ran yet


def test_a_non_private_estimator_says_there_is_nothing_to_audit():
    at = open_page("gmm")
    at.selectbox(key="gmm_estimator").set_value("em")
    open_section(at, "gmm_audit_open")
    assert not at.exception, at.exception
    assert any("no claim to audit" in i.value for i in at.info)


def test_a_rho_budget_is_audited_as_the_page_states_it():
    """/covariance's default budget is ρ (δ = 0): the audit states it at the page's δ."""
    at = open_page("covariance")
    open_section(at, "cov_audit_open")
    assert not at.exception, at.exception
    said = [m.value for m in at.markdown if "A perfect test typically shows" in m.value]
    assert len(said) == 1 and "δ = 1e-10" in said[0]
    assert not errors(at)
