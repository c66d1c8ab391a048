"""``python -m dpviz``: the command line (see :mod:`dpviz.cli`)."""

import sys

from dpviz.cli import main

sys.exit(main())
