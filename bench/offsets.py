"""Offset assignment on hard generated instances: peak against the sequential lower bound.

For each instance (buffers live over half-open step intervals, conflicts = overlapping
intervals) it prints n, the conflict pairs, the lower bound `max_live` (the most aligned
bytes live at one step, XLA's heap-simulator bound), and for plain best-fit by decreasing
size (`best_fit`) and for `assign_offsets` (best-fit plus the improvement step) the ratio
peak / max_live and the time (best of `--repeat`, conflicts given; `assign` runs its whole
budget, `+bound` is the time when given `lower_bound=max_live`, as the planner calls it, which
stops once the peak reaches the bound), and the bytes saved over best-fit.  It asserts
nothing.

Sizes are log-uniform from 512 B to 64 MiB (aligned to 512 bytes) unless said otherwise.
The families, at 1k and 10k buffers:

- `random`: starts uniform, log-uniform lengths (about 10 buffers live at once);
- `random+huge`: the same plus 3 huge buffers (128 to 512 MiB); they set max_live and
  everything else fits beside them, so both planners reach the bound: huge buffers alone
  make no instance hard, which is why the other families have none;
- `long+short`: 5% long-lived buffers (a third to all of the steps) among short ones;
- `nested`: nested lifetimes (an encoder-decoder: buffer k lives over [k, T - k)), with
  short temporaries in between;
- `staircase`: overlapping runs (8 to 23 buffers living 3 to 11 steps, one starting per
  step) whose sizes rise (or fall) by 10% a step, the pattern that traps greedy-by-size;
- `parallel`: 12 lanes of back-to-back buffers (1 to 29 steps, 1 to 16 MiB): a flat live
  profile, so fragmentation anywhere raises the peak;
- `layers`: a network-like sequence (an activation per step living 1 to 3 steps, skip
  connections living 10 to 60 steps, workspaces living 1 step).

The `exact` column runs `offset_search.minimise_peak` after `assign_offsets` (its
placement as the start, `max_live` as the bound, `--budget` search nodes) and `time s` is
the search's own time; `optimal` says whether its peak is proven optimal.

`--minimalloc DIR` runs MiniMalloc's benchmark instead: every `*.csv` in DIR (columns id,
lower, upper, size; lifespans half-open; the capacity is the number in the file name
`NAME.CAPACITY.csv`, or `--capacity`), e.g. the 11 "challenging" instances bundled in
bench/data/minimalloc.  Per instance it prints the buffers, `assign_offsets`' peak over
the capacity and time, and the exact search's answer at the capacity (found, infeasible,
or budget spent) with its peak over the capacity and time, then how many fit.

    python bench/offsets.py [--sizes 1000 10000] [--repeat 3] [--seed 0] [--budget 20000]
    python bench/offsets.py --minimalloc bench/data/minimalloc [--budget 1000000]
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from timer import measure, stopwatch

from ge_dialect.utils.offset_search import minimise_peak, search_offsets
from ge_dialect.utils.offsets import assign_offsets, best_fit, interval_conflicts, max_live

ALIGN = 512
Instance = tuple[list[int], list[tuple[int, int]]]


def _sizes(rng: np.random.Generator, n: int, huge: int = 0) -> list[int]:
    """Log-uniform in [512 B, 64 MiB], and `huge` buffers of 128 to 512 MiB."""
    sizes = np.exp(rng.uniform(np.log(512), np.log(64 * 2**20), n)).astype(np.int64)
    for i in rng.choice(n, size=min(huge, n), replace=False):
        sizes[i] = int(rng.integers(128 * 2**20, 512 * 2**20))
    return [int(s) for s in sizes]


def random_intervals(rng: np.random.Generator, n: int) -> Instance:
    steps = n
    starts = rng.integers(0, steps, n)
    lengths = np.exp(rng.uniform(0, np.log(40), n)).astype(np.int64)
    return _sizes(rng, n), [(int(s), int(s + ln)) for s, ln in zip(starts, lengths, strict=True)]


def random_huge(rng: np.random.Generator, n: int) -> Instance:
    _, intervals = random_intervals(rng, n)
    return _sizes(rng, n, huge=3), intervals


def long_and_short(rng: np.random.Generator, n: int) -> Instance:
    steps = n // 2
    long_lived = max(4, n // 500)
    intervals = []
    for k in range(n):
        if k < long_lived:
            length = int(rng.integers(steps // 3, steps + 1))
        else:
            length = int(rng.integers(1, 12))
        start = int(rng.integers(0, max(1, steps - length + 1)))
        intervals.append((start, start + length))
    return _sizes(rng, n), intervals


def nested(rng: np.random.Generator, n: int) -> Instance:
    sizes = _sizes(rng, n)
    intervals: list[tuple[int, int]] = []
    start = 0
    while len(intervals) < n:
        # a U-shaped block: `depth` nested buffers shrinking inwards, temporaries inside
        depth = int(rng.integers(4, 13))
        width = 2 * depth + 2
        top = float(np.exp(rng.uniform(np.log(2**20), np.log(64 * 2**20))))
        for k in range(depth):
            if len(intervals) < n:
                sizes[len(intervals)] = max(512, int(top * 0.8**k * rng.uniform(0.8, 1.2)))
                intervals.append((start + k, start + width - k))
        for _ in range(3 * depth):
            if len(intervals) < n:
                s = start + int(rng.integers(0, width))
                intervals.append((s, s + int(rng.integers(1, 4))))
        start += width - int(rng.integers(0, depth))
    return sizes, intervals


def staircase(rng: np.random.Generator, n: int) -> Instance:
    sizes: list[int] = []
    intervals: list[tuple[int, int]] = []
    start = 0
    while len(sizes) < n:
        run = int(rng.integers(8, 24))
        width = int(rng.integers(3, 12))
        base = float(np.exp(rng.uniform(np.log(4096), np.log(8 * 2**20))))
        rising = rng.random() < 0.5
        for k in range(min(run, n - len(sizes))):
            step = k if rising else run - k
            sizes.append(int(base * (1.1**step) * rng.uniform(0.9, 1.1)))
            intervals.append((start + k, start + k + width))
        start += run // 2
    return sizes, intervals


def parallel(rng: np.random.Generator, n: int) -> Instance:
    lanes = 12
    sizes: list[int] = []
    intervals: list[tuple[int, int]] = []
    clock = [0] * lanes
    while len(sizes) < n:
        lane = len(sizes) % lanes
        length = int(rng.integers(1, 30))
        sizes.append(int(np.exp(rng.uniform(np.log(2**20), np.log(16 * 2**20)))))
        intervals.append((clock[lane], clock[lane] + length))
        clock[lane] += length
    return sizes, intervals


def layers(rng: np.random.Generator, n: int) -> Instance:
    sizes = _sizes(rng, n)
    intervals: list[tuple[int, int]] = []
    step = 0
    while len(intervals) < n:
        kind = rng.random()
        if kind < 0.6:
            intervals.append((step, step + int(rng.integers(1, 4))))
        elif kind < 0.75:
            intervals.append((step, step + int(rng.integers(10, 61))))
        else:
            intervals.append((step, step + 1))
        step += int(rng.random() < 0.7)
    return sizes, intervals


FAMILIES: dict[str, Callable[[np.random.Generator, int], Instance]] = {
    "random": random_intervals,
    "random+huge": random_huge,
    "long+short": long_and_short,
    "nested": nested,
    "staircase": staircase,
    "layers": layers,
    "parallel": parallel,
}


def read_minimalloc(path: Path) -> Instance:
    """Sizes and half-open lifespans [lower, upper) of a MiniMalloc CSV (id, lower, upper,
    size; any column order)."""
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    missing = {"lower", "upper", "size"} - set(rows[0] if rows else ())
    if missing:
        raise SystemExit(f"{path}: error: missing columns {', '.join(sorted(missing))}")
    sizes = [int(r["size"]) for r in rows]
    return sizes, [(int(r["lower"]), int(r["upper"])) for r in rows]


def minimalloc(folder: Path, capacity: int | None, budget: int) -> None:
    """The MiniMalloc benchmark: heuristic and exact search at each instance's capacity."""
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise SystemExit(f"{folder}: error: no *.csv instances")
    print(
        f"{'instance':<22}{'n':>5}{'capacity':>10}{'assign':>9}{'time s':>8}"
        f"{'search':>12}{'peak':>9}{'time s':>8}"
    )
    fits = 0
    for path in files:
        cap = capacity if capacity is not None else int(path.name.split(".")[-2])
        sizes, intervals = read_minimalloc(path)
        conflicts = interval_conflicts(intervals)
        with stopwatch() as t_as:
            placed = assign_offsets(sizes, conflicts)
        with stopwatch() as t_search:
            status, offsets = search_offsets(
                sizes, conflicts, cap, budget=budget, intervals=intervals
            )
        if offsets is not None:
            peak = max((o + s for o, s in zip(offsets, sizes, strict=True) if s), default=0)
            fits += 1
            shown = f"{peak / cap:.4f}"
        else:
            shown = "-"
        print(
            f"{path.name:<22}{len(sizes):>5}{cap:>10}{placed.peak / cap:>9.4f}"
            f"{t_as.seconds:>8.2f}{status:>12}{shown:>9}{t_search.seconds:>8.2f}"
        )
        sys.stdout.flush()
    print(f"within the capacity: {fits} of {len(files)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=None, help="exact search nodes")
    parser.add_argument("--minimalloc", type=Path, help="a folder of MiniMalloc CSV instances")
    parser.add_argument("--capacity", type=int, help="MiniMalloc: instead of the file names'")
    args = parser.parse_args()
    if args.minimalloc is not None:
        minimalloc(args.minimalloc, args.capacity, args.budget or 1_000_000)
        return
    budget = args.budget or 20_000
    print(
        f"{'instance':<18}{'n':>7}{'conflicts':>10}{'max_live MiB':>14}"
        f"{'best-fit':>10}{'time s':>8}{'assign':>9}{'time s':>8}{'+bound':>8}{'gain':>8}"
        f"{'exact':>9}{'time s':>8}{'optimal':>8}"
    )
    totals: dict[str, list[float]] = {"bf": [], "as": [], "ex": []}
    for n in args.sizes:
        for name, make in FAMILIES.items():
            rng = np.random.default_rng([args.seed, n, len(name)])
            sizes, intervals = make(rng, n)
            conflicts = interval_conflicts(intervals)
            pairs = sum(len(row) for row in conflicts) // 2
            bound = max_live(sizes, intervals, ALIGN)
            t_bf, plain = measure(partial(best_fit, sizes, conflicts, ALIGN), args.repeat)
            t_as, placed = measure(partial(assign_offsets, sizes, conflicts, ALIGN), args.repeat)
            with_bound = partial(assign_offsets, sizes, conflicts, ALIGN, lower_bound=bound)
            t_lb, _ = measure(with_bound, args.repeat)
            with stopwatch() as t_ex:
                outcome = minimise_peak(
                    sizes,
                    conflicts,
                    ALIGN,
                    start_offsets=placed.offsets,
                    lower_bound=bound,
                    budget=budget,
                    intervals=intervals,
                )
            r_bf, r_as = plain.peak / bound, placed.peak / bound
            r_ex = outcome.placement.peak / bound
            totals["bf"].append(r_bf)
            totals["as"].append(r_as)
            totals["ex"].append(r_ex)
            print(
                f"{name:<18}{len(sizes):>7}{pairs:>10}{bound / 2**20:>14.1f}"
                f"{r_bf:>10.4f}{t_bf:>8.3f}{r_as:>9.4f}{t_as:>8.3f}{t_lb:>8.3f}"
                f"{100 * (1 - placed.peak / plain.peak):>7.2f}%"
                f"{r_ex:>9.4f}{t_ex.seconds:>8.2f}{'yes' if outcome.proven else 'no':>8}"
            )
            sys.stdout.flush()
    gm = {k: float(np.exp(np.mean(np.log(v)))) for k, v in totals.items()}
    exact = {k: sum(r == 1.0 for r in v) for k, v in totals.items()}
    print(
        f"peak / max_live, geometric mean (max): best-fit {gm['bf']:.4f} ({max(totals['bf']):.4f}),"
        f" assign {gm['as']:.4f} ({max(totals['as']):.4f}), exact {gm['ex']:.4f}"
        f" ({max(totals['ex']):.4f}); at the bound on {exact['bf']}, {exact['as']} and"
        f" {exact['ex']} of {len(totals['bf'])} instances"
    )


if __name__ == "__main__":
    main()
