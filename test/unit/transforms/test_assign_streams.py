"""`--assign-streams` (transforms/assign_streams.py) checked against an independent oracle.

The oracle reads the pass's *result IR* only (it imports nothing from the pass):

- happens-before nodes are the ops of the function in block order, each on its
  `stream.id`, plus a virtual entry at the start of stream 0 and `func.return` at the end
  of stream 0; edges are consecutive ops of one stream and `stream.record -> stream.wait`;
- the dependencies come from the ORIGINAL module (before the pass): every data edge
  producer -> consumer (constants need nothing, function arguments come from the entry),
  every `stream.wait_tensor %x after %dep` edge (%dep's producer -> the users of the
  wait's result, through chains of waits), the fork (entry -> first compute op of every
  stream, when the function has arguments) and the join (last compute op of every
  stream -> func.return).

It checks (1) the graph is acyclic, (2) every dependency is ordered, (3) minimality:
removing any single kept `stream.wait` breaks some dependency, (4) no wait_tensor remains,
every op but the terminator has a stream, labels are kept, one label = one stream with
inner_parallel = false (at most max-streams sub-streams with true), distinct labels and
unlabelled ops never share a stream, the automatic streams respect max-streams, (5) ops are not reordered, and
(6) the reference interpreter computes identical outputs before and after.

Hypothesis draws random DAGs through `GraphBuilder`: 4x4 f32 tensors; relu, sigmoid, add,
mul, matmul, concat (+ a matmul back to 4x4) and occasional hcom_all_reduce; random
`stream_switch` labels (priority fixed per label, random inner_parallel), random
`wait_tensor` edges; modes labels / auto / single (single only without labels) and
max-streams 1..8.  A small-graph test shrinks to readable counterexamples; a large one goes
up to a few hundred ops.  Reachability uses Python-int bitsets.  Directed tests pin the
oracle itself (it must reject a missing, a redundant and a cyclic wait) and a few cases
where pairwise rules (GE, XLA) keep a wait the pass drops.  Outside the oracle, tests read
the recorded report, drive the deadlock check on hand-made blocks (a cycle; a wait before
its record without a cycle), and check the graph algorithms of `ge_dialect.utils.graphs`
against brute force (matching, windowed transitive reduction, lowest reachable targets,
chain cover).  The linear-time steps are checked against the quadratic code they replaced
(the merge of the lightest chains, negative and zero weights included, the ineffective
multi-stream moves, the kept-wait filter at a join, Hopcroft-Karp before its greedy first
phase), functions in nested modules are assigned in walk order, and a fan-out of 200
branches goes through the oracle.
"""

from __future__ import annotations

import os
import contextlib
import itertools
import re
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import PassPipeline
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.utils.errors import GeError
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.ir.interpreter import run_function
from ge_dialect.utils import graphs
from ge_dialect.ir.verify import verify_module
from transforms import get_all_passes, reports
from transforms.assign_streams import (
    AssignStreamsPass,
    InternalError,
    Mode,
    StreamReport,
    _assign,
    _build_graph,
    _check_deadlock_free,
    _not_implied,
    _remove_ineffective_multi_stream,
)
from helpers.support import ROOT

SHAPE = (4, 4)
COLLECTIVES = (ge.HcomAllReduceOp, ge.HcomAllGatherOp)
STREAM_OPS = (stream.RecordOp, stream.WaitOp)


# --------------------------------------------------------------------------------------
# The dependencies of the original module
# --------------------------------------------------------------------------------------


@dataclass
class Original:
    """What the oracle needs from the module before the pass (ops are kept by identity:
    the pass rewrites the block in place)."""

    ops: list[Operation]  # block order, wait_tensors left out, consts and the return kept
    compute: list[Operation]  # the ops that do work: not const, wait_tensor nor return
    deps: list[tuple[Operation | None, Operation]]  # producer (None = entry) -> consumer
    labels: dict[Operation, stream.LabelAttr]
    has_args: bool
    has_collective: bool
    clone: ModuleOp  # untouched copy, for the interpreter


def function_block(module: ModuleOp) -> Block:
    (fn,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    return fn.body.block


def original_of(module: ModuleOp) -> Original:
    block = function_block(module)
    sources: dict[SSAValue, frozenset] = {}

    def sources_of(value: SSAValue) -> frozenset:
        """The ops `value` waits for: its producer, through wait_tensor chains."""
        if value not in sources:
            owner = value.owner
            found: frozenset[Operation | None]
            if isinstance(owner, Block):
                found = frozenset([None])
            elif isinstance(owner, ge.ConstOp):
                found = frozenset()
            elif isinstance(owner, stream.WaitTensorOp):
                found = sources_of(owner.input) | sources_of(owner.dependency)
            else:
                found = frozenset([owner])
            sources[value] = found
        return sources[value]

    ops: list[Operation] = []
    compute: list[Operation] = []
    deps: list[tuple[Operation | None, Operation]] = []
    labels: dict[Operation, stream.LabelAttr] = {}
    position: dict[Operation, int] = {}
    for op in block.ops:
        if isinstance(op, stream.WaitTensorOp):
            continue
        position[op] = len(ops)
        ops.append(op)
        label = op.attributes.get(stream.LABEL)
        if isinstance(label, stream.LabelAttr):
            labels[op] = label
        if isinstance(op, ge.ConstOp):
            continue
        if not isinstance(op, func.ReturnOp):
            compute.append(op)
        found: set = set()
        for operand in op.operands:
            found |= sources_of(operand)
        # deterministic order: entry first, then producers in block order
        for u in sorted(found, key=lambda o: -1 if o is None else position[o]):
            deps.append((u, op))
    return Original(
        ops,
        compute,
        deps,
        labels,
        bool(block.args),
        any(isinstance(op, COLLECTIVES) for op in compute),
        module.clone(),
    )


# --------------------------------------------------------------------------------------
# The happens-before oracle on the result
# --------------------------------------------------------------------------------------


class Oracle:
    """Happens-before of stream order and record -> wait edges, from the result IR."""

    def __init__(self, block: Block):
        ops = list(block.ops)
        assert isinstance(ops[-1], func.ReturnOp)
        self.ret = ops[-1]
        self.body = ops[:-1]
        # node 0: entry, nodes 1..n: block ops, node n+1: the return
        self.nodes: list[Operation | None] = [None, *self.body, self.ret]
        self.index = {op: i for i, op in enumerate(self.nodes) if op is not None}
        self.exit = len(self.nodes) - 1
        self.stream: list[int] = [0] * len(self.nodes)
        for i, op in enumerate(self.body, start=1):
            sid = op.attributes.get(stream.ID)
            assert isinstance(sid, stream.StreamIdAttr), f"{op.name} has no stream.id"
            self.stream[i] = sid.id.data
        self.preds: list[list[int]] = [[] for _ in self.nodes]
        self.stream_pred: list[int | None] = [None] * len(self.nodes)
        last: dict[int, int] = {0: 0}  # stream -> last node; the entry opens stream 0
        for i in range(1, self.exit):
            s = self.stream[i]
            if s in last:
                self.preds[i].append(last[s])
                self.stream_pred[i] = last[s]
            last[s] = i
            node = self.nodes[i]
            if isinstance(node, stream.WaitOp):
                record = node.event.owner
                assert isinstance(record, Operation) and record in self.index, (
                    "a wait's event is not from a record of this block")
                self.preds[i].append(self.index[record])
        self.preds[self.exit].append(last[0])
        self.waits = [i for i in range(1, self.exit) if isinstance(self.nodes[i], stream.WaitOp)]
        self.order = self._topological(self.preds)

    def _topological(self, preds: list[list[int]]) -> list[int] | None:
        """Kahn's algorithm; None when there is a cycle."""
        indegree = [len(set(p)) for p in preds]
        succs: list[list[int]] = [[] for _ in preds]
        for v, ps in enumerate(preds):
            for u in set(ps):
                succs[u].append(v)
        ready = [v for v in range(len(preds)) if indegree[v] == 0]
        order = []
        while ready:
            u = ready.pop()
            order.append(u)
            for v in succs[u]:
                indegree[v] -= 1
                if indegree[v] == 0:
                    ready.append(v)
        return order if len(order) == len(preds) else None

    def ancestors(self, without: int | None = None) -> list[int]:
        """Bitset of the nodes that happen before each node; `without` removes one wait
        (its stream predecessor then precedes its stream successor directly)."""
        assert self.order is not None
        anc = [0] * len(self.nodes)
        for v in self.order:
            if v == without:
                continue
            bits = 0
            for u in self.preds[v]:
                if u == without:
                    p = self.stream_pred[u]
                    if p is not None:
                        bits |= anc[p] | (1 << p)
                else:
                    bits |= anc[u] | (1 << u)
            anc[v] = bits
        return anc


@dataclass
class Result:
    module: ModuleOp
    oracle: Oracle
    requirements: list[tuple[int, int, str]]  # (before, after, why), oracle node indices


def requirements_of(orig: Original, oracle: Oracle) -> list[tuple[int, int, str]]:
    def node(op: Operation | None) -> int:
        return 0 if op is None else oracle.index[op]

    reqs = [(node(u), node(v), f"{'entry' if u is None else u.name} -> {v.name}")
            for u, v in orig.deps]
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for op in orig.compute:
        i = oracle.index[op]
        first.setdefault(oracle.stream[i], i)
        last[oracle.stream[i]] = i
    for s in sorted(first):
        if orig.has_args:
            reqs.append((0, first[s], f"fork: entry -> first op of stream {s}"))
        reqs.append((last[s], oracle.exit, f"join: last op of stream {s} -> func.return"))
    return reqs


def broken(requirements, anc: list[int]) -> list[str]:
    return [why for u, v, why in requirements if not (anc[v] >> u) & 1]


def check_ordering(orig: Original, module: ModuleOp, check_minimal: bool = True) -> Oracle:
    """Properties (1) acyclic, (2) every dependency ordered, (3) no kept wait implied."""
    oracle = Oracle(function_block(module))
    assert oracle.order is not None, "stream order and record -> wait edges form a cycle"
    reqs = requirements_of(orig, oracle)
    anc = oracle.ancestors()
    missing = broken(reqs, anc)
    assert not missing, f"dependencies not ordered: {missing[:5]}"
    if check_minimal:
        for w in oracle.waits:
            if not broken(reqs, oracle.ancestors(without=w)):
                wait = oracle.nodes[w]
                assert isinstance(wait, stream.WaitOp)
                record = wait.event.owner
                assert isinstance(record, stream.RecordOp)
                what = ", ".join(str(v.owner.name) if isinstance(v.owner, Operation) else "arg"
                                 for v in record.operands)
                raise AssertionError(
                    f"redundant wait on stream {oracle.stream[w]} for the record of ({what}) "
                    f"on stream {stream.stream_of(record)}: the other waits imply it"
                )
    return oracle


def check_structure(orig: Original, module: ModuleOp, mode: str, max_streams: int) -> None:
    """Properties (4) streams and labels and (5) no reordering."""
    block = function_block(module)
    after = list(block.ops)
    assert not any(isinstance(op, stream.WaitTensorOp) for op in after)
    for op in after[:-1]:
        assert isinstance(op.attributes.get(stream.ID), stream.StreamIdAttr), f"{op.name} has no stream.id"
    assert stream.ID not in after[-1].attributes
    # (5) the original ops, same objects, same order; only records and waits were added
    assert [op for op in after if not isinstance(op, STREAM_OPS)] == orig.ops
    # every record is waited for, every wait is on another stream than its record
    waited = {op.event.owner for op in after if isinstance(op, stream.WaitOp)}
    for op in after:
        if isinstance(op, stream.WaitOp):
            assert stream.stream_of(op) != recorded_on(op)
    for op in after:
        if isinstance(op, stream.RecordOp):
            assert op in waited, "a record nobody waits for"
    for op, label in orig.labels.items():
        assert op.attributes.get(stream.LABEL) == label, f"{op.name} lost its stream.label"
    sid = {op: stream_id(op) for op in orig.compute}
    used = set(sid.values())
    assert used | {0} == set(range(max(used | {0}) + 1)), f"stream ids have holes: {sorted(used)}"
    if mode == "single":
        assert used <= {0}
        assert not any(isinstance(op, STREAM_OPS) for op in after)
        return
    label_streams: dict[str, set[int]] = {}
    serial: dict[str, set[int]] = {}
    for op, label in orig.labels.items():
        if op in sid:
            label_streams.setdefault(label.label.data, set()).add(sid[op])
            if not label.inner_parallel.data:
                serial.setdefault(label.label.data, set()).add(sid[op])
    for name, streams in serial.items():
        assert len(streams) == 1, f'label "{name}" is spread over streams {sorted(streams)}'
    for name, streams in label_streams.items():
        assert len(streams) <= max_streams, f'label "{name}" has {len(streams)} sub-streams'
    owner: dict[int, str] = {}
    for name, streams in label_streams.items():
        for s in streams:
            assert s not in owner, f'labels "{owner[s]}" and "{name}" share stream {s}'
            owner[s] = name
    for op in orig.compute:
        if op not in orig.labels:
            assert sid[op] not in owner, f"unlabelled {op.name} on the stream of label {owner[sid[op]]}"
    plain = {s for s in used if s not in owner}
    budget = (max_streams if mode == "auto" else 1) + (1 if orig.has_collective else 0)
    assert len(plain) <= budget, f"{len(plain)} unlabelled streams, at most {budget} expected"


def check_numbers(orig: Original, module: ModuleOp, seed: int = 0) -> None:
    """Property (6): the reference interpreter gives identical outputs before and after."""
    block = function_block(orig.clone)
    rng = np.random.default_rng(seed)
    shapes = [a.type.get_shape() for a in block.args if isinstance(a.type, TensorType)]
    assert len(shapes) == len(block.args)
    inputs = [rng.uniform(-1, 1, tuple(shape)).astype(np.float32) for shape in shapes]
    with np.errstate(all="ignore"):
        before = run_function(orig.clone, inputs)
        after = run_function(module, inputs)
    assert len(before) == len(after)
    for b, a in zip(before, after):
        assert b.dtype == a.dtype and np.array_equal(b, a, equal_nan=True)


def assign(module: ModuleOp, mode: Mode = "labels", max_streams: int = 8, numbers: bool = True,
           minimal: bool = True) -> Result:
    """Runs the pass in place on `module` and checks every property; returns the result."""
    orig = original_of(module)
    AssignStreamsPass(mode=mode, max_streams=max_streams, report=True).apply(make_context(), module)
    report = "\n".join(str(r) for r in reports.take(module))
    verify_module(module, "<assigned>")
    check_structure(orig, module, mode, max_streams)
    oracle = check_ordering(orig, module, check_minimal=minimal)
    if numbers:
        check_numbers(orig, module)
    requirements = requirements_of(orig, oracle)
    # the report counts what the IR holds: kept waits, and cross-stream dependencies
    # (data, wait_tensor, fork and join edges between different streams)
    match = re.search(r"events: (\d+) kept, (\d+) dropped of (\d+) cross-stream", report)
    assert match, report
    kept, dropped, total = map(int, match.groups())
    cross = {(u, v) for u, v, _ in requirements if oracle.stream[u] != oracle.stream[v]}
    assert (kept, kept + dropped, total) == (len(oracle.waits), total, len(cross)), report
    return Result(module, oracle, requirements)


def waits_of(module: ModuleOp) -> list[stream.WaitOp]:
    return [op for op in function_block(module).ops if isinstance(op, stream.WaitOp)]


def stream_id(op: Operation) -> int:
    """The stream of an assigned op."""
    sid = stream.stream_of(op)
    assert sid is not None, f"{op.name} has no stream.id"
    return sid


def recorded_on(wait: stream.WaitOp) -> int:
    """The stream of the record `wait` waits for."""
    record = wait.event.owner
    assert isinstance(record, stream.RecordOp)
    return stream_id(record)


# --------------------------------------------------------------------------------------
# Random DAGs
# --------------------------------------------------------------------------------------


@dataclass
class Recipe:
    """A random graph: what Hypothesis drew, replayable through GraphBuilder."""

    n_inputs: int
    labels: list[tuple[str, int]]  # name, priority (one per label)
    steps: list[tuple]  # (kind, label index or None, inner_parallel, operand picks...)
    outputs: list[int]
    mode: Mode
    max_streams: int

    def build(self) -> ModuleOp:
        b = GraphBuilder("main")
        pool: list[Tensor] = [b.input(f"x{i}", SHAPE) for i in range(self.n_inputs)]
        rng = np.random.default_rng(len(self.steps))

        def const(shape) -> Tensor:
            return b.const((rng.standard_normal(shape) / shape[0]).astype(np.float32))

        for kind, label, inner, *picks in self.steps:
            operands = [pool[p % len(pool)] for p in picks]
            scope = (b.stream_switch(self.labels[label][0], self.labels[label][1], inner)
                     if label is not None else contextlib.nullcontext())
            with scope:
                if kind == "const":
                    pool.append(const(SHAPE))
                elif kind == "wait":
                    if operands[0] is not operands[1]:
                        b.wait_tensor(operands[0], operands[1])
                elif kind == "relu":
                    pool.append(b.relu(operands[0]))
                elif kind == "sigmoid":
                    pool.append(b.sigmoid(operands[0]))
                elif kind == "add":
                    pool.append(b.add(operands[0], operands[1]))
                elif kind == "mul":
                    pool.append(b.mul(b.sigmoid(operands[0]), operands[1]))
                elif kind == "matmul":
                    pool.append(b.matmul(operands[0], operands[1]))
                elif kind == "matmul_const":
                    pool.append(b.matmul(operands[0], const(SHAPE)))
                elif kind == "concat":
                    cat = b.concat(operands, axis=1)
                    pool.append(b.matmul(cat, const((4 * len(operands), 4))))
                elif kind == "all_reduce":
                    pool.append(b.hcom_all_reduce(operands[0]))
                else:  # pragma: no cover
                    raise AssertionError(kind)
        outs = [pool[o % len(pool)] for o in self.outputs] + [pool[-1]]
        return b.build(outs)


KINDS = ["relu", "sigmoid", "add", "mul", "matmul", "matmul_const", "concat", "all_reduce",
         "wait", "const"]
WEIGHTS = [14, 10, 16, 8, 8, 6, 5, 2, 8, 3]
ARITY = {"relu": 1, "sigmoid": 1, "add": 2, "mul": 2, "matmul": 2, "matmul_const": 1,
         "all_reduce": 1, "wait": 2, "const": 0}


@st.composite
def recipes(draw, min_steps: int, max_steps: int) -> Recipe:
    n_inputs = draw(st.integers(0, 3))
    mode = draw(st.sampled_from(["labels", "auto", "single"]))
    n_labels = 0 if mode == "single" else draw(st.integers(0, 4))
    labels = [(str(draw(st.sampled_from(["1", "2", "comm", "x", "7"]))) + f"_{i}",
               draw(st.integers(0, 3))) for i in range(n_labels)]
    max_streams = draw(st.integers(1, 8))
    label_density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.8]))
    locality = draw(st.sampled_from([0, 3, 8]))  # 0: operands anywhere; k: among the last k
    inner_default = draw(st.booleans())
    n_steps = draw(st.integers(min_steps, max_steps))
    # an op that is not a wait or const needs something to read
    steps: list[tuple] = [] if n_inputs else [("const", None, True)]
    cumulative = np.cumsum(WEIGHTS)
    current_label = None
    for _ in range(n_steps):
        kind = KINDS[int(np.searchsorted(cumulative, draw(st.integers(0, int(cumulative[-1]) - 1)),
                                         side="right"))]
        if labels and draw(st.integers(0, 9)) < 4:  # labels come in runs, as scopes do
            current_label = (draw(st.integers(0, len(labels) - 1))
                             if draw(st.floats(0, 1)) < label_density else None)
        inner = inner_default if draw(st.integers(0, 9)) else not inner_default
        arity = ARITY.get(kind, 0) if kind != "concat" else draw(st.integers(2, 3))
        picks = []
        for _ in range(arity):
            raw = draw(st.integers(0, 2**16))
            picks.append(-1 - raw % locality if locality and draw(st.booleans()) else raw)
        steps.append((kind, current_label if labels else None, inner, *picks))
    outputs = draw(st.lists(st.integers(0, 2**16), max_size=3))
    return Recipe(n_inputs, labels, steps, outputs, mode, max_streams)


def check_recipe(recipe: Recipe) -> None:
    module = recipe.build()
    assign(module, recipe.mode, recipe.max_streams)


@settings(max_examples=150)
@given(recipes(1, 30))
def test_random_small_dags(recipe: Recipe) -> None:
    check_recipe(recipe)


@settings(max_examples=20)
@given(recipes(120, 280))
def test_random_large_dags(recipe: Recipe) -> None:
    check_recipe(recipe)


# --------------------------------------------------------------------------------------
# The oracle itself: it must reject what is wrong
# --------------------------------------------------------------------------------------


def three_streams() -> ModuleOp:
    """a (stream 0) -> b (label 1) -> c (label 2), and a -> c directly: the a -> c wait is
    implied through b (GE's and XLA's pairwise rules keep it)."""
    g = GraphBuilder("main")
    x = g.input("x", SHAPE)
    a = g.relu(x)
    with g.stream_switch("1"):
        b = g.sigmoid(a)
    with g.stream_switch("2"):
        c = g.add(a, b)
    return g.build([c])


def test_oracle_rejects_a_missing_wait() -> None:
    module = three_streams()
    orig = original_of(module)
    assign(module)
    n = len(waits_of(module))
    assert n == 3
    for k in range(n):
        copy = module.clone()
        # the ops of the copy are new objects: express the dependencies on them
        copy_orig = _rebase(orig, module, copy)
        Rewriter.erase_op(waits_of(copy)[k])
        with pytest.raises(AssertionError, match="not ordered"):
            check_ordering(copy_orig, copy)


def test_oracle_rejects_a_redundant_wait() -> None:
    module = three_streams()
    orig = original_of(module)
    assign(module)
    block = function_block(module)
    ops = list(block.ops)
    a = next(op for op in ops if isinstance(op, ge.ReluOp))
    c = next(op for op in ops if isinstance(op, ge.AddOp))
    record = stream.RecordOp(list(a.results))
    record.attributes[stream.ID] = stream.StreamIdAttr(stream_id(a))
    Rewriter.insert_op(record, InsertPoint.after(a))
    wait = stream.WaitOp(record.event)
    wait.attributes[stream.ID] = stream.StreamIdAttr(stream_id(c))
    Rewriter.insert_op(wait, InsertPoint.before(c))
    with pytest.raises(AssertionError, match="redundant wait"):
        check_ordering(orig, module)


def test_oracle_rejects_a_cycle() -> None:
    module = three_streams()
    orig = original_of(module)
    assign(module)
    block = function_block(module)
    ops = list(block.ops)
    c = next(op for op in ops if isinstance(op, ge.AddOp))
    a = next(op for op in ops if isinstance(op, ge.ReluOp))
    # c's stream records after c, and a's stream waits for it before a
    record = stream.RecordOp(list(c.results))
    record.attributes[stream.ID] = stream.StreamIdAttr(stream_id(c))
    Rewriter.insert_op(record, InsertPoint.after(c))
    wait = stream.WaitOp(record.event)
    wait.attributes[stream.ID] = stream.StreamIdAttr(stream_id(a))
    Rewriter.insert_op(wait, InsertPoint.before(a))
    with pytest.raises(AssertionError, match="cycle"):
        check_ordering(orig, module)


def _rebase(orig: Original, old: ModuleOp, new: ModuleOp) -> Original:
    """`orig` expressed on the ops of `new`, a clone of `old` (block ops correspond)."""
    mapping = dict(zip(function_block(old).ops, function_block(new).ops))
    return Original(
        [mapping[o] for o in orig.ops],
        [mapping[o] for o in orig.compute],
        [(None if u is None else mapping[u], mapping[v]) for u, v in orig.deps],
        {mapping[o]: label for o, label in orig.labels.items()},
        orig.has_args,
        orig.has_collective,
        orig.clone,
    )


# --------------------------------------------------------------------------------------
# Directed cases
# --------------------------------------------------------------------------------------


def test_transitive_wait_through_a_third_stream_is_dropped() -> None:
    """a -> c is implied by a -> b -> c: one wait per edge would keep 3 (+ join), pairwise
    rules keep a -> c too; the pass keeps only the waits the others do not imply."""
    result = assign(three_streams())
    pairs = {(recorded_on(w), stream.stream_of(w)) for w in waits_of(result.module)}
    # a on 0 -> b on 1, b on 1 -> c on 2, c on 2 -> return on 0 (the join); no 0 -> 2
    assert pairs == {(0, 1), (1, 2), (2, 0)}
    # fork: the function has an argument, but b's stream starts after a (after the entry)


def test_torchair_example() -> None:
    path = os.path.join(ROOT, "examples", "torchair_multistream.mlir")
    text = open(path).read()
    for mode in ("labels", "auto"):
        module = LocatingParser(make_context(), text, path).parse_module()
        result = assign(module, mode)
        labelled = {op.attributes[stream.LABEL].label.data: stream.stream_of(op)
                    for op in function_block(result.module).ops if stream.LABEL in op.attributes
                    and not isinstance(op, STREAM_OPS)}
        assert labelled == {"1": 1, "2": 2}


def test_same_stream_wait_tensor_needs_no_event() -> None:
    g = GraphBuilder("main")
    x = g.input("x", SHAPE)
    d = g.input("d", SHAPE)
    a = g.relu(d)
    g.wait_tensor(x, a)
    b = g.sigmoid(x)
    result = assign(g.build([b]), "labels")
    assert not waits_of(result.module)
    assert not any(isinstance(op, stream.RecordOp) for op in function_block(result.module).ops)


def test_wait_tensor_edge_across_streams_becomes_one_event() -> None:
    g = GraphBuilder("main")
    x = g.input("x", SHAPE)
    with g.stream_switch("1"):
        a = g.matmul(x, x)
    y = g.relu(x)
    g.wait_tensor(y, a)  # users of y after a, though they do not read a
    z = g.sigmoid(y)
    result = assign(g.build([z]), "labels")
    # fork 0 -> 1 (entry), a -> z on 0; a's join into the return is implied by a -> z
    pairs = sorted((recorded_on(w), stream.stream_of(w)) for w in waits_of(result.module))
    assert pairs == [(0, 1), (1, 0)]


def test_a_long_chain_of_wait_tensors_does_not_recurse() -> None:
    """3000 npu_wait_tensor calls rebinding one handle, then one use: the sources of the
    last wait are found in block order (a recursion down the chain overflowed Python's
    stack)."""
    g = GraphBuilder("main")
    x = g.input("x", SHAPE)
    with g.stream_switch("1"):
        a = g.relu(x)
    for _ in range(3000):
        g.wait_tensor(x, a)
    module = g.build([g.sigmoid(x)])
    AssignStreamsPass().apply(make_context(), module)
    verify_module(module, "<assigned>")
    pairs = sorted((recorded_on(w), stream.stream_of(w)) for w in waits_of(module))
    assert pairs == [(0, 1), (1, 0)]  # the fork into "1", then relu -> sigmoid


def test_single_mode() -> None:
    g = GraphBuilder("main")
    x = g.input("x", SHAPE)
    y = g.add(g.relu(x), g.sigmoid(x))
    result = assign(g.build([y]), "single")
    assert {stream.stream_of(op) for op in list(function_block(result.module).ops)[:-1]} == {0}
    assert not waits_of(result.module)


def test_single_mode_refuses_labels() -> None:
    g = GraphBuilder("main")
    x = g.input("x", SHAPE)
    with g.stream_switch("1"):
        y = g.relu(x)
    with pytest.raises(GeError, match="mode=single"):
        AssignStreamsPass(mode="single").apply(make_context(), g.build([y]))


@pytest.mark.parametrize("kwargs, message", [
    ({"mode": "fast"}, "mode must be"),
    ({"max_streams": 0}, "max-streams must be at least 1"),
])
def test_bad_options(kwargs, message) -> None:
    g = GraphBuilder("main")
    y = g.relu(g.input("x", SHAPE))
    with pytest.raises(GeError, match=message):
        AssignStreamsPass(**kwargs).apply(make_context(), g.build([y]))


def test_runs_once() -> None:
    g = GraphBuilder("main")
    y = g.relu(g.input("x", SHAPE))
    module = assign(g.build([y])).module
    with pytest.raises(GeError, match="run --assign-streams once"):
        AssignStreamsPass().apply(make_context(), module)


def test_auto_mode_spreads_independent_branches_and_respects_the_limit() -> None:
    def branches() -> ModuleOp:
        g = GraphBuilder("main")
        x = g.input("x", SHAPE)
        outs = []
        for _ in range(4):
            t = x
            for _ in range(3):
                t = g.matmul(g.relu(t), t)
            outs.append(t)
        return g.build(outs)

    for limit, expected in ((8, 4), (2, 2), (1, 1)):
        result = assign(branches(), "auto", limit)
        used = {stream.stream_of(op) for op in list(function_block(result.module).ops)[:-1]}
        assert len(used) == expected, (limit, used)


def test_no_arguments_needs_no_fork() -> None:
    g = GraphBuilder("main")
    c = g.const(np.eye(4, dtype=np.float32))
    a = g.relu(c)
    with g.stream_switch("1"):
        b = g.sigmoid(c)
    result = assign(g.build([g.add(a, b)]), "labels")
    # b needs nothing (constants need no event), only b -> add
    assert len(waits_of(result.module)) == 1


def test_every_function_is_assigned_and_declarations_are_skipped() -> None:
    t = "tensor<4x4xf32>"
    body = (f"    %0 = ge.relu %x : {t}\n"
            f'    %1 = ge.sigmoid %x {{stream.label = #stream.label<"1">}} : {t}\n'
            f"    %2 = ge.add %0, %1 : ({t}, {t}) -> {t}\n"
            f"    func.return %2 : {t}\n")
    text = (f"builtin.module {{\n  func.func private @ext({t}) -> {t}\n"
            f"  func.func @a(%x: {t}) -> {t} {{\n{body}  }}\n"
            f"  func.func @b(%x: {t}) -> {t} {{\n{body}  }}\n}}\n")
    module = LocatingParser(make_context(), text, "two.mlir").parse_module()
    AssignStreamsPass().apply(make_context(), module)
    verify_module(module, "two.mlir")
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    assert not functions[0].body.blocks
    for fn in functions[1:]:
        ops = list(fn.body.block.ops)
        pairs = sorted((recorded_on(w), stream.stream_of(w))
                       for w in ops if isinstance(w, stream.WaitOp))
        assert pairs == [(0, 1), (1, 0)]  # fork into label "1", sigmoid -> add


def test_functions_in_nested_modules_are_assigned_in_walk_order() -> None:
    t = "tensor<4x4xf32>"

    def function(name: str) -> str:
        return (f"  func.func @{name}(%x: {t}) -> {t} {{\n"
                f"    %0 = ge.relu %x : {t}\n"
                f'    %1 = ge.sigmoid %x {{stream.label = #stream.label<"1">}} : {t}\n'
                f"    %2 = ge.add %0, %1 : ({t}, {t}) -> {t}\n"
                f"    func.return %2 : {t}\n  }}\n")

    text = (f"builtin.module {{\n{function('a')}  builtin.module {{\n{function('c')}  }}\n"
            f"{function('b')}}}\n")
    module = LocatingParser(make_context(), text, "nested.mlir").parse_module()
    AssignStreamsPass(report=True).apply(make_context(), module)
    verify_module(module, "nested.mlir")
    taken = reports.take(module)
    assert [r.function for r in taken if isinstance(r, StreamReport)] == ["a", "c", "b"]
    functions = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    assert [f.sym_name.data for f in functions] == ["a", "c", "b"]
    for fn in functions:
        assert all(stream.ID in op.attributes for op in fn.body.block.ops
                   if not isinstance(op, func.ReturnOp))


@pytest.mark.parametrize("spec, error, message", [
    ("assign-streams{mode=fast}", ValueError, r"Incompatible types: given \('fast',\)"),
    ("assign-streams{mode=Labels}", ValueError, r"Incompatible types: given \('Labels',\)"),
    ("assign-streams{max-streams=0}", GeError,
     r"^assign-streams: max-streams must be at least 1, got 0$"),
])
def test_bad_options_are_refused_while_the_pipeline_is_parsed(spec, error, message) -> None:
    with pytest.raises(error, match=message):
        PassPipeline.parse_spec(get_all_passes(), spec)


# --------------------------------------------------------------------------------------
# The report: data recorded for the tool, never printed by the pass
# --------------------------------------------------------------------------------------


def test_report_is_recorded_not_printed(capsys) -> None:
    g = GraphBuilder("main")
    x = g.input("x", SHAPE)
    a = g.relu(x)
    with g.stream_switch("side", stream_priority=2):
        b = g.sigmoid(x)
    module = g.build([g.add(a, b)])
    AssignStreamsPass(report=True).apply(make_context(), module)
    assert capsys.readouterr() == ("", "")
    (report,) = reports.take(module)
    assert reports.take(module) == []
    assert isinstance(report, StreamReport)
    # the fork into "side" and sigmoid -> add are kept; the join of "side" into the return
    # is implied by sigmoid -> add
    assert str(report) == (
        "[assign-streams] @main: mode labels, 2 stream(s)\n"
        "  logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2\n"
        "  logic_stream_id: 1, kind: label, user_stream_label: side, priority: 2, ops: 1\n"
        "  events: 2 kept, 1 dropped of 3 cross-stream dependencies"
    )
    # work = FLOPs + bytes in + bytes out of 4x4 f32 ops (64 bytes a tensor): relu 16 + 128,
    # add 16 + 192, sigmoid 4*16 + 128
    assert [(s.kind, s.label, s.ops, s.work) for s in report.streams] == [
        ("main", None, 2, 352), ("label", "side", 1, 192)]
    assert (report.events_kept, report.events_dropped, report.dependencies) == (2, 1, 3)


def test_no_report_unless_asked() -> None:
    g = GraphBuilder("main")
    module = g.build([g.relu(g.input("x", SHAPE))])
    AssignStreamsPass().apply(make_context(), module)
    assert reports.take(module) == []


# --------------------------------------------------------------------------------------
# The deadlock check: a cycle is a bug of the pass (an internal error, not a diagnostic)
# --------------------------------------------------------------------------------------


def _two_streams_waiting(deadlock: bool) -> Block:
    """Each stream records an event and waits for the other stream's.  In the deadlocked
    order each stream waits before it records: stream 0 waits for stream 1's record, which
    comes after stream 1's wait for stream 0's record, which comes after stream 0's wait."""
    block = Block(arg_types=[TensorType(Float32Type(), list(SHAPE))])
    (x,) = block.args
    record0, record1 = stream.RecordOp([x]), stream.RecordOp([x])
    wait0, wait1 = stream.WaitOp(record1.event), stream.WaitOp(record0.event)
    for op, sid in ((record0, 0), (wait0, 0), (record1, 1), (wait1, 1)):
        op.attributes[stream.ID] = stream.StreamIdAttr(sid)
    order = [wait0, record0, wait1, record1] if deadlock else [record0, record1, wait0, wait1]
    block.add_ops(order)
    return block


def test_deadlock_check_raises_an_internal_error() -> None:
    with pytest.raises(InternalError, match="cycle of stream order and waits"):
        _check_deadlock_free(_two_streams_waiting(deadlock=True))
    assert not issubclass(InternalError, GeError)  # ge-opt must not report it as a user error


def test_deadlock_check_accepts_records_before_waits() -> None:
    _check_deadlock_free(_two_streams_waiting(deadlock=False))


def test_deadlock_check_accepts_a_wait_before_its_record_without_a_cycle() -> None:
    """Stream 1 waits for stream 0's record, which comes later in the block: not all edges
    run forward, but every op can start (the record, then the wait): no cycle."""
    block = Block(arg_types=[TensorType(Float32Type(), list(SHAPE))])
    record = stream.RecordOp([block.args[0]])
    wait = stream.WaitOp(record.event)
    record.attributes[stream.ID] = stream.StreamIdAttr(0)
    wait.attributes[stream.ID] = stream.StreamIdAttr(1)
    block.add_ops([wait, record])
    _check_deadlock_free(block)


# --------------------------------------------------------------------------------------
# The graph algorithms the pass uses (ge_dialect.utils.graphs), on plain integers
# --------------------------------------------------------------------------------------


def test_graph_algorithms_on_a_diamond() -> None:
    succs = [[1, 2, 3], [3], [3], []]  # 0 -> 1 -> 3, 0 -> 2 -> 3, and 0 -> 3 (implied)
    assert graphs.transitive_reduction(succs, 64) == [[1, 2], [3], [3], []]
    assert graphs.transitive_reduction(succs, 1) == [[1, 2], [3], [3], []]  # 2 -> 3 sees it
    reduced = graphs.transitive_reduction(succs, 64)
    assert graphs.lowest_reachable(succs, {1, 2, 3}, [0, 1], 2) == {0: [1, 2], 1: [3]}
    assert graphs.lowest_reachable(succs, {0, 1, 2, 3}, [0], 9, lo=0, hi=2) == {0: [1, 2]}
    assert graphs.lowest_reachable(succs, {3}, [1, 2], 9, lo=1, hi=3) == {1: [3], 2: [3]}
    assert graphs.chain_cover(succs, reduced, [0, 1, 2, 3], 64) == [[0, 1, 3], [2]]
    assert graphs.chain_cover(succs, reduced, [1, 2], 64) == [[1], [2]]
    assert graphs.chain_cover(succs, reduced, [], 64) == []
    assert graphs.merge_lightest([[0, 1, 3], [2]], 2, [5, 5, 5, 5]) == [[0, 1, 3], [2]]
    assert graphs.merge_lightest([[0, 1, 3], [2]], 1, [5, 5, 5, 5]) == [[0, 1, 2, 3]]
    # the two lightest merge first: [1] (1) and [2] (2), not [0] (3)
    assert graphs.merge_lightest([[0], [1], [2]], 2, [3, 1, 2]) == [[1, 2], [0]]
    assert graphs.is_acyclic(succs)
    assert graphs.is_acyclic([[1, 1], []])
    assert not graphs.is_acyclic([[1], [2], [0]])


def test_a_long_edge_beyond_the_window_is_kept() -> None:
    """0 -> 1 -> ... -> 9 and 0 -> 9: with a window of 4 nodes nothing within 4 of 9 among
    0's other successors (only 1) sees that 1 reaches 9, so the long edge is kept (a real
    edge, so chains stay chains); with a window of 9 it is dropped."""
    succs = [[1, 9], *[[u + 1] for u in range(1, 9)], []]
    assert graphs.transitive_reduction(succs, 4)[0] == [1, 9]
    assert graphs.transitive_reduction(succs, 9)[0] == [1]
    # the chain cover is one chain either way here
    for window in (4, 9):
        reduced = graphs.transitive_reduction(succs, window)
        assert graphs.chain_cover(succs, reduced, list(range(10)), 64) == [list(range(10))]


def closure(succs: list[list[int]]) -> list[set[int]]:
    """The nodes each node reaches by at least one edge (plain DFS: the test's reference)."""
    reach = []
    for u in range(len(succs)):
        seen: set[int] = set()
        todo = list(succs[u])
        while todo:
            v = todo.pop()
            if v not in seen:
                seen.add(v)
                todo.extend(succs[v])
        reach.append(seen)
    return reach


def exact_reduction(succs: list[list[int]]) -> list[list[int]]:
    reach = closure(succs)
    return [[v for v in succs[u] if not any(v in reach[w] for w in succs[u])]
            for u in range(len(succs))]


@st.composite
def bipartite_graphs(draw):
    left, right = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    adjacency = [sorted(draw(st.sets(st.integers(0, right - 1), max_size=right))) if right else []
                 for _ in range(left)]
    return left, adjacency, right


@settings(max_examples=200)
@given(bipartite_graphs())
def test_max_bipartite_matching_is_a_maximum_matching(graph) -> None:
    left, adjacency, right = graph
    match = graphs.max_bipartite_matching(left, adjacency, right)
    matched = [(u, v) for u, v in enumerate(match) if v != -1]
    assert all(v in adjacency[u] for u, v in matched)
    assert len({v for _, v in matched}) == len(matched)
    # brute force: the largest k such that some k left vertices have distinct partners
    best = 0
    for k in range(min(left, right), 0, -1):
        for lefts in itertools.combinations(range(left), k):
            choices = itertools.product(*(adjacency[u] for u in lefts))
            if any(len(set(rights)) == k for rights in choices):
                best = k
                break
        if best:
            break
    assert len(matched) == best


def hopcroft_karp_without_greedy_start(left: int, adjacency, right: int) -> list[int]:
    """graphs.max_bipartite_matching as it was (its first phase a breadth-first
    search and depth-first searches, not a greedy pass): the reference of the greedy pass."""
    match_l, match_r = [-1] * left, [-1] * right
    infinity = left + right + 1
    while True:
        dist = [infinity] * left
        queue = [u for u in range(left) if match_l[u] == -1]
        for u in queue:
            dist[u] = 0
        found, head = False, 0
        while head < len(queue):
            u = queue[head]
            head += 1
            for v in adjacency[u]:
                w = match_r[v]
                if w == -1:
                    found = True
                elif dist[w] == infinity:
                    dist[w] = dist[u] + 1
                    queue.append(w)
        if not found:
            return match_l
        for root in range(left):
            if match_l[root] != -1:
                continue
            stack, path = [(root, iter(adjacency[root]))], []
            while stack:
                u, edges = stack[-1]
                advanced = False
                for v in edges:
                    w = match_r[v]
                    if w == -1:
                        path.append((u, v))
                        for pu, pv in path:
                            match_l[pu], match_r[pv] = pv, pu
                        stack, advanced = [], True
                        break
                    if dist[w] == dist[u] + 1:
                        path.append((u, v))
                        stack.append((w, iter(adjacency[w])))
                        advanced = True
                        break
                if not advanced and stack:
                    dist[u] = infinity
                    stack.pop()
                    if path:
                        path.pop()


@settings(max_examples=300)
@given(st.integers(0, 14), st.integers(0, 14), st.data())
def test_max_bipartite_matching_matches_the_version_before_its_greedy_phase(
        left, right, data) -> None:
    """The same matching, not just one as large: the chains (and so the streams) depend on
    it.  Adjacency lists in any order, repeats included."""
    adjacency = [data.draw(st.lists(st.integers(0, right - 1), max_size=5)) if right else []
                 for _ in range(left)]
    assert graphs.max_bipartite_matching(left, adjacency, right) == (
        hopcroft_karp_without_greedy_start(left, adjacency, right))


@st.composite
def dags(draw, max_nodes: int = 12):
    n = draw(st.integers(1, max_nodes))
    succs = [sorted(draw(st.sets(st.integers(u + 1, n - 1), max_size=3))) if u + 1 < n else []
             for u in range(n)]
    group = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1)))
    return succs, group


@settings(max_examples=300)
@given(dags(max_nodes=16), st.integers(1, 17))
def test_transitive_reduction_is_exact_within_the_window(dag, window) -> None:
    succs, _ = dag
    exact = exact_reduction(succs)
    reduced = graphs.transitive_reduction(succs, window)
    for u, targets in enumerate(succs):
        # only real edges, in their order, and every edge of the reduction
        assert reduced[u] == [v for v in targets if v in reduced[u]]
        assert set(exact[u]) <= set(reduced[u])
        # exact for the edges no longer than the window
        assert [v for v in reduced[u] if v - u <= window] == [
            v for v in exact[u] if v - u <= window]
    if window >= len(succs):
        assert reduced == exact


@settings(max_examples=300)
@given(dags(max_nodes=16), st.integers(1, 5), st.data())
def test_lowest_reachable_against_a_dfs(dag, limit, data) -> None:
    succs, targets_list = dag
    n = len(succs)
    lo = data.draw(st.integers(0, n - 1))
    hi = data.draw(st.integers(lo, n - 1))
    sources = data.draw(st.sets(st.integers(lo, hi)))
    targets = set(targets_list)
    found = graphs.lowest_reachable(succs, targets, sources, limit, lo, hi)
    reach = closure(succs)
    assert found == {u: sorted(v for v in reach[u] if v in targets and v <= hi)[:limit]
                     for u in sources}


@settings(max_examples=200)
@given(dags(), st.integers(1, 4), st.integers(1, 13))
def test_chain_cover_covers_the_group_with_chains(dag, fanout, window) -> None:
    succs, group = dag
    reach = closure(succs)
    cover = graphs.chain_cover(succs, graphs.transitive_reduction(succs, window), group, fanout)
    assert sorted(u for chain in cover for u in chain) == group
    for chain in cover:
        assert chain == sorted(chain)
        assert all(b in reach[a] for a, b in itertools.pairwise(chain))
    merged = graphs.merge_lightest(cover, 2, [1] * len(succs))
    assert len(merged) == min(2, len(cover))
    assert sorted(u for chain in merged for u in chain) == group


def quadratic_merge_lightest(chains, limit, weight):
    """merge_lightest as it was when quadratic (re-sorting and re-summing every chain per
    merge): the reference of the heap."""
    merged = [list(c) for c in chains]
    while len(merged) > limit:
        merged.sort(key=lambda c: (sum(weight[u] for u in c), c[0]))
        merged = [sorted(merged[0] + merged[1]), *merged[2:]]
    return merged


@settings(max_examples=300)
@given(st.integers(1, 30), st.integers(1, 12), st.sampled_from([(0, 4), (0, 0), (-3, 4)]),
       st.data())
def test_merge_lightest_merges_as_the_quadratic_reference(n, limit, weights, data) -> None:
    """Same merges, same order of the result, ties (equal weights) included; weights of
    0 (merged chains of one weight meet again) and negative ones (the heap) too."""
    weight = data.draw(st.lists(st.integers(*weights), min_size=n, max_size=n))
    labels = data.draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    chains = [[u for u in range(n) if labels[u] == k] for k in dict.fromkeys(labels)]
    assert graphs.merge_lightest(chains, limit, weight) == quadratic_merge_lightest(
        chains, limit, weight)


@settings(max_examples=300)
@given(st.data())
def test_not_implied_keeps_what_the_pairwise_definition_keeps(data) -> None:
    """The kept-wait filter at a join (two largest clocks per stream) against its
    definition: u is kept unless another producer w has clock[w][stream(u)] >= pos(u)."""
    n_streams = data.draw(st.integers(1, 4))
    producers = data.draw(st.lists(st.integers(-1, 40), unique=True, max_size=8))
    where = {}
    for u in producers:
        s = data.draw(st.integers(0, n_streams - 1))
        pos = data.draw(st.integers(0, 6))
        clock = [data.draw(st.integers(-1, 6)) for _ in range(n_streams)]
        clock[s] = pos
        where[u] = (s, pos, clock)
    expected = [u for u in producers
                if not any(w != u and where[w][2][where[u][0]] >= where[u][1] for w in producers)]
    assert _not_implied(producers, where.__getitem__) == expected


def quadratic_remove_ineffective(graph, keys) -> None:
    """_remove_ineffective_multi_stream as it was when quadratic (sorted member lists
    updated by insertion): the reference of the bisection over first members."""
    import bisect

    members: dict[tuple, list[int]] = {}
    for u, key in enumerate(keys):
        members.setdefault(key, []).append(u)
    main = ("auto", 0)
    exit_preds = set(graph.exit_preds)
    n = len(graph.ops)
    for u, op in enumerate(graph.ops):
        if op.attributes.get(stream.LABEL) is not None:
            continue
        users = [*graph.succs[u], *([n] if u in exit_preds else [])]
        neighbours = {main if p == -1 else keys[p] for p in graph.preds[u]}
        neighbours |= {main if v == n else keys[v] for v in users}
        if len(neighbours) != 1 or not graph.preds[u] or not users:
            continue
        (target,) = neighbours
        if target == keys[u] or target[0] == "label":
            continue
        if target[0] == "comm" and not isinstance(op, COLLECTIVES):
            continue
        last_pred = max((p for p in graph.preds[u] if p != -1), default=-1)
        first_user = min(users, default=n)
        on_target = members.setdefault(target, [])
        between = bisect.bisect_right(on_target, last_pred)
        if between < len(on_target) and on_target[between] < first_user:
            continue
        own = members[keys[u]]
        del own[bisect.bisect_left(own, u)]
        bisect.insort(on_target, u)
        keys[u] = target


@st.composite
def serial_recipes(draw) -> Recipe:
    """Near-serial graphs where the rule fires: all-reduces between ops of one stream,
    short branches, an occasional label, operands among the last two values."""
    n_labels = draw(st.integers(0, 2))
    labels = [(f"L{i}", 0) for i in range(n_labels)]
    steps: list[tuple] = []
    for _ in range(draw(st.integers(1, 80))):
        kind = draw(st.sampled_from(["relu", "relu", "sigmoid", "add", "all_reduce", "all_reduce"]))
        label = draw(st.integers(0, n_labels - 1)) if n_labels and draw(st.integers(0, 5)) == 0 \
            else None
        picks = [-1 - draw(st.integers(0, 1)) for _ in range(ARITY[kind])]
        steps.append((kind, label, draw(st.booleans()), *picks))
    return Recipe(1, labels, steps, [], draw(st.sampled_from(["labels", "auto"])),
                  draw(st.integers(1, 3)))


@settings(max_examples=150)
@given(st.one_of(serial_recipes(), recipes(1, 120)))
def test_ineffective_multi_stream_moves_as_the_quadratic_reference(recipe: Recipe) -> None:
    if recipe.mode == "single":
        return
    module = recipe.build()
    graph = _build_graph(function_block(module))
    keys, table = _assign(graph, recipe.mode, recipe.max_streams)
    expected = [table[k] for k in keys]
    quadratic_remove_ineffective(graph, expected)
    _remove_ineffective_multi_stream(graph, keys, table)
    assert [table[k] for k in keys] == expected


def wide(n: int, labelled: bool = False) -> ModuleOp:
    """One op fanning out to n - 1 relus, all of them results: a join of n producers."""
    g = GraphBuilder("main")
    a = g.relu(g.input("x", SHAPE))
    outs = [a]
    for i in range(n - 1):
        scope = g.stream_switch(f"L{i % 3}") if labelled and i % 2 else contextlib.nullcontext()
        with scope:
            outs.append(g.relu(a))
    return g.build(outs)


@pytest.mark.parametrize("mode, labelled", [("auto", False), ("labels", True), ("auto", True)])
def test_a_wide_fan_out_joins_with_one_wait_per_stream(mode, labelled) -> None:
    """The join of 200 producers (the kept-wait filter at the return, the heap merge down
    to 8 streams): ordered and minimal by the oracle; each side stream joins once."""
    result = assign(wide(200, labelled), mode, numbers=False)
    into_return = []
    op = function_block(result.module).last_op
    assert op is not None
    while isinstance(op.prev_op, stream.WaitOp):
        op = op.prev_op
        into_return.append(recorded_on(op))
    assert into_return and len(into_return) == len(set(into_return))
