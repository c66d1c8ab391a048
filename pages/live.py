"""Live class: a lecturer opens a class, students join and predict, the lecturer reveals."""

from dpviz import ui
from dpviz.ui.pages import live

ui.page("Live class")
live.show()
