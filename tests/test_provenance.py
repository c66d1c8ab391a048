"""Every saved result says what made it (issue 29 item 2): its command and registry version."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from dpviz.estimators.registry import version
from dpviz.lab import provenance
from dpviz.lab.provenance import FIELDS, MANIFEST, RESULTS, made_by, record, stale, stamp

ROOT = Path(__file__).resolve().parents[1]
SAVED = sorted(p for p in RESULTS.iterdir() if p != MANIFEST)


@pytest.mark.parametrize("path", SAVED, ids=[p.name for p in SAVED])
def test_every_saved_result_records_what_made_it(path: Path) -> None:
    made = made_by(path)
    assert made is not None, f"{path.name} records no command (its writer should call record)"
    assert set(FIELDS) <= set(made), f"{path.name}: {sorted(set(FIELDS) - set(made))} missing"
    words = shlex.split(made["command"])
    if words[0] == "make":
        assert re.search(rf"^{words[1]}:", (ROOT / "Makefile").read_text(), re.M), words
    else:
        assert words[:1] == ["python"], made["command"]
        script = words[1] if words[1] != "-m" else words[2].replace(".", "/") + ".py"
        assert (ROOT / script).exists() or (ROOT / script.replace(".py", "/__main__.py")
                                            ).exists(), made["command"]


def test_the_manifest_names_only_saved_files() -> None:
    names = set(json.loads(MANIFEST.read_text()))
    assert names <= {p.name for p in SAVED}, names - {p.name for p in SAVED}


def test_record_stamps_the_current_registry(tmp_path: Path) -> None:
    manifest = tmp_path / "made_by.json"
    (tmp_path / "t.csv").write_text("a\n1\n")
    record(tmp_path / "t.csv", "python bench/sbm.py --save", "sbm", manifest=manifest)
    made = made_by(tmp_path / "t.csv", manifest=manifest)
    assert made is not None and made["registry_version"] == version("sbm")
    assert stale(made, "sbm") is None
    assert "changed since" in str(stale({**made, "registry_version": "0" * 12}, "sbm"))
    assert stale({"registry_version": provenance.UNKNOWN}, "sbm") is not None


def test_a_json_result_carries_its_own_stamp(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"x": 1, "made_by": stamp("python bench/winner.py", "gmm")}))
    assert made_by(path, manifest=tmp_path / "none.json")["command"] == "python bench/winner.py"
