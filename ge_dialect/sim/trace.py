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
- each record a complete event `record e3` (cat `event`) over its interval; each wait a
  complete event `wait e3` from when its event was recorded (the record's end, or when its
  stream reached it if later) to its end, and, when its stream reached it before the
  record fired, a complete event `wait e3 (blocked)` before it, from then to the record
  (`ready`, when the wait reached the head of its stream, is in the wait's args).  Every
  slice's args carry its task's location (`file:line:col` of its op in the IR);
- each `Flow` an arrow from its record to its wait: a flow start (`ph: "s"`) inside the
  record's slice and a flow end (`ph: "f"`, `bp: "e"`) inside the wait's `wait e3` slice,
  on their own pid/tid, with one id per flow; both named `e<event>` with cat `event`
  (Perfetto pairs v1 flow events by id, cat and name).

Why the wait is split: a stream reaches a wait (it is issued) before the record fires
whenever it ran ahead of the other stream, and an arrow must never end before it starts.
Both viewers bind a flow event to the slice that encloses its timestamp on its thread, then
draw differently: chrome://tracing draws the arrow between the two flow events'
timestamps, Perfetto from the end of the start's slice to the start of the end's slice.
The `wait e3` slice starts no earlier than the record's end, and the flow end sits inside
it, so in both the arrow goes forward in time: from the record to the moment the wait is
satisfied.  (Bound to the whole wait, Perfetto would draw it back to the wait's issue.)

Times are exact femtoseconds in the timelines (`sim.timeline`), rounded here to whole
nanoseconds (a slice keeps its exact start and end at that resolution, so slices of one
stream never overlap after rounding), and a flow event sits at the middle of the slice it
binds to.  (A slice shorter than 2 ns has no interior: its flow event sits at its start
and is written right after it, which is where both viewers, reading events in file order at
equal timestamps, still find it open.)

The events are written metadata first (by pid, then tid), then stream by stream (by pid,
tid, start, task), each slice followed by the flow events bound to it: a function of the
timelines alone.  `write_chrome_trace` writes compact JSON.

`timeline_figure(timeline)` draws one timeline with matplotlib (an optional extra, imported
when called) on the Agg backend, and `timeline_png(timeline, path)` writes it: a row per
stream, launches and copies as bars coloured by unit and named by their kernel where the
name fits inside the bar, records as ticks, blocked waits as dotted lines, an arrow per
flow from the record to where its wait is satisfied, and a legend of the colours and marks;
the same timeline gives the same bytes (fixed size and dpi, no software version in the
PNG).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ge_dialect.sim.program import Task
from ge_dialect.sim.timeline import Flow, Interval, Timeline, us
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.task_order import LAUNCH, RECORD, WAIT

UNIT_COLOURS: dict[str, str] = {"cube": "#d62728", "vector": "#1f77b4", "comm": "#2ca02c"}
"""The PNG's bar colour of each unit (a fixed legend); any other unit is grey."""
OTHER_COLOUR = "#7f7f7f"
WAIT_COLOUR = "#7f7f7f"
FLOW_COLOUR = "#9467bd"
EVENT_CATEGORY = "event"
FS_PER_NS = 10**6


def _ns(fs: int) -> int:
    """An exact time (femtoseconds) as whole nanoseconds (to the nearest, halves up)."""
    return (fs + FS_PER_NS // 2) // FS_PER_NS


def _us(ns: int) -> float:
    return ns / 1000.0


def _num(fs: int) -> float:
    """An argument value (femtoseconds) in microseconds, to the picosecond."""
    return round(us(fs), 6)


def _stream_name(stream: int, tasks: Sequence[Task]) -> str:
    launches = (t for t in tasks if t.kind == LAUNCH and t.stream == stream)
    priorities = sorted({t.priority for t in launches})
    if any(p != 0 for p in priorities):
        return f"stream {stream} (priority {', '.join(str(p) for p in priorities)})"
    return f"stream {stream}"


def _streams(timeline: Timeline) -> list[int]:
    return sorted(set(timeline.program.streams) | {iv.stream for iv in timeline.intervals})


def _checked_flow(timeline: Timeline, flow: Flow) -> tuple[Interval, Interval]:
    """The record's and the wait's interval of `flow` (a time model bug is a ValueError:
    a flow that is not record -> wait, or a wait that ends before its record)."""
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
    record_iv, wait_iv = timeline.intervals[flow.record], timeline.intervals[flow.wait]
    if wait_iv.end_fs < record_iv.end_fs:
        raise ValueError(f"rank {timeline.rank}: {flow}: the wait ends before its record")
    return record_iv, wait_iv


def _satisfied(timeline: Timeline) -> dict[int, int]:
    """When each released wait was satisfied (femtoseconds, by task): the end of the record
    that released it, or when its stream reached it if that was later."""
    when: dict[int, int] = {}
    for flow in timeline.flows:
        record, wait = _checked_flow(timeline, flow)
        t = max(wait.start_fs, record.end_fs)
        when[flow.wait] = max(when.get(flow.wait, t), t)
    return when


def _slice(
    timeline: Timeline, iv: Interval, start_fs: int, end_fs: int, blocked: bool = False
) -> dict[str, Any]:
    """The complete event of an interval's part from `start_fs` to `end_fs`: a wait's own
    part starts when it was satisfied, its `blocked` part ends then."""
    task = timeline.program.tasks[iv.task]
    start, end = _ns(start_fs), _ns(end_fs)
    args: dict[str, Any] = {"location": task.location, "task": iv.task}
    if task.kind in (RECORD, WAIT):
        name = f"{task.kind} e{task.event}" + (" (blocked)" if blocked else "")
        category = EVENT_CATEGORY
        args["event"] = task.event
        if task.kind == WAIT and not blocked:
            args["ready"] = _num(iv.ready_fs)
    else:
        name = task.kernel or task.kind
        category = iv.unit
        args.update(
            flops=task.cost.flops,
            bytes_in=task.cost.bytes_in,
            bytes_out=task.cost.bytes_out,
            blocks=iv.blocks,
            cores=iv.cores,
            block_compute_us=_num(iv.compute_fs),
            block_memory_us=_num(iv.memory_fs),
        )
        delay = _num(iv.start_fs - iv.ready_fs)
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


def _flow_ts(start_fs: int, end_fs: int) -> float:
    """The middle of a slice from `start_fs` to `end_fs`, in its own nanosecond grid."""
    start, end = _ns(start_fs), _ns(end_fs)
    return _us(start + max(end - start, 0) // 2)


def _metadata(timeline: Timeline) -> list[dict[str, Any]]:
    """The process's and its threads' names and sort indices."""
    pid = timeline.rank
    tasks = timeline.program.tasks
    events: list[dict[str, Any]] = [
        {
            "name": "process_name",
            "ph": "M",
            "pid": pid,
            "args": {"name": f"rank {pid}: {timeline.device}"},
        },
        {"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid}},
    ]
    for stream in _streams(timeline):
        events.append(
            {
                "name": "thread_name",
                "ph": "M",
                "pid": pid,
                "tid": stream,
                "args": {"name": _stream_name(stream, tasks)},
            }
        )
        events.append(
            {
                "name": "thread_sort_index",
                "ph": "M",
                "pid": pid,
                "tid": stream,
                "args": {"sort_index": stream},
            }
        )
    return events


def _flow_events(
    timeline: Timeline, when: dict[int, int], first_id: int
) -> dict[int, list[dict[str, Any]]]:
    """The flow events of `timeline`, numbered from `first_id`, keyed by the task whose
    slice they bind to: the start inside the record's, the end inside the wait's own part
    (from `when` it was satisfied)."""
    bound: dict[int, list[dict[str, Any]]] = {}
    flow_id = first_id
    for flow in sorted(timeline.flows, key=lambda f: (f.record, f.wait, f.event)):
        record, wait = _checked_flow(timeline, flow)
        name = f"e{flow.event}"
        common = {"name": name, "cat": EVENT_CATEGORY}
        bound.setdefault(flow.record, []).append(
            {
                **common,
                "ph": "s",
                "id": flow_id,
                "pid": timeline.rank,
                "tid": record.stream,
                "ts": _flow_ts(record.start_fs, record.end_fs),
            }
        )
        bound.setdefault(flow.wait, []).append(
            {
                **common,
                "ph": "f",
                "bp": "e",
                "id": flow_id,
                "pid": timeline.rank,
                "tid": wait.stream,
                "ts": _flow_ts(when[flow.wait], wait.end_fs),
            }
        )
        flow_id += 1
    return bound


def _body(timeline: Timeline, first_id: int) -> list[dict[str, Any]]:
    """The slices of `timeline`, stream by stream, each followed by its flow events."""
    when = _satisfied(timeline)
    bound = _flow_events(timeline, when, first_id)
    events: list[dict[str, Any]] = []
    for iv in sorted(timeline.intervals, key=lambda i: (i.stream, _ns(i.start_fs), i.task)):
        start = when.get(iv.task, iv.start_fs)
        if _ns(start) > _ns(iv.start_fs):
            events.append(_slice(timeline, iv, iv.start_fs, start, blocked=True))
        events.append(_slice(timeline, iv, start, iv.end_fs))
        events.extend(bound.get(iv.task, ()))
    return events


def chrome_trace(timelines: Sequence[Timeline]) -> dict[str, Any]:
    """The Chrome trace-event JSON object of `timelines` (one process per rank)."""
    ordered = sorted(timelines, key=lambda t: t.rank)
    ranks = [t.rank for t in ordered]
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"two timelines share a rank (ranks {ranks})")
    metadata: list[dict[str, Any]] = []
    body: list[dict[str, Any]] = []
    first_id = 1
    for timeline in ordered:
        metadata += _metadata(timeline)
        body += _body(timeline, first_id)
        first_id += len(timeline.flows)
    makespan = max((t.makespan_fs for t in ordered), default=0)
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
BAR_HEIGHT = 0.6  # of a row
LABEL_SIZE = 7.0  # points: the kernel name inside a bar
LABEL_PAD = 3.0  # pixels a name keeps free at each end of its bar
LABEL_COLOUR = "white"
RECORD_LABEL, WAIT_LABEL, FLOW_LABEL = "record", "wait (blocked)", "record -> wait"


def _bar_spans(
    timeline: Timeline, row: dict[int, int]
) -> tuple[dict[tuple[int, str], list[tuple[float, float]]], list[tuple[float, float, int, str]]]:
    """The launches and copies as bars: (start, duration) per (stream, unit), and each one's
    (start, duration, row, kernel name) for its label."""
    tasks = timeline.program.tasks
    bars: dict[tuple[int, str], list[tuple[float, float]]] = {}
    labels: list[tuple[float, float, int, str]] = []
    for iv in sorted(timeline.intervals, key=lambda i: (i.stream, i.start_fs, i.task)):
        task = tasks[iv.task]
        if task.kind in (RECORD, WAIT):
            continue
        bars.setdefault((iv.stream, iv.unit), []).append((iv.start, iv.duration))
        labels.append((iv.start, iv.duration, row[iv.stream], task.kernel or task.kind))
    return bars, labels


def _draw_events(ax: Any, timeline: Timeline, row: dict[int, int]) -> None:
    """Records as black ticks at their end, waits as dotted lines to a grey tick at their
    end, and an arrow per flow from its record's end to where its wait was satisfied."""
    tasks = timeline.program.tasks
    for iv in sorted(timeline.intervals, key=lambda i: (i.stream, i.start_fs, i.task)):
        y = row[iv.stream]
        if tasks[iv.task].kind == WAIT:
            ax.hlines(y, iv.start, iv.end, colors=WAIT_COLOUR, linewidths=1.5, linestyles="dotted")
            ax.plot([iv.end], [y], marker="|", markersize=12, color=WAIT_COLOUR, linestyle="none")
        elif tasks[iv.task].kind == RECORD:
            ax.plot([iv.end], [y], marker="|", markersize=12, color="black", linestyle="none")
    when = _satisfied(timeline)
    for flow in sorted(timeline.flows, key=lambda f: (f.record, f.wait, f.event)):
        record, wait = _checked_flow(timeline, flow)
        ax.annotate(
            "",
            xy=(us(when[flow.wait]), row[wait.stream]),
            xytext=(record.end, row[record.stream]),
            arrowprops={
                "arrowstyle": "-|>",
                "color": FLOW_COLOUR,
                "linewidth": 0.8,
                "shrinkA": 0,
                "shrinkB": 0,
            },
        )


def _legend_handles(units: set[str]) -> list[Any]:
    """The legend: each unit's colour (grey `other` only when a bar has it), then the
    marks of records, blocked waits and flows."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    colours = dict(UNIT_COLOURS)
    if units - set(UNIT_COLOURS):
        colours["other"] = OTHER_COLOUR
    handles: list[Any] = [
        Patch(facecolor=c, edgecolor="black", linewidth=0.3, label=u) for u, c in colours.items()
    ]
    handles += [
        Line2D(
            [], [], color="black", marker="|", markersize=10, linestyle="none", label=RECORD_LABEL
        ),
        Line2D(
            [],
            [],
            color=WAIT_COLOUR,
            marker="|",
            markersize=10,
            linewidth=1.5,
            linestyle="dotted",
            label=WAIT_LABEL,
        ),
        Line2D([], [], color=FLOW_COLOUR, linewidth=0.8, label=FLOW_LABEL),
    ]
    return handles


def _name_bars(fig: Any, ax: Any, labels: list[tuple[float, float, int, str]]) -> None:
    """Writes each bar's kernel name at its middle when the name, at `LABEL_SIZE` with
    `LABEL_PAD` pixels at each end, fits inside the bar as the figure is laid out."""
    from matplotlib.font_manager import FontProperties

    fig.draw_without_rendering()  # lays the axes out: bars get their width in pixels
    renderer = fig.canvas.get_renderer()
    font = FontProperties(size=LABEL_SIZE)
    widths: dict[str, float] = {}
    for start, duration, y, name in labels:
        (x0, _), (x1, _) = ax.transData.transform([(start, y), (start + duration, y)])
        if name not in widths:
            widths[name] = renderer.get_text_width_height_descent(name, font, ismath=False)[0]
        if widths[name] + 2 * LABEL_PAD <= x1 - x0:
            text = ax.text(
                start + duration / 2,
                y,
                name,
                ha="center",
                va="center",
                fontproperties=font,
                color=LABEL_COLOUR,
                clip_on=True,
                parse_math=False,
            )
            text.set_in_layout(False)


def timeline_figure(timeline: Timeline, title: str | None = None) -> Any:
    """The matplotlib `Figure` of `timeline` (see the module docstring; a `GeError` without
    matplotlib)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise GeError("error: --timeline needs matplotlib (pip install matplotlib)") from None

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
    bars, labels = _bar_spans(timeline, row)
    for (stream, unit), spans in sorted(bars.items()):
        ax.broken_barh(
            spans,
            (row[stream] - BAR_HEIGHT / 2, BAR_HEIGHT),
            facecolors=UNIT_COLOURS.get(unit, OTHER_COLOUR),
            edgecolors="black",
            linewidths=0.3,
        )
    _draw_events(ax, timeline, row)
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
    handles = _legend_handles({unit for _, unit in bars})
    fig.legend(
        handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8, frameon=False
    )
    _name_bars(fig, ax, labels)
    return fig


def timeline_png(timeline: Timeline, path: str, title: str | None = None) -> None:
    """Draws `timeline` to the PNG file `path` (matplotlib, Agg backend)."""
    fig = timeline_figure(timeline, title)
    try:
        fig.savefig(path, format="png", metadata={"Software": None})
    except OSError as e:
        raise GeError(f"{path}: error: cannot write timeline: {e.strerror or e}") from None
