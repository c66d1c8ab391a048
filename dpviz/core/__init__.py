"""Foundations every layer may use: resource limits, cost specifications, linear algebra.

Imports nothing else from dpviz; the privacy core and the data layer build on it.
"""
