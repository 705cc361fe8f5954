"""ge-opt's command line, run in-process (diagnostics, flags, external data, determinism),
and the `ge_dialect.api` functions it calls.  Each listed flag: `test_cli_flags.py`."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from helpers.support import ROOT

from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.tools.ge_opt import main
from ge_dialect.tools.ge_opt.driver import split_pass_flags
from ge_dialect.utils.errors import GeError

EXAMPLE = os.path.join(ROOT, "examples", "resnet_block.mlir")

RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
"""


def run(capsys, args, stdin: bytes | None = None, monkeypatch=None):
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name: str, data: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


MALFORMED: dict[str, tuple[str | bytes, str]] = {
    "truncated": (RELU[:70], r"^{f}:2:\d+: error: unexpected end of input"),
    "unknown_op": (
        RELU.replace("ge.relu", "ge.frobnicate"),
        r"^{f}:2:\d+: error: Operation ge.frobnicate is not registered$",
    ),
    "wrong_type": (
        RELU.replace("ge.relu %x : tensor<4xf32>", "ge.relu %x : tensor<4xi32>"),
        r"^{f}:2:16: error: operand is used with type tensor<4xi32>, "
        r"but has been previously used or defined with type tensor<4xf32>$",
    ),
    "use_before_def": (
        RELU.replace("%0 = ge.relu %x", "%0 = ge.relu %1").replace(
            "  func.return", "  %1 = ge.relu %x : tensor<4xf32>\n  func.return"
        ),
        r"^{f}:2:3: error: 'ge.relu' op operand #0 does not dominate this use "
        r"\(defined by 'ge.relu' at {f}:3:3\)$",
    ),
    "undefined_value": (
        RELU.replace("ge.relu %x", "ge.relu %nope"),
        r"^{f}:2:16: error: use of undefined value '%nope'$",
    ),
    "invalid_utf8": (
        RELU.encode() + b"// \xff\xfe\n",
        r"^{f}:5:4: error: invalid UTF-8 \(byte 0xff\)$",
    ),
    "deep_nesting": (
        '"test.op"() ({' * 3000 + "}) : () -> ()" * 3000,
        r"^{f}:1:\d+: error: nesting too deep for the parser$",
    ),
    "deep_attribute": (
        '"test.op"() {a = ' + "[" * 3000 + "]" * 3000 + "} : () -> ()",
        r"^{f}:1:\d+: error: nesting too deep for the parser$",
    ),
    "huge_dimension": (
        RELU.replace("tensor<4xf32>) ->", "tensor<123456789012345678901234567890xf32>) ->"),
        r"^{f}:1:\d+: error: dimension 123456789012345678901234567890 is too large "
        r"\(at most 2\^63 - 1\)$",
    ),
    "verifier": (
        RELU.replace(
            "ge.relu %x : tensor<4xf32>", '"ge.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>'
        ).replace("return %0", "return %x"),
        r"^{f}:2:3: error: 'ge.relu' op .*tensor<5xf32>",
    ),
    # `parse_string` (ge_dialect/utils/parsing.py): an escaped string whose bytes are not UTF-8.
    "external_path_not_utf8": (
        "func.func @f() -> tensor<4xf32> {\n"
        '  %0 = ge.const #ge.external<"\\FF", offset = 0, length = 16> : tensor<4xf32>\n'
        "  func.return %0 : tensor<4xf32>\n}\n",
        r"^{f}:2:30: error: string literal is not valid UTF-8$",
    ),
    "stream_label_not_utf8": (
        RELU.replace("ge.relu %x :", 'ge.relu %x {stream.label = #stream.label<"\\C3\\28">} :'),
        r"^{f}:2:49: error: string literal is not valid UTF-8$",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_input_gives_one_located_error(capsys, tmp_path, case):
    text, pattern = MALFORMED[case]
    path = write(tmp_path, "in.mlir", text)
    code, out, err = run(capsys, [path])
    assert code == 1
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert re.match(pattern.format(f=re.escape(path)), lines[0]), lines[0]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bogus"], "ge-opt: error: unrecognized arguments: --bogus"),
        (["-p", "nope"], "ge-opt: error: Unrecognized passes: ['nope']"),
        (
            ["--cse=x=1"],
            "ge-opt: error: cse: unknown option 'x' (it has no options)",
        ),
        (["-p", "cse{"], "ge-opt: error: Error parsing pass pipeline specification"),
        (
            ["--elide-constants-if-larger=many"],
            "ge-opt: error: argument --elide-constants-if-larger: invalid int value: 'many'",
        ),
        (
            ["--externalize-constants-if-larger=4"],
            "ge-opt: error: --externalize-constants-if-larger needs -o or --external-data",
        ),
    ],
)
def test_bad_flags_exit_2(capsys, tmp_path, args, message):
    path = write(tmp_path, "in.mlir", RELU)
    code, out, err = run(capsys, [path, *args])
    assert code == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(message)


def test_unreadable_file(capsys, tmp_path):
    path = str(tmp_path / "missing.mlir")
    code, _, err = run(capsys, [path])
    assert code == 1
    assert err == f"{path}: error: cannot read input: No such file or directory\n"


def test_stdin_input_is_named_stdin(capsys, monkeypatch):
    stdin = RELU.replace("ge.relu %x", "ge.relu %y").encode()
    code, out, err = run(capsys, [], stdin=stdin, monkeypatch=monkeypatch)
    assert code == 1
    assert err.startswith("<stdin>:2:16: error: use of undefined value '%y'")


def test_split_input_file_locates_errors_in_the_whole_file(capsys, tmp_path):
    bad = RELU.replace("ge.relu %x : tensor<4xf32>", "ge.sigmoid %x : tensor<4xi32>")
    bad = bad.replace("tensor<4xf32>", "tensor<4xi32>")
    path = write(tmp_path, "in.mlir", RELU + "// -----\n" + bad)
    code, out, err = run(capsys, [path, "--split-input-file"])
    assert code == 1
    assert err == (
        f"{path}:7:3: error: 'ge.sigmoid' op operand 'input' must be f16 or f32, got i32\n"
    )
    code, out, err = run(capsys, [path, "--split-input-file", "--verify-diagnostics"])
    assert code == 0
    assert f"{path}:7:3: error: 'ge.sigmoid' op" in out
    assert "// -----" in out and "ge.relu" in out


def test_output_file_is_not_written_on_error(capsys, tmp_path):
    out_path = write(tmp_path, "out.mlir", "precious")
    bad = write(tmp_path, "bad.mlir", RELU.replace("ge.relu %x", "ge.relu %y"))
    code, _, _ = run(capsys, [bad, "-o", out_path])
    assert code == 1
    assert open(out_path).read() == "precious"


def test_pass_flags_run_after_p_in_command_line_order(capsys, tmp_path):
    path = write(tmp_path, "in.mlir", RELU)
    args = [path, "--cse", "-p", "canonicalize", "--dce", "--print-ir-after-all"]
    code, out, err = run(capsys, args)
    assert code == 0
    headers = re.findall(r"// -----// IR Dump After (\S+) //----- //", err)
    assert headers == ["canonicalize", "cse", "dce"]
    assert "ge.relu" in out


def test_split_pass_flags():
    specs, rest = split_pass_flags(
        ["--cse", "in.mlir", "--fuse=a=1,report", "--fuse=x=2 y", "-o", "o.mlir", "--other"],
        ["cse", "fuse"],
    )
    assert specs == ["cse", "fuse{a=1 report=true}", "fuse{x=2 y=true}"]
    assert rest == ["in.mlir", "-o", "o.mlir", "--other"]


def test_time_passes_reports_on_stderr(capsys, tmp_path):
    path = write(tmp_path, "in.mlir", RELU)
    code, out, err = run(capsys, [path, "--canonicalize", "--time-passes"])
    assert code == 0
    assert "Pass execution timing report" in err and "canonicalize" in err
    assert "timing" not in out


def test_generic_output_round_trips(capsys, tmp_path):
    code, generic, _ = run(capsys, [EXAMPLE, "--print-op-generic"])
    assert code == 0 and '"ge.conv2d"' in generic
    path = write(tmp_path, "generic.mlir", generic)
    code, custom, _ = run(capsys, [path])
    code2, direct, _ = run(capsys, [EXAMPLE])
    assert code == code2 == 0
    assert custom == direct


def _parse(path: str):
    with open(path) as f:
        module = LocatingParser(make_context(), f.read(), path).parse_module()
    ge.set_data_dir(module, os.path.dirname(path))
    return module


def test_external_data_round_trip(capsys, tmp_path):
    """Large constants move to a file beside the IR, re-parse lazily (memory-mapped) and
    compute the same numbers; a copy printed elsewhere refers to the same file."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    out = str(tmp_path / "a" / "block.mlir")
    code, _, err = run(capsys, [EXAMPLE, "--externalize-constants-if-larger=100", "-o", out])
    assert code == 0, err
    text = open(out).read()
    assert text.count('#ge.external<"block.mlir.weights", offset = ') == 2
    assert os.path.getsize(out + ".weights") >= 2 * 8 * 8 * 9 * 4
    assert not os.path.exists(out + ".weights.part")

    x = np.random.default_rng(0).uniform(-1, 1, (1, 8, 8, 8)).astype(np.float32)
    reference = run_function(_parse(EXAMPLE), [x])[0]
    external = _parse(out)
    consts = [op for op in external.walk() if op.name == "ge.const"]
    assert any(isinstance(op.physical_array(), np.memmap) for op in consts)
    np.testing.assert_array_equal(run_function(external, [x])[0], reference)

    moved = str(tmp_path / "b" / "copy.mlir")
    code, _, err = run(capsys, [out, "-o", moved])
    assert code == 0, err
    assert '#ge.external<"../a/block.mlir.weights"' in open(moved).read()
    np.testing.assert_array_equal(run_function(_parse(moved), [x])[0], reference)


def test_missing_external_file_is_a_clear_error(tmp_path):
    path = write(
        tmp_path,
        "m.mlir",
        "func.func @f() -> tensor<4xf32> {\n"
        '  %0 = ge.const #ge.external<"gone.bin", offset = 0, length = 16> : tensor<4xf32>\n'
        "  func.return %0 : tensor<4xf32>\n}\n",
    )
    message = r"m.mlir:2:3: error: 'ge.const' op cannot open external data .*gone.bin"
    with pytest.raises(GeError, match=message):
        run_function(_parse(path), [])


def test_elided_output_is_marked_and_refused(capsys, tmp_path):
    code, out, _ = run(capsys, [EXAMPLE, "--elide-constants-if-larger=16"])
    assert code == 0
    assert out.count("ge.const #ge.elided : tensor<8x8x3x3xf32>") == 2
    assert "tensor<8xf32>" in out  # small constants stay
    path = write(tmp_path, "elided.mlir", out)
    module = _parse(path)  # elided IR parses and verifies, for reading
    with pytest.raises(GeError, match="elided"):
        run_function(module, [np.zeros((1, 8, 8, 8), np.float32)])


def test_output_is_identical_across_hash_seeds():
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=ROOT)
        proc = subprocess.run(
            [sys.executable, "-m", "ge_dialect.tools.ge_opt", EXAMPLE, "-p", "canonicalize,cse",
             "--fuse", "--to-nc1hwc0", "--assign-streams=mode=auto", "--print-op-generic"],
            capture_output=True,
            env=env,
            check=True,
        )
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert b'"ge.fused_conv2d"' in outputs[0] and b"stream.id" in outputs[0]


def test_empty_and_comment_only_input_is_an_empty_module(capsys, tmp_path):
    path = write(tmp_path, "empty.mlir", "// nothing here\n\n")
    code, out, err = run(capsys, [path])
    assert (code, err) == (0, "")
    assert out == "builtin.module {\n}\n\n"
    path = write(tmp_path, "split.mlir", RELU + "// -----\n// only a comment\n")
    code, out, err = run(capsys, [path, "--split-input-file"])
    assert code == 0 and out.endswith("// -----\nbuiltin.module {\n}\n\n")


def _onnx_relu(path, dims):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="r")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return str(path)


def test_onnx_input_with_bound_dims(capsys, tmp_path):
    path = _onnx_relu(tmp_path / "m.onnx", ["n", 4])
    code, out, err = run(capsys, [path, "--input-shape", "x=2x4"])
    assert (code, err) == (0, "")
    assert (
        'func.func @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"})'
        in out
    )
    assert "ge.relu %x : tensor<2x4xf32>" in out


@pytest.mark.parametrize(
    "args, code, message",
    [
        ([], 1, "error: input 'x' has unbound dim 0 ('n')"),
        (
            ["--input-shape", "x=2xfour"],
            2,
            "ge-opt: error: --input-shape expects NAME=DIMS such as x=1x3x224x224, got 'x=2xfour'",
        ),
        (["--input-shape", "2x4"], 2, "ge-opt: error: --input-shape expects NAME=DIMS"),
    ],
)
def test_onnx_input_errors(capsys, tmp_path, args, code, message):
    path = _onnx_relu(tmp_path / "m.onnx", ["n", 4])
    got, out, err = run(capsys, [path, *args])
    assert got == code and out == ""
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert message in err


def test_truncated_onnx_file_is_one_clear_line(capsys, tmp_path):
    path = _onnx_relu(tmp_path / "m.onnx", [1, 4])
    data = open(path, "rb").read()
    (tmp_path / "t.onnx").write_bytes(data[: len(data) // 2])
    code, out, err = run(capsys, [str(tmp_path / "t.onnx")])
    assert code == 1 and out == ""
    assert err.startswith(f"{tmp_path / 't.onnx'}: error: not a valid ONNX model")
    assert len(err.strip().splitlines()) == 1


def test_input_shape_needs_onnx_input(capsys, tmp_path):
    path = write(tmp_path, "in.mlir", RELU)
    code, _, err = run(capsys, [path, "--input-shape", "x=4"])
    assert code == 2
    assert err == "ge-opt: error: --input-shape applies to ONNX input (.onnx files) only\n"


@pytest.mark.parametrize(
    "flag, message",
    [
        ("--to-nc1hwc0=boundary=foo", "ge-opt: error: to-nc1hwc0: boundary must be keep or nc1hwc0, got 'foo'"),
        ("--to-nc1hwc0=fp32-c0=32", "ge-opt: error: to-nc1hwc0: fp32-c0 must be 16 or 8, got 32"),
        ("--to-nc1hwc0=fp32-c0=8.0", "ge-opt: error: to-nc1hwc0: fp32-c0 must be 16 or 8, got 8.0"),
        ("--assign-streams=mode=fast", "ge-opt: error: assign-streams: mode must be labels, auto or single, got 'fast'"),
        ("--assign-streams=max-streams=0", "ge-opt: error: assign-streams: max-streams must be at least 1, got 0"),
    ],
)
def test_bad_pass_option_values_exit_2(capsys, tmp_path, flag, message):
    path = write(tmp_path, "in.mlir", RELU)
    code, out, err = run(capsys, [path, flag])
    assert (code, out) == (2, "")
    assert err == message + "\n"


def test_help_lists_the_pass_flags(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--fuse", "--to-nc1hwc0", "--assign-streams", "--canonicalize"):
        assert flag in out


def test_onnx_import_error_is_a_parse_error(capsys, tmp_path):
    path = _onnx_relu(tmp_path / "m.onnx", ["n", 4])
    code, out, err = run(capsys, [path, "--verify-diagnostics"])
    assert (code, out) == (1, "") and "unbound dim 0 ('n')" in err
    code, out, err = run(capsys, [path, "--parsing-diagnostics"])
    assert (code, err) == (0, "")
    assert out.startswith(f"{path}: error: input 'x' has unbound dim 0 ('n')")
    assert len(out.splitlines()) == 1


# ---- ge_dialect.api: what ge-opt calls ----------------------------------------------------


def test_api_load_compile_verify(tmp_path):
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from ge_dialect import api
    from ge_dialect.ir.parser import LocatedParseError

    module = api.load(EXAMPLE)
    api.compile(module, "fuse,assign-streams{mode=auto}")
    ops = [op.name for op in module.walk()]
    assert "ge.fused_conv2d" in ops and "ge.conv2d" not in ops
    assert api.compile(api.load(EXAMPLE)) is not None  # the default pipeline
    with pytest.raises(ValueError, match="Unrecognized passes"):
        api.compile(module, "nope")
    with pytest.raises(ValueError, match="Error parsing pass pipeline"):
        api.compile(module, "cse{")

    path = write(tmp_path, "bad.mlir", RELU.replace("ge.relu %x", "ge.relu %y"))
    with pytest.raises(LocatedParseError) as info:
        api.load(path)
    assert str(info.value) == f"{path}:2:16: error: use of undefined value '%y'"
    assert isinstance(info.value, ParseError) and isinstance(info.value, GeError)
    assert isinstance(info.value, DiagnosticException)  # what xDSL's driver loop catches

    path = write(tmp_path, "v.mlir", MALFORMED["verifier"][0])
    module = api.parse(open(path).read(), path)  # parsing does not verify
    with pytest.raises(GeError, match=rf"^{re.escape(path)}:2:3: error: 'ge.relu' op "):
        api.verify(module, path)
    with pytest.raises(GeError, match="'ge.relu' op"):
        api.compile(module, [])
    assert api.parse("// only a comment\n").ops.first is None


def test_api_load_onnx_and_input_shapes(tmp_path):
    from ge_dialect import api

    path = _onnx_relu(tmp_path / "m.onnx", ["n", 4])
    module = api.load(path, {"x": [2, 4]})
    assert any(op.name == "ge.relu" for op in module.walk())
    with pytest.raises(GeError, match="unbound dim 0"):
        api.load(path)
    with pytest.raises(ValueError, match="ONNX models only"):
        api.load(EXAMPLE, {"x": [1]})
    with pytest.raises(GeError, match=r"missing\.mlir: error: cannot read input"):
        api.load(str(tmp_path / "missing.mlir"))
