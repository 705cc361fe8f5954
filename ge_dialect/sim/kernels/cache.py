"""The KV-cache kernel of the simulated NPU: scatter_update, in place.

`scatter_update` is an in-place kernel (`InPlaceKernel`): the executor gives it the launch's
output buffer, and it writes there only the update's positions.  When that buffer is the
cache's own (what `--lower-to-device` makes: the output is a view of the cache), the rest
of the cache is already in place and no other byte moves; when it is another buffer, the
kernel first copies the cache into it.  The positions are computed as one index array
(position + k for every batch row b and every k < K) and written with numpy's
`put_along_axis`.  A position outside [0, S - K] raises `IndexOutOfRange` (a ValueError the
executor reports, located at the launch), before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ge_dialect.sim.kernels.base import Arrays, Attrs, Kernel, Types, cast_to, integer
from ge_dialect.sim.kernels.indexing import IndexOutOfRange

InPlaceKernel = Callable[[Arrays, Arrays, Types, Types, Attrs], None]
"""kernel(inputs, outputs, in_types, out_types, attrs): writes into `outputs` (stored
arrays, possibly the very memory of an input) and returns nothing."""


def scatter_update(
    inputs: Arrays, outputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs
) -> None:
    """out = cache with update[b] written at positions indices[b] .. + K - 1 along `axis`
    of batch row b; only those positions are written when `out` is the cache's memory."""
    cache, indices, update = inputs
    (out,) = outputs
    axis = integer(attrs, "axis", 1)
    size, k = cache.shape[axis], update.shape[axis]
    starts = indices.astype(np.int64).reshape(-1)
    bad = np.flatnonzero((starts < 0) | (starts > size - k))
    if len(bad):
        b = int(bad[0])
        raise IndexOutOfRange(
            f"indices hold {int(starts[b])} at [{b}], out of range for {k} positions along "
            f"axis {axis} of size {size} (a position must lie in [0, {size - k}])"
        )
    if out.__array_interface__["data"][0] != cache.__array_interface__["data"][0]:
        out[...] = cache  # not the cache's buffer: the launch is not in place
    # positions[b, ..., j, ...] = starts[b] + j along `axis`, broadcast over the other dims
    rank = update.ndim
    along = starts.reshape([-1 if d == 0 else 1 for d in range(rank)]) + np.arange(k).reshape(
        [k if d == axis else 1 for d in range(rank)]
    )
    positions = np.broadcast_to(along, update.shape)
    np.put_along_axis(out, positions, cast_to(update, out_types[0].dtype), axis=axis)


def _scatter_update_new(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """scatter_update into a new array (for a caller that has no output buffer)."""
    out = np.empty(out_types[0].physical_shape, out_types[0].dtype)
    scatter_update(inputs, [out], in_types, out_types, attrs)
    return [out]


KERNELS: dict[str, Kernel] = {"scatter_update": _scatter_update_new}
IN_PLACE_KERNELS: dict[str, InPlaceKernel] = {"scatter_update": scatter_update}
