"""The Python API: load a graph, compile it with a pipeline, verify it, prepare it for output.

    from ge_dialect import api

    module = api.load("examples/resnet_block.mlir")   # or a .onnx file, with input_shapes
    api.compile(module, "fuse,to-nc1hwc0,assign-streams{mode=auto}")
    print(module)

ge-opt is a thin driver over these functions.  No function here prints.  A user's mistake
raises `GeError`, whose `str()` is one finished diagnostic (`file:line:col: error: ...`); a
parse error is a `LocatedParseError`, both a `GeError` and xDSL's `ParseError`.  Reports a
pass records (say, `assign-streams{report=true}`'s summary) stay on the module:
`transforms.reports.take(module)` returns them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from io import StringIO
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException

from ge_dialect.ir.dialects import ge
from ge_dialect.ir.parser import is_blank, parse
from ge_dialect.ir.registry import make_context
from ge_dialect.ir.verify import verify_module
from ge_dialect.ir.weights import (
    ExternalWriter,
    elide,
    externalize,
    has_elided,
    rebase_external_paths,
)
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.floats import ExactPrinter, ExactSyntaxPrinter
from ge_dialect.utils.gc_pause import gc_paused
from ge_dialect.utils.textfile import decode, read_text
from ge_dialect.utils.tolerance import max_error, within_tolerance

if TYPE_CHECKING:  # the simulator loads on first use: ge-opt never needs it
    from ge_dialect.sim.profile import DeviceProfile
    from ge_dialect.sim.program import Program
    from ge_dialect.sim.run import RanksResult, SimResult


def __getattr__(name: str) -> Any:
    """`api.SimResult` and `api.RanksResult` (the results of `simulate` and
    `simulate_ranks`), loaded with the simulator on first use."""
    if name in ("SimResult", "RanksResult"):
        from ge_dialect.sim import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


HCCL_ALGORITHMS = ("ring", "mesh", "double-binary-tree", "halving-doubling")
"""The algorithms `simulate_ranks(hccl_algo=...)` may force (`sim.topology`'s list, kept
here so that the tools need not import the simulator to list them)."""

DEFAULT_PIPELINE = "canonicalize,cse,fuse,fuse-attention,fuse-mlp,to-nc1hwc0,assign-streams"
"""The optimisation part of the pipeline (lowering and planning follow): what
`compile(module)` runs."""

FRONTENDS = ("mlir", "onnx")
"""The input formats `load` reads (`frontend=`): MLIR text, ONNX models."""


def load(
    path_or_model: str | os.PathLike[str] | bytes | Any,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    frontend: str | None = None,
    ctx: Context | None = None,
    example_inputs: Sequence[Any] | None = None,
) -> ModuleOp:
    """Loads a graph: an MLIR or ONNX file, serialized ONNX bytes or an `onnx.ModelProto`,
    or a PyTorch module (`torch.nn.Module`).

    A path ending in `.onnx` is an ONNX model, any other path MLIR text, unless
    `frontend` ("mlir" or "onnx") says otherwise.  `input_shapes` binds the dims of ONNX
    graph inputs (`{"x": [1, 3, 224, 224]}`).  The directory of a file is recorded for
    its external constant data.  The module is verified (ONNX imports always are; MLIR
    text is verified here).  A PyTorch module is exported on `example_inputs` (or on f32
    zeros of `input_shapes`, by `forward`'s parameter names) by
    `ge_dialect.frontend.torch_import.import_torch`.
    """
    if _is_torch_module(path_or_model):
        return _import_torch(path_or_model, input_shapes, example_inputs)
    if example_inputs is not None:
        raise ValueError("example_inputs applies to PyTorch modules only")
    if frontend is not None and frontend not in FRONTENDS:
        raise ValueError(f"unknown frontend '{frontend}', expected one of {', '.join(FRONTENDS)}")
    if not isinstance(path_or_model, str | os.PathLike):
        frontend = frontend or "onnx"
        if frontend != "onnx":
            raise ValueError("only ONNX models can be loaded from bytes or a ModelProto")
        return _import_onnx(path_or_model, input_shapes, None)
    path = os.fspath(path_or_model)
    if frontend is None:
        frontend = "onnx" if path.lower().endswith(".onnx") else "mlir"
    if frontend == "onnx":
        return _import_onnx(path, input_shapes, os.path.dirname(path))
    if input_shapes:
        raise ValueError("input_shapes applies to ONNX models only")
    module = parse(read_text(path), path, ctx=ctx, data_dir=os.path.dirname(path))
    verify(module, path)
    return module


def _import_onnx(
    model: object, input_shapes: Mapping[str, Sequence[int]] | None, data_dir: str | None
) -> ModuleOp:
    from ge_dialect.frontend import import_onnx

    with gc_paused():  # (as `compile`: no full collection scans the module meanwhile)
        module = import_onnx(model, input_shapes)
    if data_dir is not None:
        ge.set_data_dir(module, data_dir)
    return module


def _is_torch_module(model: object) -> bool:
    """Whether `model` is a `torch.nn.Module` (without importing torch)."""
    return any(
        c.__module__ == "torch.nn.modules.module" and c.__name__ == "Module"
        for c in type(model).__mro__
    )


def _import_torch(
    model: Any,
    input_shapes: Mapping[str, Sequence[int]] | None,
    example_inputs: Sequence[Any] | None,
) -> ModuleOp:
    import inspect

    import torch

    from ge_dialect.frontend.torch_import import import_torch

    if example_inputs is None:
        if input_shapes is None:
            raise ValueError("a PyTorch module needs example_inputs or input_shapes")
        names = [
            p.name
            for p in inspect.signature(model.forward).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if missing := [n for n in names if n not in input_shapes]:
            raise ValueError(f"input_shapes has no shape for '{missing[0]}'")
        example_inputs = [torch.zeros(*input_shapes[n]) for n in names]
    return import_torch(model, tuple(example_inputs))


def verify(module: ModuleOp, name: str = "<unknown>") -> None:
    """Verifies `module`: op verifiers (innermost first), SSA dominance, stream rules.

    Raises a `GeError` located at the first op that breaks a rule (`name` where an op has
    no location).
    """
    verify_module(module, name)


def compile(
    module: ModuleOp,
    pipeline: str | Sequence[ModulePass] | PassPipeline | None = None,
    *,
    ctx: Context | None = None,
    name: str = "<unknown>",
    verify: bool = True,
) -> ModuleOp:
    """Runs a pass pipeline on `module` in place and returns it.

    `pipeline` is a pipeline in xDSL's syntax (`"canonicalize,fuse,assign-streams{mode=auto}"`;
    None runs `DEFAULT_PIPELINE`), a sequence of passes, or a ready `PassPipeline`.
    The module is verified first and after every pass (`verify=False` skips it), except
    that a ready `PassPipeline` runs as built: its callback runs between its passes, and
    verification after each pass is up to it (ge-opt's callback calls `verify`).  A bad
    pipeline string raises `ValueError`; an error in a pass raises a `GeError` (`name`
    locates errors that carry no location of their own).

    Python's cyclic garbage collector is paused while the passes run (`gc_paused`): a
    full collection scans every object of the process, the module's included (on a graph
    of 1,300 nodes one took a quarter of `fuse`'s time); the garbage the passes leave (erased ops)
    is collected after them, on the collector's usual schedule.
    """
    if not isinstance(pipeline, PassPipeline):
        passes = _passes(DEFAULT_PIPELINE if pipeline is None else pipeline)

        def check(previous: ModulePass | None, op: ModuleOp, _next: ModulePass | None) -> None:
            if verify and previous is not None:
                verify_module(op, name)

        pipeline = PassPipeline(passes, check)
    if verify:
        verify_module(module, name)
    try:
        with gc_paused():
            pipeline.apply(ctx or make_context(), module)
    except GeError:
        raise
    except DiagnosticException as e:
        raise GeError(f"{name}: error: {str(e).strip()}") from None
    return module


def random_inputs(program: Program, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded inputs for `program`: floats ~ U(-1, 1), integers in [0, 2) (valid indices
    and 0/1 masks), booleans fair, drawn in argument order."""
    from ge_dialect.sim import run

    return run.random_inputs(run.input_shapes(program), seed)


def check_inputs(program: Program, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """`inputs` as arrays of each input's logical shape and dtype; a missing, unknown,
    misshapen or ill-typed entry is a `GeError` naming it."""
    from ge_dialect.sim import run

    return run.checked_inputs(run.input_shapes(program), inputs)


def is_device_program(module: Operation) -> bool:
    """Whether `module` holds an `npu` program (what `lower-to-device` makes)."""
    return any(op.attributes.get("npu.program") is not None for op in module.walk())


def device_program(module: ModuleOp, function: str | None = None) -> Program:
    """The `npu` program of `module` (a module after `lower-to-device`; its first program,
    or the one called `function`) read into the simulator's form, to `simulate` many
    times: the weights are read once, and kernels keep what they derive from them."""
    from ge_dialect.sim.program import find_program, read_program

    return read_program(find_program(module, function))


def simulate(
    program: ModuleOp | Program,
    inputs: Mapping[str, Any] | None = None,
    *,
    profile: DeviceProfile | str | None = None,
    timing_only: bool = False,
    function: str | None = None,
    seed: int = 0,
    check: bool = True,
) -> SimResult:
    """Runs an `npu` program on the simulated NPU: its timeline on `profile` and, unless
    `timing_only`, its numbers (the kernels run in the simulated start order).  With `check`
    (also with `timing_only`) the memory checker replays the start order: its findings (races:
    RAW, WAR, WAW not ordered by streams and events; clobbers: a read that sees another
    value's bytes under the memory plan; reads of bytes nothing wrote) are in
    `SimResult.findings`; they are
    not raised (callers decide: ge-run prints them and exits 1).

    `program` is a module after `lower-to-device` (its first program, or the one called
    `function`) or what `device_program` read from one.  `profile` is a `DeviceProfile`,
    the path of a profile JSON, or None for the default (an Ascend 910-class part).
    `inputs` maps input names to logical arrays; None draws seeded random ones
    (`random_inputs`).  A missing or misshapen input, a bad profile, elided weights, or a
    program that deadlocks raise a `GeError` (a deadlock: `SimulationError`, with its
    findings).  The run itself is `sim.run.run_program`.
    """
    from ge_dialect.sim import run

    read = device_program(program, function) if isinstance(program, ModuleOp) else program
    device = _profile(profile)
    run.check_capacity(read, device)  # before drawing inputs the device could not hold
    values = random_inputs(read, seed) if inputs is None else check_inputs(read, inputs)
    return run.run_program(read, values, device, timing_only=timing_only, check=check)


def _profile(profile: DeviceProfile | str | None) -> DeviceProfile:
    from ge_dialect.sim.profile import DeviceProfile, load_profile

    return profile if isinstance(profile, DeviceProfile) else load_profile(profile)


def rank_programs(module: ModuleOp) -> list[tuple[Program, dict[str, Any]]]:
    """The rank programs of `module` (after `shard` and `lower-to-device`), by rank, each
    with its `ge.shard` attribute as a dict (`rank`, `ranks`, `mode`, `split`: input name
    -> the dim split over ranks); a module without `ge.shard` programs gives its programs
    in order, every input replicated."""
    from xdsl.dialects import func

    from ge_dialect.sim.program import python_value, read_program

    found = []
    for op in module.walk():
        if isinstance(op, func.FuncOp) and "npu.program" in op.attributes:
            shard = op.attributes.get("ge.shard")
            info = python_value(shard) if shard is not None else {}
            found.append((read_program(op), info if isinstance(info, dict) else {}))
    if not found:
        raise GeError("error: the module has no npu program (run --lower-to-device first)")
    if any("rank" in info for _, info in found):
        found = [f for f in found if "rank" in f[1]]
        found.sort(key=lambda f: int(f[1]["rank"]))
        ranks = [int(info["rank"]) for _, info in found]
        if ranks != list(range(len(found))):
            raise GeError(f"error: the module's rank programs are ranks {ranks}, not 0..N-1")
    return found


def simulate_ranks(
    program: ModuleOp | Sequence[Program],
    inputs: Mapping[str, Any] | None = None,
    *,
    topology: Any = None,
    profile: DeviceProfile | str | None = None,
    timing_only: bool = False,
    seed: int = 0,
    check: bool = True,
    splits: Mapping[str, int] | None = None,
    hccl_algo: str | None = None,
) -> RanksResult:
    """Runs rank programs together on the simulated cluster: every rank on its own device
    of `topology` (a `Topology`, a topology JSON path, or None: the shipped 8-NPU server up
    to 8 ranks, the 2-server cluster above), all in one event loop; collectives meet across
    ranks at HCCL's cost and compute what the real ones would (`sim.run.run_ranks`).

    `program` is a module after `shard` and `lower-to-device` (`rank_programs`), or rank
    programs in rank order (`splits`: input name -> split dim, replicated otherwise).
    `inputs` are the whole model's (rank r gets its slice of a split input); None draws
    seeded random ones.  Errors as `simulate`'s; a topology with too few devices, or
    collectives that do not match across ranks, are `GeError`s.  Pipeline stages (`stage`,
    `micro_batches` of `ge.shard`) add the bubble to the report.  `hccl_algo` forces an
    algorithm on the collectives it has a formula for (`Topology.hccl_algo`, as HCCL_ALGO)."""
    from ge_dialect.sim import run
    from ge_dialect.sim.topology import (
        FORCED_ALGORITHMS,
        Topology,
        default_topology,
        load_topology,
    )

    if isinstance(program, ModuleOp):
        found = rank_programs(program)
        programs = [p for p, _ in found]
        split = {str(k): int(v) for k, v in found[0][1].get("split", {}).items()}
        parts = [
            (int(info.get("part", r)), int(info.get("parts", len(found))))
            for r, (_, info) in enumerate(found)
        ]
        pipelined = int(found[0][1].get("pp", 1)) > 1
        stages = [int(info.get("stage", 0)) for _, info in found] if pipelined else None
        micro_batches = int(found[0][1].get("micro_batches", 1))
    else:
        programs = list(program)
        split = dict(splits or {})
        parts, stages, micro_batches = None, None, 1
    if isinstance(topology, Topology):
        topo = topology
    else:
        topo = default_topology(len(programs)) if topology is None else load_topology(topology)
    if hccl_algo is not None:
        if hccl_algo not in FORCED_ALGORITHMS:
            raise GeError(
                f"error: unknown HCCL algorithm '{hccl_algo}' "
                f"(choose {', '.join(FORCED_ALGORITHMS)})"
            )
        topo = dataclasses.replace(topo, hccl_algo=hccl_algo)
    return run.run_ranks(
        programs,
        split,
        inputs,
        _profile(profile),
        topo,
        timing_only=timing_only,
        check=check,
        seed=seed,
        parts=parts,
        stages=stages,
        micro_batches=micro_batches,
    )


def package(
    result: RanksResult,
    module: ModuleOp,
    *,
    topology: str | os.PathLike[str] | None = None,
    profile: str | os.PathLike[str] | None = None,
) -> dict[str, bytes]:
    """The per-rank package of a multi-rank run (`sim.package`: relative path -> bytes):
    `result` of `simulate_ranks` on `module` (its rank programs, printed with their
    locations), with copies of the topology and profile files it ran on (None: the
    defaults)."""
    from ge_dialect.sim.package import package_files
    from ge_dialect.sim.profile import DEFAULT_PROFILE, load_profile
    from ge_dialect.sim.topology import default_topology_path

    functions = _rank_functions(module)
    texts = [print_module(ModuleOp([fn.clone()]), debuginfo=True) for fn in functions]
    topology_file = os.fspath(topology) if topology is not None else None
    topology_file = topology_file or default_topology_path(len(functions))
    profile_file = os.fspath(profile) if profile is not None else DEFAULT_PROFILE
    return package_files(
        [run.program for run in result.ranks],
        texts,
        [run.timeline for run in result.ranks],
        (result.topology.name, read_text(topology_file, "topology")),
        (load_profile(profile_file).name, read_text(profile_file, "profile")),
    )


def _rank_functions(module: ModuleOp) -> list[Any]:
    """The npu programs of `module` in the order `rank_programs` gives them."""
    from xdsl.dialects import func

    from ge_dialect.sim.program import python_value

    found = [
        op for op in module.walk() if isinstance(op, func.FuncOp) and "npu.program" in op.attributes
    ]

    def rank(fn: Any) -> int:
        info = python_value(fn.attributes["ge.shard"]) if "ge.shard" in fn.attributes else {}
        return int(info.get("rank", 0)) if isinstance(info, dict) else 0

    if any("ge.shard" in fn.attributes for fn in found):
        found = sorted((fn for fn in found if "ge.shard" in fn.attributes), key=rank)
    return found


def write_package(directory: str, files: Mapping[str, bytes]) -> None:
    """Writes a package's `files` as the directory `directory`, renamed into place."""
    from ge_dialect.sim.package import write_package as write

    write(directory, files)


def load_package(directory: str, ctx: Context | None = None) -> tuple[ModuleOp, str, str]:
    """The package `directory` (`sim.package`): one module holding its rank programs (each
    parsed from its file, keeping its locations) and the paths of its topology and profile
    files.  A bad manifest or program is a located `GeError`."""
    from ge_dialect.sim.package import read_manifest

    manifest = read_manifest(directory)
    module = ModuleOp([])
    for path in manifest.programs:
        rank_module = parse(read_text(path), path, ctx=ctx, data_dir=os.path.dirname(path))
        verify(rank_module, path)
        if not is_device_program(rank_module):
            raise GeError(f"{path}: error: not an npu program (a package holds lowered programs)")
        for op in list(rank_module.body.block.ops):
            op.detach()
            module.body.block.add_op(op)
    return module, manifest.topology, manifest.profile


def trace(results: SimResult | Sequence[SimResult]) -> dict[str, Any]:
    """The Chrome/Perfetto trace (a JSON object) of one run, or of several (one process per
    rank): a thread per stream, kernels as complete events, record -> wait flow arrows."""
    from ge_dialect.sim.run import RanksResult, SimResult
    from ge_dialect.sim.trace import chrome_trace

    if isinstance(results, RanksResult):
        results = results.ranks
    runs = [results] if isinstance(results, SimResult) else list(results)
    return chrome_trace([r.timeline for r in runs])


def draw_timeline(result: SimResult, path: str, title: str | None = None) -> None:
    """Draws `result`'s timeline as a PNG at `path` (needs matplotlib; a `GeError` without
    it or when `path` cannot be written)."""
    from ge_dialect.sim.trace import timeline_png

    timeline_png(result.timeline, path, title)


def tune(
    model: ModuleOp | str | os.PathLike[str],
    *,
    input_shapes: Mapping[str, Sequence[int | None]] | None = None,
    dim_sizes: Mapping[tuple[str, int], Sequence[int]] | None = None,
    max_gears: int = 4,
    **options: Any,
) -> Any:
    """Tunes `model`'s pass settings on the simulator (a module, or what `load` takes,
    with `input_shapes`): `ge_dialect.tune.study.tune`'s options (`trials`, `objective`,
    `storage`, ...); returns its `TuneResult`.  With `dim_sizes` ({(input, dim): the sizes
    calls take there}, for the `None` dims of `input_shapes`) each trial also chooses its
    dimension gears, at most `max_gears`.  Needs Optuna (the `tune` extra), imported only
    here."""
    from ge_dialect.tune.evaluate import load_graph
    from ge_dialect.tune.study import tune as run_study

    return run_study(load_graph(model, input_shapes, dim_sizes, max_gears), **options)


def reference(
    module: ModuleOp, inputs: Mapping[str, Any], *, function: str | None = None
) -> dict[str, np.ndarray]:
    """The outputs of the `ge` function of `module` (before lowering) on logical `inputs`
    (by input name), computed by the reference interpreter, by output name."""
    from ge_dialect.ir.interpreter import find_function, io_names, run_function

    fn = find_function(module, function)
    in_names, out_names = io_names(fn)
    if missing := [n for n in in_names if n not in inputs]:
        raise GeError(f"error: missing input '{missing[0]}'")
    outputs = run_function(module, [np.asarray(inputs[n]) for n in in_names], function)
    return dict(zip(out_names, outputs, strict=True))


def onnxruntime_outputs(
    model: str | bytes | Any, inputs: Mapping[str, Any]
) -> dict[str, np.ndarray]:
    """The outputs of an ONNX model (a path, serialized bytes or a ModelProto) computed by
    onnxruntime on one thread, by output name.  A `GeError` when onnxruntime is missing."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise GeError("error: onnxruntime is not installed (pip install onnxruntime)") from None
    if not isinstance(model, str | bytes):
        model = model.SerializeToString()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    feeds = {i.name: np.asarray(inputs[i.name]) for i in session.get_inputs()}
    return dict(zip(names, session.run(names, feeds), strict=True))


def print_module(
    module: Operation,
    generic: bool = False,
    *,
    properties_as_attributes: bool = False,
    debuginfo: bool = False,
    syntax_highlight: bool = False,
    ctx: Context | None = None,
) -> str:
    """`module` as MLIR text (the custom form, or the generic one), as ge-opt prints it.

    Unlike `str(module)`, every float constant re-parses to the same bits, in `parse`,
    in xDSL's parser and in upstream MLIR (in both forms; `ge.const`'s custom form is exact
    on any printer): finite elements are decimals with a ".", and an attribute holding
    inf or NaN prints as the hex string of its bytes.  The other flags are xDSL's printer
    options.  Resources (`dense_resource`) print after the module, found through the
    dialects loaded in `ctx` (builtin's without it).
    """
    out = StringIO()
    printer_class = ExactSyntaxPrinter if syntax_highlight else ExactPrinter
    printer = printer_class(
        stream=out,
        print_generic_format=generic,
        print_properties_as_attributes=properties_as_attributes,
        print_debuginfo=debuginfo,
    )
    printer.print_op(module)
    printer.print_metadata(ctx.loaded_dialects if ctx is not None else [Builtin])
    return out.getvalue()


def print_graph_def(module: Operation, name: str = "<unknown>", controls: str = "^") -> str:
    """`module`'s function as GE's `GraphDef` in protobuf text format, what TorchAir hands
    GE (`ge_dialect.ir.ge_pbtxt`), control inputs spelt `^src` or `src:-1` (`controls`); a
    module without exactly one function is a `GeError` located in `name`."""
    from ge_dialect.ir.ge_pbtxt import print_graph_def as graph_def

    return graph_def(module, name, ":-1" if controls == ":-1" else "^")


def _passes(pipeline: str | Sequence[ModulePass]) -> tuple[ModulePass, ...]:
    if not isinstance(pipeline, str):
        return tuple(pipeline)
    from transforms import parse_pipeline

    try:
        return parse_pipeline(pipeline).passes
    except ArgSpecParseError as e:  # a BaseException: turn it into an ordinary error
        raise ValueError(str(e)) from None


def open_external_writer(path: str, out_dir: str) -> ExternalWriter:
    """An `ExternalWriter` appending to the external data file `path` for IR in `out_dir`.

    The file replaces `path` only on `close(commit=True)`.  A `GeError` if it cannot be
    created.
    """
    try:
        return ExternalWriter(path, out_dir)
    except OSError as e:
        raise GeError(f"{path}: error: cannot write external data: {e.strerror}") from None


__all__ = [
    "DEFAULT_PIPELINE",
    "HCCL_ALGORITHMS",
    "FRONTENDS",
    "ExternalWriter",
    "RanksResult",
    "SimResult",
    "compile",
    "max_error",
    "onnxruntime_outputs",
    "reference",
    "simulate",
    "simulate_ranks",
    "rank_programs",
    "package",
    "write_package",
    "load_package",
    "trace",
    "tune",
    "within_tolerance",
    "decode",
    "device_program",
    "draw_timeline",
    "elide",
    "externalize",
    "has_elided",
    "is_blank",
    "is_device_program",
    "load",
    "open_external_writer",
    "parse",
    "print_graph_def",
    "print_module",
    "read_text",
    "rebase_external_paths",
    "verify",
]
