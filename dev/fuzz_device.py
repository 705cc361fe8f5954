"""The device mode of the fuzzer: mutated `npu` programs through ge-run, judged by a
happens-before model of its own.

    python dev/fuzz.py --device [--mutants 2000] [--seed 0] [--timeout 10] [--save DIR]
                                [--reduce] [--reduce-budget 300]

**Programs.**  The seeds are lowered programs: `ge-opt -p 'fuse,to-nc1hwc0,
assign-streams{mode=auto},lower-to-device,plan-memory'` (constants moved to a `.weights`
file beside the IR) on the examples, the zoo's ONNX models and random graphs
(`test/unit/helpers/random_graphs.py`, drawn by Hypothesis derandomized: the same graphs
on every run).  The model must find nothing in a seed (the fuzzer stops otherwise: the
model or the compiler is wrong); a seed ge-run fails on is a failure of class `seed`.

**Mutations** (one or two per mutant, on the printed IR's lines; a mutation that changes
nothing does not count): delete a wait or a record; move one to another position or
stream; change an event id; move a view's offset (to another planned offset of its source,
to 0, to a neighbour's); move a launch or a copy to another stream; corrupt a launch's
attributes (wrong types, zero or negative strides, a float where an int is meant, strings;
a key deleted or added) or its types (shapes, dtypes, formats; or a view's buffer type);
swap two operands (with their types or not).  One `random.Random(seed)` draws every
choice, the ge-run flags too (a quarter of the runs print `--report json`): the same seed
gives the same mutants and runs.

**Runs.**  Each mutant runs twice through ge-run's `main()` in a forked child with a
timeout (`fuzz.run_isolated`), and is parsed and verified in this process.  Outcomes:

- rejected: exit 1 or 2, every stderr line located (`file:line:col: error: ...`, or a
  simulator finding line `file: error: KIND: ...` naming a task's location): by the
  verifier (the IR does not parse or verify), by the checker (a finding line: race,
  clobber, uninitialized, deadlock) or other (the simulator refused it, e.g. a kernel);
- accepted: exit 0, the two runs print the same bytes, and the model finds no race, no
  clobber, no uninitialized read, no deadlock and no event recorded on two streams.

Failures (by class): `traceback`, `hang`, `exit-code`, `unlocated` (a stderr line without
a location), `nondeterministic` (the two runs differ), `accepted-unverified` (exit 0 on IR
the verifier refuses), `miss-KIND` (an accepted mutant the model convicts: KIND is race,
clobber, uninitialized, deadlock or event; or a checker rejection without the deadlock the
model finds), `false-alarm-KIND` (a checker finding the model does not share: a race
between tasks the model orders, a clobber or uninitialized read at a read the model
clears and no race of the model involves, a deadlock), `incomplete-KIND` (a rejection by
the checker that does not name a race, or a convicted read, of the model).  The figures:
outcomes, each kind of mutation and what became of it, failures by class with the
smallest case; `--save DIR` writes the first three cases of each class and the smallest
(`CLASS-N.mlir`, `CLASS-smallest.mlir`, with the weights file beside them and a `.txt` of
the command, the edits and what happened), and `--reduce` also the smallest one shrunk
(`CLASS-reduced.mlir`: body lines deleted while the class stays the same).

**The happens-before model** (`analyse`) is written from the rules, sharing no code with
the simulator's order or checker: tasks of a stream run in issue order; a wait orders its
stream's later tasks after its event's first record (in issue order); happens-before is
the transitive closure of these edges (a DAG, reachability by bitsets in topological
order).  A wait whose event nothing records, or a cycle, is a deadlock.  Each launch
reads its inputs and writes its outputs, a copy reads its source and writes its dest;
bytes are ranges of a root buffer (a view's offsets summed up to the root).  Every two
tasks touching overlapping bytes, at least one writing, must be ordered (else a race).
Every read, on bytes no unordered write touches, must see the value it means: the last
write ordered before it must write the same value (else a clobber), a value being the
view chain up to a workspace (a flat i8 allocation: the view directly on it) or up to a
view a launch writes in the bytes of its own input (an in-place update), or the root
buffer itself; bytes nothing wrote before the read are an uninitialized read, except an
input's and a weight's, which hold their value from the start.
"""

from __future__ import annotations

import io
import math
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue

REPO = Path(__file__).resolve().parents[1]
PIPELINE = "fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device,plan-memory"

# ---- the happens-before model --------------------------------------------------------------


@dataclass(frozen=True)
class Access:
    """Bytes [lo, hi) of root buffer `root`, read or written as `value` (a buffer index)."""

    root: int
    lo: int
    hi: int
    value: int
    write: bool


@dataclass(frozen=True)
class HbTask:
    """A task as the model sees it: its kind (launch, copy, record, wait), stream, event
    (records and waits), memory accesses and location (`line:col`)."""

    index: int
    kind: str
    stream: int
    event: int
    accesses: tuple[Access, ...]
    where: str
    what: str  # `launch 'relu'`, `wait of event 2`, ...

    def describe(self) -> str:
        return f"{self.what} on stream {self.stream} ({self.where})"


@dataclass
class HbProgram:
    """Tasks in issue order, the buffers' names, and the value each root holds from the
    start (inputs and weights)."""

    tasks: list[HbTask]
    names: list[str]
    initial: dict[int, int]


@dataclass(frozen=True)
class ModelFinding:
    """What the model convicts a program of: kind is race, clobber, uninitialized,
    deadlock or event.  `tasks` are the locations (`line:col`) of the tasks involved: a
    race's two, in issue order; a clobber's reader, then the writer it sees; an
    uninitialized read's reader."""

    kind: str
    message: str
    tasks: tuple[str, ...] = ()

    @property
    def pair(self) -> frozenset[str]:
        return frozenset(self.tasks)


def _nbytes(t: MemRefType) -> int:
    from ge_dialect.utils.dtypes import np_dtype

    return math.prod(t.get_shape()) * np_dtype(t.element_type).itemsize


def _is_workspace(op: Operation) -> bool:
    """A flat i8 allocation (what `plan-memory` places every activation buffer in)."""
    t = op.results[0].type
    return (
        op.name == "npu.alloc"
        and isinstance(t, MemRefType)
        and len(t.get_shape()) == 1
        and isinstance(t.element_type, IntegerType)
        and t.element_type.width.data == 8
    )


def _prop_int(op: Operation, name: str) -> int:
    attr = op.properties[name]
    assert isinstance(attr, IntegerAttr)
    return int(attr.value.data)


def _where(op: Operation) -> str:
    """`line:col` of an op (its location's last two fields)."""
    from ge_dialect.utils.errors import location_str

    parts = location_str(op.location).rsplit(":", 2)
    return ":".join(parts[-2:]) if len(parts) == 3 else "?"


def _name(v: SSAValue, i: int) -> str:
    """How messages name a buffer: `%name`, or `the view at 12:5` (its op's location)."""
    if v.name_hint:
        return f"%{v.name_hint}"
    if isinstance(v.owner, Operation):
        return f"the {v.owner.name.removeprefix('npu.')} at {_where(v.owner)}"
    return f"argument {i}"


class _Reader:
    """Reads a verified program function into an `HbProgram` (buffers by index)."""

    def __init__(self) -> None:
        self.index: dict[SSAValue, int] = {}
        self.extent: list[tuple[int, int, int, int]] = []  # (root, offset, nbytes, value)
        self.names: list[str] = []
        self.initial: dict[int, int] = {}
        self.tasks: list[HbTask] = []

    def buffer(self, v: SSAValue, root: int | None, offset: int, value: int | None) -> int:
        i = len(self.extent)
        t = v.type
        assert isinstance(t, MemRefType)
        self.extent.append(
            (i if root is None else root, offset, _nbytes(t), i if value is None else value)
        )
        self.names.append(_name(v, i))
        self.index[v] = i
        return i

    def view(self, op: Operation, workspaces: set[int], updated: set[SSAValue]) -> None:
        src = self.index[op.operands[0]]
        root, offset, _, value = self.extent[src]
        own = (src == root and root in workspaces) or op.results[0] in updated
        self.buffer(op.results[0], root, offset + _prop_int(op, "offset"), None if own else value)

    def accesses(self, reads: Sequence[SSAValue], writes: Sequence[SSAValue]) -> tuple[Access, ...]:
        out = []
        for values, write in ((reads, False), (writes, True)):
            for v in values:
                root, offset, nbytes, value = self.extent[self.index[v]]
                if nbytes:
                    out.append(Access(root, offset, offset + nbytes, value, write))
        return tuple(out)

    def task(self, op: Operation) -> None:
        from ge_dialect.ir.dialects import npu

        n, where = len(self.tasks), _where(op)
        stream = _prop_int(op, "stream")
        if isinstance(op, npu.LaunchOp):
            kernel = op.properties["kernel"]
            assert isinstance(kernel, StringAttr)
            acc = self.accesses(op.inputs, op.outputs)
            self.tasks.append(
                HbTask(n, "launch", stream, -1, acc, where, f"launch '{kernel.data}'")
            )
        elif isinstance(op, npu.CopyOp):
            acc = self.accesses([op.source], [op.dest])
            self.tasks.append(HbTask(n, "copy", stream, -1, acc, where, "copy"))
        else:
            kind = "record" if isinstance(op, npu.RecordOp) else "wait"
            event = _prop_int(op, "event")
            self.tasks.append(HbTask(n, kind, stream, event, (), where, f"{kind} of event {event}"))


def _updated_in_place(fn: func.FuncOp) -> set[SSAValue]:
    """The views a launch writes while reading a buffer of the same root (an in-place
    update, as scatter_update's): each holds a value of its own."""

    from ge_dialect.ir.dialects import npu

    def root(v: SSAValue) -> SSAValue:
        while isinstance(v.owner, npu.ViewOp):
            v = v.owner.source
        return v

    updated: set[SSAValue] = set()
    for op in fn.body.block.ops:
        if isinstance(op, npu.LaunchOp):
            read = {root(v) for v in op.inputs}
            updated.update(
                v for v in op.outputs if isinstance(v.owner, npu.ViewOp) and root(v) in read
            )
    return updated


def read_hb_program(fn: func.FuncOp) -> HbProgram:
    """The model's view of a verified `npu` program: its tasks and buffers."""
    reader = _Reader()
    arg_attrs = fn.arg_attrs.data if fn.arg_attrs is not None else ()
    for arg in fn.body.block.args:
        i = reader.buffer(arg, None, 0, None)
        attrs = arg_attrs[arg.index].data if arg.index < len(arg_attrs) else {}
        role = "input" if "npu.input" in attrs else "output"
        name = attrs.get(f"npu.{role}")
        if isinstance(name, StringAttr):
            reader.names[i] = f"{role} '{name.data}'"
        if role == "input":
            reader.initial[i] = i
    workspaces: set[int] = set()
    updated = _updated_in_place(fn)
    for op in fn.body.block.ops:
        if op.name in ("npu.alloc", "npu.weight"):
            i = reader.buffer(op.results[0], None, 0, None)
            if op.name == "npu.weight":
                reader.initial[i] = i
            elif _is_workspace(op):
                workspaces.add(i)
        elif op.name == "npu.view":
            reader.view(op, workspaces, updated)
        elif op.name in ("npu.launch", "npu.copy", "npu.record", "npu.wait"):
            reader.task(op)
    return HbProgram(reader.tasks, reader.names, reader.initial)


def happens_before(program: HbProgram) -> tuple[list[int] | None, list[ModelFinding]]:
    """Each task's predecessors under happens-before, as a bitset (bit i: task i happens
    before it), or None with the deadlock; and the events recorded on two streams."""
    tasks = program.tasks
    preds: list[list[int]] = [[] for _ in tasks]
    last: dict[int, int] = {}
    records: dict[int, list[HbTask]] = {}
    for t in tasks:
        if t.stream in last:
            preds[t.index].append(last[t.stream])
        last[t.stream] = t.index
        if t.kind == "record":
            records.setdefault(t.event, []).append(t)
    findings = [
        ModelFinding(
            "event",
            f"event {e} is recorded on streams "
            + ", ".join(str(s) for s in sorted({r.stream for r in rs}))
            + f" (first at {rs[0].where})",
        )
        for e, rs in sorted(records.items())
        if len({r.stream for r in rs}) > 1
    ]
    unreleased = []
    for t in tasks:
        if t.kind == "wait":
            if t.event in records:
                preds[t.index].append(records[t.event][0].index)
            else:
                unreleased.append(t)
    if unreleased:
        return None, findings + [
            ModelFinding("deadlock", f"deadlock: {t.describe()} waits for a record nothing issues")
            for t in unreleased
        ]
    order = _topological(preds)
    if len(order) < len(tasks):
        placed = set(order)
        stuck = [t for t in tasks if t.index not in placed and t.kind == "wait"]
        cycle = "; ".join(t.describe() for t in stuck)
        return None, findings + [ModelFinding("deadlock", f"deadlock: a cycle of waits: {cycle}")]
    before = [0] * len(tasks)
    for i in order:
        for p in preds[i]:
            before[i] |= before[p] | (1 << p)
    return before, findings


def _topological(preds: list[list[int]]) -> list[int]:
    """Kahn's algorithm, smallest index first; the tasks on a cycle are left out."""
    import heapq

    succs: list[list[int]] = [[] for _ in preds]
    missing = [len(p) for p in preds]
    for i, ps in enumerate(preds):
        for p in ps:
            succs[p].append(i)
    ready = [i for i, m in enumerate(missing) if m == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for s in succs[i]:
            missing[s] -= 1
            if missing[s] == 0:
                heapq.heappush(ready, s)
    return order


def _ordered(before: list[int], i: int, j: int) -> bool:
    return bool((before[j] >> i) & 1 or (before[i] >> j) & 1)


def _by_root(program: HbProgram) -> dict[int, list[tuple[HbTask, Access]]]:
    roots: dict[int, list[tuple[HbTask, Access]]] = {}
    for t in program.tasks:
        for a in t.accesses:
            roots.setdefault(a.root, []).append((t, a))
    return roots


def races(program: HbProgram, before: list[int]) -> list[ModelFinding]:
    """Every two tasks that touch overlapping bytes, one of them writing, unordered."""
    found: dict[tuple[int, int], ModelFinding] = {}
    for root, accesses in sorted(_by_root(program).items()):
        for k, (t, a) in enumerate(accesses):
            for u, b in accesses[k + 1 :]:
                if t.index == u.index or (t.index, u.index) in found:
                    continue
                lo, hi = max(a.lo, b.lo), min(a.hi, b.hi)
                if lo >= hi or not (a.write or b.write) or _ordered(before, t.index, u.index):
                    continue
                verbs = ("writes" if a.write else "reads", "writes" if b.write else "reads")
                message = (
                    f"race: {t.describe()} {verbs[0]} and {u.describe()} {verbs[1]} bytes "
                    f"[{lo}, {hi}) of {program.names[root]}, and nothing orders them"
                )
                found[(t.index, u.index)] = ModelFinding("race", message, (t.where, u.where))
    return [found[k] for k in sorted(found)]


def _last_write(
    writes: list[tuple[HbTask, Access]], before: list[int], lo: int, hi: int
) -> tuple[bool, tuple[HbTask, Access] | None]:
    """The last of `writes` (all ordered before the read) covering [lo, hi), the one every
    other covering write happens before: (True, it), (True, None) when none covers the
    bytes, (False, None) when no one is last (two unordered writes: a race)."""
    covering = [(t, a) for t, a in writes if a.lo <= lo and hi <= a.hi]
    for t, a in covering:
        if all(u.index == t.index or (before[t.index] >> u.index) & 1 for u, _ in covering):
            return True, (t, a)
    return not covering, None


def clobbers(program: HbProgram, before: list[int]) -> list[ModelFinding]:
    """Every read, on bytes no unordered write touches (a race decides what it sees), whose
    last ordered write is not of the value it reads (a clobber), or that nothing wrote
    (an uninitialized read: an input's and a weight's bytes hold their value from the
    start).  One finding per read, at its first such bytes."""
    findings = []
    for _, accesses in sorted(_by_root(program).items()):
        for t, a in accesses:
            if a.write:
                continue
            writes = [
                (u, b)
                for u, b in accesses
                if b.write and u.index != t.index and b.lo < a.hi and a.lo < b.hi
            ]
            cuts = sorted({a.lo, a.hi} | {x for _, b in writes for x in (b.lo, b.hi)})
            cuts = [x for x in cuts if a.lo <= x <= a.hi]
            for lo, hi in zip(cuts, cuts[1:], strict=False):
                finding = _clobbered(program, before, writes, t, a, lo, hi)
                if finding is not None:
                    findings.append(finding)
                    break
    return findings


def _clobbered(
    program: HbProgram,
    before: list[int],
    writes: list[tuple[HbTask, Access]],
    t: HbTask,
    a: Access,
    lo: int,
    hi: int,
) -> ModelFinding | None:
    """What is wrong with the read `a` of task `t` on bytes [lo, hi), given the other tasks'
    `writes` overlapping it (None: it sees its value, or a race decides)."""
    here = [(u, b) for u, b in writes if b.lo < hi and lo < b.hi]
    if any(not _ordered(before, u.index, t.index) for u, _ in here):
        return None  # a race, reported as one
    here = [(u, b) for u, b in here if (before[t.index] >> u.index) & 1]  # (not the later ones)
    known, last = _last_write(here, before, lo, hi)
    if not known:
        return None  # a race between the writes, reported as one
    names = program.names
    where = f"bytes [{lo}, {hi}) of {names[a.root]}"
    if last is None:
        if program.initial.get(a.root) == a.value:
            return None
        message = f"uninitialized: {t.describe()} reads {where}, which nothing wrote before it"
        return ModelFinding("uninitialized", message, (t.where,))
    u, b = last
    if b.value == a.value:
        return None
    message = (
        f"clobber: {t.describe()} reads {names[a.value]} on {where}, last written as "
        f"{names[b.value]} by {u.describe()}"
    )
    return ModelFinding("clobber", message, (t.where, u.where))


def analyse_program(program: HbProgram) -> list[ModelFinding]:
    """Everything the model convicts `program` of: events recorded on two streams, a
    deadlock (then nothing else), races and clobbers."""
    before, findings = happens_before(program)
    if before is None:
        return findings
    return findings + races(program, before) + clobbers(program, before)


def analyse(module: ModuleOp) -> list[ModelFinding]:
    """The model's findings on the module's first `npu` program (none without one)."""
    for op in module.walk():
        if isinstance(op, func.FuncOp) and "npu.program" in op.attributes:
            return analyse_program(read_hb_program(op))
    return []


# ---- reading the tool's answer -------------------------------------------------------------

READ = ("clobber", "uninitialized")
"""The findings about what a read sees."""

LOCATED = re.compile(r"^[^\s:][^:]*:\d+:\d+: error: \S")
FINDING = re.compile(r"^[^\s:][^:]*: error: ([a-z][a-z-]*): ")
TASK_AT = re.compile(r"\([^()\s]*:(\d+:\d+)\)")


def tool_findings(stderr: str) -> list[tuple[str, tuple[str, ...]]]:
    """The simulator's finding lines: (kind, the task locations `line:col` they name, in
    the order named)."""
    found = []
    for line in stderr.splitlines():
        m = FINDING.match(line)
        if m:
            found.append((m.group(1), tuple(TASK_AT.findall(line))))
    return found


def unlocated(stderr: str) -> list[str]:
    """The stderr lines that are neither a located error nor a located finding."""
    bad = []
    for line in stderr.splitlines():
        if not line.strip() or LOCATED.match(line):
            continue
        if FINDING.match(line) and TASK_AT.search(line):
            continue
        bad.append(line)
    return bad


# ---- mutations -----------------------------------------------------------------------------

SYNC = re.compile(r"^(\s*npu\.(record|wait) )(\d+) stream (\d+)(.*)$")
VIEW = re.compile(r"^(\s*(%[\w.$-]+) = npu\.view (%[\w.$-]+)\[)(\d+)(\] : (.*) -> (memref<.*>))$")
LAUNCH = re.compile(
    r'^(\s*npu\.launch "[^"]*")\(([^)]*)\) -> \(([^)]*)\) stream (\d+) priority (-?\d+) : (.*)$'
)
COPY = re.compile(r"^(\s*npu\.copy )(%[\w.$-]+) -> (%[\w.$-]+) stream (\d+)(.*)$")
OPEN, CLOSE = "(<[{", ")>]}"


def _close(s: str, i: int) -> int:
    """The index after the bracket that closes the one at `s[i]` (strings skipped)."""
    depth, k, quoted = 0, i, False
    while k < len(s):
        c = s[k]
        if quoted:
            quoted = c != '"' or s[k - 1] == "\\"
        elif c == '"':
            quoted = True
        elif c in OPEN:
            depth += 1
        elif c in CLOSE and not (c == ">" and s[k - 1] == "-"):
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return len(s)


def split_top(s: str) -> list[str]:
    """`s` split at its top-level commas (none inside brackets or strings), stripped."""
    parts, depth, start, quoted = [], 0, 0, False
    for k, c in enumerate(s):
        if quoted:
            quoted = c != '"' or s[k - 1] == "\\"
        elif c == '"':
            quoted = True
        elif c in OPEN:
            depth += 1
        elif c in CLOSE and not (c == ">" and k and s[k - 1] == "-"):
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(s[start:k].strip())
            start = k + 1
    tail = s[start:].strip()
    return [*parts, tail] if tail or parts else []


@dataclass
class Launch:
    """A launch line in pieces, to edit and print back."""

    head: str
    ins: list[str]
    outs: list[str]
    stream: int
    priority: str
    in_types: list[str]
    out_types: list[str]
    rest: str  # " cost <...> attrs {...}" and any discardable attributes

    @staticmethod
    def parse(line: str) -> Launch | None:
        m = LAUNCH.match(line)
        if not m:
            return None
        types = m.group(6)
        if not types.startswith("("):
            return None
        end_in = _close(types, 0)
        arrow = types.find("(", end_in)
        if arrow < 0:
            return None
        end_out = _close(types, arrow)
        return Launch(
            m.group(1),
            split_top(m.group(2)),
            split_top(m.group(3)),
            int(m.group(4)),
            m.group(5),
            split_top(types[1 : end_in - 1]),
            split_top(types[arrow + 1 : end_out - 1]),
            types[end_out:],
        )

    def text(self) -> str:
        return (
            f"{self.head}({', '.join(self.ins)}) -> ({', '.join(self.outs)}) stream "
            f"{self.stream} priority {self.priority} : ({', '.join(self.in_types)}) -> "
            f"({', '.join(self.out_types)}){self.rest}"
        )

    def attrs(self) -> tuple[int, int] | None:
        """The span of the text inside `attrs {...}` in `rest`."""
        at = self.rest.find(" attrs {")
        if at < 0:
            return None
        start = at + len(" attrs {")
        return start, _close(self.rest, start - 1) - 1


# fmt: off
ATTR_VALUES = [
    '"x"', '""', "1.5 : f32", "2.0 : f64", "0 : i64", "-1 : i64", "-2 : i32", "3 : i8",
    "9223372036854775807 : i64", "true", "false", "unit", "array<i64: 0, 0>",
    "array<i64: -1, -1>", "array<i64: 0, 0, 0, 0>", "array<i64: -1, 0, 1, 2>", "array<i64: 1>",
    "array<i64: 1, 1, 1, 1, 1>", "array<i64>", "array<f32: 1.0, 1.0>", "array<i32: 2, 2>",
    "[1 : i64, 2 : i64]", '["a", "b"]', "{}", "dense<1> : tensor<2xi64>",
    "array<i64: 1000000, 1000000>", "array<i1: true, false>",
]
ATTR_KEYS = [
    "strides", "pads", "dilations", "groups", "has_bias", "has_residual", "activation", "axis",
    "perm", "kernel", "ceil_mode", "count_include_pad", "transpose_a", "transpose_b", "epsilon",
    "min", "max", "alpha", "shape",
]
ELEMENT_TYPES = ["f32", "f16", "f64", "i32", "i8", "i64", "ui8", "i1", "bf16"]
FORMATS = [
    "", "#npu.format<NC1HWC0>", "#npu.format<NHWC>", "#npu.format<FRACTAL_Z>",
    "#npu.format<NC1HWC0, c0 = 8>", "#npu.format<FRACTAL_Z, groups = 2>",
]
# fmt: on
TENSOR = re.compile(r"^(tensor|memref)<((?:\d+x)*)([a-z]\w*)(, .*)?>$")


Hit = tuple[int, "re.Match[str]"]
"""A line of the body (its index) and what a pattern matched there."""


class Edit:
    """The lines of one program being mutated, and the random choices."""

    def __init__(self, text: str, rng: random.Random):
        self.lines = text.split("\n")
        self.rng = rng

    @property
    def body(self) -> tuple[int, int]:
        """The range of the function body's lines (after `func.func`, before `func.return`),
        recomputed as lines come and go."""
        starts = [i for i, ln in enumerate(self.lines) if "func.func" in ln]
        ends = [i for i, ln in enumerate(self.lines) if ln.strip() == "func.return"]
        return (starts[0] + 1, ends[0]) if starts and ends else (0, 0)

    def text(self) -> str:
        return "\n".join(self.lines)

    def find(
        self, pattern: re.Pattern[str], where: Callable[[re.Match[str]], bool] | None = None
    ) -> list[Hit]:
        """The body lines `pattern` matches (and `where` accepts)."""
        lo, hi = self.body
        hits = []
        for i in range(lo, hi):
            m = pattern.match(self.lines[i])
            if m and (where is None or where(m)):
                hits.append((i, m))
        return hits

    def pick(
        self, pattern: re.Pattern[str], where: Callable[[re.Match[str]], bool] | None = None
    ) -> Hit | None:
        """One of the lines `find` gives, at random (None if there is none)."""
        hits = self.find(pattern, where)
        return self.rng.choice(hits) if hits else None

    def streams(self) -> int:
        """The number of streams the tasks use (ids 0..n-1)."""
        return 1 + max((int(s) for s in re.findall(r" stream (\d+)", self.text())), default=0)

    def events(self) -> int:
        """The number of events the records and waits use (ids 0..n-1)."""
        return 1 + max((int(m.group(3)) for _, m in self.find(SYNC)), default=-1)


def _delete_sync(kind: str) -> Callable[[Edit], str | None]:
    def mutate(e: Edit) -> str | None:
        hit = e.pick(SYNC, lambda m: m.group(2) == kind)
        if hit is None:
            return None
        i, _ = hit
        line = e.lines.pop(i)
        return f"deleted line {i + 1}: {line.strip()}"

    return mutate


def _move_sync(kind: str) -> Callable[[Edit], str | None]:
    def mutate(e: Edit) -> str | None:
        hit = e.pick(SYNC, lambda m: m.group(2) == kind)
        if hit is None:
            return None
        i, m = hit
        how = e.rng.choice(["position", "stream", "both"])
        stream = int(m.group(4))
        if how != "position":
            stream = e.rng.choice([s for s in range(e.streams() + 1) if s != stream])
        line = f"{m.group(1)}{m.group(3)} stream {stream}{m.group(5)}"
        del e.lines[i]
        j = i
        if how != "stream":
            lo, hi = e.body
            j = e.rng.randrange(lo, hi + 1)  # (hi: just before the return)
        e.lines.insert(j, line)
        return f"moved line {i + 1} ({m.group(0).strip()}) to line {j + 1} as: {line.strip()}"

    return mutate


def _event_id(e: Edit) -> str | None:
    hit = e.pick(SYNC)
    if hit is None:
        return None
    i, m = hit
    old = int(m.group(3))
    new = e.rng.choice([x for x in range(e.events() + 1) if x != old])
    e.lines[i] = f"{m.group(1)}{new} stream {m.group(4)}{m.group(5)}"
    return f"line {i + 1}: event {old} -> {new}: {e.lines[i].strip()}"


def _view_offset(e: Edit) -> str | None:
    hit = e.pick(VIEW)
    if hit is None:
        return None
    i, m = hit
    old = int(m.group(4))
    planned = sorted({int(v.group(4)) for _, v in e.find(VIEW, lambda v: v.group(3) == m.group(3))})
    k = planned.index(old)
    neighbours = planned[max(k - 1, 0) : k] + planned[k + 1 : k + 2]
    choices = [x for x in {0, *neighbours, e.rng.choice(planned)} if x != old]
    if not choices:
        return None
    new = e.rng.choice(sorted(choices))
    e.lines[i] = f"{m.group(1)}{new}{m.group(5)}"
    return f"line {i + 1}: view {m.group(2)} offset {old} -> {new}"


def _launch_stream(e: Edit) -> str | None:
    hits = e.find(LAUNCH) + e.find(COPY)
    if not hits:
        return None
    i, m = e.rng.choice(hits)
    old = int(m.group(4))
    new = e.rng.choice([s for s in range(e.streams() + 1) if s != old])
    e.lines[i] = m.group(0).replace(f" stream {old}", f" stream {new}", 1)
    return f"line {i + 1}: stream {old} -> {new}"


def _launch_attrs(e: Edit) -> str | None:
    hit = e.pick(LAUNCH)
    if hit is None:
        return None
    i, _ = hit
    launch = Launch.parse(e.lines[i])
    span = launch.attrs() if launch else None
    if launch is None or span is None:
        return None
    lo, hi = span
    entries = split_top(launch.rest[lo:hi])
    rng = e.rng
    action = rng.choice(["replace", "replace", "replace", "delete", "add"]) if entries else "add"
    if action == "replace":
        k = rng.randrange(len(entries))
        key = entries[k].split(" = ")[0]
        entries[k] = f"{key} = {rng.choice(ATTR_VALUES)}"
        what = f"{key} = ..."
    elif action == "delete":
        what = entries.pop(rng.randrange(len(entries)))
    else:
        keys = {x.split(" = ")[0] for x in entries}
        key = rng.choice([k for k in ATTR_KEYS if k not in keys] or ["extra"])
        entries.append(f"{key} = {rng.choice(ATTR_VALUES)}")
        what = key
    entries.sort(key=lambda x: x.split(" = ")[0])  # (a dictionary prints its keys sorted)
    launch.rest = launch.rest[:lo] + ", ".join(entries) + launch.rest[hi:]
    e.lines[i] = launch.text()
    return f"line {i + 1}: attrs: {action} {what}: {{{', '.join(entries)}}}"


def _corrupt_type(t: str, rng: random.Random) -> str:
    """A shape, element type or format change of `tensor<...>` / `memref<...>` text."""
    m = TENSOR.match(t)
    if not m:
        return t
    kind, dims, elem, enc = m.group(1), m.group(2), m.group(3), m.group(4) or ""
    what = rng.choice(["shape", "shape", "dtype", "format"] if kind == "tensor" else ["shape"])
    if what == "shape" and dims:
        shape = [int(d) for d in dims[:-1].split("x")]
        k = rng.randrange(len(shape))
        shape[k] = rng.choice([0, 1, shape[k] + 1, shape[k] - 1, shape[k] * 2, shape[k] + 8])
        dims = "".join(f"{max(d, 0)}x" for d in shape)
    elif what == "shape":
        dims = "1x"
    elif what == "dtype":
        elem = rng.choice([x for x in ELEMENT_TYPES if x != elem])
    else:
        fmt = rng.choice(FORMATS)
        enc = f", {fmt}" if fmt else ""
    return f"{kind}<{dims}{elem}{enc}>"


def _launch_types(e: Edit) -> str | None:
    rng = e.rng
    if rng.random() < 0.2:
        hit = e.pick(VIEW)
        if hit is None:
            return None
        i, m = hit
        new = _corrupt_type(m.group(7), rng)
        e.lines[i] = m.group(0)[: m.start(7)] + new
        return f"line {i + 1}: view type {m.group(7)} -> {new}"
    hit = e.pick(LAUNCH)
    launch = Launch.parse(e.lines[hit[0]]) if hit else None
    if hit is None or launch is None:
        return None
    i = hit[0]
    types = rng.choice([x for x in (launch.in_types, launch.out_types) if x])
    k = rng.randrange(len(types))
    old, types[k] = types[k], _corrupt_type(types[k], rng)
    e.lines[i] = launch.text()
    return f"line {i + 1}: type {old} -> {types[k]}"


def _swap_operands(e: Edit) -> str | None:
    rng = e.rng
    hits = [h for h in e.find(LAUNCH)] + e.find(COPY)
    if not hits:
        return None
    i, m = rng.choice(hits)
    if m.re is COPY:
        e.lines[i] = f"{m.group(1)}{m.group(3)} -> {m.group(2)} stream {m.group(4)}{m.group(5)}"
        return f"line {i + 1}: copy source and dest swapped"
    launch = Launch.parse(e.lines[i])
    if launch is None or len(launch.ins) + len(launch.outs) < 2:
        return None
    names, types = launch.ins + launch.outs, launch.in_types + launch.out_types
    a, b = rng.sample(range(len(names)), 2)
    names[a], names[b] = names[b], names[a]
    with_types = rng.random() < 0.5 and len(types) == len(names)
    if with_types:
        types[a], types[b] = types[b], types[a]
    n = len(launch.ins)
    launch.ins, launch.outs = names[:n], names[n:]
    if len(types) == len(names):
        launch.in_types, launch.out_types = types[:n], types[n:]
    e.lines[i] = launch.text()
    return f"line {i + 1}: operands {a} and {b} swapped{' with their types' if with_types else ''}"


MUTATIONS: dict[str, Callable[[Edit], str | None]] = {
    "delete-wait": _delete_sync("wait"),
    "delete-record": _delete_sync("record"),
    "move-wait": _move_sync("wait"),
    "move-record": _move_sync("record"),
    "event-id": _event_id,
    "view-offset": _view_offset,
    "launch-stream": _launch_stream,
    "launch-attrs": _launch_attrs,
    "launch-types": _launch_types,
    "swap-operands": _swap_operands,
}


@dataclass(frozen=True)
class Seed:
    """A lowered program the mutants start from: its name, IR text and weights file."""

    name: str
    text: str
    weights: Path | None


@dataclass(frozen=True)
class Mutant:
    seed: Seed
    text: str
    kinds: tuple[str, ...]
    edits: tuple[str, ...]


def mutants(seeds: Sequence[Seed], count: int, rng: random.Random) -> Iterable[Mutant]:
    """`count` mutants, each one or two mutations of a seed (a mutation that does not
    apply, or changes nothing, does not count; a mutant without one is drawn again)."""
    names = sorted(MUTATIONS)
    for _ in range(count):
        for _attempt in range(1000):
            seed = rng.choice(seeds)
            edit = Edit(seed.text, rng)
            kinds, edits = [], []
            for _ in range(rng.choice((1, 1, 1, 2))):
                kind = rng.choice(names)
                before = list(edit.lines)
                done = MUTATIONS[kind](edit)
                if done is not None and edit.lines != before:
                    kinds.append(kind)
                    edits.append(done)
            text = edit.text()
            if kinds and text != seed.text:
                yield Mutant(seed, text, tuple(kinds), tuple(edits))
                break
        else:
            raise RuntimeError("no mutation applies to the programs")


# ---- seeds ---------------------------------------------------------------------------------


def _quiet(entry: Callable[[list[str]], int], args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = entry(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def random_graph_sources(count: int) -> list[str]:
    """`count` random graphs of the unit tests (`helpers.random_graphs.cases`), as `ge`
    IR text; Hypothesis draws them derandomized, so every call gives the same ones."""
    if count <= 0:
        return []
    helpers = str(REPO / "test" / "unit")  # (the package `helpers` of the unit tests)
    if helpers not in sys.path:
        sys.path.insert(0, helpers)
    from helpers.random_graphs import cases
    from hypothesis import HealthCheck, Phase, given, settings

    got: list[str] = []

    @settings(
        derandomize=True,
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(cases())
    def collect(case: Any) -> None:
        got.append(str(case.module))

    collect()
    return got[:count]


def lower(source: Path, work: Path, name: str) -> Seed:
    """Runs ge-opt's device pipeline on `source` into `work/name.mlir` (constants in
    `name.mlir.weights` beside it)."""
    from ge_dialect.tools.ge_opt import main

    out = work / f"{name}.mlir"
    args = [str(source), "-p", PIPELINE, "--externalize-constants-if-larger=64", "-o", str(out)]
    code, _, err = _quiet(main, args)
    if code != 0:
        raise RuntimeError(f"ge-opt {' '.join(args)} failed:\n{err}")
    weights = out.with_name(out.name + ".weights")
    return Seed(name, out.read_text(), weights if weights.exists() else None)


def seed_programs(work: Path, graphs: int = 12, zoo: bool = True) -> list[Seed]:
    """The lowered programs: the examples, the zoo's ONNX models (if `zoo`), and `graphs`
    random graphs."""
    sources = [
        REPO / "examples" / "resnet_block.mlir",
        REPO / "examples" / "torchair_multistream.mlir",
    ]
    if zoo:
        sources += sorted((REPO / "examples" / "zoo").glob("*.onnx"))
    seeds = [lower(p, work, p.stem.replace(".", "_")) for p in sources]
    for k, text in enumerate(random_graph_sources(graphs)):
        path = work / f"graph{k}.ge.mlir"
        path.write_text(text)
        seeds.append(lower(path, work, f"graph{k}"))
    return seeds


# ---- the campaign --------------------------------------------------------------------------


def load_module(path: Path) -> tuple[ModuleOp | None, str]:
    """The parsed, verified module at `path`, or None and the error."""
    from ge_dialect import api
    from ge_dialect.utils.errors import GeError

    try:
        return api.load(str(path)), ""
    except GeError as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001 (ge-run's run reports the escape; this says why)
        return None, f"{type(e).__name__}: {e}"


@dataclass
class Case:
    """One failure: its mutant, the command, what happened."""

    mutant: Mutant
    args: list[str]
    detail: str


@dataclass
class DeviceCampaign:
    """Mutants by kind, outcomes, and failures by class (see the module docstring)."""

    timeout: float
    save: Path | None = None
    kinds: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[tuple[str, str]] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: dict[str, list[Case]] = field(default_factory=dict)
    entry: Callable[[list[str]], int] | None = None

    def run_tool(self, args: list[str]) -> Any:
        from fuzz import run_isolated

        from ge_dialect.tools import ge_run

        return run_isolated(args, self.timeout, self.entry or ge_run.main)

    def judge(self, mutant: Mutant, work: Path, flags: list[str]) -> tuple[str, str, str]:
        """Runs the mutant twice and reads it: (outcome, failure class or "", detail)."""
        path = work / "mutant.mlir"
        path.write_text(mutant.text)
        args = [str(path), *flags]
        first = self.run_tool(args)
        second = self.run_tool(args)
        for run in (first, second):
            if run.code is None:
                return "hang", "hang", f"no answer within {self.timeout} s"
            if run.escaped or "Traceback" in run.stderr:
                return "traceback", "traceback", run.escaped or run.stderr
            if run.code not in (0, 1, 2):
                return f"exit {run.code}", "exit-code", f"exit {run.code}\n{run.stderr}"
        if (first.code, first.stdout, first.stderr) != (second.code, second.stdout, second.stderr):
            return "nondeterministic", "nondeterministic", _difference(first, second)
        module, error = load_module(path)
        if first.code == 0:
            return self.accepted(module, error)
        return self.rejected(first.stderr, module)

    def accepted(self, module: ModuleOp | None, error: str) -> tuple[str, str, str]:
        if module is None:
            return "accepted", "accepted-unverified", f"ge-run exits 0, the verifier says:\n{error}"
        findings = analyse(module)
        if findings:
            kind = findings[0].kind
            return "accepted", f"miss-{kind}", "\n".join(f.message for f in findings[:8])
        return "accepted", "", ""

    def rejected(self, stderr: str, module: ModuleOp | None) -> tuple[str, str, str]:
        bad = unlocated(stderr)
        if module is None:
            outcome = "rejected by verifier"
        elif tool_findings(stderr):
            outcome = "rejected by checker"
        else:
            outcome = "rejected other"
        if bad:
            return outcome, "unlocated", "\n".join(bad[:8])
        if outcome != "rejected by checker" or module is None:
            return outcome, "", ""
        failure, detail = compare(tool_findings(stderr), analyse(module), stderr)
        return outcome, failure, detail

    def check(self, mutant: Mutant, work: Path, flags: list[str]) -> None:
        """Judges one mutant and counts it (a failure is kept, and saved)."""
        outcome, failure, detail = self.judge(mutant, work, flags)
        self.outcomes[outcome] += 1
        for kind in mutant.kinds:
            self.kinds[kind] += 1
            self.by_kind[(kind, outcome)] += 1
        if failure:
            self.fail(failure, Case(mutant, ["ge-run", "mutant.mlir", *flags], detail))

    def fail(self, failure: str, case: Case) -> None:
        cases = self.failures.setdefault(failure, [])
        cases.append(case)
        if self.save is not None and len(cases) <= 3:
            save_case(self.save, f"{failure}-{len(cases)}", case)

    def report(self, seconds: float, seeds: int) -> str:
        """The figures: mutants by kind (and what became of them), outcomes, failures by
        class with the smallest case (and where it is saved)."""
        total = sum(self.outcomes.values())
        rejected = {k: v for k, v in self.outcomes.items() if k.startswith("rejected")}
        lines = [
            f"{total} device mutants of {seeds} programs in {seconds:.0f} s",
            f"rejected {sum(rejected.values())}: "
            + ", ".join(f"{k.split(' ', 1)[1]} {v}" for k, v in sorted(rejected.items())),
            f"accepted {self.outcomes['accepted']}",
        ]
        others = {k: v for k, v in self.outcomes.items() if k != "accepted" and k not in rejected}
        if others:
            lines.append("no verdict: " + ", ".join(f"{k} {v}" for k, v in sorted(others.items())))
        lines.append("mutations (rejected by verifier / by checker / other, accepted):")
        for kind, n in sorted(self.kinds.items()):
            counts = [self.by_kind[(kind, o)] for o in OUTCOMES]
            lines.append(f"  {kind} {n}: {counts[0]} / {counts[1]} / {counts[2]}, {counts[3]}")
        count = sum(len(v) for v in self.failures.values())
        lines.append(f"{count} failure(s)" + (":" if count else ""))
        for failure, cases in sorted(self.failures.items()):
            case = min(cases, key=lambda c: len(c.mutant.text))
            saved = f" (saved as {self.save / failure}-smallest.mlir)" if self.save else ""
            lines.append(
                f"  {failure}: {len(cases)}; smallest: {case.mutant.seed.name}, "
                f"{'; '.join(case.mutant.edits)}{saved}"
            )
            lines += ["    " + ln for ln in case.detail.strip().splitlines()[-4:]]
        return "\n".join(lines)


OUTCOMES = ("rejected by verifier", "rejected by checker", "rejected other", "accepted")


def compare(
    tool: list[tuple[str, tuple[str, ...]]], model: list[ModelFinding], stderr: str
) -> tuple[str, str]:
    """A rejection by the checker against the model: ("", "") when they agree, else the
    failure class and why.

    A race the tool names must race in the model; a clobber or an uninitialized read
    (`READ`) must be one of the model's at that reader, or come with a race of the model
    involving its tasks (the checker judges them in the simulated order, where a racing
    write may come last); a deadlock must be the model's too.  Conversely every race the
    model finds must be named, and every read it convicts must be named (as such, or in a
    race)."""
    kinds = {f.kind for f in model}
    if "event" in kinds:
        return "", ""  # which record counts is the verifier's to settle
    if "deadlock" in kinds or any(kind == "deadlock" for kind, _ in tool):
        if "deadlock" not in kinds:
            return "false-alarm-deadlock", f"the model finds no deadlock:\n{stderr}"
        if not any(kind == "deadlock" for kind, _ in tool):
            return "miss-deadlock", "\n".join(f.message for f in model if f.kind == "deadlock")
        return "", ""
    races_ = {f.pair for f in model if f.kind == "race"}
    racing = {w for pair in races_ for w in pair}
    convicted = {f.tasks[0] for f in model if f.kind in READ}
    for kind, where in tool:
        if kind == "race" and frozenset(where) not in races_:
            return "false-alarm-race", f"the model orders {', '.join(where)}:\n{stderr}"
        if kind in READ and where and where[0] not in convicted and not racing & set(where):
            return f"false-alarm-{kind}", f"the model finds nothing at {where[0]}:\n{stderr}"
    named = {frozenset(where) for kind, where in tool if kind == "race"}
    missing = [f for f in model if f.kind == "race" and f.pair not in named]
    named_tasks = {w for _, where in tool for w in where}
    missing += [f for f in model if f.kind in READ and not named_tasks & set(f.tasks)]
    if missing:
        detail = "\n".join(f.message for f in missing[:8])
        return f"incomplete-{missing[0].kind}", f"not reported:\n{detail}\n--- stderr\n{stderr}"
    return "", ""


def _difference(first: Any, second: Any) -> str:
    for what in ("code", "stdout", "stderr"):
        a, b = getattr(first, what), getattr(second, what)
        if a != b:
            return f"the two runs' {what} differ:\n--- first\n{a}\n--- second\n{b}"
    return ""


def save_case(directory: Path, stem: str, case: Case) -> None:
    """Writes `stem.mlir` (with its weights file beside it) and `stem.txt` (the command,
    the seed program, the edits, what happened)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{stem}.mlir").write_text(case.mutant.text)
    weights = case.mutant.seed.weights
    if weights is not None:
        shutil.copyfile(weights, directory / weights.name)
    text = [
        " ".join(case.args).replace("mutant.mlir", f"{stem}.mlir"),
        f"program: {case.mutant.seed.name}",
        *(f"edit: {e}" for e in case.mutant.edits),
        "",
        case.detail,
    ]
    (directory / f"{stem}.txt").write_text("\n".join(text) + "\n")


def reduce(campaign: DeviceCampaign, case: Case, failure: str, work: Path, budget: int) -> Case:
    """The case with as many body lines deleted as keep its failure class: chunks of
    halving size, from the end (users go before the buffers they use), then single lines
    until none can go; at most `budget` judgements (two runs each)."""
    mutant = case.mutant
    flags = case.args[2:]
    lines = mutant.text.split("\n")
    lo, hi = Edit(mutant.text, random.Random(0)).body

    def program(body: list[int]) -> Mutant:
        text = "\n".join(lines[:lo] + [lines[i] for i in body] + lines[hi:])
        return Mutant(mutant.seed, text, mutant.kinds, mutant.edits)

    body = list(range(lo, hi))
    chunk = max(len(body) // 2, 1)
    while budget > 0:
        changed = False
        k = len(body) - chunk
        while k > -chunk and budget > 0:
            keep = body[: max(k, 0)] + body[k + chunk :]
            budget -= 1
            if keep != body and campaign.judge(program(keep), work, flags)[1] == failure:
                body, changed = keep, True
            k -= chunk
        if chunk > 1:
            chunk //= 2
        elif not changed:
            break
    reduced = program(body)
    return Case(reduced, case.args, campaign.judge(reduced, work, flags)[2])


def warm_up(campaign: DeviceCampaign, seeds: Sequence[Seed], work: Path) -> None:
    """Runs ge-run once on every seed in this process (so that the forks start with every
    module imported).  Each seed must run clean and the model must find nothing in it: a
    seed the model convicts stops the campaign (the model or the compiler is wrong); one
    ge-run fails on is a failure of class `seed`."""
    from ge_dialect.tools.ge_run import main

    for seed in seeds:
        path = work / f"{seed.name}.mlir"
        try:
            code, _, err = _quiet(main, [str(path)])
        except Exception:  # noqa: BLE001 (the tool's crash is a finding, not the fuzzer's)
            code, err = -1, traceback.format_exc()
        module, error = load_module(path)
        if module is None:
            raise RuntimeError(f"the program {seed.name} does not verify:\n{error}")
        findings = analyse(module)
        if findings:
            detail = "\n".join(f.message for f in findings)
            raise RuntimeError(f"the model convicts the program {seed.name}:\n{detail}")
        if code != 0:
            mutant = Mutant(seed, seed.text, (), ("none: the program as lowered",))
            campaign.fail("seed", Case(mutant, ["ge-run", "mutant.mlir"], err))


def fuzz_device(
    mutants_count: int,
    seed: int = 0,
    timeout: float = 10.0,
    save: Path | None = None,
    graphs: int = 12,
    zoo: bool = True,
    reduce_budget: int = 0,
    entry: Callable[[list[str]], int] | None = None,
) -> tuple[DeviceCampaign, int]:
    """Runs a device campaign; returns it and the number of seed programs."""
    import gc

    rng = random.Random(seed)
    campaign = DeviceCampaign(timeout, save, entry=entry)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        seeds = seed_programs(work, graphs, zoo)
        warm_up(campaign, seeds, work)
        gc.collect()
        gc.freeze()  # the forks share the parent's objects without touching their pages
        for mutant in mutants(seeds, mutants_count, rng):
            flags = ["--report", "json"] if rng.random() < 0.25 else []
            campaign.check(mutant, work, flags)
        for failure, cases in sorted(campaign.failures.items()):
            if save is None:
                break
            case = min(cases, key=lambda c: len(c.mutant.text))
            save_case(save, f"{failure}-smallest", case)
            if reduce_budget:
                small = reduce(campaign, case, failure, work, reduce_budget)
                save_case(save, f"{failure}-reduced", small)
    return campaign, len(seeds)


def main(args: Any) -> int:
    """`dev/fuzz.py --device`: runs the campaign and prints its figures (exit 1 on any
    failure)."""
    start = time.monotonic()
    campaign, seeds = fuzz_device(
        args.mutants,
        args.seed,
        args.timeout,
        args.save,
        reduce_budget=args.reduce_budget if args.reduce else 0,
    )
    print(campaign.report(time.monotonic() - start, seeds))
    return 1 if campaign.failures else 0
