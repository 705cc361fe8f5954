"""Float constants re-parse to the same bits.

Printing (`ge_dialect.utils.floats`: `ExactPrinter`, `api.print_module`, `ge.const`'s
custom form) writes finite elements as decimals with a "." and an attribute holding inf or
NaN as the hex string of its bytes; parsing (`LocatingParser`) reads a hex integer in a
float dense literal as the bit pattern, as MLIR does, and rounds decimals once.  Checked
here on random bit patterns of every class, in both forms, at small (decimal list) and
large (hex) sizes, by ge-opt's parser and by xDSL's own; on the ONNX reproducer through
`ge-opt m.onnx | ge-opt` against onnxruntime; on a folded batch norm and on a division
by zero.  `test/lit/tools/constant-bits.mlir` has upstream mlir-opt read the same forms.
"""

from __future__ import annotations

import io
import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from helpers import onnx_ref
from helpers.support import assert_close, const, make_module
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    ModuleOp,
    TensorType,
    f16,
    f32,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from ge_dialect import api
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.tools.ge_opt import main
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.floats import float_literal_bits, format_element

# name -> (MLIR type, float dtype, bits dtype, exponent bits, mantissa bits)
FORMATS: dict[str, tuple[Float16Type | Float32Type, np.dtype, np.dtype, int, int]] = {
    "f32": (f32, np.dtype("<f4"), np.dtype("<u4"), 8, 23),
    "f16": (f16, np.dtype("<f2"), np.dtype("<u2"), 5, 10),
}


def round_to_bits(value: Fraction, dtype: np.dtype) -> int:
    """The oracle: |value| rounded once to nearest-even in `dtype`, in integers (inf beyond
    the range), with `value`'s sign."""
    info = np.finfo(dtype)
    p, emax = info.nmant, info.maxexp - 1
    emin = 1 - emax
    sign = 1 << (8 * dtype.itemsize - 1) if value < 0 else 0
    n, d = abs(value.numerator), value.denominator
    if n == 0:
        return sign
    e = n.bit_length() - d.bit_length()  # 2^e <= |value| < 2^(e+1), after the correction
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    e = max(e, emin)  # subnormals share emin's quantum
    num, den = (n << (p - e), d) if e <= p else (n, d << (e - p))
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    if m == 1 << (p + 1):
        m, e = m >> 1, e + 1
    if e > emax:
        return sign | (((1 << (8 * dtype.itemsize - 1 - p)) - 1) << p)
    if m < 1 << p:
        return sign | m
    return sign | ((e + emax) << p) | (m - (1 << p))


# --------------------------------------------------------------------------------------
# Bit patterns of every class
# --------------------------------------------------------------------------------------


@st.composite
def float_bits(draw, name: str) -> int:
    """One bit pattern of the format `name`, from a class chosen at random."""
    _, dtype, bits_dtype, ebits, mbits = FORMATS[name]
    emax = (1 << ebits) - 1
    sign = draw(st.integers(0, 1)) << (ebits + mbits)
    kind = draw(
        st.sampled_from(
            ["normal", "zero", "subnormal", "inf", "qnan", "snan", "integer", "huge", "tiny", "any"]
        )
    )
    mantissa = draw(st.integers(0, (1 << mbits) - 1))
    quiet = 1 << (mbits - 1)
    if kind == "normal":
        return sign | (draw(st.integers(1, emax - 1)) << mbits) | mantissa
    if kind == "zero":
        return sign
    if kind == "subnormal":
        return sign | max(mantissa, 1)
    if kind == "inf":
        return sign | (emax << mbits)
    if kind == "qnan":
        return sign | (emax << mbits) | quiet | mantissa
    if kind == "snan":
        return sign | (emax << mbits) | max(mantissa & (quiet - 1), 1)
    if kind == "integer":
        # f32: [2^23, 1e9), where xDSL's 9-digit form has no "."; f16: [2^10, 65504].
        top = 10**9 - 1 if name == "f32" else 65504
        value = draw(st.integers(1 << mbits, top))
        bits = int(np.array([value], dtype=dtype).view(bits_dtype)[0])
        return sign | bits
    if kind == "huge":
        return sign | (draw(st.integers(emax - 3, emax - 1)) << mbits) | mantissa
    if kind == "tiny":
        return sign | (draw(st.integers(1, 3)) << mbits) | mantissa
    return draw(st.integers(0, (1 << (1 + ebits + mbits)) - 1))


@st.composite
def constants(draw) -> tuple[str, list[int], list[int]]:
    """(format, shape, bits): a small (decimal list) or large (hex) constant; some splats."""
    name = draw(st.sampled_from(list(FORMATS)))
    size = draw(st.one_of(st.integers(1, 100), st.integers(101, 300)))
    layout = draw(st.sampled_from(["distinct", "splat", "two"]))
    if layout == "distinct":
        bits = draw(st.lists(float_bits(name), min_size=size, max_size=size))
    elif layout == "splat":
        bits = [draw(float_bits(name))] * size
    else:  # two patterns, equal by value for +-0 (xDSL decided splats by value)
        a, b = draw(float_bits(name)), draw(float_bits(name))
        bits = [draw(st.sampled_from([a, b])) for _ in range(size)]
    shape = [size]
    if size % 2 == 0 and draw(st.booleans()):
        shape = [2, size // 2]
    return name, shape, bits


def const_module(name: str, shape: list[int], bits: list[int]) -> ModuleOp:
    element, _, bits_dtype, _, _ = FORMATS[name]
    data = np.array(bits, dtype=bits_dtype).tobytes()
    value = DenseIntOrFPElementsAttr(TensorType(element, shape), BytesAttr(data))
    return ModuleOp([ge.ConstOp(value)])


def const_bytes(module: ModuleOp) -> list[bytes]:
    """The data of every inline `ge.const` of `module`, in order."""
    found = []
    for op in module.walk():
        if isinstance(op, ge.ConstOp):
            assert isinstance(op.value, DenseIntOrFPElementsAttr)
            found.append(op.value.data.data)
    return found


def reparse(text: str) -> ModuleOp:
    return api.parse(text, "printed.mlir")


# --------------------------------------------------------------------------------------
# Round trips of random bit patterns
# --------------------------------------------------------------------------------------


@settings(max_examples=300)
@given(constants())
def test_printed_constants_reparse_to_the_same_bits(case):
    name, shape, bits = case
    module = const_module(name, shape, bits)
    expected = const_bytes(module)
    for generic in (False, True):
        text = api.print_module(module, generic)
        assert const_bytes(reparse(text)) == expected, text
        # xDSL's own parser reads the same bits: no per-element hex is ever printed.
        stock = Parser(make_context(), text).parse_module()
        assert const_bytes(stock) == expected, text
        if len(bits) > 100 and len(set(bits)) > 1:
            assert '"0x' in text  # large constants print as hex, as before
    # `ge.const`'s custom form is exact on xDSL's printer as well.
    assert const_bytes(reparse(str(module))) == expected


@settings(max_examples=1000)
@given(st.sampled_from(list(FORMATS)).flatmap(lambda n: st.tuples(st.just(n), float_bits(n))))
def test_elements_keep_xdsl_text_where_it_was_exact(case):
    """Every decimal xDSL printed that read back exactly prints unchanged (lit pins many)."""
    name, bits = case
    element, dtype, bits_dtype, _, _ = FORMATS[name]
    value = float(np.array([bits], dtype=bits_dtype).view(dtype)[0])
    ours = format_element(bits, dtype, bits_dtype)
    if not math.isfinite(value):
        assert ours is None
        return
    assert ours is not None and ("." in ours)
    out = io.StringIO()
    Printer(stream=out).print_float(value, element)
    theirs = out.getvalue()
    if not theirs.startswith("0x"):
        assert ours == theirs
    # and it is MLIR's value: rounded once, from the decimal
    sign = 1 << (8 * dtype.itemsize - 1) if ours.startswith("-") else 0
    assert sign | round_to_bits(abs(Fraction(ours)), dtype) == bits
    assert float_literal_bits(ours, dtype, bits_dtype) == bits


# --------------------------------------------------------------------------------------
# Parsing what other tools write
# --------------------------------------------------------------------------------------


def parse_const(literal: str, type_text: str) -> np.ndarray:
    text = f'"ge.const"() <{{value = {literal} : {type_text}}}> : () -> {type_text}'
    module = LocatingParser(make_context(), text, "t.mlir").parse_module()
    (data,) = const_bytes(module)
    bits_dtype = "<u2" if "f16" in type_text else "<u4"
    return np.frombuffer(data, dtype=bits_dtype)


def test_hex_elements_are_bit_patterns_as_in_mlir():
    # mlir-opt's own output for these values (test/lit/tools/constant-bits.mlir)
    got = parse_const(
        "dense<[0x4996B438, 0xCA5082F0, 0x7F800000, 0xFFC00001, 0x7F800001, -0.000000e+00, "
        "1.401300e-45, -1.17549421E-38, 3.40282347E+38]>",
        "tensor<9xf32>",
    )
    assert [hex(b) for b in got] == [
        "0x4996b438", "0xca5082f0", "0x7f800000", "0xffc00001", "0x7f800001", "0x80000000",
        "0x1", "0x807fffff", "0x7f7fffff",
    ]  # fmt: skip
    got = parse_const("dense<[0x7C01, 0xFE00, 5.960460e-08, -0.000000e+00]>", "tensor<4xf16>")
    assert [hex(b) for b in got] == ["0x7c01", "0xfe00", "0x1", "0x8000"]
    assert list(parse_const("dense<0x7F800000>", "tensor<3xf32>")) == [0x7F800000] * 3
    # large sizes and the hex string form are xDSL's (bytes as they are)
    assert list(parse_const('dense<"0x0100807F">', "tensor<2xf32>")) == [0x7F800001] * 2


def test_decimal_integers_and_booleans_are_values():
    got = parse_const("dense<[16777217, -3, true, false, -0]>", "tensor<5xf32>")
    assert list(got.view("<f4")) == [16777216.0, -3.0, 1.0, 0.0, 0.0]
    assert got[4] == 0x80000000  # -0 keeps its sign


def test_decimals_round_once_as_mlir_does():
    # 1 + 2^-24 is the midpoint between 1.0 and the next f32; the nearest double of both
    # decimals is that midpoint, so rounding through a double would give 1.0 twice.
    got = parse_const(
        "dense<[1.00000005960464477539062500000000001, 1.0000000596046447753906249999999999, "
        "1.000000059604644775390625, 3.5e38, 3.40282356e38, -1.0e39, 1.0e-50]>",
        "tensor<7xf32>",
    )
    assert [hex(b) for b in got] == [
        "0x3f800001", "0x3f800000", "0x3f800000", "0x7f800000", "0x7f7fffff", "0xff800000", "0x0",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("dense<[-0x3F800000]>", "hexadecimal float literal should not have a leading minus"),
        ("dense<[0x13F800000]>", "hexadecimal float constant out of range for type"),
        ("dense<[(1.0, 2.0)]>", "No conversion from complex to float"),
    ],
)
def test_bad_float_literals_are_located_errors(literal, message):
    text = f'"ge.const"() <{{value = {literal} : tensor<1xf32>}}> : () -> tensor<1xf32>'
    with pytest.raises(GeError, match=re.escape(message)) as info:
        api.parse(text, "t.mlir")
    assert str(info.value).startswith("t.mlir:1:")


def test_integer_dense_literals_are_xdsls():
    text = '"test.op"() {v = dense<[1, 0x10, -2]> : tensor<3xi32>} : () -> ()'
    module = LocatingParser(make_context(), text, "t.mlir").parse_module()
    op = next(iter(module.ops))
    assert np.frombuffer(op.attributes["v"].data.data, "<i4").tolist() == [1, 16, -2]


@st.composite
def decimals(draw) -> tuple[str, str]:
    """(format, decimal text): near a midpoint of the format, or any value in range."""
    name = draw(st.sampled_from(list(FORMATS)))
    _, dtype, bits_dtype, ebits, mbits = FORMATS[name]
    bits = draw(st.integers(0, (((1 << ebits) - 1) << mbits) - 2))
    lo = Fraction(float(np.array([bits], bits_dtype).view(dtype)[0]))
    hi = Fraction(float(np.array([bits + 1], bits_dtype).view(dtype)[0]))
    offset = draw(st.sampled_from([0, 1, -1])) * Fraction(1, 10 ** draw(st.integers(20, 60)))
    where = draw(st.sampled_from([Fraction(1, 2), Fraction(draw(st.integers(0, 99)), 100)]))
    value = abs(lo + (hi - lo) * where + offset * (hi - lo))
    with localcontext() as context:
        context.prec = 120  # enough for the offsets above
        text = format(Decimal(value.numerator) / Decimal(value.denominator), ".110e")
    return name, text if draw(st.booleans()) else "-" + text


def test_the_oracle_rounds_doubles_as_numpy_does():
    rng = np.random.default_rng(3)
    doubles = rng.standard_normal(2000) * np.exp2(rng.integers(-160, 130, 2000))
    for name in FORMATS:
        _, dtype, bits_dtype, _, _ = FORMATS[name]
        with np.errstate(over="ignore"):
            expected = doubles.astype(dtype).view(bits_dtype).tolist()
        assert [round_to_bits(Fraction(x), dtype) for x in doubles.tolist()] == expected


@settings(max_examples=500)
@given(decimals())
def test_decimals_are_rounded_once(case):
    name, text = case
    _, dtype, bits_dtype, _, _ = FORMATS[name]
    sign = 1 << (8 * dtype.itemsize - 1) if text.startswith("-") else 0  # -0 too
    expected = sign | round_to_bits(abs(Fraction(text)), dtype)
    assert float_literal_bits(text, dtype, bits_dtype) == expected


# --------------------------------------------------------------------------------------
# Through ge-opt: the ONNX reproducer, a folded batch norm, a division by zero
# --------------------------------------------------------------------------------------


def ge_opt(capsys, args: list[str]) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), err
    return out


def piped(capsys, tmp_path, model, args: tuple[str, ...] = ()) -> tuple[str, ModuleOp]:
    """`ge-opt m.onnx [args] | ge-opt`: the first output, and the second parsed."""
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    first = ge_opt(capsys, [str(path), *args])
    (tmp_path / "first.mlir").write_text(first)
    second = ge_opt(capsys, [str(tmp_path / "first.mlir")])
    return first, api.parse(second, "second.mlir")


def test_onnx_constant_add_survives_a_pipe(capsys, tmp_path):
    c = np.array([1234567.0, -3416252.0], np.float32)
    x = np.array([0.25, -1.5], np.float32)
    node = helper.make_node("Add", ["x", "c"], ["y"])
    model = onnx_ref.make_model([node], {"x": x}, ["y"], {"c": c})
    first, module = piped(capsys, tmp_path, model)
    assert "dense<[1234567.0, -3416252.0]> : tensor<2xf32>" in first
    assert const_bytes(module) == [c.tobytes()]
    (ref,) = onnx_ref.run_graph([node], {"x": x}, ["y"], {"c": c})
    (got,) = run_function(module, [x])
    assert_close(got, ref, np.float32)


def test_folded_batch_norm_with_a_large_mean_reparses_exactly(capsys, tmp_path):
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, (1, 3, 4, 4)).astype(np.float32)
    w = (rng.standard_normal((4, 3, 3, 3)) / math.sqrt(27)).astype(np.float32)
    scale = np.array([1.0, 0.5, 2.0, 1.5], np.float32)
    bias = np.array([0.1, -0.2, 0.3, 0.0], np.float32)
    mean = np.array([1.0e5, -2.0e5, 3.0e4, 7.5e4], np.float32)  # folded bias ~ -9.5e6
    var = np.array([1.0e-4, 2.0e-4, 1.0e-4, 5.0e-5], np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["t"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["t", "s", "b", "m", "v"], ["y"]),
    ]
    inits = {"w": w, "s": scale, "b": bias, "m": mean, "v": var}
    model = onnx_ref.make_model(nodes, {"x": x}, ["y"], inits)

    # In memory: print (both forms), parse, same bits.
    fused = api.compile(api.load(model), "fuse")
    assert any(isinstance(op, ge.FusedConv2DOp) for op in fused.walk())
    expected = const_bytes(fused)
    folded = np.frombuffer(expected[-1], np.float32)
    assert np.all(np.abs(folded) >= 2**22) and np.all(np.abs(folded) < 1e9)  # 7-8 digits
    for generic in (False, True):
        assert const_bytes(reparse(api.print_module(fused, generic))) == expected

    # Through the tool: `ge-opt m.onnx --fuse | ge-opt` computes onnxruntime's numbers.
    first, module = piped(capsys, tmp_path, model, ("--fuse",))
    assert re.search(r"dense<\[-\d{7}\.0, ", first), first
    assert const_bytes(module) == expected
    (ref,) = onnx_ref.run_graph(nodes, {"x": x}, ["y"], inits)
    (got,) = run_function(module, [x])
    (unprinted,) = run_function(fused, [x])
    np.testing.assert_array_equal(got, unprinted)
    assert_close(got, ref, np.float32)


def test_division_by_a_zero_constant_keeps_its_infinities(capsys, tmp_path):
    x = np.array([0.5, -0.75, 0.25, -1.0], np.float32)
    c = np.array([2.0, 0.0, -0.0, 4.0], np.float32)
    node = helper.make_node("Div", ["x", "c"], ["y"])
    model = onnx_ref.make_model([node], {"x": x}, ["y"], {"c": c})
    first, module = piped(capsys, tmp_path, model)
    assert 'dense<"0x0000003F0000807F000080FF0000803E"> : tensor<4xf32>' in first
    (ref,) = onnx_ref.run_graph([node], {"x": x}, ["y"], {"c": c})
    (got,) = run_function(module, [x])
    assert np.isinf(ref[1:3]).all()
    np.testing.assert_array_equal(got, ref)


def test_ir_dumps_are_exact(capsys, tmp_path):
    c = np.array([1234567.0, np.inf], np.float32)
    module = make_module([], lambda: const(c))
    path = tmp_path / "in.mlir"
    path.write_text(api.print_module(module))
    main([str(path), "-p", "canonicalize", "--print-ir-after-all"])
    _, err = capsys.readouterr()
    dumped = err.split("//----- //\n", 1)[1]
    assert const_bytes(reparse(dumped)) == [c.tobytes()]


def test_splats_and_integer_constants_print_as_xdsl_did():
    value = DenseIntOrFPElementsAttr(TensorType(Float32Type(), [2]), BytesAttr(b"\0" * 8))
    module = ModuleOp([ge.ConstOp(value)])
    assert "dense<0.000000e+00> : tensor<2xf32>" in api.print_module(module)
    text = '"test.op"() {v = dense<[1, 2]> : tensor<2xi8>} : () -> ()'
    parsed = LocatingParser(make_context(), text, "t.mlir").parse_module()
    assert "dense<[1, 2]> : tensor<2xi8>" in api.print_module(parsed)
