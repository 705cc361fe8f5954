"""The scope ops, as TorchAir's `torch.ops.air.*`: custom ops Dynamo keeps in the FX graph.

    torch.ops.ge_scope.scope_enter(keys, values)   # marker: a stream scope begins
    torch.ops.ge_scope.scope_exit()                # marker: the innermost scope ends
    torch.ops.ge_scope.wait_tensor(x, dependency)  # an identity of x that waits for dependency
    torch.ops.ge_scope.tagged_event_record(tag)    # TorchAir's explicit events (`tng.ops`):
    torch.ops.ge_scope.tagged_event_wait(tag)      #   markers, and record() -> Tensor,
    torch.ops.ge_scope.wait(tensors)               #   wait(Tensor[])

All are registered as having side effects (`torch.fx.node.has_side_effect`), so dead
code elimination keeps them even when their results are unused (the markers return
nothing; TorchAir code discards the wait's result).  Eagerly the markers do nothing and the
wait returns a copy of `x`; their fake/meta kernels let Dynamo and `make_fx` trace them.
"""

from __future__ import annotations

import torch
from torch.fx.node import has_side_effect

from ge_dialect.frontend.torch_import import SCOPE_NAMESPACE

_lib = torch.library.Library(SCOPE_NAMESPACE, "FRAGMENT")


def _scope_enter(keys: list[str], values: list[str]) -> None:
    return None


def _scope_exit() -> None:
    return None


def _wait_tensor(self: torch.Tensor, dependency: torch.Tensor) -> torch.Tensor:
    return self.clone()


def _wait_tensor_fake(self: torch.Tensor, dependency: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(self)


if not hasattr(getattr(torch.ops, SCOPE_NAMESPACE), "scope_enter"):
    _lib.define("scope_enter(str[] keys, str[] values) -> ()")
    _lib.define("scope_exit() -> ()")
    _lib.define("wait_tensor(Tensor self, Tensor dependency) -> Tensor")
    _lib.impl("scope_enter", _scope_enter, "CompositeExplicitAutograd")
    _lib.impl("scope_exit", _scope_exit, "CompositeExplicitAutograd")
    _lib.impl("wait_tensor", _wait_tensor, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{SCOPE_NAMESPACE}::wait_tensor", _wait_tensor_fake, lib=_lib)
    for _op in ("scope_enter", "scope_exit", "wait_tensor"):
        has_side_effect(getattr(getattr(torch.ops, SCOPE_NAMESPACE), _op).default)


def _record(*, device: torch.device | None = None) -> torch.Tensor:
    return torch.empty(0, device=device)


def _no_op_event(tag: str, created_inside: bool = False) -> None:
    return None


def _wait(x: list[torch.Tensor]) -> None:
    return None


# TorchAir's explicit events (`torchair.ops`): the tagged events and record / wait, with
# TorchAir's schemas; eagerly they do nothing (on the CPU every op is already finished)
if not hasattr(getattr(torch.ops, SCOPE_NAMESPACE), "tagged_event_record"):
    _lib.define("tagged_event_record(str tag, bool created_inside=False) -> ()")
    _lib.define("tagged_event_wait(str tag, bool created_inside=False) -> ()")
    _lib.define("record(*, Device? device=None) -> Tensor")
    _lib.define("wait(Tensor[] x) -> ()")
    _lib.impl("tagged_event_record", _no_op_event, "CompositeExplicitAutograd")
    _lib.impl("tagged_event_wait", _no_op_event, "CompositeExplicitAutograd")
    _lib.impl("record", _record, "CompositeExplicitAutograd")
    _lib.impl("wait", _wait, "CompositeExplicitAutograd")
    for _op in ("tagged_event_record", "tagged_event_wait", "record", "wait"):
        has_side_effect(getattr(getattr(torch.ops, SCOPE_NAMESPACE), _op).default)

scope_enter = getattr(torch.ops, SCOPE_NAMESPACE).scope_enter
scope_exit = getattr(torch.ops, SCOPE_NAMESPACE).scope_exit
wait_tensor = getattr(torch.ops, SCOPE_NAMESPACE).wait_tensor
tagged_event_record = getattr(torch.ops, SCOPE_NAMESPACE).tagged_event_record
tagged_event_wait = getattr(torch.ops, SCOPE_NAMESPACE).tagged_event_wait
record = getattr(torch.ops, SCOPE_NAMESPACE).record
wait = getattr(torch.ops, SCOPE_NAMESPACE).wait
