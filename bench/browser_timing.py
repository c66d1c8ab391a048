"""What a user waits for in a real browser: a fresh server's first page, and one ε move.

Issue 22's browser timings. Starts a fresh ``streamlit run app.py`` on a free port and opens
it in Debian's headless Chromium (Playwright):

- **cold start**: seconds from the server process starting to the first chart of Home drawn
  (the browser is launched before the server, so its own start is not counted). A fresh server
  is a new process on an installed app: dpviz's bytecode is compiled (``compileall``, into the
  usual ``__pycache__``) before the clock starts, and the server runs without
  ``PYTHONDONTWRITEBYTECODE``, as after any first ``make run``; with it, every cold start
  recompiled about 50 modules that a deployed server has cached;
- **ε move**, on each page with an ε (or, on the covariance page's default, ρ) control: open
  the page at its defaults, focus the control and press one arrow key; the time from the
  press to a chart's data having changed *and* Streamlit having stopped running
  (``.stApp[data-test-script-state="notRunning"]``). Two figures per page, each the median
  (p50) of ``--presses`` presses:

  - **new value** (the headline, and the one held to the target): ``--presses`` presses in one
    direction from the default (right, or left when the control is too near its top), so
    every press lands on a slider stop no run has computed yet — what a user exploring ε
    waits for; the page stays within ``--presses`` stops of its defaults;
  - **revisit**: as many presses back towards the default, each landing on a value the first
    sweep (or the page's opening) already computed, so the server's run caches answer.

The load average (``os.getloadavg``) is stored before and after: on a busy machine the figures
are high. Beside the wall-clock times, two that a busy machine moves much less: the server
process's CPU seconds (at the cold start's first chart, and per move) and the page's main
thread's busy time per move (Chromium's ``TaskDuration``). Not part of CI: ``make bench``
calls :func:`bench_browser` (it skips with a message
when Chromium or Playwright is missing), or run it alone::

    .venv/bin/python bench/browser_timing.py [--presses 5] [--pages lens,sbm]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deploy.processes import free_port, stop, wait_healthy  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
COLD_TARGET_S = 3.0
MOVE_TARGET_S = 1.0
#: Page → the accessible names of its budget control, most specific first. The covariance
#: page opens on ρ (its default budget); the SBM page also has a signal slider ε_s, which is
#: not a privacy budget.
CONTROLS: dict[str, tuple[str, ...]] = {
    "lens": (r"^ε$", r"ε"),
    "budget": (r"^ε \(target\)$", r"ε"),
    "gmm": (r"^ε$", r"ε"),
    "covariance": (r"^ρ$", r"ρ"),
    "sbm": (r"Privacy ε", r"^ε$"),
}
#: A digest of every chart's data: per trace the length and a strided sum of x, y and z (a
#: few thousand numbers, so polling it every 20 ms does not load the browser the way
#: serialising a 50 000-edge trace would).
DIGEST_JS = """() => {
  const sum = (a) => {
    if (!a || !(Array.isArray(a) || ArrayBuffer.isView(a))) return [0, 0];
    const n = a.length, step = Math.max(1, Math.floor(n / 2000));
    let s = 0;
    for (let i = 0; i < n; i += step) {
      const v = a[i];
      if (Array.isArray(v) || ArrayBuffer.isView(v)) {
        const r = sum(v); s += r[1] * 1.0001 + r[0];
      }
      else if (typeof v === 'number' && isFinite(v)) s += v * (1 + (i % 7) * 1e-3);
    }
    return [n, s];
  };
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((p) => {
    (p._fullData || []).forEach((t) => {
      out.push([sum(t.x), sum(t.y), sum(t.z)].flat().map((v) => v.toPrecision(12)).join(','));
    });
  });
  return out.join(';');
}"""
NOT_RUNNING = '.stApp[data-test-script-state="notRunning"]'
#: Whether a chart is drawn: a Plotly chart's SVG, visible (Playwright's test). Checked on
#: every animation frame: ``wait_for_selector`` polls every 500 ms once it has waited 0.3 s,
#: which added up to half a second to the cold start.
CHART_DRAWN_JS = """() => [...document.querySelectorAll('.js-plotly-plot .main-svg')].some((e) => {
  const box = e.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && getComputedStyle(e).visibility !== 'hidden';
})"""
IDLE_JS = f"() => !!document.querySelector('{NOT_RUNNING}')"


def missing() -> str | None:
    """Why the browser timing cannot run here, or ``None`` when it can."""
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (make browser-deps installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (requirements-dev.txt)"
    return None


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``; 0 elsewhere).

    Unlike the wall-clock times, this hardly moves with the machine's load, so it tells a
    change in the server's work apart from a busier machine.
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _main_thread_busy(cdp: Any) -> float:
    """Seconds the page's main thread has spent in tasks (Chromium's ``TaskDuration``)."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "TaskDuration"))


def _wait_idle(tab: Any, timeout: float = 120.0) -> None:
    tab.wait_for_selector(NOT_RUNNING, timeout=timeout * 1000, state="attached")


def _control(tab: Any, page: str) -> Any:
    """The page's ε (ρ) control: a slider named by :data:`CONTROLS`, else a number box."""
    for pattern in CONTROLS[page]:
        for role in ("slider", "spinbutton"):
            found = tab.get_by_role(role, name=re.compile(pattern))
            if found.count():
                return found.first
    raise LookupError(f"no ε control on /{page}")


def _press(tab: Any, control: Any, key: str, timeout: float = 60.0) -> float:
    """Seconds from pressing ``key`` on ``control`` to a chart changed and the script idle.

    The polling itself costs the page's main thread a few milliseconds a round.
    """
    before = tab.evaluate(DIGEST_JS)
    control.focus()
    is_box = control.get_attribute("role") == "spinbutton" or \
        control.evaluate("e => e.tagName") == "INPUT"
    start = time.perf_counter()
    control.press({"ArrowRight": "ArrowUp", "ArrowLeft": "ArrowDown"}[key] if is_box else key)
    if is_box:
        control.press("Enter")  # a number box commits on Enter
    while time.perf_counter() - start < timeout:
        if tab.evaluate(IDLE_JS) and tab.evaluate(DIGEST_JS) != before:
            return time.perf_counter() - start
        time.sleep(0.02)
    raise TimeoutError(f"no chart changed within {timeout:g} s of an ε step")


def _near_top(control: Any, presses: int) -> bool:
    """Whether ``presses`` steps up would run a slider past its top (a number box: never)."""
    values = [control.get_attribute(a) for a in ("aria-valuenow", "aria-valuemax")]
    if None in values:
        return False
    now, top = (float(v) for v in values)
    low = float(control.get_attribute("aria-valuemin") or 0.0)
    # No step attribute: a select slider (the ε stops) reports its stop's index, so a press
    # is one; a continuous slider is assumed to have at least 100 stops.
    index = all(v.is_integer() for v in (now, top, low)) and top - low <= 100
    return now + presses * (1.0 if index else (top - low) / 100) > top


def _sweep(tab: Any, cdp: Any, pid: int, control: Any, key: str,
           presses: int) -> dict[str, Any]:
    """``presses`` presses of ``key``: p50 and each of the wait, server CPU and page busy."""
    times, server_cpu, browser_busy = [], [], []
    for _ in range(presses):
        cpu, busy = _cpu_seconds(pid), _main_thread_busy(cdp)
        times.append(_press(tab, control, key))
        server_cpu.append(_cpu_seconds(pid) - cpu)
        browser_busy.append(_main_thread_busy(cdp) - busy)
    return {"key": key, "p50_s": round(statistics.median(times), 3),
            "max_s": round(max(times), 3), "each_s": [round(t, 3) for t in times],
            "server_cpu_p50_s": round(statistics.median(server_cpu), 3),
            "browser_main_thread_p50_s": round(statistics.median(browser_busy), 3)}


def measure(pages: list[str], presses: int) -> dict[str, Any]:
    """Cold start and the ε move on ``pages``: the report :func:`main` prints."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", "dpviz"], cwd=ROOT, env=env,
                   check=True)  # an installed app's bytecode (the pages are run from source)
    report: dict[str, Any] = {"load_before": os.getloadavg(), "presses": presses,
                              "cores": os.cpu_count()}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        cdp = tab.context.new_cdp_session(tab)
        cdp.send("Performance.enable")
        started = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_healthy(url, process=server, seconds=120, poll=0.05)
            report["server_ready_s"] = round(time.perf_counter() - started, 3)
            tab.goto(url, timeout=120_000)
            tab.wait_for_function(CHART_DRAWN_JS, polling="raf", timeout=120_000)
            report["cold_first_chart_s"] = round(time.perf_counter() - started, 3)
            report["cold_server_cpu_s"] = round(_cpu_seconds(server.pid), 3)
            _wait_idle(tab)
            moves: dict[str, Any] = {}
            for page in pages:
                opened = time.perf_counter()
                tab.goto(f"{url}/{page}", timeout=120_000)
                tab.wait_for_function(CHART_DRAWN_JS, polling="raf", timeout=120_000)
                _wait_idle(tab)
                first = time.perf_counter() - opened
                time.sleep(0.5)  # late charts (a lazy layout) settle before the first press
                _wait_idle(tab)
                control = _control(tab, page)
                forward, back = ("ArrowLeft", "ArrowRight") if _near_top(control, presses) \
                    else ("ArrowRight", "ArrowLeft")
                moves[page] = {"new": _sweep(tab, cdp, server.pid, control, forward, presses),
                               "revisit": _sweep(tab, cdp, server.pid, control, back, presses),
                               "first_render_s": round(first, 3)}
                print(f"/{page}: " + "; ".join(
                    f"ε move to a {kind} value p50 {m['p50_s']:.2f} s (each {m['each_s']}; "
                    f"server CPU {m['server_cpu_p50_s']:.2f} s, browser main thread "
                    f"{m['browser_main_thread_p50_s']:.2f} s)"
                    for kind, m in (("new", moves[page]["new"]),
                                    ("revisited", moves[page]["revisit"])))
                    + f"; first render {first:.2f} s", file=sys.stderr, flush=True)
            report["moves"] = moves
        finally:
            browser.close()
            stop(server)
    report["load_after"] = os.getloadavg()
    return report


def bench_browser(b: Any, presses: int = 5) -> None:
    """Add the browser timings to ``make bench``'s entries (skips without Chromium)."""
    why = missing()
    if why:
        print(f"browser timing skipped: {why}", file=sys.stderr, flush=True)
        return
    report = measure(list(CONTROLS), presses)
    load = f"load average {report['load_before'][0]:.2f} before, " \
           f"{report['load_after'][0]:.2f} after"
    b.add("browser_cold_start_first_chart", report["cold_first_chart_s"], "s",
          target=f"value < {COLD_TARGET_S:g} s",
          meets=report["cold_first_chart_s"] < COLD_TARGET_S,
          note=f"streamlit run app.py → Home's first chart drawn in headless Chromium "
               f"(server answered health after {report['server_ready_s']:.2f} s; server CPU "
               f"{report['cold_server_cpu_s']:.2f} s by then); {load}")
    for page, moves in report["moves"].items():
        new, old = moves["new"], moves["revisit"]
        b.add(f"browser_epsilon_move_{page}", new["p50_s"], "s",
              target=f"value < {MOVE_TARGET_S:g} s", meets=new["p50_s"] < MOVE_TARGET_S,
              note=f"/{page} from its defaults: one arrow key on the ε control to a value not "
                   f"computed before → a chart changed and the script idle, p50 of {presses} "
                   f"presses in one direction (each {new['each_s']}; server CPU p50 "
                   f"{new['server_cpu_p50_s']:.3f} s, browser main thread p50 "
                   f"{new['browser_main_thread_p50_s']:.3f} s); {load}")
        b.add(f"browser_epsilon_revisit_{page}", old["p50_s"], "s",
              note=f"/{page}: the same presses back, each to a value already computed (the "
                   f"server's caches answer), p50 {old['p50_s']:.3f} s (each {old['each_s']}; "
                   f"server CPU p50 {old['server_cpu_p50_s']:.3f} s, browser main thread p50 "
                   f"{old['browser_main_thread_p50_s']:.3f} s); {load}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=5)
    parser.add_argument("--pages", default=",".join(CONTROLS),
                        help="comma-separated, from " + ", ".join(CONTROLS))
    parser.add_argument("--out", default=None, help="also write the report here (JSON)")
    args = parser.parse_args(argv)
    why = missing()
    if why:
        print(f"browser timing skipped: {why}", file=sys.stderr)
        return 0
    report = measure([p for p in args.pages.split(",") if p], args.presses)
    text = json.dumps(report, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
