"""Offsets of buffers in one workspace (no IR: numpy only).

`assign_offsets(sizes, conflicts, alignment)` gives every buffer a byte offset such that
buffers that conflict (`conflicts[i]` lists the buffers that must not share a byte with
buffer i; the relation is made symmetric here anyway) never overlap, and returns them with
the peak, max(offset + aligned size).  Sizes are rounded up to `alignment` and offsets are
multiples of it (the work is done in units of `alignment`).  Buffers of size 0 get offset 0
and conflict with nothing.  It is the static-allocation problem (DSA) on a general conflict
graph; for buffers live over step intervals (`interval_conflicts`) the most bytes live at one
step (`max_live`, XLA's heap-simulator bound) is a lower bound on the peak.

Algorithm.

1. Best-fit (`best_fit`; XLA's and TFLite's "greedy by size"): buffers in decreasing size
   (ties: lower index first); each goes into the smallest gap between its already placed
   neighbours that fits it (the lowest such gap among equal ones), else on top of the
   highest neighbour.  One pass costs O(sum over buffers of d log d), d the degree: linear in
   conflict edges, never all pairs.
2. A second order, decreasing size * (degree + 1) (TVM's "greedy by conflicts" weighted by
   size); the better of the two placements is kept.
3. Squeaky-wheel optimisation (Joslin & Clements, 1999): the buffers that end within 3% of
   the current peak (the wheels that squeak) move, in their current relative order, to the
   front of the order, and best-fit runs again; the best placement seen is kept.  It stops
   when the peak reaches a lower bound (the largest buffer, the largest conflicting pair, or
   the caller's `lower_bound`), when the order would not change, or when the budget is
   spent: about 5M units of work, a pass costing buffers + adjacency entries (3 to 64
   passes; about 20 for 10k buffers and 100k conflict pairs, 1 to 2 s).

Why: on bench/offsets.py's 14 generated instances (1k and 10k buffers, sizes log-uniform
from 512 B to 64 MiB, with and without huge buffers; random, long-lived among short, nested,
staircase, network-like and flat "parallel lanes" lifetimes), plain best-fit is at
1.0199 x max_live on geometric mean and up to 1.1225x (parallel lanes, 1k); steps 2-3 bring
that to 1.0086, reach max_live exactly on 11 of 14 instances (best-fit: 5), and cut the worst
case to 1.0525x, in 0.6-0.8 s for 10k buffers (best-fit alone: 0.06 s).  Several fixed
orders alone (size, conflicts, size * conflicts) gain less; squeaky wheels keep improving
with more passes (1.0000 on all but the parallel and staircase instances at 50 passes),
hence a work budget.  On tiny random interval instances it matches the brute-force optimum
on 1496 of 1500 (worst 1.21x; best-fit 1.27x).

Deterministic: no randomness, adjacency sorted, ties broken by index; the budget counts work,
not time.  The result is never worse than `best_fit` (its placement is the first candidate).

    conflicts = interval_conflicts([(0, 2), (1, 3), (2, 4)])   # [[1], [0, 2], [1]]
    placement = assign_offsets([512, 1024, 512], conflicts, alignment=512)
    placement.peak >= max_live([512, 1024, 512], [(0, 2), (1, 3), (2, 4)], 512)
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Placement:
    """Byte offsets of the buffers and the workspace they need: max(offset + aligned size)
    (0 without buffers)."""

    offsets: list[int]
    peak: int


def aligned(size: int, alignment: int) -> int:
    """`size` rounded up to a multiple of `alignment`."""
    return -(-size // alignment) * alignment


def best_fit(
    sizes: Sequence[int], conflicts: Sequence[Sequence[int]], alignment: int = 1
) -> Placement:
    """Plain best-fit by decreasing size (ties: lower index first), no improvement step."""
    units, adj = _prepare(sizes, conflicts, alignment)
    order = _by_size(units)
    offsets = _best_fit(order, units, adj)
    return _placement(offsets, units, alignment)


def assign_offsets(
    sizes: Sequence[int],
    conflicts: Sequence[Sequence[int]],
    alignment: int = 1,
    *,
    lower_bound: int = 0,
) -> Placement:
    """Offsets such that conflicting buffers never share a byte (module docstring).
    `lower_bound` (bytes, e.g. `max_live`) only stops the improvement step early once the
    peak reaches it."""
    units, adj = _prepare(sizes, conflicts, alignment)
    offsets = _improve(units, adj, -(-lower_bound // alignment))
    return _placement(offsets, units, alignment)


def overlapping_pairs(
    sizes: Sequence[int],
    conflicts: Sequence[Sequence[int]],
    offsets: Sequence[int],
    alignment: int = 1,
) -> list[tuple[int, int]]:
    """The conflicting pairs (i < j) whose aligned byte ranges intersect, or whose offsets
    are not multiples of `alignment`, as (i, i): empty for a valid placement."""
    bad: list[tuple[int, int]] = [(i, i) for i, o in enumerate(offsets) if o % alignment]
    sz = [aligned(int(s), alignment) for s in sizes]
    for i, row in enumerate(conflicts):
        for j in row:
            if i < j and sz[i] and sz[j]:
                if offsets[i] < offsets[j] + sz[j] and offsets[j] < offsets[i] + sz[i]:
                    bad.append((i, int(j)))
    return sorted(set(bad))


def interval_conflicts(intervals: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Conflict lists (sorted) of buffers live over half-open step intervals [start, end):
    two conflict iff their intervals intersect (an empty interval conflicts with nothing).
    A sweep in start order with a heap of live ends: O(n log n + E)."""
    n = len(intervals)
    for start, end in intervals:
        if end < start:
            raise ValueError(f"interval_conflicts: interval [{start}, {end}) ends before it starts")
    result: list[list[int]] = [[] for _ in range(n)]
    live: list[tuple[int, int]] = []  # (end, index), a heap
    for i in sorted(range(n), key=lambda i: (intervals[i][0], i)):
        start, end = intervals[i]
        if end == start:
            continue
        while live and live[0][0] <= start:
            heapq.heappop(live)
        row = result[i]
        for _, j in live:
            row.append(j)
            result[j].append(i)
        heapq.heappush(live, (end, i))
    for row in result:
        row.sort()
    return result


def max_live(sizes: Sequence[int], intervals: Sequence[tuple[int, int]], alignment: int = 1) -> int:
    """The most aligned bytes live at one step (XLA's heap-simulator bound: a lower bound on
    the peak of any placement of the buffers of `interval_conflicts(intervals)`)."""
    events: list[tuple[int, int]] = []
    for size, (start, end) in zip(sizes, intervals, strict=True):
        if end > start:
            a = aligned(int(size), alignment)
            events.append((start, a))
            events.append((end, -a))
    events.sort(key=lambda e: (e[0], e[1] > 0))  # at one step, ends before starts
    live = best = 0
    for _, delta in events:
        live += delta
        best = max(best, live)
    return best


# --------------------------------------------------------------------------------------
# internals: everything below works in units of `alignment`


_WORK = 5_000_000
"""Improvement budget: best-fit passes * (buffers + adjacency entries), about a second."""
_MIN_PASSES, _MAX_PASSES = 3, 64
_BAND = 33
"""Squeaky wheels: the buffers ending within 1/_BAND of the peak."""


def _prepare(
    sizes: Sequence[int], conflicts: Sequence[Sequence[int]], alignment: int
) -> tuple[list[int], list[list[int]]]:
    """Sizes in units of `alignment` and the symmetric, sorted, duplicate-free adjacency
    lists restricted to nonempty buffers."""
    if alignment < 1:
        raise ValueError(f"assign_offsets: alignment must be positive, got {alignment}")
    n = len(sizes)
    if len(conflicts) != n:
        raise ValueError(f"assign_offsets: {len(conflicts)} conflict lists for {n} buffers")
    units = []
    for s in sizes:
        if s < 0:
            raise ValueError(f"assign_offsets: negative size {s}")
        units.append(-(-int(s) // alignment))
    counts = np.fromiter((len(row) for row in conflicts), dtype=np.int64, count=n)
    total = int(counts.sum())
    src = np.repeat(np.arange(n, dtype=np.int64), counts)
    dst = np.fromiter(itertools.chain.from_iterable(conflicts), dtype=np.int64, count=total)
    if total and (dst.min() < 0 or dst.max() >= n):
        raise ValueError("assign_offsets: a conflict names a buffer out of range")
    nonempty = np.asarray(units, dtype=np.int64) > 0 if n else np.zeros(0, dtype=bool)
    keep = (src != dst) & nonempty[src] & nonempty[dst]
    src, dst = src[keep], dst[keep]
    key = np.sort(np.concatenate([src * n + dst, dst * n + src]))
    if len(key):
        key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    a, b = key // n, key % n
    bounds = np.searchsorted(a, np.arange(n + 1))
    flat = b.tolist()
    starts = bounds.tolist()
    adj = [flat[starts[i] : starts[i + 1]] for i in range(n)]
    return units, adj


def _placement(offsets: list[int], units: list[int], alignment: int) -> Placement:
    peak = max((o + s for o, s in zip(offsets, units, strict=True) if s), default=0)
    return Placement([o * alignment for o in offsets], peak * alignment)


def _by_size(units: list[int]) -> list[int]:
    return sorted(range(len(units)), key=lambda i: (-units[i], i))


def _best_fit(order: Sequence[int], units: list[int], adj: list[list[int]]) -> list[int]:
    """Best-fit in `order`: each buffer goes to the smallest gap among its placed
    neighbours that fits it (lowest first among equal gaps), else on top of the highest."""
    n = len(units)
    off = [0] * n
    end = [0] * n  # 0: not placed yet (a placed buffer ends above 0)
    for i in order:
        s = units[i]
        if not s:
            continue
        nb = [j for j in adj[i] if end[j]]
        nb.sort(key=off.__getitem__)
        cur = 0
        best_gap = -1
        best_at = 0
        for j in nb:
            gap = off[j] - cur
            if gap >= s and (best_gap < 0 or gap < best_gap):
                best_gap, best_at = gap, cur
                if gap == s:
                    break
            e = end[j]
            if e > cur:
                cur = e
        at = best_at if best_gap >= 0 else cur
        off[i] = at
        end[i] = at + s
    return off


def _peak(off: list[int], units: list[int]) -> int:
    return max((o + s for o, s in zip(off, units, strict=True) if s), default=0)


def _improve(units: list[int], adj: list[list[int]], lower_bound: int) -> list[int]:
    """Best-fit in two orders, then squeaky-wheel reordering (module docstring)."""
    n = len(units)
    work = n + sum(len(row) for row in adj)
    passes = max(_MIN_PASSES, min(_MAX_PASSES, _WORK // max(1, work)))
    # a trivial bound of its own: the largest buffer, the largest conflicting pair
    floor = max(lower_bound, max(units, default=0))
    for i, row in enumerate(adj):
        if row:
            floor = max(floor, units[i] + max(units[j] for j in row))

    by_size = _by_size(units)
    best_order, best = by_size, _best_fit(by_size, units, adj)
    best_peak = _peak(best, units)
    if best_peak <= floor:
        return best
    by_area = sorted(range(n), key=lambda i: (-units[i] * (len(adj[i]) + 1), i))
    other = _best_fit(by_area, units, adj)
    if _peak(other, units) < best_peak:
        best_order, best, best_peak = by_area, other, _peak(other, units)

    order, current, peak = best_order, best, best_peak
    for _ in range(passes - 2):
        if best_peak <= floor:
            break
        band = peak - peak // _BAND
        wheels = [i for i in order if units[i] and current[i] + units[i] >= band]
        if order[: len(wheels)] == wheels:
            break  # the same order again: the same placement
        squeaky = set(wheels)
        order = wheels + [i for i in order if i not in squeaky]
        current = _best_fit(order, units, adj)
        peak = _peak(current, units)
        if peak < best_peak:
            best, best_peak = current, peak
    return best
