"""`ge_dialect.utils.task_order`: the one rule of events, and the orders built on it.

- `Events`: a wait may go on once its event has been recorded; until then its waiter waits,
  and the event's first record releases the waiters in the order they came.  The first
  record counts (its value is the event's; a second record changes nothing and releases
  nobody) and an event stays recorded.
- `start_order`: a wait listed before its record starts after it; a wait for an event
  recorded twice goes on after the first record; a wait whose event is never recorded is
  where its stream is stuck.
- `vector_clocks`: a wait joins the clock of its event's first record.
- `TaskKind` prints and serialises as its value, as the strings it replaced did.
"""

from __future__ import annotations

import json

from ge_dialect.utils.task_order import (
    COPY,
    LAUNCH,
    RECORD,
    WAIT,
    Events,
    TaskKind,
    start_order,
    vector_clocks,
)


def test_a_wait_goes_on_once_its_event_is_recorded() -> None:
    events: Events[int, str, str] = Events()
    assert not events.wait(7, "stream 1")
    assert not events.wait(7, "stream 2")
    assert not events.recorded(7)
    assert events.get(7) is None and events.get(7, "not yet") == "not yet"
    assert list(events.record(7, "first")) == ["stream 1", "stream 2"]
    assert events.recorded(7) and events[7] == "first" and events.get(7) == "first"
    assert events.wait(7, "stream 3")  # an event stays recorded
    assert not events.recorded(8)  # events are apart


def test_the_first_record_counts() -> None:
    events: Events[int, str, str] = Events()
    assert list(events.record(1, "first")) == []
    assert events.wait(1, "stream 1")
    assert list(events.record(1, "second")) == []
    assert events[1] == "first"


def test_a_wait_listed_before_its_record_starts_after_it() -> None:
    order, stuck = start_order([1, 1, 0], [WAIT, LAUNCH, RECORD], [0, -1, 0])
    assert (order, stuck) == ([2, 0, 1], {})


def test_a_wait_for_an_event_recorded_twice_goes_on_after_the_first_record() -> None:
    """Stream 2 records event 0 before stream 0 (which launches first) records it again:
    the wait on stream 1, listed first, goes on after stream 2's record."""
    streams = [1, 1, 2, 0, 0]
    kinds = [WAIT, LAUNCH, RECORD, COPY, RECORD]
    events = [0, -1, 0, -1, 0]
    assert start_order(streams, kinds, events) == ([2, 0, 1, 3, 4], {})


def test_a_wait_whose_event_is_never_recorded_is_where_its_stream_is_stuck() -> None:
    order, stuck = start_order([0, 0, 0, 1], [LAUNCH, WAIT, LAUNCH, RECORD], [-1, 5, -1, 4])
    assert (order, stuck) == ([0, 3], {0: 1})


def test_a_wait_joins_the_clock_of_the_first_record() -> None:
    """Streams 0 and 1 record event 0 (in that order), stream 2 waits for it: it knows
    stream 0's record, not stream 1's."""
    streams, kinds, events = [0, 1, 2], [RECORD, RECORD, WAIT], [0, 0, 0]
    lanes, clocks = vector_clocks([0, 1, 2], streams, kinds, events)
    assert lanes == [0, 1, 2]
    assert clocks == [(1, 0, 0), (0, 1, 0), (1, 0, 1)]


def test_a_task_kind_prints_as_its_value() -> None:
    assert [str(k) for k in TaskKind] == ["launch", "record", "wait", "copy"]
    assert f"{RECORD} e0" == "record e0" and RECORD == "record"
    assert json.dumps({"name": COPY}) == '{"name": "copy"}'
