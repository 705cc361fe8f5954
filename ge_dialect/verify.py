"""Whole-module verification with located diagnostics.

`verify_module` is what `ge_dialect.api.verify` runs, and ge-opt after parsing and after
every pass: op verifiers (innermost first), SSA dominance (xDSL 0.75 does not check it),
then the module-wide stream rules and the whole-program rules of each device program (a
`func.func` carrying `npu.program`).  The first failure is raised as a `GeError` located at
its op.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from ge_dialect.diagnostics import check_dominance, op_error, verify_located
from ge_dialect.npu.program import is_program, verify_program
from ge_dialect.stream import verify_streams


def verify_module(module: Operation, fallback: str = "<unknown>") -> None:
    """Raises a located GeError for the first rule `module` breaks."""
    check_function_bodies(module, fallback)
    verify_located(module, fallback)
    check_dominance(module, fallback)
    verify_streams(module)
    for program in _programs(module):
        verify_program(program, fallback)


def _programs(op: Operation) -> list[func.FuncOp]:
    """The device programs of `op`: itself, or functions of its (nested) modules (no walk
    through function bodies)."""
    if is_program(op):
        assert isinstance(op, func.FuncOp)
        return [op]
    found: list[func.FuncOp] = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                if isinstance(inner, func.FuncOp):
                    if is_program(inner):
                        found.append(inner)
                elif isinstance(inner, ModuleOp):
                    found.extend(_programs(inner))
    return found


def _functions(op: Operation) -> Iterator[func.FuncOp]:
    """The functions in `op` (itself included), without walking through function bodies
    (a function holds no function): one pass over the module's top level."""
    if isinstance(op, func.FuncOp):
        yield op
        return
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                yield from _functions(inner)


def check_function_bodies(module: Operation, fallback: str = "<unknown>") -> None:
    """MLIR's rules for function bodies that xDSL 0.75 does not check.

    A block of a body must hold at least its terminator (mlir-opt: "empty block: expect at
    least a terminator"), and a function without a body is a declaration, which must not be
    public (xDSL parses `func.func @f() {}` as one, and would print text mlir-opt rejects).
    """
    for op in _functions(module):
        if not op.body.blocks:
            visibility = op.sym_visibility
            if visibility is None or visibility.data == "public":
                raise op_error(
                    op,
                    "symbol declaration cannot have public visibility (a function without "
                    "a body is a declaration: give it a body or make it private)",
                    fallback,
                )
        for block in op.body.blocks:
            if block.first_op is None:
                raise op_error(op, "empty block: expect at least a terminator", fallback)
