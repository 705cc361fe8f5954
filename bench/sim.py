"""The simulated NPU: its kernel model against rooflines and published bands, its schedules
against their lower bounds, and its own speed.

Three sections, in one process (`--section all`, the default, runs them in this order):

**kernels** (`--section kernels`): the kernel model's efficiency curve on the default
profile (`sim.profile.load_profile()`, an Ascend 910-class part).  The fp16 convs of
ResNet-50 v1.5 at `--batch` (32 by default): the 7x7/2 stem (3 -> 64 at 224), and per stage
(56, 28, 14, 7) the 1x1 reduce (that of the stage's first block, from the previous stage's
width and resolution, and that of its other blocks), the 3x3 (stride 2 in the first block
of stages 2-4, where v1.5 puts it, and stride 1), the 1x1 expand and the downsample 1x1
(stride 2; stride 1 in stage 1).  All are built in one graph with GraphBuilder (NC1HWC0
inputs, seeded weights), lowered with `to-nc1hwc0,lower-to-device`, and each `conv2d`
launch (NC1HWC0 input, FRACTAL_Z weight) is timed alone: a program of that one task through
`sim.timing.simulate_time`, launch overhead included.  Per shape it prints the GEMM the
model makes of it (M x K x N, K and N padded to the fractal), its output tiles, the blocks
(cores) they run on and the tiles per block, the simulated time (us), the roofline time
`max(FLOPs / peak fp16 cube FLOP/s, bytes / peak HBM bandwidth)` with the FLOPs counted on
the real channels and the bytes those of the logical input, weights and output once, their
ratio, the achieved TFLOPS (real FLOPs / simulated time) and its fraction of peak, and
whether it lands in the band public profiles give for its kind (below; `-` when none
applies).  Then a few vector kernels timed the same way (batch-norm, relu, add of
`batch`x256x56x56 fp16 NC1HWC0 tensors; ResNet's 3x3/2 max pool on `batch`x64x112x112; a
trans_data NCHW -> NC1HWC0 of 256 channels and of the 3-channel image; a relu and an add of
1x16x8x8, tiny kernels): bytes moved (the cost module's physical bytes in + out), simulated
time, roofline (those bytes at peak HBM bandwidth), their ratio, the bandwidth achieved and
its fraction of peak HBM, against the memory-bound band (30-70% of HBM) or, for the tiny
ones, the 1.5-5 us floor.  The published bands (MindSpore ResNet-50 / InceptionV3 on a 910)
close the section.

**schedules** (`--section schedules`): makespans on four graphs, each compiled with
`canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=M},lower-to-device` for M = single,
labels and auto and run timing-only (`api.simulate(program, timing_only=True)`):
`examples/resnet_block.mlir`, `examples/torchair_multistream.mlir` (as they are; for
mode=single, which refuses stream labels, the labels are removed after the first four passes,
so that all modes start from the same graph: before cse they would let it merge the
example's two equal matmuls), an Inception-style graph
built here (1x192x28x28 fp16, four modules of GoogLeNet's 3a, 3b, 4a, 4b widths, a 3x3/2 max
pool after 3b; each module four branches: 1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3/1 max pool ->
1x1; conv + bias + relu each, concatenated on channels; at batch 1 a branch's convs use 1 to
6 of the 32 cores), and a 4-head attention graph (512 tokens, width 512, fp16: per head Q, K,
V projections, Q K^T, softmax, x V; the heads concatenated, then the output projection).  In
the built graphs each branch / head sits in its own `stream_switch` label (priority 0) for
labels mode; single and auto modes get the same graph without labels (auto finds the
branches itself).
Per graph and mode: streams, launches, events (records), the makespan (us), its lower
bound (`sim.timing.lower_bound` of that program: critical path or a pool's work over its
cores) and what limits it, makespan / bound (the issue's goal: at most 1.05 where the graph
has the parallelism), and the speed-up over mode=single (single's makespan / this one's).
A makespan below its bound, or a mode much slower than single, is printed with a `!` mark.

**speed** (`--section speed`): the simulator's own speed.  Timing-only launches per second
on generated programs of small ops (1x16x8x8 f32) built with GraphBuilder: a chain of
`--launches`/2 alternating relu / sigmoid ops (one stream), a wide graph of as many (one relu
fanning out to sigmoids, every one a result: 8 streams and their events), and both in one
program of `--launches` launches (10k by default); each compiled with
`assign-streams{mode=auto},lower-to-device`, read once with `api.device_program`, then
`api.simulate(program, timing_only=True)` timed (best of `--repeat`).  Then ResNet-18
(`bench/run.py`'s `resnet18()`, 1x3x224x224 f32, ge-run's default pipeline +
`lower-to-device`): `api.simulate(program, inputs)` (timeline, report and numbers) against
the numbers alone (`sim.executor.execute(program, inputs, order)` in the start order the
simulation chose), best of `--repeat` (at least 5) each, and their ratio: what timing adds;
and the timing-only run's time as a fraction of the numbers' (the kernels' run-to-run noise
can exceed the difference).  Where `api.simulate` has a memory checker (races, clobbers;
`check=True` by default, timing-only runs included), the figures are given with it (the
default) and without it (`check=False`).

Times are wall-clock (`time.perf_counter`, as `bench/run.py`; `--clock cpu` for the
process's CPU time, steadier on a shared machine, where the wall clock also counts the time
other processes hold the cores), the best of `--repeat` runs, each after a full garbage
collection (not timed), as `bench/timer.py`'s `measure` does; figures compared with each
other are measured in interleaved rounds, so that a burst of load spoils a round rather than
one figure.  numpy's BLAS runs on one thread, as in
`bench/run.py`.  Nothing here asserts on a time; a full run takes about 20 s.

    python bench/sim.py [--section all|kernels|schedules|speed] [--batch 32] [--repeat 3]
                        [--launches 10000] [--clock wall|cpu]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import gc  # noqa: E402
import inspect  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from functools import partial  # noqa: E402
from typing import TypeVar  # noqa: E402

import numpy as np  # noqa: E402
from xdsl.dialects.builtin import ModuleOp  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect.frontend.builder import GraphBuilder, Tensor  # noqa: E402
from ge_dialect.ir.dialects import stream  # noqa: E402
from ge_dialect.sim import executor  # noqa: E402
from ge_dialect.sim.kernel_model import _conv_gemm, kernel_time  # noqa: E402
from ge_dialect.sim.profile import DeviceProfile, load_profile  # noqa: E402
from ge_dialect.sim.program import Program, Task  # noqa: E402
from ge_dialect.sim.timing import simulate_time  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)  # for bench/run.py's resnet18()

PREFIX = "canonicalize,cse,fuse,to-nc1hwc0"
CHECKER = "check" in inspect.signature(api.simulate).parameters  # the memory checker, if any
MODES = ("single", "labels", "auto")
GOAL = 1.05  # the makespan / lower bound target where the graph has the parallelism

# the published bands: MindSpore ResNet-50 / InceptionV3 training on an Ascend 910
BANDS = {
    "3x3": (55.0, 80.0),  # TFLOPS, forward 3x3 convs
    "1x1": (12.0, 25.0),  # TFLOPS, 1x1 convs with 64-128 input channels
    "stem": (17.0, 25.0),  # TFLOPS on the 3 real channels: "~21" (~110 on 16 padded), +-20%
    "memory": (0.30, 0.70),  # fraction of HBM bandwidth, memory-bound kernels
    "tiny": (1.5, 5.0),  # us, the floor of tiny kernels
}


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def alone(task: Task) -> Program:
    """A program of `task` alone, on stream 0."""
    return Program("alone", [], [dataclasses.replace(task, index=0, stream=0)], [], [], {})


def launches(module: ModuleOp) -> list[Task]:
    return [t for t in api.device_program(module).tasks if t.kind == "launch"]


def weight(b: GraphBuilder, rng: np.random.Generator, shape, dtype=np.float16) -> Tensor:
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    return b.const((rng.standard_normal(shape) * fan_in**-0.5).astype(dtype))


def strip_labels(module: ModuleOp) -> ModuleOp:
    """`module` without stream labels (what mode=single accepts)."""
    for op in module.walk():
        op.attributes.pop(stream.LABEL, None)
    return module


T = TypeVar("T")


def measure_together(
    fns: Sequence[Callable[[], T]], repeat: int, clock: Callable[[], float]
) -> tuple[list[float], list[T]]:
    """The best time of each of `fns` on `clock` over `repeat` rounds that run each once in
    turn (so that a burst of load on a shared machine spoils one round of all rather than one
    figure), and the last result of each.  A full garbage collection, not timed, precedes
    every run, as in `bench/timer.py`'s `measure`."""
    best = [float("inf")] * len(fns)
    last: dict[int, T] = {}
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            gc.collect()
            start = clock()
            last[i] = fn()
            best[i] = min(best[i], clock() - start)
    return best, [last[i] for i in range(len(fns))]


def band_mark(value: float, band: tuple[float, float] | None) -> str:
    if band is None:
        return "-"
    low, high = band
    if value < low:
        return "below"
    if value > high:
        return "above"
    return "yes"


# --------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Conv:
    name: str
    cin: int
    hw: int  # input height = width
    cout: int
    k: int
    stride: int

    @property
    def out_hw(self) -> int:
        return (self.hw + 2 * (self.k // 2) - self.k) // self.stride + 1

    @property
    def band(self) -> str | None:
        if self.k == 7:
            return "stem"
        if self.k == 3:
            return "3x3"
        if self.k == 1 and 64 <= self.cin <= 128:
            return "1x1"
        return None


def resnet50_convs() -> list[Conv]:
    """The distinct conv shapes of ResNet-50 v1.5 (stride 2 in the 3x3 of a stage's first
    block), in network order."""
    convs = [Conv("stem 7x7/2 3-64", 3, 224, 64, 7, 2)]
    cin, hw = 64, 56  # after the stem's max pool
    for stage, (width, out_hw) in enumerate(((64, 56), (128, 28), (256, 14), (512, 7)), 1):
        stride = hw // out_hw
        expand = 4 * width
        s = f"s{stage}"
        convs += [
            Conv(f"{s} reduce 1x1 {cin}-{width}@{hw}", cin, hw, width, 1, 1),
            Conv(f"{s} reduce 1x1 {expand}-{width}", expand, out_hw, width, 1, 1),
        ]
        if stride == 2:
            convs.append(Conv(f"{s} 3x3/2 {width}@{hw}", width, hw, width, 3, 2))
        convs += [
            Conv(f"{s} 3x3 {width}", width, out_hw, width, 3, 1),
            Conv(f"{s} expand 1x1 {width}-{expand}", width, out_hw, expand, 1, 1),
            Conv(f"{s} downsample 1x1/{stride} {cin}-{expand}", cin, hw, expand, 1, stride),
        ]
        cin, hw = expand, out_hw
    return convs


def conv_launches(convs: list[Conv], batch: int) -> list[Task]:
    """The conv2d launch of each shape (one graph of independent convs, lowered once)."""
    rng = np.random.default_rng(0)
    b = GraphBuilder("convs")
    outs = []
    for i, c in enumerate(convs):
        x = b.input(f"x{i}", [batch, c.cin, c.hw, c.hw], "f16", format="NC1HWC0", c0=16)
        w = weight(b, rng, (c.cout, c.cin, c.k, c.k))
        pad = c.k // 2
        outs.append(b.conv2d(x, w, strides=[c.stride] * 2, pads=[pad] * 4))
    module = b.build(outs)
    api.compile(module, "to-nc1hwc0,lower-to-device")
    tasks = [t for t in launches(module) if t.kernel == "conv2d"]
    assert len(tasks) == len(convs), "one conv2d launch per shape"
    return tasks


def vector_launches(batch: int) -> list[tuple[str, Task, str]]:
    """(name, launch, band) of the vector kernels."""
    rng = np.random.default_rng(1)
    b = GraphBuilder("vector")
    shape = [batch, 256, 56, 56]
    x = b.input("x", shape, "f16", format="NC1HWC0", c0=16)
    x2 = b.input("x2", shape, "f16", format="NC1HWC0", c0=16)
    scale, offset, mean, variance = (
        b.const(rng.uniform(0.5, 1.5, 256).astype(np.float16)) for _ in range(4))
    xp = b.input("xp", [batch, 64, 112, 112], "f16", format="NC1HWC0", c0=16)
    xn = b.input("xn", shape, "f16")
    xs = b.input("xs", [batch, 3, 224, 224], "f16")
    t = b.input("t", [1, 16, 8, 8], "f16", format="NC1HWC0", c0=16)
    t2 = b.input("t2", [1, 16, 8, 8], "f16", format="NC1HWC0", c0=16)
    rows = [
        (f"batch_norm {batch}x256x56x56", b.batch_norm(x, scale, offset, mean, variance),
         "memory"),
        (f"relu {batch}x256x56x56", b.relu(x), "memory"),
        (f"add {batch}x256x56x56", b.add(x, x2), "memory"),
        (f"max_pool 3x3/2 {batch}x64x112x112", b.max_pool(xp, [3, 3], [2, 2], [1] * 4), "memory"),
        (f"trans_data ->NC1HWC0 {batch}x256x56x56", b.trans_data(xn, "NC1HWC0", 16), "memory"),
        (f"trans_data ->NC1HWC0 {batch}x3x224x224", b.trans_data(xs, "NC1HWC0", 16), "memory"),
        ("relu 1x16x8x8 (tiny)", b.relu(t), "tiny"),
        ("add 1x16x8x8 (tiny)", b.add(t, t2), "tiny"),
    ]
    module = b.build([y for _, y, _ in rows])
    api.compile(module, "to-nc1hwc0,lower-to-device")
    tasks = launches(module)
    assert len(tasks) == len(rows), "one launch per vector kernel"
    return [(name, task, band) for (name, _, band), task in zip(rows, tasks, strict=True)]


def section_kernels(batch: int, profile: DeviceProfile) -> None:
    peak = profile.peak_cube_flops("f16")
    hbm = profile.hbm_bandwidth
    print(f"== kernels: the kernel model on '{profile.name}' (peak fp16 cube "
          f"{peak / 1e12:.1f} TFLOPS, HBM {hbm / 1e12:.2f} TB/s peak, "
          f"{profile.sustained_bandwidth / 1e12:.2f} TB/s sustained; each launch alone, "
          f"launch overhead {profile.launch_overhead * 1e6:.1f} us included)")
    print(f"ResNet-50 v1.5 convs, batch {batch}, fp16 NC1HWC0 x FRACTAL_Z "
          "(roofline: real-channel FLOPs at peak, logical in + weights + out bytes at peak HBM)")
    head = (f"{'conv':32s} {'GEMM M x K x N':>22s} {'tiles':>6s} {'blks':>4s} {'t/blk':>5s} "
            f"{'sim us':>9s} {'roof us':>9s} {'sim/roof':>8s} {'TFLOPS':>7s} {'%peak':>6s} "
            f"{'band':>10s} {'in band':>7s}")
    print(head)
    convs = resnet50_convs()
    faster_than_roofline = []
    for c, task in zip(convs, conv_launches(convs, batch), strict=True):
        k = kernel_time(task, profile)
        gemm = _conv_gemm(task, profile)
        us = simulate_time(alone(task), profile).makespan
        ho = c.out_hw
        flops = 2 * batch * ho * ho * c.cout * c.cin * c.k * c.k
        if flops != task.cost.flops:
            print(f"   (note: the cost module counts {task.cost.flops} FLOPs, the bench {flops})")
        nbytes = 2 * (batch * c.cin * c.hw * c.hw + c.cout * c.cin * c.k * c.k
                      + batch * c.cout * ho * ho)
        roof = max(flops / peak, nbytes / hbm) * 1e6
        tflops = flops / us / 1e6
        band = BANDS[c.band] if c.band else None
        per_block = -(-k.tiles // k.blocks)
        gemm_text = f"{gemm.batch * gemm.m} x {gemm.k} x {gemm.n}"
        band_text = f"{band[0]:.0f}-{band[1]:.0f} TF" if band else "-"
        mark = " !" if us < roof else ""
        if us < roof:
            faster_than_roofline.append(c.name)
        print(f"{c.name:32s} {gemm_text:>22s} {k.tiles:6d} {k.blocks:4d} {per_block:5d} "
              f"{us:9.1f} {roof:9.1f} {us / roof:8.2f} {tflops:7.1f} {tflops * 1e12 / peak:6.1%} "
              f"{band_text:>10s} {band_mark(tflops, band):>7s}{mark}")
        if c.k == 7:
            padded = flops * 16 // c.cin
            print(f"{'':32s} counted on the 16 channels the cube processes: "
                  f"{padded / us / 1e6:.1f} TFLOPS ({padded / us / 1e6 * 1e12 / peak:.1%} of peak;"
                  " published ~110)")
    print()
    print("vector kernels (bytes: the cost module's physical bytes in + out; roofline: those "
          "bytes at peak HBM)")
    print(f"{'kernel':40s} {'MB':>8s} {'blks':>4s} {'sim us':>9s} {'roof us':>9s} "
          f"{'sim/roof':>8s} {'GB/s':>7s} {'%HBM':>6s} {'band':>10s} {'in band':>7s}")
    for name, task, band_name in vector_launches(batch):
        k = kernel_time(task, profile)
        us = simulate_time(alone(task), profile).makespan
        moved = task.cost.bytes_in + task.cost.bytes_out
        roof = moved / hbm * 1e6
        rate = moved / us * 1e6
        lo, hi = BANDS[band_name]
        if band_name == "tiny":
            band_text, mark = f"{lo}-{hi:.0f} us", band_mark(us, (lo, hi))
        else:
            band_text, mark = f"{lo:.0%}-{hi:.0%}", band_mark(rate / hbm, (lo, hi))
        flag = " !" if us < roof else ""
        if us < roof:
            faster_than_roofline.append(name)
        print(f"{name:40s} {moved / 1e6:8.2f} {k.blocks:4d} {us:9.2f} {roof:9.3f} "
              f"{us / roof:8.2f} {rate / 1e9:7.0f} {rate / hbm:6.1%} {band_text:>10s} "
              f"{mark:>7s}{flag}")
    print()
    print("published bands (MindSpore ResNet-50 / InceptionV3 "
          "training steps on an Ascend 910, fp16, batch 16-64):")
    print("  3x3 convs (forward)             55-80 TFLOPS (22-30% of 256)")
    print("  1x1 convs, 64-128 input chans   12-25 TFLOPS")
    print("  7x7 stem                        ~110 TFLOPS on 16 padded channels, ~21 on its 3 "
          "real ones (checked here as 17-25)")
    print("  memory-bound kernels            30-70% of HBM bandwidth (batch-norm + relu, adds)")
    print("  tiny kernels                    1.5-5 us each")
    print("  a plain per-kernel roofline: median kernel 3-4x its roofline time, tiny ones "
          "over 50x")
    if faster_than_roofline:
        print(f"! faster than their roofline: {', '.join(faster_than_roofline)}")


# --------------------------------------------------------------------------------------
# schedules
# --------------------------------------------------------------------------------------


def inception(labels: bool) -> ModuleOp:
    """Four Inception modules (GoogLeNet 3a, 3b, max pool, 4a, 4b) at 1x192x28x28 fp16."""
    rng = np.random.default_rng(2)
    b = GraphBuilder("inception")
    x = b.input("x", [1, 192, 28, 28], "f16")

    def conv_relu(x: Tensor, cout: int, k: int) -> Tensor:
        w = weight(b, rng, (cout, x.shape[1], k, k))
        bias = b.const((rng.standard_normal(cout) * 0.1).astype(np.float16))
        return b.relu(b.conv2d(x, w, bias, pads=[k // 2] * 4))

    def module(x: Tensor, c1: int, r3: int, c3: int, r5: int, c5: int, pool: int) -> Tensor:
        branches = [
            lambda: conv_relu(x, c1, 1),
            lambda: conv_relu(conv_relu(x, r3, 1), c3, 3),
            lambda: conv_relu(conv_relu(x, r5, 1), c5, 5),
            lambda: conv_relu(b.max_pool(x, [3, 3], [1, 1], [1] * 4), pool, 1),
        ]
        outs = []
        for i, branch in enumerate(branches, 1):
            if labels:
                with b.stream_switch(f"b{i}"):
                    outs.append(branch())
            else:
                outs.append(branch())
        return b.concat(outs, axis=1)

    x = module(x, 64, 96, 128, 16, 32, 32)  # 3a -> 256
    x = module(x, 128, 128, 192, 32, 96, 64)  # 3b -> 480
    x = b.max_pool(x, [3, 3], [2, 2], [1] * 4)  # -> 14x14
    x = module(x, 192, 96, 208, 16, 48, 64)  # 4a -> 512
    x = module(x, 160, 112, 224, 24, 64, 64)  # 4b -> 512
    return b.build([x], ["y"])


def attention(labels: bool, heads: int = 4, tokens: int = 512, width: int = 512) -> ModuleOp:
    """Multi-head attention as MatMuls, one branch per head."""
    rng = np.random.default_rng(3)
    b = GraphBuilder("attention")
    x = b.input("x", [tokens, width], "f16")
    dh = width // heads

    def head() -> Tensor:
        q, k, v = (b.matmul(x, weight(b, rng, (width, dh))) for _ in range(3))
        p = b.softmax(b.matmul(q, k, transpose_b=True), axis=-1)
        return b.matmul(p, v)

    outs = []
    for h in range(heads):
        if labels:
            with b.stream_switch(f"h{h}"):
                outs.append(head())
        else:
            outs.append(head())
    y = b.matmul(b.concat(outs, axis=1), weight(b, rng, (width, width)))
    return b.build([y], ["y"])


def schedule_graphs() -> list[tuple[str, Callable[[bool], ModuleOp]]]:
    """(name, make(labels)) of each graph; a built graph has stream labels only when
    `labels`, an example is as its file is."""

    def example(file: str) -> Callable[[bool], ModuleOp]:
        path = os.path.join(ROOT, "examples", file)

        def make(labels: bool) -> ModuleOp:  # as it is, whatever `labels`
            return api.load(path)

        return make

    return [
        ("resnet_block.mlir", example("resnet_block.mlir")),
        ("torchair_multistream.mlir", example("torchair_multistream.mlir")),
        ("inception x4 (1x192x28x28 f16)", inception),
        ("attention 4 heads (512x512 f16)", attention),
    ]


def section_schedules(profile: DeviceProfile) -> None:
    print("== schedules: makespan per stream mode (after canonicalize,cse,fuse,to-nc1hwc0; "
          "timing only)")
    print(f"{'graph':32s} {'mode':>6s} {'strms':>5s} {'launch':>6s} {'events':>6s} "
          f"{'makespan us':>11s} {'bound us':>9s} {'limited by':>14s} {'span/bnd':>8s} "
          f"{'speed-up':>8s}")
    flagged = []
    for name, make in schedule_graphs():
        single = None
        for mode in MODES:
            # the examples run as they are (labels removed for mode=single, which refuses
            # them); the built graphs carry labels for labels mode only
            module = api.compile(make(mode == "labels"), PREFIX)
            if mode == "single":  # after cse, which would merge ops the labels keep apart
                strip_labels(module)
            api.compile(module, f"assign-streams{{mode={mode}}},lower-to-device")
            program = api.device_program(module)
            report = api.simulate(program, timing_only=True, profile=profile).report
            makespan, bound = report.makespan, report.lower_bound
            if single is None:
                single = makespan
            ratio = makespan / bound if bound else float("nan")
            speedup = single / makespan if makespan else float("nan")
            marks = []
            if makespan < bound - 1e-9:
                marks.append("below its bound")
            if speedup < 0.9:
                marks.append("slower than single")
            mark = f"  ! {', '.join(marks)}" if marks else ""
            if marks:
                flagged.append(f"{name} {mode}: {', '.join(marks)}")
            goal = "" if ratio <= GOAL else " >"
            print(f"{name if mode == 'single' else '':32s} {mode:>6s} {len(program.streams):5d} "
                  f"{report.launches:6d} {report.records:6d} {makespan:11.1f} {bound:9.1f} "
                  f"{report.limited_by:>14s} {ratio:8.3f} {speedup:7.2f}x{goal}{mark}")
    print(f"(span/bnd: makespan / lower bound, `>` above the goal of {GOAL}; speed-up: "
          "single's makespan / this mode's)")
    if flagged:
        print("! " + "; ".join(flagged))


# --------------------------------------------------------------------------------------
# speed
# --------------------------------------------------------------------------------------


def chain_and_wide(chain: int, wide: int) -> ModuleOp:
    """A chain of `chain` alternating relu / sigmoid ops and, beside it, a relu fanning out
    to `wide - 1` sigmoids, every one a result (1x16x8x8 f32)."""
    b = GraphBuilder("generated")
    x = b.input("x", [1, 16, 8, 8])
    outs = []
    if chain:
        y = x
        for i in range(chain):
            y = b.relu(y) if i % 2 == 0 else b.sigmoid(y)
        outs.append(y)
    if wide:
        r = b.relu(x)
        outs += [r] + [b.sigmoid(r) for _ in range(wide - 1)]
    return b.build(outs)


def section_speed(n: int, repeat: int, clock: Callable[[], float]) -> None:
    print(f"== speed: the simulator on this machine ({clock.__name__}, best of {repeat})")
    half = n // 2
    for name, chain, wide in (
        ("chain (relu/sigmoid)", half, 0),
        ("wide (fan-out)", 0, half),
        ("chain + wide, one program", half, n - half),
    ):
        module = chain_and_wide(chain, wide)
        start = clock()
        api.compile(module, "assign-streams{mode=auto},lower-to-device")
        program = api.device_program(module)
        prepare = clock() - start
        count = sum(t.kind == "launch" for t in program.tasks)
        fns = [partial(api.simulate, program, timing_only=True)]
        if CHECKER:
            fns.append(partial(api.simulate, program, timing_only=True, check=False))
        times, results = measure_together(fns, repeat, clock)
        seconds, result = times[0], results[0]
        unchecked = ""
        if CHECKER:
            unchecked = (f"; without the memory checker {times[1] * 1e3:.1f} ms = "
                         f"{count / times[1]:.0f} launches/s")
        print(f"  {name:26s} {count:6d} launches, {len(program.tasks):6d} tasks, "
              f"{len(program.streams)} stream(s): timing-only {seconds * 1e3:6.1f} ms = "
              f"{count / seconds:7.0f} launches/s ({seconds / len(program.tasks) * 1e6:.1f} us "
              f"per task{unchecked}; compile + read {prepare:.1f} s; makespan "
              f"{result.report.makespan:.0f} us)")

    from run import resnet18

    module = api.load(resnet18())
    api.compile(module, api.DEFAULT_PIPELINE + ",lower-to-device")
    program = api.device_program(module)
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    first = api.simulate(program, {"input": x})  # warm up: weights read, weight matrices
    inputs, order = first.inputs, first.order
    runs: list[Callable[[], object]] = [
        lambda: api.simulate(program, inputs),
        lambda: executor.execute(program, inputs, order),
        lambda: api.simulate(program, timing_only=True),
    ]
    if CHECKER:
        runs.append(lambda: api.simulate(program, inputs, check=False))
    times, _ = measure_together(runs, max(repeat, 5), clock)
    t_full, t_numbers, t_timing = times[:3]
    count = sum(t.kind == "launch" for t in program.tasks)
    print(f"  ResNet-18 1x3x224x224 f32 ({count} launches, {len(program.tasks)} tasks): "
          f"simulate {t_full * 1e3:.1f} ms, numbers alone (executor.execute) "
          f"{t_numbers * 1e3:.1f} ms, ratio {t_full / t_numbers:.3f} "
          f"(timing{' and checking' if CHECKER else ''} add {(t_full - t_numbers) * 1e3:.1f} ms; "
          f"timing-only alone {t_timing * 1e3:.1f} ms, {t_timing / t_numbers:.1%} of the numbers' "
          "time: the difference of two runs of the kernels is within their noise)")
    if CHECKER:
        t_bare = times[3]
        print(f"  {'':26s} without the memory checker: simulate {t_bare * 1e3:.1f} ms, ratio "
              f"{t_bare / t_numbers:.3f} (timing adds {(t_bare - t_numbers) * 1e3:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=["all", "kernels", "schedules", "speed"],
                        default="all")
    parser.add_argument("--batch", type=int, default=32, help="batch of the kernel section")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--launches", type=int, default=10000,
                        help="launches of the speed section's generated programs, in all")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall-clock time (default, as bench/run.py) or the process's CPU time")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    profile = load_profile()
    sections = ["kernels", "schedules", "speed"] if args.section == "all" else [args.section]
    for i, section in enumerate(sections):
        if i:
            print()
        if section == "kernels":
            section_kernels(args.batch, profile)
        elif section == "schedules":
            section_schedules(profile)
        else:
            section_speed(args.launches, args.repeat, clock)


if __name__ == "__main__":
    main()
