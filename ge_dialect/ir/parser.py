"""The locating parser: MLIR text to IR with `file:line:col` on every op and every error.

xDSL 0.75 reports parse errors without MLIR's form and gives ops no source location.
`LocatingParser` gives every parsed op a `FileLineColLoc` (unless the text has an explicit
`loc(...)`) and reports a use of an undefined value at the use, not at the end of file.

It lexes with `GeLexer`: xDSL's lexer with MLIR's messages for malformed tokens and string
literals in linear time (xDSL 0.75's string pattern backtracks exponentially on an
unterminated string).  Input xDSL cannot represent (dense literals of `i99999`, an `i64`
array element beyond 64 bits) is a located parse error, not an exception.

`LocatingParser` also reads float `dense<[...]>` literals to the exact bits MLIR means: a
hex integer (`0x7F800000`) is the element's bit pattern, a decimal is its value rounded
once, to nearest-even (xDSL 0.75 reads a hex integer as a value and rounds decimals
through a double, and drops NaN payloads).

A parse error is a `LocatedParseError`, both an xDSL `ParseError` and a `GeError`, so
xDSL's driver loop treats it as its own (`--parsing-diagnostics`).  `parse(text, name)` is
the whole step: text to a module (blank text: an empty one), the data directory recorded.
"""

from __future__ import annotations

import bisect
import math
import re
import struct

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyDenseElement,
    AnyFloat,
    BytesAttr,
    CallSiteLoc,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FusedLoc,
    IndexType,
    IntAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    RankedStructure,
    StringAttr,
)
from xdsl.ir import Attribute, AttributeInvT, Operation, SSAValue, TypeAttribute
from xdsl.parser import UnresolvedOperand
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

from ge_dialect.ir.encodings import set_data_dir
from ge_dialect.ir.registry import make_context
from ge_dialect.ir.xdsl_compat import CompatLexer, CompatParser
from ge_dialect.utils.errors import MAX_DIMENSION, MAX_INT_WIDTH, GeError
from ge_dialect.utils.floats import FLOAT_DTYPES, decimal_bits
from ge_dialect.utils.gc_pause import gc_paused

SPLAT_EXPAND_LIMIT = 1 << 20
"""A float splat of more elements keeps its one element (readers broadcast it): storing
every element of `dense<1.0> : tensor<2x2147483647x1x1xf32>` would take 16 GB."""


def format_parse_error(e: ParseError, name: str, line_offset: int = 0) -> str:
    """`file:line:col: error: msg` for an xDSL parse error (`line_offset` lines before it)."""
    loc = e.span.get_location()
    msg = e.msg.strip().replace("\n", " ")
    rest = e.span.input.content[e.span.start :]
    if not rest.strip():
        msg = f"unexpected end of input ({msg})"
    return f"{name}:{loc.line + line_offset}:{loc.col}: error: {msg}"


class LocatedParseError(ParseError, GeError):
    """A parse error whose `str()` is the finished one-line diagnostic `file:line:col: error: ...`.

    It keeps xDSL's `span` and `msg`, so code that handles `ParseError` still works.
    """

    def __init__(self, span: Span[str] | Span[bytes], msg: str, diagnostic: str):
        super().__init__(span, msg)
        self.diagnostic = diagnostic

    def __str__(self) -> str:
        return self.diagnostic

    @classmethod
    def of(cls, e: ParseError, name: str, line_offset: int = 0) -> LocatedParseError:
        """`e`, located in file `name` whose first `line_offset` lines precede the text."""
        return cls(e.span, e.msg, format_parse_error(e, name, line_offset))

    @classmethod
    def unlocated(cls, diagnostic: str, name: str) -> LocatedParseError:
        """An input that cannot be read as a whole (an ONNX model), as a parse error."""
        return cls(Span(0, 0, Input("", name)), diagnostic, diagnostic)


class GeLexer(CompatLexer):
    """xDSL's MLIR lexer, with MLIR's messages for malformed tokens and linear-time strings.

    xDSL 0.75's string literal pattern backtracks exponentially when the closing quote is
    missing (40 characters on the line take minutes), and its message for a lone `%`
    shows an unfilled `{first_char}`.
    """

    # xDSL's string literal pattern up to its closing quote, with possessive repetitions: its
    # two alternatives start with different characters, so this matches what xDSL's does,
    # and stops in one pass where a string literal cannot go on.
    _string_body = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+')

    def lex(self) -> MLIRToken:
        try:
            return super().lex()
        except ParseError as e:
            if not e.msg.startswith("Unexpected character"):
                raise
            # xDSL prints the character raw, a control byte included
            raise ParseError(e.span, f"unexpected character {e.span.text!r}") from None

    def lex_prefixed_ident(self, start_pos: Position) -> MLIRToken:
        if not self.suffix_id_at(self.pos):
            prefix = self.input.content[start_pos]
            raise ParseError(
                Span(start_pos, start_pos + 1, self.input),
                f"expected an identifier after '{prefix}'",
            )
        return super().lex_prefixed_ident(start_pos)

    def lex_number(self, start_pos: Position) -> MLIRToken:
        if not "0" <= self.input.content[start_pos] <= "9":  # say, '²': numeric, not a digit
            raise ParseError(
                Span(start_pos, start_pos + 1, self.input),
                f"unexpected character {self.input.content[start_pos]!r}",
            )
        return super().lex_number(start_pos)

    def lex_string_literal(self, start_pos: Position) -> MLIRToken:
        """A string literal; where it cannot go on, MLIR's error at that character."""
        content = self.input.content
        match = self._string_body.match(content, start_pos)
        end = match.end() if match is not None else start_pos
        if content[end : end + 1] == "\\":
            raise ParseError(Span(end, end + 1, self.input), "unknown escape in string literal")
        if content[end : end + 1] != '"':  # a line end or the end of the input
            raise ParseError(Span(end, end, self.input), "expected '\"' in string literal")
        return super().lex_string_literal(start_pos)  # terminated: xDSL's pattern is linear


class LocatingParser(CompatParser):
    """A parser that records each op's source position as its location.

    `line_offset` is the number of lines before this chunk in the original file (for
    `--split-input-file`), so locations point into the file the user wrote.  The parser
    lexes its first token at once: a malformed one raises `LocatedParseError` here.
    """

    def __init__(self, ctx: Context, text: str | bytes, name: str, line_offset: int = 0):
        super().__init__(ctx, "", name)  # with xDSL's lexer, replaced by a `GeLexer`:
        text = text.decode("utf-8") if isinstance(text, bytes) else text
        try:
            self.use_lexer(GeLexer(Input(text, name)))
        except ParseError as e:
            raise LocatedParseError.of(e, name, line_offset) from None
        self._file = StringAttr(name)
        self._line_offset = line_offset
        starts = [0]
        pos = text.find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = text.find("\n", pos + 1)
        self._line_starts = starts
        self._first_forward_use: dict[str, Span] = {}
        self._op_name_span: Span | None = None
        self._wide_integer: Span | None = None

    def _location_of(self, offset: int) -> FileLineColLoc:
        line = bisect.bisect_right(self._line_starts, offset) - 1
        col = offset - self._line_starts[line] + 1
        return FileLineColLoc(self._file, IntAttr(line + 1 + self._line_offset), IntAttr(col))

    def parse_operation(self) -> Operation:
        span = self.current_token.span
        start = span.start
        self._wide_integer = None
        try:
            op = super().parse_operation()
        except (VerifyException, ValueError) as e:
            # A custom format whose operand or result types fail their constraints.
            raise ParseError(span, str(e).strip().replace("\n", " ")) from None
        except struct.error:
            # xDSL packs the integers of an `i64` array in a custom format unchecked.
            raise ParseError(self._wide_integer or span, "integer value too large") from None
        if not isinstance(op.location, FileLineColLoc | NameLoc | FusedLoc | CallSiteLoc):
            op.location = self._location_of(start)
        return op

    def parse_op_result_list(self) -> list[tuple[Span, int]]:
        results = super().parse_op_result_list()
        self._op_name_span = self.current_token.span  # the op's name comes next
        return results

    def op_class_by_name(self, name: str) -> type[Operation]:
        """The op class of `name`; an unknown op is reported at its name (as MLIR does)."""
        try:
            return super().op_class_by_name(name)
        except ParseError as e:
            raise ParseError(self._op_name_span or e.span, e.msg) from None

    def parse_integer(
        self, allow_boolean: bool = True, allow_negative: bool = True, context_msg: str = ""
    ) -> int:
        """An integer; the op's first one beyond 64 bits (signed) is remembered for errors."""
        start = self.current_token.span
        value = super().parse_integer(allow_boolean, allow_negative, context_msg)
        if self._wide_integer is None and not -(2**63) <= value < 2**63:
            self._wide_integer = start
        return value

    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        start = self.current_token.span
        dim = super().parse_shape_dimension(allow_dynamic)
        if dim > MAX_DIMENSION:
            self.raise_error(f"dimension {dim} is too large (at most 2^63 - 1)", start)
        return dim

    def parse_dense_int_or_fp_elements_attr(
        self, type: RankedStructure[AnyDenseElement] | None
    ) -> DenseIntOrFPElementsAttr:
        """A dense attribute; a splat too large for memory (xDSL stores its every element)
        or a value xDSL cannot pack is a located error."""
        start = self.current_token.span
        try:
            return self._parse_dense_exact(type)
        except MemoryError:
            self.raise_error("dense literal too large to hold in memory", start)
        except OverflowError:  # a complex<f32> part beyond f32, which xDSL cannot pack
            self.raise_error("value out of range for the element type in a dense literal", start)

    def _parse_dense_exact(
        self, type: RankedStructure[AnyDenseElement] | None
    ) -> DenseIntOrFPElementsAttr:
        """A dense attribute; f16/f32/f64 element lists are read to MLIR's bits.

        In a float `dense<[...]>` a hex integer is the bit pattern (no minus sign, no more
        bits than the type), a decimal integer or float is the value, rounded once, and
        `true`/`false` are 1 and 0.  Hex strings, empty literals and other element types
        are xDSL's.
        """
        start = self.current_token.span
        if self._text_after(start)[:1] in ('"', ">"):  # without lexing a long hex string twice
            return super().parse_dense_int_or_fp_elements_attr(type)
        self.parse_punctuation("<", " in dense attribute")
        if self.current_token.kind in (MLIRTokenKind.GREATER, MLIRTokenKind.STRING_LIT):
            self.resume_from(start.start)
            return super().parse_dense_int_or_fp_elements_attr(type)
        elements, shape = self.parse_tensor_literal()
        self.parse_punctuation(">", " in dense attribute")
        literal_type = type
        if literal_type is None:
            self.parse_punctuation(":", " in dense attribute")
            literal_type = self.parse_dense_literal_type()
        dtypes = FLOAT_DTYPES.get(literal_type.element_type.__class__)
        if dtypes is None:
            self.resume_from(start.start)
            return super().parse_dense_int_or_fp_elements_attr(type)
        type_shape = list(literal_type.get_shape())
        if shape and type_shape != shape:
            self.raise_error(
                f"Shape mismatch in dense literal. Expected {type_shape} "
                f"shape from the type, but got {shape} shape."
            )
        dtype, bits_dtype = dtypes
        width = 8 * dtype.itemsize
        bits = np.zeros(len(elements), dtype=bits_dtype)
        decimals: list[tuple[int, str]] = []
        for i, element in enumerate(elements):
            value = element.value
            if isinstance(value, tuple):
                self.raise_error("No conversion from complex to float", element.span)
            text = element.span.text
            if isinstance(value, bool):
                decimals.append((i, "1.0" if value else "0.0"))
            elif isinstance(value, int) and "0x" in text:
                if text.startswith("-"):
                    self.raise_error(
                        "hexadecimal float literal should not have a leading minus",
                        element.span,
                    )
                if value.bit_length() > width:
                    self.raise_error(
                        "hexadecimal float constant out of range for type", element.span
                    )
                bits[i] = value
            else:  # the number, after a minus sign (space or comments may separate them)
                decimals.append((i, "-" + text[1:].split()[-1] if text.startswith("-") else text))
        if decimals:
            where, texts = zip(*decimals, strict=True)
            bits[list(where)] = decimal_bits(texts, dtype, bits_dtype)
        if not shape and math.prod(type_shape) <= SPLAT_EXPAND_LIMIT:
            bits = np.repeat(bits, math.prod(type_shape))  # every element, as xDSL stores them
        return DenseIntOrFPElementsAttr(literal_type, BytesAttr(bits.tobytes()))

    def parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        """A builtin integer, index or float type; an integer's width is at most MLIR's."""
        token = self.current_token
        if token.kind == MLIRTokenKind.BARE_IDENT:
            match = self.builtin_integer_type_regex.match(token.text)
            digits = match.group(1).lstrip("0") if match is not None else ""
            if len(digits) > 8 or int(digits or "0") > MAX_INT_WIDTH:  # (no int() of 5000 digits)
                self.raise_error(f"integer bitwidth is limited to {MAX_INT_WIDTH} bits")
        return super().parse_optional_integer_or_float_type()

    def parse_dense_literal_type(
        self,
    ) -> RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]:
        """The type after a dense literal; its element type must be one xDSL can store."""
        start = self.current_token.span
        type = super().parse_dense_literal_type()
        if not _storable(type.element_type):
            self.raise_error(
                f"unsupported element type {type.element_type} in a dense literal", start
            )
        return type

    def parse_builtin_densearray_attr(self) -> DenseArrayBase | None:
        """`array<T: ...>` (after `array`); `T` must be a type xDSL can store."""
        start = self.current_token.span.start
        self.parse_characters("<", " in dense array")
        element_start = self.current_token.span
        element = self.parse_attribute()
        if isinstance(element, IntegerType | AnyFloat) and not _storable(element):
            self.raise_error(f"unsupported element type {element} in a dense array", element_start)
        self.resume_from(start)
        try:
            return super().parse_builtin_densearray_attr()
        except OverflowError:  # a float beyond the type, which xDSL cannot pack (MLIR: inf)
            self.raise_error(f"value out of range for {element} in a dense array", element_start)

    def _text_after(self, span: Span) -> str:
        """A few characters of the input after `span`, from its next non-blank one."""
        content = self.lexer.input.content
        chunk = content[span.end : span.end + 64]
        text = chunk.decode(errors="replace") if isinstance(chunk, bytes) else chunk
        return text.lstrip()

    def resolve_operand(
        self, operand: UnresolvedOperand, type: AttributeInvT
    ) -> SSAValue[AttributeInvT]:
        name = operand.operand_name
        if name not in self.ssa_values and name not in self._first_forward_use:
            self._first_forward_use[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as e:
            if e.msg.startswith("values used but not defined") and self.forward_ssa_references:
                name = next(iter(self.forward_ssa_references))
                span = self._first_forward_use.get(name, e.span)
                raise ParseError(span, f"use of undefined value '%{name}'") from None
            raise
        except RecursionError:
            tok = self.current_token.span
            raise ParseError(tok, "nesting too deep for the parser") from None
        except (VerifyException, ValueError) as e:
            # An attribute or type that fails its own verification while it is parsed.
            message = str(e).strip().replace("\n", " ")
            raise ParseError(self.current_token.span, message) from None
        except (ArithmeticError, NotImplementedError, struct.error) as e:
            # A value xDSL cannot store, where no check above catches it (`array<i0: 0>`).
            message = f"unsupported value ({e})" if str(e) else "unsupported value"
            raise ParseError(self.current_token.span, message) from None


def _storable(element: Attribute) -> bool:
    """False for element types xDSL cannot pack (i0, integers beyond 64 bits, f80, f128)."""
    if isinstance(element, IntegerType) and element.bitwidth == 0:
        return False
    try:
        element.compile_time_size  # type: ignore[attr-defined]  # noqa: B018
    except NotImplementedError:
        return False
    return True


def is_blank(text: str) -> bool:
    """True when `text` holds only blank lines and `//` comments (an empty module)."""
    return all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines())


def parse(
    text: str,
    name: str = "<string>",
    *,
    ctx: Context | None = None,
    line_offset: int = 0,
    implicit_module: bool = True,
    data_dir: str | None = None,
) -> ModuleOp:
    """Parses MLIR text; every op gets its `file:line:col` location in `name`.

    `line_offset` is the number of lines before `text` in the file (a `--split-input-file`
    chunk).  Text with only blank lines and comments is an empty module, as in MLIR.
    `data_dir` is the directory external constant data is resolved against (the
    directory of the file the text comes from); the current directory when None.
    Raises `LocatedParseError`.  The module is not verified: see `verify`.
    """
    if is_blank(text):
        module = ModuleOp([])
    else:
        parser = LocatingParser(ctx or make_context(), text, name, line_offset)
        try:
            with gc_paused():  # (as `compile`: no full collection scans the module meanwhile)
                module = parser.parse_module(implicit_module)
        except ParseError as e:
            raise LocatedParseError.of(e, name, line_offset) from None
    if data_dir is not None:
        set_data_dir(module, data_dir)
    return module
