"""Mixture-of-experts and MLP kernels of the simulated NPU: topk, scatter_add, swi_glu,
moe_gating_top_k, grouped_matmul.

All work on default-layout (ND) operands, so a stored array is its logical array.  The
algorithms differ from the reference interpreter's on purpose: top-k selects by a
threshold (`np.partition`) and sorts only the candidates, scatter-add accumulates with
`np.bincount` on flat positions, grouped matmul runs one GEMM per group.  Floats compute in
fp32 (fp16 upcasts) and round once; top-k values are copied exactly.
"""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import (
    Arrays,
    Attrs,
    Kernel,
    Types,
    flag,
    integer,
    sigmoid_,
    store,
    text,
    wide,
)
from ge_dialect.sim.kernels.indexing import IndexOutOfRange, out_of_range_message


def _select(rows: np.ndarray, k: int, largest: bool, ordered: bool) -> np.ndarray:
    """The indices of the top k of each row of a 2-D array: every element at least as good
    as the k-th best (found by `np.partition`) is a candidate; candidates sort by value,
    then by index, and the first k win (so ties go to the lower index)."""
    n = rows.shape[1]
    keys = -rows if largest else rows  # smaller key is better
    kth = np.partition(keys, k - 1, axis=1)[:, k - 1 : k]
    out = np.empty((rows.shape[0], k), dtype=np.int64)
    positions = np.arange(n)
    for r in range(rows.shape[0]):
        candidates = positions[keys[r] <= kth[r]]
        best = candidates[np.lexsort((candidates, keys[r, candidates]))[:k]]
        out[r] = best if ordered else np.sort(best)
    return out


def _topk(
    x: np.ndarray, k: int, axis: int, largest: bool, ordered: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Values (exact copies) and int64 indices of the top k along `axis`."""
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    ids = _select(rows, k, largest, ordered)
    values = np.take_along_axis(rows, ids, axis=1)
    shape = (*moved.shape[:-1], k)
    return (
        np.moveaxis(values.reshape(shape), -1, axis),
        np.moveaxis(ids.reshape(shape), -1, axis),
    )


def topk(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """The k largest (smallest) elements along `axis` and their i64 indices."""
    (x,) = inputs
    values, ids = _topk(
        x,
        integer(attrs, "k", 1),
        integer(attrs, "axis", -1) % x.ndim,
        flag(attrs, "largest"),
        flag(attrs, "sorted"),
    )
    return [store(values, out_types[0]), store(ids, out_types[1])]


def scatter_add(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """data + the updates accumulated at their flat positions (`np.bincount`), in fp32."""
    data, indices, updates = inputs
    axis = integer(attrs, "axis", 0) % data.ndim
    size = data.shape[axis]
    message = out_of_range_message(indices, axis, size)
    if message is not None:
        raise IndexOutOfRange(message)
    target = [
        np.arange(d).reshape([-1 if i == a else 1 for i in range(indices.ndim)])
        for a, d in enumerate(indices.shape)
    ]
    wrapped = indices.astype(np.int64)
    target[axis] = np.where(wrapped < 0, wrapped + size, wrapped)
    flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*target)), data.shape)
    added = np.bincount(flat.ravel(), weights=wide(updates).ravel(), minlength=data.size)
    y = wide(data) + added.astype(wide(data).dtype).reshape(data.shape)
    return [store(y, out_types[0])]


def swi_glu(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """silu(first half) * second half along `dim`, in fp32."""
    (x,) = inputs
    dim = integer(attrs, "dim", -1) % x.ndim
    half = x.shape[dim] // 2
    a = np.array(wide(np.take(x, np.arange(half), axis=dim)), copy=True)
    b = wide(np.take(x, np.arange(half, 2 * half), axis=dim))
    y = a * sigmoid_(a.copy()) * b
    return [store(y, out_types[0])]


def moe_gating_top_k(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """softmax (or sigmoid) over the last axis, top k by threshold, optional renormalisation;
    fp32."""
    (x,) = inputs
    p = np.array(wide(x), copy=True)
    if text(attrs, "norm", "softmax") == "sigmoid":
        sigmoid_(p)
    else:
        p -= p.max(axis=-1, keepdims=True)
        np.exp(p, out=p)
        p /= p.sum(axis=-1, keepdims=True)
    weights, ids = _topk(p, integer(attrs, "k", 1), x.ndim - 1, largest=True, ordered=True)
    if flag(attrs, "renorm"):
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return [store(weights, out_types[0]), store(ids, out_types[1])]


def grouped_matmul(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """One fp32 GEMM per group: out[e] = x[e] @ weight[e]."""
    x, w = inputs
    xf, wf = wide(x), wide(w)
    out = np.empty((x.shape[0], x.shape[1], w.shape[2]), dtype=xf.dtype)
    for e in range(x.shape[0]):
        out[e] = xf[e] @ wf[e]
    return [store(out, out_types[0])]


KERNELS: dict[str, Kernel] = {
    "topk": topk,
    "scatter_add": scatter_add,
    "swi_glu": swi_glu,
    "moe_gating_top_k": moe_gating_top_k,
    "grouped_matmul": grouped_matmul,
}
