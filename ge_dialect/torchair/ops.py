"""TorchAir's explicit events, `torchair.ops`: ordering across streams without a tensor.

    from ge_dialect import torchair as tng

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.event = tng.ops.npu_create_tagged_event(tag="66")

        def forward(self, x, y):
            mm = torch.mm(x, x)
            tng.ops.npu_tagged_event_record(self.event)   # after mm, on the default stream
            with tng.scope.npu_stream_switch("2"):
                tng.ops.npu_tagged_event_wait(self.event)
                add = torch.add(y, 1)                     # starts after mm has finished
            return mm, add

`record()` and `wait(tensors)` are TorchAir's untagged form: `record()` marks the current
stream's last op, and `wait([r, t])` makes the next op of the current stream wait for it
and for the producers of the tensors `t`.

Meaning (TorchAir's graph mode): a record marks the last op issued before it on the
current stream (the innermost `npu_stream_switch`, or the default stream); a wait makes
the next op issued after it on the waiting stream start after that op has finished.  The
importer writes the wait as `stream.wait_tensor`s on the next op's tensor operands (so
`assign-streams` places one `stream.record` / `stream.wait` pair), and, as with
`npu_wait_tensor`, later uses of those operands read the waits' results.  A tag recorded
again re-records it (as an event does): a wait follows the latest record before it; a
wait whose tag has no record before it in `forward` is an error at compilation, located
at the wait's line.  A record with no op before it on its stream, or a wait with no op
after it on its stream, orders nothing.  Eagerly every op here does nothing.
"""

from __future__ import annotations

import torch

from ge_dialect.torchair import _ops

__all__ = [
    "TaggedEvent",
    "npu_create_tagged_event",
    "npu_tagged_event_record",
    "npu_tagged_event_wait",
    "record",
    "wait",
]


class TaggedEvent:
    """The event `npu_create_tagged_event` returns (TorchAir's is a `torch.npu.Event`)."""

    def __init__(self, tag: str):
        self.tag = tag

    def __repr__(self) -> str:
        return f"TaggedEvent(tag={self.tag!r})"


_TAG_TO_EVENT: dict[str, TaggedEvent] = {}


def npu_create_tagged_event(tag: str) -> TaggedEvent:
    """A new event named `tag`; a tag is created once per process (TorchAir's rule)."""
    if tag in _TAG_TO_EVENT:
        raise ValueError(f"tagged event tag {tag} is already in use")
    event = TaggedEvent(tag)
    _TAG_TO_EVENT[tag] = event
    return event


def _tag_of(event: TaggedEvent) -> str:
    if not isinstance(event, TaggedEvent) or _TAG_TO_EVENT.get(event.tag) is not event:
        raise ValueError(f"tagged event {event} is not in use")
    return event.tag


def npu_tagged_event_record(event: TaggedEvent) -> None:
    """Records `event` on the current stream, after the ops issued before on it."""
    return _ops.tagged_event_record(_tag_of(event))


def npu_tagged_event_wait(event: TaggedEvent) -> None:
    """The next op of the current stream starts after `event`'s latest record."""
    return _ops.tagged_event_wait(_tag_of(event))


def record() -> torch.Tensor:
    """A tensor `wait` can wait for: the current stream's last op so far."""
    return _ops.record()


def wait(tensors: list[torch.Tensor]) -> None:
    """The next op of the current stream starts after the producers of `tensors`."""
    if tensors is None or len(tensors) == 0:
        raise ValueError("torchair.ops.wait() requires at least one tensor input")
    for tensor in tensors:
        if not isinstance(tensor, torch.Tensor):
            raise ValueError("arguments of torchair.ops.wait() must be torch.Tensor")
    return _ops.wait(tensors)
