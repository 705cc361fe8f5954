"""Exact offsets of buffers in one workspace: a complete branch-and-bound search (no IR).

`search_offsets(sizes, conflicts, capacity, alignment, budget=)` finds offsets (multiples of
`alignment`) such that conflicting buffers never share a byte and every aligned buffer ends
at or below `capacity`, or proves that none exist.  `minimise_peak` walks the capacity down
from a known placement (by default the heuristic `offsets.assign_offsets`) and returns the
best placement found and whether it is proven optimal.  The input conventions are those of
`offsets.py` (general conflict lists, made symmetric; sizes rounded up to `alignment`; empty
buffers at offset 0 conflicting with nothing); the work is done in units of `alignment`.

Algorithm (the ideas of MiniMalloc, Moffitt 2023, re-derived here).

1. Canonical solutions.  Any valid placement can be compacted: while some buffer can move
   to a lower offset without an overlap, move it.  In a compacted placement every buffer
   sits at 0 or exactly on top of a conflicting buffer.  Taking its buffers by increasing
   offset, each one's offset is therefore its *floor*, the highest end among the conflicting
   buffers already taken (all those below it were taken before it).  So the search places
   buffers one at a time, each at its floor, with offsets never decreasing: a node is the
   set of placed buffers and the *level* (the last offset used); a child picks any unplaced
   buffer and puts it at max(floor, level).  Children are tried lowest offset first (then
   largest first), so the buffers at the minimal offset, MiniMalloc's canonical choice,
   come first.  This enumerates every compacted placement, hence finds one if any exists.
2. Spatial inference (pruning).  A node dies when some unplaced buffer, at
   max(floor, level), would end above the capacity; or when, for some clique of the
   conflict graph (a maximal clique grown greedily around every buffer, largest neighbours
   first: a cheap stand-in for the live sets of time points), the unplaced members plus the
   parts of placed members above the level need more than capacity - level: the members
   are pairwise disjoint and every unplaced one goes at or above the level.
3. Dominance.  The future of a node depends only on which buffers are placed and on the
   effective floors max(floor, level) of the others (an unplaced buffer at or above its
   floor avoids every placed neighbour).  Nodes proven dead are memoised by that key and
   never expanded twice.

The budget counts expanded nodes (deterministic, not time); `search_offsets` returns
("found", offsets), ("infeasible", None) or ("budget", None).  The search is depth-first
with an explicit stack; a node costs O(buffers + clique sizes), so proofs are practical for
tens of buffers, and larger instances mostly end in "budget".

    search_offsets([2, 2, 1], [[1], [0, 2], [1]], capacity=4)   # ("found", [0, 2, 0])
    search_offsets([2, 2, 1], [[1], [0, 2], [1]], capacity=3)   # ("infeasible", None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ge_dialect.utils.offsets import Placement, _prepare, assign_offsets, overlapping_pairs

Status = Literal["found", "infeasible", "budget"]

DEFAULT_BUDGET = 200_000
"""Search nodes one call may expand (a few seconds at most in pure Python)."""


class _OutOfBudget(Exception):
    pass


@dataclass
class _Frame:
    """A node being expanded: its memo key, state, and the next child to try."""

    key: tuple[int, tuple[int, ...]]
    placed: int
    floor: list[int]
    rest: list[int]
    order: list[int]
    next: int = 0


class _Search:
    """One search for a fixed capacity (in units of the alignment)."""

    def __init__(
        self, units: list[int], adj: list[list[int]], cliques: list[list[int]], budget: int
    ) -> None:
        self.units = units
        self.adj = adj
        self.cliques = cliques
        self.budget = budget
        self.nodes = 0
        self.items = [i for i, s in enumerate(units) if s]

    def run(self, capacity: int) -> tuple[Status, list[int] | None]:
        n = len(self.units)
        self.capacity = capacity
        self.dead: set[tuple[int, tuple[int, ...]]] = set()
        self.off = [0] * n
        self.end = [0] * n  # 0: not placed (a placed nonempty buffer ends above 0)
        if any(self.units[i] > capacity for i in self.items):
            return "infeasible", None
        try:
            ok = self._search()
        except _OutOfBudget:
            return "budget", None
        if not ok:
            return "infeasible", None
        return "found", list(self.off)

    def _search(self) -> bool:
        """Depth-first over the nodes, with an explicit stack (no recursion limit)."""
        units = self.units
        root = self._expand(0, [0] * len(units), 0)
        if isinstance(root, bool):
            return root
        stack = [root]
        while stack:
            frame = stack[-1]
            if frame.next:  # the previous child failed: unplace its buffer
                self.end[frame.order[frame.next - 1]] = 0
            if frame.next == len(frame.order):
                self.dead.add(frame.key)
                stack.pop()
                continue
            i = frame.order[frame.next]
            frame.next += 1
            placed, floor = frame.placed, frame.floor
            at = floor[i]
            top = at + units[i]
            self.off[i], self.end[i] = at, top
            child = list(floor)
            for j in frame.rest:
                if j != i and child[j] < at:
                    child[j] = at
            for j in self.adj[i]:
                if not placed >> j & 1 and child[j] < top:
                    child[j] = top
            result = self._expand(placed | 1 << i, child, at)
            if result is True:
                return True
            if result is not False:
                stack.append(result)
        return False

    def _expand(self, placed: int, floor: list[int], level: int) -> _Frame | bool:
        """The node where the buffers in the bit set `placed` are placed (offsets in
        self.off, ends in self.end) and unplaced buffer i's effective floor is `floor[i]`:
        True when nothing is left to place, False when it is known or found dead, else a
        frame listing its children."""
        rest = [i for i in self.items if not placed >> i & 1]
        if not rest:
            return True
        key = (placed, tuple(floor[i] for i in rest))
        if key in self.dead:
            return False
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        if not self._bounds_ok(placed, floor, level):
            self.dead.add(key)
            return False
        units = self.units
        order = sorted(rest, key=lambda i: (floor[i], -units[i], i))
        return _Frame(key, placed, floor, rest, order)

    def _bounds_ok(self, placed: int, floor: list[int], level: int) -> bool:
        units, cap = self.units, self.capacity
        for i in self.items:
            if not placed >> i & 1 and floor[i] + units[i] > cap:
                return False
        room = cap - level
        for clique in self.cliques:
            need = 0
            for i in clique:
                if placed >> i & 1:
                    e = self.end[i]
                    if e > level:
                        need += e - max(self.off[i], level)
                else:
                    need += units[i]
            if need > room:
                return False
        return True


def _cliques(units: list[int], adj: list[list[int]]) -> list[list[int]]:
    """A maximal clique grown greedily around every nonempty buffer (largest neighbours
    first), deduplicated; single buffers are left out (the per-buffer test covers them)."""
    sets = [set(row) for row in adj]
    seen: set[tuple[int, ...]] = set()
    out: list[list[int]] = []
    for i, s in enumerate(units):
        if not s or not adj[i]:
            continue
        clique = [i]
        for j in sorted(adj[i], key=lambda j: (-units[j], j)):
            if all(j in sets[k] for k in clique[1:]):
                clique.append(j)
        key = tuple(sorted(clique))
        if key not in seen:
            seen.add(key)
            out.append(list(key))
    return out


def search_offsets(
    sizes: Sequence[int],
    conflicts: Sequence[Sequence[int]],
    capacity: int,
    alignment: int = 1,
    *,
    budget: int = DEFAULT_BUDGET,
) -> tuple[Status, list[int] | None]:
    """Byte offsets with peak <= `capacity` bytes ("found"), a proof that none exist
    ("infeasible"), or "budget" when more than `budget` search nodes were needed."""
    units, adj = _prepare(sizes, conflicts, alignment)
    search = _Search(units, adj, _cliques(units, adj), budget)
    status, off = search.run(capacity // alignment)
    if off is None:
        return status, None
    return status, [o * alignment for o in off]


def minimise_peak(
    sizes: Sequence[int],
    conflicts: Sequence[Sequence[int]],
    alignment: int = 1,
    *,
    start_offsets: Sequence[int] | None = None,
    lower_bound: int = 0,
    budget: int = DEFAULT_BUDGET,
) -> tuple[Placement, bool]:
    """The lowest-peak placement found and whether it is proven optimal.  It starts from
    `start_offsets` (default: `assign_offsets`), then searches with capacity one unit of
    `alignment` below the best peak so far until a search proves infeasibility (optimal),
    the peak reaches a lower bound (`lower_bound` in bytes, trusted, or the largest clique
    found; optimal), or `budget` nodes in total are spent (not proven)."""
    units, adj = _prepare(sizes, conflicts, alignment)
    if start_offsets is None:
        best = assign_offsets(sizes, conflicts, alignment, lower_bound=lower_bound)
    else:
        offsets = [int(o) for o in start_offsets]
        if len(offsets) != len(units):
            raise ValueError(f"minimise_peak: {len(offsets)} offsets for {len(units)} buffers")
        if overlapping_pairs(sizes, conflicts, offsets, alignment):
            raise ValueError("minimise_peak: the start offsets are not a valid placement")
        peak = max((o + s * alignment for o, s in zip(offsets, units, strict=True) if s), default=0)
        best = Placement(offsets, peak)
    cliques = _cliques(units, adj)
    bound = max(
        -(-lower_bound // alignment),
        max(units, default=0),
        max((sum(units[i] for i in c) for c in cliques), default=0),
    )
    left = budget
    while best.peak // alignment > bound:
        search = _Search(units, adj, cliques, left)
        status, off = search.run(best.peak // alignment - 1)
        left -= search.nodes
        if status == "infeasible":
            return best, True
        if off is None:
            return best, False
        peak = max((o + s for o, s in zip(off, units, strict=True) if s), default=0)
        best = Placement([o * alignment for o in off], peak * alignment)
    return best, True
