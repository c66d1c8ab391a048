"""The Papers page: one figure per seed paper, the claim, a verdict with numbers."""

from __future__ import annotations

from .app_helpers import charts, open_page


def test_papers_page_draws_every_paper_with_a_verdict():
    at = open_page("papers")
    assert not at.exception
    assert not at.error
    tabs = [t.label for t in at.tabs]
    assert tabs == ["DP-EM (Park et al. 2017)", "Covariance (Dong et al. 2022)",
                    "Block models (Chen et al. 2023)",
                    "Sample sizes (Kamath et al. 2019; Arbas 2023)"]
    drawn = charts(at)
    assert {"gmm_paper", "cov_paper", "papers_chen"} <= set(drawn)
    chen = drawn["papers_chen"]
    names = {t.get("name") for t in chen["data"] if t.get("name")}
    assert {"Weak recovery (stable projection + Gaussian noise)"} & names or len(names) >= 3
    verdicts = [m.value for m in at.markdown if m.value.startswith("**Verdict")]
    assert len(verdicts) >= 4
    assert any("private weak recovery's median error rate" in v for v in verdicts)
    assert any("t = 584 chunks" in v for v in verdicts)


def test_papers_page_links_from_the_navigation():
    at = open_page("papers")
    links = [link.proto.page for link in at.get("page_link")]
    assert "papers" in links and "explorer" in links
