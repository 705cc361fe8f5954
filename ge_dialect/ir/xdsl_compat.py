"""Every private xDSL API the project uses, in one place, each under a public name.

xDSL's parser and lexer have no public hooks for what ge-opt's locating parser does (give
each op its location, report an unknown op at its name, read float literals to MLIR's bits,
refuse types xDSL cannot store, lex strings in linear time).  The subclasses here expose
the private methods and attributes they rely on as public ones:

- `CompatLexer` (an `MLIRLexer`): `lex_prefixed_ident`, `lex_number`, `lex_string_literal`
  (xDSL's `_lex_*` per-token methods: override the public name), `suffix_id_at`;
- `CompatParser` (a `Parser`): `use_lexer` (replaces `_parser_state`), `current_token`,
  `resume_from`, `parse_tensor_literal`, `builtin_integer_type_regex`, and the overridable
  `parse_op_result_list`, `op_class_by_name`, `parse_optional_integer_or_float_type`,
  `parse_dense_literal_type`, `parse_builtin_densearray_attr` (xDSL's `_` methods call
  them, so an override of the public name is what xDSL runs);
- `current_token(parser)` for a custom op parser handed xDSL's `Parser`.

`test/unit/ir/test_xdsl_compat.py` checks each of them against the installed xDSL (it
exists, with the signature used here, and does what the name says), so that an xDSL
upgrade shows here what breaks.  Nothing else in the project touches a private xDSL name.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    DenseArrayBase,
    IndexType,
    IntegerType,
    RankedStructure,
)
from xdsl.ir import Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.parser.attribute_parser import AttrParser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.lexer import Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken

TensorLiteralElement = AttrParser._TensorLiteralElement
"""An element of a dense literal as xDSL reads it (`value`, `span`)."""


class CompatLexer(MLIRLexer):
    """xDSL's MLIR lexer; its per-token methods under public, overridable names."""

    def _lex_prefixed_ident(self, start_pos: Position) -> MLIRToken:
        return self.lex_prefixed_ident(start_pos)

    def _lex_number(self, start_pos: Position) -> MLIRToken:
        return self.lex_number(start_pos)

    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        return self.lex_string_literal(start_pos)

    def lex_prefixed_ident(self, start_pos: Position) -> MLIRToken:
        """`%x`, `@f`, `#a`, `!t`, `^bb` (the prefix is at `start_pos`)."""
        return super()._lex_prefixed_ident(start_pos)

    def lex_number(self, start_pos: Position) -> MLIRToken:
        """An integer or float literal starting at `start_pos`."""
        return super()._lex_number(start_pos)

    def lex_string_literal(self, start_pos: Position) -> MLIRToken:
        """A string literal whose opening quote is at `start_pos`."""
        return super()._lex_string_literal(start_pos)

    def suffix_id_at(self, pos: int) -> bool:
        """Whether an identifier's suffix (after its `%`, `@`, ... prefix) starts at `pos`."""
        return self._suffix_id.match(self.input.content, pos) is not None


class CompatParser(Parser):
    """xDSL's parser; the private parts a subclass needs under public, overridable names."""

    def use_lexer(self, lexer: MLIRLexer) -> None:
        """Parses with `lexer` (from its first token) instead of the one `__init__` made."""
        self._parser_state = ParserState(lexer)

    @property
    def current_token(self) -> MLIRToken:
        """The token the parser is at (not consumed)."""
        return self._current_token

    def resume_from(self, pos: int) -> None:
        """Goes back to the input offset `pos` (lexing again from there)."""
        self._resume_from(pos)

    def parse_tensor_literal(self) -> tuple[list[TensorLiteralElement], list[int]]:
        """The elements of a dense literal `[[1, 2], [3, 4]]` (or a splat) and its shape."""
        return self._parse_tensor_literal()

    @property
    def builtin_integer_type_regex(self) -> re.Pattern[str]:
        """`i32`, `si8`, `ui64`, ...: group 1 is the width's digits."""
        return self._builtin_integer_type_regex

    # xDSL calls these private methods; a subclass overrides the public name

    def _parse_op_result_list(self) -> list[tuple[Span, int]]:
        return self.parse_op_result_list()

    def _get_op_by_name(self, name: str) -> type[Operation]:
        return self.op_class_by_name(name)

    def _parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        return self.parse_optional_integer_or_float_type()

    def _parse_dense_literal_type(
        self,
    ) -> RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]:
        return self.parse_dense_literal_type()

    def _parse_builtin_densearray_attr(self) -> DenseArrayBase | None:
        return self.parse_builtin_densearray_attr()

    def parse_op_result_list(self) -> list[tuple[Span, int]]:
        """`%a, %b:2 =` before an op (the results' spans and counts)."""
        return super()._parse_op_result_list()

    def op_class_by_name(self, name: str) -> type[Operation]:
        """The op class of `name` in the context (a `ParseError` if unknown)."""
        return super()._get_op_by_name(name)

    def parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        """A builtin integer, index or float type, or None."""
        return super()._parse_optional_integer_or_float_type()

    def parse_dense_literal_type(
        self,
    ) -> RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]:
        """The type after `dense<...> :`."""
        return super()._parse_dense_literal_type()

    def parse_builtin_densearray_attr(self) -> DenseArrayBase | None:
        """`<T: ...>` after `array`."""
        return super()._parse_builtin_densearray_attr()


def current_token(parser: Parser) -> MLIRToken:
    """The token `parser` is at (not consumed), for a custom op parser."""
    return parser._current_token
