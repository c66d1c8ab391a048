"""The stakeholder report: one self-contained HTML page of a scenario, from plain values.

What a manager reads (issue 35): the picture, the ε set, the risk in words and frequencies
with its icon array and level, the accuracy (with intervals where the page has them), and
the link that reopens the scenario. No Streamlit here: :mod:`dpviz.ui.panels.report` gathers the
values and offers the file. On the user's own data the picture and the tables that compare
with the exact answer are labelled :data:`WITHOUT_PRIVACY` (a public data set's truth is not a
secret), and the sentences that qualify the headline (a seeded run of one's own data is not a
private release) sit directly under it, as an overspend does. Every string is escaped
(:func:`html.escape`); only the two pictures are markup, drawn by dpviz itself (the icon array)
or by Plotly's SVG export, which writes every text as escaped XML.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from dpviz.privacy.risk import PlainRisk

STYLE = """
body { font-family: Inter, 'Helvetica Neue', Arial, sans-serif; color: #1a1a1a;
       max-width: 46rem; margin: 1.5rem auto; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
.epsilon { font-size: 2rem; font-weight: 700; color: #e8590c; margin: 0.6rem 0 0.2rem; }
.warning { border-left: 4px solid #e8590c; padding: 0.3rem 0.7rem; background: #fff4e6; }
.frequency { display: flex; gap: 1.2rem; align-items: center; }
.picture svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 0.4rem 0 0.8rem; font-size: 0.9rem; }
th, td { border: 1px solid #dee2e6; padding: 0.2rem 0.5rem; text-align: left; }
.small { color: #555; font-size: 0.85rem; }
.unprotected { font-weight: 700; color: #c92a2a; }
@media print { body { margin: 0; max-width: none; } }
"""


#: The label of what the report shows of the user's data without noise: the raw rows, the
#: exact answers, distances to them.
WITHOUT_PRIVACY = "Computed from your data without privacy — not covered by ε."


@dataclass(frozen=True)
class Table:
    """A table of the report: a caption, column names and rows of cell texts.

    ``without_privacy``: computed from the user's rows without noise (a distance to the exact
    answer), so labelled :data:`WITHOUT_PRIVACY`.
    """

    caption: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    without_privacy: bool = False


def _text(value: str) -> str:
    return html.escape(value, quote=True)


def _table(table: Table) -> str:
    head = "".join(f"<th>{_text(c)}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{_text(str(v))}</td>" for v in row) + "</tr>"
                   for row in table.rows)
    label = (f'<br><span class="unprotected">{_text(WITHOUT_PRIVACY)}</span>'
             if table.without_privacy else "")
    return (f"<table><caption>{_text(table.caption)}{label}</caption>"
            f"<thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def report_html(*, title: str, plain: PlainRisk, icons: str, link: str,
                picture: str | None = None, tables: Sequence[Table] = (),
                notes: Sequence[str] = (), made: str = "", warnings: Sequence[str] = (),
                picture_without_privacy: bool = False) -> str:
    """The report as one HTML document (no external file, script or font).

    Parameters
    ----------
    title : str
        The page's title (escaped).
    plain : PlainRisk
        The risk panel's summary: the ε set, the odds, the frequency, the level.
    icons : str
        The icon array's ``<svg>`` (:func:`dpviz.viz.risk.icon_array`).
    link : str
        The address that reopens the scenario (escaped, also in the ``href``).
    picture : str, optional
        The page's main figure as ``<svg>`` markup from Plotly's export.
    tables : sequence of Table
        The accuracy: the page's error table, its intervals (every cell escaped).
    notes : sequence of str
        Sentences under the tables (escaped).
    made : str
        When and by what the report was made (escaped).
    warnings : sequence of str
        Sentences that qualify the headline (escaped), printed directly under it as an
        overspend is: a seeded run of the user's own data is not a private release.
    picture_without_privacy : bool
        The picture shows the user's rows or exact answers: labelled :data:`WITHOUT_PRIVACY`.

    Returns
    -------
    str
        The document.

    Examples
    --------
    >>> from dpviz.privacy.risk import REPLACE_ONE
    >>> page = report_html(title="<b>x</b>", plain=PlainRisk(1.0, 1.0, 0.0, 3, REPLACE_ONE),
    ...                    icons="<svg></svg>", link="https://example.org/gmm?a=1&b=2")
    >>> "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x" not in page, "a=1&amp;b=2" in page
    (True, True)
    """
    said = [*warnings, *([plain.overspent] if plain.overspent else [])]
    overspent = "".join(f'<p class="warning">{_text(w)}</p>' for w in said)
    label = (f'<p class="unprotected">{_text(WITHOUT_PRIVACY)}</p>'
             if picture and picture_without_privacy else "")
    shown = f'{label}<div class="picture">{picture}</div>' if picture else ""
    accuracy = "".join(_table(t) for t in tables)
    accuracy += "".join(f'<p class="small">{_text(n)}</p>' for n in notes)
    if accuracy:
        accuracy = f"<h2>Accuracy</h2>{accuracy}"
    address = _text(link)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_text(title)} — privacy report</title><style>{STYLE}</style></head><body>"
        f"<h1>{_text(title)}</h1>{shown}"
        f'<p class="epsilon">Privacy budget: {_text(plain.headline())}</p>{overspent}'
        f"<p>{_text(plain.odds())}</p>"
        f'<div class="frequency"><div>{icons}</div><div><p><strong>In frequencies:</strong> '
        f"{_text(plain.frequency())}</p><p>{_text(plain.level_sentence())}</p></div></div>"
        f"{accuracy}"
        f'<p>Reopen this scenario: <a href="{address}">{address}</a></p>'
        f'<p class="small">{_text(made)}</p></body></html>')
