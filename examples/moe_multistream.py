"""A DeepSeek-style MoE layer whose shared experts run on a second stream, as vllm-ascend's
TorchAir graph mode writes it, compiled with the `torch.compile` backend and simulated.

The router picks `top_k` of `experts` routed experts per token; every token also goes
through the shared experts.  The shared experts' gate/up projection and activation are in
`npu_stream_switch("moe_secondary", 0)`, with the same two waits as vllm-ascend's
`CustomDeepseekV2MoE`: the shared projection waits for the routing weights, its activation for
the routed experts' input (`expand_x`).  The routed experts are in a static form (every
expert on every token, combined by the routing weights, zero where a token did not pick
the expert: the same numbers as routing the tokens), as `ge_dialect.frontend.static_moe`
does for Hugging Face's blocks.

    python examples/moe_multistream.py [--tokens 16] [--timeline moe.png]

prints the simulated report of the multi-stream program, the makespan of the same layer
on one stream, and the largest error against eager PyTorch; `--timeline` draws the
program's timeline (the shared experts' kernels beside the routed experts').
"""

from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F
from torch import nn

from ge_dialect import torchair as tng


def swiglu(x: torch.Tensor) -> torch.Tensor:
    """silu(gate) * up, the two halves of the last dim (a merged gate/up projection)."""
    gate, up = x.chunk(2, dim=-1)
    return F.silu(gate) * up


class SharedExpertMoe(nn.Module):
    """Router, `experts` routed experts (top `top_k`, renormalised) and shared experts."""

    def __init__(
        self,
        hidden: int = 256,
        experts: int = 8,
        top_k: int = 2,
        inter: int = 128,
        multistream: bool = True,
    ):
        super().__init__()
        self.top_k = top_k
        self.multistream = multistream  # vllm-ascend's `enable_multistream_moe`
        self.gate = nn.Linear(hidden, experts, bias=False)
        scale = hidden**-0.5
        self.w_gate_up = nn.Parameter(torch.randn(experts, hidden, 2 * inter) * scale)
        self.w_down = nn.Parameter(torch.randn(experts, inter, hidden) * inter**-0.5)
        self.shared_gate_up = nn.Linear(hidden, 4 * inter, bias=False)
        self.shared_down = nn.Linear(2 * inter, hidden, bias=False)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        tokens, hidden = hidden_states.shape
        experts = self.w_gate_up.shape[0]
        router_logits = self.gate(hidden_states)
        topk_weights, topk_ids = torch.topk(router_logits.softmax(dim=-1), self.top_k, dim=-1)
        topk_weights = topk_weights / topk_weights.sum(dim=-1, keepdim=True)
        routing = torch.zeros_like(router_logits).scatter_add(1, topk_ids, topk_weights)
        expand_x = hidden_states.unsqueeze(0).expand(experts, tokens, hidden)
        if self.multistream:
            with tng.scope.npu_stream_switch("moe_secondary", 0):
                tng.scope.npu_wait_tensor(hidden_states, topk_weights)
                shared_gate_up = self.shared_gate_up(hidden_states)
                tng.scope.npu_wait_tensor(shared_gate_up, expand_x)
                shared_act = swiglu(shared_gate_up)
        else:
            shared_act = swiglu(self.shared_gate_up(hidden_states))
        routed = torch.bmm(swiglu(torch.bmm(expand_x, self.w_gate_up)), self.w_down)
        routed = (routed * routing.t().unsqueeze(-1)).sum(dim=0)
        return routed + self.shared_down(shared_act)


def run(tokens: int = 16, timeline: str | None = None) -> dict[str, float]:
    """Compiles and simulates the layer with its stream scope and without it (one stream:
    the default pipeline's `assign-streams` follows labels only); returns both makespans
    (us) and the largest errors against eager."""
    from ge_dialect import api

    torch.manual_seed(0)
    model = SharedExpertMoe().eval()
    x = torch.randn(tokens, 256)
    with torch.no_grad():
        eager = model(x)
    figures: dict[str, float] = {}
    for name in ("labels", "single"):
        model.multistream = name == "labels"
        config = tng.CompilerConfig()
        backend = tng.get_npu_backend(compiler_config=config)
        compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
        with torch.no_grad():
            out = compiled(x)
        result = backend.last_result
        assert result is not None
        figures[name] = result.report.makespan
        figures[f"{name}_error"] = float((out - eager).abs().max())
        if name == "labels":
            print(result.report.text())
            if timeline:
                api.draw_timeline(
                    result, timeline, title="MoE with shared experts on a second stream"
                )
        torch._dynamo.reset()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--timeline", help="draw the multi-stream program's timeline (PNG)")
    args = parser.parse_args()
    figures = run(args.tokens, args.timeline)
    print(
        f"makespan with the shared experts on their stream {figures['labels']:.2f} us, "
        f"on one stream {figures['single']:.2f} us "
        f"({figures['single'] / figures['labels']:.2f}x); "
        f"max |error| against eager {figures['labels_error']:.2e}"
    )


if __name__ == "__main__":
    main()
