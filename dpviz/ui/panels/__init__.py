"""The panels several pages show: predict-then-reveal, risk, audit, card, solve, winner, upload.

They sit between the page bodies (:mod:`dpviz.ui.pages`, which may import them) and the shell
and widgets (:mod:`dpviz.ui`), and never import a page body (the ``ui-layers`` import contract).
"""
