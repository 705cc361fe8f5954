"""TorchAir's `limit_core_num` and `super_kernel` in the time model (`sim.kernel_model`,
`sim.timing`), on `npu` programs whose launches carry the scope attributes:

- a launch limited to k cores holds at most k cores and takes exactly what the model gives
  the same launch on a device of k cores (cube and vector kernels, shared and separate core
  pools); two streams limited to half the cores each start together;
- out-of-range limits are one located error;
- a super kernel scope's consecutive launches on a stream pay one launch overhead: the
  makespan of a chain drops by the launch overheads saved, counted from the profile; a
  launch of another scope, or a record between, starts a new kernel;
- the lower bound stays below the makespan.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, StringAttr

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.dialects import npu
from ge_dialect.sim.profile import DeviceProfile, load_profile
from ge_dialect.sim.program import Program, Task
from ge_dialect.sim.timing import lower_bound, super_kernel_continued
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.task_order import LAUNCH, RECORD

F16 = np.dtype(np.float16)
FS_PER_S = 10**15


def matmul_graph(n: int = 512, streams: int = 0) -> ModuleOp:
    """x @ w (one launch), or with `streams` = 2 two independent matmuls on streams s0, s1."""
    b = GraphBuilder("main")
    x = b.input("x", [n, n], F16)
    w = b.input("w", [n, n], F16)
    if not streams:
        return b.build([b.matmul(x, w)])
    outs = []
    for i in range(streams):
        with b.stream_switch(f"s{i}"):
            outs.append(b.matmul(x, w) if i == 0 else b.matmul(w, x))
    return b.build(outs)


def relu_chain(length: int, shape: tuple[int, ...] = (1, 64, 32, 32)) -> ModuleOp:
    b = GraphBuilder("main")
    y = b.input("x", list(shape))
    for _ in range(length):
        y = b.relu(y)
    return b.build([y])


def lowered(module: ModuleOp, *scopes: dict[str, str], streams: str = "labels") -> ModuleOp:
    """`module` on the device, the k-th launch given the attributes `scopes[k]` (the last
    ones for the launches after)."""
    m = module.clone()
    api.compile(m, f"assign-streams{{mode={streams}}},lower-to-device")
    launches = [op for op in m.walk() if isinstance(op, npu.LaunchOp)]
    for k, launch in enumerate(launches):
        if scopes:
            for name, value in scopes[min(k, len(scopes) - 1)].items():
                launch.attributes[name] = StringAttr(value)
    return m


def run(module: ModuleOp, profile: DeviceProfile | None = None) -> api.SimResult:
    return api.simulate(module, profile=profile, timing_only=True)


def launches(result: api.SimResult) -> list:
    return [
        i
        for t, i in zip(result.program.tasks, result.timeline.intervals, strict=True)
        if t.kind == LAUNCH
    ]


SHARED = load_profile(None)  # Ascend 910: 32 AI cores, each with a cube and a vector unit
SEPARATE = dataclasses.replace(SHARED, shared_cores=False, cube_cores=24, vector_cores=48)


def on_cores(profile: DeviceProfile, cube: int, vector: int) -> DeviceProfile:
    return dataclasses.replace(profile, cube_cores=cube, vector_cores=vector)


@pytest.mark.parametrize("k", [1, 5, 16])
def test_a_limited_matmul_takes_what_k_cores_take(k: int) -> None:
    full = run(lowered(matmul_graph()))
    limited = run(lowered(matmul_graph(), {"_op_aicore_num": str(k), "_op_vectorcore_num": "0"}))
    on_k = run(lowered(matmul_graph()), on_cores(SHARED, k, k))
    (f,), (lim,), (ref,) = launches(full), launches(limited), launches(on_k)
    assert f.cores == 32  # the 512^3 matmul fills the device when it may
    assert lim.cores == k and lim.blocks <= k
    assert limited.timeline.makespan_fs == on_k.timeline.makespan_fs
    assert (lim.start_fs, lim.end_fs, lim.blocks) == (ref.start_fs, ref.end_fs, ref.blocks)
    # HBM-bound on 16 cores and more (the share of bandwidth is what limits it), slower on fewer
    assert limited.timeline.makespan_fs >= full.timeline.makespan_fs
    assert limited.timeline.makespan_fs > full.timeline.makespan_fs or k == 16


def test_shared_cores_limit_vector_kernels_by_ai_cores() -> None:
    graph = relu_chain(1, (4, 64, 64, 64))
    full = run(lowered(graph))
    limited = run(lowered(graph, {"_op_aicore_num": "3", "_op_vectorcore_num": "0"}))
    on_3 = run(lowered(graph), on_cores(SHARED, 3, 3))
    assert launches(full)[0].cores > 3
    assert launches(limited)[0].cores == 3
    assert limited.timeline.makespan_fs == on_3.timeline.makespan_fs


def test_separate_pools_limit_each_unit_by_its_own_number() -> None:
    graph = relu_chain(1, (4, 64, 64, 64))
    scope = {"_op_aicore_num": "2", "_op_vectorcore_num": "6"}
    vector = run(lowered(graph, scope), SEPARATE)
    assert launches(vector)[0].cores == 6
    assert (
        vector.timeline.makespan_fs
        == run(lowered(graph), on_cores(SEPARATE, 24, 6)).timeline.makespan_fs
    )
    cube = run(lowered(matmul_graph(), scope), SEPARATE)
    assert launches(cube)[0].cores == 2
    assert (
        cube.timeline.makespan_fs
        == run(lowered(matmul_graph()), on_cores(SEPARATE, 2, 48)).timeline.makespan_fs
    )


def test_two_streams_limited_to_half_the_cores_run_side_by_side() -> None:
    half = SHARED.cube_cores // 2
    scope = {"_op_aicore_num": str(half), "_op_vectorcore_num": "0"}
    free = launches(run(lowered(matmul_graph(streams=2))))
    split = launches(run(lowered(matmul_graph(streams=2), scope)))
    # without a limit the first matmul takes every core and the second waits for it
    assert [i.cores for i in free] == [32, 32]
    assert free[1].start_fs >= free[0].end_fs
    # limited, each holds half and both start at once
    assert [i.cores for i in split] == [half, half]
    assert split[0].start_fs == split[1].start_fs
    assert split[1].start_fs < split[0].end_fs


@pytest.mark.parametrize(
    ("scope", "profile", "message"),
    [
        (
            {"_op_aicore_num": "33", "_op_vectorcore_num": "0"},
            SHARED,
            "op_aicore_num must be in [1, 32] (the device's AI cores), got 33",
        ),
        (
            {"_op_aicore_num": "0", "_op_vectorcore_num": "0"},
            SHARED,
            "op_aicore_num must be in [1, 32] (the device's AI cores), got 0",
        ),
        (
            {"_op_aicore_num": "8", "_op_vectorcore_num": "8"},
            SHARED,
            "op_vectorcore_num must be 0 on a device without separate vector cores",
        ),
        (
            {"_op_aicore_num": "8", "_op_vectorcore_num": "49"},
            SEPARATE,
            "op_vectorcore_num must be in [1, 48] (the device's vector cores), got 49",
        ),
        (
            {"_op_aicore_num": "8", "_op_vectorcore_num": "0"},
            SEPARATE,
            "op_vectorcore_num must be in [1, 48] (the device's vector cores), got 0",
        ),
        ({"_op_aicore_num": "eight"}, SHARED, "op_aicore_num must be a whole number, got 'eight'"),
    ],
)
def test_limits_out_of_range_are_located_errors(
    scope: dict[str, str], profile: DeviceProfile, message: str
) -> None:
    module = lowered(matmul_graph(64), {})
    for launch in module.walk():
        if isinstance(launch, npu.LaunchOp):
            launch.attributes.update({k: StringAttr(v) for k, v in scope.items()})
    with pytest.raises(GeError) as e:
        run(module, profile)
    text = str(e.value)
    assert "test_core_limit.py:" in text
    assert f"error: launch 'matmul' on stream 0: limit_core_num: {message}" in text


def test_a_super_kernel_chain_pays_one_launch() -> None:
    n = 5
    launch_fs = round(SHARED.launch_overhead * FS_PER_S)
    plain = run(lowered(relu_chain(n)))
    fused = run(lowered(relu_chain(n), {"_super_kernel_scope": "sk", "_super_kernel_options": ""}))
    saved = sum(super_kernel_continued(fused.program))
    assert saved == n - 1
    assert plain.timeline.makespan_fs - fused.timeline.makespan_fs == saved * launch_fs
    first, *rest = launches(fused)
    assert first.start_fs - first.ready_fs == launch_fs
    assert all(i.start_fs == i.ready_fs for i in rest)  # no launch overhead of their own


def test_scopes_and_records_break_a_super_kernel() -> None:
    sk = {"_super_kernel_scope": "a"}
    other = {"_super_kernel_scope": "b"}
    none = {"_super_kernel_scope": ""}
    fused = run(lowered(relu_chain(6), sk, sk, other, other, none, none))
    assert super_kernel_continued(fused.program) == [False, True, False, True, False, False]

    def task(index: int, stream: int, scope: str, kind=LAUNCH) -> Task:
        return Task(index, kind, stream, "here", scope={"_super_kernel_scope": scope})

    tasks = [
        task(0, 1, "a"),
        task(1, 2, "a"),
        task(2, 1, "a"),
        task(3, 1, "", RECORD),
        task(4, 1, "a"),
    ]
    program = Program("p", [], tasks, [], [], {})
    # stream 2's launch does not break stream 1's kernel; the record does
    assert super_kernel_continued(program) == [False, False, True, False, False]


@pytest.mark.parametrize("profile", [SHARED, SEPARATE])
def test_the_bound_stays_below_the_makespan(profile: DeviceProfile) -> None:
    cores = "2" if profile is SEPARATE else "0"
    scopes = (
        {"_op_aicore_num": "3", "_op_vectorcore_num": cores, "_super_kernel_scope": "sk"},
        {"_super_kernel_scope": "sk"},
    )
    for module in (lowered(relu_chain(4), *scopes), lowered(matmul_graph(256, 2), *scopes)):
        result = run(module, profile)
        bound = lower_bound(result.program, profile)
        assert bound.value_fs <= result.timeline.makespan_fs
