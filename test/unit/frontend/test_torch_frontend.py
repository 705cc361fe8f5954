"""The PyTorch frontend: `ge_dialect.torchair` (a `torch.compile` backend keeping TorchAir's
stream scopes, run on the simulated NPU) and `import_torch` (via `torch.export`).

TorchAir's documented multi-stream example runs as its documentation writes it but for the
import and the device lines; ResNet-, MobileNet- and attention-style blocks written in
`torch.nn` go through both paths and are compared with eager PyTorch (whole-model tolerances).
"""

from __future__ import annotations

import glob
import os
import re

import numpy as np
import pytest

pytest.importorskip("torch")
import torch  # noqa: E402
from torch import nn  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402
from ge_dialect.frontend.torch_import import import_torch  # noqa: E402
from ge_dialect.torchair.configs.compiler_config import CompilerConfig  # noqa: E402
from ge_dialect.utils.errors import GeError  # noqa: E402

torch.manual_seed(0)


def assert_close(actual: torch.Tensor, expected: torch.Tensor, whole_model: bool = False) -> None:
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    a, e = actual.detach().numpy(), expected.detach().numpy()
    assert api.within_tolerance(a, e, whole_model=whole_model), f"max error {api.max_error(a, e)}"


# --------------------------------------------------------------------------------------
# TorchAir's documented example (docs/zh/ascend_ir/features/advanced/multi_stream.md)
# --------------------------------------------------------------------------------------


# add_result、mm1在默认stream，mm_result在流“1”，add2在流“2”
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, in1, in2, in3, in4):
        add_result = torch.add(in1, in2)
        with tng.scope.npu_stream_switch('1'):  # fmt: skip
            # torch.mm算子(mm_result)等待torch.add算子(add_result)执行完再执行
            tng.scope.npu_wait_tensor(in4, add_result)
            mm_result = torch.mm(in3, in4)
        mm1 = torch.mm(in3, in4)
        with tng.scope.npu_stream_switch('2'):  # fmt: skip
            # torch.add算子(add2)等待torch.mm算子(mm_result)执行完再执行
            tng.scope.npu_wait_tensor(in4, mm_result)
            add2 = torch.add(in3, in4)
        return add_result, mm_result, mm1, add2


def test_torchair_documented_multi_stream_example(tmp_path):
    model = Model()
    config = CompilerConfig()
    config.debug.graph_dump.type = "mlir"  # (the docs' "pbtxt" dumps GE's GraphDef instead)
    config.debug.graph_dump.path = str(tmp_path)  # (the docs dump to the current directory)
    npu_backend = tng.get_npu_backend(compiler_config=config)
    # 调用compile接口编译模型
    compiled = torch.compile(model, backend=npu_backend, dynamic=False, fullgraph=True)
    in1 = torch.randn(1000, 1000, dtype = torch.float16)  # fmt: skip
    in2 = torch.randn(1000, 1000, dtype = torch.float16)  # fmt: skip
    in3 = torch.randn(1000, 1000, dtype = torch.float16)  # fmt: skip
    in4 = torch.randn(1000, 1000, dtype = torch.float16)  # fmt: skip
    result = compiled(in1, in2, in3, in4)

    eager = Model()(in1, in2, in3, in4)
    assert len(result) == 4
    for r, e in zip(result, eager, strict=True):
        assert_close(r, e)

    # the dumped IR: the import, then one file per pass
    (folder,) = glob.glob(str(tmp_path / "ge_graph_*"))
    files = sorted(os.listdir(folder))
    assert files[0] == "00-import.mlir" and files[-1].endswith("-plan-memory.mlir")
    assert any(f.endswith("-assign-streams.mlir") for f in files)
    imported = open(os.path.join(folder, "00-import.mlir")).read()
    label = {
        tag: f'stream.label = #stream.label<"{tag}", priority = 0, inner_parallel = true>'
        for tag in "12"
    }
    ops = {m[2]: m[1] for m in re.finditer(r"^\s*(%(\w+) = .*)$", imported, re.M)}
    # labels on exactly the ops inside each scope (the wait and the op it guards)
    assert "ge.add %in1, %in2" in ops["add_result"] and "stream.label" not in ops["add_result"]
    assert "ge.matmul" in ops["mm_result"] and label["1"] in ops["mm_result"]
    assert "ge.matmul" in ops["mm1"] and "stream.label" not in ops["mm1"]
    assert "ge.add" in ops["add2"] and label["2"] in ops["add2"]
    waits = [line for line in imported.splitlines() if "stream.wait_tensor" in line]
    assert len(waits) == 2
    assert "after %add_result" in waits[0] and label["1"] in waits[0]
    assert "after %mm_result" in waits[1] and label["2"] in waits[1]
    assert imported.count("stream.label = ") == 4
    # in4's later uses read the waits' results (the model discarded them)
    wait0 = re.search(r"(%\w+) = stream.wait_tensor %in4 after %add_result", imported)
    assert wait0
    w0 = wait0[1]
    wait1 = re.search(rf"(%\w+) = stream.wait_tensor {w0} after %mm_result", imported)
    assert wait1
    w1 = wait1[1]
    assert f"ge.matmul %in3, {w0}" in ops["mm_result"] and f"%in3, {w0}" in ops["mm1"]
    assert f"ge.add %in3, {w1}" in ops["add2"]

    # the simulated timeline.  At 1000x1000 a matmul's output tiles do not divide evenly
    # over the 32 cube cores: the blocks with fewer tiles free their cores before the
    # others end.  Stream 1's matmul, ready (its wait satisfied) while stream 0's runs,
    # starts on them: the streams overlap in the tail (the simulated device shares cores
    # between streams, so multi-stream pays off while cores idle, as TorchAir's
    # documentation warns).
    result = npu_backend.last_result
    assert result is not None and not result.findings
    mm_main, mm_side = _cube_kernels(result)
    assert mm_side.ready < mm_side.start < mm_main.end
    assert 0 < mm_side.cores < 32  # the cores the main matmul's tail leaves
    # A second input shape compiles a second program, and its numbers are eager's too.
    small = [t[:384, :384].contiguous() for t in (in1, in2, in3, in4)]
    for r, e in zip(compiled(*small), Model()(*small), strict=True):
        assert_close(r, e)
    assert npu_backend.compilations == 2  # one program per input shape
    result = npu_backend.last_result
    assert result is not None and not result.findings


def _cube_kernels(result):
    """The cube kernels (the matmuls) of the default stream and of another stream."""
    cube = [i for i in result.timeline.intervals if i.unit == "cube"]
    main = [i for i in cube if i.stream == 0]
    side = [i for i in cube if i.stream != 0]
    assert len(main) == 1 and len(side) == 1
    return main[0], side[0]


def test_wait_orders_later_uses_of_the_waited_tensor():
    """A discarded wait still orders every later use of the original tensor after the
    dependency, on any stream; an op that does not read the tensor is not ordered."""

    class Waits(nn.Module):
        def forward(self, x, y):
            a = x * 2.0
            with tng.scope.npu_stream_switch("1", 3, False):
                tng.scope.npu_wait_tensor(y, a)
                b = y + 1.0
            c = y - 1.0  # on the default stream, also after the wait
            return a, b, c

    backend = tng.get_npu_backend()
    model = torch.compile(Waits(), backend=backend, dynamic=False, fullgraph=True)
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    for r, e in zip(model(x, y), Waits()(x, y), strict=True):
        assert_close(r, e)
    text = api.print_module(import_torch(Waits(), (x, y)))
    wait = re.search(r"(%\w+) = stream.wait_tensor %y after (%\w+) (\{[^}]*\})", text)
    assert wait is not None
    assert '#stream.label<"1", priority = 3, inner_parallel = false>' in wait[3]
    assert re.search(rf"ge.add {wait[1]}, %\w+ {{stream.label", text)
    assert re.search(rf"ge.sub {wait[1]}, %\w+ :", text)  # no label: the default stream


# --------------------------------------------------------------------------------------
# torch.nn blocks, through both paths
# --------------------------------------------------------------------------------------


class ResNetBlock(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 10))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y = torch.relu(y + x)
        return torch.softmax(self.head(self.pool(y)), dim=-1)


class MobileNetBlock(nn.Module):
    def __init__(self, c=8, expand=2):
        super().__init__()
        h = c * expand
        self.expand = nn.Sequential(nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6())
        self.depthwise = nn.Sequential(
            nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), nn.BatchNorm2d(h), nn.SiLU()
        )
        self.project = nn.Sequential(nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))
        self.gate = nn.Sigmoid()
        self.act = nn.LeakyReLU(0.1)
        self.avg = nn.AvgPool2d(2)

    def forward(self, x):
        y = self.project(self.depthwise(self.expand(x))) + x
        y = self.act(y) * self.gate(y)
        z = torch.cat([self.avg(y), nn.functional.hardtanh(self.avg(x), -0.5, 0.5)], dim=1)
        return z.flatten(1) / 4.0 - 0.5


class Attention(nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads, self.dk = heads, d // heads
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.out = nn.Linear(d, d)

    def split(self, t):
        b, s, _ = t.shape
        return t.view(b, s, self.heads, self.dk).permute(0, 2, 1, 3)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-2, -1)) / (self.dk**0.5)
        attn = torch.softmax(scores, dim=-1)
        y = torch.matmul(attn, v).transpose(1, 2).reshape(b, s, d)
        return self.out(y).to(torch.float16)


def _randomize_bn(module: nn.Module) -> nn.Module:
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            assert m.running_mean is not None and m.running_var is not None
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    return module.eval()


BLOCKS = {
    "resnet": (ResNetBlock, (2, 8, 8, 8)),
    "mobilenet": (MobileNetBlock, (2, 8, 8, 8)),
    "attention": (Attention, (2, 6, 16)),
}


def _model(kind: str) -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(1)
    make, shape = BLOCKS[kind]
    return _randomize_bn(make()), torch.rand(*shape) * 2 - 1


@pytest.mark.parametrize("kind", sorted(BLOCKS))
def test_blocks_through_the_backend(kind):
    model, x = _model(kind)
    with torch.no_grad():
        expected = model(x)
        backend = tng.get_npu_backend()
        compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
        actual = compiled(x)
    assert_close(actual, expected, whole_model=True)
    result = backend.last_result
    assert result is not None and not result.findings


@pytest.mark.parametrize("kind", sorted(BLOCKS))
def test_blocks_through_import_torch(kind):
    model, x = _model(kind)
    with torch.no_grad():
        expected = model(x)
    module = api.load(model, example_inputs=(x,))
    (out_name,) = [a.data for fn in module.ops for a in [fn.res_attrs.data[0].data["ge.name"]]]
    api.compile(module, api.DEFAULT_PIPELINE + ",lower-to-device,plan-memory")
    result = api.simulate(api.device_program(module), {"x": x.numpy()})
    actual = torch.from_numpy(result.outputs[out_name])
    assert_close(actual, expected, whole_model=True)
    assert not result.findings


def test_import_torch_keeps_parameters_as_constants_and_names_inputs():
    model, x = _model("resnet")
    module = import_torch(model, x)
    text = api.print_module(module)
    assert '{ge.name = "x"}' in text
    assert text.count("ge.const") >= 5  # conv weights, batch norm statistics, linear
    assert re.search(r"ge.conv2d .* loc\(", api.print_module(module, debuginfo=True))


# --------------------------------------------------------------------------------------
# errors and compilation caching
# --------------------------------------------------------------------------------------


class Unsupported(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        return torch.atan(y) + 1.0  # no ge op computes atan


def test_an_unsupported_op_is_one_clear_error_at_compile_time():
    backend = tng.get_npu_backend()
    model = torch.compile(Unsupported(), backend=backend, dynamic=False, fullgraph=True)
    with pytest.raises(GeError) as info:
        model(torch.randn(2, 3))
    message = str(info.value)
    line = Unsupported.forward.__code__.co_firstlineno + 2
    assert f"{__file__}:{line}:" in message
    assert "unsupported PyTorch op 'aten.atan.default'" in message
    assert "torch.atan(y)" in message
    assert backend.compilations == 0 and backend.last_result is None  # nothing ran

    with pytest.raises(GeError, match=rf"{re.escape(__file__)}:{line}:.*aten\.atan"):
        import_torch(Unsupported(), (torch.randn(2, 3),))


def test_a_rounding_division_names_the_reason():
    class Div(nn.Module):
        def forward(self, x, y):
            return torch.div(x, y, rounding_mode="floor")

    with pytest.raises(GeError, match="rounding_mode='floor' \\(only true division"):
        import_torch(Div(), (torch.randn(2, 3), torch.rand(2, 3) + 1))


def test_a_second_call_with_the_same_shapes_does_not_recompile():
    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return torch.sigmoid(self.fc(x)).clone()

    model = Small().eval()
    backend = tng.get_npu_backend()
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    with torch.no_grad():
        a, b = torch.randn(3, 8), torch.randn(3, 8)
        assert_close(compiled(a), model(a))
        assert backend.compilations == 1
        assert_close(compiled(b), model(b))
        assert backend.compilations == 1
        assert backend.graphs[0].runs == 2
        c = torch.randn(5, 8)  # a new shape: compiled once more, then reused
        assert_close(compiled(c), model(c))
        assert_close(compiled(c), model(c))
        assert backend.compilations == 2


def test_eager_scope_ops_run_without_the_backend():
    x, d = torch.randn(3), torch.randn(3)
    with tng.scope.npu_stream_switch("1"):
        y = tng.scope.npu_wait_tensor(x, d)
    assert torch.equal(y, x)


def test_load_accepts_input_shapes_for_a_torch_module():
    model, x = _model("resnet")
    module = api.load(model, {"x": list(x.shape)})
    assert '{ge.name = "x"}' in api.print_module(module)


def test_torch_is_not_imported_by_the_tools():
    import subprocess
    import sys

    code = "import sys, ge_dialect.tools.ge_opt, ge_dialect.api; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_dtype_and_shape_follow_eager():
    class Casts(nn.Module):
        def forward(self, x):
            return x.to(torch.float16).permute(1, 0), x.reshape(-1, 2).transpose(0, 1) * 3

    model = Casts()
    backend = tng.get_npu_backend()
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    x = torch.randn(4, 6)
    for r, e in zip(compiled(x), model(x), strict=True):
        assert_close(r, e)
    assert np.dtype("float16") == compiled(x)[0].numpy().dtype
