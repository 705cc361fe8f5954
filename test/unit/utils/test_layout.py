"""Tests for ge_dialect.utils.layout against hand-computed GE element positions."""

import numpy as np
import pytest

from ge_dialect.utils import layout as L


def _seq(shape, dtype):
    """Distinct non-zero values 1..size so every element is traceable."""
    size = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        # fp16 integers collide above 2048; use distinct finite bit patterns
        assert size < 0x7C00
        return np.arange(1, size + 1, dtype=np.uint16).view(np.float16).reshape(shape)
    if dtype.itemsize == 1:
        return (np.arange(size) % 127 + 1).astype(dtype).reshape(shape)
    return np.arange(1, size + 1).astype(dtype).reshape(shape)


# ---------------------------------------------------------------- basics


def test_default_c0_and_ceil_div():
    assert L.default_c0(1) == 32
    assert L.default_c0(2) == 16
    assert L.default_c0(4) == 16
    assert L.default_c0(8) == 16
    with pytest.raises(ValueError):
        L.default_c0(0)
    assert L.ceil_div(17, 16) == 2
    assert L.ceil_div(16, 16) == 1
    assert L.ceil_div(0, 16) == 0


# ---------------------------------------------------------------- NC1HWC0


def test_nc1hwc0_fp16_c17():
    a = _seq((1, 17, 4, 4), np.float16)
    p = L.nchw_to_nc1hwc0(a, 16)
    assert p.shape == (1, 2, 4, 4, 16)
    assert p.dtype == np.float16 and p.flags.c_contiguous
    assert p[0, 1, 1, 2, 0] == a[0, 16, 1, 2]
    assert p[0, 0, 3, 1, 5] == a[0, 5, 3, 1]
    assert np.all(p[0, 1, :, :, 1:] == 0)
    np.testing.assert_array_equal(L.nc1hwc0_to_nchw(p, 17), a)
    # default c0 through the dispatcher
    np.testing.assert_array_equal(L.to_physical(a, "NC1HWC0"), p)
    np.testing.assert_array_equal(L.to_logical(p, "NC1HWC0", (1, 17, 4, 4)), a)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_nc1hwc0_one_byte_default_c0_32(dtype):
    a = _seq((1, 3, 4, 4), dtype)
    p = L.to_physical(a, "NC1HWC0")
    assert p.shape == (1, 1, 4, 4, 32)
    assert p.dtype == dtype
    assert p[0, 0, 3, 1, 2] == a[0, 2, 3, 1]
    assert np.all(p[..., 3:] == 0)
    np.testing.assert_array_equal(L.to_logical(p, "NC1HWC0", a.shape), a)


def test_nc1hwc0_fp32_default_and_c0_8():
    a = _seq((1, 8, 4, 4), np.float32)
    p = L.to_physical(a, "NC1HWC0")
    assert p.shape == (1, 1, 4, 4, 16)
    assert np.all(p[..., 8:] == 0)

    b = _seq((1, 17, 2, 2), np.float32)
    q = L.to_physical(b, "NC1HWC0", c0=8)
    assert q.shape == (1, 3, 2, 2, 8)
    assert q[0, 1, 1, 0, 1] == b[0, 9, 1, 0]
    assert q[0, 2, 0, 1, 0] == b[0, 16, 0, 1]
    assert np.all(q[0, 2, :, :, 1:] == 0)
    np.testing.assert_array_equal(L.to_logical(q, "NC1HWC0", b.shape, c0=8), b)
    assert L.physical_dims((1, 17, 2, 2), "NC1HWC0", 8, 4) == (1, 3, 2, 2, 8)
    assert L.physical_dims((1, 17, 2, 2), "NC1HWC0", None, 4) == (1, 2, 2, 2, 16)


def test_nc1hwc0_errors():
    with pytest.raises(ValueError):
        L.nchw_to_nc1hwc0(np.zeros((2, 3, 4)), 16)
    with pytest.raises(ValueError):
        L.nc1hwc0_to_nchw(np.zeros((1, 2, 4, 4, 16)), 40)  # C1 would be 3
    with pytest.raises(ValueError):
        L.to_logical(np.zeros((1, 2, 4, 4, 16), np.float16), "NC1HWC0", (1, 17, 4, 5))
    with pytest.raises(ValueError):
        L.nc1hwc0_shape((1, 17, 4), 16)


# ---------------------------------------------------------------- NHWC


def test_nhwc():
    a = _seq((2, 3, 4, 5), np.float32)
    p = L.to_physical(a, "NHWC")
    assert p.shape == (2, 4, 5, 3) and p.flags.c_contiguous
    assert p[1, 3, 4, 2] == a[1, 2, 3, 4]
    assert p[0, 1, 2, 0] == a[0, 0, 1, 2]
    np.testing.assert_array_equal(L.to_logical(p, "NHWC", a.shape), a)
    np.testing.assert_array_equal(L.nhwc_to_nchw(L.nchw_to_nhwc(a)), a)
    assert L.nhwc_shape((2, 3, 4, 5)) == (2, 4, 5, 3)
    with pytest.raises(ValueError):
        L.to_logical(p, "NHWC", (2, 3, 4, 6))
    with pytest.raises(ValueError):
        L.nchw_to_nhwc(np.zeros((2, 3)))


# ---------------------------------------------------------------- identity


def test_identity_formats():
    a = _seq((2, 3, 4, 5), np.float16)
    for fmt in ("NCHW", "ND"):
        np.testing.assert_array_equal(L.to_physical(a, fmt), a)
        np.testing.assert_array_equal(L.to_logical(a, fmt, a.shape), a)
        assert L.physical_dims(a.shape, fmt, None, 2) == (2, 3, 4, 5)
    v = _seq((7,), np.float32)
    np.testing.assert_array_equal(L.to_physical(v, "ND"), v)
    assert L.physical_dims((7,), "ND", None, 4) == (7,)
    with pytest.raises(ValueError):
        L.to_logical(a, "ND", (2, 3, 4, 6))
    with pytest.raises(ValueError):
        L.to_physical(v, "NCHW")
    with pytest.raises(ValueError):
        L.to_physical(a, "NDHWC")


# ---------------------------------------------------------------- FRACTAL_Z


def test_fractal_z_fp16_31x17():
    w = _seq((31, 17, 4, 4), np.float16)
    fz = L.oihw_to_fractal_z(w, 16)
    assert fz.shape == (32, 2, 16, 16)
    assert fz.dtype == np.float16 and fz.flags.c_contiguous
    # W[20][16][1][2]: c1=1, c0=0, n1=1, n0=4 -> row (1*4+1)*4+2 = 22
    assert fz[22, 1, 4, 0] == w[20, 16, 1, 2]
    # W[3][5][0][0] -> row 0, n1=0, n0=3, c0=5
    assert fz[0, 0, 3, 5] == w[3, 5, 0, 0]
    # W[30][0][3][3] -> row 15, n1=1, n0=14, c0=0
    assert fz[15, 1, 14, 0] == w[30, 0, 3, 3]
    # padding: out channel 31 (n1=1, n0=15) and in channels 17..31 (c1=1, c0>=1)
    assert np.all(fz[:, 1, 15, :] == 0)
    assert np.all(fz[16:, :, :, 1:] == 0)
    assert np.count_nonzero(fz) == w.size
    np.testing.assert_array_equal(L.fractal_z_to_oihw(fz, w.shape, 16), w)
    np.testing.assert_array_equal(L.to_physical(w, "FRACTAL_Z"), fz)
    np.testing.assert_array_equal(L.to_logical(fz, "FRACTAL_Z", w.shape), w)


@pytest.mark.parametrize(
    "shape,itemsize,expected",
    [
        ((1, 1, 1, 1), 2, (1, 1, 16, 16)),
        ((1, 3, 8, 8), 2, (64, 1, 16, 16)),
        ((1, 1, 1, 1), 1, (1, 1, 16, 32)),
        ((32, 64, 3, 3), 1, (18, 2, 16, 32)),
        ((37, 45, 2, 2), 4, (12, 3, 16, 16)),
    ],
)
def test_fractal_z_ge_shapes(shape, itemsize, expected):
    assert L.physical_dims(shape, "FRACTAL_Z", None, itemsize) == expected
    assert L.fractal_z_shape(shape, L.default_c0(itemsize)) == expected


def test_fractal_z_int8_positions():
    w = _seq((32, 64, 3, 3), np.int8)
    fz = L.to_physical(w, "FRACTAL_Z")
    assert fz.shape == (18, 2, 16, 32)
    # W[17][40][2][1]: c1=1, c0=8, n1=1, n0=1 -> row (1*3+2)*3+1 = 16
    assert fz[16, 1, 1, 8] == w[17, 40, 2, 1]
    # same map with distinct values (int8 data repeats): int16 with C0=32
    w16 = _seq((32, 64, 3, 3), np.int16)
    fz16 = L.oihw_to_fractal_z(w16, 32)
    assert fz16[16, 1, 1, 8] == w16[17, 40, 2, 1]
    assert fz16[17, 1, 15, 31] == w16[31, 63, 2, 2]
    np.testing.assert_array_equal(
        fz16.astype(np.int8), L.oihw_to_fractal_z(w16.astype(np.int8), 32)
    )
    np.testing.assert_array_equal(L.to_logical(fz, "FRACTAL_Z", w.shape), w)


def test_fractal_z_depthwise_grouped():
    # N=32, C=1, 3x3, groups=32, fp16: e_mult=16, c1=1, g_dim=2, n1=1
    w = _seq((32, 1, 3, 3), np.float16)
    fz = L.oihw_to_fractal_z(w, 16, groups=32)
    assert fz.shape == (18, 1, 16, 16)
    assert L.physical_dims((32, 1, 3, 3), "FRACTAL_Z", None, 2, groups=32) == (18, 1, 16, 16)
    # group g -> row (g//16)*9 + h*3 + w, lane n0 = c0 = g % 16
    assert fz[0, 0, 0, 0] == w[0, 0, 0, 0]
    assert fz[5, 0, 5, 5] == w[5, 0, 1, 2]
    assert fz[16, 0, 1, 1] == w[17, 0, 2, 1]
    assert fz[17, 0, 15, 15] == w[31, 0, 2, 2]
    assert fz[3, 0, 15, 15] == w[15, 0, 1, 0]
    # only the diagonals are populated
    off_diag = ~np.eye(16, dtype=bool)
    assert np.all(fz[:, :, off_diag] == 0)
    assert np.count_nonzero(fz) == w.size
    np.testing.assert_array_equal(L.fractal_z_to_oihw(fz, w.shape, 16, groups=32), w)
    np.testing.assert_array_equal(L.to_logical(fz, "FRACTAL_Z", w.shape, groups=32), w)


def test_fractal_z_grouped_8():
    # N=64, C=8, 3x3, groups=8, fp16: cin=cout=8, e_mult=2, c1=1, g_dim=4, n1=1
    w = _seq((64, 8, 3, 3), np.float16)
    fz = L.to_physical(w, "FRACTAL_Z", groups=8)
    assert fz.shape == (36, 1, 16, 16)
    assert fz[0, 0, 0, 0] == w[0, 0, 0, 0]
    # g=1 (gi=0, e=1), n=2, c=3, h=1, w=1 -> row 4, n0=10, c0=11
    assert fz[4, 0, 10, 11] == w[10, 3, 1, 1]
    # g=6 (gi=3, e=0), n=7, c=5, h=2, w=0 -> row (9+2)*3 = 33, n0=7, c0=5
    assert fz[33, 0, 7, 5] == w[55, 5, 2, 0]
    # g=7 (gi=3, e=1), n=0, c=7, h=0, w=2 -> row 29, n0=8, c0=15
    assert fz[29, 0, 8, 15] == w[56, 7, 0, 2]
    # cross-group blocks are zero
    assert np.all(fz[:, 0, :8, 8:] == 0)
    assert np.all(fz[:, 0, 8:, :8] == 0)
    assert fz[4, 0, 2, 11] == 0
    assert np.count_nonzero(fz) == w.size
    np.testing.assert_array_equal(L.to_logical(fz, "FRACTAL_Z", w.shape, groups=8), w)


def test_fractal_z_grouped_multi_c1():
    # N=32, C=24, 1x1, groups=2, fp16: cin=24, cout=16 -> e_mult=2,
    # cin_opt=48, c1=3, g_dim=1, n1=2 -> (3, 2, 16, 16)
    w = _seq((32, 24, 1, 1), np.float16)
    fz = L.oihw_to_fractal_z(w, 16, groups=2)
    assert fz.shape == (3, 2, 16, 16)
    # g=1, n=3, c=5: dst_ci=29, dst_co=19 -> [1][1][3][13]
    assert fz[1, 1, 3, 13] == w[19, 5, 0, 0]
    # g=0, n=15, c=23: dst_ci=23, dst_co=15 -> [1][0][15][7]
    assert fz[1, 0, 15, 7] == w[15, 23, 0, 0]
    assert np.count_nonzero(fz) == w.size
    np.testing.assert_array_equal(L.fractal_z_to_oihw(fz, w.shape, 16, groups=2), w)


@pytest.mark.parametrize(
    "shape,groups,c0,expected",
    [
        ((20, 1, 3, 3), 20, 16, (18, 1, 16, 16)),  # g_dim=2, last tile partly used
        ((6, 3, 2, 2), 3, 16, (4, 1, 16, 16)),  # e_mult = groups = 3
        ((16, 4, 3, 3), 4, 8, (18, 1, 16, 8)),  # fp32 C0=8: e_mult=4, c1=2, g_dim=1
        ((64, 16, 1, 1), 4, 32, (2, 2, 16, 32)),  # int8: e_mult=2, c1=1, n1=2
    ],
)
def test_fractal_z_grouped_round_trips(shape, groups, c0, expected):
    w = _seq(shape, np.float32)
    fz = L.oihw_to_fractal_z(w, c0, groups)
    assert fz.shape == expected
    assert np.count_nonzero(fz) == w.size
    np.testing.assert_array_equal(L.fractal_z_to_oihw(fz, shape, c0, groups), w)


def test_fractal_z_errors():
    with pytest.raises(ValueError):
        L.fractal_z_shape((30, 1, 3, 3), 16, groups=4)  # 30 % 4 != 0
    with pytest.raises(ValueError):
        L.oihw_to_fractal_z(np.zeros((30, 1, 3, 3), np.float16), 16, groups=4)
    with pytest.raises(ValueError):
        L.oihw_to_fractal_z(np.zeros((4, 3, 3), np.float16), 16)
    with pytest.raises(ValueError):
        L.to_logical(np.zeros((32, 2, 16, 16), np.float16), "FRACTAL_Z", (31, 17, 4, 3))
    with pytest.raises(ValueError):
        L.fractal_z_to_oihw(np.zeros((18, 1, 16, 16), np.float16), (32, 1, 3, 3), 16)


# ---------------------------------------------------------------- FRACTAL_NZ


def _nz_reference(a, c0):
    """FRACTAL_NZ written independently: np.pad the matrix to whole 16 x c0 fractals, cut
    rows and columns into (M1, 16) and (N1, c0), and move N1 before M1 with moveaxis."""
    m, n = a.shape[-2:]
    pad = [(0, 0)] * (a.ndim - 2) + [(0, -m % 16), (0, -n % c0)]
    p = np.pad(a, pad)
    rows, cols = p.shape[-2:]
    blocks = p.reshape(*a.shape[:-2], rows // 16, 16, cols // c0, c0)
    return np.moveaxis(blocks, -2, -4)


def test_fractal_nz_hand_computed_positions():
    # 17x20 fp16: M1 = 2, N1 = 2, fractals 16x16; element (m, n) at [n//16, m//16, m%16, n%16]
    a = _seq((17, 20), np.float16)
    p = L.to_physical(a, "FRACTAL_NZ")
    assert p.shape == (2, 2, 16, 16) and p.dtype == np.float16 and p.flags.c_contiguous
    assert p[0, 0, 0, 0] == a[0, 0]
    assert p[1, 0, 3, 2] == a[3, 18]
    assert p[0, 1, 0, 15] == a[16, 15]
    assert p[1, 1, 0, 3] == a[16, 19]
    assert np.all(p[1, :, :, 4:] == 0)  # columns 20..31
    assert np.all(p[:, 1, 1:, :] == 0)  # rows 17..31
    assert np.count_nonzero(p) == a.size
    np.testing.assert_array_equal(L.to_logical(p, "FRACTAL_NZ", a.shape), a)


@pytest.mark.parametrize(
    "itemsize,c0,expected",
    [
        (2, None, (3, 3, 4, 16, 16)),  # fp16: 16x16 fractals
        (4, None, (3, 3, 4, 16, 16)),  # fp32: GE's default C0 is 16 too
        (4, 8, (3, 5, 4, 16, 8)),  # fp32 with c0 = 8: 16x8 fractals (32-byte rows)
        (1, None, (3, 2, 4, 16, 32)),  # 1-byte: 16x32 fractals
    ],
)
def test_fractal_nz_physical_shape_formula(itemsize, c0, expected):
    # (..., M, N) = (3, 50, 40) -> (3, ceil(40/N0), ceil(50/16), 16, N0)
    assert L.physical_dims((3, 50, 40), "FRACTAL_NZ", c0, itemsize) == expected
    n0 = c0 or L.default_c0(itemsize)
    assert expected == (3, -(-40 // n0), -(-50 // 16), 16, n0)


def test_fractal_nz_round_trip_random_shapes_and_dtypes():
    rng = np.random.default_rng(0)
    dtypes = [np.float16, np.float32, np.int8, np.uint8, np.int32]
    for _ in range(60):
        rank = int(rng.integers(2, 5))
        shape = tuple(int(d) for d in rng.integers(0, 4, rank - 2)) + tuple(
            int(d) for d in rng.integers(1, 40, 2)
        )
        dtype = np.dtype(dtypes[int(rng.integers(len(dtypes)))])
        c0 = [None, 8, 16, 32][int(rng.integers(4))]
        a = _seq(shape, dtype) if 0 not in shape else np.zeros(shape, dtype)
        n0 = c0 or L.default_c0(dtype.itemsize)
        p = L.to_physical(a, "FRACTAL_NZ", c0)
        assert p.shape == L.physical_dims(shape, "FRACTAL_NZ", c0, dtype.itemsize)
        assert p.dtype == dtype
        np.testing.assert_array_equal(p, _nz_reference(a, n0))
        # every lane beyond the logical matrix is zero: the stored non-zeros are exactly a's
        assert np.count_nonzero(p) == np.count_nonzero(a)
        back = L.to_logical(p, "FRACTAL_NZ", shape, c0)
        assert back.dtype == dtype
        np.testing.assert_array_equal(back, a)


def test_fractal_nz_padded_matrix_and_zeroing():
    a = _seq((2, 5, 9), np.float32)
    p = L.nd_to_fractal_nz(a, 8)
    full = L.fractal_nz_to_padded(p)
    assert full.shape == (2, 16, 16)
    np.testing.assert_array_equal(full[:, :5, :9], a)
    assert np.count_nonzero(full) == a.size
    np.testing.assert_array_equal(L.padded_to_fractal_nz(full, 8), p)
    dirty = np.ones_like(p)
    L.zero_fractal_nz_padding(dirty, a.shape)
    np.testing.assert_array_equal(dirty != 0, L.nd_to_fractal_nz(np.ones_like(a), 8) != 0)


def test_fractal_nz_errors():
    with pytest.raises(ValueError, match="rank >= 2"):
        L.physical_dims((7,), "FRACTAL_NZ", None, 2)
    with pytest.raises(ValueError, match="rank >= 2"):
        L.to_physical(np.zeros(7, np.float16), "FRACTAL_NZ")
    with pytest.raises(ValueError, match="expected"):
        L.to_logical(np.zeros((1, 1, 16, 16), np.float16), "FRACTAL_NZ", (17, 3))
    with pytest.raises(ValueError, match="whole number"):
        L.padded_to_fractal_nz(np.zeros((16, 12), np.float32), 8)


def test_a_rank_0_array_keeps_its_shape_in_the_default_layout():
    a = np.float32(3.5).reshape(())
    for physical in (L.to_physical(a, "ND"), L.to_logical(a, "ND", ())):
        assert physical.shape == () and physical.flags.c_contiguous and physical == a
