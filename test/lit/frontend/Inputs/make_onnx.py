"""Writes a small ONNX model for the importer's lit tests: python make_onnx.py OUT.onnx KIND."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out, kind = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(0)


def init(name, shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


if kind == "block":
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv1", pads=[1, 0, 2, 1], strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["bn"], name="bn1", epsilon=1e-3),
        helper.make_node("Relu", ["bn"], ["r"], name="relu1"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool1", kernel_shape=[3, 3], strides=[2, 2],
                         auto_pad="SAME_UPPER", ceil_mode=0),
        helper.make_node("Flatten", ["p"], ["f"], name="flat"),
        helper.make_node("Gemm", ["f", "g", "gb"], ["y"], name="fc", transB=1, alpha=0.5),
    ]
    inits = [init("w", [4, 3, 3, 3]), init("s", [4]), init("b", [4]), init("m", [4]),
             numpy_helper.from_array(np.full(4, 2.0, np.float32), "v"),
             init("g", [10, 24]), init("gb", [10])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "block", [x], [y], inits)
elif kind == "unsupported":
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="ok"),
        helper.make_node("Atan", ["a"], ["b"], name="atan1"),
        helper.make_node("MaxPool", ["b"], ["c"], name="dilated", kernel_shape=[2, 2], dilations=[2, 2]),
        helper.make_node("Acos", ["c"], ["y"], name="acos1"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "bad", [x], [y])
elif kind == "math":  # the math ops of a transformer block (opset 20 for Gelu)
    nodes = [
        helper.make_node("Mul", ["x", "x"], ["sq"], name="square"),
        helper.make_node("Sqrt", ["sq"], ["s"], name="sqrt1"),
        helper.make_node("Div", ["x", "s"], ["n"], name="div1"),
        helper.make_node("Div", ["n", "d"], ["k"], name="div_const"),
        helper.make_node("Gelu", ["k"], ["g"], name="gelu_erf"),
        helper.make_node("Gelu", ["g"], ["t"], name="gelu_tanh", approximate="tanh"),
        helper.make_node("Exp", ["t"], ["e"], name="exp1"),
        helper.make_node("Log", ["e"], ["l"], name="log1"),
        helper.make_node("Tanh", ["l"], ["h"], name="tanh1"),
        helper.make_node("Erf", ["h"], ["f"], name="erf1"),
        helper.make_node("Neg", ["f"], ["m"], name="neg1"),
        helper.make_node("Reciprocal", ["m"], ["r"], name="rec1"),
        helper.make_node("Max", ["r", "x"], ["mx"], name="max1"),
        helper.make_node("Min", ["mx", "x"], ["mn"], name="min1"),
        helper.make_node("Pow", ["mn", "p"], ["y"], name="pow1"),
    ]
    inits = [numpy_helper.from_array(np.array(4.0, np.float32), "d"),
             numpy_helper.from_array(np.array(2, np.int64), "p")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "math", [x], [y], inits)
else:
    raise SystemExit(f"unknown kind {kind}")

opset = 20 if kind == "math" else 17
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
onnx.save(model, out)
