"""What an op computes on its STORED arrays: the device's kernels, modelled with plain numpy.

A kernel of the (simulated) device never sees logical tensors: an NC1HWC0 value of logical
shape [N, C, H, W] is an array [N, C1, H, W, C0] whose padding lanes (channel c1*C0 + c0 >= C)
are zero, an ND value is its logical array.  `evaluate(op, stored)` computes `op`'s stored
result from its stored operands the way such a kernel does, with numpy broadcasting on the
stored shapes and nothing else, so that a layout decision that is wrong for the stored
arrays gives wrong numbers (or a broadcasting error) here although the reference interpreter,
which computes on logical arrays, cannot see it.

This module is written independently of `transforms/to_nc1hwc0.py` and of
`ge_dialect/ir/interpreter.py` (it reads op attributes and tensor types, nothing else of the
project).  Arithmetic is done in float64 and rounded once to the result's dtype (integers
saturate), as the reference does, so results compare exactly for data movement.

The kernels, per op (the table of `--to-nc1hwc0`'s docstring):

- relu, relu6, leaky_relu, clip, sigmoid, silu, identity: f on every lane; an NC1HWC0 result
  gets its padding lanes written 0 (f(0) != 0 for sigmoid and a clip that excludes 0);
- add, sub, mul: the stored operands broadcast as numpy broadcasts them;
- max_pool, avg_pool: a window over axes 2 and 3 (H and W) of the stored array, per lane;
  global_avg_pool: the mean over axes 2 and 3;
- concat: `np.concatenate` along the stored axis of the logical axis (N, C1, H, W for
  NC1HWC0: the same index);
- batch_norm: `x * s + t` with `s = scale / sqrt(var + eps)` and `t = offset - mean * s` per
  channel, stored like the input ([1, C1, 1, 1, C0], zero padded, for NC1HWC0).

`padding_lanes(t)` is the boolean mask of a type's padding lanes, `logical_lanes(t, a)` the
logical values of a stored array (lane c1*C0 + c0 of channel c), `with_garbage_padding`
fills padding lanes with other values, to check that a kernel never reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeGuard

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from ge_dialect.ir.dialects import ge
from ge_dialect.utils import dtypes

UNARY = ("ge.relu", "ge.relu6", "ge.leaky_relu", "ge.clip", "ge.sigmoid", "ge.silu",
         "ge.identity")
BINARY = ("ge.add", "ge.sub", "ge.mul")
POOLS = ("ge.max_pool", "ge.avg_pool", "ge.global_avg_pool")
OPS = (*UNARY, *BINARY, *POOLS, "ge.concat", "ge.batch_norm")
"""The ops `evaluate` knows (every op `--to-nc1hwc0` may put in NC1HWC0 but the convs)."""

EXACT = ("ge.relu", "ge.relu6", "ge.clip", "ge.identity", "ge.max_pool", "ge.concat")
"""Data movement: the stored result must equal the reference bit for bit."""


def _type(value: SSAValue) -> TensorType:
    t = value.type
    assert isinstance(t, TensorType)
    return t


def is_nc1hwc0(t: Attribute) -> TypeGuard[TensorType]:
    """Whether `t` is a tensor type stored as NC1HWC0."""
    return isinstance(t, TensorType) and ge.tensor_format(t) == ge.Format.NC1HWC0


def padding_lanes(t: Attribute, stored_shape: Sequence[int]) -> np.ndarray:
    """Boolean mask (of the stored shape) of the padding lanes of an NC1HWC0 value; all False
    for any other layout."""
    mask = np.zeros(tuple(stored_shape), dtype=bool)
    if is_nc1hwc0(t):
        c = t.get_shape()[1]
        _, c1, _, _, c0 = stored_shape
        channel = np.arange(c1)[:, None] * c0 + np.arange(c0)[None, :]  # [C1, C0]
        mask[...] = (channel >= c)[None, :, None, None, :]
    return mask


def logical_lanes(t: Attribute, stored: np.ndarray) -> np.ndarray:
    """The logical array held by a stored array (drops padding lanes)."""
    if not is_nc1hwc0(t):
        return stored
    n, c, h, w = t.get_shape()
    _, c1, _, _, c0 = stored.shape
    return stored.transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)[:, :c]


def with_garbage_padding(t: Attribute, stored: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`stored` with its padding lanes (if any) set to random nonzero values."""
    mask = padding_lanes(t, stored.shape)
    if not mask.any():
        return stored
    out = np.array(stored, copy=True)
    if np.issubdtype(out.dtype, np.integer):
        garbage = rng.integers(1, 100, mask.sum())
    else:
        garbage = rng.uniform(0.5, 4.0, mask.sum()) * rng.choice([-1, 1], mask.sum())
    out[mask] = garbage.astype(out.dtype)
    return out


def _round(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 -> `dtype`, once (integers saturate)."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(x), info.min, info.max).astype(dtype)
    return np.asarray(x).astype(dtype)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow for large |x|


def _unary(op: Operation) -> Callable[[np.ndarray], np.ndarray]:
    name = op.name
    if name == "ge.relu":
        return lambda x: np.maximum(x, 0.0)
    if name == "ge.relu6":
        return lambda x: np.minimum(np.maximum(x, 0.0), 6.0)
    if isinstance(op, ge.LeakyReluOp):
        alpha = float(op.alpha.value.data)
        return lambda x: np.where(x >= 0, x, alpha * x)
    if isinstance(op, ge.ClipOp):
        lo, hi = float(op.min.value.data), float(op.max.value.data)
        return lambda x: np.minimum(np.maximum(x, lo), hi)
    if name == "ge.sigmoid":
        return _sigmoid
    if name == "ge.silu":
        return lambda x: x * _sigmoid(x)
    assert name == "ge.identity", name
    return lambda x: x


def _pool(op: Operation, x: np.ndarray, out_hw: tuple[int, int]) -> np.ndarray:
    """Max or average pooling over axes 2 and 3 of `x` (float64), every other axis a lane."""
    assert isinstance(op, ge.PoolingOp), op.name
    kh, kw = (int(k) for k in op.kernel.get_values())
    sh, sw = (int(s) for s in op.strides.get_values())
    top, bottom, left, right = (int(p) for p in op.pads.get_values())
    include_pad = isinstance(op, ge.AvgPoolOp) and op.count_include_pad is not None
    h, w = x.shape[2], x.shape[3]
    oh, ow = out_hw
    out = np.empty((*x.shape[:2], oh, ow, *x.shape[4:]), dtype=np.float64)
    for i in range(oh):
        r0 = i * sh - top
        rows = range(max(r0, 0), min(r0 + kh, h))
        for j in range(ow):
            c0 = j * sw - left
            cols = range(max(c0, 0), min(c0 + kw, w))
            window = x[:, :, rows.start:rows.stop, cols.start:cols.stop]
            if op.name == "ge.max_pool":
                out[:, :, i, j] = window.max(axis=(2, 3))
            else:
                if include_pad:
                    count = (min(r0 + kh, h + bottom) - max(r0, -top)) * (
                        min(c0 + kw, w + right) - max(c0, -left))
                else:
                    count = len(rows) * len(cols)
                out[:, :, i, j] = window.sum(axis=(2, 3)) / count
    return out


def evaluate(op: Operation, stored: Sequence[np.ndarray]) -> np.ndarray:
    """The stored result of `op` from its stored operands, as a kernel on physical arrays
    computes it (see the module docstring).  Raises ValueError where numpy cannot broadcast
    the stored operands."""
    name = op.name
    out_t = _type(op.results[0])
    dtype = dtypes.np_dtype(out_t.element_type)
    args = [np.asarray(a) for a in stored]
    wide = [a.astype(np.float64) for a in args]
    if name in UNARY:
        result = _round(_unary(op)(wide[0]), dtype)
        result[padding_lanes(out_t, result.shape)] = 0  # the kernel writes zero padding lanes
        return result
    if name in BINARY:
        f = {"ge.add": np.add, "ge.sub": np.subtract, "ge.mul": np.multiply}[name]
        return _round(f(wide[0], wide[1]), dtype)
    if name in ("ge.max_pool", "ge.avg_pool"):
        _, _, oh, ow = out_t.get_shape()
        return _round(_pool(op, wide[0], (oh, ow)), dtype)
    if name == "ge.global_avg_pool":
        return _round(wide[0].mean(axis=(2, 3), keepdims=True), dtype)
    if isinstance(op, ge.ConcatOp):
        return np.concatenate(args, axis=int(op.axis.value.data))
    if isinstance(op, ge.BatchNormOp):
        x = wide[0]
        scale, offset, mean, var = wide[1:5]
        s = scale / np.sqrt(var + float(op.epsilon.value.data))
        t = offset - mean * s
        if is_nc1hwc0(out_t):  # per channel, stored as the input: [1, C1, 1, 1, C0]
            c1, c0 = x.shape[1], x.shape[4]
            s, t = (np.pad(v, (0, c1 * c0 - v.size)).reshape(1, c1, 1, 1, c0) for v in (s, t))
        else:
            s, t = (v.reshape(1, -1, 1, 1) for v in (s, t))
        return _round(x * s + t, dtype)
    raise NotImplementedError(f"no stored-array kernel for {name}")
