"""Comparison, logic and selection kernels of the simulated NPU (`ge.equal` ... `ge.where`).

The ops take default-layout tensors, so the stored arrays are the logical ones and numpy
broadcasting of the stored shapes is the op's broadcasting.  Comparisons are exact: f16
compares after a lossless upcast to f32, integers in int64; NaN compares as IEEE says
(unequal to everything).  Results are bool arrays (i1 is one byte per element).
"""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import Arrays, Attrs, Kernel, Types, compute_dtype, store


def _compare(ufunc: np.ufunc) -> Kernel:
    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        a, b = inputs
        dtype = compute_dtype(np.result_type(a.dtype, b.dtype))
        with np.errstate(invalid="ignore"):
            out = ufunc(a.astype(dtype, copy=False), b.astype(dtype, copy=False))
        return [store(out, out_types[0])]

    kernel.__doc__ = f"numpy's {ufunc.__name__} of the stored arrays (broadcasting), as bool."
    return kernel


def _logical(ufunc: np.ufunc) -> Kernel:
    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        a, b = (x.astype(bool, copy=False) for x in inputs)
        return [store(ufunc(a, b), out_types[0])]

    kernel.__doc__ = f"numpy's {ufunc.__name__} of two bool arrays (broadcasting)."
    return kernel


def logical_not(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """`not x` of a bool array (a new array)."""
    (x,) = inputs
    return [store(np.logical_not(x), out_types[0])]


def where(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """`a` where the condition holds, else `b` (three-way broadcasting; exact)."""
    c, a, b = inputs
    return [store(np.where(c.astype(bool, copy=False), a, b), out_types[0])]


KERNELS: dict[str, Kernel] = {
    "equal": _compare(np.equal),
    "not_equal": _compare(np.not_equal),
    "less": _compare(np.less),
    "less_equal": _compare(np.less_equal),
    "greater": _compare(np.greater),
    "greater_equal": _compare(np.greater_equal),
    "logical_not": logical_not,
    "logical_and": _logical(np.logical_and),
    "logical_or": _logical(np.logical_or),
    "where": where,
}
