"""A decode step with a KV cache, from PyTorch to the simulated NPU.

A one-layer attention (2 heads of dim 16, a cache of 16 positions) whose K/V caches are
module buffers: `forward(x, pos)` writes the new token's K at `pos` (`cache[:, :, pos] = k`)
and its V (`index_copy_`), and attends over the caches with the positions after `pos`
masked.  `import_torch` makes each written buffer an input and its new value an output;
the interpreter equals eager PyTorch over a few decode steps; the simulator equals the
interpreter with the memory checker clean, each cache updated in place (an in-out argument,
no copy of a cache, each update moving the token's bytes only).  Also: a static position
(a slice assignment), `index_copy` in a traced graph with a batch of 2, the refusals, a
read of the old cache after an in-place update reported as a clobber, and
`examples/kv_cache_decode.mlir` through ge-run.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import torch
from helpers.support import ROOT, assert_close

from ge_dialect import api
from ge_dialect.frontend.torch_import import import_torch
from ge_dialect.ir.interpreter import find_function, io_names
from ge_dialect.sim.program import INPUT, VIEW
from ge_dialect.tools import ge_run
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.task_order import COPY, LAUNCH

HIDDEN, HEADS, CACHE = 32, 2, 16


class DecodeStep(torch.nn.Module):
    """One attention layer's decode step over a KV cache held in buffers."""

    k_cache: torch.Tensor
    v_cache: torch.Tensor

    def __init__(self, static_pos: int | None = None):
        super().__init__()
        self.head_dim = HIDDEN // HEADS
        self.static_pos = static_pos
        self.q = torch.nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.k = torch.nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.v = torch.nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.o = torch.nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, HEADS, CACHE, self.head_dim))
        self.register_buffer("v_cache", torch.zeros(1, HEADS, CACHE, self.head_dim))

    def heads(self, t: torch.Tensor) -> torch.Tensor:
        return t.view(1, 1, HEADS, self.head_dim).transpose(1, 2)  # [1, N, 1, D]

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
        if self.static_pos is None:
            self.k_cache[:, :, pos] = k
            self.v_cache.index_copy_(2, pos, v)
            visible = torch.arange(CACHE) <= pos
        else:
            p = self.static_pos
            self.k_cache[:, :, p : p + 1] = k
            self.v_cache[:, :, p : p + 1] = v
            visible = torch.arange(CACHE) <= p
        scores = q @ self.k_cache.transpose(2, 3) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(~visible, float("-inf"))
        out = scores.softmax(-1) @ self.v_cache
        return self.o(out.transpose(1, 2).reshape(1, 1, HIDDEN))


def _model(static_pos: int | None = None) -> DecodeStep:
    torch.manual_seed(0)
    model = DecodeStep(static_pos).eval()
    with torch.no_grad():  # a cache that already holds earlier tokens
        model.k_cache.normal_()
        model.v_cache.normal_()
    return model


def _token(step: int) -> torch.Tensor:
    return torch.randn(1, 1, HIDDEN, generator=torch.Generator().manual_seed(step))


def _output_name(outputs: dict[str, np.ndarray]) -> str:
    (name,) = [n for n in outputs if not n.endswith("_cache_new")]
    return name


def test_import_makes_the_written_buffers_state():
    module = import_torch(_model(), (_token(0), torch.tensor([3])))
    in_names, out_names = io_names(find_function(module))
    assert in_names == ["k_cache", "v_cache", "x", "pos"]
    assert out_names[:2] == ["k_cache_new", "v_cache_new"]
    text = str(module)
    assert text.count("ge.scatter_update") == 2
    assert "tensor<1x2x16x16xf32>, tensor<1xi64>, tensor<1x2x1x16xf32>" in text


def test_decode_steps_match_eager():
    model = _model()
    module = import_torch(model, (_token(0), torch.tensor([0])))
    k_cache, v_cache = model.k_cache.numpy().copy(), model.v_cache.numpy().copy()
    for step, pos in enumerate([0, 1, 7, 15]):
        x, p = _token(step), torch.tensor([pos])
        inputs = {"k_cache": k_cache, "v_cache": v_cache, "x": x.numpy(), "pos": p.numpy()}
        ours = api.reference(module, inputs)
        with torch.no_grad():
            y = model(x, p).numpy()
        assert_close(ours[_output_name(ours)], y, np.float32, whole_model=True)
        assert_close(ours["k_cache_new"], model.k_cache.numpy(), np.float32, whole_model=True)
        assert_close(ours["v_cache_new"], model.v_cache.numpy(), np.float32, whole_model=True)
        # the next step starts from our caches: only the written position changed
        changed = np.any(ours["k_cache_new"] != k_cache, axis=(0, 1, 3))
        assert list(np.flatnonzero(changed)) == [pos]
        k_cache, v_cache = ours["k_cache_new"], ours["v_cache_new"]


def test_decode_step_on_the_simulator_updates_the_caches_in_place():
    model = _model()
    module = import_torch(model, (_token(0), torch.tensor([0])))
    device = module.clone()
    api.compile(device, "lower-to-device,plan-memory", name="decode")
    inputs = {
        "k_cache": model.k_cache.numpy(),
        "v_cache": model.v_cache.numpy(),
        "x": _token(1).numpy(),
        "pos": np.array([6]),
    }
    result = api.simulate(device, inputs)
    assert result.findings == []
    reference = api.reference(module, inputs)
    assert sorted(result.outputs) == sorted(reference)
    for name, value in reference.items():
        assert_close(result.outputs[name], value, np.float32)

    program = result.program
    buffers = program.buffers
    caches = [i for i in program.inputs if buffers[i].name in ("k_cache", "v_cache")]
    # in-out arguments: each cache buffer is an input and the output of its new value
    assert [buffers[i].output_name for i in caches] == ["k_cache_new", "v_cache_new"]
    assert all(i in program.outputs for i in caches)
    updates = [t for t in program.tasks if t.kind == LAUNCH and t.kernel == "scatter_update"]
    assert len(updates) == 2
    token_bytes = HEADS * (HIDDEN // HEADS) * 4
    for task, cache in zip(updates, caches, strict=True):
        (out,) = task.outputs
        assert task.inputs[0] == cache  # reads the cache argument itself
        assert buffers[out].kind == VIEW and buffers[out].root == cache  # writes it
        assert (task.cost.bytes_in, task.cost.bytes_out) == (token_bytes + 8, token_bytes)
    # no copy touches a cache (the one copy is the attention output's, a returned view)
    for task in program.tasks:
        if task.kind == COPY:
            touched = {buffers[i].root for i in (*task.inputs, *task.outputs)}
            assert not touched & set(caches)
    assert buffers[caches[0]].kind == INPUT


def test_static_position_matches_eager():
    # `cache[:, :, 4:5] = k` with a Python int: slice_scatter, a constant position
    model = _model(static_pos=4)
    x = _token(2)
    module = import_torch(model, (x, torch.tensor([4])))
    text = str(module)
    assert text.count("ge.scatter_update") == 2 and text.count("dense<4> : tensor<1xi64>") == 2
    inputs = {"k_cache": model.k_cache.numpy().copy(), "v_cache": model.v_cache.numpy().copy()}
    inputs |= {"x": x.numpy(), "pos": np.array([4])}  # (unused by this model)
    ours = api.reference(module, inputs)
    with torch.no_grad():
        y = model(x, torch.tensor([4])).numpy()
    assert_close(ours[_output_name(ours)], y, np.float32, whole_model=True)
    assert_close(ours["k_cache_new"], model.k_cache.numpy(), np.float32, whole_model=True)
    assert_close(ours["v_cache_new"], model.v_cache.numpy(), np.float32, whole_model=True)


def test_index_copy_of_a_traced_graph_with_a_batch():
    # an FX graph traced without decompositions (as the torch.compile backend's) keeps
    # aten.index_copy; a batch of 2 gets the one position expanded to each row
    from torch.fx.experimental.proxy_tensor import make_fx

    from ge_dialect.frontend.torch_import import FxConverter

    cache, pos, new = torch.randn(2, 2, 8, 4), torch.tensor([3]), torch.randn(2, 2, 1, 4)
    graph = make_fx(lambda c, p, n: c.index_copy(2, p, n))(cache, pos, new)
    converted = FxConverter(graph.graph, owner=graph).convert()
    assert "ge.expand" in str(converted.module)
    inputs = dict(zip(converted.inputs, (cache.numpy(), pos.numpy(), new.numpy()), strict=True))
    (ours,) = api.reference(converted.module, inputs).values()
    np.testing.assert_array_equal(ours, cache.index_copy(2, pos, new).numpy())


class _Writes(torch.nn.Module):
    cache: torch.Tensor

    def __init__(self, how: str):
        super().__init__()
        self.how = how
        self.register_buffer("cache", torch.zeros(2, 4, 3))

    def forward(self, new: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        if self.how == "batch":
            self.cache[pos] = new
        elif self.how == "two":
            self.cache[:, pos] = new
        else:
            self.cache.index_put_((torch.arange(2), pos), new, accumulate=True)
        return self.cache.sum()


@pytest.mark.parametrize(
    ("how", "new", "pos", "reason"),
    [
        ("batch", (1, 4, 3), [1], "a write along the batch dim 0 (positions are per batch row)"),
        (
            "two",
            (2, 2, 3),
            [1, 2],
            "positions of shape [2] and type i64 (one i32 or i64 position, as a decode step "
            "writes)",
        ),
        ("add", (2, 3), [1, 2], "accumulate=True (index_put_ that adds)"),
    ],
)
def test_unsupported_writes_are_located_errors(how, new, pos, reason):
    with pytest.raises(GeError) as e:
        import_torch(_Writes(how), (torch.zeros(new), torch.tensor(pos)))
    message = str(e.value)
    assert message.startswith(__file__ + ":")  # the model's line
    assert f"unsupported PyTorch op 'aten.index_put.default': {reason}" in message


# A hand-written device program that reads the old cache after updating it in place.
CLOBBER = """\
func.func @main(%x: memref<1x2x1x4xf32> {npu.input = "x"}, %pos: memref<1xi64> {npu.input = "pos"},
                %k: memref<1x2x8x4xf32> {npu.input = "k", npu.output = "k_new"},
                %y: memref<1x2x8xf32> {npu.output = "y"}) attributes {npu.program} {
  %kn = npu.view %k[0] : memref<1x2x8x4xf32> -> memref<1x2x8x4xf32>
  npu.launch "scatter_update"(%k, %pos, %x) -> (%kn) stream 0 priority 0
      : (tensor<1x2x8x4xf32>, tensor<1xi64>, tensor<1x2x1x4xf32>) -> (tensor<1x2x8x4xf32>)
      cost <vector, flops = 0, bytes_in = 40, bytes_out = 32, blocks = 1> attrs {axis = 2 : i64}
  npu.launch "reduce_sum"(%READ) -> (%y) stream 0 priority 0
      : (tensor<1x2x8x4xf32>) -> (tensor<1x2x8xf32>)
      cost <vector, flops = 64, bytes_in = 256, bytes_out = 64, blocks = 1>
      attrs {axes = array<i64: 3>}
  func.return
}
"""


def _clobber_findings(read: str):
    module = api.parse(CLOBBER.replace("%READ", read), "p.mlir")
    api.verify(module, "p.mlir")
    inputs = {"x": np.ones((1, 2, 1, 4), np.float32), "pos": np.array([3])}
    inputs["k"] = np.zeros((1, 2, 8, 4), np.float32)
    return api.simulate(module, inputs).findings


def test_reading_the_old_cache_after_the_update_is_a_clobber():
    (finding,) = _clobber_findings("%k")
    assert finding.kind == "clobber"
    assert finding.message == (
        "clobber: launch 'reduce_sum' on stream 0 (p.mlir:8:3) reads bytes [0, 256) of input "
        "'k', but launch 'scatter_update' on stream 0 (p.mlir:5:3) overwrote them with %kn "
        "(the view at p.mlir:4:3)"
    )
    assert _clobber_findings("%kn") == []  # the new value: fine


def test_example_runs_in_place_with_its_numbers_checked(capsys):
    example = os.path.join(ROOT, "examples", "kv_cache_decode.mlir")
    assert ge_run.main([example, "--check-numbers"]) == 0
    out = capsys.readouterr().out
    for name in ("out", "k_cache_new", "v_cache_new"):
        assert f"check {name}: max |error|" in out
    module = api.load(example)
    api.compile(module, "lower-to-device", name=example)
    text = str(module)
    assert "npu.copy" not in text
    assert 'npu.input = "k_cache", npu.output = "k_cache_new"' in text
