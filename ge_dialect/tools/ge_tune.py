"""ge-tune: tune a graph's pass settings on the simulated NPU (Optuna).

    ge-tune model.onnx|model.mlir [--trials N] [--objective latency|memory|both]
            [--storage URL] [--study NAME] [--workers K] [--ray ADDRESS] [--timeout S]
            [--patience N] [--ranks N [--topology t.json]] [--seed N]
            [--space-plugin FILE] [--pareto out.png]
            [--input-shape NAME=DIMS] [--dim-sizes NAME:DIM=S,S,... [--max-gears N]]

Loads the input as ge-run does (`api.load`) and runs `ge_dialect.tune.study.tune`: trial 0
is the default pipeline (the baseline), then settings of the search space are sampled,
compiled and simulated timing-only.  The study lives in `--storage` (default
`sqlite:///ge-tune.db`), so a second run continues it and `ge-run --tuned`/`ge-opt --tuned`
find its best setting again.  Prints the study, the baseline's makespan and peak memory,
and the best trial (one objective: its figures, its speed-up over the baseline and the
ge-run command line that reproduces it) or the Pareto front (`--objective both`, one line
per point, by makespan; `--pareto` draws it), then the pruned trials by reason.

An ONNX model's unknown dims take `--input-shape` (as ge-run's).  A dim given as `?` is
dynamic: `--dim-sizes NAME:DIM=S,S,...` lists the sizes calls take there (a trace: repeats
weigh; several lists of one length go together, the n-th call taking the n-th size of
each), and every trial also chooses the setting's dimension gears, at most `--max-gears`
(default 4) among those sizes, by the least expected makespan (`ge_dialect.tune.gears`).
The best prints with its gears and the `--input-shape ... --gears ...` that ge-run needs to
run them, one line per gear.

A user's mistake (a bad flag, an input that does not load, a storage that cannot be
opened, an unreachable Ray cluster, a search-space plugin that raises) is one `error:` line
on stderr and a non-zero exit (2 for a usage error), never a traceback; the trials already
in the study stay there.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from xdsl.dialects.builtin import ModuleOp

from ge_dialect.tools.ge_run import dynamic_dims
from ge_dialect.tune.gears import MAX_GEARS, Workload
from ge_dialect.utils.errors import GeError, UsageError

if TYPE_CHECKING:
    from ge_dialect.tune.evaluate import Graph
    from ge_dialect.tune.study import Point, TuneResult

EXIT_ERROR = 1
EXIT_USAGE = 2
MIB = 2**20


class _Parser(argparse.ArgumentParser):
    """argparse with one `ge-tune: error: ...` line (exit 2) instead of the usage dump."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ge-tune", description="tune a GE graph's pass settings on the simulator")
    p.add_argument("input", metavar="model.onnx|model.mlir", help="the graph to tune")
    p.add_argument("--trials", type=int, default=20, metavar="N", help="trials to run (20)")
    p.add_argument(
        "--objective",
        choices=("latency", "memory", "both"),
        default="latency",
        help="minimise the makespan (latency, default), the peak memory, or both (Pareto)",
    )
    p.add_argument(
        "--storage",
        default="sqlite:///ge-tune.db",
        metavar="URL",
        help="the Optuna storage of the study (default sqlite:///ge-tune.db)",
    )
    p.add_argument("--study", metavar="NAME", help="the study's name (default: by the graph)")
    p.add_argument("--workers", type=int, default=1, metavar="K", help="local worker processes")
    p.add_argument("--ray", metavar="ADDRESS", help="run the trials on this Ray cluster")
    p.add_argument("--timeout", type=float, metavar="S", help="stop after S seconds")
    p.add_argument(
        "--patience", type=int, metavar="N", help="stop after N trials without a better value"
    )
    p.add_argument("--ranks", type=int, default=1, metavar="N", help="tune a run on N ranks")
    p.add_argument("--topology", metavar="FILE", help="the cluster topology JSON (with --ranks)")
    p.add_argument("--seed", type=int, default=0, help="the sampler's random seed (default 0)")
    p.add_argument(
        "--space-plugin",
        action="append",
        default=[],
        metavar="FILE",
        help="a Python file extending the search space (repeatable)",
    )
    p.add_argument(
        "--pareto", metavar="FILE.png", help="draw the front (makespan vs peak) as a PNG"
    )
    p.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="NAME=DIMS",
        help="an ONNX input's shape, such as x=?x64 (a '?' dim takes --dim-sizes)",
    )
    p.add_argument(
        "--dim-sizes",
        action="append",
        default=[],
        metavar="NAME:DIM=S,S,..",
        help="the sizes calls take in a '?' dim (repeatable); each trial chooses its gears",
    )
    p.add_argument(
        "--max-gears",
        type=int,
        default=4,
        metavar="N",
        help=f"the most gears a setting may compile (default 4, at most {MAX_GEARS})",
    )
    return p


def _check(args: argparse.Namespace) -> None:
    for flag, value, least in (
        ("--trials", args.trials, 1),
        ("--workers", args.workers, 1),
        ("--ranks", args.ranks, 1),
        ("--patience", args.patience, 1),
    ):
        if value is not None and value < least:
            raise UsageError(f"{flag} must be at least {least}, got {value}")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError(f"--timeout must be positive, got {args.timeout:g}")
    if args.topology is not None and args.ranks < 2:
        raise UsageError("--topology needs --ranks N (N > 1)")
    if args.pareto is not None:
        if not args.pareto.lower().endswith(".png"):
            raise UsageError(f"--pareto draws a PNG: '{args.pareto}' must end in .png")
        if args.objective != "both":
            raise UsageError("--pareto draws the front of --objective both")
    if not 1 <= args.max_gears <= MAX_GEARS:
        raise UsageError(f"--max-gears must be in [1, {MAX_GEARS}], got {args.max_gears}")
    if (args.input_shape or args.dim_sizes) and not args.input.endswith(".onnx"):
        raise UsageError("--input-shape and --dim-sizes apply to ONNX input (.onnx files) only")
    for path in args.space_plugin:
        if not os.path.isfile(path):
            raise GeError(f"{path}: error: no such search-space plugin file")


def _bytes(n: int) -> str:
    return f"{n / MIB:.3f} MiB ({n} bytes)" if n >= MIB else f"{n / 1024:.1f} KiB ({n} bytes)"


def _figures(point: Point) -> str:
    f = point.figures
    makespan = "expected makespan" if f.gears else "makespan"
    return f"{makespan} {f.makespan_us:.3f} us, peak {_bytes(f.peak_bytes)}"


def _gear_lines(point: Point, workload: Workload | None) -> list[str]:
    """A geared point's gears: each one's makespan and peak, and what padding every call to
    the top gear would cost."""
    f = point.figures
    if workload is None or not f.gears:
        return []
    lines = [
        f"  gears ({len(f.gears)} of at most {workload.max_gears}, over {len(workload.calls)} "
        f"calls of {len(workload.points())} sizes); every call at the top gear: "
        f"{f.padded_us:.3f} us"
    ]
    lines += [
        f"    gear {workload.label(g)}: makespan {us:.3f} us, peak {_bytes(peak)}"
        for g, us, peak in f.gears
    ]
    return lines


def _front(result: TuneResult) -> list[Point]:
    """The Pareto front by makespan, one point per pipeline (its first trial)."""
    points: dict[str, Point] = {}
    for p in sorted(result.best, key=lambda p: p.number):
        points.setdefault(p.pipeline, p)
    return sorted(points.values(), key=lambda p: (p.figures.makespan_us, p.figures.peak_bytes))


def command_line(
    model: str, point: Point, ranks: int, topology: str | None, shapes: Sequence[str] = ()
) -> str:
    """The ge-run command that runs `point`'s setting (its pipeline holds the lowering and
    the planning, and with ranks the shard: ge-run adds nothing; with gears, one run each)."""
    words = ["ge-run", model, "-p", point.pipeline, "--timing-only"]
    words += [w for shape in shapes for w in ("--input-shape", shape)]
    words += point.flags
    if ranks > 1:
        words += ["--ranks", str(ranks)]
        if topology is not None:
            words += ["--topology", topology]
    return shlex.join(words)


def report(
    result: TuneResult,
    model: str,
    ranks: int,
    topology: str | None,
    shapes: Sequence[str] = (),
    workload: Workload | None = None,
) -> list[str]:
    """The printed lines of a tuning run."""
    base = result.baseline
    lines = [
        f"study {result.study} in {result.storage} ({result.trials} completed trials)",
        f"baseline (trial {base.number}, default pipeline): {_figures(base)}",
    ]
    if result.objective == "both":
        front = _front(result)
        lines.append(f"Pareto front ({len(front)} points, by makespan):")
        for p in front:
            lines.append(f"  trial {p.number}: {_figures(p)}: {p.pipeline}")
            lines += ["  " + line for line in _gear_lines(p, workload)]
    else:
        best = result.best[0]
        speedup = base.figures.makespan_us / best.figures.makespan_us
        lines.append(f"best (trial {best.number}): {_figures(best)}, speed-up {speedup:.3f}x")
        lines += _gear_lines(best, workload)
        lines.append(f"  {command_line(model, best, ranks, topology, shapes)}")
    reasons = Counter(result.pruned.values())
    lines.append(f"pruned: {len(result.pruned)} trials")
    lines += [f"  {n} x {reason or '(no reason)'}" for reason, n in sorted(reasons.items())]
    return lines


def draw_front(result: TuneResult, path: str) -> None:
    """The Pareto front (makespan vs peak memory) with the baseline marked, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    front = _front(result)
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(
        [p.figures.makespan_us for p in front],
        [p.figures.peak_bytes / MIB for p in front],
        "o-",
        label="Pareto front",
    )
    base = result.baseline.figures
    axes.plot([base.makespan_us], [base.peak_bytes / MIB], "rx", markersize=10, label="baseline")
    axes.set_xlabel("makespan (us)")
    axes.set_ylabel("peak memory (MiB)")
    axes.set_title(result.study)
    axes.legend()
    figure.tight_layout()
    try:
        figure.savefig(path, format="png")
    except OSError as e:
        raise GeError(f"{path}: error: cannot write the plot: {e.strerror or e}") from None
    finally:
        plt.close(figure)


def run(argv: Sequence[str] | None) -> list[str]:
    args = _parser().parse_args(argv)
    _check(args)
    if not os.path.exists(args.input):
        raise GeError(f"{args.input}: error: no such file")
    graph = load_graph(args)
    from ge_dialect.tune.study import tune

    options: dict[str, Any] = {
        "trials": args.trials,
        "objective": args.objective,
        "storage": args.storage,
        "study": args.study,
        "workers": args.workers,
        "ray_address": args.ray,
        "timeout": args.timeout,
        "patience": args.patience,
        "ranks": args.ranks,
        "topology": args.topology,
        "seed": args.seed,
        "plugins": tuple(args.space_plugin),
    }
    result = tune(graph, **options)
    if args.pareto is not None:
        draw_front(result, args.pareto)
    workload = None if isinstance(graph, ModuleOp) else graph.workload
    return report(result, args.input, args.ranks, args.topology, args.input_shape, workload)


def load_graph(args: argparse.Namespace) -> Graph:
    """The input as ge-run loads it; with `--dim-sizes`, a geared graph: the workload and
    the model imported at each candidate gear."""
    shapes, lists = dynamic_dims(args.input_shape, args.dim_sizes, "--dim-sizes", "call")
    from ge_dialect.tune.evaluate import load_graph as load

    by_dim = {(name, dim): sizes for name, dim, sizes, _ in lists}
    try:
        return load(args.input, shapes, by_dim, args.max_gears)
    except GeError as e:
        raise GeError(str(e).splitlines()[0]) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point of ge-tune: 0 on success, 1 for an error, 2 for a usage error."""
    try:
        lines = run(argv)
    except UsageError as e:
        print(f"ge-tune: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except GeError as e:
        print(str(e).splitlines()[0] if str(e) else "ge-tune: error", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("ge-tune: error: interrupted (the finished trials are in the study)", file=sys.stderr)
        return EXIT_ERROR
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
