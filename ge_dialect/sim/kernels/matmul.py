"""The matmul kernel of the simulated NPU (transpose flags, batched, optional bias)."""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import (
    Arrays,
    Attrs,
    Kernel,
    Types,
    compute_dtype,
    flag,
    store,
)


def matmul(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """`a @ b (+ bias)` over the last two dims, batch dims broadcasting; `transpose_a` /
    `transpose_b` swap an operand's last two dims first.  fp32 GEMM."""
    a, b = inputs[0], inputs[1]
    dtype = compute_dtype(np.result_type(a.dtype, b.dtype))
    a = a.astype(dtype, copy=False)
    b = b.astype(dtype, copy=False)
    if flag(attrs, "transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if flag(attrs, "transpose_b"):
        b = np.swapaxes(b, -1, -2)
    out = np.matmul(a, b)
    has_bias = attrs.get("has_bias", len(inputs) > 2)
    if has_bias:
        out += inputs[2].astype(dtype, copy=False)
    return [store(out, out_types[0])]


KERNELS: dict[str, Kernel] = {"matmul": matmul}
