"""TorchAir's compile modes and the single-stream switch, through `torch.compile`:
`mode = "reduce-overhead"` runs no graph pass on one stream (scopes dropped with one
warning), `ge_config.enable_single_stream` runs everything on stream 0, and together with an
`npu_stream_switch` it is one error naming the scope's line."""

from __future__ import annotations

import inspect
import os
import warnings

import pytest

pytest.importorskip("torch")
import torch  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402
from ge_dialect.utils.errors import GeError  # noqa: E402
from ge_dialect.utils.task_order import RECORD, WAIT  # noqa: E402


class Scoped(torch.nn.Module):
    """TorchAir's documented shape: an add, then a matmul on stream "1" after it."""

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        a = torch.add(x, y)
        with tng.scope.npu_stream_switch("1"):
            tng.scope.npu_wait_tensor(y, a)
            b = torch.mm(x, y)
        return a, b


class Branches(torch.nn.Module):
    """Two independent matmuls: automatic assignment puts them on two streams."""

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        return torch.mm(x, y), torch.mm(y, x)


class ScopedBranches(torch.nn.Module):
    """Two independent matmuls inside one `npu_stream_switch`, with or without inner
    parallelism."""

    def __init__(self, inner_parallel: bool):
        super().__init__()
        self.inner_parallel = inner_parallel

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        with tng.scope.npu_stream_switch("1", 0, self.inner_parallel):
            a, b = torch.mm(x, y), torch.mm(y, x)
        return a + x, b + y


class BreaksInScope(torch.nn.Module):
    """A graph break (`torch._dynamo.graph_break()`) inside, or after, a stream scope."""

    def __init__(self, inside: bool):
        super().__init__()
        self.inside = inside

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        with tng.scope.npu_stream_switch("1"):
            a = torch.mm(x, y)
            if self.inside:
                torch._dynamo.graph_break()
            b = a * 2
        if not self.inside:
            torch._dynamo.graph_break()
        return b + 1


def _compile(model: torch.nn.Module, config: tng.CompilerConfig, *args: torch.Tensor):
    backend = tng.get_npu_backend(compiler_config=config)
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    try:
        with torch.no_grad():
            out = compiled(*args)
    finally:
        torch._dynamo.reset()
    assert backend.compilations == 1 and backend.last_result is not None
    return out, backend.last_result


def _streams(result: api.SimResult) -> set[int]:
    return {t.stream for t in result.program.tasks}


ARGS = (torch.randn(32, 32), torch.randn(32, 32))


def test_modes_are_checked() -> None:
    config = tng.CompilerConfig()
    assert config.mode == "max-autotune"
    with pytest.raises(ValueError, match="max-autotune, reduce-overhead"):
        config.mode = "default"
    with pytest.raises(ValueError, match="enable_single_stream must be True or False"):
        config.ge_config.enable_single_stream = 1  # type: ignore[assignment]


def test_max_autotune_honours_the_scope() -> None:
    _, result = _compile(Scoped(), tng.CompilerConfig(), *ARGS)
    assert _streams(result) == {0, 1}


@pytest.mark.parametrize(
    ("inner_parallel", "mode", "streams"),
    [(True, "max-autotune", 3), (False, "max-autotune", 2), (True, "reduce-overhead", 1)],
)
def test_enable_inner_parallel_spreads_the_scope_in_max_autotune_only(
    inner_parallel: bool, mode: str, streams: int
) -> None:
    """In max-autotune the scope's two matmuls run on two sub-streams of label "1" with
    inner parallelism, on one without; reduce-overhead has one stream."""
    config = tng.CompilerConfig()
    config.mode = mode
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reduce-overhead's warning about the scope
        out, result = _compile(ScopedBranches(inner_parallel), config, *ARGS)
    assert len(_streams(result)) == streams
    matmuls = [t.stream for t in result.program.tasks if t.kernel == "matmul"]
    assert len(matmuls) == 2 and (len(set(matmuls)) == 2) == (streams == 3)
    for got, want in zip(out, ScopedBranches(inner_parallel)(*ARGS), strict=True):
        assert api.within_tolerance(got.numpy(), want.numpy())


def test_a_graph_break_inside_a_scope_is_an_error_naming_its_line() -> None:
    """Without fullgraph, a graph break inside `npu_stream_switch` fails at compilation
    naming the line that breaks (never the whole frame run eagerly); one after the scope
    splits the frame into two compiled graphs as usual."""
    lines, start = inspect.getsourcelines(BreaksInScope.forward)
    line = start + next(i for i, text in enumerate(lines) if "graph_break()" in text)
    backend = tng.get_npu_backend()
    compiled = torch.compile(BreaksInScope(inside=True), backend=backend, dynamic=False)
    try:
        with pytest.raises(torch._dynamo.exc.Unsupported) as caught:
            compiled(*ARGS)
    finally:
        torch._dynamo.reset()
    assert f'{os.path.basename(__file__)}", line {line}, in forward' in str(caught.value)
    assert backend.compilations == 0
    backend = tng.get_npu_backend()
    compiled = torch.compile(BreaksInScope(inside=False), backend=backend, dynamic=False)
    try:
        got = compiled(*ARGS)
    finally:
        torch._dynamo.reset()
    assert backend.compilations == 2
    assert api.within_tolerance(got.numpy(), BreaksInScope(inside=False)(*ARGS).numpy())


def test_reduce_overhead_drops_the_scope_with_one_warning() -> None:
    config = tng.CompilerConfig()
    config.mode = "reduce-overhead"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out, result = _compile(Scoped(), config, *ARGS)
    mine = [w for w in caught if "reduce-overhead" in str(w.message)]
    assert len(mine) == 1
    assert _streams(result) == {0}
    assert not any(t.kind in (RECORD, WAIT) for t in result.program.tasks)  # no event
    for got, want in zip(out, Scoped()(*ARGS), strict=True):
        assert api.within_tolerance(got.numpy(), want.numpy())


def test_reduce_overhead_runs_no_graph_pass() -> None:
    """A relu of a conv stays two launches (max-autotune fuses them into one)."""
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU()).eval()
    x = torch.randn(1, 3, 8, 8)
    kernels = {}
    for mode in ("max-autotune", "reduce-overhead"):
        config = tng.CompilerConfig()
        config.mode = mode
        _, result = _compile(model, config, x)
        kernels[mode] = sorted(t.kernel for t in result.program.tasks if t.kernel)
    assert kernels["reduce-overhead"] == ["conv2d", "relu"]
    assert "fused_conv2d" in kernels["max-autotune"] and "relu" not in kernels["max-autotune"]


def test_single_stream_puts_everything_on_stream_0() -> None:
    config = tng.CompilerConfig()
    config.pipeline = "canonicalize,cse,assign-streams{mode=auto}"
    _, result = _compile(Branches(), config, *ARGS)
    assert len(_streams(result)) == 2
    config.ge_config.enable_single_stream = True
    _, result = _compile(Branches(), config, *ARGS)
    assert _streams(result) == {0}


def test_single_stream_with_a_scope_is_an_error_naming_its_line() -> None:
    config = tng.CompilerConfig()
    config.ge_config.enable_single_stream = True
    lines, start = inspect.getsourcelines(Scoped.forward)
    line = start + next(i for i, text in enumerate(lines) if "npu_stream_switch" in text)
    with pytest.raises(GeError) as caught:
        _compile(Scoped(), config, *ARGS)
    message = str(caught.value)
    assert f"{os.path.basename(__file__)}:{line}:" in message
    assert "npu_stream_switch('1') cannot be used with ge_config.enable_single_stream" in message
