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

**Several ranks** (`simulate_ranks_time`): every rank's program runs in the same event
loop on its own device (its own cores, HBM share and comm engine; streams and events are
per rank).  Collectives meet across ranks (`match_collectives`: the k-th collective of a
group on each member rank): one holds its comm engine on each member from when that member
reaches it, and ends on all members at once, HCCL's cost (`sim.topology`, over the links
its algorithm uses) after the last member reached it.  A collective some member never
reaches is a deadlock naming the ranks.  With one program and no topology
(`simulate_time`) a collective takes its own time (the profile's link), as before ranks.

`lower_bound` is the largest of the critical path (every task at its shortest possible
duration, along stream order and record -> wait edges), each pool's work over its cores,
and all bytes over the sustained bandwidth; the simulated makespan is never below it (a
property test checks).  Linear in tasks and
waves (times the log of the number of ready kernels).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

from ge_dialect.sim.executor import kernel_error
from ge_dialect.sim.kernel_model import COMM_KERNELS, KernelTime, kernel_time
from ge_dialect.sim.order import Finding, SimulationError, deadlock, start_order
from ge_dialect.sim.profile import DeviceProfile
from ge_dialect.sim.program import Program, Task
from ge_dialect.sim.timeline import Flow, Interval, Timeline
from ge_dialect.sim.topology import CollectiveCost, Topology
from ge_dialect.utils.errors import GeError

US = 1e6  # seconds -> microseconds


@dataclass
class _Kernel:
    task: Task
    time: KernelTime
    pool: str
    ready: float  # when its stream reached it (microseconds)
    left: int  # blocks not started
    running: int = 0  # waves running
    short_left: int = 0  # of them, blocks with one piece fewer (started last)
    start: float = -1.0
    cores: int = 0
    memory: float = 0.0  # the first wave's time from its overheads to its end (us), for the trace
    core_time: float = 0.0  # blocks x their time (microseconds)
    rank: int = 0

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


def _short(k: KernelTime) -> KernelTime:
    """`k`'s short blocks as a kernel of their own (for their shortest time)."""
    return replace(k, compute=k.short_compute, hbm_bytes=k.short_bytes)


def _moved(k: KernelTime) -> float:
    """All the bytes `k`'s blocks move."""
    return (k.blocks - k.short) * k.hbm_bytes + k.short * k.short_bytes


def _block_extra(k: KernelTime, profile: DeviceProfile) -> float:
    if k.unit == "comm":
        return 0.0
    return profile.block_overhead + (profile.memory_latency if k.hbm_bytes else 0.0)


def simulate_time(
    program: Program, profile: DeviceProfile, times: list[KernelTime | None] | None = None
) -> Timeline:
    """The timeline of `program` on `profile` (raises `SimulationError` on a deadlock)."""
    times = kernel_times(program, profile) if times is None else times
    return _simulate([program], profile, [times], None)[0]


@dataclass
class Collective:
    """One collective of a multi-rank run: the `seq`-th of `group` on each member rank
    (`tasks`: rank -> its task index), `kind` "all_reduce" or "all_gather", `nbytes` what
    HCCL's formula counts (an all-reduce's buffer, an all-gather's output), its `cost`."""

    group: str
    seq: int
    kernel: str
    tasks: dict[int, int]
    nbytes: int
    cost: CollectiveCost
    location: str = ""

    @property
    def members(self) -> list[int]:
        return sorted(self.tasks)

    @property
    def kind(self) -> str:
        return self.kernel.removeprefix("hcom_")


def match_collectives(programs: list[Program], topology: Topology) -> list[Collective]:
    """The collectives of the rank programs (`programs[r]` runs on rank `r`): a group's
    members are the ranks whose programs hold a collective of that group, and the k-th
    collective of a group on one member meets the k-th on every other.  A group whose
    member count differs from its `rank_size`, members disagreeing on a collective's kernel
    or size, or more ranks than the topology has, are `GeError`s."""
    if len(programs) > topology.ranks:
        raise GeError(
            f"error: {len(programs)} ranks do not fit topology '{topology.name}' "
            f"({topology.ranks} devices)"
        )
    per_group: dict[str, dict[int, list[Task]]] = {}
    for rank, program in enumerate(programs):
        for task in program.tasks:
            if task.kind == "launch" and task.kernel in COMM_KERNELS:
                group = str(task.attrs.get("group", ""))
                per_group.setdefault(group, {}).setdefault(rank, []).append(task)
    collectives: list[Collective] = []
    for group in sorted(per_group):
        members = per_group[group]
        counts = {len(tasks) for tasks in members.values()}
        first = members[min(members)][0]
        size = int(first.attrs.get("rank_size", 1))
        if size != len(members):
            raise GeError(
                f"{first.location}: error: collective group '{group}' has rank_size {size} "
                f"but {len(members)} of the {len(programs)} ranks hold it "
                f"(ranks {', '.join(map(str, sorted(members)))})"
            )
        if len(counts) != 1:
            raise GeError(
                f"{first.location}: error: the ranks of group '{group}' hold different "
                "numbers of collectives ("
                + ", ".join(f"rank {r}: {len(t)}" for r, t in sorted(members.items()))
                + ")"
            )
        for seq in range(counts.pop()):
            tasks = {rank: members[rank][seq] for rank in sorted(members)}
            lead = tasks[min(tasks)]
            for rank, task in tasks.items():
                if task.kernel != lead.kernel or task.cost.bytes_in != lead.cost.bytes_in:
                    raise GeError(
                        f"{task.location}: error: collective {seq} of group '{group}' differs "
                        f"between rank {min(tasks)} ({lead.kernel}, {lead.cost.bytes_in} bytes) "
                        f"and rank {rank} ({task.kernel}, {task.cost.bytes_in} bytes)"
                    )
            nbytes = lead.cost.bytes_in if lead.kernel == "hcom_all_reduce" else lead.cost.bytes_out
            kind = lead.kernel.removeprefix("hcom_")
            cost = topology.collective(kind, nbytes, sorted(tasks))
            collectives.append(
                Collective(
                    group,
                    seq,
                    lead.kernel,
                    {r: t.index for r, t in tasks.items()},
                    nbytes,
                    cost,
                    lead.location,
                )
            )
    return collectives


def rank_kernel_times(
    programs: list[Program], profile: DeviceProfile, collectives: list[Collective]
) -> list[list[KernelTime | None]]:
    """Every rank's kernel times, its collectives at HCCL's cost over the topology."""
    times = [kernel_times(p, profile) for p in programs]
    for c in collectives:
        for rank, index in c.tasks.items():
            k = times[rank][index]
            assert k is not None
            times[rank][index] = replace(k, compute=c.cost.seconds, blocks=1)
    return times


def simulate_ranks_time(
    programs: list[Program],
    profile: DeviceProfile,
    collectives: list[Collective],
    times: list[list[KernelTime | None]] | None = None,
) -> list[Timeline]:
    """The timelines of the rank programs in one event loop (see the module docstring):
    each rank has its own cores, HBM and comm engine; a collective holds the comm engine of
    each member from when that member reaches it, and ends on all of them at once, its
    HCCL cost after the last member reached it."""
    times = rank_kernel_times(programs, profile, collectives) if times is None else times
    meets = {(rank, index): i for i, c in enumerate(collectives) for rank, index in c.tasks.items()}
    return _simulate(programs, profile, times, meets, collectives)


def _simulate(
    programs: list[Program],
    profile: DeviceProfile,
    all_times: list[list[KernelTime | None]],
    meets: dict[tuple[int, int], int] | None,
    collectives: list[Collective] | None = None,
) -> list[Timeline]:
    """The event loop over every rank.  Streams are keyed (rank, stream) and events
    (rank, event); `meets` maps a rank's collective task to its `Collective` (None: one
    device, where a collective takes its own time, as before ranks existed)."""
    capacity = pools(profile)
    ranks = range(len(programs))
    free = {(r, p): n for r in ranks for p, n in capacity.items()}
    queues: dict[tuple[int, int], list[Task]] = {}
    for r, program in enumerate(programs):
        for task in program.tasks:
            queues.setdefault((r, task.stream), []).append(task)
    position = dict.fromkeys(queues, 0)
    stream_free = dict.fromkeys(queues, 0.0)  # when the stream's previous task ended
    recorded: dict[tuple[int, int], tuple[float, int]] = {}  # event -> (time, record task)
    blocked: dict[tuple[int, int], list[tuple[int, int]]] = {}  # event -> streams at a wait
    intervals: list[list[Interval | None]] = [[None] * len(p.tasks) for p in programs]
    flows: list[list[Flow]] = [[] for _ in ranks]
    arrived: dict[int, list[_Wave]] = {}  # collective -> the member waves holding an engine
    # (time, seq, kernel ready | wave end, the kernel or the wave, the wave's version)
    heap: list[tuple[float, int, int, _Kernel | _Wave, int]] = []
    seq = 0
    waiting: list[list[tuple[tuple[int, float, int], _Kernel]]] = [[] for _ in ranks]
    running: list[list[_Wave]] = [[] for _ in ranks]  # waves moving bytes, per rank
    launch = profile.launch_overhead * US
    bandwidth = profile.sustained_bandwidth / US  # bytes per microsecond
    core_bandwidth = profile.core_bandwidth / US

    def push(time: float, kind: int, item: _Kernel | _Wave, version: int = 0) -> None:
        nonlocal seq
        heapq.heappush(heap, (time, seq, kind, item, version))
        seq += 1

    def rerate(r: int, now: float) -> None:
        """Every running wave's blocks on rank `r` get an equal share of the sustained
        bandwidth (capped per core) from `now` on; their ends move accordingly."""
        blocks = sum(w.blocks for w in running[r])
        share = min(core_bandwidth, bandwidth / blocks) if blocks else core_bandwidth
        for wave in running[r]:
            wave.progress(now)
            if wave.share != share:
                wave.share = share
                wave.version += 1
                push(wave.end(), 1, wave, wave.version)

    def advance(first: tuple[int, int]) -> None:
        """Runs stream `first` from its current task up to a kernel or an unrecorded wait,
        and then every stream a record on the way released (a worklist, not recursion: a
        chain of events across streams can be as long as the program)."""
        todo = [first]
        while todo:
            _advance(todo.pop(), todo)

    def _advance(key: tuple[int, int], todo: list[tuple[int, int]]) -> None:
        r, s = key
        queue = queues[key]
        while position[key] < len(queue):
            task = queue[position[key]]
            ready = stream_free[key]
            if task.kind == "record":
                end = ready + profile.event_record * US
                intervals[r][task.index] = Interval(task.index, s, "event", ready, ready, end)
                stream_free[key] = end
                position[key] += 1
                if (r, task.event) not in recorded:
                    recorded[(r, task.event)] = (end, task.index)
                    todo.extend(reversed(blocked.pop((r, task.event), [])))
                continue
            if task.kind == "wait":
                if (r, task.event) not in recorded:
                    blocked.setdefault((r, task.event), []).append(key)
                    return
                when, record = recorded[(r, task.event)]
                end = max(ready, when) + profile.event_wait * US
                intervals[r][task.index] = Interval(task.index, s, "event", ready, ready, end)
                flows[r].append(Flow(record, task.index, task.event))
                stream_free[key] = end
                position[key] += 1
                continue
            k = all_times[r][task.index]
            assert k is not None
            kernel = _Kernel(
                task, k, pool_of(k.unit, profile), ready, k.blocks, rank=r, short_left=k.short
            )
            push(ready + launch, 0, kernel)
            return

    def dispatch(r: int, now: float) -> bool:
        """Hands rank `r`'s free cores to its waiting kernels, most urgent first; whether a
        wave that moves bytes started."""
        queue = waiting[r]
        if not queue:
            return False
        started = False
        queue.sort(key=lambda item: item[0])
        for _, kernel in list(queue):
            pool = kernel.pool
            n = min(kernel.left, free[(r, pool)])
            if n <= 0:
                continue
            free[(r, pool)] -= n
            kernel.left -= n
            kernel.running += 1
            k = kernel.time
            kernel.cores = max(kernel.cores, n)
            if kernel.start < 0:
                kernel.start = now
            if k.unit == "comm":
                wave = _Wave(kernel, n, now, now, k.compute * US, 0.0)
                meet = None if meets is None else meets.get((r, kernel.task.index))
                if meet is None:
                    push(wave.end(), 1, wave)
                    continue
                # a collective: ends on every member, its cost after the last one arrived
                members = arrived.setdefault(meet, [])
                members.append(wave)
                assert collectives is not None
                if len(members) == len(collectives[meet].tasks):
                    end = now + k.compute * US
                    for member in members:
                        member.compute = end - member.begin
                        push(member.end(), 1, member)
                continue
            extra = _block_extra(k, profile) * US
            # the blocks with the most pieces first, then the short ones
            short = max(0, n - (kernel.left + n - kernel.short_left))
            kernel.short_left -= short
            if short:
                kernel.running += 1 if short < n else 0
                wave = _Wave(kernel, short, now, now + extra, k.short_compute * US, k.short_bytes)
                running[r].append(wave)
            if short < n:
                wave = _Wave(kernel, n - short, now, now + extra, k.compute * US, k.hbm_bytes)
                running[r].append(wave)
            started = True
        queue[:] = [item for item in queue if item[1].left > 0]
        return started

    for key in sorted(queues):
        advance(key)
    while heap:
        now, _, kind, item, version = heapq.heappop(heap)
        changed: set[int] = set()
        if kind == 0:  # dispatched: its blocks wait for cores
            assert isinstance(item, _Kernel)
            waiting[item.rank].append((item.key(), item))
        else:
            assert isinstance(item, _Wave)
            if version != item.version:
                continue  # its end moved: a later entry holds the current one
            kernel = item.kernel
            r = kernel.rank
            free[(r, kernel.pool)] += item.blocks
            kernel.core_time += item.blocks * (now - item.begin)
            if kernel.memory == 0.0 and item.bytes:
                kernel.memory = now - item.active
            if item in running[r]:
                running[r].remove(item)
                changed.add(r)
            kernel.running -= 1
            if kernel.left == 0 and kernel.running == 0:
                task = kernel.task
                k = kernel.time
                intervals[r][task.index] = Interval(
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
                stream_free[(r, task.stream)] = now
                position[(r, task.stream)] += 1
                advance((r, task.stream))
        # everything that ends or becomes ready at `now` first, then hand out cores
        if not heap or heap[0][0] > now:
            for r in ranks:
                if dispatch(r, now):
                    changed.add(r)
        for r in sorted(changed):
            rerate(r, now)
    for r in ranks:
        if any(i is None for i in intervals[r]):
            raise SimulationError(
                _stuck(programs, r, queues, position, meets, collectives, arrived)
            )
    return [
        Timeline(
            program,
            [i for i in intervals[r] if i is not None],
            flows[r],
            rank=r,
            device=profile.name,
        )
        for r, program in enumerate(programs)
    ]


def _stuck(
    programs: list[Program],
    r: int,
    queues: dict[tuple[int, int], list[Task]],
    position: dict[tuple[int, int], int],
    meets: dict[tuple[int, int], int] | None,
    collectives: list[Collective] | None,
    arrived: dict[int, list[_Wave]],
) -> list[Finding]:
    """Why rank `r` did not finish: a deadlock inside its program, or a collective some
    member never reached."""
    program = programs[r]
    schedule = start_order(program)
    if schedule.findings:
        return schedule.findings
    stuck = {
        s: queues[(q, s)][position[(q, s)]].index
        for (q, s) in queues
        if q == r and position[(q, s)] < len(queues[(q, s)])
    }
    if meets is not None and collectives is not None:
        for _, index in sorted(stuck.items()):
            meet = meets.get((r, index))
            if meet is None:
                continue
            c = collectives[meet]
            there = {w.kernel.rank for w in arrived.get(meet, [])}
            missing = [q for q in sorted(c.tasks) if q not in there]
            task = program.tasks[index]
            return [
                Finding(
                    "deadlock",
                    f"deadlock: rank {r} is blocked at the {task.describe()}, collective "
                    f"{c.seq} of group '{c.group}', which rank(s) "
                    f"{', '.join(map(str, missing)) or '?'} never reach",
                    (index,),
                )
            ]
    return [deadlock(program, stuck)]


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
        short_block = min_block(_short(k), profile) if k.short else block
        waves = -(-k.blocks // capacity[pool])
        # its longest block; its waves one after another, each block at a whole core's
        # bandwidth at best; and all its bytes at the sustained bandwidth, which all blocks
        # together never exceed
        fastest = max(block, waves * short_block)
        moved_bytes = _moved(k)
        if k.unit != "comm" and moved_bytes:
            moved = moved_bytes / profile.sustained_bandwidth
            fastest = max(fastest, _block_extra(k, profile) + moved)
        shortest.append(profile.launch_overhead * US + fastest * US)
        work[pool] += ((k.blocks - k.short) * block + k.short * short_block) * US
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
    moved = sum(_moved(k) for k in times if k is not None and k.unit != "comm")
    if moved:
        pool_work["hbm"] = moved / profile.sustained_bandwidth * US
    return Bound(max(finish, default=0.0), pool_work)
