"""Every flag `ge-opt --help` lists does what it says.

Each behaviour test below names the flags it exercises with `@exercises(...)`;
`test_every_listed_flag_has_a_behaviour_test` parses `--help` and fails when a listed flag
has no test (or a tested flag is no longer listed).  All runs are in-process.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from helpers.plugin_support import RELU_TO_SIGMOID, isolate_plugins, write_plugin
from helpers.support import ROOT
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import PassFailedException, ShrinkException

from ge_dialect.tools.ge_opt import main
from transforms import register_pass

EXERCISED: set[str] = set()
HIDDEN = {"--shrink"}
"""Flags that work but are not listed (developer tools)."""


def exercises(*flags: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    EXERCISED.update(flags)
    return lambda test: test


TWO_RELUS = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x : tensor<4xf32>
  %1 = ge.relu %x : tensor<4xf32>
  %2 = ge.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}
"""
RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
"""
CONST = """func.func @c() -> tensor<8xf32> {
  %0 = ge.const dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
"""
BAD_VERIFY = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ge.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  func.return %x : tensor<4xf32>
}
"""
CONV_RELU = """func.func @f(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = ge.const dense<0.5> : tensor<16x16x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32> -> tensor<1x16x4x4xf32>
  %r = ge.relu %c : tensor<1x16x4x4xf32>
  func.return %r : tensor<1x16x4x4xf32>
}
"""


@dataclass
class Run:
    code: int
    out: str
    err: str


def run(capsys, tmp_path, args: list[str], text: str | None = RELU, name: str = "in.mlir") -> Run:
    """ge-opt on `text` written to `tmp_path/name` (the path comes first), in-process."""
    argv = list(args)
    if text is not None:
        path = tmp_path / name
        path.write_text(text)
        argv = [str(path), *argv]
    code = main(argv)
    out, err = capsys.readouterr()
    return Run(code, out, err)


def one_line_usage_error(r: Run, start: str) -> None:
    assert (r.code, r.out) == (2, ""), r
    assert r.err.startswith(f"ge-opt: error: {start}"), r.err
    assert len(r.err.splitlines()) == 1 and "Traceback" not in r.err


def help_text(capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def listed_flags(text: str) -> set[str]:
    """The option strings of every entry of an argparse help text."""
    flags: set[str] = set()
    for line in text.splitlines():
        m = re.match(r"^  (-\S.*?)(?:  |$)", line)
        if m:
            for part in m.group(1).split(", "):
                flags.add(part.split()[0])
    return flags


# ---- the meta test ------------------------------------------------------------------------


def test_every_listed_flag_has_a_behaviour_test(capsys, monkeypatch):
    isolate_plugins(monkeypatch)  # passes other tests registered are not ge-opt's flags
    listed = listed_flags(help_text(capsys))
    assert {"-o", "--fuse", "--print-between-passes", "--input-shape"} <= listed  # the parser works
    assert listed - EXERCISED == set(), "listed in --help without a behaviour test"
    assert EXERCISED - HIDDEN - listed == set(), "tested but no longer listed in --help"
    assert HIDDEN & listed == set()


# ---- xDSL's flags -------------------------------------------------------------------------


@exercises("-h", "--help")
def test_help_lists_pass_flags_and_hides_developer_flags(capsys):
    text = help_text(capsys)
    assert text.startswith("usage: ge-opt ")
    for flag in ("--fuse", "--to-nc1hwc0", "--assign-streams", "--canonicalize", "--cse", "--dce"):
        assert re.search(rf"^  {flag}\b", text, re.M), flag
    assert "--shrink" not in text
    assert "the output format: mlir, or ge-pbtxt (" in " ".join(text.split())
    entry = re.search(r"^  --print-between-passes\s+(.*?)^  -", text, re.M | re.S)
    assert entry and "stderr" in entry.group(1)


@exercises("-v", "--version")
def test_version(capsys):
    for flag in ("-v", "--version"):
        with pytest.raises(SystemExit) as exit_info:
            main([flag])
        assert exit_info.value.code == 0
        assert re.fullmatch(r"ge-opt \S+ \(xdsl 0\.75\.0\)\n", capsys.readouterr().out)


@exercises("-o", "--output-file")
def test_output_file_written_only_on_success(capsys, tmp_path):
    out = tmp_path / "out.mlir"
    r = run(capsys, tmp_path, ["-o", str(out)])
    assert (r.code, r.out, r.err) == (0, "", "")
    assert "ge.relu %x : tensor<4xf32>" in out.read_text()
    out.write_text("precious")
    r = run(
        capsys,
        tmp_path,
        ["--output-file", str(out), "--split-input-file"],
        RELU + "// -----\n" + BAD_VERIFY,
    )
    assert r.code == 1 and r.out == ""
    assert out.read_text() == "precious"


@exercises("-p", "--passes")
def test_passes(capsys, tmp_path):
    r = run(capsys, tmp_path, ["-p", "cse"], TWO_RELUS)
    assert r.code == 0 and r.out.count("ge.relu") == 1
    r = run(capsys, tmp_path, ["--passes", "canonicalize,cse"], TWO_RELUS)
    assert r.code == 0 and r.out.count("ge.relu") == 1
    one_line_usage_error(run(capsys, tmp_path, ["-p", "nope"]), "Unrecognized passes: ['nope']")
    one_line_usage_error(run(capsys, tmp_path, ["-p", "cse{"]), "Error parsing pass pipeline")


@exercises("-t", "--target")
def test_target_mlir_or_ge_pbtxt(capsys, tmp_path):
    r = run(capsys, tmp_path, ["-t", "mlir"])
    assert r.code == 0 and "ge.relu" in r.out
    r = run(capsys, tmp_path, ["-t", "ge-pbtxt"])
    assert r.code == 0 and 'type: "Relu"' in r.out and "ge.relu" not in r.out
    one_line_usage_error(
        run(capsys, tmp_path, ["-t", "llvm"]),
        "argument -t/--target: invalid choice: 'llvm' (choose from mlir, ge-pbtxt)",
    )
    one_line_usage_error(run(capsys, tmp_path, ["--target", "riscv-asm"]), "argument -t/--target")
    one_line_usage_error(
        run(capsys, tmp_path, ["-t", "mlir{print_debuginfo=true}"]),
        "argument -t/--target: 'mlir' takes no options",
    )
    one_line_usage_error(
        run(capsys, tmp_path, ["-t", "mlir{"]), "argument -t/--target: malformed value 'mlir{'"
    )


@exercises("-f", "--frontend")
def test_frontend(capsys, tmp_path, monkeypatch):
    # -f mlir reads a file whatever its extension; -f onnx imports one that is not `.onnx`.
    r = run(capsys, tmp_path, ["-f", "mlir"], RELU, name="in.txt")
    assert r.code == 0 and "ge.relu" in r.out
    one_line_usage_error(
        run(capsys, tmp_path, ["-f", "nope"]),
        "argument -f/--frontend: invalid choice: 'nope' (choose from mlir, onnx)",
    )
    one_line_usage_error(
        run(capsys, tmp_path, ["-f", "mlir{x=1}"]),
        "argument -f/--frontend: 'mlir' takes no options",
    )
    model = _onnx_relu()
    (tmp_path / "model.bin").write_bytes(model)
    r = run(capsys, tmp_path, [str(tmp_path / "model.bin"), "--frontend", "onnx"], None)
    assert (r.code, r.err) == (0, ""), r
    assert "ge.relu %x : tensor<2x4xf32>" in r.out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(model)))
    r = run(capsys, tmp_path, ["-f", "onnx"], None)
    assert (r.code, r.err) == (0, ""), r
    assert "ge.relu %x : tensor<2x4xf32>" in r.out


def _onnx_relu(batch: int | None = 2) -> bytes:
    """A one-Relu ONNX model; its input is `[batch, 4]` (`[n, 4]` with batch None)."""
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="r")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    if batch is not None:
        model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = batch
    return model.SerializeToString()


@exercises("--disable-verify")
def test_disable_verify_and_it_does_not_leak(capsys, tmp_path):
    post_init = Attribute.__post_init__
    assert run(capsys, tmp_path, [], BAD_VERIFY).code == 1
    r = run(capsys, tmp_path, ["--disable-verify", "--print-op-generic"], BAD_VERIFY)
    assert (r.code, r.err) == (0, "")
    assert '"ge.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>' in r.out
    assert Attribute.__post_init__ is post_init  # xDSL patches it for the whole process
    assert run(capsys, tmp_path, [], BAD_VERIFY).code == 1


@exercises("--allow-unregistered-dialect")
def test_allow_unregistered_dialect(capsys, tmp_path):
    text = '"foo.bar"() : () -> ()\n'
    r = run(capsys, tmp_path, [], text)
    assert r.code == 1 and "foo.bar is not registered" in r.err
    r = run(capsys, tmp_path, ["--allow-unregistered-dialect"], text)
    assert r.code == 0 and '"foo.bar"() : () -> ()' in r.out


@exercises("--no-implicit-module")
def test_no_implicit_module(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--no-implicit-module"], RELU)
    assert r.code == 1 and r.out == "" and len(r.err.splitlines()) == 1
    r = run(capsys, tmp_path, ["--no-implicit-module"], "builtin.module {\n" + RELU + "}\n")
    assert r.code == 0 and "ge.relu" in r.out


@exercises("--time-passes")
def test_time_passes(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--time-passes", "-p", "canonicalize,cse"])
    assert r.code == 0 and "timing" not in r.out
    assert "Pass execution timing report" in r.err
    assert re.findall(r"^\s+\d+\.\d{4}   (\S+)$", r.err, re.M) == ["canonicalize", "cse", "Total"]


@exercises("--verify-diagnostics")
def test_verify_diagnostics_prints_to_stdout_and_goes_on(capsys, tmp_path):
    r = run(
        capsys,
        tmp_path,
        ["--split-input-file", "--verify-diagnostics"],
        BAD_VERIFY + "// -----\n" + RELU,
    )
    assert (r.code, r.err) == (0, "")
    first, rest = r.out.split("\n", 1)
    assert re.fullmatch(r".*in\.mlir:2:3: error: 'ge\.relu' op .*tensor<5xf32>", first)
    assert rest == "// -----\n" + run(capsys, tmp_path, []).out
    # A parse error is not a verifier diagnostic.
    r = run(capsys, tmp_path, ["--verify-diagnostics"], RELU[:40])
    assert r.code == 1 and r.out == ""


@exercises("--parsing-diagnostics")
def test_parsing_diagnostics_prints_to_stdout_and_goes_on(capsys, tmp_path):
    text = RELU.replace("%x :", "%y :") + "// -----\n" + RELU
    r = run(capsys, tmp_path, ["--split-input-file"], text)
    assert r.code == 1 and r.err.endswith("in.mlir:2:16: error: use of undefined value '%y'\n")
    r = run(capsys, tmp_path, ["--split-input-file", "--parsing-diagnostics"], text)
    assert (r.code, r.err) == (0, "")
    diagnostic = f"{tmp_path / 'in.mlir'}:2:16: error: use of undefined value '%y'\n"
    assert r.out.startswith(diagnostic + "// -----\n")


@exercises("--split-input-file")
def test_split_input_file(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--split-input-file"], RELU + "// -----  \n" + RELU)
    assert r.code == 0
    assert r.out.count("builtin.module") == 2 and r.out.count("// -----\n") == 1
    # Without the flag the separator is a comment: one module.
    r = run(capsys, tmp_path, [], RELU + "// -----\n" + RELU.replace("@f", "@g"))
    assert r.code == 0 and r.out.count("builtin.module") == 1 and "@g" in r.out


def test_split_input_file_counts_only_newlines(capsys, tmp_path):
    # U+2028 is a line break for str.splitlines but not for the parser's line numbers.
    text = '"test.op"() : () -> () // a\u2028b\n// -----\n\n%0 = ge.relu %nope : tensor<4xf32>\n'
    r = run(capsys, tmp_path, ["--split-input-file"], text)
    assert r.err == f"{tmp_path / 'in.mlir'}:4:14: error: use of undefined value '%nope'\n"


@exercises("--print-op-generic")
def test_print_op_generic(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--print-op-generic"])
    assert r.code == 0 and '"ge.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>' in r.out


@exercises("--print-no-properties")
def test_print_no_properties(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--print-op-generic"], CONST)
    assert '"ge.const"() <{value = dense<' in r.out
    r = run(capsys, tmp_path, ["--print-op-generic", "--print-no-properties"], CONST)
    assert r.code == 0 and '"ge.const"() {value = dense<' in r.out and "<{" not in r.out


@exercises("--print-debuginfo")
def test_print_debuginfo(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--print-debuginfo"])
    assert r.code == 0
    assert f'ge.relu %x : tensor<4xf32> loc("{tmp_path / "in.mlir"}":2:3)' in r.out
    assert "loc(" not in run(capsys, tmp_path, []).out


@exercises("--syntax-highlight")
def test_syntax_highlight_and_it_does_not_leak(capsys, tmp_path):
    colored = Diagnostic.colored
    r = run(capsys, tmp_path, ["--syntax-highlight"])
    assert r.code == 0 and "\x1b[" in r.out
    assert Diagnostic.colored == colored  # xDSL sets it for the whole process
    assert "\x1b[" not in run(capsys, tmp_path, []).out


@exercises("--print-between-passes")
def test_print_between_passes_on_stderr(capsys, tmp_path):
    r = run(capsys, tmp_path, ["-p", "canonicalize,cse,dce", "--print-between-passes"])
    assert r.code == 0
    assert r.out == run(capsys, tmp_path, []).out  # stdout stays the output IR
    headers = re.findall(r"^// -----// IR Dump Between (\S+) and (\S+) //----- //$", r.err, re.M)
    assert headers == [("canonicalize", "cse"), ("cse", "dce")]
    assert r.err.count("ge.relu %x : tensor<4xf32>") == 2
    r = run(capsys, tmp_path, ["--cse", "--print-between-passes"])
    assert r.code == 0 and r.err == ""


# ---- ge-opt's flags ------------------------------------------------------------------------


@exercises("--print-ir-after-all")
def test_print_ir_after_all(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--cse", "-p", "canonicalize", "--print-ir-after-all"])
    assert r.code == 0
    headers = re.findall(r"^// -----// IR Dump After (\S+) //----- //$", r.err, re.M)
    assert headers == ["canonicalize", "cse"]
    assert "IR Dump" not in r.out


def test_print_ir_after_all_elides_as_the_output_does(capsys, tmp_path):
    example = f"{ROOT}/examples/resnet_block.mlir"
    r = run(
        capsys,
        tmp_path,
        [example, "--fuse", "--print-ir-after-all", "--elide-constants-if-larger=16"],
        None,
    )
    assert r.code == 0
    dump = r.err.split("IR Dump After fuse")[1]
    assert dump.count("#ge.elided") == 2 and r.out.count("#ge.elided") == 2
    assert 'dense<"0x' not in dump


def test_ir_dumps_follow_the_printer_flags(capsys, tmp_path):
    """As mlir-opt's dumps follow its printing flags, and as the output is printed."""
    r = run(capsys, tmp_path, ["--cse", "--print-ir-after-all", "--print-op-generic"])
    dump = r.err.split("IR Dump After cse //----- //\n")[1]
    assert r.code == 0 and dump.startswith('"builtin.module"() ({')
    assert '%0 = "ge.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>' in dump
    r = run(capsys, tmp_path, ["--cse", "--print-between-passes", "--dce", "--print-debuginfo"])
    assert r.code == 0 and f'ge.relu %x : tensor<4xf32> loc("{tmp_path / "in.mlir"}":2:3)' in r.err
    flags = ["--cse", "--print-ir-after-all", "--print-op-generic", "--print-no-properties"]
    r = run(capsys, tmp_path, flags, CONST)
    assert r.code == 0 and '"ge.const"() {value = dense<' in r.err and "<{" not in r.err
    r = run(capsys, tmp_path, ["--cse", "--print-ir-after-all", "--syntax-highlight"])
    assert r.code == 0 and "\x1b[" in r.err.split("IR Dump After cse")[1]
    r = run(capsys, tmp_path, ["--cse", "--print-ir-after-all"])
    assert r.code == 0 and "ge.relu %x : tensor<4xf32>\n" in r.err and "loc(" not in r.err


@exercises("--input-shape")
def test_input_shape(capsys, tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(_onnx_relu(batch=None))
    r = run(capsys, tmp_path, [str(path), "--input-shape", "x=3x4"], None)
    assert (r.code, r.err) == (0, "") and "tensor<3x4xf32>" in r.out
    one_line_usage_error(
        run(capsys, tmp_path, [str(path), "--input-shape", "x=3xq"], None),
        "--input-shape expects NAME=DIMS",
    )
    one_line_usage_error(
        run(capsys, tmp_path, ["--input-shape", "x=4"]),
        "--input-shape applies to ONNX input (.onnx files) only",
    )


@exercises("--elide-constants-if-larger")
def test_elide_constants(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--elide-constants-if-larger=4"], CONST)
    assert r.code == 0 and "ge.const #ge.elided : tensor<8xf32>" in r.out
    r = run(capsys, tmp_path, ["--elide-constants-if-larger=8"], CONST)
    assert "#ge.elided" not in r.out


@exercises("--externalize-constants-if-larger", "--external-data")
def test_externalize_constants(capsys, tmp_path):
    out = tmp_path / "out.mlir"
    r = run(capsys, tmp_path, ["--externalize-constants-if-larger=4", "-o", str(out)], CONST)
    assert (r.code, r.err) == (0, "")
    assert '#ge.external<"out.mlir.weights", offset = 0, length = 32>' in out.read_text()
    assert (tmp_path / "out.mlir.weights").stat().st_size == 32
    data = tmp_path / "w.bin"
    args = ["--externalize-constants-if-larger=4", "--external-data", str(data)]
    r = run(capsys, tmp_path, args, CONST)
    assert r.code == 0 and f'#ge.external<"{data}", offset = 0' not in r.out
    assert '#ge.external<"' in r.out and data.stat().st_size == 32
    one_line_usage_error(
        run(capsys, tmp_path, ["--externalize-constants-if-larger=4"], CONST),
        "--externalize-constants-if-larger needs -o or --external-data",
    )
    # On error nothing is written: neither the data file nor a leftover part file.
    data.unlink()
    r = run(
        capsys,
        tmp_path,
        ["--split-input-file", "--externalize-constants-if-larger=4", "--external-data", str(data)],
        CONST + "// -----\n" + BAD_VERIFY,
    )
    assert r.code == 1 and r.out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir", "out.mlir", "out.mlir.weights"]


@exercises("--load-patterns")
def test_load_patterns(capsys, tmp_path, monkeypatch):
    """More in test_plugins.py."""
    isolate_plugins(monkeypatch)
    plugin = write_plugin(tmp_path / "plugin.py", RELU_TO_SIGMOID)
    r = run(capsys, tmp_path, [f"--load-patterns={plugin}", "--relu-to-sigmoid"])
    assert (r.code, r.err) == (0, "") and "ge.sigmoid %x" in r.out
    r = run(capsys, tmp_path, ["--load-patterns", str(plugin), "-p", "relu-to-sigmoid"])
    assert (r.code, r.err) == (0, "") and "ge.sigmoid %x" in r.out
    r = run(capsys, tmp_path, [f"--load-patterns={tmp_path / 'nope.py'}"])
    assert (r.code, r.out) == (1, "")
    assert (
        r.err == f"{tmp_path / 'nope.py'}: error: cannot load patterns: No such file or directory\n"
    )


@exercises("--tuned")
def test_tuned_runs_the_stored_pipeline(capsys, tmp_path):
    from ge_dialect import api

    path = tmp_path / "in.mlir"
    path.write_text(CONV_RELU)
    storage = f"sqlite:///{tmp_path}/t.db"
    best = api.tune(str(path), trials=2, storage=storage, seed=0).best[0].pipeline
    tuned = run(capsys, tmp_path, ["--tuned", str(tmp_path / "t.db")], CONV_RELU)
    assert tuned.code == 0 and "npu.launch" in tuned.out, tuned
    assert tuned.out == run(capsys, tmp_path, ["-p", best], CONV_RELU).out
    one_line_usage_error(run(capsys, tmp_path, ["--tuned", storage, "--cse"], CONV_RELU), "--tuned")
    r = run(capsys, tmp_path, ["--tuned", storage], TWO_RELUS)  # another graph
    assert (r.code, r.out) == (1, "") and "holds no tuned setting for this graph" in r.err


@exercises("--pass-statistics")
def test_pass_statistics(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--to-nc1hwc0", "--lower-to-device", "--pass-statistics"], CONV_RELU)
    assert r.code == 0 and "npu.launch" in r.out and "Pass statistics" not in r.out
    header = "===" + "-" * 73 + "===\n" + " " * 25 + "... Pass statistics report ...\n"
    assert r.err.startswith(header + "===" + "-" * 73 + "===\n")
    body = r.err.split("===\n", 2)[2]
    assert body == (
        "to-nc1hwc0\n"
        "  (S) 2 nc1hwc0-ops          - ops that run in NC1HWC0\n"
        "  (S) 0 trans-data-cancelled - ge.trans_data cancelled, merged or left unused\n"
        "  (S) 2 trans-data-inserted  - ge.trans_data inserted around NC1HWC0 ops\n"
        "lower-to-device\n"
        "  (S) 0 copies   - npu.copy tasks into output buffers\n"
        "  (S) 0 events   - npu.record events (one per stream.record)\n"
        "  (S) 4 launches - npu.launch tasks (one per ge op)\n"
        "\n"
    )
    # Without the flag nothing is printed; passes that count nothing are not listed.
    assert run(capsys, tmp_path, ["--to-nc1hwc0"], CONV_RELU).err == ""
    r = run(capsys, tmp_path, ["--cse", "--pass-statistics"], CONV_RELU)
    assert r.code == 0 and r.err == header + "===" + "-" * 73 + "===\n\n"


PDL_RELU_RELU = """pdl.pattern @relu_relu : benefit(1) {
  %t = pdl.type
  %x = pdl.operand
  %inner = pdl.operation "ge.relu"(%x : !pdl.value) -> (%t : !pdl.type)
  %r = pdl.result 0 of %inner
  %outer = pdl.operation "ge.relu"(%r : !pdl.value) -> (%t : !pdl.type)
  pdl.rewrite %outer {
    pdl.replace %outer with (%r : !pdl.value)
  }
}
"""


@exercises("--apply-pdl")
def test_apply_pdl(capsys, tmp_path):
    """More in test/lit/transforms/apply-pdl.mlir."""
    pdl = tmp_path / "p.pdl.mlir"
    pdl.write_text(PDL_RELU_RELU)
    two = RELU.replace("  func.return %0", "  %1 = ge.relu %0 : tensor<4xf32>\n  func.return %1")
    r = run(capsys, tmp_path, [f"--apply-pdl={pdl}"], two)
    assert (r.code, r.err) == (0, "") and r.out.count("ge.relu") == 1
    # In command-line order with the other pass flags: the cse first leaves nothing to do.
    r = run(capsys, tmp_path, ["--print-ir-after-all", f"--apply-pdl={pdl}", "--cse"], two)
    headers = re.findall(r"^// -----// IR Dump After (\S+) //----- //$", r.err, re.M)
    assert headers == ["apply-pdl", "dce", "cse"]
    missing = tmp_path / "missing.pdl.mlir"
    out = tmp_path / "out.mlir"
    out.write_text("precious")
    r = run(capsys, tmp_path, [f"--apply-pdl={missing}", "-o", str(out)], two)
    assert (r.code, r.out) == (1, "") and out.read_text() == "precious"
    assert r.err == f"{missing}: error: cannot read PDL patterns: No such file or directory\n"
    pdl.write_text(PDL_RELU_RELU.replace("pdl.result 0 of", "pdl.result of"))
    r = run(capsys, tmp_path, [f"--apply-pdl={pdl}"], two)
    assert (r.code, r.out) == (1, "") and r.err.startswith(f"{pdl}:5:")
    assert len(r.err.splitlines()) == 1
    one_line_usage_error(run(capsys, tmp_path, ["--apply-pdl"], two), "--apply-pdl expects a file")


# ---- pass flags ----------------------------------------------------------------------------


@exercises("--canonicalize")
def test_canonicalize_flag(capsys, tmp_path):
    clip = RELU.replace("ge.relu %x", "ge.clip %x min 0.0 max 6.0")
    r = run(capsys, tmp_path, ["--canonicalize"], clip)
    assert r.code == 0 and "ge.relu6 %x" in r.out


@exercises("--cse")
def test_cse_flag(capsys, tmp_path):
    assert run(capsys, tmp_path, [], TWO_RELUS).out.count("ge.relu") == 2
    assert run(capsys, tmp_path, ["--cse"], TWO_RELUS).out.count("ge.relu") == 1


@exercises("--dce")
def test_dce_flag(capsys, tmp_path):
    text = RELU.replace("  func.return", "  %1 = ge.sigmoid %x : tensor<4xf32>\n  func.return")
    assert "ge.sigmoid" in run(capsys, tmp_path, [], text).out
    assert "ge.sigmoid" not in run(capsys, tmp_path, ["--dce"], text).out


@exercises("--fuse")
def test_fuse_flag(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--fuse"], CONV_RELU)
    assert r.code == 0 and "ge.fused_conv2d" in r.out and "activation relu" in r.out


SILU_GATE = """func.func @f(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %a = ge.slice %x starts [0] ends [4] axes [1] steps [1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %b = ge.slice %x starts [4] ends [8] axes [1] steps [1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %s = ge.silu %a : tensor<4x4xf32>
  %y = ge.mul %s, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}
"""


@exercises("--fuse-mlp")
def test_fuse_mlp_flag(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--fuse-mlp"], SILU_GATE)
    assert r.code == 0 and "ge.swi_glu %x dim 1" in r.out and "ge.silu" not in r.out


ATTENTION = """func.func @f(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32> {
  %c = ge.const dense<0.25> : tensor<f32>
  %kt = ge.transpose %k perm [0, 1, 3, 2] : tensor<1x2x6x8xf32> -> tensor<1x2x8x6xf32>
  %s = ge.matmul %q, %kt : tensor<1x2x4x8xf32>, tensor<1x2x8x6xf32> -> tensor<1x2x4x6xf32>
  %t = ge.mul %s, %c : (tensor<1x2x4x6xf32>, tensor<f32>) -> tensor<1x2x4x6xf32>
  %p = ge.softmax %t axis 3 : tensor<1x2x4x6xf32>
  %o = ge.matmul %p, %v : tensor<1x2x4x6xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x4x8xf32>
  func.return %o : tensor<1x2x4x8xf32>
}
"""


@exercises("--fuse-attention")
def test_fuse_attention_flag(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--fuse-attention"], ATTENTION)
    assert r.code == 0 and "ge.flash_attention %q, %k, %v" in r.out
    assert "ge.softmax" not in r.out and "ge.matmul" not in r.out


MATMUL_WEIGHT = """func.func @f(%x: tensor<16x32xf16>) -> tensor<16x64xf16> {
  %w = ge.const dense<0.5> : tensor<32x64xf16>
  %y = ge.matmul %x, %w : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf16>
  func.return %y : tensor<16x64xf16>
}
"""


@exercises("--to-fractal-nz")
def test_to_fractal_nz_flag(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--to-fractal-nz"], MATMUL_WEIGHT)
    assert r.code == 0 and "tensor<32x64xf16, #ge.format<FRACTAL_NZ>>" in r.out
    assert (
        "tensor<32x64xf16, #ge.format<FRACTAL_NZ>>"
        not in run(capsys, tmp_path, [], MATMUL_WEIGHT).out
    )


@exercises("--to-nc1hwc0")
def test_to_nc1hwc0_flag(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--to-nc1hwc0"], CONV_RELU)
    assert r.code == 0 and "ge.trans_data" in r.out and "#ge.format<NC1HWC0>" in r.out
    one_line_usage_error(run(capsys, tmp_path, ["--to-nc1hwc0=nope=1"], CONV_RELU), "")


@exercises("--assign-streams")
def test_assign_streams_flag_and_its_report(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--assign-streams"])
    assert (r.code, r.err) == (0, "") and "stream.id = #stream.id<0>" in r.out
    r = run(capsys, tmp_path, ["--assign-streams=report", "--print-ir-after-all"])
    assert r.code == 0
    report = "[assign-streams] @f: mode labels, 1 stream(s)\n"
    assert r.err.startswith(report)  # printed after the pass, before its IR dump
    assert r.err.index("IR Dump After assign-streams") > r.err.index("events:")


@exercises("--lower-to-device")
def test_lower_to_device_flag(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--fuse", "--to-nc1hwc0", "--lower-to-device"], CONV_RELU)
    assert r.code == 0 and 'npu.launch "fused_conv2d"' in r.out and "npu.program" in r.out
    assert "ge." not in r.out.replace("npu.", "")
    one_line_usage_error(run(capsys, tmp_path, ["--lower-to-device=nope=1"], CONV_RELU), "")


@exercises("--plan-memory")
def test_plan_memory_flag(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--lower-to-device", "--plan-memory"], CONV_RELU)
    assert r.code == 0 and "npu.memory = {peak = " in r.out and "npu.view %workspace[" in r.out
    one_line_usage_error(run(capsys, tmp_path, ["--plan-memory=alignment=3"], CONV_RELU), "")


@exercises("--shard")
def test_shard_flag(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--shard=ranks=2,mode=tensor"], CONV_RELU)
    assert r.code == 0 and "@f_rank0" in r.out and "@f_rank1" in r.out
    assert "ge.shard = {rank = 1 : i64, ranks = 2 : i64" in r.out
    r = run(capsys, tmp_path, ["--shard=ranks=2,mode=data"], CONV_RELU)
    assert r.code == 1 and "input 'arg0' has batch 1, not a multiple of ranks=2" in r.err
    one_line_usage_error(run(capsys, tmp_path, ["--shard=mode=pipeline"], CONV_RELU), "")


ROW_PARALLEL = """func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = ge.relu %x : tensor<4x8xf32>
  %1 = ge.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %2 = ge.hcom_all_reduce %1 reduction sum group "tp" rank_size 2 : tensor<4x8xf32>
  %3 = ge.add %0, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %3 : tensor<4x8xf32>
}
"""


@exercises("--schedule", "--overlap")
def test_schedule_and_overlap_flags(capsys, tmp_path):
    r = run(capsys, tmp_path, ["--schedule"], ROW_PARALLEL)
    assert r.code == 0 and r.out.index("ge.hcom_all_reduce") < r.out.index("ge.relu")
    r = run(capsys, tmp_path, ["--overlap=chunks=2"], ROW_PARALLEL)
    assert r.code == 0 and r.out.count("ge.hcom_all_reduce") == 2 and "ge.concat" in r.out
    one_line_usage_error(run(capsys, tmp_path, ["--overlap=chunks=1"], ROW_PARALLEL), "")
    one_line_usage_error(run(capsys, tmp_path, ["--schedule=nope=1"], ROW_PARALLEL), "")
    r = run(capsys, tmp_path, ["--assign-streams=mode=auto,comm-streams=2"], ROW_PARALLEL)
    assert r.code == 0
    one_line_usage_error(
        run(capsys, tmp_path, ["--assign-streams=comm-streams=3"], ROW_PARALLEL), ""
    )


# ---- hidden flags and pipeline edge cases ---------------------------------------------------


@dataclass(frozen=True)
class _Shrinks(ModulePass):
    name = "test-shrinks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise ShrinkException()


@dataclass(frozen=True)
class _ReportsThenFails(ModulePass):
    name = "test-reports-then-fails"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from transforms import reports

        reports.record(op, "a report of a pass that then fails")
        raise PassFailedException("the pass failed")


@pytest.fixture
def test_passes_registered(monkeypatch):
    isolate_plugins(monkeypatch)
    register_pass(_Shrinks)
    register_pass(_ReportsThenFails)


@exercises("--shrink")
def test_shrink_follows_shrinkrays_protocol(capsys, tmp_path, test_passes_registered):
    (tmp_path / "in.mlir").write_text(RELU)
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "in.mlir"), "--shrink", "--cse"])
    assert exit_info.value.code == 1
    assert capsys.readouterr().out == "Failure, can't shrink\n"
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "in.mlir"), "--shrink", "--test-shrinks"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == "Success, can shrink\n"


def test_reports_of_a_failing_pass_are_printed(capsys, tmp_path, test_passes_registered):
    r = run(capsys, tmp_path, ["--test-reports-then-fails"])
    assert (r.code, r.out) == (1, "")
    error = f"{tmp_path / 'in.mlir'}: error: the pass failed\n"
    assert r.err == "a report of a pass that then fails\n" + error
