"""An `npu` program as plain data: buffers and tasks, what the simulator runs.

`read_program(fn)` reads a function marked `npu.program` once into a `Program`: numbered
buffers (the arguments, weights, allocations and views, with their physical shapes, dtypes
and where they are defined; an in-out argument is one input buffer that is also an output;
for a view, the buffer it views and the root buffer and byte offset it aliases) and
numbered tasks in issue order (launches, records, waits, copies), each with its stream.
The numerics (`ge_dialect.sim.executor`), and the time model and the checkers built on it,
work on this form and never walk IR again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.str_enum import StrEnum

from ge_dialect.ir.dialects import npu
from ge_dialect.sim.kernels import Operand
from ge_dialect.utils.dtypes import np_dtype
from ge_dialect.utils.errors import GeError, location_str, op_error
from ge_dialect.utils.layout import default_c0
from ge_dialect.utils.scope_attrs import SCOPE_ATTRS
from ge_dialect.utils.task_order import COPY, LAUNCH, RECORD, WAIT, TaskKind


@dataclass(frozen=True)
class Cost:
    """A task's work, from the cost module (`#npu.cost`)."""

    unit: str = "none"
    flops: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    blocks: int = 0


class BufferKind(StrEnum):
    """What a buffer is; prints (and serialises) as its value: "input", "weight", ..."""

    INPUT = "input"
    OUTPUT = "output"
    WEIGHT = "weight"
    ALLOC = "alloc"
    VIEW = "view"


INPUT, OUTPUT, WEIGHT = BufferKind.INPUT, BufferKind.OUTPUT, BufferKind.WEIGHT
ALLOC, VIEW = BufferKind.ALLOC, BufferKind.VIEW
"""The kinds as module constants, for the loops per buffer (as `task_order.LAUNCH` and the
others for tasks: in Python 3.11 `BufferKind.ALLOC` is a slow lookup, through the enum's
metaclass)."""


@dataclass(frozen=True)
class Buffer:
    """A buffer of the program: an argument, a weight, an allocation or a view of one."""

    index: int
    kind: BufferKind
    shape: tuple[int, ...]  # physical
    dtype: np.dtype
    root: int  # the buffer whose bytes this one uses (itself unless a view)
    offset: int  # byte offset into the root
    name: str = ""  # inputs and outputs: the graph's name
    logical: Operand | None = None  # inputs and outputs: the logical type
    source: int | None = None  # views: the buffer viewed (a view of a view names the view)
    location: str = ""  # weights, allocations and views: where the op defining it is
    label: str = ""  # the SSA name the IR gives it (`%big`), if any
    out_name: str = ""  # an in-out argument (an input updated in place): its output's name

    @property
    def output_name(self) -> str:
        """The name an output buffer is read back under."""
        return self.out_name or self.name

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


@dataclass(frozen=True)
class Task:
    """One task of the task list, in issue order."""

    index: int
    kind: TaskKind
    stream: int
    location: str
    priority: int = 0
    kernel: str = ""
    inputs: tuple[int, ...] = ()  # buffer indices
    outputs: tuple[int, ...] = ()
    in_types: tuple[Operand, ...] = ()
    out_types: tuple[Operand, ...] = ()
    attrs: dict[str, Any] = field(default_factory=dict)
    cost: Cost = Cost()
    event: int = -1  # records and waits
    scope: dict[str, Any] = field(default_factory=dict)
    """A launch's TorchAir scope attributes (`ge_dialect.utils.scope_attrs.SCOPE_ATTRS`:
    the core limit and super kernel the time model honours)."""

    def describe(self) -> str:
        """`launch conv2d on stream 1` and the like, for messages."""
        if self.kind == LAUNCH:
            return f"launch '{self.kernel}' on stream {self.stream} ({self.location})"
        if self.kind in (RECORD, WAIT):
            return f"{self.kind} of event {self.event} on stream {self.stream} ({self.location})"
        return f"copy on stream {self.stream} ({self.location})"


@dataclass
class Program:
    """Buffers and tasks of one `npu` program."""

    name: str
    buffers: list[Buffer]
    tasks: list[Task]
    inputs: list[int]  # buffer indices of the inputs, in argument order
    outputs: list[int]
    weights: dict[int, Callable[[], np.ndarray]]  # weight buffer -> its physical array
    memory: dict[str, int] = field(default_factory=dict)
    """`plan-memory`'s figures (bytes: peak, no_reuse, sequential_bound, stream_bound,
    buffers); empty when the program was not planned."""

    _loaded: dict[int, np.ndarray] = field(default_factory=dict)

    def weight(self, index: int) -> np.ndarray:
        """The physical array of weight buffer `index`: read once, then the same read-only
        array on every run (kernels may keep what they derive from it, e.g. a conv's weight
        matrix, while it lives)."""
        array = self._loaded.get(index)
        if array is None:
            buffer = self.buffers[index]
            array = np.ascontiguousarray(self.weights[index]()).reshape(buffer.shape)
            array.flags.writeable = False
            self._loaded[index] = array
        return array

    @property
    def streams(self) -> list[int]:
        return sorted({t.stream for t in self.tasks})


def operand_of(t: Attribute) -> Operand:
    """The kernel's view of a logical type (`tensor<..., #npu.format<...>>`)."""
    assert isinstance(t, TensorType)
    shape = tuple(t.get_shape())
    dtype = np.dtype(np_dtype(t.element_type))
    encoding = t.encoding
    if isinstance(encoding, NoneAttr):
        return Operand(
            shape, dtype, "NCHW" if len(shape) == 4 else "ND", default_c0(dtype.itemsize)
        )
    assert isinstance(encoding, npu.FormatAttr)
    c0 = encoding.c0.data or default_c0(dtype.itemsize)
    return Operand(shape, dtype, encoding.format.data, c0, encoding.groups.data)


def python_value(attr: Attribute) -> Any:
    """A builtin attribute as a plain Python value (what kernels read)."""
    if isinstance(attr, IntegerAttr):
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return bool(attr.value.data)
        return int(attr.value.data)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())
    if isinstance(attr, ArrayAttr):
        return [python_value(a) for a in attr.data]
    if isinstance(attr, DictionaryAttr):
        return {k: python_value(v) for k, v in attr.data.items()}
    return attr


def _int(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return int(attr.value.data)


def _cost(attr: Attribute | None) -> Cost:
    if attr is None:
        return Cost()
    assert isinstance(attr, npu.CostAttr)
    return Cost(
        attr.unit.data,
        attr.flops.data,
        attr.bytes_in.data,
        attr.bytes_out.data,
        attr.blocks.data,
    )


def read_program(fn: func.FuncOp) -> Program:
    """The buffers and tasks of the program `fn` (verified IR)."""
    buffers: list[Buffer] = []
    index: dict[SSAValue, int] = {}
    inputs: list[int] = []
    outputs: list[int] = []
    weights: dict[int, Callable[[], np.ndarray]] = {}

    def add(value: SSAValue, kind: BufferKind, **extra: Any) -> int:
        t = value.type
        assert isinstance(t, MemRefType)
        i = len(buffers)
        root = extra.pop("root", i)
        offset = extra.pop("offset", 0)
        dtype = np.dtype(np_dtype(t.element_type))
        label = f"%{value.name_hint}" if value.name_hint else ""
        buffers.append(
            Buffer(i, kind, tuple(t.get_shape()), dtype, root, offset, label=label, **extra)
        )
        index[value] = i
        return i

    arg_attrs = fn.arg_attrs.data if fn.arg_attrs is not None else ()
    for arg in fn.body.block.args:
        attrs = arg_attrs[arg.index].data if arg.index < len(arg_attrs) else {}
        logical_attr = attrs.get("npu.type")
        t = arg.type
        assert isinstance(t, MemRefType)
        logical = (
            operand_of(logical_attr)
            if logical_attr is not None
            else operand_of(TensorType(t.element_type, t.get_shape()))
        )
        if "npu.input" in attrs:
            name = attrs["npu.input"]
            out = attrs.get("npu.output")  # an in-out argument is an input and an output
            assert isinstance(name, StringAttr) and isinstance(out, StringAttr | None)
            out_name = "" if out is None else out.data
            inputs.append(add(arg, INPUT, name=name.data, logical=logical, out_name=out_name))
            if out is not None:
                outputs.append(inputs[-1])
        else:
            name = attrs["npu.output"]
            assert isinstance(name, StringAttr)
            outputs.append(add(arg, OUTPUT, name=name.data, logical=logical))

    tasks: list[Task] = []
    for op in fn.body.block.ops:
        where = location_str(op.location)
        if isinstance(op, npu.WeightOp):
            i = add(op.results[0], WEIGHT, location=where)
            weights[i] = op.physical_array
        elif isinstance(op, npu.AllocOp):
            add(op.results[0], ALLOC, location=where)
        elif isinstance(op, npu.ViewOp):
            source = buffers[index[op.source]]
            add(
                op.results[0],
                VIEW,
                root=source.root,
                offset=source.offset + _int(op.properties["offset"]),
                source=source.index,
                location=where,
            )
        elif isinstance(op, npu.LaunchOp):
            in_types = op.properties["in_types"]
            out_types = op.properties["out_types"]
            assert isinstance(in_types, ArrayAttr) and isinstance(out_types, ArrayAttr)
            kernel = op.properties["kernel"]
            assert isinstance(kernel, StringAttr)
            attrs_attr = op.properties["attrs"]
            assert isinstance(attrs_attr, DictionaryAttr)
            tasks.append(
                Task(
                    len(tasks),
                    LAUNCH,
                    _int(op.properties["stream"]),
                    where,
                    priority=_int(op.properties["priority"]),
                    kernel=kernel.data,
                    inputs=tuple(index[v] for v in op.inputs),
                    outputs=tuple(index[v] for v in op.outputs),
                    in_types=tuple(operand_of(t) for t in in_types.data),
                    out_types=tuple(operand_of(t) for t in out_types.data),
                    attrs=python_value(attrs_attr),
                    cost=_cost(op.properties.get("cost")),
                    scope={
                        name: python_value(op.attributes[name])
                        for name in SCOPE_ATTRS
                        if name in op.attributes
                    },
                )
            )
        elif isinstance(op, npu.RecordOp | npu.WaitOp):
            kind = RECORD if isinstance(op, npu.RecordOp) else WAIT
            tasks.append(
                Task(
                    len(tasks),
                    kind,
                    _int(op.properties["stream"]),
                    where,
                    event=_int(op.properties["event"]),
                )
            )
        elif isinstance(op, npu.CopyOp):
            t = op.source.type
            assert isinstance(t, MemRefType)
            moved = (operand_of(TensorType(t.element_type, t.get_shape())),)
            tasks.append(
                Task(
                    len(tasks),
                    COPY,
                    _int(op.properties["stream"]),
                    where,
                    kernel="copy",
                    inputs=(index[op.source],),
                    outputs=(index[op.dest],),
                    in_types=moved,
                    out_types=moved,
                    cost=_cost(op.properties.get("cost")),
                )
            )
        elif isinstance(op, func.ReturnOp):
            pass
        else:
            raise op_error(
                op, f"the simulator does not run '{op.name}' (an npu program holds npu ops only)"
            )
    memory = fn.attributes.get("npu.memory")
    figures = python_value(memory) if isinstance(memory, DictionaryAttr) else {}
    return Program(fn.sym_name.data, buffers, tasks, inputs, outputs, weights, figures)


def find_program(module: Operation, name: str | None = None) -> func.FuncOp:
    """The program called `name`, or the module's first one."""
    for op in module.walk():
        if isinstance(op, func.FuncOp) and "npu.program" in op.attributes:
            if name is None or op.sym_name.data == name:
                return op
    if name is None:
        raise GeError("error: the module has no npu program (run --lower-to-device first)")
    raise GeError(f"error: the module has no npu program '@{name}'")
