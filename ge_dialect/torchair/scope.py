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
`limit_core_num` and `super_kernel` put their keys on the ops of the block as string
attributes (`_op_aicore_num`, ..., `ge_dialect.utils.scope_attrs`), which the simulator
honours: a core limit per launch, one launch for a super kernel's chain on a stream.
Eagerly (without the backend) both do nothing but return a copy of `self` for the wait.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator

import torch

from ge_dialect.torchair import _ops

__all__ = [
    "data_dump",
    "limit_core_num",
    "npu_stream_switch",
    "npu_wait_tensor",
    "op_never_timeout",
    "super_kernel",
]


def _scope_body(attrs: list[tuple[str, str]]) -> Generator[None, None, None]:
    with torch._dynamo.error_on_graph_break(True):
        _ops.scope_enter([k for k, _ in attrs], [v for _, v in attrs])
        try:
            yield
        finally:
            _ops.scope_exit()


class _Scope(contextlib._GeneratorContextManager[None, None, None]):
    """A scope of attributes (TorchAir's `_Scope`): enter/exit markers in the graph.

    A generator context manager, which Dynamo traces through (a plain class with
    `__enter__` would make Dynamo run the whole frame eagerly at a graph break inside the
    block), and inside `torch._dynamo.error_on_graph_break(True)`: a graph break in the
    block is Dynamo's error at compilation naming the line that breaks, as TorchAir allows
    no graph break inside a scope."""

    def __init__(self, attrs: list[tuple[str, str]]):
        self.attrs = attrs
        super().__init__(_scope_body, (attrs,), {})


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


def limit_core_num(op_aicore_num: int, op_vectorcore_num: int) -> _Scope:
    """Ops in the `with` block use at most `op_aicore_num` AI cores and `op_vectorcore_num`
    vector cores (TorchAir's API; the numbers are checked against the device at compilation,
    see `ge_dialect.utils.scope_attrs`)."""
    return _Scope(
        [("_op_aicore_num", str(op_aicore_num)), ("_op_vectorcore_num", str(op_vectorcore_num))]
    )


def super_kernel(scope: str | None, options: str = "") -> _Scope:
    """The `with` block's consecutive kernels on a stream run as one super kernel named
    `scope` (TorchAir's API; None or "": none, inside an enclosing super_kernel too)."""
    return _Scope([("_super_kernel_scope", scope or ""), ("_super_kernel_options", options)])


def npu_wait_tensor(self: torch.Tensor, dependency: torch.Tensor) -> torch.Tensor:
    """Uses of `self` from here on run after `dependency` is computed (TorchAir's API)."""
    return _ops.wait_tensor(self, dependency)


def op_never_timeout(enable: bool = True) -> _Scope:
    """Ops in the `with` block carry `_op_exec_never_timeout = true` (false with `enable`
    False: an inner block turns it off), a bool attribute, as TorchAir sets it; the
    simulator has no timeout, so it only marks the ops."""
    if not isinstance(enable, bool):
        raise TypeError(
            f"op_never_timeout() argument 'enable' must be bool, but got {type(enable).__name__}."
        )
    return _Scope([("_op_exec_never_timeout", str(enable))])


def data_dump() -> _Scope:
    """The results of the block's ops are written on every run when
    `config.dump_config.enable_dump` is True (`torchair_enable_data_dump`, TorchAir's
    attribute; see `ge_dialect.torchair.configs.compiler_config`)."""
    return _Scope([("torchair_enable_data_dump", "True")])
