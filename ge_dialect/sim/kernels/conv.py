"""Convolution kernels of the simulated NPU: im2col and one matmul per group tile.

Two layouts compute natively:

- NC1HWC0 input with a FRACTAL_Z filter (what `--to-nc1hwc0` produces).  The patch matrix
  is built straight from the zero-padded 5-D array with one strided view and one copy; its
  K order (c1, kh, kw, c0) is the order of FRACTAL_Z's rows, so the FRACTAL_Z array,
  reshaped to (K, N1*16), is the weight matrix.  A grouped FRACTAL_Z packs `e_mult` groups
  block-diagonally into each of its `g_dim` tiles: the tiles become the batch of one
  batched matmul, tile `gi` reading input channel blocks [gi*c1, (gi+1)*c1).  Which logical
  channels a tile's rows and columns hold is read off `ge_dialect.utils.layout` itself (a probe
  weight converted by `oihw_to_fractal_z`), never re-derived.
- NCHW input with an OIHW filter: the patch matrix is (N, G, Cg*KH*KW, Ho*Wo) and
  `W (G, Og, K) @ patches` lands in NCHW directly.

Other combinations (an NHWC input, an OIHW filter with an NC1HWC0 input, ...) are converted
to the nearer native one with `ge_dialect.utils.layout`.  The epilogue `act(y + bias + residual)`
runs in fp32 on the matmul's result; fp16 operands are upcast while the patch matrix is
copied and the result is rounded once.  Padding lanes of an NC1HWC0 result are zero.

The strided im2col view is checked to lie inside the padded input before `as_strided`
makes it: shapes that do not agree (which the launch verifier rejects) are a ValueError,
never a read outside the array.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ge_dialect.sim.kernels.base import (
    Attrs,
    Kernel,
    Operand,
    activation_,
    compute_dtype,
    convert,
    integer,
    ints,
    logical,
    physical,
    real,
    store,
    text,
)
from ge_dialect.utils import layout

_PREPARED: dict[tuple[int, object], tuple[weakref.ref[np.ndarray], np.ndarray]] = {}


def prepared(
    weight: np.ndarray, key: object, make: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """`make(weight)`, remembered while `weight` lives if it is read-only (the simulator's
    weights are: the same array on every run), so that a conv reorders its weight matrix
    once per program rather than once per run."""
    if weight.flags.writeable:
        return make(weight)
    entry = _PREPARED.get((id(weight), key))
    if entry is not None and entry[0]() is weight:
        return entry[1]
    value = make(weight)
    slot = (id(weight), key)
    _PREPARED[slot] = (weakref.ref(weight, lambda _ref: _PREPARED.pop(slot, None)), value)
    return value


@functools.lru_cache(maxsize=256)
def fractal_z_tiles(
    out_channels: int, cin: int, c0: int, groups: int
) -> tuple[int, int, tuple[tuple[np.ndarray, np.ndarray], ...]]:
    """(g_dim, c1, per tile (source columns, logical output channels)) of a grouped
    FRACTAL_Z weight with `out_channels` outputs and `cin` inputs per group.

    Tile `gi` holds FRACTAL_Z rows [gi*c1*KH*KW, (gi+1)*c1*KH*KW) and reads input channel
    blocks [gi*c1, (gi+1)*c1); its column j (of N1*16) is logical output channel `dst[k]`
    where `src[k] == j`.  Found by converting a probe weight with `layout`.
    """
    probe = (np.arange(out_channels * cin, dtype=np.int64) + 1).reshape(out_channels, cin, 1, 1)
    fz = layout.oihw_to_fractal_z(probe, c0, groups)  # (g_dim*c1, n1, 16, c0)
    rows, n1 = fz.shape[0], fz.shape[1]
    cols = fz.reshape(rows, n1 * layout.N0, c0)
    row, col, lane = np.nonzero(cols)
    flat = cols[row, col, lane] - 1
    o, c = flat // cin, flat % cin
    cout = out_channels // groups
    g = o // cout
    starts = np.unique(g[col == 0])  # the first group of each tile sits at column 0
    g_dim = len(starts)
    c1 = rows // g_dim
    tile = row // c1
    # Each tile must read a whole, aligned run of input channel blocks.
    in_channel = g * cin + c
    local = (row - tile * c1) * c0 + lane
    if not np.array_equal(in_channel, tile * c1 * c0 + local):
        raise AssertionError(f"unexpected grouped FRACTAL_Z tiling for {probe.shape}/{groups}")
    maps = []
    for gi in range(g_dim):
        sel = tile == gi
        pairs = np.unique(np.stack([col[sel], o[sel]]), axis=1)
        maps.append((pairs[0], pairs[1]))
    return g_dim, c1, tuple(maps)


def _pad_spatial(
    x: np.ndarray, axes: tuple[int, int], pads: tuple[int, ...], blocks: int | None = None
) -> np.ndarray:
    """`x` in fp32 (its compute dtype) with zero spatial padding (and, for a 5-D array,
    zero channel blocks up to `blocks`); `x` itself when nothing changes."""
    dtype = compute_dtype(x.dtype)
    top, bottom, left, right = pads
    shape = list(x.shape)
    shape[axes[0]] += top + bottom
    shape[axes[1]] += left + right
    if blocks is not None:
        shape[1] = max(shape[1], blocks)
    if tuple(shape) == x.shape and x.dtype == dtype:
        return x
    xp = np.zeros(shape, dtype=dtype)
    index = [slice(None)] * x.ndim
    index[1] = slice(0, x.shape[1])
    index[axes[0]] = slice(top, top + x.shape[axes[0]])
    index[axes[1]] = slice(left, left + x.shape[axes[1]])
    xp[tuple(index)] = x
    return xp


def _check_reach(
    xp: np.ndarray,
    need: tuple[int, ...],
    out_hw: tuple[int, int],
    strides: tuple[int, ...],
    dilations: tuple[int, ...],
) -> None:
    """Raises ValueError unless every window of the im2col view lies inside the padded
    array `xp`: `as_strided` does not check, and a wrong shape would read past the array.

    `need` is how many elements each axis of `xp` must hold (for H and W, axes 2 and 3,
    the windows' reach: `_reach` of the output size, kernel, stride and dilation)."""
    if min(*strides, *dilations) < 1 or min(out_hw) < 1:
        raise ValueError(
            f"conv: strides {list(strides)} and dilations {list(dilations)} must be positive "
            f"and the output {out_hw[0]}x{out_hw[1]} not empty"
        )
    for axis, (have, want) in enumerate(zip(xp.shape, need, strict=False)):
        if want > have:
            raise ValueError(
                f"conv: the windows reach {want} elements along axis {axis} of the padded "
                f"input {tuple(xp.shape)}, which has {have}"
            )


def _reach(out: int, kernel: int, stride: int, dilation: int) -> int:
    """How many elements along one axis the windows of an output of `out` positions read."""
    return (out - 1) * stride + (kernel - 1) * dilation + 1


def _conv_nc1hwc0(
    x: np.ndarray,
    fz: np.ndarray,
    wt: Operand,
    out_hw: tuple[int, int],
    strides: tuple[int, ...],
    pads: tuple[int, ...],
    dilations: tuple[int, ...],
    groups: int,
    c_in: int,
) -> np.ndarray:
    """conv of an NC1HWC0 array with a FRACTAL_Z array: (N*Ho*Wo, C1o*C0) fp32 rows in
    (n, ho, wo) order, columns the logical output channels (zero beyond O)."""
    n, c1_in, _, _, c0 = x.shape
    o, cin, kh, kw = wt.shape
    ho, wo = out_hw
    sh, sw = strides
    dh, dw = dilations
    c1_out = layout.ceil_div(o, c0)
    n1 = fz.shape[1]
    if groups == 1:
        g_dim, c1 = 1, c1_in
    else:
        g_dim, c1, maps = fractal_z_tiles(o, cin, c0, groups)
    lanes = c0
    if groups == 1 and c1_in == 1 and c_in < c0:
        # One partial block (a stem conv): drop the padding lanes, whose FRACTAL_Z rows are
        # zero, from K; compacted first, so that the im2col copy moves runs of kw*C values.
        lanes = c_in
        xc = np.ascontiguousarray(_pad_spatial(x[:, 0, :, :, :lanes], (1, 2), pads))
        xp = xc.reshape(n, 1, *xc.shape[1:])
    else:
        xp = _pad_spatial(x, (2, 3), pads, g_dim * c1)
    need = (n, g_dim * c1, _reach(ho, kh, sh, dh), _reach(wo, kw, sw, dw), lanes)
    _check_reach(xp, need, out_hw, strides, dilations)
    s = xp.strides
    view = as_strided(
        xp,
        shape=(g_dim, n, ho, wo, c1, kh, kw, lanes),
        strides=(c1 * s[1], s[0], sh * s[2], sw * s[3], s[1], dh * s[2], dw * s[3], s[4]),
        writeable=False,
    )
    k = c1 * kh * kw * lanes
    patches = view.reshape(g_dim, n * ho * wo, k)  # the one im2col copy

    def weight_matrix(fz: np.ndarray) -> np.ndarray:
        w = fz.reshape(g_dim, c1 * kh * kw, n1 * layout.N0, c0)[..., :lanes]
        return w.transpose(0, 1, 3, 2).reshape(g_dim, k, n1 * layout.N0).astype(patches.dtype)

    wmat = prepared(fz, ("fractal_z", g_dim, c1, kh, kw, lanes, patches.dtype), weight_matrix)
    cols = c1_out * c0
    if groups == 1:
        y = np.matmul(patches[0], wmat[0])
        if y.shape[1] == cols:
            return y
        out = np.zeros((y.shape[0], cols), dtype=y.dtype)
        width = min(cols, y.shape[1])
        out[:, :width] = y[:, :width]
        return out
    y = np.matmul(patches, wmat)  # (g_dim, M, n1*16): one matmul per tile
    out = np.zeros((y.shape[1], cols), dtype=y.dtype)
    for gi, (src, dst) in enumerate(maps):
        out[:, dst] = y[gi][:, src]
    return out


def _conv_nchw(
    x: np.ndarray,
    w: np.ndarray,
    out_hw: tuple[int, int],
    strides: tuple[int, ...],
    pads: tuple[int, ...],
    dilations: tuple[int, ...],
    groups: int,
) -> np.ndarray:
    """conv of an NCHW array with OIHW weights: an (N, O, Ho, Wo) fp32 array."""
    n, c, _, _ = x.shape
    o, cin, kh, kw = w.shape
    ho, wo = out_hw
    sh, sw = strides
    dh, dw = dilations
    xp = _pad_spatial(x, (2, 3), pads)
    need = (n, groups * cin, _reach(ho, kh, sh, dh), _reach(wo, kw, sw, dw))
    _check_reach(xp, need, out_hw, strides, dilations)
    s = xp.strides
    view = as_strided(
        xp,
        shape=(n, groups, cin, kh, kw, ho, wo),
        strides=(s[0], cin * s[1], s[1], dh * s[2], dw * s[3], sh * s[2], sw * s[3]),
        writeable=False,
    )
    k = cin * kh * kw
    patches = view.reshape(n, groups, k, ho * wo)
    wmat = w.reshape(groups, o // groups, k).astype(patches.dtype, copy=False)
    y = np.matmul(wmat, patches)  # (N, G, Og, Ho*Wo)
    return y.reshape(n, o, ho, wo)


def _operands(
    inputs: list[np.ndarray], in_types: list[Operand], attrs: Attrs
) -> tuple[tuple[np.ndarray, Operand] | None, tuple[np.ndarray, Operand] | None]:
    """(bias, residual) among the operands after input and filter."""
    rest = list(zip(inputs[2:], in_types[2:], strict=True))
    bias = residual = None
    has_bias = attrs.get("has_bias")
    if has_bias is None:
        has_bias = bool(rest) and len(rest[0][1].shape) == 1
    if has_bias:
        bias = rest.pop(0)
    has_residual = attrs.get("has_residual")
    if has_residual is None:
        has_residual = bool(rest)
    if has_residual:
        residual = rest.pop(0)
    if rest:
        raise ValueError(f"conv: {len(rest)} unexpected operands")
    return bias, residual


def conv2d(
    inputs: list[np.ndarray], in_types: list[Operand], out_types: list[Operand], attrs: Attrs
) -> list[np.ndarray]:
    """conv2d and fused_conv2d: `act(conv(x, W) + bias + residual)`."""
    x, w = inputs[0], inputs[1]
    xt, wt = in_types[0], in_types[1]
    yt = out_types[0]
    strides = ints(attrs, "strides", (1, 1))
    pads = ints(attrs, "pads", (0, 0, 0, 0))
    dilations = ints(attrs, "dilations", (1, 1))
    groups = integer(attrs, "groups", 1)
    act = text(attrs, "activation", "none")
    alpha = real(attrs, "alpha", 0.01)
    bias, residual = _operands(inputs, in_types, attrs)
    n, o, ho, wo = yt.shape
    dtype = compute_dtype(np.result_type(x.dtype, w.dtype))
    if xt.fmt == "NC1HWC0":
        c0 = xt.c0
        fzt = Operand(wt.shape, wt.dtype, "FRACTAL_Z", c0, groups)
        fz = convert(w, wt, fzt)
        y2 = _conv_nc1hwc0(x, fz, wt, (ho, wo), strides, pads, dilations, groups, xt.shape[1])
        c1_out = y2.shape[1] // c0
        y5 = y2.reshape(n, ho, wo, c1_out, c0).transpose(0, 3, 1, 2, 4)
        out = np.empty(y5.shape, dtype=dtype)
        t5 = Operand(yt.shape, yt.dtype, "NC1HWC0", c0)
        # one pass from the GEMM's (n, ho, wo, c1, c0) rows into NC1HWC0, adding the bias
        if bias is not None:
            b = np.zeros(c1_out * c0, dtype=dtype)
            b[:o] = bias[0]
            np.add(y5, b.reshape(1, c1_out, 1, 1, c0), out=out)
        else:
            out[...] = y5
        if residual is not None:
            out += convert(residual[0], residual[1], t5)
    else:
        xl = convert(x, xt, Operand(xt.shape, xt.dtype, "NCHW"))
        wl = logical(w, wt) if wt.fmt == "FRACTAL_Z" else w
        out = _conv_nchw(xl, wl, (ho, wo), strides, pads, dilations, groups)
        if bias is not None:
            out += bias[0].astype(dtype, copy=False).reshape(1, o, 1, 1)
        t5 = Operand(yt.shape, yt.dtype, "NCHW")
        if residual is not None:
            out += convert(residual[0], residual[1], t5)
    activation_(out, act, alpha)
    result = store(out, t5)
    if (t5.fmt, t5.c0) != (yt.fmt, yt.c0) and not (t5.fmt == "NCHW" and yt.fmt == "ND"):
        result = store(physical(logical(result, t5), yt), yt)
    return [result]


KERNELS: dict[str, Kernel] = {
    "conv2d": conv2d,
    "fused_conv2d": conv2d,
}
