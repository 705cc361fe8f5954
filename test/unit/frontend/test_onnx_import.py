"""The ONNX importer against onnxruntime: every supported op and attribute form, and errors.

Each test builds a tiny model with `onnx.helper`, imports it with `import_onnx`, runs the
reference interpreter on the module and compares with onnxruntime (graph optimisations
off) under docs/architecture.md's tolerances (`assert_close`); data movement compares exactly.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import pytest
from helpers import onnx_ref
from helpers.support import assert_close, assert_exact
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import NameLoc, StringAttr, TensorType, UnknownLoc
from xdsl.printer import Printer

from ge_dialect.frontend import import_onnx
from ge_dialect.ir.interpreter import run_function
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.utils.errors import GeError

F32, F16 = np.float32, np.float16


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def make(nodes: Sequence[onnx.NodeProto], inputs: Mapping[str, np.ndarray],
         outputs: Sequence[str] | Mapping[str, object],
         inits: Mapping[str, np.ndarray] | None = None,
         opset: int = 17, input_dims: Mapping[str, Sequence] | None = None,
         check: bool = True) -> onnx.ModelProto:
    """A model; `input_dims` overrides an input's declared dims (symbolic names allowed)."""
    first = np.asarray(next(iter(inputs.values()))).dtype if inputs else np.dtype(F32)
    if not isinstance(outputs, Mapping):
        outputs = {name: first for name in outputs}
    dims = dict(input_dims or {})
    graph = helper.make_graph(
        list(nodes), "g",
        [helper.make_tensor_value_info(k, onnx_ref.elem_type(np.asarray(v).dtype),
                                       dims.get(k, np.shape(v))) for k, v in inputs.items()],
        [helper.make_tensor_value_info(k, onnx_ref.elem_type(dt), None)
         for k, dt in outputs.items()],
        initializer=[numpy_helper.from_array(np.ascontiguousarray(v), k)
                     for k, v in (inits or {}).items()],
    )
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = max(helper.find_min_ir_version_for(opsets), 7)
    if check:  # the model is valid ONNX (onnxruntime validates it again)
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    return model


def ort(model: onnx.ModelProto, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    names = [o.name for o in model.graph.output]
    return onnx_ref._session(model).run(names, {k: np.ascontiguousarray(v)
                                                for k, v in inputs.items()})


def ours(model, inputs: Mapping[str, np.ndarray], **kw):
    module = import_onnx(model, **kw)
    return module, run_function(module, list(inputs.values()))


def check(nodes, inputs, outputs, inits=None, opset=17, exact=False, whole_model=False):
    """Imports the model, runs both sides, compares; returns the module."""
    model = make(nodes, inputs, outputs, inits, opset)
    refs = ort(model, inputs)
    module, got = ours(model, inputs)
    assert len(got) == len(refs)
    for actual, ref in zip(got, refs):
        if exact:
            assert_exact(actual, ref)
        else:
            assert_close(actual, ref, ref.dtype, whole_model=whole_model)
    return module


def ops_of(module) -> list:
    return [op for op in module.walk() if op.name.startswith("ge.")]


def op_names(module) -> list[str]:
    return [op.name for op in ops_of(module)]


def rng(seed=0):
    return np.random.default_rng(seed)


def u(shape, dtype=F32, seed=0, lo=-1.0, hi=1.0):
    return rng(seed).uniform(lo, hi, shape).astype(dtype)


def wts(shape, dtype=F32, seed=1):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
    return rng(seed).normal(0.0, (1.0 / fan_in) ** 0.5, shape).astype(dtype)


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name or f"{op.lower()}_node", **attrs)


def import_error(model, **kw) -> str:
    with pytest.raises(GeError) as e:
        import_onnx(model, **kw)
    text = str(e.value)
    assert "\n" not in text, text
    return text


# --------------------------------------------------------------------------------------
# Conv
# --------------------------------------------------------------------------------------

# name: (x shape, w shape, attrs)
CONV_CASES: dict[str, tuple[tuple[int, ...], tuple[int, ...], dict[str, object]]] = {
    "plain": ((1, 3, 6, 6), (4, 3, 3, 3), dict(pads=[1, 1, 1, 1])),
    "no_attrs": ((1, 3, 5, 5), (2, 3, 3, 3), {}),
    "asym_pads": ((1, 2, 6, 7), (3, 2, 2, 3), dict(pads=[2, 1, 0, 3])),
    "asym_pads2": ((1, 2, 5, 5), (2, 2, 3, 3), dict(pads=[0, 3, 2, 1], strides=[2, 1])),
    "strides2": ((2, 3, 9, 8), (4, 3, 3, 3), dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    "same_upper": ((1, 3, 8, 7), (4, 3, 3, 3), dict(auto_pad="SAME_UPPER", strides=[2, 2])),
    "same_lower": ((1, 3, 8, 7), (4, 3, 3, 3), dict(auto_pad="SAME_LOWER", strides=[2, 2])),
    "same_upper_even_k": ((1, 2, 6, 6), (2, 2, 4, 2), dict(auto_pad="SAME_UPPER")),
    "same_lower_even_k": ((1, 2, 6, 6), (2, 2, 4, 2), dict(auto_pad="SAME_LOWER")),
    "valid": ((1, 3, 7, 6), (2, 3, 3, 3), dict(auto_pad="VALID", strides=[2, 2])),
    "dilated": ((1, 3, 9, 8), (2, 3, 3, 3), dict(pads=[2, 2, 2, 2], dilations=[2, 2])),
    "grouped": ((1, 4, 6, 5), (6, 2, 3, 3), dict(group=2, pads=[1, 0, 1, 2])),
    "depthwise": ((1, 4, 7, 7), (4, 1, 3, 3), dict(group=4, pads=[1, 1, 1, 1])),
    "depthwise_x2": ((1, 3, 5, 5), (6, 1, 3, 3), dict(group=3, strides=[2, 2])),
    "kernel_shape": ((1, 2, 5, 6), (3, 2, 1, 3), dict(kernel_shape=[1, 3], pads=[0, 1, 0, 1])),
}


@pytest.mark.parametrize("case", sorted(CONV_CASES))
@pytest.mark.parametrize("bias", [False, True])
def test_conv(case, bias):
    x_shape, w_shape, attrs = CONV_CASES[case]
    inits = {"w": wts(w_shape)}
    if bias:
        inits["b"] = u(w_shape[0], seed=3)
    ins = ["x", "w"] + (["b"] if bias else [])
    module = check([node("Conv", ins, ["y"], **attrs)], {"x": u(x_shape)}, ["y"], inits)
    (conv,) = [op for op in ops_of(module) if op.name == "ge.conv2d"]
    assert (conv.bias is not None) == bias


def test_conv_pads_reordered_to_ge_order():
    # ONNX [top, left, bottom, right] = [1, 2, 3, 0] is GE [top, bottom, left, right] = [1, 3, 2, 0]
    model = make([node("Conv", ["x", "w"], ["y"], pads=[1, 2, 3, 0])], {"x": u((1, 1, 4, 4))},
                 ["y"], {"w": wts((1, 1, 2, 2))})
    (conv,) = [op for op in ops_of(import_onnx(model)) if op.name == "ge.conv2d"]
    assert list(conv.pads.get_values()) == [1, 3, 2, 0]


@pytest.mark.parametrize("auto_pad, pads", [("SAME_UPPER", [0, 1, 1, 1]),
                                            ("SAME_LOWER", [1, 0, 1, 1])])
def test_same_pads_are_explicit(auto_pad, pads):
    # H = 8, k = 3, s = 2: out 4, total pad 1 (odd: the extra one goes last for SAME_UPPER);
    # W = 7: out 4, total pad 2.
    model = make([node("Conv", ["x", "w"], ["y"], auto_pad=auto_pad, strides=[2, 2])],
                 {"x": u((1, 1, 8, 7))}, ["y"], {"w": wts((1, 1, 3, 3))})
    (conv,) = [op for op in ops_of(import_onnx(model)) if op.name == "ge.conv2d"]
    assert list(conv.pads.get_values()) == pads


@pytest.mark.parametrize("auto_pad, pads", [("SAME_UPPER", [1, 2, 2, 2]),
                                            ("SAME_LOWER", [2, 2, 1, 2])])
def test_dilated_same_conv(auto_pad, pads):
    # onnxruntime refuses dilations with SAME: compare with its explicit-pads equivalent.
    # H: k 2, dilation 3 -> extent 4, total pad 3 (odd); W: k 3, dilation 2 -> extent 5,
    # total pad 4.  ONNX pads are [t, l, b, r].
    x, w = u((1, 3, 9, 8)), wts((2, 3, 2, 3))
    model = make([node("Conv", ["x", "w"], ["y"], auto_pad=auto_pad, dilations=[3, 2])],
                 {"x": x}, ["y"], {"w": w})
    explicit = make([node("Conv", ["x", "w"], ["y"], pads=pads, dilations=[3, 2])],
                    {"x": x}, ["y"], {"w": w})
    (y,) = run_function(import_onnx(model), [x])
    assert_close(y, ort(explicit, {"x": x})[0], F32)


def test_conv_f16():
    check([node("Conv", ["x", "w", "b"], ["y"], pads=[1, 0, 0, 1], group=2)],
          {"x": u((1, 4, 5, 5), F16)}, ["y"], {"w": wts((4, 2, 3, 3), F16), "b": u(4, F16)})


def test_conv_with_runtime_weight():
    check([node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
          {"x": u((1, 2, 4, 4)), "w": wts((3, 2, 3, 3))}, ["y"])


# --------------------------------------------------------------------------------------
# BatchNormalization and activations
# --------------------------------------------------------------------------------------


def bn_params(c, dtype=F32):
    r = rng(5)
    return {"s": r.uniform(0.5, 1.5, c).astype(dtype), "o": r.uniform(-1, 1, c).astype(dtype),
            "m": r.uniform(-1, 1, c).astype(dtype), "v": r.uniform(0.1, 10, c).astype(dtype)}


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3), (2, 3, 5)])
@pytest.mark.parametrize("opset", [11, 15])
def test_batch_norm(shape, opset):
    module = check([node("BatchNormalization", ["x", "s", "o", "m", "v"], ["y"], epsilon=1e-3)],
                   {"x": u(shape)}, ["y"], bn_params(shape[1]), opset=opset)
    assert "ge.batch_norm" in op_names(module)


def test_batch_norm_f16():
    check([node("BatchNormalization", ["x", "s", "o", "m", "v"], ["y"])],
          {"x": u((1, 4, 3, 3), F16)}, ["y"], bn_params(4, F16))


@pytest.mark.parametrize("op, attrs, ge_op", [
    ("Relu", {}, "ge.relu"),
    ("Sigmoid", {}, "ge.sigmoid"),
    ("LeakyRelu", {}, "ge.leaky_relu"),
    ("LeakyRelu", {"alpha": 0.2}, "ge.leaky_relu"),
])
@pytest.mark.parametrize("dtype", [F32, F16])
def test_activations(op, attrs, ge_op, dtype):
    module = check([node(op, ["x"], ["y"], **attrs)], {"x": u((2, 3, 4), dtype, lo=-4, hi=4)},
                   ["y"], exact=op == "Relu")
    assert op_names(module) == [ge_op]


def test_leaky_relu_default_alpha():
    model = make([node("LeakyRelu", ["x"], ["y"])], {"x": u((4,))}, ["y"])
    (op,) = ops_of(import_onnx(model))
    assert op.alpha.value.data == pytest.approx(0.01)


# --------------------------------------------------------------------------------------
# Clip
# --------------------------------------------------------------------------------------

LOWEST, HIGHEST = float(np.finfo(F32).min), float(np.finfo(F32).max)


@pytest.mark.parametrize("opset", [11, 13, 21])
@pytest.mark.parametrize("bounds, expected", [
    ((-0.5, 0.25), (-0.5, 0.25)),
    ((-0.5, None), (-0.5, HIGHEST)),
    ((None, 0.25), (LOWEST, 0.25)),
    ((None, None), (LOWEST, HIGHEST)),
    ((0.0, 6.0), (0.0, 6.0)),
    ((-np.inf, np.inf), (LOWEST, HIGHEST)),
])
def test_clip_inputs(opset, bounds, expected):
    inits, ins = {}, ["x"]
    for name, value in zip(("lo", "hi"), bounds):
        if value is None:
            ins.append("")
        else:
            ins.append(name)
            inits[name] = np.array(value, F32)
    while ins[-1] == "":
        ins.pop()
    module = check([node("Clip", ins, ["y"])], {"x": u((3, 5), lo=-8, hi=8)}, ["y"], inits,
                   opset=opset, exact=True)
    (op,) = ops_of(module)  # the bounds were read at import, Clip(0, 6) stays a ge.clip
    assert op.name == "ge.clip"
    assert (op.min.value.data, op.max.value.data) == pytest.approx(expected)


@pytest.mark.parametrize("attrs, lo, hi", [
    ({"min": -0.5, "max": 0.5}, -0.5, 0.5),
    ({"min": 0.0}, 0.0, HIGHEST),
    ({"max": 6.0}, LOWEST, 6.0),
])
def test_clip_attribute_form(attrs, lo, hi):
    # The pre-11 attribute form; onnxruntime refuses opset < 11 models (and the importer
    # does too), so numpy is the reference.
    x = u((4, 6), lo=-8, hi=8)
    model = make([node("Clip", ["x"], ["y"], **attrs)], {"x": x}, ["y"], opset=11, check=False)
    module, (y,) = ours(model, {"x": x})
    (op,) = ops_of(module)
    assert (op.min.value.data, op.max.value.data) == pytest.approx((lo, hi))
    assert_exact(y, np.clip(x, np.float32(lo), np.float32(hi)))


def test_clip_f16():
    check([node("Clip", ["x", "lo", "hi"], ["y"])], {"x": u((8,), F16, lo=-3, hi=3)}, ["y"],
          {"lo": np.array(-1.1, F16), "hi": np.array(0.3, F16)}, exact=True)


def test_clip_bound_from_constant_node():
    six = numpy_helper.from_array(np.array(6.0, F32))
    check([node("Constant", [], ["six"], name="c6", value=six),
           node("Clip", ["x", "", "six"], ["y"])], {"x": u((5,), lo=0, hi=12)}, ["y"], exact=True)


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul"])
@pytest.mark.parametrize("a_shape, b_shape", [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)),
                                              ((1, 3, 1, 1), (2, 3, 4, 5)), ((3, 1), ())])
def test_binary(op, a_shape, b_shape):
    check([node(op, ["a", "b"], ["y"])], {"a": u(a_shape), "b": u(b_shape, seed=2)}, ["y"])


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul"])
def test_binary_with_constant(op):
    # A constant on either side (per-channel, as exporters write biases and scales)
    nodes = [node(op, ["x", "c"], ["t"], name="n1"), node(op, ["c2", "t"], ["y"], name="n2")]
    check(nodes, {"x": u((1, 3, 2, 2))}, ["y"], {"c": u((3, 1, 1), seed=4), "c2": u((1,), seed=5)})


def test_binary_f16():
    check([node("Add", ["a", "b"], ["y"])], {"a": u((4, 4), F16), "b": u((4,), F16, seed=1)}, ["y"])


@pytest.mark.parametrize("divisor", [np.array(4.0, F32), u((3, 1), seed=7, lo=0.5, hi=2.0),
                                     np.array([-3.0], F32)])
def test_div_by_constant(divisor):
    module = check([node("Div", ["x", "d"], ["y"])], {"x": u((2, 3, 4))}, ["y"], {"d": divisor})
    assert [n for n in op_names(module) if n != "ge.const"] == ["ge.mul"]


def test_div_f16():
    check([node("Div", ["x", "d"], ["y"])], {"x": u((2, 3), F16)}, ["y"], {"d": np.array(3.0, F16)})


# --------------------------------------------------------------------------------------
# Math functions (transformer graphs)
# --------------------------------------------------------------------------------------

# op type: (input range, the ge op)
MATH_UNARY = {
    "Exp": ((-4, 4), "ge.exp"),
    "Log": ((0.1, 8), "ge.log"),
    "Tanh": ((-4, 4), "ge.tanh"),
    "Erf": ((-3, 3), "ge.erf"),
    "Sqrt": ((0, 8), "ge.sqrt"),
    "Neg": ((-4, 4), "ge.neg"),
    "Reciprocal": ((0.25, 4), "ge.reciprocal"),
}


@pytest.mark.parametrize("op", sorted(MATH_UNARY))
@pytest.mark.parametrize("dtype", [F32, F16])
def test_math_unary(op, dtype):
    (lo, hi), ge_op = MATH_UNARY[op]
    x = u((2, 3, 5), dtype, seed=11, lo=lo, hi=hi)
    module = check([node(op, ["x"], ["y"])], {"x": x}, ["y"], opset=21)
    assert op_names(module) == [ge_op]


@pytest.mark.parametrize("approximate", [None, "none", "tanh"])
@pytest.mark.parametrize("dtype", [F32, F16])
def test_gelu_opset_20(approximate, dtype):
    attrs = {} if approximate is None else {"approximate": approximate}
    x = u((2, 3, 5), dtype, seed=12, lo=-4, hi=4)
    module = check([node("Gelu", ["x"], ["y"], **attrs)], {"x": x}, ["y"], opset=20)
    (op,) = ops_of(module)
    assert op.name == "ge.gelu" and op.approximate.data == (approximate or "none")


def test_gelu_needs_opset_20_and_a_known_approximation():
    x = {"x": u((2, 3))}
    model = make([node("Gelu", ["x"], ["y"])], x, ["y"], opset=17, check=False)
    assert import_error(model) == (
        "model: error: cannot import 1 node: 'gelu_node' (Gelu: Gelu is an opset 20 op, the "
        "model imports opset 17)"
    )
    model = make([node("Gelu", ["x"], ["y"], approximate="fast")], x, ["y"], opset=20, check=False)
    assert import_error(model) == (
        "model: error: cannot import 1 node: 'gelu_node' (Gelu: approximate 'fast' is not one "
        "of none, tanh)"
    )


@pytest.mark.parametrize("op, ge_op", [("Max", "ge.maximum"), ("Min", "ge.minimum"),
                                       ("Div", "ge.div"), ("Pow", "ge.pow")])
@pytest.mark.parametrize("b_shape", [(2, 3, 4), (4,), (3, 1)])
def test_math_binary(op, ge_op, b_shape):
    a = u((2, 3, 4), seed=13, lo=0.25, hi=3)
    b = u(b_shape, seed=14, lo=-2, hi=2)
    if op == "Div":
        b = np.where(np.abs(b) < 0.25, 1.0, b).astype(F32)
    module = check([node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, ["y"], opset=21)
    assert op_names(module) == [ge_op]


def test_math_binary_f16():
    a, b = u((3, 4), F16, seed=15, lo=0.5, hi=2), u((4,), F16, seed=16, lo=-1, hi=1)
    for op in ("Max", "Min", "Div", "Pow"):
        check([node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, ["y"], opset=17)


@pytest.mark.parametrize("exponent", [np.array(2, np.int64), np.array(0.5, F32),
                                      np.array([3.0], F16)])
def test_pow_by_a_constant_takes_the_bases_type(exponent):
    """ONNX Pow's exponent may have another type than the base (x ** 2 as an INT64 2)."""
    module = check([node("Pow", ["x", "e"], ["y"])], {"x": u((2, 3), seed=17, lo=0.5, hi=2)},
                   ["y"], {"e": exponent}, opset=15)
    const = next(op for op in ops_of(module) if op.name == "ge.const")
    assert str(const.output.type.element_type) == "f32"


def test_pow_by_a_computed_exponent_of_another_type_is_refused():
    model = make([node("Cast", ["e"], ["h"], to=TensorProto.FLOAT16),
                  node("Pow", ["x", "h"], ["y"])],
                 {"x": u((2, 3)), "e": u((2, 3), seed=1)}, ["y"], opset=15)
    assert import_error(model) == (
        "model: error: cannot import 1 node: 'pow_node' (Pow: Pow of a f32 base by a f16 "
        "exponent (a computed exponent must have the base's type))"
    )


def test_max_of_two_inputs_only():
    x = {"a": u((2, 3)), "b": u((2, 3), seed=1)}
    model = make([node("Max", ["a", "b", "a"], ["y"])], x, ["y"])
    assert import_error(model) == (
        "model: error: cannot import 1 node: 'max_node' (Max: Max of 3 inputs is not supported "
        "(only of 2))"
    )
    model = make([node("Min", ["a"], ["y"])], x, ["y"])
    assert "(Min: Min of 1 inputs is not supported (only of 2))" in import_error(model)


def test_transformer_block_ops_together():
    """LayerNorm-like arithmetic and both GELUs in one graph: mean-free here, but every new
    op in sequence, against onnxruntime."""
    nodes = [
        node("Mul", ["x", "x"], ["sq"]),
        node("Add", ["sq", "eps"], ["v"]),
        node("Sqrt", ["v"], ["s"]),
        node("Div", ["x", "s"], ["n"]),
        node("Gelu", ["n"], ["g"], name="g1"),
        node("Gelu", ["g"], ["t"], name="g2", approximate="tanh"),
        node("Neg", ["t"], ["m"]),
        node("Exp", ["m"], ["e"]),
        node("Reciprocal", ["e"], ["r"]),
        node("Log", ["r"], ["l"]),
        node("Tanh", ["l"], ["h"]),
        node("Erf", ["h"], ["f"]),
        node("Max", ["f", "n"], ["mx"]),
        node("Min", ["mx", "two"], ["mn"]),
        node("Pow", ["mn", "two"], ["y"]),
    ]
    inits = {"eps": np.array(1e-3, F32), "two": np.array(2.0, F32)}
    check(nodes, {"x": u((2, 4, 8), seed=18, lo=-3, hi=3)}, ["y"], inits, opset=20)


# --------------------------------------------------------------------------------------
# MatMul and Gemm
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 4), (4, 5)),
    ((2, 3, 4), (4, 5)),
    ((2, 1, 3, 4), (3, 4, 2)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((4,), (2, 4, 3)),
    ((2, 3, 4), (4,)),
])
@pytest.mark.parametrize("const_b", [False, True])
def test_matmul(a_shape, b_shape, const_b):
    a, b = u(a_shape), u(b_shape, seed=3)
    if const_b:
        check([node("MatMul", ["a", "b"], ["y"])], {"a": a}, ["y"], {"b": b})
    else:
        check([node("MatMul", ["a", "b"], ["y"])], {"a": a, "b": b}, ["y"])


def test_matmul_f16():
    check([node("MatMul", ["a", "b"], ["y"])], {"a": u((3, 8), F16)}, ["y"],
          {"b": wts((8, 2), F16)})


GEMM_M, GEMM_K, GEMM_N = 3, 4, 5


@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (0.5, 2.0), (-1.5, 0.0)])
@pytest.mark.parametrize("trans_a, trans_b", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("b_const", [True, False])
@pytest.mark.parametrize("c_kind", ["none", "1d_const", "2d_const", "1d_input", "2d_input"])
def test_gemm(alpha, beta, trans_a, trans_b, b_const, c_kind):
    m, k, n = GEMM_M, GEMM_K, GEMM_N
    a = u((k, m) if trans_a else (m, k))
    b = u((n, k) if trans_b else (k, n), seed=2)
    inputs = {"a": a}
    inits: dict[str, np.ndarray] = {}
    (inits if b_const else inputs)["b"] = b
    ins = ["a", "b"]
    if c_kind != "none":
        c = u((n,) if c_kind.startswith("1d") else (m, n), seed=3)
        (inits if c_kind.endswith("const") else inputs)["c"] = c
        ins.append("c")
    attrs = dict(alpha=alpha, beta=beta, transA=trans_a, transB=trans_b)
    module = check([node("Gemm", ins, ["y"], **attrs)], inputs, ["y"], inits)
    names = op_names(module)
    assert names.count("ge.matmul") == 1
    (mm,) = [op for op in ops_of(module) if op.name == "ge.matmul"]
    transposes = (mm.transpose_a is not None, mm.transpose_b is not None)
    assert transposes == (bool(trans_a), bool(trans_b))
    if b_const and c_kind != "2d_input" and (c_kind != "1d_input" or beta in (0.0, 1.0)):
        # alpha folded into B, beta into a constant C (a 1-D C becomes the bias)
        assert "ge.mul" not in names
        if c_kind == "1d_const" and beta != 0:
            assert mm.bias is not None and "ge.add" not in names


@pytest.mark.parametrize("c_shape", [(1, GEMM_N), (GEMM_M, 1), (), (1,)])
def test_gemm_broadcast_c(c_shape):
    m, k, n = GEMM_M, GEMM_K, GEMM_N
    check([node("Gemm", ["a", "b", "c"], ["y"], beta=0.5)], {"a": u((m, k))}, ["y"],
          {"b": u((k, n), seed=2), "c": u(c_shape, seed=3)})


def test_gemm_const_a_runtime_b():
    check([node("Gemm", ["a", "b"], ["y"], alpha=2.0, transA=1)], {"b": u((4, 2))}, ["y"],
          {"a": u((4, 3), seed=5)})


# --------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------

# name: (x shape, attrs)
POOL_CASES: dict[str, tuple[tuple[int, ...], dict[str, object]]] = {
    "k2s2": ((1, 2, 6, 6), dict(kernel_shape=[2, 2], strides=[2, 2])),
    "k3s2_pads": ((1, 2, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
    "asym_pads": ((1, 2, 6, 7), dict(kernel_shape=[3, 2], pads=[2, 0, 1, 1])),
    "ceil": ((1, 2, 7, 6), dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)),
    "ceil_pads": ((1, 2, 8, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 1, 1],
                                     ceil_mode=1)),
    "ceil_s3": ((2, 1, 10, 9), dict(kernel_shape=[3, 2], strides=[3, 3], pads=[1, 1, 0, 1],
                                    ceil_mode=1)),
    "same_upper": ((1, 2, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 2], auto_pad="SAME_UPPER")),
    "same_lower": ((1, 2, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 2], auto_pad="SAME_LOWER")),
    "valid": ((1, 2, 7, 8), dict(kernel_shape=[3, 3], strides=[2, 1], auto_pad="VALID")),
    "same_ceil": ((1, 2, 7, 8), dict(kernel_shape=[2, 3], strides=[2, 3], auto_pad="SAME_UPPER",
                                     ceil_mode=1)),
    "rect_strides": ((1, 3, 9, 5), dict(kernel_shape=[2, 3], strides=[3, 1], pads=[0, 1, 1, 1])),
}


@pytest.mark.parametrize("case", sorted(POOL_CASES))
@pytest.mark.parametrize("opset", [11, 19])
def test_max_pool(case, opset):
    shape, attrs = POOL_CASES[case]
    module = check([node("MaxPool", ["x"], ["y"], **attrs)], {"x": u(shape)}, ["y"],
                   opset=opset, exact=True)
    assert op_names(module) == ["ge.max_pool"]


def test_max_pool_f16():
    check([node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
          {"x": u((1, 2, 5, 5), F16)}, ["y"], exact=True)


@pytest.mark.parametrize("case", sorted(POOL_CASES))
@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_avg_pool(case, count_include_pad):
    shape, attrs = POOL_CASES[case]
    module = check([node("AveragePool", ["x"], ["y"], count_include_pad=count_include_pad,
                         **attrs)], {"x": u(shape)}, ["y"])
    (op,) = ops_of(module)
    assert (op.count_include_pad is not None) == bool(count_include_pad)
    assert (op.ceil_mode is not None) == bool(attrs.get("ceil_mode", 0))


def test_avg_pool_opset19_dilations_one():
    check([node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[1, 1])],
          {"x": u((1, 1, 4, 4))}, ["y"], opset=19)


@pytest.mark.parametrize("dtype", [F32, F16])
def test_global_avg_pool(dtype):
    check([node("GlobalAveragePool", ["x"], ["y"])], {"x": u((2, 3, 5, 4), dtype)}, ["y"])


# --------------------------------------------------------------------------------------
# Shape ops, Softmax, Identity, Constant, Cast
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(axis):
    check([node("Concat", ["a", "b", "c"], ["y"], axis=axis)],
          {"a": u((2, 3, 4)), "b": u((2, 3, 4), seed=1)}, ["y"], {"c": u((2, 3, 4), seed=2)},
          exact=True)


def test_concat_channels():
    check([node("Concat", ["a", "b"], ["y"], axis=1)],
          {"a": u((1, 2, 3, 3)), "b": u((1, 5, 3, 3), seed=1)}, ["y"], exact=True)


@pytest.mark.parametrize("shape, target, allowzero, opset", [
    ((2, 3, 4), [0, -1], 0, 13),
    ((2, 3, 4), [-1, 4], 0, 11),
    ((2, 3, 4), [0, 0, 2, 2], 0, 13),
    ((2, 3, 4), [4, 0, -1], 0, 14),
    ((1, 8, 1, 1), [1, 8], 0, 17),
    ((2, 3, 4), [3, -1], 1, 14),
    ((2, 3, 4), [24], 1, 21),
])
def test_reshape(shape, target, allowzero, opset):
    attrs = {"allowzero": allowzero} if opset >= 14 else {}
    check([node("Reshape", ["x", "s"], ["y"], **attrs)], {"x": u(shape)}, ["y"],
          {"s": np.array(target, np.int64)}, opset=opset, exact=True)


def test_reshape_allowzero_keeps_zero():
    # allowzero = 1: the 0 is a literal zero dim, so [2, 3, 4] cannot become [0, 24]
    model = make([node("Reshape", ["x", "s"], ["y"], name="r0", allowzero=1)], {"x": u((2, 3, 4))},
                 ["y"], {"s": np.array([0, 24], np.int64)}, opset=14)
    assert "'r0' (Reshape: cannot reshape [2, 3, 4] to [0, 24])" in import_error(model)
    # ... while without allowzero the 0 copies dim 0
    model = make([node("Reshape", ["x", "s"], ["y"])], {"x": u((2, 3, 4))}, ["y"],
                 {"s": np.array([0, 12], np.int64)}, opset=14)
    assert ops_of(import_onnx(model))[0].output.type.get_shape() == (2, 12)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -3])
def test_flatten(axis):
    check([node("Flatten", ["x"], ["y"], axis=axis)], {"x": u((2, 3, 4, 5))}, ["y"], exact=True)


def test_flatten_default_axis():
    module = check([node("Flatten", ["x"], ["y"])], {"x": u((2, 3, 4))}, ["y"], exact=True)
    assert op_names(module) == ["ge.flatten"]


@pytest.mark.parametrize("perm", [None, [0, 2, 1], [2, 0, 1]])
def test_transpose(perm):
    attrs = {} if perm is None else {"perm": perm}
    check([node("Transpose", ["x"], ["y"], **attrs)], {"x": u((2, 3, 4))}, ["y"], exact=True)


@pytest.mark.parametrize("opset", [11, 13, 21])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, -2])
def test_softmax_3d(opset, axis):
    attrs = {} if axis is None else {"axis": axis}
    check([node("Softmax", ["x"], ["y"], **attrs)], {"x": u((2, 3, 4), lo=-3, hi=3)}, ["y"],
          opset=opset)


def test_softmax_semantics_differ_before_opset_13():
    x = u((2, 3, 4), lo=-3, hi=3)
    old = make([node("Softmax", ["x"], ["y"], axis=1)], {"x": x}, ["y"], opset=11)
    new = make([node("Softmax", ["x"], ["y"], axis=1)], {"x": x}, ["y"], opset=13)
    m_old, (y_old,) = ours(old, {"x": x})
    m_new, (y_new,) = ours(new, {"x": x})
    assert op_names(m_old) == ["ge.flatten", "ge.softmax", "ge.reshape"]
    assert op_names(m_new) == ["ge.softmax"]
    np.testing.assert_allclose(y_old.reshape(2, 12).sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(y_new.sum(axis=1), 1.0, rtol=1e-5)
    assert not np.allclose(y_old, y_new)


def test_softmax_f16():
    check([node("Softmax", ["x"], ["y"])], {"x": u((3, 7), F16, lo=-4, hi=4)}, ["y"])


def test_identity():
    module = check([node("Identity", ["x"], ["y"])], {"x": u((2, 3))}, ["y"], exact=True)
    assert op_names(module) == ["ge.identity"]


def test_identity_of_initializer_and_constant_nodes():
    nodes = [
        node("Identity", ["w"], ["w2"], name="id"),
        node("Constant", [], ["k"], name="k1", value=numpy_helper.from_array(u((3,), seed=9))),
        node("Constant", [], ["f"], name="k2", value_float=0.5),
        node("Constant", [], ["fs"], name="k3", value_floats=[1.0, 2.0, 3.0]),
        node("Constant", [], ["shape"], name="k4", value_ints=[3, 2]),
        node("Add", ["x", "w2"], ["t0"], name="a0"),
        node("Mul", ["t0", "k"], ["t1"], name="a1"),
        node("Mul", ["t1", "f"], ["t2"], name="a2"),
        node("Add", ["t2", "fs"], ["t3"], name="a3"),
        node("Reshape", ["t3", "shape"], ["y"], name="a4"),
    ]
    check(nodes, {"x": u((2, 3))}, ["y"], {"w": u((3,), seed=8)})


@pytest.mark.parametrize("src, dst", [(F32, F16), (F16, F32), (F32, F32), (F16, F16)])
def test_cast(src, dst):
    to = onnx_ref.elem_type(dst)
    module = check([node("Cast", ["x"], ["y"], to=to)], {"x": u((3, 4), src, lo=-70000, hi=70000)
                                                         if src == F32 else u((3, 4), src)},
                   {"y": dst}, exact=True)
    assert op_names(module) == (["ge.identity"] if src == dst else ["ge.cast"])


def test_cast_of_constant_folds():
    nodes = [node("Cast", ["w"], ["w16"], to=TensorProto.FLOAT16), node("Add", ["x", "w16"], ["y"])]
    module = check(nodes, {"x": u((4,), F16)}, ["y"], {"w": u((4,), seed=2)})
    assert op_names(module) == ["ge.const", "ge.add"]


# --------------------------------------------------------------------------------------
# Opsets, names, locations
# --------------------------------------------------------------------------------------


def small_net_nodes():
    return [
        node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c", "s", "o", "m", "v"], ["bn"], name="bn"),
        node("Relu", ["bn"], ["r"], name="relu"),
        node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        node("Flatten", ["p"], ["f"], name="flatten"),
        node("Gemm", ["f", "fc_w", "fc_b"], ["g"], name="fc", transB=1),
        node("Softmax", ["g"], ["prob"], name="softmax"),
    ]


def small_net_inits():
    return {"w": wts((4, 3, 3, 3)), "b": u(4, seed=2), **bn_params(4),
            "fc_w": wts((5, 16), seed=3), "fc_b": u(5, seed=4)}


@pytest.mark.parametrize("opset", [11, 13, 17, 21])
def test_opsets(opset):
    module = check(small_net_nodes(), {"x": u((2, 3, 4, 4))}, ["prob"], small_net_inits(),
                   opset=opset)
    assert "ge.batch_norm" in op_names(module)


def test_locations_and_names():
    nodes = small_net_nodes()
    nodes.append(helper.make_node("Relu", ["prob"], ["out"]))  # unnamed: Relu_<index>
    model = make(nodes, {"x": u((2, 3, 4, 4))}, ["out", "g"], small_net_inits())
    module = import_onnx(model)
    (fn,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    # initializers are not arguments; arguments and results carry the ONNX names
    assert fn.arg_attrs is not None and fn.res_attrs is not None
    assert [a.data["ge.name"] for a in fn.arg_attrs.data] == [StringAttr("x")]
    assert [a.data["ge.name"] for a in fn.res_attrs.data] == [StringAttr("out"), StringAttr("g")]
    assert fn.body.block.args[0].name_hint == "x"
    locs: dict[str, list[str]] = {}
    for op in ops_of(module):
        assert isinstance(op.location, NameLoc), op
        assert isinstance(op.location.location, UnknownLoc)
        locs.setdefault(op.location.desc.data, []).append(op.name)
    assert locs["conv"] == ["ge.conv2d"]
    assert locs["bn"] == ["ge.batch_norm"]
    assert locs["relu"] == ["ge.relu"]
    assert locs["pool"] == ["ge.max_pool"]
    assert locs["fc"] == ["ge.matmul"]
    assert locs["softmax"] == ["ge.softmax"]
    assert locs["Relu_7"] == ["ge.relu"]
    assert locs["w"] == ["ge.const"]  # an initializer's constant is located at its name
    # SSA names come from the ONNX tensor names
    conv = next(op for op in ops_of(module) if op.name == "ge.conv2d")
    assert conv.output.name_hint == "c"


def test_locations_of_multi_op_nodes():
    model = make([node("Softmax", ["x"], ["y"], name="sm", axis=1)], {"x": u((2, 3, 4))}, ["y"],
                 opset=11)
    module = import_onnx(model)
    assert [op.location.desc.data for op in ops_of(module)] == ["sm", "sm", "sm"]


def test_printed_module_parses_back():
    module = import_onnx(make(small_net_nodes(), {"x": u((2, 3, 4, 4))}, ["prob"],
                              small_net_inits()))
    text = io.StringIO()
    Printer(stream=text, print_debuginfo=True).print_op(module)
    assert 'loc("conv"' in text.getvalue()
    parsed = LocatingParser(make_context(), text.getvalue(), "t.mlir").parse_module()
    parsed.verify()
    x = u((2, 3, 4, 4))
    assert_exact(run_function(parsed, [x])[0], run_function(module, [x])[0])


def test_file_path_and_function_name(tmp_path):
    model = make(small_net_nodes(), {"x": u((2, 3, 4, 4))}, ["prob"], small_net_inits())
    path = tmp_path / "net.onnx"
    onnx.save(model, str(path))
    for arg in (path, str(path)):
        module = import_onnx(arg, name="net")
        (fn,) = module.ops
        assert isinstance(fn, func.FuncOp) and fn.sym_name.data == "net"


def test_serialized_bytes():
    model = make(small_net_nodes(), {"x": u((2, 3, 4, 4))}, ["prob"], small_net_inits())
    x = u((2, 3, 4, 4))
    (y,) = run_function(import_onnx(model.SerializeToString()), [x])
    assert_close(y, ort(model, {"x": x})[0], F32)
    assert import_error(b"\x00\x01garbage").startswith("model: error: not a valid ONNX model (")


def test_external_data(tmp_path):
    inits = {"w": wts((8, 3, 3, 3)), "b": u(8, seed=2)}
    model = make([node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1])], {"x": u((1, 3, 4, 4))},
                 ["y"], inits)
    x = u((1, 3, 4, 4))
    (ref,) = ort(model, {"x": x})
    path = tmp_path / "ext.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="ext.data", size_threshold=0)
    assert (tmp_path / "ext.data").exists()
    (y,) = run_function(import_onnx(path), [x])
    assert_close(y, ref, F32)


# --------------------------------------------------------------------------------------
# Symbolic dims and input shapes
# --------------------------------------------------------------------------------------


def symbolic_model():
    return make([node("Relu", ["x"], ["y"])], {"x": u((1, 3, 4, 4))}, ["y"],
                input_dims={"x": ["N", 3, None, 4]})


def test_unbound_symbolic_dims():
    text = import_error(symbolic_model())
    assert text.startswith("model: error: input 'x' has unbound dims 0 ('N'), 2 (unknown)")
    assert "--input-shape x=" in text


def test_input_shapes_bind_symbolic_dims():
    module = import_onnx(symbolic_model(), input_shapes={"x": [2, 3, 5, 4]})
    (fn,) = module.ops
    assert isinstance(fn, func.FuncOp)
    x_type = fn.function_type.inputs.data[0]
    assert isinstance(x_type, TensorType) and x_type.get_shape() == (2, 3, 5, 4)
    x = u((2, 3, 5, 4))
    assert_exact(run_function(module, [x])[0], np.maximum(x, 0))


@pytest.mark.parametrize("shapes, message", [
    ({"x": [2, 4, 5, 4]}, "has 4 at dim 1, but the model fixes it to 3"),
    ({"x": [2, 3, 5]}, "has rank 3, but the model's input has rank 4"),
    ({"x": [2, 3, 0, 4]}, "must be positive integers"),
    ({"x": [2, 3, 5, 4], "z": [1]}, "given for 'z', which is not a graph input"),
])
def test_bad_input_shapes(shapes, message):
    assert message in import_error(symbolic_model(), input_shapes=shapes)


def test_unknown_rank_input_needs_a_shape():
    model = make([node("Relu", ["x"], ["y"])], {"x": u((2, 2))}, ["y"])
    model.graph.input[0].type.tensor_type.ClearField("shape")
    assert "input 'x' has no shape" in import_error(model)
    fn = import_onnx(model, input_shapes={"x": (3, 2)}).ops.first
    assert isinstance(fn, func.FuncOp)
    x_type = fn.function_type.inputs.data[0]
    assert isinstance(x_type, TensorType) and x_type.get_shape() == (3, 2)


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------


def test_unsupported_ops_list_every_node(tmp_path):
    nodes = [
        node("Conv", ["x", "w"], ["c"], name="conv_a"),
        node("Foo", ["c"], ["f"], name="x_foo"),
        node("Relu", ["f"], ["r"], name="relu_after"),  # downstream of a failure: not listed
        node("MaxPool", ["c"], ["p"], name="pool", kernel_shape=[2, 2], dilations=[2, 2]),
        helper.make_node("Atan", ["c"], ["t"]),
        node("Add", ["r", "t"], ["y"], name="add"),
    ]
    model = make(nodes, {"x": u((1, 1, 4, 4, 4))}, ["y"], {"w": wts((1, 1, 2, 2, 2))}, check=False)
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    text = import_error(path)
    assert text == (
        f"{path}: error: cannot import 4 nodes: 'conv_a' (Conv: 3-D convolution), "
        "'x_foo' (Foo: unsupported op), 'pool' (MaxPool: dilated pooling), "
        "'Atan_4' (Atan: unsupported op)"
    )


@pytest.mark.parametrize("op, ins, attrs, outs, reason", [
    ("MaxPool", ["x"], dict(kernel_shape=[2, 2], dilations=[1, 2]), ["y"], "dilated pooling"),
    ("MaxPool", ["x"], dict(kernel_shape=[2, 2], storage_order=1), ["y"], "storage_order=1"),
    ("MaxPool", ["x"], dict(kernel_shape=[2, 2]), ["y", "idx"], "the Indices output"),
    ("MaxPool", ["x"], dict(kernel_shape=[2]), ["y"], "1-D pooling"),
    ("AveragePool", ["x"], dict(kernel_shape=[2, 2], dilations=[2, 2]), ["y"], "dilated pooling"),
    ("MaxPool", ["x"], {}, ["y"], "missing attribute 'kernel_shape'"),
    ("Conv", ["x", "w"], dict(kernel_shape=[2]), ["y"], "1-D convolution"),
    ("Conv", ["x", "w"], dict(auto_pad="SAME"), ["y"], "auto_pad 'SAME' is not one of"),
    ("Conv", ["x", "w"], dict(pads=[1, 1, 1, 1], auto_pad="VALID"), ["y"],
     "pads together with auto_pad VALID"),
    ("Conv", ["x", "w"], dict(strides=[1.0, 1.0]), ["y"],
     "attribute 'strides' has type FLOATS, expected INTS"),
    ("Conv", ["x", "w"], dict(foo=1), ["y"], "unsupported attribute 'foo'"),
    ("Relu", ["x", "x"], {}, ["y"], "expects 1 inputs, got 2"),
    ("BatchNormalization", ["x", "s", "o", "m", "v"], dict(training_mode=1), ["y"],
     "training-mode BatchNormalization"),
    ("BatchNormalization", ["x", "s", "o", "m", "v"], {}, ["y", "rm", "rv"],
     "training-mode BatchNormalization"),
    ("Cast", ["x"], dict(to=TensorProto.INT64), ["y"], "Cast to INT64"),
    ("Cast", ["x"], dict(to=TensorProto.DOUBLE), ["y"], "Cast to DOUBLE"),
    ("Max", ["x", "x", "x"], {}, ["y"], "Max of 3 inputs is not supported (only of 2)"),
    ("Clip", ["x", "x"], {}, ["y"], "non-constant min 'x'"),
    ("Reshape", ["x", "x"], {}, ["y"], "non-constant shape 'x'"),
    ("Softmax", ["x"], dict(axis=4), ["y"], "axis 4 is out of range for rank 4"),
    ("Transpose", ["x"], dict(perm=[0, 1, 1, 2]), ["y"], "is not a permutation"),
    ("Add", ["x", "w"], {}, ["y"], "shapes [1, 2, 4, 4] and [3, 2, 2, 2] do not broadcast"),
    ("Conv", ["x", "w3"], {}, ["y"], "'ge.conv2d' op operand 'filter' has 1 input channels"),
    ("Gemm", ["x", "w"], {}, ["y"], "Gemm operands must be 2-D"),
    ("BatchNormalization", ["x", "", "o", "m", "v"], {}, ["y"], "input #1 is omitted"),
    ("MatMul", ["x", "undefined"], {}, ["y"], "input 'undefined' is not produced"),
])
def test_node_errors(op, ins, attrs, outs, reason):
    inits = {"w": wts((3, 2, 2, 2)), "w3": wts((3, 1, 2, 2)), **bn_params(2)}
    used = {k: v for k, v in inits.items() if k in ins}
    model = make([node(op, ins, outs, name="bad", **attrs)], {"x": u((1, 2, 4, 4))}, outs[:1],
                 used, check=False)
    text = import_error(model)
    assert text.startswith(f"model: error: cannot import 1 node: 'bad' ({op}: "), text
    assert reason in text, text


def test_constants_used_as_values():
    """An INT64 constant is a value of its type (an f32 + i64 add is refused by the op); a
    DOUBLE one is refused as a value."""
    model = make([node("Add", ["x", "k"], ["y"], name="add")], {"x": u((3,))}, ["y"],
                 {"k": np.array([1, 2, 3], np.int64)}, check=False)
    assert "'add' (Add: 'ge.add' op operand 'rhs' has element type i64, expected f32" in (
        import_error(model))
    model = make([node("Add", ["x", "k"], ["y"], name="add")], {"x": u((3,))}, ["y"],
                 {"k": np.array([1, 2, 3], np.float64)}, check=False)
    assert "'add' (Add: constant 'k' of type DOUBLE is used as a value" in import_error(model)


def test_other_domains_and_sparse_initializers():
    nodes = [helper.make_node("FusedConv", ["x"], ["a"], name="ms", domain="com.microsoft"),
             node("Add", ["x", "sp"], ["y"], name="add")]
    model = make(nodes, {"x": u((3,))}, ["y"], check=False)
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.0], F32), "sp"),
        numpy_helper.from_array(np.array([0], np.int64), "sp_idx"), [3]))
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    assert import_error(model) == (
        "model: error: cannot import 2 nodes: 'ms' (com.microsoft.FusedConv: unsupported op), "
        "'add' (Add: sparse initializer 'sp')"
    )


def test_unsupported_input_type():
    model = make([node("Identity", ["x"], ["y"])], {"x": np.zeros((2,), np.float64)}, ["y"])
    assert import_error(model) == (
        "model: error: input 'x' has element type DOUBLE; only FLOAT, FLOAT16, INT64, INT32 and "
        "BOOL inputs are supported"
    )


@pytest.mark.parametrize("opset", [10, 22])
def test_unsupported_opset(opset):
    model = make([node("Relu", ["x"], ["y"])], {"x": u((2,))}, ["y"], opset=opset, check=False)
    assert import_error(model) == f"model: error: opset {opset} is not supported (11 to 21)"


def test_truncated_file(tmp_path):
    model = make(small_net_nodes(), {"x": u((2, 3, 4, 4))}, ["prob"], small_net_inits())
    data = model.SerializeToString()
    path = tmp_path / "f.onnx"
    path.write_bytes(data[: len(data) // 2])
    text = import_error(path)
    assert text.startswith(f"{path}: error: not a valid ONNX model ("), text


def test_random_bytes(tmp_path):
    path = tmp_path / "r.onnx"
    path.write_bytes(rng(3).bytes(300))
    assert import_error(path).startswith(f"{path}: error: not a valid ONNX model (")


def test_text_and_empty_files(tmp_path):
    text_file = tmp_path / "t.onnx"
    text_file.write_text("module {}\n")
    assert import_error(text_file).startswith(f"{text_file}: error: not a valid ONNX model (")
    empty = tmp_path / "e.onnx"
    empty.write_bytes(b"")
    assert import_error(empty) == f"{empty}: error: not a valid ONNX model (empty file)"


def test_missing_file(tmp_path):
    path = tmp_path / "missing.onnx"
    assert import_error(path) == f"{path}: error: cannot read {path}: No such file or directory"


def test_clip_attributes_and_inputs():
    model = make([node("Clip", ["x", "lo"], ["y"], name="c", min=0.0)], {"x": u((2,))}, ["y"],
                 {"lo": np.array(0.0, F32)}, opset=11, check=False)
    assert "'c' (Clip: Clip with both min/max attributes and inputs)" in import_error(model)


def test_missing_onnx_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(GeError) as e:
        import_onnx("anything.onnx")
    assert str(e.value) == (
        "error: importing ONNX needs the 'onnx' package (pip install 'ge-opt[onnx]')"
    )


def test_graph_output_not_produced():
    model = make([node("Relu", ["x"], ["y"])], {"x": u((2,))}, ["y"], check=False)
    model.graph.output.append(helper.make_tensor_value_info("nowhere", TensorProto.FLOAT, None))
    assert "graph output 'nowhere' is not produced" in import_error(model)


# --------------------------------------------------------------------------------------
# Whole blocks
# --------------------------------------------------------------------------------------


def test_resnet_block():
    c = 8
    inits = {"w1": wts((c, c, 3, 3), seed=11), "w2": wts((c, c, 3, 3), seed=12)}
    for i in (1, 2):
        for k, v in bn_params(c).items():
            inits[f"bn{i}_{k}"] = v
    nodes = [
        node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c1"] + [f"bn1_{k}" for k in "somv"], ["b1"], name="bn1"),
        node("Relu", ["b1"], ["r1"], name="relu1"),
        node("Conv", ["r1", "w2"], ["c2"], name="conv2", auto_pad="SAME_UPPER"),
        node("BatchNormalization", ["c2"] + [f"bn2_{k}" for k in "somv"], ["b2"], name="bn2"),
        node("Add", ["b2", "x"], ["s"], name="residual"),
        node("Relu", ["s"], ["y"], name="relu2"),
    ]
    check(nodes, {"x": u((2, c, 8, 8))}, ["y"], inits, whole_model=True)


def test_mobilenet_block():
    c, e = 4, 12
    inits = {"w_exp": wts((e, c, 1, 1), seed=21), "w_dw": wts((e, 1, 3, 3), seed=22),
             "w_pw": wts((c, e, 1, 1), seed=23), "zero": np.array(0.0, F32),
             "six": np.array(6.0, F32)}
    for name, ch in (("bn0", e), ("bn1", e), ("bn2", c)):
        for k, v in bn_params(ch).items():
            inits[f"{name}_{k}"] = v
    nodes = [
        node("Conv", ["x", "w_exp"], ["e"], name="expand"),
        node("BatchNormalization", ["e"] + [f"bn0_{k}" for k in "somv"], ["eb"], name="bn0"),
        node("Clip", ["eb", "zero", "six"], ["er"], name="relu6_0"),
        node("Conv", ["er", "w_dw"], ["d"], name="depthwise", group=e, pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["d"] + [f"bn1_{k}" for k in "somv"], ["db"], name="bn1"),
        node("Clip", ["db", "zero", "six"], ["dr"], name="relu6_1"),
        node("Conv", ["dr", "w_pw"], ["p"], name="pointwise"),
        node("BatchNormalization", ["p"] + [f"bn2_{k}" for k in "somv"], ["pb"], name="bn2"),
        node("Add", ["pb", "x"], ["y"], name="residual"),
    ]
    module = check(nodes, {"x": u((1, c, 8, 8), lo=-3, hi=3)}, ["y"], inits, whole_model=True)
    clips = [op for op in ops_of(module) if op.name == "ge.clip"]
    assert len(clips) == 2 and all(op.max.value.data == 6.0 for op in clips)
    dw = next(op for op in ops_of(module) if op.location.desc.data == "depthwise")
    assert dw.groups.value.data == e
