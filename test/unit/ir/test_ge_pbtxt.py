"""GE graph dumps (`ge_dialect.ir.ge_pbtxt`) read back by protobuf itself: the schema
`ge_dialect/ir/ge_ir.proto` compiled with `grpc_tools.protoc`, the text parsed strictly
(an unknown field or a malformed value fails) into `ge.proto.GraphDef`."""

from __future__ import annotations

from pathlib import Path

import pytest

from ge_dialect import api
from ge_dialect.ir.ge_pbtxt import ge_type, print_graph_def
from ge_dialect.utils.errors import GeError

pytest.importorskip("grpc_tools")
from google.protobuf import text_format  # noqa: E402
from helpers.ge_proto import compile_ge_ir, parse_graph_def  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def ge_ir(tmp_path_factory):
    """The generated module of `ge_ir.proto` (`ge_ir_pb2`)."""
    return compile_ge_ir(tmp_path_factory.mktemp("proto"))


def parse(ge_ir, text: str):
    return parse_graph_def(ge_ir, text)


def graph_of(ge_ir, source: str):
    text = print_graph_def(api.parse(source, "test.mlir"))
    graph = parse(ge_ir, text)
    # protobuf prints the message it read exactly as ge-opt did: same fields, same order
    assert text_format.MessageToString(graph) == text
    return graph


MULTISTREAM = (REPO / "examples" / "torchair_multistream.mlir").read_text()

CONV_BN_RELU = """
func.func @net(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = ge.const dense<5.000000e-01> : tensor<4x3x3x3xf32>
  %s = ge.const dense<1.000000e+00> : tensor<4xf32>
  %b = ge.const dense<0.000000e+00> : tensor<4xf32>
  %conv = ge.conv2d %x, %w pads [1, 1, 1, 1]
    : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  %bn = ge.batch_norm %conv, %s, %b, %b, %s epsilon 1.000000e-03
    : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
    -> tensor<1x4x8x8xf32>
  %y = ge.relu %bn {_op_aicore_num = "4"} : tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
"""


def ops_by_name(graph) -> dict:
    return {op.name: op for op in graph.op}


def test_multistream_example_reads_back(ge_ir):
    graph = graph_of(ge_ir, MULTISTREAM)
    ops = ops_by_name(graph)
    assert [op.type for op in graph.op] == (
        ["Data"] * 4 + ["Add", "Identity", "MatMulV2", "MatMulV2", "Identity", "Add", "NetOutput"]
    )
    assert list(graph.input) == ["in1", "in2", "in3", "in4"]
    assert list(graph.output) == ["add_result:0", "mm_result:0", "mm1:0", "add2:0"]
    assert [ops[n].attr["index"].i for n in graph.input] == [0, 1, 2, 3]
    # npu_wait_tensor(in4, add_result): Identity(in4) with a control edge from the Add
    assert list(ops["Identity"].input) == ["in4:0", "^add_result"]
    assert list(ops["Identity_1"].input) == ["Identity:0", "^mm_result"]
    assert list(ops["mm_result"].input) == ["in3:0", "Identity:0"]
    assert list(ops["mm1"].input) == ["in3:0", "Identity:0"]
    mm = ops["mm_result"]
    assert mm.attr["_user_stream_label"].s == b"1"
    assert mm.attr["_user_stream_priority"].s == b"0"
    assert mm.attr["_enable_inner_parallel"].b is True
    assert ops["add2"].attr["_user_stream_label"].s == b"2"
    for name in ("add_result", "mm1", "in1"):
        assert "_user_stream_label" not in ops[name].attr
    out = mm.output_desc[0]
    assert (out.dtype, list(out.shape.dim), out.layout) == (ge_ir.DT_FLOAT, [4, 4], "ND")
    assert list(ops["NetOutput"].input) == list(graph.output)


def test_priority_and_inner_parallel_are_torchair_strings_and_bool(ge_ir):
    source = MULTISTREAM.replace(
        '#stream.label<"2", priority = 0, inner_parallel = true>',
        '#stream.label<"2", priority = 3, inner_parallel = false>',
    )
    ops = ops_by_name(graph_of(ge_ir, source))
    assert ops["add2"].attr["_user_stream_priority"].s == b"3"
    assert ops["add2"].attr["_enable_inner_parallel"].HasField("b")
    assert ops["add2"].attr["_enable_inner_parallel"].b is False


def test_conv_bn_relu_types_attrs_and_consts(ge_ir):
    graph = graph_of(ge_ir, CONV_BN_RELU)
    ops = ops_by_name(graph)
    assert graph.name == "net"
    assert [op.type for op in graph.op] == (
        ["Data", "Const", "Const", "Const", "Conv2D", "BatchNorm", "Relu", "NetOutput"]
    )
    conv = ops["conv"]
    assert list(conv.input) == ["x:0", "w:0"]
    assert list(conv.attr["strides"].list.i) == [1, 1]
    assert list(conv.attr["pads"].list.i) == [1, 1, 1, 1]
    assert conv.attr["groups"].i == 1
    assert ops["bn"].attr["epsilon"].f == pytest.approx(1e-3)
    assert list(ops["bn"].input) == ["conv:0", "s:0", "b:0", "b:0", "s:0"]
    assert ops["y"].attr["_op_aicore_num"].s == b"4"
    w = ops["w"].attr["value"].t
    assert list(w.desc.shape.dim) == [4, 3, 3, 3] and w.desc.dtype == ge_ir.DT_FLOAT
    assert w.data == b""  # constants are described, their bytes are not printed
    out = conv.output_desc[0]
    assert (list(out.shape.dim), out.layout) == ([1, 4, 8, 8], "NCHW")


def test_nc1hwc0_descriptor_stores_the_physical_shape(ge_ir):
    source = """
func.func @f(%x: tensor<1x20x4x4xf16>) -> tensor<1x20x4x4xf16> {
  %t = ge.trans_data %x : tensor<1x20x4x4xf16> -> tensor<1x20x4x4xf16, #ge.format<NC1HWC0>>
  %r = ge.relu %t : tensor<1x20x4x4xf16, #ge.format<NC1HWC0>>
  %y = ge.trans_data %r : tensor<1x20x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x20x4x4xf16>
  func.return %y : tensor<1x20x4x4xf16>
}
"""
    ops = ops_by_name(graph_of(ge_ir, source))
    desc = ops["r"].output_desc[0]
    # 20 channels in blocks of C0 = 16: C1 = 2
    assert (desc.dtype, list(desc.shape.dim), desc.layout) == (
        ge_ir.DT_FLOAT16,
        [1, 2, 4, 4, 16],
        "NC1HWC0",
    )
    assert desc.attr["origin_format"].s == b"NCHW"
    assert list(desc.attr["origin_shape"].list.i) == [1, 20, 4, 4]
    assert ops["t"].type == "TransData"
    assert list(ops["y"].output_desc[0].shape.dim) == [1, 20, 4, 4]


def test_assigned_streams_become_send_recv_and_stream_ids(ge_ir):
    module = api.parse(MULTISTREAM, "test.mlir")
    api.compile(module, "assign-streams")
    graph = parse(ge_ir, print_graph_def(module))
    sends = [op for op in graph.op if op.type == "Send"]
    recvs = [op for op in graph.op if op.type == "Recv"]
    assert [s.attr["event_id"].i for s in sends] == list(range(len(sends)))
    assert sorted(r.attr["event_id"].i for r in recvs) == sorted(
        s.attr["event_id"].i for s in sends
    )
    by_name = ops_by_name(graph)
    for r in recvs:
        (source,) = r.input
        assert by_name[source.removeprefix("^")].type == "Send"
    assert by_name["mm_result"].stream_id == 1
    assert by_name["add_result"].stream_id == 0


def test_names_are_unique_and_the_text_deterministic(ge_ir):
    source = """
func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32> {ge.name = "a"}) -> tensor<2xf32> {
  %0 = ge.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = ge.add %0, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = ge.relu %1 : tensor<2xf32>
  func.return %2 : tensor<2xf32>
}
"""
    text = print_graph_def(api.parse(source, "test.mlir"))
    assert text == print_graph_def(api.parse(source, "test.mlir"))
    graph = parse(ge_ir, text)
    names = [op.name for op in graph.op]
    assert names == ["a", "a_1", "Add", "Add_1", "Relu", "NetOutput"]
    assert list(graph.op[3].input) == ["Add:0", "a_1:0"]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("ge.softmax", "SoftmaxV2"),
        ("ge.flash_attention", "FlashAttentionScore"),
        ("ge.foo_bar_baz", "FooBarBaz"),
        ("my.op", "MyOp"),
    ],
)
def test_ge_type_names(name, expected):
    class Fake:
        operand_types = ()

    fake = Fake()
    fake.name = name  # type: ignore[attr-defined]
    assert ge_type(fake) == expected  # type: ignore[arg-type]


COLLECTIVES = """
func.func @f(%x: tensor<4x4xf16>) -> (tensor<1x4xf16>, tensor<1x16xf16>, tensor<3x4xf16>,
    tensor<4x4xf16>, tensor<4x4xf16>) {
  %rs = ge.hcom_reduce_scatter %x reduction sum group "tp" rank_size 4
    : tensor<4x4xf16> -> tensor<1x4xf16>
  %a2a = ge.hcom_all_to_all %x split_dim 0 concat_dim 1 group "ep" rank_size 4
    : tensor<4x4xf16> -> tensor<1x16xf16>
  %a2av = ge.hcom_all_to_all %x split_dim 0 concat_dim 0 group "ep" rank_size 2
    send_counts [1, 3] recv_counts [1, 2] : tensor<4x4xf16> -> tensor<3x4xf16>
  %bc = ge.hcom_broadcast %x root 1 group "g" rank_size 2 : tensor<4x4xf16>
  ge.hcom_send %x dest_rank 1 sr_tag 3 group "pp" rank_size 2 : tensor<4x4xf16>
  %r = ge.hcom_receive src_rank 1 sr_tag 3 group "pp" rank_size 2 : tensor<4x4xf16>
  func.return %rs, %a2a, %a2av, %bc, %r
    : tensor<1x4xf16>, tensor<1x16xf16>, tensor<3x4xf16>, tensor<4x4xf16>, tensor<4x4xf16>
}
"""


def test_collectives_have_ge_types_and_attributes(ge_ir):
    """HCCL's collectives beyond all-reduce and all-gather, as GE names them (hcom_ops.h):
    an all-to-all with counts is `HcomAllToAllV`; their properties are attributes."""
    graph = graph_of(ge_ir, COLLECTIVES)
    nodes = [op for op in graph.op if op.type.startswith("Hcom")]
    assert [op.type for op in nodes] == [
        "HcomReduceScatter",
        "HcomAllToAll",
        "HcomAllToAllV",
        "HcomBroadcast",
        "HcomSend",
        "HcomReceive",
    ]
    rs, a2a, a2av, bc, send, recv = nodes
    assert rs.attr["reduction"].s == b"sum" and rs.attr["rank_size"].i == 4
    assert (a2a.attr["split_dim"].i, a2a.attr["concat_dim"].i) == (0, 1)
    assert list(a2av.attr["send_counts"].list.i) == [1, 3]
    assert list(a2av.attr["recv_counts"].list.i) == [1, 2]
    assert bc.attr["root"].i == 1 and bc.attr["group"].s == b"g"
    assert (send.attr["dest_rank"].i, send.attr["sr_tag"].i) == (1, 3)
    assert len(send.output_desc) == 0
    assert (recv.attr["src_rank"].i, recv.attr["sr_tag"].i) == (1, 3)
    assert list(recv.input) == []


def test_matmul_type_by_rank():
    source = """
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %c = ge.matmul %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  func.return %c : tensor<2x3x5xf32>
}
"""
    assert 'type: "BatchMatMulV2"' in print_graph_def(api.parse(source, "test.mlir"))


def test_strings_are_escaped(ge_ir):
    source = CONV_BN_RELU.replace('_op_aicore_num = "4"', '_op_aicore_num = "a\\"b\\\\c\\0Aé"')
    ops = ops_by_name(graph_of(ge_ir, source))
    assert ops["y"].attr["_op_aicore_num"].s == 'a"b\\c\né'.encode()


def test_a_module_without_or_with_two_functions_is_a_located_error():
    empty = api.parse("builtin.module {}\n", "empty.mlir")
    with pytest.raises(GeError, match=r"^empty\.mlir:1:1: error: 'builtin.module' op has no"):
        print_graph_def(empty, "empty.mlir")
    two = api.parse(
        "func.func @f() {\n  func.return\n}\nfunc.func @g() {\n  func.return\n}\n", "two.mlir"
    )
    with pytest.raises(GeError, match=r"^two\.mlir:4:1: error: 'func.func' op is a second"):
        print_graph_def(two, "two.mlir")


def test_enum_unit_and_optional_operands(ge_ir):
    source = """
func.func @f(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<2xf32>,
             %a: tensor<4x8xf32>, %c: tensor<6x8xf32>) -> (tensor<1x2x3x3xf32>, tensor<4x6xf32>) {
  %y = ge.fused_conv2d %x, %w bias %b activation relu
    : tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>, tensor<2xf32> -> tensor<1x2x3x3xf32>
  %m = ge.matmul %a, %c transpose_b : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  func.return %y, %m : tensor<1x2x3x3xf32>, tensor<4x6xf32>
}
"""
    ops = ops_by_name(graph_of(ge_ir, source))
    conv = ops["y"]
    assert conv.attr["activation"].s == b"relu"
    assert "operandSegmentSizes" not in conv.attr  # (xDSL's bookkeeping, not GE's)
    assert [d.name for d in conv.input_desc] == ["input", "filter", "bias"]
    assert ops["m"].attr["transpose_b"].b is True
    assert "transpose_a" not in ops["m"].attr


def test_a_device_program_is_a_located_error():
    module = api.parse(MULTISTREAM, "ms.mlir")
    api.compile(module, "lower-to-device")
    with pytest.raises(
        GeError, match=r"^ms\.mlir:\d+:\d+: error: 'func.func' op is an npu program"
    ):
        print_graph_def(module, "ms.mlir")


def test_never_timeout_is_a_bool_and_data_dump_a_string(ge_ir):
    source = CONV_BN_RELU.replace(
        '_op_aicore_num = "4"',
        '_op_exec_never_timeout = true, torchair_enable_data_dump = "True"',
    )
    ops = ops_by_name(parse(ge_ir, print_graph_def(api.parse(source, "test.mlir"))))
    assert ops["y"].attr["_op_exec_never_timeout"].b is True
    assert ops["y"].attr["torchair_enable_data_dump"].s == b"True"
