"""Located verification remembers which `ge` ops passed, and re-verifies any op that changed."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    StringAttr,
    TensorType,
    f16,
    f32,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.ir.verify import verify_located
from ge_dialect.utils.errors import GeError

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


def test_an_op_like_one_that_passed_is_not_verified(monkeypatch):
    module, relu, _ = parse()
    verify_located(module)
    twin = ge.ReluOp(relu.input)  # a new op, same class, types and properties
    Rewriter.insert_op(twin, InsertPoint.after(relu))
    calls = count_verifies(monkeypatch, twin)
    verify_located(module)
    assert calls == {twin: 0}


def test_a_constant_like_one_that_passed_is_not_verified_unless_it_has_padding(monkeypatch):
    module, relu, _ = parse()
    const = ge.ConstOp(DenseIntOrFPElementsAttr.from_list(TensorType(f32, [4]), [1.0] * 4))
    padded_type = TensorType(f32, [1, 2, 1, 1], ge.FormatAttr(ge.Format.NC1HWC0))
    padded = ge.ConstOp.from_numpy(np.ones((1, 2, 1, 1), np.float32), padded_type)
    for op in (const, padded):
        Rewriter.insert_op(op, InsertPoint.before(relu))
    verify_located(module)
    twin = ge.ConstOp(const.value)  # ND: its verifier reads types only
    padded_twin = ge.ConstOp(padded.value, padded_type)  # NC1HWC0: it reads the padding
    for op in (twin, padded_twin):
        Rewriter.insert_op(op, InsertPoint.before(relu))
    calls = count_verifies(monkeypatch, twin, padded_twin)
    verify_located(module)
    assert calls == {twin: 0, padded_twin: 1}


def test_a_constant_with_nonzero_padding_fails_and_nan_in_data_lanes_passes():
    padded_type = TensorType(f32, [1, 2, 1, 1], ge.FormatAttr(ge.Format.NC1HWC0))
    nan_data = ge.ConstOp.from_numpy(np.full((1, 2, 1, 1), np.nan, np.float32), padded_type)
    nan_data.verify()  # NaN in the two logical lanes, zeros in the 14 padding lanes
    physical = np.zeros((1, 1, 1, 1, 16), np.float32)
    physical[..., 5] = 1.0  # a padding lane (C = 2)
    bad = ge.ConstOp(
        DenseIntOrFPElementsAttr.from_list(
            TensorType(f32, physical.shape), physical.ravel().tolist()
        ),
        padded_type,
    )
    with pytest.raises(VerifyException, match="nonzero padding lanes"):
        bad.verify()


TWO_FUNCTIONS = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
func.func @g(%y: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %y : tensor<4xf32>
  func.return %a : tensor<4xf32>
}
"""


def test_an_unchanged_function_is_not_verified_twice_and_isolation_is_still_checked(
    monkeypatch,
):
    """A `func.func` that passed is not verified again while its properties and arguments
    stay; the one rule of its verifier that reads its body (`IsolatedFromAbove`: no value
    from outside) is `check_dominance`'s then, which `verify_module` runs after it."""
    from ge_dialect.ir.verify import verify_module

    module = LocatingParser(make_context(), TWO_FUNCTIONS, "m.mlir").parse_module()
    f, g = module.ops
    assert isinstance(f, func.FuncOp) and isinstance(g, func.FuncOp)
    verify_located(module)
    calls = count_verifies(monkeypatch, f, g)
    verify_located(module)
    assert calls == {f: 0, g: 0}
    (relu,) = (op for op in g.walk() if isinstance(op, ge.ReluOp))
    relu.operands[0] = f.body.block.args[0]  # a value of another function
    with pytest.raises(GeError, match=r"m.mlir:6:3: error: 'ge.relu' op operand #0 does not "):
        verify_module(module)
    assert calls == {f: 0, g: 0}
    relu.operands[0] = g.body.block.args[0]
    g.properties["sym_name"] = StringAttr("h")
    verify_located(module)
    assert calls[g] == 1


def test_the_memory_of_verification_does_not_keep_a_module_alive():
    """`_VERIFIED` is a weak dictionary: its keys (functions included) must not hold their
    op, or a verified module would never be freed."""
    import gc
    import weakref

    module = LocatingParser(make_context(), TWO_FUNCTIONS, "m.mlir").parse_module()
    verify_located(module)
    f = weakref.ref(next(iter(module.ops)))
    del module
    gc.collect()
    assert f() is None
