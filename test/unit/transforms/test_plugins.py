"""`--load-patterns=PATH` (ge-opt and ge-run): plugins that register passes.

A plugin is a Python file imported before the pass flags are split, so the passes it
registers (`transforms.register_pass`) are flags and `-p` passes of the same command line.
Every failure is one line naming the plugin (and its line), a non-zero exit, nothing on
stdout and the `-o` file untouched.  All runs are in-process, each test with empty plugin
registries (`plugin_support.isolate_plugins`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.plugin_support import RELU_TO_SIGMOID, isolate_plugins, write_plugin

from ge_dialect.tools import ge_opt, ge_run
from transforms import get_all_passes

RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
"""


@pytest.fixture(autouse=True)
def _isolated(monkeypatch):
    isolate_plugins(monkeypatch)


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def files(tmp_path) -> tuple[Path, Path]:
    """(input, plugin): the one-relu function and the relu-to-sigmoid plugin."""
    source = tmp_path / "in.mlir"
    source.write_text(RELU)
    return source, write_plugin(tmp_path / "plugin.py", RELU_TO_SIGMOID)


def opt(capsys, *args: object) -> Run:
    code = ge_opt.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return Run(code, out, err)


def run(capsys, *args: object) -> Run:
    code = ge_run.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return Run(code, out, err)


def failed(r: Run, err: str, code: int = 1) -> None:
    assert (r.code, r.out, r.err) == (code, "", err), r


# ---- loading ----------------------------------------------------------------------------------


def test_plugin_passes_are_flags_and_pipeline_passes(capsys, files):
    source, plugin = files
    for args in (
        [f"--load-patterns={plugin}", "--relu-to-sigmoid"],
        ["--relu-to-sigmoid", "--load-patterns", plugin],  # the flag may come after its pass
        ["--load-patterns", plugin, "-p", "relu-to-sigmoid,cse"],
    ):
        r = opt(capsys, source, *args)
        assert (r.code, r.err) == (0, ""), r
        assert "ge.sigmoid %x : tensor<4xf32>" in r.out and "ge.relu" not in r.out
    r = opt(capsys, source, "--relu-to-sigmoid")  # loaded in this process, registered
    assert r.code == 0 and "ge.sigmoid" in r.out


def test_loading_a_plugin_twice_registers_once(capsys, files, tmp_path):
    source, plugin = files
    (tmp_path / "sub").mkdir()
    other_spelling = tmp_path / "sub" / ".." / "plugin.py"
    args = [f"--load-patterns={plugin}", f"--load-patterns={other_spelling}", "--relu-to-sigmoid"]
    for _ in range(2):
        r = opt(capsys, source, *args)
        assert (r.code, r.err) == (0, "") and "ge.sigmoid" in r.out, r
    assert list(get_all_passes()).count("relu-to-sigmoid") == 1


def test_several_plugins(capsys, files, tmp_path):
    source, plugin = files
    second = write_plugin(
        tmp_path / "second.py",
        RELU_TO_SIGMOID.replace("ReluToSigmoid", "SigmoidToRelu")
        .replace('"relu-to-sigmoid"', '"sigmoid-to-relu"')
        .replace("ReluOp", "XOp")
        .replace("SigmoidOp", "ReluOp")
        .replace("XOp", "SigmoidOp"),
    )
    r = opt(
        capsys,
        source,
        "--load-patterns",
        plugin,
        f"--load-patterns={second}",
        "--relu-to-sigmoid",
        "--sigmoid-to-relu",
    )
    assert (r.code, r.err) == (0, "") and "ge.relu %x" in r.out and "ge.sigmoid" not in r.out


def test_help_lists_plugin_passes(capsys, files):
    _, plugin = files
    with pytest.raises(SystemExit):
        ge_opt.main([f"--load-patterns={plugin}", "--help"])
    text = capsys.readouterr().out
    assert "--relu-to-sigmoid" in text and "Replaces every ge.relu with a ge.sigmoid" in text


# ---- errors while loading ------------------------------------------------------------------------


def test_missing_plugin(capsys, files, tmp_path):
    source, _ = files
    out = tmp_path / "out.mlir"
    out.write_text("precious")
    missing = tmp_path / "missing.py"
    r = opt(capsys, source, f"--load-patterns={missing}", "-o", out)
    failed(r, f"{missing}: error: cannot load patterns: No such file or directory\n")
    assert out.read_text() == "precious"
    r = opt(capsys, source, f"--load-patterns={tmp_path}")
    failed(r, f"{tmp_path}: error: cannot load patterns: Is a directory\n")


def test_usage_errors(capsys, files):
    source, _ = files
    for args in (["--load-patterns"], ["--load-patterns="]):
        r = opt(capsys, source, *args)
        failed(r, "ge-opt: error: --load-patterns expects a file: --load-patterns=PATH\n", 2)


def test_import_error_names_the_plugin_and_its_innermost_line(capsys, files, tmp_path):
    source, _ = files
    plugin = write_plugin(
        tmp_path / "bad.py",
        """
        import json


        def settings():
            return json.loads("{")


        def build():
            return settings()


        PATTERNS = build()
        """,
    )
    out = tmp_path / "out.mlir"
    out.write_text("precious")
    r = opt(capsys, source, f"--load-patterns={plugin}", "--cse", "-o", out)
    # the innermost frame in the plugin: the json call (json's own frames are not its file)
    failed(
        r,
        f"{plugin}:5: error: cannot load patterns: JSONDecodeError: Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1)\n",
    )
    assert out.read_text() == "precious"
    # Importing it again fails again (it was not kept as loaded).
    assert opt(capsys, source, f"--load-patterns={plugin}").err == r.err


def test_syntax_and_import_errors(capsys, files, tmp_path):
    source, _ = files
    syntax = write_plugin(tmp_path / "syntax.py", "x = 1\ndef f(:\n    pass\n")
    failed(
        opt(capsys, source, f"--load-patterns={syntax}"),
        f"{syntax}:2: error: cannot load patterns: SyntaxError: invalid syntax\n",
    )
    missing = write_plugin(tmp_path / "imports.py", "x = 1\nimport no_such_module_here\n")
    failed(
        opt(capsys, source, f"--load-patterns={missing}"),
        f"{missing}:2: error: cannot load patterns: ModuleNotFoundError: No module named "
        "'no_such_module_here'\n",
    )
    exits = write_plugin(tmp_path / "exits.py", "import sys\nsys.exit(3)\n")
    failed(
        opt(capsys, source, f"--load-patterns={exits}"),
        f"{exits}:2: error: cannot load patterns: SystemExit: 3\n",
    )


@pytest.mark.parametrize(
    "name, message",
    [
        ("fuse", "ValueError: 'fuse' is the name of a built-in pass"),
        ("cse", "ValueError: 'cse' is the name of a built-in pass"),
        # the driver's --apply-pdl is a built-in pass of the one registry too
        ("apply-pdl", "ValueError: 'apply-pdl' is the name of a built-in pass"),
    ],
)
def test_plugin_taking_a_built_in_name(capsys, files, tmp_path, name, message):
    source, _ = files
    plugin = write_plugin(
        tmp_path / "clash.py",
        RELU_TO_SIGMOID.replace('"relu-to-sigmoid"', f'"{name}"'),
    )
    line = (
        RELU_TO_SIGMOID.lstrip("\n").splitlines().index("transforms.register_pass(ReluToSigmoid)")
    )
    failed(
        opt(capsys, source, f"--load-patterns={plugin}"),
        f"{plugin}:{line + 1}: error: cannot load patterns: {message}\n",
    )


def test_plugin_taking_a_driver_flag(capsys, files, tmp_path):
    source, _ = files
    name, message = "output-file", "pass 'output-file' has the name of the ge-opt flag --output-file"
    plugin = write_plugin(
        tmp_path / f"{name}.py", RELU_TO_SIGMOID.replace('"relu-to-sigmoid"', f'"{name}"')
    )
    failed(
        opt(capsys, source, f"--load-patterns={plugin}"),
        f"{plugin}: error: cannot load patterns: {message}\n",
    )


def test_two_plugins_defining_one_pass(capsys, files, tmp_path):
    source, plugin = files
    copy = write_plugin(tmp_path / "copy.py", RELU_TO_SIGMOID)
    failed(
        opt(capsys, source, f"--load-patterns={plugin}", f"--load-patterns={copy}"),
        f"{copy}: error: cannot load patterns: pass 'relu-to-sigmoid' is already defined by "
        f"{plugin}\n",
    )
    r = opt(capsys, source, f"--load-patterns={plugin}", "--relu-to-sigmoid")
    assert r.code == 0 and "ge.sigmoid" in r.out  # the first definition stays


# ---- errors while a plugin's pass runs -----------------------------------------------------------

RAISES = """
from dataclasses import dataclass

from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

import transforms


def lookup(table, key):
    return table[key]


@dataclass(frozen=True)
class Raises(ModulePass):
    name = "test-raises"

    def apply(self, ctx, op):
        lookup({}, "pattern")


@dataclass(frozen=True)
class Fails(ModulePass):
    name = "test-fails"

    def apply(self, ctx, op):
        raise PassFailedException("the pattern does not apply here")


transforms.register_pass(Raises)
transforms.register_pass(Fails)
"""


def test_a_pass_that_raises_is_one_error_and_no_output(capsys, files, tmp_path):
    source, _ = files
    plugin = write_plugin(tmp_path / "raises.py", RAISES)
    out = tmp_path / "out.mlir"
    out.write_text("precious")
    line = RAISES.lstrip("\n").splitlines().index("    return table[key]") + 1
    error = f"{plugin}:{line}: error: pass 'test-raises' failed: KeyError: 'pattern'\n"
    failed(opt(capsys, source, f"--load-patterns={plugin}", "--cse", "--test-raises"), error)
    failed(opt(capsys, source, f"--load-patterns={plugin}", "--test-raises", "-o", out), error)
    assert out.read_text() == "precious"
    # A diagnostic of the pass is the usual one line, located at the input.
    failed(
        opt(capsys, source, f"--load-patterns={plugin}", "-p", "test-fails"),
        f"{source}: error: the pattern does not apply here\n",
    )
    # With --split-input-file the failing chunk is reported in its place, the others printed.
    source.write_text(RELU + "// -----\n" + RELU.replace("@f", "@g"))
    r = opt(capsys, source, f"--load-patterns={plugin}", "--split-input-file", "--test-raises")
    assert (r.code, r.err) == (1, error + error) and "ge.relu" not in r.out


def test_a_bug_outside_plugins_still_shows_its_traceback(capsys, files, monkeypatch):
    source, _ = files

    def broken(self, ctx, op):
        raise ZeroDivisionError("a bug of ge-opt")

    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )

    monkeypatch.setattr(CommonSubexpressionElimination, "apply", broken)
    with pytest.raises(ZeroDivisionError):
        ge_opt.main([str(source), "--cse"])


# ---- ge-run -------------------------------------------------------------------------------------


def test_ge_run_loads_plugins(capsys, files, tmp_path):
    source, plugin = files
    r = run(capsys, source, f"--load-patterns={plugin}", "--relu-to-sigmoid", "--report=json")
    assert (r.code, r.err) == (0, ""), r
    result = json.loads(r.out)["outputs"]["result0"]
    assert 0 < result["min"] < result["max"] < 1  # a sigmoid's (a relu's min would be 0)
    missing = tmp_path / "missing.py"
    failed(
        run(capsys, source, "--load-patterns", missing),
        f"{missing}: error: cannot load patterns: No such file or directory\n",
    )
    raises = write_plugin(tmp_path / "raises.py", RAISES)
    outputs = tmp_path / "out.npz"
    r = run(capsys, source, f"--load-patterns={raises}", "--test-raises", "--outputs", outputs)
    assert (r.code, r.out) == (1, "") and "error: pass 'test-raises' failed: KeyError" in r.err
    assert len(r.err.splitlines()) == 1 and not outputs.exists()
