"""The one way the benchmarks time things: best of N wall-clock runs, and a stopwatch.

    t, module = measure(lambda: parse(text), repeat=3)
    t, fused = measure(lambda m: FusePass().apply(ctx, m), repeat=3, setup=module.clone)
    with stopwatch() as sw:
        build()
    print(sw.seconds)

Each timed run is preceded by a full garbage collection (not timed), so that garbage left
by the previous run is not collected on its clock.  `gc_enabled=False` also turns Python's
cyclic GC off while the run is timed: its collections scan the whole heap, so they grow with
the size of the data and hide whether the code itself scales linearly.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple


class Measurement(NamedTuple):
    """The best time in seconds and the result of the last run (see `measure`)."""

    seconds: float
    result: Any


@contextmanager
def _gc_off(off: bool) -> Iterator[None]:
    was_enabled = gc.isenabled()
    if off:
        gc.disable()
    try:
        yield
    finally:
        if off and was_enabled:
            gc.enable()


def measure(fn: Callable[..., Any], repeat: int = 3, *, setup: Callable[[], Any] | None = None,
            gc_enabled: bool = True) -> Measurement:
    """The best wall-clock time of `repeat` runs of `fn`, in seconds.

    Without `setup`, a run is `fn()` and the result is what the last run returned.  With
    `setup`, each run first calls `setup()` untimed (e.g. `module.clone`, so that every run
    works on a fresh copy), then times `fn(value)`, and the result is the last `value`
    (after `fn` ran on it: a pass mutates the module in place).
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    best, result = float("inf"), None
    for _ in range(repeat):
        args = [] if setup is None else [setup()]
        gc.collect()
        with _gc_off(not gc_enabled):
            start = time.perf_counter()
            value = fn(*args)
            elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        result = args[0] if args else value
    return Measurement(best, result)


@dataclass
class Stopwatch:
    """Seconds spent in a `with stopwatch()` block (set when the block exits)."""

    seconds: float = 0.0


@contextmanager
def stopwatch() -> Iterator[Stopwatch]:
    """Times one run of the `with` block: `with stopwatch() as sw: ...; sw.seconds`."""
    sw = Stopwatch()
    start = time.perf_counter()
    try:
        yield sw
    finally:
        sw.seconds = time.perf_counter() - start
