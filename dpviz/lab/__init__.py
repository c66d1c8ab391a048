"""Services over the registry: scenarios, sweeps, the budget solver, audits, cards and lenses.

Builds on :mod:`dpviz.estimators`; the figures (:mod:`dpviz.viz`), the pages (:mod:`dpviz.ui`)
and the command line sit above it.
"""
