"""The simulated NPU's clock: a discrete-event simulation of a program on a device profile.

**Streams and events.**  Each stream runs its tasks in issue order.  A task is *ready*
when its stream's previous task has ended; a record then takes `event_record` and marks its
event recorded at its end (an event stays recorded: ids are used once per program); a wait
ends `event_wait` after both it is ready and its event is recorded.  A launch or copy is
dispatched `launch_overhead` after it is ready, then its blocks (`sim.kernel_model`) run
on cores of its unit.

**Cores.**  Cube and vector blocks run on the profile's cores (one pool of `cube_cores`
when `shared_cores`, as on Ascend 910 where an AI core runs either; two pools otherwise);
collectives on one comm engine, one at a time.  Whenever cores are free, the waiting
kernels take them in order of priority (a smaller value is more urgent), then of the time
they became ready, then of issue: a kernel takes as many free cores as it has blocks left
and runs them as one wave; when the wave ends its cores go to the most urgent kernel again
(so two kernels on different streams share the cores, and the tail of one kernel's last
wave leaves cores to another's first).  A kernel ends with its last wave.

**Time of a block**: `max(compute, hbm_bytes / share) + block_overhead + memory_latency`,
where `share = min(core_bandwidth, hbm_bandwidth / running blocks)` is its share of HBM
when its wave starts (the blocks of every running kernel count).  So concurrent kernels
slow each other down only where they contend for cores or for HBM, and multi-stream pays
off while cores idle, as GE documents.  The timeline never depends on the numbers.

`lower_bound` is the larger of the critical path (every task at its shortest possible
duration, along stream order and record -> wait edges) and each pool's work over its cores;
the simulated makespan is never below it (a property test checks).  Linear in tasks and
waves (times the log of the number of ready kernels).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from ge_dialect.sim.executor import SimulationError, _deadlock, start_order
from ge_dialect.sim.kernel_model import KernelTime, kernel_time
from ge_dialect.sim.profile import DeviceProfile
from ge_dialect.sim.program import Program, Task
from ge_dialect.sim.timeline import Flow, Interval, Timeline

US = 1e6  # seconds -> microseconds


@dataclass
class _Kernel:
    task: Task
    time: KernelTime
    pool: str
    ready: float  # when its stream reached it (microseconds)
    left: int  # blocks not started
    running: int = 0  # waves running
    start: float = -1.0
    cores: int = 0
    memory: float = 0.0  # the first wave's HBM time of a block (microseconds), for the trace
    core_time: float = 0.0  # blocks x their time (microseconds)

    def key(self) -> tuple[int, float, int]:
        return (self.task.priority, self.ready, self.task.index)


def pools(profile: DeviceProfile) -> dict[str, int]:
    """Core pools and their sizes: `core` (shared by cube and vector) or `cube` and
    `vector`, and `comm`."""
    if profile.shared_cores:
        return {"core": profile.cube_cores, "comm": 1}
    return {"cube": profile.cube_cores, "vector": profile.vector_cores, "comm": 1}


def pool_of(unit: str, profile: DeviceProfile) -> str:
    if unit == "comm":
        return "comm"
    return "core" if profile.shared_cores else unit


def kernel_times(program: Program, profile: DeviceProfile) -> list[KernelTime | None]:
    """The blocks of every launch and copy of `program` (None for records and waits)."""
    return [
        kernel_time(t, profile) if t.kind in ("launch", "copy") else None for t in program.tasks
    ]


def min_block(k: KernelTime, profile: DeviceProfile) -> float:
    """The shortest time a block of `k` can take (seconds): its whole core bandwidth."""
    memory = k.hbm_bytes / profile.core_bandwidth if k.unit != "comm" else 0.0
    return max(k.compute, memory) + _block_extra(k, profile)


def _block_extra(k: KernelTime, profile: DeviceProfile) -> float:
    if k.unit == "comm":
        return 0.0
    return profile.block_overhead + (profile.memory_latency if k.hbm_bytes else 0.0)


def simulate_time(
    program: Program, profile: DeviceProfile, times: list[KernelTime | None] | None = None
) -> Timeline:
    """The timeline of `program` on `profile` (raises `SimulationError` on a deadlock)."""
    tasks = program.tasks
    times = kernel_times(program, profile) if times is None else times
    capacity = pools(profile)
    free = dict(capacity)
    queues: dict[int, list[Task]] = {}
    for task in tasks:
        queues.setdefault(task.stream, []).append(task)
    position = dict.fromkeys(queues, 0)
    stream_free = dict.fromkeys(queues, 0.0)  # when the stream's previous task ended
    recorded: dict[int, tuple[float, int]] = {}  # event -> (time, record task)
    blocked: dict[int, list[int]] = {}  # event -> streams waiting at a wait for it
    intervals: list[Interval | None] = [None] * len(tasks)
    flows: list[Flow] = []
    heap: list[tuple[float, int, int, _Kernel, int]] = []  # (time, seq, kind, kernel, blocks)
    seq = 0
    waiting: list[tuple[tuple[int, float, int], _Kernel]] = []  # ready kernels, by key
    running_blocks = 0
    launch = profile.launch_overhead * US

    def push(time: float, kind: int, kernel: _Kernel, blocks: int = 0) -> None:
        nonlocal seq
        heapq.heappush(heap, (time, seq, kind, kernel, blocks))
        seq += 1

    def advance(first: int) -> None:
        """Runs stream `first` from its current task up to a kernel or an unrecorded wait,
        and then every stream a record on the way released (a worklist, not recursion: a
        chain of events across streams can be as long as the program)."""
        todo = [first]
        while todo:
            _advance(todo.pop(), todo)

    def _advance(s: int, todo: list[int]) -> None:
        queue = queues[s]
        while position[s] < len(queue):
            task = queue[position[s]]
            ready = stream_free[s]
            if task.kind == "record":
                end = ready + profile.event_record * US
                intervals[task.index] = Interval(task.index, s, "event", ready, ready, end)
                stream_free[s] = end
                position[s] += 1
                if task.event not in recorded:
                    recorded[task.event] = (end, task.index)
                    todo.extend(reversed(blocked.pop(task.event, [])))
                continue
            if task.kind == "wait":
                if task.event not in recorded:
                    blocked.setdefault(task.event, []).append(s)
                    return
                when, record = recorded[task.event]
                end = max(ready, when) + profile.event_wait * US
                intervals[task.index] = Interval(task.index, s, "event", ready, ready, end)
                flows.append(Flow(record, task.index, task.event))
                stream_free[s] = end
                position[s] += 1
                continue
            k = times[task.index]
            assert k is not None
            kernel = _Kernel(task, k, pool_of(k.unit, profile), ready, k.blocks)
            push(ready + launch, 0, kernel)
            return

    def dispatch(now: float) -> None:
        nonlocal running_blocks
        if not waiting:
            return
        waiting.sort(key=lambda item: item[0])
        for _, kernel in list(waiting):
            pool = kernel.pool
            n = min(kernel.left, free[pool])
            if n <= 0:
                continue
            free[pool] -= n
            kernel.left -= n
            kernel.running += 1
            k = kernel.time
            memory = 0.0
            if k.unit == "comm":
                block = k.compute
            else:
                running_blocks += n
                share = min(profile.core_bandwidth, profile.sustained_bandwidth / running_blocks)
                memory = k.hbm_bytes / share
                block = max(k.compute, memory) + _block_extra(k, profile)
            if kernel.start < 0:
                kernel.start, kernel.memory = now, memory * US
            kernel.cores = max(kernel.cores, n)
            kernel.core_time += n * block * US
            push(now + block * US, 1, kernel, n)
        waiting[:] = [item for item in waiting if item[1].left > 0]

    for s in sorted(queues):
        advance(s)
    while heap:
        now, _, kind, kernel, blocks = heapq.heappop(heap)
        if kind == 0:  # dispatched: its blocks wait for cores
            waiting.append((kernel.key(), kernel))
        else:  # a wave ended
            free[kernel.pool] += blocks
            if kernel.time.unit != "comm":
                running_blocks -= blocks
            kernel.running -= 1
            if kernel.left == 0 and kernel.running == 0:
                task = kernel.task
                k = kernel.time
                intervals[task.index] = Interval(
                    task.index,
                    task.stream,
                    k.unit,
                    kernel.ready,
                    kernel.start,
                    now,
                    k.blocks,
                    kernel.cores,
                    k.compute * US,
                    kernel.memory,
                    kernel.core_time,
                )
                stream_free[task.stream] = now
                position[task.stream] += 1
                advance(task.stream)
        # everything that ends or becomes ready at `now` first, then hand out cores
        if not heap or heap[0][0] > now:
            dispatch(now)
    if any(i is None for i in intervals):
        schedule = start_order(program)
        findings = schedule.findings or [
            _deadlock(program, queues, {s: position[s] for s in queues})
        ]
        raise SimulationError(findings)
    return Timeline(program, [i for i in intervals if i is not None], flows, device=profile.name)


@dataclass
class Bound:
    """The makespan's lower bound and its parts (microseconds)."""

    critical_path: float
    pool_work: dict[str, float] = field(default_factory=dict)  # work / cores, per pool

    @property
    def value(self) -> float:
        return max(self.critical_path, *self.pool_work.values(), 0.0)

    @property
    def limited_by(self) -> str:
        """ "critical path" or the pool whose work bounds the makespan."""
        best = max(self.pool_work.items(), key=lambda kv: (kv[1], kv[0]), default=("", 0.0))
        return "critical path" if self.critical_path >= best[1] else f"{best[0]} work"


def lower_bound(
    program: Program, profile: DeviceProfile, times: list[KernelTime | None] | None = None
) -> Bound:
    """The larger of the critical path and each pool's work over its cores (see the module
    docstring); no run can be shorter."""
    times = kernel_times(program, profile) if times is None else times
    capacity = pools(profile)
    work = dict.fromkeys(capacity, 0.0)
    shortest: list[float] = []
    for task, k in zip(program.tasks, times, strict=True):
        if k is None:
            cost = profile.event_record if task.kind == "record" else profile.event_wait
            shortest.append(cost * US)
            continue
        pool = pool_of(k.unit, profile)
        block = min_block(k, profile)
        waves = -(-k.blocks // capacity[pool])
        shortest.append(profile.launch_overhead * US + waves * block * US)
        work[pool] += k.blocks * block * US
    schedule = start_order(program)
    if schedule.findings:
        raise SimulationError(schedule.findings)
    finish = [0.0] * len(program.tasks)
    last_on: dict[int, float] = {}
    recorded: dict[int, float] = {}
    for index in schedule.order:
        task = program.tasks[index]
        begin = last_on.get(task.stream, 0.0)
        if task.kind == "wait":
            begin = max(begin, recorded.get(task.event, 0.0))
        finish[index] = begin + shortest[index]
        last_on[task.stream] = finish[index]
        if task.kind == "record":
            recorded.setdefault(task.event, finish[index])
    pool_work = {p: w / capacity[p] for p, w in work.items() if w > 0}
    return Bound(max(finish, default=0.0), pool_work)
