"""ONNX -> `ge` importer.

    module = import_onnx("model.onnx", input_shapes={"x": [1, 3, 224, 224]})

Every op is built through `GraphBuilder`, which infers result types; shapes come from that
inference, never from the model's `value_info` (a graph output's declared element type and
dims are checked against it).  Opsets 11 to 21 of the default domain are
read; the supported ops are

    Conv, BatchNormalization (inference), Relu, Clip, LeakyRelu, Sigmoid, Exp, Log, Tanh,
    Erf, Sqrt, Neg, Reciprocal, Gelu (opset 20+), Add, Sub, Mul, Div, Max and Min (of two
    inputs), Pow, MatMul, Gemm, MaxPool, AveragePool, GlobalAveragePool, Concat, Reshape,
    Flatten, Transpose, Softmax, Identity, Constant, Cast, ReduceSum, ReduceMean, ReduceMax,
    ReduceMin (axes as the attribute or, from opset 13 for ReduceSum and 18 for the others,
    a constant input), LayerNormalization (opset 17+, only the Y output), Sin, Cos, Equal,
    Less, LessOrEqual, Greater, GreaterOrEqual (operands of one type; a BOOL result), Not,
    And, Or, Where, Unsqueeze, Squeeze, and of static shapes Shape, Size, ConstantOfShape,
    Range.

Graph inputs are FLOAT, FLOAT16, INT64, INT32 or BOOL (token ids, attention masks, token
types); a Gather by computed indices (an embedding lookup of the ids) checks their range
when it runs.

Mapping decisions:

- ONNX 2-D pads `[top, left, bottom, right]` become GE's `[top, bottom, left, right]`;
  `auto_pad` SAME_UPPER/SAME_LOWER/VALID become explicit pads (ONNX's formula; SAME_UPPER
  puts the odd pixel at the end).
- Initializers and `Constant` outputs are numpy arrays until an op needs them as a value;
  then they become one `ge.const` each (located at the initializer's or Constant node's
  name).  Shape inputs (Reshape's shape, Clip's bounds, Div's divisor) are read at import.
  Identity, Cast, Reshape, Flatten, Transpose, Concat, Gather, Slice, Split, Expand,
  Unsqueeze and Squeeze of constants are folded, and so are Add, Sub, Mul, Div (integers
  truncated toward zero), the comparisons, Not, And, Or and Where of constants (numpy, in
  the operands' type), Shape and Size of any value, ConstantOfShape and Range: the masks
  and position ids exporters build from shapes leave no op.  Cast turns a computed value
  into FLOAT or FLOAT16 only (`ge.cast`); a constant into any graph type.
- Div by a constant is a `ge.mul` by its reciprocal, by a computed value a `ge.div`; Pow
  with a constant exponent of another type (an INT64 2) takes it in the base's float type;
  Gemm folds `alpha`/`beta` into
  constant operands (else a `ge.mul` by a constant) and turns a 1-D C into the matmul bias.
- Softmax before opset 13 coerces the input to 2-D at `axis`: flatten, softmax on axis 1,
  reshape back (one softmax when `axis` is the last dim).
- Clip takes its bounds from attributes (the pre-11 form) or from constant inputs; a
  missing or infinite bound becomes the float32 lowest/highest finite value.

Each op built for a node is located at `NameLoc(node name)` (`<op_type>_<index>` for
unnamed nodes); function arguments and results carry the ONNX input/output names as
`{ge.name = ...}`.  A name that is not valid UTF-8 (protobuf does not check) is read with
its invalid bytes as `\\xNN` escapes.  Everything the op set lacks is collected over the
whole graph and reported in one `GeError` naming every offending node.

A malformed graph is a `GeError` naming the value: a graph input or initializer declared
twice, a value defined twice (by two nodes, or by a node and a graph input or initializer),
an initializer with a negative dimension, a graph output declared with another element type
or dims than it computes, a dimension above 2^63 - 1 (given, or computed from attributes).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, NameLoc, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.utils import dtypes, shapes
from ge_dialect.utils.errors import MAX_DIMENSION, GeError

MIN_OPSET, MAX_OPSET = 11, 21

F32_LOWEST = float(np.finfo(np.float32).min)
F32_HIGHEST = float(np.finfo(np.float32).max)

# The element types the importer computes in, by `onnx.TensorProto.DataType` code (from the
# dtype table, so that this module imports without onnx), and back.
_COMPUTE_DTYPES: dict[int, np.dtype] = {
    row.onnx: row.numpy for row in map(dtypes.row, dtypes.COMPUTE_FLOATS) if row.onnx is not None
}
_ONNX_TYPES = {dtype: elem_type for elem_type, dtype in _COMPUTE_DTYPES.items()}
_ONNX_TYPES[dtypes.row("i1").numpy] = dtypes.row("i1").onnx or 9  # BOOL: comparison results
_ONNX_TYPES[dtypes.row("i64").numpy] = dtypes.row("i64").onnx or 7  # INT64: TopK's indices
_FLOAT_DTYPES = tuple(_COMPUTE_DTYPES.values())
_INT_DTYPES = (dtypes.row("i64").numpy, dtypes.row("i32").numpy)
_INPUT_DTYPES: dict[int, np.dtype] = {
    row.onnx: row.numpy
    for row in map(dtypes.row, (*dtypes.COMPUTE_FLOATS, "i64", "i32", "i1"))
    if row.onnx is not None
}
"""The element types of graph inputs: floats, ids and masks (INT64, INT32, BOOL)."""
_VALUE_DTYPES = tuple(_INPUT_DTYPES.values())
"""The element types a constant may have when an op uses it as a value."""
_CAST_DTYPES: dict[int, np.dtype] = {
    row.onnx: row.numpy for row in map(dtypes.row, dtypes.GRAPH_TYPES) if row.onnx is not None
}
"""Cast's targets: the graph types (a computed value only to a float type)."""


def _onnx_type_name(dtype: np.dtype) -> str:
    """ONNX's name of a numpy dtype (`FLOAT16`), for messages; onnx is loaded by then."""
    import onnx

    try:
        return onnx.TensorProto.DataType.Name(onnx.helper.np_dtype_to_tensor_dtype(dtype))
    except (KeyError, ValueError, TypeError):
        return str(dtype)


# onnx.AttributeProto.AttributeType values.
_A_FLOAT, _A_INT, _A_STRING, _A_TENSOR = 1, 2, 3, 4
_A_FLOATS, _A_INTS, _A_STRINGS, _A_SPARSE = 6, 7, 8, 11
_ATTR_TYPE_NAMES = {
    1: "FLOAT",
    2: "INT",
    3: "STRING",
    4: "TENSOR",
    5: "GRAPH",
    6: "FLOATS",
    7: "INTS",
    8: "STRINGS",
    9: "TENSORS",
    10: "GRAPHS",
    11: "SPARSE_TENSOR",
    12: "SPARSE_TENSORS",
    13: "TYPE_PROTO",
    14: "TYPE_PROTOS",
}

_AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")

_CONV_ATTRS = {
    "auto_pad": _A_STRING,
    "dilations": _A_INTS,
    "group": _A_INT,
    "kernel_shape": _A_INTS,
    "pads": _A_INTS,
    "strides": _A_INTS,
}
_POOL_ATTRS = {
    "auto_pad": _A_STRING,
    "ceil_mode": _A_INT,
    "dilations": _A_INTS,
    "kernel_shape": _A_INTS,
    "pads": _A_INTS,
    "strides": _A_INTS,
}

_REDUCE_SPEC = (
    {"axes": _A_INTS, "keepdims": _A_INT, "noop_with_empty_axes": _A_INT},
    (1, 2),
    (1, 1),
)
"""ReduceSum/Mean/Max/Min: axes as an attribute (older opsets) or as input 1 (newer)."""

# op type -> (attributes and their types, (min, max) inputs, (min, max) outputs)
_SPECS: dict[str, tuple[dict[str, int], tuple[int, int], tuple[int, int]]] = {
    "Conv": (_CONV_ATTRS, (2, 3), (1, 1)),
    "BatchNormalization": (
        {"epsilon": _A_FLOAT, "momentum": _A_FLOAT, "training_mode": _A_INT},
        (5, 5),
        (1, 5),
    ),
    "Relu": ({}, (1, 1), (1, 1)),
    "Sigmoid": ({}, (1, 1), (1, 1)),
    "LeakyRelu": ({"alpha": _A_FLOAT}, (1, 1), (1, 1)),
    "Clip": ({"min": _A_FLOAT, "max": _A_FLOAT}, (1, 3), (1, 1)),
    "Add": ({}, (2, 2), (1, 1)),
    "Sub": ({}, (2, 2), (1, 1)),
    "Mul": ({}, (2, 2), (1, 1)),
    "Div": ({}, (2, 2), (1, 1)),
    "Exp": ({}, (1, 1), (1, 1)),
    "Log": ({}, (1, 1), (1, 1)),
    "Tanh": ({}, (1, 1), (1, 1)),
    "Erf": ({}, (1, 1), (1, 1)),
    "Sqrt": ({}, (1, 1), (1, 1)),
    "Neg": ({}, (1, 1), (1, 1)),
    "Reciprocal": ({}, (1, 1), (1, 1)),
    "Gelu": ({"approximate": _A_STRING}, (1, 1), (1, 1)),
    "Max": ({}, (1, 1 << 30), (1, 1)),
    "Min": ({}, (1, 1 << 30), (1, 1)),
    "Pow": ({}, (2, 2), (1, 1)),
    "Sin": ({}, (1, 1), (1, 1)),
    "Cos": ({}, (1, 1), (1, 1)),
    "Equal": ({}, (2, 2), (1, 1)),
    "Less": ({}, (2, 2), (1, 1)),
    "LessOrEqual": ({}, (2, 2), (1, 1)),
    "Greater": ({}, (2, 2), (1, 1)),
    "GreaterOrEqual": ({}, (2, 2), (1, 1)),
    "Not": ({}, (1, 1), (1, 1)),
    "And": ({}, (2, 2), (1, 1)),
    "Or": ({}, (2, 2), (1, 1)),
    "Where": ({}, (3, 3), (1, 1)),
    "MatMul": ({}, (2, 2), (1, 1)),
    "Gemm": (
        {"alpha": _A_FLOAT, "beta": _A_FLOAT, "transA": _A_INT, "transB": _A_INT},
        (2, 3),
        (1, 1),
    ),
    "MaxPool": ({**_POOL_ATTRS, "storage_order": _A_INT}, (1, 1), (1, 2)),
    "AveragePool": ({**_POOL_ATTRS, "count_include_pad": _A_INT}, (1, 1), (1, 1)),
    "GlobalAveragePool": ({}, (1, 1), (1, 1)),
    "Concat": ({"axis": _A_INT}, (1, 1 << 30), (1, 1)),
    "Reshape": ({"allowzero": _A_INT}, (2, 2), (1, 1)),
    "Flatten": ({"axis": _A_INT}, (1, 1), (1, 1)),
    "Transpose": ({"perm": _A_INTS}, (1, 1), (1, 1)),
    "Gather": ({"axis": _A_INT}, (2, 2), (1, 1)),
    "Slice": ({}, (3, 5), (1, 1)),
    "Split": ({"axis": _A_INT, "num_outputs": _A_INT}, (1, 2), (1, 1 << 30)),
    "Expand": ({}, (2, 2), (1, 1)),
    "TopK": ({"axis": _A_INT, "largest": _A_INT, "sorted": _A_INT}, (2, 2), (2, 2)),
    "ScatterElements": ({"axis": _A_INT, "reduction": _A_STRING}, (3, 3), (1, 1)),
    "Softmax": ({"axis": _A_INT}, (1, 1), (1, 1)),
    "ReduceSum": _REDUCE_SPEC,
    "ReduceMean": _REDUCE_SPEC,
    "ReduceMax": _REDUCE_SPEC,
    "ReduceMin": _REDUCE_SPEC,
    "LayerNormalization": (
        {"axis": _A_INT, "epsilon": _A_FLOAT, "stash_type": _A_INT},
        (2, 3),
        (1, 3),
    ),
    "Identity": ({}, (1, 1), (1, 1)),
    "Constant": (
        {
            "value": _A_TENSOR,
            "value_float": _A_FLOAT,
            "value_floats": _A_FLOATS,
            "value_int": _A_INT,
            "value_ints": _A_INTS,
            "value_string": _A_STRING,
            "value_strings": _A_STRINGS,
            "sparse_value": _A_SPARSE,
        },
        (0, 0),
        (1, 1),
    ),
    "Cast": ({"to": _A_INT, "saturate": _A_INT}, (1, 1), (1, 1)),
    "Shape": ({"start": _A_INT, "end": _A_INT}, (1, 1), (1, 1)),
    "Size": ({}, (1, 1), (1, 1)),
    "ConstantOfShape": ({"value": _A_TENSOR}, (1, 1), (1, 1)),
    "Range": ({}, (3, 3), (1, 1)),
    "Unsqueeze": ({"axes": _A_INTS}, (1, 2), (1, 1)),
    "Squeeze": ({"axes": _A_INTS}, (1, 2), (1, 1)),
}


def _integer_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer Div as ONNX (C) computes it: the quotient truncated toward zero."""
    if np.any(b == 0):
        raise _Unsupported("integer division by zero in constants")
    q = a // b
    return np.where((q < 0) & (q * b != a), q + 1, q).astype(np.result_type(a, b))


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _integer_div(a, b) if a.dtype.kind in "iu" else np.true_divide(a, b)


FOLD_LIMIT = 1 << 24
"""The most elements a folded Range, ConstantOfShape or op of constants may hold."""


def _check_fold_size(shape: Sequence[int]) -> None:
    if math.prod(shape) > FOLD_LIMIT:
        raise _Unsupported(
            f"folding would make {math.prod(shape)} elements {_shape_str(shape)} (at most "
            f"{FOLD_LIMIT} are folded)"
        )


_FOLDS: dict[str, Callable[..., np.ndarray]] = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Div": _div,
    "Equal": np.equal,
    "Less": np.less,
    "LessOrEqual": np.less_equal,
    "Greater": np.greater,
    "GreaterOrEqual": np.greater_equal,
    "And": np.logical_and,
    "Or": np.logical_or,
    "Not": np.logical_not,
    "Where": np.where,
}
"""Ops folded with numpy when every input is a constant (the masks Hugging Face exports
build from shapes); operands of one element type, as ONNX requires (Where: its two
values)."""


_UNARY: dict[str, str] = {
    "Cos": "cos",
    "Erf": "erf",
    "Exp": "exp",
    "Log": "log",
    "Neg": "neg",
    "Not": "logical_not",
    "Reciprocal": "reciprocal",
    "Relu": "relu",
    "Sigmoid": "sigmoid",
    "Sin": "sin",
    "Sqrt": "sqrt",
    "Tanh": "tanh",
}
"""ONNX ops of one input that map to one builder method of the same meaning."""


class _Unsupported(Exception):
    """Why one node cannot be imported (collected; reported with every other such node)."""


class _Const:
    """A tensor known at import time: an initializer, a Constant's value or a folded result.

    `origin` names the location its `ge.const` gets when an op needs it as a value.
    """

    def __init__(
        self, array: np.ndarray | None, origin: str, proto: Any = None, base_dir: str | None = None
    ):
        self._array = array
        self.origin = origin
        self.proto = proto
        self.base_dir = base_dir
        self.tensor: Tensor | None = None

    def array(self, onnx: Any) -> np.ndarray:
        if self._array is None:
            try:
                self._array = onnx.numpy_helper.to_array(self.proto, self.base_dir or "")
            except Exception as e:  # a malformed TensorProto (sizes, missing external data)
                raise _Unsupported(
                    f"initializer '{self.proto.name}' cannot be read ({_one_line(e)})"
                ) from None
        return self._array

    @property
    def shape(self) -> tuple[int, ...]:
        if self._array is None:
            return tuple(int(d) for d in self.proto.dims)
        return tuple(self._array.shape)


Value = Tensor | _Const


def _axis(axis: int, rank: int) -> int:
    """`axis` counted from 0, or why it does not name a dim of a rank-`rank` tensor."""
    if not -rank <= axis < rank:
        raise _Unsupported(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def _axes(axes: Sequence[int], rank: int) -> list[int]:
    """`axes` counted from 0, or why one does not name a dim of a rank-`rank` tensor."""
    if any(not -rank <= a < rank for a in axes):
        raise _Unsupported(f"axes {list(axes)} are out of range for rank {rank}")
    return [a % rank for a in axes]


def _node_name(node: Any, index: int) -> str:
    """How diagnostics and locations name a node: its name, else `<op_type>_<index>`."""
    return node.name or f"{node.op_type}_{index}"


def _one_line(e: object) -> str:
    return " ".join(str(e).split())


def _strip_error(message: str) -> str:
    """A builder GeError's text without its `error: ` prefix."""
    return message[len("error: ") :] if message.startswith("error: ") else message


def _shape_str(shape: Sequence[object]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def import_onnx(
    model: str | os.PathLike | Any,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    name: str = "main",
) -> ModuleOp:
    """Imports an ONNX model (a file path or an `onnx.ModelProto`) as a verified `ge` module.

    `input_shapes` binds the shapes of graph inputs with symbolic or unknown dims (all dims
    of an input are given).  Every user mistake raises a one-line `GeError`
    `"<file or 'model'>: error: ..."`.
    """
    try:
        import onnx
        import onnx.numpy_helper  # noqa: F401
    except ImportError:
        raise GeError(
            "error: importing ONNX needs the 'onnx' package (pip install 'ge-opt[onnx]')"
        ) from None
    proto, label, base_dir = _load(onnx, model)
    if _undecoded_names(proto):
        if proto is model:  # the caller's: decode the names of a copy
            proto = onnx.ModelProto()
            proto.CopyFrom(model)
        _decode_names(proto)
    return _Importer(onnx, proto, label, base_dir, input_shapes, name).run()


def _load(onnx: Any, model: Any) -> tuple[Any, str, str | None]:
    """The model proto, the name diagnostics use for it, and the directory of external data."""
    if isinstance(model, onnx.ModelProto):
        label, proto, base_dir = "model", model, None
    elif isinstance(model, bytes | bytearray):
        label, base_dir = "model", None
        proto = _parse(onnx, bytes(model), label)
    elif isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        label = os.fsdecode(path)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except (OSError, ValueError) as e:  # ValueError: a NUL in the path
            reason = getattr(e, "strerror", None) or _one_line(e)
            raise GeError(f"{label}: error: cannot read {label}: {reason}") from None
        proto = _parse(onnx, data, label)
        base_dir = os.path.dirname(os.path.abspath(path))
    else:
        raise TypeError(
            "import_onnx takes a file path, serialized model bytes or an onnx.ModelProto, not "
            f"{type(model).__name__}"
        )
    if not proto.HasField("graph"):
        raise GeError(f"{label}: error: not a valid ONNX model (no graph)")
    return proto, label, base_dir


def _undecoded_names(model: Any) -> list[tuple[Any, str, int | None]]:
    """The names the importer reads that are not valid UTF-8: (message, field, list index).

    Protobuf does not check a proto2 string field; Python's returns an invalid one as bytes.
    """
    found: list[tuple[Any, str, int | None]] = []

    def check(message: Any, *fields: str) -> None:
        for field in fields:
            value = getattr(message, field)
            if isinstance(value, bytes):
                found.append((message, field, None))
            elif not isinstance(value, str):  # a repeated field
                bad = [i for i, v in enumerate(value) if isinstance(v, bytes)]
                found.extend((message, field, i) for i in bad)

    for opset in model.opset_import:
        check(opset, "domain")
    graph = model.graph
    for vi in (*graph.input, *graph.output, *graph.value_info):
        check(vi, "name")
        for dim in vi.type.tensor_type.shape.dim:
            check(dim, "dim_param")
    for t in graph.initializer:
        check(t, "name")
    for sparse in graph.sparse_initializer:
        check(sparse.values, "name")
    for node in graph.node:
        check(node, "name", "op_type", "domain", "input", "output")
        for a in node.attribute:
            check(a, "name", "ref_attr_name")
    return found


def _decode_names(model: Any) -> None:
    """Decodes `_undecoded_names(model)` in place, their invalid bytes as `\\xNN` escapes."""
    for message, field, index in _undecoded_names(model):
        if index is None:
            setattr(message, field, getattr(message, field).decode("utf-8", "backslashreplace"))
        else:
            values = getattr(message, field)
            values[index] = values[index].decode("utf-8", "backslashreplace")


def _parse(onnx: Any, data: bytes, label: str) -> Any:
    if not data:
        raise GeError(f"{label}: error: not a valid ONNX model (empty file)")
    proto = onnx.ModelProto()
    try:
        proto.ParseFromString(data)
    except Exception as e:  # google.protobuf.message.DecodeError (its module is optional)
        reason = str(e).rsplit(": ", 1)[-1].strip() or type(e).__name__
        reason = reason[:1].lower() + reason[1:]
        raise GeError(
            f"{label}: error: not a valid ONNX model (cannot parse the protobuf: {reason}; "
            "truncated or not an ONNX file?)"
        ) from None
    return proto


class _Importer:
    def __init__(
        self,
        onnx: Any,
        model: Any,
        label: str,
        base_dir: str | None,
        input_shapes: Mapping[str, Sequence[int]] | None,
        name: str,
    ):
        self.onnx = onnx
        self.model = model
        self.label = label
        self.base_dir = base_dir
        self.input_shapes = dict(input_shapes or {})
        self.b = GraphBuilder(name, locate=False)  # ops are located at their node
        self.env: dict[str, Value] = {}
        self.poisoned: set[str] = set()
        self.sparse: set[str] = set()
        self.opset = 0
        self.node_name = ""

    def error(self, message: str) -> GeError:
        return GeError(f"{self.label}: error: {message}")

    # ---- driver -------------------------------------------------------------------------

    def run(self) -> ModuleOp:
        self.opset = self._opset()
        graph = self.model.graph
        self._check_definitions(graph)
        for t in graph.initializer:
            if any(d < 0 for d in t.dims):
                raise self.error(
                    f"initializer '{t.name}' has a negative dimension: dims {_shape_str(t.dims)}"
                )
            self.env[t.name] = _Const(None, t.name, proto=t, base_dir=self.base_dir)
        self.sparse = {t.values.name for t in graph.sparse_initializer}
        self._graph_inputs(graph)

        failures: list[tuple[str, str, str]] = []
        for index, node in enumerate(graph.node):
            node_name = _node_name(node, index)
            op_label = (
                node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
            )
            try:
                self._import_node(node, node_name)
            except _Unsupported as e:
                failures.append((node_name, op_label, str(e)))
                self.poisoned.update(o for o in node.output if o)
        if failures:
            n = len(failures)
            listed = ", ".join(f"'{name}' ({op}: {why})" for name, op, why in failures)
            raise self.error(f"cannot import {n} node{'s' if n != 1 else ''}: {listed}")

        outputs: list[Tensor] = []
        names: list[str] = []
        for vi in graph.output:
            value = self.env.get(vi.name)
            if value is None:
                raise self.error(
                    f"graph output '{vi.name}' is not produced by any node, initializer or input"
                )
            try:
                outputs.append(self._materialize(value, vi.name))
            except _Unsupported as e:
                raise self.error(f"graph output '{vi.name}': {e}") from None
            self._check_declared(vi, outputs[-1])
            names.append(vi.name)
        if not outputs:
            raise self.error("the graph has no outputs")
        try:
            return self.b.build(outputs, names)
        except GeError as e:  # not expected: every op was verified as it was built
            text = str(e)
            raise self.error(text.split(": error: ", 1)[-1]) from None

    def _check_definitions(self, graph: Any) -> None:
        """Each value is defined once: by a graph input, an initializer or one node output.

        (An initializer may share a graph input's name: it is the input's default.)
        """
        initializers = [t.name for t in graph.initializer]
        initializers += [t.values.name for t in graph.sparse_initializer]
        defined: dict[str, str] = {}
        for kind, article, names in (
            ("graph input", "a", [vi.name for vi in graph.input]),
            ("initializer", "an", initializers),
        ):
            seen: set[str] = set()
            for name in names:
                if name in seen:
                    raise self.error(f"{kind} '{name}' is declared twice")
                seen.add(name)
                defined.setdefault(name, f"{article} {kind}")
        for index, node in enumerate(graph.node):
            for out in filter(None, node.output):
                if out in defined:
                    raise self.error(
                        f"value '{out}' is produced by node '{_node_name(node, index)}' but is "
                        f"already {defined[out]}"
                    )
                defined[out] = f"produced by node '{_node_name(node, index)}'"

    def _check_declared(self, vi: Any, t: Tensor) -> None:
        """A graph output's declared element type and dims (where given) are the computed ones."""
        kind = vi.type.WhichOneof("value")
        if kind not in (None, "tensor_type"):
            raise self.error(f"graph output '{vi.name}' is declared as a {kind}, not a tensor")
        tt = vi.type.tensor_type
        elem_type = _ONNX_TYPES.get(_dtype(t), 0)
        type_ok = tt.elem_type in (0, elem_type)  # 0: UNDEFINED
        dims: list[int | str] | None = None
        if tt.HasField("shape"):
            dims = [
                int(d.dim_value) if d.HasField("dim_value") and d.dim_value >= 0 else d.dim_param
                for d in tt.shape.dim
            ]
        shape_ok = dims is None or (
            len(dims) == len(t.shape)
            and all(d == s for d, s in zip(dims, t.shape, strict=True) if isinstance(d, int))
        )
        if not (type_ok and shape_ok):
            declared = [self._type_name(tt.elem_type)] if tt.elem_type else []
            if dims is not None:
                declared.append(_shape_str([d if d != "" else "?" for d in dims]))
            raise self.error(
                f"graph output '{vi.name}' is declared as {' '.join(declared)}, but the graph "
                f"computes {self._type_name(elem_type)} {_shape_str(t.shape)}"
            )

    def _opset(self) -> int:
        versions = [o.version for o in self.model.opset_import if o.domain in ("", "ai.onnx")]
        if not versions:
            raise self.error("the model imports no default-domain (ai.onnx) opset")
        version = max(versions)
        if not MIN_OPSET <= version <= MAX_OPSET:
            raise self.error(f"opset {version} is not supported ({MIN_OPSET} to {MAX_OPSET})")
        return version

    def _graph_inputs(self, graph: Any) -> None:
        inputs = [vi for vi in graph.input if vi.name not in self.env]
        names = [vi.name for vi in inputs]
        for key in self.input_shapes:
            if key not in names:
                known = ", ".join(f"'{n}'" for n in names) or "none"
                raise self.error(
                    f"an input shape is given for '{key}', which is not a graph input "
                    f"(graph inputs: {known})"
                )
        for vi in inputs:
            self.env[vi.name] = self._graph_input(vi)

    def _graph_input(self, vi: Any) -> Tensor:
        name = vi.name
        if vi.type.WhichOneof("value") != "tensor_type":
            raise self.error(f"input '{name}' is not a tensor")
        tt = vi.type.tensor_type
        dtype = _INPUT_DTYPES.get(tt.elem_type)
        if dtype is None:
            raise self.error(
                f"input '{name}' has element type {self._type_name(tt.elem_type)}; only FLOAT, "
                "FLOAT16, INT64, INT32 and BOOL inputs are supported"
            )
        dims: list[int | str | None] | None = None
        if tt.HasField("shape"):
            dims = []
            for d in tt.shape.dim:
                if d.HasField("dim_value") and d.dim_value >= 0:
                    dims.append(int(d.dim_value))
                elif d.dim_param:
                    dims.append(d.dim_param)
                else:
                    dims.append(None)
        written = (
            "unknown rank" if dims is None else _shape_str(["?" if d is None else d for d in dims])
        )
        given = self.input_shapes.get(name)
        if given is not None:
            shape = self._given_shape(name, given, dims, written)
        else:
            if dims is None:
                raise self.error(
                    f"input '{name}' has no shape; give one with --input-shape {name}=<dims>"
                )
            unbound = [(i, d) for i, d in enumerate(dims) if not isinstance(d, int)]
            if unbound:
                which = ", ".join(
                    f"{i} ('{d}')" if isinstance(d, str) else f"{i} (unknown)" for i, d in unbound
                )
                example = "x".join(str(d) if isinstance(d, int) else "1" for d in dims)
                raise self.error(
                    f"input '{name}' has unbound dim{'s' if len(unbound) > 1 else ''} {which} "
                    f"in shape {written}; bind it with --input-shape {name}=<dims>, e.g. "
                    f"{name}={example}"
                )
            shape = [d for d in dims if isinstance(d, int)]  # all bound (checked above)
        return self.b.input(name, shape, dtype)

    def _given_shape(
        self, name: str, given: Sequence[int], dims: list | None, written: str
    ) -> list[int]:
        try:
            shape = [int(d) for d in given]
            ok = all(isinstance(d, int | np.integer) and not isinstance(d, bool) for d in given)
        except (TypeError, ValueError):
            ok = False
        if not ok or any(d < 1 for d in shape):
            raise self.error(
                f"the input shape given for '{name}' must be positive integers, got {given!r}"
            )
        for d in shape:
            if d > MAX_DIMENSION:
                raise self.error(
                    f"dimension {d} of the input shape given for '{name}' exceeds 2^63 - 1"
                )
        text = "x".join(map(str, shape))
        if dims is not None:
            if len(dims) != len(shape):
                raise self.error(
                    f"the input shape {text} given for '{name}' has rank {len(shape)}, but the "
                    f"model's input has rank {len(dims)} ({written})"
                )
            for i, (d, g) in enumerate(zip(dims, shape, strict=True)):
                if isinstance(d, int) and d != g:
                    raise self.error(
                        f"the input shape {text} given for '{name}' has {g} at dim {i}, but "
                        f"the model fixes it to {d} ({written})"
                    )
        return shape

    def _type_name(self, elem_type: int) -> str:
        try:
            return self.onnx.TensorProto.DataType.Name(elem_type)
        except ValueError:
            return f"#{elem_type}"

    # ---- one node -----------------------------------------------------------------------

    def _import_node(self, node: Any, node_name: str) -> None:
        if node.domain not in ("", "ai.onnx") or node.op_type not in _SPECS:
            raise _Unsupported("unsupported op")
        attrs = self._check_static(node)
        if any(i in self.poisoned for i in node.input if i):
            # An input comes from a node that could not be imported: only this node's own
            # attributes were checked.
            self.poisoned.update(o for o in node.output if o)
            return
        for i in node.input:
            if i in self.sparse:
                raise _Unsupported(f"sparse initializer '{i}'")
            if i and i not in self.env:
                raise _Unsupported(
                    f"input '{i}' is not produced by any earlier node, initializer or graph input"
                )
        self.node_name = node_name
        block = self.b.block
        before = block.last_op
        results: Any
        try:
            if node.op_type in _FOLDS and all(
                isinstance(self.env.get(i), _Const) for i in node.input
            ):
                results = self._fold(node)
            elif node.op_type in _UNARY:
                method = getattr(self.b, _UNARY[node.op_type])
                results = method(self._tensor(node, 0), name=self._out(node))
            else:
                results = getattr(self, "_op_" + node.op_type)(node, attrs)
        except GeError as e:
            raise _Unsupported(_strip_error(str(e)).replace("\n", " ")) from None
        op = before.next_op if before is not None else block.first_op
        loc = NameLoc(StringAttr(node_name), UnknownLoc())
        while op is not None:
            if isinstance(op.location, UnknownLoc):
                op.location = loc
            _verify(op)
            op = op.next_op
        if not isinstance(results, list):
            results = [results]
        for out, value in zip(node.output, results, strict=False):
            if out and value is not None:
                self.env[out] = value

    def _check_static(self, node: Any) -> dict[str, Any]:
        """Attribute names, types and values, and operand counts; returns the attributes."""
        allowed, (min_in, max_in), (min_out, max_out) = _SPECS[node.op_type]
        reasons: list[str] = []
        attrs: dict[str, Any] = {}
        for a in node.attribute:
            if a.ref_attr_name:
                reasons.append(f"attribute '{a.name}' refers to a function attribute")
            elif a.name not in allowed:
                reasons.append(f"unsupported attribute '{a.name}'")
            elif a.type != allowed[a.name]:
                reasons.append(
                    f"attribute '{a.name}' has type {_ATTR_TYPE_NAMES.get(a.type, a.type)}, "
                    f"expected {_ATTR_TYPE_NAMES[allowed[a.name]]}"
                )
            else:
                value = self.onnx.helper.get_attribute_value(a)
                if isinstance(value, bytes):
                    value = value.decode("utf-8", "replace")
                elif isinstance(value, list) and a.type == _A_INTS:
                    value = [int(v) for v in value]
                attrs[a.name] = value
        n_in = len(node.input)
        while n_in and not node.input[n_in - 1]:
            n_in -= 1  # trailing omitted optional inputs
        if not min_in <= n_in <= max_in:
            expect = str(min_in) if min_in == max_in else f"{min_in} to {max_in}"
            reasons.append(f"expects {expect} inputs, got {n_in}")
        n_out = len(node.output)
        if not min_out <= n_out <= max_out:
            expect = str(min_out) if min_out == max_out else f"{min_out} to {max_out}"
            reasons.append(f"expects {expect} outputs, got {n_out}")
        check = getattr(self, "_check_" + node.op_type, None)
        if check is not None and not reasons:
            reasons.extend(check(node, attrs))
        if reasons:
            raise _Unsupported("; ".join(reasons))
        return attrs

    # ---- values ----------------------------------------------------------------------------

    def _value(self, node: Any, index: int) -> Value | None:
        if index >= len(node.input) or not node.input[index]:
            return None
        return self.env[node.input[index]]

    def _required(self, node: Any, index: int) -> Value:
        value = self._value(node, index)
        if value is None:
            raise _Unsupported(f"input #{index} is omitted but required")
        return value

    def _tensor(self, node: Any, index: int) -> Tensor:
        return self._materialize(self._required(node, index), node.input[index])

    def _opt_tensor(self, node: Any, index: int) -> Tensor | None:
        return None if self._value(node, index) is None else self._tensor(node, index)

    def _materialize(self, value: Value, name: str) -> Tensor:
        if isinstance(value, Tensor):
            return value
        if value.tensor is None:
            array = value.array(self.onnx)
            if array.dtype not in _VALUE_DTYPES:
                raise _Unsupported(
                    f"constant '{name}' of type {_onnx_type_name(array.dtype)} "
                    "is used as a value (only FLOAT, FLOAT16, INT64, INT32 and BOOL tensors are "
                    "computed)"
                )
            value.tensor = self._new_const(array, name, value.origin)
        return value.tensor

    def _new_const(self, array: np.ndarray, name: str | None, origin: str | None = None) -> Tensor:
        t = self.b.const(array, name=name)
        if origin is not None:
            op = t.value.owner
            assert isinstance(op, Operation)
            op.location = NameLoc(StringAttr(origin), UnknownLoc())
        return t

    def _constant(self, node: Any, index: int, what: str) -> np.ndarray:
        """The value of an input that must be known at import time."""
        value = self._required(node, index)
        if not isinstance(value, _Const):
            raise _Unsupported(f"non-constant {what} '{node.input[index]}'")
        return value.array(self.onnx)

    def _out(self, node: Any, index: int = 0) -> str | None:
        return node.output[index] if index < len(node.output) and node.output[index] else None

    def _folded(self, array: np.ndarray) -> _Const:
        return _Const(np.asarray(array, order="C"), self.node_name)  # a 0-d array stays 0-d

    def _fold(self, node: Any) -> _Const:
        """A `_FOLDS` node of constants, computed with numpy in the operands' type."""
        arrays = [self._constant(node, i, "operand") for i in range(len(node.input))]
        typed = arrays[1:] if node.op_type == "Where" else arrays
        if node.op_type in ("And", "Or", "Not", "Where") and arrays[0].dtype != np.bool_:
            raise _Unsupported(f"{node.op_type} of a {_onnx_type_name(arrays[0].dtype)} constant")
        if len({a.dtype for a in typed}) > 1:
            kinds = " and ".join(_onnx_type_name(a.dtype) for a in typed)
            raise _Unsupported(f"{node.op_type} of constants of types {kinds}")
        try:
            _check_fold_size(np.broadcast_shapes(*(a.shape for a in arrays)))
        except ValueError:
            shown = ", ".join(_shape_str(a.shape) for a in arrays)
            raise _Unsupported(f"constants of shapes {shown} do not broadcast") from None
        with np.errstate(all="ignore"):
            result = np.asarray(_FOLDS[node.op_type](*arrays))
        if node.op_type not in ("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"):
            result = result.astype(typed[0].dtype, copy=False)
        return self._folded(result)

    # ---- static checks -------------------------------------------------------------------

    def _check_spatial(self, attrs: dict[str, Any], what: str) -> list[str]:
        reasons = []
        auto = attrs.get("auto_pad", "NOTSET")
        if auto not in _AUTO_PADS:
            reasons.append(f"auto_pad '{auto}' is not one of {', '.join(_AUTO_PADS)}")
        if auto != "NOTSET" and "pads" in attrs:
            reasons.append(f"pads together with auto_pad {auto}")
        ranks: set[float] = {
            len(attrs[k]) for k in ("kernel_shape", "strides", "dilations") if k in attrs
        }
        if "pads" in attrs:
            ranks.add(len(attrs["pads"]) / 2)
        if len(ranks) > 1:
            reasons.append("kernel_shape, strides, dilations and pads disagree on the rank")
        elif ranks and ranks != {2}:
            rank = ranks.pop()
            reasons.append(f"{rank:g}-D {what}" if rank == int(rank) else "an odd number of pads")
        for key in ("strides", "dilations", "kernel_shape"):
            if key in attrs and any(v < 1 for v in attrs[key]):
                reasons.append(f"{key} {attrs[key]} must be positive")
        if any(v < 0 for v in attrs.get("pads", ())):
            reasons.append(f"negative pads {attrs['pads']}")
        return reasons

    def _check_Conv(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        reasons = self._check_spatial(attrs, "convolution")
        if attrs.get("group", 1) < 1:
            reasons.append(f"group {attrs['group']} must be positive")
        return reasons

    def _check_pool(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        reasons = self._check_spatial(attrs, "pooling")
        if "kernel_shape" not in attrs:
            reasons.append("missing attribute 'kernel_shape'")
        if any(d != 1 for d in attrs.get("dilations", ())):
            reasons.append("dilated pooling")
        if attrs.get("ceil_mode", 0) not in (0, 1):
            reasons.append(f"ceil_mode {attrs['ceil_mode']} is not 0 or 1")
        return reasons

    def _check_MaxPool(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        reasons = self._check_pool(node, attrs)
        if attrs.get("storage_order", 0) != 0:
            reasons.append("storage_order=1 (column-major indices)")
        if len(node.output) > 1 and node.output[1]:
            reasons.append("the Indices output")
        return reasons

    def _check_AveragePool(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        reasons = self._check_pool(node, attrs)
        if attrs.get("count_include_pad", 0) not in (0, 1):
            reasons.append(f"count_include_pad {attrs['count_include_pad']} is not 0 or 1")
        return reasons

    def _check_BatchNormalization(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        if attrs.get("training_mode", 0) != 0 or sum(1 for o in node.output if o) > 1:
            return ["training-mode BatchNormalization"]
        return []

    def _check_Cast(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        if "to" not in attrs:
            return ["missing attribute 'to'"]
        if attrs["to"] not in _CAST_DTYPES:
            return [f"Cast to {self._type_name(attrs['to'])} (not a graph type)"]
        return []

    def _check_Reshape(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        if attrs.get("allowzero", 0) not in (0, 1):
            return [f"allowzero {attrs['allowzero']} is not 0 or 1"]
        return []

    def _check_Concat(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        return [] if "axis" in attrs else ["missing attribute 'axis'"]

    def _check_Constant(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        if len(attrs) != 1:
            return [f"needs exactly one value attribute, got {len(attrs)}"]
        key = next(iter(attrs))
        if key in ("sparse_value", "value_string", "value_strings"):
            return [f"Constant with {key}"]
        return []

    # ---- converters (one per op type) ----------------------------------------------------

    def _pads(
        self,
        attrs: dict[str, Any],
        spatial: Sequence[int],
        kernel: Sequence[int],
        strides: Sequence[int],
        dilations: Sequence[int],
    ) -> list[int]:
        """The node's padding in GE order [top, bottom, left, right]."""
        auto = attrs.get("auto_pad", "NOTSET")
        if auto == "NOTSET":
            p = attrs.get("pads", [0, 0, 0, 0])
            return [p[0], p[2], p[1], p[3]]
        if auto == "VALID":
            return [0, 0, 0, 0]
        pads: list[int] = []
        for size, k, s, d in zip(spatial, kernel, strides, dilations, strict=False):
            out = -(-size // s)
            total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
            small = total // 2
            pads += [small, total - small] if auto == "SAME_UPPER" else [total - small, small]
        return pads

    def _require_rank4(self, x: Tensor, what: str) -> None:
        rank = len(x.shape)
        if rank != 4:
            if rank in (3, 5):
                raise _Unsupported(f"{rank - 2}-D {what}")
            raise _Unsupported(f"{what} of a rank-{rank} input (expected NCHW)")

    def _op_Conv(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        x = self._tensor(node, 0)
        w_value = self._required(node, 1)
        w_rank = len(w_value.shape)
        if w_rank != 4:
            raise _Unsupported(
                f"{w_rank - 2}-D convolution" if w_rank in (3, 5) else f"weight of rank {w_rank}"
            )
        self._require_rank4(x, "convolution")
        w = self._tensor(node, 1)
        bias = self._opt_tensor(node, 2)
        kernel = list(w.shape[2:])
        if "kernel_shape" in attrs and list(attrs["kernel_shape"]) != kernel:
            raise _Unsupported(
                f"kernel_shape {attrs['kernel_shape']} differs from the weight's kernel {kernel}"
            )
        strides = attrs.get("strides", [1, 1])
        dilations = attrs.get("dilations", [1, 1])
        pads = self._pads(attrs, x.shape[2:], kernel, strides, dilations)
        return self.b.conv2d(
            x, w, bias, strides, pads, dilations, attrs.get("group", 1), name=self._out(node)
        )

    def _op_BatchNormalization(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        x = self._tensor(node, 0)
        scale, offset, mean, variance = (self._tensor(node, i) for i in range(1, 5))
        eps = attrs.get("epsilon", 1e-5)
        shape = x.shape
        if len(shape) < 2:
            raise _Unsupported(f"BatchNormalization of a rank-{len(shape)} input")
        if len(shape) == 4:
            return self.b.batch_norm(
                x, scale, offset, mean, variance, epsilon=eps, name=self._out(node)
            )
        x4 = self.b.reshape(x, [shape[0], shape[1], math.prod(shape[2:]), 1])
        y = self.b.batch_norm(x4, scale, offset, mean, variance, epsilon=eps)
        return self.b.reshape(y, shape, name=self._out(node))

    def _op_LeakyRelu(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self.b.leaky_relu(
            self._tensor(node, 0), attrs.get("alpha", 0.01), name=self._out(node)
        )

    def _op_Clip(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        x = self._tensor(node, 0)
        has_inputs = any(node.input[1:])
        if ("min" in attrs or "max" in attrs) and has_inputs:
            raise _Unsupported("Clip with both min/max attributes and inputs")
        bounds = []
        for index, key, default in ((1, "min", -math.inf), (2, "max", math.inf)):
            if key in attrs:
                bound = float(attrs[key])
            elif self._value(node, index) is not None:
                array = self._constant(node, index, key)
                if array.size != 1 or array.dtype.kind != "f":
                    raise _Unsupported(
                        f"Clip {key} must be a float scalar, got {array.dtype} "
                        f"{_shape_str(array.shape)}"
                    )
                bound = float(array.reshape(()))
            else:
                bound = default
            if math.isnan(bound):
                raise _Unsupported(f"Clip {key} is NaN")
            bounds.append(min(max(bound, F32_LOWEST), F32_HIGHEST))
        lo, hi = bounds
        if lo > hi:
            raise _Unsupported(f"Clip with min {lo:g} > max {hi:g}")
        return self.b.clip(x, lo, hi, name=self._out(node))

    def _binary(self, node: Any, fn: Callable[..., Tensor]) -> Tensor:
        return fn(self._tensor(node, 0), self._tensor(node, 1), name=self._out(node))

    def _op_Add(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._binary(node, self.b.add)

    def _op_Sub(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._binary(node, self.b.sub)

    def _op_Mul(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._binary(node, self.b.mul)

    def _op_Div(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        if not isinstance(self._required(node, 1), _Const):
            return self._binary(node, self.b.div)
        x = self._tensor(node, 0)
        divisor = self._constant(node, 1, "divisor")
        if divisor.dtype not in _FLOAT_DTYPES:
            raise _Unsupported(f"Div by a {_onnx_type_name(divisor.dtype)} constant")
        with np.errstate(divide="ignore", over="ignore"):
            reciprocal = (1.0 / divisor.astype(np.float64)).astype(divisor.dtype)
        return self.b.mul(x, self._new_const(reciprocal, None), name=self._out(node))

    def _check_Max(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        n = sum(1 for name in node.input if name)
        if n != 2:
            return [f"{node.op_type} of {n} inputs is not supported (only of 2)"]
        return []

    _check_Min = _check_Max

    def _op_Max(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._binary(node, self.b.maximum)

    def _op_Min(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._binary(node, self.b.minimum)

    def _op_Pow(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        x = self._tensor(node, 0)
        exponent = self._required(node, 1)
        if isinstance(exponent, _Const) and exponent.tensor is None:
            array = exponent.array(self.onnx)
            base = dtypes.np_dtype(x.element_type)
            if array.dtype != base and (array.dtype.kind in "iu" or array.dtype in _FLOAT_DTYPES):
                exponent = _Const(array.astype(base), exponent.origin)
        e = self._materialize(exponent, node.input[1])
        if e.element_type != x.element_type:
            raise _Unsupported(
                f"Pow of a {x.element_type} base by a {e.element_type} exponent (a computed "
                "exponent must have the base's type)"
            )
        return self.b.pow(x, e, name=self._out(node))

    def _compare(self, node: Any, kind: str) -> Tensor:
        a, b = self._tensor(node, 0), self._tensor(node, 1)
        if a.element_type != b.element_type:
            raise _Unsupported(f"{node.op_type} of {a.element_type} and {b.element_type} operands")
        return self.b.compare(kind, a, b, name=self._out(node))

    def _op_Equal(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._compare(node, "equal")

    def _op_Less(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._compare(node, "less")

    def _op_LessOrEqual(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._compare(node, "less_equal")

    def _op_Greater(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._compare(node, "greater")

    def _op_GreaterOrEqual(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._compare(node, "greater_equal")

    def _op_And(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._binary(node, self.b.logical_and)

    def _op_Or(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._binary(node, self.b.logical_or)

    def _op_Where(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        c, a, b = (self._tensor(node, i) for i in range(3))
        return self.b.where(c, a, b, name=self._out(node))

    def _check_Gelu(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        reasons = []
        if self.opset < 20:
            reasons.append(f"Gelu is an opset 20 op, the model imports opset {self.opset}")
        approximate = attrs.get("approximate", "none")
        if approximate not in ("none", "tanh"):
            reasons.append(f"approximate '{approximate}' is not one of none, tanh")
        return reasons

    def _op_Gelu(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self.b.gelu(
            self._tensor(node, 0), attrs.get("approximate", "none"), name=self._out(node)
        )

    def _op_MatMul(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        values = [self._required(node, 0), self._required(node, 1)]
        ranks = [len(v.shape) for v in values]
        if 0 in ranks:
            raise _Unsupported("MatMul of a scalar")
        a_vec, b_vec = ranks[0] == 1, ranks[1] == 1
        a = self._matrix(node, 0, [1, -1] if a_vec else None)
        b = self._matrix(node, 1, [-1, 1] if b_vec else None)
        if a.shape[-1] != b.shape[-2]:
            raise _Unsupported(
                f"contraction dims differ: {_shape_str(values[0].shape)} x "
                f"{_shape_str(values[1].shape)}"
            )
        if shapes.broadcast_shape(a.shape[:-2], b.shape[:-2]) is None:
            raise _Unsupported(
                f"batch dims of {_shape_str(a.shape)} and {_shape_str(b.shape)} do not broadcast"
            )
        if not (a_vec or b_vec):
            return self.b.matmul(a, b, name=self._out(node))
        y = self.b.matmul(a, b)
        shape = list(y.shape)
        if b_vec:
            del shape[-1]
        if a_vec:
            del shape[-1 if b_vec else -2]
        return self.b.reshape(y, shape, name=self._out(node))

    def _matrix(self, node: Any, index: int, shape: list[int] | None) -> Tensor:
        """Input `index` as a value, reshaped to `shape` when given (a 1-D MatMul operand)."""
        if shape is None:
            return self._tensor(node, index)
        value = self._value(node, index)
        if isinstance(value, _Const) and value.tensor is None:
            return self._materialize(
                _Const(value.array(self.onnx).reshape(shape), value.origin), node.input[index]
            )
        x = self._tensor(node, index)
        return self.b.reshape(x, [x.shape[0] if d == -1 else d for d in shape])

    def _scaled(self, value: _Const, factor: float) -> np.ndarray:
        array = value.array(self.onnx)
        if array.dtype not in _FLOAT_DTYPES:
            raise _Unsupported(f"Gemm operand of type {_onnx_type_name(array.dtype)}")
        if factor == 1.0:
            return array
        return (array.astype(np.float64) * factor).astype(array.dtype)

    def _op_Gemm(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        alpha = float(attrs.get("alpha", 1.0))
        beta = float(attrs.get("beta", 1.0))
        ta, tb = bool(attrs.get("transA", 0)), bool(attrs.get("transB", 0))
        va, vb, vc = self._required(node, 0), self._required(node, 1), self._value(node, 2)
        sa, sb = va.shape, vb.shape
        if len(sa) != 2 or len(sb) != 2:
            raise _Unsupported(
                f"Gemm operands must be 2-D, got {_shape_str(sa)} and {_shape_str(sb)}"
            )
        m, k = (sa[1], sa[0]) if ta else sa
        k2, n = (sb[1], sb[0]) if tb else sb
        if k != k2:
            raise _Unsupported(
                f"contraction dims differ: A is {m}x{k}, B is {k2}x{n} (after transposes)"
            )
        post_alpha = None
        if alpha != 1.0 and isinstance(vb, _Const):
            b = self._new_const(self._scaled(vb, alpha), None)
            a = self._tensor(node, 0)
        elif alpha != 1.0 and isinstance(va, _Const):
            a = self._new_const(self._scaled(va, alpha), None)
            b = self._tensor(node, 1)
        else:
            a, b = self._tensor(node, 0), self._tensor(node, 1)
            post_alpha = alpha if alpha != 1.0 else None
        bias: Tensor | None = None
        addend: Tensor | None = None
        if vc is not None and beta != 0.0:
            sc = vc.shape
            if shapes.broadcast_shape(sc, (m, n)) != (m, n):
                raise _Unsupported(f"C of shape {_shape_str(sc)} does not broadcast to [{m}, {n}]")
            if beta == 1.0 and post_alpha is None and sc == (n,):
                bias = self._tensor(node, 2)
            elif isinstance(vc, _Const):
                c = self._scaled(vc, beta)
                if post_alpha is None and (c.size == 1 or (c.size == n and c.shape[-1] == n)):
                    bias = self._new_const(
                        np.ascontiguousarray(np.broadcast_to(c.reshape(-1), (n,))), None
                    )
                else:
                    addend = self._new_const(c, None)
            else:
                ct = self._tensor(node, 2)
                if beta != 1.0:
                    ct = self.b.mul(ct, self._new_const(np.asarray(beta, _dtype(ct)), None))
                if post_alpha is None and ct.shape == (n,):
                    bias = ct
                else:
                    addend = ct
        last = post_alpha is None and addend is None
        y = self.b.matmul(a, b, bias, ta, tb, name=self._out(node) if last else None)
        if post_alpha is not None:
            y = self.b.mul(
                y,
                self._new_const(np.asarray(post_alpha, _dtype(y)), None),
                name=self._out(node) if addend is None else None,
            )
        if addend is not None:
            y = self.b.add(y, addend, name=self._out(node))
        return y

    def _pool(self, node: Any, attrs: dict[str, Any], kind: str) -> Tensor:
        x = self._tensor(node, 0)
        self._require_rank4(x, "pooling")
        kernel = attrs["kernel_shape"]
        strides = attrs.get("strides", [1, 1])
        pads = self._pads(attrs, x.shape[2:], kernel, strides, [1, 1])
        ceil = bool(attrs.get("ceil_mode", 0))
        if kind == "max":
            return self.b.max_pool(x, kernel, strides, pads, ceil, name=self._out(node))
        return self.b.avg_pool(
            x,
            kernel,
            strides,
            pads,
            ceil,
            bool(attrs.get("count_include_pad", 0)),
            name=self._out(node),
        )

    def _op_MaxPool(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._pool(node, attrs, "max")

    def _op_AveragePool(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        return self._pool(node, attrs, "avg")

    def _op_GlobalAveragePool(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        x = self._tensor(node, 0)
        self._require_rank4(x, "global pooling")
        return self.b.global_avg_pool(x, name=self._out(node))

    def _op_Concat(self, node: Any, attrs: dict[str, Any]) -> Value:
        given = [self._value(node, i) for i in range(len(node.input))]
        values = [v for v in given if v is not None]
        if len(values) != len(given):
            raise _Unsupported("an omitted input")
        axis = attrs["axis"]
        rank = len(values[0].shape)
        if not -rank <= axis < rank:
            raise _Unsupported(f"axis {axis} is out of range for rank {rank}")
        if all(isinstance(v, _Const) for v in values):
            arrays = [v.array(self.onnx) for v in values if isinstance(v, _Const)]
            try:
                return self._folded(np.concatenate(arrays, axis=axis))
            except ValueError as e:
                raise _Unsupported(_one_line(e)) from None
        tensors = [self._tensor(node, i) for i in range(len(node.input))]
        return self.b.concat(tensors, axis, name=self._out(node))

    def _op_Reshape(self, node: Any, attrs: dict[str, Any]) -> Value:
        data = self._required(node, 0)
        spec = self._constant(node, 1, "shape")
        if spec.dtype not in _INT_DTYPES or spec.ndim != 1:
            raise _Unsupported(
                f"the shape must be a 1-D INT64 tensor, got "
                f"{_onnx_type_name(spec.dtype)} "
                f"{_shape_str(spec.shape)}"
            )
        allowzero = attrs.get("allowzero", 0) == 1
        in_shape = data.shape
        target = [int(d) for d in spec]
        shape: list[int] = []
        for i, d in enumerate(target):
            if d == 0 and not allowzero:
                if i >= len(in_shape):
                    raise _Unsupported(
                        f"shape {target} copies dim {i} of a rank-{len(in_shape)} input"
                    )
                shape.append(in_shape[i])
            elif d < -1:
                raise _Unsupported(f"invalid dim {d} in shape {target}")
            else:
                shape.append(d)
        total = math.prod(in_shape)
        if shape.count(-1) > 1:
            raise _Unsupported(f"shape {target} has more than one -1")
        if -1 in shape:
            known = math.prod(d for d in shape if d != -1)
            if known == 0 or total % known:
                raise _Unsupported(f"cannot reshape {_shape_str(in_shape)} to {target}")
            shape[shape.index(-1)] = total // known
        if math.prod(shape) != total:
            raise _Unsupported(f"cannot reshape {_shape_str(in_shape)} to {target}")
        if isinstance(data, _Const):
            return self._folded(data.array(self.onnx).reshape(shape))
        return self.b.reshape(data, shape, name=self._out(node))

    def _op_Flatten(self, node: Any, attrs: dict[str, Any]) -> Value:
        data = self._required(node, 0)
        axis = attrs.get("axis", 1)
        rank = len(data.shape)
        if not -rank <= axis <= rank:
            raise _Unsupported(f"axis {axis} is out of range for rank {rank}")
        if isinstance(data, _Const):
            axis = axis + rank if axis < 0 else axis
            array = data.array(self.onnx)
            return self._folded(array.reshape(math.prod(array.shape[:axis]), -1))
        return self.b.flatten(data, axis, name=self._out(node))

    def _op_Transpose(self, node: Any, attrs: dict[str, Any]) -> Value:
        data = self._required(node, 0)
        rank = len(data.shape)
        perm = attrs.get("perm", list(range(rank))[::-1])
        if sorted(perm) != list(range(rank)):
            raise _Unsupported(f"perm {perm} is not a permutation of {rank} dims")
        if isinstance(data, _Const):
            return self._folded(np.transpose(data.array(self.onnx), perm))
        return self.b.transpose(data, perm, name=self._out(node))

    # ---- indexing and slicing (ge.gather, ge.slice, ge.expand) --------------------------------

    def _ints_input(self, node: Any, index: int, what: str) -> list[int] | None:
        """A constant 1-D INT64/INT32 input as integers (None when omitted)."""
        if self._value(node, index) is None:
            return None
        spec = self._constant(node, index, what)
        if spec.dtype not in _INT_DTYPES or spec.ndim != 1:
            raise _Unsupported(
                f"{what} must be a 1-D INT64 or INT32 tensor, got {_onnx_type_name(spec.dtype)} "
                f"{_shape_str(spec.shape)}"
            )
        return [int(v) for v in spec]

    def _op_Gather(self, node: Any, attrs: dict[str, Any]) -> Value:
        data = self._required(node, 0)
        rank = len(data.shape)
        axis = attrs.get("axis", 0)
        axis = _axis(axis, rank)
        value = self._required(node, 1)
        if not isinstance(value, _Const):  # computed indices (token ids): checked when run
            if _dtype(value) not in _INT_DTYPES:
                raise _Unsupported(f"indices must be INT64 or INT32, got {value.element_type}")
            return self.b.gather(self._tensor(node, 0), value, axis, name=self._out(node))
        indices = value.array(self.onnx)
        if indices.dtype not in _INT_DTYPES:
            raise _Unsupported(
                f"indices must be INT64 or INT32, got {_onnx_type_name(indices.dtype)}"
            )
        size = data.shape[axis]
        bad = np.argwhere((indices < -size) | (indices >= size))
        if len(bad):
            where = [int(i) for i in bad[0]]
            raise _Unsupported(
                f"indices hold {int(indices[tuple(where)])} at {where}, out of range for axis "
                f"{axis} of size {size}"
            )
        if isinstance(data, _Const):
            wrapped = np.where(indices < 0, indices + size, indices)
            return self._folded(np.take(data.array(self.onnx), wrapped, axis=axis))
        if value.tensor is None:
            value.tensor = self._new_const(indices, node.input[1], value.origin)
        return self.b.gather(data, value.tensor, axis, name=self._out(node))

    def _op_Slice(self, node: Any, attrs: dict[str, Any]) -> Value:
        data = self._required(node, 0)
        rank = len(data.shape)
        starts = self._ints_input(node, 1, "starts") or []
        ends = self._ints_input(node, 2, "ends") or []
        axes = self._ints_input(node, 3, "axes")
        steps = self._ints_input(node, 4, "steps")
        axes = list(range(len(starts))) if axes is None else axes
        steps = [1] * len(starts) if steps is None else steps
        if not len(starts) == len(ends) == len(axes) == len(steps):
            raise _Unsupported("starts, ends, axes and steps must have the same length")
        axes = _axes(axes, rank)
        if len(set(axes)) != len(axes):
            raise _Unsupported(f"axes {axes} repeat an axis")
        if any(s < 1 for s in steps):
            raise _Unsupported(f"steps {steps}: only positive steps are supported")
        if isinstance(data, _Const):
            index = [slice(None)] * rank
            for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
                index[axis] = slice(start, end, step)
            return self._folded(data.array(self.onnx)[tuple(index)])
        return self.b.slice(data, starts, ends, axes, steps, name=self._out(node))

    def _op_Split(self, node: Any, attrs: dict[str, Any]) -> list[Value]:
        data = self._required(node, 0)
        rank = len(data.shape)
        axis = attrs.get("axis", 0)
        axis = _axis(axis, rank)
        size = data.shape[axis]
        count = len(node.output)
        sizes = self._ints_input(node, 1, "split")
        if sizes is None:
            parts = attrs.get("num_outputs", count)
            if parts != count:
                raise _Unsupported(f"num_outputs {parts} but {count} outputs")
            chunk = -(-size // parts) if self.opset >= 18 else size // parts
            if self.opset < 18 and size % parts:
                raise _Unsupported(f"dim {size} does not split into {parts} equal parts")
            sizes = [max(0, min(chunk, size - i * chunk)) for i in range(parts)]
        if len(sizes) != count or any(s < 0 for s in sizes) or sum(sizes) != size:
            raise _Unsupported(f"split {sizes} does not cut dim {size} into {count} outputs")
        offsets = np.cumsum([0, *sizes]).tolist()
        results: list[Value] = []
        for i, (start, end) in enumerate(zip(offsets[:-1], offsets[1:], strict=True)):
            if isinstance(data, _Const):
                index = [slice(None)] * rank
                index[axis] = slice(start, end)
                results.append(self._folded(data.array(self.onnx)[tuple(index)]))
            else:
                results.append(self.b.slice(data, [start], [end], [axis], name=self._out(node, i)))
        return results

    def _op_Expand(self, node: Any, attrs: dict[str, Any]) -> Value:
        data = self._required(node, 0)
        shape = self._ints_input(node, 1, "shape")
        assert shape is not None  # a required input
        if any(d < 0 for d in shape):
            raise _Unsupported(f"shape {shape} has a negative dim")
        if isinstance(data, _Const):
            array = data.array(self.onnx)
            try:
                target = np.broadcast_shapes(array.shape, tuple(shape))
            except ValueError:
                raise _Unsupported(f"cannot expand {_shape_str(array.shape)} to {shape}") from None
            return self._folded(np.broadcast_to(array, target))
        return self.b.expand(data, shape, name=self._out(node))

    def _op_TopK(self, node: Any, attrs: dict[str, Any]) -> list[Value]:
        x = self._tensor(node, 0)
        axis = _axis(attrs.get("axis", -1), len(x.shape))
        k = self._ints_input(node, 1, "K")
        if k is None or len(k) != 1:
            raise _Unsupported(f"K must hold one value, got {k}")
        if not 1 <= k[0] <= x.shape[axis]:
            raise _Unsupported(f"K {k[0]} is not in [1, {x.shape[axis]}] (the size of axis {axis})")
        values, indices = self.b.topk(
            x,
            k[0],
            axis,
            bool(attrs.get("largest", 1)),
            bool(attrs.get("sorted", 1)),
            name=self._out(node),
        )
        return [values, indices]

    def _op_ScatterElements(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        reduction = attrs.get("reduction", "none")
        if reduction != "add":
            raise _Unsupported(f"reduction '{reduction}' (only 'add' is supported)")
        data = self._tensor(node, 0)
        value = self._required(node, 1)
        if isinstance(value, _Const):
            if value.tensor is None:
                indices = value.array(self.onnx)
                if indices.dtype not in _INT_DTYPES:
                    raise _Unsupported(
                        f"indices must be INT64 or INT32, got {_onnx_type_name(indices.dtype)}"
                    )
                value.tensor = self._new_const(indices, node.input[1], value.origin)
            value = value.tensor
        axis = _axis(attrs.get("axis", 0), len(data.shape))
        updates = self._tensor(node, 2)
        return self.b.scatter_add(data, value, updates, axis, name=self._out(node))

    def _op_Softmax(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        x = self._tensor(node, 0)
        rank = len(x.shape)
        axis = attrs.get("axis", 1 if self.opset < 13 else -1)
        axis = _axis(axis, rank)
        if self.opset >= 13 or axis == rank - 1:
            # Before opset 13 the input is coerced to 2-D at `axis`; on the last dim that is
            # one softmax over the last dim.
            return self.b.softmax(x, axis, name=self._out(node))
        flat = self.b.flatten(x, axis)
        y = self.b.softmax(flat, 1)
        return self.b.reshape(y, x.shape, name=self._out(node))

    def _reduce_axes(self, node: Any, attrs: dict[str, Any]) -> list[int]:
        """The axes of a Reduce* node: the `axes` input (ReduceSum from opset 13, the others
        from opset 18; it must be constant) or the earlier `axes` attribute."""
        from_input = self.opset >= (13 if node.op_type == "ReduceSum" else 18)
        if not from_input:
            return [int(a) for a in attrs.get("axes", ())]
        if "axes" in attrs:
            raise _Unsupported(f"attribute 'axes' in opset {self.opset} (axes is an input)")
        if len(node.input) < 2 or not node.input[1]:
            return []
        axes = self._constant(node, 1, "axes")
        if axes.dtype not in _INT_DTYPES or axes.ndim > 1:
            raise _Unsupported(
                f"axes must be a 1-D INT64 tensor, got {_onnx_type_name(axes.dtype)} "
                f"{_shape_str(axes.shape)}"
            )
        return [int(a) for a in axes.reshape(-1)]

    def _reduce(self, node: Any, attrs: dict[str, Any], kind: str) -> Value:
        axes = self._reduce_axes(node, attrs)
        if not axes and attrs.get("noop_with_empty_axes", 0):
            return self._op_Identity(node, attrs)
        x = self._tensor(node, 0)
        rank = len(x.shape)
        if len(set(_axes(axes, rank))) != len(axes):
            raise _Unsupported(f"axes {axes} name a dim twice")
        keepdims = attrs.get("keepdims", 1) != 0
        return self.b.reduce(kind, x, axes, keepdims, name=self._out(node))

    def _op_ReduceSum(self, node: Any, attrs: dict[str, Any]) -> Value:
        return self._reduce(node, attrs, "sum")

    def _op_ReduceMean(self, node: Any, attrs: dict[str, Any]) -> Value:
        return self._reduce(node, attrs, "mean")

    def _op_ReduceMax(self, node: Any, attrs: dict[str, Any]) -> Value:
        return self._reduce(node, attrs, "max")

    def _op_ReduceMin(self, node: Any, attrs: dict[str, Any]) -> Value:
        return self._reduce(node, attrs, "min")

    def _check_LayerNormalization(self, node: Any, attrs: dict[str, Any]) -> list[str]:
        reasons = []
        if self.opset < 17:
            reasons.append(
                f"LayerNormalization is an opset 17 op, the model imports opset {self.opset}"
            )
        if any(node.output[1:]):
            reasons.append("the Mean and InvStdDev outputs (only Y is computed)")
        if attrs.get("stash_type", 1) != 1:
            reasons.append(f"stash_type {attrs['stash_type']} (statistics are computed in FLOAT)")
        return reasons

    def _op_LayerNormalization(self, node: Any, attrs: dict[str, Any]) -> Tensor:
        x = self._tensor(node, 0)
        rank = len(x.shape)
        axis = attrs.get("axis", -1)
        if not -rank <= axis < rank:
            raise _Unsupported(f"axis {axis} is out of range for rank {rank}")
        scale, bias = self._tensor(node, 1), self._opt_tensor(node, 2)
        epsilon = attrs.get("epsilon", 1e-5)
        return self.b.layer_norm(x, scale, bias, axis, epsilon, name=self._out(node))

    def _op_Identity(self, node: Any, attrs: dict[str, Any]) -> Value:
        value = self._required(node, 0)
        if isinstance(value, _Const):
            return value
        return self.b.identity(value, name=self._out(node))

    def _op_Constant(self, node: Any, attrs: dict[str, Any]) -> _Const:
        key, value = next(iter(attrs.items()))
        if key == "value":
            if any(d < 0 for d in value.dims):  # numpy would read -2 as -1
                raise _Unsupported(f"value has a negative dimension: dims {_shape_str(value.dims)}")
            try:
                array = self.onnx.numpy_helper.to_array(value, self.base_dir or "")
            except Exception as e:
                raise _Unsupported(f"malformed value ({_one_line(e)})") from None
        elif key == "value_float":
            array = np.asarray(value, np.float32)
        elif key == "value_floats":
            array = np.asarray(value, np.float32).reshape(-1)
        elif key == "value_int":
            array = np.asarray(value, np.int64)
        else:
            array = np.asarray(value, np.int64).reshape(-1)
        return self._folded(array)

    def _op_Cast(self, node: Any, attrs: dict[str, Any]) -> Value:
        dtype = _CAST_DTYPES[attrs["to"]]
        value = self._required(node, 0)
        if isinstance(value, _Const):
            array = value.array(self.onnx)
            if array.dtype == dtype:
                return value
            with np.errstate(over="ignore", invalid="ignore"):
                return self._folded(array.astype(dtype))
        x = self._tensor(node, 0)
        if dtypes.np_dtype(x.element_type) == dtype:
            return self.b.identity(x, name=self._out(node))
        if dtype not in _FLOAT_DTYPES:
            raise _Unsupported(
                f"Cast to {self._type_name(attrs['to'])} of a computed value (only to FLOAT and "
                "FLOAT16)"
            )
        return self.b.cast(x, dtype, name=self._out(node))

    # ---- shapes and masks: folded at import (static shapes) ----------------------------------

    def _op_Shape(self, node: Any, attrs: dict[str, Any]) -> _Const:
        """The (static) shape of any value, `start:end` as a Python slice (opset 15)."""
        shape = self._required(node, 0).shape
        part = shape[attrs.get("start", 0) : attrs.get("end", len(shape))]
        return self._folded(np.asarray(part, np.int64))

    def _op_Size(self, node: Any, attrs: dict[str, Any]) -> _Const:
        return self._folded(np.asarray(math.prod(self._required(node, 0).shape), np.int64))

    def _op_ConstantOfShape(self, node: Any, attrs: dict[str, Any]) -> _Const:
        shape = self._ints_input(node, 0, "shape")
        assert shape is not None  # a required input
        if any(d < 0 for d in shape):
            raise _Unsupported(f"shape {shape} has a negative dim")
        fill = np.zeros(1, np.float32)
        if "value" in attrs:
            try:
                fill = self.onnx.numpy_helper.to_array(attrs["value"])
            except Exception as e:
                raise _Unsupported(f"malformed value ({_one_line(e)})") from None
            if fill.size != 1 or fill.dtype not in _CAST_DTYPES.values():
                raise _Unsupported(
                    f"value must be one element of a graph type, got {fill.size} of "
                    f"{_onnx_type_name(fill.dtype)}"
                )
        _check_fold_size(shape)
        return self._folded(np.full(shape, fill.reshape(()), fill.dtype))

    def _op_Range(self, node: Any, attrs: dict[str, Any]) -> _Const:
        start, limit, delta = (self._constant(node, i, "operand") for i in range(3))
        if any(a.size != 1 for a in (start, limit, delta)):
            raise _Unsupported("start, limit and delta must be scalars")
        if len({start.dtype, limit.dtype, delta.dtype}) > 1:
            raise _Unsupported("start, limit and delta of different types")
        first, last, step = start.item(), limit.item(), delta.item()
        if step == 0 or not all(math.isfinite(v) for v in (first, last, step)):
            raise _Unsupported(f"Range({first}, {last}, {step})")
        _check_fold_size([max(math.ceil((last - first) / step), 0)])
        return self._folded(np.arange(first, last, step).astype(start.dtype))

    def _squeeze_axes(self, node: Any, attrs: dict[str, Any]) -> list[int] | None:
        """Unsqueeze's/Squeeze's axes as given: the attribute before opset 13, the input
        after (None when omitted)."""
        if self.opset < 13:
            return attrs.get("axes")
        if "axes" in attrs:
            raise _Unsupported(f"attribute 'axes' in opset {self.opset} (axes is an input)")
        return self._ints_input(node, 1, "axes")

    def _op_Unsqueeze(self, node: Any, attrs: dict[str, Any]) -> Value:
        data = self._required(node, 0)
        given = self._squeeze_axes(node, attrs)
        if given is None:
            raise _Unsupported("Unsqueeze without axes")
        rank = len(data.shape) + len(given)
        axes = _axes(given, rank)
        if len(set(axes)) != len(axes):
            raise _Unsupported(f"axes {given} repeat an axis")
        dims = iter(data.shape)
        shape = [1 if i in axes else next(dims) for i in range(rank)]
        return self._reshaped(node, data, shape)

    def _op_Squeeze(self, node: Any, attrs: dict[str, Any]) -> Value:
        data = self._required(node, 0)
        given = self._squeeze_axes(node, attrs)
        if given is None:
            axes = [i for i, d in enumerate(data.shape) if d == 1]
        else:
            axes = _axes(given, len(data.shape))
        if any(data.shape[a] != 1 for a in axes):
            raise _Unsupported(f"axes {axes} of shape {_shape_str(data.shape)} are not all 1")
        return self._reshaped(node, data, [d for i, d in enumerate(data.shape) if i not in axes])

    def _reshaped(self, node: Any, data: Value, shape: list[int]) -> Value:
        if isinstance(data, _Const):
            return self._folded(data.array(self.onnx).reshape(shape))
        return self.b.reshape(data, shape, name=self._out(node))


def _dtype(t: Tensor) -> np.dtype:
    """The numpy dtype of a value's element type."""
    return dtypes.np_dtype(t.element_type)


def _verify(op: Operation) -> None:
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as e:
        raise _Unsupported(f"'{op.name}' op {_one_line(e)}") from None
