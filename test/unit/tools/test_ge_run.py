"""ge-run's command line, run in-process: the pipeline rules, inputs and outputs, --check
against the reference interpreter and onnxruntime, and every error case (one clear line,
non-zero exit, no traceback, --outputs untouched)."""

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
        "canonicalize,cse,fuse,to-nc1hwc0,assign-streams,lower-to-device,plan-memory",
        "lower-to-device,plan-memory",
        "fuse,lower-to-device,plan-memory",
        "cse,lower-to-device,plan-memory",
        "canonicalize,cse,fuse,to-nc1hwc0,assign-streams,lower-to-device,plan-memory",
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
    "unknown kernel": (["{unknown}"], 1, r"^\S+unknown\.mlir:2:3: error: unknown kernel 'frobnicate' \(the simulator has no kernel of that name\)$"),
    "kernel operands": (["{operands}"], 1, r"^\S+operands\.mlir:2:3: error: 'conv2d' on stream 0 cannot run on the operands this launch gives it: "),
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
    assert re.fullmatch(r"\S+operands\.mlir:2:3: error: 'conv2d' on stream 0 cannot run on the "
                        r"operands this launch gives it: .*\n", err)
