"""The page bodies: each module draws one page's own controls and figures.

A page's script (in ``pages/``, or ``app.py`` for Home) calls its body, which sits above the
shared panels (:mod:`dpviz.ui.panels`) and the shell and widgets (:mod:`dpviz.ui`). Nothing
below imports a page body (the ``ui-layers`` import contract); the warm-up
(:mod:`dpviz.ui.warm`) imports them in the background by name.
"""
