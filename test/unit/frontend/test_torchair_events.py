"""TorchAir's explicit events through `torch.compile` (`tng.ops`): a tagged event's wait,
or `wait([record()])` / `wait([tensor])`, makes the next op of the waiting stream start
after the recorded op has finished (on the simulated timeline: its stream waits on a record
placed right after the recorded launch), with eager's numbers and a clean race check; a
wait with no record before it is an error at the wait's line; TorchAir's argument checks.
The IR (one stream.record / stream.wait pair after assign-streams) is pinned by
test/lit/frontend/torch-events.mlir."""

from __future__ import annotations

import inspect
import itertools
import os
import warnings

import pytest

pytest.importorskip("torch")
import torch  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402
from ge_dialect.utils.errors import GeError  # noqa: E402
from ge_dialect.utils.task_order import LAUNCH, RECORD, WAIT  # noqa: E402

_tags = itertools.count()


def _event() -> tng.ops.TaggedEvent:
    """A fresh event: a tag is created once per process (TorchAir's rule)."""
    return tng.ops.npu_create_tagged_event(tag=f"events-test-{next(_tags)}")


class Tagged(torch.nn.Module):
    """TorchAir's tagged-event shape: a matmul recorded on the default stream, an add on
    stream "2" after the wait (without it, the add has no reason to wait)."""

    def __init__(self, wait: bool = True):
        super().__init__()
        self.event = _event()
        self.wait = wait

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        mm = torch.mm(x, x)
        tng.ops.npu_tagged_event_record(self.event)
        with tng.scope.npu_stream_switch("2"):
            if self.wait:
                tng.ops.npu_tagged_event_wait(self.event)
            add = torch.add(y, 1)
        return mm, add


class Untagged(torch.nn.Module):
    """`record()` inside a stream scope, or the matmul's tensor, waited for by the next op
    of the default stream (`form` None: no wait)."""

    def __init__(self, form: str | None):
        super().__init__()
        self.form = form

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        with tng.scope.npu_stream_switch("1"):
            mm = torch.mm(x, x)
            r = tng.ops.record()
        if self.form == "record":
            tng.ops.wait([r])
        elif self.form == "tensor":
            tng.ops.wait([mm])
        sub = torch.sub(y, 1)
        return mm, sub


class RecordedTwice(torch.nn.Module):
    """One event recorded after each of two chained matmuls: the wait follows the latest."""

    def __init__(self):
        super().__init__()
        self.event = _event()

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        a = torch.mm(x, x)
        tng.ops.npu_tagged_event_record(self.event)
        b = torch.mm(a, x)
        tng.ops.npu_tagged_event_record(self.event)
        with tng.scope.npu_stream_switch("2"):
            tng.ops.npu_tagged_event_wait(self.event)
            add = torch.add(y, 1)
        return b, add


class NeverRecorded(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.event = _event()

    def forward(self, x: torch.Tensor):
        with tng.scope.npu_stream_switch("2"):
            tng.ops.npu_tagged_event_wait(self.event)
            y = torch.add(x, 1)
        tng.ops.npu_tagged_event_record(self.event)
        return y


ARGS = (torch.randn(64, 64), torch.randn(64, 64))


def _run(model: torch.nn.Module, config: tng.CompilerConfig | None = None):
    backend = tng.get_npu_backend(compiler_config=config)
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    try:
        out = compiled(*ARGS)
    finally:
        torch._dynamo.reset()
    result = backend.last_result
    assert result is not None and result.findings == []  # the race checker is clean
    for got, want in zip(out, model(*ARGS), strict=True):  # eagerly the events do nothing
        assert api.within_tolerance(got.numpy(), want.numpy())
    return result


def _launch(result: api.SimResult, kernel: str, nth: int = 0):
    """The interval of the `nth` launch of `kernel`."""
    tasks = [t for t in result.program.tasks if t.kind == LAUNCH and t.kernel == kernel]
    return result.timeline.intervals[tasks[nth].index]


def _waits_for(result: api.SimResult, kernel: str) -> str | None:
    """What the first launch of `kernel` waits for: the kernel of the launch before the
    record its stream's last wait before it waits on (None: a record with no launch before
    it, the fork from the program's start; or no wait at all)."""
    tasks = result.program.tasks
    launch = next(t for t in tasks if t.kind == LAUNCH and t.kernel == kernel)
    before = [t for t in tasks[: launch.index] if t.stream == launch.stream]
    if not before or before[-1].kind != WAIT:
        return None
    record = next(t for t in tasks if t.kind == RECORD and t.event == before[-1].event)
    earlier = [t for t in tasks[: record.index] if t.stream == record.stream and t.kind == LAUNCH]
    return earlier[-1].kernel if earlier else None


@pytest.mark.parametrize("wait", [True, False])
def test_a_tagged_wait_orders_the_next_op_after_the_recorded_one(wait: bool) -> None:
    result = _run(Tagged(wait))
    mm, add = _launch(result, "matmul"), _launch(result, "add")
    assert mm.stream != add.stream
    if wait:
        assert add.start_fs >= mm.end_fs
        assert _waits_for(result, "add") == "matmul"
    else:  # the add on its own stream runs alongside the matmul
        assert add.start_fs < mm.end_fs
        assert _waits_for(result, "add") is None


@pytest.mark.parametrize("form", ["record", "tensor", None])
def test_wait_on_a_record_or_a_tensor(form: str | None) -> None:
    result = _run(Untagged(form))
    mm, sub = _launch(result, "matmul"), _launch(result, "sub")
    assert mm.stream != sub.stream
    if form is None:
        assert sub.start_fs < mm.end_fs
        assert _waits_for(result, "sub") is None
    else:
        assert sub.start_fs >= mm.end_fs
        assert _waits_for(result, "sub") == "matmul"


def test_a_wait_follows_the_latest_record_of_its_tag() -> None:
    result = _run(RecordedTwice())
    first, second = _launch(result, "matmul", 0), _launch(result, "matmul", 1)
    add = _launch(result, "add")
    assert first.end_fs < second.end_fs <= add.start_fs


def test_a_wait_before_any_record_is_an_error_at_its_line() -> None:
    lines, start = inspect.getsourcelines(NeverRecorded.forward)
    line = start + next(i for i, text in enumerate(lines) if "npu_tagged_event_wait" in text)
    model = NeverRecorded()
    backend = tng.get_npu_backend()
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    try:
        with pytest.raises(GeError) as caught:
            compiled(ARGS[0])
    finally:
        torch._dynamo.reset()
    message = str(caught.value)
    assert message.startswith(f"{__file__}:{line}:")
    assert f"npu_tagged_event_wait: tagged event '{model.event.tag}' is not recorded" in message
    assert message.endswith("tng.ops.npu_tagged_event_wait(self.event)")
    assert backend.compilations == 0


def test_reduce_overhead_drops_the_events_with_the_scopes_warning() -> None:
    config = tng.CompilerConfig()
    config.mode = "reduce-overhead"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _run(Tagged(), config)
    assert any("reduce-overhead" in str(w.message) for w in caught)
    assert not any(t.kind in (RECORD, WAIT) for t in result.program.tasks)


def test_torchairs_argument_checks() -> None:
    event = _event()
    with pytest.raises(ValueError, match=f"^tagged event tag {event.tag} is already in use$"):
        tng.ops.npu_create_tagged_event(event.tag)
    other = tng.ops.TaggedEvent("never-created")
    with pytest.raises(ValueError, match=r"^tagged event TaggedEvent\(tag='never-created'\) is"):
        tng.ops.npu_tagged_event_record(other)
    with pytest.raises(ValueError, match=r"^torchair.ops.wait\(\) requires at least one tensor"):
        tng.ops.wait([])
    with pytest.raises(ValueError, match=r"^arguments of torchair.ops.wait\(\) must be torch"):
        tng.ops.wait([1])  # type: ignore[list-item]
    assert tng.ops.record().shape == (0,)
    assert os.path.basename(tng.ops.__file__) == "ops.py"
