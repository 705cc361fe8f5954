"""`--assign-streams` does the same work per op at every size: linear by count, not by clock.

`bench/streams.py` times the pass per op from 1k to 100k ops, but a time per op also grows
with the machine's caches (its control walk grows too).  This counts instead what the
interpreter executes: the Python lines run by the pass (its own and the xDSL code it calls),
through `sys.settrace`, on the bench's own shapes (`wide`, `deep`, `random`) in both modes,
at 500 and 8,000 compute ops (both sides of the transitive reduction's window of 1,024).
A quadratic step of the kind the pass once had (a re-sum of every stream per merge, a
pairwise filter at a join of thousands of producers) runs lines per pair, so lines per op
grow with the size; a linear pass runs the same lines per op.  Not counted: work inside a
builtin (a `sorted` or a `list.index` in a loop is one line per call, whatever it costs).

It also leaves nothing for the cyclic GC: a reference cycle among its working data (a
closure that calls itself holds its table of a tuple per op) would survive the pass until a
collection scans it, at the cost of the graph's size.
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import FrameType
from typing import TypeVar

import pytest
from xdsl.dialects.builtin import ModuleOp

from ge_dialect.ir.registry import make_context
from transforms.assign_streams import AssignStreamsPass, Mode

BENCH = Path(__file__).resolve().parents[3] / "bench"
SMALL, LARGE = 500, 8000
GROWTH = 1.1
"""Lines per op at LARGE may exceed those at SMALL by 10% (a 16x larger graph; a step that
is quadratic over the whole graph would give 16x, one over a join of the fan-out 16x)."""

T = TypeVar("T")


def bench_shapes() -> dict[str, Callable]:
    """The graph generators of `bench/streams.py`'s scaling section, by shape."""
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("streams").SHAPES
    finally:
        sys.path.remove(str(BENCH))


@contextmanager
def counting_lines() -> Iterator[list[int]]:
    """Counts the Python lines executed inside the block (in the one-item list it gives)."""
    count = [0]

    def local(frame: FrameType, event: str, arg: object) -> Callable:
        if event == "line":
            count[0] += 1
        return local

    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: local)
    try:
        yield count
    finally:
        sys.settrace(previous)


def numbers(n: int) -> list[int]:
    return list(range(n))


def lines_per_op(make: Callable[[], T], n_ops: int, run: Callable[[T], None]) -> float:
    subject = make()
    with counting_lines() as count:
        run(subject)
    return count[0] / n_ops


def test_the_counter_sees_a_quadratic_step():
    """The instrument itself: a pairwise loop shows as growth, a single loop as none."""

    def pairwise(items: list[int]) -> None:
        for a in items:
            for b in items:
                if a == b:
                    pass

    def single(items: list[int]) -> None:
        for a in items:
            if a:
                pass

    quadratic = [lines_per_op(partial(numbers, n), n, pairwise) for n in (50, 800)]
    linear = [lines_per_op(partial(numbers, n), n, single) for n in (50, 800)]
    assert quadratic[1] / quadratic[0] > 10
    assert linear[1] / linear[0] < GROWTH


@pytest.mark.parametrize("mode", ["labels", "auto"])
@pytest.mark.parametrize("shape", ["wide", "deep", "random"])
def test_lines_per_op_are_flat_from_500_to_8000_ops(shape: str, mode: Mode) -> None:
    make = bench_shapes()[shape]
    ctx = make_context()

    def run(module: ModuleOp) -> None:
        AssignStreamsPass(mode=mode).apply(ctx, module)

    small, large = (lines_per_op(partial(make, n, mode == "labels"), n, run)
                    for n in (SMALL, LARGE))
    assert large / small < GROWTH, (
        f"{shape}, mode {mode}: {small:.1f} lines per op at {SMALL} ops, {large:.1f} at {LARGE}"
    )


@pytest.mark.parametrize("mode", ["labels", "auto"])
def test_the_pass_leaves_no_cyclic_garbage(mode: Mode) -> None:
    """Everything the pass drops is freed by reference counting (the graph in the bench's
    `random` shape: no wait_tensor, whose erased op is a cycle of xDSL's own)."""
    module = bench_shapes()["random"](300, mode == "labels")
    ctx = make_context()
    gc.collect()
    gc.disable()
    try:
        AssignStreamsPass(mode=mode).apply(ctx, module)
        assert gc.collect() == 0
    finally:
        gc.enable()
