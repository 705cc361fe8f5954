"""Located verification remembers which `ge` ops passed, and re-verifies any op that changed."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import FloatAttr, TensorType, f16, f32
from xdsl.rewriter import Rewriter

from ge_dialect import ge, stream
from ge_dialect.diagnostics import GeError, LocatingParser, verify_located
from ge_dialect.dialects import make_context

TEXT = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
"""


def parse():
    module = LocatingParser(make_context(), TEXT, "m.mlir").parse_module()
    relu, sigmoid = (op for op in module.walk() if op.name.startswith("ge."))
    return module, relu, sigmoid


def count_verifies(monkeypatch, *ops):
    calls = {op: 0 for op in ops}
    for op in ops:
        original = op.verify

        def counting(*args, op=op, original=original, **kwargs):
            calls[op] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(op, "verify", counting)
    return calls


def test_an_unchanged_op_is_not_verified_twice(monkeypatch):
    module, relu, sigmoid = parse()
    verify_located(module)
    calls = count_verifies(monkeypatch, relu, sigmoid)
    relu.attributes[stream.ID] = stream.StreamIdAttr(0)  # discardable: not read by verify_
    verify_located(module)
    assert calls == {relu: 0, sigmoid: 0}


def test_a_changed_type_is_verified_again():
    module, relu, _ = parse()
    verify_located(module)
    Rewriter.replace_value_with_new_type(relu.results[0], TensorType(f16, [4]))  # != input's
    with pytest.raises(GeError, match="'ge.relu' op"):
        verify_located(module)


def test_a_changed_property_is_verified_again():
    module = LocatingParser(
        make_context(),
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %a = ge.leaky_relu %x alpha 2.0e-01 : tensor<4xf32>\n"
        "  func.return %a : tensor<4xf32>\n}\n",
        "m.mlir",
    ).parse_module()
    verify_located(module)
    (leaky,) = (op for op in module.walk() if isinstance(op, ge.LeakyReluOp))
    leaky.properties["alpha"] = FloatAttr(float("inf"), f32)
    with pytest.raises(GeError, match="alpha must be finite"):
        verify_located(module)


def test_an_op_that_ends_its_block_is_always_verified():
    module, relu, sigmoid = parse()
    verify_located(module)
    ret = sigmoid.next_op
    assert ret is not None
    ret.detach()  # the sigmoid now ends the function body: not a terminator
    with pytest.raises(GeError, match="not a terminator"):
        verify_located(module)
