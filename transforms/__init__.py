"""Passes of ge-opt and the pass registry.

Every pass is a `ModulePass` in its own module; `get_all_passes()` maps its name to a lazy
factory, the same shape as `xdsl.transforms.get_all_passes()`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils import arg_spec

from transforms.options import check_option, describe_options


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


def _lower_to_device() -> type[ModulePass]:
    from transforms.lower_to_device import LowerToDevicePass

    return LowerToDevicePass


def _shard() -> type[ModulePass]:
    from transforms.shard import ShardPass

    return ShardPass


def _plan_memory() -> type[ModulePass]:
    from transforms.plan_memory import PlanMemoryPass

    return PlanMemoryPass


PASS_HELP: dict[str, str] = {
    "cse": "Eliminates common subexpressions (xDSL's pass).",
    "dce": "Removes dead code (xDSL's pass).",
}
"""Help of passes without a docstring (xDSL's); any other pass's is its docstring's first line."""

OPTION_HELP: dict[str, dict[str, str]] = {
    "shard": {
        "ranks": "the number of ranks: one function per rank",
        "mode": "tensor: Megatron's column- then row-parallel MatMul chains with an "
        "all-reduce; data: inputs split along their batch, outputs all-gathered",
    },
    "to-nc1hwc0": {
        "boundary": "keep: function arguments and results keep their layout; nc1hwc0: they "
        "take the layout the cut chooses (a function called in the module keeps its own)",
        "fp32-c0": "the C0 of the fp32 NC1HWC0 and FRACTAL_Z values the pass creates",
    },
    "plan-memory": {
        "alignment": "bytes every buffer's size and offset are rounded to (GE: 512)",
        "in-place": "let an elementwise launch write into its input's bytes where that input "
        "dies there and no other stream still reads it",
    },
    "assign-streams": {
        "mode": "labels: ops of one stream.label share a stream, the others run on stream 0; "
        "auto: independent branches run on different streams; single: all on stream 0",
        "max-streams": "auto mode: the most automatic streams, stream 0 included (label "
        "streams and the comm stream do not count), and the most sub-streams of each label "
        "with inner_parallel = true",
        "report": "print a GE-style allocation summary of each function on stderr",
    },
}
"""Help of pass options, by pass and option name, for passes whose fields carry none (an
option's `dataclasses.field(metadata={"help": ...})` comes first; see `describe_pass`).
`test_cli_habits` checks that every option of every registered pass has help."""


def describe_pass(name: str, pass_cls: type[ModulePass]) -> str:
    """The help of pass `name`: its first docstring line, then one line per option."""
    doc = PASS_HELP.get(name) or (pass_cls.__doc__ or "").strip().split("\n")[0]
    options = describe_options(pass_cls, OPTION_HELP.get(name, {}))
    return "\n".join([doc, *(f"  {line}" for line in options)])


def parse_pipeline(
    spec: str,
    callback: PassPipelineCallbackType | None = None,
    passes: Mapping[str, Callable[[], type[ModulePass]]] | None = None,
) -> PassPipeline:
    """A pipeline in xDSL's syntax (`"fuse,assign-streams{mode=auto report}"`) on the
    registry (or `passes`), built by xDSL's `from_pass_spec`.

    Options are checked first (`transforms.options.check_option`): a bad one raises
    `OptionError` naming the pass, the option and what it expects; a bare word of a boolean
    option means true, as in MLIR.  An unknown pass raises ValueError and a malformed spec
    ArgSpecParseError, as in xDSL.
    """
    available = dict(get_all_passes() if passes is None else passes)
    specs = list(arg_spec.parse_pipeline(spec))
    if unknown := [s.name for s in specs if s.name not in available]:
        raise ValueError(f"Unrecognized passes: {unknown}")
    built: list[ModulePass] = []
    for pass_spec in specs:
        pass_cls = available[pass_spec.name]()
        parameters = {
            option: check_option(pass_cls, option, values)
            for option, values in pass_spec.parameters.items()
        }
        built.append(pass_cls.from_pass_spec(arg_spec.ArgSpec(pass_spec.name, parameters)))
    return PassPipeline(tuple(built), callback)


_PLUGIN_PASSES: dict[str, type[ModulePass]] = {}


def register_pass(pass_cls: type[ModulePass]) -> type[ModulePass]:
    """Registers a pass defined outside this package (a pattern pass, a plugin's pass) under
    its `name`, so that `get_all_passes()`, ge-opt's flags and `-p` know it; returns it
    (usable as a class decorator).  A name of a built-in pass is refused (ValueError)."""
    if pass_cls.name in _builtin_passes():
        raise ValueError(f"'{pass_cls.name}' is the name of a built-in pass")
    _PLUGIN_PASSES[pass_cls.name] = pass_cls
    return pass_cls


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory of its class, for every pass ge-opt can run (the built-in ones,
    then those `register_pass` added, in registration order)."""
    passes = _builtin_passes()
    for name, cls in _PLUGIN_PASSES.items():
        passes[name] = lambda cls=cls: cls  # type: ignore[misc]
    return passes


def _builtin_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        "canonicalize": _canonicalize,
        "cse": _cse,
        "dce": _dce,
        "fuse": _fuse,
        "to-nc1hwc0": _to_nc1hwc0,
        "assign-streams": _assign_streams,
        "lower-to-device": _lower_to_device,
        "plan-memory": _plan_memory,
        "shard": _shard,
    }
