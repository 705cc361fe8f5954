"""The figures of a simulated run: makespan against its lower bound, streams, units, the
cluster-analysis figures Ascend users read, three cluster ratios; as text and as JSON.

Definitions (a union of intervals counts overlapping time once):

- `makespan`: when the last task ends; `lower_bound`: `sim.timing.lower_bound`, with what
  limits it (the critical path, or a pool's work over its cores).
- per stream: `busy` (union of its launches and copies), tasks and launches.
- per unit: `busy` (union of its kernels' runs) and `utilisation`: the core time its blocks
  held over (cores x makespan); comm has one engine.
- Ascend's cluster analysis: `Computing` (union of cube and vector kernels),
  `Communication` (union of collectives), `Communication(Not Overlapped)` (communication
  while nothing computes), `Overlapped` (communication while something computes), `Free`
  (makespan minus the union of both).
- The cluster ratios: compute utilisation = Computing / makespan, communication ratio =
  Communication / makespan, overlap efficiency = Overlapped / Communication (None without
  communication).
- `events`: records, and the waits they released.
- several ranks (`make_ranks_report`): `makespan` is the step time (the last rank's end),
  the lower bound the largest rank's; Computing, Communication, ... and the ratios are the
  mean over ranks with each rank's Free counted up to the step time; streams, units and
  memory are rank 0's.  `extra` adds `ranks` (per rank: its makespan, the five figures
  and the three ratios), `imbalance` ((max - min) / mean over ranks of makespan, Computing
  and Communication; Ascend's cluster analysis calls ranks within 5% balanced),
  `collectives` (each collective: group, kind, ranks, bytes, HCCL's algorithm, the link
  types its hops use, alpha, beta, its cost, when it started on its first member and when
  it ended) and `topology`.  A collective's Communication on a rank runs from when that
  rank reached it (waiting for the others included, as msprof counts it) to its end.
  A pipelined run adds `pipeline` (`pipeline_figures`): each stage's bubble (the fraction
  of the step it waits for other stages) and idle time, against GPipe's ideal bubble.
- `memory`: after `plan-memory`, the workspace's peak against the stream-aware lower bound
  (the heaviest set of buffers no two of which are ordered), the sequential one (most bytes
  live at one point of the task list) and the sum without reuse, and for rank programs the
  communication region (`comm_bytes`: collectives' buffers at one offset on every rank);
  before it, the sum of the activations' aligned sizes.

Every time is computed on the time model's exact base (whole femtoseconds: the timeline's
and the bound's `*_fs` figures, `sim.timing` says why) and converted once, to the float
microseconds of the `Report`'s fields, which are what is printed and written as JSON.  A
correctly rounded conversion keeps order, so the makespan printed is never below the bound
printed and makespan / bound is never below 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ge_dialect.sim.kernel_model import KernelTime
from ge_dialect.sim.profile import DeviceProfile
from ge_dialect.sim.program import ALLOC, Program
from ge_dialect.sim.timeline import Interval, Timeline, us
from ge_dialect.sim.timing import Bound, pool_of, pools
from ge_dialect.utils.task_order import COPY, LAUNCH, RECORD, WAIT

COMPUTE_UNITS = ("cube", "vector")


Spans = list[tuple[int, int]]
"""(start, end) intervals in femtoseconds; `union`'s are disjoint and sorted."""


def union(spans: Iterable[tuple[int, int]]) -> Spans:
    """Disjoint, sorted intervals covering `spans`."""
    merged: Spans = []
    for start, end in sorted(spans):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def length(spans: Spans) -> int:
    return sum(end - start for start, end in spans)


def intersection(a: Spans, b: Spans) -> int:
    """The length of the overlap of two disjoint sorted interval lists (`union`'s)."""
    i = j = 0
    total = 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, end - start)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


@dataclass
class StreamFigures:
    stream: int
    busy: float
    tasks: int
    launches: int
    priority: int


@dataclass
class Report:
    """The figures of one simulated run (see the module docstring)."""

    device: str
    makespan: float
    lower_bound: float
    limited_by: str
    critical_path: float
    streams: list[StreamFigures]
    unit_busy: dict[str, float]
    utilisation: dict[str, float]
    computing: float
    communication: float
    communication_not_overlapped: float
    overlapped: float
    free: float
    records: int
    waits: int
    launches: int
    memory: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # figures other issues add

    @property
    def compute_utilisation(self) -> float:
        return self.computing / self.makespan if self.makespan else 0.0

    @property
    def communication_ratio(self) -> float:
        return self.communication / self.makespan if self.makespan else 0.0

    @property
    def overlap_efficiency(self) -> float | None:
        return self.overlapped / self.communication if self.communication else None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON (keys documented in docs/cli.md, "The report")."""
        return {
            "device": self.device,
            "makespan_us": self.makespan,
            "lower_bound_us": self.lower_bound,
            "makespan_over_bound": self.makespan / self.lower_bound if self.lower_bound else None,
            "limited_by": self.limited_by,
            "critical_path_us": self.critical_path,
            "launches": self.launches,
            "events": {"records": self.records, "waits": self.waits},
            "streams": [
                {
                    "stream": s.stream,
                    "busy_us": s.busy,
                    "tasks": s.tasks,
                    "launches": s.launches,
                    "priority": s.priority,
                }
                for s in self.streams
            ],
            "units": {
                unit: {
                    "busy_us": self.unit_busy.get(unit, 0.0),
                    "utilisation": self.utilisation.get(unit, 0.0),
                }
                for unit in ("cube", "vector", "comm")
            },
            "cluster": {
                "Computing": self.computing,
                "Communication": self.communication,
                "Communication(Not Overlapped)": self.communication_not_overlapped,
                "Overlapped": self.overlapped,
                "Free": self.free,
            },
            "ratios": {
                "compute_utilisation": self.compute_utilisation,
                "communication_ratio": self.communication_ratio,
                "overlap_efficiency": self.overlap_efficiency,
            },
            "memory": self.memory,
            **self.extra,
        }

    def text(self) -> str:
        """The report as the lines ge-run prints."""
        ratio = self.makespan / self.lower_bound if self.lower_bound else float("nan")
        lines = [
            f"makespan {self.makespan:.2f} us, lower bound {self.lower_bound:.2f} us "
            f"({self.limited_by}), makespan / bound {ratio:.3f}",
            f"{_count(self.launches, 'launch', 'launches')}, "
            f"{_count(self.records, 'record')}, {_count(self.waits, 'wait')} on "
            f"{_count(len(self.streams), 'stream')} of {self.device}",
        ]
        for s in self.streams:
            share = s.busy / self.makespan if self.makespan else 0.0
            lines.append(
                f"  stream {s.stream}: busy {s.busy:.2f} us ({share:.0%}), "
                f"{_count(s.launches, 'launch', 'launches')}, {_count(s.tasks, 'task')}, "
                f"priority {s.priority}"
            )
        units = ", ".join(
            f"{unit} {self.utilisation.get(unit, 0.0):.1%}" for unit in ("cube", "vector", "comm")
        )
        lines.append(f"utilisation: {units}")
        lines.append(
            f"Computing {self.computing:.2f} us, Communication {self.communication:.2f} us, "
            f"Communication(Not Overlapped) {self.communication_not_overlapped:.2f} us, "
            f"Overlapped {self.overlapped:.2f} us, Free {self.free:.2f} us"
        )
        overlap = self.overlap_efficiency
        lines.append(
            f"compute utilisation {self.compute_utilisation:.1%}, communication ratio "
            f"{self.communication_ratio:.1%}, overlap efficiency "
            f"{'n/a' if overlap is None else f'{overlap:.1%}'}"
        )
        lines.append(_memory_line(self.memory))
        lines += _rank_lines(self.extra)
        return "\n".join(lines)


def _mib(n: float) -> str:
    return f"{n / 2**20:.2f} MiB"


def _memory_line(memory: dict[str, Any]) -> str:
    if not memory.get("planned"):
        return (
            f"memory: not planned (run plan-memory); activations without reuse "
            f"{_mib(memory.get('no_reuse_bytes', 0))}"
        )
    peak = memory["peak_bytes"]

    def ratio(key: str) -> str:
        return f"{peak / memory[key]:.3f}" if memory[key] else "n/a"

    optimal = memory.get("optimal")
    if optimal is None:  # planned before the search existed
        verdict = ""
    elif not optimal:
        verdict = " (not proven optimal)"
    elif peak <= memory["stream_bound_bytes"]:
        verdict = " (optimal: at the stream-aware bound)"
    else:
        verdict = " (optimal: the exact search refuted every lower peak)"
    return (
        f"memory: peak {_mib(peak)}{verdict}; stream-aware bound "
        f"{_mib(memory['stream_bound_bytes'])} "
        f"(peak / bound {ratio('stream_bound_bytes')}), sequential bound "
        f"{_mib(memory['sequential_bound_bytes'])} (peak / bound "
        f"{ratio('sequential_bound_bytes')}), no reuse {_mib(memory['no_reuse_bytes'])} "
        f"(peak / no reuse {ratio('no_reuse_bytes')}); {memory['buffers']} buffers"
        + (
            f"; communication region {_mib(memory['comm_bytes'])} (symmetric)"
            if "comm_bytes" in memory
            else ""
        )
    )


def memory_figures(program: Program, profile: DeviceProfile) -> dict[str, Any]:
    """The memory figures: `plan-memory`'s, or (unplanned) the activations' aligned sizes."""
    planned = program.memory
    if planned:
        return {
            "planned": True,
            "peak_bytes": planned["peak"],
            "stream_bound_bytes": planned["stream_bound"],
            "sequential_bound_bytes": planned["sequential_bound"],
            "no_reuse_bytes": planned["no_reuse"],
            "buffers": planned["buffers"],
            **({"optimal": bool(planned["optimal"])} if "optimal" in planned else {}),
            **({"comm_bytes": planned["comm_bytes"]} if "comm_bytes" in planned else {}),
        }
    align = profile.alignment
    sizes = [-(-b.nbytes // align) * align for b in program.buffers if b.kind == ALLOC]
    return {"planned": False, "no_reuse_bytes": sum(sizes), "buffers": len(sizes)}


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _stream_figures(timeline: Timeline) -> list[StreamFigures]:
    """Each stream's busy time (the union of its launches and copies), tasks, launches and
    priority (the one nearest 0 among its launches')."""
    tasks = timeline.program.tasks
    by_stream: dict[int, list[Interval]] = {}
    for interval in timeline.intervals:
        by_stream.setdefault(interval.stream, []).append(interval)
    streams = []
    for s in sorted(by_stream):
        work = [i for i in by_stream[s] if i.unit != "event"]
        priorities = [tasks[i.task].priority for i in work]
        streams.append(
            StreamFigures(
                s,
                us(length(union((i.start_fs, i.end_fs) for i in work))),
                len(by_stream[s]),
                len(work),
                min(priorities, key=lambda p: (abs(p), p)) if priorities else 0,
            )
        )
    return streams


def _unit_spans(timeline: Timeline, times: list[KernelTime | None]) -> dict[str, Spans]:
    """Each unit's kernels' runs (not merged)."""
    spans: dict[str, Spans] = {}
    for interval in timeline.intervals:
        k = times[interval.task]
        if k is not None:
            spans.setdefault(k.unit, []).append((interval.start_fs, interval.end_fs))
    return spans


@dataclass(frozen=True)
class _Cluster:
    """The exact parts of Ascend's cluster figures of one timeline (femtoseconds):
    Computing, Communication, their overlap and their union."""

    computing: int
    communication: int
    overlapped: int
    busy: int

    @classmethod
    def of(cls, spans: dict[str, Spans]) -> _Cluster:
        computing = union(span for unit in COMPUTE_UNITS for span in spans.get(unit, []))
        communication = union(spans.get("comm", []))
        return cls(
            length(computing),
            length(communication),
            intersection(computing, communication),
            length(union([*computing, *communication])),
        )


def make_report(
    timeline: Timeline,
    bound: Bound,
    profile: DeviceProfile,
    times: list[KernelTime | None],
) -> Report:
    """The figures of `timeline` (see the module docstring)."""
    program = timeline.program
    makespan = timeline.makespan_fs
    spans = _unit_spans(timeline, times)
    core_time: dict[str, int] = {}
    for interval in timeline.intervals:
        k = times[interval.task]
        if k is not None:
            core_time[k.unit] = core_time.get(k.unit, 0) + interval.core_time_fs
    capacity = pools(profile)
    utilisation = {
        unit: min(1.0, t / (capacity[pool_of(unit, profile)] * makespan)) if makespan else 0.0
        for unit, t in core_time.items()
    }
    cluster = _Cluster.of(spans)
    return Report(
        timeline.device,
        us(makespan),
        bound.value,
        bound.limited_by,
        bound.critical_path,
        _stream_figures(timeline),
        {unit: us(length(union(s))) for unit, s in spans.items()},
        utilisation,
        us(cluster.computing),
        us(cluster.communication),
        us(cluster.communication - cluster.overlapped),
        us(cluster.overlapped),
        us(max(0, makespan - cluster.busy)),
        sum(1 for t in program.tasks if t.kind == RECORD),
        sum(1 for t in program.tasks if t.kind == WAIT),
        sum(1 for t in program.tasks if t.kind in (LAUNCH, COPY)),
        memory_figures(program, profile),
    )


CLUSTER_FIGURES = (
    "Computing",
    "Communication",
    "Communication(Not Overlapped)",
    "Overlapped",
    "Free",
)


def _imbalance(values: list[float]) -> float:
    mean = sum(values) / len(values) if values else 0.0
    return (max(values) - min(values)) / mean if mean else 0.0


def make_ranks_report(
    timelines: list[Timeline],
    bounds: list[Bound],
    profile: DeviceProfile,
    times: list[list[KernelTime | None]],
    collectives: list[Any],
    topology: str = "",
    stages: Sequence[int] | None = None,
    micro_batches: int = 1,
) -> Report:
    """The figures of a multi-rank run (see the module docstring); `stages` (each rank's
    pipeline stage) adds the pipeline's bubble (`pipeline_figures`)."""
    reports = [
        make_report(t, b, profile, k) for t, b, k in zip(timelines, bounds, times, strict=True)
    ]
    clusters = [_Cluster.of(_unit_spans(t, k)) for t, k in zip(timelines, times, strict=True)]
    step = max(t.makespan_fs for t in timelines)
    ranks = [_rank_row(t, c, step) for t, c in zip(timelines, clusters, strict=True)]
    n = len(reports)
    free = [max(0, step - c.busy) for c in clusters]

    def mean(figures: list[int]) -> float:
        return us(sum(figures)) / n

    imbalance = {
        "makespan": _imbalance([r.makespan for r in reports]),
        "Computing": _imbalance([r.computing for r in reports]),
        "Communication": _imbalance([r.communication for r in reports]),
    }
    rows = []
    for c in collectives:
        spans = [timelines[r].intervals[i] for r, i in sorted(c.tasks.items())]
        rows.append(
            {
                "group": c.group,
                "seq": c.seq,
                "kind": c.kind,
                "location": c.location,
                "ranks": c.members,
                "bytes": c.nbytes,
                "algorithm": c.cost.algorithm,
                "link_types": list(c.cost.link_types),
                "alpha_us": c.cost.alpha * 1e6,
                "beta_us_per_MB": c.cost.beta * 1e12,
                "cost_us": c.cost.seconds * 1e6,
                "start_us": us(min(s.start_fs for s in spans)),
                "end_us": us(max(s.end_fs for s in spans)),
            }
        )
    best = max(range(n), key=lambda i: (bounds[i].value_fs, -i))
    first = reports[0]
    return Report(
        f"{n} x {profile.name}" + (f" on {topology}" if topology else ""),
        us(step),
        bounds[best].value,
        f"{bounds[best].limited_by} of rank {timelines[best].rank}",
        us(max(b.critical_path_fs for b in bounds)),
        first.streams,
        first.unit_busy,
        first.utilisation,
        mean([c.computing for c in clusters]),
        mean([c.communication for c in clusters]),
        mean([c.communication - c.overlapped for c in clusters]),
        mean([c.overlapped for c in clusters]),
        mean(free),
        sum(r.records for r in reports),
        sum(r.waits for r in reports),
        sum(r.launches for r in reports),
        first.memory,
        {
            "topology": topology,
            "ranks": ranks,
            "imbalance": imbalance,
            "collectives": rows,
        }
        | ({"pipeline": pipeline_figures(timelines, stages, micro_batches)} if stages else {}),
    )


def pipeline_figures(
    timelines: Sequence[Timeline], stages: Sequence[int], micro_batches: int
) -> dict[str, Any]:
    """The bubble of a pipelined step of p stages and m micro-batches.  A rank works when
    it launches a task (from when its stream could start it to its start), runs a kernel,
    or moves a collective's bytes (the collective's own cost, at its end); it waits when
    a send or receive waits for its partner, before its first task and after its last,
    up to the step's end (the last rank's).  Per stage (the mean over its ranks): `work_us`,
    `bubble` = the fraction of the step it waits, and `idle` = the fraction it computes
    nothing (no cube or vector kernel: launches and transfers count as idle).  Over the
    stages: the mean bubble, GPipe's ideal (p - 1) / (m + p - 1), which a pipeline of equal
    stages meets whatever its launch costs, and the stages' imbalance ((max - min) / mean
    of their work), which bounds how far the bubble may miss it when the transfers between
    stages are small against a stage's work (a transfer is work on both of its stages at
    once, so the pipeline fills faster than the ideal assumes: the bubble falls below it)."""
    step = max(t.makespan_fs for t in timelines)
    per_stage: dict[int, list[tuple[int, int]]] = {}
    for timeline, stage in zip(timelines, stages, strict=True):
        work: Spans = []
        compute: Spans = []
        for i in timeline.intervals:
            if i.unit == "event":
                continue
            start = i.end_fs - i.compute_fs if i.unit == "comm" else i.start_fs
            own = (start, i.end_fs)
            work += [(i.ready_fs, i.start_fs), own]
            if i.unit in COMPUTE_UNITS:
                compute.append(own)
        per_stage.setdefault(stage, []).append((length(union(work)), length(union(compute))))
    rows = []
    for stage in sorted(per_stage):
        n = len(per_stage[stage])
        work_fs = sum(w for w, _ in per_stage[stage])
        compute_fs = sum(c for _, c in per_stage[stage])
        rows.append(
            {
                "stage": stage,
                "work_us": us(work_fs) / n,
                "bubble": 1 - work_fs / (n * step) if step else 0.0,
                "idle": 1 - compute_fs / (n * step) if step else 0.0,
            }
        )
    p, m = len(rows), micro_batches
    return {
        "stages": p,
        "micro_batches": m,
        "bubble": sum(r["bubble"] for r in rows) / p,
        "ideal_bubble": (p - 1) / (m + p - 1),
        "imbalance": _imbalance([r["work_us"] for r in rows]),
        "per_stage": rows,
    }


def _rank_row(timeline: Timeline, c: _Cluster, step: int) -> dict[str, Any]:
    """One rank's entry of `ranks`: its makespan, its cluster figures (Free counted up to
    the step time `step`) and ratios."""
    return {
        "rank": timeline.rank,
        "makespan_us": timeline.makespan,
        "cluster": {
            "Computing": us(c.computing),
            "Communication": us(c.communication),
            "Communication(Not Overlapped)": us(c.communication - c.overlapped),
            "Overlapped": us(c.overlapped),
            "Free": us(max(0, step - c.busy)),
        },
        "ratios": {
            "compute_utilisation": c.computing / step if step else 0.0,
            "communication_ratio": c.communication / step if step else 0.0,
            "overlap_efficiency": c.overlapped / c.communication if c.communication else None,
        },
    }


def _rank_lines(extra: dict[str, Any]) -> list[str]:
    if "ranks" not in extra:
        return []
    lines = []
    for rank in extra["ranks"]:
        f = rank["cluster"]
        ratio = rank["ratios"]
        overlap = ratio["overlap_efficiency"]
        lines.append(
            f"rank {rank['rank']}: makespan {rank['makespan_us']:.2f} us, Computing "
            f"{f['Computing']:.2f} us, Communication {f['Communication']:.2f} us, "
            f"Communication(Not Overlapped) {f['Communication(Not Overlapped)']:.2f} us, "
            f"Overlapped {f['Overlapped']:.2f} us, Free {f['Free']:.2f} us; compute "
            f"utilisation {ratio['compute_utilisation']:.1%}, communication ratio "
            f"{ratio['communication_ratio']:.1%}, overlap efficiency "
            f"{'n/a' if overlap is None else f'{overlap:.1%}'}"
        )
    imbalance = extra["imbalance"]
    lines.append(
        "imbalance across ranks ((max - min) / mean): "
        + ", ".join(f"{k} {v:.1%}" for k, v in imbalance.items())
    )
    for c in extra["collectives"]:
        lines.append(_collective_line(c))
    if "pipeline" in extra:
        pipe = extra["pipeline"]
        lines.append(
            f"pipeline: {_count(pipe['stages'], 'stage')}, "
            f"{_count(pipe['micro_batches'], 'micro-batch', 'micro-batches')}: bubble "
            f"{pipe['bubble']:.1%} (ideal {pipe['ideal_bubble']:.1%}), stage imbalance "
            f"{pipe['imbalance']:.1%}; "
            + ", ".join(
                f"stage {r['stage']} bubble {r['bubble']:.1%} idle {r['idle']:.1%}"
                for r in pipe["per_stage"]
            )
        )
    return lines


def _collective_line(c: dict[str, Any]) -> str:
    return (
        f"collective {c['kind']} {c['seq']} of group '{c['group']}' ({c['location']}): "
        f"{len(c['ranks'])} ranks, {c['bytes']} bytes, {c['algorithm']} over "
        f"{'/'.join(c['link_types']) or 'no link'}, {c['cost_us']:.2f} us"
    )


def changed_collectives(before: Report, after: Report) -> list[str]:
    """The collectives whose algorithm, links or cost differ between two multi-rank reports
    of the same program (say, on two topologies): one line each, `before -> after`."""
    old = {(c["group"], c["seq"]): c for c in before.extra.get("collectives", [])}
    lines = []
    for c in after.extra.get("collectives", []):
        b = old.get((c["group"], c["seq"]))
        if b is None:
            lines.append(f"new: {_collective_line(c)}")
            continue
        same = (
            b["algorithm"] == c["algorithm"]
            and b["link_types"] == c["link_types"]
            and abs(b["cost_us"] - c["cost_us"]) <= 1e-9 * max(1.0, abs(b["cost_us"]))
        )
        if not same:
            lines.append(
                f"collective {c['kind']} {c['seq']} of group '{c['group']}' ({c['location']}): "
                f"{b['algorithm']} over {'/'.join(b['link_types'])} {b['cost_us']:.2f} us -> "
                f"{c['algorithm']} over {'/'.join(c['link_types'])} {c['cost_us']:.2f} us"
            )
    return lines
