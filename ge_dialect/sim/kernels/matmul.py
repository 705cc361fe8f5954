"""The matmul kernel of the simulated NPU (transpose flags, batched, optional bias).

Operands and result are ND or FRACTAL_NZ.  A FRACTAL_NZ operand is multiplied as the zero
padded matrix its 16 x C0 fractals tile (`layout.fractal_nz_to_padded`, a reordering of
the stored blocks, padding included, as the cube reads them): never through its logical
array.  Padding rows and columns of an operand are zero, so they add nothing to the
product; a FRACTAL_NZ result is folded straight back into fractals and its padding lanes
are zeroed when stored (the bias lands on padding rows too).
"""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import (
    Arrays,
    Attrs,
    Kernel,
    Operand,
    Types,
    compute_dtype,
    flag,
    store,
)
from ge_dialect.utils import layout


def _matrix(x: np.ndarray, t: Operand, dtype: np.dtype) -> np.ndarray:
    """The matrix an operand stores, in `dtype`: its logical array (ND) or its zero padded
    fractal matrix (FRACTAL_NZ, rows and columns padded to 16 and C0)."""
    if t.fmt == "FRACTAL_NZ":
        x = layout.fractal_nz_to_padded(x)
    return x.astype(dtype, copy=False)


def _fit(a: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """`a`'s last two dims cut or zero padded to `rows` x `cols` (a view when it only cuts)."""
    r, c = a.shape[-2:]
    if r >= rows and c >= cols:
        return a[..., :rows, :cols]
    out = np.zeros((*a.shape[:-2], rows, cols), dtype=a.dtype)
    out[..., : min(r, rows), : min(c, cols)] = a[..., :rows, :cols]
    return out


def matmul(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """`a @ b (+ bias)` over the last two dims, batch dims broadcasting; `transpose_a` /
    `transpose_b` swap an operand's last two dims first.  fp32 GEMM on the stored matrices
    (FRACTAL_NZ padding included: both K extents are cut to the shorter, beyond the
    logical K, where the other operand's lanes are zero)."""
    yt = out_types[0]
    dtype = compute_dtype(np.result_type(inputs[0].dtype, inputs[1].dtype))
    a = _matrix(inputs[0], in_types[0], dtype)
    b = _matrix(inputs[1], in_types[1], dtype)
    if flag(attrs, "transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if flag(attrs, "transpose_b"):
        b = np.swapaxes(b, -1, -2)
    k = min(a.shape[-1], b.shape[-2])
    out = np.matmul(a[..., :k], b[..., :k, :])
    if attrs.get("has_bias", len(inputs) > 2):
        out += _fit(inputs[2].astype(dtype, copy=False)[None, :], 1, out.shape[-1])
    m, n = yt.shape[-2:]
    if yt.fmt == "FRACTAL_NZ":
        rows = layout.ceil_div(m, layout.M0) * layout.M0
        cols = layout.ceil_div(n, yt.c0) * yt.c0
        return [store(layout.padded_to_fractal_nz(_fit(out, rows, cols), yt.c0), yt)]
    return [store(np.ascontiguousarray(out[..., :m, :n]), yt)]


KERNELS: dict[str, Kernel] = {"matmul": matmul}
