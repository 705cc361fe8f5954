"""No traceback, no hang: ge-opt answers any input with IR or one located error line.

Malformed tokens (a lone `%`, a control byte), unterminated string literals (xDSL 0.75's
lexer backtracks exponentially on them), values xDSL cannot store (`i64` array elements
beyond 64 bits, dense literals of `i99999`) and unknown ops each give one line
`file:line:col: error: ...` on stderr and exit 1.  A small property test feeds ge-opt every
single ASCII character and every prefix of a valid module.  All runs are in-process except
the timing ones, which run ge-opt in a subprocess with a timeout.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from helpers.support import ROOT
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

from ge_dialect import api
from ge_dialect.tools.ge_opt import main

RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
"""

MODULE = """func.func @main(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %w = ge.const dense<0.5> : tensor<4x4x1x1xf32>
  %c = ge.conv2d %x, %w strides [1, 1] : tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x2x2xf32>
  %r = ge.relu %c {stream.label = #stream.label<"1", priority = 2>} : tensor<1x4x2x2xf32>
  %s = ge.add %r, %x : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  func.return %s : tensor<1x4x2x2xf32>
}
"""  # noqa: E501
"""A small valid module: a constant, a conv with an array, a label string, a binary op."""


def ge_opt(capsys, tmp_path, text: str | bytes, *flags: str) -> tuple[int, str, str, str]:
    """ge-opt in-process on `text` in a file: (exit code, stdout, stderr, the file's path).

    Any exception but SystemExit escapes, and fails the test."""
    path = tmp_path / "in.mlir"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    try:
        code = main([str(path), *flags])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err, str(path)


def one_error(capsys, tmp_path, text: str | bytes, *flags: str) -> str:
    """The one diagnostic of a failing run, without its `file:` prefix."""
    code, out, err, path = ge_opt(capsys, tmp_path, text, *flags)
    assert code == 1 and "Traceback" not in err, err
    assert err.startswith(f"{path}:") and err.count("\n") == 1, err
    return err[len(path) + 1 : -1]


# ---- a malformed first token ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("%", "expected an identifier after '%'"),
        ("#", "expected an identifier after '#'"),
        ("!", "expected an identifier after '!'"),
        ("^", "expected an identifier after '^'"),
        ("'", 'unexpected character "\'"'),
        ("\x01", "unexpected character '\\x01'"),
        ("\x7f", "unexpected character '\\x7f'"),
        ("$", "unexpected character '$'"),
        ("²", "unexpected character '²'"),  # numeric, not a digit
        ('"abc', "1:5: error: unexpected end of input (expected '\"' in string literal)"),
        ('"a\\qb"', "1:3: error: unknown escape in string literal"),
    ],
)
def test_malformed_first_token_is_located(capsys, tmp_path, text, message):
    if ": error: " not in message:
        message = f"1:1: error: {message}"
    assert one_error(capsys, tmp_path, text + "\n") == message


def test_malformed_token_inside_an_op_is_located(capsys, tmp_path):
    text = RELU.replace("ge.relu %x", "ge.relu %")
    assert one_error(capsys, tmp_path, text) == "2:16: error: expected an identifier after '%'"
    text = RELU.replace("ge.relu %x", "ge.relu \x01")
    assert one_error(capsys, tmp_path, text) == "2:16: error: unexpected character '\\x01'"


def test_lexer_failure_in_a_later_chunk_is_located_in_the_file(capsys, tmp_path):
    text = RELU + "// -----\n%\n"
    code, _, err, path = ge_opt(capsys, tmp_path, text, "--split-input-file")
    assert code == 1 and "Traceback" not in err
    assert err == f"{path}:6:1: error: expected an identifier after '%'\n"
    code, out, err, path = ge_opt(
        capsys, tmp_path, text, "--split-input-file", "--parsing-diagnostics"
    )
    assert (code, err) == (0, "")
    assert f"{path}:6:1: error: expected an identifier after '%'\n" in out


# ---- unterminated string literals: no exponential backtracking -----------------------------

LONG = "1234567890" * 1000
"""10,000 characters: xDSL 0.75's pattern would not finish on 40 of them."""

UNTERMINATED = {
    "label": RELU.replace("%x :", f'%x {{stream.label = #stream.label<"{LONG}>}} :'),
    "attribute": RELU.replace("%x :", f'%x {{note = "{LONG}}} :'),
    "bare": RELU.replace("  %0 = ge.relu", f'  "{LONG} %0 = ge.relu'),
}
"""A string literal without its closing quote: in a label, an attribute, as an op name."""


@pytest.mark.parametrize("where", sorted(UNTERMINATED))
def test_unterminated_string_answers_at_once(tmp_path, where):
    text = UNTERMINATED[where]
    path = tmp_path / "long.mlir"
    path.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "ge_dialect.tools.ge_opt", str(path)],
        capture_output=True,
        text=True,
        timeout=20,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    line = text.splitlines()[1]
    assert proc.stderr == f"{path}:2:{len(line) + 1}: error: expected '\"' in string literal\n"


@pytest.mark.parametrize("where", sorted(UNTERMINATED))
def test_unterminated_string_in_process(capsys, tmp_path, where):
    text = UNTERMINATED[where]
    line = text.splitlines()[1]
    expected = f"2:{len(line) + 1}: error: expected '\"' in string literal"
    assert one_error(capsys, tmp_path, text) == expected


def test_string_with_escapes_and_a_comment_after_it_still_parses(capsys, tmp_path):
    text = RELU.replace(
        "%x : tensor<4xf32>", '%x {note = "a\\"b\\\\c\\0A // not a comment"} : tensor<4xf32> // "x'
    )
    code, out, err, _ = ge_opt(capsys, tmp_path, text)
    assert (code, err) == (0, "")
    assert '{note = "a\\22b\\\\c\\0A // not a comment"}' in out  # xDSL's escapes


# ---- values xDSL cannot store ----------------------------------------------------------------

CONV = """func.func @f(%x: tensor<1x4x7x6xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x5x4xf32> {
  %y = ge.conv2d %x, %w ATTRS : tensor<1x4x7x6xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x5x4xf32>
  func.return %y : tensor<1x4x5x4xf32>
}
"""


@pytest.mark.parametrize(
    ("attrs", "col"),
    [
        ("strides [2, 9223372036854775808]", 37),
        ("strides [-9223372036854775809, 1]", 34),
        ("pads [0, 0, 0, 0x10000000000000000]", 40),
        ("dilations [99999999999999999999999, 1]", 36),
    ],
)
def test_i64_array_element_beyond_64_bits(capsys, tmp_path, attrs, col):
    text = CONV.replace("ATTRS", attrs)
    assert one_error(capsys, tmp_path, text) == f"2:{col}: error: integer value too large"


def test_i64_array_at_the_limits_parses(capsys, tmp_path):
    text = CONV.replace("ATTRS", "strides [9223372036854775807, -9223372036854775808]")
    assert one_error(capsys, tmp_path, text) == (
        "2:3: error: 'ge.conv2d' op strides must be 2 positive integers, "
        "got [9223372036854775807, -9223372036854775808]"
    )


WIDE = """func.func @f(%x: tensor<2xi99999>) -> tensor<2xi99999> {
  BODY
  func.return %x : tensor<2xi99999>
}
"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "%0 = ge.const dense<[1, 2]> : tensor<2xi99999>",
            "2:33: error: unsupported element type i99999 in a dense literal",
        ),
        (
            '%0 = ge.const dense<"0x0102"> : tensor<2xi99999>',
            "2:35: error: unsupported element type i99999 in a dense literal",
        ),
        (
            '%0 = "ge.const"() <{value = dense<1> : tensor<2xi99999>}> : () -> tensor<2xi99999>',
            "2:42: error: unsupported element type i99999 in a dense literal",
        ),
        (
            "%0 = ge.relu %x {a = array<i99999: 1, 2>} : tensor<2xi99999>",
            "2:30: error: unsupported element type i99999 in a dense array",
        ),
        (
            "%0 = ge.relu %x {a = array<f32: 1.0e300>} : tensor<2xi99999>",
            "2:30: error: value out of range for f32 in a dense array",
        ),
        (
            "%0 = ge.relu %x : tensor<2xi99999>",
            "2:3: error: 'ge.relu' op operand 'input' has unsupported element type i99999",
        ),
        (
            "%0 = ge.add %x, %x : (tensor<2xi99999>, tensor<2xi99999>) -> tensor<2xi99999>",
            "2:3: error: 'ge.add' op operand 'lhs' has unsupported element type i99999",
        ),
        (
            "%0 = ge.relu %x {a = 1 : i99999999999} : tensor<2xi99999>",
            "2:28: error: integer bitwidth is limited to 16777215 bits",
        ),
    ],
)
def test_unsupported_element_types(capsys, tmp_path, body, message):
    assert one_error(capsys, tmp_path, WIDE.replace("BODY", body)) == message


def test_f16_overflow_rounds_to_infinity_as_mlir(capsys, tmp_path):
    text = """func.func @f() -> tensor<2xf16> {
  %0 = ge.const dense<[70000.0, -1.0e400]> : tensor<2xf16>
  func.return %0 : tensor<2xf16>
}
"""
    code, out, err, _ = ge_opt(capsys, tmp_path, text)
    assert (code, err) == (0, "")
    assert 'dense<"0x007C00FC"> : tensor<2xf16>' in out  # 0x7C00, 0xFC00: mlir-opt's bits


def test_huge_splat_is_an_error(capsys, tmp_path):
    text = """func.func @f() -> tensor<100000000000000xi8> {
  %0 = ge.const dense<1> : tensor<100000000000000xi8>
  func.return %0 : tensor<100000000000000xi8>
}
"""
    assert one_error(capsys, tmp_path, text) == (
        "2:22: error: dense literal too large to hold in memory"
    )


# ---- unknown ops are located at their name -------------------------------------------------


@pytest.mark.parametrize(
    ("line", "col"),
    [
        ("%x = ge.nosuchop %a : tensor<4xf32>", 8),
        ('%x = "ge.nosuchop"(%a) : (tensor<4xf32>) -> tensor<4xf32>', 8),
        ("%x:2 = ge.nosuchop", 10),
        ("ge.nosuchop", 3),
    ],
)
def test_unknown_op_is_located_at_its_name(capsys, tmp_path, line, col):
    text = RELU.replace("%0 = ge.relu %x : tensor<4xf32>", line)
    message = one_error(capsys, tmp_path, text)
    assert message == f"2:{col}: error: Operation ge.nosuchop is not registered"


# ---- property: any character, any prefix ---------------------------------------------------

CHARACTERS = [chr(c) for c in range(128)]


def check_answers(capsys, tmp_path, text: str) -> None:
    """ge-opt on `text` exits 0 or 1, with one located error line when it fails."""
    code, _, err, path = ge_opt(capsys, tmp_path, text)
    assert code in (0, 1), (text, err)
    assert "Traceback" not in err and not re.search(r"\{[a-z_]+\}", err), (text, err)
    if code == 1:
        assert re.fullmatch(rf"{re.escape(path)}:\d+:\d+: error: [^\n]+\n", err), (text, err)
    else:
        assert err == "", (text, err)


@pytest.mark.parametrize("c", CHARACTERS, ids=[f"{ord(c):02x}" for c in CHARACTERS])
def test_any_single_character(capsys, tmp_path, c):
    check_answers(capsys, tmp_path, c)
    check_answers(capsys, tmp_path, MODULE.replace("ge.relu %c ", f"ge.relu %c {c}"))


def test_any_prefix_of_a_valid_module(capsys, tmp_path):
    code, _, err, _ = ge_opt(capsys, tmp_path, MODULE)
    assert (code, err) == (0, "")
    for end in range(len(MODULE)):
        check_answers(capsys, tmp_path, MODULE[:end])


def test_a_huge_float_splat_stays_one_element(capsys):
    """`dense<1.0>` of 2^32 elements is one stored element (it was expanded to 16 GB)."""
    text = (
        "func.func @f() -> tensor<2x2147483647x1x1xf32> {\n"
        "  %w = ge.const dense<1.0> : tensor<2x2147483647x1x1xf32>\n"
        "  func.return %w : tensor<2x2147483647x1x1xf32>\n}\n"
    )
    module = api.parse(text, "splat.mlir")
    (const,) = [op for op in module.walk() if op.name == "ge.const"]
    value = const.properties["value"]
    assert isinstance(value, DenseIntOrFPElementsAttr)
    assert len(value.data.data) == 4
    api.verify(module)
    assert "ge.const dense<1.000000e+00> : tensor<2x2147483647x1x1xf32>" in api.print_module(module)
