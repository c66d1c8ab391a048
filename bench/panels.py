"""The /gmm page's four slow panels end to end, as the page runs them (issue 22 item 3).

Each panel is timed in its own fresh process (a fresh server: nothing cached, no process or
browser warm but what the page itself starts) through Streamlit's AppTest, the way a user
reaches it: the page drawn at its defaults (DP-EM, n = 10 000, d = 2, k = 3, separation 6,
ε = 1, δ = 1e-5, zCDP), then the timed part — the section opened and its button clicked:

* ``gmm_panel_audit_seconds``: "Audit this estimator", then the white-box audit;
* ``gmm_panel_compare_seconds``: "Compare every estimator on this data and budget" (the
  preconditions), then "Compare" (5 repeats of each estimator that can succeed); a second
  compare, 6 repeats, in the same server is in the note;
* ``gmm_panel_solve_seconds``: "Solve for ε", then "Solve" (mean error ≤ 0.1 in 90% of 20
  runs);
* ``gmm_panel_card_seconds``: "Prepare card" at once after the page is drawn (the figure
  browser started by the panel has had no time to itself); the next card is in the note.

Target: under 5 s each, on 2 cores with one BLAS thread and nothing else running; the load
average is stored with each entry (the machine may be busy). Each entry also checks the
progress bar's honesty: the bar's predicted finish (elapsed + its time left) at about a
quarter and half of the way against the real finish, both counted from the same start
(``detail["eta"]``).

Usage alone: ``OPENBLAS_NUM_THREADS=1 python bench/panels.py [audit compare solve card]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PANEL_SECONDS = 5.0
PANELS = ("audit", "compare", "solve", "card")
#: Each panel: the section's open key (None: not in an expander) and its button's key.
KEYS = {"audit": ("gmm_audit_open", "gmm_audit"),
        "compare": ("gmm_compare_open", "gmm_compare_run"),
        "solve": ("gmm_solve_open", "gmm_solve_run"),
        "card": (None, "gmm_card_prepare")}


def _eta_check(steps: list[tuple[float, float, float | None]], finished: float
               ) -> dict[str, Any]:
    """The bar's predicted finish at about 25% and 50% of its steps against ``finished``.

    ``steps``: ``(elapsed, fraction done, seconds left or None)`` as the bar showed them.
    """
    out: dict[str, Any] = {"finished": round(finished, 2), "steps": len(steps)}
    for share in (0.25, 0.5):
        shown = [(e, f, left) for e, f, left in steps if left is not None and f >= share]
        if shown:
            elapsed, fraction, left = shown[0]
            out[f"at_{int(share * 100)}"] = {"elapsed": round(elapsed, 2),
                                              "done": round(fraction, 2),
                                              "predicted_finish": round(elapsed + left, 2)}
    return out


def one(panel: str) -> dict[str, Any]:
    """Time one panel in this (fresh) process; the figures as JSON-ready numbers."""
    os.environ.setdefault("DPVIZ_CACHE_DIR", tempfile.mkdtemp(prefix="dpviz-bench-"))
    sys.path.insert(0, str(ROOT))
    from streamlit.testing.v1 import AppTest

    from dpviz.lab.experiments import time_left
    from dpviz.ui import progress

    steps: list[tuple[float, float, float | None]] = []
    started = [0.0]
    step = progress.TimedBar.step

    def recorded(self: progress.TimedBar, done: float, **kw: Any) -> None:
        step(self, done, **kw)
        left = kw.get("left")
        if (left is None and kw.get("measured", True) and self.first is not None
                and done < self.total):
            left = time_left(int(done), self.total, self.elapsed(), since=self.first)
        steps.append((time.perf_counter() - started[0], done / self.total, left))

    progress.TimedBar.step = recorded  # type: ignore[method-assign]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()
    at.switch_page("pages/gmm.py").run()
    assert not at.exception, at.exception
    section, button = KEYS[panel]
    cpu = time.process_time()
    started[0] = time.perf_counter()
    if section is not None:
        at.session_state[section] = True
        at.run()
    opened = time.perf_counter() - started[0]
    at.button(key=button).click().run()
    seconds = time.perf_counter() - started[0]
    cpu = time.process_time() - cpu
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    out = {"panel": panel, "seconds": seconds, "opened": opened, "cpu": cpu, "errors": errors,
           "eta": _eta_check(steps, seconds) if steps else None,
           "load": os.getloadavg()[0]}
    # a second use in the same server: another compare budget, the next card
    again = time.perf_counter()
    if panel == "compare":
        at.number_input(key="gmm_compare_repeats").set_value(6).run()
        at.button(key=button).click().run()
        out["second"] = time.perf_counter() - again
    elif panel == "card":
        at.button(key=button).click().run()
        out["second"] = time.perf_counter() - again
    return out


def measure(panel: str) -> dict[str, Any]:
    """:func:`one` in a fresh process under one BLAS thread."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, __file__, "--one", panel], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=900, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise RuntimeError(f"bench/panels.py {panel} failed: {done.stderr[-2000:]}")
    return dict(json.loads(lines[-1]))


def bench_panels(b: Any, panels: tuple[str, ...] = PANELS) -> None:
    """``gmm_panel_<panel>_seconds`` for each panel: open + click, fresh server, < 5 s."""
    for panel in panels:
        m = measure(panel)
        eta = m["eta"] or {}
        checks = "; ".join(
            f"at {v['done']:.0%} ({v['elapsed']:.1f} s) the bar predicted the end at "
            f"{v['predicted_finish']:.1f} s" for k, v in eta.items() if k.startswith("at_"))
        finished = eta.get("finished", float("nan"))
        second = f"; a second use in the same server {m['second']:.2f} s" if "second" in m else ""
        b.add(f"gmm_panel_{panel}_seconds", m["seconds"], "s",
              target=f"< {PANEL_SECONDS:g} s at the /gmm defaults (section opened + button)",
              meets=m["seconds"] < PANEL_SECONDS and not m["errors"],
              note=f"opening took {m['opened']:.2f} s; {m['cpu']:.1f} s of CPU in the server "
                   f"process{second}; progress bar: {checks or 'no time shown'}, real end at "
                   f"{finished:.1f} s; load average "
                   f"{m['load']:.1f} on {os.cpu_count()} CPUs",
              detail=m)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one(sys.argv[2])))
        sys.exit(0)

    class _Print:
        def add(self, name: str, value: float, unit: str, **kw: Any) -> None:
            print(f"{name}: {value:.2f} {unit} — {kw.get('note', '')}", flush=True)

    bench_panels(_Print(), tuple(sys.argv[1:]) or PANELS)
