"""Passes of ge-opt and the pass registry.

Every pass is a `ModulePass` in its own module; `get_all_passes()` maps its name to a lazy
factory, the same shape as `xdsl.transforms.get_all_passes()`.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _canonicalize() -> type[ModulePass]:
    from xdsl.transforms.canonicalize import CanonicalizePass

    return CanonicalizePass


def _cse() -> type[ModulePass]:
    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )

    return CommonSubexpressionElimination


def _dce() -> type[ModulePass]:
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    return DeadCodeElimination


def _fuse() -> type[ModulePass]:
    from transforms.fuse import FusePass

    return FusePass


def _to_nc1hwc0() -> type[ModulePass]:
    from transforms.layout import ToNC1HWC0Pass

    return ToNC1HWC0Pass


def _assign_streams() -> type[ModulePass]:
    from transforms.assign_streams import AssignStreamsPass

    return AssignStreamsPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory of its class, for every pass ge-opt can run."""
    return {
        "canonicalize": _canonicalize,
        "cse": _cse,
        "dce": _dce,
        "fuse": _fuse,
        "to-nc1hwc0": _to_nc1hwc0,
        "assign-streams": _assign_streams,
    }
