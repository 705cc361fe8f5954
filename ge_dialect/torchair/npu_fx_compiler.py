"""`get_npu_backend`: a `torch.compile` backend that runs graphs on the simulated NPU.

    from ge_dialect import torchair as tng
    backend = tng.get_npu_backend(compiler_config=tng.CompilerConfig())
    model = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    outputs = model(*inputs)              # torch tensors, computed by the simulator
    backend.last_result.timeline          # the last run's `api.SimResult`

For each graph Dynamo captures, the backend returns a callable that compiles on its first
call with a given signature (the shapes and dtypes of the graph's inputs) and reuses the
compiled program for every later call with that signature.  Compiling traces Dynamo's graph
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
import itertools
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch._subclasses.functional_tensor import FunctionalTensor, FunctionalTensorMode
from torch.fx import traceback as fx_traceback
from torch.fx.experimental.proxy_tensor import make_fx
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.rewriter import Rewriter

from ge_dialect import api
from ge_dialect.frontend.torch_import import Converted, FxConverter, to_numpy
from ge_dialect.ir.dialects import stream
from ge_dialect.torchair.configs.compiler_config import CompilerConfig
from ge_dialect.utils.errors import GeError

__all__ = ["CompiledGraph", "NpuBackend", "get_compiler", "get_npu_backend"]

DEVICE_PASSES = "lower-to-device,plan-memory"

_dump_ids = itertools.count()


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


@dataclass
class NpuBackend:
    """The backend `get_npu_backend` returns: call it as Dynamo does, `(gm, example_inputs)`.

    `compilations` counts programs compiled (one per graph and input signature);
    `graphs` holds them; `last_result` is the `api.SimResult` of the latest call.
    """

    config: CompilerConfig = field(default_factory=CompilerConfig)
    compilations: int = 0
    graphs: list[CompiledGraph] = field(default_factory=list)
    last_result: api.SimResult | None = None

    def __repr__(self) -> str:
        return f"npu_backend(compilations={self.compilations})"

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> Any:
        return _NpuGraph(self, gm, example_inputs)


class _NpuGraph:
    """What the backend hands Dynamo for one FX graph: compiles per input signature."""

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
        self.output_names = [
            a.name if isinstance(a, torch.fx.Node) else "" for a in _flatten(output.args[0])
        ]
        self.cache: dict[tuple, CompiledGraph] = {}

    def __call__(self, *args: Any) -> Any:
        signature = tuple(
            (tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else ("value", repr(a))
            for i, a in enumerate(args)
            if i not in self.frozen
        )
        graph = self.cache.get(signature)
        if graph is None:
            graph = self._compile(args, signature)
            self.cache[signature] = graph
        return self._run(graph, args)

    # -- compile --

    def _compile(self, args: Sequence[Any], signature: tuple) -> CompiledGraph:
        for i, a in enumerate(args):
            if not isinstance(a, torch.Tensor):
                raise GeError(
                    f"<torch.compile>: error: graph input '{self.input_names[i]}' is a "
                    f"{type(a).__name__}, not a tensor (compile with dynamic=False)"
                )
        traced = _trace(self.gm, args, self.input_names)
        placeholders = [n for n in traced.graph.nodes if n.op == "placeholder"]
        constants = {placeholders[i].name: args[i] for i in self.frozen}
        names = {
            node.name: self.input_names[i]
            for i, node in enumerate(placeholders)
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
        dump_dir = self._dump_folder()
        module = _run_pipeline(converted, self.backend.config, dump_dir)
        graph = CompiledGraph(
            signature,
            module,
            api.device_program(module),
            converted.inputs,
            converted.outputs,
            converted.output_dtypes,
            [i for i in range(len(args)) if i not in self.frozen],
            dump_dir,
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
        graph.runs += 1
        self.backend.last_result = result
        outputs = []
        for name, dtype in zip(graph.outputs, graph.output_dtypes, strict=True):
            t = torch.from_numpy(result.outputs[name].copy())
            outputs.append(t if dtype is None else t.to(dtype))
        return tuple(outputs)


def _trace(
    gm: torch.fx.GraphModule, args: Sequence[torch.Tensor], names: Sequence[str]
) -> torch.fx.GraphModule:
    """`gm` traced to functional ATen ops (real tensors, no_grad), keeping each node's stack
    trace.  Functionalization turns in-place ops (`x += y`) into their out-of-place forms
    and reads every view after a write to its base; writing a graph input in place (`names`
    name the inputs) is refused: the compiled graph would not write it back."""

    def run(*a: Any) -> Any:
        inputs = [FunctionalTensor.to_functional(t) for t in a]
        out = torch.fx.Interpreter(gm).run(*inputs)
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
            return make_fx(run, tracing_mode="real")(*args)


def _run_pipeline(converted: Converted, config: CompilerConfig, dump_dir: str | None) -> ModuleOp:
    """Runs the optimisation passes, lowering and planning on the module (dumping each)."""
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
    step = itertools.count()

    def callback(previous: ModulePass | None, op: ModuleOp, _next: ModulePass | None) -> None:
        if previous is not None:
            api.verify(op, "<torch.compile>")
        if dump_dir is not None:
            label = "import" if previous is None else previous.name
            path = os.path.join(dump_dir, f"{next(step):02d}-{label}.mlir")
            with open(path, "w", encoding="utf-8") as f:
                f.write(api.print_module(op))

    return api.compile(module, PassPipeline(passes, callback), name="<torch.compile>")


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
