"""The ATen math ops through the PyTorch frontend against eager PyTorch: exp, log, tanh, erf,
sqrt, rsqrt, neg, reciprocal, gelu (both forms), div (by a tensor, by a number, by 0;
rounding modes refused), maximum, minimum and pow (by a number and by a tensor).

`import_torch` converts each model; the reference interpreter (and, for a transformer-style
block, the whole pipeline on the simulated NPU via the `torch.compile` backend) must agree
with eager PyTorch under the project's tolerances.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
import torch  # noqa: E402
from torch import nn  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402
from ge_dialect.frontend.torch_import import import_torch  # noqa: E402
from ge_dialect.utils.errors import GeError  # noqa: E402


class Fn(nn.Module):
    """A module whose forward is `fn(*inputs)`."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _ge_ops(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]


def _reference(module, inputs: dict[str, torch.Tensor]) -> np.ndarray:
    (out,) = api.reference(module, {k: v.numpy() for k, v in inputs.items()}).values()
    return out


def _check(fn, inputs: dict[str, torch.Tensor]) -> list[str]:
    """Imports `fn` on `inputs` (their keys only name them here), compares the interpreter's
    result with eager PyTorch; returns the ge ops of the import."""
    module = import_torch(Fn(fn), tuple(inputs.values()))
    # (the export names the inputs of `forward(*args)` args_0, args_1, ...)
    actual = _reference(module, {f"args_{i}": v for i, v in enumerate(inputs.values())})
    expected = fn(*inputs.values()).numpy()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert api.within_tolerance(actual, expected), f"max error {api.max_error(actual, expected)}"
    return _ge_ops(module)


def _x(shape=(2, 3, 8), lo=-3.0, hi=3.0, dtype=torch.float32, seed=0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g) * (hi - lo) + lo).to(dtype)


UNARY = {  # name: (function, input range, the ge op)
    "exp": (torch.exp, (-4, 4), "ge.exp"),
    "log": (torch.log, (0.1, 8), "ge.log"),
    "tanh": (torch.tanh, (-4, 4), "ge.tanh"),
    "erf": (torch.erf, (-3, 3), "ge.erf"),
    "sqrt": (torch.sqrt, (0, 8), "ge.sqrt"),
    "rsqrt": (torch.rsqrt, (0.1, 8), "ge.rsqrt"),
    "neg": (torch.neg, (-4, 4), "ge.neg"),
    "reciprocal": (torch.reciprocal, (0.25, 4), "ge.reciprocal"),
    "gelu": (nn.functional.gelu, (-4, 4), "ge.gelu"),
    "gelu_tanh": (lambda x: nn.functional.gelu(x, approximate="tanh"), (-4, 4), "ge.gelu"),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, dtype):
    fn, (lo, hi), ge_op = UNARY[name]
    assert _check(fn, {"x": _x(lo=lo, hi=hi, dtype=dtype)}) == [ge_op]


def test_gelu_keeps_its_approximation():
    module = import_torch(Fn(lambda x: nn.functional.gelu(x, approximate="tanh")), (_x(),))
    assert 'approximate "tanh"' in api.print_module(module)
    module = import_torch(Fn(nn.functional.gelu), (_x(),))
    assert "approximate" not in api.print_module(module)


BINARY = {  # name: (function, the ge ops)
    "div": (torch.div, ["ge.div"]),
    "true_divide": (lambda a, b: a / b, ["ge.div"]),
    "maximum": (torch.maximum, ["ge.maximum"]),
    "minimum": (torch.minimum, ["ge.minimum"]),
    "pow": (torch.pow, ["ge.pow"]),
}


@pytest.mark.parametrize("b_shape", [(2, 3, 8), (8,), (3, 1)])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_tensor_tensor(name, b_shape):
    fn, ops = BINARY[name]
    a = _x(lo=0.25, hi=3, seed=1)
    b = _x(b_shape, lo=0.5, hi=2, seed=2) * torch.tensor([1.0, -1.0]).repeat(8)[: b_shape[-1]]
    assert _check(fn, {"a": a, "b": b}) == ops


def test_binary_f16():
    a, b = _x(lo=0.5, hi=2, dtype=torch.float16), _x((8,), lo=-1, hi=1, dtype=torch.float16)
    for fn, ops in BINARY.values():
        assert _check(fn, {"a": a, "b": b}) == ops


@pytest.mark.parametrize(
    "fn, ops",
    [
        (lambda x: torch.pow(x, 2), ["ge.pow"]),
        (lambda x: x**0.5, ["ge.pow"]),
        (lambda x: x / 4.0, ["ge.mul"]),  # a multiply by 0.25
        (lambda x: torch.div(x, -3), ["ge.mul"]),
    ],
    ids=["pow2", "pow_half", "div4", "div_neg3"],
)
def test_by_a_number(fn, ops):
    assert _check(fn, {"x": _x(lo=0.25, hi=3)}) == ops


def test_division_by_the_number_zero_gives_infinities():
    x = torch.tensor([1.0, -2.0, 0.0])
    module = import_torch(Fn(lambda v: v / 0), (x,))
    assert _ge_ops(module) == ["ge.div"]
    np.testing.assert_array_equal(_reference(module, {"args_0": x}), [np.inf, -np.inf, np.nan])


def test_edge_values_follow_eager():
    x = torch.tensor([0.0, -1.0, 4.0, -0.0])
    for fn in (torch.log, torch.sqrt, torch.rsqrt, torch.reciprocal):
        module = import_torch(Fn(fn), (x,))
        np.testing.assert_array_equal(_reference(module, {"args_0": x}), fn(x).numpy())
    base, exponent = torch.tensor([-8.0, -8.0, 0.0]), torch.tensor([0.5, 3.0, -1.0])
    module = import_torch(Fn(torch.pow), (base, exponent))
    actual = _reference(module, {"args_0": base, "args_1": exponent})
    np.testing.assert_array_equal(actual, torch.pow(base, exponent).numpy())  # nan, -512, inf


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_rounding_modes_are_refused(mode):
    with pytest.raises(GeError) as info:
        import_torch(Fn(lambda a, b: torch.div(a, b, rounding_mode=mode)), (_x(), _x(seed=1)))
    message = str(info.value)
    assert "unsupported PyTorch op 'aten.div.Tensor_mode'" in message
    assert f"rounding_mode='{mode}' (only true division, rounding_mode=None)" in message


class Block(nn.Module):
    """The elementwise math of a transformer block: RMS-norm, scaled scores, both GELUs."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        norm = x * torch.rsqrt(torch.pow(x, 2) + 1e-5)
        scores = self.fc(norm) / torch.sqrt(torch.tensor(8.0))
        h = nn.functional.gelu(scores) + nn.functional.gelu(scores, approximate="tanh")
        h = torch.maximum(h, torch.tanh(x)) - torch.minimum(torch.exp(-x), torch.neg(x * x).exp())
        return torch.erf(h) + torch.log(torch.reciprocal(torch.exp(h)) + 1)


def test_a_transformer_style_block_through_the_backend():
    torch.manual_seed(3)
    model = Block().eval()
    x = _x((4, 8), lo=-2, hi=2, seed=4)
    with torch.no_grad():
        expected = model(x)
        backend = tng.get_npu_backend()
        compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
        actual = compiled(x)
    a, e = actual.numpy(), expected.numpy()
    assert api.within_tolerance(a, e, whole_model=True), f"max error {api.max_error(a, e)}"
    result = backend.last_result
    assert result is not None and not result.findings
