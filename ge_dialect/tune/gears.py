"""Dimension gears in ge-tune: which sizes of a graph's dynamic dims get a compiled graph.

TorchAir compiles one graph per gear (`set_dim_gears`) and, with `pad_to_gear`, runs a call
at the smallest gear that holds its sizes.  Serving sees many sizes (the decode batch grows
and shrinks); compiling a graph for each costs compile time and graph memory, so a handful
of gears is chosen and every call pays for the padding up to its gear.  A `Workload` names
the dynamic dims (input, dim) and the sizes calls take there (one tuple per call: repeats
weigh), and the most gears allowed.

Which gears are best depends on the pipeline (it sets each size's makespan), so every trial
chooses them for its own setting: each candidate size is measured once (`measure` of
`evaluate`, memoised), and `choose` picks, among the workload's own sizes, the set of at
most `max_gears` gears (the largest sizes always among them) with the least expected
makespan.  A gear that is no call's size never helps: lowering it to the largest call it
serves costs nothing more.  When the sizes form a chain (one dim, or several that grow
together) the choice is exact (dynamic programming over the sorted sizes); otherwise gears
are added greedily, the one that lowers the expected makespan most first.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Point = tuple[int, ...]
"""The sizes of the geared dims in one call (or of one gear), in `Workload.dims` order."""

MAX_GEARS = 100  # TorchAir's limit on the gears of a graph


@dataclass(frozen=True)
class Workload:
    """The dynamic dims (input name, dim index), the sizes each call takes there, and the
    most gears allowed."""

    dims: tuple[tuple[str, int], ...]
    calls: tuple[Point, ...]
    max_gears: int = 4

    def points(self) -> list[Point]:
        """The distinct call sizes, smallest product first."""
        return sorted(set(self.calls), key=lambda p: (math.prod(p), p))

    def top(self) -> Point:
        """The gear every call fits: the largest size of each dim."""
        return tuple(max(sizes) for sizes in zip(*self.calls, strict=True))

    def candidates(self) -> list[Point]:
        """The sizes a gear may take: the calls' sizes and the top."""
        points = self.points()
        return points if self.top() in points else [*points, self.top()]

    def label(self, gear: Point) -> str:
        """A gear as ge-run prints it: `x:0=4 y:0=16`."""
        return " ".join(
            f"{name}:{dim}={size}" for (name, dim), size in zip(self.dims, gear, strict=True)
        )

    def gear_flags(self, gears: Sequence[Point]) -> tuple[str, ...]:
        """ge-run's `--gears NAME:DIM=G1,G2,...` flags for `gears` (one per dim, zipped)."""
        flags: list[str] = []
        for k, (name, dim) in enumerate(self.dims):
            flags += ["--gears", f"{name}:{dim}=" + ",".join(str(g[k]) for g in gears)]
        return tuple(flags)


def gear_of(point: Point, gears: Sequence[Point]) -> Point | None:
    """The gear a call of `point`'s sizes runs at (TorchAir's pad_to_gear): the smallest,
    by product, that holds it in every dim; None if none does."""
    fits = [g for g in gears if all(a <= b for a, b in zip(point, g, strict=True))]
    return min(fits, key=lambda g: (math.prod(g), g)) if fits else None


def expected(workload: Workload, gears: Sequence[Point], cost: Mapping[Point, float]) -> float:
    """The mean cost of the workload's calls, each run at its gear."""
    total = 0.0
    for point, n in Counter(workload.calls).items():
        gear = gear_of(point, gears)
        if gear is None:
            return math.inf
        total += n * cost[gear]
    return total / len(workload.calls)


def _chain(points: Sequence[Point]) -> bool:
    return all(
        all(a <= b for a, b in zip(p, q, strict=True))
        for p, q in zip(points, points[1:], strict=False)
    )


def choose(workload: Workload, cost: Mapping[Point, float]) -> tuple[list[Point], float]:
    """The gears (at most `workload.max_gears`, among the sizes in `cost`, the top always
    one) with the least expected cost, and that cost.  A size missing from `cost` (it did
    not compile) is no candidate; the top must be there."""
    top = workload.top()
    candidates = [p for p in workload.candidates() if p in cost]
    if _chain(workload.candidates()):
        gears = _choose_on_chain(workload, candidates, cost)
    else:
        gears = _choose_greedily(workload, candidates, cost, top)
    return gears, expected(workload, gears, cost)


def _choose_on_chain(
    workload: Workload, candidates: list[Point], cost: Mapping[Point, float]
) -> list[Point]:
    """Exact on a chain: best[k][j] is the least total cost of the calls up to candidate j
    with k gears, candidate j the highest of them (each call runs at the first gear above
    or at it)."""
    weight = [0] * len(candidates)
    for point, count in Counter(workload.calls).items():
        weight[candidates.index(gear_of(point, candidates))] += count  # type: ignore[arg-type]
    n = len(candidates)
    prefix = [0]
    for w in weight:
        prefix.append(prefix[-1] + w)
    inf = math.inf
    best = [[inf] * n for _ in range(workload.max_gears + 1)]
    back = [[-1] * n for _ in range(workload.max_gears + 1)]
    for j in range(n):
        best[1][j] = prefix[j + 1] * cost[candidates[j]]
    for k in range(2, workload.max_gears + 1):
        for j in range(n):
            for i in range(j):
                total = best[k - 1][i] + (prefix[j + 1] - prefix[i + 1]) * cost[candidates[j]]
                if total < best[k][j]:
                    best[k][j], back[k][j] = total, i
    last = n - 1  # the top: every call fits it
    k = min(range(1, workload.max_gears + 1), key=lambda k: (best[k][last], k))
    gears = []
    j = last
    while j >= 0 and k >= 1:
        gears.append(candidates[j])
        j, k = back[k][j], k - 1
    return sorted(gears, key=lambda p: (math.prod(p), p))


def _choose_greedily(
    workload: Workload, candidates: list[Point], cost: Mapping[Point, float], top: Point
) -> list[Point]:
    gears = [top]
    value = expected(workload, gears, cost)
    while len(gears) < workload.max_gears:
        options = [(expected(workload, [*gears, c], cost), c) for c in candidates if c not in gears]
        if not options or min(options)[0] >= value:
            break
        value, chosen = min(options)
        gears.append(chosen)
    return sorted(gears, key=lambda p: (math.prod(p), p))
