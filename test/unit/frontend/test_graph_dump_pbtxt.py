"""`config.debug.graph_dump.type = "pbtxt"` through `torch.compile`: each compilation writes
GE's GraphDef in protobuf text format, the imported graph and the graph after each pass
still in `ge` form, checked as TorchAir's own test of `npu_stream_switch` checks the graph
it hands GE (tests/st/torchair_scope_st.py, test_npu_stream_switch): the scope's attributes
on the MatMul, and the wait's Identity with a control input from the Add."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("torch")
pytest.importorskip("grpc_tools")
import torch  # noqa: E402
from helpers.ge_proto import compile_ge_ir, parse_graph_def  # noqa: E402

from ge_dialect import torchair as tng  # noqa: E402

GE_FORM_STEPS = [
    "00-import",
    "01-canonicalize",
    "02-cse",
    "03-fuse",
    "04-fuse-attention",
    "05-fuse-mlp",
    "06-to-nc1hwc0",
    "07-assign-streams",
]
"""The dumps of the default pipeline while the graph is `ge` (lower-to-device makes an npu
program, which is not a GraphDef)."""


class Model(torch.nn.Module):
    """TorchAir's test_npu_stream_switch."""

    def forward(self, in1, in2, in3, in4):
        add_result = torch.add(in1, in2)
        with tng.scope.npu_stream_switch("1", 3):
            tng.scope.npu_wait_tensor(in4, add_result)
            mm_result = torch.mm(in3, in4)
        return add_result, mm_result


@pytest.fixture(scope="module")
def ge_ir(tmp_path_factory):
    return compile_ge_ir(tmp_path_factory.mktemp("proto"))


def _dump(tmp_path, dump_type: str = "pbtxt") -> str:
    """Compiles and runs `Model` once with the dump on; returns its dump folder."""
    config = tng.CompilerConfig()
    config.debug.graph_dump.type = dump_type
    config.debug.graph_dump.path = str(tmp_path)
    backend = tng.get_npu_backend(compiler_config=config)
    compiled = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
    args = [torch.randn(2, 2) for _ in range(4)]
    try:
        out = compiled(*args)
    finally:
        torch._dynamo.reset()
    for got, want in zip(out, Model()(*args), strict=True):
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-5)
    (graph,) = backend.graphs
    assert graph.dump_dir is not None and os.path.dirname(graph.dump_dir) == str(tmp_path)
    return graph.dump_dir


def test_pbtxt_dump_is_torchair_s_graph(tmp_path, ge_ir):
    folder = _dump(tmp_path)
    assert sorted(os.listdir(folder)) == [f"{s}.pbtxt" for s in GE_FORM_STEPS]
    with open(os.path.join(folder, "00-import.pbtxt"), encoding="utf-8") as f:
        graph = parse_graph_def(ge_ir, f.read())
    types = [op.type for op in graph.op]
    assert types == ["Data"] * 4 + ["Add", "Identity", "MatMulV2", "NetOutput"]
    (add,) = [op for op in graph.op if op.type == "Add"]
    (mm,) = [op for op in graph.op if op.type == "MatMulV2"]
    (identity,) = [op for op in graph.op if op.type == "Identity"]
    # TorchAir's assertions: the MatMul's label and priority as strings ...
    assert mm.attr["_user_stream_label"].s == b"1"
    assert mm.attr["_user_stream_priority"].s == b"3"
    assert mm.attr["_enable_inner_parallel"].b is True
    # ... and the Identity of in4 with a control input from the Add
    data = sorted((op.attr["index"].i, op.name) for op in graph.op if op.type == "Data")
    assert [i for i, _ in data] == [0, 1, 2, 3]
    assert sorted(name for _, name in data) == ["in1", "in2", "in3", "in4"]
    assert list(add.input) == ["in1:0", "in2:0"]
    assert list(identity.input) == ["in4:0", f"^{add.name}"]
    assert identity.attr["_user_stream_label"].s == b"1"
    assert list(mm.input) == ["in3:0", f"{identity.name}:0"]
    for key in ("_user_stream_label", "_user_stream_priority", "_enable_inner_parallel"):
        assert key not in add.attr
    net_output = graph.op[-1]
    assert list(net_output.input) == [f"{add.name}:0", f"{mm.name}:0"]
    assert [tuple(d.shape.dim) for d in mm.output_desc] == [(2, 2)]
    # every dump reads back; after assign-streams the MatMul has its stream
    with open(os.path.join(folder, "07-assign-streams.pbtxt"), encoding="utf-8") as f:
        assigned = parse_graph_def(ge_ir, f.read())
    (mm,) = [op for op in assigned.op if op.type == "MatMulV2"]
    assert mm.stream_id == 1
    assert {"Send", "Recv"} <= {op.type for op in assigned.op}


def test_the_same_model_dumps_the_same_bytes(tmp_path):
    first = _dump(tmp_path / "a")
    second = _dump(tmp_path / "b")
    for name in sorted(os.listdir(first)):
        with (
            open(os.path.join(first, name), "rb") as f,
            open(os.path.join(second, name), "rb") as g,
        ):
            assert f.read() == g.read(), name
    assert sorted(os.listdir(first)) == sorted(os.listdir(second))


@pytest.mark.parametrize(
    ("dump_type", "suffix", "last"),
    [
        ("txt", "txt", "07-assign-streams"),
        ("mlir", "mlir", "09-plan-memory"),
        ("py", "mlir", "09-plan-memory"),
    ],
)
def test_other_dump_types(tmp_path, ge_ir, dump_type, suffix, last):
    """txt is GE's GraphDef too (TorchAir's txt is that message's text), control inputs
    spelt `src:-1`; mlir and py write MLIR after every pass, the device program included."""
    folder = _dump(tmp_path, dump_type)
    files = sorted(os.listdir(folder))
    assert files[0] == f"00-import.{suffix}" and files[-1] == f"{last}.{suffix}"
    with open(os.path.join(folder, files[0]), encoding="utf-8") as f:
        text = f.read()
    if suffix == "txt":
        graph = parse_graph_def(ge_ir, text)
        assert graph.op[-1].type == "NetOutput"
        (identity,) = [op for op in graph.op if op.type == "Identity"]
        assert identity.input[-1].endswith(":-1")
    else:
        assert "stream.wait_tensor" in text
