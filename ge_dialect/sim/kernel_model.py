"""How long one kernel's blocks take on the simulated NPU, from the hardware it models.

`kernel_time(task, profile)` splits a launch into blocks and gives each block its time on
its unit (`compute`, seconds, on-chip work only) and the bytes it moves to and from HBM
(`hbm_bytes`); the time model (`sim.timing`) places blocks on cores and turns bytes into
time with the bandwidth share the block gets.  Every constant is a field of the device
profile (`sim.profile`, whose `sources` say where each comes from); nothing here depends on
the op type beyond the shape of its work.

**Cube kernels** (conv2d, fused_conv2d, matmul) are GEMMs on 16x16x16 fractals:
`M = N*Ho*Wo` (or matmul's rows), `K = C_in*KH*KW` and `N = C_out`, each padded to the
fractal (the input channels to C0 first, per group tile of a grouped FRACTAL_Z, so a 7x7 stem
on 3 channels pays for 16).  Each core computes output tiles of `mt x nt` that fit twice
(double-buffered) in L0C as fp32 accumulators, K streamed in steps of `kt` that fit twice in
L0A/L0B.  A kernel launches one block per core (at most one per tile), each block running
`ceil(tiles / blocks)` tiles (the slowest block ends the kernel: the tail of the last
"wave" of tiles).  Per tile:

- cube cycles `(mt/16) (nt/16) (K/16)`, scaled by the dtype's MACs per cycle;
- L1 -> L0 traffic (MTE1): the A tile `mt x K` (for a conv, the im2col expansion the load3d
  makes, every input element KH*KW times) and the B tile `K x nt`, at the profile's MTE1
  bytes per cycle; the cube and MTE1 overlap (double buffering), so the tile takes the
  larger, plus a sync cost per K step;
- the epilogue on the vector unit: every accumulator converted (and bias, residual,
  activation applied) at the vector width for fp32;
- HBM traffic (MTE2, the part the time model turns into time with the block's bandwidth
  share): the input region of the tile (for a conv, the input rows and columns its output
  pixels' windows touch, halo included, gaps of a strided 1x1 skipped; for a matmul the
  `mt x K` rows), the weights of the tile's column
  once per block when they fit in half of L1 (else once per tile), the output (and the
  residual) once.

**Vector kernels** (elementwise, normalisation, pooling, data movement, copies) stream
their bytes through the unified buffer in chunks that fit twice in UB: `ops` vector
operations per output element at the lanes of the compute dtype (128 fp16 / 64 fp32 on a
2048-bit unit), plus a per-chunk sync; one block per chunk up to one per core.

**Collectives** (one device) take the link's latency plus their bytes over the link; in a
multi-rank run (`sim.timing.rank_kernel_times`) HCCL's cost over the topology replaces it.

Every block also pays `block_overhead` and the first HBM access `memory_latency`; every
launch pays `launch_overhead` once (the time model adds it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ge_dialect.sim.kernels.base import Operand
from ge_dialect.sim.profile import DeviceProfile
from ge_dialect.sim.program import Task
from ge_dialect.utils import dtypes, layout
from ge_dialect.utils.task_order import COPY, LAUNCH

CUBE_KERNELS = ("conv2d", "fused_conv2d", "matmul")
COMM_KERNELS = ("hcom_all_reduce", "hcom_all_gather")


@dataclass(frozen=True)
class KernelTime:
    """A launch's blocks: `blocks` of `compute` seconds on `unit` cores each, each moving
    `hbm_bytes` to or from HBM.  `tiles` is the number of work pieces the blocks share
    (output tiles of a cube kernel, UB chunks of a vector one) and `flops` the work the
    kernel does as the cost module counts it (for the report's rooflines).

    When the pieces do not divide evenly, `short` of the blocks run one piece fewer, in
    `short_compute` seconds moving `short_bytes` (the tail of the last round of pieces: 36
    tiles on 32 blocks leave 28 blocks with one tile and their cores free halfway)."""

    unit: str
    blocks: int
    compute: float
    hbm_bytes: float
    tiles: int = 1
    flops: int = 0
    short: int = 0
    short_compute: float = 0.0
    short_bytes: float = 0.0


def _ceil_to(x: int, m: int) -> int:
    return -(-x // m) * m


def _floor_to(x: float, m: int) -> int:
    return max(m, int(x) // m * m)


def _vector_lanes(profile: DeviceProfile, itemsize: int) -> int:
    return max(1, profile.vector_bytes_per_cycle // max(1, itemsize))


# --------------------------------------------------------------------------------------
# cube
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gemm:
    """A cube kernel as GEMMs: `batch` independent `m x k x n` products (k, n padded to the
    fractal), `a_row_bytes` HBM bytes read per output row (one output pixel of a conv),
    `epilogue_ops` vector operations per accumulator."""

    batch: int
    m: int
    k: int
    n: int
    in_itemsize: int
    out_itemsize: int
    a_row_bytes: float
    dtype: str
    epilogue_ops: int
    residual: bool = False


def _touched(outputs: float, stride: int, window: int) -> float:
    """Input rows (or columns) read per output row of a tile of `outputs` rows: the
    windows overlap (`window >= stride`: the tile's span and its halo), or they skip the
    rows between them (a strided 1x1 reads only the rows it uses)."""
    if window >= stride:
        return ((outputs - 1) * stride + window) / outputs
    return float(window)


def _conv_gemm(task: Task, profile: DeviceProfile) -> Gemm:
    x, w = task.in_types[0], task.in_types[1]
    y = task.out_types[0]
    attrs = task.attrs
    groups = int(attrs.get("groups", 1))
    sh, sw = (list(attrs.get("strides", [1, 1])) + [1, 1])[:2]
    dh, dw = (list(attrs.get("dilations", [1, 1])) + [1, 1])[:2]
    n, c_out, ho, wo = y.shape
    _, cin, kh, kw = w.shape
    f = profile.fractal
    c0 = x.c0 if x.fmt == "NC1HWC0" else layout.default_c0(x.dtype.itemsize)
    e_mult, c1, g_dim, n1 = layout.fractal_z_tiling(w.shape, c0, groups)
    k = c1 * c0 * kh * kw  # the input channels of a group tile, padded to C0, times taps
    kh_eff, kw_eff = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    m = n * ho * wo
    # HBM bytes of input per output pixel: its stride's share of the input, the window's
    # halo over the tile's rows (estimated for one output row per 16 pixels or more)
    rows = max(1.0, min(float(ho), f * 16 / max(wo, 1)))
    a_row = c1 * c0 * x.dtype.itemsize * _touched(rows, sh, kh_eff) * _touched(wo, sw, kw_eff)
    has_bias = bool(attrs.get("has_bias", len(task.in_types) > 2))
    residual = bool(attrs.get("has_residual", False))
    activation = str(attrs.get("activation", "none"))
    ops = 1 + has_bias + residual + (activation != "none") * (4 if activation == "sigmoid" else 1)
    return Gemm(
        g_dim,
        m,
        _ceil_to(k, f),
        n1 * layout.N0,
        x.dtype.itemsize,
        y.dtype.itemsize,
        a_row,
        dtypes.name_of(x.dtype),
        ops,
        residual,
    )


def _matmul_gemm(task: Task, profile: DeviceProfile) -> Gemm:
    a = task.in_types[0]
    y = task.out_types[0]
    f = profile.fractal
    ta = bool(task.attrs.get("transpose_a", False))
    k = a.shape[-2] if ta else a.shape[-1]
    m, n = y.shape[-2], y.shape[-1]
    batch = math.prod(y.shape[:-2])
    ops = 1 + bool(task.attrs.get("has_bias", False))
    itemsize = a.dtype.itemsize
    return Gemm(
        batch,
        _ceil_to(m, f),
        _ceil_to(k, f),
        _ceil_to(n, f),
        itemsize,
        y.dtype.itemsize,
        _ceil_to(k, f) * itemsize,
        dtypes.name_of(a.dtype),
        ops,
    )


def cube_time(g: Gemm, profile: DeviceProfile, flops: int) -> KernelTime:
    f = profile.fractal
    acc = 4  # fp32 accumulators in L0C
    # the largest tiles that fit twice in L0C, split evenly (no column or row of padding
    # beyond the fractal's)
    nt_max = _floor_to(math.sqrt(profile.l0c_bytes / (2 * acc)), f)
    nt = _ceil_to(-(-g.n // -(-g.n // nt_max)), f)
    mt_max = _floor_to(profile.l0c_bytes / (2 * acc * nt), f)
    m = _ceil_to(g.m, f)
    mt = _ceil_to(-(-m // -(-m // mt_max)), f)
    kt = _floor_to(
        min(
            profile.l0a_bytes / (2 * mt * g.in_itemsize),
            profile.l0b_bytes / (2 * nt * g.in_itemsize),
        ),
        f,
    )
    kt = min(kt, g.k)
    tiles_m, tiles_n = -(-m // mt), -(-g.n // nt)
    tiles = g.batch * tiles_m * tiles_n
    blocks = min(tiles, profile.cube_cores)
    per_block = -(-tiles // blocks)
    macs = profile.cube_macs(g.dtype)
    cube = (mt // f) * (nt // f) * (g.k // f) * (f**3 / macs)
    mte1 = (mt * g.k + g.k * nt) * g.in_itemsize / profile.mte1_bytes_per_cycle
    steps = -(-g.k // kt)
    epilogue = mt * nt * g.epilogue_ops / _vector_lanes(profile, acc)
    tile_cycles = max(cube, mte1) + steps * profile.kstep_cycles + epilogue
    # HBM: the input rows of each tile, the weight column (once per block when it fits in
    # half of L1), the output (and the residual) once
    b_tile = g.k * nt * g.in_itemsize
    out = mt * nt * g.out_itemsize * (2 if g.residual else 1)

    def block(pieces: int) -> tuple[float, float]:
        """(compute seconds, HBM bytes) of a block running `pieces` tiles."""
        b_loads = (
            pieces if b_tile > profile.l1_bytes / 2 else min(pieces, 1 + pieces // max(1, tiles_m))
        )
        hbm = pieces * (mt * g.a_row_bytes + out) + b_loads * b_tile
        return pieces * tile_cycles / profile.clock_hz, hbm

    compute, hbm = block(per_block)
    short = blocks * per_block - tiles
    short_compute, short_bytes = block(per_block - 1) if short else (0.0, 0.0)
    return KernelTime("cube", blocks, compute, hbm, tiles, flops, short, short_compute, short_bytes)


# --------------------------------------------------------------------------------------
# vector and comm
# --------------------------------------------------------------------------------------


def _elements(t: Operand) -> int:
    return math.prod(t.physical_shape)


def vector_time(task: Task, profile: DeviceProfile) -> KernelTime:
    outs = task.out_types or task.in_types
    itemsize = max((t.dtype.itemsize for t in (*task.in_types, *outs)), default=4)
    compute_itemsize = 4 if itemsize >= 2 and task.kernel not in _MOVES else itemsize
    elements = max(1, sum(_elements(t) for t in outs))
    bytes_moved = task.cost.bytes_in + task.cost.bytes_out
    if task.kind == COPY:
        buffer_bytes = elements * itemsize
        bytes_moved = 2 * buffer_bytes
    ops = max(1.0, task.cost.flops / elements)
    # chunks that fit twice (double buffering) in UB, in and out together
    chunk = max(1, profile.ub_bytes // 2)
    chunks = max(1, -(-bytes_moved // chunk))
    blocks = min(chunks, profile.vector_cores)
    per_block = -(-chunks // blocks)
    lanes = _vector_lanes(profile, compute_itemsize)
    cycles = elements * ops / lanes / chunks + profile.chunk_cycles
    short = blocks * per_block - chunks
    return KernelTime(
        "vector",
        blocks,
        per_block * cycles / profile.clock_hz,
        per_block * bytes_moved / chunks,
        chunks,
        task.cost.flops,
        short,
        (per_block - 1) * cycles / profile.clock_hz if short else 0.0,
        (per_block - 1) * bytes_moved / chunks if short else 0.0,
    )


_MOVES = ("trans_data", "concat", "reshape", "flatten", "transpose", "identity", "copy", "max_pool")


def comm_time(task: Task, profile: DeviceProfile) -> KernelTime:
    size = task.cost.bytes_in
    seconds = profile.link_latency + size / profile.link_bandwidth
    return KernelTime("comm", 1, seconds, 0.0, 1, task.cost.flops)


def kernel_time(task: Task, profile: DeviceProfile) -> KernelTime:
    """The blocks of a launch or copy `task` on `profile` (see the module docstring)."""
    if task.kernel in CUBE_KERNELS and task.kind == LAUNCH:
        g = _conv_gemm(task, profile) if task.kernel != "matmul" else _matmul_gemm(task, profile)
        return cube_time(g, profile, task.cost.flops)
    if task.kernel in COMM_KERNELS:
        return comm_time(task, profile)
    return vector_time(task, profile)
