"""The ops of the `npu` dialect: buffers and the tasks of GE's task list.

Buffers are builtin memrefs of *physical* shape with the identity layout, of at most
2^63 - 1 bytes: `npu.alloc` (an activation buffer), `npu.weight` (read-only constant
data), `npu.view` (an alias of a buffer's bytes at a byte offset) and the program's
arguments.  Tasks name their stream: `npu.launch` (a kernel, checked against its
signature by `npu.signatures`), `npu.record` / `npu.wait` (events, integer ids),
`npu.copy`.  Tasks have memory effects and are never `Pure`, so that DCE and CSE keep them.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    TensorType,
    i8,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.npu.attrs import CostAttr, ElidedAttr, ExternalDataAttr, FormatAttr
from ge_dialect.ir.dialects.npu.signatures import verify_launch
from ge_dialect.ir.encodings import data_dir, physical_shape, read_physical, verify_tensor_type
from ge_dialect.ir.xdsl_compat import current_token
from ge_dialect.utils.dtypes import is_supported, itemsize
from ge_dialect.utils.floats import dense_literal
from ge_dialect.utils.parsing import parse_i64, parse_string

INPUT = "npu.input"
"""The argument attribute naming a program input (read-only)."""

OUTPUT = "npu.output"
"""The argument attribute naming a program output (written in place)."""

_TASK_EFFECTS = (MemoryReadEffect(), MemoryWriteEffect())

# --------------------------------------------------------------------------------------
# Buffer types
# --------------------------------------------------------------------------------------


def buffer_type(t: TensorType) -> MemRefType:
    """The buffer of a value of (logical) tensor type `t`: a memref of its physical shape
    and element type."""
    return MemRefType(t.element_type, physical_shape(t))


def logical_type(t: TensorType) -> TensorType:
    """`t` with its format encoding (of any dialect that shares `ge_dialect.ir.encodings`, e.g.
    `#ge.format`) as `#npu.format`: the logical type a launch names.  Types without an
    encoding, or already in `#npu.format`, are returned as they are."""
    from ge_dialect.ir.encodings import FormatEncoding

    enc = t.encoding
    if isinstance(enc, NoneAttr | FormatAttr):
        return t
    if not isinstance(enc, FormatEncoding):
        raise ValueError(f"{t} has an encoding that is not a storage format: {enc}")
    return TensorType(
        t.element_type, t.get_shape(), FormatAttr(enc.fmt, enc.c0.data, enc.groups.data)
    )


def byte_size(t: MemRefType) -> int:
    """The size in bytes of a buffer of type `t`."""
    return math.prod(t.get_shape()) * itemsize(t.element_type)


MAX_BYTES = 2**63 - 1
"""The largest buffer, in bytes: byte offsets and sizes are int64 on the device."""


def verify_buffer_type(t: Attribute, what: str) -> MemRefType:
    """A buffer is a memref of static shape, identity layout, no memory space, an element
    type the device computes with, and a byte size that fits in int64 (dims whose product
    overflows cannot be addressed); returns it as MemRefType."""
    if not isinstance(t, MemRefType):
        raise VerifyException(f"{what} must be a memref, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {t}")
    if not isinstance(t.layout, NoneAttr):
        raise VerifyException(
            f"{what} must have the identity layout (a buffer of physical shape), got {t}"
        )
    if not isinstance(t.memory_space, NoneAttr):
        raise VerifyException(f"{what} must have no memory space, got {t}")
    if not is_supported(t.element_type):
        raise VerifyException(f"{what} has unsupported element type {t.element_type}")
    if (nbytes := byte_size(t)) > MAX_BYTES:
        raise VerifyException(
            f"{what}: {t} holds {nbytes} bytes, more than a device can address "
            f"(at most 2^63 - 1 bytes)"
        )
    return t


def root_buffer(value: SSAValue) -> SSAValue:
    """The buffer whose bytes `value` names: `value` itself, or the root of a chain of views."""
    while isinstance(owner := value.owner, ViewOp):
        value = owner.source
    return value


def argument_role(value: SSAValue) -> tuple[str, str] | None:
    """(`npu.input` or `npu.output`, its name) when `value` is an argument of a function
    that names it so, else None."""
    if not isinstance(value, BlockArgument):
        return None
    fn = value.block.parent_op()
    if not isinstance(fn, func.FuncOp) or fn.arg_attrs is None:
        return None
    index = value.index
    if not 0 <= index < len(fn.arg_attrs.data):
        return None
    attrs = fn.arg_attrs.data[index]
    if not isinstance(attrs, DictionaryAttr):
        return None
    for role in (INPUT, OUTPUT):
        name = attrs.data.get(role)
        if isinstance(name, StringAttr):
            return role, name.data
    return None


def read_only(value: SSAValue) -> str | None:
    """What makes the buffer `value` read-only (a weight, a program input that is not also
    an output), or None."""
    root = root_buffer(value)
    prefix = "a view of " if root is not value else ""
    if isinstance(root.owner, WeightOp):
        return f"{prefix}a weight (npu.weight)"
    role = argument_role(root)
    if role is not None and role[0] == INPUT and not is_in_out(root):
        return f'{prefix}the program input "{role[1]}"'
    return None


def is_in_out(value: SSAValue) -> bool:
    """Whether `value` is an in-out argument of a program (both `npu.input` and
    `npu.output`: an input the program updates in place)."""
    if not isinstance(value, BlockArgument):
        return False
    fn = value.block.parent_op()
    if not isinstance(fn, func.FuncOp) or fn.arg_attrs is None:
        return False
    attrs = fn.arg_attrs.data[value.index] if value.index < len(fn.arg_attrs.data) else None
    return isinstance(attrs, DictionaryAttr) and INPUT in attrs.data and OUTPUT in attrs.data


def _verify_writable(value: SSAValue, what: str) -> None:
    reason = read_only(value)
    if reason is not None:
        raise VerifyException(f"{what} is {reason}, which is read-only")


def _verify_stream(attr: IntegerAttr) -> None:
    if attr.value.data < 0:
        raise VerifyException(f"stream id must be non-negative, got {attr.value.data}")


def _i64(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


# --------------------------------------------------------------------------------------
# Buffers
# --------------------------------------------------------------------------------------


@irdl_op_definition
class AllocOp(IRDLOperation):
    """One activation buffer (before `plan-memory`, each value has its own).

    It allocates (no task, no stream): CSE never merges two of them.

        %b = npu.alloc : memref<1x1x8x8x16xf32>
    """

    name = "npu.alloc"

    result = result_def(MemRefType)

    traits = traits_def(MemoryAllocEffect())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: MemRefType):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        verify_buffer_type(self.result.type, "result")


@irdl_op_definition
class WeightOp(IRDLOperation):
    """A read-only buffer of constant data: inline, external (memory-mapped) or elided.

    Inline data is a dense tensor of the buffer's shape and element type, written with the
    buffer's type (exactly: floats re-parse to the same bits); `#npu.elided` is for
    reading only.

        %w = npu.weight dense<[5.000000e-01, -1.000000e+00]> : memref<2xf32>
        %e = npu.weight #npu.external<"model.weights", offset = 0, length = 4096>
               : memref<1024xf32>
        %z = npu.weight #npu.elided : memref<64x64xf32>
    """

    name = "npu.weight"

    value = prop_def(DenseIntOrFPElementsAttr | ExternalDataAttr | ElidedAttr)
    result = result_def(MemRefType)

    traits = traits_def(Pure())

    def __init__(self, value: Attribute, result_type: MemRefType | None = None):
        """`value` is a dense attribute (its type is the tensor of the buffer's shape and
        element type), an `ExternalDataAttr` or an `ElidedAttr`; `result_type` may be
        omitted for dense data (the memref of the dense type's shape)."""
        if result_type is None:
            assert isinstance(value, DenseIntOrFPElementsAttr)
            shape = value.get_shape()
            assert shape is not None
            result_type = MemRefType(value.get_element_type(), shape)
        super().__init__(properties={"value": value}, result_types=[result_type])

    @property
    def buffer_type(self) -> MemRefType:
        t = self.result.type
        assert isinstance(t, MemRefType)
        return t

    def is_readable(self) -> bool:
        """Whether the data can be read (it was not elided)."""
        return not isinstance(self.value, ElidedAttr)

    def physical_array(self) -> np.ndarray:
        """The buffer's contents (read-only; memory-mapped for external data, whose relative
        path is resolved against the directory of the IR file, `npu.set_data_dir`).  Elided
        data, a missing or short file is a located error."""
        t = self.buffer_type
        return read_physical(self.value, t.get_shape(), t.element_type, self, data_dir)

    @classmethod
    def parse(cls, parser: Parser) -> WeightOp:
        value: Attribute
        if parser.parse_optional_keyword("dense") is not None:
            dense = parser.parse_dense_int_or_fp_elements_attr(None)
            if isinstance(dense.type, MemRefType):
                # The literal is written with the buffer's type; the value is a tensor.
                result_type: Attribute = dense.type
                value = DenseIntOrFPElementsAttr(
                    TensorType(dense.get_element_type(), dense.type.get_shape()),
                    dense.data,
                )
            else:  # a value whose type is not the buffer's (IR that does not verify)
                value = dense
                parser.parse_punctuation(":")
                result_type = parser.parse_type()
        else:
            value = parser.parse_attribute()
            parser.parse_punctuation(":")
            result_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        op = cls.create(properties={"value": value}, result_types=[result_type])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        value, t = self.value, self.result.type
        if isinstance(value, DenseIntOrFPElementsAttr) and _dense_fits(value, t):
            assert isinstance(t, MemRefType)
            literal = dense_literal(value)
            if literal is not None:  # floats: exact text
                printer.print_string(literal)
                printer.print_string(" : ")
                printer.print_attribute(t)
            else:  # integers: xDSL's text is exact; printed with the buffer's type
                printer.print_attribute(DenseIntOrFPElementsAttr(t, value.data))
        else:
            printer.print_attribute(value)
            printer.print_string(" : ")
            printer.print_attribute(t)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        t = verify_buffer_type(self.result.type, "result")
        value = self.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            if not isinstance(value.type, TensorType) or not isinstance(
                value.type.encoding, NoneAttr
            ):
                raise VerifyException(
                    f"value must be a dense tensor without encoding, got {value.type}"
                )
            if value.get_element_type() != t.element_type:
                raise VerifyException(
                    f"value has element type {value.get_element_type()}, "
                    f"expected {t.element_type} (the buffer's)"
                )
            if tuple(value.type.get_shape()) != tuple(t.get_shape()):
                raise VerifyException(
                    f"value has type {value.type}, expected a tensor of the buffer's shape "
                    f"{'x'.join(map(str, t.get_shape()))}"
                )
        elif isinstance(value, ExternalDataAttr):
            nbytes = byte_size(t)
            if value.length.data != nbytes:
                raise VerifyException(
                    f"external data has length {value.length.data}, expected {nbytes} bytes for {t}"
                )


def _dense_fits(value: DenseIntOrFPElementsAttr, t: Attribute) -> bool:
    """Whether a dense value is a tensor of the buffer `t`'s shape and element type, so that
    it can be written with the buffer's type."""
    vt = value.type
    return (
        isinstance(t, MemRefType)
        and isinstance(vt, TensorType)
        and isinstance(vt.encoding, NoneAttr)
        and vt.element_type == t.element_type
        and tuple(vt.get_shape()) == tuple(t.get_shape())
    )


def is_workspace_type(t: MemRefType) -> bool:
    """Whether `t` is a workspace's type: a flat buffer of bytes (`memref<Nxi8>`)."""
    return t.get_num_dims() == 1 and t.element_type == i8


@irdl_op_definition
class ViewOp(IRDLOperation):
    """An alias of a buffer's bytes from a byte offset, under another shape (reshape-like ops
    lower to views; after `plan-memory` every activation buffer is a view of the workspace).

    The element type is the source's, or any when the source is a workspace (a flat `i8`
    buffer of bytes: `plan-memory` places every activation in one); the offset is a
    multiple of the result's element size and the view lies inside the source.

        %v = npu.view %b[0] : memref<1x1x8x8x16xf32> -> memref<128x16xf32>
        %w = npu.view %ws[4096] : memref<65536xi8> -> memref<1x1x8x8x16xf16>
    """

    name = "npu.view"

    source = operand_def(MemRefType)
    offset = prop_def(IntegerAttr[I64])
    result = result_def(MemRefType)

    traits = traits_def(Pure())

    assembly_format = "$source `[` $offset `]` attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, offset: int, result_type: MemRefType):
        super().__init__(
            operands=[source], properties={"offset": _i64(offset)}, result_types=[result_type]
        )

    def verify_(self) -> None:
        source = verify_buffer_type(self.source.type, "source")
        result = verify_buffer_type(self.result.type, "result")
        offset = self.offset.value.data
        if offset < 0:
            raise VerifyException(f"offset must be non-negative, got {offset}")
        if result.element_type != source.element_type and not is_workspace_type(source):
            raise VerifyException(
                f"result has element type {result.element_type}, expected "
                f"{source.element_type} (the source's; only a workspace, a flat i8 buffer, "
                "is viewed as other types)"
            )
        size = itemsize(result.element_type)
        if offset % size:
            raise VerifyException(
                f"offset {offset} is not a multiple of the element size ({size} bytes)"
            )
        if offset + byte_size(result) > byte_size(source):
            raise VerifyException(
                f"a view of {byte_size(result)} bytes at offset {offset} does not fit in the "
                f"source's {byte_size(source)} bytes"
            )


# --------------------------------------------------------------------------------------
# Tasks
# --------------------------------------------------------------------------------------


def _resolve_launch_operand(
    parser: Parser, operand: UnresolvedOperand, logical: Attribute, what: str, at: int
) -> SSAValue:
    """An operand of a launch, whose buffer type is derived from its logical type.

    A value already defined is taken as it is (a type that does not fit is the verifier's
    to report, with both types); a forward reference gets the derived type.
    """
    values = parser.ssa_values.get(operand.operand_name)
    if values is not None and operand.index < len(values):
        return values[operand.index]
    try:
        t = verify_tensor_type(logical, f"{what}'s logical type", FormatAttr)
        expected = buffer_type(t)
    except (VerifyException, ValueError) as e:
        parser.raise_error(str(e), at)
    return parser.resolve_operand(operand, expected)


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """A kernel launch on a stream: the kernel (the `ge` op's name without "ge."), its input
    and output buffers, its stream and priority, the *logical* type of each operand (its
    storage format as a `#npu.format` encoding), its cost and the kernel's attributes.

    Each buffer's type is the memref of its logical type's physical shape, so only the
    logical types are written:

        npu.launch "conv2d"(%x, %w, %b) -> (%y) stream 1 priority 0
            : (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>,
               tensor<16x3x3x3xf32, #npu.format<FRACTAL_Z>>, tensor<16xf32>)
            -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>)
            cost <cube, flops = 55296, bytes_in = 9280, bytes_out = 4096, blocks = 1>
            attrs {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                   dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = true}

    Outputs are written, so none is a weight or a program input (nor a view of one).  The
    kernel's signature is the `ge` op it is named after (`npu.signatures`): the logical
    types and attributes must make a valid `ge.<kernel>` (a conv's output shape, a relu's
    result type, an integer axis, ...).
    """

    name = "npu.launch"

    inputs = var_operand_def(MemRefType)
    outputs = var_operand_def(MemRefType)

    kernel = prop_def(StringAttr)
    stream = prop_def(IntegerAttr[I64])
    priority = prop_def(IntegerAttr[I64])
    in_types = prop_def(ArrayAttr)
    out_types = prop_def(ArrayAttr)
    cost = prop_def(CostAttr)
    attrs = prop_def(DictionaryAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(*_TASK_EFFECTS)

    def __init__(
        self,
        kernel: str,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        *,
        stream: int,
        priority: int = 0,
        in_types: Sequence[Attribute],
        out_types: Sequence[Attribute],
        cost: CostAttr,
        attrs: DictionaryAttr | Mapping[str, Attribute] | None = None,
    ):
        if not isinstance(attrs, DictionaryAttr):
            attrs = DictionaryAttr(dict(attrs or {}))
        super().__init__(
            operands=[inputs, outputs],
            properties={
                "kernel": StringAttr(kernel),
                "stream": _i64(stream),
                "priority": _i64(priority),
                "in_types": ArrayAttr(in_types),
                "out_types": ArrayAttr(out_types),
                "cost": cost,
                "attrs": attrs,
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        kernel = parse_string(parser, " (the kernel name)")
        delim = Parser.Delimiter.PAREN
        inputs = parser.parse_comma_separated_list(delim, parser.parse_unresolved_operand)
        parser.parse_punctuation("->")
        outputs = parser.parse_comma_separated_list(delim, parser.parse_unresolved_operand)
        parser.parse_keyword("stream")
        stream = parse_i64(parser)
        parser.parse_keyword("priority")
        priority = parse_i64(parser)
        parser.parse_punctuation(":")
        in_at = parser.pos
        in_types = parser.parse_comma_separated_list(delim, parser.parse_type)
        parser.parse_punctuation("->")
        out_at = parser.pos
        out_types = parser.parse_comma_separated_list(delim, parser.parse_type)
        for kind, operands, types, at in (
            ("input", inputs, in_types, in_at),
            ("output", outputs, out_types, out_at),
        ):
            if len(operands) != len(types):
                parser.raise_error(
                    f"{len(types)} {kind} types, expected {len(operands)} (one per {kind})",
                    at,
                    parser.pos,
                )
        parser.parse_keyword("cost")
        cost = CostAttr.new(CostAttr.parse_parameters(parser))
        attrs: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("attrs") is not None:
            if current_token(parser).text != "{":
                parser.raise_error("'{' expected (the kernel's attributes)")
            attrs = parser.parse_optional_attr_dict()
        extra = parser.parse_optional_attr_dict_with_keyword()
        resolved = [
            [
                _resolve_launch_operand(parser, v, t, f"{kind} {i}", at)
                for i, (v, t) in enumerate(zip(operands, types, strict=True))
            ]
            for kind, operands, types, at in (
                ("input", inputs, in_types, in_at),
                ("output", outputs, out_types, out_at),
            )
        ]
        op = cls(
            kernel,
            resolved[0],
            resolved[1],
            stream=stream,
            priority=priority,
            in_types=in_types,
            out_types=out_types,
            cost=cost,
            attrs=attrs,
        )
        if extra is not None:
            op.attributes.update(extra.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.kernel.data)
        printer.print_operands(self.inputs)
        printer.print_string(" -> ")
        printer.print_operands(self.outputs)
        printer.print_string(
            f" stream {self.stream.value.data} priority {self.priority.value.data} : "
        )
        with printer.in_parens():
            printer.print_list(self.in_types.data, printer.print_attribute)
        printer.print_string(" -> ")
        with printer.in_parens():
            printer.print_list(self.out_types.data, printer.print_attribute)
        printer.print_string(" cost ")
        self.cost.print_parameters(printer)
        printer.print_string(" attrs ")
        printer.print_attr_dict(self.attrs.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    def verify_(self) -> None:
        if not self.kernel.data:
            raise VerifyException("kernel name must not be empty")
        _verify_stream(self.stream)
        for kind, operands, types in (
            ("input", self.inputs, self.in_types),
            ("output", self.outputs, self.out_types),
        ):
            if len(types.data) != len(operands):
                short = "in" if kind == "input" else "out"
                raise VerifyException(
                    f"{short}_types has {len(types.data)} entries, expected {len(operands)} "
                    f"(one per {kind})"
                )
            for i, (value, logical) in enumerate(zip(operands, types.data, strict=True)):
                t = verify_tensor_type(logical, f"{kind} {i}'s logical type", FormatAttr)
                verify_buffer_type(value.type, f"{kind} {i}")
                expected = buffer_type(t)
                if value.type != expected:
                    raise VerifyException(
                        f"{kind} {i} has type {value.type}, expected {expected} (the physical "
                        f"shape of {t})"
                    )
        for i, value in enumerate(self.outputs):
            _verify_writable(value, f"output {i}")
        for key, attr in self.attrs.data.items():
            if (bad := _non_builtin(attr)) is not None:
                raise VerifyException(
                    f"attrs: '{key}' holds {bad}, which is not a builtin attribute (kernels "
                    "read builtin attributes only)"
                )
        verify_launch(self)


def _non_builtin(attr: Attribute) -> Attribute | None:
    """The first attribute in `attr` (itself, or inside arrays and dictionaries) that is
    not a builtin one, or None."""
    if "." in attr.name:  # builtin attributes have no dialect prefix
        return attr
    if isinstance(attr, ArrayAttr):
        inner = attr.data
    elif isinstance(attr, DictionaryAttr):
        inner = tuple(attr.data.values())
    else:
        return None
    for a in inner:
        if (bad := _non_builtin(a)) is not None:
            return bad
    return None


class EventTaskOp(IRDLOperation, abc.ABC):
    """The event tasks: an integer event id and the stream the task runs on (ids are not
    SSA values, so a broken program can be written and the simulator reports it)."""

    event = prop_def(IntegerAttr[I64])
    stream = prop_def(IntegerAttr[I64])

    traits = traits_def(*_TASK_EFFECTS)

    assembly_format = "$event `stream` $stream attr-dict"

    def __init__(self, event: int, stream: int):
        super().__init__(properties={"event": _i64(event), "stream": _i64(stream)})

    def verify_(self) -> None:
        if self.event.value.data < 0:
            raise VerifyException(f"event id must be non-negative, got {self.event.value.data}")
        _verify_stream(self.stream)


@irdl_op_definition
class RecordOp(EventTaskOp):
    """Records event `event` on stream `stream` once the stream's earlier tasks are done.

    A task of its stream, in issue order; waits on other streams are released by it.

        npu.record 0 stream 1
    """

    name = "npu.record"


@irdl_op_definition
class WaitOp(EventTaskOp):
    """Makes stream `stream` wait until event `event` is recorded (its later tasks start
    after the record).  Ids are not SSA values: a wait with no record can be written, and
    the simulator reports it.

        npu.wait 0 stream 0
    """

    name = "npu.wait"


@irdl_op_definition
class CopyOp(IRDLOperation):
    """A copy task between two buffers of the same type, on a stream, with an optional cost.

    The type is written once; the dest is written, so it is not a weight or a program input.

        npu.copy %b -> %y stream 0 cost <vector, flops = 0, bytes_in = 4096,
            bytes_out = 4096, blocks = 1> : memref<1x1x8x8x16xf32>
    """

    name = "npu.copy"

    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    stream = prop_def(IntegerAttr[I64])
    cost = opt_prop_def(CostAttr)

    traits = traits_def(*_TASK_EFFECTS)

    def __init__(self, source: SSAValue, dest: SSAValue, stream: int, cost: CostAttr | None = None):
        super().__init__(operands=[source, dest], properties={"stream": _i64(stream), "cost": cost})

    @classmethod
    def parse(cls, parser: Parser) -> CopyOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation("->")
        dest = parser.parse_unresolved_operand()
        parser.parse_keyword("stream")
        stream = parse_i64(parser)
        properties: dict[str, Attribute] = {"stream": _i64(stream)}
        if parser.parse_optional_keyword("cost") is not None:
            properties["cost"] = CostAttr.new(CostAttr.parse_parameters(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        operands = [parser.resolve_operand(source, t), parser.resolve_operand(dest, t)]
        op = cls.create(operands=operands, properties=properties)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(" -> ")
        printer.print_operand(self.dest)
        printer.print_string(f" stream {self.stream.value.data}")
        if self.cost is not None:
            printer.print_string(" cost ")
            self.cost.print_parameters(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)

    def verify_(self) -> None:
        _verify_stream(self.stream)
        source = verify_buffer_type(self.source.type, "source")
        dest = verify_buffer_type(self.dest.type, "dest")
        if dest != source:
            raise VerifyException(f"dest has type {dest}, expected {source} (the source's)")
        _verify_writable(self.dest, "dest")
