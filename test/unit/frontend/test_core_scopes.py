"""TorchAir's `limit_core_num` and `super_kernel` scopes through the frontends:

- the ops of a scope carry TorchAir's string attributes by its rules (TorchAir's own tests:
  nested scopes, the innermost wins; `super_kernel(None)` clears an enclosing one; a stream
  switch inside a super kernel gets both), and the launches keep them;
- through `torch.compile`: two independent matmuls on two streams, each limited to half the
  AI cores, hold half the cores each and overlap on the timeline; without the limit the
  first takes every core and the second waits for it;
- a limit out of the device's range is one error at the scope's `with` line;
- a super kernel's chain of launches saves the launch overheads the profile gives;
- a super kernel scope over two streams warns, unless its options hold `stream-fusion=1`.
"""

from __future__ import annotations

import inspect
import warnings

import pytest

pytest.importorskip("torch")
import torch  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402
from ge_dialect.frontend.torch_import import import_torch  # noqa: E402
from ge_dialect.ir.dialects import ge, npu  # noqa: E402
from ge_dialect.sim.profile import load_profile  # noqa: E402
from ge_dialect.sim.timing import super_kernel_continued  # noqa: E402
from ge_dialect.utils.errors import GeError  # noqa: E402
from ge_dialect.utils.task_order import LAUNCH  # noqa: E402

PROFILE = load_profile(None)  # what the backend simulates on
HALF = PROFILE.cube_cores // 2


def _compile(model: torch.nn.Module, *args: torch.Tensor) -> tuple[tuple, api.SimResult]:
    backend = tng.get_npu_backend()
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    try:
        with torch.no_grad():
            out = compiled(*args)
    finally:
        torch._dynamo.reset()
    assert backend.last_result is not None
    return out, backend.last_result


def _attrs(op) -> dict[str, str]:
    return {k: v.data for k, v in op.attributes.items() if k.startswith("_")}


class Nested(torch.nn.Module):
    """TorchAir's test_nested_core_num, test_super_kernel_scope_none and test_nested_scope."""

    def forward(self, a, b, c, d):
        with tng.scope.limit_core_num(1, 0):
            mm = torch.mm(c, d)
            with tng.scope.limit_core_num(3, 0):
                add = torch.add(a, b)
        with tng.scope.super_kernel("sk", "opt"):
            relu = torch.relu(mm)
            with tng.scope.npu_stream_switch("5", 6):
                exp = torch.exp(add)
            with tng.scope.super_kernel(None):
                sub = torch.sub(a, b)
        return mm, add, relu, exp, sub


def test_scope_attributes_follow_torchairs_rules() -> None:
    args = tuple(torch.randn(8, 8) for _ in range(4))
    module = import_torch(Nested(), args)
    ops = {op.name: op for op in module.walk() if op.name.startswith("ge.")}
    assert _attrs(ops["ge.matmul"]) == {"_op_aicore_num": "1", "_op_vectorcore_num": "0"}
    assert _attrs(ops["ge.add"]) == {"_op_aicore_num": "3", "_op_vectorcore_num": "0"}
    sk = {"_super_kernel_scope": "sk", "_super_kernel_options": "opt"}
    assert _attrs(ops["ge.relu"]) == sk
    assert _attrs(ops["ge.exp"]) == sk and "stream.label" in ops["ge.exp"].attributes
    assert _attrs(ops["ge.sub"]) == {}
    assert "stream.label" not in ops["ge.relu"].attributes


class TwoStreams(torch.nn.Module):
    """Two independent matmuls on two streams, each limited to `limit` AI cores (or not)."""

    def __init__(self, limit: int | None):
        super().__init__()
        self.limit = limit

    def forward(self, x, y):
        outs = []
        for tag, (p, q) in (("1", (x, y)), ("2", (y, x))):
            with tng.scope.npu_stream_switch(tag):
                if self.limit is None:
                    outs.append(torch.mm(p, q))
                else:
                    with tng.scope.limit_core_num(self.limit, 0):
                        outs.append(torch.mm(p, q))
        return tuple(outs)


def _matmuls(result: api.SimResult) -> list:
    tasks, intervals = result.program.tasks, result.timeline.intervals
    return [i for t, i in zip(tasks, intervals, strict=True) if t.kernel == "matmul"]


def test_two_streams_limited_to_half_the_cores_overlap() -> None:
    x, y = torch.randn(256, 256), torch.randn(256, 256)
    out, limited = _compile(TwoStreams(HALF), x, y)
    torch.testing.assert_close(out[0], x @ y, rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(out[1], y @ x, rtol=1e-4, atol=1e-3)
    _, free = _compile(TwoStreams(None), x, y)
    a, b = _matmuls(limited)
    assert a.stream != b.stream
    assert a.cores <= HALF and b.cores <= HALF
    assert max(a.start_fs, b.start_fs) < min(a.end_fs, b.end_fs)  # side by side
    # Observed without the limit: the first matmul holds all 32 cores (its 32 blocks), the
    # second starts only when it ends, and the whole run is longer.
    fa, fb = sorted(_matmuls(free), key=lambda i: i.start_fs)
    assert fa.cores == PROFILE.cube_cores and fb.start_fs >= fa.end_fs
    assert limited.timeline.makespan_fs < free.timeline.makespan_fs


class Limited(torch.nn.Module):
    def __init__(self, aicore: object, vectorcore: object):
        super().__init__()
        self.cores = (aicore, vectorcore)

    def forward(self, x):
        with tng.scope.limit_core_num(*self.cores):  # type: ignore[arg-type]
            return torch.relu(x)


WITH_LINE = inspect.getsourcelines(Limited.forward)[1] + 1


@pytest.mark.parametrize(
    ("aicore", "vectorcore", "message"),
    [
        (PROFILE.cube_cores + 1, 0, f"op_aicore_num must be in [1, {PROFILE.cube_cores}]"),
        (
            0,
            0,
            f"op_aicore_num must be in [1, {PROFILE.cube_cores}] (the device's AI cores), got 0",
        ),
        (4, 4, "op_vectorcore_num must be 0 on a device without separate vector cores"),
        ("four", 0, "op_aicore_num must be a whole number, got 'four'"),
    ],
)
def test_a_limit_out_of_range_is_an_error_at_the_with_line(
    aicore: object, vectorcore: object, message: str
) -> None:
    with pytest.raises(GeError) as e:
        _compile(Limited(aicore, vectorcore), torch.randn(4, 4))
    first, code = str(e.value).split("\n")
    assert first.startswith(f"{__file__}:{WITH_LINE}:9: error: limit_core_num: {message}")
    assert code.strip() == "with tng.scope.limit_core_num(*self.cores):  # type: ignore[arg-type]"


class Chain(torch.nn.Module):
    def __init__(self, scope: str | None):
        super().__init__()
        self.scope = scope

    def forward(self, x):
        if self.scope is None:
            return torch.exp(torch.relu(torch.sigmoid(torch.neg(x))))
        with tng.scope.super_kernel(self.scope):
            return torch.exp(torch.relu(torch.sigmoid(torch.neg(x))))


def test_a_super_kernel_saves_the_launch_overheads() -> None:
    x = torch.randn(16, 64)
    out, fused = _compile(Chain("sk"), x)
    torch.testing.assert_close(out, torch.exp(torch.relu(torch.sigmoid(-x))))
    _, plain = _compile(Chain(None), x)
    scoped = [t for t in fused.program.tasks if t.kind == LAUNCH]
    assert len(scoped) == 4 and all(t.scope["_super_kernel_scope"] == "sk" for t in scoped)
    saved = sum(super_kernel_continued(fused.program))
    assert saved == len(scoped) - 1  # one stream: one kernel, one launch
    launch_fs = round(PROFILE.launch_overhead * 10**15)
    assert plain.timeline.makespan_fs - fused.timeline.makespan_fs == saved * launch_fs


class SuperOverStreams(torch.nn.Module):
    def __init__(self, options: str):
        super().__init__()
        self.options = options

    def forward(self, x, y):
        with tng.scope.super_kernel("sk1", self.options):
            with tng.scope.npu_stream_switch("1"):
                a = torch.relu(x)
            with tng.scope.npu_stream_switch("2"):
                b = torch.exp(y)
        return a, b


SUPER_LINE = inspect.getsourcelines(SuperOverStreams.forward)[1] + 3


def test_a_super_kernel_over_two_streams_warns() -> None:
    x, y = torch.randn(8, 8), torch.randn(8, 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _compile(SuperOverStreams(""), x, y)
    mine = [str(w.message) for w in caught if "super_kernel" in str(w.message)]
    assert len(mine) == 1
    assert f":{SUPER_LINE}:" in mine[0]
    assert mine[0].endswith(
        "warning: super_kernel scope 'sk1' has kernels on streams 1, 2: a super kernel runs "
        "on one stream unless its options hold 'stream-fusion=1'"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _compile(SuperOverStreams("feed-sync-all=1:stream-fusion=1"), x, y)
    assert not [w for w in caught if "super_kernel" in str(w.message)]


def test_fusion_keeps_the_attributes_its_pieces_share() -> None:
    class ConvBnRelu(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(4)

        def forward(self, x):
            with tng.scope.limit_core_num(8, 0):
                return torch.relu(self.bn(self.conv(x)))

    model = ConvBnRelu().eval()
    x = torch.randn(1, 4, 8, 8)
    module = import_torch(model, (x,))
    api.compile(module, f"{api.DEFAULT_PIPELINE},lower-to-device")
    launches = {op.kernel.data: op for op in module.walk() if isinstance(op, npu.LaunchOp)}
    assert sorted(launches) == ["fused_conv2d", "trans_data"]  # the layout's, outside the scope
    assert _attrs(launches["fused_conv2d"]) == {"_op_aicore_num": "8", "_op_vectorcore_num": "0"}
    assert not any(isinstance(op, ge.Conv2DOp) for op in module.walk())
