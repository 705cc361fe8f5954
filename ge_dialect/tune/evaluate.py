"""One trial's measurement: compile a graph with a setting's pipeline and simulate it
timing-only, in-process (`api`).  Also the graph fingerprint used to cache and warm-start.

`measure(module, pipeline, ranks, topology)` returns `Figures(makespan_us, peak_bytes)`:
the simulated makespan (with ranks, the cluster's) and the planned workspace peak (with
ranks, the largest rank's).  `fingerprint(module)` is the op histogram and the argument
shapes of the graph's functions, with a stable key (sha256 of its JSON);
`distance(a, b)` compares two of them (0: the same graph).

A graph with dynamic dims is a `Geared`: its workload (`gears.Workload`) and the graph
imported at each candidate size.  `measure_graph` measures it at every candidate (once per
pipeline: memoised on the graph), chooses the setting's gears (`gears.choose`) and returns
the expected makespan over the workload's calls and the largest peak among the chosen
gears, with each gear's own figures.  `ship`/`land` turn either kind of graph into plain
text and back (for worker processes and Ray tasks).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, ShapedType

from ge_dialect import api
from ge_dialect.tune.gears import Point, Workload, choose, expected
from ge_dialect.utils.errors import GeError


@dataclass(frozen=True)
class Figures:
    """A measured setting.  With gears, `makespan_us` is the expected makespan over the
    workload's calls, `peak_bytes` the largest chosen gear's, `gears` each chosen gear with
    its makespan and peak, and `padded_us` the expected makespan with the top gear alone."""

    makespan_us: float
    peak_bytes: int
    gears: tuple[tuple[Point, float, int], ...] = ()
    padded_us: float | None = None


@dataclass
class Geared:
    """A graph with dynamic dims: the workload and the graph imported at each candidate
    size (`Workload.candidates`)."""

    workload: Workload
    modules: dict[Point, ModuleOp]
    memo: dict[tuple[Any, ...], Figures | str] = field(default_factory=dict, repr=False)

    @property
    def module(self) -> ModuleOp:
        """The graph at the top gear (fingerprint, context)."""
        return self.modules[self.workload.top()]


Graph = ModuleOp | Geared


def measure(
    module: ModuleOp,
    pipeline: str,
    ranks: int = 1,
    topology: Any = None,
    flags: tuple[str, ...] = (),
) -> Figures:
    """Compiles a copy of `module` with `pipeline` and simulates it timing-only (with
    ge-run's `flags`: `--hccl-algo ALGO`)."""
    compiled = module.clone()
    api.compile(compiled, pipeline)
    options = dict(zip(flags[::2], flags[1::2], strict=True))
    if ranks > 1:
        result = api.simulate_ranks(
            compiled,
            timing_only=True,
            topology=topology,
            check=False,
            hccl_algo=options.get("--hccl-algo"),
        )
        peak = max(int(r.report.memory.get("peak_bytes", 0)) for r in result.ranks)
        return Figures(result.report.makespan, peak)
    single = api.simulate(compiled, timing_only=True, check=False)
    return Figures(single.report.makespan, int(single.report.memory.get("peak_bytes", 0)))


def measure_graph(
    graph: Graph,
    pipeline: str,
    ranks: int = 1,
    topology: Any = None,
    flags: tuple[str, ...] = (),
) -> Figures:
    """`measure` of a graph, or of a geared graph at its best gears for this pipeline."""
    if isinstance(graph, ModuleOp):
        return measure(graph, pipeline, ranks, topology, flags)
    figures: dict[Point, Figures] = {}
    for point in graph.workload.candidates():
        key = (pipeline, flags, ranks, point)
        if key not in graph.memo:
            try:
                graph.memo[key] = measure(graph.modules[point], pipeline, ranks, topology, flags)
            except GeError as e:
                graph.memo[key] = str(e).splitlines()[0]
        outcome = graph.memo[key]
        if isinstance(outcome, str):
            if point == graph.workload.top():
                raise GeError(f"at {graph.workload.label(point)}: {outcome}")
            continue  # a size this pipeline cannot compile is no gear
        figures[point] = outcome
    cost = {p: f.makespan_us for p, f in figures.items()}
    gears, makespan = choose(graph.workload, cost)
    chosen = tuple((g, figures[g].makespan_us, figures[g].peak_bytes) for g in gears)
    padded = expected(graph.workload, [graph.workload.top()], cost)
    return Figures(makespan, max(peak for _, _, peak in chosen), chosen, padded)


def load_graph(
    model: Any,
    shapes: Mapping[str, Sequence[int | None]] | None = None,
    dim_sizes: Mapping[tuple[str, int], Sequence[int]] | None = None,
    max_gears: int = 4,
) -> Graph:
    """What ge-tune tunes: `model` (what `api.load` takes) at `shapes`, or with `dim_sizes`
    for its `None` dims a geared graph (`load_geared`)."""
    if dim_sizes:
        return load_geared(model, shapes or {}, dim_sizes, max_gears)
    if isinstance(model, ModuleOp):
        return model
    static = {name: [d for d in dims if d is not None] for name, dims in (shapes or {}).items()}
    return api.load(model, input_shapes=static or None)


def load_geared(
    model: Any,
    shapes: Mapping[str, Sequence[int | None]],
    dim_sizes: Mapping[tuple[str, int], Sequence[int]],
    max_gears: int = 4,
) -> Geared:
    """A geared graph: `model` (what `api.load` takes) imported at each candidate gear of
    the workload whose calls take `dim_sizes` (lists of one length, zipped) in the `None`
    dims of `shapes`."""
    if len({len(sizes) for sizes in dim_sizes.values()}) != 1:
        raise ValueError("dim_sizes: give each dynamic dim a list of sizes, all of one length")
    dims = tuple(dim_sizes)
    dynamic = [
        (name, d) for name, sizes in shapes.items() for d, s in enumerate(sizes) if s is None
    ]
    if sorted(dynamic) != sorted(dims):
        raise ValueError(
            f"dim_sizes gives {sorted(dims)}, but the None dims of input_shapes are "
            f"{sorted(dynamic)}"
        )
    workload = Workload(dims, tuple(zip(*dim_sizes.values(), strict=True)), max_gears)
    modules = {}
    for point in workload.candidates():
        at = dict(zip(dims, point, strict=True))
        modules[point] = api.load(
            model,
            input_shapes={
                name: [at[name, d] if s is None else s for d, s in enumerate(dims_of)]
                for name, dims_of in shapes.items()
            },
        )
    return Geared(workload, modules)


def ship(graph: Graph) -> Any:
    """`graph` as text (a geared graph: its workload and each candidate's text)."""
    if isinstance(graph, ModuleOp):
        return api.print_module(graph)
    return (graph.workload, tuple((p, api.print_module(m)) for p, m in graph.modules.items()))


def land(shipped: Any) -> Graph:
    """The graph `ship` gave, parsed."""
    if isinstance(shipped, str):
        return api.parse(shipped)
    workload, texts = shipped
    return Geared(workload, {p: api.parse(text) for p, text in texts})


def fingerprint(module: ModuleOp) -> dict[str, Any]:
    """The graph's op histogram and its functions' argument shapes (JSON-able), and `key`."""
    ops = Counter(op.name for op in module.walk() if op is not module)
    shapes = []
    for fn in module.body.block.ops:
        if isinstance(fn, func.FuncOp):
            for t in fn.function_type.inputs.data:
                shapes.append(list(t.get_shape()) if isinstance(t, ShapedType) else [])
    body = {"ops": dict(sorted(ops.items())), "shapes": shapes}
    key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    return {**body, "key": key}


def distance(a: dict[str, Any], b: dict[str, Any]) -> float:
    """How far two fingerprints are: the share of ops not in common (L1 over the
    histograms, over both totals) plus 0.5 if the argument shapes differ."""
    names = sorted(set(a["ops"]) | set(b["ops"]))
    diff = sum(abs(a["ops"].get(n, 0) - b["ops"].get(n, 0)) for n in names)
    total = sum(a["ops"].values()) + sum(b["ops"].values())
    return (diff / total if total else 0.0) + (0.0 if a["shapes"] == b["shapes"] else 0.5)


def graph_fingerprint(graph: Graph) -> dict[str, Any]:
    """`fingerprint` of a graph; of a geared graph, its top gear's with the workload (its
    dims, calls and gear limit) in the key, and `gear_keys`: the plain keys of the graph at
    each candidate size (what ge-run --tuned computes on one gear of it)."""
    if isinstance(graph, ModuleOp):
        return fingerprint(graph)
    fp = fingerprint(graph.module)
    w = graph.workload
    workload = {
        "dims": [list(d) for d in w.dims],
        "calls": sorted([list(p), n] for p, n in Counter(w.calls).items()),
        "max_gears": w.max_gears,
    }
    body = {"ops": fp["ops"], "shapes": fp["shapes"], "workload": workload}
    key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    gear_keys = [fingerprint(m)["key"] for _, m in sorted(graph.modules.items())]
    return {**body, "key": key, "gear_keys": gear_keys}
