"""Parser helpers for hand-written attribute syntax (xDSL 0.75 has no attribute assembly format)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.parser import AttrParser


def parse_parameter_list(
    parser: AttrParser, kind: str, parsers: dict[str, Callable[[], object]]
) -> dict[str, object]:
    """Parses `, key = value` pairs up to the closing `>`, each key at most once.

    `parsers` maps each allowed key to the function that parses its value.
    """
    values: dict[str, object] = {}
    while parser.parse_optional_punctuation(",") is not None:
        pos = parser.pos
        key = parser.parse_identifier(context_msg=f" ({' or '.join(parsers)})")
        if key not in parsers:
            parser.raise_error(
                f"unknown {kind} parameter '{key}', expected {' or '.join(parsers)}",
                pos,
                parser.pos,
            )
        if key in values:
            parser.raise_error(f"{kind} parameter '{key}' is given twice", pos, parser.pos)
        parser.parse_punctuation("=")
        values[key] = parsers[key]()
    return values


def parse_string(parser: AttrParser, context_msg: str = "") -> str:
    """A string literal, including the escaped non-ASCII form the printer writes.

    xDSL lexes `"\\C3\\A9"` as a bytes literal, which `parse_str_literal` refuses.
    """
    pos = parser.pos
    if (text := parser.parse_optional_str_literal()) is not None:
        return text
    if (data := parser.parse_optional_bytes_literal()) is not None:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            parser.raise_error("string literal is not valid UTF-8", pos, parser.pos)
    parser.raise_error("string literal expected" + context_msg)


def parse_i64(parser: AttrParser, allow_negative: bool = True) -> int:
    """An integer that fits in a signed 64-bit integer, else mlir-opt's "integer value too
    large" at the number (xDSL would keep any Python int, and print what no parser reads)."""
    pos = parser.pos
    value = parser.parse_integer(allow_boolean=False, allow_negative=allow_negative)
    if not -(2**63) <= value < 2**63:
        parser.raise_error("integer value too large", pos, parser.pos)
    return value
