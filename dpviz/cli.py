"""The command line: ``python -m dpviz list | account | run | card`` (DESIGN.md, the command line).

Output is JSON on stdout (or ``--out FILE``). A bad argument or bad data — input nested too
deeply or too large for memory included — prints one line to stderr and exits with code 2; a
bug exits with 1. Warnings go to stderr. Noise comes from OS entropy unless ``--seed N`` asks
for teaching randomness (and the JSON says so in ``choices``); an entropy seed is never
printed.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from dpviz.core import limits
from dpviz.privacy import METHODS, PrivacyEvent, compose, total_rho
from dpviz.privacy.errors import PrivacyLeakWarning


class UsageError(Exception):
    """A bad command line: one sentence, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # argparse's own pattern misses exponents, so "--delta -1e-5" would read as a flag
        self._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _number(limit: limits.Limit, integer: bool = False):  # noqa: ANN202 - argparse type
    def parse(text: str) -> float | int:
        try:
            return limits.check_integer(limit, text) if integer else limit.check(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.__name__ = limit.name
    return parse


def _epsilon(text: str) -> float:
    try:
        return limits.check_epsilon(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _build_parser() -> _Parser:
    parser = _Parser(prog="python -m dpviz", description="dpviz engine, headless.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="the registry: tasks, estimators, parameters")

    account = sub.add_parser("account", help="compose identical releases under a method")
    account.add_argument("--mechanism", choices=("gaussian", "laplace"), required=True)
    account.add_argument("--sensitivity", type=_number(limits.SENSITIVITY), default=1.0)
    noise = account.add_mutually_exclusive_group(required=True)
    noise.add_argument("--sigma", type=_number(limits.NOISE_SCALE), help="Gaussian σ")
    noise.add_argument("--scale", type=_number(limits.NOISE_SCALE), help="Laplace scale b")
    account.add_argument("--count", type=_number(limits.COUNT, integer=True), default=1)
    account.add_argument("--delta", type=_number(limits.DELTA), default=0.0)
    account.add_argument("--method", choices=METHODS, default="pld",
                         help="with --delta 0 (pure DP) only linear composition applies")
    account.add_argument("--paper-mode", action="store_true")

    run = sub.add_parser("run", help="run one estimator on a CSV, or replay a card")
    _add_run_arguments(run)
    run.add_argument("--card", help="replay an experiment card (instead of TASK ESTIMATOR "
                                    "and the data and budget flags)")
    run.add_argument("--expected", action="store_true",
                     help="with --data: add the expected accuracy the page states, predicted "
                          "from public inputs by simulated runs on generated data (seconds)")
    run.add_argument("--intervals", action="store_true",
                     help="add 'intervals': 90 %% intervals on the released values, from them "
                          "and the recorded noise only (nothing more charged); where their "
                          "coverage was not measured >= 88 %% it says 'no interval: coverage "
                          "not established'; a covariance's eigenvalues, with its matrix's "
                          "entries under 'entries'")
    run.add_argument("--bounds", help="the CSV's public bound: R (a ball of radius R about "
                                      "the origin, as --radius R), LOW:HIGH per column "
                                      "('0:100,0:100', from domain knowledge, not the data), "
                                      "'private:SHARE' (that share of the budget estimates the "
                                      "ranges privately) or 'data' (ranges read from the data: "
                                      "not private); without a bound rows are clipped to the "
                                      "unit ball")
    card = sub.add_parser("card", help="run one estimator and record it as an experiment card")
    _add_run_arguments(card)
    _add_solve_arguments(sub.add_parser("solve", help="the smallest epsilon (or n) meeting an "
                                                      "accuracy target, on generated data"))
    risk = sub.add_parser("risk", help="what a guarantee means: the best membership-inference "
                                       "attack, its trade-off curve, the posterior bound")
    _add_risk_arguments(risk)
    _add_sweep_arguments(sub.add_parser("sweep", help="run a sweep spec (grid x repeats): one "
                                                      "row per run, CSV or JSON lines"))
    for command in (account, run, card, risk):
        command.add_argument("--out", help="write the JSON here instead of stdout")
    return parser


def _add_run_arguments(command: argparse.ArgumentParser) -> None:
    """The flags of ``run`` (and of the commands that take the same: ``card``).

    TASK, ESTIMATOR, the data and the budget are optional here so that ``run --card`` can go
    without them; :func:`_check_run` asks for them otherwise.
    """
    command.add_argument("task", nargs="?")
    command.add_argument("estimator", nargs="?")
    source = command.add_mutually_exclusive_group()
    source.add_argument("--data", help="CSV, one row per person (with --card: the uploaded "
                                       "file a card of an upload was made from)")
    source.add_argument("--edges", help="CSV edge list, two integer columns (vertex ids "
                                        "0 ... n-1; give --n), for the sbm task")
    budget = command.add_mutually_exclusive_group()
    budget.add_argument("--epsilon", type=_epsilon)
    budget.add_argument("--rho", type=_number(limits.RHO))
    command.add_argument("--delta", type=_number(limits.DELTA), default=0.0)
    command.add_argument("--accounting", choices=METHODS, default="zcdp")
    command.add_argument("--seed", type=_number(limits.NOISE_SEED, integer=True), default=None,
                         help="a fixed noise seed: teaching randomness, the noise can be "
                              "recomputed from it (not a private release); default fresh OS "
                              "entropy, never printed")
    command.add_argument("--radius", default=None,
                         help="public radius of the clipping ball about the origin (default: "
                              "the unit ball), or 'data' (not private)")
    command.add_argument("--paper-mode", action="store_true")
    command.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                         help="an estimator parameter, typed as `list` gives it")


def _check_run(args: argparse.Namespace) -> None:
    """TASK, ESTIMATOR, the data and the budget are required unless a card is replayed."""
    if getattr(args, "card", None) is not None:
        if args.edges is not None:
            raise UsageError("--card takes the uploaded file of a card made from an upload as "
                             "--data FILE, an edge list too; remove --edges")
        given = [flag for flag, value in ((args.task, args.task),
                                          (args.estimator, args.estimator),
                                          ("--epsilon", args.epsilon), ("--rho", args.rho),
                                          ("--seed", args.seed is not None), ("--set", args.set),
                                          ("--bounds", getattr(args, "bounds", None)))
                 if value]
        if given:
            raise UsageError(f"--card replays the card as recorded; remove {', '.join(given)}")
        return
    if args.task is None or args.estimator is None:
        raise UsageError(f"{args.command} needs TASK and ESTIMATOR (e.g. `{args.command} gmm "
                         "dp_em --data X.csv --k 3 --epsilon 1`)"
                         + (", or --card card.json" if args.command == "run" else ""))
    if args.data is None and args.edges is None:
        raise UsageError("one of the arguments --data --edges is required")
    if args.edges is not None and args.task != "sbm":
        raise UsageError(f"--edges is an edge list, data for the sbm task; {args.task} reads "
                         "rows: give --data X.csv")
    if args.data is not None and args.task == "sbm":
        raise UsageError("--data is rows; the sbm task reads a graph: give --edges E.csv")
    if args.epsilon is None and args.rho is None:
        raise UsageError("one of the arguments --epsilon --rho is required")


def _account(args: argparse.Namespace) -> dict[str, Any]:
    if args.mechanism == "gaussian":
        if args.sigma is None:
            raise UsageError("--mechanism gaussian needs --sigma")
        event = PrivacyEvent("gaussian", mu=args.sensitivity / args.sigma, count=args.count)
    else:
        if args.scale is None:
            raise UsageError("--mechanism laplace needs --scale")
        event = PrivacyEvent("laplace", epsilon=args.sensitivity / args.scale, count=args.count)
    method = "linear" if args.delta == 0 else args.method  # as Budget does
    epsilon = compose([event], args.delta, method, paper_mode=args.paper_mode)
    return {"epsilon": epsilon, "delta": args.delta, "rho": total_rho([event]),
            "method": method}


def _params(args: argparse.Namespace, extra: Sequence[str]) -> dict[str, Any]:
    """The estimator's parameters from ``--set NAME=VALUE`` and ``--name VALUE`` flags.

    A budget parameter (``seed``, ``epsilon`` …) has its own flag and is refused here, as
    are the names of :func:`dpviz.run`'s other arguments (``task``, ``data``, ``rng`` …).
    """
    from dpviz.estimators.registry import COMMON_PARAMS
    from dpviz.estimators.run import run

    flags = {p.name: "--" + p.name.replace("_", "-") + ("" if p.type == "bool" else " {}")
             for p in COMMON_PARAMS}
    params: dict[str, Any] = {}
    for item in args.set:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--set takes NAME=VALUE, got {item!r}")
        params[name.strip()] = value.strip()
    it = iter(extra)
    for flag in it:
        if not flag.startswith("--"):
            raise UsageError(f"unexpected argument {flag!r}")
        name, sep, inline = flag[2:].partition("=")
        value = inline if sep else next(it, None)
        if value is None:
            raise UsageError(f"{flag} needs a value")
        params[name.replace("-", "_")] = value
    for name, value in params.items():
        if name in flags:
            raise UsageError(f"{name} is not an estimator parameter: give it as "
                             f"{flags[name].format(value)}")
        if name in inspect.signature(run).parameters:
            raise UsageError(f"{name} is not an estimator parameter (`python -m dpviz list` "
                             "names them)")
    return params


def _run(args: argparse.Namespace, extra: Sequence[str]) -> dict[str, Any]:
    """``run``: the scenario of the flags (or a card's), run as the pages and sweeps run one."""
    from dpviz.data import read_file
    from dpviz.lab.scenario import load_data, run_scenario

    if args.card is not None:
        from dpviz.lab.card import read_card, run_card

        if extra:
            raise UsageError(f"--card replays the card as recorded; remove {' '.join(extra)}")
        card = read_card(args.card)
        if args.data is not None and "upload" not in card["scenario"]["data"]:
            raise UsageError("--data gives the uploaded file of a card made from an upload; "
                             "this card reads its data itself: remove --data")
        content = None if args.data is None else read_file(args.data)
        folder = os.path.dirname(os.path.abspath(args.card))  # the card reads beside itself
        return run_card(card, base=folder, content=content).to_dict()
    given = args.data if args.edges is None else args.edges
    content = read_file(given, what="the CSV")
    scenario = _scenario(args, extra, given)
    loaded = load_data(scenario.data, content=content)
    result = run_scenario(scenario, loaded)
    out = result.to_dict()
    if scenario.data.get("bounds") is None and args.data is not None and _default_ball(
            out["choices"]):
        warnings.warn(NO_BOUND, UserWarning, stacklevel=2)
    if getattr(args, "intervals", False):
        # post-processing of the released values and public inputs: nothing more is charged;
        # asked for, so a card's replay and the run it records print the same JSON
        from dpviz.lab.intervals import intervals

        rows = int(loaded.data.shape[0]) if getattr(loaded.data, "ndim", 0) == 2 else 0
        out["intervals"] = intervals(scenario, result, rows).to_dict()
        if scenario.task == "covariance":  # its matrix's entries, beside its eigenvalues
            out["intervals"]["entries"] = intervals(scenario, result, rows,
                                                    part="entries").to_dict()
    if getattr(args, "expected", False) and args.data is not None and not result.failed:
        # the page's prediction (public inputs, and grid means', EMCov's or AdaptiveCov's own
        # release: post-processing); asked for, since it simulates for seconds and the run's
        # JSON must stay the same for the same seed
        from dpviz.lab.expectation import for_run

        found = for_run(scenario, result, loaded.data.shape)
        if found is not None:
            out["expected"] = {key: value for key, value in found.to_dict().items()
                               if key != "seconds"} | {"sentence": found.sentence()}
    return out


#: What ``run`` says on stderr when a table gets no bound (a sentence from public inputs:
#: how many rows were clipped is not private, so it is not said).
NO_BOUND = ("no bound given: every row outside the unit ball B(0, 1) is clipped onto it; give "
            "one with --bounds R (a ball of radius R about the origin), --bounds LOW:HIGH,... "
            "(a range per column, from what you know of the columns, not from the data) or "
            "--bounds private:SHARE (ranges estimated privately with that share of the budget)")


def _default_ball(choices: dict[str, Any]) -> bool:
    """Whether the run clipped its rows to the default unit ball (no bound given)."""
    import numpy as np

    from dpviz.privacy.bounds import Ball

    return str(choices.get("bound", "")).startswith(Ball(np.zeros(1), 1.0, "default").describe())


def _bounds_radius(text: str) -> float | None:
    """``--bounds R``: the radius R of a ball about the origin, or ``None`` for other forms."""
    try:
        radius = float(text)
    except ValueError:
        return None
    try:
        return limits.RADIUS.check(radius)
    except ValueError:
        raise UsageError(f"--bounds R is the radius of a ball about the origin: it must be > 0 "
                         f"and <= {limits.RADIUS.high:g}, got {text.strip()}") from None


def _scenario(args: argparse.Namespace, extra: Sequence[str], path: str) -> Any:
    """The :class:`~dpviz.lab.scenario.Scenario` of ``run``'s and ``card``'s flags."""
    from dpviz.lab.scenario import Scenario

    params = _params(args, extra)
    data: dict[str, Any] = {"csv": path}
    radius = args.radius
    bounds = getattr(args, "bounds", None)
    if bounds is not None:
        if args.edges is not None or args.radius is not None:
            raise UsageError("--bounds bounds the columns of --data's CSV; give it or --radius, "
                             "not both, and not with --edges")
        radius = _bounds_radius(bounds)
        if radius is None:
            data["bounds"] = bounds
    if args.edges is not None:
        data = {"edges": path, "n": params.pop("n", None)}
    budget = {"epsilon": args.epsilon, "delta": args.delta, "rho": args.rho,
              "accounting": args.accounting, "radius": radius,
              "paper_mode": args.paper_mode}
    return Scenario.from_dict({"task": args.task, "estimator": args.estimator, "data": data,
                               "params": {**budget, **params}, "seed": args.seed})


def _card(args: argparse.Namespace, extra: Sequence[str]) -> dict[str, Any]:
    """``card``: the scenario of ``run``'s flags, run and recorded (:mod:`dpviz.lab.card`)."""
    from dpviz.data import read_file
    from dpviz.lab.card import make_card

    given = args.data if args.edges is None else args.edges
    content = read_file(given)  # read once: the card's hash is of the bytes it runs on
    return make_card(_scenario(args, extra, _card_data_path(given, args.out)), content=content)


def _card_data_path(given: str, out: str | None) -> str:
    """The data path a card records: relative to its folder, where ``run --card`` reads it.

    Without ``--out`` (the card on stdout) the path as typed. A file outside the card's folder
    is recorded by its name, with a warning to copy it beside the card.
    """
    if out is None:
        return given
    folder = os.path.dirname(os.path.abspath(out))
    where = os.path.abspath(given)
    if os.path.commonpath([folder, where]) == folder:
        return os.path.relpath(where, folder)
    name = os.path.basename(where)
    warnings.warn(f"the data file {given} is outside the card's folder, and run --card reads "
                  f"data only there: copy it beside the card as {name} to replay it",
                  UserWarning, stacklevel=2)
    return name


def _add_solve_arguments(command: argparse.ArgumentParser) -> None:
    """``solve``: ``run``'s flags, a generator for the simulated data, the target."""
    _add_run_arguments(command)
    command.add_argument("--generator", help="simulate data from this generator (`list` "
                                             "names them); its parameters with --set-data")
    command.add_argument("--set-data", action="append", default=[], metavar="NAME=VALUE",
                         help="a generator parameter (n, d, k, seed, ...)")
    command.add_argument("--dataset", help="a bundled data set instead of a generator")
    command.add_argument("--target", required=True, metavar="METRIC=VALUE",
                         help="e.g. mean_error=0.1 (errors: at most; overlap, adjusted_rand, "
                              "test_log_likelihood: at least)")
    command.add_argument("--probability", type=float, default=None,
                         help="share of simulated runs that must meet the target (default: "
                              "the pages' default)")
    command.add_argument("--runs", type=int, default=None,
                         help="simulated runs per point (default: the pages' default)")
    command.add_argument("--for", dest="solve_for", choices=("epsilon", "n"),
                         default="epsilon", help="solve for the budget (epsilon, or rho when "
                                                 "--rho is given) or for n at that budget")
    command.add_argument("--low", type=float, default=None, help="lower end of the search")
    command.add_argument("--high", type=float, default=None, help="upper end of the search")
    command.add_argument("--out", help="write the JSON here instead of stdout")


def _solve(args: argparse.Namespace, extra: Sequence[str]) -> dict[str, Any]:
    """``solve``: the question's answer (:meth:`dpviz.lab.solve.Question.solve`), or n's."""
    from dpviz.lab.solve import solve_n

    question = _solve_question(args, extra)
    if args.solve_for == "n":
        return solve_n(question.scenario, metric=question.target.metric,
                       target=question.target.value, probability=question.probability,
                       runs=question.runs, low=args.low, high=args.high).to_dict()
    return question.solve(low=args.low, high=args.high).to_dict()


def _solve_question(args: argparse.Namespace, extra: Sequence[str]) -> Any:
    """The :class:`~dpviz.lab.solve.Question` of ``solve``'s flags: the page's, for its command.

    Built by :func:`dpviz.lab.solve.ask`, as the page builds its own, so the command a page
    shows (:meth:`~dpviz.lab.solve.Question.command`) asks the page's question.
    """
    from dpviz.lab.scenario import Scenario
    from dpviz.lab.solve import PROBABILITY_DEFAULT, RUNS, ask, parse_target

    if args.task is None or args.estimator is None:
        raise UsageError("solve needs TASK and ESTIMATOR (e.g. `solve gmm dp_em --generator "
                         "gmm --set-data n=10000 --target mean_error=0.1`)")
    sources = [flag for flag, value in (("--generator", args.generator),
                                        ("--dataset", args.dataset), ("--data", args.data),
                                        ("--edges", args.edges)) if value is not None]
    if len(sources) != 1:
        raise UsageError("solve needs exactly one of --generator, --dataset (or --data / "
                         f"--edges, which it refuses), got {', '.join(sources) or 'none'}")
    if args.set_data and args.generator is None:
        raise UsageError("--set-data sets a generator's parameters: give --generator")
    data: dict[str, Any] = {"dataset": args.dataset}
    if args.generator is not None:
        data = {"generator": args.generator}
        for item in args.set_data:
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise UsageError(f"--set-data takes NAME=VALUE, got {item!r}")
            data[name.strip()] = value.strip()
    elif args.data is not None:
        data = {"csv": args.data}
    elif args.edges is not None:
        data = {"edges": args.edges, "n": 2}
    target = parse_target(args.task, args.target)
    epsilon = args.epsilon if args.epsilon is not None or args.rho is not None else 1.0
    budget = {"epsilon": epsilon, "delta": args.delta, "rho": args.rho,
              "accounting": args.accounting, "radius": args.radius,
              "paper_mode": args.paper_mode}
    scenario = Scenario.from_dict({"task": args.task, "estimator": args.estimator,
                                   "data": data, "params": {**budget, **_params(args, extra)},
                                   "seed": args.seed})
    return ask(scenario, metric=target.metric, target=target.value,
               probability=PROBABILITY_DEFAULT if args.probability is None else args.probability,
               runs=RUNS if args.runs is None else args.runs)


def _emit(payload: dict[str, Any], out: str | None) -> None:
    from dpviz.estimators.result import to_json_value

    text = json.dumps(to_json_value(payload), allow_nan=False, indent=None)
    if out:
        try:
            Path(out).write_text(text + "\n")
        except OSError as err:
            raise UsageError(f"cannot write --out {out}: {err.strerror}") from None
    else:
        sys.stdout.write(text + "\n")


def _add_risk_arguments(command: argparse.ArgumentParser) -> None:
    """``risk``: an (ε, δ) pair, or a plan of identical Gaussian or Laplace releases."""
    given = command.add_mutually_exclusive_group(required=True)
    given.add_argument("--epsilon", type=_epsilon)
    given.add_argument("--mechanism", choices=("gaussian", "laplace"))
    command.add_argument("--sensitivity", type=_number(limits.SENSITIVITY), default=1.0)
    noise = command.add_mutually_exclusive_group()
    noise.add_argument("--sigma", type=_number(limits.NOISE_SCALE), help="Gaussian σ")
    noise.add_argument("--scale", type=_number(limits.NOISE_SCALE), help="Laplace scale b")
    command.add_argument("--count", type=_number(limits.COUNT, integer=True), default=1)
    command.add_argument("--delta", type=_number(limits.DELTA), default=None,
                         help="δ of the posterior bound (default 0 with --epsilon, 1e-5 "
                              "with --mechanism)")


def _risk(args: argparse.Namespace) -> dict[str, Any]:
    from dpviz.privacy import risk

    if args.epsilon is not None:
        if args.sigma is not None or args.scale is not None:
            raise UsageError("--epsilon describes the guarantee alone; drop --sigma/--scale "
                             "or give --mechanism instead of --epsilon")
        return risk.risk_of_epsilon(args.epsilon, args.delta or 0.0).to_dict()
    scale = args.sigma if args.mechanism == "gaussian" else args.scale
    if scale is None:
        raise UsageError(f"--mechanism {args.mechanism} needs "
                         + ("--sigma" if args.mechanism == "gaussian" else "--scale"))
    delta = 1e-5 if args.delta is None else args.delta
    return risk.risk_of_plan(args.mechanism, args.sensitivity, scale, args.count,
                             delta).to_dict()


def _add_sweep_arguments(command: argparse.ArgumentParser) -> None:
    """``sweep``: the spec file, where the table goes, where the runs go."""
    command.add_argument("spec", help="the sweep spec, JSON (DESIGN.md, the sweep spec)")
    command.add_argument("--out", help="results.csv for CSV; any other name gets JSON lines "
                                       "(default: JSON lines on stdout)")
    command.add_argument("--jobs", type=_number(limits.Limit("--jobs", 1, 256), integer=True),
                         default=1, help="local processes (at most one per run to do and "
                                         "per core: more are capped, with a warning)")
    command.add_argument("--scheduler", help="tcp://HOST:PORT of a Dask distributed scheduler")
    command.add_argument("--cache-dir", help="where finished runs are kept (default "
                                             "$DPVIZ_CACHE_DIR or ~/.cache/dpviz/sweeps)")
    command.add_argument("--winner", metavar="FILE",
                         help="a grid with two keys: write the winner summary (per cell the "
                              "estimator with the best median of the first metric, its margin "
                              "and who failed) to FILE as JSON; it is always printed on stderr")


def _sweep(args: argparse.Namespace) -> None:
    """``sweep``: :func:`dpviz.lab.experiments.run_sweep`, progress on stderr."""
    from dpviz.data import read_file
    from dpviz.lab.experiments import SweepSpec, progress_line, run_sweep, write_table

    text = read_file(args.spec, what="the sweep spec").decode("utf-8", errors="replace")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise UsageError(f"the sweep spec {args.spec} is not JSON: {err}") from None
    # its data paths are read from its folder, and only inside it
    spec = SweepSpec.from_dict(raw, base=os.path.dirname(os.path.abspath(args.spec)))
    if args.winner is not None and len(spec.grid) != 2:
        raise UsageError(f"--winner needs a grid with two keys; this spec's grid has "
                         f"{len(spec.grid)}")
    shown = [-1]

    def progress(done: int, total: int, elapsed: float) -> None:
        step = done * 20 // max(total, 1)  # a line every 5%
        if step != shown[0]:
            shown[0] = step
            sys.stderr.write(f"dpviz: {progress_line(done, total, elapsed)}\n")

    table = run_sweep(spec, jobs=args.jobs, scheduler=args.scheduler,
                      cache_dir=args.cache_dir, progress=progress)
    try:
        text = write_table(table, args.out)
    except OSError as err:
        raise UsageError(f"cannot write --out {args.out}: {err.strerror}") from None
    if args.out is None:
        sys.stdout.write(text)
    _winner(spec, table, args.winner)


def _winner(spec: Any, table: Any, path: str | None) -> None:
    """``sweep``: a two-key grid's winner summary, on stderr and to ``--winner FILE``."""
    from dpviz.lab.experiments.winner import winner_summary

    summary = winner_summary(spec, table)
    if summary is None:
        return
    x, y = summary["axes"]
    for cell in summary["cells"]:
        won = ("no estimator succeeds" if cell["winner"] is None else
               f"a tie: {', '.join(cell['tied'])} (no lead established)" if cell["tied"] else
               f"{cell['winner']} (margin {cell['margin']:.2f})")
        failed = cell["failed"] + cell["not_run"]
        sys.stderr.write(f"dpviz: winner at {x} = {cell[x]}, {y} = {cell[y]}: {won}"
                         + (f"; failed: {', '.join(failed)}" if failed else "")
                         + (f"; not private, left out: {', '.join(cell['not_private'])}"
                            if cell["not_private"] else "") + "\n")
    if path is not None:
        try:
            Path(path).write_text(json.dumps(summary, indent=1, allow_nan=False) + "\n")
        except OSError as err:
            raise UsageError(f"cannot write --winner {path}: {err.strerror}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 2 bad input, 1 a bug)."""
    parser = _build_parser()

    def show_warning(message: Warning | str, category: type[Warning], *_: Any,
                     **__: Any) -> None:
        label = "not private" if issubclass(category, PrivacyLeakWarning) else "warning"
        text = str(message)
        sys.stderr.write(f"dpviz: {text if text.startswith(label) else label + ': ' + text}\n")

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # shown on stderr, never raised, whatever -W says
            warnings.showwarning = show_warning
            args, extra = parser.parse_known_args(argv)
            if args.command not in ("run", "card", "solve") and extra:
                raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
            if args.command == "list":
                from dpviz.estimators.registry import describe

                _emit(describe(), None)
            elif args.command == "account":
                _emit(_account(args), args.out)
            elif args.command == "risk":
                _emit(_risk(args), args.out)
            elif args.command == "card":
                _check_run(args)
                _emit(_card(args, extra), args.out)
            elif args.command == "solve":
                _emit(_solve(args, extra), args.out)
            elif args.command == "sweep":
                _sweep(args)
            else:
                _check_run(args)
                _emit(_run(args, extra), args.out)
    except (UsageError, ValueError) as err:
        sys.stderr.write(f"dpviz: {err}\n")
        return 2
    except RecursionError:  # JSON nested deeper than Python's stack: the input's doing
        sys.stderr.write("dpviz: the input is nested too deeply to read (JSON objects or lists "
                         "inside each other hundreds of levels deep)\n")
        return 2
    except MemoryError:  # the job's size: the input's doing
        sys.stderr.write("dpviz: out of memory: this job is too large for this machine; make "
                         "it smaller (fewer rows, dimensions or components) or run it as a "
                         "sweep on a Dask cluster (sweep --scheduler)\n")
        return 2
    except Exception as err:  # a bug: say so, exit 1
        sys.stderr.write(f"dpviz: internal error ({type(err).__name__}): {err}\n")
        return 1
    return 0
