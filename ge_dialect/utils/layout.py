"""Physical tensor layouts used by Ascend GE, with exact numpy converters.

A tensor has a *logical* shape (what the graph computes on: NCHW for
activations, OIHW for conv weights, anything for ND) and a *physical* layout
(how the bytes sit in device memory).  This module maps between the two.

C0 is the channel block size of the cube unit.  GE's ``GetCubeSizeByDataType``
gives 32 for 1-byte dtypes and 16 for everything else (fp32 included); newer
CANN can carry another C0 (e.g. 8 for fp32) inside the format, so every
converter takes an explicit ``c0`` too.  Padding lanes are always zero.

Formats (``fmt`` strings):

``ND`` / ``NCHW``
    identity, physical == logical (NCHW requires rank 4).

``NHWC``  (N, C, H, W) -> (N, H, W, C)
    ``dst[n][h][w][c] = src[n][c][h][w]``

``NC1HWC0``  (N, C, H, W) -> (N, C1, H, W, C0),  C1 = ceil(C / C0)
    ``dst[n][c1][h][w][c0] = src[n][c1*C0 + c0][h][w]``  (0 if c1*C0 + c0 >= C)

``FRACTAL_Z``  weights (N=out, C=in per group, H, W), groups == 1:
    shape (C1*H*W, N1, 16, C0), C1 = ceil(C / C0), N1 = ceil(N / 16)
    ``FZ[(c1*H + h)*W + w][n1][n0][c0] = W[n1*16 + n0][c1*C0 + c0][h][w]``
    (0 when n >= N or c >= C).

``FRACTAL_Z`` grouped (groups > 1, GE ``TransFormatHwcnToFzWithGroups``):
    cin = C, cout = N / groups; ``e_mult`` consecutive groups are packed
    block-diagonally into one (cin_opt x cout_opt) cube tile::

        e_mult  = min(lcm(lcm(cin, C0) / cin, lcm(cout, 16) / cout), groups)
        cin_opt = ceil(e_mult*cin / C0) * C0;   c1 = cin_opt / C0
        g_dim   = ceil(groups / e_mult);        n1 = ceil(cout*e_mult / 16)
        shape   = (g_dim*c1*H*W, n1, 16, C0)

    Element (group g, c, h, w, n) with e = g % e_mult, gi = g // e_mult,
    dst_ci = e*cin + c, dst_co = e*cout + n goes to::

        FZ[((gi*c1 + dst_ci//C0)*H + h)*W + w][dst_co//16][dst_co%16][dst_ci%C0]
            = W[g*cout + n][c][h][w]

    and every other entry is 0.  With groups == 1 this reduces to the plain
    map above (e_mult = 1, g_dim = 1).

``FRACTAL_NZ``  cube matmul operands, any rank >= 2: (..., M, N) -> (..., N1, M1, M0, N0)
    M0 = 16, N0 = C0, M1 = ceil(M / M0), N1 = ceil(N / N0); leading (batch) dims stay::

        NZ[..., n1, m1, m0, n0] = A[..., m1*M0 + m0, n1*N0 + n0]   (0 when m >= M or n >= N)

    The matrix is cut into M0 x N0 fractals stored column of fractals by column of
    fractals ("big N"), each fractal row-major ("small z").  N0 is the C0 of the dtype,
    as in GE's ``TransShapeToFracNz`` (w0 = ``GetCubeSizeByDataType``, h0 = 16): 16x16
    fractals for fp16 and for fp32 by default, 16x32 for 1-byte dtypes.  A fractal row
    is then 32 bytes for fp16 and int8 but 64 bytes for fp32; the cube itself reads fp32
    fractals as 16x8 (32-byte rows), which newer CANN writes as a C0 carried by the
    format: here ``c0 = 8``, exactly as FRACTAL_Z takes an explicit C0 for its input
    channels while its other fractal edge (N0 there, M0 here) stays 16.
"""

import functools
import math
from collections.abc import Sequence

import numpy as np

N0 = 16  # FRACTAL_Z output-channel block (kCubeSize), independent of dtype
M0 = 16  # FRACTAL_NZ row block (kCubeSize), independent of dtype; its column block is C0

FORMATS = ("ND", "NCHW", "NHWC", "NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ")


# ----------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------


def default_c0(itemsize: int) -> int:
    """GE's cube size for a dtype of ``itemsize`` bytes: 32 for 1 byte, else 16."""
    if itemsize <= 0:
        raise ValueError(f"invalid dtype itemsize {itemsize}")
    return 32 if itemsize == 1 else 16


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _check_shape(shape: Sequence[int], rank: int, what: str) -> tuple[int, ...]:
    shape = tuple(int(d) for d in shape)
    if len(shape) != rank:
        raise ValueError(f"{what} expects a rank-{rank} shape, got {shape}")
    if any(d < 0 for d in shape):
        raise ValueError(f"{what}: negative dimension in {shape}")
    return shape


def _check_c0(c0: int) -> int:
    c0 = int(c0)
    if c0 <= 0:
        raise ValueError(f"C0 must be positive, got {c0}")
    return c0


def _check_array(a: np.ndarray, expected: tuple[int, ...], what: str) -> None:
    if tuple(a.shape) != tuple(expected):
        raise ValueError(
            f"{what}: physical array has shape {tuple(a.shape)}, expected {tuple(expected)}"
        )


def _group_params(shape: Sequence[int], c0: int, groups: int):
    """(N, C, H, W, cout, e_mult, c1, g_dim, n1) for a (grouped) FRACTAL_Z."""
    return _group_params_of(tuple(int(d) for d in shape), int(c0), int(groups))


@functools.lru_cache(maxsize=256)
def _group_params_of(shape: tuple[int, ...], c0: int, groups: int):
    n, c, h, w = _check_shape(shape, 4, "FRACTAL_Z")
    c0 = _check_c0(c0)
    groups = int(groups)
    if groups < 1:
        raise ValueError(f"groups must be >= 1, got {groups}")
    if n % groups != 0:
        raise ValueError(f"FRACTAL_Z: out channels N={n} not divisible by groups={groups}")
    cout = n // groups
    if groups == 1:
        e_mult = 1
    else:
        if c == 0 or cout == 0:
            raise ValueError(f"grouped FRACTAL_Z needs non-empty channels, got {shape}")
        e_mult = min(math.lcm(math.lcm(c, c0) // c, math.lcm(cout, N0) // cout), groups)
    c1 = ceil_div(e_mult * c, c0)
    g_dim = ceil_div(groups, e_mult)
    n1 = ceil_div(e_mult * cout, N0)
    return n, c, h, w, cout, e_mult, c1, g_dim, n1


def fractal_z_tiling(shape: Sequence[int], c0: int, groups: int = 1) -> tuple[int, int, int, int]:
    """(e_mult, c1, g_dim, n1) of a FRACTAL_Z weight of logical OIHW `shape`: groups packed
    per cube tile, C0 blocks of input channels per tile, tiles, 16-blocks of outputs."""
    _, _, _, _, _, e_mult, c1, g_dim, n1 = _group_params(shape, c0, groups)
    return e_mult, c1, g_dim, n1


# ----------------------------------------------------------------------------
# shapes
# ----------------------------------------------------------------------------


def nc1hwc0_shape(shape: Sequence[int], c0: int) -> tuple[int, ...]:
    """NCHW logical shape -> (N, ceil(C/c0), H, W, c0)."""
    n, c, h, w = _check_shape(shape, 4, "NC1HWC0")
    c0 = _check_c0(c0)
    return (n, ceil_div(c, c0), h, w, c0)


def fractal_z_shape(shape: Sequence[int], c0: int, groups: int = 1) -> tuple[int, ...]:
    """OIHW logical weight shape (C per group) -> FRACTAL_Z physical shape."""
    _, _, h, w, _, _, c1, g_dim, n1 = _group_params(shape, c0, groups)
    return (g_dim * c1 * h * w, n1, N0, int(c0))


def _check_matrix_shape(shape: Sequence[int], what: str) -> tuple[int, ...]:
    shape = tuple(int(d) for d in shape)
    if len(shape) < 2:
        raise ValueError(f"{what} expects a shape of rank >= 2, got {shape}")
    if any(d < 0 for d in shape):
        raise ValueError(f"{what}: negative dimension in {shape}")
    return shape


def fractal_nz_shape(shape: Sequence[int], c0: int) -> tuple[int, ...]:
    """(..., M, N) logical shape -> (..., ceil(N/c0), ceil(M/16), 16, c0)."""
    *batch, m, n = _check_matrix_shape(shape, "FRACTAL_NZ")
    c0 = _check_c0(c0)
    return (*batch, ceil_div(n, c0), ceil_div(m, M0), M0, c0)


def nhwc_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """NCHW logical shape -> (N, H, W, C)."""
    n, c, h, w = _check_shape(shape, 4, "NHWC")
    return (n, h, w, c)


# ----------------------------------------------------------------------------
# data converters
# ----------------------------------------------------------------------------


def nchw_to_nc1hwc0(a: np.ndarray, c0: int) -> np.ndarray:
    """``dst[n][c1][h][w][c0] = a[n][c1*C0 + c0][h][w]``, zero padding lanes."""
    a = np.asarray(a)
    n, c, h, w = _check_shape(a.shape, 4, "NCHW -> NC1HWC0")
    _, c1, _, _, c0 = nc1hwc0_shape(a.shape, c0)
    padded = np.zeros((n, c1 * c0, h, w), dtype=a.dtype)
    padded[:, :c] = a
    return np.ascontiguousarray(padded.reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2))


def nc1hwc0_to_nchw(a: np.ndarray, c: int) -> np.ndarray:
    """Inverse of :func:`nchw_to_nc1hwc0`; drops padding lanes (needs logical C)."""
    a = np.asarray(a)
    n, c1, h, w, c0 = _check_shape(a.shape, 5, "NC1HWC0 -> NCHW")
    c = int(c)
    if c < 0 or ceil_div(c, c0) != c1:
        raise ValueError(f"NC1HWC0 -> NCHW: C={c} inconsistent with C1={c1}, C0={c0}")
    full = a.transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)
    return np.ascontiguousarray(full[:, :c])


def nchw_to_nhwc(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    _check_shape(a.shape, 4, "NCHW -> NHWC")
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1))


def nhwc_to_nchw(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    _check_shape(a.shape, 4, "NHWC -> NCHW")
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2))


def oihw_to_fractal_z(w: np.ndarray, c0: int, groups: int = 1) -> np.ndarray:
    """OIHW weights -> FRACTAL_Z (grouped when groups > 1), zero padding.

    Builds a zeroed ``(g_dim, cin_opt, H, W, n1*16)`` staging tensor, drops
    each group's (cin x cout) block onto the diagonal slot ``e = g % e_mult``
    of tile ``g // e_mult``, then splits cin_opt into (c1, C0) and reorders to
    (g_dim, c1, H, W, n1, 16, C0).
    """
    w = np.asarray(w)
    n, c, h, wd, cout, e_mult, c1, g_dim, n1 = _group_params(w.shape, c0, groups)
    stage = np.zeros((g_dim, c1 * c0, h, wd, n1 * N0), dtype=w.dtype)
    for g in range(int(groups)):
        gi, e = divmod(g, e_mult)
        block = w[g * cout : (g + 1) * cout].transpose(1, 2, 3, 0)  # (cin, H, W, cout)
        stage[gi, e * c : (e + 1) * c, :, :, e * cout : (e + 1) * cout] = block
    out = stage.reshape(g_dim, c1, c0, h, wd, n1, N0).transpose(0, 1, 3, 4, 5, 6, 2)
    return np.ascontiguousarray(out.reshape(g_dim * c1 * h * wd, n1, N0, c0))


def fractal_z_to_oihw(a: np.ndarray, shape: Sequence[int], c0: int, groups: int = 1) -> np.ndarray:
    """Inverse of :func:`oihw_to_fractal_z`; ``shape`` is the logical OIHW shape."""
    a = np.asarray(a)
    n, c, h, wd, cout, e_mult, c1, g_dim, n1 = _group_params(shape, c0, groups)
    _check_array(a, fractal_z_shape(shape, c0, groups), "FRACTAL_Z -> OIHW")
    stage = (
        a.reshape(g_dim, c1, h, wd, n1, N0, c0)
        .transpose(0, 1, 6, 2, 3, 4, 5)
        .reshape(g_dim, c1 * c0, h, wd, n1 * N0)
    )
    out = np.empty((n, c, h, wd), dtype=a.dtype)
    for g in range(int(groups)):
        gi, e = divmod(g, e_mult)
        block = stage[gi, e * c : (e + 1) * c, :, :, e * cout : (e + 1) * cout]
        out[g * cout : (g + 1) * cout] = block.transpose(3, 0, 1, 2)
    return out


def fractal_nz_to_padded(a: np.ndarray) -> np.ndarray:
    """FRACTAL_NZ array (..., N1, M1, M0, N0) -> the zero padded matrix (..., M1*M0, N1*N0)
    its fractals tile, padding lanes included (what the cube multiplies)."""
    a = np.asarray(a)
    if a.ndim < 4:
        raise ValueError(f"FRACTAL_NZ array must have rank >= 4, got shape {tuple(a.shape)}")
    *batch, n1, m1, m0, n0 = a.shape
    k = len(batch)
    full = a.transpose(*range(k), k + 1, k + 2, k, k + 3)
    return np.ascontiguousarray(full.reshape(*batch, m1 * m0, n1 * n0))


def padded_to_fractal_nz(p: np.ndarray, c0: int) -> np.ndarray:
    """A padded matrix (..., M1*16, N1*C0) -> its FRACTAL_NZ fractals (..., N1, M1, 16, C0):
    the inverse of :func:`fractal_nz_to_padded`."""
    p = np.asarray(p)
    c0 = _check_c0(c0)
    *batch, rows, cols = _check_matrix_shape(p.shape, "padded -> FRACTAL_NZ")
    if rows % M0 or cols % c0:
        raise ValueError(
            f"padded -> FRACTAL_NZ: matrix {rows}x{cols} is not a whole number of "
            f"{M0}x{c0} fractals"
        )
    k = len(batch)
    out = p.reshape(*batch, rows // M0, M0, cols // c0, c0)
    return np.ascontiguousarray(out.transpose(*range(k), k + 2, k, k + 1, k + 3))


def nd_to_fractal_nz(a: np.ndarray, c0: int) -> np.ndarray:
    """``dst[..., n1, m1, m0, n0] = a[..., m1*16 + m0, n1*C0 + n0]``, zero padding.

    Pads M to M1*16 and N to N1*C0, splits them into (M1, 16) and (N1, C0) and moves N1
    in front of M1."""
    a = np.asarray(a)
    *batch, n1, m1, m0, c0 = fractal_nz_shape(a.shape, c0)
    m, n = a.shape[-2:]
    padded = np.zeros((*batch, m1 * m0, n1 * c0), dtype=a.dtype)
    padded[..., :m, :n] = a
    return padded_to_fractal_nz(padded, c0)


def fractal_nz_to_nd(a: np.ndarray, shape: Sequence[int], c0: int) -> np.ndarray:
    """Inverse of :func:`nd_to_fractal_nz`; ``shape`` is the logical (..., M, N) shape."""
    a = np.asarray(a)
    _check_array(a, fractal_nz_shape(shape, c0), "FRACTAL_NZ -> ND")
    m, n = (int(d) for d in tuple(shape)[-2:])
    return np.ascontiguousarray(fractal_nz_to_padded(a)[..., :m, :n])


def zero_fractal_nz_padding(a: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Writes zero, in place, into the lanes of a FRACTAL_NZ array of logical ``shape``
    that hold no element (rows m >= M of the last row of fractals, columns n >= N of the
    last column of fractals); returns ``a``."""
    m, n = (int(d) for d in tuple(shape)[-2:])
    c0 = a.shape[-1]
    if m % M0:
        a[..., -1, m % M0 :, :] = 0
    if n % c0:
        a[..., -1, :, :, n % c0 :] = 0
    return a


# ----------------------------------------------------------------------------
# dispatch
# ----------------------------------------------------------------------------


def _norm_fmt(fmt: str) -> str:
    f = str(fmt).upper()
    if f not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    return f


def physical_dims(
    shape: Sequence[int], fmt: str, c0: int | None, itemsize: int, groups: int = 1
) -> tuple[int, ...]:
    """Physical shape of a tensor with logical ``shape`` stored in ``fmt``.

    ``c0=None`` means ``default_c0(itemsize)``; ``groups`` only affects FRACTAL_Z.
    """
    f = _norm_fmt(fmt)
    if c0 is None:
        c0 = default_c0(itemsize)
    if f == "ND":
        return tuple(int(d) for d in shape)
    if f == "NCHW":
        return _check_shape(shape, 4, "NCHW")
    if f == "NHWC":
        return nhwc_shape(shape)
    if f == "NC1HWC0":
        return nc1hwc0_shape(shape, c0)
    if f == "FRACTAL_NZ":
        return fractal_nz_shape(shape, c0)
    return fractal_z_shape(shape, c0, groups)


def _contiguous(a: np.ndarray) -> np.ndarray:
    """`a` C-contiguous, of its own shape (numpy's `ascontiguousarray` makes a rank-0 array
    rank 1)."""
    return np.ascontiguousarray(a).reshape(a.shape)


def to_physical(a: np.ndarray, fmt: str, c0: int | None = None, groups: int = 1) -> np.ndarray:
    """Logical array (NCHW / OIHW / ND) -> its physical layout in ``fmt``."""
    a = np.asarray(a)
    f = _norm_fmt(fmt)
    if c0 is None:
        c0 = default_c0(a.dtype.itemsize)
    if f == "ND":
        return _contiguous(a)
    if f == "NCHW":
        _check_shape(a.shape, 4, "NCHW")
        return np.ascontiguousarray(a)
    if f == "NHWC":
        return nchw_to_nhwc(a)
    if f == "NC1HWC0":
        return nchw_to_nc1hwc0(a, c0)
    if f == "FRACTAL_NZ":
        return nd_to_fractal_nz(a, c0)
    return oihw_to_fractal_z(a, c0, groups)


def to_logical(
    a: np.ndarray, fmt: str, shape: Sequence[int], c0: int | None = None, groups: int = 1
) -> np.ndarray:
    """Physical array in ``fmt`` -> logical array of shape ``shape``.

    Raises ValueError if ``a.shape`` is not the physical shape of ``shape``.
    """
    a = np.asarray(a)
    f = _norm_fmt(fmt)
    if c0 is None:
        c0 = default_c0(a.dtype.itemsize)
    expected = physical_dims(shape, f, c0, a.dtype.itemsize, groups)
    _check_array(a, expected, f"{f} -> logical")
    if f in ("ND", "NCHW"):
        return _contiguous(a)
    if f == "NHWC":
        return nhwc_to_nchw(a)
    if f == "NC1HWC0":
        return nc1hwc0_to_nchw(a, int(shape[1]))
    if f == "FRACTAL_NZ":
        return fractal_nz_to_nd(a, shape, c0)
    return fractal_z_to_oihw(a, shape, c0, groups)
