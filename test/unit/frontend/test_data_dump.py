"""TorchAir's `op_never_timeout` and `data_dump` scopes through `torch.compile`: the bool
`_op_exec_never_timeout` on the imported ops (an inner `enable=False` block turns it off),
and, with `config.dump_config.enable_dump`, one `.npz` per run of the data_dump block's op
results, equal to eager's intermediate values."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

pytest.importorskip("torch")
import torch  # noqa: E402
from xdsl.dialects.builtin import BoolAttr, i1  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402


class NeverTimeout(torch.nn.Module):
    """TorchAir's own test of the scope: nested blocks, the inner one disabled."""

    def forward(self, in1, in2, in3, in4):
        with tng.scope.op_never_timeout(enable=True):
            mm_result = torch.mm(in1, in2)
            with tng.scope.op_never_timeout(enable=False):
                add_result = torch.add(in3, in4)
        sub_result = torch.sub(in1, in4)
        return add_result, mm_result, sub_result


class Dumped(torch.nn.Module):
    """Two ops in a data_dump block between ops outside it."""

    def forward(self, x, y):
        a = torch.add(x, y)
        with tng.scope.data_dump():
            s = torch.sub(x, y)
            r = torch.relu(s)
        return a, r * 2


def _compile(model: torch.nn.Module, config: tng.CompilerConfig) -> tuple:
    backend = tng.get_npu_backend(compiler_config=config)
    return backend, torch.compile(model, backend=backend, dynamic=False, fullgraph=True)


def test_op_never_timeout_marks_the_ops_with_a_bool(tmp_path) -> None:
    config = tng.CompilerConfig()
    config.debug.graph_dump.path = tmp_path
    _, compiled = _compile(NeverTimeout(), config)
    args = [torch.randn(4, 4) for _ in range(4)]
    try:
        out = compiled(*args)
    finally:
        torch._dynamo.reset()
    for got, want in zip(out, NeverTimeout()(*args), strict=True):
        assert api.within_tolerance(got.numpy(), want.numpy())
    (imported,) = glob.glob(os.path.join(tmp_path, "ge_graph_*", "00-import.mlir"))
    module = api.load(imported)
    marks = {
        op.name: op.attributes.get("_op_exec_never_timeout")
        for op in module.walk()
        if op.name in ("ge.matmul", "ge.add", "ge.sub")
    }
    assert marks == {
        "ge.matmul": BoolAttr(True, i1),
        "ge.add": BoolAttr(False, i1),
        "ge.sub": None,
    }


def test_op_never_timeout_wants_a_bool() -> None:
    with pytest.raises(TypeError) as caught:
        tng.scope.op_never_timeout(enable=1)  # type: ignore[arg-type]
    assert str(caught.value) == "op_never_timeout() argument 'enable' must be bool, but got int."


def test_data_dump_writes_each_run_with_eagers_values(tmp_path) -> None:
    config = tng.CompilerConfig()
    config.dump_config.enable_dump = True
    config.dump_config.dump_path = tmp_path
    backend, compiled = _compile(Dumped(), config)
    runs = [(torch.randn(4, 8), torch.randn(4, 8)) for _ in range(2)]
    try:
        outs = [compiled(*args) for args in runs]
    finally:
        torch._dynamo.reset()
    assert backend.compilations == 1
    (folder,) = glob.glob(os.path.join(tmp_path, "worldsize1_global_rank0", "ge_graph_*"))
    assert sorted(os.listdir(folder)) == ["0.npz", "1.npz"]
    for i, ((x, y), out) in enumerate(zip(runs, outs, strict=True)):
        for got, want in zip(out, Dumped()(x, y), strict=True):  # the outputs are unchanged
            assert api.within_tolerance(got.numpy(), want.numpy())
        with np.load(os.path.join(folder, f"{i}.npz")) as dumped:
            assert sorted(dumped.files) == ["r", "s"]  # the model's variable names
            sub, relu = np.subtract(x.numpy(), y.numpy()), np.maximum(x.numpy() - y.numpy(), 0)
            assert dumped["s"].dtype == np.float32
            assert api.within_tolerance(dumped["s"], sub)
            assert api.within_tolerance(dumped["r"], relu)
            assert not np.array_equal(dumped["s"], dumped["r"])


def test_data_dump_is_off_without_enable_dump(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    backend, compiled = _compile(Dumped(), tng.CompilerConfig())
    try:
        compiled(torch.randn(4, 8), torch.randn(4, 8))
    finally:
        torch._dynamo.reset()
    assert os.listdir(tmp_path) == []
    assert len(backend.graphs[0].outputs) == 2 and backend.graphs[0].data_dumps == {}


def test_dump_config_is_checked(tmp_path) -> None:
    config = tng.CompilerConfig()
    assert config.dump_config.enable_dump is False and config.dump_config.dump_path == "./"
    missing = os.path.join(tmp_path, "missing")
    with pytest.raises(FileNotFoundError) as caught:
        config.dump_config.dump_path = missing
    assert str(caught.value) == (
        f"Please set legal dir path, {missing} is not found or is not a file directory!"
    )
    with pytest.raises(ValueError, match="dump_config.enable_dump must be True or False"):
        config.dump_config.enable_dump = 1  # type: ignore[assignment]
