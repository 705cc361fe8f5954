"""The simulated NPU's clock: a discrete-event simulation of a program on a device profile.

**Streams and events.**  Each stream runs its tasks in issue order.  A task is *ready*
when its stream's previous task has ended; a record then takes `event_record` and marks its
event recorded at its end (an event stays recorded: ids are used once per program); a wait
ends `event_wait` after both it is ready and its event is recorded.  A launch or copy is
dispatched `launch_overhead` after it is ready, then its blocks (`sim.kernel_model`) run
on cores of its unit.  TorchAir's `super_kernel`: a launch that follows one of the same
super kernel scope on its stream is part of that kernel, dispatched as soon as it is ready,
without a launch overhead of its own (`super_kernel_continued`).  TorchAir's
`limit_core_num` caps a launch's blocks, hence the cores it holds at once
(`kernel_model.limited_profile`).

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
property test checks).  Linear in tasks and waves (times the log of the number of ready
kernels).

**Time base.**  The clock and the bound count time in whole femtoseconds
(`timeline.FS_PER_US` per microsecond) and bytes in whole femtobytes (1e-15 byte), as Python
integers, and a bandwidth is an exact fraction of bytes per second, so that bytes per
second times femtoseconds is femtobytes: every step is exact, and the clock and the bound
use the same figures.  Each duration of the profile and of the kernel model (float
seconds) is rounded once to the nearest femtosecond, each byte count to the nearest
femtobyte (`_Clock`, `_Ticks`).  Where a bandwidth share divides unevenly, the clock
rounds against the run: the bytes a wave moved are rounded down and the time it needs for
the rest up.  So each reason the makespan is at least a part of the bound (no stream runs a
task faster than its shortest, no block ends before its compute or before its bytes at a
core's bandwidth, the running blocks never move more than the sustained bandwidth allows)
holds exactly, not up to rounding, and the makespan is never below the bound.

Why not floats: the clock sums durations in the order events happen while the bound sums
them along the critical path, and the two sums round differently: about a fifth of
random programs (16 of 77) came out a few ulps below their own bound.  Why not fractions: the
fluid share divides by the number of running blocks, so the denominators of the bytes left
would grow with every change of share.  Why femtoseconds rather than picoseconds: the
roundings (one per duration and per change of share) then stay far below what is printed
(a run's figures agree with the float model's to a few femtoseconds, against the trace's
nanosecond and the report's 10 ns), so reports do not change.  Microseconds (floats) exist
only where figures are read or printed: the timeline's properties, the report and the
trace.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ge_dialect.sim.executor import kernel_error
from ge_dialect.sim.kernel_model import COMM_KERNELS, CoreLimitError, KernelTime, kernel_time
from ge_dialect.sim.order import Finding, SimulationError, deadlock, start_order
from ge_dialect.sim.profile import DeviceProfile
from ge_dialect.sim.program import Program, Task
from ge_dialect.sim.timeline import Flow, Interval, Timeline, us
from ge_dialect.sim.topology import CollectiveCost, Topology
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.scope_attrs import super_kernel_scope
from ge_dialect.utils.task_order import COPY, LAUNCH, RECORD, WAIT, Events

FS_PER_S = 10**15
"""Femtoseconds per second; also femtobytes per byte (see "Time base")."""


def _scaled(x: float) -> int:
    """`x` (seconds, or bytes) in femtoseconds (femtobytes), rounded to the nearest: exact
    integer arithmetic on the float's own value."""
    num, den = x.as_integer_ratio()
    return (2 * num * FS_PER_S + den) // (2 * den)


Rate = tuple[int, int]
"""A bandwidth in bytes per second as an exact fraction (numerator, denominator): `r`
moves `r[0] * t // r[1]` femtobytes in `t` femtoseconds."""


def _rate(bytes_per_second: float) -> Rate:
    return bytes_per_second.as_integer_ratio()


def _time_for(nbytes: int, rate: Rate) -> int:
    """The whole femtoseconds `rate` needs to move `nbytes` femtobytes (rounded up)."""
    return -(-nbytes * rate[1] // rate[0])


@dataclass(frozen=True)
class _Clock:
    """The profile's figures the clock and the bound share, on the exact time base."""

    launch: int
    record: int
    wait: int
    block: int
    latency: int
    sustained: Rate
    core: Rate

    @classmethod
    def of(cls, profile: DeviceProfile) -> _Clock:
        return cls(
            _scaled(profile.launch_overhead),
            _scaled(profile.event_record),
            _scaled(profile.event_wait),
            _scaled(profile.block_overhead),
            _scaled(profile.memory_latency),
            _rate(profile.sustained_bandwidth),
            _rate(profile.core_bandwidth),
        )

    def share(self, blocks: int) -> Rate:
        """Each of `blocks` running blocks' share of the sustained bandwidth, capped at a
        core's bandwidth."""
        (s, sd), (c, cd) = self.sustained, self.core
        return self.core if c * sd * blocks <= s * cd else (s, sd * blocks)


@dataclass(frozen=True)
class _Ticks:
    """A `KernelTime` on the exact time base: its blocks' compute (fs), the bytes each moves
    (femtobytes), the same for its `short` blocks, and a block's fixed overheads (fs)."""

    unit: str
    blocks: int
    short: int
    compute: int
    bytes: int
    short_compute: int
    short_bytes: int
    extra: int

    @classmethod
    def of(cls, k: KernelTime, clock: _Clock) -> _Ticks:
        extra = 0
        if k.unit != "comm":
            extra = clock.block + (clock.latency if k.hbm_bytes else 0)
        return cls(
            k.unit,
            k.blocks,
            k.short,
            _scaled(k.compute),
            _scaled(k.hbm_bytes),
            _scaled(k.short_compute),
            _scaled(k.short_bytes),
            extra,
        )

    def moved(self) -> int:
        """All the bytes its blocks move (femtobytes)."""
        return (self.blocks - self.short) * self.bytes + self.short * self.short_bytes

    def min_block(self, clock: _Clock, short: bool = False) -> int:
        """The shortest time one of its blocks (a short one with `short`) can take: its
        overheads, then the longer of its compute and its bytes at a whole core's
        bandwidth (a collective: its time)."""
        compute, nbytes = self.compute, self.bytes
        if short:
            compute, nbytes = self.short_compute, self.short_bytes
        if self.unit == "comm":
            return compute
        return self.extra + max(compute, _time_for(nbytes, clock.core))


@dataclass
class _Kernel:
    task: Task
    time: _Ticks
    pool: str
    ready: int  # when its stream reached it (fs)
    left: int  # blocks not started
    running: int = 0  # waves running
    short_left: int = 0  # of them, blocks with one piece fewer (started last)
    start: int = -1
    cores: int = 0
    memory: int = 0  # the first moving wave's time from its overheads to its end, for the trace
    core_time: int = 0  # blocks x their time (fs)
    rank: int = 0

    def key(self) -> tuple[int, int, int]:
        return (self.task.priority, self.ready, self.task.index)


@dataclass(eq=False)
class _Wave:
    """Blocks of one kernel that started together on `blocks` cores at `begin`: after their
    fixed overheads (until `active`) each computes for `compute` and moves `bytes`
    (femtobytes left) at its `share` of the bandwidth, which changes whenever waves start
    or end (`progress`).  Times are femtoseconds."""

    kernel: _Kernel
    blocks: int
    begin: int
    active: int
    compute: int
    bytes: int
    share: Rate = (0, 1)
    moved_until: int = 0
    version: int = 0
    moving: bool = False  # whether it had bytes to move when it started

    def progress(self, now: int) -> None:
        """Counts the bytes moved since the last update at the current share (rounded
        down: never more than the share allows)."""
        since = max(self.moved_until, self.active)
        if now > since and self.bytes:
            self.bytes = max(0, self.bytes - self.share[0] * (now - since) // self.share[1])
        self.moved_until = max(now, self.moved_until)

    def end(self) -> int:
        """When the blocks finish at the current share (rounded up)."""
        since = max(self.moved_until, self.active)
        memory = since + _time_for(self.bytes, self.share) if self.bytes else since
        return max(self.active + self.compute, memory)


def super_kernel_continued(program: Program) -> list[bool]:
    """Whether each task is a launch continuing a super kernel (TorchAir's `super_kernel`):
    the task before it on its stream is a launch of the same non-empty
    `_super_kernel_scope`.  Such a launch is part of the same kernel: it pays no
    `launch_overhead` (a scope's consecutive launches on a stream pay one)."""
    last: dict[int, str] = {}
    continued: list[bool] = []
    for task in program.tasks:
        scope = super_kernel_scope(task.scope) if task.kind == LAUNCH else ""
        continued.append(scope != "" and last.get(task.stream) == scope)
        last[task.stream] = scope
    return continued


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
        if task.kind != LAUNCH and task.kind != COPY:
            times.append(None)
            continue
        try:
            times.append(kernel_time(task, profile))
        except CoreLimitError as e:
            raise GeError(
                f"{task.location}: error: launch '{task.kernel}' on stream {task.stream}: {e}"
            ) from None
        except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError) as e:
            raise kernel_error(task, e) from None
    return times


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
    members are the ranks whose programs hold a collective of that group (a send or a
    receive counts), and the k-th collective of a group on one member meets the k-th on
    every other.  Sends and receives pair apart: the k-th send from group rank a to b with
    a tag meets the k-th receive at b from a with that tag, as one 2-member collective
    (kind "send").  A group whose member count differs from its `rank_size`, members
    disagreeing on a collective's kernel, size, reduction or root, all-to-all counts that
    do not agree between sender and receiver, a send or receive with no partner (a
    deadlock naming the ranks), or more ranks than the topology has, are `GeError`s."""
    if len(programs) > topology.ranks:
        raise GeError(
            f"error: {len(programs)} ranks do not fit topology '{topology.name}' "
            f"({topology.ranks} devices)"
        )
    per_group: dict[str, dict[int, list[Task]]] = {}
    for rank, program in enumerate(programs):
        for task in program.tasks:
            if task.kind == LAUNCH and task.kernel in COMM_KERNELS:
                group = str(task.attrs.get("group", ""))
                per_group.setdefault(group, {}).setdefault(rank, []).append(task)
    collectives: list[Collective] = []
    for group in sorted(per_group):
        members = per_group[group]
        first = members[min(members)][0]
        size = int(first.attrs.get("rank_size", 1))
        if size != len(members):
            raise GeError(
                f"{first.location}: error: collective group '{group}' has rank_size {size} "
                f"but {len(members)} of the {len(programs)} ranks hold it "
                f"(ranks {', '.join(map(str, sorted(members)))})"
            )
        group_ranks = sorted(members)
        collective_tasks = {
            r: [t for t in tasks if t.kernel not in P2P_KERNELS] for r, tasks in members.items()
        }
        collectives += _match_group(group, collective_tasks, topology)
        collectives += _match_p2p(group, group_ranks, members, topology)
    return collectives


P2P_KERNELS = ("hcom_send", "hcom_receive")


def _collective_bytes(task: Task) -> int:
    """What HCCL's formula counts: an all-gather's output, else the input buffer."""
    return task.cost.bytes_out if task.kernel == "hcom_all_gather" else task.cost.bytes_in


def _match_group(
    group: str, members: dict[int, list[Task]], topology: Topology
) -> list[Collective]:
    counts = {len(tasks) for tasks in members.values()}
    if counts == {0}:
        return []
    if len(counts) != 1 or any(not t for t in members.values()):
        first = next(t[0] for _, t in sorted(members.items()) if t)
        raise GeError(
            f"{first.location}: error: the ranks of group '{group}' hold different "
            "numbers of collectives ("
            + ", ".join(f"rank {r}: {len(t)}" for r, t in sorted(members.items()))
            + ")"
        )
    out = []
    for seq in range(counts.pop()):
        tasks = {rank: members[rank][seq] for rank in sorted(members)}
        lead = tasks[min(tasks)]
        uneven = lead.kernel == "hcom_all_to_all"
        for rank, task in tasks.items():
            same = task.kernel == lead.kernel and (
                uneven or task.cost.bytes_in == lead.cost.bytes_in
            )
            for key in ("reduction", "root", "split_dim", "concat_dim"):
                same = same and str(task.attrs.get(key)) == str(lead.attrs.get(key))
            if not same:
                raise GeError(
                    f"{task.location}: error: collective {seq} of group '{group}' differs "
                    f"between rank {min(tasks)} ({_describe(lead)}) and rank {rank} "
                    f"({_describe(task)})"
                )
        if uneven:
            _check_counts(group, seq, [tasks[r] for r in sorted(tasks)])
        nbytes = max(_collective_bytes(t) for t in tasks.values())
        kind = lead.kernel.removeprefix("hcom_")
        cost = topology.collective(kind, nbytes, sorted(tasks))
        index = {r: t.index for r, t in tasks.items()}
        out.append(Collective(group, seq, lead.kernel, index, nbytes, cost, lead.location))
    return out


def _describe(task: Task) -> str:
    extra = [f"{k} {task.attrs[k]}" for k in ("reduction", "root") if k in task.attrs]
    return ", ".join([task.kernel, f"{task.cost.bytes_in} bytes", *extra])


def _check_counts(group: str, seq: int, tasks: list[Task]) -> None:
    """Uneven all-to-all: what group rank i sends j is what j expects from i."""
    if all("send_counts" not in t.attrs for t in tasks):
        return
    p = len(tasks)
    for i, sender in enumerate(tasks):
        send = sender.attrs.get("send_counts")
        for j, receiver in enumerate(tasks):
            recv = receiver.attrs.get("recv_counts")
            sent = int(send[j]) if send is not None else None
            expected = int(recv[i]) if recv is not None else None
            if send is None or recv is None or sent != expected:
                raise GeError(
                    f"{receiver.location}: error: all_to_all {seq} of group '{group}': group "
                    f"rank {j} expects {expected if expected is not None else 'equal pieces'} "
                    f"from group rank {i}, which sends "
                    f"{sent if sent is not None else 'equal pieces'} (of {p} ranks)"
                )


def _match_p2p(
    group: str, group_ranks: list[int], members: dict[int, list[Task]], topology: Topology
) -> list[Collective]:
    """Pairs the sends and receives of one group (ranks in the ops are group ranks)."""
    sends: dict[tuple[int, int, int], list[Task]] = {}
    recvs: dict[tuple[int, int, int], list[Task]] = {}
    for world, tasks in sorted(members.items()):
        me = group_ranks.index(world)
        for t in tasks:
            tag = int(t.attrs.get("sr_tag", 0))
            if t.kernel == "hcom_send":
                peer = int(t.attrs.get("dest_rank", 0))
                sends.setdefault((me, peer, tag), []).append(t)
            elif t.kernel == "hcom_receive":
                peer = int(t.attrs.get("src_rank", 0))
                recvs.setdefault((peer, me, tag), []).append(t)
    out = []
    for key in sorted(set(sends) | set(recvs)):
        src, dst, tag = key
        s_list, r_list = sends.get(key, []), recvs.get(key, [])
        if src == dst:
            where = (s_list or r_list)[0].location
            raise GeError(f"{where}: error: group '{group}': group rank {src} sends to itself")
        for k in range(max(len(s_list), len(r_list))):
            a, b = group_ranks[src], group_ranks[dst]
            if k >= len(r_list) or k >= len(s_list):
                lone = s_list[k] if k < len(s_list) else r_list[k]
                what = "send" if k < len(s_list) else "receive"
                raise GeError(
                    f"{lone.location}: error: deadlock: the {what} {k} from rank {a} to rank "
                    f"{b} (group '{group}', sr_tag {tag}) has no matching "
                    f"{'receive' if what == 'send' else 'send'}"
                )
            send, recv = s_list[k], r_list[k]
            if (
                send.cost.bytes_in != recv.cost.bytes_out
                or send.in_types[0].dtype != recv.out_types[0].dtype
            ):
                raise GeError(
                    f"{recv.location}: error: the receive {k} at rank {b} from rank {a} (group "
                    f"'{group}', sr_tag {tag}) expects {recv.out_types[0]}, but the send "
                    f"gives {send.in_types[0]}"
                )
            nbytes = send.cost.bytes_in
            cost = topology.collective("send", nbytes, [a, b])
            out.append(
                Collective(
                    group,
                    k,
                    "hcom_send",
                    {a: send.index, b: recv.index},
                    nbytes,
                    cost,
                    send.location,
                )
            )
    return out


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
    loop = _EventLoop(programs, profile, all_times, meets, collectives)
    loop.run()
    return loop.timelines()


_READY, _WAVE_END = 0, 1
"""The kinds of the event loop's heap entries: a kernel dispatched (its blocks wait for
cores), a wave's end."""


class _EventLoop:
    """The state of `_simulate`'s event loop, with one method per kind of step: a stream
    runs up to its next kernel (`advance`: records and waits on the way), a kernel
    dispatched waits for cores, free cores go to waiting kernels (`dispatch`), a wave ends
    (`_wave_ended`, and its kernel with its last wave)."""

    def __init__(
        self,
        programs: list[Program],
        profile: DeviceProfile,
        all_times: list[list[KernelTime | None]],
        meets: dict[tuple[int, int], int] | None,
        collectives: list[Collective] | None,
    ) -> None:
        self.programs = programs
        self.profile = profile
        self.clock = clock = _Clock.of(profile)
        self.all_times: list[list[_Ticks | None]] = [
            [None if k is None else _Ticks.of(k, clock) for k in times] for times in all_times
        ]
        self.meets = meets
        self.collectives = collectives
        self.continued = [super_kernel_continued(p) for p in programs]
        self.ranks = range(len(programs))
        self.free = {(r, p): n for r in self.ranks for p, n in pools(profile).items()}
        self.queues: dict[tuple[int, int], list[Task]] = {}
        for r, program in enumerate(programs):
            for task in program.tasks:
                self.queues.setdefault((r, task.stream), []).append(task)
        self.position = dict.fromkeys(self.queues, 0)
        self.stream_free = dict.fromkeys(self.queues, 0)  # when its previous task ended
        # (rank, event) -> (time, record task); waiters: the streams at a wait for it
        self.recorded: Events[tuple[int, int], tuple[int, int], tuple[int, int]] = Events()
        self.intervals: list[list[Interval | None]] = [[None] * len(p.tasks) for p in programs]
        self.flows: list[list[Flow]] = [[] for _ in self.ranks]
        self.arrived: dict[int, list[_Wave]] = {}  # collective -> member waves holding an engine
        # (time, seq, _READY | _WAVE_END, the kernel or the wave, the wave's version)
        self.heap: list[tuple[int, int, int, _Kernel | _Wave, int]] = []
        self.seq = 0
        self.waiting: list[list[tuple[tuple[int, int, int], _Kernel]]] = [[] for _ in self.ranks]
        self.running: list[list[_Wave]] = [[] for _ in self.ranks]  # waves moving bytes

    def run(self) -> None:
        """Runs every stream from its start, then the events in time order until none is
        left: everything that ends or becomes ready at one time first, then the cores are
        handed out and the bandwidth shared again."""
        for key in sorted(self.queues):
            self.advance(key)
        heap, waiting, ranks = self.heap, self.waiting, self.ranks
        while heap:
            now, _, kind, item, version = heapq.heappop(heap)
            changed: set[int] = set()
            if kind == _READY:
                assert isinstance(item, _Kernel)
                waiting[item.rank].append((item.key(), item))
            else:
                assert isinstance(item, _Wave)
                if version != item.version:
                    continue  # its end moved: a later entry holds the current one
                self._wave_ended(item, now, changed)
            if not heap or heap[0][0] > now:
                for r in ranks:
                    if self.dispatch(r, now):
                        changed.add(r)
            for r in sorted(changed):
                self.rerate(r, now)

    def push(self, time: int, kind: int, item: _Kernel | _Wave, version: int = 0) -> None:
        """Schedules a kernel's dispatch or a wave's end at `time`."""
        heapq.heappush(self.heap, (time, self.seq, kind, item, version))
        self.seq += 1

    def rerate(self, r: int, now: int) -> None:
        """Every running wave's blocks on rank `r` get an equal share of the sustained
        bandwidth (capped per core) from `now` on; their ends move accordingly."""
        running = self.running[r]
        blocks = sum(w.blocks for w in running)
        share = self.clock.share(blocks) if blocks else self.clock.core
        for wave in running:
            wave.progress(now)
            if wave.share != share:
                wave.share = share
                wave.version += 1
                self.push(wave.end(), _WAVE_END, wave, wave.version)

    def advance(self, first: tuple[int, int]) -> None:
        """Runs stream `first` from its current task up to a kernel or an unrecorded wait,
        and then every stream a record on the way released (a worklist, not recursion: a
        chain of events across streams can be as long as the program)."""
        todo = [first]
        while todo:
            self._advance(todo.pop(), todo)

    def _advance(self, key: tuple[int, int], todo: list[tuple[int, int]]) -> None:
        """Runs stream `key` up to a kernel (dispatched `launch_overhead` after it is
        ready) or a wait whose event is not recorded; the streams its records release go
        on `todo`."""
        queue = self.queues[key]
        position = self.position
        while position[key] < len(queue):
            task = queue[position[key]]
            if task.kind == RECORD:
                todo.extend(reversed(self._record(key, task)))
            elif task.kind == WAIT:
                if not self._wait(key, task):
                    return
            else:
                r = key[0]
                k = self.all_times[r][task.index]
                assert k is not None
                ready = self.stream_free[key]
                pool = pool_of(k.unit, self.profile)
                kernel = _Kernel(task, k, pool, ready, k.blocks, rank=r, short_left=k.short)
                launch = 0 if self.continued[r][task.index] else self.clock.launch
                self.push(ready + launch, _READY, kernel)
                return
            position[key] += 1

    def _record(self, key: tuple[int, int], task: Task) -> Sequence[tuple[int, int]]:
        """Runs a record on stream `key`; the streams it releases (at a wait for it)."""
        r, s = key
        ready = self.stream_free[key]
        end = ready + self.clock.record
        self.intervals[r][task.index] = Interval(task.index, s, "event", ready, ready, end)
        self.stream_free[key] = end
        return self.recorded.record((r, task.event), (end, task.index))

    def _wait(self, key: tuple[int, int], task: Task) -> bool:
        """Runs a wait on stream `key` if its event is recorded (else the stream waits for
        the record); whether it ran."""
        r, s = key
        event = (r, task.event)
        if not self.recorded.wait(event, key):
            return False
        when, record = self.recorded[event]
        ready = self.stream_free[key]
        end = max(ready, when) + self.clock.wait
        self.intervals[r][task.index] = Interval(task.index, s, "event", ready, ready, end)
        self.flows[r].append(Flow(record, task.index, task.event))
        self.stream_free[key] = end
        return True

    def dispatch(self, r: int, now: int) -> bool:
        """Hands rank `r`'s free cores to its waiting kernels, most urgent first; whether a
        wave that moves bytes started."""
        queue = self.waiting[r]
        if not queue:
            return False
        started = False
        free = self.free
        queue.sort(key=lambda item: item[0])
        for _, kernel in list(queue):
            n = min(kernel.left, free[(r, kernel.pool)])
            if n <= 0:
                continue
            free[(r, kernel.pool)] -= n
            kernel.left -= n
            kernel.running += 1
            kernel.cores = max(kernel.cores, n)
            if kernel.start < 0:
                kernel.start = now
            if kernel.time.unit == "comm":
                self._start_comm(r, kernel, n, now)
            else:
                self._start_waves(r, kernel, n, now)
                started = True
        queue[:] = [item for item in queue if item[1].left > 0]
        return started

    def _start_comm(self, r: int, kernel: _Kernel, n: int, now: int) -> None:
        """A collective's wave on rank `r`'s comm engine: it ends after its own time, or,
        meeting other ranks, on every member at once, its cost after the last one arrived."""
        k = kernel.time
        wave = _Wave(kernel, n, now, now, k.compute, 0)
        meet = None if self.meets is None else self.meets.get((r, kernel.task.index))
        if meet is None:
            self.push(wave.end(), _WAVE_END, wave)
            return
        members = self.arrived.setdefault(meet, [])
        members.append(wave)
        assert self.collectives is not None
        if len(members) == len(self.collectives[meet].tasks):
            end = now + k.compute
            for member in members:
                member.compute = end - member.begin
                self.push(member.end(), _WAVE_END, member)

    def _start_waves(self, r: int, kernel: _Kernel, n: int, now: int) -> None:
        """`n` blocks of `kernel` start on rank `r`'s cores: the blocks with the most pieces
        first, then the short ones (one wave each); they move bytes (`rerate` times them)."""
        k = kernel.time
        active = now + k.extra
        short = max(0, n - (kernel.left + n - kernel.short_left))
        kernel.short_left -= short
        running = self.running[r]
        if short:
            kernel.running += 1 if short < n else 0
            running.append(
                _Wave(
                    kernel,
                    short,
                    now,
                    active,
                    k.short_compute,
                    k.short_bytes,
                    moving=k.short_bytes > 0,
                )
            )
        if short < n:
            running.append(
                _Wave(kernel, n - short, now, active, k.compute, k.bytes, moving=k.bytes > 0)
            )

    def _wave_ended(self, wave: _Wave, now: int, changed: set[int]) -> None:
        """Frees `wave`'s cores (its rank goes in `changed` if it moved bytes); its
        kernel ends with its last wave."""
        kernel = wave.kernel
        r = kernel.rank
        self.free[(r, kernel.pool)] += wave.blocks
        kernel.core_time += wave.blocks * (now - wave.begin)
        if kernel.memory == 0 and wave.moving:
            kernel.memory = now - wave.active
        if wave in self.running[r]:
            self.running[r].remove(wave)
            changed.add(r)
        kernel.running -= 1
        if kernel.left == 0 and kernel.running == 0:
            self._kernel_ended(kernel, now)

    def _kernel_ended(self, kernel: _Kernel, now: int) -> None:
        """`kernel`'s interval; its stream goes on."""
        task = kernel.task
        k = kernel.time
        r = kernel.rank
        self.intervals[r][task.index] = Interval(
            task.index,
            task.stream,
            k.unit,
            kernel.ready,
            kernel.start,
            now,
            k.blocks,
            kernel.cores,
            k.compute,
            kernel.memory,
            kernel.core_time,
        )
        key = (r, task.stream)
        self.stream_free[key] = now
        self.position[key] += 1
        self.advance(key)

    def timelines(self) -> list[Timeline]:
        """Every rank's timeline (raises `SimulationError` when a rank did not finish)."""
        for r in self.ranks:
            if any(i is None for i in self.intervals[r]):
                raise SimulationError(
                    _stuck(
                        self.programs,
                        r,
                        self.queues,
                        self.position,
                        self.meets,
                        self.collectives,
                        self.arrived,
                    )
                )
        return [
            Timeline(
                program,
                [i for i in self.intervals[r] if i is not None],
                self.flows[r],
                rank=r,
                device=self.profile.name,
            )
            for r, program in enumerate(self.programs)
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
    """The makespan's lower bound and its parts (femtoseconds; the properties without
    `_fs` are microseconds)."""

    critical_path_fs: int
    pool_work_fs: dict[str, int] = field(default_factory=dict)  # work / cores per pool; hbm

    @property
    def value_fs(self) -> int:
        return max(self.critical_path_fs, *self.pool_work_fs.values(), 0)

    @property
    def value(self) -> float:
        return us(self.value_fs)

    @property
    def critical_path(self) -> float:
        return us(self.critical_path_fs)

    @property
    def limited_by(self) -> str:
        """ "critical path" or the pool whose work bounds the makespan."""
        best = max(self.pool_work_fs.items(), key=lambda kv: (kv[1], kv[0]), default=("", 0))
        return "critical path" if self.critical_path_fs >= best[1] else f"{best[0]} work"


def lower_bound(
    program: Program, profile: DeviceProfile, times: list[KernelTime | None] | None = None
) -> Bound:
    """The larger of the critical path and each pool's work over its cores (see the module
    docstring); no run can be shorter.  On the clock's time base, with its figures."""
    times = kernel_times(program, profile) if times is None else times
    clock = _Clock.of(profile)
    capacity = pools(profile)
    work = dict.fromkeys(capacity, 0)
    shortest: list[int] = []
    moved = 0
    continued = super_kernel_continued(program)
    for task, kernel in zip(program.tasks, times, strict=True):
        if kernel is None:
            shortest.append(clock.record if task.kind == RECORD else clock.wait)
            continue
        k = _Ticks.of(kernel, clock)
        pool = pool_of(k.unit, profile)
        block = k.min_block(clock)
        short_block = k.min_block(clock, short=True) if k.short else block
        waves = -(-k.blocks // capacity[pool])
        # its longest block; its waves one after another, each block at a whole core's
        # bandwidth at best; and all its bytes at the sustained bandwidth, which all blocks
        # together never exceed
        fastest = max(block, waves * short_block)
        kernel_bytes = k.moved() if k.unit != "comm" else 0
        if kernel_bytes:
            moved += kernel_bytes
            fastest = max(fastest, k.extra + _time_for(kernel_bytes, clock.sustained))
        shortest.append((0 if continued[task.index] else clock.launch) + fastest)
        work[pool] += (k.blocks - k.short) * block + k.short * short_block
    finish = _earliest_finish(program, shortest)
    pool_work = {p: -(-w // capacity[p]) for p, w in work.items() if w > 0}
    if moved:
        pool_work["hbm"] = _time_for(moved, clock.sustained)
    return Bound(max(finish, default=0), pool_work)


def _earliest_finish(program: Program, shortest: list[int]) -> list[int]:
    """When each task ends at the earliest, taking `shortest` (femtoseconds) along stream
    order and record -> wait edges (raises `SimulationError` on a deadlock)."""
    schedule = start_order(program)
    if schedule.findings:
        raise SimulationError(schedule.findings)
    finish = [0] * len(program.tasks)
    last_on: dict[int, int] = {}
    recorded: Events[int, int, None] = Events()  # event -> when its first record ends
    for index in schedule.order:
        task = program.tasks[index]
        begin = last_on.get(task.stream, 0)
        if task.kind == WAIT:
            begin = max(begin, recorded.get(task.event, 0))
        finish[index] = begin + shortest[index]
        last_on[task.stream] = finish[index]
        if task.kind == RECORD:
            recorded.record(task.event, finish[index])
    return finish
