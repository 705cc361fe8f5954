"""How long one kernel's blocks take on the simulated NPU, from the hardware it models.

`kernel_time(task, profile)` splits a launch into blocks and gives each block its time on
its unit (`compute`, seconds, on-chip work only) and the bytes it moves to and from HBM
(`hbm_bytes`); the time model (`sim.timing`) places blocks on cores and turns bytes into
time with the bandwidth share the block gets.  Every constant is a field of the device
profile (`sim.profile`, whose `sources` say where each comes from); nothing here depends on
the op type beyond the shape of its work.

**Cube kernels** (conv2d, fused_conv2d, matmul, and grouped_matmul as a matmul batched over
its groups) are GEMMs on 16x16x16 fractals:
`M = N*Ho*Wo` (or matmul's rows), `K = C_in*KH*KW` and `N = C_out`, each padded to the
fractal (the input channels to C0 first, per group tile of a grouped FRACTAL_Z, so a 7x7 stem
on 3 channels pays for 16; a matmul's M = 1, a decode GEMV, pays for 16 rows: the cube is
1/16 used and the kernel is bound by reading B).  Each core computes output tiles of
`mt x nt` that fit twice (double-buffered) in L0C as fp32 accumulators (at most 176 x 176
on 256 KiB), K streamed in steps of `kt` that fit twice in L0A/L0B and accumulated in L0C.
A kernel launches one block per core (at most one per tile), each block running
`ceil(tiles / blocks)` tiles (the slowest block ends the kernel: the tail of the last
"wave" of tiles, a whole extra tile's time for a tile count one over a multiple of the
cores).  A conv keeps the largest tiles, split evenly; a matmul's tiler balances them over
the cores (`_balanced_split`): among the even splits of M and N no coarser than those and
needing no more waves, the one with the shortest estimate (slowest block, HBM traffic), so
a GEMV's N is spread over all the cores and a nearly empty last wave is evened out with
smaller tiles.  Per tile:

- cube cycles `(mt/16) (nt/16) (K/16)`, scaled by the dtype's MACs per cycle;
- L1 -> L0 traffic (MTE1): the A tile `mt x K` and the B tile `K x nt`.  A conv's A goes
  through load3d, the im2col expansion (every input element KH*KW times), at the profile's
  calibrated MTE1 bytes per cycle; a matmul's operands are already fractals in L1 and
  load2d copies them at one fractal (16 x 16 fp16, 512 bytes) per cycle, the rate at which
  the cube consumes a fractal (a modelling assumption; no public figure);  the cube and MTE1
  overlap (double buffering), so the tile takes the larger, plus a sync per K step;
- the epilogue on the vector unit: every accumulator converted (and bias, residual,
  activation applied) at the vector width for fp32.

HBM traffic (MTE2, the part the time model turns into time with the block's bandwidth
share, at most a core's bandwidth, the sustained bandwidth shared):

- a conv: the input region of the tile (the input rows and columns its output pixels'
  windows touch, halo included, gaps of a strided 1x1 skipped), the weights of the tile's
  column once per block when they fit in half of L1 (else once per tile), the output (and
  the residual) once;
- a matmul: the blocks of a wave (up to 32) work on a rectangle of `rm x rn` tiles and
  share its A rows and B columns through L2 (they stream K in step), so HBM sees A once
  per band of `rn` N-tile columns and B once per band of `rm` M-tile rows; an operand that
  fits in half of L2 (16 MiB) is read once; the rectangle is the one moving the fewest
  bytes (the tiling order a real kernel picks: 4 x 8 for a square GEMM).  The output is
  written once.  Each block's share is the kernel's traffic over its tiles.  A block also
  loads every tile's A and B bands into L1 (from L2) at a core's global-memory bandwidth,
  walking its tiles along N with its A band kept in L1 when that fits in half of L1, or
  along M keeping its B band, whichever loads less; the block takes at least that long.
  An operand stored ND is converted to fractals on that load (ND2NZ, in MTE2): it moves
  one row segment per transfer (A's rows of K elements, or of `mt` when transposed; B's
  of `nt`, or K when transposed; padded to the fractal), and a transfer shorter than the
  profile's burst costs a whole burst's time, so that operand's loads take
  `burst / segment bytes` times as long (a 64-wide fp16 row: 4 times).  A FRACTAL_NZ
  operand loads whole fractals (512 bytes and more) at full speed.
  Without the L2 sharing, a 4096^3 fp16 GEMM would move 1.6 GB through HBM (2.9 MB per
  176 x 176 tile) and run at 16% of peak; with it, 0.34 GB and 79%.

**Vector kernels** (elementwise, normalisation, pooling, data movement, copies) stream
their bytes through the unified buffer in chunks that fit twice in UB: `ops` vector
operations per output element at the lanes of the compute dtype (128 fp16 / 64 fp32 on a
2048-bit unit), plus a per-chunk sync; one block per chunk up to one per core.

**Flash attention** runs on the cube and the vector unit of a core together: per tile of
query rows, the two GEMMs on the cube overlap the online softmax on the vector unit, and
the scores never reach HBM (`attention_time`).

**Collectives** (one device) take the link's latency plus their bytes over the link; in a
multi-rank run (`sim.timing.rank_kernel_times`) HCCL's cost over the topology replaces it.

Every block also pays `block_overhead` and the first HBM access `memory_latency`; every
launch pays `launch_overhead` once (the time model adds it).

**TorchAir's `limit_core_num`**: a launch carrying `_op_aicore_num` / `_op_vectorcore_num`
is tiled as on a device of that many cube (vector) cores (`limited_profile`), so its
blocks, one per core, hold at most that many cores at a time and it takes the time the
model gives on so many cores; two streams limited to half the cores each run side by side
without contending for cores (they still share HBM).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

from ge_dialect.sim.kernels.base import Operand
from ge_dialect.sim.profile import DeviceProfile
from ge_dialect.sim.program import Task
from ge_dialect.utils import dtypes, layout
from ge_dialect.utils.scope_attrs import core_limits
from ge_dialect.utils.task_order import COPY, LAUNCH

CUBE_KERNELS = ("conv2d", "fused_conv2d", "matmul", "grouped_matmul")
COMM_KERNELS = (
    "hcom_all_reduce",
    "hcom_all_gather",
    "hcom_reduce_scatter",
    "hcom_all_to_all",
    "hcom_broadcast",
    "hcom_send",
    "hcom_receive",
)
_ACC = 4  # bytes of an L0C accumulator (fp32)


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
    matmul: bool = False  # a matmul: load2d, L2-shared bands
    # a matmul operand stored ND: the dim its stored rows run along, "k" or "tile" (A
    # transposed: M, B not transposed: N); "" when FRACTAL_NZ
    a_rows: str = ""
    b_rows: str = ""


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
    b = task.in_types[1]
    tb = bool(task.attrs.get("transpose_b", False))
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
        matmul=True,
        a_rows="" if a.fmt == "FRACTAL_NZ" else "tile" if ta else "k",
        b_rows="" if b.fmt == "FRACTAL_NZ" else "k" if tb else "tile",
    )


@functools.lru_cache(maxsize=4096)
def _balanced_split(g: Gemm, profile: DeviceProfile, mt: int, nt: int) -> tuple[int, int]:
    """The matmul tiles a real tiler would pick, no larger than `mt x nt` (the largest
    that fit twice in L0C): among the even splits of M and N into fractal multiples that
    need no more waves than `mt x nt` (`ceil(tiles / cores)`, at least one), the one with
    the shortest estimate: the longer of its slowest block and its HBM traffic
    (`_operand_reads`) at the sustained bandwidth.  A block runs `ceil(tiles / cores)`
    tiles, each taking per K fractal the larger of its cube cycles `(mt/16)(nt/16)` and
    its loads into L1, `mt + nt` rows of 32 bytes at a core's global-memory bytes per
    cycle (MTE2: smaller tiles reload A and B more often).  So a matmul with fewer tiles
    than cores splits them further (a GEMV's N over all the cores) and a last wave that
    would be partly empty is evened out when that is not dearer in HBM traffic.  Ties (an
    HBM-bound kernel) go to the shortest block, then to fewer tiles."""
    f = profile.fractal
    m = _ceil_to(g.m, f)
    cores = profile.cube_cores
    per_cycle = profile.core_bandwidth / profile.clock_hz
    hbm_per_cycle = profile.sustained_bandwidth / profile.clock_hz
    first_m, first_n = -(-m // mt), -(-g.n // nt)
    waves = -(-g.batch * first_m * first_n // cores)
    best: tuple[float, float, int, int, int] | None = None
    for count_m in range(first_m, min(m // f, first_m + cores) + 1):
        for count_n in range(first_n, min(g.n // f, first_n + cores) + 1):
            tm, tn = _ceil_to(-(-m // count_m), f), _ceil_to(-(-g.n // count_n), f)
            tiles = g.batch * -(-m // tm) * -(-g.n // tn)
            if tiles > waves * cores:
                break
            tile = max(tm * tn / f**2, (tm + tn) * f * g.in_itemsize / per_cycle) * g.k / f
            grid = (-(-m // tm), -(-g.n // tn))
            ra, rb = _operand_reads(g, profile, *grid, min(tiles, cores))
            hbm = g.batch * (ra * m + rb * g.n) * g.k * g.in_itemsize / hbm_per_cycle
            block = -(-tiles // cores) * tile
            key = (max(block, hbm), block, tiles, tm, tn)
            if best is None or key < best:
                best = key
    return (best[3], best[4]) if best is not None else (mt, nt)


def _tile_shape(g: Gemm, profile: DeviceProfile) -> tuple[int, int, int]:
    """The output tile `mt x nt` and the K step `kt`: the largest tiles that fit twice in
    L0C (fp32 accumulators), split evenly (no padding beyond the fractal's); a matmul has
    its tiles balanced over the cores (`_balanced_split`: a GEMV's N over all the cores).
    `kt` fits twice in L0A and L0B."""
    f = profile.fractal
    nt_max = _floor_to(math.sqrt(profile.l0c_bytes / (2 * _ACC)), f)
    nt = _ceil_to(-(-g.n // -(-g.n // nt_max)), f)
    mt_max = _floor_to(profile.l0c_bytes / (2 * _ACC * nt), f)
    m = _ceil_to(g.m, f)
    mt = _ceil_to(-(-m // -(-m // mt_max)), f)
    if g.matmul:
        mt, nt = _balanced_split(g, profile, mt, nt)
    kt = _floor_to(
        min(
            profile.l0a_bytes / (2 * mt * g.in_itemsize),
            profile.l0b_bytes / (2 * nt * g.in_itemsize),
        ),
        f,
    )
    return mt, nt, min(kt, g.k)


def _tile_cycles(g: Gemm, profile: DeviceProfile, mt: int, nt: int, kt: int) -> float:
    """Cycles of one output tile on a core: the cube or the L1 -> L0 loads (MTE1, they
    overlap), a sync per K step, the vector epilogue."""
    f = profile.fractal
    cube = (mt // f) * (nt // f) * (g.k // f) * (f**3 / profile.cube_macs(g.dtype))
    # load2d moves whole fractals, one per cycle; load3d (a conv's im2col) is slower
    mte1_rate = f * f * 2 if g.matmul else profile.mte1_bytes_per_cycle
    mte1 = (mt * g.k + g.k * nt) * g.in_itemsize / mte1_rate
    steps = -(-g.k // kt)
    epilogue = mt * nt * g.epilogue_ops / _vector_lanes(profile, _ACC)
    return max(cube, mte1) + steps * profile.kstep_cycles + epilogue


def _operand_reads(
    g: Gemm, profile: DeviceProfile, tiles_m: int, tiles_n: int, blocks: int
) -> tuple[int, int]:
    """How many times a matmul reads A and B from HBM.  The blocks of a wave work on a
    rectangle of `rm x rn` tiles and share their operand bands through L2 (the cores
    stream K in step), so the kernel reads A once per band of `rn` N-tile columns and B
    once per band of `rm` M-tile rows; an operand that fits in half of L2 is read once.
    The rectangle (`rm` a power of two, or all the M tiles) is the one that moves the
    fewest bytes."""
    a_bytes, b_bytes = g.m * g.k, g.k * g.n
    a_fits = a_bytes * g.in_itemsize <= profile.l2_bytes / 2
    b_fits = b_bytes * g.in_itemsize <= profile.l2_bytes / 2
    best: tuple[int, int, int] | None = None
    rows = sorted({min(tiles_m, blocks, 1 << i) for i in range(blocks.bit_length())})
    for rm in rows:
        rn = max(1, min(tiles_n, blocks // rm))
        ra = 1 if a_fits else -(-tiles_n // rn)
        rb = 1 if b_fits else -(-tiles_m // rm)
        cost = ra * a_bytes + rb * b_bytes
        if best is None or cost < best[0]:
            best = (cost, ra, rb)
    assert best is not None
    return best[1], best[2]


def _core_loads(
    profile: DeviceProfile,
    pieces: int,
    bands: tuple[int, int],
    grid: tuple[int, int],
    slowdown: tuple[float, float] = (1.0, 1.0),
) -> float:
    """Bytes a matmul block of `pieces` tiles loads into L1 (MTE2, from L2 or HBM): it walks
    its tiles along N keeping its A band in L1 (when the band fits in half of L1), or
    along M keeping its B band, whichever loads less.  Each band's bytes count `slowdown`
    times (an ND operand's ND2NZ load, `_nd2nz_slowdown`)."""
    (a_band, b_band), (tiles_m, tiles_n) = bands, grid
    a_cost, b_cost = a_band * slowdown[0], b_band * slowdown[1]
    half = profile.l1_bytes / 2
    along_n = pieces * b_cost + (-(-pieces // tiles_n) if a_band <= half else pieces) * a_cost
    along_m = pieces * a_cost + (-(-pieces // tiles_m) if b_band <= half else pieces) * b_cost
    return min(along_n, along_m)


def _nd2nz_slowdown(rows: str, g: Gemm, tile: int, profile: DeviceProfile) -> float:
    """How many times longer an operand's L1 loads take than whole fractals': 1 for a
    FRACTAL_NZ operand (`rows` ""), else `burst / segment` when its ND2NZ row segments
    (along K, or along the tile's `tile` elements; padded to the fractal) are shorter than
    the burst."""
    if not rows:
        return 1.0
    segment = (g.k if rows == "k" else tile) * g.in_itemsize
    return max(1.0, profile.burst_bytes / segment)


def cube_time(g: Gemm, profile: DeviceProfile, flops: int) -> KernelTime:
    """The blocks of a cube kernel (see the module docstring)."""
    mt, nt, kt = _tile_shape(g, profile)
    tiles_m, tiles_n = -(-_ceil_to(g.m, profile.fractal) // mt), -(-g.n // nt)
    tiles = g.batch * tiles_m * tiles_n
    blocks = min(tiles, profile.cube_cores)
    per_block = -(-tiles // blocks)
    tile_cycles = _tile_cycles(g, profile, mt, nt, kt)
    b_tile = g.k * nt * g.in_itemsize
    out = mt * nt * g.out_itemsize * (2 if g.residual else 1)
    if g.matmul:
        ra, rb = _operand_reads(g, profile, tiles_m, tiles_n, min(blocks, tiles_m * tiles_n))
        per_tile = (ra * g.m * g.k * g.in_itemsize + rb * g.k * g.n * g.in_itemsize) / (
            tiles_m * tiles_n
        ) + out
        bands = (mt * g.k * g.in_itemsize, b_tile)
        slowdown = (
            _nd2nz_slowdown(g.a_rows, g, mt, profile),
            _nd2nz_slowdown(g.b_rows, g, nt, profile),
        )
        core_bytes_per_cycle = profile.core_bandwidth / profile.clock_hz

    def block(pieces: int) -> tuple[float, float]:
        """(compute seconds, HBM bytes) of a block running `pieces` tiles."""
        cycles = pieces * tile_cycles
        if g.matmul:
            loads = _core_loads(profile, pieces, bands, (tiles_m, tiles_n), slowdown)
            cycles = max(cycles, loads / core_bytes_per_cycle)
            return cycles / profile.clock_hz, pieces * per_tile
        # a conv: the input rows of each tile, the weight column (once per block when it
        # fits in half of L1), the output (and the residual) once
        b_loads = (
            pieces if b_tile > profile.l1_bytes / 2 else min(pieces, 1 + pieces // max(1, tiles_m))
        )
        hbm = pieces * (mt * g.a_row_bytes + out) + b_loads * b_tile
        return cycles / profile.clock_hz, hbm

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


_MOVES = (
    "trans_data",
    "concat",
    "reshape",
    "flatten",
    "transpose",
    "identity",
    "copy",
    "max_pool",
    "gather",
    "slice",
    "expand",
)
"""Kernels that move elements without arithmetic: they run at the lanes of their own dtype
(an fp16 move is not upcast)."""


def comm_time(task: Task, profile: DeviceProfile) -> KernelTime:
    size = task.cost.bytes_in
    seconds = profile.link_latency + size / profile.link_bandwidth
    return KernelTime("comm", 1, seconds, 0.0, 1, task.cost.flops)


ATTENTION_ROWS = 128
"""Query rows per tile of flash attention (a block runs whole tiles)."""


def attention_time(task: Task, profile: DeviceProfile) -> KernelTime:
    """The blocks of `flash_attention`: one tile per `ATTENTION_ROWS` query rows of a head,
    one block per tile up to one per core.  A tile streams its head's keys and values
    through the cube (q k^T, then p v, both padded to the fractal) while the vector unit
    runs the online softmax on the previous key tile (scale, mask, max, exp, sum and the
    rescale of the accumulator): they overlap, so a tile takes the longer of the two plus
    a sync per key tile; a causal kernel does the share of that work its queries see.
    HBM sees the tile's queries, mask rows and output once.  The tiles of one key/value head
    (its query heads' row tiles, next to each other) run together and share its keys and
    values through L2 when they fit in half of it: HBM reads every key and value once;
    otherwise each tile reads those it sees."""
    q, k, v = task.in_types[:3]
    f = profile.fractal
    b, n, sq, d = q.shape
    skv, dv = v.shape[2], v.shape[3]
    rows = min(max(_ceil_to(sq, f), f), ATTENTION_ROWS)
    tiles = max(1, b * n * -(-sq // rows))
    blocks = min(tiles, profile.cube_cores)
    per_block = -(-tiles // blocks)
    skv_p, d_p, dv_p = _ceil_to(skv, f), _ceil_to(d, f), _ceil_to(dv, f)
    macs = f**3 / profile.cube_macs(dtypes.name_of(q.dtype))
    # a causal kernel skips the key tiles its queries do not see: its share of the scores
    seen = 1.0
    if task.attrs.get("causal", False) and sq * skv:
        seen = (sq * (skv - sq) + sq * (sq + 1) / 2) / (sq * skv)
    cube = seen * (rows // f) * (skv_p // f) * ((d_p + dv_p) // f) * macs
    steps = -(-skv_p // ATTENTION_ROWS)
    vector = (rows * skv_p * (5 + (len(task.in_types) > 3)) * seen + steps * rows * dv_p) / (
        _vector_lanes(profile, _ACC)
    )
    cycles = max(cube, vector) + steps * profile.kstep_cycles
    item = q.dtype.itemsize
    kv_bytes = skv * (d + dv) * item  # one head's keys and values
    kv_all = math.prod(k.physical_shape) * item + math.prod(v.physical_shape) * item
    mask_bytes = 0.0
    if len(task.in_types) > 3:
        mask = task.in_types[3]
        mask_bytes = math.prod(mask.physical_shape) * mask.dtype.itemsize / tiles
    shared = kv_bytes <= profile.l2_bytes / 2
    kv_read = kv_all / tiles if shared else kv_bytes * seen
    per_tile = rows * (d + dv) * item + mask_bytes + kv_read

    def block(pieces: int) -> tuple[float, float]:
        return pieces * cycles / profile.clock_hz, pieces * per_tile

    compute, hbm = block(per_block)
    short = blocks * per_block - tiles
    short_compute, short_bytes = block(per_block - 1) if short else (0.0, 0.0)
    return KernelTime(
        "cube", blocks, compute, hbm, tiles, task.cost.flops, short, short_compute, short_bytes
    )


class CoreLimitError(ValueError):
    """A launch's `limit_core_num` attributes out of the device's range."""


def limited_profile(task: Task, profile: DeviceProfile) -> DeviceProfile:
    """`profile` as a launch under TorchAir's `limit_core_num` sees it: at most
    `_op_aicore_num` AI (cube) cores and `_op_vectorcore_num` vector cores (the AI-core limit
    for every kernel when the vector units are in the AI cores, `cores.shared`).  The kernel
    is tiled for those cores, one block per core, so it never holds more of them at once.
    Raises `CoreLimitError` for numbers out of TorchAir's range
    (`ge_dialect.utils.scope_attrs.core_limits`)."""
    if not task.scope:
        return profile
    try:
        aicore, vectorcore = core_limits(
            task.scope, profile.cube_cores, profile.vector_cores, profile.shared_cores
        )
    except ValueError as e:
        raise CoreLimitError(str(e)) from None
    if profile.shared_cores and aicore is not None:
        return replace(profile, cube_cores=aicore, vector_cores=aicore)
    return replace(
        profile,
        cube_cores=profile.cube_cores if aicore is None else aicore,
        vector_cores=profile.vector_cores if vectorcore is None else vectorcore,
    )


def kernel_time(task: Task, profile: DeviceProfile) -> KernelTime:
    """The blocks of a launch or copy `task` on `profile` (see the module docstring), on
    the cores its `limit_core_num` leaves it (`limited_profile`)."""
    profile = limited_profile(task, profile)
    if task.kernel in CUBE_KERNELS and task.kind == LAUNCH:
        conv = task.kernel in ("conv2d", "fused_conv2d")
        g = _conv_gemm(task, profile) if conv else _matmul_gemm(task, profile)
        return cube_time(g, profile, task.cost.flops)
    if task.kernel == "flash_attention" and task.kind == LAUNCH:
        return attention_time(task, profile)
    if task.kernel in COMM_KERNELS:
        return comm_time(task, profile)
    return vector_time(task, profile)
