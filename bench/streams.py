"""Speed of --assign-streams, its cost per op from 1k to 100k ops, and the waits it keeps
against simpler synchronisation rules.

Two sections, in one process each:

**scaling** (`--section scaling`): three shapes built in memory with GraphBuilder (no text
is parsed), at `--scaling-sizes` compute ops (1k, 10k and 100k by default):

- `wide`: one relu fans out to n - 1 relus, every one a result: the return joins n
  producers (quadratic in the pass's earlier wait selection);
- `deep`: a chain of n relu / sigmoid ops;
- `random`: each op (relu, sigmoid or add) reads one or two earlier values, 80% among the
  last 8 and 20% anywhere before (long edges, beyond the reachability window).

For mode `auto` the shapes carry no label; for mode `labels` they carry some (every other
relu of `wide`, every other run of 16 ops of `deep`, runs of random labels in `random`), so
that labels mode has streams and events to place. It prints the time of the pass alone
(`AssignStreamsPass.apply` on a fresh clone) as microseconds per op with Python's cyclic GC
off, which shows whether the pass itself is linear (a flat row), and with the GC on as
ge-opt and `ge_dialect.api.compile` run passes (what their user pays): `compile` pauses the
GC while the passes run (`api.gc_paused`), so the row times the pass with the GC paused
plus the collection that the GC, on again, runs first (`gc.collect(0)`: it scans every
object the pass allocated and left alive, the records and waits it inserted among them, and
sends them on to the older generations), then the ratio of the largest size to the
smallest. What the row does not charge to the pass: the full collections that the new IR
brings closer (one runs once the objects that survived since the last one outnumber a
quarter of the heap; it scans the whole heap, here the module and its clone, 1 to 3 s at
100k ops), a cost of the heap's size that the program pays after the passes, amortized over
all it allocates. A caller of `apply` with the GC running pays one inside the pass when the
pass alone crosses that line: at 100k ops of `random` in mode `auto` (about 70k records and
waits, 550k new objects against a heap of 2.2M), the run then takes twice as long. The
column `full GCs in a run` counts the collections of the oldest generation in one timed run
with the GC on (the most over the runs): 0 when the pass runs as `compile` runs it. The
time is the process's CPU time (`--clock cpu`, the default: on a shared machine the wall
clock also counts the time other processes hold the cores), or the wall clock (`--clock
wall`). Each figure is the best of at least --repeat runs, and of more (up to 30, about 2 s
of runs) when runs are short (30 at 1k ops, --repeat at 100k); only the first size runs
once untimed first (to calibrate and warm up), the larger ones estimate their run count
from the smaller one. The smaller sizes are measured once more after the largest, and each
of their figures is the better of the two rounds (on a shared machine, a burst of load from
others then spoils one round, minutes apart from the other, rather than the figure).
Modules are built and cloned with the GC paused (not timed: at 100k ops the full
collections a growing heap triggers cost more than the building); a full collection
precedes every run with the GC on (as in `timer.measure`), and a collection of the youngest
generation, where a run with the GC off leaves its clone, follows every such run.

The control row `walk` visits every op's operands, attributes and uses (the best of as many
walks of one clone): its growth per op is the machine's (caches on a larger heap: a 1k
graph about fits in a core's cache, a 100k one in none), not an algorithm's. A second table
divides each figure by the walk's at the same size, which takes that growth out. At 1k ops
the transitive reduction's window (`REACH_WINDOW`, 1024 ops) spans the whole function, so
that step does about half its work per op there, a small part of the whole. What the clock
cannot separate from the caches, `test/unit/test_assign_streams_work.py` counts: the Python
lines the pass runs per op on these shapes, flat within 10% from 500 to 8,000 ops (a
quadratic step shows there whatever the machine). The labelled shapes open a scope per op;
GraphBuilder gives every scope of one label the same attribute (uniqued, as in MLIR), so
the pass reads one label object per label, as on a graph whose scopes span many ops.  Their
labels have `inner_parallel = false`: one stream per label, the classic allocation (a label
with inner parallelism is spread by the same steps as mode auto, measured by its rows).

**waits** (`--section waits`): graphs of about `--sizes` ops (1k and 10k by default) with
parallel branches (a trunk that forks into 2..6 branches of relu / sigmoid / matmul chains
with cross-branch reads and `wait_tensor` edges, joined by a concat + matmul, with an
occasional all-reduce), for which it prints:

- the time of `AssignStreamsPass` against xDSL's `CanonicalizePass` on fresh copies of the
  same module (the copies are made before the clock starts; best of --repeat);
- from the pass's stream assignment (the `stream.id` of each op of the result) and the
  dependencies recovered from a copy of the input (data edges, wait_tensor edges, the fork
  from the function entry to the first op of every side stream and the join of every side
  stream's last op into `func.return`), the number of waits kept by:
    * one wait per cross-stream edge;
    * GE's pairwise rules (its stream allocator's): OptimizeBySendEvents (one sender, several
      receivers on one stream: keep the first), then OptimizeByRecvEvents (several senders
      on one stream, one receiver: keep the last);
    * XLA's RemoveRedundantDependencyEdges: per (dst stream, src stream), a watermark
      `last_dependency` of the latest source already waited for (sources in operand order);
    * the pass itself (the `stream.wait` ops of the result).

  Two assignments per size: `auto` (no labels; the pass chooses up to 8 streams) and
  `labels` (branch k > 0 under the label "L{k % 4}", the trunk unlabelled).

    python bench/streams.py [--section all|scaling|waits] [--scaling-sizes 1000 10000 100000]
                            [--shapes wide deep random] [--clock cpu|wall] [--sizes 1000 10000]
                            [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Literal, TypeVar, cast

import numpy as np
from timer import measure
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.transforms.canonicalize import CanonicalizePass

from ge_dialect.api import gc_paused
from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.ir.dialects import ge, stream
from ge_dialect.ir.registry import make_context
from transforms.assign_streams import AssignStreamsPass

D = 16
N_LABELS = 4
ENTRY = -1
Mode = Literal["labels", "auto", "single"]


def generate(n_ops: int, labelled: bool, seed: int = 0) -> ModuleOp:
    """About `n_ops` ge ops: fork / branches with cross reads and waits / join, repeated."""
    rnd = random.Random(seed)
    nrng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    x = b.input("x", [D, D])
    y = b.input("y", [D, D])
    w = b.const((nrng.standard_normal((D, D)) / D).astype(np.float32))
    trunk = b.add(x, y)
    count = 1
    while count < n_ops:
        width = rnd.randint(2, 6)
        heads: list[Tensor] = [trunk] * width
        for _ in range(rnd.randint(3, 12)):
            for k in range(width):
                scope = (b.stream_switch(f"L{k % N_LABELS}", k % N_LABELS)
                         if labelled and k > 0 else contextlib.nullcontext())
                with scope:
                    r = rnd.random()
                    other = heads[rnd.randrange(width)]
                    if r < 0.08 and other is not heads[k]:
                        heads[k] = b.add(heads[k], other)  # a cross-branch read
                    elif r < 0.12 and other is not heads[k]:
                        heads[k] = Tensor(b, heads[k].value)  # a fresh handle to rebind
                        b.wait_tensor(heads[k], other)
                        heads[k] = b.relu(heads[k])
                    elif r < 0.45:
                        heads[k] = b.matmul(heads[k], w)
                    elif r < 0.75:
                        heads[k] = b.relu(heads[k])
                    else:
                        heads[k] = b.sigmoid(heads[k])
                    count += 1
        cat = b.concat(heads, axis=1)
        wide = b.const((nrng.standard_normal((D * width, D)) / (D * width)).astype(np.float32))
        trunk = b.matmul(cat, wide)
        count += 2
        if rnd.random() < 0.2:
            trunk = b.hcom_all_reduce(trunk)
            count += 1
    return b.build([trunk])


# ------------------------------------------------------------------------------------------
# Dependencies and the baselines
# ------------------------------------------------------------------------------------------


def function_block(module: ModuleOp) -> Block:
    (fn,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    return fn.body.block


def dependencies(module: ModuleOp) -> tuple[list[str], list[list[int]], bool]:
    """From the input: the compute ops (no const, no wait_tensor) in block order, the
    return last, and for each the producers it waits for (ENTRY for arguments), through
    wait_tensor chains, in operand order."""
    block = function_block(module)
    index: dict[Operation, int] = {}
    sources: dict[SSAValue, list[int]] = {}

    def sources_of(value: SSAValue) -> list[int]:
        if value not in sources:
            owner = value.owner
            if isinstance(owner, Block):
                found = [ENTRY]
            elif isinstance(owner, ge.ConstOp):
                found = []
            elif isinstance(owner, stream.WaitTensorOp):
                found = list(dict.fromkeys(sources_of(owner.input) + sources_of(owner.dependency)))
            else:
                found = [index[owner]]
            sources[value] = found
        return sources[value]

    names: list[str] = []
    preds: list[list[int]] = []
    for op in block.ops:
        if isinstance(op, ge.ConstOp | stream.WaitTensorOp):
            continue
        index[op] = len(names)
        names.append(op.name)
        preds.append(list(dict.fromkeys(s for v in op.operands for s in sources_of(v))))
    return names, preds, bool(block.args)


def assignment(module: ModuleOp) -> tuple[list[str], list[int], int]:
    """From the result: names and stream ids of the compute ops in block order (the return
    on stream 0), and the number of kept waits."""
    names: list[str] = []
    ids: list[int] = []
    waits = 0
    for op in function_block(module).ops:
        if isinstance(op, stream.WaitOp):
            waits += 1
        if isinstance(op, ge.ConstOp | stream.RecordOp | stream.WaitOp):
            continue
        names.append(op.name)
        sid = 0 if isinstance(op, func.ReturnOp) else stream.stream_of(op)
        assert sid is not None, f"{op.name} has no stream after assign-streams"
        ids.append(sid)
    return names, ids, waits


def node_stream(u: int, ids: list[int]) -> int:
    """The stream of node `u` (ENTRY, the function entry, is on stream 0)."""
    return 0 if u == ENTRY else ids[u]


def cross_edges(preds: list[list[int]], ids: list[int], has_args: bool) -> list[tuple[int, int]]:
    """Cross-stream edges (u, v) by consumer in order, producers in operand order; the fork
    (entry -> first op of a side stream) and the join (last op of a side stream -> return)
    come after the data edges of their consumer."""
    exit_node = len(ids) - 1
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for v, s in enumerate(ids[:-1]):
        first.setdefault(s, v)
        last[s] = v
    edges = []
    for v, ps in enumerate(preds):
        extra = []
        if has_args and ids[v] != 0 and first.get(ids[v]) == v:
            extra = [ENTRY]
        if v == exit_node:
            extra = [last[s] for s in sorted(last) if s != 0]
        for u in dict.fromkeys(ps + extra):
            if node_stream(u, ids) != ids[v]:
                edges.append((u, v))
    return edges


def ge_rules(edges: list[tuple[int, int]], ids: list[int]) -> int:
    """GE's OptimizeBySendEvents then OptimizeByRecvEvents."""
    # by send: per receiving stream, a sender that already sent to an earlier node of that
    # stream drops its later events (edges are sorted by receiver, i.e. in stream order)
    sent: set[tuple[int, int]] = set()
    kept = []
    for u, v in sorted(edges, key=lambda e: e[1]):
        if (u, ids[v]) in sent:
            continue
        sent.add((u, ids[v]))
        kept.append((u, v))
    # by recv: per sending stream, a receiver keeps only the latest sender of that stream
    latest: dict[tuple[int, int], int] = {}
    for u, v in kept:
        key = (v, node_stream(u, ids))
        latest[key] = max(latest.get(key, ENTRY - 1), u)
    return len(latest)


def xla_rule(edges: list[tuple[int, int]], ids: list[int]) -> int:
    """XLA's last_dependency[dst stream][src stream] watermark, consumers in total order."""
    last_dependency: dict[tuple[int, int], int] = {}
    kept = 0
    for u, v in edges:  # already by consumer, sources in operand order
        key = (ids[v], node_stream(u, ids))
        if u <= last_dependency.get(key, ENTRY - 1):
            continue
        last_dependency[key] = u
        kept += 1
    return kept


# ------------------------------------------------------------------------------------------
# Running
# ------------------------------------------------------------------------------------------


def run(n_ops: int, mode: Mode, repeat: int) -> None:
    module = generate(n_ops, labelled=(mode == "labels"))
    n = sum(1 for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const")
    ctx = make_context()
    assign = AssignStreamsPass(mode=mode)
    # each run on a fresh copy of the module (copying is not timed)
    t_assign, _ = measure(lambda m: assign.apply(ctx, m), repeat, setup=module.clone)
    t_canon, _ = measure(lambda m: CanonicalizePass().apply(ctx, m), repeat, setup=module.clone)

    names_in, preds, has_args = dependencies(module.clone())
    result = module.clone()
    assign.apply(ctx, result)
    names_out, ids, kept = assignment(result)
    assert names_in == names_out, "the pass reordered or replaced ops"
    edges = cross_edges(preds, ids, has_args)
    streams = Counter(ids[:-1])
    n_deps = sum(len(p) for p in preds)

    print(f"{n} ge ops, mode {mode}: {len(streams)} streams "
          f"(ops per stream {', '.join(str(streams[s]) for s in sorted(streams))})")
    print(f"  time     assign-streams {t_assign:7.3f} s ({n / t_assign:,.0f} ops/s)   "
          f"canonicalize {t_canon:7.3f} s   ratio {t_assign / t_canon:.2f}x")
    print(f"  waits    {n_deps} dependencies, {len(edges)} cross-stream (fork and join included)")
    print(f"           one per cross-stream edge {len(edges):6d}")
    print(f"           GE send/recv rules        {ge_rules(edges, ids):6d}")
    print(f"           XLA last_dependency       {xla_rule(edges, ids):6d}")
    print(f"           assign-streams (exact)    {kept:6d}")


# ------------------------------------------------------------------------------------------
# Scaling: cost per op on wide, deep and random graphs
# ------------------------------------------------------------------------------------------


def _scope(b: GraphBuilder, label: str | None) -> contextlib.AbstractContextManager:
    if label is None:
        return contextlib.nullcontext()
    return b.stream_switch(label, enable_inner_parallel=False)


def wide(n_ops: int, labelled: bool) -> ModuleOp:
    """One relu fanning out to n_ops - 1 relus; every relu is a result."""
    b = GraphBuilder("main")
    a = b.relu(b.input("x", [D, D]))
    outs = [a]
    for i in range(n_ops - 1):
        with _scope(b, f"L{i % N_LABELS}" if labelled and i % 2 else None):
            outs.append(b.relu(a))
    # the names build() would choose (out0, out1, ...), given: choosing them looks each one
    # up in the list of those before it, quadratic in the number of results
    return b.build(outs, output_names=[f"out{i}" for i in range(len(outs))])


def deep(n_ops: int, labelled: bool) -> ModuleOp:
    """A chain of n_ops relu / sigmoid ops; labelled: every other run of 16 ops."""
    b = GraphBuilder("main")
    y = b.input("x", [D, D])
    for i in range(n_ops):
        run_ = i // 16
        with _scope(b, f"L{run_ // 2 % N_LABELS}" if labelled and run_ % 2 else None):
            y = b.relu(y) if i % 2 else b.sigmoid(y)
    return b.build([y])


def random_dag(n_ops: int, labelled: bool, seed: int = 0) -> ModuleOp:
    """Each op reads one or two earlier values: 80% among the last 8, 20% anywhere."""
    rnd = random.Random(seed)
    b = GraphBuilder("main")
    pool = [b.input("x", [D, D])]
    label: str | None = None

    def pick() -> Tensor:
        if rnd.random() < 0.8:
            return pool[-1 - rnd.randrange(min(8, len(pool)))]
        return pool[rnd.randrange(len(pool))]

    for _ in range(n_ops):
        if labelled and rnd.random() < 0.05:  # labels come in runs, as scopes do
            label = rnd.choice([None, None, *(f"L{k}" for k in range(N_LABELS))])
        with _scope(b, label):
            r = rnd.random()
            if r < 0.5:
                pool.append(b.add(pick(), pick()))
            else:
                pool.append(b.relu(pick()) if r < 0.75 else b.sigmoid(pick()))
    return b.build([pool[-1]])


SHAPES: dict[str, Callable[[int, bool], ModuleOp]] = {
    "wide": wide, "deep": deep, "random": random_dag}


def touch(module: ModuleOp) -> int:
    """A trivially linear walk (every op's operands, attributes and result uses): the
    control row, whose growth per op is the machine's (caches on a larger heap), not an
    algorithm's."""
    seen = 0
    for op in module.walk():
        seen += len(op.operands) + len(op.attributes)
        for result in op.results:
            seen += sum(1 for _ in result.uses)
    return seen


BUDGET = 2.0
"""Seconds of runs per figure at small sizes (at most 30 runs, at least --repeat)."""


class _FullCollections:
    """Counts the collections of the oldest generation while it is registered."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            self.count += 1


def _timed_runs(fn: Callable[[ModuleOp], object], module: ModuleOp, gc_on: bool, runs: int,
                clock: str) -> tuple[float, int]:
    """The best of `runs` runs of `fn` on fresh clones of `module` (the clone is not timed),
    in seconds of CPU or wall time, and the most full collections one run triggered.

    Every run has the GC paused, as `api.compile` runs passes.  With the GC on, a full
    collection precedes each run, as in `timer.measure` (each run starts from the same
    state of the GC), and the time includes the collection of the youngest generation that
    the GC runs first once it is on again: it scans all the pass allocated and left alive.
    With the GC off, that collection follows the run untimed: the clone and all the run made
    are still in the youngest generation, and it frees them at the cost of their own size
    rather than of the whole heap (at 10k ops a full collection takes longer than the
    pass)."""
    full = _FullCollections()
    best, most = math.inf, 0
    gc.collect()
    for _ in range(runs):
        clone = _without_gc(module.clone)
        if gc_on:
            gc.collect()
        full.count = 0
        gc.callbacks.append(full)
        try:
            start_cpu, start_wall = time.process_time(), time.perf_counter()
            with gc_paused():  # (as `api.compile` runs passes)
                fn(clone)
            if gc_on:  # the first collection once the GC is on again
                gc.collect(0)
            cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
        finally:
            gc.callbacks.remove(full)
        best = min(best, cpu if clock == "cpu" else wall)
        most = max(most, full.count)
        del clone
        if not gc_on:
            gc.collect(0)
    return best, most


def _walk_runs(module: ModuleOp, runs: int, clock: str) -> float:
    """The best of `runs` walks (`touch`) of one fresh clone of `module`, GC off."""
    clone = _without_gc(module.clone)
    gc.collect()
    best = math.inf
    with gc_paused():
        for _ in range(runs):
            start_cpu, start_wall = time.process_time(), time.perf_counter()
            touch(clone)
            cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
            best = min(best, cpu if clock == "cpu" else wall)
    return best


T = TypeVar("T")


def _without_gc(make: Callable[[], T]) -> T:
    """`make()` with the cyclic GC off: building or cloning a module of 100k ops allocates
    millions of objects, and the full collections that would trigger meanwhile (each one
    scanning the growing heap) cost more than the building itself.  Not timed either way;
    the collections around the timed runs (`_timed_runs`) free what they leave."""
    with gc_paused():
        return make()


def _runs(estimate: float, repeat: int) -> int:
    """Runs for a figure whose one run takes about `estimate` seconds: `--repeat`, or more
    for short runs (on a shared machine the best of many is the least disturbed figure)."""
    return max(repeat, min(30, math.ceil(BUDGET / max(estimate, 1e-6))))


def scaling(shapes: list[str], sizes: list[int], modes: list[Mode], repeat: int,
            clock: str) -> None:
    ctx = make_context()
    what = "CPU time of this process" if clock == "cpu" else "wall-clock time"
    print(f"assign-streams, microseconds per compute op ({what}; the pass alone on a fresh "
          f"clone, best of {repeat} to 30 runs), GC off and on (paused in the pass, as "
          f"api.compile runs it, then a young collection); `walk` is the control")
    header = " ".join(f"{f'{n:,}':>9s}" for n in sizes)
    last = f"{sizes[-1]:,} / {sizes[0]:,}"
    print(f"{'shape':8s} {'mode':7s} {'GC':4s} {header}   {last:>17s}  full GCs in a run",
          flush=True)
    relative: list[str] = []  # the second table
    # shape -> its largest growth: the pass's, the walk's, the pass's in units of the walk
    growth: dict[str, tuple[float, float, float]] = {}
    for shape in shapes:
        best: dict[tuple[str, bool], dict[int, float]] = {}  # microseconds per op, by size
        fulls: dict[tuple[str, bool], dict[int, int]] = {}
        per_op: dict[tuple[str, bool], float] = {}  # the last size's figure, for estimates

        def keep(key: tuple[str, bool], n: int, seconds: float, n_ops: int,
                 best: dict = best, per_op: dict = per_op) -> None:
            figure = seconds / n_ops * 1e6
            best.setdefault(key, {})[n] = min(best.get(key, {}).get(n, math.inf), figure)
            per_op[key] = seconds / n_ops

        # the smaller sizes once more after the largest: each of their figures is the better
        # of two rounds, minutes apart (a burst of load from others spoils one, not both)
        for n in [*sizes, *sizes[:-1]]:
            # one module at a time: the labelled one (labels mode first) goes before the
            # unlabelled one (the other modes', the walk's) is built, so that the heap the GC
            # scans holds one module and its clone
            unlabelled: ModuleOp | None = None
            for mode in [*sorted(modes, key=lambda m: m != "labels"), "walk"]:
                if mode == "labels":
                    module = _without_gc(partial(SHAPES[shape], n, True))
                else:
                    if unlabelled is None:
                        unlabelled = _without_gc(partial(SHAPES[shape], n, False))
                    module = unlabelled
                n_ops = sum(1 for op in module.walk()
                            if op.name.startswith("ge.") and op.name != "ge.const")
                if mode == "walk":
                    estimate = per_op.get((mode, False), 2e-6) * n_ops
                    seconds = _walk_runs(module, _runs(estimate, repeat), clock)
                    keep((mode, False), n, seconds, n_ops)
                    continue
                run_pass = partial(AssignStreamsPass(mode=cast(Mode, mode)).apply, ctx)
                for gc_on in (False, True):
                    key = (mode, gc_on)
                    if key in per_op:  # from the size before: no calibration run
                        runs = _runs(per_op[key] * n_ops, repeat)
                    else:  # one untimed run to calibrate (and warm up)
                        first, _ = _timed_runs(run_pass, module, gc_on, 1, clock)
                        runs = _runs(first, repeat)
                    seconds, most = _timed_runs(run_pass, module, gc_on, runs, clock)
                    keep(key, n, seconds, n_ops)
                    fulls.setdefault(key, {})[n] = max(fulls.get(key, {}).get(n, 0), most)
                if mode == "labels":
                    del module
                    gc.collect()
            del unlabelled, module
            gc.collect()
        rows = {key: [figures[n] for n in sizes] for key, figures in best.items()}
        walk = rows[("walk", False)]
        passes = [values for (mode, _), values in rows.items() if mode != "walk"]
        growth[shape] = (
            max(v[-1] / v[0] for v in passes),
            walk[-1] / walk[0],
            max(v[-1] / v[0] / (walk[-1] / walk[0]) for v in passes),
        )
        for (mode, gc_on), values in rows.items():
            cells = " ".join(f"{v:9.2f}" if mode == "walk" else f"{v:9.1f}" for v in values)
            collections = (" ".join(str(fulls[(mode, gc_on)][n]) for n in sizes) if gc_on else
                           "-" if mode != "walk" else "")
            print(f"{shape:8s} {mode:7s} {'on' if gc_on else 'off':4s} {cells}   "
                  f"{values[-1] / values[0]:16.2f}x  {collections}", flush=True)
            if mode != "walk":
                ratios = [v / w for v, w in zip(values, walk, strict=True)]
                cells = " ".join(f"{r:9.2f}" for r in ratios)
                relative.append(f"{shape:8s} {mode:7s} {'on' if gc_on else 'off':4s} {cells}   "
                                f"{ratios[-1] / ratios[0]:16.2f}x")
    print()
    print("the same in units of the control: per-op cost / the walk's per-op cost at that size")
    print(f"{'shape':8s} {'mode':7s} {'GC':4s} {header}   {last:>17s}")
    print("\n".join(relative), flush=True)
    print()
    print(f"largest growth from {sizes[0]:,} to {sizes[-1]:,} ops (1.30x or less is flat):")
    for shape, (raw, control, units) in growth.items():
        print(f"{shape:8s} the pass {raw:.2f}x, the walk {control:.2f}x, "
              f"the pass in units of the walk {units:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=["all", "scaling", "waits"], default="all")
    parser.add_argument("--scaling-sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--modes", nargs="+", default=["labels", "auto"],
                        choices=["auto", "labels", "single"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                        help="scaling: CPU time of the process (default: steadier on a loaded "
                             "machine) or wall-clock time")
    args = parser.parse_args()
    if args.section in ("all", "scaling"):
        scaling(args.shapes, args.scaling_sizes, args.modes, args.repeat, args.clock)
    if args.section in ("all", "waits"):
        for size in args.sizes:
            for mode in args.modes:
                run(size, mode, args.repeat)


if __name__ == "__main__":
    main()
