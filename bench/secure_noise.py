"""Secure randomness against seeded numpy draws, in one process (issue 33, items 1–2).

``make bench`` calls :func:`bench_secure_noise` from ``bench/run.py``; ``python
bench/secure_noise.py`` prints the same entries alone. Every ratio is paired
(:func:`bench.paired.paired_ms`: the two calls timed turn about, judged on process CPU time)
under one BLAS thread; the discrete sampler itself is single-threaded. Entries:

* ``secure_raw_gaussian_1e5`` / ``secure_raw_laplace_1e5``: 10⁵ draws through
  :func:`dpviz.privacy.add_noise` from a secure generator (the exact discrete sampler on its
  grid, :mod:`dpviz.privacy.discrete_noise`) against numpy's ``Generator.normal`` /
  ``laplace`` of 10⁵; targets ≤ 10× and ≤ 5×. ``detail`` has ns per draw.
* ``secure_sbm_page_engine``: weak recovery at the /sbm defaults (n = 1 000, d = 100,
  ε_s = 0.5, ε = 2) on a secure generator, an ε move (the projection cached by a first call),
  against the same seeded; target < 500 ms.
* ``secure_covariance_page_engine``: the /covariance page's move (gauss, separate, adaptive and
  zero on cached prepared data at n = 10 000, d = 50, ρ = 0.1) secure against seeded; target
  ratio ≤ 2.
* ``secure_gmm_page_engine``: DP-EM at the /gmm defaults, secure against seeded; < 1 000 ms.
* ``secure_sampler_first_call_s``: a fresh process's first secure draw (numba loading its
  cached machine code), seconds.
* ``secure_words_per_draw_gaussian`` / ``_laplace``: DRBG words one draw reads on average,
  over :data:`WORD_DRAWS` draws at scale 1, against
  :data:`dpviz.privacy.discrete_noise.WORDS_PER_DRAW` (which sizes each purchase of words).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import dpviz  # noqa: E402
from bench.paired import paired_ms  # noqa: E402
from dpviz.data import gaussian_mixture  # noqa: E402
from dpviz.data.graphs import stochastic_block_model  # noqa: E402
from dpviz.data.zipf import zipf_norm_data  # noqa: E402
from dpviz.estimators.covariance import ESTIMATORS as COVARIANCE  # noqa: E402
from dpviz.estimators.covariance import prepare  # noqa: E402
from dpviz.estimators.sbm.weak import prepare_graph  # noqa: E402
from dpviz.privacy import Budget, add_noise, discrete_noise, secure_generator  # noqa: E402

RAW_DRAWS = 100_000
WORD_DRAWS = 400_000
RAW_TARGETS = {"gaussian": 10.0, "laplace": 5.0}
SBM_TARGET_MS = 500.0
COVARIANCE_TARGET = 2.0
GMM_TARGET_MS = 1000.0
THREADS = "1 BLAS thread (OPENBLAS_NUM_THREADS=1); the sampler is single-threaded"
FIRST_CALL = ("import time, numpy as np; t = time.perf_counter(); "
              "from dpviz.privacy import add_noise, secure_generator; "
              "add_noise('gaussian', np.zeros(10), 1.0, secure_generator()); "
              "add_noise('laplace', np.zeros(10), 1.0, secure_generator()); "
              "print(time.perf_counter() - t)")


def _raw(b: Any) -> None:
    zeros = np.zeros(RAW_DRAWS)
    seeded = np.random.default_rng(0)
    for mechanism, draw in (("gaussian", seeded.normal), ("laplace", seeded.laplace)):
        timed = paired_ms(lambda m=mechanism: add_noise(m, zeros, 1.0, secure_generator()),
                          lambda d=draw: d(0.0, 1.0, RAW_DRAWS))
        target = RAW_TARGETS[mechanism]
        b.add(f"secure_raw_{mechanism}_1e5", timed.value_ms, "ms", baseline=timed.baseline_ms,
              baseline_name=f"numpy Generator.{draw.__name__}, 10⁵ draws",
              target=f"ratio ≤ {target:g}", meets=timed.ratio <= target,
              note=f"10⁵ {mechanism} releases of zeros through add_noise on a secure generator: "
                   "rounded to the grid, exact discrete noise (Canonne-Kamath-Steinke 2020) "
                   f"from OpenSSL's DRBG; {THREADS}",
              detail={**timed.detail(),
                      "ns_per_draw": round(timed.value_ms * 1e6 / RAW_DRAWS, 1),
                      "numpy_ns_per_draw": round(timed.baseline_ms * 1e6 / RAW_DRAWS, 1)})


def _one_call_ms(fn: Callable[[], Any], repeats: int) -> float:
    """The median CPU milliseconds of ``repeats`` single calls."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(1e3 * (time.process_time() - start))
    return float(np.median(times))


def _sbm(b: Any) -> None:
    graph = stochastic_block_model(1000, 100.0, 0.5, seed=0)  # the /sbm defaults
    prepared = prepare_graph(graph, degree=100.0, signal=0.5)  # projected once, as the page does

    def move(**randomness: Any) -> Any:
        return dpviz.run("sbm", "weak_recovery", prepared, epsilon=2.0, delta=1e-6,
                         degree=100.0, signal=0.5, **randomness)

    baseline = _one_call_ms(lambda: move(seed=0), 5)
    value = _one_call_ms(lambda: move(rng=secure_generator()), 5)
    b.add("secure_sbm_page_engine", value, "ms", baseline=baseline,
          baseline_name="the same ε move, seeded (numpy's floating-point draws)",
          target=f"value < {SBM_TARGET_MS:g} ms", meets=value < SBM_TARGET_MS,
          note="weak recovery at the /sbm defaults (n = 1 000, d = 100, ε_s = 0.5, ε = 2), an ε "
               "move on the cached projection: n(n − 1)/2 = 499 500 discrete Gaussian entries; "
               f"median CPU time of 5 calls; {THREADS}")


def _covariance(b: Any) -> None:
    data = zipf_norm_data(10_000, 50, buckets=4, seed=0)
    prepared = prepare(data.data, None)

    def move(rng: Callable[[], np.random.Generator]) -> Callable[[], None]:
        def run() -> None:
            for name in ("gauss", "separate", "adaptive", "zero"):
                COVARIANCE[name].function(prepared, Budget(rho=0.1), rng=rng())
        return run

    timed = paired_ms(move(secure_generator), move(lambda: np.random.default_rng(0)),
                      turns=7)
    b.add("secure_covariance_page_engine", timed.value_ms, "ms", baseline=timed.baseline_ms,
          baseline_name="the same move, seeded (numpy's floating-point draws)",
          target=f"ratio ≤ {COVARIANCE_TARGET:g}", meets=timed.ratio <= COVARIANCE_TARGET,
          note="gauss + separate + adaptive + zero on cached prepared data at n = 10 000, "
               f"d = 50, ρ = 0.1, N = 4 (the /covariance defaults), secure; {THREADS}",
          detail=timed.detail())


def _gmm(b: Any) -> None:
    mix = gaussian_mixture(3, 2, 10_000, separation=6, seed=0)

    def page(**randomness: Any) -> Any:
        return dpviz.run("gmm", "dp_em", mix.data, k=3, epsilon=1.0, delta=1e-5,
                         radius=mix.radius, **randomness)

    timed = paired_ms(lambda: page(rng=secure_generator()), lambda: page(seed=0), turns=7)
    b.add("secure_gmm_page_engine", timed.value_ms, "ms", baseline=timed.baseline_ms,
          baseline_name="the same run, seeded (numpy's floating-point draws)",
          target=f"value < {GMM_TARGET_MS:g} ms", meets=timed.value_ms < GMM_TARGET_MS,
          note=f"dpviz.run DP-EM at the /gmm defaults on a secure generator; {THREADS}",
          detail=timed.detail())


def _first_call(b: Any) -> None:
    seconds = [float(subprocess.run([sys.executable, "-c", FIRST_CALL], cwd=ROOT, check=True,
                                    capture_output=True, text=True).stdout) for _ in range(3)]
    b.add("secure_sampler_first_call_s", float(np.median(seconds)), "s",
          note="a fresh process importing dpviz.privacy and making its first Gaussian and "
               "Laplace secure draws: numba loads the sampler's cached machine code "
               "(compiled once per install, cache=True); median of 3 processes")


def _words(b: Any) -> None:
    """Words per draw: every purchase counted, each sized to need none beyond the draws."""
    for mechanism in RAW_TARGETS:
        bought: list[int] = []
        buy = discrete_noise._random_words

        def counted(count: int, buy: Callable[[int], Any] = buy,
                    bought: list[int] = bought) -> Any:
            bought.append(count)
            return buy(count)

        with (mock.patch.object(discrete_noise, "_random_words", counted),
              mock.patch.object(discrete_noise, "WORDS_PER_DRAW", dict.fromkeys(
                  discrete_noise.WORDS_PER_DRAW, 0.0))):
            discrete_noise.add_discrete_noise(mechanism, np.zeros(WORD_DRAWS), 1.0)
        # at most MIN_WORDS of the last purchase go unread
        used = (sum(bought) - discrete_noise.MIN_WORDS / 2) / WORD_DRAWS
        stated = discrete_noise.WORDS_PER_DRAW[mechanism]
        b.add(f"secure_words_per_draw_{mechanism}", used, "words",
              target=f"≤ {stated} (WORDS_PER_DRAW, rounded up)", meets=used <= stated,
              note=f"{WORD_DRAWS:,} {mechanism} draws at scale 1 on its grid; each purchase "
                   "sized to the draws left, so the words bought are the words read, within "
                   f"{discrete_noise.MIN_WORDS}")


def bench_secure_noise(b: Any) -> None:
    """Secure mode's cost beside seeded numpy, every entry measured in this process."""
    with threadpool_limits(limits=1):
        _raw(b)
        _sbm(b)
        _covariance(b)
        _gmm(b)
    _words(b)
    _first_call(b)


if __name__ == "__main__":
    from bench.run import Bench

    bench = Bench(min_time=0.25, repeats=7)
    bench_secure_noise(bench)
