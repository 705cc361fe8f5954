"""Tiny ONNX graphs run with onnxruntime: the independent reference of the interpreter tests.

Models are built in memory with `onnx.helper` and run on the CPU provider with graph
optimisations off (so onnxruntime does not fuse the reference graph into the very kernels
under test); nothing is cached on disk.

    y = run_node("Conv", [x, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    (y,) = run_graph([node, ...], {"x": x}, ["y"], initializers={"w": w})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper

OPSET = 17


def elem_type(dtype) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def _session(model: onnx.ModelProto) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(
        model.SerializeToString(), sess_options=opts, providers=["CPUExecutionProvider"]
    )


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Mapping[str, np.ndarray],
    outputs: Sequence[str] | Mapping[str, object],
    initializers: Mapping[str, np.ndarray] | None = None,
    opset: int = OPSET,
    check: bool = False,
) -> onnx.ModelProto:
    """A model of `opset` (onnxruntime validates it; with `check`, ONNX's strict shape
    inference first); `outputs` maps names to dtypes (default: the first input's dtype)."""
    first = np.asarray(next(iter(inputs.values()))).dtype
    if not isinstance(outputs, Mapping):
        outputs = {name: first for name in outputs}
    graph = helper.make_graph(
        list(nodes),
        "ref",
        [
            helper.make_tensor_value_info(k, elem_type(np.asarray(v).dtype), np.shape(v))
            for k, v in inputs.items()
        ],
        [helper.make_tensor_value_info(k, elem_type(dt), None) for k, dt in outputs.items()],
        initializer=[
            onnx.numpy_helper.from_array(np.ascontiguousarray(v), k)
            for k, v in (initializers or {}).items()
        ],
    )
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = max(helper.find_min_ir_version_for(opsets), 8)
    if check:
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    return model


def run_graph(
    nodes: Sequence[onnx.NodeProto],
    inputs: Mapping[str, np.ndarray],
    outputs: Sequence[str] | Mapping[str, object],
    initializers: Mapping[str, np.ndarray] | None = None,
) -> list[np.ndarray]:
    model = make_model(nodes, inputs, outputs, initializers)
    names = list(outputs.keys()) if isinstance(outputs, Mapping) else list(outputs)
    feed = {k: np.ascontiguousarray(v) for k, v in inputs.items()}
    return _session(model).run(names, feed)


def run_node(op_type: str, inputs: Sequence[np.ndarray | None], **attrs) -> np.ndarray:
    """Runs one node on `inputs` (None marks an omitted optional input)."""
    names = ["" if a is None else f"in{i}" for i, a in enumerate(inputs)]
    feed = {n: np.asarray(a) for n, a in zip(names, inputs) if a is not None}
    node = helper.make_node(op_type, names, ["out"], **attrs)
    (out,) = run_graph([node], feed, ["out"])
    return out


def dynamic_batch_mlp(path: str, hidden: int = 256) -> str:
    """An ONNX model y = relu(x @ w) @ w2 whose input x is N x 64, N a dim_param (saved at
    `path`, returned)."""
    rng = np.random.default_rng(0)
    proto = make_model(
        [
            helper.make_node("MatMul", ["x", "w"], ["m"]),
            helper.make_node("Relu", ["m"], ["h"]),
            helper.make_node("MatMul", ["h", "w2"], ["y"]),
        ],
        {"x": np.zeros((2, 64), np.float32)},
        ["y"],
        {
            "w": rng.standard_normal((64, hidden)).astype(np.float32),
            "w2": rng.standard_normal((hidden, 64)).astype(np.float32),
        },
    )
    dim = proto.graph.input[0].type.tensor_type.shape.dim[0]
    dim.ClearField("dim_value")
    dim.dim_param = "N"
    onnx.save(proto, path)
    return path
