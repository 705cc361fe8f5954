"""Data-movement kernels of the simulated NPU: concat, trans_data, reshape, transpose, copy
(exact).
"""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import (
    Arrays,
    Attrs,
    Kernel,
    Operand,
    Types,
    convert,
    integer,
    ints,
    logical,
    physical,
    store,
)
from ge_dialect.sim.kernels.elementwise import fresh
from ge_dialect.utils import layout

_NHWC_AXIS = (0, 3, 1, 2)  # logical NCHW axis -> stored NHWC axis


def _concat_nc1hwc0_channels(inputs: Arrays, in_types: Types, yt: Operand) -> np.ndarray:
    """Channel concat of NC1HWC0 arrays: each input's lanes shifted by its channel offset
    (two strided copies per input when the offset is not C0-aligned).  An input's padding
    lanes land on channels of later inputs, written afterwards, or on the result's padding
    lanes, zeroed when it is stored."""
    n, _, h, w = yt.shape
    c0 = yt.c0
    c1_out = layout.ceil_div(yt.shape[1], c0)
    out = np.zeros((n, c1_out, h, w, c0), dtype=yt.dtype)
    offset = 0
    for x, t in zip(inputs, in_types, strict=True):
        q, r = divmod(offset, c0)
        blocks = min(x.shape[1], c1_out - q)
        if r == 0:
            out[:, q : q + blocks] = x[:, :blocks]
        else:
            out[:, q : q + blocks, :, :, r:] = x[:, :blocks, :, :, : c0 - r]
            spill = min(x.shape[1], c1_out - q - 1)
            out[:, q + 1 : q + 1 + spill, :, :, :r] = x[:, :spill, :, :, c0 - r :]
        offset += t.shape[1]
    return out


def concat(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Concatenation along logical `axis`: along its stored axis (NC1HWC0: N, C1, H, W keep
    their index), repacking the C0 lanes for a channel concat in NC1HWC0 whose offsets are
    not C0-aligned.  Fractal formats (FRACTAL_Z, FRACTAL_NZ) go through logical arrays."""
    yt = out_types[0]
    axis = integer(attrs, "axis", 0)
    same = all((t.fmt, t.c0) == (yt.fmt, yt.c0) for t in in_types)
    if not same or yt.fmt in ("FRACTAL_Z", "FRACTAL_NZ"):
        parts = [logical(x, t) for x, t in zip(inputs, in_types, strict=True)]
        return [store(physical(np.concatenate(parts, axis=axis), yt), yt)]
    if yt.fmt == "NC1HWC0" and axis == 1:
        return [store(_concat_nc1hwc0_channels(inputs, in_types, yt), yt)]
    stored_axis = _NHWC_AXIS[axis] if yt.fmt == "NHWC" else axis
    return [store(np.concatenate(inputs, axis=stored_axis), yt)]


def trans_data(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Between the input's and the result's formats, by `ge_dialect.utils.layout` (exact)."""
    (x,) = inputs
    return [store(fresh(convert(x, in_types[0], out_types[0]), x), out_types[0])]


def reshape(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """The same elements, row-major, in the result's shape (reshape and flatten)."""
    (x,) = inputs
    yt = out_types[0]
    return [store(np.array(x.reshape(yt.physical_shape), copy=True), yt)]


def transpose(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Result dim i is input dim perm[i]."""
    (x,) = inputs
    perm = ints(attrs, "perm", tuple(reversed(range(x.ndim))))
    return [store(np.transpose(x, perm).copy(order="C"), out_types[0])]


def copy(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Its input (a copy of the stored array)."""
    (x,) = inputs
    return [store(np.array(x, copy=True), out_types[0])]


KERNELS: dict[str, Kernel] = {
    "concat": concat,
    "trans_data": trans_data,
    "reshape": reshape,
    "flatten": reshape,
    "transpose": transpose,
    "copy": copy,
}
