"""Reduction kernels of the simulated NPU: softmax."""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import (
    Arrays,
    Attrs,
    Kernel,
    Types,
    compute_dtype,
    integer,
    store,
)


def softmax(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """exp(x - max) / sum(exp(x - max)) along `axis`, in fp32."""
    (x,) = inputs
    axis = integer(attrs, "axis", -1)
    e = np.array(x, dtype=compute_dtype(x.dtype), copy=True)
    e -= e.max(axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return [store(e, out_types[0])]


KERNELS: dict[str, Kernel] = {"softmax": softmax}
