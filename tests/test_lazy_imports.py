"""Lazy packages (issue 22, cold start): every public name resolves, and the first page's engine
path does not import what only other pages need."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAZY = ("dpviz.privacy", "dpviz.viz", "dpviz.data", "dpviz.lab.experiments", "dpviz.ui")


@pytest.mark.parametrize("package", LAZY)
def test_every_public_name_resolves(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        module.not_a_name  # noqa: B018


def test_audit_is_the_function_after_its_module_is_imported():
    importlib.import_module("dpviz.privacy.audit")  # binds the package's "audit" to it…
    from dpviz.privacy import audit  # …unless the package rebinds the function

    assert callable(audit) and audit.__module__ == "dpviz.privacy.audit"


def test_a_mean_through_the_engine_loads_no_heavy_module():
    """Home's picture is a Laplace count through dpviz.run: no scikit-learn, networkx, pandas,
    scipy.stats, scipy.optimize or scipy.special (seconds of a fresh server's first page), and
    no OpenDP, as its noise is seeded (teaching randomness draws from numpy)."""
    code = ("import sys, numpy as np, dpviz\n"
            "dpviz.run('mean', 'laplace', np.zeros((8, 1)), epsilon=1.0, seed=0, radius=1.0)\n"
            "import dpviz.lab.lens, dpviz.viz.lens, dpviz.estimators.registry\n"
            "heavy = ('sklearn', 'networkx', 'pandas', 'scipy.stats', 'scipy.optimize',\n"
            "         'scipy.special', 'opendp')\n"
            "print(' '.join(sorted(h for h in heavy if h in sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == ""
