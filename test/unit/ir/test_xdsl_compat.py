"""Every private xDSL API the project uses (`ge_dialect.ir.xdsl_compat`), checked against the
installed xDSL: each exists with the signature the compat layer calls it with, and does
what the public name says.  An xDSL upgrade that moves one of them fails here, by name."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest
from helpers.support import ROOT
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerType, TensorType, i32
from xdsl.parser import Parser
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from ge_dialect.ir.registry import make_context
from ge_dialect.ir.xdsl_compat import CompatLexer, CompatParser, current_token

# (class, private name, the parameter names after self, or None for an attribute)
PRIVATE = [
    (MLIRLexer, "_lex_prefixed_ident", ["start_pos"]),
    (MLIRLexer, "_lex_number", ["start_pos"]),
    (MLIRLexer, "_lex_string_literal", ["start_pos"]),
    (MLIRLexer, "_suffix_id", None),
    (Parser, "_parse_op_result_list", []),
    (Parser, "_get_op_by_name", ["name"]),
    (Parser, "_parse_optional_integer_or_float_type", []),
    (Parser, "_parse_dense_literal_type", []),
    (Parser, "_parse_builtin_densearray_attr", []),
    (Parser, "_parse_tensor_literal", []),
    (Parser, "_resume_from", ["pos"]),
    (Parser, "_builtin_integer_type_regex", None),
    (Parser, "_current_token", None),
    (Parser, "_parser_state", None),
]


@pytest.mark.parametrize("cls, name, parameters", PRIVATE, ids=[p[1] for p in PRIVATE])
def test_the_private_api_exists_with_the_signature_used(cls, name, parameters):
    instance = Parser(Context(), "") if cls is Parser else MLIRLexer(Input("", "t"))
    found = inspect.getattr_static(instance, name)  # an instance: `__init__` sets some
    if parameters is not None:
        assert list(inspect.signature(found).parameters)[1:] == parameters


def test_the_list_above_is_every_private_name_the_compat_layer_uses():
    source = Path(ROOT, "ge_dialect", "ir", "xdsl_compat.py").read_text()
    used = set(re.findall(r"(?:self|super\(\)|parser|AttrParser)\.(_[a-z]\w*|_[A-Z]\w*)", source))
    assert used == {name for _, name, _ in PRIVATE} | {"_TensorLiteralElement"}


def test_no_other_module_uses_a_private_xdsl_name():
    """Outside the compat layer, nothing reads `x._name` of an xDSL object nor overrides an
    xDSL `_method`: the project's own private names are `self._...` of its own classes."""
    assert {"_current_token", "_lex_number", "_get_op_by_name"} <= XDSL_PRIVATE
    offenders = []
    for path in sorted(Path(ROOT).glob("ge_dialect/**/*.py")) + sorted(
        Path(ROOT).glob("transforms/**/*.py")
    ):
        if path.name == "xdsl_compat.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in XDSL_PRIVATE:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.FunctionDef) and node.name in XDSL_PRIVATE:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: def {node.name}")
    assert offenders == []


XDSL_PRIVATE = {
    name
    for cls in (Parser, MLIRLexer)
    for klass in cls.__mro__
    if klass.__module__.startswith("xdsl.")
    for name in vars(klass)
    if name.startswith("_") and not name.startswith("__")
}


def parser(text: str, ctx: Context | None = None) -> CompatParser:
    return CompatParser(ctx or make_context(), text, "t.mlir")


def test_lexer_hooks_are_called_under_their_public_names():
    seen: list[str] = []

    class Recording(CompatLexer):
        def lex_prefixed_ident(self, start_pos):
            seen.append("ident")
            return super().lex_prefixed_ident(start_pos)

        def lex_number(self, start_pos):
            seen.append("number")
            return super().lex_number(start_pos)

        def lex_string_literal(self, start_pos):
            seen.append("string")
            return super().lex_string_literal(start_pos)

    lexer = Recording(Input('%x 12 "s"', "t"))
    kinds = [lexer.lex().kind for _ in range(4)]
    assert kinds == [
        MLIRTokenKind.PERCENT_IDENT,
        MLIRTokenKind.INTEGER_LIT,
        MLIRTokenKind.STRING_LIT,
        MLIRTokenKind.EOF,
    ]
    assert seen == ["ident", "number", "string"]
    assert CompatLexer(Input("%x %", "t")).suffix_id_at(1)
    assert not CompatLexer(Input("% x", "t")).suffix_id_at(1)


def test_parser_state_token_and_resume():
    p = parser("i32 i64")
    assert p.current_token.text == "i32"
    p.parse_type()
    assert p.current_token.text == "i64"
    p.resume_from(0)
    assert p.current_token.text == "i32"
    p.use_lexer(MLIRLexer(Input("f16", "t")))
    assert current_token(p).text == "f16"


def test_parser_hooks_are_called_under_their_public_names():
    seen: list[str] = []

    class Recording(CompatParser):
        def parse_op_result_list(self):
            seen.append("results")
            return super().parse_op_result_list()

        def op_class_by_name(self, name):
            seen.append(f"op {name}")
            return super().op_class_by_name(name)

        def parse_optional_integer_or_float_type(self):
            seen.append("int or float type")
            return super().parse_optional_integer_or_float_type()

        def parse_dense_literal_type(self):
            seen.append("dense type")
            return super().parse_dense_literal_type()

        def parse_builtin_densearray_attr(self):
            seen.append("dense array")
            return super().parse_builtin_densearray_attr()

    text = '%0 = "test.op"() {a = dense<[1, 2]> : tensor<2xi32>, b = array<i32: 3>} : () -> i32'
    op = Recording(make_context(), text, "t").parse_op()
    assert {"results", "op test.op", "int or float type", "dense type", "dense array"} <= set(
        seen
    )
    assert isinstance(op.attributes["b"], DenseArrayBase)


def test_dense_literal_and_integer_type_regex():
    p = parser("[[1, 2], [3, 4]]")
    elements, shape = p.parse_tensor_literal()
    assert shape == [2, 2] and [e.value for e in elements] == [1, 2, 3, 4]
    match = parser("").builtin_integer_type_regex.match("ui64")
    assert match is not None and match.group(1) == "64"
    t = parser("tensor<2xi32>").parse_dense_literal_type()
    assert isinstance(t, TensorType) and t.element_type == i32
    assert isinstance(parser("si8").parse_optional_integer_or_float_type(), IntegerType)
    assert parser("x").parse_optional_integer_or_float_type() is None
    assert not isinstance(parser("<i32: 1>").parse_builtin_densearray_attr(), ArrayAttr)
