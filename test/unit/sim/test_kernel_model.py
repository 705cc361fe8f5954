"""The cube kernel model on matmul shapes: properties the hardware imposes, on the default
(Ascend 910-class) profile.  Each matmul is a `Task` made here (fp16 `[M, K] x [K, N]` in
ND, as `lower-to-device` makes it) and timed alone through `sim.timing.simulate_time`
(launch overhead included), or its blocks read from `kernel_time`.

- Time is monotone non-decreasing in M, K and N.
- TFLOPS never exceed the cube's peak.
- A large square fp16 GEMM reaches more than 70% of peak: its tiles (176 x 176 in L0C)
  keep the cube ahead of the L1 -> L0 loads, and the cores of a wave share the operand
  bands through L2, so HBM carries about a fifth of what the tiles load.
- M = 1 (a decode GEMV) is bound by reading B from HBM: its time is B's bytes over the
  sustained bandwidth, plus the fixed costs.
- A tile count one over a multiple of the cores costs a whole extra wave where the tiles
  cannot be split (a batch of fractal-sized GEMMs); where they can, the tiler evens the
  waves out with smaller tiles, as a real matmul tiling does.
- Doubling K doubles a large GEMM's cube time.
- An ND operand pays for ND2NZ on its loads into L1 when its row segments are shorter than
  the profile's burst (512 B), and a FRACTAL_NZ operand does not.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ge_dialect.sim.kernel_model import KernelTime, kernel_time
from ge_dialect.sim.kernels.base import Operand
from ge_dialect.sim.profile import load_profile
from ge_dialect.sim.program import Cost, Program, Task
from ge_dialect.sim.timing import simulate_time
from ge_dialect.utils.task_order import LAUNCH

F16 = np.dtype(np.float16)
PROFILE = load_profile()
PEAK = PROFILE.peak_cube_flops("f16")


def matmul(m: int, k: int, n: int) -> Task:
    """The launch `lower-to-device` makes of an fp16 `[m, k] x [k, n]` matmul."""
    flops = 2 * m * k * n
    nbytes = 2 * (m * k + k * n)
    return Task(
        0,
        LAUNCH,
        0,
        "t.mlir:1:1",
        kernel="matmul",
        in_types=(Operand((m, k), F16, "ND"), Operand((k, n), F16, "ND")),
        out_types=(Operand((m, n), F16, "ND"),),
        attrs={"has_bias": False},
        cost=Cost("cube", flops, nbytes, 2 * m * n),
    )


def seconds(m: int, k: int, n: int) -> float:
    """The simulated time of the matmul alone (launch overhead included)."""
    program = Program("alone", [], [matmul(m, k, n)], [], [], {})
    return simulate_time(program, PROFILE).makespan * 1e-6


def blocks(m: int, k: int, n: int) -> KernelTime:
    return kernel_time(matmul(m, k, n), PROFILE)


SIZES = (1, 16, 48, 128, 200, 512, 1000, 2048, 4096)


@pytest.mark.parametrize("axis", ["m", "k", "n"])
def test_time_is_monotone_in_each_dimension(axis):
    for other in (64, 1024, 4096):
        times = []
        for size in SIZES:
            shape = {"m": other, "k": other, "n": other, axis: size}
            times.append(seconds(shape["m"], shape["k"], shape["n"]))
        assert times == sorted(times), (axis, other, times)


def test_tflops_never_exceed_peak():
    for m in (1, 16, 128, 1024, 4096):
        for k in (256, 4096, 16384):
            for n in (256, 4096, 16384):
                assert 2 * m * k * n / seconds(m, k, n) <= PEAK, (m, k, n)


def test_large_square_gemm_reaches_most_of_peak():
    # 4096^3: 18 waves of 176 x 176 tiles, 0.57 ms of cube per core; the HBM traffic left
    # by the wave's L2 sharing (0.34 GB: A three times, B six) takes 0.67 ms at the
    # sustained 0.5 TB/s, so 79% of peak; more than 70% (without the sharing, 16%) and
    # at most the peak
    fraction = 2 * 4096**3 / seconds(4096, 4096, 4096) / PEAK
    assert 0.7 < fraction <= 1.0


def test_gemv_is_bound_by_reading_b():
    k, n = 4096, 4096
    b_bytes = 2 * k * n
    fixed = PROFILE.launch_overhead + PROFILE.block_overhead + PROFILE.memory_latency
    expected = b_bytes / PROFILE.sustained_bandwidth + fixed
    assert expected <= seconds(1, k, n) < 1.1 * expected
    # and M = 16 (the cube's fractal: M = 1 pads to it) costs no more than M = 1
    assert seconds(16, k, n) == seconds(1, k, n)


def batched(batch: int, m: int, k: int, n: int) -> Task:
    """`batch` independent fp16 `[m, k] x [k, n]` matmuls in one launch."""
    return dataclasses.replace(
        matmul(m, k, n),
        in_types=(Operand((batch, m, k), F16, "ND"), Operand((batch, k, n), F16, "ND")),
        out_types=(Operand((batch, m, n), F16, "ND"),),
    )


def test_one_tile_over_the_cores_costs_a_whole_wave():
    cores = PROFILE.cube_cores
    # a batch of fractal-sized GEMMs: one 16 x 16 tile each, which no tiler can split, so
    # one GEMM over the cores is a second wave: the slowest block runs two tiles
    full = kernel_time(batched(cores, 16, 4096, 16), PROFILE)
    over = kernel_time(batched(cores + 1, 16, 4096, 16), PROFILE)
    assert (full.tiles, full.blocks, full.short) == (cores, cores, 0)
    assert (over.tiles, over.blocks, over.short) == (cores + 1, cores, cores - 1)
    assert over.compute == pytest.approx(2 * full.compute)
    assert over.short_compute == pytest.approx(full.compute)
    one = simulate_time(Program("p", [], [batched(cores, 16, 4096, 16)], [], [], {}), PROFILE)
    two = simulate_time(Program("p", [], [batched(cores + 1, 16, 4096, 16)], [], [], {}), PROFILE)
    assert two.makespan > one.makespan


def test_a_tiler_evens_out_a_last_wave_it_can_split():
    # 176 x 176 tiles (the largest that fit twice in L0C): an 8 x 8 grid is two full waves
    # on 32 cores; a 5 x 13 grid (one tile more) would be three, so the tiler splits N
    # finer (176 x 128 tiles, three fuller waves): dearer than the 1/64 more FLOPs, far
    # cheaper than a third wave of whole tiles
    cores = PROFILE.cube_cores
    full, over = blocks(8 * 176, 4096, 8 * 176), blocks(5 * 176, 4096, 13 * 176)
    assert (full.tiles, full.blocks, full.short) == (2 * cores, cores, 0)
    assert over.tiles > 2 * cores + 1
    assert 65 / 64 * full.compute < over.compute < 1.25 * full.compute


def test_doubling_k_doubles_the_cube_time():
    one, two = blocks(4096, 4096, 4096), blocks(4096, 8192, 4096)
    assert (one.tiles, one.blocks) == (two.tiles, two.blocks)
    assert two.compute == pytest.approx(2 * one.compute, rel=0.01)


def test_conv_keeps_its_tiles():
    # conv2d shares the cube model but not the matmul's core filling: a batch-1 conv with
    # few output tiles leaves cores idle (what multi-stream schedules exploit)
    x = Operand((1, 64, 14, 14), F16, "NC1HWC0")
    w = Operand((64, 64, 3, 3), F16, "FRACTAL_Z")
    y = Operand((1, 64, 14, 14), F16, "NC1HWC0")
    conv = dataclasses.replace(
        matmul(1, 1, 1),
        kernel="conv2d",
        in_types=(x, w),
        out_types=(y,),
        attrs={"strides": [1, 1], "pads": [1, 1, 1, 1]},
    )
    assert kernel_time(conv, PROFILE).blocks == 1


def with_formats(task: Task, a: str, b: str) -> Task:
    """`task` with its operands stored as `a` and `b` (ND or FRACTAL_NZ)."""
    x, w = task.in_types
    return dataclasses.replace(
        task, in_types=(dataclasses.replace(x, fmt=a), dataclasses.replace(w, fmt=b))
    )


def test_nd_operands_pay_for_nd2nz_and_fractal_nz_ones_do_not():
    # A^T B with A stored [4096, 256] (transposed) and B [4096, 256] fp16: the tiler spreads
    # the 256 x 256 result over the cores in 32 x 64 tiles, so an ND operand's ND2NZ row
    # segments are cut to the tile, 64 B of A's rows and 128 B of B's (an eighth and a
    # quarter of the burst): with either operand ND its loads into L1 bound the block; with
    # both FRACTAL_NZ (whole fractals) they take a third of the time.  HBM traffic and the
    # tiles are the same.
    task = dataclasses.replace(
        matmul(256, 4096, 256),
        in_types=(Operand((4096, 256), F16, "ND"), Operand((4096, 256), F16, "ND")),
        attrs={"has_bias": False, "transpose_a": True},
    )
    nd = kernel_time(task, PROFILE)
    nz = kernel_time(with_formats(task, "FRACTAL_NZ", "FRACTAL_NZ"), PROFILE)
    a_nd = kernel_time(with_formats(task, "ND", "FRACTAL_NZ"), PROFILE)
    b_nd = kernel_time(with_formats(task, "FRACTAL_NZ", "ND"), PROFILE)
    assert (nd.tiles, nd.blocks, nd.hbm_bytes) == (nz.tiles, nz.blocks, nz.hbm_bytes)
    assert nd.compute > max(a_nd.compute, b_nd.compute)
    assert min(a_nd.compute, b_nd.compute) > 2 * nz.compute
    # rows of a whole burst or more (A untransposed, rows of K = 4096: 8 KiB) load at full
    # speed: A in ND costs nothing more than A in FRACTAL_NZ
    wide = matmul(256, 4096, 256)
    assert kernel_time(with_formats(wide, "ND", "FRACTAL_NZ"), PROFILE) == kernel_time(
        with_formats(wide, "FRACTAL_NZ", "FRACTAL_NZ"), PROFILE
    )
