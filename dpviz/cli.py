"""The command line: ``python -m dpviz list | account | run`` (DESIGN.md, the command line).

Output is JSON on stdout (or ``--out FILE``). A bad argument or bad data prints one line to
stderr and exits with code 2; a bug exits with 1. Warnings go to stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import limits
from .privacy import METHODS, PrivacyEvent, compose, total_rho
from .privacy.errors import PrivacyLeakWarning


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

    run = sub.add_parser("run", help="run one estimator on a CSV")
    run.add_argument("task")
    run.add_argument("estimator")
    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", help="CSV, one row per person")
    source.add_argument("--edges", help="CSV edge list, two integer columns (vertex ids "
                                        "0 ... n-1; give --n), for the sbm task")
    budget = run.add_mutually_exclusive_group(required=True)
    budget.add_argument("--epsilon", type=_epsilon)
    budget.add_argument("--rho", type=_number(limits.RHO))
    run.add_argument("--delta", type=_number(limits.DELTA), default=0.0)
    run.add_argument("--accounting", choices=METHODS, default="zcdp")
    run.add_argument("--seed", type=_number(limits.SEED, integer=True), default=0)
    run.add_argument("--radius", default=None,
                     help="public radius of the clipping ball, or 'data' (not private)")
    run.add_argument("--paper-mode", action="store_true")
    run.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                     help="an estimator parameter, typed as `list` gives it")
    for command in (account, run):
        command.add_argument("--out", help="write the JSON here instead of stdout")
    return parser


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


def _run(args: argparse.Namespace, extra: Sequence[str]) -> dict[str, Any]:
    from . import run
    from .data import read_csv
    from .data.graphs import read_edges

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
    data: Any = read_edges(args.edges) if args.edges is not None else read_csv(args.data)
    raw_radius: str | None = args.radius
    radius: float | str | None = raw_radius
    if raw_radius is not None and raw_radius.strip().lower() != "data":
        radius = limits.RADIUS.check(raw_radius)
    result = run(args.task, args.estimator, data, epsilon=args.epsilon, delta=args.delta,
                 rho=args.rho, accounting=args.accounting, seed=args.seed, radius=radius,
                 paper_mode=args.paper_mode, **params)
    return result.to_dict()


def _emit(payload: dict[str, Any], out: str | None) -> None:
    from .result import to_json_value

    text = json.dumps(to_json_value(payload), allow_nan=False, indent=None)
    if out:
        try:
            Path(out).write_text(text + "\n")
        except OSError as err:
            raise UsageError(f"cannot write --out {out}: {err.strerror}") from None
    else:
        sys.stdout.write(text + "\n")


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
            if args.command != "run" and extra:
                raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
            if args.command == "list":
                from .registry import describe

                _emit(describe(), None)
            elif args.command == "account":
                _emit(_account(args), args.out)
            else:
                _emit(_run(args, extra), args.out)
    except (UsageError, ValueError) as err:
        sys.stderr.write(f"dpviz: {err}\n")
        return 2
    except Exception as err:  # a bug: say so, exit 1
        sys.stderr.write(f"dpviz: internal error ({type(err).__name__}): {err}\n")
        return 1
    return 0
