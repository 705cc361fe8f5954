"""Indexing kernels of the simulated NPU: gather, slice, expand (exact, any dtype).

The `ge` ops take default-layout (ND/NCHW) operands only, so a stored array is its logical
array and the kernels index it directly.  A gather index outside [-n, n) of its axis raises
`IndexOutOfRange` (a ValueError the executor reports, located at the launch).
"""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import Arrays, Attrs, Kernel, Types, integer, ints, store


class IndexOutOfRange(ValueError):
    """A gather index outside its axis: the launch cannot compute its result."""


def out_of_range_message(indices: np.ndarray, axis: int, size: int) -> str | None:
    """Why `indices` cannot index an axis of `size` elements (the first bad index, in
    row-major order, and where it is), or None when every index lies in [-size, size)."""
    bad = np.argwhere((indices < -size) | (indices >= size))
    if not len(bad):
        return None
    where = [int(i) for i in bad[0]]
    value = int(indices[tuple(where)])
    return (
        f"indices hold {value} at {where}, out of range for axis {axis} of size {size} "
        f"(an index must lie in [{-size}, {size}))"
    )


def gather(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """ONNX Gather: the slices of `data` along `axis` that `indices` names (negative ones
    count from the end)."""
    data, indices = inputs
    axis = integer(attrs, "axis", 0)
    size = data.shape[axis]
    message = out_of_range_message(indices, axis, size)
    if message is not None:
        raise IndexOutOfRange(message)
    wrapped = np.where(indices < 0, indices.astype(np.int64) + size, indices)
    return [store(np.take(data, wrapped, axis=axis), out_types[0])]


def slice_(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """ONNX Slice with positive steps: Python's slice clamps a start or end as ONNX does
    (negative counts from the end, then clamped to the dim)."""
    (x,) = inputs
    index = [slice(None)] * x.ndim
    starts, ends = ints(attrs, "starts", ()), ints(attrs, "ends", ())
    axes, steps = ints(attrs, "axes", ()), ints(attrs, "steps", ())
    for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
        index[axis] = slice(start, end, step)
    return [store(np.array(x[tuple(index)], copy=True), out_types[0])]


def expand(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """numpy's broadcast_to the result's shape."""
    (x,) = inputs
    yt = out_types[0]
    return [store(np.array(np.broadcast_to(x, yt.physical_shape), copy=True), yt)]


KERNELS: dict[str, Kernel] = {"gather": gather, "slice": slice_, "expand": expand}
