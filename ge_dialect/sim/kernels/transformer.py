"""Transformer kernels of the simulated NPU: flash_attention and rotary_mul.

`flash_attention` is FlashAttention's algorithm: for each tile of `KV_TILE` keys it
computes the scores of every query against the tile only, and keeps, per query row, the
running maximum `m`, the running sum `l` of exp(score - m) and the output accumulator
rescaled by exp(m_old - m_new) whenever the maximum grows; the Sq x Skv score matrix never
exists.  Query heads are grouped by the key/value head they read (grouped-query attention),
so each key/value tile is used by its whole group at once.  It computes in fp32 (f16
upcasts) and rounds once.  `rotary_mul` writes the two halves of the result separately:
y1 = x1 * cos1 - x2 * sin1, y2 = x2 * cos2 + x1 * sin2.

Operands are ND.  Attributes: `scale` (a float, used as given: an f64 property), `causal`;
an optional fourth input is the mask (bool: keep where true; float: added to the scores).
"""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import Arrays, Attrs, Kernel, Types, flag, store, wide

KV_TILE = 64
"""Keys per tile of the online softmax."""


def flash_attention(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """softmax(scale * q k^T + mask) v by tiles of keys with an online softmax, in fp32."""
    q, k, v, *rest = (wide(a) if a.dtype != np.bool_ else a for a in inputs)
    scale = attrs.get("scale", 1.0)
    if not isinstance(scale, float | int) or isinstance(scale, bool):
        raise ValueError(f"attribute 'scale' must be a number, got {scale!r}")
    b, n, sq, d = q.shape
    nkv, skv, dv = k.shape[1], k.shape[2], v.shape[3]
    group = n // nkv
    # [B, Nkv, G, Sq, ...]: the query heads of one key/value head together
    qg = q.reshape(b, nkv, group, sq, d) * q.dtype.type(scale)
    mask = None
    if rest:
        mask = np.broadcast_to(rest[0], (b, n, sq, skv)).reshape(b, nkv, group, sq, skv)
    rows = np.arange(sq)[:, None] + (skv - sq)  # the last key each query may see (causal)
    acc = np.zeros((b, nkv, group, sq, dv), q.dtype)
    top = np.full((b, nkv, group, sq, 1), -np.inf, q.dtype)
    total = np.zeros((b, nkv, group, sq, 1), q.dtype)
    for start in range(0, skv, KV_TILE):
        stop = min(start + KV_TILE, skv)
        kt = k[:, :, None, start:stop, :]  # [B, Nkv, 1, T, D]
        s = qg @ np.swapaxes(kt, -1, -2)  # [B, Nkv, G, Sq, T]
        if mask is not None and mask.dtype == np.bool_:
            s = np.where(mask[..., start:stop], s, -np.inf)
        elif mask is not None:
            s = s + wide(np.ascontiguousarray(mask[..., start:stop]))
        if flag(attrs, "causal"):
            s = np.where(np.arange(start, stop)[None, :] <= rows, s, -np.inf)
        new_top = np.maximum(top, s.max(axis=-1, keepdims=True))
        # rows that have seen no key yet keep a maximum of -inf: shift them by 0
        shift = np.where(np.isneginf(new_top), 0, new_top)
        with np.errstate(invalid="ignore"):
            correction = np.exp(np.where(np.isneginf(top), -np.inf, top - shift))
        p = np.exp(s - shift)
        total = total * correction + p.sum(axis=-1, keepdims=True)
        acc = acc * correction + p @ v[:, :, None, start:stop, :]
        top = new_top
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0, acc / total, 0)
    return [store(out.reshape(b, n, sq, dv), out_types[0])]


def rotary_mul(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """x * cos + rotate_half(x) * sin, one half of the result at a time, in fp32."""
    x, cos, sin = (wide(a) for a in inputs)
    cos, sin = np.broadcast_to(cos, x.shape), np.broadcast_to(sin, x.shape)
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    y = np.empty_like(x)
    y[..., :half] = x1 * cos[..., :half] - x2 * sin[..., :half]
    y[..., half:] = x2 * cos[..., half:] + x1 * sin[..., half:]
    return [store(y, out_types[0])]


KERNELS: dict[str, Kernel] = {"flash_attention": flash_attention, "rotary_mul": rotary_mul}
