"""Build `ge` graphs from Python, with TorchAir's stream semantics.

    b = GraphBuilder("main")
    x = b.input("x", [1, 3, 8, 8])
    w = b.const(np.ones((4, 3, 3, 3), np.float32))
    with b.stream_switch("1", stream_priority=3):
        y = b.relu(b.conv2d(x, w, pads=[1, 1, 1, 1]), name="y")
    module = b.build([y])

Every op method infers its result type (the verifier then checks it again), and returns a
`Tensor` handle.  Inside `stream_switch(tag, priority, inner_parallel)` every op gets
`stream.label = #stream.label<tag, priority = ..., inner_parallel = ...>`; scopes nest and
the innermost wins, as TorchAir's `npu_stream_switch`.  `wait_tensor(x, dep)` is TorchAir's
`npu_wait_tensor`: it rebinds the handle `x` in place, so every op built from `x` afterwards
uses the wait's result (ops built before are unaffected).

Function arguments and results carry their names as `{ge.name = "..."}`, the keys later
tools use for `.npz` inputs and outputs.  Every op is located at the line of the caller's
code that built it (`file:line:col`, the first frame outside `ge_dialect`), so a verifier
error at `build()` points there.  A mistake (a duplicate input name, a shape that is not a
list of integers, a dimension above 2^63 - 1) raises `GeError`.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from types import CodeType

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    FunctionType,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.ir.dialects.ge.indexing import gather_shape, slice_length
from ge_dialect.utils import dtypes, shapes
from ge_dialect.utils.errors import MAX_DIMENSION, GeError

NAME = "ge.name"
"""The argument/result attribute holding a graph input's or output's name."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def element_type(dtype: str | np.dtype | type | Attribute) -> Attribute:
    """`"f32"`, a numpy dtype or scalar type, or an MLIR element type -> the MLIR element
    type (one of the graph types)."""
    try:
        return dtypes.element_type(dtype, dtypes.GRAPH_TYPES)
    except ValueError:
        raise GeError(f"error: unsupported element type {dtype!r}") from None


class Tensor:
    """A handle on a value being built; `wait_tensor` can rebind it to another value."""

    def __init__(self, builder: GraphBuilder, value: SSAValue, name: str | None = None):
        self.builder = builder
        self.value = value
        self.name = name

    @property
    def type(self) -> TensorType:
        assert isinstance(self.value.type, TensorType)
        return self.value.type

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.type.get_shape())

    @property
    def element_type(self) -> Attribute:
        return self.type.element_type

    def __repr__(self) -> str:
        return f"Tensor({self.name or '?'}: {self.type})"


def _check_name(name: object) -> None:
    """A GeError unless `name` is text that can be printed (a str with no lone surrogate)."""
    if not isinstance(name, str):
        raise GeError(f"error: a name must be a str, got {type(name).__name__} {name!r}")
    if not name.isascii():
        try:
            name.encode()
        except UnicodeEncodeError:
            raise GeError(f"error: name {name!r} is not valid Unicode text") from None


def _name_hint(name: str | None) -> str | None:
    """An SSA name hint for `name` (other characters become `_`)."""
    if name is None:
        return None
    _check_name(name)
    hint = re.sub(r"[^A-Za-z0-9_$.]", "_", name)
    return hint if _IDENTIFIER.fullmatch(hint) and not hint[0].isdigit() else f"v_{hint}"


def _dims(shape: object, what: str, inferred: bool = False) -> list[int]:
    """`shape` as a list of dims in [0, 2^63 - 1] (also -1 when `inferred`), else a GeError.

    Python and numpy integers are dims; bools, floats, strings and None are not.
    """
    not_a_list = GeError(f"error: the shape of {what} must be a list of integers, got {shape!r}")
    if not isinstance(shape, Iterable) or isinstance(shape, str | bytes):
        raise not_a_list
    items = list(shape)
    dims = [int(d) for d in items if isinstance(d, int | np.integer) and not isinstance(d, bool)]
    if len(dims) < len(items):
        raise not_a_list
    for d in dims:
        if d > MAX_DIMENSION:
            raise GeError(f"error: dimension {d} of {what} exceeds 2^63 - 1")
        if d < (-1 if inferred else 0):
            allowed = " (only -1, inferred, may be negative)" if inferred else ""
            raise GeError(f"error: the shape of {what} has a negative dimension {d}{allowed}")
    return dims


_PACKAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


@functools.lru_cache(maxsize=256)
def _positions(code: CodeType) -> tuple[tuple[int | None, ...], ...]:
    """Source positions of `code`'s instructions (Python 3.11+; none before)."""
    positions = getattr(code, "co_positions", None)
    return tuple(positions()) if positions is not None else ()


def _caller_location() -> FileLineColLoc | UnknownLoc:
    """`file:line:col` of the innermost frame outside `ge_dialect` (the user's call)."""
    frame = sys._getframe(1)
    while frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        if frame.f_back is None:
            return UnknownLoc()
        frame = frame.f_back
    positions = _positions(frame.f_code)
    index = frame.f_lasti // 2
    col = positions[index][2] if index < len(positions) else None
    return FileLineColLoc(
        StringAttr(frame.f_code.co_filename),
        IntAttr(frame.f_lineno),
        IntAttr(col + 1 if col is not None else 1),
    )


_ACTIVE: contextvars.ContextVar[tuple[GraphBuilder, ...]] = contextvars.ContextVar(
    "ge_active_builders", default=()
)


def active_builder() -> GraphBuilder:
    """The innermost builder of a `with GraphBuilder(...)` block."""
    builders = _ACTIVE.get()
    if not builders:
        raise GeError("error: no active GraphBuilder: use `with GraphBuilder(...) as b:`")
    return builders[-1]


class GraphBuilder:
    """Builds one function of `ge` ops; `build(outputs)` returns a verified module.

    `with GraphBuilder() as b:` makes `b` the active builder, on which `ge_dialect.frontend.scope`'s
    `npu_stream_switch` and `npu_wait_tensor` act.  With `locate=False` ops are left
    unlocated (`UnknownLoc`), for a frontend that locates them itself.
    """

    def __init__(self, name: str = "main", locate: bool = True):
        self.name = name
        self.locate = locate
        self.block = Block()
        self._inputs: list[tuple[str, TensorType]] = []
        self._scopes: list[stream.LabelAttr] = []
        self._labels: dict[tuple[str, int, bool], stream.LabelAttr] = {}
        """One attribute per distinct label, shared by every scope that opens it: uniqued,
        as MLIR's context uniques attributes (a pass that reads the labels of many ops then
        reads one object per label, not one per scope)."""
        self._built = False
        self._tokens: list[contextvars.Token] = []

    def __enter__(self) -> GraphBuilder:
        self._tokens.append(_ACTIVE.set((*_ACTIVE.get(), self)))
        return self

    def __exit__(self, *exc: object) -> None:
        _ACTIVE.reset(self._tokens.pop())

    # ---- inputs, constants, scopes ---------------------------------------------------------

    def input(
        self,
        name: str,
        shape: Sequence[int],
        dtype: str | np.dtype | type | Attribute = "f32",
        format: str | None = None,
        c0: int = 0,
    ) -> Tensor:
        """A function argument called `name`; names are unique."""
        hint = _name_hint(name)
        if any(name == known for known, _ in self._inputs):
            raise GeError(f"error: duplicate input name '{name}'")
        t = TensorType(element_type(dtype), _dims(shape, f"input '{name}'"))
        if format is not None:
            t = ge.with_format(t, format, c0)
        arg = self.block.insert_arg(t, len(self.block.args))
        arg.name_hint = hint
        self._inputs.append((name, t))
        return Tensor(self, arg, name)

    def const(
        self,
        array: np.ndarray | float | Sequence[float],
        dtype: str | np.dtype | None = None,
        format: str | None = None,
        c0: int = 0,
        groups: int = 1,
        name: str | None = None,
    ) -> Tensor:
        """A constant holding the logical array `array` (stored physically for `format`)."""
        if dtype is not None:
            named = isinstance(dtype, str) and dtype in dtypes.GRAPH_TYPES
            array = np.asarray(
                array, dtype=dtypes.np_dtype(element_type(dtype)) if named else np.dtype(dtype)
            )
        array = np.asarray(array)
        t = TensorType(element_type(array.dtype), array.shape)
        if format is not None:
            t = ge.with_format(t, format, c0, groups)
        return self._emit(ge.ConstOp.from_numpy(array, t), name)

    @contextlib.contextmanager
    def stream_switch(
        self, stream_tag: str, stream_priority: int = 0, enable_inner_parallel: bool = True
    ) -> Iterator[None]:
        """TorchAir's `npu_stream_switch`: label every op built inside with `stream_tag`."""
        self.enter_stream(stream_tag, stream_priority, enable_inner_parallel)
        try:
            yield
        finally:
            self.exit_stream()

    def enter_stream(
        self, stream_tag: str, stream_priority: int = 0, enable_inner_parallel: bool = True
    ) -> None:
        key = (str(stream_tag), int(stream_priority), bool(enable_inner_parallel))
        label = self._labels.get(key)
        if label is None:
            label = self._labels[key] = stream.LabelAttr(*key)
        self._scopes.append(label)

    def exit_stream(self) -> None:
        if not self._scopes:
            raise GeError("error: stream scope exit without a matching npu_stream_switch enter")
        self._scopes.pop()

    @property
    def stream_tag(self) -> str | None:
        """The tag of the innermost open stream scope (None: the default stream)."""
        return self._scopes[-1].label.data if self._scopes else None

    def wait_tensor(self, x: Tensor, dependency: Tensor, name: str | None = None) -> Tensor:
        """TorchAir's `npu_wait_tensor`: ops built from `x` from now on run after `dependency`.

        Rebinds `x` in place to the wait's result and returns it.
        """
        wait = stream.WaitTensorOp(x.value, dependency.value)
        self._insert(wait, name)
        x.value = wait.output
        return x

    # ---- ops ----------------------------------------------------------------------------------

    def conv2d(
        self,
        x: Tensor,
        w: Tensor,
        bias: Tensor | None = None,
        strides=(1, 1),
        pads=(0, 0, 0, 0),
        dilations=(1, 1),
        groups: int = 1,
        name: str | None = None,
    ) -> Tensor:
        t = self._conv_type(x, w, strides, pads, dilations)
        return self._emit(
            ge.Conv2DOp(x.value, w.value, _v(bias), t, strides, pads, dilations, groups), name
        )

    def fused_conv2d(
        self,
        x: Tensor,
        w: Tensor,
        bias: Tensor | None = None,
        residual: Tensor | None = None,
        activation: str = "none",
        alpha: float | None = None,
        strides=(1, 1),
        pads=(0, 0, 0, 0),
        dilations=(1, 1),
        groups: int = 1,
        name: str | None = None,
    ) -> Tensor:
        t = self._conv_type(x, w, strides, pads, dilations)
        return self._emit(
            ge.FusedConv2DOp(
                x.value,
                w.value,
                _v(bias),
                _v(residual),
                t,
                activation,
                alpha,
                strides,
                pads,
                dilations,
                groups,
            ),
            name,
        )

    def batch_norm(
        self,
        x: Tensor,
        scale: Tensor,
        offset: Tensor,
        mean: Tensor,
        variance: Tensor,
        epsilon: float = 1e-5,
        name: str | None = None,
    ) -> Tensor:
        return self._emit(
            ge.BatchNormOp(
                x.value,
                scale.value,
                offset.value,
                mean.value,
                variance.value,
                _number(epsilon, "epsilon"),
            ),
            name,
        )

    def relu(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.ReluOp(x.value), name)

    def relu6(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.Relu6Op(x.value), name)

    def leaky_relu(self, x: Tensor, alpha: float = 0.01, name: str | None = None) -> Tensor:
        return self._emit(ge.LeakyReluOp(x.value, _number(alpha, "alpha")), name)

    def sigmoid(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.SigmoidOp(x.value), name)

    def silu(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.SiluOp(x.value), name)

    def clip(self, x: Tensor, min: float, max: float, name: str | None = None) -> Tensor:
        return self._emit(ge.ClipOp(x.value, _number(min, "min"), _number(max, "max")), name)

    def identity(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.IdentityOp(x.value), name)

    def exp(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.ExpOp(x.value), name)

    def log(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.LogOp(x.value), name)

    def tanh(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.TanhOp(x.value), name)

    def erf(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.ErfOp(x.value), name)

    def sqrt(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.SqrtOp(x.value), name)

    def rsqrt(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.RsqrtOp(x.value), name)

    def neg(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.NegOp(x.value), name)

    def reciprocal(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.ReciprocalOp(x.value), name)

    def gelu(self, x: Tensor, approximate: str = "none", name: str | None = None) -> Tensor:
        """GELU, exact (`approximate="none"`) or in its tanh form (`"tanh"`)."""
        if approximate not in ge.GELU_APPROXIMATIONS:
            raise GeError(f"error: gelu approximate must be 'none' or 'tanh', got {approximate!r}")
        return self._emit(ge.GeluOp(x.value, approximate), name)

    def add(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.AddOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def sub(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.SubOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def mul(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.MulOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def div(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.DivOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def maximum(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.MaximumOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def minimum(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.MinimumOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def pow(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.PowOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def sin(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.SinOp(x.value), name)

    def cos(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.CosOp(x.value), name)

    def compare(self, kind: str, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        """`a <kind> b` as i1 with broadcasting; `kind` is the op's name without "ge."
        (equal, not_equal, less, less_equal, greater, greater_equal)."""
        ops = {op.name.removeprefix("ge."): op for op in ge.COMPARISON_OPS}
        if kind not in ops:
            raise GeError(f"error: unknown comparison {kind!r} (one of {', '.join(ops)})")
        result = self._broadcast_type(a, b)
        result = TensorType(dtypes.element_type("i1"), result.get_shape(), result.encoding)
        return self._emit(ops[kind](a.value, b.value, result), name)

    def logical_not(self, x: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.LogicalNotOp(x.value), name)

    def logical_and(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.LogicalAndOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def logical_or(self, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return self._emit(ge.LogicalOrOp(a.value, b.value, self._broadcast_type(a, b)), name)

    def where(self, cond: Tensor, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        """`a` where `cond` (i1) holds, else `b`, with three-way broadcasting."""
        shape = shapes.broadcast_shape(cond.shape, a.shape)
        shape = None if shape is None else shapes.broadcast_shape(shape, b.shape)
        if shape is None:
            raise GeError(
                f"error: shapes {list(cond.shape)}, {list(a.shape)} and {list(b.shape)} do not "
                "broadcast"
            )
        result = TensorType(a.element_type, shape)
        return self._emit(ge.WhereOp(cond.value, a.value, b.value, result), name)

    def matmul(
        self,
        a: Tensor,
        b: Tensor,
        bias: Tensor | None = None,
        transpose_a: bool = False,
        transpose_b: bool = False,
        name: str | None = None,
    ) -> Tensor:
        sa, sb = list(a.shape), list(b.shape)
        if len(sa) < 2 or len(sb) < 2:
            raise GeError(f"error: matmul needs operands of rank >= 2, got {a.type} and {b.type}")
        if transpose_a:
            sa[-2], sa[-1] = sa[-1], sa[-2]
        if transpose_b:
            sb[-2], sb[-1] = sb[-1], sb[-2]
        if sa[-1] != sb[-2]:
            raise GeError(
                f"error: matmul contraction dims differ: {list(a.shape)} x {list(b.shape)}"
                f" (transpose_a={transpose_a}, transpose_b={transpose_b})"
            )
        batch = shapes.broadcast_shape(sa[:-2], sb[:-2])
        if batch is None:
            raise GeError(f"error: matmul batch dims {sa[:-2]} and {sb[:-2]} do not broadcast")
        t = TensorType(a.element_type, [*batch, sa[-2], sb[-1]])
        return self._emit(
            ge.MatMulOp(a.value, b.value, _v(bias), t, transpose_a, transpose_b), name
        )

    def max_pool(
        self,
        x: Tensor,
        kernel: Sequence[int],
        strides=(1, 1),
        pads=(0, 0, 0, 0),
        ceil_mode: bool = False,
        name: str | None = None,
    ) -> Tensor:
        t = self._pool_type(x, kernel, strides, pads, ceil_mode)
        return self._emit(ge.MaxPoolOp(x.value, t, kernel, strides, pads, ceil_mode), name)

    def avg_pool(
        self,
        x: Tensor,
        kernel: Sequence[int],
        strides=(1, 1),
        pads=(0, 0, 0, 0),
        ceil_mode: bool = False,
        count_include_pad: bool = False,
        name: str | None = None,
    ) -> Tensor:
        t = self._pool_type(x, kernel, strides, pads, ceil_mode)
        return self._emit(
            ge.AvgPoolOp(x.value, t, kernel, strides, pads, ceil_mode, count_include_pad), name
        )

    def global_avg_pool(self, x: Tensor, name: str | None = None) -> Tensor:
        n, c = x.shape[:2]
        return self._emit(ge.GlobalAvgPoolOp(x.value, _like(x.type, [n, c, 1, 1])), name)

    def concat(self, inputs: Sequence[Tensor], axis: int, name: str | None = None) -> Tensor:
        first = inputs[0]
        axis = _axis(axis, len(first.shape))
        shape = list(first.shape)
        shape[axis] = sum(t.shape[axis] for t in inputs)
        return self._emit(
            ge.ConcatOp([t.value for t in inputs], axis, _like(first.type, shape)), name
        )

    def reshape(self, x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
        """Reshape to `shape`; one dim may be -1 (inferred)."""
        shape = _dims(shape, "the reshape target", inferred=True)
        if shape.count(-1) > 1:
            raise GeError(f"error: reshape to {shape}: at most one dim may be -1")
        if -1 in shape:
            known = math.prod(d for d in shape if d != -1)
            total = math.prod(x.shape)
            if known == 0 or total % known:
                raise GeError(f"error: cannot reshape {list(x.shape)} to {shape}")
            shape[shape.index(-1)] = total // known
        return self._emit(ge.ReshapeOp(x.value, TensorType(x.element_type, shape)), name)

    def flatten(self, x: Tensor, axis: int = 1, name: str | None = None) -> Tensor:
        rank = len(x.shape)
        if not -rank <= axis <= rank:
            raise GeError(f"error: flatten axis {axis} is out of range for rank {rank}")
        axis = axis + rank if axis < 0 else axis
        shape = [math.prod(x.shape[:axis]), math.prod(x.shape[axis:])]
        return self._emit(ge.FlattenOp(x.value, TensorType(x.element_type, shape), axis), name)

    def transpose(self, x: Tensor, perm: Sequence[int], name: str | None = None) -> Tensor:
        perm = _ints(perm, "perm", len(x.shape))
        if sorted(perm) != list(range(len(x.shape))):
            raise GeError(f"error: perm {perm} is not a permutation of the {len(x.shape)} axes")
        shape = [x.shape[p] for p in perm]
        return self._emit(ge.TransposeOp(x.value, perm, TensorType(x.element_type, shape)), name)

    def gather(
        self, data: Tensor, indices: Tensor, axis: int = 0, name: str | None = None
    ) -> Tensor:
        """ONNX Gather: the slices of `data` along `axis` (negative counts from the end)
        named by the i32/i64 `indices`."""
        axis = _axis(axis, len(data.shape))
        shape = gather_shape(data.shape, indices.shape, axis)
        t = TensorType(data.element_type, shape)
        return self._emit(ge.GatherOp(data.value, indices.value, axis, t), name)

    def scatter_update(
        self, cache: Tensor, indices: Tensor, update: Tensor, axis: int, name: str | None = None
    ) -> Tensor:
        """GE's ScatterUpdate (TorchAir's `scatter_update_`): the cache with batch row b of
        `update` written at positions indices[b] .. indices[b] + K - 1 along `axis`
        (negative counts from the end; dim 0 is the batch); the result is the updated cache."""
        axis = _axis(axis, len(cache.shape))
        if axis == 0:
            raise GeError("error: scatter_update axis must not be 0, the batch dim")
        op = ge.ScatterUpdateOp(cache.value, indices.value, update.value, axis)
        return self._emit(op, name)

    def slice(
        self,
        x: Tensor,
        starts: Sequence[int],
        ends: Sequence[int],
        axes: Sequence[int] | None = None,
        steps: Sequence[int] | None = None,
        name: str | None = None,
    ) -> Tensor:
        """ONNX Slice: start:end:step along each of `axes` (default: the first len(starts)
        axes; negative axes count from the end), steps default 1 and must be positive."""
        rank = len(x.shape)
        count = len(list(starts))
        starts = _ints(starts, "slice starts", count)
        ends = _ints(ends, "slice ends", count)
        axes = list(range(count)) if axes is None else _ints(axes, "slice axes", count)
        steps = [1] * count if steps is None else _ints(steps, "slice steps", count)
        axes = [_axis(a, rank) for a in axes]
        if any(s < 1 for s in steps):
            raise GeError(f"error: slice steps must be positive, got {steps}")
        shape = list(x.shape)
        for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
            shape[axis] = slice_length(shape[axis], start, end, step)
        t = TensorType(x.element_type, shape)
        return self._emit(ge.SliceOp(x.value, starts, ends, axes, steps, t), name)

    def expand(self, x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
        """ONNX Expand: `x` broadcast with `shape` (numpy's rules, both ways: a 1 in `shape`
        keeps x's dim)."""
        target = _dims(shape, "an expand")
        result = shapes.broadcast_shape(x.shape, target)
        if result is None:
            raise GeError(f"error: cannot expand shape {list(x.shape)} to {target}")
        return self._emit(ge.ExpandOp(x.value, TensorType(x.element_type, list(result))), name)

    def softmax(self, x: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
        return self._emit(ge.SoftmaxOp(x.value, _axis(axis, len(x.shape))), name)

    def reduce(
        self,
        kind: str,
        x: Tensor,
        axes: Sequence[int] | None = None,
        keepdims: bool = False,
        name: str | None = None,
    ) -> Tensor:
        """`ge.reduce_<kind>` (sum, mean, max, min) over `axes` (negative ones count from
        the end; None or empty: every axis)."""
        op_class = _REDUCE_OPS.get(kind)
        if op_class is None:
            raise GeError(f"error: unknown reduction {kind!r} (sum, mean, max or min)")
        rank = len(x.shape)
        norm = sorted({_axis(a, rank) for a in axes or ()})
        if axes and len(norm) != len(axes):
            raise GeError(f"error: axes {list(axes)} name a dim twice")
        shape = ge.reduced_shape(x.shape, norm, keepdims)
        t = TensorType(x.element_type, shape)
        return self._emit(op_class(x.value, norm, keepdims, t), name)

    def layer_norm(
        self,
        x: Tensor,
        weight: Tensor | None = None,
        bias: Tensor | None = None,
        axis: int = -1,
        epsilon: float = 1e-5,
        name: str | None = None,
    ) -> Tensor:
        """Layer normalisation over the dims [axis, rank); a bias without a weight gets a
        weight of ones (the op takes a bias only with a weight)."""
        a = _axis(axis, len(x.shape))
        if bias is not None and weight is None:
            ones = np.ones(x.shape[a:], dtype=dtypes.np_dtype(x.element_type))
            weight = self.const(ones)
        w = None if weight is None else weight.value
        b = None if bias is None else bias.value
        return self._emit(ge.LayerNormOp(x.value, w, b, a, epsilon), name)

    def rms_norm(
        self,
        x: Tensor,
        weight: Tensor,
        axis: int = -1,
        epsilon: float = 1e-6,
        name: str | None = None,
    ) -> Tensor:
        """x * rsqrt(mean(x^2 over [axis, rank)) + epsilon) * weight."""
        a = _axis(axis, len(x.shape))
        return self._emit(ge.RmsNormOp(x.value, weight.value, a, epsilon), name)

    def flash_attention(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        mask: Tensor | None = None,
        scale: float | None = None,
        causal: bool = False,
        name: str | None = None,
    ) -> Tensor:
        """softmax(scale * query key^T + mask) value over [B, N, S, D] tensors (grouped
        heads when key and value have fewer); `scale` defaults to 1/sqrt(D); an i1 mask
        keeps where true, a float one is added (`ge.flash_attention`)."""
        for t, what in ((query, "query"), (key, "key"), (value, "value")):
            if len(t.shape) != 4:
                raise GeError(f"error: flash_attention's {what} must have rank 4, got {t.type}")
        b, n, sq, d = query.shape
        if scale is None:
            scale = 1.0 / math.sqrt(d)
        result = TensorType(query.element_type, [b, n, sq, value.shape[3]])
        op = ge.FlashAttentionOp(
            query.value,
            key.value,
            value.value,
            None if mask is None else mask.value,
            scale,
            result,
            causal,
        )
        return self._emit(op, name)

    def rotary_mul(self, x: Tensor, cos: Tensor, sin: Tensor, name: str | None = None) -> Tensor:
        """x * cos + rotate_half(x) * sin along the last dim (`ge.rotary_mul`)."""
        return self._emit(ge.RotaryMulOp(x.value, cos.value, sin.value), name)

    def topk(
        self,
        x: Tensor,
        k: int,
        axis: int = -1,
        largest: bool = True,
        sorted: bool = True,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        """torch.topk / ONNX TopK: the values and i64 indices of the k largest (smallest)
        elements along `axis` (ties to the lower index)."""
        a = _axis(axis, len(x.shape))
        (k,) = _ints([k], "k", 1)
        if not 1 <= k <= x.shape[a]:
            raise GeError(f"error: k {k} must be in [1, {x.shape[a]}] (the size of axis {a})")
        return self._emit_all(ge.TopKOp(x.value, k, a, bool(largest), bool(sorted)), name)

    def scatter_add(
        self,
        data: Tensor,
        indices: Tensor,
        updates: Tensor,
        axis: int = 0,
        name: str | None = None,
    ) -> Tensor:
        """ONNX ScatterElements with reduction add (ATen scatter_add) along `axis`."""
        a = _axis(axis, len(data.shape))
        return self._emit(ge.ScatterAddOp(data.value, indices.value, updates.value, a), name)

    def swi_glu(self, x: Tensor, dim: int = -1, name: str | None = None) -> Tensor:
        """GE's SwiGlu: silu(a) * b for x = [a | b] split in halves along `dim`."""
        d = _axis(dim, len(x.shape))
        if x.shape[d] % 2:
            raise GeError(f"error: swi_glu: dim {d} has odd size {x.shape[d]}")
        return self._emit(ge.SwiGluOp(x.value, d), name)

    def moe_gating_top_k(
        self,
        logits: Tensor,
        k: int,
        norm: str = "softmax",
        renorm: bool = False,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        """GE's MoeGatingTopK: softmax (or sigmoid) of the router's logits over the last
        axis, the top k weights (renormalised to sum 1 with `renorm`) and i64 expert ids."""
        (k,) = _ints([k], "k", 1)
        experts = logits.shape[-1] if logits.shape else 0
        if not 1 <= k <= experts:
            raise GeError(f"error: k {k} must be in [1, {experts}] (the number of experts)")
        if norm not in ge.GATING_NORMS:
            raise GeError(f"error: norm must be 'softmax' or 'sigmoid', got {norm!r}")
        return self._emit_all(ge.MoeGatingTopKOp(logits.value, k, norm, bool(renorm)), name)

    def grouped_matmul(self, x: Tensor, weight: Tensor, name: str | None = None) -> Tensor:
        """GE's GroupedMatmul, static form: x [E, T, K] @ weight [E, K, N] -> [E, T, N]."""
        if len(x.shape) != 3 or len(weight.shape) != 3:
            raise GeError(
                f"error: grouped_matmul takes x [E, T, K] and weight [E, K, N], got shapes "
                f"{list(x.shape)} and {list(weight.shape)}"
            )
        return self._emit(ge.GroupedMatmulOp(x.value, weight.value), name)

    def cast(
        self, x: Tensor, dtype: str | np.dtype | type | Attribute, name: str | None = None
    ) -> Tensor:
        t = TensorType(element_type(dtype), x.shape, x.type.encoding)
        return self._emit(ge.CastOp(x.value, t), name)

    def trans_data(
        self, x: Tensor, format: str, c0: int = 0, groups: int = 1, name: str | None = None
    ) -> Tensor:
        return self._emit(ge.TransDataOp(x.value, ge.with_format(x.type, format, c0, groups)), name)

    def hcom_all_reduce(
        self,
        x: Tensor,
        reduction: str = "sum",
        group: str = "hccl_world_group",
        rank_size: int = 1,
        name: str | None = None,
    ) -> Tensor:
        return self._emit(ge.HcomAllReduceOp(x.value, reduction, group, rank_size), name)

    def hcom_all_gather(
        self,
        x: Tensor,
        group: str = "hccl_world_group",
        rank_size: int = 1,
        name: str | None = None,
    ) -> Tensor:
        shape = list(x.shape)
        shape[0] *= rank_size
        return self._emit(ge.HcomAllGatherOp(x.value, group, rank_size, _like(x.type, shape)), name)

    def hcom_reduce_scatter(
        self,
        x: Tensor,
        reduction: str = "sum",
        group: str = "hccl_world_group",
        rank_size: int = 1,
        name: str | None = None,
    ) -> Tensor:
        shape = list(x.shape)
        if shape and shape[0] % rank_size == 0:
            shape[0] //= rank_size
        t = _like(x.type, shape)
        return self._emit(ge.HcomReduceScatterOp(x.value, reduction, group, rank_size, t), name)

    def hcom_all_to_all(
        self,
        x: Tensor,
        split_dim: int = 0,
        concat_dim: int = 0,
        group: str = "hccl_world_group",
        rank_size: int = 1,
        send_counts: Sequence[int] | None = None,
        recv_counts: Sequence[int] | None = None,
        name: str | None = None,
    ) -> Tensor:
        shape = list(x.shape)
        if recv_counts is not None and 0 <= concat_dim < len(shape):
            shape[concat_dim] = sum(recv_counts)
        elif 0 <= split_dim < len(shape) and 0 <= concat_dim < len(shape):
            shape[split_dim] //= max(rank_size, 1)
            shape[concat_dim] *= rank_size
        op = ge.HcomAllToAllOp(
            x.value, split_dim, concat_dim, group, rank_size, _like(x.type, shape),
            send_counts, recv_counts,
        )  # fmt: skip
        return self._emit(op, name)

    def hcom_broadcast(
        self,
        x: Tensor,
        root: int = 0,
        group: str = "hccl_world_group",
        rank_size: int = 1,
        name: str | None = None,
    ) -> Tensor:
        return self._emit(ge.HcomBroadcastOp(x.value, root, group, rank_size), name)

    def hcom_send(
        self,
        x: Tensor,
        dest_rank: int,
        group: str = "hccl_world_group",
        rank_size: int = 1,
        sr_tag: int = 0,
    ) -> None:
        self._insert(ge.HcomSendOp(x.value, dest_rank, group, rank_size, sr_tag), None)

    def hcom_receive(
        self,
        shape: Sequence[int],
        dtype: str | np.dtype | type | Attribute,
        src_rank: int,
        group: str = "hccl_world_group",
        rank_size: int = 1,
        sr_tag: int = 0,
        name: str | None = None,
    ) -> Tensor:
        t = TensorType(element_type(dtype), _dims(shape, "hcom_receive"))
        return self._emit(ge.HcomReceiveOp(t, src_rank, group, rank_size, sr_tag), name)

    # ---- building -------------------------------------------------------------------------------

    def build(
        self,
        outputs: Sequence[Tensor],
        output_names: Sequence[str] | None = None,
        verify: bool = True,
    ) -> ModuleOp:
        """The module with one function returning `outputs`; verified unless `verify=False`.

        Output names default to the handles' names (`out0`, `out1`, ... when they have none;
        `x_1` for a handle `x` returned a second time); names are unique.
        """
        if self._built:
            raise GeError("error: this GraphBuilder has already built its module")
        if self._scopes:
            raise GeError(
                f"error: {len(self._scopes)} npu_stream_switch scope(s) were not exited before "
                "build()"
            )
        if output_names is not None:
            names = list(output_names)
        else:  # a handle returned twice gets a second name
            names = []
            for i, t in enumerate(outputs):
                default = t.name or f"out{i}"
                names.append(default if default not in names else f"{default}_{i}")
        if len(names) != len(outputs):
            raise GeError(f"error: {len(outputs)} outputs but {len(names)} output names")
        for n in names:
            _check_name(n)
        if len(set(names)) != len(names):
            twice = next(n for i, n in enumerate(names) if n in names[:i])
            raise GeError(f"error: duplicate output name '{twice}'")
        ret = func.ReturnOp(*[t.value for t in outputs])
        self.block.add_op(ret)
        fn = func.FuncOp(
            self.name,
            FunctionType.from_lists([t for _, t in self._inputs], [t.type for t in outputs]),
            Region(self.block),
            arg_attrs=ArrayAttr([_named(n) for n, _ in self._inputs]),
            res_attrs=ArrayAttr([_named(n) for n in names]),
        )
        if self.locate:
            ret.location = fn.location = _caller_location()
        module = ModuleOp([fn])
        self._built = True
        if verify:
            from ge_dialect.ir.verify import verify_module

            verify_module(module, "<builder>")
        return module

    # ---- helpers ------------------------------------------------------------------------------

    def _insert(self, op: Operation, name: str | None) -> None:
        if self._built:
            raise GeError("error: this GraphBuilder has already built its module")
        for result in op.results:  # a type no parser would read back
            if isinstance(result.type, TensorType):
                for d in result.type.get_shape():
                    if d > MAX_DIMENSION:
                        raise GeError(
                            f"error: dimension {d} of the result of '{op.name}' exceeds 2^63 - 1"
                        )
        if self._scopes:
            op.attributes[stream.LABEL] = self._scopes[-1]
        hint = _name_hint(name)
        for result in op.results:
            result.name_hint = hint
        if self.locate:
            op.location = _caller_location()
        self.block.add_op(op)

    def _emit(self, op: Operation, name: str | None) -> Tensor:
        self._insert(op, name)
        return Tensor(self, op.results[0], name)

    def _emit_all(self, op: Operation, name: str | None) -> tuple[Tensor, Tensor]:
        """Inserts an op of two results (topk's values and indices); their handles."""
        self._insert(op, name)
        first, second = op.results
        return Tensor(self, first, name), Tensor(self, second, name)

    def _broadcast_type(self, a: Tensor, b: Tensor) -> TensorType:
        shape = shapes.broadcast_shape(a.shape, b.shape)
        if shape is None:
            raise GeError(f"error: shapes {list(a.shape)} and {list(b.shape)} do not broadcast")
        wide = a if len(a.shape) >= len(b.shape) else b
        return TensorType(a.element_type, shape, wide.type.encoding)

    def _conv_type(self, x: Tensor, w: Tensor, strides, pads, dilations) -> TensorType:
        _rank4(x, "the input of conv2d")
        _rank4(w, "the filter of conv2d")
        strides, dilations = _ints(strides, "strides", 2), _ints(dilations, "dilations", 2)
        pads = _ints(pads, "pads", 4)
        n, _, h, wd = x.shape
        o, _, kh, kw = w.shape
        ho = shapes.conv_output_size(h, kh, strides[0], pads[0], pads[1], dilations[0])
        wo = shapes.conv_output_size(wd, kw, strides[1], pads[2], pads[3], dilations[1])
        return _like(x.type, [n, o, ho, wo])

    def _pool_type(self, x: Tensor, kernel, strides, pads, ceil_mode) -> TensorType:
        _rank4(x, "the input of a pooling op")
        kernel, strides = _ints(kernel, "kernel", 2), _ints(strides, "strides", 2)
        pads = _ints(pads, "pads", 4)
        n, c, h, w = x.shape
        ho = shapes.pool_output_size(h, kernel[0], strides[0], pads[0], pads[1], ceil_mode)
        wo = shapes.pool_output_size(w, kernel[1], strides[1], pads[2], pads[3], ceil_mode)
        return _like(x.type, [n, c, ho, wo])


def _ints(values: object, what: str, count: int) -> list[int]:
    """`values` as `count` integers that fit in int64, else a GeError."""
    wrong = GeError(f"error: {what} must be a list of {count} integers, got {values!r}")
    if not isinstance(values, Iterable) or isinstance(values, str | bytes):
        raise wrong
    items = list(values)
    ints = [int(v) for v in items if isinstance(v, int | np.integer) and not isinstance(v, bool)]
    if len(ints) != len(items) or len(ints) != count:
        raise wrong
    for v in ints:
        if not -(2**63) <= v <= MAX_DIMENSION:
            raise GeError(f"error: {what} value {v} does not fit in a 64-bit integer")
    return ints


def _number(value: object, what: str) -> float:
    """`value` as a float (an int or float, not a bool), else a GeError."""
    if not isinstance(value, int | float | np.integer | np.floating) or isinstance(value, bool):
        raise GeError(f"error: {what} must be a number, got {value!r}")
    return float(value)


def _rank4(x: Tensor, what: str) -> None:
    if len(x.shape) != 4:
        raise GeError(f"error: {what} must have rank 4, got shape {list(x.shape)}")


def _v(t: Tensor | None) -> SSAValue | None:
    return None if t is None else t.value


def _like(t: TensorType, shape: Sequence[int]) -> TensorType:
    """`t`'s element type and encoding with another shape."""
    return TensorType(t.element_type, list(shape), t.encoding)


_REDUCE_OPS: dict[str, type[ge.ReduceOp]] = {
    "sum": ge.ReduceSumOp,
    "mean": ge.ReduceMeanOp,
    "max": ge.ReduceMaxOp,
    "min": ge.ReduceMinOp,
}
"""`GraphBuilder.reduce` kinds."""


def _axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise GeError(f"error: axis {axis} is out of range for rank {rank}")
    return axis % rank


def _named(name: str) -> DictionaryAttr:
    return DictionaryAttr({NAME: StringAttr(name)})
