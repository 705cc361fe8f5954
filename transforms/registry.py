"""The pass registry: every pass ge-opt can run, built in or added by a plugin, in one table.

    get_all_passes()          -> {name: factory of the pass class}   (xDSL's shape)
    register_pass(PassClass)  -> adds a pass (a pattern pass, a plugin's pass)
    load_plugin("my.py")      -> imports a Python file whose passes register themselves
    parse_pipeline("fuse,assign-streams{mode=auto}")  -> an xDSL PassPipeline

Built-in passes are lazy factories (a pass module is imported when its pass is asked for).
A plugin file is imported once per process; an error while importing it, or raised by its
pass (`plugin_error`), is one line located in the plugin (`plugin.py:LINE: error: ...`),
never a traceback.  The registry remembers, for each registered pass, the plugin file that
registered it (None: registered from Python), so that a name taken twice names its owner.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils import arg_spec

from ge_dialect.utils.errors import GeError
from transforms.options import check_option, describe_options

PassFactory = Callable[[], type[ModulePass]]


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


def _fuse_mlp() -> type[ModulePass]:
    from transforms.fuse_mlp import FuseMlpPass

    return FuseMlpPass


def _fuse_attention() -> type[ModulePass]:
    from transforms.fuse_attention import FuseAttentionPass

    return FuseAttentionPass


def _to_nc1hwc0() -> type[ModulePass]:
    from transforms.to_nc1hwc0 import ToNC1HWC0Pass

    return ToNC1HWC0Pass


def _to_fractal_nz() -> type[ModulePass]:
    from transforms.to_fractal_nz import ToFractalNZPass

    return ToFractalNZPass


def _assign_streams() -> type[ModulePass]:
    from transforms.assign_streams import AssignStreamsPass

    return AssignStreamsPass


def _lower_to_device() -> type[ModulePass]:
    from transforms.lower_to_device import LowerToDevicePass

    return LowerToDevicePass


def _plan_memory() -> type[ModulePass]:
    from transforms.plan_memory import PlanMemoryPass

    return PlanMemoryPass


def _shard() -> type[ModulePass]:
    from transforms.shard import ShardPass

    return ShardPass


def _schedule() -> type[ModulePass]:
    from transforms.schedule import SchedulePass

    return SchedulePass


def _overlap() -> type[ModulePass]:
    from transforms.overlap import OverlapPass

    return OverlapPass


def _apply_pdl() -> type[ModulePass]:
    from transforms.apply_pdl import ApplyPDLFilePass

    return ApplyPDLFilePass


BUILTIN: Mapping[str, PassFactory] = {
    "canonicalize": _canonicalize,
    "cse": _cse,
    "dce": _dce,
    "fuse": _fuse,
    "fuse-attention": _fuse_attention,
    "fuse-mlp": _fuse_mlp,
    "to-nc1hwc0": _to_nc1hwc0,
    "to-fractal-nz": _to_fractal_nz,
    "assign-streams": _assign_streams,
    "lower-to-device": _lower_to_device,
    "plan-memory": _plan_memory,
    "shard": _shard,
    "overlap": _overlap,
    "schedule": _schedule,
    "apply-pdl": _apply_pdl,
}
"""The built-in passes, in the order `get_all_passes` (and ge-opt's help) lists them."""


@dataclass(frozen=True)
class Registered:
    """A pass added to the built-in ones: its class, and the plugin file that registered it
    (as the user gave its path; None when registered from Python)."""

    cls: type[ModulePass]
    plugin: str | None = None


_REGISTERED: dict[str, Registered] = {}
"""Pass name -> what registered it, in registration order."""

_PLUGINS: dict[str, tuple[ModuleType, str]] = {}
"""The plugin files imported in this process, by real path: the module and the path as
first given (which diagnostics show)."""


def register_pass(pass_cls: type[ModulePass]) -> type[ModulePass]:
    """Registers a pass defined outside this package (a pattern pass, a plugin's pass) under
    its `name`, so that `get_all_passes()`, ge-opt's flags and `-p` know it; returns it
    (usable as a class decorator).  A name of a built-in pass is refused (ValueError)."""
    if pass_cls.name in BUILTIN:
        raise ValueError(f"'{pass_cls.name}' is the name of a built-in pass")
    _REGISTERED[pass_cls.name] = Registered(pass_cls)
    return pass_cls


def get_all_passes() -> dict[str, PassFactory]:
    """Pass name -> factory of its class, for every pass ge-opt can run (the built-in ones,
    then those `register_pass` added, in registration order)."""
    passes = dict(BUILTIN)
    for name, registered in _REGISTERED.items():
        passes[name] = lambda cls=registered.cls: cls  # type: ignore[misc]
    return passes


def plugin_passes() -> dict[str, str]:
    """Pass name -> the plugin file (as first given) that registered it."""
    return {name: r.plugin for name, r in _REGISTERED.items() if r.plugin is not None}


# --------------------------------------------------------------------------------------
# Plugins: Python files whose passes register themselves
# --------------------------------------------------------------------------------------


def load_plugin(path: str) -> None:
    """Imports the Python file `path` (once per process), whose passes register themselves
    with `register_pass`.  Raises a one-line `GeError`: `path: error: ...` when it cannot be
    read, `path:line: error: ...` (the innermost line of the plugin) when importing it
    raises, or when it takes the name of a pass another plugin defined."""
    real = os.path.realpath(path)
    if real in _PLUGINS:
        return
    _check_readable(path, real)
    before = dict(_REGISTERED)
    module = _import(path, real)
    _PLUGINS[real] = (module, path)
    for name, registered in list(_REGISTERED.items()):
        old = before.get(name)
        if old is None:
            _REGISTERED[name] = Registered(registered.cls, path)
        elif old.cls is not registered.cls:
            _REGISTERED[name] = old  # the first definition stays
            owner = old.plugin or "another plugin"
            raise GeError(
                f"{path}: error: cannot load patterns: pass '{name}' is already defined by {owner}"
            )


def _check_readable(path: str, real: str) -> None:
    try:
        with open(real, "rb"):
            pass
    except OSError as e:
        raise GeError(f"{path}: error: cannot load patterns: {e.strerror or e}") from None
    except ValueError as e:
        raise GeError(f"{path}: error: cannot load patterns: {e}") from None


def _import(path: str, real: str) -> ModuleType:
    """The plugin's module, imported under a name of its own."""
    name = "ge_opt_plugin_" + hashlib.sha256(real.encode()).hexdigest()[:16]
    loader = importlib.machinery.SourceFileLoader(name, real)
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        loader.exec_module(module)
    except (Exception, SystemExit) as e:
        del sys.modules[name]
        raise GeError(
            f"{_where(e, real, path)}: error: cannot load patterns: {_describe(e)}"
        ) from None
    return module


def plugin_frame(tb: object, files: Sequence[str]) -> tuple[str, int] | None:
    """The innermost frame of traceback `tb` in one of `files` (real paths): (file, line)."""
    found: tuple[str, int] | None = None
    for frame, line in traceback.walk_tb(tb):  # type: ignore[arg-type]
        filename = frame.f_code.co_filename
        if filename in files:
            found = (filename, line)
    return found


def _where(e: BaseException, real: str, path: str) -> str:
    """`path:line` of the innermost frame of `e` in the plugin (`path` without one)."""
    if isinstance(e, SyntaxError) and e.filename == real and e.lineno:
        return f"{path}:{e.lineno}"
    found = plugin_frame(e.__traceback__, [real])
    return f"{path}:{found[1]}" if found else path


def _describe(e: BaseException) -> str:
    """`Type: message` of an exception (`msg` for a SyntaxError, without its place)."""
    message = e.msg if isinstance(e, SyntaxError) else str(e)
    return f"{type(e).__name__}: {message}" if message else type(e).__name__


def plugin_error(e: Exception, pass_name: str) -> GeError | None:
    """A pass failing with `e` (not a diagnostic) in a loaded plugin's code, as one line
    `plugin:line: error: pass 'name' failed: Type: message`; None when no frame of `e` is
    in a plugin (a bug of ge-opt: the traceback shows)."""
    found = plugin_frame(e.__traceback__, list(_PLUGINS))
    if found is None:
        return None
    real, line = found
    shown = _PLUGINS[real][1]
    return GeError(f"{shown}:{line}: error: pass '{pass_name}' failed: {_describe(e)}")


# --------------------------------------------------------------------------------------
# Pipelines and help
# --------------------------------------------------------------------------------------

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
        "tp": "tensor-parallel width (attention heads and MLP, one all-reduce per block)",
        "ep": "expert-parallel width: MoE experts over ep ranks, all-to-all dispatch and combine",
        "pp": "pipeline stages of balanced cost, send/receive between them",
        "micro-batches": "micro-batches per pipeline step (pp > 1): GPipe's schedule, the batch "
        "cut into this many",
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
        "search": "exact: after the heuristic, a branch-and-bound search lowers the peak "
        "towards the stream-aware bound and proves it optimal where it can; none: the "
        "heuristic's placement",
        "budget": "work the exact search may spend per program (deterministic, not time: a "
        "search node costs 1 + its unplaced buffers / 64)",
    },
    "assign-streams": {
        "mode": "labels: ops of one stream.label share a stream, the others run on stream 0; "
        "auto: independent branches run on different streams; single: all on stream 0",
        "max-streams": "auto mode: the most automatic streams, stream 0 included (label "
        "streams and the comm stream do not count); labels and auto mode: the most "
        "sub-streams of each label with inner_parallel = true",
        "report": "print a GE-style allocation summary of each function on stderr",
        "priorities": 'new priorities of user labels, "LABEL:N LABEL:N" (a smaller value is '
        "more urgent), replacing the labels' own",
        "comm-streams": "the comm streams (1 or 2) unlabelled collectives spread over: the "
        "k-th collective of a group goes to comm stream k mod comm-streams",
    },
    "overlap": {
        "chunks": "the row pieces each matmul feeding an all-reduce is cut into (at least 2)",
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
    passes: Mapping[str, PassFactory] | None = None,
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
