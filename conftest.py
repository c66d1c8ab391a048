"""Root pytest configuration: files pytest must never import.

Importing ``dpviz/__main__.py`` runs the command line; importing ``app.py`` or a page runs it.
"""

collect_ignore = ["dpviz/__main__.py", "app.py"]
collect_ignore_glob = ["pages/*", "bench/*", ".venv/*"]
