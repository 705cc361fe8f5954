"""The simulated NPU's matmul kernels: predicted time, throughput and what bounds each shape.

Over a grid of fp16 `[M, K] x [K, N]` matmuls (M in 1, 16, 128, 1024, 4096; K and N in
256, 1024, 4096, 16384) on the default profile (`sim.profile.load_profile()`, an Ascend
910-class part: 32 cores, 256.9 TFLOPS fp16 peak, 0.5 TB/s sustained HBM).  All are built
in one graph with GraphBuilder (both operands graph inputs, so nothing is allocated),
lowered with `lower-to-device`, and each `matmul` launch is timed alone: a program of that
one task through `sim.timing.simulate_time` (what `api.simulate(..., timing_only=True)`
runs), launch overhead included.

Per shape it prints the output tile `mt x nt` the kernel model (`sim.kernel_model`) picks
and the tile grid, the blocks (cores) and tiles per block, the simulated time (us), the
TFLOPS (2 M K N / time) and its fraction of the cube's peak, the arithmetic intensity
(FLOPs per byte of A, B and the output moved once) and what bounds it: the largest of the
block's parts -- `cube` or `mte1` (its tiles on the core: the larger of cube cycles and
L1 -> L0 loads, plus the K steps' syncs and the epilogue), `mte2` (a core's loads into
L1 at the core's bandwidth, when longer), `hbm` (the kernel's HBM bytes over the
sustained bandwidth) -- or `launch` when the fixed costs (launch, block overhead, first
memory access) are at least half the time; `+tail` when the last wave leaves at least a
fifth of the cores' tile slots idle.  Nothing here asserts; it takes about a second.

    python bench/matmul.py
"""

from __future__ import annotations

import dataclasses
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ge_dialect import api  # noqa: E402
from ge_dialect.frontend.builder import GraphBuilder  # noqa: E402
from ge_dialect.sim.kernel_model import (  # noqa: E402
    KernelTime,
    _matmul_gemm,
    _tile_cycles,
    _tile_shape,
    kernel_time,
)
from ge_dialect.sim.profile import DeviceProfile, load_profile  # noqa: E402
from ge_dialect.sim.program import Program, Task  # noqa: E402
from ge_dialect.sim.timing import simulate_time  # noqa: E402

MS = (1, 16, 128, 1024, 4096)
KS = (256, 1024, 4096, 16384)
NS = KS


def shapes() -> list[tuple[int, int, int]]:
    return [(m, k, n) for m in MS for k in KS for n in NS]


def matmul_launches(grid: list[tuple[int, int, int]]) -> list[Task]:
    """The matmul launch of each shape (one graph of independent matmuls, lowered once)."""
    b = GraphBuilder("matmuls")
    outs = []
    for i, (m, k, n) in enumerate(grid):
        a = b.input(f"a{i}", [m, k], "f16")
        w = b.input(f"b{i}", [k, n], "f16")
        outs.append(b.matmul(a, w))
    module = b.build(outs)
    api.compile(module, "lower-to-device")
    tasks = [t for t in api.device_program(module).tasks if t.kernel == "matmul"]
    assert len(tasks) == len(grid), "one matmul launch per shape"
    return tasks


def alone(task: Task) -> Program:
    """A program of `task` alone, on stream 0."""
    return Program("alone", [], [dataclasses.replace(task, index=0, stream=0)], [], [], {})


def bound(task: Task, k: KernelTime, seconds: float, profile: DeviceProfile) -> str:
    """What bounds the launch: the largest part of its longest block, or its fixed costs."""
    g = _matmul_gemm(task, profile)
    mt, nt, kt = _tile_shape(g, profile)
    f = profile.fractal
    per_block = -(-k.tiles // k.blocks)
    # the core's pipeline per tile: the larger of cube and MTE1, plus K-step syncs and the
    # epilogue; MTE2 binds when the block's compute is longer than its tiles' pipeline
    tiles = per_block * _tile_cycles(g, profile, mt, nt, kt) / profile.clock_hz
    cube = per_block * (mt // f) * (nt // f) * (g.k // f) * f**3 / profile.cube_macs(g.dtype)
    mte1 = per_block * (mt + nt) * g.k * g.in_itemsize / (f * f * 2)
    moved = (k.blocks - k.short) * k.hbm_bytes + k.short * k.short_bytes
    parts = {
        "cube" if cube >= mte1 else "mte1": tiles,
        "mte2": k.compute if k.compute > 1.001 * tiles else 0.0,
        "hbm": moved / profile.sustained_bandwidth,
    }
    fixed = profile.launch_overhead + profile.block_overhead + profile.memory_latency
    name = "launch" if fixed >= seconds / 2 else max(parts, key=lambda p: parts[p])
    slots = k.blocks * per_block
    if k.blocks == profile.cube_cores and (slots - k.tiles) / slots >= 0.2:
        name += "+tail"
    return name


def main() -> None:
    profile = load_profile()
    peak = profile.peak_cube_flops("f16")
    grid = shapes()
    print(
        f"matmul fp16 [M, K] x [K, N] on {profile.name}: {profile.cube_cores} cores, "
        f"peak {peak / 1e12:.1f} TFLOPS, sustained HBM {profile.sustained_bandwidth / 1e12:.2f}"
        " TB/s; each launch alone (sim.timing.simulate_time, launch overhead included)"
    )
    print(
        f"{'M':>5} {'K':>6} {'N':>6} {'tile':>9} {'grid':>8} {'blocks':>9} {'us':>10} "
        f"{'TFLOPS':>7} {'peak':>6} {'FLOP/B':>7}  bound"
    )
    for (m, k_, n), task in zip(grid, matmul_launches(grid), strict=True):
        k = kernel_time(task, profile)
        g = _matmul_gemm(task, profile)
        mt, nt, _ = _tile_shape(g, profile)
        tiles_m, tiles_n = -(-g.m // mt), -(-g.n // nt)
        us = simulate_time(alone(task), profile).makespan
        flops = 2 * m * k_ * n
        tflops = flops / us / 1e6
        intensity = flops / (2 * (m * k_ + k_ * n + m * n))
        per_block = -(-k.tiles // k.blocks)
        print(
            f"{m:5d} {k_:6d} {n:6d} {f'{mt}x{nt}':>9} {f'{tiles_m}x{tiles_n}':>8} "
            f"{f'{k.blocks}x{per_block}':>9} {us:10.1f} {tflops:7.2f} "
            f"{tflops * 1e12 / peak:6.1%} {intensity:7.1f}  "
            f"{bound(task, k, us * 1e-6, profile)}"
        )


if __name__ == "__main__":
    main()
