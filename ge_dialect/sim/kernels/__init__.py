"""The numerics of the simulated NPU: one numpy kernel per launch kind, on STORED arrays.

    run_kernel("relu", [x], [Operand((1, 17, 8, 8), np.float16, "NC1HWC0")],
               [Operand((1, 17, 8, 8), np.float16, "NC1HWC0")], {}) -> [y]

`inputs` are the physical arrays of the operands (`Operand.physical_shape`); the result is one
new physical array per out_type, of exactly its physical shape and dtype, never sharing memory
with an input (an in-place kernel, `IN_PLACE_KERNELS`, writes into the launch's output
buffers instead, which may be an input's memory: `cache.scatter_update`).  An NC1HWC0
result has zero padding lanes.  `attrs` are the `ge` op's properties as plain Python values
(lists, int, float, str, bool); an absent unit attribute is False.  Kernels follow the
stored arrays: a binary op broadcasts the stored shapes as numpy does, pooling windows run
over the stored H and W axes of every lane, batch norm multiplies by per-channel vectors
laid out like the input (zero padded), so a layout decision that is wrong for the stored
arrays gives wrong numbers (or a shape error), as on the device.

Numerics: floats narrower than fp32 upcast to fp32, compute, and round once; fp32 computes in
fp32 (GEMMs included: numpy's fp16 matmul has no BLAS path); integer arithmetic is exact in
int64 and saturates when stored (`ge.add`/`sub`/`mul` on i8/ui8); data movement is exact.
One module per family: `conv` (im2col + one matmul per group tile), `elementwise`,
`pooling`, `data_movement`, `indexing`, `matmul`, `reduction`, `collectives`,
`comparison`, `cache`, `moe`, `transformer`; `base` holds what they share.

The kernels here: conv2d, fused_conv2d, batch_norm; relu, relu6, leaky_relu, clip, sigmoid,
silu, identity, cast; exp, log, tanh, erf, sqrt, rsqrt, neg, reciprocal, gelu; add, sub, mul,
div, maximum, minimum, pow; sin, cos; equal, not_equal, less, less_equal, greater,
greater_equal, logical_not, logical_and, logical_or, where (`comparison`); max_pool,
avg_pool, global_avg_pool; concat,
trans_data, reshape, flatten, transpose, copy; gather, slice, expand (`indexing`);
matmul; softmax, reduce_sum, reduce_mean, reduce_max, reduce_min, layer_norm, rms_norm
(`reduction`); scatter_update (`cache`, in place); topk, scatter_add, swi_glu,
moe_gating_top_k, grouped_matmul (`moe`); flash_attention, rotary_mul
(`transformer`); hcom_all_reduce,
hcom_all_gather, hcom_reduce_scatter, hcom_all_to_all, hcom_broadcast, hcom_send,
hcom_receive (one simulated device: `rank_size` identical ranks, so sum is
rank_size * x, prod x ** rank_size, max/min x, all-gather rank_size copies along dim 0,
reduce-scatter block 0 reduced, all-to-all rank_size copies of piece 0, broadcast x,
send nothing, receive zeros; with rank_size 1 all but receive are the identity).
"""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels import (
    cache,
    collectives,
    comparison,
    conv,
    data_movement,
    elementwise,
    indexing,
    matmul,
    moe,
    pooling,
    reduction,
    transformer,
)
from ge_dialect.sim.kernels.base import Kernel, Operand, UnknownKernel

__all__ = ["KERNELS", "Operand", "UnknownKernel", "run_kernel"]


KERNELS: dict[str, Kernel] = {
    **conv.KERNELS,
    **elementwise.KERNELS,
    **pooling.KERNELS,
    **data_movement.KERNELS,
    **indexing.KERNELS,
    **matmul.KERNELS,
    **reduction.KERNELS,
    **collectives.KERNELS,
    **comparison.KERNELS,
    **cache.KERNELS,
    **moe.KERNELS,
    **transformer.KERNELS,
}
"""Kernel name (the `ge` op's name without "ge.") -> kernel(inputs, in_types, out_types,
attrs)."""

IN_PLACE_KERNELS: dict[str, cache.InPlaceKernel] = {**cache.IN_PLACE_KERNELS}
"""Kernels that write into the output buffers the launch gives them (`run_kernel`'s
`outputs`), possibly an input's own memory: kernel(inputs, outputs, in_types, out_types,
attrs).  Each is also in `KERNELS`, writing a new array."""


def run_kernel(
    kernel: str,
    inputs: list[np.ndarray],
    in_types: list[Operand],
    out_types: list[Operand],
    attrs: dict[str, object],
    outputs: list[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Runs kernel `kernel` on the physical `inputs`; one new physical array per out_type,
    except that an in-place kernel (`IN_PLACE_KERNELS`) given the launch's output buffers
    (`outputs`) writes into them and returns them.

    Raises `UnknownKernel` for a name not in `KERNELS`, ValueError when an input's shape is
    not the physical shape of its Operand (or the result's would not be).
    """
    try:
        f = KERNELS[kernel]
    except KeyError:
        raise UnknownKernel(kernel) from None
    if len(inputs) != len(in_types):
        raise ValueError(f"{kernel}: {len(inputs)} inputs for {len(in_types)} operand types")
    for i, (x, t) in enumerate(zip(inputs, in_types, strict=True)):
        if tuple(x.shape) != t.physical_shape:
            raise ValueError(
                f"{kernel}: input #{i} has shape {tuple(x.shape)}, expected the physical "
                f"shape {t.physical_shape} of {t}"
            )
    in_place = IN_PLACE_KERNELS.get(kernel)
    if in_place is not None and outputs is not None:
        in_place(list(inputs), list(outputs), list(in_types), list(out_types), attrs)
        return list(outputs)
    return f(list(inputs), list(in_types), list(out_types), attrs)
