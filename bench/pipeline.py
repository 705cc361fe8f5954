"""Compile time of the whole pipeline against import + print, on generated ONNX CNNs.

For ONNX graphs of about `--nodes` nodes (a ResNet-like stack exported with `onnx.helper`:
Conv -> BatchNormalization -> Relu blocks with residual Adds and a few parallel branches,
each Conv with its own small weight) it prints, in one process:

- the time of import + print (`api.load`, which verifies, then printing the module): what
  `ge-opt model.onnx` does, the baseline;
- the time of import + `--fuse --to-nc1hwc0 --assign-streams` + print, and its ratio to
  the baseline;
- where the time goes: import, each pass (with the verification ge-opt runs after it, also
  shown on its own in parentheses), and print.

Each figure is the best of `--repeat` runs of the whole sequence, each from the file with
an empty verification memory (and the previous run's module freed first), timed on the
process's CPU clock (`--clock wall` for the wall clock); the process start (about 0.3 s of
imports for ge-opt) is not counted.  The issue's target: the pipeline at most 1.3x
import + print, and twice the graph at most 2.1x the time.

    python bench/pipeline.py [--nodes 1250 2500] [--repeat 5] [--clock cpu|wall]
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
from collections.abc import Callable
from io import StringIO
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer

from ge_dialect import api
from ge_dialect.ir.registry import make_context
from ge_dialect.ir.verify import forget_verified
from transforms import parse_pipeline

PIPELINE = "fuse,to-nc1hwc0,assign-streams"


def make_model(nodes: int, channels: int = 16, hw: int = 8, seed: int = 0) -> onnx.ModelProto:
    """A CNN of about `nodes` ONNX nodes: blocks of conv-bn-relu-conv-bn-add-relu."""
    rng = np.random.default_rng(seed)
    c = channels
    graph_nodes, inits = [], []
    count = 0

    def name(prefix: str) -> str:
        nonlocal count
        count += 1
        return f"{prefix}{count}"

    def init(array: np.ndarray) -> str:
        n = name("w")
        inits.append(numpy_helper.from_array(array.astype(np.float32), n))
        return n

    def node(op: str, inputs: list[str], **attrs: Any) -> str:  # make_node's attribute kwargs
        out = name(op.lower())
        graph_nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv_bn(x: str) -> str:
        w = init(rng.normal(0, (c * 9) ** -0.5, (c, c, 3, 3)))
        y = node("Conv", [x, w], pads=[1, 1, 1, 1])
        params = [
            rng.uniform(0.5, 1.5, c),
            rng.uniform(-0.5, 0.5, c),
            rng.uniform(-0.3, 0.3, c),
            rng.uniform(0.1, 10.0, c),
        ]
        return node("BatchNormalization", [y, *(init(p) for p in params)])

    y = node("Relu", [conv_bn("x")])
    blocks = max(1, (nodes - 3) // 7)
    for i in range(blocks):
        h = node("Relu", [conv_bn(y)])
        branch = node("Sigmoid", [y]) if i % 4 == 3 else y  # a parallel branch now and then
        y = node("Relu", [node("Add", [conv_bn(h), branch])])
    graph = helper.make_graph(
        graph_nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, hw, hw])],
        [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def print_module(module) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def run(path: str, repeat: int, clock: Callable[[], float]) -> dict[str, float]:
    """The best time of each step over `repeat` runs of what ge-opt does: load (import and
    verify), then each pass followed by verification (`api.compile`, as ge-opt runs it),
    then print.  Every run starts from
    the file with an empty verification memory (`forget_verified`), so no run profits from
    the one before."""
    ctx = make_context()
    passes = parse_pipeline(PIPELINE).passes
    best: dict[str, float] = {}
    module: ModuleOp | None = None
    for _ in range(repeat):
        forget_verified()
        module = None  # the previous run's module goes before this run starts (a fresh heap)
        gc.collect()
        times: dict[str, float] = {}
        start = clock()
        module = api.load(path)
        times["import"] = clock() - start

        def after(
            previous: ModulePass | None, m: ModuleOp, _next: object, times: dict = times
        ) -> None:
            nonlocal start
            if previous is not None:  # as ge-opt's callback: verify after each pass
                done = clock()
                api.verify(m)
                times[previous.name] = clock() - start
                times[f"{previous.name}.verify"] = clock() - done
            start = clock()

        api.compile(module, PassPipeline(passes, after), ctx=ctx)
        start = clock()
        print_module(module)
        times["print"] = clock() - start
        for step, t in times.items():
            best[step] = min(best.get(step, t), t)
    best["baseline"] = best["import"] + best["print"]
    return best


def _is_step(name: str) -> bool:
    """The figures that add up to the pipeline's time (a pass's verification is part of
    the pass's figure, and shown again on its own)."""
    return name != "baseline" and not name.endswith(".verify")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1250, 2500])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--clock",
        choices=["cpu", "wall"],
        default="cpu",
        help="CPU time of this process (default: steadier on a shared machine) or wall-clock time",
    )
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.nodes:
            model = make_model(n)
            path = os.path.join(tmp, f"cnn{n}.onnx")
            onnx.save(model, path)
            times = run(path, args.repeat, clock)
            total = sum(v for k, v in times.items() if _is_step(k))
            results.append((n, len(model.graph.node), times, total))
    print(
        f"{'nodes':>6} {'import+print':>13} {'pipeline':>9} {'ratio':>6}   per step (s; a pass's "
        "figure includes the verification after it, shown in parentheses)"
    )
    for _n, real, times, total in results:
        steps = "  ".join(
            f"{k} {v:.3f}" + (f" ({times[k + '.verify']:.3f})" if k + ".verify" in times else "")
            for k, v in times.items()
            if _is_step(k)
        )
        ratio = total / times["baseline"]
        print(f"{real:6d} {times['baseline']:13.3f} {total:9.3f} {ratio:6.2f}   {steps}")
    if len(results) > 1:
        (_, r0, _, t0), (_, r1, _, t1) = results[0], results[-1]
        print(f"{r1 / r0:.1f}x the nodes: {t1 / t0:.2f}x the pipeline time")


if __name__ == "__main__":
    main()
