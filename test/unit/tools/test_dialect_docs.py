"""docs/dialects.md is generated from the dialects (`ge_dialect.tools.gen_dialect_docs`) and
kept current: this test regenerates it and compares it with the committed file."""

from __future__ import annotations

import os

import pytest
from helpers.support import ROOT

from ge_dialect.ir.registry import get_all_dialects
from ge_dialect.tools import gen_dialect_docs
from ge_dialect.tools.gen_dialect_docs import COMMAND, constraint_text, generate, split_docstring

PAGE = os.path.join(ROOT, "docs", "dialects.md")


def test_docs_dialects_md_is_current():
    with open(PAGE, encoding="utf-8") as f:
        committed = f.read()
    if committed != generate():
        pytest.fail(f"docs/dialects.md is out of date: run `{COMMAND}`", pytrace=False)


def test_every_op_is_documented_with_an_example():
    text = generate()
    sections = {s.split("`")[1]: s for s in text.split("\n### ")[1:]}
    for name in gen_dialect_docs.DIALECTS:
        for op in get_all_dialects()[name]().operations:
            assert op.name in sections, op.name
            assert "```mlir\n" in sections[op.name], f"{op.name} has no IR example"


def test_sections_show_operands_properties_and_defaults():
    sections = {s.split("`")[1]: s for s in generate().split("\n### ")[1:]}
    conv = sections["ge.fused_conv2d"]
    assert "| `residual` | optional | `tensor` (all `T` equal) |" in conv
    assert "| `activation` | property | default `#ge<activation none>` | `ge.activation` |" in conv
    assert "| `alpha` | property | optional | float attribute of type `f32` |" in conv
    assert "operandSegmentSizes" not in conv
    assert "| `values` | variadic | `tensor` |" in sections["stream.record"]


def test_split_docstring():
    summary, blocks = split_docstring(
        """A summary that goes on
        on a second line.

        Some text.

            %y = ge.relu %x : tensor<4xf32>
                   more

        where

            y = max(x, 0)
        """
    )
    assert summary == "A summary that goes on on a second line."
    assert blocks == [
        ("text", "Some text."),
        ("mlir", "%y = ge.relu %x : tensor<4xf32>\n       more"),
        ("text", "where"),
        ("text-code", "y = max(x, 0)"),
    ]


def test_constraint_text_falls_back_to_the_class_name():
    class Odd:
        pass

    assert constraint_text(Odd()) == "Odd"  # type: ignore[arg-type]
