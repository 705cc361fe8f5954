"""`get_npu_backend`: a `torch.compile` backend that runs graphs on the simulated NPU.

    from ge_dialect import torchair as tng
    backend = tng.get_npu_backend(compiler_config=tng.CompilerConfig())
    model = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    outputs = model(*inputs)              # torch tensors, computed by the simulator
    backend.last_result.timeline          # the last run's `api.SimResult`

For each graph Dynamo captures, the backend returns a callable that compiles on its first
call with a given signature (the shapes and dtypes of the graph's inputs) and reuses the
compiled program for every later call with that signature (an LRU cache of
`program_cache_size` programs; with `dynamic=True` the signature holds the SymInts' values,
and inputs with `dim_gears` compile every gear at the first call: `_NpuGraph`; a dynamic
graph runs on one stream per label unless `ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1`:
`_run_pipeline`).  Compiling traces Dynamo's graph
to functional ATen with `make_fx` (inference: under `no_grad`, the model's eager kernels run
once; `x += y` becomes an add, and a graph that writes one of its inputs in place is refused),
converts it to `ge` IR (`ge_dialect.frontend.torch_import.FxConverter`: stream scopes and
waits included), runs `DEFAULT_PIPELINE` (or `compiler_config.pipeline`) then
`lower-to-device,plan-memory`, and reads the device program once.  Parameters and buffers
are frozen into the graph as constants at compilation (as TorchAir's `frozen_parameter`).
Each call simulates the program (`api.simulate`) and returns the outputs as torch tensors of
eager's dtype and shape.  An op that cannot be converted raises one `GeError` at
compilation (the first call), naming the op and the model's source line; nothing runs.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import os
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.fx
import torch.utils._pytree as pytree
from torch._subclasses.functional_tensor import FunctionalTensor, FunctionalTensorMode
from torch.fx import traceback as fx_traceback
from torch.fx.experimental.proxy_tensor import make_fx
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, StringAttr
from xdsl.passes import ModulePass, PassPipeline
from xdsl.rewriter import Rewriter

from ge_dialect import api
from ge_dialect.frontend.builder import NAME
from ge_dialect.frontend.torch_import import Converted, FxConverter, to_numpy
from ge_dialect.ir.dialects import stream
from ge_dialect.torchair.configs.compiler_config import GRAPH_DEF_DUMP_TYPES, CompilerConfig
from ge_dialect.torchair.inference import GearPlan
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.files import replace_file
from ge_dialect.utils.scope_attrs import DATA_DUMP

__all__ = ["CompiledGraph", "NpuBackend", "get_compiler", "get_npu_backend"]

DEVICE_PASSES = "lower-to-device,plan-memory"

DYNAMIC_MULTI_STREAM = "ENABLE_DYNAMIC_SHAPE_MULTI_STREAM"
"""The environment variable (TorchAir's, CANN's) that lets a dynamic graph use several
streams beyond its labels: "1" on; read at compilation."""

_dump_ids = itertools.count()
_data_dump_ids = itertools.count()


@dataclass
class CompiledGraph:
    """One graph compiled for one input signature: its IR, program and I/O names."""

    signature: tuple
    module: ModuleOp
    program: Any  # ge_dialect.sim.program.Program
    inputs: list[str]
    outputs: list[str]
    output_dtypes: list[torch.dtype | None]
    runtime_args: list[int]  # which call arguments feed `inputs`, in order
    dump_dir: str | None = None
    runs: int = 0
    data_dumps: dict[str, str] = field(default_factory=dict)
    """`tng.scope.data_dump`'s values: key in the `.npz` -> the extra output holding it."""
    data_dump_dir: str | None = None


@dataclass
class NpuBackend:
    """The backend `get_npu_backend` returns: call it as Dynamo does, `(gm, example_inputs)`.

    `compilations` counts programs compiled (one per graph and input signature);
    `graphs` holds those kept (an evicted program leaves it); `last_result` is the
    `api.SimResult` of the latest call.  `cache_hits` / `cache_misses` count calls that
    found their program compiled or not.  With `inference_config.pad_to_gear`,
    `last_padding` is the fraction of rows the latest gear call padded, and
    `padding_waste` that fraction over all gear calls so far.
    """

    config: CompilerConfig = field(default_factory=CompilerConfig)
    compilations: int = 0
    graphs: list[CompiledGraph] = field(default_factory=list)
    last_result: api.SimResult | None = None
    cache_hits: int = 0
    cache_misses: int = 0
    last_padding: float = 0.0
    gear_rows: int = 0
    padded_rows: int = 0

    @property
    def padding_waste(self) -> float:
        """The fraction of the rows run by gear programs that were padding."""
        return self.padded_rows / self.gear_rows if self.gear_rows else 0.0

    def __repr__(self) -> str:
        text = (
            f"npu_backend(compilations={self.compilations}, cache_hits={self.cache_hits}, "
            f"cache_misses={self.cache_misses}"
        )
        if self.padded_rows:
            text += f", padding_waste={self.padding_waste:.3f}"
        return text + ")"

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> Any:
        return _NpuGraph(self, gm, example_inputs)


class _NpuGraph:
    """What the backend hands Dynamo for one FX graph: compiles per input signature.

    With `dynamic=True` Dynamo's graph has symbolic sizes and SymInt inputs; each call
    brings concrete ones, and the signature (tensor shapes and dtypes, the SymInts'
    values) picks one static program from an LRU cache of `config.program_cache_size`.
    Inputs with `dim_gears` (`ge_dialect.torchair.inference`) compile every gear at the
    first call, kept outside the LRU cache."""

    def __init__(self, backend: NpuBackend, gm: torch.fx.GraphModule, example_inputs: Sequence):
        self.backend = backend
        self.gm = gm
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.frozen = {
            i
            for i, (node, value) in enumerate(zip(placeholders, example_inputs, strict=False))
            if _is_parameter(node, value)
        }
        self.input_names = _unique([_input_name(n) for n in placeholders])
        output = next(n for n in gm.graph.nodes if n.op == "output")
        flat_outputs = _flatten(output.args[0])
        self.output_names = [a.name if isinstance(a, torch.fx.Node) else "" for a in flat_outputs]
        self.dynamic = any(_is_symbolic(n.meta.get("example_value")) for n in placeholders)
        self.cache: OrderedDict[tuple, CompiledGraph] = OrderedDict()
        self.gear_programs: dict[tuple, CompiledGraph] = {}
        inference = backend.config.inference_config
        self.gears = GearPlan.read(
            placeholders,
            example_inputs,
            self.input_names,
            flat_outputs,
            inference.dynamic_gears_merge_policy,
            inference.pad_to_gear,
        )

    def _signature(self, args: Sequence[Any]) -> tuple:
        return tuple(
            (tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else ("value", repr(a))
            for i, a in enumerate(args)
            if i not in self.frozen
        )

    def __call__(self, *args: Any) -> Any:
        if self.gears is not None:
            return self._call_gear(args)
        signature = self._signature(args)
        graph = self.cache.get(signature)
        if graph is None:
            self.backend.cache_misses += 1
            graph = self._compile(args, signature)
            self.cache[signature] = graph
            if len(self.cache) > self.backend.config.program_cache_size:
                _, evicted = self.cache.popitem(last=False)
                self.backend.graphs.remove(evicted)
        else:
            self.backend.cache_hits += 1
            self.cache.move_to_end(signature)
        return self._run(graph, args)

    def _call_gear(self, args: Sequence[Any]) -> Any:
        """A call of a graph with gears: every gear compiled at the first call; the call
        runs at its gear (padded up to it with pad_to_gear, its outputs sliced back)."""
        plan = self.gears
        assert plan is not None
        if plan.pad and not self.gear_programs:
            plan.check_outputs()
        gear = plan.choose(args)
        call = plan.arguments(args, gear, self.frozen)
        graph = self.gear_programs.get(self._signature(call))
        if graph is None:  # the first call, or new sizes of the dims without gears
            self.backend.cache_misses += 1
            for g in plan.gears:
                ahead = plan.arguments(args, g, self.frozen)
                signature = self._signature(ahead)
                if signature not in self.gear_programs:
                    self.gear_programs[signature] = self._compile(ahead, signature)
            graph = self.gear_programs[self._signature(call)]
        else:
            self.backend.cache_hits += 1
        outputs = self._run(graph, call)
        rows, padded = plan.rows(plan.call_gear(args)), plan.rows(gear)
        self.backend.last_padding = 1 - rows / padded
        self.backend.gear_rows += padded
        self.backend.padded_rows += padded - rows
        return plan.unpad(outputs, args) if padded != rows else outputs

    # -- compile --

    def _compile(self, args: Sequence[Any], signature: tuple) -> CompiledGraph:
        tensors = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        for i, a in enumerate(args):
            if not isinstance(a, torch.Tensor | int | float | bool):
                raise GeError(
                    f"<torch.compile>: error: graph input '{self.input_names[i]}' is a "
                    f"{type(a).__name__}, not a tensor or a number"
                )
        traced = _trace(self.gm, args, [self.input_names[i] for i in tensors])
        placeholders = dict(
            zip(tensors, (n for n in traced.graph.nodes if n.op == "placeholder"), strict=True)
        )
        constants = {placeholders[i].name: args[i] for i in self.frozen}
        names = {
            node.name: self.input_names[i]
            for i, node in placeholders.items()
            if i not in self.frozen
        }
        converter = FxConverter(
            traced.graph,
            owner=traced,
            constants=constants,
            input_names=names,
            output_names=self.output_names,
            label="<torch.compile>",
        )
        converted = converter.convert()
        data_dumps, data_dump_dir = {}, None
        if self.backend.config.dump_config.enable_dump:
            data_dumps = _add_dump_outputs(converted)
            if data_dumps:
                data_dump_dir = os.path.join(
                    self.backend.config.dump_config.full_path(),
                    f"ge_graph_{next(_data_dump_ids)}_pid_{os.getpid()}",
                )
        dump_dir = self._dump_folder()
        module = _run_pipeline(converted, self.backend.config, dump_dir, dynamic=self.dynamic)
        graph = CompiledGraph(
            signature,
            module,
            api.device_program(module),
            converted.inputs,
            converted.outputs,
            converted.output_dtypes,
            [i for i in tensors if i not in self.frozen],
            dump_dir,
            data_dumps=data_dumps,
            data_dump_dir=data_dump_dir,
        )
        self.backend.compilations += 1
        self.backend.graphs.append(graph)
        return graph

    def _dump_folder(self) -> str | None:
        dump = self.backend.config.debug.graph_dump
        if not dump.enabled:
            return None
        folder = os.path.join(dump.folder(), f"ge_graph_{next(_dump_ids)}_pid_{os.getpid()}")
        os.makedirs(folder, exist_ok=True)
        return folder

    # -- run --

    def _run(self, graph: CompiledGraph, args: Sequence[Any]) -> tuple:
        inputs = {
            name: to_numpy(args[i])
            for name, i in zip(graph.inputs, graph.runtime_args, strict=True)
        }
        result = api.simulate(graph.program, inputs)
        if result.findings:
            raise GeError(
                f"<torch.compile>: error: the simulated program races: {result.findings[0]}"
            )
        if graph.data_dump_dir is not None:
            _write_data_dump(graph, result.outputs)
        graph.runs += 1
        self.backend.last_result = result
        outputs = []
        for name, dtype in zip(graph.outputs, graph.output_dtypes, strict=True):
            t = torch.from_numpy(result.outputs[name].copy())
            outputs.append(t if dtype is None else t.to(dtype))
        return tuple(outputs)


def _add_dump_outputs(converted: Converted) -> dict[str, str]:
    """Makes the results of the `ge` ops marked `torchair_enable_data_dump` extra outputs
    of the converted graph (after its own, which `converted.outputs` keeps naming);
    returns each one's `.npz` key (its result's name, made unique) -> its output name."""
    fn = next(op for op in converted.module.ops if isinstance(op, func.FuncOp))
    ret = fn.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    taken = set(converted.inputs) | set(converted.outputs)
    keys: dict[str, str] = {}
    values = []
    for op in fn.body.block.ops:
        if DATA_DUMP not in op.attributes or not op.name.startswith("ge.") or op.name == "ge.const":
            continue
        for i, result in enumerate(op.results):
            base = result.name_hint or op.name.removeprefix("ge.")
            base = base if len(op.results) == 1 else f"{base}_{i}"
            key, k = base, 1
            while key in keys:
                key, k = f"{base}_{k}", k + 1
            name = f"data_dump.{key}"
            while name in taken:
                name += "_"
            taken.add(name)
            keys[key] = name
            values.append(result)
    if not values:
        return keys
    new_ret = func.ReturnOp(*ret.operands, *values)
    Rewriter.replace_op(ret, new_ret)
    fn.function_type = FunctionType.from_lists(
        fn.function_type.inputs.data, [v.type for v in new_ret.operands]
    )
    assert fn.res_attrs is not None
    fn.res_attrs = ArrayAttr(
        [*fn.res_attrs.data, *(DictionaryAttr({NAME: StringAttr(n)}) for n in keys.values())]
    )
    return keys


def _write_data_dump(graph: CompiledGraph, outputs: dict[str, Any]) -> None:
    """One run's dumped values: `<data_dump_dir>/<run>.npz`, keyed by result name."""
    assert graph.data_dump_dir is not None
    os.makedirs(graph.data_dump_dir, exist_ok=True)
    arrays = {key: outputs[name] for key, name in graph.data_dumps.items()}
    data = io.BytesIO()
    np.savez(data, **arrays)
    replace_file(os.path.join(graph.data_dump_dir, f"{graph.runs}.npz"), data.getvalue())


def _trace(
    gm: torch.fx.GraphModule, args: Sequence[Any], names: Sequence[str]
) -> torch.fx.GraphModule:
    """`gm` traced to functional ATen ops (real tensors, no_grad), keeping each node's stack
    trace.  Functionalization turns in-place ops (`x += y`) into their out-of-place forms
    and reads every view after a write to its base; writing a graph input in place (`names`
    name the tensor inputs) is refused: the compiled graph would not write it back.  The
    numbers among `args` (a dynamic graph's SymInts) are baked in: the traced graph's
    placeholders are the tensors only."""
    tensors = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]

    def run(*a: Any) -> Any:
        inputs = [FunctionalTensor.to_functional(t) for t in a]
        full = list(args)
        for i, t in zip(tensors, inputs, strict=True):
            full[i] = t
        out = torch.fx.Interpreter(gm).run(*full)
        for name, t in zip(names, inputs, strict=True):
            torch._sync(t)
            if torch._functionalize_has_data_mutation(t.elem):  # type: ignore[attr-defined]
                raise GeError(
                    f"<torch.compile>: error: the graph writes its input '{name}' in place, "
                    "which the compiled graph would not write back"
                )
        return pytree.tree_map_only(
            FunctionalTensor, lambda t: torch._from_functional_tensor(t.elem), out
        )

    exclude = torch._C._ExcludeDispatchKeyGuard(
        torch._C.DispatchKeySet(torch._C.DispatchKey.Functionalize)
    )
    with torch.no_grad(), fx_traceback.preserve_node_meta():
        with exclude, FunctionalTensorMode():
            return make_fx(run, tracing_mode="real")(*(args[i] for i in tensors))


def _run_pipeline(
    converted: Converted, config: CompilerConfig, dump_dir: str | None, *, dynamic: bool = False
) -> ModuleOp:
    """Runs the optimisation passes, lowering and planning on the module (dumping each).

    A `dynamic` graph (symbolic sizes) runs on one stream as in TorchAir, unless
    `ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1` (read now): assign-streams spreads nothing
    (`mode=labels,max-streams=1`: unlabelled ops on stream 0, a label's ops on one stream
    whatever its inner_parallel), while user `npu_stream_switch` labels keep their streams."""
    from transforms import parse_pipeline
    from transforms.assign_streams import AssignStreamsPass

    module = converted.module
    if config.mode == "reduce-overhead":
        _drop_scopes(module)
        spec = DEVICE_PASSES
    else:
        spec = f"{config.pipeline or api.DEFAULT_PIPELINE},{DEVICE_PASSES}"
    passes = parse_pipeline(spec).passes
    if config.ge_config.enable_single_stream and config.mode == "max-autotune":
        if converted.scopes:
            tag, where = converted.scopes[0]
            raise GeError(
                f"{where or '<torch.compile>'}: error: npu_stream_switch('{tag}') cannot be "
                "used with ge_config.enable_single_stream = True: a stream scope needs "
                "multi-stream (remove the scope or the option)"
            )
        passes = tuple(
            dataclasses.replace(p, mode="single") if isinstance(p, AssignStreamsPass) else p
            for p in passes
        )
    elif dynamic and os.environ.get(DYNAMIC_MULTI_STREAM) != "1":
        passes = tuple(
            dataclasses.replace(p, mode="labels", max_streams=1)
            if isinstance(p, AssignStreamsPass)
            else p
            for p in passes
        )
    step = itertools.count()
    dump_type = config.debug.graph_dump.type

    def callback(previous: ModulePass | None, op: ModuleOp, _next: ModulePass | None) -> None:
        if previous is not None:
            api.verify(op, "<torch.compile>")
        if dump_dir is not None:
            label = "import" if previous is None else previous.name
            index = next(step)
            if dump_type in GRAPH_DEF_DUMP_TYPES:  # GE's GraphDef while the graph is one
                if api.is_device_program(op):
                    return
                controls = "^" if dump_type == "pbtxt" else ":-1"  # as TorchAir's two
                text = api.print_graph_def(op, "<torch.compile>", controls)
                suffix = dump_type
            else:
                text, suffix = api.print_module(op), "mlir"
            path = os.path.join(dump_dir, f"{index:02d}-{label}.{suffix}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    _check_core_limits(converted)
    compiled = api.compile(module, PassPipeline(passes, callback), name="<torch.compile>")
    _warn_super_kernel_streams(compiled)
    return compiled


def _check_core_limits(converted: Converted) -> None:
    """Each `limit_core_num` scope's numbers fit the simulated device (TorchAir's range,
    `utils.scope_attrs.core_limits`), else one error at the scope's `with` line."""
    from ge_dialect.sim.profile import load_profile
    from ge_dialect.utils.scope_attrs import AICORE_NUM, VECTORCORE_NUM, core_limits

    device = load_profile(None)  # what `api.simulate` runs the program on
    for attrs, where in converted.attribute_scopes:
        if AICORE_NUM not in attrs and VECTORCORE_NUM not in attrs:
            continue
        try:
            core_limits(attrs, device.cube_cores, device.vector_cores, device.shared_cores)
        except ValueError as e:
            code = f"\n    {where.text}" if where is not None and where.text else ""
            raise GeError(f"{where or '<torch.compile>'}: error: {e}{code}") from None


def _warn_super_kernel_streams(module: ModuleOp) -> None:
    """The lowering's warnings of super kernel scopes spread over streams, as Python
    warnings (ge-opt prints them on stderr)."""
    from transforms import reports
    from transforms.lower_to_device import SuperKernelStreams

    for report in reports.take(module):
        if isinstance(report, SuperKernelStreams):
            warnings.warn(str(report), stacklevel=4)


def _is_symbolic(value: object) -> bool:
    """Whether a Dynamo example value has a symbolic size (a dynamic graph's input)."""
    if isinstance(value, torch.SymInt):
        return True
    return isinstance(value, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in value.shape)


def _drop_scopes(module: ModuleOp) -> None:
    """Removes the stream labels and waits of `module` (reduce-overhead runs no graph
    passes, on one stream), with one warning when there were any."""
    dropped = 0
    for op in list(module.walk()):
        if isinstance(op, stream.WaitTensorOp):
            op.output.replace_all_uses_with(op.input)
            Rewriter.erase_op(op)
            dropped += 1
        elif op.attributes.pop("stream.label", None) is not None:
            dropped += 1
    if dropped:
        warnings.warn(
            "mode 'reduce-overhead' runs on one stream: npu_stream_switch and npu_wait_tensor "
            "take effect in 'max-autotune' only, and are ignored",
            stacklevel=2,
        )


def _is_parameter(node: torch.fx.Node, value: object) -> bool:
    """Whether a Dynamo graph input is a module's parameter or buffer (frozen as a constant)."""
    if isinstance(value, torch.nn.Parameter):
        return True
    if getattr(value, "_dynamo_static_input_type", None) is not None:
        return True
    grapharg = node.meta.get("grapharg")
    source = getattr(grapharg, "source", None)
    name = getattr(source, "name", "")
    name = name() if callable(name) else name
    name = name if isinstance(name, str) else ""
    return "_parameters" in name or "_buffers" in name


def _input_name(node: torch.fx.Node) -> str:
    grapharg = node.meta.get("grapharg")
    source = getattr(grapharg, "source", None)
    local = getattr(source, "local_name", None)
    if isinstance(local, str):
        return local
    name = node.name
    if name.startswith(("l_", "L_")):
        name = name[2:]
    return name.rstrip("_") or node.name


def _unique(names: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for n in names:
        candidate, k = n, 1
        while candidate in seen:
            candidate, k = f"{n}_{k}", k + 1
        seen.add(candidate)
        out.append(candidate)
    return out


def _flatten(value: object) -> list[object]:
    if isinstance(value, list | tuple):
        return [x for v in value for x in _flatten(v)]
    return [value]


def get_npu_backend(*, compiler_config: CompilerConfig | None = None) -> NpuBackend:
    """A `torch.compile` backend running on the simulated NPU (TorchAir's function)."""
    return NpuBackend(compiler_config or CompilerConfig())


def get_compiler(compiler_config: CompilerConfig | None = None) -> NpuBackend:
    """TorchAir's `get_compiler`: here the same object as `get_npu_backend`'s."""
    return get_npu_backend(compiler_config=compiler_config)
