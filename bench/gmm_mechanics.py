"""Issue 21 item 3: precomputed mechanics (no noise) for the estimators too big to run on a page.

PPE's chunks agree only from about n = 100 000 even without noise, which the page's work budget
does not run live. This runs each such estimator's mechanics — the default /gmm scenario
(generated mixture, d = 2, k = 3, 6σ, data seed 0) at ε = ∞ on :data:`SAVED` rows — and saves
its answer and its diagnostics to ``assets/results/mechanics_<estimator>.json``; the page's
"Mechanics only — not private" panel offers it as precomputed
(:func:`dpviz.ui.pages.gmm_runs.saved_mechanics`). ``nice -n 10 python bench/gmm_mechanics.py``.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpviz.estimators.result import to_json_value  # noqa: E402
from dpviz.lab.provenance import stamp  # noqa: E402
from dpviz.lab.scenario import Scenario, run_scenario  # noqa: E402
from dpviz.ui.pages.gmm_runs import mechanics_path, mechanics_scenario  # noqa: E402

#: estimator → the rows its saved mechanics run on.
SAVED = {"ppe": 100_000}


def main() -> None:
    for name, rows in SAVED.items():
        page = Scenario.from_dict({
            "task": "gmm", "estimator": name,
            "data": {"generator": "gmm", "n": 10_000, "d": 2, "k": 3, "separation": 6.0,
                     "seed": 0},
            "params": {"k": 3, "epsilon": 1.0, "delta": 1e-5}, "seed": 0})
        plain = mechanics_scenario(page, rows)
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run_scenario(plain)
        seconds = time.perf_counter() - started
        mechanics_path(name).write_text(json.dumps({
            "scenario": to_json_value(plain.to_dict()), "seconds": round(seconds, 2),
            "failed": result.failed, "estimate": to_json_value(dict(result.estimate)),
            "diagnostics": to_json_value(dict(result.diagnostics)),
            "made_by": stamp("python bench/gmm_mechanics.py", "gmm")},
            ensure_ascii=False) + "\n")
        print(f"{name}: n = {rows:,}, {seconds:.1f} s, "
              f"{'⊥: ' + result.failed if result.failed else 'succeeded'}")


if __name__ == "__main__":
    main()
