"""Collective kernels of one simulated device (`rank_size` identical ranks); several ranks
meet in `sim.executor.execute_ranks`.
"""

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
    text,
)


def hcom_all_reduce(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """The reduction over `rank_size` identical ranks: sum rank_size * x, prod
    x ** rank_size, max and min x (integers saturate); the identity with one rank."""
    (x,) = inputs
    ranks = integer(attrs, "rank_size", 1)
    reduction = text(attrs, "reduction", "sum")
    if ranks == 1 or reduction in ("max", "min"):
        out = np.array(x, copy=True)
    elif reduction == "sum":
        out = np.multiply(x, ranks, dtype=compute_dtype(x.dtype))
    elif reduction == "prod":
        base = x.astype(compute_dtype(x.dtype) if x.dtype.kind == "f" else np.float64)
        with np.errstate(over="ignore"):
            out = np.power(base, ranks)
    else:
        raise ValueError(f"hcom_all_reduce: unknown reduction {reduction!r}")
    return [store(out, out_types[0])]


def hcom_all_gather(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """`rank_size` copies of the input along dim 0 (each rank holds the same tensor)."""
    (x,) = inputs
    ranks = integer(attrs, "rank_size", 1)
    return [store(np.concatenate([x] * ranks, axis=0), out_types[0])]


KERNELS: dict[str, Kernel] = {
    "hcom_all_reduce": hcom_all_reduce,
    "hcom_all_gather": hcom_all_gather,
}
