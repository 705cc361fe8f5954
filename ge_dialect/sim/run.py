"""The whole run of a simulation, written once: for one program (`run_program`) and for
several ranks together (`run_ranks`).

A run is: the device's memory checked (`check_capacity`: every buffer must fit in the
profile's HBM, before anything is allocated), the inputs (checked, or seeded random ones),
the kernels' times on the device profile, the timeline (the discrete-event clock), the start
order it implies, the report (makespan against its lower bound), the race checker's
findings, and the numbers (the kernels in that start order), unless only the timing is
wanted.  `ge_dialect.api` reads the program and the profile and calls these; they print nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ge_dialect.sim.checker import check as check_races
from ge_dialect.sim.executor import execute, execute_ranks
from ge_dialect.sim.order import Finding
from ge_dialect.sim.profile import DeviceProfile
from ge_dialect.sim.program import Buffer, Program
from ge_dialect.sim.report import Report, make_ranks_report, make_report
from ge_dialect.sim.timeline import Timeline
from ge_dialect.sim.timing import (
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


def check_capacity(program: Program, device: DeviceProfile) -> None:
    """Refuses `program` when its buffers need more bytes than `device`'s HBM
    (`memory.hbm_size`): one `GeError` naming the total, the capacity and the largest
    buffers, located at the largest.  Every root buffer counts (inputs, outputs,
    allocations, weights; a view uses its root's bytes)."""
    roots = [b for b in program.buffers if b.root == b.index]
    total = sum(b.nbytes for b in roots)
    if total <= device.hbm_bytes:
        return
    largest = sorted(roots, key=lambda b: (-b.nbytes, b.index))[:LARGEST]
    listed = ", ".join(f"{_describe(b)} ({byte_text(b.nbytes)})" for b in largest)
    message = (
        f"the program's buffers need {byte_text(total)} ({total} bytes), more than the "
        f"{byte_text(device.hbm_bytes)} ({device.hbm_bytes} bytes) of HBM of '{device.name}' "
        f"(the profile's memory.hbm_size); the largest: {listed}"
    )
    where = largest[0].location
    raise GeError(f"{where}: error: {message}" if where else f"error: {message}")


def _describe(buffer: Buffer) -> str:
    """A buffer for messages: `input "x"`, `output "y"`, `alloc %big at f.mlir:4:5`."""
    if buffer.name:
        return f'{buffer.kind} "{buffer.name}"'
    what = f"{buffer.kind} {buffer.label}" if buffer.label else str(buffer.kind)
    return f"{what} at {buffer.location}" if buffer.location else what


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
) -> RanksResult:
    """Rank programs together on `topology`, all in one event loop; collectives meet across
    ranks at HCCL's cost and compute what the real ones would.  `inputs` are the whole
    model's (None: seeded random ones); rank r gets its slice of each input of `splits`
    (input name -> the dim split over ranks), the whole of the others."""
    for p in programs:
        check_capacity(p, device)
    n = len(programs)
    shapes = {}
    for name, (shape, dtype) in input_shapes(programs[0]).items():
        whole = list(shape)
        if name in splits:
            whole[splits[name]] *= n
        shapes[name] = (tuple(whole), dtype)
    values = random_inputs(shapes, seed) if inputs is None else checked_inputs(shapes, inputs)
    per_rank = [
        {
            name: np.split(v, n, axis=splits[name])[r] if name in splits else v
            for name, v in values.items()
        }
        for r in range(n)
    ]
    collectives = match_collectives(programs, topology)
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
    report = make_ranks_report(timelines, bounds, device, times, collectives, topology.name)
    return RanksResult(
        outputs[0],
        values,
        programs[0],
        orders[0],
        timelines[0],
        report,
        [f for run in runs for f in run.findings],
        runs,
        topology,
    )
