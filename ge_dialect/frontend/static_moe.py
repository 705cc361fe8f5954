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

DeepSeek-V3's `DeepseekV3MoE` loops over its experts the same way; its router
(`DeepseekV3TopkRouter`: sigmoid scores, plus `e_score_correction_bias` for the choice,
the `topk_group` best of `n_group` groups, the top k experts in those groups, their
unbiased scores renormalised and scaled by `routed_scaling_factor`) is traced, but two of
its steps have no static-shape import (`scatter_` of the group mask, `gather` of the
chosen scores).  The static form keeps the router's numbers and computes those two steps
with ops that import, to the same values:

    group_mask = zeros([T, G]).scatter_add(1, group_ids, ones) > 0    # not scatter_
    chosen     = zeros([T, E]).scatter_add(1, ids, ones)              # 1.0 at the top k
    routing    = scores * chosen / (sum(scores * chosen) + 1e-20) * routed_scaling_factor

(the masked-out experts are `where(mask, s, 0.0)`, as `masked_fill`; `scores * chosen` is
exact: 1.0 or 0.0 times a positive score).  As in eager, the experts' results are combined
in fp32 and cast back; the shared experts are added after.

Blocks are recognised by their class name and attributes, so transformers is not
imported here.  Training-time router jitter is not modelled (for inference).
"""

from __future__ import annotations

import operator
import types
from typing import Any

import torch
import torch.nn.functional as F

SUPPORTED = ("MixtralSparseMoeBlock", "Qwen2MoeSparseMoeBlock", "DeepseekV3MoE")
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
    """Every expert on every token, stacked [E, T, H], combined by the routing weights (in
    their dtype)."""
    outputs = torch.stack([expert(x) for expert in block.experts]).to(routing.dtype)
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


def _ones_at(ids: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """1.0 at `ids` along dim 1 of a zero tensor shaped like `like` (ids distinct per row)."""
    ones = torch.ones(ids.shape, dtype=like.dtype, device=like.device)
    return torch.zeros_like(like).scatter_add(1, ids, ones)


def _deepseek_v3_route(router: Any, x: torch.Tensor) -> torch.Tensor:
    """`DeepseekV3TopkRouter`'s weights at their experts, zeros elsewhere: [T, E] fp32."""
    experts, groups = router.n_routed_experts, router.n_group
    scores = F.linear(x.type(torch.float32), router.weight.type(torch.float32)).sigmoid()
    for_choice = scores + router.e_score_correction_bias.to(scores.dtype).unsqueeze(0)
    group_scores = for_choice.view(-1, groups, experts // groups).topk(2, dim=-1)[0].sum(dim=-1)
    group_ids = torch.topk(group_scores, k=router.topk_group, dim=-1, sorted=False)[1]
    group_mask = _ones_at(group_ids, group_scores) > 0
    score_mask = group_mask.unsqueeze(-1).expand(-1, groups, experts // groups)
    for_choice = torch.where(score_mask.reshape(-1, experts), for_choice, 0.0)
    ids = torch.topk(for_choice, k=router.top_k, dim=-1, sorted=False)[1]
    weights = scores * _ones_at(ids, scores)
    if router.norm_topk_prob:
        weights = weights / (weights.sum(dim=-1, keepdim=True) + 1e-20)
    return weights * router.routed_scaling_factor


def _deepseek_v3_forward(self: Any, hidden_states: torch.Tensor) -> torch.Tensor:
    x = hidden_states.reshape(-1, hidden_states.shape[-1])
    routing = _deepseek_v3_route(self.gate, x)
    y = _experts(self, x, routing).to(x.dtype).reshape(hidden_states.shape)
    return y + self.shared_experts(hidden_states)


_FORWARDS = {
    "MixtralSparseMoeBlock": (_mixtral_forward, ("gate", "experts", "top_k")),
    "Qwen2MoeSparseMoeBlock": (
        _qwen2_moe_forward,
        ("gate", "experts", "top_k", "norm_topk_prob", "shared_expert", "shared_expert_gate"),
    ),
    "DeepseekV3MoE": (
        _deepseek_v3_forward,
        ("experts", "shared_experts", "gate.weight", "gate.e_score_correction_bias")
        + ("gate.n_routed_experts", "gate.n_group", "gate.topk_group", "gate.top_k")
        + ("gate.norm_topk_prob", "gate.routed_scaling_factor"),
    ),
}


def _has(module: torch.nn.Module, dotted: str) -> bool:
    """Whether `module` has the attribute path `dotted` ("gate.weight")."""
    try:
        operator.attrgetter(dotted)(module)
    except AttributeError:
        return False
    return True


def static_moe(model: torch.nn.Module) -> int:
    """Replaces, in place, the forward of every sparse MoE block of `model` (the classes
    of `SUPPORTED`) with the static form; returns how many blocks it replaced."""
    count = 0
    for module in model.modules():
        entry = _FORWARDS.get(type(module).__name__)
        if entry is None:
            continue
        forward, needs = entry
        missing = [name for name in needs if not _has(module, name)]
        if missing:
            raise TypeError(
                f"{type(module).__name__} has no {', '.join(missing)}: not the Hugging Face "
                "block static_moe knows"
            )
        module.forward = types.MethodType(forward, module)
        count += 1
    return count


__all__ = ["SUPPORTED", "static_moe"]
