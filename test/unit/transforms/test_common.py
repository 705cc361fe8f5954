"""The helpers the graph passes share (`transforms.common`): the one remover of dead ops
(`erase_dead`, `is_dead`) and the location of a fused op (`fused_location`).

`erase_dead` erases the ops it is given (users first) that have no use, whatever their
effects, then, unless told not to, the producers this leaves trivially dead; through a
rewriter its listeners hear of each erasure, in that order.  `is_dead` answers as xDSL's
`is_trivially_dead`.  `fused_location` flattens, drops unknown locations and repeats
(equal ones, not only the same object), and keeps the order of first appearance.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from transforms.common import erase_dead, fused_location, is_dead

# %w -> %d -> %e -> %u (a chain of pure ops), %p read by %e and by the result (kept), %h an
# all-reduce (effects: never erased as a producer), %v read by nothing but listed or not.
TEXT = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = ge.const dense<1.0> : tensor<4xf32>
  %p = ge.relu %x : tensor<4xf32>
  %d = ge.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = ge.add %d, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %u = ge.sigmoid %e : tensor<4xf32>
  %h = "ge.hcom_all_reduce"(%x) <{reduction = #ge<reduction sum>, group = "world", rank_size = 8 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  %v = ge.relu %h : tensor<4xf32>
  func.return %p : tensor<4xf32>
}
"""  # noqa: E501


def parse() -> tuple[ModuleOp, dict[str, Operation]]:
    """The module of TEXT and its ops by result name."""
    module = LocatingParser(make_context(), TEXT, "m.mlir").parse_module()
    ops = {op.results[0].name_hint: op for op in module.walk() if op.name.startswith("ge.")}
    assert all(ops), ops
    return module, {str(k): v for k, v in ops.items()}


def left(module: ModuleOp) -> list[str]:
    """The names of the `ge` ops left, in block order."""
    return [str(op.results[0].name_hint) for op in module.walk() if op.name.startswith("ge.")]


def test_a_chain_and_the_producers_it_leaves_dead_are_erased():
    module, ops = parse()
    erase_dead([ops["u"]])
    assert left(module) == ["p", "h", "v"]  # %p is still returned


def test_without_following_producers_only_the_listed_ops_go():
    module, ops = parse()
    erase_dead([ops["u"], ops["e"]], follow_producers=False)
    assert left(module) == ["w", "p", "d", "h", "v"]


def test_listed_ops_go_whatever_their_effects_producers_only_when_pure():
    module, ops = parse()
    erase_dead([ops["v"]])
    assert left(module) == ["w", "p", "d", "e", "u", "h"]  # the all-reduce stays
    erase_dead([ops["h"]])
    assert left(module) == ["w", "p", "d", "e", "u"]


def test_an_op_with_a_use_is_kept_so_users_come_first():
    module, ops = parse()
    erase_dead([ops["e"], ops["u"]], follow_producers=False)  # %e still read by %u
    assert left(module) == ["w", "p", "d", "e", "h", "v"]
    erase_dead([ops["e"], ops["e"]])  # now unused; listed twice: erased once
    assert left(module) == ["p", "h", "v"]


def test_through_a_rewriter_each_erasure_is_announced_in_order():
    module, ops = parse()
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    ret = fn.body.block.last_op
    assert ret is not None
    ret.operands[0] = fn.body.block.args[0]  # %p is no longer returned
    rewriter = PatternRewriter(ops["u"])
    heard: list[str] = []
    rewriter.operation_removal_handler.append(lambda op: heard.append(str(op.results[0].name_hint)))
    erase_dead([ops["u"]], rewriter=rewriter)
    # the listed op, then the producers last found first (as a stack): %e; of its operands
    # %d and %p, %p first, then %d, then %d's %w
    assert heard == ["u", "e", "p", "d", "w"]
    assert rewriter.has_done_action
    assert left(module) == ["h", "v"]


def test_is_dead_answers_as_is_trivially_dead():
    module, ops = parse()
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    ret = fn.body.block.last_op
    assert ret is not None
    for op in [*ops.values(), ret, fn]:
        assert is_dead(op) == is_trivially_dead(op), op.name
    assert [name for name, op in ops.items() if is_dead(op)] == ["u", "v"]
    for op in [*ops.values(), ret, fn]:  # again, from the per-class memory
        assert is_dead(op) == is_trivially_dead(op), op.name


# --------------------------------------------------------------------------------------
# fused_location
# --------------------------------------------------------------------------------------


def at(loc) -> Operation:
    """An op located at `loc`."""
    op = func.ReturnOp()
    op.location = loc
    return op


def file_loc(name: str, line: int, column: int) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(name), IntAttr(line), IntAttr(column))


def name_loc(name: str) -> NameLoc:
    return NameLoc(StringAttr(name), UnknownLoc())


def test_fused_location_of_none_or_one():
    assert fused_location([]) == UnknownLoc()
    assert fused_location([at(UnknownLoc()), at(UnknownLoc())]) == UnknownLoc()
    a = file_loc("m.mlir", 1, 2)
    assert fused_location([at(a), at(UnknownLoc()), at(file_loc("m.mlir", 1, 2))]) is a


def test_fused_location_flattens_and_drops_repeats_by_value():
    a, b, c = file_loc("m.mlir", 1, 2), file_loc("m.mlir", 3, 4), name_loc("n")
    nested = FusedLoc(ArrayAttr([b, file_loc("m.mlir", 1, 2)]), NoneAttr())
    fused = fused_location([at(a), at(nested), at(c), at(name_loc("n"))])
    assert fused == FusedLoc(ArrayAttr([a, b, c]), NoneAttr())


@pytest.mark.parametrize(
    "other",
    [
        file_loc("other.mlir", 1, 2),  # same line and column, another file
        file_loc("m.mlir", 1, 3),
        NameLoc(StringAttr("n"), file_loc("m.mlir", 1, 2)),  # same name, a child
        name_loc("m"),
    ],
)
def test_fused_location_keeps_locations_that_differ_in_any_part(other):
    a = file_loc("m.mlir", 1, 2) if isinstance(other, FileLineColLoc) else name_loc("n")
    fused = fused_location([at(a), at(other)])
    assert fused == FusedLoc(ArrayAttr([a, other]), NoneAttr())
