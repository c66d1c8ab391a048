"""The neighbouring relations a guarantee can protect: a code-free vocabulary.

A registry entry states its own (:attr:`dpviz.core.entry.Estimator.relation`);
:mod:`dpviz.privacy.risk` words what each hides.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Relation:
    """Which datasets count as neighbours: what one guarantee protects.

    Attributes
    ----------
    name : str
        In plain words (``"replace one row"``).
    sentence : str
        What it protects, in one sentence.
    opendp : str
        OpenDP's name of the dataset distance it bounds by 1.
    dp_accounting : str
        dp-accounting's ``NeighboringRelation`` member.
    member : str
        What an attacker wants to know, as a clause ("you are in the data").
    members : str
        What an attack finds ("the people in the data").
    unit : str
        What one neighbour changes, as a subject ("one person's data").
    absent, present : str
        Whom an attack may wrongly accuse, and whom it picks out, as counted in a frequency
        ("1 in 100 people who are not in the data", "N in 100 of those who are").
    """

    name: str
    sentence: str
    opendp: str
    dp_accounting: str
    member: str = "you are in the data"
    members: str = "the people in the data"
    unit: str = "one person's data"
    absent: str = "people who are not in the data"
    present: str = "of those who are"


REPLACE_ONE = Relation(
    "replace one row",
    "two datasets are neighbours when one person's row is replaced by anyone else's; the "
    "number of rows is public",
    "ChangeOneDistance", "REPLACE_ONE")
ADD_OR_REMOVE_ONE = Relation(
    "add or remove one row",
    "two datasets are neighbours when one person's row is added or removed; even whether "
    "someone took part is hidden",
    "SymmetricDistance", "ADD_OR_REMOVE_ONE")
ONE_EDGE = Relation(
    "add or remove one edge",
    "two graphs on the same public vertices are neighbours when one edge is added or removed "
    "(edge privacy, the add-or-remove relation on the list of edges): any single link is "
    "hidden, not everything about one vertex",
    "SymmetricDistance", "ADD_OR_REMOVE_ONE",
    "a given edge is in the graph", "the edges in the graph", "one edge",
    "pairs of vertices that are not linked", "of the edges that are there")
