"""Memory planning and the memory checker on whole models.

For a ResNet-style model (bench/run.py's ResNet-18, 1x3x224x224 f32), an Inception-style
multi-branch graph and a 4-head attention graph (bench/sim.py's, fp16, one label per
branch), each compiled with `canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto}`
(and `mode=labels` for the labelled ones) and lowered, it prints:

- the workspace peak `plan-memory` reaches, against the stream-aware lower bound (the
  heaviest set of buffers no two of which are ordered; the issue's goal: peak / bound at
  most 1.05), the sequential bound (most bytes live at one point of the task list) and the
  bytes without reuse;
- the planner's time (the pass alone, best of --repeat);
- the memory checker's overhead, against a numbers run without it in the same process
  (best of --repeat each, alternating): a checked run (races and clobbers, what ge-run
  runs) over an unchecked one (the goal: at most 1.3x), and the checker's own time with and
  without its clobber check (`sim.checker.check(..., clobber=False)`) added to the
  unchecked run, each over it.

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
from ge_dialect.sim.checker import check  # noqa: E402

LAYOUT = "canonicalize,cse,fuse,to-nc1hwc0"


def alternating(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """The best time of each of `fns`, run in alternation (a shared machine's load hits
    them all)."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, spent in zip(fns, times, strict=True):
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
    return [min(spent) for spent in times]


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
    checked, unchecked, full, races = alternating(
        [
            lambda: api.simulate(program, result.inputs),
            lambda: api.simulate(program, result.inputs, check=False),
            lambda: check(program, result.order),
            lambda: check(program, result.order, clobber=False),
        ],
        repeat,
    )
    peak = memory["peak"]
    streams = len(result.report.streams)
    print(
        f"{name:28s} {mode:6s} {streams:3d} {memory['buffers']:5d} {mib(peak)} "
        f"{peak / memory['stream_bound']:9.3f} {peak / memory['sequential_bound']:9.3f} "
        f"{peak / memory['no_reuse']:8.3f} {t_plan * 1e3:9.1f} {checked / unchecked:8.3f} "
        f"{(unchecked + full) / unchecked:8.3f} {(unchecked + races) / unchecked:8.3f} "
        f"{full * 1e3:7.2f} {races * 1e3:7.2f}{'  (findings!)' if result.findings else ''}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"{'graph':28s} {'mode':6s} {'str':>3s} {'bufs':>5s} {'peak MiB':>8s} "
        f"{'pk/strm':>9s} {'pk/seq':>9s} {'pk/none':>8s} {'plan ms':>9s} {'checked':>8s} "
        f"{'+check':>8s} {'+races':>8s} {'chk ms':>7s} {'race ms':>7s}"
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
        "pk/none: peak / no reuse; checked: a checked numbers run / an unchecked one, goal "
        "<= 1.3;\n +check, +races: an unchecked run plus the checker with its clobber check, "
        "without it, / the unchecked run; chk ms, race ms: the checker's own times)"
    )


if __name__ == "__main__":
    main()
