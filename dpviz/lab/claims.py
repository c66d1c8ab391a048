"""The claims register: every number a page, caption or saved result states, re-measured.

``assets/claims.toml`` lists each claim: where it is stated, what it says, the check that
re-measures it and the tolerance that check applies. A check is a function of the lab,
``module:function``, called as ``check(fresh)``: with ``fresh`` its runs draw their seeds
from OS entropy (a held-out re-run), without it from fixed seeds (a repeatable test). It
returns a :class:`Measured`. ``python -m dpviz.lab.claims`` (``make claims``) runs them all
with fresh seeds and prints what fails; ``make test`` runs those marked ``fast`` with fixed
seeds (``tests/test_claims.py``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The register.
REGISTER = Path(__file__).resolve().parents[2] / "assets" / "claims.toml"
#: The fields every claim gives.
FIELDS = ("name", "where", "states", "check", "tolerance", "fast")


@dataclass(frozen=True)
class Measured:
    """What a check found: whether the claim holds within its tolerance, and the figures."""

    ok: bool
    text: str


@dataclass(frozen=True)
class Claim:
    """One entry of the register (:data:`FIELDS`)."""

    name: str
    where: str
    states: str
    check: str
    tolerance: str
    fast: bool

    def function(self) -> Callable[[bool], Measured]:
        """The check, imported from its ``module:function``."""
        module, _, name = self.check.partition(":")
        if not module.startswith("dpviz.") or not name:
            raise ValueError(f"claim {self.name!r}: a check is dpviz.MODULE:FUNCTION, got "
                             f"{self.check!r}")
        return getattr(importlib.import_module(module), name)

    def run(self, fresh: bool) -> Measured:
        """Re-measure the claim."""
        return self.function()(fresh)


def read_register(path: Path = REGISTER) -> tuple[Claim, ...]:
    """The claims of the register, checked for their fields and unique names."""
    entries = tomllib.loads(path.read_text()).get("claim", [])
    out: list[Claim] = []
    for entry in entries:
        missing = [f for f in FIELDS if f not in entry]
        extra = sorted(set(entry) - set(FIELDS))
        if missing or extra:
            raise ValueError(f"claim {entry.get('name', '?')!r}: missing {missing}, unknown "
                             f"{extra}")
        out.append(Claim(**{f: entry[f] for f in FIELDS}))
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise ValueError("claim names repeat: " + ", ".join(sorted(
            {n for n in names if names.count(n) > 1})))
    return tuple(out)


def seeds(fresh: bool, count: int, salt: int = 0) -> list[int]:
    """``count`` seeds: from OS entropy when ``fresh``, else fixed (derived from ``salt``).

    Examples
    --------
    >>> seeds(False, 3, 1) == seeds(False, 3, 1), len(seeds(True, 5))
    (True, 5)
    """
    sequence = np.random.SeedSequence() if fresh else np.random.SeedSequence([0xC1A1, salt])
    return [int(s) for s in sequence.generate_state(count, dtype=np.uint32)]


def main(argv: Sequence[str] | None = None) -> int:
    """``make claims``: re-measure every claim (or those named) with fresh seeds."""
    parser = argparse.ArgumentParser(prog="python -m dpviz.lab.claims",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="only these claims")
    parser.add_argument("--fast", action="store_true", help="only the fast claims")
    parser.add_argument("--fixed", action="store_true",
                        help="fixed seeds (the test's) instead of fresh ones")
    args = parser.parse_args(argv)
    claims = read_register()
    unknown = sorted(set(args.names) - {c.name for c in claims})
    if unknown:
        print(f"unknown claims: {', '.join(unknown)}", file=sys.stderr)
        return 2
    chosen = [c for c in claims if (not args.names or c.name in args.names)
              and (c.fast or not args.fast)]
    failed = []
    for claim in chosen:
        start = time.perf_counter()
        measured = claim.run(fresh=not args.fixed)
        mark = "ok  " if measured.ok else "FAIL"
        print(f"{mark} {claim.name} ({time.perf_counter() - start:.1f} s): {measured.text}",
              flush=True)
        if not measured.ok:
            failed.append(claim)
    print(f"{len(chosen) - len(failed)} of {len(chosen)} claims hold"
          + (f"; failing: {', '.join(c.name for c in failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
