"""Pooling kernels of the simulated NPU: max and average windows, global average pooling."""

from __future__ import annotations

import numpy as np

from ge_dialect.sim.kernels.base import (
    F32,
    Arrays,
    Attrs,
    Kernel,
    Types,
    flag,
    ints,
    spatial_axes,
    store,
)


def _window_counts(out: int, k: int, s: int, before: int, after: int, size: int, include: bool):
    """Per output position along one axis, how many window elements count for an average."""
    starts = np.arange(out) * s - before
    lo, hi = (-before, size + after) if include else (0, size)
    return np.clip(np.minimum(starts + k, hi) - np.maximum(starts, lo), 0, None)


def _pool(kind: str) -> Kernel:
    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        (x,) = inputs
        xt, yt = in_types[0], out_types[0]
        kh, kw = ints(attrs, "kernel", (1, 1))
        sh, sw = ints(attrs, "strides", (1, 1))
        top, bottom, left, right = ints(attrs, "pads", (0, 0, 0, 0))
        ah, aw = spatial_axes(xt)
        h, w = xt.shape[2], xt.shape[3]
        ho, wo = yt.shape[2], yt.shape[3]
        if kind == "max":
            dtype = x.dtype  # exact in the input's dtype
            fill = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
        else:
            dtype, fill = F32, 0
        # padded extent: the windows' reach (a ceil_mode overhang included), at least the input
        extent = [max((ho - 1) * sh + kh, top + h), max((wo - 1) * sw + kw, left + w)]
        if (top, left) == (0, 0) and extent == [h, w] and x.dtype == dtype:
            xp = x
        else:
            shape = list(x.shape)
            shape[ah], shape[aw] = extent
            xp = np.full(shape, fill, dtype=dtype)
            index = [slice(None)] * x.ndim
            index[ah], index[aw] = slice(top, top + h), slice(left, left + w)
            xp[tuple(index)] = x
        acc: np.ndarray | None = None
        index = [slice(None)] * x.ndim
        for i in range(kh):  # a short loop over kernel taps
            for j in range(kw):
                index[ah] = slice(i, i + sh * (ho - 1) + 1, sh)
                index[aw] = slice(j, j + sw * (wo - 1) + 1, sw)
                tap = xp[tuple(index)]
                if acc is None:
                    acc = np.array(tap, dtype=dtype, copy=True)
                elif kind == "max":
                    np.maximum(acc, tap, out=acc)
                else:
                    np.add(acc, tap, out=acc)
        assert acc is not None
        if kind == "avg":
            include = flag(attrs, "count_include_pad")
            ch = _window_counts(ho, kh, sh, top, bottom, h, include)
            cw = _window_counts(wo, kw, sw, left, right, w, include)
            shape = [1] * x.ndim
            shape[ah], shape[aw] = ho, wo
            acc /= np.outer(ch, cw).astype(F32).reshape(shape)
        return [store(acc, yt)]

    kernel.__doc__ = (
        f"{kind} pooling over the stored H and W axes of every lane (pads "
        "[top, bottom, left, right]; the output shape carries ceil_mode; padding never wins a "
        "max; an average divides by the window's elements inside the input, or inside the "
        "padded input with count_include_pad, a ceil_mode overhang never counting)."
    )
    return kernel


def global_avg_pool(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """The mean over the stored H and W axes, accumulated in fp32."""
    (x,) = inputs
    axes = spatial_axes(in_types[0])
    mean = np.asarray(np.mean(x, axis=axes, dtype=F32, keepdims=True))
    return [store(mean, out_types[0])]


KERNELS: dict[str, Kernel] = {
    "max_pool": _pool("max"),
    "avg_pool": _pool("avg"),
    "global_avg_pool": global_avg_pool,
}
