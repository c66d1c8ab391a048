"""The estimators, their results and accuracy metrics, and the registry that lists them.

Builds on :mod:`dpviz.privacy` and :mod:`dpviz.data`; never imports the lab, viz or ui layers.
"""
