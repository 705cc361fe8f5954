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

**Time of a block**: after `block_overhead + memory_latency`, it computes for `compute`
while it moves `hbm_bytes` at its share of the bandwidth, and ends when both are done.  The
share is fluid: the sustained HBM bandwidth split equally among the blocks of every running
wave (capped by `core_bandwidth`), recomputed whenever a wave starts or ends, so the bytes
moved at any moment never exceed the sustained bandwidth.  So concurrent kernels slow each
other down only where they contend for cores or for HBM, and multi-stream pays off while
cores idle, as GE documents.  The timeline never depends on the numbers.

`lower_bound` is the largest of the critical path (every task at its shortest possible
duration, along stream order and record -> wait edges), each pool's work over its cores,
and all bytes over the sustained bandwidth; the simulated makespan is never below it (a
property test checks).  Linear in tasks and
waves (times the log of the number of ready kernels).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from ge_dialect.sim.executor import SimulationError, deadlock, kernel_error, start_order
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
    memory: float = 0.0  # the first wave's time from its overheads to its end (us), for the trace
    core_time: float = 0.0  # blocks x their time (microseconds)

    def key(self) -> tuple[int, float, int]:
        return (self.task.priority, self.ready, self.task.index)


@dataclass(eq=False)
class _Wave:
    """Blocks of one kernel that started together on `blocks` cores at `begin`: after their
    fixed overheads (until `active`) each computes for `compute` and moves `bytes` at
    `share` bytes/us, which changes whenever waves start or end (`progress`)."""

    kernel: _Kernel
    blocks: int
    begin: float
    active: float
    compute: float
    bytes: float
    share: float = 0.0
    moved_until: float = 0.0
    version: int = 0

    def progress(self, now: float) -> None:
        """Counts the bytes moved since the last update at the current share."""
        since = max(self.moved_until, self.active)
        if now > since and self.share:
            self.bytes = max(0.0, self.bytes - self.share * (now - since))
        self.moved_until = max(now, self.moved_until)

    def end(self) -> float:
        """When the blocks finish at the current share."""
        since = max(self.moved_until, self.active)
        memory = since + self.bytes / self.share if self.bytes else since
        return max(self.active + self.compute, memory)


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
    times: list[KernelTime | None] = []
    for task in program.tasks:
        if task.kind not in ("launch", "copy"):
            times.append(None)
            continue
        try:
            times.append(kernel_time(task, profile))
        except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError) as e:
            raise kernel_error(task, e) from None
    return times


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
    # (time, seq, kernel ready | wave end, the kernel or the wave, the wave's version)
    heap: list[tuple[float, int, int, _Kernel | _Wave, int]] = []
    seq = 0
    waiting: list[tuple[tuple[int, float, int], _Kernel]] = []  # ready kernels, by key
    running: list[_Wave] = []  # waves moving bytes (not comm), sharing the bandwidth
    launch = profile.launch_overhead * US
    bandwidth = profile.sustained_bandwidth / US  # bytes per microsecond
    core_bandwidth = profile.core_bandwidth / US

    def push(time: float, kind: int, item: _Kernel | _Wave, version: int = 0) -> None:
        nonlocal seq
        heapq.heappush(heap, (time, seq, kind, item, version))
        seq += 1

    def rerate(now: float) -> None:
        """Every running wave's blocks get an equal share of the sustained bandwidth (capped
        per core) from `now` on; their ends move accordingly."""
        blocks = sum(w.blocks for w in running)
        share = min(core_bandwidth, bandwidth / blocks) if blocks else core_bandwidth
        for wave in running:
            wave.progress(now)
            if wave.share != share:
                wave.share = share
                wave.version += 1
                push(wave.end(), 1, wave, wave.version)

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

    def dispatch(now: float) -> bool:
        """Hands free cores to the waiting kernels, most urgent first; whether a wave that
        moves bytes started."""
        if not waiting:
            return False
        started = False
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
            kernel.cores = max(kernel.cores, n)
            if kernel.start < 0:
                kernel.start = now
            if k.unit == "comm":
                wave = _Wave(kernel, n, now, now, k.compute * US, 0.0)
                push(wave.end(), 1, wave)
                continue
            extra = _block_extra(k, profile) * US
            wave = _Wave(kernel, n, now, now + extra, k.compute * US, k.hbm_bytes)
            running.append(wave)
            started = True
        waiting[:] = [item for item in waiting if item[1].left > 0]
        return started

    for s in sorted(queues):
        advance(s)
    while heap:
        now, _, kind, item, version = heapq.heappop(heap)
        changed = False
        if kind == 0:  # dispatched: its blocks wait for cores
            assert isinstance(item, _Kernel)
            waiting.append((item.key(), item))
        else:
            assert isinstance(item, _Wave)
            if version != item.version:
                continue  # its end moved: a later entry holds the current one
            kernel = item.kernel
            free[kernel.pool] += item.blocks
            kernel.core_time += item.blocks * (now - item.begin)
            if kernel.memory == 0.0 and item.bytes:
                kernel.memory = now - item.active
            if item in running:
                running.remove(item)
                changed = True
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
            changed = dispatch(now) or changed
        if changed:
            rerate(now)
    if any(i is None for i in intervals):
        schedule = start_order(program)
        stuck = {s: queues[s][position[s]].index for s in queues if position[s] < len(queues[s])}
        findings = schedule.findings or [deadlock(program, stuck)]
        raise SimulationError(findings)
    return Timeline(program, [i for i in intervals if i is not None], flows, device=profile.name)


@dataclass
class Bound:
    """The makespan's lower bound and its parts (microseconds)."""

    critical_path: float
    pool_work: dict[str, float] = field(default_factory=dict)  # work / cores per pool; hbm

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
        # its waves one after another, each block at a whole core's bandwidth at best; and
        # all its bytes at the sustained bandwidth, which all blocks together never exceed
        fastest = waves * block
        if k.unit != "comm" and k.hbm_bytes:
            moved = k.blocks * k.hbm_bytes / profile.sustained_bandwidth
            fastest = max(fastest, _block_extra(k, profile) + moved)
        shortest.append(profile.launch_overhead * US + fastest * US)
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
    moved = sum(k.blocks * k.hbm_bytes for k in times if k is not None and k.unit != "comm")
    if moved:
        pool_work["hbm"] = moved / profile.sustained_bandwidth * US
    return Bound(max(finish, default=0.0), pool_work)
