"""The simulated NPU's kernels (`ge_dialect.sim.kernels`) against independent references.

Every kernel runs on physical arrays; its result is compared with a logical reference built
here with plain numpy (or the reference interpreter's direct sliding-window
`conv2d_reference` / `pool2d_reference`), laid out with `ge_dialect.utils.layout`, under
docs/architecture.md's tolerances (data movement exact).  NC1HWC0 results must have exactly
zero padding lanes, and garbage in the inputs' padding lanes must not change them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.tolerances import assert_close, assert_exact, assert_padding_zero, with_garbage_padding

from ge_dialect.ir.interpreter import conv2d_reference, pool2d_reference
from ge_dialect.sim.kernels import KERNELS, Operand, UnknownKernel, run_kernel
from ge_dialect.utils import layout, tolerance
from ge_dialect.utils.shapes import conv_output_size, pool_output_size

F16, F32 = np.dtype(np.float16), np.dtype(np.float32)


def T(shape, dtype, fmt="ND", c0=None, groups=1) -> Operand:
    """An Operand; c0 defaults to the dtype's (16, or 32 for 1-byte types)."""
    dtype = np.dtype(dtype)
    if fmt == "ND" and len(shape) == 4:
        fmt = "NCHW"
    return Operand(tuple(shape), dtype, fmt, c0 or layout.default_c0(dtype.itemsize), groups)


def phys(a: np.ndarray, t: Operand) -> np.ndarray:
    return layout.to_physical(np.asarray(a).astype(t.dtype), t.fmt, t.c0, t.groups)


def garbage(p: np.ndarray, t: Operand, rng) -> np.ndarray:
    return with_garbage_padding(p, t.shape, t.c0, rng) if t.fmt == "NC1HWC0" else p


def rand(rng, shape, dtype, lo=-1.0, hi=1.0) -> np.ndarray:
    return rng.uniform(lo, hi, shape).astype(dtype)


def check(actual: np.ndarray, ref: np.ndarray, t: Operand, exact: bool = False) -> None:
    """`actual` (physical) against the logical float64 `ref`, laid out as `t`."""
    if exact:
        assert_exact(actual, phys(ref, t))
    else:
        expected = layout.to_physical(np.asarray(ref, dtype=np.float64), t.fmt, t.c0, t.groups)
        assert_close(actual, expected, t.dtype)
    if t.fmt == "NC1HWC0":
        assert_padding_zero(actual, t.shape, t.c0)


def run_both(rng, kernel, logical_inputs, in_types, out_type, attrs):
    """Runs `kernel` on clean inputs and on inputs with garbage padding lanes; the results
    must be identical.  Returns the first."""
    clean = [phys(a, t) for a, t in zip(logical_inputs, in_types, strict=True)]
    (out,) = run_kernel(kernel, clean, in_types, [out_type], attrs)
    dirty = [garbage(p, t, rng) for p, t in zip(clean, in_types, strict=True)]
    (again,) = run_kernel(kernel, dirty, in_types, [out_type], attrs)
    assert_exact(again, out)
    return out


def act_ref(y: np.ndarray, name: str, alpha: float = 0.01) -> np.ndarray:
    if name == "relu":
        return np.maximum(y, 0)
    if name == "relu6":
        return np.minimum(np.maximum(y, 0), 6)
    if name == "leaky_relu":
        return np.where(y >= 0, y, float(np.float32(alpha)) * y)
    if name == "sigmoid":
        return 1 / (1 + np.exp(-y))
    return y


# --------------------------------------------------------------------------------------
# convolution
# --------------------------------------------------------------------------------------

CONV_CASES = [
    # (C, O, HW, k, dtype, c0, groups, strides, pads, dilations, activation, bias, residual)
    (17, 24, 9, 3, F16, 16, 1, (1, 1), (1, 1, 1, 1), (1, 1), "relu", True, True),
    (24, 17, 10, 3, F32, 16, 1, (2, 2), (1, 0, 2, 1), (2, 2), "sigmoid", True, False),
    (17, 17, 8, 3, F32, 8, 1, (1, 2), (1, 1, 0, 2), (1, 1), "leaky_relu", False, True),
    (24, 24, 7, 1, F16, 16, 1, (1, 1), (0, 0, 0, 0), (1, 1), "none", False, False),
    (3, 20, 15, 7, F32, 16, 1, (2, 2), (3, 3, 3, 3), (1, 1), "relu", True, False),  # stem
    (3, 8, 9, 3, F16, 16, 1, (1, 1), (1, 1, 1, 1), (1, 1), "none", True, False),
    (24, 34, 7, 3, F16, 16, 2, (1, 1), (1, 1, 1, 1), (1, 1), "relu", True, True),
    (16, 16, 7, 3, F32, 8, 2, (2, 1), (1, 1, 1, 1), (1, 1), "none", True, False),
    (32, 32, 6, 3, F32, 16, 4, (1, 1), (1, 1, 1, 1), (1, 1), "relu6", True, True),  # 2 tiles
    (40, 20, 6, 3, F16, 16, 5, (1, 1), (1, 1, 1, 1), (1, 1), "none", True, False),  # e_mult 4
    (24, 24, 9, 3, F16, 16, 24, (2, 2), (1, 1, 1, 1), (1, 1), "relu6", True, False),  # dw
    (17, 17, 8, 3, F32, 8, 17, (1, 1), (1, 1, 1, 1), (2, 2), "sigmoid", True, True),  # dw
    (48, 96, 5, 3, F32, 16, 48, (1, 1), (0, 1, 1, 0), (1, 1), "none", False, False),  # dw x2
]


def _conv_case(rng, c, o, hw, k, dtype, groups, strides, pads, dilations, act, bias, residual):
    x = rand(rng, (2, c, hw, hw + 1), dtype)
    w = (rng.normal(0, (1 / (c // groups * k * k)) ** 0.5, (o, c // groups, k, k))).astype(dtype)
    ho = conv_output_size(hw, k, strides[0], pads[0], pads[1], dilations[0])
    wo = conv_output_size(hw + 1, k, strides[1], pads[2], pads[3], dilations[1])
    b = rand(rng, (o,), dtype) if bias else None
    r = rand(rng, (2, o, ho, wo), dtype) if residual else None
    ref = conv2d_reference(
        x.astype(np.float64), w.astype(np.float64), strides, pads, dilations, groups
    )
    if b is not None:
        ref = ref + b.astype(np.float64).reshape(1, -1, 1, 1)
    if r is not None:
        ref = ref + r.astype(np.float64)
    ref = act_ref(ref, act, 0.1)
    attrs = {
        "strides": list(strides),
        "pads": list(pads),
        "dilations": list(dilations),
        "groups": groups,
        "has_bias": bias,
        "has_residual": residual,
        "activation": act,
    }
    if act == "leaky_relu":
        attrs["alpha"] = 0.1
    return x, w, b, r, ref, (2, o, ho, wo), attrs


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"C{c[0]}-O{c[1]}-g{c[6]}-{c[4]}")
def test_conv_nc1hwc0_fractal_z(case):
    c, o, hw, k, dtype, c0, groups, strides, pads, dilations, act, bias, residual = case
    rng = np.random.default_rng(c * 1000 + o)
    x, w, b, r, ref, out_shape, attrs = _conv_case(
        rng, c, o, hw, k, dtype, groups, strides, pads, dilations, act, bias, residual
    )
    types = [T(x.shape, dtype, "NC1HWC0", c0), T(w.shape, dtype, "FRACTAL_Z", c0, groups)]
    arrays = [x, w]
    if b is not None:
        types.append(T(b.shape, dtype))
        arrays.append(b)
    if r is not None:
        types.append(T(r.shape, dtype, "NC1HWC0", c0))
        arrays.append(r)
    out_t = T(out_shape, dtype, "NC1HWC0", c0)
    out = run_both(rng, "fused_conv2d", arrays, types, out_t, attrs)
    check(out, ref, out_t)


@pytest.mark.parametrize(
    "case",
    [CONV_CASES[i] for i in (0, 1, 6, 10, 12)],
    ids=lambda c: f"C{c[0]}-O{c[1]}-g{c[6]}-{c[4]}",
)
def test_conv_nchw_oihw(case):
    c, o, hw, k, dtype, _, groups, strides, pads, dilations, act, bias, residual = case
    rng = np.random.default_rng(7 + c)
    x, w, b, r, ref, out_shape, attrs = _conv_case(
        rng, c, o, hw, k, dtype, groups, strides, pads, dilations, act, bias, residual
    )
    arrays = [a for a in (x, w, b, r) if a is not None]
    types = [T(a.shape, dtype) for a in arrays]
    out_t = T(out_shape, dtype)
    (out,) = run_kernel("fused_conv2d", arrays, types, [out_t], attrs)
    check(out, ref, out_t)


def test_conv2d_plain_and_mixed_layouts():
    """conv2d (no epilogue attributes: bias inferred from its rank) and layouts that are
    converted first: NHWC input, FRACTAL_Z filter with NCHW input, OIHW filter with NC1HWC0."""
    rng = np.random.default_rng(3)
    x = rand(rng, (1, 17, 6, 6), F32)
    w = rand(rng, (9, 17, 3, 3), F32)
    b = rand(rng, (9,), F32)
    ref = conv2d_reference(x, w, (1, 1), (1, 1, 1, 1)) + b.reshape(1, -1, 1, 1)
    attrs: dict[str, object] = {"pads": [1, 1, 1, 1]}
    combos = [
        (T(x.shape, F32), T(w.shape, F32), T(ref.shape, F32)),
        (T(x.shape, F32, "NHWC"), T(w.shape, F32), T(ref.shape, F32, "NHWC")),
        (T(x.shape, F32), T(w.shape, F32, "FRACTAL_Z"), T(ref.shape, F32)),
        (T(x.shape, F32, "NC1HWC0"), T(w.shape, F32), T(ref.shape, F32, "NC1HWC0")),
        (
            T(x.shape, F32, "NC1HWC0", 8),
            T(w.shape, F32, "FRACTAL_Z", 8),
            T(ref.shape, F32, "NC1HWC0", 8),
        ),
    ]
    for xt, wt, yt in combos:
        (out,) = run_kernel(
            "conv2d", [phys(x, xt), phys(w, wt), b], [xt, wt, T(b.shape, F32)], [yt], attrs
        )
        check(out, ref, yt)


def test_fractal_z_tiles_cover_every_channel():
    from ge_dialect.sim.kernels.conv import fractal_z_tiles

    for o, cin, c0, groups in [(32, 1, 16, 32), (20, 8, 16, 5), (34, 12, 16, 2), (64, 8, 16, 8)]:
        g_dim, c1, maps = fractal_z_tiles(o, cin, c0, groups)
        assert g_dim * c1 * 1 == layout.fractal_z_shape((o, cin, 1, 1), c0, groups)[0]
        dst = np.concatenate([d for _, d in maps])
        assert sorted(dst.tolist()) == list(range(o))


# --------------------------------------------------------------------------------------
# batch norm, unary, cast
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt,dtype,c0",
    [("NCHW", F32, 16), ("NC1HWC0", F16, 16), ("NC1HWC0", F32, 8), ("NHWC", F16, 16)],
)
def test_batch_norm(fmt, dtype, c0):
    rng = np.random.default_rng(11)
    x = rand(rng, (2, 17, 5, 4), dtype, -3, 3)
    scale, offset, mean = (rand(rng, (17,), F32) for _ in range(3))
    var = rand(rng, (17,), F32, 0.1, 10)
    eps = 1e-3
    e32 = float(np.float32(eps))
    shape = (1, -1, 1, 1)
    ref = (x.astype(np.float64) - mean.reshape(shape)) * scale.reshape(shape) / np.sqrt(
        var.reshape(shape).astype(np.float64) + e32
    ) + offset.reshape(shape)
    xt = T(x.shape, dtype, fmt, c0)
    pt = T((17,), F32)
    out = run_both(
        rng, "batch_norm", [x, scale, offset, mean, var], [xt, pt, pt, pt, pt], xt, {"epsilon": eps}
    )
    check(out, ref, xt)


UNARY = [
    ("relu", {}, lambda x: np.maximum(x, 0), True),
    ("relu6", {}, lambda x: np.minimum(np.maximum(x, 0), 6), True),
    ("clip", {"min": 0.5, "max": 2.0}, lambda x: np.clip(x, 0.5, 2.0), True),
    ("identity", {}, lambda x: x, True),
    (
        "leaky_relu",
        {"alpha": 0.2},
        lambda x: np.where(x >= 0, x, float(np.float32(0.2)) * x),
        False,
    ),
    ("sigmoid", {}, lambda x: 1 / (1 + np.exp(-x)), False),
    ("silu", {}, lambda x: x / (1 + np.exp(-x)), False),
]


@pytest.mark.parametrize(
    "dtype,fmt,c0", [(F16, "NC1HWC0", 16), (F32, "NC1HWC0", 8), (F32, "NCHW", 16)]
)
@pytest.mark.parametrize("name,attrs,f,exact", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, attrs, f, exact, dtype, fmt, c0):
    rng = np.random.default_rng(5)
    x = rand(rng, (2, 17, 3, 5), dtype, -8, 8)
    x.flat[:3] = [-100, 100, 0]  # saturating sigmoid, relu6 and clip limits
    t = T(x.shape, dtype, fmt, c0)
    out = run_both(rng, name, [x], [t], t, attrs)
    check(out, f(x.astype(np.float64)), t, exact=exact)


def test_unary_int8_and_nd():
    rng = np.random.default_rng(6)
    x = rng.integers(-128, 128, (1, 40, 2, 2)).astype(np.int8)
    t = T(x.shape, np.int8, "NC1HWC0")  # c0 = 32
    assert t.c0 == 32
    out = run_both(rng, "relu", [x], [t], t, {})
    check(out, np.maximum(x, 0), t, exact=True)
    v = rand(rng, (7, 3), F16)
    (out,) = run_kernel("sigmoid", [v], [T(v.shape, F16)], [T(v.shape, F16)], {})
    check(out, 1 / (1 + np.exp(-v.astype(np.float64))), T(v.shape, F16))


def test_cast():
    rng = np.random.default_rng(8)
    x = rand(rng, (1, 17, 3, 3), F32, -3, 3)
    x[0, :2, 0, 0] = [1e6, -1e6]  # overflow to +-inf in fp16
    xt = T(x.shape, F32, "NC1HWC0")
    yt = T(x.shape, F16, "NC1HWC0")
    (y,) = run_kernel("cast", [phys(x, xt)], [xt], [yt], {})
    with np.errstate(over="ignore"):
        assert_exact(y, phys(x.astype(F16), yt))
    assert np.isinf(y[0, 0, 0, 0, :2]).all()
    (back,) = run_kernel("cast", [y], [yt], [xt], {})
    with np.errstate(over="ignore"):
        assert_exact(back, phys(x.astype(F16).astype(F32), xt))
    # integers: rint, then saturate
    v = np.array([-300.0, -1.5, -0.5, 0.5, 1.5, 2.5, 300.0], dtype=F32)
    (i8,) = run_kernel("cast", [v], [T(v.shape, F32)], [T(v.shape, np.int8)], {})
    assert_exact(i8, np.array([-128, -2, 0, 0, 2, 2, 127], dtype=np.int8))


# --------------------------------------------------------------------------------------
# binary
# --------------------------------------------------------------------------------------

OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


@pytest.mark.parametrize("name", ["add", "sub", "mul"])
@pytest.mark.parametrize("dtype,c0", [(F16, 16), (F32, 16), (F32, 8)])
def test_binary_nc1hwc0(name, dtype, c0):
    """Operands the layout pass puts in NC1HWC0: the full shape and [1, C, 1, 1] (both
    NC1HWC0), and for mul an ND scalar."""
    rng = np.random.default_rng(9)
    x = rand(rng, (2, 17, 4, 3), dtype)
    cases = [
        (rand(rng, x.shape, dtype), "NC1HWC0"),
        (rand(rng, (1, 17, 1, 1), dtype), "NC1HWC0"),
        (rand(rng, (1, 17, 4, 1), dtype), "NC1HWC0"),
    ]
    if name == "mul":
        cases.append((rand(rng, (1,), dtype), "ND"))
    yt = T(x.shape, dtype, "NC1HWC0", c0)
    for y, fmt in cases:
        ytype = T(y.shape, dtype, fmt, c0)
        for args, types in (((x, y), (yt, ytype)), ((y, x), (ytype, yt))):
            out = run_both(rng, name, list(args), list(types), yt, {})
            check(out, OPS[name](*(a.astype(np.float64) for a in args)), yt)


@pytest.mark.parametrize("dtype", [F16, F32])
def test_binary_nd_broadcasts(dtype):
    rng = np.random.default_rng(10)
    x = rand(rng, (2, 5, 4, 3), dtype)
    for y in (
        rand(rng, (2, 1, 4, 3), dtype),
        rand(rng, (1, 5, 1, 1), dtype),
        rand(rng, (3,), dtype),
        rand(rng, (), dtype),
    ):
        for name, f in OPS.items():
            (out,) = run_kernel(
                name, [x, y], [T(x.shape, dtype), T(y.shape, dtype)], [T(x.shape, dtype)], {}
            )
            check(out, f(x.astype(np.float64), y.astype(np.float64)), T(x.shape, dtype))


def test_binary_follows_stored_arrays():
    """A computed [N, 1, H, W] operand stored as NC1HWC0 ([N, 1, H, W, C0]) holds its data in
    lane 0 only: the kernel broadcasts the stored arrays, so only lane 0 of each C1 block
    (channels 0 and 16) gets the logical sum (the layout pass must not do this, and a wrong
    decision shows as wrong numbers)."""
    rng = np.random.default_rng(12)
    x = rand(rng, (1, 17, 2, 2), F32)
    b = rand(rng, (1, 1, 2, 2), F32)
    xt, bt = T(x.shape, F32, "NC1HWC0"), T(b.shape, F32, "NC1HWC0")
    (out,) = run_kernel("add", [phys(x, xt), phys(b, bt)], [xt, bt], [xt], {})
    got = layout.to_logical(out, "NC1HWC0", x.shape, 16)
    lane0 = np.arange(17) % 16 == 0
    np.testing.assert_array_equal(got[:, lane0], (x + b)[:, lane0])
    np.testing.assert_array_equal(got[:, ~lane0], x[:, ~lane0])
    with pytest.raises(ValueError):  # a [W] operand lines up with C0, not W
        run_kernel("add", [phys(x, xt), np.ones(2, F32)], [xt, T((2,), F32)], [xt], {})


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_binary_int8_saturates(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(13)
    a = rng.integers(info.min, info.max + 1, (1, 40, 2, 3)).astype(dtype)
    b = rng.integers(info.min, info.max + 1, (1, 40, 2, 3)).astype(dtype)
    t = T(a.shape, dtype, "NC1HWC0")
    for name, f in OPS.items():
        out = run_both(rng, name, [a, b], [t, t], t, {})
        ref = np.clip(f(a.astype(np.int64), b.astype(np.int64)), info.min, info.max)
        check(out, ref, t, exact=True)


# --------------------------------------------------------------------------------------
# math ops: the kernels against the reference interpreter
# --------------------------------------------------------------------------------------

MATH_UNARY = {  # case: (op text, kernel, attrs)
    "exp": ("ge.exp", "exp", {}),
    "log": ("ge.log", "log", {}),
    "tanh": ("ge.tanh", "tanh", {}),
    "erf": ("ge.erf", "erf", {}),
    "sqrt": ("ge.sqrt", "sqrt", {}),
    "rsqrt": ("ge.rsqrt", "rsqrt", {}),
    "neg": ("ge.neg", "neg", {}),
    "reciprocal": ("ge.reciprocal", "reciprocal", {}),
    "gelu": ("ge.gelu", "gelu", {}),
    "gelu_tanh": ('ge.gelu %0 approximate "tanh"', "gelu", {"approximate": "tanh"}),
}
MATH_BINARY = ("div", "maximum", "minimum", "pow")
MATH_EDGES = [0.0, -0.0, -1.0, 1e-3, -2.5, 6.0, -6.0, 30.0, np.inf, -np.inf, np.nan]
"""Values every unary math kernel sees: zeros (log, rsqrt, reciprocal give infinities),
negatives (NaN from log, sqrt, rsqrt), saturation of tanh/erf, infinities and NaN."""


def ge_type(t: Operand) -> str:
    dims = "".join(f"{d}x" for d in t.shape)
    element = {F16: "f16", F32: "f32"}.get(t.dtype, str(t.dtype))
    if t.fmt != "NC1HWC0":
        return f"tensor<{dims}{element}>"
    c0 = "" if t.c0 == layout.default_c0(t.dtype.itemsize) else f", c0 = {t.c0}"
    return f"tensor<{dims}{element}, #ge.format<NC1HWC0{c0}>>"


def interpret(op_text: str, in_types, out_type, stored):
    """The reference interpreter's stored result of one op on stored operands."""
    from ge_dialect import api
    from ge_dialect.ir.interpreter import run_function

    args = ", ".join(f"%{i}: {ge_type(t)}" for i, t in enumerate(in_types))
    if " " in op_text:  # the operands and properties are written out
        body = op_text
    else:
        body = f"{op_text} " + ", ".join(f"%{i}" for i in range(len(in_types)))
    if len(in_types) == 1:
        body += f" : {ge_type(out_type)}"
    else:
        operands = ", ".join(ge_type(t) for t in in_types)
        body += f" : ({operands}) -> {ge_type(out_type)}"
    text = (
        f"func.func @main({args}) -> {ge_type(out_type)} {{\n  %y = {body}\n"
        f"  func.return %y : {ge_type(out_type)}\n}}"
    )
    (out,) = run_function(api.parse(text, "math.mlir"), list(stored), physical=True)
    return out


def check_ieee(actual: np.ndarray, expected: np.ndarray, t: Operand) -> None:
    """The tolerance rule where NaN matches NaN and an infinity the same infinity, and zero
    padding lanes."""
    assert actual.dtype == expected.dtype == t.dtype and actual.shape == expected.shape
    bad = tolerance.outside(actual, expected, tolerance.tolerance_for(t.dtype))
    assert not bad.any(), f"{actual[bad]} where {expected[bad]} was expected"
    if t.fmt == "NC1HWC0":
        assert_padding_zero(actual, t.shape, t.c0)


MATH_LAYOUTS = [(F16, "NC1HWC0", 16), (F32, "NC1HWC0", 8), (F32, "ND", 16), (F16, "ND", 16)]


@pytest.mark.parametrize("dtype,fmt,c0", MATH_LAYOUTS)
@pytest.mark.parametrize("case", sorted(MATH_UNARY))
def test_math_unary_matches_the_interpreter(case, dtype, fmt, c0):
    op_text, kernel, attrs = MATH_UNARY[case]
    rng = np.random.default_rng(21)
    x = rand(rng, (2, 17, 3, 4), dtype, -4, 4)
    x.flat[: len(MATH_EDGES)] = MATH_EDGES
    t = T(x.shape, dtype, fmt, c0)
    out = run_both(rng, kernel, [x], [t], t, attrs)
    check_ieee(out, interpret(op_text, [t], t, [phys(x, t)]), t)


@pytest.mark.parametrize("dtype,fmt,c0", MATH_LAYOUTS)
@pytest.mark.parametrize("name", MATH_BINARY)
def test_math_binary_matches_the_interpreter(name, dtype, fmt, c0):
    """Operands of the result's shape and [1, C, 1, 1] (NC1HWC0 or NCHW as the result); a
    positive base for pow except in the edge values."""
    rng = np.random.default_rng(22)
    x = rand(rng, (2, 17, 3, 4), dtype, 0.25, 3)
    x.flat[:6] = [-8.0, -8.0, 0.0, 0.0, 2.0, np.nan]
    y = rand(rng, x.shape, dtype, -2, 2)
    y.flat[:6] = [0.5, 3.0, 0.0, -1.0, np.inf, 1.0]  # NaN, -512, 0/0 and 0**0, inf...
    yt = T(x.shape, dtype, fmt, c0)
    for b in (y, rand(rng, (1, 17, 1, 1), dtype, 0.5, 2)):
        bt = T(b.shape, dtype, fmt, c0)
        out = run_both(rng, name, [x, b], [yt, bt], yt, {})
        check_ieee(out, interpret(f"ge.{name}", [yt, bt], yt, [phys(x, yt), phys(b, bt)]), yt)


def test_math_binary_scalar_and_int8():
    rng = np.random.default_rng(23)
    x = rand(rng, (3, 5), F32, -2, 2)
    s = np.array(2.0, F32)
    xt, st = T(x.shape, F32), T((), F32)
    (out,) = run_kernel("pow", [x, s], [xt, st], [xt], {})
    check_ieee(out, interpret("ge.pow", [xt, st], xt, [x, s]), xt)
    (out,) = run_kernel("div", [x, s], [xt, st], [xt], {})
    check(out, x.astype(np.float64) / 2, xt)
    a = np.array([-128, 5, 127], np.int8)
    b = np.array([3, 6, -1], np.int8)
    it = T(a.shape, np.int8)
    (mx,) = run_kernel("maximum", [a, b], [it, it], [it], {})
    (mn,) = run_kernel("minimum", [a, b], [it, it], [it], {})
    assert_exact(mx, np.array([3, 6, 127], np.int8))
    assert_exact(mn, np.array([-128, 5, -1], np.int8))


def test_math_kernels_are_not_the_interpreters_formulas():
    """erf is a series and a rational approximation, tanh goes through exp: both within
    1e-6 of the float64 functions over the range where they are not yet saturated."""
    x = np.linspace(-6, 6, 4001, dtype=F32)
    t = T(x.shape, F32)
    (erf,) = run_kernel("erf", [x], [t], [t], {})
    (tanh,) = run_kernel("tanh", [x], [t], [t], {})
    wide = x.astype(np.float64)
    assert np.abs(erf - np.vectorize(math.erf)(wide)).max() < 1e-6
    assert np.abs(tanh - np.tanh(wide)).max() < 1e-6
    tiny = np.array([1e-30, -1e-6, 0.5], F32)  # erf relative to small results
    (small,) = run_kernel("erf", [tiny], [T(tiny.shape, F32)], [T(tiny.shape, F32)], {})
    np.testing.assert_allclose(small, np.vectorize(math.erf)(tiny.astype(np.float64)), rtol=1e-6)


MATH_GRAPH = """\
func.func @main(%x: {X}, %s: {S}) -> ({Y}, {Y}) {{
  %w = ge.const dense<0.25> : tensor<17x3x3x3xf32>
  %c = ge.conv2d %x, %w pads [1, 1, 1, 1] : {X}, tensor<17x3x3x3xf32> -> {Y}
  %g = ge.gelu %c : {Y}
  %t = ge.gelu %g approximate "tanh" : {Y}
  %e = ge.exp %t : {Y}
  %l = ge.log %e : {Y}
  %h = ge.tanh %l : {Y}
  %f = ge.erf %h : {Y}
  %n = ge.neg %f : {Y}
  %sq = ge.mul %c, %c : ({Y}, {Y}) -> {Y}
  %q = ge.sqrt %sq : {Y}
  %r = ge.rsqrt %e : {Y}
  %rc = ge.reciprocal %e : {Y}
  %d = ge.div %q, %s : ({Y}, {S}) -> {Y}
  %mx = ge.maximum %d, %r : ({Y}, {Y}) -> {Y}
  %mn = ge.minimum %mx, %rc : ({Y}, {Y}) -> {Y}
  %p = ge.pow %e, %mn : ({Y}, {Y}) -> {Y}
  %w2 = ge.const dense<0.125> : tensor<17x17x1x1xf32>
  %y = ge.conv2d %p, %w2 : {Y}, tensor<17x17x1x1xf32> -> {Y}
  func.return %n, %y : {Y}, {Y}
}}
""".format(X="tensor<1x3x6x6xf32>", S="tensor<1x17x1x1xf32>", Y="tensor<1x17x6x6xf32>")
"""Every math op between two convs: `--to-nc1hwc0` runs them all in NC1HWC0 (17 channels:
15 padding lanes per C0 block, where exp, log, rsqrt, reciprocal and pow of 0 are not 0)."""


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_ge_run_check_numbers_on_every_math_op(dtype, tmp_path, capsys):
    import json

    from ge_dialect import api
    from ge_dialect.tools.ge_run import main as ge_run

    text = MATH_GRAPH.replace("f32", dtype)
    path = tmp_path / "math.mlir"
    path.write_text(text)
    assert ge_run([str(path), "--check-numbers", "--report", "json"]) == 0
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert len(checks) == 2 and all(c["within_tolerance"] for c in checks)
    module = api.parse(text, "math.mlir")
    api.compile(module, api.DEFAULT_PIPELINE)
    stored = [op for op in module.walk() if op.name in ("ge.rsqrt", "ge.pow", "ge.gelu")]
    assert len(stored) == 4 and all("NC1HWC0" in str(op.results[0].type) for op in stored)


# --------------------------------------------------------------------------------------
# pooling
# --------------------------------------------------------------------------------------

POOLS = [
    # (kernel, strides, pads, ceil_mode, count_include_pad, H, W)
    ((3, 3), (2, 2), (1, 1, 1, 1), False, False, 9, 8),
    ((3, 3), (2, 2), (0, 0, 0, 0), True, False, 8, 10),
    ((2, 3), (2, 1), (1, 0, 0, 2), True, True, 7, 6),
    ((2, 2), (2, 2), (0, 1, 0, 1), False, True, 9, 9),
    ((3, 2), (3, 2), (1, 1, 1, 0), True, False, 10, 7),
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize(
    "dtype,fmt,c0",
    [(F16, "NC1HWC0", 16), (F32, "NC1HWC0", 8), (F32, "NCHW", 16), (F16, "NHWC", 16)],
)
def test_pool(kind, pool, dtype, fmt, c0):
    kernel, strides, pads, ceil, include, h, w = pool
    rng = np.random.default_rng(h * w)
    x = rand(rng, (2, 17, h, w), dtype, -4, 4)
    ho = pool_output_size(h, kernel[0], strides[0], pads[0], pads[1], ceil)
    wo = pool_output_size(w, kernel[1], strides[1], pads[2], pads[3], ceil)
    ref = pool2d_reference(x.astype(np.float64), kind, kernel, strides, pads, ceil, include)
    assert ref.shape == (2, 17, ho, wo)
    attrs = {
        "kernel": list(kernel),
        "strides": list(strides),
        "pads": list(pads),
        "ceil_mode": ceil,
        "count_include_pad": include,
    }
    out = run_both(
        rng, f"{kind}_pool", [x], [T(x.shape, dtype, fmt, c0)], T(ref.shape, dtype, fmt, c0), attrs
    )
    check(out, ref, T(ref.shape, dtype, fmt, c0), exact=kind == "max")


def test_pool_int8_and_global():
    rng = np.random.default_rng(14)
    x = rng.integers(-128, 128, (1, 40, 5, 5)).astype(np.int8)
    t = T(x.shape, np.int8, "NC1HWC0")
    attrs = {"kernel": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}
    ref = pool2d_reference(x.astype(np.float64), "max", (3, 3), (2, 2), (1, 1, 1, 1))
    out = run_both(rng, "max_pool", [x], [t], T(ref.shape, np.int8, "NC1HWC0"), attrs)
    check(out, ref.astype(np.int8), T(ref.shape, np.int8, "NC1HWC0"), exact=True)
    ref = pool2d_reference(x.astype(np.float64), "avg", (3, 3), (2, 2), (1, 1, 1, 1))
    out = run_both(rng, "avg_pool", [x], [t], T(ref.shape, np.int8, "NC1HWC0"), attrs)
    check(out, np.rint(ref).astype(np.int8), T(ref.shape, np.int8, "NC1HWC0"), exact=True)
    for dtype, fmt, c0 in [(F16, "NC1HWC0", 16), (F32, "NC1HWC0", 8), (F32, "NCHW", 16)]:
        x = rand(rng, (2, 17, 7, 6), dtype)
        yt = T((2, 17, 1, 1), dtype, fmt, c0)
        out = run_both(rng, "global_avg_pool", [x], [T(x.shape, dtype, fmt, c0)], yt, {})
        check(out, x.astype(np.float64).mean(axis=(2, 3), keepdims=True), yt)


# --------------------------------------------------------------------------------------
# data movement
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "channels,dtype,c0",
    [
        ((17, 24), F16, 16),
        ((16, 17), F32, 16),
        ((17, 24, 5), F32, 16),
        ((8, 8, 3), F32, 8),
        ((5, 3, 40), F16, 16),
        ((33, 7), np.int8, 32),
        ((1, 1, 1, 30), F16, 16),
    ],
)
def test_concat_nc1hwc0_channels(channels, dtype, c0):
    rng = np.random.default_rng(sum(channels))
    xs = [rand(rng, (2, c, 3, 2), F32, -100, 100).astype(dtype) for c in channels]
    types = [T(x.shape, dtype, "NC1HWC0", c0) for x in xs]
    yt = T((2, sum(channels), 3, 2), dtype, "NC1HWC0", c0)
    out = run_both(rng, "concat", xs, types, yt, {"axis": 1})
    check(out, np.concatenate(xs, axis=1), yt, exact=True)


@pytest.mark.parametrize("axis", [0, 2, 3])
def test_concat_nc1hwc0_other_axes(axis):
    rng = np.random.default_rng(axis)
    shapes = [[2, 17, 3, 4], [2, 17, 3, 4]]
    shapes[1][axis] = 2
    xs = [rand(rng, s, F16) for s in shapes]
    out_shape = list(shapes[0])
    out_shape[axis] += 2
    yt = T(out_shape, F16, "NC1HWC0")
    out = run_both(rng, "concat", xs, [T(x.shape, F16, "NC1HWC0") for x in xs], yt, {"axis": axis})
    check(out, np.concatenate(xs, axis=axis), yt, exact=True)


def test_concat_default_layouts():
    rng = np.random.default_rng(15)
    a, b = rand(rng, (2, 3, 4), F32), rand(rng, (2, 5, 4), F32)
    (out,) = run_kernel(
        "concat", [a, b], [T(a.shape, F32), T(b.shape, F32)], [T((2, 8, 4), F32)], {"axis": 1}
    )
    assert_exact(out, np.concatenate([a, b], axis=1))
    for axis in range(4):
        shapes = [[1, 3, 2, 2], [1, 3, 2, 2]]
        shapes[1][axis] = 4
        xs = [rand(rng, s, F16) for s in shapes]
        out_shape = list(shapes[0])
        out_shape[axis] += 4
        for fmt in ("NCHW", "NHWC"):
            yt = T(out_shape, F16, fmt)
            (out,) = run_kernel(
                "concat",
                [phys(x, T(x.shape, F16, fmt)) for x in xs],
                [T(x.shape, F16, fmt) for x in xs],
                [yt],
                {"axis": axis},
            )
            check(out, np.concatenate(xs, axis=axis), yt, exact=True)


@pytest.mark.parametrize(
    "src,dst,c0,groups",
    [
        ("NCHW", "NC1HWC0", 16, 1),
        ("NC1HWC0", "NCHW", 16, 1),
        ("NCHW", "NC1HWC0", 8, 1),
        ("NC1HWC0", "NHWC", 16, 1),
        ("NHWC", "NC1HWC0", 16, 1),
        ("ND", "NHWC", 16, 1),
        ("NCHW", "FRACTAL_Z", 16, 1),
        ("FRACTAL_Z", "NCHW", 16, 1),
        ("NCHW", "FRACTAL_Z", 8, 1),
        ("NCHW", "FRACTAL_Z", 16, 17),
        ("FRACTAL_Z", "NCHW", 16, 17),
        ("NCHW", "FRACTAL_Z", 16, 2),
    ],
)
def test_trans_data(src, dst, c0, groups):
    rng = np.random.default_rng(16)
    shape = (34, 17 // groups if groups > 1 else 17, 3, 3)
    if groups == 2:
        shape = (34, 8, 3, 3)
    x = rand(rng, shape, F16)
    it = T(shape, F16, src, c0, groups if src == "FRACTAL_Z" else 1)
    ot = T(shape, F16, dst, c0, groups if dst == "FRACTAL_Z" else 1)
    p = phys(x, it)
    (out,) = run_kernel("trans_data", [p], [it], [ot], {})
    assert_exact(out, phys(x, ot))
    assert not np.shares_memory(out, p)


def test_reshape_flatten_transpose_copy():
    rng = np.random.default_rng(17)
    x = rand(rng, (2, 3, 4, 5), F16)
    xt = T(x.shape, F16)
    cases: list[tuple[str, tuple[int, ...], dict[str, object], np.ndarray]] = [
        ("reshape", (6, 20), {}, x.reshape(6, 20)),
        ("flatten", (2, 60), {"axis": 1}, x.reshape(2, 60)),
        ("flatten", (1, 120), {"axis": 0}, x.reshape(1, 120)),
        ("transpose", (4, 2, 5, 3), {"perm": [2, 0, 3, 1]}, x.transpose(2, 0, 3, 1)),
        ("copy", x.shape, {}, x),
        ("identity", x.shape, {}, x),
    ]
    for kernel, shape, attrs, ref in cases:
        (out,) = run_kernel(kernel, [x], [xt], [T(shape, F16)], attrs)
        assert_exact(out, ref)
        assert out.flags.c_contiguous and not np.shares_memory(out, x)


# --------------------------------------------------------------------------------------
# matmul, softmax, collectives
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [F16, F32])
def test_matmul(dtype):
    rng = np.random.default_rng(18)
    cases = [
        ((8, 16), (16, 5), False, False),
        ((2, 3, 8, 16), (16, 5), False, False),
        ((3, 16, 8), (5, 16), True, True),
        ((4, 8, 16), (1, 16, 5), False, False),
        ((2, 1, 8, 16), (3, 5, 16), False, True),
    ]
    for sa, sb, ta, tb in cases:
        a = rand(rng, sa, dtype)
        b = rand(rng, sb, dtype)
        a64 = np.swapaxes(a, -1, -2) if ta else a
        b64 = np.swapaxes(b, -1, -2) if tb else b
        ref = np.matmul(a64.astype(np.float64), b64.astype(np.float64))
        for bias in (None, rand(rng, (ref.shape[-1],), dtype)):
            arrays = [a, b] + ([bias] if bias is not None else [])
            attrs: dict[str, object] = {
                "transpose_a": ta,
                "transpose_b": tb,
                "has_bias": bias is not None,
            }
            (out,) = run_kernel(
                "matmul", arrays, [T(v.shape, dtype) for v in arrays], [T(ref.shape, dtype)], attrs
            )
            expected = ref if bias is None else ref + bias.astype(np.float64)
            check(out, expected, T(ref.shape, dtype))


@pytest.mark.parametrize("dtype", [F16, F32])
def test_softmax(dtype):
    rng = np.random.default_rng(19)
    x = rand(rng, (3, 10, 4), dtype, -20, 20)
    for axis in (0, 1, 2):
        e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
        (out,) = run_kernel(
            "softmax", [x], [T(x.shape, dtype)], [T(x.shape, dtype)], {"axis": axis}
        )
        check(out, e / e.sum(axis=axis, keepdims=True), T(x.shape, dtype))


def test_collectives():
    rng = np.random.default_rng(20)
    x = rand(rng, (1, 17, 2, 2), F16)
    t = T(x.shape, F16, "NC1HWC0")
    p = phys(x, t)
    for reduction in ("sum", "prod", "max", "min"):
        attrs = {"group": "world", "rank_size": 1, "reduction": reduction}
        (out,) = run_kernel("hcom_all_reduce", [p], [t], [t], attrs)
        assert_exact(out, p)
        assert not np.shares_memory(out, p)
    attrs = {"group": "world", "rank_size": 4, "reduction": "sum"}
    (out,) = run_kernel("hcom_all_reduce", [p], [t], [t], attrs)
    check(out, 4 * x.astype(np.float64), t)
    i = np.array([100, -100, 3], dtype=np.int8)
    (out,) = run_kernel(
        "hcom_all_reduce",
        [i],
        [T(i.shape, np.int8)],
        [T(i.shape, np.int8)],
        {"group": "g", "rank_size": 2, "reduction": "sum"},
    )
    assert_exact(out, np.array([127, -128, 6], dtype=np.int8))
    (out,) = run_kernel("hcom_all_gather", [p], [t], [t], {"group": "world", "rank_size": 1})
    assert_exact(out, p)
    y = rand(rng, (2, 3), F32)
    (out,) = run_kernel(
        "hcom_all_gather",
        [y],
        [T(y.shape, F32)],
        [T((4, 3), F32)],
        {"group": "world", "rank_size": 2},
    )
    assert_exact(out, np.concatenate([y, y]))


# --------------------------------------------------------------------------------------
# the interface
# --------------------------------------------------------------------------------------


def test_interface():
    names = {
        "conv2d",
        "fused_conv2d",
        "batch_norm",
        "relu",
        "relu6",
        "sigmoid",
        "silu",
        "identity",
        "leaky_relu",
        "clip",
        "cast",
        "add",
        "sub",
        "mul",
        "div",
        "maximum",
        "minimum",
        "pow",
        "exp",
        "log",
        "tanh",
        "erf",
        "sqrt",
        "rsqrt",
        "neg",
        "reciprocal",
        "gelu",
        "max_pool",
        "avg_pool",
        "global_avg_pool",
        "concat",
        "trans_data",
        "reshape",
        "flatten",
        "transpose",
        "copy",
        "matmul",
        "softmax",
        "hcom_all_reduce",
        "hcom_all_gather",
    }
    assert names <= set(KERNELS)
    with pytest.raises(UnknownKernel) as info:
        run_kernel("no_such_kernel", [], [], [], {})
    assert isinstance(info.value, KeyError) and "no_such_kernel" in str(info.value)
    t = T((1, 17, 2, 2), F32, "NC1HWC0")
    with pytest.raises(ValueError, match="physical shape"):
        run_kernel("relu", [np.zeros((1, 17, 2, 2), F32)], [t], [t], {})
    assert t.physical_shape == (1, 2, 2, 2, 16)
