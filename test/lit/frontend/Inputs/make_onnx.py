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
elif kind == "masks":  # INT64 ids and mask; a causal bias and a scale built from shapes
    n = helper.make_node
    nodes = [
        n("Shape", ["ids"], ["shape"], name="shape1"),
        n("Gather", ["shape", "one"], ["len"], name="len1"),
        n("Range", ["zero", "len", "one"], ["pos"], name="range1"),
        n("Unsqueeze", ["pos", "axes0"], ["row"], name="row1"),
        n("Unsqueeze", ["pos", "axes1"], ["col"], name="col1"),
        n("LessOrEqual", ["row", "col"], ["causal"], name="causal1"),
        n("Not", ["causal"], ["hide"], name="hide1"),
        n("Where", ["hide", "neg", "zero_f"], ["bias"], name="bias1"),
        n("ConstantOfShape", ["shape"], ["ones"], name="ones1",
          value=numpy_helper.from_array(np.array([1], np.int64))),
        n("Size", ["ids"], ["size"], name="size1"),
        n("Div", ["size", "two"], ["half"], name="half1"),
        n("Equal", ["half", "len"], ["same"], name="same1"),
        n("Cast", ["same"], ["scale"], name="scale1", to=TensorProto.FLOAT),
        n("Squeeze", ["row", "axes0"], ["pos2"], name="squeeze1"),
        n("Cast", ["mask"], ["mask_f"], name="mask_f1", to=TensorProto.FLOAT),
        n("Sub", ["one_f", "mask_f"], ["inv"], name="inv1"),
        n("Mul", ["inv", "neg"], ["pad"], name="pad1"),
        n("Unsqueeze", ["pad", "axes1"], ["pad3"], name="pad3_1"),
        n("Gather", ["table", "ids"], ["emb"], name="emb1"),
        n("ReduceSum", ["emb", "axes_last"], ["s"], name="sum1", keepdims=1),
        n("Add", ["s", "bias"], ["b2"], name="add1"),
        n("Add", ["b2", "pad3"], ["b3"], name="add2"),
        n("Mul", ["b3", "scale"], ["y"], name="mul1"),
        n("Cast", ["ones"], ["ones_f"], name="ones_f1", to=TensorProto.FLOAT),
        n("Cast", ["pos2"], ["pos_f"], name="pos_f1", to=TensorProto.FLOAT),
        n("Add", ["ones_f", "pos_f"], ["z"], name="add3"),
    ]
    inits = [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in
             (("one", 1), ("zero", 0), ("two", 2), ("axes0", [0]), ("axes1", [1]),
              ("axes_last", [-1]))]
    inits += [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in
              (("neg", -100.0), ("zero_f", 0.0), ("one_f", 1.0))]
    inits.append(init("table", [16, 1]))
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 4])
    mask = helper.make_tensor_value_info("mask", TensorProto.INT64, [2, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "masks", [ids, mask], [y, z], inits)
else:
    raise SystemExit(f"unknown kind {kind}")

opset = 20 if kind == "math" else 17
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
onnx.save(model, out)
