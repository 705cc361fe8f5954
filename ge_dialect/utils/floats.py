"""Float constants printed so that they re-parse to the same bits, in ge-opt, xDSL and MLIR.

xDSL 0.75 prints an f32 element whose 9-digit form has no "." (an integer of 7 to 9
digits) and every inf/NaN as a hex bit pattern (`dense<[0x4996B438]>`), as MLIR does, but
xDSL's dense parser reads a hex integer as the *value* 1234613248.0.  It also decides
splats by value (so `[0.0, -0.0]` prints as `dense<0.000000e+00>`) and goes through Python
floats, which drops NaN payloads (f16) and quiets signalling NaNs.

`dense_literal` writes the elements of an f16/f32/f64 dense attribute from their bits:

- a finite element is a decimal with a "." (xDSL's text whenever that text was exact;
  else xDSL's 9 digits with a "." added, `1234567.0`; else 17 significant digits),
  checked to read back to the same bits both through a double, as xDSL reads it, and
  rounded once, as MLIR does;
- when an element is inf or NaN, the whole attribute is the hex string of its bytes,
  `dense<"0x0000807F">` (one element's bytes for a splat), which every parser reads as
  the bytes;
- a splat is decided on bits; more than 100 elements print as hex, as xDSL does.

`ExactPrinter` is xDSL's `Printer` with that rule for every dense float attribute (custom
and generic form); `print_dense` does the same on any printer.  Reading the text back
exactly (a hex integer in a float `dense<[...]>` is a bit pattern, as in MLIR) is
`ge_dialect.ir.parser.LocatingParser`'s part.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
)
from xdsl.ir import Attribute
from xdsl.printer import Printer
from xdsl.syntax_printer import SyntaxPrinter

HEX_IF_LARGER = 100
"""Dense attributes of more elements print as a hex string (xDSL's threshold)."""

# element type -> (numpy float dtype, numpy unsigned dtype of the same width), little-endian
_FORMATS: dict[type[Attribute], tuple[np.dtype, np.dtype]] = {
    Float16Type: (np.dtype("<f2"), np.dtype("<u2")),
    Float32Type: (np.dtype("<f4"), np.dtype("<u4")),
    Float64Type: (np.dtype("<f8"), np.dtype("<u8")),
}


def float_dtypes(element_type: Attribute) -> tuple[np.dtype, np.dtype] | None:
    """(float dtype, bits dtype) of an element type this module writes exactly, or None."""
    return _FORMATS.get(type(element_type))


def ties(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Which doubles of `x` lie exactly halfway between two neighbours in `dtype`.

    Only there can reading a decimal through a double (xDSL) and rounding it once (MLIR)
    disagree: every midpoint of f16/f32 (and the overflow threshold) is a double, so a
    decimal and its nearest double are on the same side of it unless the double is the
    midpoint itself.
    """
    if dtype.itemsize == 8:
        return np.zeros(x.shape, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        y = x.astype(dtype)
        near = y.astype(np.float64)
        toward = np.where(x > near, np.inf, -np.inf).astype(dtype)
        other = np.nextafter(y, toward).astype(np.float64)
        halfway = (near != x) & ((near + other) / 2 == x)
    finite_max = np.finfo(dtype).max.astype(np.float64)
    below = np.nextafter(np.finfo(dtype).max, dtype.type(0)).astype(np.float64)
    threshold = finite_max + (finite_max - below) / 2  # rounds to inf, ties to even
    return np.where(np.isinf(near) & np.isfinite(x), np.abs(x) == threshold, halfway)


def _reads_back(texts: Sequence[str], bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Which texts read back to their `bits` both through a double (xDSL) and rounded
    once (MLIR): through a double, and the double is not a tie of `dtype`."""
    x = np.array([float(t) for t in texts], dtype=np.float64)
    with np.errstate(over="ignore"):
        read = x.astype(dtype).view(bits.dtype)
    return (read == bits) & ~ties(x, dtype)


def _with_point(text: str) -> str:
    """`text` with a "." in its mantissa (MLIR's float literals need one)."""
    if "." in text:
        return text
    mantissa, e, exponent = text.partition("e")
    return f"{mantissa}.0{e}{exponent}"


def _xdsl_text(value: float) -> str:
    """xDSL's first choice: six significant digits in MLIR's style (`1.000000e+00`)."""
    text = f"{value:.5e}"
    index = text.find("e")
    return text[:index] + "0" + text[index:]


def format_elements(bits: np.ndarray, dtype: np.dtype) -> list[str] | None:
    """Decimals that every parser reads back to `bits` (an array of the unsigned type of
    `dtype`'s width), or None when an element is inf or NaN.

    Each is the text xDSL prints when that text reads back exactly both ways (so exact
    outputs do not change), else xDSL's 9 digits (f32; 17 for f64, the shortest repr
    otherwise) with a "." added, else 17 digits, which give the double back exactly.
    """
    values = bits.view(dtype)
    if not np.isfinite(values).all():
        return None
    doubles = values.astype(np.float64).tolist()
    texts = [_xdsl_text(v) for v in doubles]
    wrong = np.flatnonzero(~_reads_back(texts, bits, dtype))
    if wrong.size:
        digits = {4: 9, 8: 17}.get(dtype.itemsize)
        retry = [
            _with_point(f"{doubles[i]:.{digits}g}" if digits else repr(doubles[i])) for i in wrong
        ]
        exact = _reads_back(retry, bits[wrong], dtype)
        for i, text, ok in zip(wrong.tolist(), retry, exact.tolist(), strict=True):
            texts[i] = text if ok else _with_point(f"{doubles[i]:.17g}")
    return texts


def format_element(bits: int, dtype: np.dtype, bits_dtype: np.dtype) -> str | None:
    """`format_elements` of one element."""
    texts = format_elements(np.array([bits], dtype=bits_dtype), dtype)
    return None if texts is None else texts[0]


def _nested(items: Sequence[str], shape: Sequence[int]) -> str:
    if len(shape) <= 1:
        return "[" + ", ".join(items) + "]"
    step = len(items) // shape[0] if shape[0] else 0
    rows = (items[i : i + step] for i in range(0, len(items), step)) if step else ()
    return "[" + ", ".join(_nested(row, shape[1:]) for row in rows) + "]"


def dense_literal(attr: DenseIntOrFPElementsAttr) -> str | None:
    """`dense<...>` (without its type) for an f16/f32/f64 attribute, exact for every parser.

    None for other element types (xDSL prints those exactly already).
    """
    dtypes = float_dtypes(attr.get_element_type())
    if dtypes is None:
        return None
    dtype, bits_dtype = dtypes
    data = attr.data.data
    bits = np.frombuffer(data, dtype=bits_dtype)
    if bits.size == 0:
        return "dense<>"
    if bool(np.all(bits == bits[0])):
        texts = format_elements(bits[:1], dtype)
        if texts is None:
            return f'dense<"0x{data[: dtype.itemsize].hex().upper()}">'
        return f"dense<{texts[0]}>"
    if bits.size > HEX_IF_LARGER:
        return f'dense<"0x{data.hex().upper()}">'
    texts = format_elements(bits, dtype)
    if texts is None:
        return f'dense<"0x{data.hex().upper()}">'
    shape = attr.get_shape() if attr.shape_is_complete else (bits.size,)
    assert shape is not None
    return f"dense<{_nested(texts, shape)}>"


def print_dense(printer: Printer, attr: DenseIntOrFPElementsAttr) -> None:
    """Prints `attr` with its type, exactly (on any printer)."""
    text = dense_literal(attr)
    if text is None:
        printer.print_attribute(attr)
        return
    printer.print_string(text)
    printer.print_string(" : ")
    printer.print_attribute(attr.get_type())


class ExactPrinter(Printer):
    """xDSL's printer, with dense float attributes that re-parse to the same bits."""

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, DenseIntOrFPElementsAttr) and float_dtypes(
            attribute.get_element_type()
        ):
            print_dense(self, attribute)
        else:
            super().print_attribute(attribute)


class ExactSyntaxPrinter(ExactPrinter, SyntaxPrinter):
    """`ExactPrinter` with xDSL's syntax highlighting (`--syntax-highlight`)."""


# element type -> (numpy float dtype, numpy unsigned dtype of its width), little-endian
FLOAT_DTYPES: dict[type[Attribute], tuple[np.dtype, np.dtype]] = {
    Float16Type: (np.dtype("<f2"), np.dtype("<u2")),
    Float32Type: (np.dtype("<f4"), np.dtype("<u4")),
    Float64Type: (np.dtype("<f8"), np.dtype("<u8")),
}


def decimal_bits(texts: Sequence[str], dtype: np.dtype, bits_dtype: np.dtype) -> np.ndarray:
    """The bits MLIR gives decimal literals (`-1.5e3`, `16777217`) in a float dense literal.

    Each value is rounded once, to nearest-even (beyond the range it is +-inf, as in MLIR).
    Python reads a decimal to its nearest double; rounding that double again agrees with
    rounding the decimal once except when the double is a midpoint of `dtype`, where the
    decimal's exact value decides.
    """
    x = np.array([float(t) for t in texts], dtype=np.float64)
    with np.errstate(over="ignore"):
        y = x.astype(dtype)
    for i in np.flatnonzero(ties(x, dtype)).tolist():
        exact = Fraction(texts[i])
        if exact != x[i] and (float(y[i]) > x[i]) != (exact > x[i]):
            # ties-to-even picked the neighbour on the other side of the decimal
            y[i] = np.nextafter(y[i], dtype.type(np.inf if exact > x[i] else -np.inf))
    return y.view(bits_dtype)


def float_literal_bits(text: str, dtype: np.dtype, bits_dtype: np.dtype) -> int:
    """`decimal_bits` of one decimal."""
    return int(decimal_bits([text], dtype, bits_dtype)[0])
