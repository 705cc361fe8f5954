"""The `stream` dialect: stream labels, wait edges, and the events of assigned streams.

User intent, as TorchAir writes it:

- `stream.label = #stream.label<"1", priority = 0, inner_parallel = true>` on an op is
  `npu_stream_switch("1", 0, True)` around it (a smaller priority is more urgent);
- `%y = stream.wait_tensor %x after %dep` is `npu_wait_tensor(x, dep)`: an identity of
  `%x` whose users start only after `%dep`'s producer has finished.

Compiler decisions, after stream assignment:

- `stream.id = #stream.id<k>` on every op (0 is the main stream);
- `%e = stream.record %v, ...` on the producers' stream publishes the values it lists, and
  `stream.wait %e` on another stream waits for them.

record, wait and wait_tensor have memory effects, so that DCE and CSE keep them.
`verify_streams(module)` checks what no single op can: one priority per label.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntAttr, StringAttr, TensorType
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from ge_dialect.utils.errors import location_str, op_error
from ge_dialect.utils.parsing import parse_i64, parse_parameter_list, parse_string
from ge_dialect.utils.walk import walk_ops

LABEL = "stream.label"
"""The discardable attribute holding a user stream label."""

ID = "stream.id"
"""The discardable attribute holding an assigned stream."""


@irdl_attr_definition
class LabelAttr(ParametrizedAttribute):
    """A user stream label: `#stream.label<"1", priority = 0, inner_parallel = true>`.

    TorchAir's `_user_stream_label`, `_user_stream_priority` and `_enable_inner_parallel`.
    `priority` and `inner_parallel` may be omitted when parsing (0 and true) and are always
    printed.
    """

    name = "stream.label"

    label: StringAttr
    priority: IntAttr
    inner_parallel: IntAttr

    def __init__(self, label: str, priority: int = 0, inner_parallel: bool = True):
        super().__init__(StringAttr(label), IntAttr(priority), IntAttr(int(bool(inner_parallel))))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            label = parse_string(parser, " (the stream label)")
            if not label:
                parser.raise_error("a stream label must not be empty", pos, parser.pos)
            values: dict[str, object] = {"priority": 0, "inner_parallel": 1}
            values.update(
                parse_parameter_list(
                    parser,
                    "label",
                    {
                        "priority": lambda: parse_i64(parser),
                        "inner_parallel": lambda: int(parser.parse_boolean()),
                    },
                )
            )
        priority, inner_parallel = values["priority"], values["inner_parallel"]
        assert isinstance(priority, int) and isinstance(inner_parallel, int)
        return (StringAttr(label), IntAttr(priority), IntAttr(inner_parallel))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.label.data)
        inner = "true" if self.inner_parallel.data else "false"
        printer.print_string(f", priority = {self.priority.data}, inner_parallel = {inner}>")

    def verify(self) -> None:
        if not self.label.data:
            raise VerifyException("a stream label must not be empty")


@irdl_attr_definition
class StreamIdAttr(ParametrizedAttribute):
    """An assigned stream: `#stream.id<k>`, k >= 0 (0 is the main stream)."""

    name = "stream.id"

    id: IntAttr

    def __init__(self, id: int):
        super().__init__(IntAttr(id))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            value = parse_i64(parser)
            if value < 0:
                parser.raise_error(
                    f"a stream id must be non-negative, got {value}", pos, parser.pos
                )
        return (IntAttr(value),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.id.data}>")

    def verify(self) -> None:
        if self.id.data < 0:
            raise VerifyException(f"a stream id must be non-negative, got {self.id.data}")


@irdl_attr_definition
class EventType(ParametrizedAttribute, TypeAttribute):
    """`!stream.event`: what a `stream.record` publishes and a `stream.wait` waits for."""

    name = "stream.event"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return ()


_EFFECTS = (MemoryReadEffect(), MemoryWriteEffect())


def stream_of(op: Operation) -> int | None:
    """The assigned stream of `op`, or None when it has none."""
    attr = op.attributes.get(ID)
    return attr.id.data if isinstance(attr, StreamIdAttr) else None


def producer_stream(value: SSAValue) -> int | None:
    """The stream a value is produced on: its op's, or 0 for function arguments."""
    owner = value.owner
    if isinstance(owner, Block):
        return 0
    return stream_of(owner)


@irdl_op_definition
class WaitTensorOp(IRDLOperation):
    """TorchAir's `npu_wait_tensor(x, dep)`: `%x`, available once `%dep` is computed.

    Every user of the result starts after `%dep`'s producer has finished.

        %y = stream.wait_tensor %x after %dep : tensor<4x4xf32>, tensor<4x4xf32>
    """

    name = "stream.wait_tensor"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    dependency = operand_def(TensorType)
    output = result_def(T)
    traits = traits_def(*_EFFECTS)
    assembly_format = "$input `after` $dependency attr-dict `:` type($input) `,` type($dependency)"

    def __init__(self, input: SSAValue, dependency: SSAValue):
        super().__init__(operands=[input, dependency], result_types=[input.type])


@irdl_op_definition
class RecordOp(IRDLOperation):
    """Records an event on its stream once the values it lists are computed.

    It sits on the stream of its operands' producers (function arguments count as
    produced on stream 0), after them (a record before a producer is a use its definition
    does not dominate).

        %e = stream.record %a, %b {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>
    """

    name = "stream.record"
    values = var_operand_def(TensorType)
    event = result_def(EventType)
    traits = traits_def(*_EFFECTS)
    assembly_format = "$values attr-dict `:` type($values)"

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[values], result_types=[EventType()])

    def verify_(self) -> None:
        if not self.values:
            raise VerifyException("needs at least one value to publish")
        stream = stream_of(self)
        for i, value in enumerate(self.values):
            produced_on = producer_stream(value)
            if stream is not None and produced_on is not None and produced_on != stream:
                raise VerifyException(
                    f"is on stream {stream}, but operand #{i} is produced on stream "
                    f"{produced_on}: a record goes on its producers' stream"
                )


@irdl_op_definition
class WaitOp(IRDLOperation):
    """Makes its stream wait until the event of a `stream.record` on another stream.

    The record comes first (a wait before it is a use its definition does not dominate).

        stream.wait %e {stream.id = #stream.id<1>}
    """

    name = "stream.wait"
    event = operand_def(EventType)
    traits = traits_def(*_EFFECTS)
    assembly_format = "$event attr-dict"

    def __init__(self, event: SSAValue):
        super().__init__(operands=[event])

    def verify_(self) -> None:
        record = self.event.owner
        if not isinstance(record, RecordOp):
            what = "a block argument" if isinstance(record, Block) else f"'{record.name}'"
            raise VerifyException(f"waits on an event that is not from a stream.record ({what})")
        mine, theirs = stream_of(self), stream_of(record)
        if mine is not None and mine == theirs:
            raise VerifyException(
                f"is on stream {mine}, the stream of its record: a wait must be on another stream"
            )


def _verify_assigned(function: Operation) -> None:
    """In a function where some op has a stream, every op but the terminator has one and no
    stream.wait_tensor remains (its edge became stream order or an event)."""
    body = [op for region in function.regions for block in region.blocks for op in block.ops]
    assigned = next((op for op in body if ID in op.attributes), None)
    if assigned is None:
        return
    for op in body:
        if op is body[-1] and not op.results and op.name.endswith("return"):
            continue
        if isinstance(op, WaitTensorOp):
            raise op_error(
                op,
                "remains in a function whose ops have streams: stream assignment turns "
                "every stream.wait_tensor into stream order or an event",
            )
        if ID not in op.attributes:
            raise op_error(
                op,
                f"has no '{ID}', but the function is assigned (e.g. '{assigned.name}' at "
                f"{location_str(assigned.location)} has one)",
            )


def verify_streams(module: Operation) -> None:
    """Module-wide stream rules, as located GeErrors.

    `stream.label` and `stream.id` attributes have the right kind; all ops of one label
    agree on its priority; an assigned function has a stream on every op and no
    wait_tensor left.
    """
    labels: dict[str, tuple[int, Operation]] = {}
    functions: list[Operation] = []
    for op in walk_ops(module):
        if op.name == "func.func":
            functions.append(op)
        if not op.attributes:
            continue
        label = op.attributes.get(LABEL)
        if label is not None and not isinstance(label, LabelAttr):
            raise op_error(op, f"attribute '{LABEL}' must be a #stream.label, got {label}")
        sid = op.attributes.get(ID)
        if sid is not None and not isinstance(sid, StreamIdAttr):
            raise op_error(op, f"attribute '{ID}' must be a #stream.id, got {sid}")
        if isinstance(label, LabelAttr):
            name, priority = label.label.data, label.priority.data
            first = labels.setdefault(name, (priority, op))
            if first[0] != priority:
                raise op_error(
                    op,
                    f'has stream label "{name}" with priority {priority}, but the label has '
                    f"priority {first[0]} at {location_str(first[1].location)}",
                )
    for op in functions:
        _verify_assigned(op)


Stream = Dialect(
    "stream",
    [WaitTensorOp, RecordOp, WaitOp],
    [LabelAttr, StreamIdAttr, EventType],
)

__all__ = [
    "ID",
    "LABEL",
    "Stream",
    "EventType",
    "LabelAttr",
    "RecordOp",
    "StreamIdAttr",
    "WaitOp",
    "WaitTensorOp",
    "producer_stream",
    "stream_of",
    "verify_streams",
]
