"""Tiny GPT-2 and BERT exported to ONNX, run by ge-run against onnxruntime; the ONNX
importer's integer inputs and the folding of the masks exports build from shapes.

The models are built from configs (no downloads) and exported by PyTorch's TorchScript
exporter (`dynamo=False`) at opsets 17 and 21, without its constant folding (the importer
folds Shape, Gather, Range, Unsqueeze, ConstantOfShape, Equal, Where, ... itself), into
`build/onnx_transformers/` (cached: a file named after the hash of its export settings and
library versions is reused).  GPT-2 takes `input_ids`; BERT takes `input_ids`,
`attention_mask` and `token_type_ids` (INT64).  `ge-run --check` (in-process) feeds the
same seeded inputs (integers in [0, 2): valid ids, masks and token types) to the simulated
NPU, the reference interpreter and onnxruntime.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from typing import Any

import numpy as np
import onnx
import pytest
from helpers import onnx_ref
from helpers.support import ROOT
from onnx import TensorProto, helper, numpy_helper
from xdsl.ir import Operation

from ge_dialect import api
from ge_dialect.frontend import import_onnx
from ge_dialect.tools.ge_run import main as ge_run

CACHE = os.path.join(ROOT, "build", "onnx_transformers")
OPSETS = [17, 21]
CONFIGS = {
    "gpt2": dict(n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=16),
    "bert": dict(
        num_hidden_layers=1,
        num_attention_heads=2,
        hidden_size=32,
        intermediate_size=64,
        vocab_size=64,
        max_position_embeddings=16,
    ),
}
INPUTS = {"gpt2": ["input_ids"], "bert": ["input_ids", "attention_mask", "token_type_ids"]}


def _export(name: str, opset: int, path: str) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers import masking_utils

    torch.manual_seed(0)
    config = dict(CONFIGS[name], initializer_range=0.2, attn_implementation="eager")
    if name == "gpt2":
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(**config))
    else:
        model = transformers.BertModel(transformers.BertConfig(**config))

    base: Any = torch.nn.Module

    class Wrapper(base):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *args):
            if name == "gpt2":  # an explicit all-ones mask: no packed-sequence detection
                (ids,) = args
                return self.model(ids, attention_mask=torch.ones_like(ids), use_cache=False)[0]
            ids, mask, types = args
            return self.model(ids, attention_mask=mask, token_type_ids=types)[0]

    batch = 1 if name == "gpt2" else 2
    example = tuple(torch.ones(batch, 8, dtype=torch.long) for _ in INPUTS[name])
    tmp = f"{path}.tmp{os.getpid()}"
    recent = masking_utils.sdpa_mask
    try:
        # the TorchScript tracer cannot trace the vmap the recent mask builder uses
        masking_utils.sdpa_mask = masking_utils.sdpa_mask_older_torch
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                Wrapper().eval(),
                example,
                tmp,
                dynamo=False,
                do_constant_folding=False,
                opset_version=opset,
                input_names=INPUTS[name],
                output_names=["output"],
            )
        os.replace(tmp, path)
    finally:
        masking_utils.sdpa_mask = recent
        if os.path.exists(tmp):
            os.unlink(tmp)


def exported(name: str, opset: int) -> str:
    """The path of the exported model, exporting it unless an up-to-date one is cached."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    with open(__file__, "rb") as f:
        source = f.read()
    key = f"{name} {opset} {torch.__version__} {transformers.__version__}".encode()
    digest = hashlib.sha256(source + key).hexdigest()[:16]
    path = os.path.join(CACHE, f"{name}-opset{opset}-{digest}.onnx")
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        _export(name, opset, path)
    return path


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("name", ["gpt2", "bert"])
def test_exported_transformer_runs_and_matches_onnxruntime(capsys, name, opset):
    path = exported(name, opset)
    code = ge_run([path, "--check"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err and "outside tolerance" not in out
    errors = re.findall(r"^check output: max \|error\| (\S+) against (.+)$", out, re.M)
    assert [what for _, what in errors] == ["reference interpreter", "onnxruntime"]
    module = import_onnx(path)
    # the masks built from shapes folded: only the ids' reshape and lookup (and BERT's
    # padding mask, cast to f32 at run time) read an integer
    readers = {
        op.name
        for op in module.walk()
        if op.name.startswith("ge.") and any("xi64" in str(v.type) for v in op.operands)
    }
    allowed = {"ge.gather", "ge.reshape"} | ({"ge.cast"} if name == "bert" else set())
    assert "ge.gather" in readers and readers <= allowed, readers
    if name == "gpt2":  # the causal mask: one i1 constant of a ge.where
        (where,) = [op for op in module.walk() if op.name == "ge.where"]
        assert isinstance(where.operands[0].owner, Operation)
        assert where.operands[0].owner.name == "ge.const"
    # the default pipeline fuses each layer's attention (GPT-2's scale 1 / sqrt(d), exported
    # as arithmetic on constants, folds first; its f32 -> f32 Cast is an identity)
    compiled = api.compile(module)
    assert sum(op.name == "ge.flash_attention" for op in compiled.walk()) == 1
    assert not any(op.name in ("ge.softmax", "ge.identity") for op in compiled.walk())


# ---- the importer's folding, on a graph of its own ----------------------------------------


def _mask_graph(opset: int) -> onnx.ModelProto:
    """Ids and a padding mask (INT64 inputs); a causal bias and a scale built from Shape,
    Gather, Range, Unsqueeze/Squeeze, LessOrEqual, Not, Where, ConstantOfShape, Size, Div,
    Equal and Cast of constants; the mask cast to FLOAT at run time."""
    n = helper.make_node

    def const(name, value):
        return numpy_helper.from_array(np.asarray(value), name)

    def unsqueeze(x, axes, out):
        if opset < 13:
            return n("Unsqueeze", [x], [out], axes=axes)
        return n("Unsqueeze", [x, f"axes{axes[0]}"], [out])

    def squeeze(x, axes, out):
        if opset < 13:
            return n("Squeeze", [x], [out], axes=axes)
        return n("Squeeze", [x, f"axes{axes[0]}"], [out])

    nodes = [
        n("Shape", ["ids"], ["shape"]),
        n("Gather", ["shape", "one_i"], ["len"]),
        n("Range", ["zero_i", "len", "one_i"], ["pos"]),
        unsqueeze("pos", [0], "row"),
        unsqueeze("pos", [1], "col"),
        squeeze("row", [0], "pos2"),
        n("LessOrEqual", ["row", "col"], ["causal"]),
        n("Equal", ["pos2", "pos"], ["same"]),
        n("And", ["causal", "same"], ["keep"]),
        n("Not", ["keep"], ["hide"]),
        n("Where", ["hide", "neg", "zero_f"], ["bias"]),
        n(
            "ConstantOfShape",
            ["shape"],
            ["ones"],
            value=numpy_helper.from_array(np.array([1], np.int64)),
        ),
        n("Size", ["ids"], ["size"]),
        n("Div", ["size", "two_i"], ["half"]),
        n("Sub", ["half", "len"], ["zeros"]),
        n("Cast", ["zeros"], ["zeros_b"], to=TensorProto.BOOL),
        n("Not", ["zeros_b"], ["all_true"]),
        n("Cast", ["all_true"], ["scale"], to=TensorProto.FLOAT),
        n("Cast", ["mask"], ["mask_f"], to=TensorProto.FLOAT),
        n("Sub", ["one_f", "mask_f"], ["inv"]),
        n("Mul", ["inv", "neg"], ["pad"]),
        n("Cast", ["ones"], ["ones_f"], to=TensorProto.FLOAT),
        n("Mul", ["pad", "ones_f"], ["pad1"]),
        unsqueeze("pad1", [1], "pad3"),
        n("Gather", ["table", "ids"], ["emb"]),
        n("Transpose", ["emb"], ["embT"], perm=[0, 2, 1]),
        n("MatMul", ["emb", "embT"], ["scores"]),
        n("Add", ["scores", "bias"], ["biased"]),
        n("Add", ["biased", "pad3"], ["masked"]),
        n("Mul", ["masked", "scale"], ["y"]),
    ]
    inits = [
        const("one_i", np.array(1, np.int64)),
        const("zero_i", np.array(0, np.int64)),
        const("two_i", np.array(2, np.int64)),
        const("axes0", np.array([0], np.int64)),
        const("axes1", np.array([1], np.int64)),
        const("neg", np.array(-100.0, np.float32)),
        const("zero_f", np.array(0.0, np.float32)),
        const("one_f", np.array(1.0, np.float32)),
        const("table", np.random.default_rng(3).standard_normal((16, 4)).astype(np.float32)),
    ]
    if opset < 13:
        inits = [i for i in inits if not i.name.startswith("axes")]
    graph = helper.make_graph(
        nodes,
        "masks",
        [
            helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 8]),
            helper.make_tensor_value_info("mask", TensorProto.INT64, [2, 8]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, 8])],
        inits,
    )
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = max(helper.find_min_ir_version_for(opsets), 7)
    onnx.checker.check_model(model, full_check=True)
    return model


@pytest.mark.parametrize("opset", [12, 17, 21])
def test_masks_built_from_shapes_fold_and_match_onnxruntime(opset):
    model = _mask_graph(opset)
    rng = np.random.default_rng(0)
    inputs = {
        "ids": rng.integers(-16, 16, (2, 8)).astype(np.int64),  # negative ids wrap, as ONNX
        "mask": np.array([[1] * 8, [1] * 5 + [0] * 3], np.int64),
    }
    (expected,) = onnx_ref._session(model).run(["y"], inputs)
    module = import_onnx(model)
    ops = [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]
    assert sorted(ops) == sorted(
        ["ge.cast", "ge.sub", "ge.mul", "ge.mul", "ge.reshape", "ge.gather", "ge.transpose",
         "ge.matmul", "ge.add", "ge.add", "ge.mul"]
    )  # fmt: skip
    (actual,) = api.reference(module, inputs).values()
    assert api.within_tolerance(actual, expected)
    assert (actual[1, :, 5:] < -50).all() and (actual[0, 0, 1:] < -50).all()  # both masks
    api.compile(module, "lower-to-device,plan-memory")
    (simulated,) = api.simulate(module, inputs).outputs.values()
    assert api.within_tolerance(simulated, expected)


@pytest.mark.parametrize(
    "nodes, inits, reason",
    [
        (
            [helper.make_node("Add", ["a", "b"], ["y"], name="bad")],
            {"a": np.array([1], np.int64), "b": np.array([1], np.int32)},
            "Add of constants of types INT64 and INT32",
        ),
        (
            [helper.make_node("Div", ["a", "b"], ["y"], name="bad")],
            {"a": np.array([1], np.int64), "b": np.array([0], np.int64)},
            "integer division by zero in constants",
        ),
        (
            [helper.make_node("Range", ["a", "b", "c"], ["y"], name="bad")],
            {"a": np.array(0, np.int64), "b": np.array(4, np.int64), "c": np.array(0, np.int64)},
            "Range(0, 4, 0)",
        ),
        (
            [helper.make_node("Cast", ["x"], ["y"], name="bad", to=TensorProto.INT64)],
            {},
            "Cast to INT64 of a computed value (only to FLOAT and FLOAT16)",
        ),
        (
            [helper.make_node("Squeeze", ["x", "a"], ["y"], name="bad")],
            {"a": np.array([0], np.int64)},
            "axes [0] of shape [2, 3] are not all 1",
        ),
    ],
)
def test_folding_errors_name_the_node(nodes, inits, reason):
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(api.GeError) as info:
        import_onnx(model)
    assert f"'bad' ({nodes[0].op_type}: {reason})" in str(info.value)
