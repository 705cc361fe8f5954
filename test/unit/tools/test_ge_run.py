"""ge-run's command line, run in-process: the pipeline rules, inputs and outputs,
--check-numbers (old name --check) against the reference interpreter and onnxruntime,
external data read relative to the IR file from any working directory, a --help that lists
only the flags ge-run takes (ge-opt's output flags are refused, the printer's flags shape the
IR dumps), --no-race-check (old name --no-check), --timeline writing PNG files only, and
every error case (one clear line, non-zero exit, no traceback, --outputs untouched)."""

from __future__ import annotations

import os
import re

import numpy as np
import onnx
import pytest
from helpers.support import ROOT
from onnx import TensorProto, helper

from ge_dialect.tools.ge_run import main

EXAMPLES = [os.path.join(ROOT, "examples", n) for n in ("resnet_block.mlir", "torchair_multistream.mlir")]

RELU = """func.func @f(%x: tensor<2x3xf32> {ge.name = "x"}) -> (tensor<2x3xf32> {ge.name = "y"}) {
  %0 = ge.relu %x : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
"""

NPU = """func.func @main(%x: memref<4xf32> {npu.input = "x"}, %y: memref<4xf32> {npu.output = "y"}) attributes {npu.program} {
  BODY
  func.return
}
"""

LAUNCH = ('npu.launch "relu"(%x) -> (%y) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) '
          "cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}")


def run(capsys, args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def onnx_model(tmp_path) -> str:
    """Conv -> BatchNormalization -> Relu -> GlobalAveragePool, 17 channels."""
    rng = np.random.default_rng(0)

    def init(name, array):
        return helper.make_tensor(name, TensorProto.FLOAT, array.shape, array.astype(np.float32).ravel())

    c = 17
    inits = [init("w", rng.normal(0, 0.2, (c, 3, 3, 3))), init("s", rng.uniform(0.5, 1.5, c)),
             init("b", rng.uniform(-0.5, 0.5, c)), init("m", rng.uniform(-0.5, 0.5, c)),
             init("v", rng.uniform(0.1, 10, c))]
    nodes = [
        helper.make_node("Conv", ["input", "w"], ["conv"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["conv", "s", "b", "m", "v"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["relu"]),
        helper.make_node("GlobalAveragePool", ["relu"], ["pooled"]),
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, c, 1, 1]),
         helper.make_tensor_value_info("relu", TensorProto.FLOAT, [1, c, 8, 8])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    return str(path)


@pytest.mark.parametrize("example", EXAMPLES)
def test_examples_check(capsys, example):
    code, out, err = run(capsys, [example, "--check"])
    assert code == 0, err
    assert re.search(r"^check \S+: max \|error\| \S+ against reference interpreter$", out, re.M)
    assert "outside tolerance" not in out


def test_onnx_check_against_both(capsys, tmp_path):
    code, out, err = run(capsys, [onnx_model(tmp_path), "--check"])
    assert code == 0, err
    assert re.search(r"^pooled: shape \[1, 17, 1, 1\] float32  min \S+  max \S+  mean \S+$", out, re.M)
    assert "check pooled: max |error|" in out and "against onnxruntime" in out
    assert out.count("against") == 4


def test_inputs_and_outputs_by_name(capsys, tmp_path):
    src = write(tmp_path, "relu.mlir", RELU)
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    code, out, err = run(capsys, [src, "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz"])
    assert code == 0, err
    assert out.startswith("y: shape [2, 3] float32  min 0  max 6  mean 2\nmakespan ")
    with np.load(tmp_path / "out.npz") as data:
        assert data.files == ["y"]
        np.testing.assert_array_equal(data["y"], np.maximum(x, 0))


def test_pipeline_rules(capsys, tmp_path, monkeypatch):
    from ge_dialect.tools import ge_run

    seen = []
    original = ge_run.GeRunMain.setup_pipeline

    def spy(self):
        original(self)
        seen.append(",".join(p.name for p in self.pipeline.passes))

    monkeypatch.setattr(ge_run.GeRunMain, "setup_pipeline", spy)
    src = write(tmp_path, "relu.mlir", RELU)
    for args in ([], ["-O0"], ["--fuse"], ["-p", "cse,lower-to-device"], ["-O1"],
                 ["-p", "fuse,plan-memory"]):
        assert run(capsys, [src, *args])[0] == 0
    assert seen == [
        "canonicalize,cse,fuse,fuse-attention,fuse-mlp,to-nc1hwc0,assign-streams,lower-to-device,plan-memory",
        "lower-to-device,plan-memory",
        "fuse,lower-to-device,plan-memory",
        "cse,lower-to-device,plan-memory",
        "canonicalize,cse,fuse,fuse-attention,fuse-mlp,to-nc1hwc0,assign-streams,lower-to-device,plan-memory",
        "fuse,lower-to-device,plan-memory",
    ]


def test_device_program_runs_no_passes(capsys, tmp_path):
    src = write(tmp_path, "p.mlir", NPU.replace("BODY", LAUNCH))
    code, out, err = run(capsys, [src, "--seed", "4"])
    assert code == 0, err
    assert out.startswith("y: shape [4] float32")


def test_seeded_random_inputs_are_deterministic(capsys, tmp_path):
    src = write(tmp_path, "relu.mlir", RELU)
    first = run(capsys, [src])[1]
    assert first == run(capsys, [src])[1] and first != run(capsys, [src, "--seed", "1"])[1]


ERRORS = {
    "missing file": (["nope.mlir"], 1, r"^nope\.mlir: error: cannot read input: No such file or directory$"),
    "bad IR": (["{bad}"], 1, r"^\S+bad\.mlir:\d+:\d+: error: "),
    "elided": (["{elided}"], 1, r"^\S+elided\.mlir: error: the IR has elided constants \(#ge\.elided\): ge-run needs their data"),
    "O0 and passes": (["{relu}", "-O0", "--fuse"], 2, r"^ge-run: error: -O0 runs no optimisation: drop the pass flags or -p$"),
    "-o": (["{relu}", "-o", "x.mlir"], 2, r"^ge-run: error: -o is a ge-opt option; ge-run prints no IR$"),
    "unknown flag": (["{relu}", "--frobnicate"], 2, r"^ge-run: error: "),
    "unknown pass": (["{relu}", "-p", "nope"], 2, r"^ge-run: error: .*nope"),
    "inputs missing": (["{relu}", "--inputs", "{none}"], 1, r"^\S+none\.npz: error: cannot read inputs: No such file"),
    "inputs not npz": (["{relu}", "--inputs", "{relu}"], 1, r"^\S+relu\.mlir: error: not a readable \.npz archive"),
    "missing entry": (["{relu}", "--inputs", "{empty}"], 1, r"^\S+empty\.npz: error: missing input 'x' \(shape \[2, 3\], dtype float32\)$"),
    "wrong shape": (["{relu}", "--inputs", "{small}"], 1, r"^\S+small\.npz: error: input 'x' has shape \[3\], expected \[2, 3\]$"),
    "unknown entry": (["{relu}", "--inputs", "{extra}"], 1, r"^\S+extra\.npz: error: unknown input 'z'; the program's inputs are x$"),
    "deadlock": (["{deadlock}"], 1, r"^\S+deadlock\.mlir: error: deadlock: stream 0 is blocked at the wait of event 0"),
    "check on npu": (["{deadlock}", "--check"], 2, r"^ge-run: error: --check compares a graph with its reference"),
    "bad npu": (["{badnpu}"], 1, r"^\S+badnpu\.mlir:\d+:\d+: error: "),
    "unknown kernel": (["{unknown}"], 1, r"^\S+unknown\.mlir:2:3: error: 'npu\.launch' op unknown kernel 'frobnicate' \(a kernel is named after a ge op: 'conv2d' runs ge\.conv2d\)$"),
    "kernel operands": (["{operands}"], 1, r"^\S+operands\.mlir:2:3: error: 'npu\.launch' op kernel 'conv2d': takes 2 inputs \(input, filter\), got 1$"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(capsys, tmp_path, case):
    args, expected_code, pattern = ERRORS[case]
    files = {
        "bad": write(tmp_path, "bad.mlir", "func.func @f(%x: tensor<4xf32>) {\n"),
        "relu": write(tmp_path, "relu.mlir", RELU),
        "elided": write(tmp_path, "elided.mlir", RELU.replace(
            "  %0 = ge.relu %x : tensor<2x3xf32>",
            "  %c = ge.const #ge.elided : tensor<2x3xf32>\n  %0 = ge.add %x, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>")),
        "none": str(tmp_path / "none.npz"),
        "deadlock": write(tmp_path, "deadlock.mlir", NPU.replace("BODY", "npu.wait 0 stream 0\n  " + LAUNCH)),
        "badnpu": write(tmp_path, "badnpu.mlir", NPU.replace("BODY", LAUNCH.replace("(%y)", "(%x)"))),
        "unknown": write(tmp_path, "unknown.mlir", NPU.replace("BODY", LAUNCH.replace('"relu"', '"frobnicate"'))),
        "operands": write(tmp_path, "operands.mlir", NPU.replace("BODY", LAUNCH.replace('"relu"', '"conv2d"'))),
    }
    for name in ("empty", "small", "extra"):
        files[name] = str(tmp_path / f"{name}.npz")
    np.savez(files["empty"])
    np.savez(files["small"], x=np.zeros(3, np.float32))
    np.savez(files["extra"], x=np.zeros((2, 3), np.float32), z=np.zeros(1))
    outputs = tmp_path / "out.npz"
    outputs.write_bytes(b"precious")
    argv = [a.format(**files) for a in args] + ["--outputs", str(outputs)]
    code, out, err = run(capsys, argv)
    assert code == expected_code, (out, err)
    assert re.search(pattern, err, re.M), err
    assert len(err.strip().splitlines()) == 1, err
    assert outputs.read_bytes() == b"precious"


def test_output_does_not_depend_on_hash_seed(tmp_path):
    """The summary, the checks and the written outputs are byte-identical under two hash
    seeds (a multi-stream example: the start order must not come from iterating a set)."""
    import subprocess
    import sys

    results = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}.npz"
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=ROOT)
        args = [sys.executable, "-m", "ge_dialect.tools.ge_run", EXAMPLES[1], "--check",
                "-p", "assign-streams{mode=auto}", "--outputs", str(out)]
        proc = subprocess.run(args, capture_output=True, env=env, check=True)
        results.append((proc.stdout, out.read_bytes()))
    assert results[0] == results[1]
    assert b"check mm1" in results[0][0]


def test_kernel_the_time_model_cannot_time_is_one_located_error(capsys, tmp_path):
    path = write(tmp_path, "operands.mlir", NPU.replace("BODY", LAUNCH.replace('"relu"', '"conv2d"')))
    code, out, err = run(capsys, [path, "--timing-only"])
    assert code == 1 and out == ""
    assert re.fullmatch(r"\S+operands\.mlir:2:3: error: 'npu\.launch' op kernel 'conv2d': takes 2 "
                        r"inputs \(input, filter\), got 1\n", err)


# ---- external data: relative to the IR file, from any working directory -----------------

EXTERNAL = """func.func @f(%x: tensor<2x16xf32> {ge.name = "x"})
    -> (tensor<2x16xf32> {ge.name = "y"}) {
  %c = ge.const dense<VALUES> : tensor<2x16xf32>
  %0 = ge.add %x, %c : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %1 = ge.relu %0 : tensor<2x16xf32>
  func.return %1 : tensor<2x16xf32>
}
"""


@pytest.fixture
def externalized(tmp_path, capsys):
    """`ir/g.mlir` with its constant in `ir/g.mlir.weights` (written by ge-opt), and an empty
    `elsewhere/` to run from."""
    from ge_dialect.tools.ge_opt import main as ge_opt

    rows = [", ".join(f"{v / 8 - 2}" for v in range(16 * r, 16 * r + 16)) for r in (0, 1)]
    source = write(tmp_path, "g.mlir", EXTERNAL.replace("VALUES", f"[[{rows[0]}], [{rows[1]}]]"))
    (tmp_path / "ir").mkdir()
    (tmp_path / "elsewhere").mkdir()
    out = tmp_path / "ir" / "g.mlir"
    assert ge_opt([source, "--externalize-constants-if-larger=16", "-o", str(out)]) == 0
    capsys.readouterr()
    assert '#ge.external<"g.mlir.weights"' in out.read_text()
    return out


@pytest.mark.parametrize("flags", [["--check"], ["--check-numbers", "--compare-unoptimized"]])
def test_external_data_is_read_relative_to_the_ir_file_from_any_directory(
    capsys, tmp_path, monkeypatch, externalized, flags
):
    expected = run(capsys, [externalized, "--outputs", tmp_path / "expected.npz"])
    assert expected[0] == 0, expected
    text = externalized.read_text()
    monkeypatch.chdir(tmp_path / "elsewhere")
    for path in (externalized, os.path.join("..", "ir", "g.mlir")):  # absolute, relative
        code, out, err = run(capsys, [path, *flags, "--outputs", "out.npz"])
        assert (code, err) == (0, ""), err
        assert re.search(r"^check y: max \|error\| 0 against reference interpreter$", out, re.M)
        assert ("speed-up" in out) == ("--compare-unoptimized" in flags)
        with np.load("out.npz") as got, np.load(tmp_path / "expected.npz") as want:
            np.testing.assert_array_equal(got["y"], want["y"])
    assert externalized.read_text() == text  # the input's paths are as they were


def test_missing_external_data_names_the_path_it_looked_for(
    capsys, tmp_path, monkeypatch, externalized
):
    os.remove(f"{externalized}.weights")
    monkeypatch.chdir(tmp_path / "elsewhere")
    code, out, err = run(capsys, [externalized, "--check"])
    assert (code, out) == (1, "")
    # (the simulator reads the weights first: the lowered constant, at the ge.const's location)
    assert err == (
        f"{externalized}:3:5: error: 'npu.weight' op cannot open external data "
        f"'{tmp_path / 'ir'}/g.mlir.weights': No such file or directory\n"
    )


# ---- --help lists what ge-run takes, and only that ----------------------------------------


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
            flags.update(part.split()[0] for part in m.group(1).split(", "))
    return flags


def onnx_relu(tmp_path) -> str:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


PROFILES = os.path.join(ROOT, "ge_dialect", "sim", "profiles")
ACCEPTED = {
    # flag: the arguments of a run that uses it ({relu}, {module}, {onnx}: input files)
    "--allow-unregistered-dialect": ["{relu}", "--allow-unregistered-dialect"],
    "--no-implicit-module": ["{module}", "--no-implicit-module"],
    "-p": ["{relu}", "-p", "cse"],
    "--passes": ["{relu}", "--passes", "cse"],
    "--time-passes": ["{relu}", "--time-passes"],
    "--verify-diagnostics": ["{relu}", "--verify-diagnostics"],
    "--parsing-diagnostics": ["{relu}", "--parsing-diagnostics"],
    "--print-op-generic": ["{relu}", "--print-op-generic", "--print-ir-after-all"],
    "--print-no-properties": ["{relu}", "--print-no-properties", "--print-ir-after-all"],
    "--print-debuginfo": ["{relu}", "--print-debuginfo", "--print-between-passes"],
    "--syntax-highlight": ["{relu}", "--syntax-highlight", "--print-ir-after-all"],
    "-f": ["{relu}", "-f", "mlir"],
    "--frontend": ["{onnx}", "--frontend", "onnx", "--input-shape", "x=2x3"],
    "--disable-verify": ["{relu}", "--disable-verify"],
    "--print-between-passes": ["{relu}", "--print-between-passes"],
    "--print-ir-after-all": ["{relu}", "--print-ir-after-all"],
    "--input-shape": ["{onnx}", "--input-shape", "x=2x3"],
    "--gears": ["{onnx}", "--input-shape", "x:?x3", "--gears", "x:0=1,2"],
    "--load-patterns": [
        "{relu}",
        "--load-patterns",
        os.path.join(ROOT, "examples", "patterns", "silu.py"),
    ],
    "--pass-statistics": ["{relu}", "--pass-statistics"],
    "--tuned": ["{relu}", "--tuned", "{tuned}"],
    "-O": ["{relu}", "-O0"],
    "--inputs": ["{relu}", "--inputs", "{npz}"],
    "--outputs": ["{relu}", "--outputs", "{tmp}/out.npz"],
    "--check-numbers": ["{relu}", "--check-numbers"],
    "--check": ["{relu}", "--check"],
    "--seed": ["{relu}", "--seed", "3"],
    "--profile": ["{relu}", "--profile", os.path.join(PROFILES, "ascend910.json")],
    "--report": ["{relu}", "--report", "json"],
    "--trace": ["{relu}", "--trace", "{tmp}/t.json"],
    "--timeline": ["{relu}", "--timeline", "{tmp}/t.png"],
    "--timing-only": ["{relu}", "--timing-only"],
    "--compare-unoptimized": ["{relu}", "--compare-unoptimized"],
    "--ranks": ["{relu}", "--ranks", "2"],
    "--topology": [
        "{relu}",
        "--ranks",
        "2",
        "--topology",
        os.path.join(PROFILES, "ascend910-8p.json"),
    ],
    "--hccl-algo": ["{relu}", "--ranks", "2", "--hccl-algo", "ring"],
    "--no-race-check": ["{relu}", "--no-race-check"],
    "--no-check": ["{relu}", "--no-check"],
    "--package": ["{relu}", "--ranks", "2", "--package", "{tmp}/package"],
}
"""Every flag `ge-run --help` lists (but -h, -v and the pass flags, which are ge-opt's) with a
run that takes it."""

REFUSED = {  # every option string of ge-opt's flags that ge-run refuses, with its message
    "-o": "is a ge-opt option; ge-run prints no IR",
    "--output-file": "is a ge-opt option; ge-run prints no IR",
    "-t": "is a ge-opt option; ge-run prints no IR",
    "--target": "is a ge-opt option; ge-run prints no IR",
    "--elide-constants-if-larger": "is a ge-opt option; ge-run prints no IR",
    "--externalize-constants-if-larger": "is a ge-opt option; ge-run prints no IR",
    "--external-data": "is a ge-opt option; ge-run prints no IR",
    "--split-input-file": "is a ge-opt option; ge-run runs its input as one graph",
}


def test_help_lists_every_flag_ge_run_takes_and_no_other(capsys, monkeypatch):
    from helpers.plugin_support import isolate_plugins

    from transforms import get_all_passes

    isolate_plugins(monkeypatch)
    listed = listed_flags(help_text(capsys))
    pass_flags = {f"--{name}" for name in get_all_passes()}
    assert {"--fuse", "--apply-pdl", "--check-numbers", "-O"} <= listed  # the parser works
    assert listed - pass_flags - {"-h", "--help", "-v", "--version"} == set(ACCEPTED)
    assert not listed & set(REFUSED)


@pytest.mark.parametrize("flag", sorted(ACCEPTED))
def test_every_listed_flag_is_accepted(capsys, tmp_path, monkeypatch, flag):
    from helpers.plugin_support import isolate_plugins

    isolate_plugins(monkeypatch)
    files = {
        "relu": write(tmp_path, "relu.mlir", RELU),
        "module": write(tmp_path, "module.mlir", f"builtin.module {{\n{RELU}}}\n"),
        "onnx": onnx_relu(tmp_path),
        "npz": str(tmp_path / "in.npz"),
        "tmp": str(tmp_path),
    }
    np.savez(files["npz"], x=np.ones((2, 3), np.float32))
    if flag == "--tuned":  # a ge-tune study of the graph
        from ge_dialect import api

        files["tuned"] = str(tmp_path / "t.db")
        api.tune(files["relu"], trials=2, storage=f"sqlite:///{files['tuned']}", seed=0)
    code, out, err = run(capsys, [a.format(**files) for a in ACCEPTED[flag]])
    assert code == 0, err
    assert "makespan" in out, out  # it ran (the text or the JSON report)


def test_version(capsys):
    from ge_dialect import __version__

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith(f"ge-run {__version__} (xdsl ")


@pytest.mark.parametrize("flag", sorted(REFUSED))
def test_ge_opt_output_flags_are_refused_before_anything_runs(capsys, tmp_path, flag):
    outputs = tmp_path / "out.npz"
    value = [] if flag == "--split-input-file" else ["16" if "constants" in flag else "x.mlir"]
    code, out, err = run(
        capsys, [write(tmp_path, "relu.mlir", RELU), flag, *value, "--outputs", outputs]
    )
    assert (code, out, err) == (2, "", f"ge-run: error: {flag} {REFUSED[flag]}\n")
    assert not outputs.exists() and not (tmp_path / "x.mlir").exists()


@pytest.mark.parametrize(
    "flag",
    ["--print-op-generic", "--print-no-properties", "--print-debuginfo", "--syntax-highlight"],
)
def test_printer_flags_need_an_ir_dump(capsys, tmp_path, flag):
    code, out, err = run(capsys, [write(tmp_path, "relu.mlir", RELU), flag])
    assert (code, out) == (2, "")
    assert err == (
        f"ge-run: error: {flag} applies to the IR dumps: ge-run prints IR only with "
        "--print-ir-after-all or --print-between-passes\n"
    )


def test_printer_flags_shape_the_ir_dumps(capsys, tmp_path):
    src = write(tmp_path, "relu.mlir", RELU)
    code, out, custom = run(capsys, [src, "-p", "cse", "--print-ir-after-all"])
    assert code == 0 and "IR Dump After cse" in custom
    assert "%0 = ge.relu %x : tensor<2x3xf32>" in custom and '"ge.relu"' not in custom
    code, out, generic = run(
        capsys, [src, "-p", "cse", "--print-ir-after-all", "--print-op-generic"]
    )
    assert code == 0 and '%0 = "ge.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>' in generic
    code, out, located = run(
        capsys, [src, "-p", "cse", "--print-between-passes", "--print-debuginfo"]
    )
    assert code == 0 and f'ge.relu %x : tensor<2x3xf32> loc("{src}":2:3)' in located
    code, out, colored = run(
        capsys, [src, "-p", "cse", "--print-ir-after-all", "--syntax-highlight"]
    )
    assert code == 0 and "\x1b[" in colored and "\x1b[" not in out


# ---- --check-numbers / --no-race-check and their old names -------------------------------

RACY = NPU.replace(
    "BODY",
    "%a = npu.alloc : memref<4xf32>\n  "
    + LAUNCH.replace("(%y)", "(%a)")
    + "\n  "
    + LAUNCH.replace("(%x)", "(%a)").replace("stream 0", "stream 1"),
)


def test_help_names_the_old_spellings(capsys):
    text = " ".join(help_text(capsys).split())
    assert "--check-numbers, --check compare the outputs with the reference interpreter" in text
    assert "(--check: its old name)" in text
    assert "--no-race-check, --no-check skip the memory checker" in text
    assert "--no-check: its old name)" in text


@pytest.mark.parametrize("flag", ["--check-numbers", "--check"])
def test_check_numbers_and_its_old_name(capsys, tmp_path, flag):
    src = write(tmp_path, "relu.mlir", RELU)
    code, out, err = run(capsys, [src, flag])
    assert (code, err) == (0, "")
    assert "\ncheck y: max |error| 0 against reference interpreter\n" in out
    code, out, err = run(capsys, [src, flag, "--timing-only"])
    assert (code, out, err) == (
        2,
        "",
        f"ge-run: error: {flag} needs numbers: it cannot go with --timing-only\n",
    )
    code, out, err = run(capsys, [write(tmp_path, "p.mlir", NPU.replace("BODY", LAUNCH)), flag])
    assert (code, out, err) == (
        2,
        "",
        f"ge-run: error: {flag} compares a graph with its reference: "
        "the input is already a device program\n",
    )


@pytest.mark.parametrize("flag", ["--no-race-check", "--no-check"])
def test_no_race_check_and_its_old_name(capsys, tmp_path, flag):
    racy = write(tmp_path, "race.mlir", RACY)
    code, out, err = run(capsys, [racy])
    assert code == 1 and f"{racy}: error: race: read-after-write" in err
    code, out, err = run(capsys, [racy, flag])
    assert (code, err) == (0, "") and out.startswith("y: shape [4] float32")


def test_compare_unoptimized_on_a_device_program_is_a_usage_error(capsys, tmp_path):
    code, out, err = run(
        capsys, [write(tmp_path, "p.mlir", NPU.replace("BODY", LAUNCH)), "--compare-unoptimized"]
    )
    assert (code, out, err) == (
        2,
        "",
        "ge-run: error: --compare-unoptimized lowers the graph without "
        "optimisation: the input is already a device program\n",
    )


# ---- --timeline draws PNG files only -------------------------------------------------------


@pytest.mark.parametrize("name", ["t.jpg", "t.svg", "t.pdf", "t", "t.png.jpg", "png"])
def test_timeline_other_than_png_is_refused_before_anything_runs(capsys, tmp_path, name):
    outputs = tmp_path / "out.npz"
    timeline = tmp_path / name
    code, out, err = run(
        capsys, [write(tmp_path, "relu.mlir", RELU), "--timeline", timeline, "--outputs", outputs]
    )
    assert (code, out, err) == (
        2,
        "",
        f"ge-run: error: --timeline draws a PNG: '{timeline}' must end in .png\n",
    )
    assert not timeline.exists() and not outputs.exists()


@pytest.mark.parametrize("name", ["t.png", "T.PNG"])
def test_timeline_writes_a_png(capsys, tmp_path, name):
    code, out, err = run(
        capsys, [write(tmp_path, "relu.mlir", RELU), "--timeline", tmp_path / name]
    )
    assert (code, err) == (0, "")
    assert (tmp_path / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
