"""`walk_ops` and `block_ops` list what xDSL's `walk` and `Block.ops` yield, in order."""

from __future__ import annotations

import gc

import pytest
from xdsl.ir import Operation

from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.utils.walk import block_ops, walk_ops

NESTED = """
builtin.module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = ge.relu %x : tensor<4xf32>
    func.return %a : tensor<4xf32>
  }
  builtin.module @inner {
    func.func @g() {
      func.return
    }
    func.func private @declared()
  }
  func.func @h(%y: tensor<4xf32>) -> tensor<4xf32> {
    func.return %y : tensor<4xf32>
  }
}
"""


@pytest.mark.parametrize("region_first", [False, True])
def test_walk_ops_is_xdsl_walk(region_first):
    module = LocatingParser(make_context(), NESTED, "m.mlir").parse_module()
    expected = list(module.walk(region_first=region_first))
    assert len(expected) == 10
    assert walk_ops(module, region_first=region_first) == expected


def test_block_ops_is_the_block_s_ops():
    module = LocatingParser(make_context(), NESTED, "m.mlir").parse_module()
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                assert block_ops(block) == list(block.ops)


@pytest.mark.parametrize("region_first", [False, True])
def test_a_walk_backwards_is_walk_ops_reversed(region_first):
    """What `to_nc1hwc0._TransDataWalker` relies on for its backward walks."""
    module = LocatingParser(make_context(), NESTED, "m.mlir").parse_module()
    backwards = list(module.walk(reverse=True, region_first=region_first))
    assert list(reversed(walk_ops(module, region_first=not region_first))) == backwards



def test_a_walk_leaves_no_reference_cycle():
    """Its list goes when its caller drops it, not at the next collection of the cyclic GC
    (which would scan every op in it)."""
    module = LocatingParser(make_context(), NESTED, "m.mlir").parse_module()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for region_first in (False, True):
            walk_ops(module, region_first=region_first)
        gc.collect()
        # other threads of the process (a test's Ray or database pool) may leave garbage of
        # their own meanwhile: only the walk's lists of ops count
        ours = [
            g
            for g in gc.garbage
            if isinstance(g, list) and any(isinstance(o, Operation) for o in g)
        ]
        assert ours == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
