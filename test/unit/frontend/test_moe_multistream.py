"""`examples/moe_multistream.py`: the shared experts on their own stream, as vllm-ascend's
TorchAir graph mode writes them, through the `torch.compile` backend: the numbers equal
eager, the shared expert's matmul runs on stream 1 while stream 0 works on the routing and
the routed experts, and the layer finishes sooner than on one stream."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

pytest.importorskip("torch")
import torch  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402
from helpers.support import ROOT  # noqa: E402


def _example():
    path = os.path.join(ROOT, "examples", "moe_multistream.py")
    spec = importlib.util.spec_from_file_location("moe_multistream_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def example():
    return _example()


def _compile(model: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, api.SimResult]:
    backend = tng.get_npu_backend(compiler_config=tng.CompilerConfig())
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    try:
        with torch.no_grad():
            out = compiled(x)
    finally:
        torch._dynamo.reset()
    assert backend.compilations == 1
    assert backend.last_result is not None
    return out, backend.last_result


def test_shared_experts_overlap_the_routed_experts(example) -> None:
    torch.manual_seed(0)
    model = example.SharedExpertMoe().eval()
    x = torch.randn(16, 256)
    with torch.no_grad():
        eager = model(x)
    out, result = _compile(model, x)
    a, e = out.numpy(), eager.numpy()
    assert api.within_tolerance(a, e, whole_model=True), api.max_error(a, e)

    intervals = result.timeline.intervals
    tasks = result.program.tasks
    launches = [(tasks[i.task], i) for i in intervals if tasks[i.task].kernel]
    secondary = [(t, i) for t, i in launches if t.stream == 1]
    assert secondary, "nothing ran on the shared experts' stream"
    assert any(t.kernel == "matmul" for t, _ in secondary)  # the shared gate/up projection
    assert all("moe_multistream.py" in t.location for t, _ in secondary)
    # some shared-expert kernel runs while a stream-0 kernel runs
    main = [i for t, i in launches if t.stream == 0]
    assert any(s.start_fs < m.end_fs and m.start_fs < s.end_fs for _, s in secondary for m in main)

    model.multistream = False
    single_out, single = _compile(model, x)
    assert {t.stream for t in single.program.tasks} == {0}
    assert api.within_tolerance(single_out.numpy(), e, whole_model=True)
    assert result.report.makespan < single.report.makespan


def test_waits_follow_the_scope(example) -> None:
    """The two waits of vllm-ascend's scope: the shared projection after the routing
    weights, its activation after the routed experts' input."""
    from ge_dialect.frontend.torch_import import import_torch

    torch.manual_seed(0)
    module = import_torch(example.SharedExpertMoe().eval(), torch.randn(16, 256))
    text = str(module)
    waits = [line for line in text.splitlines() if "stream.wait_tensor" in line]
    assert len(waits) == 2
    assert all('#stream.label<"moe_secondary"' in line for line in waits)
