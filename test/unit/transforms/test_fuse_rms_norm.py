"""The RMS-norm fusion of `--fuse-mlp` (transforms/fuse_mlp.py) on Hugging Face's
LlamaRMSNorm as the PyTorch importer writes it: one `ge.rms_norm` afterwards, the same
numbers as eager PyTorch before and after, and the fused graph runs on the simulated NPU
within tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

from ge_dialect import api
from transforms.authoring import run_patterns
from transforms.fuse_mlp import MulRmsNorm, PowRmsNorm

torch = pytest.importorskip("torch")
llama = pytest.importorskip("transformers.models.llama.modeling_llama")


def test_llama_rms_norm_fuses_and_keeps_its_numbers():
    from ge_dialect.frontend.torch_import import import_torch

    norm = llama.LlamaRMSNorm(16, eps=1e-5).eval()
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
    x = torch.randn(2, 3, 16, generator=torch.Generator().manual_seed(0))
    module = import_torch(norm, (x,))
    before = sorted({op.name for op in module.walk() if op.name.startswith("ge.")})
    assert "ge.rsqrt" in before and "ge.rms_norm" not in before
    inputs = {"hidden_states": x.numpy()}  # LlamaRMSNorm.forward's parameter
    expected = norm(x).detach().numpy()

    assert run_patterns(module, [PowRmsNorm(), MulRmsNorm()], "fuse-mlp") == 1
    ops = [op.name for op in module.walk() if op.name.startswith("ge.")]
    assert ops == ["ge.const", "ge.rms_norm"]
    (got,) = api.reference(module, inputs).values()
    assert api.within_tolerance(got, expected), api.max_error(got, expected)

    api.compile(module, api.DEFAULT_PIPELINE + ",lower-to-device")
    (simulated,) = api.simulate(module, inputs).outputs.values()
    assert api.within_tolerance(simulated, expected), api.max_error(simulated, expected)
    assert isinstance(simulated, np.ndarray)
