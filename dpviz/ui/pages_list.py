"""The one list of the pages, read by the navigation, Home's paths, /live's steps and the warm-up.

dpviz runs in Streamlit's pages-directory mode: ``app.py`` is Home and every file of ``pages/``
is a page (``tests/test_pages_list.py`` holds the list and the folder equal). No Streamlit
here: plain data, read by :mod:`dpviz.ui.shell`, :mod:`dpviz.ui.pages.home`,
:mod:`dpviz.ui.pages.live` and :mod:`dpviz.ui.warm`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    """One page of the app.

    Attributes
    ----------
    script : str
        Its file, relative to the repository (``app.py``, ``pages/gmm.py``).
    title : str
        Its name in the navigation, in /live's steps and in its loading note.
    icon : str
        Its navigation icon (a Material Symbol).
    section : str
        The navigation group it is listed under.
    step : bool
        Whether it is a step of a live class (its step is its file's name,
        :data:`dpviz.lab.classroom.STEPS`).
    warm : tuple of str
        The modules its body and panels import, which the warm-up imports in the background
        before a first visit (:mod:`dpviz.ui.warm`).
    """

    script: str
    title: str
    icon: str
    section: str
    step: bool = False
    warm: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The file's name without ``.py`` (``gmm``; Home's is ``app``).

        Examples
        --------
        >>> PAGES[0].name, page("pages/sbm.py").name
        ('app', 'sbm')
        """
        return self.script.removeprefix("pages/").removesuffix(".py")


_PANELS = tuple(f"dpviz.ui.panels.{name}"
                for name in ("audit", "card", "solve", "risk", "winner", "upload"))
_GMM = tuple(f"dpviz.ui.pages.{name}"
             for name in ("gmm", "gmm_runs", "gmm_intervals", "gmm_paper", "gmm_compare"))

#: Every page, in the navigation's order.
PAGES: tuple[Page, ...] = (
    Page("app.py", "Home", ":material/home:", "Start"),
    Page("pages/live.py", "Live class", ":material/groups:", "Start"),
    Page("pages/budget.py", "Privacy budget", ":material/account_balance_wallet:", "Privacy",
         step=True, warm=("dpviz.ui.pages.budget",)),
    Page("pages/lens.py", "Privacy lens", ":material/visibility:", "Privacy", step=True,
         warm=("dpviz.ui.pages.lens",)),
    Page("pages/glossary.py", "Glossary", ":material/dictionary:", "Privacy",
         warm=("dpviz.ui.pages.glossary",)),
    Page("pages/gmm.py", "Gaussian mixtures", ":material/bubble_chart:", "Estimators",
         step=True, warm=(*_GMM, *_PANELS)),
    Page("pages/exposure.py", "Privacy exposure", ":material/person_search:", "Estimators",
         warm=("dpviz.ui.pages.exposure",)),
    Page("pages/factors.py", "Factor analysis", ":material/grid_view:", "Estimators",
         warm=("dpviz.ui.pages.factors",)),
    Page("pages/covariance.py", "Covariance", ":material/grid_on:", "Estimators", step=True,
         warm=("dpviz.ui.pages.covariance", "dpviz.ui.pages.covariance_results",
               "dpviz.ui.pages.covariance_paper", *_PANELS)),
    Page("pages/sbm.py", "Stochastic block model", ":material/hub:", "Estimators", step=True,
         warm=("dpviz.ui.pages.sbm", "dpviz.ui.pages.sbm_results",
               "dpviz.ui.pages.sbm_curves", *_PANELS)),
    Page("pages/explorer.py", "Trade-off explorer", ":material/query_stats:", "Research",
         warm=("dpviz.ui.pages.explorer",)),
    Page("pages/papers.py", "Papers", ":material/menu_book:", "Research",
         warm=("dpviz.ui.pages.papers",)),
)


def page(script: str) -> Page:
    """The page whose file is ``script``.

    Raises
    ------
    ValueError
        ``script`` is not a page's file.

    Examples
    --------
    >>> page("pages/lens.py").title
    'Privacy lens'
    >>> page("pages/nope.py")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: pages/nope.py is not a page: one of app.py, pages/live.py, ..., pages/papers.py
    """
    for found in PAGES:
        if found.script == script:
            return found
    raise ValueError(f"{script} is not a page: one of {', '.join(p.script for p in PAGES)}")


def sections() -> tuple[tuple[str, tuple[Page, ...]], ...]:
    """The navigation's groups, in order: (section, its pages).

    Examples
    --------
    >>> [(name, len(pages)) for name, pages in sections()]
    [('Start', 2), ('Privacy', 3), ('Estimators', 5), ('Research', 2)]
    """
    names = dict.fromkeys(p.section for p in PAGES)
    return tuple((name, tuple(p for p in PAGES if p.section == name)) for name in names)
