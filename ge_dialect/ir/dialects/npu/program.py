"""Whole-program rules of a device program, which no op verifier can see locally.

A device program is a `func.func` with the unit attribute `npu.program`.  `verify_program`
checks its structure only:

- it has no results (outputs are arguments, written in place) and its body is one block
  of `npu` ops ending with `func.return`;
- every argument is a buffer named by `npu.input` or `npu.output` (a string), or by both:
  an *in-out* argument (GE's RefData: an input the program updates in place, as a KV
  cache, holding the output's value at the end), which counts as an input; inputs first,
  input names unique and output names unique (an output may share its name with an input:
  a graph that returns its input `x` as its output `x`); an optional `npu.type` (the
  logical type) has the argument's buffer as its physical storage;
- the event ids of records and waits together are exactly 0..n-1, and so are the stream
  ids of the tasks (GE's runtime numbers both densely);
- the records of one event are all on one stream.  A wait goes on once its event has been
  recorded, and the first record counts (`ge_dialect.utils.task_order.Events`); with
  records on two streams, which one is first depends on timing, so what the wait orders
  would too.  Records of one event on one stream are ordered: the first counts.

Ordering is not checked: a wait with no record, or a wait before its record, can be
written, and the simulator reports it (a deadlock); so are races.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, StringAttr, UnitAttr
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.npu.attrs import FormatAttr
from ge_dialect.ir.dialects.npu.ops import (
    INPUT,
    OUTPUT,
    CopyOp,
    LaunchOp,
    RecordOp,
    WaitOp,
    buffer_type,
    verify_buffer_type,
)
from ge_dialect.ir.encodings import verify_tensor_type
from ge_dialect.utils.errors import location_str, op_error

PROGRAM = "npu.program"
"""The unit attribute that makes a `func.func` a device program."""

TYPE = "npu.type"
"""The optional argument attribute holding an argument's logical type."""


def is_program(op: Operation) -> bool:
    """Whether `op` is a device program (a `func.func` carrying `npu.program`)."""
    return isinstance(op, func.FuncOp) and PROGRAM in op.attributes


def _check_numbered(used: Mapping[int, Operation], what: str, fallback: str) -> None:
    """Ids `used` (id -> the first op using it) are exactly 0..n-1, else a located error at
    the first op using the smallest id beyond the first gap."""
    ids = [i for i in used if i >= 0]  # negative ids are the op verifiers' to report
    if not ids or max(ids) == len(ids) - 1:
        return
    present = set(ids)
    missing = next(i for i in range(len(ids) + 1) if i not in present)
    beyond = min(i for i in ids if i > missing)
    raise op_error(
        used[beyond],
        f"{what} ids must be numbered 0..n-1: {what} {beyond} is used but {missing} is not",
        fallback,
    )


def _check_record_stream(record: RecordOp, first: RecordOp, fallback: str) -> None:
    """A located error at `record` when its event's first record is on another stream."""
    stream, other = record.stream.value.data, first.stream.value.data
    if stream != other:
        raise op_error(
            record,
            f"event {record.event.value.data} is recorded on stream {stream} here and on "
            f"stream {other} at {location_str(first.location, fallback)}: the records of an "
            "event must be on one stream (which one comes first would depend on timing)",
            fallback,
        )


def _verify_arguments(fn: func.FuncOp, fallback: str) -> None:
    args = fn.body.block.args
    arg_attrs = fn.arg_attrs.data if fn.arg_attrs is not None else ()
    names: dict[tuple[str, str], int] = {}  # (role, name) -> argument
    first_output: int | None = None
    for i, arg in enumerate(args):
        entry = arg_attrs[i] if i < len(arg_attrs) else None
        attrs: Mapping[str, Attribute] = entry.data if isinstance(entry, DictionaryAttr) else {}
        roles = [role for role in (INPUT, OUTPUT) if role in attrs]
        if not roles:
            raise op_error(
                fn,
                f"argument {i} has neither {INPUT} nor {OUTPUT}: every argument of a device "
                "program is a named input or output",
                fallback,
            )
        for role in roles:
            name = attrs[role]
            if not isinstance(name, StringAttr) or not name.data:
                raise op_error(
                    fn, f"argument {i}: {role} must be a non-empty string, got {name}", fallback
                )
            if (role, name.data) in names:
                kind = "input" if role == INPUT else "output"
                raise op_error(
                    fn,
                    f'argument {i} is named "{name.data}", as argument '
                    f"{names[role, name.data]} is: {kind} names must be unique",
                    fallback,
                )
            names[role, name.data] = i
        if roles == [OUTPUT] and first_output is None:
            first_output = i
        if INPUT in roles and first_output is not None:
            raise op_error(
                fn,
                f"argument {i} is an input after output argument {first_output}: inputs come first",
                fallback,
            )
        try:
            buffer = verify_buffer_type(arg.type, f"argument {i}")
            logical = attrs.get(TYPE)
            if logical is not None:
                t = verify_tensor_type(logical, f"argument {i}: {TYPE}", FormatAttr)
                if buffer_type(t) != buffer:
                    raise VerifyException(
                        f"argument {i} has type {buffer}, expected {buffer_type(t)} (the "
                        f"physical shape of its {TYPE} {t})"
                    )
        except VerifyException as e:
            raise op_error(fn, str(e), fallback) from None


def verify_program(fn: func.FuncOp, fallback: str = "<unknown>") -> None:
    """Raises a located `GeError` (a `VerifyException`) for the first whole-program rule the
    device program `fn` breaks (see the module docstring); `fallback` names where an op
    has no location.  Op verifiers are not run here (`ge_dialect.ir.verify` runs them first).
    """
    marker = fn.attributes.get(PROGRAM)
    if marker is not None and not isinstance(marker, UnitAttr):
        raise op_error(
            fn, f"attribute '{PROGRAM}' must be a unit attribute, got {marker}", fallback
        )
    results = fn.function_type.outputs.data
    if results:
        raise op_error(
            fn,
            f"a device program has no results (its outputs are arguments, written in "
            f"place), got {len(results)}",
            fallback,
        )
    if len(fn.body.blocks) != 1:
        raise op_error(
            fn, f"the body of a device program is one block, got {len(fn.body.blocks)}", fallback
        )
    _verify_arguments(fn, fallback)
    events: dict[int, Operation] = {}
    streams: dict[int, Operation] = {}
    records: dict[int, RecordOp] = {}  # event -> its first record
    block = fn.body.block
    for op in block.ops:
        if isinstance(op, func.ReturnOp) and op is block.last_op:
            continue
        if not op.name.startswith("npu."):
            raise op_error(
                op,
                "is not a device task: a device program holds npu ops and func.return only",
                fallback,
            )
        if isinstance(op, RecordOp):
            _check_record_stream(op, records.setdefault(op.event.value.data, op), fallback)
        if isinstance(op, RecordOp | WaitOp):
            events.setdefault(op.event.value.data, op)
        if isinstance(op, LaunchOp | RecordOp | WaitOp | CopyOp):
            streams.setdefault(op.stream.value.data, op)
    _check_numbered(events, "event", fallback)
    _check_numbered(streams, "stream", fallback)


__all__ = ["PROGRAM", "TYPE", "is_program", "verify_program"]
