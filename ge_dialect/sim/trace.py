"""Renders timed runs (`Timeline`s): a Chrome/Perfetto trace and a PNG timeline.

`chrome_trace(timelines)` builds the trace-event JSON object (Chrome's Trace Event Format), in
microseconds as the format wants:

- one process per timeline, `pid` = its rank, named `rank R: <device>` and sorted by rank
  (`process_name`, `process_sort_index` metadata);
- one thread per stream, `tid` = the stream id, named `stream S` (with `(priority P)` when
  a launch on it has a nonzero priority) and sorted by id (`thread_name`,
  `thread_sort_index`);
- each launch and copy a complete event (`ph: "X"`): name = the kernel, cat = the unit it
  ran on, args = its location, task index, cost (flops, bytes in/out), blocks, cores, a
  block's compute and memory time, and its queueing delay (start - ready) when positive;
- each record and wait a complete event `record e3` / `wait e3` (cat `event`) over the
  interval the time model gives it (a wait's duration is how long its stream was blocked;
  `ready`, when it reached the head of its stream, is in its args);
- each `Flow` an arrow from its record to its wait: a flow start (`ph: "s"`) inside the
  record's slice and a flow end (`ph: "f"`, `bp: "e"`) inside the wait's slice, on their
  own pid/tid, with one id per flow; both named `e<event>` with cat `event` (Perfetto pairs
  v1 flow events by id, cat and name).

Times are rounded to whole nanoseconds (a slice keeps its exact start and end at that
resolution, so slices of one stream never overlap after rounding), and a flow event sits
at the middle of the slice it binds to: Perfetto and chrome://tracing bind it to the slice
that encloses its timestamp on its thread.  (A slice shorter than 2 ns has no interior: its
flow event sits at its start and is written right after it, which is where both viewers,
reading events in file order at equal timestamps, still find it open.)

The events are written metadata first (by pid, then tid), then stream by stream (by pid,
tid, start, task), each slice followed by the flow events bound to it: a function of the
timelines alone.  `write_chrome_trace` writes compact JSON.

`timeline_png(timeline, path)` draws one timeline with matplotlib (an optional extra,
imported when called) on the Agg backend: a row per stream, launches and copies as bars
coloured by unit, records and waits as thin marks, an arrow per flow; the same timeline
gives the same bytes (fixed size and dpi, no software version in the PNG).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ge_dialect.sim.program import Task
from ge_dialect.sim.timeline import Flow, Interval, Timeline
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.task_order import LAUNCH, RECORD, WAIT

UNIT_COLOURS: dict[str, str] = {"cube": "#d62728", "vector": "#1f77b4", "comm": "#2ca02c"}
"""The PNG's bar colour of each unit (a fixed legend); any other unit is grey."""
OTHER_COLOUR = "#7f7f7f"
WAIT_COLOUR = "#7f7f7f"
FLOW_COLOUR = "#9467bd"
EVENT_CATEGORY = "event"


def _ns(t: float) -> int:
    """A time in microseconds as whole nanoseconds."""
    return int(round(t * 1000.0))


def _us(ns: int) -> float:
    return ns / 1000.0


def _num(x: float) -> float:
    """An argument value (microseconds) without float noise beyond picoseconds."""
    return round(float(x), 6)


def _stream_name(stream: int, tasks: Sequence[Task]) -> str:
    launches = (t for t in tasks if t.kind == LAUNCH and t.stream == stream)
    priorities = sorted({t.priority for t in launches})
    if any(p != 0 for p in priorities):
        return f"stream {stream} (priority {', '.join(str(p) for p in priorities)})"
    return f"stream {stream}"


def _streams(timeline: Timeline) -> list[int]:
    return sorted(set(timeline.program.streams) | {iv.stream for iv in timeline.intervals})


def _checked_flow(timeline: Timeline, flow: Flow) -> tuple[Interval, Interval]:
    """The record's and the wait's interval of `flow` (a time model bug is a ValueError)."""
    tasks = timeline.program.tasks
    n = len(timeline.intervals)
    if not (0 <= flow.record < n and 0 <= flow.wait < n):
        raise ValueError(f"rank {timeline.rank}: {flow} names a task with no interval")
    record, wait = tasks[flow.record], tasks[flow.wait]
    if record.kind != RECORD or wait.kind != WAIT:
        raise ValueError(
            f"rank {timeline.rank}: {flow} does not go from a record to a wait "
            f"({record.kind} -> {wait.kind})"
        )
    return timeline.intervals[flow.record], timeline.intervals[flow.wait]


def _slice(timeline: Timeline, iv: Interval) -> dict[str, Any]:
    """The complete event of one interval."""
    task = timeline.program.tasks[iv.task]
    start, end = _ns(iv.start), _ns(iv.end)
    args: dict[str, Any] = {"location": task.location, "task": iv.task}
    if task.kind in (RECORD, WAIT):
        name = f"{task.kind} e{task.event}"
        category = EVENT_CATEGORY
        args["event"] = task.event
        if task.kind == WAIT:
            args["ready"] = _num(iv.ready)
    else:
        name = task.kernel or task.kind
        category = iv.unit
        args.update(
            flops=task.cost.flops,
            bytes_in=task.cost.bytes_in,
            bytes_out=task.cost.bytes_out,
            blocks=iv.blocks,
            cores=iv.cores,
            block_compute_us=_num(iv.compute),
            block_memory_us=_num(iv.memory),
        )
        delay = _num(iv.start - iv.ready)
        if delay > 0:
            args["queue_delay_us"] = delay
    return {
        "name": name,
        "cat": category,
        "ph": "X",
        "pid": timeline.rank,
        "tid": iv.stream,
        "ts": _us(start),
        "dur": _us(max(end - start, 0)),
        "args": args,
    }


def _flow_ts(iv: Interval) -> float:
    """The middle of the interval's slice, in the slice's own nanosecond grid."""
    start, end = _ns(iv.start), _ns(iv.end)
    return _us(start + max(end - start, 0) // 2)


def chrome_trace(timelines: Sequence[Timeline]) -> dict[str, Any]:
    """The Chrome trace-event JSON object of `timelines` (one process per rank)."""
    ordered = sorted(timelines, key=lambda t: t.rank)
    ranks = [t.rank for t in ordered]
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"two timelines share a rank (ranks {ranks})")

    metadata: list[dict[str, Any]] = []
    body: list[dict[str, Any]] = []
    flow_id = 0
    for timeline in ordered:
        pid = timeline.rank
        tasks = timeline.program.tasks
        metadata.append(
            {
                "name": "process_name",
                "ph": "M",
                "pid": pid,
                "args": {"name": f"rank {pid}: {timeline.device}"},
            }
        )
        metadata.append(
            {"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid}}
        )
        for stream in _streams(timeline):
            metadata.append(
                {
                    "name": "thread_name",
                    "ph": "M",
                    "pid": pid,
                    "tid": stream,
                    "args": {"name": _stream_name(stream, tasks)},
                }
            )
            metadata.append(
                {
                    "name": "thread_sort_index",
                    "ph": "M",
                    "pid": pid,
                    "tid": stream,
                    "args": {"sort_index": stream},
                }
            )

        # flow events, keyed by the task whose slice they bind to
        bound: dict[int, list[dict[str, Any]]] = {}
        for flow in sorted(timeline.flows, key=lambda f: (f.record, f.wait, f.event)):
            record, wait = _checked_flow(timeline, flow)
            flow_id += 1
            name = f"e{flow.event}"
            bound.setdefault(flow.record, []).append(
                {
                    "name": name,
                    "cat": EVENT_CATEGORY,
                    "ph": "s",
                    "id": flow_id,
                    "pid": pid,
                    "tid": record.stream,
                    "ts": _flow_ts(record),
                }
            )
            bound.setdefault(flow.wait, []).append(
                {
                    "name": name,
                    "cat": EVENT_CATEGORY,
                    "ph": "f",
                    "bp": "e",
                    "id": flow_id,
                    "pid": pid,
                    "tid": wait.stream,
                    "ts": _flow_ts(wait),
                }
            )

        for iv in sorted(timeline.intervals, key=lambda i: (i.stream, _ns(i.start), i.task)):
            body.append(_slice(timeline, iv))
            body.extend(bound.get(iv.task, ()))

    makespan = max((t.makespan for t in ordered), default=0.0)
    return {
        "traceEvents": metadata + body,
        "displayTimeUnit": "ns",
        "otherData": {
            "generator": "ge_dialect.sim.trace",
            "programs": ", ".join(f"rank {t.rank}: {t.program.name}" for t in ordered),
            "makespan_us": _us(_ns(makespan)),
        },
    }


def write_chrome_trace(path: str, timelines: Sequence[Timeline]) -> None:
    """Writes `chrome_trace(timelines)` to `path` as compact JSON."""
    text = json.dumps(chrome_trace(timelines), separators=(",", ":"))
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
            f.write("\n")
    except OSError as e:
        raise GeError(f"{path}: error: cannot write trace: {e.strerror or e}") from None


# --- PNG ---------------------------------------------------------------------------------

FIGURE_WIDTH = 12.0  # inches
ROW_HEIGHT = 0.55  # inches per stream
DPI = 100


def timeline_png(timeline: Timeline, path: str, title: str | None = None) -> None:
    """Draws `timeline` to the PNG file `path` (matplotlib, Agg backend)."""
    try:
        from matplotlib.artist import Artist
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
    except ImportError:
        raise GeError("error: --timeline needs matplotlib (pip install matplotlib)") from None

    tasks = timeline.program.tasks
    streams = _streams(timeline)
    row = {s: i for i, s in enumerate(streams)}
    makespan = timeline.makespan

    fig = Figure(
        figsize=(FIGURE_WIDTH, 1.6 + ROW_HEIGHT * max(len(streams), 1)),
        dpi=DPI,
        layout="constrained",
    )
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()

    # bars: one broken_barh per (stream, unit), in a fixed order
    bars: dict[tuple[int, str], list[tuple[float, float]]] = {}
    records: list[tuple[float, int]] = []
    waits: list[tuple[float, float, int]] = []
    for iv in sorted(timeline.intervals, key=lambda i: (i.stream, i.start, i.task)):
        kind = tasks[iv.task].kind
        if kind == RECORD:
            records.append((iv.end, row[iv.stream]))
        elif kind == WAIT:
            waits.append((iv.start, iv.end, row[iv.stream]))
        else:
            bars.setdefault((iv.stream, iv.unit), []).append((iv.start, iv.duration))
    for (stream, unit), spans in sorted(bars.items()):
        ax.broken_barh(
            spans,
            (row[stream] - 0.3, 0.6),
            facecolors=UNIT_COLOURS.get(unit, OTHER_COLOUR),
            edgecolors="black",
            linewidths=0.3,
        )
    for start, end, y in waits:
        ax.hlines(y, start, end, colors=WAIT_COLOUR, linewidths=1.5, linestyles="dotted")
        ax.plot([end], [y], marker="|", markersize=12, color=WAIT_COLOUR, linestyle="none")
    for end, y in records:
        ax.plot([end], [y], marker="|", markersize=12, color="black", linestyle="none")
    for flow in sorted(timeline.flows, key=lambda f: (f.record, f.wait, f.event)):
        record, wait = _checked_flow(timeline, flow)
        ax.annotate(
            "",
            xy=(wait.end, row[wait.stream]),
            xytext=(record.end, row[record.stream]),
            arrowprops={
                "arrowstyle": "-|>",
                "color": FLOW_COLOUR,
                "linewidth": 0.8,
                "shrinkA": 0,
                "shrinkB": 0,
            },
        )

    ax.set_yticks(range(len(streams)), [f"stream {s}" for s in streams])
    ax.set_ylim(len(streams) - 0.5, -0.5)  # stream 0 on top
    ax.set_xlim(0.0, makespan * 1.02 if makespan > 0 else 1.0)
    ax.set_xlabel("time (µs)")
    ax.grid(axis="x", linewidth=0.3, alpha=0.5)
    ax.set_title(
        title
        if title is not None
        else f"{timeline.program.name}: rank {timeline.rank} ({timeline.device}), "
        f"makespan {makespan:.3f} µs",
        fontsize=10,
    )
    handles: list[Artist] = [
        Patch(facecolor=c, edgecolor="black", linewidth=0.3, label=u)
        for u, c in UNIT_COLOURS.items()
    ]
    handles += [
        Line2D([], [], color="black", marker="|", markersize=10, linestyle="none", label="record"),
        Line2D(
            [],
            [],
            color=WAIT_COLOUR,
            marker="|",
            markersize=10,
            linewidth=1.5,
            linestyle="dotted",
            label="wait (blocked)",
        ),
        Line2D([], [], color=FLOW_COLOUR, linewidth=0.8, label="record -> wait"),
    ]
    fig.legend(
        handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8, frameon=False
    )
    try:
        fig.savefig(path, format="png", metadata={"Software": None})
    except OSError as e:
        raise GeError(f"{path}: error: cannot write timeline: {e.strerror or e}") from None
