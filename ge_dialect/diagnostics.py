"""MLIR-style located diagnostics for parsing, verification and SSA dominance.

xDSL 0.75 reports verifier errors without a source location and does not check SSA
dominance.  This module adds both:

- `LocatingParser` gives every parsed op a `FileLineColLoc` (unless the text has an explicit
  `loc(...)`) and reports a use of an undefined value at the use, not at the end of file;
- `verify_located` verifies innermost ops first and reports the first failure as
  `file:line:col: error: 'ge.conv2d' op <message>`;
- `check_dominance` rejects a use that its definition does not dominate.

It lexes with `GeLexer`: xDSL's lexer with MLIR's messages for malformed tokens and string
literals in linear time (xDSL 0.75's string pattern backtracks exponentially on an
unterminated string).  Input xDSL cannot represent (dense literals of `i99999`, an `i64`
array element beyond 64 bits) is a located parse error, not an exception.

`LocatingParser` also reads float `dense<[...]>` literals to the exact bits MLIR means: a
hex integer (`0x7F800000`) is the element's bit pattern, a decimal is its value rounded
once, to nearest-even (xDSL 0.75 reads a hex integer as a value and rounds decimals
through a double, and drops NaN payloads).

Every user-facing failure is raised as `GeError`, whose text is the finished diagnostic.
`GeError` is an xDSL `DiagnosticException` and a parse error is a `LocatedParseError`
(both an xDSL `ParseError` and a `GeError`), so xDSL's driver loop treats them as its own
(`--verify-diagnostics`, `--parsing-diagnostics`).
"""

from __future__ import annotations

import bisect
import math
import re
import struct
import weakref

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyDenseElement,
    AnyFloat,
    ArrayAttr,
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
    UnregisteredOp,
)
from xdsl.ir import Attribute, AttributeInvT, Block, Operation, SSAValue, TypeAttribute
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.generic_parser import ParserState
from xdsl.traits import ConstantLike, IsolatedFromAbove
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

from ge_dialect.utils.floats import FLOAT_DTYPES, decimal_bits
from ge_dialect.utils.walk import walk_ops

SPLAT_EXPAND_LIMIT = 1 << 20
"""A float splat of more elements keeps its one element (readers broadcast it): storing
every element of `dense<1.0> : tensor<2x2147483647x1x1xf32>` would take 16 GB."""


class GeError(DiagnosticException):
    """A user's mistake; `str(e)` is one finished diagnostic line (or a few, for notes)."""


class OptionError(GeError):
    """A bad pass option value (ge-opt exits 2, as for a bad flag)."""


MAX_DIMENSION = 2**63 - 1
MAX_INT_WIDTH = 2**24 - 1
"""MLIR's widest integer type (xDSL has no limit, and computes with `1 << width`)."""


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


class GeLexer(MLIRLexer):
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

    def _lex_prefixed_ident(self, start_pos: Position) -> MLIRToken:
        if self._suffix_id.match(self.input.content, self.pos) is None:
            prefix = self.input.content[start_pos]
            raise ParseError(
                Span(start_pos, start_pos + 1, self.input),
                f"expected an identifier after '{prefix}'",
            )
        return super()._lex_prefixed_ident(start_pos)

    def _lex_number(self, start_pos: Position) -> MLIRToken:
        if not "0" <= self.input.content[start_pos] <= "9":  # say, '²': numeric, not a digit
            raise ParseError(
                Span(start_pos, start_pos + 1, self.input),
                f"unexpected character {self.input.content[start_pos]!r}",
            )
        return super()._lex_number(start_pos)

    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        """A string literal; where it cannot go on, MLIR's error at that character."""
        content = self.input.content
        match = self._string_body.match(content, start_pos)
        end = match.end() if match is not None else start_pos
        if content[end : end + 1] == "\\":
            raise ParseError(Span(end, end + 1, self.input), "unknown escape in string literal")
        if content[end : end + 1] != '"':  # a line end or the end of the input
            raise ParseError(Span(end, end, self.input), "expected '\"' in string literal")
        return super()._lex_string_literal(start_pos)  # terminated: xDSL's pattern is linear


class LocatingParser(Parser):
    """A parser that records each op's source position as its location.

    `line_offset` is the number of lines before this chunk in the original file (for
    `--split-input-file`), so locations point into the file the user wrote.  The parser
    lexes its first token at once: a malformed one raises `LocatedParseError` here.
    """

    def __init__(self, ctx: Context, text: str | bytes, name: str, line_offset: int = 0):
        super().__init__(ctx, "", name)  # with xDSL's lexer, replaced by a `GeLexer`:
        text = text.decode("utf-8") if isinstance(text, bytes) else text
        try:
            self._parser_state = ParserState(GeLexer(Input(text, name)))
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
        span = self._current_token.span
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

    def _parse_op_result_list(self) -> list[tuple[Span, int]]:
        results = super()._parse_op_result_list()
        self._op_name_span = self._current_token.span  # the op's name comes next
        return results

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """The op class of `name`; an unknown op is reported at its name (as MLIR does)."""
        try:
            return super()._get_op_by_name(name)
        except ParseError as e:
            raise ParseError(self._op_name_span or e.span, e.msg) from None

    def parse_integer(
        self, allow_boolean: bool = True, allow_negative: bool = True, context_msg: str = ""
    ) -> int:
        """An integer; the op's first one beyond 64 bits (signed) is remembered for errors."""
        start = self._current_token.span
        value = super().parse_integer(allow_boolean, allow_negative, context_msg)
        if self._wide_integer is None and not -(2**63) <= value < 2**63:
            self._wide_integer = start
        return value

    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        start = self._current_token.span
        dim = super().parse_shape_dimension(allow_dynamic)
        if dim > MAX_DIMENSION:
            self.raise_error(f"dimension {dim} is too large (at most 2^63 - 1)", start)
        return dim

    def parse_dense_int_or_fp_elements_attr(
        self, type: RankedStructure[AnyDenseElement] | None
    ) -> DenseIntOrFPElementsAttr:
        """A dense attribute; a splat too large for memory (xDSL stores its every element)
        or a value xDSL cannot pack is a located error."""
        start = self._current_token.span
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
        start = self._current_token.span
        if self._text_after(start)[:1] in ('"', ">"):  # without lexing a long hex string twice
            return super().parse_dense_int_or_fp_elements_attr(type)
        self.parse_punctuation("<", " in dense attribute")
        if self._current_token.kind in (MLIRTokenKind.GREATER, MLIRTokenKind.STRING_LIT):
            self._resume_from(start.start)
            return super().parse_dense_int_or_fp_elements_attr(type)
        elements, shape = self._parse_tensor_literal()
        self.parse_punctuation(">", " in dense attribute")
        literal_type = type
        if literal_type is None:
            self.parse_punctuation(":", " in dense attribute")
            literal_type = self._parse_dense_literal_type()
        dtypes = FLOAT_DTYPES.get(literal_type.element_type.__class__)
        if dtypes is None:
            self._resume_from(start.start)
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

    def _parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        """A builtin integer, index or float type; an integer's width is at most MLIR's."""
        token = self._current_token
        if token.kind == MLIRTokenKind.BARE_IDENT:
            match = self._builtin_integer_type_regex.match(token.text)
            digits = match.group(1).lstrip("0") if match is not None else ""
            if len(digits) > 8 or int(digits or "0") > MAX_INT_WIDTH:  # (no int() of 5000 digits)
                self.raise_error(f"integer bitwidth is limited to {MAX_INT_WIDTH} bits")
        return super()._parse_optional_integer_or_float_type()

    def _parse_dense_literal_type(
        self,
    ) -> RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]:
        """The type after a dense literal; its element type must be one xDSL can store."""
        start = self._current_token.span
        type = super()._parse_dense_literal_type()
        if not _storable(type.element_type):
            self.raise_error(
                f"unsupported element type {type.element_type} in a dense literal", start
            )
        return type

    def _parse_builtin_densearray_attr(self) -> DenseArrayBase | None:
        """`array<T: ...>` (after `array`); `T` must be a type xDSL can store."""
        start = self._current_token.span.start
        self.parse_characters("<", " in dense array")
        element_start = self._current_token.span
        element = self.parse_attribute()
        if isinstance(element, IntegerType | AnyFloat) and not _storable(element):
            self.raise_error(f"unsupported element type {element} in a dense array", element_start)
        self._resume_from(start)
        try:
            return super()._parse_builtin_densearray_attr()
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
            tok = self._current_token.span
            raise ParseError(tok, "nesting too deep for the parser") from None
        except (VerifyException, ValueError) as e:
            # An attribute or type that fails its own verification while it is parsed.
            message = str(e).strip().replace("\n", " ")
            raise ParseError(self._current_token.span, message) from None
        except (ArithmeticError, NotImplementedError, struct.error) as e:
            # A value xDSL cannot store, where no check above catches it (`array<i0: 0>`).
            message = f"unsupported value ({e})" if str(e) else "unsupported value"
            raise ParseError(self._current_token.span, message) from None


def _storable(element: Attribute) -> bool:
    """False for element types xDSL cannot pack (i0, integers beyond 64 bits, f80, f128)."""
    if isinstance(element, IntegerType) and element.bitwidth == 0:
        return False
    try:
        element.compile_time_size  # type: ignore[attr-defined]  # noqa: B018
    except NotImplementedError:
        return False
    return True


def location_str(loc: Attribute | None, fallback: str = "<unknown>") -> str:
    """`file:line:col` of a location attribute (the first file location of fused ones)."""
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, NameLoc):
        inner = location_str(loc.location, "")
        return inner or f"{fallback} ({loc.desc.data})"
    if isinstance(loc, FusedLoc) and isinstance(loc.locations, ArrayAttr):
        for inner in loc.locations.data:
            text = location_str(inner, "")
            if text:
                return text
    if isinstance(loc, CallSiteLoc):
        return location_str(loc.callee, fallback)
    return fallback


def op_error(op: Operation, message: str, fallback: str = "<unknown>") -> GeError:
    """A located error for `op`: `file:line:col: error: 'name' op message`."""
    where = location_str(op.location, fallback)
    return GeError(f"{where}: error: '{op.name}' op {message}")


# Ops whose verifier passed, with what it read: their operands' and results' types and their
# properties.  A `ge` op's verifier reads nothing else (not its neighbours, not its
# discardable attributes), so an op whose key is unchanged needs no second run.
_VERIFIED: weakref.WeakKeyDictionary[Operation, tuple[object, ...]] = weakref.WeakKeyDictionary()

# The same knowledge by content, shared by every op of a class: `(class, key)` of non-constant
# `ge` ops that passed (a graph's convs mostly share their types and properties, and a pass
# that rebuilds an op makes a new one of the same kind).  A constant's key would hold its
# data: a constant takes part only through `verifier_key_without_data()`, when its verifier
# does not read the data (None when it does).  Bounded: emptied at `_PASSED_LIMIT` entries.
_PASSED: dict[tuple[object, ...], None] = {}
_PASSED_LIMIT = 4096

# `_PASSED`'s keys hold attributes as numbers: equal attributes get the same number, once per
# attribute object (`_BY_ID`, which holds the object, so that its id is not reused meanwhile).
# Hashing an attribute walks all its parameters, and a pass keeps most of its type and
# property objects (or shares them among ops), so most objects are numbered in an earlier
# verification or by an op before.  Bounded: emptied, with `_PASSED`, at `_NUMBERED_LIMIT`.
_NUMBERS: dict[Attribute, int] = {}
_BY_ID: dict[int, tuple[Attribute, int]] = {}
_NUMBERED_LIMIT = 1 << 15


_OTHER, _GE, _CONSTANT, _FUNCTION = range(4)
_KINDS: dict[type[Operation], int] = {func.FuncOp: _FUNCTION}
"""Per op class (its name and traits are the class's): not a `ge` op, a `ge` op, a `ge`
constant (`ConstantLike`) or a `func.func`, looked up once per class rather than once per
op."""


def _function_inputs(op: Operation) -> tuple[object, ...] | None:
    """What the verifier of `func.func` reads but the ops in its body: its properties and
    its blocks' count and entry argument types (None: not memoised, when it is not in a
    module, whose body needs no terminator: the one rule that reads its place).  Attributes
    and numbers only: the key of a function in `_VERIFIED` must not hold the function, or
    the weak dictionary would keep it (and its module) alive."""
    block = op.parent
    if block is None or not isinstance(block.parent_op(), ModuleOp):
        return None
    blocks = op.regions[0].blocks
    first = blocks.first
    return (
        *op.properties.items(),
        len(blocks),
        *([] if first is None else [a.type for a in first.args]),
    )


def forget_verified() -> None:
    """Forgets which ops passed (benchmarks start each run from an empty memory)."""
    _VERIFIED.clear()
    _PASSED.clear()
    _NUMBERS.clear()
    _BY_ID.clear()


def _by_content(key: tuple[object, ...]) -> tuple[object, ...]:
    """`key` with each attribute replaced by its number (equal attributes, equal numbers),
    each property `(name, value)` by its name and its value's number, other items (None,
    classes) as they are."""
    by_id = _BY_ID
    out: list[object] = []
    for x in key:
        found = by_id.get(id(x))
        if found is not None:
            out.append(found[1])
        elif type(x) is tuple:  # a property: (name, value)
            name, value = x
            found = by_id.get(id(value))
            out.append(name)
            out.append(found[1] if found is not None else _number(value))
        elif isinstance(x, Attribute):
            out.append(_number(x))
        else:
            out.append(x)
    return tuple(out)


def _number(x: Attribute) -> int:
    number = _NUMBERS.setdefault(x, len(_NUMBERS))
    _BY_ID[id(x)] = (x, number)
    return number


def _verifier_inputs(op: Operation) -> tuple[object, ...]:
    # list displays, not generators: this runs for every op at every verification
    return (
        *[v.type for v in op.operands],
        None,
        *[r.type for r in op.results],
        None,
        *op.properties.items(),
    )


def verify_located(module: Operation, fallback: str = "<unknown>") -> None:
    """Verifies innermost ops first and raises the first failure as a located GeError.

    A `ge` op is not verified again when it passed before with the same types and
    properties, or when another op of its class passed with equal ones (a constant: with
    equal types, when its verifier does not read its data), unless it ends its block (the
    terminator rule depends on its position).  Nor is a `func.func` of a module whose
    properties, blocks and argument types are those it passed with: the rule of its
    `IsolatedFromAbove` trait, the one part of its verifier that reads its body (every
    operand of every op in it), is left to `check_dominance`, which `verify_module` runs
    next, and checks it too.
    """
    kinds = _KINDS
    for op in walk_ops(module, region_first=True):
        kind = kinds.get(type(op))
        if kind is None:
            kind = (
                _OTHER
                if not op.name.startswith("ge.")
                else _CONSTANT
                if op.has_trait(ConstantLike)
                else _GE
            )
            if not isinstance(op, UnregisteredOp):  # (whose name may be the op's own)
                kinds[type(op)] = kind
        memo = kind != _OTHER and not op.regions and not op.successors
        shared: tuple[object, ...] | None = None
        key: tuple[object, ...] | None = None
        if kind == _FUNCTION:
            key = _function_inputs(op)
            if key is not None and _VERIFIED.get(op) == key:
                continue
        elif memo:
            key = _verifier_inputs(op)
            block = op.parent
            if block is None or block.last_op is not op:
                if _VERIFIED.get(op) == key:  # items compare by identity first
                    continue
                if kind == _GE:
                    shared = (type(op), *_by_content(key))
                elif (data_free := getattr(op, "verifier_key_without_data", None)) is not None:
                    shared = data_free()
                    if shared is not None:
                        shared = _by_content(shared)
                if shared is not None and shared in _PASSED:
                    _VERIFIED[op] = key
                    continue
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            # One line: some of xDSL's messages span several.
            message = str(e).strip().replace("\n", " ")
            raise op_error(op, message, fallback) from None
        if key is not None:
            _VERIFIED[op] = key
        if shared is not None:
            if len(_PASSED) >= _PASSED_LIMIT:
                _PASSED.clear()
            _PASSED[shared] = None
        if len(_BY_ID) >= _NUMBERED_LIMIT:  # numbers go: so do the keys made of them
            _PASSED.clear()
            _NUMBERS.clear()
            _BY_ID.clear()


def check_dominance(module: Operation, fallback: str = "<unknown>") -> None:
    """Raises a located GeError for the first use not dominated by its definition.

    Within a block, a value is visible after its defining op; values of enclosing blocks
    are visible to nested regions from their definition on, except in the regions of an
    `IsolatedFromAbove` op (a function), which see none: this check implies that trait's
    rule, which `verify_located` leaves to it for a function it verified before.
    Multi-block regions are checked per block only (values of other blocks of the region
    are accepted).
    """

    def walk_block(block: Block, visible: set[int]) -> None:
        """`visible`: the ids of the visible values (an SSA value hashes by its id, with a
        call to Python's `SSAValue.__hash__`; the values stay alive meanwhile, so their ids
        are theirs)."""
        added: list[int] = [id(arg) for arg in block.args]
        visible.update(added)
        for op in block.ops:
            for i, operand in enumerate(op.operands):
                if id(operand) not in visible and not _defined_in_sibling_block(operand, block):
                    owner = operand.owner
                    where = ""
                    if isinstance(owner, Operation):
                        where = f" (defined by '{owner.name}' at {location_str(owner.location)})"
                    raise op_error(op, f"operand #{i} does not dominate this use{where}", fallback)
            if op.regions:
                seen = set() if op.has_trait(IsolatedFromAbove) else visible
                for region in op.regions:
                    for inner in region.blocks:
                        walk_block(inner, seen)
            for result in op.results:
                visible.add(id(result))
                added.append(id(result))
        visible.difference_update(added)

    def _defined_in_sibling_block(value: SSAValue, block: Block) -> bool:
        region = block.parent
        if region is None or len(region.blocks) < 2:
            return False
        owner = value.owner
        owner_block = owner if isinstance(owner, Block) else owner.parent_block()
        return owner_block is not None and owner_block is not block and owner_block.parent is region

    if isinstance(module, ModuleOp):
        # The module body is a graph region: its ops need no order, only their bodies.
        for op in module.ops:
            for region in op.regions:
                for block in region.blocks:
                    walk_block(block, set())
    else:
        for region in module.regions:
            for block in region.blocks:
                walk_block(block, set())
