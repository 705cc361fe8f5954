"""Bad input is one clear error (never a traceback); ge-opt exits 0 only for
output that reads back.

ONNX models here are built with `onnx.helper` (names that are not valid UTF-8 are patched
into the serialized bytes: protobuf's Python API refuses them); ge-opt runs in-process.
"""

from __future__ import annotations

import io
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import FileLineColLoc, NameLoc
from xdsl.ir import Operation
from xdsl.printer import Printer

from ge_dialect import api
from ge_dialect.frontend import import_onnx
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.tools.ge_opt import main
from ge_dialect.utils.errors import GeError

SHAPE = [1, 2, 4, 4]


def model(nodes, inputs=("x",), outputs=(("y", SHAPE),), inits=(), input_shape=SHAPE):
    """A model of `nodes`; inputs are FLOAT `input_shape`, outputs `(name, dims or None)`."""
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, input_shape) for n in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, d) for n, d in outputs],
        list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def relu(inp="x", out="y", name="r"):
    return helper.make_node("Relu", [inp], [out], name=name)


def printed(module, debuginfo: bool = False) -> str:
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=debuginfo).print_op(module)
    return out.getvalue()


def ge_opt(capsys, tmp_path, data: bytes, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    code = main([str(path), *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def import_error(m) -> str:
    with pytest.raises(GeError) as info:
        import_onnx(m)
    return str(info.value)


# --------------------------------------------------------------------------------------
# 1. Names that are not valid UTF-8
# --------------------------------------------------------------------------------------


def test_a_node_name_that_is_not_utf8_is_escaped(capsys, tmp_path):
    data = model([relu(name="NODEX")]).SerializeToString().replace(b"NODEX", b"\xff\xfeDEX")
    code, out, err = ge_opt(capsys, tmp_path, data, "--print-debuginfo")
    assert (code, err) == (0, "")
    assert 'ge.relu %x : tensor<1x2x4x4xf32> loc("\\\\xff\\\\xfeDEX"(unknown))' in out
    reread = next(op for op in api.parse(out, "out.mlir").walk() if op.name == "ge.relu")
    assert isinstance(reread.location, NameLoc)
    assert reread.location.desc.data == "\\xff\\xfeDEX"


def test_value_names_that_are_not_utf8_are_escaped(capsys, tmp_path):
    nodes = [relu("xx", "mm", name="a"), relu("mm", "yy", name="b")]
    data = model(nodes, inputs=["xx"], outputs=[("yy", SHAPE)]).SerializeToString()
    data = data.replace(b"xx", b"\xff\xfe").replace(b"yy", b"\xfe\xff").replace(b"mm", b"\x80m")
    code, out, err = ge_opt(capsys, tmp_path, data)
    assert (code, err) == (0, "")
    assert '%_xff_xfe: tensor<1x2x4x4xf32> {ge.name = "\\\\xff\\\\xfe"}' in out
    assert '-> (tensor<1x2x4x4xf32> {ge.name = "\\\\xfe\\\\xff"})' in out
    assert "%_x80m = ge.relu %_xff_xfe" in out
    assert printed(api.parse(out, "out.mlir")) == out.rstrip("\n")  # it reads back


def test_a_loaded_model_with_undecodable_names_is_not_changed(tmp_path):
    data = model([relu(name="NODEX")]).SerializeToString().replace(b"NODEX", b"\xff\xfeDEX")
    proto = onnx.ModelProto()
    proto.ParseFromString(data)
    module = import_onnx(proto)
    op = next(op for op in module.walk() if op.name == "ge.relu")
    assert isinstance(op.location, NameLoc) and op.location.desc.data == "\\xff\\xfeDEX"
    assert proto.graph.node[0].name == b"\xff\xfeDEX"  # the caller's proto: untouched


def test_an_undecodable_input_name_can_be_bound_by_its_escaped_text():
    m = model([relu("xx", "y")], inputs=["xx"], input_shape=["n", 2, 4, 4])
    data = m.SerializeToString().replace(b"xx", b"\xffx")
    with pytest.raises(GeError) as info:
        import_onnx(data)
    assert str(info.value) == (
        "model: error: input '\\xffx' has unbound dim 0 ('n') in shape [n, 2, 4, 4]; bind it "
        "with --input-shape \\xffx=<dims>, e.g. \\xffx=1x2x4x4"
    )
    module = import_onnx(data, {"\\xffx": SHAPE})
    assert "tensor<1x2x4x4xf32>" in printed(module)


# --------------------------------------------------------------------------------------
# 2. Dimensions above 2^63 - 1
# --------------------------------------------------------------------------------------


def test_input_shape_dimension_above_int64_is_refused(capsys, tmp_path):
    data = model([relu()], input_shape=[1, "n", 4, 4], outputs=[("y", None)]).SerializeToString()
    code, out, err = ge_opt(capsys, tmp_path, data, "--input-shape", "x=1x99999999999999999999x4x4")
    assert (code, out) == (1, "")
    assert err == (
        f"{tmp_path / 'm.onnx'}: error: dimension 99999999999999999999 of the input shape "
        "given for 'x' exceeds 2^63 - 1\n"
    )


@pytest.mark.parametrize(
    "node, inits, message",
    [
        (
            helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[1, 1], pads=[2**62] * 4),
            [],
            "'MaxPool_0' (MaxPool: dimension 9223372036854775812 of the result of "
            "'ge.max_pool' exceeds 2^63 - 1)",
        ),
        (
            helper.make_node("Conv", ["x", "w"], ["y"], name="c", pads=[2**62, 0, 2**62, 0]),
            [numpy_helper.from_array(np.ones((2, 2, 1, 1), np.float32), "w")],
            "'c' (Conv: dimension 9223372036854775812 of the result of 'ge.conv2d' exceeds "
            "2^63 - 1)",
        ),
    ],
)
def test_attributes_that_overflow_a_dimension_are_refused(node, inits, message):
    m = model([node], outputs=[("y", None)], inits=inits)
    assert import_error(m) == f"model: error: cannot import 1 node: {message}"


def test_a_computed_dimension_above_int64_is_refused_by_the_builder():
    b = GraphBuilder()
    x = b.input("x", [2**62, 4])
    with pytest.raises(GeError) as info:
        b.flatten(x, axis=2)
    assert str(info.value) == (
        "error: dimension 18446744073709551616 of the result of 'ge.flatten' exceeds 2^63 - 1"
    )
    with pytest.raises(GeError, match=r"^error: dimension 9223372036854775808 of the result"):
        b.hcom_all_gather(x, rank_size=2)


# --------------------------------------------------------------------------------------
# 3. Malformed ONNX graphs
# --------------------------------------------------------------------------------------

W = numpy_helper.from_array(np.ones(SHAPE, np.float32), "w")


@pytest.mark.parametrize(
    "m, message",
    [
        (model([relu()], inputs=["x", "x"]), "graph input 'x' is declared twice"),
        (
            model([helper.make_node("Add", ["x", "w"], ["y"])], inits=[W, W]),
            "initializer 'w' is declared twice",
        ),
        (
            model([relu(name="a"), relu(name="b")]),
            "value 'y' is produced by node 'b' but is already produced by node 'a'",
        ),
        (
            model([relu("y", "x", name="a")], inputs=["x", "y"], outputs=[("x", SHAPE)]),
            "value 'x' is produced by node 'a' but is already a graph input",
        ),
        (
            model([helper.make_node("Relu", ["x"], ["w"])], outputs=[("w", SHAPE)], inits=[W]),
            "value 'w' is produced by node 'Relu_0' but is already an initializer",
        ),
        (
            model([relu()], outputs=[("y", [1, 2, 3, 3])]),
            "graph output 'y' is declared as FLOAT [1, 2, 3, 3], but the graph computes "
            "FLOAT [1, 2, 4, 4]",
        ),
        (
            model([relu()], outputs=[("y", ["n", 2, 4])]),
            "graph output 'y' is declared as FLOAT [n, 2, 4], but the graph computes "
            "FLOAT [1, 2, 4, 4]",
        ),
    ],
)
def test_malformed_graphs_are_clear_errors(m, message):
    assert import_error(m) == f"model: error: {message}"


def test_a_declared_output_type_must_match():
    m = model([relu()])
    m.graph.output[0].type.tensor_type.elem_type = TensorProto.FLOAT16
    assert import_error(m) == (
        "model: error: graph output 'y' is declared as FLOAT16 [1, 2, 4, 4], but the graph "
        "computes FLOAT [1, 2, 4, 4]"
    )
    m.graph.output[0].type.tensor_type.ClearField("shape")
    assert import_error(m) == (
        "model: error: graph output 'y' is declared as FLOAT16, but the graph computes "
        "FLOAT [1, 2, 4, 4]"
    )
    m.graph.output[0].CopyFrom(helper.make_tensor_sequence_value_info("y", TensorProto.FLOAT, None))
    assert import_error(m) == (
        "model: error: graph output 'y' is declared as a sequence_type, not a tensor"
    )


def test_declared_outputs_that_agree_are_accepted():
    """Symbolic and unknown dims, an undefined element type and no shape all agree."""
    m = model([relu()], outputs=[("y", ["n", None, 4, 4])])
    import_onnx(m)
    m.graph.output[0].type.tensor_type.elem_type = TensorProto.UNDEFINED
    m.graph.output[0].type.tensor_type.ClearField("shape")
    import_onnx(m)


def test_an_initializer_with_a_negative_dimension_is_refused():
    w = numpy_helper.from_array(np.ones((2, 2), np.float32), "w")
    w.dims[0] = -2
    m = model([relu()], inits=[w])  # even unused
    assert import_error(m) == "model: error: initializer 'w' has a negative dimension: dims [-2, 2]"


def test_a_constant_with_a_negative_dimension_is_refused():
    value = numpy_helper.from_array(np.ones((2, 2), np.float32), "c")
    value.dims[0] = -2  # numpy would read it as [2, 2]
    constant = helper.make_node("Constant", [], ["k"], value=value, name="k")
    m = model([constant, helper.make_node("Add", ["x", "k"], ["y"])], outputs=[("y", None)])
    assert import_error(m) == (
        "model: error: cannot import 1 node: 'k' (Constant: value has a negative dimension: "
        "dims [-2, 2])"
    )


@pytest.mark.parametrize("data", [model([relu()], inputs=["x", "x"]), model([relu(), relu()])])
def test_ge_opt_reports_a_malformed_graph_on_one_line(capsys, tmp_path, data):
    code, out, err = ge_opt(capsys, tmp_path, data.SerializeToString())
    assert (code, out) == (1, "")
    assert err.startswith(f"{tmp_path / 'm.onnx'}: error: ") and err.count("\n") == 1


# --------------------------------------------------------------------------------------
# 4. GraphBuilder
# --------------------------------------------------------------------------------------


def test_builder_duplicate_input_names_are_an_error():
    b = GraphBuilder()
    b.input("x", [1])
    with pytest.raises(GeError) as info:
        b.input("x", [2])
    assert str(info.value) == "error: duplicate input name 'x'"


@pytest.mark.parametrize(
    "shape, message",
    [
        ([1, "a"], "the shape of input 'x' must be a list of integers, got [1, 'a']"),
        ([1.5], "the shape of input 'x' must be a list of integers, got [1.5]"),
        (None, "the shape of input 'x' must be a list of integers, got None"),
        ([True], "the shape of input 'x' must be a list of integers, got [True]"),
        ("12", "the shape of input 'x' must be a list of integers, got '12'"),
        ([-1], "the shape of input 'x' has a negative dimension -1"),
        ([2**63], "dimension 9223372036854775808 of input 'x' exceeds 2^63 - 1"),
    ],
)
def test_builder_input_shapes_must_be_lists_of_integers(shape, message):
    with pytest.raises(GeError) as info:
        GraphBuilder().input("x", shape)
    assert str(info.value) == f"error: {message}"


def test_builder_accepts_numpy_integer_dims_and_checks_reshape_targets():
    b = GraphBuilder()
    x = b.input("x", np.array([2, 3]))  # type: ignore[arg-type]  # deliberately not a list
    assert b.reshape(x, (np.int64(3), -1)).shape == (3, 2)
    with pytest.raises(GeError) as info:
        b.reshape(x, [-2, 3])
    assert str(info.value) == (
        "error: the shape of the reshape target has a negative dimension -2 (only -1, "
        "inferred, may be negative)"
    )


@pytest.mark.parametrize(
    "name, message",
    [
        (b"x", "a name must be a str, got bytes b'x'"),
        ("\udcff", "name '\\udcff' is not valid Unicode text"),
    ],
)
def test_builder_names_must_be_printable_text(name, message):
    b = GraphBuilder()
    with pytest.raises(GeError) as info:
        b.input(name, [1])
    assert str(info.value) == f"error: {message}"
    x = b.input("x", [1])
    with pytest.raises(GeError) as info:
        b.relu(x, name=name)
    assert str(info.value) == f"error: {message}"


def test_builder_output_names_must_be_printable_text():
    b = GraphBuilder()
    x = b.input("x", [1])
    with pytest.raises(GeError) as info:
        b.build([x], output_names=[b"y"])  # type: ignore[list-item]  # deliberately not a str
    assert str(info.value) == "error: a name must be a str, got bytes b'y'"


def test_builder_ops_are_located_at_the_callers_line():
    b = GraphBuilder()
    x = b.input("x", [4])
    line = sys._getframe().f_lineno + 1
    y = b.relu(x)
    relu = y.value.owner
    assert isinstance(relu, Operation)
    loc = relu.location
    assert isinstance(loc, FileLineColLoc)
    assert (loc.filename.data, loc.line.data, loc.column.data) == (__file__, line, 9)  # `b.relu(x)`
    module = b.build([y])
    assert f'loc("{__file__}":{line}:9)' in printed(module, debuginfo=True)
    assert "loc(" not in printed(module)  # unchanged without debug info


def test_builder_verifier_errors_point_at_the_callers_line():
    b = GraphBuilder()
    x, h = b.input("x", [4]), b.input("h", [4], "f16")
    line = sys._getframe().f_lineno + 1
    y = b.add(x, h)
    with pytest.raises(GeError) as info:
        b.build([y])
    assert str(info.value).startswith(f"{__file__}:{line}:9: error: 'ge.add' op ")


def test_the_importer_locates_ops_at_their_nodes_not_at_python_code():
    module = import_onnx(model([relu(name="r")]))
    locs = [op.location for op in module.walk() if op.name == "ge.relu"]
    assert len(locs) == 1 and isinstance(locs[0], NameLoc) and locs[0].desc.data == "r"
