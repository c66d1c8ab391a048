"""Issue 29 item 4: from what n the mixture estimators that refuse at /gmm's defaults succeed.

For each shape of :data:`SHAPES` — the /gmm page's generated mixture (d = 2, k = 3, separation
6σ, equal weights, spherical, δ = 10⁻⁵, zCDP) at the ε values near its default 1 at which the
estimator refuses n = 10 000 — :func:`dpviz.lab.success.succeeds_from` finds the smallest n at
which at least 90% of 20 simulated runs a point succeed (seed 0), from where the preconditions
hold. Then :func:`dpviz.lab.success.held_out` runs 10 fresh runs (seed from OS entropy,
recorded) at that n. A search already kept on disk is read, not run again. Each finished shape
is merged into ``assets/results/succeeds_from.json`` at once (a lock keeps two processes
apart), with the provenance stamp, the seconds of its search and the held-out count.
``nice -n 10 python bench/succeeds_from.py [--only sample_aggregate:1 ...]``.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpviz.lab.claims import seeds  # noqa: E402
from dpviz.lab.provenance import stamp  # noqa: E402
from dpviz.lab.success import SAVED, Shape, held_out, read_saved, search_kept  # noqa: E402

COMMAND = "python bench/succeeds_from.py"
#: At n = 10 000 FriendlyCore refuses from ε = 1 down, sample-and-aggregate from 2, private PCA
#: + clustering from 0.25 (PPE and the stability test refuse at every n there: no n to find).
SHAPES = (Shape("friendly_core", 1.0), Shape("friendly_core", 0.5),
          Shape("sample_aggregate", 2.0), Shape("sample_aggregate", 1.0),
          Shape("sample_aggregate", 0.5), Shape("private_pca_clustering", 0.25))


def measure(shape: Shape) -> dict[str, Any]:
    """One shape's saved row: the search (kept on disk) and the held-out check at its n."""
    def progress(done: int, total: int) -> None:
        if done % 20 == 0:
            print(f"  {shape.estimator} ε = {shape.epsilon:g}: {done} of ≤ {total} runs "
                  f"({time.strftime('%H:%M:%S')})", file=sys.stderr, flush=True)

    found = search_kept(shape, progress=progress)
    row: dict[str, Any] = {"key": shape.key(found.runs, found.probability),
                           "found": found.to_dict(), "held_out": None}
    if found.n is not None:
        row["held_out"] = asdict(held_out(shape, found.n, seed=seeds(True, 1)[0]))
    return row


def merge(row: dict[str, Any], path: Path = SAVED) -> None:
    """Put ``row`` in the saved table (replacing its key's), stamped now."""
    folder = os.open(path.parent, os.O_RDONLY)  # the lock: the folder, held till closed
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        rows = [r for r in read_saved(path)["rows"] if r["key"] != row["key"]] + [row]
        order = {shape.key(): i for i, shape in enumerate(SHAPES)}
        rows.sort(key=lambda r: order.get(r["key"], len(order)))
        path.write_text(json.dumps({"made_by": stamp(COMMAND, "gmm"), "rows": rows},
                                   indent=1, ensure_ascii=False) + "\n")
    finally:
        os.close(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], metavar="ESTIMATOR:EPSILON",
                        help="only these shapes, in this order, e.g. friendly_core:1")
    args = parser.parse_args()
    named = {f"{s.estimator}:{s.epsilon:g}": s for s in SHAPES}
    chosen = [named[name] for name in args.only] if args.only else list(SHAPES)
    for shape in chosen:
        row = measure(shape)
        merge(row)
        found, check = row["found"], row["held_out"]
        print(f"{shape.estimator} ε = {shape.epsilon:g}: preconditions from "
              f"{found['start']:,}, succeeds from {found['n']} ({found['seconds']:.0f} s); "
              f"held out {check and check['successes']}/{check and check['runs']} "
              f"({check and round(check['seconds'])} s)", flush=True)


if __name__ == "__main__":
    main()
