"""The whole run of a simulation, written once: for one program (`run_program`) and for
several ranks together (`run_ranks`).

A run is: the device's memory checked (`check_capacity`: the peak (arguments, weights,
the planned workspace) must fit in the profile's HBM, before anything is allocated; every
rank of a multi-rank run, whose collectives' buffers must also sit at one offset on every
member: `check_symmetric`), the inputs (checked, or seeded random ones),
the kernels' times on the device profile, the timeline (the discrete-event clock), the start
order it implies, the report (makespan against its lower bound), the race checker's
findings, and the numbers (the kernels in that start order), unless only the timing is
wanted.  `ge_dialect.api` reads the program and the profile and calls these; they print nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ge_dialect.sim.checker import check as check_races
from ge_dialect.sim.executor import execute, execute_ranks
from ge_dialect.sim.order import Finding
from ge_dialect.sim.profile import DeviceProfile
from ge_dialect.sim.program import ALLOC, INPUT, OUTPUT, VIEW, WEIGHT, Buffer, Program
from ge_dialect.sim.report import Report, make_ranks_report, make_report
from ge_dialect.sim.timeline import Timeline
from ge_dialect.sim.timing import (
    Collective,
    kernel_times,
    lower_bound,
    match_collectives,
    rank_kernel_times,
    simulate_ranks_time,
    simulate_time,
)
from ge_dialect.sim.topology import Topology
from ge_dialect.utils.errors import GeError

Shapes = Mapping[str, tuple[tuple[int, ...], np.dtype]]
"""Input name -> (logical shape, dtype), in the program's argument order."""


@dataclass
class SimResult:
    """What a simulation computed: the outputs (logical arrays by output name; empty with
    `timing_only`), the inputs it used (by input name), the program as the simulator read
    it, the order its tasks started in (task indices), the timeline (when each task ran),
    the report (makespan, lower bound, streams, units, cluster figures, ratios) and the race
    checker's findings (`sim.checker`: empty when the program has no race, or unchecked)."""

    outputs: dict[str, np.ndarray]
    inputs: dict[str, np.ndarray]
    program: Program
    order: list[int]
    timeline: Timeline
    report: Report
    findings: list[Finding] = field(default_factory=list)


@dataclass
class RanksResult(SimResult):
    """What `run_ranks` computed: the `SimResult` fields hold the whole run (the full
    inputs, the outputs every rank holds at the end, as rank 0 has them; rank 0's program,
    order and timeline; the cluster report of `sim.report.make_ranks_report`; every
    rank's findings), `ranks` each rank's own run (its inputs, outputs, timeline and
    single-rank report), `topology` the topology it ran on."""

    ranks: list[SimResult] = field(default_factory=list)
    topology: Any = None


def input_shapes(program: Program) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """The logical shape and dtype of each input of `program`, in argument order."""
    shapes = {}
    for i in program.inputs:
        buffer = program.buffers[i]
        assert buffer.logical is not None
        shapes[buffer.name] = (tuple(buffer.logical.shape), buffer.logical.dtype)
    return shapes


def random_inputs(shapes: Shapes, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded inputs of `shapes`: floats ~ U(-1, 1), integers in [0, 2) (valid indices of
    any table of two rows or more, and 0/1 masks: token ids, attention masks, token types),
    booleans fair, drawn in argument order; an input the host cannot hold is a `GeError`."""
    rng = np.random.default_rng(seed)
    values = {}
    for name, (shape, dtype) in shapes.items():
        try:
            if dtype.kind == "f":
                values[name] = rng.uniform(-1, 1, shape).astype(dtype)
            elif dtype.kind == "b":
                values[name] = rng.integers(0, 2, shape).astype(bool)
            else:
                values[name] = rng.integers(0, 2, shape).astype(dtype)
        except (MemoryError, ValueError):
            raise GeError(
                f"error: cannot draw input '{name}' of shape {list(shape)} ({dtype}): the host "
                "running the simulator cannot allocate it"
            ) from None
    return values


def checked_inputs(shapes: Shapes, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """`inputs` as arrays of each input's logical shape and dtype; a missing, unknown,
    misshapen or ill-typed entry is a `GeError` naming it."""
    if unknown := sorted(set(inputs) - set(shapes)):
        raise GeError(
            f"error: unknown input '{unknown[0]}'; the program's inputs are "
            f"{', '.join(shapes) or '(none)'}"
        )
    checked = {}
    for name, (shape, dtype) in shapes.items():
        if name not in inputs:
            raise GeError(f"error: missing input '{name}' (shape {list(shape)}, dtype {dtype})")
        value = np.asarray(inputs[name])
        if value.shape != shape:
            raise GeError(
                f"error: input '{name}' has shape {list(value.shape)}, expected {list(shape)}"
            )
        if not np.can_cast(value.dtype, dtype, "same_kind"):
            raise GeError(f"error: input '{name}' has dtype {value.dtype}, expected {dtype}")
        checked[name] = value.astype(dtype, copy=False)
    return checked


LARGEST = 3
"""How many of the largest buffers a capacity error names."""


def check_capacity(program: Program, device: DeviceProfile, rank: int | None = None) -> None:
    """Refuses `program` when its peak memory exceeds `device`'s HBM (`memory.hbm_size`).

    The peak is every root buffer's bytes (the simulator reserves them all at once): the
    arguments, the weights, and the allocations (after `plan-memory`, one workspace of the
    planned peak; communication buffers are among them).  One `GeError` names the peak,
    the capacity and the largest buffers live at the point of the task list where the most
    activation bytes are live (each with the op that makes it), located at the task live
    there (else at the largest buffer); `rank` (a multi-rank run) is named too."""
    roots = [b for b in program.buffers if b.root == b.index]
    total = sum(b.nbytes for b in roots)
    if total <= device.hbm_bytes:
        return
    at, live = _live_at_peak(program)
    always = [b for b in roots if b.kind in (INPUT, OUTPUT, WEIGHT)]
    largest = sorted(always + live, key=lambda b: (-b.nbytes, b.index))[:LARGEST]
    maker = _makers(program)
    listed = ", ".join(
        f"{_name(b)} ({byte_text(b.nbytes)}{maker.get(b.index, '')})" for b in largest
    )
    weights = sum(b.nbytes for b in roots if b.kind == WEIGHT)
    args = sum(b.nbytes for b in roots if b.kind in (INPUT, OUTPUT))
    who = f"rank {rank}: " if rank is not None else ""
    task = program.tasks[at] if at is not None else None
    where_live = f" (at {task.describe()})" if task is not None else ""
    message = (
        f"{who}the program's peak memory is {byte_text(total)} ({total} bytes: weights "
        f"{weights}, arguments {args}, workspace and other allocations "
        f"{total - weights - args}), more than the {byte_text(device.hbm_bytes)} "
        f"({device.hbm_bytes} bytes) of HBM of '{device.name}' (the profile's "
        f"memory.hbm_size); the largest live at the peak{where_live}: {listed}"
    )
    where = task.location if task is not None and task.location else largest[0].location
    raise GeError(f"{where}: error: {message}" if where else f"error: {message}")


def check_symmetric(programs: Sequence[Program], collectives: Sequence[Collective]) -> None:
    """Refuses rank programs whose collectives' buffers are not at one offset on every
    member (symmetric memory, as `plan-memory` lays out rank programs): for each operand of
    each collective (a send's input and its receive's output are one), the byte offset in
    the workspace of every member.  Operands that are not in a planned workspace on every
    member (arguments, unplanned programs) are not compared.  One `GeError` located at the
    collective names the operand, every member and its offset."""
    for c in collectives:
        tasks = {r: programs[r].tasks[i] for r, i in sorted(c.tasks.items())}
        if c.kernel == "hcom_send":
            operands = {r: (*t.inputs, *t.outputs)[:1] for r, t in tasks.items()}
            names = ["the message"]
        else:
            operands = {r: (*t.inputs, *t.outputs) for r, t in tasks.items()}
            lead = tasks[min(tasks)]
            names = [f"input {i}" for i in range(len(lead.inputs))]
            names += [f"output {j}" for j in range(len(lead.outputs))]
        for k, name in enumerate(names):
            at = {r: _workspace_offset(programs[r], ops[k]) for r, ops in operands.items()}
            offsets = [o for o in at.values() if o is not None]
            if len(offsets) < len(at) or len(set(offsets)) == 1:
                continue
            listed = ", ".join(f"rank {r} at {o:#x}" for r, o in at.items())
            raise GeError(
                f"{c.location}: error: symmetric memory: {name} of {c.kind} {c.seq} of group "
                f"'{c.group}' ('{c.kernel}') is not at one offset on every member: {listed}"
            )


def _workspace_offset(program: Program, index: int) -> int | None:
    """The byte offset of buffer `index` in the planned workspace (None: not planned)."""
    buffer = program.buffers[index]
    if not program.memory or program.buffers[buffer.root].kind != ALLOC:
        return None
    return buffer.offset


def _piece_of(program: Program) -> dict[int, int]:
    """Buffer index -> the activation buffer its bytes belong to: in a planned program
    (`plan-memory`'s workspace) the planned buffer, a view of the workspace (a view of a
    view counts for the one it views); otherwise the allocation."""
    buffers = program.buffers
    piece: dict[int, int] = {}
    for b in buffers:
        if buffers[b.root].kind != ALLOC:
            continue
        if not program.memory:
            piece[b.index] = b.root
            continue
        top = b
        while top.source is not None and buffers[top.source].kind == VIEW:
            top = buffers[top.source]
        piece[b.index] = top.index
    return piece


def _live_at_peak(program: Program) -> tuple[int | None, list[Buffer]]:
    """The task (issue index) where the most activation bytes are live (each from the
    first to the last task accessing it, in issue order; the earliest such task) and the
    activation buffers live there."""
    piece = _piece_of(program)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for t in program.tasks:
        for i in (*t.inputs, *t.outputs):
            if (b := piece.get(i)) is not None:
                first.setdefault(b, t.index)
                last[b] = t.index
    if not first:
        return None, []
    delta = [0] * (len(program.tasks) + 1)
    for b, start in first.items():
        delta[start] += program.buffers[b].nbytes
        delta[last[b] + 1] -= program.buffers[b].nbytes
    best, best_at, running = -1, 0, 0
    for i in range(len(program.tasks)):
        running += delta[i]
        if running > best:
            best, best_at = running, i
    live = sorted(b for b in first if first[b] <= best_at <= last[b])
    return best_at, [program.buffers[b] for b in live]


def _makers(program: Program) -> dict[int, str]:
    """Buffer index -> `, made by 'kernel' at file:line:col`: the first launch writing it
    (or a view of it that counts for it); weights and inputs: none."""
    piece = _piece_of(program)
    made: dict[int, str] = {}
    for t in program.tasks:
        for i in t.outputs:
            b = piece.get(i, i)
            if b not in made and t.kernel:
                made[b] = f", made by '{t.kernel}' at {t.location}"
    return made


def _name(buffer: Buffer) -> str:
    """A buffer's short name for messages: `input "x"`, `alloc %big`, `view %3`."""
    if buffer.name:
        return f'{buffer.kind} "{buffer.name}"'
    return f"{buffer.kind} {buffer.label}" if buffer.label else f"{buffer.kind} {buffer.index}"


def byte_text(n: int) -> str:
    """A byte count in the largest binary unit it reaches, 2 decimals: `4.00 PiB`."""
    for unit, shift in (("EiB", 60), ("PiB", 50), ("TiB", 40), ("GiB", 30), ("MiB", 20)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.2f} {unit}"
    return f"{n / 1024:.2f} KiB" if n >= 1024 else f"{n} B"


def run_program(
    program: Program,
    inputs: dict[str, np.ndarray],
    device: DeviceProfile,
    *,
    timing_only: bool = False,
    check: bool = True,
) -> SimResult:
    """One program on `device`: its timeline, report and (with `check`) race findings, and
    unless `timing_only` its numbers, the kernels started in the timeline's order.  A
    program that does not fit in the device's HBM is a `GeError` (`check_capacity`)."""
    check_capacity(program, device)
    times = kernel_times(program, device)
    timeline = simulate_time(program, device, times)
    order = sorted(range(len(program.tasks)), key=lambda i: (timeline.intervals[i].start, i))
    report = make_report(timeline, lower_bound(program, device, times), device, times)
    findings = check_races(program, order) if check else []
    outputs = {} if timing_only else execute(program, inputs, order)
    return SimResult(outputs, inputs, program, order, timeline, report, findings)


def run_ranks(
    programs: list[Program],
    splits: Mapping[str, int],
    inputs: Mapping[str, Any] | None,
    device: DeviceProfile,
    topology: Topology,
    *,
    timing_only: bool = False,
    check: bool = True,
    seed: int = 0,
    parts: Sequence[tuple[int, int]] | None = None,
    stages: Sequence[int] | None = None,
    micro_batches: int = 1,
) -> RanksResult:
    """Rank programs together on `topology`, all in one event loop; collectives meet across
    ranks at HCCL's cost and compute what the real ones would.  `inputs` are the whole
    model's (None: seeded random ones); rank r gets its slice of each input of `splits`
    (input name -> the dim split over ranks), the whole of the others; `parts` gives per
    rank (index, count) of its slice when it is not (r, ranks) (data parallel composed
    with tensor parallel: the ranks of one tensor-parallel group share a slice); `stages`
    (each rank's pipeline stage, of a step of `micro_batches`) adds the pipeline's bubble
    to the report."""
    for r, p in enumerate(programs):
        check_capacity(p, device, r)
    n = len(programs)
    part = list(parts) if parts is not None else [(r, n) for r in range(n)]
    shapes = {}
    for name, (shape, dtype) in input_shapes(programs[0]).items():
        whole = list(shape)
        if name in splits:
            whole[splits[name]] *= part[0][1]
        shapes[name] = (tuple(whole), dtype)
    values = random_inputs(shapes, seed) if inputs is None else checked_inputs(shapes, inputs)
    per_rank = [
        {
            name: np.split(v, count, axis=splits[name])[index] if name in splits else v
            for name, v in values.items()
        }
        for index, count in part
    ]
    collectives = match_collectives(programs, topology)
    check_symmetric(programs, collectives)
    times = rank_kernel_times(programs, device, collectives)
    timelines = simulate_ranks_time(programs, device, collectives, times)
    bounds = [lower_bound(p, device, t) for p, t in zip(programs, times, strict=True)]
    orders = [
        sorted(range(len(p.tasks)), key=[(i.start, i.task) for i in t.intervals].__getitem__)
        for p, t in zip(programs, timelines, strict=True)
    ]
    outputs = (
        [{} for _ in programs]
        if timing_only
        else execute_ranks(programs, per_rank, orders, [c.tasks for c in collectives])
    )
    runs = []
    for r, p in enumerate(programs):
        findings = check_races(p, orders[r]) if check else []
        report = make_report(timelines[r], bounds[r], device, times[r])
        runs.append(
            SimResult(outputs[r], per_rank[r], p, orders[r], timelines[r], report, findings)
        )
    report = make_ranks_report(
        timelines, bounds, device, times, collectives, topology.name, stages, micro_batches
    )
    # the model's outputs: rank 0's, or with pipeline stages the first rank holding outputs
    # (the last stage's)
    main = next((r for r, p in enumerate(programs) if p.outputs), 0)
    return RanksResult(
        outputs[main],
        values,
        programs[0],
        orders[0],
        timelines[0],
        report,
        [f for run in runs for f in run.findings],
        runs,
        topology,
    )
