"""Memory planning and the race checker on whole models.

For a ResNet-style model (bench/run.py's ResNet-18, 1x3x224x224 f32), an Inception-style
multi-branch graph and a 4-head attention graph (bench/sim.py's, fp16, one label per
branch), each compiled with `canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto}`
(and `mode=labels` for the labelled ones) and lowered, it prints:

- the workspace peak `plan-memory` reaches, against the stream-aware lower bound (the
  heaviest set of buffers no two of which are ordered; the issue's goal: peak / bound at
  most 1.05), the sequential bound (most bytes live at one point of the task list) and the
  bytes without reuse;
- the planner's time (the pass alone, best of --repeat);
- the race checker's overhead: a numbers run with the checker over one without (best of
  --repeat each, alternating; the goal: at most 1.3x).

    python bench/memory.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run import best, resnet18  # noqa: E402
from sim import attention, inception  # noqa: E402
from xdsl.dialects.builtin import ModuleOp  # noqa: E402

from ge_dialect import api  # noqa: E402

LAYOUT = "canonicalize,cse,fuse,to-nc1hwc0"


def alternating(
    a: Callable[[], object], b: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """The best time of `a` and of `b`, run in alternation (a shared machine's load hits both)."""
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(repeat):
        for fn, times in ((a, ta), (b, tb)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return min(ta), min(tb)


def mib(n: int) -> str:
    return f"{n / 2**20:8.2f}"


def row(name: str, mode: str, module: ModuleOp, repeat: int) -> None:
    lowered = module.clone()
    api.compile(lowered, f"{LAYOUT},assign-streams{{mode={mode}}},lower-to-device")

    def plan() -> ModuleOp:
        m = lowered.clone()
        api.compile(m, "plan-memory", verify=False)
        return m

    t_plan = best(plan, repeat)
    planned = plan()
    program = api.device_program(planned)
    memory = program.memory
    result = api.simulate(program)
    checked, unchecked = alternating(
        lambda: api.simulate(program, result.inputs),
        lambda: api.simulate(program, result.inputs, check=False),
        repeat,
    )
    peak = memory["peak"]
    streams = len(result.report.streams)
    print(
        f"{name:28s} {mode:6s} {streams:3d} {memory['buffers']:5d} {mib(peak)} "
        f"{peak / memory['stream_bound']:9.3f} {peak / memory['sequential_bound']:9.3f} "
        f"{peak / memory['no_reuse']:8.3f} {t_plan * 1e3:9.1f} {checked / unchecked:8.3f}"
        f"{'  (races!)' if result.findings else ''}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"{'graph':28s} {'mode':6s} {'str':>3s} {'bufs':>5s} {'peak MiB':>8s} "
        f"{'pk/strm':>9s} {'pk/seq':>9s} {'pk/none':>8s} {'plan ms':>9s} {'checked':>8s}"
    )
    # labels mode on graphs with one label per branch; auto mode on the same graphs
    # without labels (a label pins its ops to its stream)
    graphs = [
        ("ResNet-18 1x3x224x224 f32", [("auto", api.load(resnet18()))]),
        ("inception x4", [("labels", inception(True)), ("auto", inception(False))]),
        ("attention 4 heads", [("labels", attention(True)), ("auto", attention(False))]),
    ]
    for name, runs in graphs:
        for mode, module in runs:
            row(name, mode, module, args.repeat)
    print(
        "(pk/strm: peak / stream-aware bound, goal <= 1.05; pk/seq: peak / sequential bound; "
        "pk/none: peak / no reuse; checked: a checked numbers run / an unchecked one, goal <= 1.3)"
    )


if __name__ == "__main__":
    main()
