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
    ints,
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


def hcom_reduce_scatter(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Rank 0's block of the all-reduce of `rank_size` identical ranks: the input cut into
    rank_size row blocks, the first one reduced as `hcom_all_reduce` does."""
    (x,) = inputs
    ranks = integer(attrs, "rank_size", 1)
    first = np.split(x, ranks, axis=0)[0]
    return hcom_all_reduce([first], in_types, out_types, attrs)


def hcom_all_to_all(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """What rank 0 receives from `rank_size` identical ranks: each sends it its first piece
    (send_counts[0] rows along split_dim), tiled rank_size times along concat_dim."""
    (x,) = inputs
    ranks = integer(attrs, "rank_size", 1)
    split, concat = integer(attrs, "split_dim", 0), integer(attrs, "concat_dim", 0)
    sizes = ints(attrs, "send_counts", [x.shape[split] // ranks] * ranks)
    recv = ints(attrs, "recv_counts", [sizes[0]] * ranks)
    if set(recv) != {sizes[0]}:
        raise ValueError(
            f"hcom_all_to_all on one device: every rank sends {sizes[0]} to rank 0, "
            f"but recv_counts are {list(recv)}"
        )
    index = [slice(None)] * x.ndim
    index[split] = slice(0, sizes[0])
    reps = [1] * x.ndim
    reps[concat] = ranks
    return [store(np.tile(x[tuple(index)], reps), out_types[0])]


def hcom_broadcast(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Identical ranks: the root's tensor is this one's."""
    return [store(np.array(inputs[0], copy=True), out_types[0])]


def hcom_send(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """One device: nothing receives it (several ranks move it in `execute_ranks`)."""
    return []


def hcom_receive(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """One device has no sender: zeros (several ranks always pair it with its send)."""
    return [store(np.zeros(out_types[0].physical_shape), out_types[0])]


KERNELS: dict[str, Kernel] = {
    "hcom_all_reduce": hcom_all_reduce,
    "hcom_all_gather": hcom_all_gather,
    "hcom_reduce_scatter": hcom_reduce_scatter,
    "hcom_all_to_all": hcom_all_to_all,
    "hcom_broadcast": hcom_broadcast,
    "hcom_send": hcom_send,
    "hcom_receive": hcom_receive,
}
