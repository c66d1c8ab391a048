"""Glossary: every term the pages use, in plain words and as a formula."""

from dpviz import ui
from dpviz.ui.pages import glossary

ui.page("Glossary")
glossary.show()
