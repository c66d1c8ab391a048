"""A lecture hall without browsers: students that speak Streamlit's own websocket protocol.

Issue 22, part 4, and issue 33, part 5. Each simulated student is one websocket client of
``/_stcore/stream`` that sends protobuf ``BackMsg``s and reads ``ForwardMsg``s
(``streamlit.proto``), as the browser does, but renders nothing — so 300 of them fit on two
cores beside the server and the test measures the server, not thirty Chromium renderers
(``bench/load_test.py`` keeps measuring what browsers add). A student:

1. connects and asks for one of the hall's pages (:data:`PAGES`: /gmm, /covariance, /sbm,
   /lens) with its own seed in the query string (``seed=…&student=…``), and waits for the
   run's ``script_finished``; under ``secure`` it then switches the sidebar's "Secure
   randomness" toggle on, as a student does after opening a link with its seed (a link with
   ``secure=true&seed=…`` keeps its seed for the data too);
2. finds the ε widget in that run's deltas (a slider or number box whose label has the word ε;
   the label, not the id, so a page that changes the widget keeps working) and the page's
   figure;
3. after every student has loaded, moves ε one step (0.01, a new value each time, so no move is
   a cache hit) every ``--think`` seconds (10 s, jittered ±50 %) for ``--seconds``: it sends a
   ``rerun_script`` carrying the widget's new state (and the widget's fragment id, when the page
   runs it in a fragment) and waits for the ``script_finished``.

It reports the server turnaround of each move (send → ``script_finished`` received, on the
client's clock) as p50 / p95 / p99 / max; when the test starts the server itself, also the
server's own log of each rerun (``bench/timed_server.py``); the server's CPU seconds per move
(``/proc/<pid>/stat``: what a move costs whatever else the machine runs) and the cores it kept
busy; errors (a widget not found, an exception element, a timeout, a dropped connection); the
servers' peak resident memory (``VmHWM`` from ``/proc``); and isolation: every student's seed
box shows its own seed, its data trace is the same after every move and (on a page whose data
come from the seed) differs from every other student's, and the private release it was shown
is never another student's.

The server is either started here (one ``streamlit run``, default), or ``--serve N``
processes behind nginx (``deploy/serve.py``, as ``make serve N=…``), or any running one at
``--url`` (with ``--pid-file`` for its memory). Run the clients under ``nice``: a server
started here is put back to normal priority (as root). ``--ladder`` grows the class on one
server until p95 ≥ 1 s: the students a server holds, per page and randomness.

Not part of CI. ``.venv/bin/python bench/protocol_load.py --students 30 60 120 --ladder
--pages gmm sbm --modes seeded secure`` writes ``bench/protocol_load.json``;
``bench/run.py`` runs :func:`bench_protocol_load`, the ladder on one process and on two behind
nginx (``DPVIZ_BENCH_NO_LOAD=1`` skips it).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load_test import SEED_BASE, _peak_kib, _percentile  # noqa: E402
from deploy.processes import free_port, stop, wait_healthy  # noqa: E402


@dataclass(frozen=True)
class Page:
    """A page the students open and the figure whose traces the isolation check reads.

    ``data`` starts the name of the trace drawn from the data alone, ``private`` the names of
    the traces of the private release; ``plotted``: the values compared (the lens's true
    answers are drawn as tall as the density, which follows ε; their place does not);
    ``own_data``: the data come from the student's seed, so no two students may see the same
    (the lens's dataset is the same for everyone).
    """

    name: str
    figure: str
    data: str
    private: str
    plotted: tuple[str, ...] = ("x", "y", "z")
    own_data: bool = True


#: The hall's pages, by their URL path.
PAGES = {page.name: page for page in (
    Page("gmm", "gmm_figure", "data", "private"),
    Page("covariance", "cov_heatmaps", "true", "AdaptiveCov"),
    Page("sbm", "sbm_graph", "edges", "community"),
    Page("lens", "lens_densities", "true answer on D", "one private release", plotted=("x",),
         own_data=False))}
#: The sidebar's switch to OS-entropy noise, by its label.
SECURE_LABEL = "Secure randomness"
#: One move's or load's longest wait for its ``script_finished``.
TIMEOUT = 300.0
#: Seconds between one student's moves (jittered ±50 %): a student reading the page between
#: moves. ``--think 3`` is a stress test (a server saturates sooner, same CPU per move).
THINK = 10.0


@dataclass
class Run:
    """What one rerun sent back: its elements (with their fragment ids) and how it ended."""

    elements: list[tuple[Any, str]] = field(default_factory=list)
    status: str = ""
    page_script_hash: str = ""
    errors: list[str] = field(default_factory=list)


@dataclass
class Student:
    """One simulated student's measurements and what it saw."""

    index: int
    seed: int
    load_seconds: float | None = None
    turnarounds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seeds_shown: set[float] = field(default_factory=set)
    data_hashes: set[str] = field(default_factory=set)
    #: ε → hashes of the private release shown at that ε.
    means: dict[float, set[str]] = field(default_factory=lambda: defaultdict(set))


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def _plotted(traces: list[dict[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """The values the traces plot (a colour scale or hover text may follow ε, they do not)."""
    return [{k: t[k] for k in keys if k in t} for t in traces]


def widget_value(element: Any) -> tuple[str, float] | None:
    """``(kind, value)`` of a slider or number box element, else None."""
    kind = element.WhichOneof("type")
    if kind == "slider":
        w = element.slider
        values = list(w.value) if w.set_value else list(w.default)
        return (kind, float(values[0])) if values else None
    if kind == "number_input":
        w = element.number_input
        value = w.value if w.set_value else w.default
        return kind, float(value)
    return None


def _names_epsilon(label: str) -> bool:
    """Whether a label has ε as a word ("ε, typed", "Privacy ε", not "Signal ε_s")."""
    return any(word.strip(",:;()") == "ε" for word in label.split())


def find_epsilon(run: Run) -> tuple[Any, str] | None:
    """The widget that holds ε in a run, with its fragment id (``""`` outside a fragment).

    A number box whose label has the word ε (the box beside the slider that holds the value),
    else a slider labelled so: the label, not the id, so a page that changes the widget keeps
    working, and a box takes any value, so no move lands on a cached run.
    """
    for kind in ("number_input", "slider"):
        for element, fragment_id in run.elements:
            if element.WhichOneof("type") == kind and \
                    _names_epsilon(getattr(element, kind).label):
                return element, fragment_id
    return None


def find_toggle(run: Run, label: str) -> Any | None:
    """The toggle (a checkbox element) labelled ``label`` in a run."""
    for element, _ in run.elements:
        if element.WhichOneof("type") == "checkbox" and element.checkbox.label == label:
            return element
    return None


def observe(student: Student, run: Run, epsilon: float | None, page: Page) -> None:
    """Record the seed shown, the data trace and the private release of one run."""
    for element, _ in run.elements:
        kind = element.WhichOneof("type")
        if kind == "number_input" and element.number_input.label.strip() == "Seed":
            student.seeds_shown.add(widget_value(element)[1])  # type: ignore[index]
        if kind == "plotly_chart" and page.figure in element.plotly_chart.id:
            traces = json.loads(element.plotly_chart.spec).get("data", [])
            named = [(str(t.get("name", "")).lower(), t) for t in traces]
            data = [t for name, t in named if name.startswith(page.data.lower())]
            if data:
                student.data_hashes.add(_digest(_plotted(data, page.plotted)))
            private = [t for name, t in named if name.startswith(page.private.lower())]
            if private and epsilon is not None:
                student.means[epsilon].add(_digest(_plotted(private, page.plotted)))


class Client:
    """One websocket session speaking ``BackMsg`` / ``ForwardMsg``."""

    def __init__(self, ws: Any, query: str, page: str) -> None:
        self.ws = ws
        self.query = query
        self.page = page
        self.page_script_hash = ""
        #: Widget states sent with every rerun (a browser sends them all): the secure toggle.
        self.kept: list[Any] = []

    async def rerun(self, widgets: list[Any] | None = None, fragment_id: str = "") -> Run:
        """Send one ``rerun_script`` and collect the ForwardMsgs up to its ``script_finished``."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        if self.page_script_hash:
            state.page_script_hash = self.page_script_hash
        else:
            state.page_name = self.page
        state.fragment_id = fragment_id
        state.widget_states.widgets.extend([*self.kept, *(widgets or [])])
        await self.ws.send(msg.SerializeToString())
        run = Run()
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(self.ws.recv(), TIMEOUT))
            kind = forward.WhichOneof("type")
            if kind == "navigation":  # the page that ran (new_session's is the main script's)
                run.page_script_hash = forward.navigation.page_script_hash
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                run.elements.append((element, forward.delta.fragment_id))
                if element.WhichOneof("type") == "exception":
                    run.errors.append(f"exception element: {element.exception.message[:200]}")
            elif kind == "page_not_found":
                run.errors.append(f"page not found: {forward.page_not_found.page_name}")
            elif kind == "script_finished":
                run.status = ForwardMsg.ScriptFinishedStatus.Name(forward.script_finished)
                if run.status == "FINISHED_EARLY_FOR_RERUN":
                    continue  # another rerun of this session took over: wait for it
                if run.status == "FINISHED_WITH_COMPILE_ERROR":
                    run.errors.append("the page failed to compile")
                if run.page_script_hash:
                    self.page_script_hash = run.page_script_hash
                return run


def epsilon_state(element: Any, value: float) -> Any:
    """The ``WidgetState`` a browser sends for ε set to ``value``."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState()
    kind = element.WhichOneof("type")
    state.id = getattr(element, kind).id
    if kind == "slider":
        state.double_array_value.data.append(value)
    else:
        state.double_value = value
    return state


def toggle_state(element: Any, value: bool) -> Any:
    """The ``WidgetState`` a browser sends for a toggle switched to ``value``."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState()
    state.id = element.checkbox.id
    state.bool_value = value
    return state


def next_epsilon(element: Any, value: float) -> float:
    """One step up the widget's range, back to its low end past the top."""
    w = getattr(element, element.WhichOneof("type"))
    step = w.step or 0.01
    new = round(value + step, 6)
    high = w.max if element.WhichOneof("type") == "slider" or w.has_max else new
    low = w.min if element.WhichOneof("type") == "slider" or w.has_min else 0.0
    return float(low + step if new > high else new)


def _unverified() -> ssl.SSLContext:
    """TLS without checking the certificate: make serve's own is self-signed (a bench only)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


async def student_session(url: str, student: Student, *, page: Page, secure: bool,
                          seconds: float, think: float, loads: asyncio.Semaphore,
                          started: asyncio.Event, loaded: list[int]) -> None:
    """One student's whole visit: load the page (secure: switch it on), then move ε."""
    import websockets

    ws_url = url.replace("http", "ws", 1) + "/_stcore/stream"
    query = f"seed={student.seed}&student={student.index}"
    # behind make serve: HTTPS with its self-signed certificate, and nginx picks the process
    # (its routing cookie is signed; one websocket is one session, so none is sent)
    tls = _unverified() if ws_url.startswith("wss") else None
    rng = random.Random(student.index)
    ws = None
    try:
        try:
            async with loads:  # the loads are not timed moves: a few at a time
                ws = await websockets.connect(ws_url, subprotocols=["streamlit"],  # type: ignore[list-item]
                                              ssl=tls, max_size=None,
                                              ping_interval=None, open_timeout=TIMEOUT)
                client = Client(ws, query, page.name)
                t0 = time.monotonic()
                first = await client.rerun()
                if secure:
                    first = await secure_switch(client, first)
                student.load_seconds = time.monotonic() - t0
                student.errors += first.errors
        finally:
            loaded[0] += 1
        await moves(client, student, first, page=page, seconds=seconds, think=think, rng=rng,
                    started=started)
    except Exception as err:  # noqa: BLE001 - a student's failure is a finding, not a crash
        student.errors.append(f"{type(err).__name__}: {err}"[:300])
    finally:
        if ws is not None:
            await ws.close()


async def secure_switch(client: Client, first: Run) -> Run:
    """Switch secure randomness on (kept on in every later rerun); the run it made."""
    toggle = find_toggle(first, SECURE_LABEL)
    if toggle is None:
        first.errors.append(f"no '{SECURE_LABEL}' toggle on the page")
        return first
    client.kept = [toggle_state(toggle, True)]
    return await client.rerun()


async def moves(client: Client, student: Student, first: Run, *, page: Page, seconds: float,
                think: float, rng: random.Random, started: asyncio.Event) -> None:
    """Move ε every ``think`` seconds (±50 %) for ``seconds`` after the whole class loaded."""
    found = find_epsilon(first)
    if found is None:
        student.errors.append("no ε widget on the page")
        return
    element, fragment_id = found
    value = widget_value(element)[1]  # type: ignore[index]
    observe(student, first, value, page)
    await started.wait()
    end = time.monotonic() + seconds
    await asyncio.sleep(rng.uniform(0, think))  # students do not move in step
    while time.monotonic() < end:
        value = next_epsilon(element, value)
        t0 = time.monotonic()
        run = await client.rerun([epsilon_state(element, value)], fragment_id)
        student.turnarounds.append(time.monotonic() - t0)
        student.errors += run.errors
        observe(student, run, value, page)
        again = find_epsilon(run)
        if again is not None:  # the widget's id or fragment may change between runs
            element, fragment_id = again
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)


def isolation(students: list[Student], *, own_data: bool = True) -> list[str]:
    """What one student saw that was not its own: another seed, data or private release.

    ``own_data``: each student's data come from its seed, so no two may see the same.
    """
    found = []
    owner: dict[str, int] = {}
    for s in students:
        if s.seeds_shown - {float(s.seed)}:
            found.append(f"student {s.index} (seed {s.seed}) was shown seed(s) "
                         f"{sorted(s.seeds_shown - {float(s.seed)})}")
        if len(s.data_hashes) > 1:
            found.append(f"student {s.index}'s data changed when only ε moved")
        for h in s.data_hashes if own_data else ():
            if owner.setdefault("data" + h, s.index) != s.index:
                found.append(f"students {owner['data' + h]} and {s.index} saw the same data")
        for epsilon, hashes in s.means.items():
            if len(hashes) > 1:
                found.append(f"student {s.index} was shown {len(hashes)} different private "
                             f"means at ε = {epsilon:g}")
            for h in hashes:
                if owner.setdefault("means" + h, s.index) != s.index:
                    found.append(f"students {owner['means' + h]} and {s.index} were shown the "
                                 "same private means")
    return found


@dataclass
class Target:
    """A server under test: its URL, its processes' pids and (one process) its own log."""

    url: str
    pids: list[int]
    processes: int
    behind_proxy: bool
    log: Path | None = None


def _unniced() -> None:
    """Run the server at normal priority when the clients run under ``nice`` (as root)."""
    with suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, 0)


@contextmanager
def fresh_server(serve: int) -> Iterator[Target]:
    """One ``streamlit run`` (``serve`` = 0), or ``serve`` processes behind nginx."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory(prefix="dpviz-protocol-") as folder:
        port = free_port()
        log = Path(folder) / "turnaround.jsonl"
        pid_file = Path(folder) / "pids"
        if serve:
            cmd = [sys.executable, str(ROOT / "deploy" / "serve.py"), "--processes", str(serve),
                   "--port", str(port), "--address", "127.0.0.1",
                   "--first-backend-port", str(free_port()), "--pid-file", str(pid_file)]
        else:
            cmd = [sys.executable, str(ROOT / "bench" / "timed_server.py"), str(log),
                   "--server.port", str(port), "--server.headless", "true",
                   "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, preexec_fn=_unniced)
        url = f"{'https' if serve else 'http'}://127.0.0.1:{port}"
        try:
            wait_healthy(url, seconds=180, poll=0.5)  # behind nginx: once every process answers
            pids = [int(p) for p in pid_file.read_text().split()] if serve else [proc.pid]
            yield Target(url, pids, max(serve, 1), bool(serve), None if serve else log)
        finally:
            stop(proc, timeout=30)


def _stats(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50_s": None, "p95_s": None, "p99_s": None, "max_s": None}
    return {"p50_s": round(statistics.median(values), 3),
            "p95_s": round(_percentile(values, 0.95), 3),
            "p99_s": round(_percentile(values, 0.99), 3), "max_s": round(max(values), 3)}


def _loadavg() -> list[float]:
    """The 1, 5 and 15 minute load averages (other work on the machine shows here)."""
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the processes have used (``/proc/<pid>/stat``)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _server_times(log: Path | None, since: float) -> list[float]:
    """The server's own turnarounds of the moves (logged after ``since``, wall clock)."""
    if log is None or not log.exists():
        return []
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return [float(e["seconds"]) for e in entries if e["wall"] >= since]


def measure(target: Target, students_n: int, *, page: Page, secure: bool, seconds: float,
            think: float, load_concurrency: int) -> dict[str, Any]:
    """One class of ``students_n`` students on one page of ``target``: the report's entry."""
    load_before = _loadavg()
    students = [Student(index=i, seed=SEED_BASE + i) for i in range(students_n)]
    moving_since = [0.0]
    cpu = [0.0]

    async def run() -> float:
        loads = asyncio.Semaphore(load_concurrency)
        started = asyncio.Event()
        loaded = [0]
        t0 = time.monotonic()
        tasks = [asyncio.create_task(student_session(
            target.url, s, page=page, secure=secure, seconds=seconds, think=think, loads=loads,
            started=started, loaded=loaded)) for s in students]
        while loaded[0] < len(students):
            await asyncio.sleep(0.2)
        load_wall = time.monotonic() - t0
        moving_since[0] = time.time()
        cpu[0] = _cpu_seconds(target.pids)
        started.set()
        await asyncio.gather(*tasks)
        cpu[0] = _cpu_seconds(target.pids) - cpu[0]
        return load_wall

    load_wall = asyncio.run(run())
    turnarounds = [t for s in students for t in s.turnarounds]
    server_times = _server_times(target.log, moving_since[0])
    errors = [f"student {s.index}: {e}" for s in students for e in s.errors]
    loads = [s.load_seconds for s in students if s.load_seconds is not None]
    return {
        "page": page.name, "mode": "secure" if secure else "seeded",
        "students": students_n, "processes": target.processes,
        "behind_proxy": target.behind_proxy, "think_s": think, "seconds_moving": seconds,
        "loadavg_before": load_before, "loadavg_after": _loadavg(),
        "class_load_wall_s": round(load_wall, 1),
        "load_p50_s": round(statistics.median(loads), 3) if loads else None,
        "moves": len(turnarounds),
        "moves_per_second": round(len(turnarounds) / seconds, 2),
        # the server's CPU per move: what it costs whatever else the machine runs
        "server_cpu_s_per_move": round(cpu[0] / len(turnarounds), 3) if turnarounds else None,
        "server_cpu_busy_cores": round(cpu[0] / seconds, 2),
        "turnaround": _stats(turnarounds),
        "server_logged_turnaround": _stats(server_times) if target.log else None,
        "students_with_errors": sum(1 for s in students if s.errors),
        "error_count": len(errors), "errors": errors[:30],
        "server_peak_rss_mib": [round(_peak_kib(p) / 1024, 1) for p in target.pids],
        "isolation_violations": isolation(students, own_data=page.own_data)[:30],
        "isolation_checked": {
            "students_with_data": sum(1 for s in students if s.data_hashes),
            "students_with_seed_shown": sum(1 for s in students if s.seeds_shown),
            "private_means_seen": sum(len(h) for s in students for h in s.means.values())},
    }


def held(target: Target, sizes: list[int], *, page: Page, secure: bool, seconds: float,
         think: float, load_concurrency: int) -> tuple[int, list[dict[str, Any]]]:
    """The largest class in ``sizes`` (ascending) served at p95 < 1 s without errors.

    Classes grow until one misses; each is measured on the same server (the loads of seeds
    already seen are cached, so the ladder is quick; the moves are new ε values each time).
    """
    best, entries = 0, []
    for n in sizes:
        entry = measure(target, n, page=page, secure=secure, seconds=seconds, think=think,
                        load_concurrency=load_concurrency)
        entries.append(entry)
        print(json.dumps(entry), file=sys.stderr, flush=True)
        p95 = entry["turnaround"]["p95_s"]
        if entry["error_count"] or p95 is None or p95 >= 1.0:
            break
        best = n
    return best, entries


@contextmanager
def _running(url: str, pid_file: str | None) -> Iterator[Target]:
    pids = [int(p) for p in Path(pid_file).read_text().split()] if pid_file else []
    wait_healthy(url, seconds=180, poll=0.5)
    yield Target(url.rstrip("/"), pids, max(len(pids), 1), True)


def hall(target: Target, sizes: list[int], *, pages: list[str], modes: list[str],
         seconds: float, think: float, load_concurrency: int) -> list[dict[str, Any]]:
    """The ladder through ``sizes`` on every page, seeded and secure, on one server.

    Each entry is one class; a page and mode stop at the first class that misses p95 < 1 s.
    """
    entries = []
    for name in pages:
        for mode in modes:
            entries += held(target, sizes, page=PAGES[name], secure=mode == "secure",
                            seconds=seconds, think=think, load_concurrency=load_concurrency)[1]
    return entries


def per_core(entries: list[dict[str, Any]]) -> dict[str, int]:
    """Students per core at p95 < 1 s without errors, per ``page/mode``: the largest class per
    process (each uses about one core) at which every run, and every run of fewer per process,
    held; 0 when the smallest missed."""
    held_at: dict[str, dict[int, bool]] = defaultdict(dict)
    for e in entries:
        p95 = e["turnaround"]["p95_s"]
        ok = not e["error_count"] and p95 is not None and p95 < 1.0
        per = held_at[f"{e['page']}/{e['mode']}"]
        size = e["students"] // e["processes"]
        per[size] = per.get(size, True) and ok
    found = {}
    for key, per in held_at.items():
        found[key] = 0
        for size in sorted(per):
            if not per[size]:
                break
            found[key] = size
    return found


def bench_protocol_load(b: Any, quick: bool) -> None:
    """``bench/run.py``'s entries: the students per core one process and two processes behind
    nginx hold at p95 < 1 s on each page, seeded and secure (``DPVIZ_BENCH_NO_LOAD=1`` skips)."""
    if os.environ.get("DPVIZ_BENCH_NO_LOAD"):
        print("protocol load test skipped (DPVIZ_BENCH_NO_LOAD)", file=sys.stderr)
        return
    seconds = 20.0 if quick else 40.0
    sizes = [30] if quick else [30, 60, 120]
    for serve in (0, 2):
        if serve and shutil.which("nginx") is None:
            print("protocol load test behind nginx skipped: no nginx", file=sys.stderr)
            continue
        with fresh_server(serve) as target:
            entries = hall(target, sizes, pages=list(PAGES), modes=["seeded", "secure"],
                           seconds=seconds, think=THINK, load_concurrency=8)
        name = "protocol_load_1process" if not serve else f"protocol_load_{serve}processes_nginx"
        for key, students in per_core(entries).items():
            b.add(f"{name}_{key.replace('/', '_')}_students_per_core", students, "students",
                  note=f"largest class of {sizes} per process with p95 < 1 s and no errors, "
                       f"ε moved every {THINK:g} s ± 50 %; {os.cpu_count()} cores shared "
                       "with the test's clients",
                  detail={"ladder": [{k: e[k] for k in (
                      "students", "turnaround", "error_count", "server_cpu_s_per_move",
                      "server_peak_rss_mib", "loadavg_before")}
                      for e in entries if f"{e['page']}/{e['mode']}" == key]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[30, 60, 120],
                        help="class sizes, each against a fresh server")
    parser.add_argument("--ladder", action="store_true",
                        help="one server; grow the class through --students until p95 ≥ 1 s")
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), default=list(PAGES),
                        help="the pages the classes open, one after the other")
    parser.add_argument("--modes", nargs="+", choices=["seeded", "secure"],
                        default=["seeded", "secure"], help="the noise: seeded, or secure")
    parser.add_argument("--seconds", type=float, default=60.0, help="moving time per class")
    parser.add_argument("--think", type=float, default=THINK,
                        help="seconds between one student's moves (±50 %%)")
    parser.add_argument("--load-concurrency", type=int, default=8,
                        help="first page loads in flight at once (the loads are not timed)")
    parser.add_argument("--serve", type=int, default=0,
                        help="start this many processes behind nginx (deploy/serve.py)")
    parser.add_argument("--url", help="a running server or proxy instead of a fresh one")
    parser.add_argument("--pid-file", help="with --url: the server processes' pids")
    parser.add_argument("--out", default=str(ROOT / "bench" / "protocol_load.json"))
    args = parser.parse_args(argv)
    timing = {"pages": args.pages, "modes": args.modes, "seconds": args.seconds,
              "think": args.think, "load_concurrency": args.load_concurrency}

    def target() -> Any:
        return _running(args.url, args.pid_file) if args.url else fresh_server(args.serve)

    report: dict[str, Any] = {"cores": os.cpu_count(), "blas_threads": 1, "classes": []}
    if args.ladder:
        with target() as t:
            report["classes"] = hall(t, sorted(args.students), **timing)
    else:
        for n in args.students:
            with target() as t:
                report["classes"] += hall(t, [n], **timing)
    report["students_per_core_at_p95_1s"] = per_core(report["classes"])
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    ok = all(not e["error_count"] and not e["isolation_violations"] for e in report["classes"])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
