"""Helpers shared by the unit tests: comparing numbers, building small graphs, random data.

A plain module of the package `helpers` (not a test file): `from helpers.support import ...`.

Numbers are compared with the project's one rule, `ge_dialect.utils.tolerance`
(`|a - b| <= atol + rtol*|ref|`, `atol = k*max|ref|`, (rtol, k) by dtype):

- fp32: rtol 1e-4, k 1e-5;
- fp32, a whole model (against onnxruntime): rtol 1e-3, k 1e-4;
- fp16: rtol 1e-2, k 1e-2;
- integers and data movement (trans_data, concat, max_pool, relu, ...): exact.

Random data: inputs ~ U(-1, 1) (`uniform`), weights ~ N(0, 1/fan_in) (`weights`), so that
fp16 references do not overflow.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.builder import ImplicitBuilder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    FunctionType,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
)
from xdsl.ir import Block, Region, SSAValue

from ge_dialect.ir.dialects import ge
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.utils.dtypes import element_type
from ge_dialect.utils.tolerance import bounds, outside, tolerance_for

ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
)
"""The checkout's root directory."""

ui8 = IntegerType(8, Signedness.UNSIGNED)
FLOATS = [np.float32, np.float16]


# --------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------

def assert_close(actual, ref, dtype, *, whole_model: bool = False) -> None:
    """The project's rule (`ge_dialect.utils.tolerance`): `|a - b| <= atol + rtol*|ref|`
    with `atol = k*max|ref|`, (rtol, k) chosen by `dtype`, the dtype the code under test
    must have produced: fp32 rtol 1e-4, k 1e-5; fp16 rtol 1e-2, k 1e-2; integer dtypes
    compare exactly.  `whole_model` selects the fp32 whole-model tolerance (rtol 1e-3,
    k 1e-4).  The reference must be finite here (a test compares numbers, not overflows).
    """
    dtype = np.dtype(dtype)
    actual, ref = np.asarray(actual), np.asarray(ref)
    assert actual.dtype == dtype, f"result dtype {actual.dtype}, expected {dtype}"
    assert actual.shape == ref.shape, f"result shape {actual.shape}, expected {ref.shape}"
    tolerance = tolerance_for(dtype, whole_model=whole_model)
    if tolerance is None:
        np.testing.assert_array_equal(actual, ref)
        return
    rtol, k = tolerance
    a, r = actual.astype(np.float64), ref.astype(np.float64)
    assert np.all(np.isfinite(r)), "the reference is not finite"
    atol = k * float(np.max(np.abs(r))) if r.size else 0.0
    err = np.abs(a - r)
    bound = bounds(r, tolerance)
    bad = outside(a, r, tolerance)  # NaN in `a` counts as a failure
    if bad.any():
        i = np.unravel_index(int(np.argmax(np.where(bad, err - bound, -np.inf))), a.shape)
        raise AssertionError(
            f"{int(bad.sum())} of {bad.size} elements out of tolerance (rtol {rtol}, "
            f"atol {atol:.3g}); worst at {tuple(int(j) for j in i)}: actual {a[i]!r}, "
            f"reference {r[i]!r}, |diff| {err[i]:.3g} > {bound[i]:.3g}"
        )


def assert_exact(actual, ref) -> None:
    """Data movement: same dtype, shape and bits."""
    actual, ref = np.asarray(actual), np.asarray(ref)
    assert actual.dtype == ref.dtype, f"dtype {actual.dtype}, expected {ref.dtype}"
    assert actual.shape == ref.shape, f"shape {actual.shape}, expected {ref.shape}"
    np.testing.assert_array_equal(actual, ref)


# --------------------------------------------------------------------------------------
# Building graphs
# --------------------------------------------------------------------------------------


def tensor(shape: Sequence[int], dtype, fmt: str | None = None, c0: int = 0,
           groups: int = 1) -> TensorType:
    """A tensor type of numpy `dtype`, with a `#ge.format` encoding when `fmt` is given."""
    t = TensorType(element_type(np.dtype(dtype)), list(shape))
    return ge.with_format(t, fmt, c0, groups) if fmt else t


def const(array: np.ndarray, fmt: str | None = None, c0: int = 0, groups: int = 1) -> SSAValue:
    """A ge.const holding the logical `array` (stored physically when `fmt` is given)."""
    return ge.ConstOp.from_numpy(array, tensor(array.shape, array.dtype, fmt, c0, groups)).output


def make_module(arg_types: Sequence[TensorType],
                body: Callable[..., SSAValue | Sequence[SSAValue]],
                name: str = "main") -> ModuleOp:
    """A verified module with one function `@name(args) -> body(*args)`."""
    block = Block(arg_types=list(arg_types))
    with ImplicitBuilder(block) as args:
        outs = body(*args)
        outs = [outs] if isinstance(outs, SSAValue) else list(outs)
        func.ReturnOp(*outs)
    fn = func.FuncOp(name, FunctionType.from_lists(list(arg_types), [o.type for o in outs]),
                     Region(block))
    module = ModuleOp([fn])
    module.verify()
    return module


def parse_file(path: str) -> ModuleOp:
    """The module in the file at `path`, parsed with every ge-opt dialect loaded."""
    with open(path) as f:
        text = f.read()
    return LocatingParser(make_context(), text, path).parse_module()


# --------------------------------------------------------------------------------------
# Convolution attributes
# --------------------------------------------------------------------------------------


def conv_out_shape(x_shape, w_shape, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1)):
    """The NCHW output shape of a conv2d (GE pads [top, bottom, left, right])."""
    n, _, h, w = x_shape
    o, _, kh, kw = w_shape
    ho = (h + pads[0] + pads[1] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    wo = (w + pads[2] + pads[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    return (n, o, ho, wo)


def onnx_pads(ge_pads: Sequence[int]) -> list[int]:
    """GE [top, bottom, left, right] -> ONNX [top, left, bottom, right] (begins, then ends)."""
    top, bottom, left, right = ge_pads
    return [top, left, bottom, right]


def conv_attrs(w_shape, strides, pads, dilations, groups) -> dict:
    """The attributes of an ONNX Conv node for a GE conv2d."""
    return dict(kernel_shape=list(w_shape[2:]), strides=list(strides), pads=onnx_pads(pads),
                dilations=list(dilations), group=groups)


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------


def uniform(rng, shape, dtype, lo=-1.0, hi=1.0) -> np.ndarray:
    """Inputs ~ U(lo, hi), U(-1, 1) by default."""
    return rng.uniform(lo, hi, shape).astype(dtype)


def weights(rng, shape, dtype) -> np.ndarray:
    """Weights ~ N(0, 1/fan_in), fan_in the product of `shape[1:]`."""
    fan_in = int(np.prod(shape[1:]))
    return rng.normal(0.0, (1.0 / fan_in) ** 0.5, shape).astype(dtype)


def distinct(shape, dtype) -> np.ndarray:
    """Distinct nonzero values, so that every element's position is traceable."""
    size = int(np.prod(shape))
    if np.dtype(dtype).itemsize == 1:
        return (np.arange(size) % 120 + 1).astype(dtype).reshape(shape)
    return (np.arange(size) + 1).astype(dtype).reshape(shape)  # < 2048: exact in fp16


def padding_lanes(physical: np.ndarray, channels: int) -> np.ndarray:
    """The lanes of an NC1HWC0 array beyond the logical channel count."""
    c0 = physical.shape[-1]
    flat = physical.transpose(0, 1, 4, 2, 3).reshape(
        physical.shape[0], -1, *physical.shape[2:4])
    assert flat.shape[1] == physical.shape[1] * c0
    return flat[:, channels:]
