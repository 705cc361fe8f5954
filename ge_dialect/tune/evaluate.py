"""One trial's measurement: compile a graph with a setting's pipeline and simulate it
timing-only, in-process (`api`).  Also the graph fingerprint used to cache and warm-start.

`measure(module, pipeline, ranks, topology)` returns `Figures(makespan_us, peak_bytes)`:
the simulated makespan (with ranks, the cluster's) and the planned workspace peak (with
ranks, the largest rank's).  `fingerprint(module)` is the op histogram and the argument
shapes of the graph's functions, with a stable key (sha256 of its JSON);
`distance(a, b)` compares two of them (0: the same graph).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, ShapedType

from ge_dialect import api


@dataclass(frozen=True)
class Figures:
    makespan_us: float
    peak_bytes: int


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
