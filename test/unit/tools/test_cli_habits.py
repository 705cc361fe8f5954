"""ge-opt keeps mlir-opt's habits and never loses a file.

- Targets: only `mlir` is offered; xDSL's other targets are one usage line, exit 2.
- Files: the `-o` file and the external data file are replaced only when the run
  succeeded, never truncated while a constant still reads them (`-o` onto the input with
  `--externalize-constants-if-larger` keeps every constant's numbers).
- Habits: `-` is stdin, named `<stdin>`; `--split-input-file` reports a failing chunk in its
  place and goes on (exit 1 at the end); bad pass options name the pass, the option and
  what it expects; a bare boolean option word in `-p` means true; `--help` lists every
  pass with its options and their defaults.

All runs are in-process; `test/lit/tools/cli-*.mlir` compare some habits with mlir-opt's.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import sys
from dataclasses import dataclass

import numpy as np
import pytest
from helpers.support import ROOT

from ge_dialect import api
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.tools.ge_opt import main
from transforms import describe_pass, get_all_passes

EXAMPLE = os.path.join(ROOT, "examples", "resnet_block.mlir")

RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
"""
BAD_VERIFY = """func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ge.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  func.return %x : tensor<4xf32>
}
"""


@dataclass
class Run:
    code: int
    out: str
    err: str


def ge_opt(capsys, *args: str, stdin: bytes | None = None, monkeypatch=None) -> Run:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(list(args))
    out, err = capsys.readouterr()
    return Run(code, out, err)


def usage_error(r: Run, message: str) -> None:
    assert (r.code, r.out, r.err) == (2, "", f"ge-opt: error: {message}\n"), r


def help_text(capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps at the terminal width


# ---- targets ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target", ["llvm", "arm-asm", "x86-asm", "riscv-asm", "mps", "wat", "wgsl", "csl"]
)
def test_xdsl_targets_are_not_offered(capsys, tmp_path, target):
    path = tmp_path / "in.mlir"
    path.write_text(RELU)
    usage_error(
        ge_opt(capsys, str(path), "-t", target),
        f"argument -t/--target: invalid choice: '{target}' (choose from mlir, ge-pbtxt)",
    )
    assert f" {target}" not in help_text(capsys)


def test_help_offers_mlir_and_ge_pbtxt_only(capsys):
    assert "-t TARGET, --target TARGET the output format: mlir, or ge-pbtxt (" in help_text(capsys)


# ---- files ------------------------------------------------------------------------------------


def _consts(path: str) -> list[np.ndarray]:
    module = api.load(path)
    return [op.logical_array().copy() for op in module.walk() if isinstance(op, ge.ConstOp)]


def _assert_same(before: list[np.ndarray], after: list[np.ndarray]) -> None:
    assert len(before) == len(after)
    for a, b in zip(before, after, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_externalize_onto_the_input_keeps_every_constant(capsys, tmp_path):
    """`-o` onto the input, twice: the second run must not truncate the weights its
    constants read (it used to leave a 0-byte file)."""
    path = str(tmp_path / "a.mlir")
    shutil.copy(EXAMPLE, path)
    before = _consts(path)
    x = np.random.default_rng(0).uniform(-1, 1, (1, 8, 8, 8)).astype(np.float32)
    (reference,) = run_function(api.load(path), [x])
    for _ in range(2):
        r = ge_opt(capsys, path, "--externalize-constants-if-larger=16", "-o", path)
        assert (r.code, r.out, r.err) == (0, "", ""), r
        assert open(path).read().count('#ge.external<"a.mlir.weights", offset = ') == 2
        assert os.path.getsize(path + ".weights") == 2 * 8 * 8 * 3 * 3 * 4
        _assert_same(before, _consts(path))
    # A pass on the way: the fused weights are new data, the file holds what the IR reads.
    r = ge_opt(capsys, path, "--fuse", "--externalize-constants-if-larger=16", "-o", path)
    assert r.code == 0, r
    np.testing.assert_allclose(run_function(api.load(path), [x])[0], reference, rtol=1e-5)
    assert sorted(os.listdir(tmp_path)) == ["a.mlir", "a.mlir.weights"]  # no temporary left


def test_external_data_the_input_reads_is_not_replaced(capsys, tmp_path):
    path = str(tmp_path / "a.mlir")
    shutil.copy(EXAMPLE, path)
    assert ge_opt(capsys, path, "--externalize-constants-if-larger=16", "-o", path).code == 0
    weights = open(path + ".weights", "rb").read()
    out = str(tmp_path / "b.mlir")
    r = ge_opt(
        capsys,
        path,
        "--externalize-constants-if-larger=16",
        "--external-data",
        path + ".weights",
        "-o",
        out,
    )
    assert (r.code, r.out) == (1, ""), r
    assert r.err == (
        f"{path}:3:5: error: 'ge.const' op reads external data '{path}.weights', which this "
        "run replaces: choose another --external-data file\n"
    )
    assert open(path + ".weights", "rb").read() == weights and not os.path.exists(out)
    usage_error(
        ge_opt(
            capsys, path, "--externalize-constants-if-larger=16", "--external-data", out, "-o", out
        ),
        "--external-data and -o name the same file",
    )


def test_output_and_external_data_untouched_on_error(capsys, tmp_path):
    (tmp_path / "in.mlir").write_text(RELU + "// -----\n" + BAD_VERIFY)
    out, data = tmp_path / "out.mlir", tmp_path / "out.mlir.weights"
    out.write_text("precious")
    data.write_bytes(b"data")
    r = ge_opt(
        capsys,
        str(tmp_path / "in.mlir"),
        "--split-input-file",
        "--externalize-constants-if-larger=0",
        "-o",
        str(out),
    )
    assert (r.code, r.out) == (1, "") and "error: 'ge.relu' op" in r.err
    assert (out.read_text(), data.read_bytes()) == ("precious", b"data")
    assert sorted(os.listdir(tmp_path)) == ["in.mlir", "out.mlir", "out.mlir.weights"]


def test_output_onto_the_input(capsys, tmp_path):
    path = tmp_path / "in.mlir"
    line = "  %0 = ge.relu %x : tensor<4xf32>\n"
    path.write_text(RELU.replace(line, line + line.replace("%0", "%1")))
    r = ge_opt(capsys, str(path), "--cse", "--dce", "-o", str(path))
    assert (r.code, r.out, r.err) == (0, "", "")
    assert path.read_text() == ge_opt(capsys, str(tmp_path / "in.mlir")).out
    assert path.read_text().count("ge.relu") == 1


def test_output_file_keeps_its_mode_link_and_special_files(capsys, tmp_path):
    (tmp_path / "in.mlir").write_text(RELU)
    target, link = tmp_path / "target.mlir", tmp_path / "link.mlir"
    target.write_text("old")
    target.chmod(0o640)
    link.symlink_to(target)
    assert ge_opt(capsys, str(tmp_path / "in.mlir"), "-o", str(link)).code == 0
    assert link.is_symlink() and "ge.relu" in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    # /dev/null is written, not replaced by a regular file.
    assert ge_opt(capsys, str(tmp_path / "in.mlir"), "-o", os.devnull).code == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_unwritable_output_is_one_line(capsys, tmp_path):
    (tmp_path / "in.mlir").write_text(RELU)
    out = str(tmp_path / "missing" / "out.mlir")
    r = ge_opt(capsys, str(tmp_path / "in.mlir"), "-o", out)
    assert (r.code, r.out, r.err) == (
        1,
        "",
        f"{out}: error: cannot write output: No such file or directory\n",
    )


# ---- mlir-opt's habits ----------------------------------------------------------------------


def test_dash_is_stdin_named_stdin(capsys, tmp_path, monkeypatch):
    r = ge_opt(capsys, "-", "-o", "-", stdin=RELU.encode(), monkeypatch=monkeypatch)
    assert (r.code, r.err) == (0, "") and "ge.relu %x : tensor<4xf32>" in r.out
    bad = RELU.replace("ge.relu %x", "ge.relu %y").encode()
    r = ge_opt(capsys, "-", stdin=bad, monkeypatch=monkeypatch)
    assert (r.code, r.out, r.err) == (1, "", "<stdin>:2:16: error: use of undefined value '%y'\n")
    r = ge_opt(capsys, "--print-debuginfo", stdin=RELU.encode(), monkeypatch=monkeypatch)
    assert 'loc("<stdin>":2:3)' in r.out


def test_split_input_file_reports_a_failing_chunk_in_its_place(capsys, tmp_path):
    """As mlir-opt: every chunk's result in order, nothing for a failing one (its error on
    stderr), the next chunks go on, exit 1 (test/lit/tools/cli-split-input-file.mlir)."""
    third = RELU.replace("@f", "@h")
    path = tmp_path / "in.mlir"
    path.write_text(
        RELU + "// -----\n" + BAD_VERIFY + "// -----\n" + "%0 = ge.nope\n// -----\n" + third
    )
    r = ge_opt(capsys, str(path), "--split-input-file")
    ok = [ge_opt(capsys, str(tmp_path / name)).out for name in _write(tmp_path, RELU, third)]
    assert r.code == 1
    assert r.out == ok[0] + "// -----\n// -----\n// -----\n" + ok[1]
    errors = r.err.splitlines()
    assert len(errors) == 2
    assert errors[0].startswith(f"{path}:7:3: error: 'ge.relu' op result 'output'")
    assert errors[1].startswith(f"{path}:11:")


def _write(tmp_path, *texts: str) -> list[str]:
    names = [f"ok{i}.mlir" for i in range(len(texts))]
    for name, text in zip(names, texts, strict=True):
        (tmp_path / name).write_text(text)
    return names


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["-p", "assign-streams{max-streams=abc}"],
            "option 'max-streams' expects an integer, got 'abc'",
        ),
        (
            ["--assign-streams=max-streams=abc"],
            "option 'max-streams' expects an integer, got 'abc'",
        ),
        (
            ["-p", "assign-streams{max-streams=1.5}"],
            "option 'max-streams' expects an integer, got '1.5'",
        ),
        (
            ["-p", "assign-streams{max-streams=true}"],
            "option 'max-streams' expects an integer, got 'true'",
        ),
        (["-p", "assign-streams{max-streams}"], "option 'max-streams' requires a value"),
        (
            ["-p", "assign-streams{report=maybe}"],
            "option 'report' expects true or false, got 'maybe'",
        ),
        (["--assign-streams=report=1"], "option 'report' expects true or false, got '1'"),
        (
            ["-p", "assign-streams{streams=2}"],
            "unknown option 'streams' (options: mode, max-streams, report, comm-streams, priorities)",
        ),
        (["-p", "assign-streams{mode=fast}"], "mode must be labels, auto or single, got 'fast'"),
        (["--assign-streams=max-streams=0"], "max-streams must be at least 1, got 0"),
    ],
)
def test_bad_pass_option_names_pass_option_and_expectation(capsys, tmp_path, args, message):
    (tmp_path / "in.mlir").write_text(RELU)
    usage_error(ge_opt(capsys, str(tmp_path / "in.mlir"), *args), f"assign-streams: {message}")


def test_unknown_option_of_a_pass_without_options(capsys, tmp_path):
    (tmp_path / "in.mlir").write_text(RELU)
    usage_error(
        ge_opt(capsys, str(tmp_path / "in.mlir"), "--cse=x=1"),
        "cse: unknown option 'x' (it has no options)",
    )


def test_bare_boolean_option_is_true_in_a_pipeline(capsys, tmp_path):
    (tmp_path / "in.mlir").write_text(RELU)
    report = "[assign-streams] @f: mode labels, 1 stream(s)\n"
    for args in (["-p", "assign-streams{report}"], ["--assign-streams=report"]):
        r = ge_opt(capsys, str(tmp_path / "in.mlir"), *args)
        assert r.code == 0 and r.err.startswith(report), r
    r = ge_opt(capsys, str(tmp_path / "in.mlir"), "-p", "assign-streams{report=false}")
    assert (r.code, r.err) == (0, "")


def test_help_lists_every_pass_with_its_options_and_defaults(capsys):
    text = help_text(capsys)
    for name, factory in get_all_passes().items():
        if name == "apply-pdl":  # its flag takes the file: --apply-pdl FILE
            assert "--apply-pdl FILE apply the PDL patterns (pdl.pattern) of FILE" in text
            continue
        assert f"--{name} {' '.join(describe_pass(name, factory()).split())}" in text, name
    assert (
        "max-streams=<int> (default 8): auto mode: the most automatic streams, stream 0 included"
        in text
    )
    assert "mode=labels|auto|single (default labels):" in text
    assert "report=<bool> (default false):" in text
    assert "fp32-c0=16|8 (default 16):" in text and "boundary=keep|nc1hwc0 (default keep):" in text


def test_every_pass_option_has_help():
    for name, factory in get_all_passes().items():
        lines = describe_pass(name, factory()).splitlines()
        assert lines[0], f"{name} has no description"
        for line in lines[1:]:
            assert re.fullmatch(r"  [a-z0-9-]+=\S+ \((default .*|required)\): \S.*", line), line
