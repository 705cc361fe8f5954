"""TorchAir's names for stream scopes and wait edges, acting on the active GraphBuilder.

    with GraphBuilder("main") as b:
        x = b.input("x", [4, 4]); d = b.input("d", [4, 4])
        with npu_stream_switch("1", 3):
            npu_wait_tensor(x, d)        # rebinds x: ops built from x now wait for d
            y = b.relu(x)

As in TorchAir, `npu_stream_switch(tag, priority, enable_inner_parallel)` labels every op
built inside; nested scopes: the innermost wins.  Entering and exiting must pair: an exit
without an enter, or a builder built with a scope still open, is an error.
"""

from __future__ import annotations

from ge_dialect.frontend.builder import GraphBuilder, Tensor, active_builder

__all__ = ["npu_stream_switch", "npu_wait_tensor"]


class npu_stream_switch:  # noqa: N801 - TorchAir's name
    """A stream scope on the active builder (a context manager, or enter/exit by hand)."""

    def __init__(
        self, stream_tag: str, stream_priority: int = 0, enable_inner_parallel: bool = True
    ):
        self.stream_tag = stream_tag
        self.stream_priority = stream_priority
        self.enable_inner_parallel = enable_inner_parallel
        self._builder: GraphBuilder | None = None

    def __enter__(self) -> npu_stream_switch:
        self._builder = active_builder()
        self._builder.enter_stream(
            self.stream_tag, self.stream_priority, self.enable_inner_parallel
        )
        return self

    def __exit__(self, *exc: object) -> None:
        (self._builder or active_builder()).exit_stream()


def npu_wait_tensor(self: Tensor, dependency: Tensor) -> Tensor:
    """TorchAir's `npu_wait_tensor`: ops built from `self` from now on run after `dependency`."""
    return self.builder.wait_tensor(self, dependency)
