"""A static-shape form of Hugging Face's sparse MoE blocks, for export at static shapes.

Hugging Face's `MixtralSparseMoeBlock` (and `Qwen2MoeSparseMoeBlock`) loop over the
experts that some token chose, gathering those tokens with a data-dependent
`torch.where`: `torch.export` cannot trace that at static shapes.  As vllm-ascend does
by replacing modules, `static_moe(model)` replaces the forward of every such block with
a static form:

    logits  = gate(x)                                   # x: [T, H]
    w, ids  = topk(softmax(logits), k)                  # then w / w.sum() if renormalised
    routing = zeros([T, E]).scatter_add(1, ids, w)      # the k weights, zeros elsewhere
    y       = sum over e of routing[:, e] * expert_e(x) # every expert on every token

It computes the same numbers as the eager block (an expert a token did not choose is
multiplied by an exact zero; only the order of the additions differs, within fp32
rounding), at E / k times the routed experts' FLOPs.  The experts' results are stacked
([E, T, H]), so `--fuse-mlp` groups them into `ge.grouped_matmul`s.

    from ge_dialect.frontend.static_moe import static_moe
    static_moe(model)          # in place; returns the number of blocks replaced

Blocks are recognised by their class name and attributes, so transformers is not
imported here.  Training-time router jitter is not modelled (for inference).
"""

from __future__ import annotations

import types
from typing import Any

import torch
import torch.nn.functional as F

SUPPORTED = ("MixtralSparseMoeBlock", "Qwen2MoeSparseMoeBlock")
"""The Hugging Face block classes `static_moe` replaces the forward of."""


def _route(block: Any, x: torch.Tensor, renormalise: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The router's logits [T, E] and the routing weights [T, E] (the top k's weights at
    their experts, zeros elsewhere), as the eager block computes them."""
    logits = block.gate(x)
    weights = F.softmax(logits, dim=1, dtype=torch.float)
    weights, selected = torch.topk(weights, block.top_k, dim=-1)
    if renormalise:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    weights = weights.to(x.dtype)
    routing = torch.zeros_like(logits).scatter_add(1, selected, weights)
    return logits, routing


def _experts(block: Any, x: torch.Tensor, routing: torch.Tensor) -> torch.Tensor:
    """Every expert on every token, stacked [E, T, H], combined by the routing weights."""
    outputs = torch.stack([expert(x) for expert in block.experts])
    return (outputs * routing.t().unsqueeze(-1)).sum(dim=0)


def _mixtral_forward(self: Any, hidden_states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    batch, length, hidden = hidden_states.shape
    x = hidden_states.reshape(-1, hidden)
    logits, routing = _route(self, x, renormalise=True)
    return _experts(self, x, routing).reshape(batch, length, hidden), logits


def _qwen2_moe_forward(self: Any, hidden_states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    batch, length, hidden = hidden_states.shape
    x = hidden_states.reshape(-1, hidden)
    logits, routing = _route(self, x, renormalise=bool(self.norm_topk_prob))
    y = _experts(self, x, routing)
    shared = torch.sigmoid(self.shared_expert_gate(x)) * self.shared_expert(x)
    return (y + shared).reshape(batch, length, hidden), logits


_FORWARDS = {
    "MixtralSparseMoeBlock": (_mixtral_forward, ("gate", "experts", "top_k")),
    "Qwen2MoeSparseMoeBlock": (
        _qwen2_moe_forward,
        ("gate", "experts", "top_k", "norm_topk_prob", "shared_expert", "shared_expert_gate"),
    ),
}


def static_moe(model: torch.nn.Module) -> int:
    """Replaces, in place, the forward of every sparse MoE block of `model` (the classes
    of `SUPPORTED`) with the static form; returns how many blocks it replaced."""
    count = 0
    for module in model.modules():
        entry = _FORWARDS.get(type(module).__name__)
        if entry is None:
            continue
        forward, needs = entry
        missing = [name for name in needs if not hasattr(module, name)]
        if missing:
            raise TypeError(
                f"{type(module).__name__} has no {', '.join(missing)}: not the Hugging Face "
                "block static_moe knows"
            )
        module.forward = types.MethodType(forward, module)
        count += 1
    return count


__all__ = ["SUPPORTED", "static_moe"]
