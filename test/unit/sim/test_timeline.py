"""The timeline of a timed run (`ge_dialect.sim.timeline`) and its PNG picture
(`ge_dialect.sim.trace.timeline_figure`), on hand-made timelines.

- Times are exact femtoseconds; their microseconds are one correctly rounded division, so
  they keep the order of the exact times.
- The picture names a bar by its kernel where the name fits inside the bar (and only
  there), has a legend of the units' colours and of the marks of records, blocked waits
  and flows, and draws each flow from its record to where its wait was satisfied.  These
  are checked on matplotlib's objects (texts, legend entries, annotations), not on pixels.
"""

from __future__ import annotations

import pytest

from ge_dialect import api
from ge_dialect.sim.program import Program, find_program, read_program
from ge_dialect.sim.timeline import FS_PER_US, Flow, Interval, Timeline, us
from ge_dialect.sim.trace import FLOW_COLOUR, LABEL_COLOUR, UNIT_COLOURS, timeline_figure

PROGRAM = """
func.func @main(%x: memref<4xf32> {npu.input = "x"},
                %y: memref<4xf32> {npu.output = "y"}) attributes {npu.program} {
  %a = npu.alloc : memref<4xf32>
  %b = npu.alloc : memref<4xf32>
  npu.launch "sigmoid"(%x) -> (%a) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>)
      cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1>
  npu.launch "relu"(%a) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>)
      cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1>
  npu.record 0 stream 0
  npu.wait 0 stream 1
  npu.copy %b -> %y stream 1
      cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> : memref<4xf32>
  func.return
}
"""


def _program() -> Program:
    module = api.parse(PROGRAM, "t.mlir")
    api.verify(module)
    return read_program(find_program(module))


def _fs(microseconds: float) -> int:
    return round(microseconds * FS_PER_US)


def _timeline(copy_unit: str = "vector") -> Timeline:
    """sigmoid (wide, cube) and relu (narrow) on stream 0, then record e0 at 60.5 us; stream
    1 reaches its wait at 0 and copies from 61 us to 100 us."""
    spans = [
        (0, 0, "cube", 0.0, 60.0),
        (1, 0, "vector", 60.0, 60.3),
        (2, 0, "event", 60.3, 60.5),
        (3, 1, "event", 0.0, 61.0),
        (4, 1, copy_unit, 61.0, 100.0),
    ]
    intervals = [
        Interval(task, stream, unit, _fs(start), _fs(start), _fs(end), blocks=1, cores=1)
        for task, stream, unit, start, end in spans
    ]
    return Timeline(_program(), intervals, [Flow(2, 3, 0)], device="ascend910")


def test_times_are_exact_and_microseconds_keep_their_order():
    timeline = _timeline()
    sigmoid = timeline.intervals[0]
    assert (sigmoid.start_fs, sigmoid.end_fs) == (0, 60 * 10**9)
    assert (sigmoid.start, sigmoid.end, sigmoid.duration) == (0.0, 60.0, 60.0)
    assert timeline.makespan_fs == 100 * 10**9 and timeline.makespan == 100.0
    # 1 fs apart near 22.5 us: the floats may be equal, never reversed
    a, b = 22_515_306_122_448, 22_515_306_122_449
    assert us(a) <= us(b) and us(a) == a / 10**9
    assert Timeline(_program(), []).makespan_fs == 0


def _figure(timeline: Timeline):
    pytest.importorskip("matplotlib")
    from matplotlib.text import Annotation

    fig = timeline_figure(timeline)
    (ax,) = fig.axes
    names = [t for t in ax.texts if not isinstance(t, Annotation)]
    arrows = [t for t in ax.texts if isinstance(t, Annotation)]
    return fig, ax, names, arrows


def test_bars_are_named_where_the_name_fits():
    timeline = _timeline()
    fig, ax, names, _ = _figure(timeline)
    # the sigmoid (60 us) and the copy (39 us) hold their names; the relu (0.3 us) does not
    assert sorted((t.get_text(), t.get_position()) for t in names) == [
        ("copy", (80.5, 1)),
        ("sigmoid", (30.0, 0)),
    ]
    renderer = fig.canvas.get_renderer()
    bars = {"sigmoid": (0.0, 60.0, 0), "copy": (61.0, 100.0, 1)}
    for text in names:
        assert (text.get_ha(), text.get_va()) == ("center", "center")
        assert text.get_color() == LABEL_COLOUR and text.get_clip_on()
        start, end, y = bars[text.get_text()]
        (x0, _), (x1, _) = ax.transData.transform([(start, y), (end, y)])
        box = text.get_window_extent(renderer)
        assert x0 < box.x0 and box.x1 < x1  # inside its bar


def test_a_name_wider_than_its_bar_is_left_out():
    timeline = _timeline()
    wide = [
        Interval(i.task, i.stream, i.unit, i.ready_fs, i.start_fs, i.end_fs)
        if i.task != 0
        else Interval(0, 0, "cube", 0, 0, _fs(0.9))  # "sigmoid" needs more than 0.9 us
        for i in timeline.intervals
    ]
    _, _, names, _ = _figure(Timeline(timeline.program, wide, timeline.flows))
    assert [t.get_text() for t in names] == ["copy"]


def _legend(fig) -> list[tuple[str, str]]:
    from matplotlib.colors import to_hex

    (legend,) = fig.legends
    entries = []
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        colour = handle.get_facecolor() if hasattr(handle, "get_facecolor") else handle.get_color()
        entries.append((text.get_text(), to_hex(colour)))
    return entries


def test_legend_names_the_units_and_the_marks():
    fig, _, _, _ = _figure(_timeline())
    assert _legend(fig) == [
        ("cube", UNIT_COLOURS["cube"]),
        ("vector", UNIT_COLOURS["vector"]),
        ("comm", UNIT_COLOURS["comm"]),
        ("record", "#000000"),
        ("wait (blocked)", "#7f7f7f"),
        ("record -> wait", FLOW_COLOUR),
    ]
    # a unit outside the three gets a grey "other" entry
    fig, _, _, _ = _figure(_timeline(copy_unit="none"))
    assert [name for name, _ in _legend(fig)][:4] == ["cube", "vector", "comm", "other"]


def test_flow_arrow_ends_where_the_wait_is_satisfied():
    _, _, _, arrows = _figure(_timeline())
    (arrow,) = arrows
    # from record e0's end (60.5 us, stream 0) to the moment the wait on stream 1 could go
    # on: the record's end, not the wait's start (0) nor its end (61)
    assert arrow.xyann == (60.5, 0) and arrow.xy == (60.5, 1)
