"""One Hugging Face decoder layer as a graph: eager PyTorch's output and the fused module."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp


def fused_hf_layer(
    model: Any, hidden: int, static: bool = False
) -> tuple[ModuleOp, Any, np.ndarray]:
    """`model` (a transformers `*Model` of one layer) fed embeddings [1, 8, hidden]: the
    module imported by torch.export after `fuse-attention,fuse-mlp`, the embeddings, and
    eager PyTorch's output (taken before `static_moe` when `static`)."""
    import torch

    from ge_dialect import api
    from ge_dialect.frontend.static_moe import static_moe
    from ge_dialect.frontend.torch_import import import_torch

    class Layer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, embeds):
            return self.model(inputs_embeds=embeds, use_cache=False)[0]

    embeds = torch.randn(1, 8, hidden)
    with torch.no_grad():
        expected = Layer().eval()(embeds).numpy()
    if static:
        assert static_moe(model) == 1
    module = import_torch(Layer().eval(), (embeds,))
    api.compile(module, "canonicalize,cse,fuse-attention,fuse-mlp,canonicalize,cse")
    return module, embeds, expected
