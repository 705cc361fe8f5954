"""TorchAir's `torchair.scope`, for models compiled with `ge_dialect.torchair`'s backend.

    from ge_dialect import torchair as tng

    def forward(self, in1, in2, in3, in4):
        add_result = torch.add(in1, in2)
        with tng.scope.npu_stream_switch("1", 3):
            tng.scope.npu_wait_tensor(in4, add_result)
            mm_result = torch.mm(in3, in4)
        ...

`npu_stream_switch(stream_tag, stream_priority=0, enable_inner_parallel=True)` puts the
`ge_scope.scope_enter` / `scope_exit` markers around its block, carrying TorchAir's attribute
trio (`_user_stream_label`, `_user_stream_priority` as a string, `_enable_inner_parallel`);
every op of the block gets `stream.label = #stream.label<tag, priority, inner_parallel>`.
`npu_wait_tensor(self, dependency)` is the `ge_scope.wait_tensor` op: `stream.wait_tensor`
in the graph, after which every use of `self` waits for `dependency` (see docs/torch.md).
Eagerly (without the backend) both do nothing but return a copy of `self` for the wait.
"""

from __future__ import annotations

from typing import Any

import torch

from ge_dialect.torchair import _ops

__all__ = ["npu_stream_switch", "npu_wait_tensor"]


class _Scope:
    """A scope of attributes (TorchAir's `_Scope`): enter/exit markers in the graph."""

    def __init__(self, attrs: list[tuple[str, str]]):
        self.attrs = attrs

    def __enter__(self) -> None:
        keys = [k for k, _ in self.attrs]
        values = [v for _, v in self.attrs]
        _ops.scope_enter(keys, values)

    def __exit__(self, *args: Any) -> None:
        _ops.scope_exit()


def npu_stream_switch(
    stream_tag: str, stream_priority: int = 0, enable_inner_parallel: bool = True
) -> _Scope:
    """Ops in the `with` block run on the stream labelled `stream_tag` (TorchAir's API)."""
    return _Scope(
        [
            ("_user_stream_label", str(stream_tag)),
            ("_user_stream_priority", str(stream_priority)),
            ("_enable_inner_parallel", str(enable_inner_parallel)),
        ]
    )


def npu_wait_tensor(self: torch.Tensor, dependency: torch.Tensor) -> torch.Tensor:
    """Uses of `self` from here on run after `dependency` is computed (TorchAir's API)."""
    return _ops.wait_tensor(self, dependency)
