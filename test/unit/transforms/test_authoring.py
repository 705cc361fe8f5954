"""The pattern-authoring API (transforms/authoring.py) and the tutorial's example patterns.

- The matchers' constraints (kinds, operands by position and name, both orders of a
  commutative op, properties, shapes with named dims, dtypes, single use, constants, a name
  bound twice), stream labels (not matched across, carried to the replacement), fused
  locations, dead ops erased, an assigned module refused, a replacement of the wrong type or
  that does not verify, a pattern that raises (a `GeError` naming the pattern and the op's
  location; through ge-opt: one line, no output), statistics, `pattern_pass` registration.
- Numbers: each example pattern (examples/patterns/) on random inputs computes the same
  outputs before and after it, in the reference interpreter and in the simulator (after
  lower-to-device and plan-memory), within docs/architecture.md's tolerances.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType

import numpy as np
import pytest
from helpers.support import ROOT, assert_close
from xdsl.dialects.builtin import FileLineColLoc, FusedLoc, ModuleOp, TensorType, f32
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils.errors import GeError
from transforms import get_all_passes
from transforms.authoring import (
    Match,
    Pattern,
    const,
    one_of,
    op,
    pattern,
    pattern_pass,
    run_patterns,
    value,
)
from transforms.reports import take_statistics


def load_example(name: str) -> ModuleType:
    """examples/patterns/<name>.py, imported from its file as a plugin is."""
    path = os.path.join(ROOT, "examples", "patterns", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"example_patterns_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MATMUL_BIAS = load_example("matmul_bias")
SILU = load_example("silu")


def parse(text: str) -> ModuleOp:
    module = api.parse(text, "t.mlir")
    api.verify(module, "t.mlir")
    return module


def names(module: ModuleOp) -> list[str]:
    return [o.name for o in module.walk() if o.name.startswith("ge.")]


def body_ops(module: ModuleOp) -> list[Operation]:
    return [o for o in module.walk() if o.name.startswith("ge.")]


MATMUL_ADD = """
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y = ge.add %m, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
"""

MUL_SIGMOID = """
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = ge.sigmoid %x LABEL_S: tensor<2x3xf32>
  %y = ge.mul %x, %s LABEL_M: (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
"""


def mul_sigmoid(label_s: str = "", label_m: str = "") -> ModuleOp:
    def attr(label: str) -> str:
        return f'{{stream.label = #stream.label<"{label}">}} ' if label else ""

    text = MUL_SIGMOID.replace("LABEL_S", attr(label_s)).replace("LABEL_M", attr(label_m))
    return parse(text)


# --------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------


def matches(matcher, text: str) -> Match | None:
    """The match of `matcher` rooted at the last `ge` op of `text`'s function."""

    class P(Pattern):
        match = matcher

        def rewrite(self, m):  # matching only: never rewrites
            return None

    return P().matches(body_ops(parse(text))[-1])


def test_chain_binds_ops_and_values_producers_first():
    m = matches(MATMUL_BIAS.MatMulBias.match, MATMUL_ADD)
    assert m is not None
    assert isinstance(m.mm, ge.MatMulOp) and isinstance(m.root, ge.AddOp)
    assert isinstance(m.bias.owner, ge.ConstOp) and m["bias"] is m.bias
    assert [o.name for o in m.ops] == ["ge.matmul", "ge.add"]
    assert m.dims == {"N": 3}
    with pytest.raises(AttributeError, match="nothing was bound to 'nope'"):
        _ = m.nope


def test_commutative_operands_are_tried_in_both_orders_unless_told_not_to():
    swapped = MATMUL_ADD.replace(
        "ge.add %m, %c : (tensor<2x3xf32>, tensor<3xf32>)",
        "ge.add %c, %m : (tensor<3xf32>, tensor<2x3xf32>)",
    )
    matcher = op(ge.AddOp, op(ge.MatMulOp), const())
    assert matches(matcher, swapped) is not None
    assert matches(op(ge.AddOp, op(ge.MatMulOp), const(), commutative=False), swapped) is None
    # ge.sub is not commutative: only the written order
    sub = swapped.replace("ge.add", "ge.sub")
    assert matches(op(ge.SubOp, op(ge.MatMulOp), const()), sub) is None
    assert matches(op(ge.SubOp, const(), op(ge.MatMulOp)), sub) is not None


def test_kinds_by_class_name_or_tuple():
    assert matches(op("ge.add", op("ge.matmul"), const()), MATMUL_ADD) is not None
    assert matches(op((ge.SubOp, ge.AddOp), op(ge.MatMulOp), None), MATMUL_ADD) is not None
    assert matches(op(ge.SubOp, op(ge.MatMulOp), const()), MATMUL_ADD) is None
    assert matches(op(ge.AddOp, op(ge.ReluOp), const()), MATMUL_ADD) is None


def test_named_operands_and_properties():
    assert matches(op(ge.AddOp, lhs=op(ge.MatMulOp, bias=None), rhs=const()), MATMUL_ADD)
    assert matches(op(ge.AddOp, lhs=const()), MATMUL_ADD) is None  # lhs is the matmul
    assert matches(op(ge.AddOp, op(ge.MatMulOp, bias=const()), const()), MATMUL_ADD) is None
    assert matches(op(ge.AddOp, op(ge.MatMulOp, transpose_b=None), None), MATMUL_ADD)
    assert matches(op(ge.AddOp, op(ge.MatMulOp, transpose_b=True), None), MATMUL_ADD) is None
    transposed = """
    func.func @main(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<2x3xf32> {
      %m = ge.matmul %a, %b transpose_b : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<2x3xf32>
      %y = ge.relu %m : tensor<2x3xf32>
      func.return %y : tensor<2x3xf32>
    }"""
    assert matches(op(ge.ReluOp, op(ge.MatMulOp, transpose_b=True)), transposed)
    leaky = """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = ge.leaky_relu %x alpha 0.25 : tensor<4xf32>
      func.return %y : tensor<4xf32>
    }"""
    assert matches(op(ge.LeakyReluOp, alpha=0.25), leaky)
    assert matches(op(ge.LeakyReluOp, alpha=0.5), leaky) is None
    assert matches(op(ge.LeakyReluOp, alpha=lambda a: a < 1), leaky)
    assert matches(op(ge.LeakyReluOp, where=lambda o: False), leaky) is None


def test_shapes_ranks_dtypes_and_named_dims():
    assert matches(op(ge.AddOp, op(ge.MatMulOp, shape=(2, 3)), const(rank=1)), MATMUL_ADD)
    assert matches(op(ge.AddOp, op(ge.MatMulOp, shape=(..., 3)), None), MATMUL_ADD)
    assert matches(op(ge.AddOp, op(ge.MatMulOp, shape=(None, 3)), None), MATMUL_ADD)
    assert matches(op(ge.AddOp, op(ge.MatMulOp, shape=(3,)), None), MATMUL_ADD) is None
    assert matches(op(ge.AddOp, op(ge.MatMulOp, shape=(..., 2, 2, 3)), None), MATMUL_ADD) is None
    assert matches(op(ge.AddOp, None, const(rank=2)), MATMUL_ADD) is None
    # a named dim must be the same everywhere
    assert matches(op(ge.AddOp, op(ge.MatMulOp, shape=("M", "N")), const(shape=("N",))), MATMUL_ADD)
    assert (
        matches(op(ge.AddOp, op(ge.MatMulOp, shape=("N", "M")), const(shape=("N",))), MATMUL_ADD)
        is None
    )
    assert matches(op(ge.AddOp, op(ge.MatMulOp, dtype="f32"), const(dtype=f32)), MATMUL_ADD)
    assert matches(op(ge.AddOp, op(ge.MatMulOp, dtype="f16"), None), MATMUL_ADD) is None
    assert matches(op(ge.AddOp, None, const(where=lambda a: a.sum() == 6)), MATMUL_ADD)
    assert matches(op(ge.AddOp, None, const(where=lambda a: a.sum() == 7)), MATMUL_ADD) is None
    with pytest.raises(ValueError, match="may only come first"):
        op(ge.AddOp, shape=(2, ...))


def test_constants_and_single_use():
    argument_bias = MATMUL_ADD.replace(
        "%b: tensor<4x3xf32>)", "%b: tensor<4x3xf32>, %c: tensor<3xf32>)"
    ).replace("  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n", "")
    assert matches(op(ge.AddOp, None, const()), argument_bias) is None
    assert matches(op(ge.AddOp, None, value(rank=1)), argument_bias)
    two_uses = MATMUL_ADD.replace(
        "-> tensor<2x3xf32> {", "-> (tensor<2x3xf32>, tensor<2x3xf32>) {"
    ).replace(
        "func.return %y : tensor<2x3xf32>", "func.return %y, %m : tensor<2x3xf32>, tensor<2x3xf32>"
    )
    assert matches(op(ge.AddOp, op(ge.MatMulOp), None), two_uses)
    assert matches(op(ge.AddOp, op(ge.MatMulOp, single_use=True), None), two_uses) is None


def test_a_name_bound_twice_is_the_same_value():
    x_times_sigmoid = SILU.MulSigmoid.match
    m = matches(x_times_sigmoid, MUL_SIGMOID.replace("LABEL_S", "").replace("LABEL_M", ""))
    assert m is not None and m.x is m.root.operands[0]
    other = """
    func.func @main(%x: tensor<2xf32>, %z: tensor<2xf32>) -> tensor<2xf32> {
      %s = ge.sigmoid %x : tensor<2xf32>
      %y = ge.mul %z, %s : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      func.return %y : tensor<2xf32>
    }"""
    assert matches(x_times_sigmoid, other) is None


def test_one_of_takes_the_first_alternative_that_matches_and_only_its_bindings():
    """An optional identity in a chain; a failed alternative leaves no binding or op."""
    x = op(ge.SigmoidOp, "x", bind="sig")
    matcher = op(ge.ReluOp, one_of(op(ge.IdentityOp, x, single_use=True, bind="id"), x))
    direct = """
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %s = ge.sigmoid %x : tensor<2xf32>
      %y = ge.relu %s : tensor<2xf32>
      func.return %y : tensor<2xf32>
    }"""
    m = matches(matcher, direct)
    assert m is not None and "id" not in m.bound
    assert [o.name for o in m.ops] == ["ge.sigmoid", "ge.relu"]
    through = direct.replace(
        "%y = ge.relu %s", "%i = ge.identity %s : tensor<2xf32>\n      %y = ge.relu %i"
    )
    m = matches(matcher, through)
    assert m is not None and isinstance(m.id, ge.IdentityOp)
    assert [o.name for o in m.ops] == ["ge.sigmoid", "ge.identity", "ge.relu"]
    # the first alternative fails after binding `x` and matching the sigmoid (its named
    # operand `a`), then at `b`: nothing of it stays
    failing = one_of(op(ge.MatMulOp, a=op(ge.SigmoidOp, "x", bind="s"), b=op(ge.TanhOp)), "any")
    two = """
    func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %s = ge.sigmoid %x : tensor<2x2xf32>
      %r = ge.relu %x : tensor<2x2xf32>
      %m = ge.matmul %s, %r : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
      %y = ge.identity %m : tensor<2x2xf32>
      func.return %y : tensor<2x2xf32>
    }"""
    m = matches(op(ge.IdentityOp, failing), two)
    assert m is not None and set(m.bound) == {"any"} and [o.name for o in m.ops] == ["ge.identity"]
    neither = direct.replace("ge.sigmoid %x", "ge.tanh %x")
    assert matches(matcher, neither) is None
    with pytest.raises(ValueError, match="one_of needs at least one alternative"):
        one_of()


# --------------------------------------------------------------------------------------
# Rewriting: labels, locations, dead ops, errors, statistics
# --------------------------------------------------------------------------------------


def test_rewrite_fuses_locations_and_erases_what_became_dead():
    module = parse(MATMUL_ADD)
    add_loc = body_ops(module)[-1].location
    mm_loc = body_ops(module)[1].location
    assert run_patterns(module, [MATMUL_BIAS.MatMulBias()], "t") == 1
    assert names(module) == ["ge.const", "ge.matmul"]
    fused = body_ops(module)[-1]
    assert isinstance(fused, ge.MatMulOp) and fused.bias is not None
    assert isinstance(fused.location, FusedLoc)
    assert list(fused.location.locations.data) == [mm_loc, add_loc]  # type: ignore[attr-defined]
    assert isinstance(mm_loc, FileLineColLoc)


def test_an_explicit_location_is_kept():
    @pattern("located-silu", op(ge.MulOp, "x", op(ge.SigmoidOp, "x", single_use=True)))
    def located(m: Match) -> Operation:
        silu = ge.SiluOp(m.x)
        silu.location = m.root.location
        return silu

    module = mul_sigmoid()
    root_loc = body_ops(module)[-1].location
    run_patterns(module, [located()], "t")
    assert body_ops(module)[-1].location == root_loc


def test_labels_carry_over_and_differing_labels_do_not_match():
    module = mul_sigmoid("1", "1")
    label = body_ops(module)[0].attributes[stream.LABEL]
    assert run_patterns(module, [SILU.MulSigmoid()], "t") == 1
    (silu,) = body_ops(module)
    assert isinstance(silu, ge.SiluOp) and silu.attributes[stream.LABEL] == label
    for labels in (("1", "2"), ("1", ""), ("", "2")):
        module = mul_sigmoid(*labels)
        assert run_patterns(module, [SILU.MulSigmoid()], "t") == 0
        assert names(module) == ["ge.sigmoid", "ge.mul"]


def test_label_of_a_builder_scope_carries_over():
    b = GraphBuilder()
    x = b.input("x", [2, 3])
    with b.stream_switch("7", stream_priority=1):
        y = b.mul(b.sigmoid(x), x, name="y")
    module = b.build([y])
    run_patterns(module, [SILU.MulSigmoid()], "t")
    (silu,) = body_ops(module)
    assert silu.attributes[stream.LABEL] == stream.LabelAttr("7", 1, True)


def test_rewrite_returning_none_declines_and_an_existing_value_replaces():
    class Never(Pattern):
        match = op(ge.MulOp, "x", op(ge.SigmoidOp, "x"))

        def rewrite(self, m: Match) -> None:
            return None

    class DropMul(Pattern):  # x * sigmoid(x) -> x (wrong maths, right types)
        match = op(ge.MulOp, "x", op(ge.SigmoidOp, "x", single_use=True))

        def rewrite(self, m: Match):
            return m.x

    module = mul_sigmoid()
    assert run_patterns(module, [Never()], "t") == 0
    assert names(module) == ["ge.sigmoid", "ge.mul"]
    assert Never.name == "never" and DropMul.name == "drop-mul"
    assert run_patterns(module, [DropMul()], "t") == 1
    assert names(module) == []  # the mul replaced, the sigmoid dead and erased


RELU_NEG = """
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %r = ge.relu %x : tensor<2x3xf32>
  %n = ge.neg %r : tensor<2x3xf32>
  %e = ge.exp %n : tensor<2x3xf32>
  func.return %r, %e : tensor<2x3xf32>, tensor<2x3xf32>
}
"""


def test_match_replace_also_replaces_a_later_op():
    class SigmoidNeg(Pattern):  # relu(x) -> sigmoid(x), and its user neg -> the same value
        match = op(ge.ReluOp, "x")

        def rewrite(self, m: Match):
            new = ge.SigmoidOp(m.x)
            neg = next(u.operation for u in m.root.results[0].uses if u.operation.name == "ge.neg")
            m.replace(neg, new.output)
            return new

    module = parse(RELU_NEG)
    assert run_patterns(module, [SigmoidNeg()], "t") == 1
    assert names(module) == ["ge.sigmoid", "ge.exp"]
    sigmoid, exp = body_ops(module)
    assert exp.operands[0] is sigmoid.results[0]


def test_match_replace_of_an_earlier_op_or_a_wrong_type_names_the_pattern():
    class Backwards(Pattern):
        match = op(ge.ExpOp, op(ge.NegOp, "x", bind="neg"))

        def rewrite(self, m: Match):
            m.replace(m.neg, m.x)
            return m.x

    class WrongType(Pattern):
        match = op(ge.NegOp, "x")

        def rewrite(self, m: Match):
            (use,) = m.root.results[0].uses
            m.replace(use.operation, m.x, m.x)
            return ge.SigmoidOp(m.x)

    with pytest.raises(GeError, match=r"t\.mlir:5:3: .*'backwards' replaces 'ge.neg', which"):
        run_patterns(parse(RELU_NEG), [Backwards()], "t")
    with pytest.raises(GeError, match=r"'wrong-type' replaces 'ge.exp' by values of types "):
        run_patterns(parse(RELU_NEG), [WrongType()], "t")


def test_assigned_module_is_refused():
    module = mul_sigmoid()
    for o in body_ops(module):
        o.attributes[stream.ID] = stream.StreamIdAttr(0)
    with pytest.raises(
        GeError,
        match=r"t\.mlir:3:3: error: 'ge.sigmoid' op is assigned to a "
        r"stream: --fuse-silu rewrites graphs before stream assignment",
    ):
        api.compile(module, "fuse-silu")


def test_wrong_result_type_names_the_pattern():
    class Wrong(Pattern):
        name = "matmul-add-bias"
        match = op(ge.AddOp, op(ge.MatMulOp, bias=None, bind="mm"), const(bind="bias"))

        def rewrite(self, m: Match) -> Operation:
            return ge.MatMulOp(m.mm.a, m.mm.a, None, TensorType(f32, [2, 2]), transpose_b=True)

    module = parse(MATMUL_ADD)
    before = str(module)
    with pytest.raises(GeError) as e:
        run_patterns(module, [Wrong()], "t")
    assert str(e.value) == (
        "t.mlir:5:3: error: 'ge.add' op pattern 'matmul-add-bias' built tensor<2x2xf32> for a "
        "value of type tensor<2x3xf32>"
    )
    assert str(module) == before  # checked before anything changed


def test_replacement_that_does_not_verify_names_the_pattern():
    class Invalid(Pattern):
        match = op(ge.AddOp, op(ge.MatMulOp, bias=None, bind="mm"), const(bind="bias"))

        def rewrite(self, m: Match) -> Operation:  # a bias of the wrong length
            assert isinstance(m.root, ge.AddOp)
            return ge.MatMulOp(m.mm.a, m.mm.b, m.mm.a, m.root.output.type)

    with pytest.raises(
        GeError,
        match=r"t\.mlir:5:3: error: 'ge.add' op pattern 'invalid' built "
        r"an invalid 'ge.matmul': operand 'bias' has type",
    ):
        run_patterns(parse(MATMUL_ADD), [Invalid()], "t")


class Raises(Pattern):
    name = "raises"
    match = op(ge.MulOp, "x", op(ge.SigmoidOp, "x"))

    def rewrite(self, m: Match) -> Operation:
        return 1 // 0  # type: ignore[return-value]


RaisingPass = pattern_pass("test-authoring-raises", [Raises], summary="Raises (a test).")


def test_raising_pattern_is_a_located_error_naming_it():
    module = mul_sigmoid()
    with pytest.raises(GeError) as e:
        api.compile(module, "test-authoring-raises")
    assert str(e.value) == (
        "t.mlir:4:3: error: 'ge.mul' op pattern 'raises' raised ZeroDivisionError: "
        "integer division or modulo by zero"
    )
    assert isinstance(e.value.__cause__, ZeroDivisionError)


def test_raising_pattern_through_ge_opt_prints_one_line_and_no_output(tmp_path, capsys):
    from ge_dialect.tools.ge_opt import main

    path = tmp_path / "in.mlir"
    path.write_text(MUL_SIGMOID.replace("LABEL_S", "").replace("LABEL_M", ""))
    assert main([str(path), "-p", "test-authoring-raises"]) != 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == [
        f"{path}:4:3: error: 'ge.mul' op pattern 'raises' raised ZeroDivisionError: "
        "integer division or modulo by zero"
    ]


def test_statistics_count_each_pattern():
    module = parse(MATMUL_ADD)
    api.compile(module, "fuse-matmul-bias,fuse-silu")
    assert take_statistics(module) == {
        "fuse-matmul-bias": {"matmul-add-bias applied": 1},
        "fuse-silu": {"mul-sigmoid-silu applied": 0},
    }


def test_pattern_pass_is_a_registered_module_pass():
    cls = MATMUL_BIAS.FuseMatMulBias
    assert issubclass(cls, ModulePass) and cls.name == "fuse-matmul-bias"
    assert get_all_passes()["fuse-matmul-bias"]() is cls
    assert (cls.__doc__ or "").startswith("Folds the addition of a constant bias")
    assert cls().spec().name == "fuse-matmul-bias"
    unregistered = pattern_pass("test-authoring-unregistered", [SILU.MulSigmoid], register=False)
    assert "test-authoring-unregistered" not in get_all_passes()
    assert unregistered.__doc__ == "Applies the patterns mul-sigmoid-silu."
    with pytest.raises(ValueError, match="same name"):
        pattern_pass("test-authoring-twice", [SILU.MulSigmoid, SILU.MulSigmoid], register=False)
    with pytest.raises(ValueError, match="built-in pass"):
        pattern_pass("fuse", [SILU.MulSigmoid])


# --------------------------------------------------------------------------------------
# Numbers: the reference interpreter and the simulator, before and after
# --------------------------------------------------------------------------------------


def outputs_both_ways(module: ModuleOp, inputs: dict[str, np.ndarray]):
    reference = api.reference(module, inputs)
    lowered = api.compile(module.clone(), "lower-to-device,plan-memory")
    simulated = api.simulate(lowered, inputs).outputs
    return reference, simulated


def check_numbers(build, pass_name: str, fused_op: str, dtype) -> None:
    rng = np.random.default_rng(0)
    module, inputs = build(rng, dtype)
    ref_before, sim_before = outputs_both_ways(module, inputs)
    api.compile(module, pass_name)
    assert fused_op in names(module)
    ref_after, sim_after = outputs_both_ways(module, inputs)
    for key, expected in ref_before.items():
        assert_close(ref_after[key], expected, dtype)
        assert_close(sim_before[key], expected, dtype)
        assert_close(sim_after[key], expected, dtype)


def matmul_add_graph(rng, dtype, bias_first: bool = False, transpose_b: bool = False):
    b = GraphBuilder()
    a = b.input("a", [2, 5, 8], np.dtype(dtype))
    w_shape = (6, 8) if transpose_b else (8, 6)
    w = b.const((rng.normal(0, 8**-0.5, w_shape)).astype(dtype))
    bias = b.const(rng.uniform(-1, 1, 6).astype(dtype))
    with b.stream_switch("1"):
        m = b.matmul(a, w, transpose_b=transpose_b)
        y = b.add(bias, m, name="y") if bias_first else b.add(m, bias, name="y")
    inputs = {"a": rng.uniform(-1, 1, (2, 5, 8)).astype(dtype)}
    return b.build([y]), inputs


def silu_graph(rng, dtype, sigmoid_first: bool = False):
    b = GraphBuilder()
    x = b.input("x", [1, 4, 3, 3], np.dtype(dtype))
    h = b.relu(x)
    s = b.sigmoid(h)
    y = b.mul(s, h, name="y") if sigmoid_first else b.mul(h, s, name="y")
    inputs = {"x": rng.uniform(-1, 1, (1, 4, 3, 3)).astype(dtype)}
    return b.build([y]), inputs


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("bias_first", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_matmul_bias_numbers(dtype, bias_first, transpose_b):
    check_numbers(
        lambda rng, dt: matmul_add_graph(rng, dt, bias_first, transpose_b),
        "fuse-matmul-bias",
        "ge.matmul",
        dtype,
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("sigmoid_first", [False, True])
def test_silu_numbers(dtype, sigmoid_first):
    check_numbers(lambda rng, dt: silu_graph(rng, dt, sigmoid_first), "fuse-silu", "ge.silu", dtype)


# --------------------------------------------------------------------------------------
# The tutorial runs as written
# --------------------------------------------------------------------------------------


def python_blocks(path: str) -> list[str]:
    with open(path) as f:
        text = f.read()
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


def test_tutorial_shows_the_example_files_and_its_code_runs(monkeypatch):
    blocks = python_blocks(os.path.join(ROOT, "docs", "patterns.md"))
    for name in ("matmul_bias", "silu"):
        with open(os.path.join(ROOT, "examples", "patterns", f"{name}.py")) as f:
            assert f.read() in blocks, f"docs/patterns.md does not show examples/patterns/{name}.py"
    monkeypatch.syspath_prepend(os.path.join(ROOT, "examples", "patterns"))
    (numbers,) = [b for b in blocks if "api.simulate" in b]
    try:
        exec(compile(numbers, "docs/patterns.md", "exec"), {})
    finally:
        sys.modules.pop("silu", None)
