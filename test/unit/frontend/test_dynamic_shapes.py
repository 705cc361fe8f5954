"""Dynamic shapes on the TorchAir backend: `torch.compile(dynamic=True)` compiles one static
program per concrete signature in a bounded LRU cache; `set_dim_gears` (TorchAir's checks
and messages) compiles every gear at the first call and refuses other sizes, or pads them
to the next gear (`inference_config.pad_to_gear`); a dynamic graph runs on one stream
(its labels one stream each) unless `ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1`."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("torch")
import torch  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402
from ge_dialect.torchair.inference import get_dim_gears, set_dim_gears  # noqa: E402
from ge_dialect.utils.errors import GeError  # noqa: E402


class Mlp(torch.nn.Module):
    """Rows are independent; the view reads the batch size (a SymInt input of the graph)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x)).view(x.shape[0], -1) * 2


class BatchSum(torch.nn.Module):
    """Sums over the batch: padding would change its output (pad_to_gear refuses it)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(0)


class Streams(torch.nn.Module):
    """Two independent matmuls outside any scope and two inside scope "1"."""

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        a, b = torch.mm(x, y), torch.mm(y, x)
        with tng.scope.npu_stream_switch("1"):
            c, d = torch.mm(x, x), torch.mm(y, y)
        return a, b, c, d


@pytest.fixture(autouse=True)
def _reset() -> Iterator[None]:
    yield
    torch._dynamo.reset()


def _model() -> Mlp:
    torch.manual_seed(0)
    return Mlp().eval()


def _backend(**options: object) -> tng.NpuBackend:
    config = tng.CompilerConfig()
    for name, value in options.items():
        target = config.inference_config if name == "pad_to_gear" else config
        setattr(target, name, value)
    return tng.get_npu_backend(compiler_config=config)


def _close(got: torch.Tensor, want: torch.Tensor) -> bool:
    return got.shape == want.shape and api.within_tolerance(got.numpy(), want.detach().numpy())


def test_dynamic_compiles_once_per_signature() -> None:
    model, backend = _model(), _backend()
    compiled = torch.compile(model, backend=backend, dynamic=True, fullgraph=True)
    for batch in (2, 3, 2):
        x = torch.randn(batch, 3, 8)
        assert _close(compiled(x), model(x))
    assert (backend.compilations, backend.cache_hits, backend.cache_misses) == (2, 1, 2)
    assert repr(backend) == "npu_backend(compilations=2, cache_hits=1, cache_misses=2)"
    assert sorted(g.signature[-1][0][0] for g in backend.graphs) == [2, 3]


def test_the_least_recently_used_program_is_evicted() -> None:
    model, backend = _model(), _backend(program_cache_size=2)
    compiled = torch.compile(model, backend=backend, dynamic=True, fullgraph=True)
    # 5 evicts 3 (2 was used after it), then 3 evicts 5; first-in-first-out would have
    # evicted 2 and compiled 5 times
    for batch in (2, 3, 2, 5, 2, 3):
        x = torch.randn(batch, 3, 8)
        assert _close(compiled(x), model(x))
    assert (backend.compilations, backend.cache_hits, backend.cache_misses) == (4, 2, 4)
    assert sorted(g.signature[-1][0][0] for g in backend.graphs) == [2, 3]


def test_program_cache_size_is_checked() -> None:
    config = tng.CompilerConfig()
    assert config.program_cache_size == 8
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="program_cache_size must be an integer >= 1"):
            config.program_cache_size = bad  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("dim_gears", "message"),
    [
        ({"0": [2, 4]}, "Dim index in dim_gears must be an integer, but got <class 'str'>."),
        ({2: [2, 4]}, r"Dim index in dim_gears must be in range \[0, 1\], but got 2."),
        ({-1: [2, 4]}, r"Dim index in dim_gears must be in range \[0, 1\], but got -1."),
        ({0: 4}, "Gears for dim index 0 in dim_gears must be a list or tuple, but got <class"),
        ({0: [2, 4.0]}, "Element at index 1 of value for dim index 0 in dim_gears must be an"),
        ({0: [2, 0]}, "Gear value at index 1 for dim index 0 must not be 0, but got 0."),
        ({0: [2]}, r"Length of gears for dim index 0 in dim_gears must be in range \[2, 100\]"),
        ({0: list(range(2, 103))}, r"must be in range \[2, 100\], but got 101."),
    ],
)
def test_set_dim_gears_checks_as_torchair(dim_gears: dict, message: str) -> None:
    t = torch.ones(2, 2)
    with pytest.raises(AssertionError, match=message):
        set_dim_gears(t, dim_gears)
    assert get_dim_gears(t) is None


def test_set_dim_gears_twice() -> None:
    t = torch.ones(2, 2)
    set_dim_gears(t, {0: [2, 4]})
    set_dim_gears(t, {0: [2, 4]})  # the same gears again: allowed
    with pytest.raises(AssertionError, match="already has set dim gears"):
        set_dim_gears(t, {0: [2, 8]})
    assert get_dim_gears(t) == {0: [2, 4]}


def test_gears_compile_ahead_and_refuse_other_sizes() -> None:
    model, backend = _model(), _backend()
    compiled = torch.compile(model, backend=backend, dynamic=True, fullgraph=True)
    x = torch.randn(4, 3, 8)
    set_dim_gears(x, {0: [2, 4, 8]})
    assert _close(compiled(x), model(x))
    assert backend.compilations == 3  # every gear at the first call
    assert sorted(g.signature[-1][0][0] for g in backend.graphs) == [2, 4, 8]
    for batch in (8, 2):
        x = torch.randn(batch, 3, 8)
        assert _close(compiled(x), model(x))
    assert (backend.compilations, backend.cache_hits, backend.cache_misses) == (3, 2, 1)
    for batch in (3, 9):
        with pytest.raises(GeError) as caught:
            compiled(torch.randn(batch, 3, 8))
        assert str(caught.value) == (
            f"<torch.compile>: error: The index {batch} of the current tensor shape is not "
            "within the range [2, 4, 8] (input 'x', dim 0)"
        )
    assert backend.compilations == 3 and backend.padding_waste == 0.0


def test_new_sizes_of_a_dim_without_gears_compile_the_gears_again() -> None:
    model, backend = _model(), _backend()
    compiled = torch.compile(model, backend=backend, dynamic=True, fullgraph=True)
    x = torch.randn(4, 3, 8)
    set_dim_gears(x, {0: [2, 4]})
    compiled(x)
    x = torch.randn(2, 5, 8)  # dim 1 is symbolic too (dynamic=True), without gears
    assert _close(compiled(x), model(x))
    assert (backend.compilations, backend.cache_hits, backend.cache_misses) == (4, 0, 2)


def test_pad_to_gear_pads_slices_and_reports_the_waste() -> None:
    model, backend = _model(), _backend(pad_to_gear=True)
    compiled = torch.compile(model, backend=backend, dynamic=True, fullgraph=True)
    x = torch.randn(2, 3, 8)
    set_dim_gears(x, {0: [2, 4, 8]})
    seen = []
    for batch in (2, 3, 5):
        x = x if batch == 2 else torch.randn(batch, 3, 8)
        assert _close(compiled(x), model(x))
        seen.append(backend.last_padding)
    assert seen == [0.0, 0.25, 0.375]  # 3 -> 4 pads 1 row of 4, 5 -> 8 pads 3 of 8
    assert backend.padding_waste == pytest.approx(4 / 14)
    assert backend.compilations == 3
    assert "padding_waste=0.286" in repr(backend)
    with pytest.raises(GeError, match="The index 9 of the current tensor shape is not within"):
        compiled(torch.randn(9, 3, 8))


def test_pad_to_gear_needs_outputs_that_keep_the_padded_dim() -> None:
    backend = _backend(pad_to_gear=True)
    compiled = torch.compile(BatchSum(), backend=backend, dynamic=True, fullgraph=True)
    x = torch.randn(4, 3)
    set_dim_gears(x, {0: [2, 4]})
    with pytest.raises(GeError, match="pad_to_gear needs every output to keep the padded dim"):
        compiled(x)
    assert backend.compilations == 0


def test_gears_of_two_inputs_zip_or_product() -> None:
    """TorchAir's merge policies: zip pairs the n-th gears, product takes every pair."""

    def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.unsqueeze(1) * b.unsqueeze(0)

    for policy, programs in (("zip", 2), ("product", 4)):
        config = tng.CompilerConfig()
        config.inference_config.dynamic_gears_merge_policy = policy
        backend = tng.get_npu_backend(compiler_config=config)
        compiled = torch.compile(add, backend=backend, dynamic=True, fullgraph=True)
        a, b = torch.randn(2), torch.randn(3)
        set_dim_gears(a, {0: [2, 4]})
        set_dim_gears(b, {0: [3, 5]})
        assert _close(compiled(a, b), add(a, b))
        assert backend.compilations == programs
        a, b = torch.randn(4), torch.randn(3)
        if policy == "zip":  # (4, 3) is not a gear
            with pytest.raises(GeError, match=r"the sizes \[4, 3\] of a dim 0, b dim 0"):
                compiled(a, b)
        else:
            assert _close(compiled(a, b), add(a, b))
        torch._dynamo.reset()
    with pytest.raises(ValueError, match="must be zip or product"):
        config.inference_config.dynamic_gears_merge_policy = "all"


def _stream_count(dynamic: bool, auto: bool) -> int:
    config = tng.CompilerConfig()
    if auto:
        config.pipeline = api.DEFAULT_PIPELINE.replace("assign-streams", "assign-streams{mode=auto}")
    backend = tng.get_npu_backend(compiler_config=config)
    compiled = torch.compile(Streams(), backend=backend, dynamic=dynamic, fullgraph=True)
    x, y = torch.randn(16, 16), torch.randn(16, 16)
    try:
        for got, want in zip(compiled(x, y), Streams()(x, y), strict=True):
            assert _close(got, want)
    finally:
        torch._dynamo.reset()
    assert backend.last_result is not None
    return len({t.stream for t in backend.last_result.program.tasks})


@pytest.mark.parametrize(("auto", "static"), [(True, 4), (False, 3)])
def test_dynamic_shapes_run_on_one_stream_per_label(
    monkeypatch: pytest.MonkeyPatch, auto: bool, static: int
) -> None:
    """Static, auto mode: the two free matmuls and the label's two on 4 streams; the
    default labels mode: the label's two on two sub-streams (3).  Dynamic: unlabelled ops
    on stream 0 and label "1" on one stream (2), unless ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1
    (read at compilation)."""
    monkeypatch.delenv("ENABLE_DYNAMIC_SHAPE_MULTI_STREAM", raising=False)
    assert _stream_count(dynamic=False, auto=auto) == static
    assert _stream_count(dynamic=True, auto=auto) == 2
    monkeypatch.setenv("ENABLE_DYNAMIC_SHAPE_MULTI_STREAM", "1")
    assert _stream_count(dynamic=True, auto=auto) == static
    monkeypatch.setenv("ENABLE_DYNAMIC_SHAPE_MULTI_STREAM", "0")
    assert _stream_count(dynamic=True, auto=auto) == 2


def test_padding_leaves_the_callers_tensor_alone() -> None:
    model, backend = _model(), _backend(pad_to_gear=True)
    compiled = torch.compile(model, backend=backend, dynamic=True, fullgraph=True)
    x = torch.randn(3, 3, 8)
    set_dim_gears(x, {0: [2, 4]})
    before = x.clone()
    compiled(x)
    assert np.array_equal(x.numpy(), before.numpy())
