"""Passes of ge-opt and the pass registry.

Every pass is a `ModulePass` in its own module; `get_all_passes()` maps its name to a lazy
factory, the same shape as `xdsl.transforms.get_all_passes()`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils import arg_spec

from ge_dialect.diagnostics import OptionError
from transforms.options import literal_option_error


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
    from transforms.to_nc1hwc0 import ToNC1HWC0Pass

    return ToNC1HWC0Pass


def _assign_streams() -> type[ModulePass]:
    from transforms.assign_streams import AssignStreamsPass

    return AssignStreamsPass


def parse_pipeline(
    spec: str,
    callback: PassPipelineCallbackType | None = None,
    passes: Mapping[str, Callable[[], type[ModulePass]]] | None = None,
) -> PassPipeline:
    """xDSL's `PassPipeline.parse_spec` on the registry (or `passes`).

    An option value outside its `Literal` choices raises `OptionError` naming the pass and
    the option; an unknown pass or a malformed spec raises what xDSL raises (ValueError,
    ArgSpecParseError).
    """
    available = dict(get_all_passes() if passes is None else passes)
    for pass_spec in arg_spec.parse_pipeline(spec):
        if pass_spec.name not in available:
            continue
        pass_cls = available[pass_spec.name]()
        for option, values in pass_spec.parameters.items():
            value = values[0] if len(values) == 1 else values
            if (message := literal_option_error(pass_cls, option, value)) is not None:
                raise OptionError(message)
    return PassPipeline.parse_spec(available, spec, callback)


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
