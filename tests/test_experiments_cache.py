"""The SBM curves' sweep cache stays bounded (dpviz.lab.experiments.cache.bound_cache)."""

from __future__ import annotations

import os

from dpviz.core import limits
from dpviz.lab.experiments import sbm_curves
from dpviz.lab.experiments.cache import bound_cache


def _files(folder, sizes):
    for i, size in enumerate(sizes):
        path = folder / f"{i}.jsonl"
        path.write_bytes(b"x" * size)
        os.utime(path, (100 + i, 100 + i))


def test_bound_cache_evicts_the_oldest_by_count_and_by_size(tmp_path):
    _files(tmp_path, [10, 10, 10, 10])
    (tmp_path / "notes.txt").write_text("not a sweep file")
    assert [p.name for p in bound_cache(tmp_path, files=3, size=1e9)] == ["0.jsonl"]
    assert [p.name for p in bound_cache(tmp_path, files=3, size=15)] == ["1.jsonl", "2.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3.jsonl", "notes.txt"]


def test_bound_cache_keeps_the_file_just_used(tmp_path):
    _files(tmp_path, [10, 10, 10])
    removed = bound_cache(tmp_path, files=2, size=1e9, keep=tmp_path / "0.jsonl")
    assert [p.name for p in removed] == ["1.jsonl"]


def test_live_curves_keep_a_bounded_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(limits, "CURVE_CACHE_FILES", 2)
    for n in (40, 50, 60):  # three graphs a visitor draws: three sweep files
        sbm_curves.error_curve(["spectral"], n=n, degree=10.0, signal=0.8, epsilons=[1.0],
                               delta=0.0, seeds=1)
    folder = tmp_path / sbm_curves.CURVES
    kept = sorted(folder.glob("*.jsonl"))
    last = sbm_curves.curve_spec(["spectral"], n=60, degree=10.0, signal=0.8, delta=0.0,
                                 grid={"epsilon": [1.0]}, seeds=1).digest()
    assert len(kept) == 2 and folder / f"{last}.jsonl" in kept
    assert not list(tmp_path.glob("*.jsonl"))  # the shared folder is left alone
