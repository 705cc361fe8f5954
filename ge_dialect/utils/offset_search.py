"""Exact offsets of buffers in one workspace: a complete branch-and-bound search (no IR).

`search_offsets(sizes, conflicts, capacity, alignment, budget=)` finds offsets (multiples of
`alignment`) such that conflicting buffers never share a byte and every aligned buffer ends
at or below `capacity`, or proves that none exist.  `minimise_peak` lowers the capacity from
a known placement (by default the heuristic `offsets.assign_offsets`) towards a lower bound
and returns the best placement found and whether it is proven optimal.  The input
conventions are those of `offsets.py` (general conflict lists, made symmetric; sizes rounded
up to `alignment`; empty buffers at offset 0 conflicting with nothing); the work is done in
units of `alignment`.

Algorithm: MiniMalloc's (Moffitt, ASPLOS 2023), re-derived for general conflict graphs.

*Sections* are cliques of the conflict graph: buffers that are pairwise live together.  For
buffers over step intervals (`interval_sections`) they are the buffers live just before each
distinct interval end, in step order, so every buffer spans a contiguous run of them;
otherwise a maximal clique is grown greedily around every buffer (unordered).

1. Canonical solutions.  Any valid placement can be compacted: while some buffer can move
   down without an overlap, move it.  Then every buffer sits at its *floor*, the highest end
   among the conflicting buffers below it.  The search builds placements in increasing
   (offset, rank) order, rank being a static preorder of the buffers: a child puts an
   unplaced buffer exactly at its current floor, which may be neither below the last offset
   used nor, at that same offset, of a lower rank.  Every compacted placement is built
   exactly once this way, so the search is complete.
2. Dominance.  A buffer whose floor is at or above some unplaced buffer's floor + size is
   never placed next: that buffer would then fit below it and stay movable (no compacted
   placement has that gap).  After a buffer with no unplaced neighbour fails, its siblings
   fail too (nothing above it depends on it), so they are not tried.
3. Section inference.  The unplaced members of a section are pairwise disjoint and lie above
   the section's placed members, above the last offset used and above the lowest floor
   among them: a node dies when, for some section, that floor plus their total size
   exceeds the capacity.
4. Decomposition (step-ordered sections).  When no unplaced buffer spans the boundary
   between two sections any more, the unplaced buffers on either side no longer interact:
   each side is solved on its own, with its own preorder.
5. Round robin over three preorders (width, area, total section size), each with a node
   limit that doubles, as MiniMalloc does: a bad order is abandoned early.
6. Memo (not in MiniMalloc).  A node's future depends only on the unplaced buffers, their
   floors, the last offset and rank used and the subproblem: nodes proven dead are
   remembered per preorder (across its tries) and not expanded again.

Without the memo the search visits exactly the nodes MiniMalloc's C++ solver visits on its
11 "challenging" instances (A-K; the counts of an instrumented build of its solver); the memo
cuts them by 0-80% (bench/offsets.py --minimalloc prints the figures).

The budget counts work over all tries (deterministic, not time): a node costs 1 + its
unplaced buffers / 64, about proportional to its time.  `search_offsets`
returns ("found", offsets), ("infeasible", None) or ("budget", None).  The recursion is as
deep as the number of buffers; the limit is raised for the call.

    search_offsets([2, 2, 1], [[1], [0, 2], [1]], capacity=4)   # ("found", [0, 2, 0])
    search_offsets([2, 2, 1], [[1], [0, 2], [1]], capacity=3)   # ("infeasible", None)
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from ge_dialect.utils.offsets import Placement, _prepare, assign_offsets, overlapping_pairs

Status = Literal["found", "infeasible", "budget"]

DEFAULT_BUDGET = 200_000
"""Work one call may spend (node costs, see above; tens of seconds at most)."""

PREORDERS = ("WAT", "TAW", "TWA")
"""MiniMalloc's default preorders, by decreasing W (width: steps or sections spanned),
A (area: size * width), T (total: the largest section total the buffer is in)."""


class _OutOfNodes(Exception):
    pass


@dataclass(frozen=True)
class Sections:
    """Cliques of the conflict graph used for inference; `ordered` when they follow the
    steps and every buffer spans a contiguous run (`first[i]` .. `last[i]` inclusive),
    which allows decomposition.  `width[i]` orders the buffers (steps or sections)."""

    members: list[list[int]]
    of_buffer: list[list[int]]
    width: list[int]
    ordered: bool


def interval_sections(intervals: Sequence[tuple[int, int]]) -> Sections:
    """Sections of buffers live over half-open step intervals [start, end): the buffers
    live just before each distinct end, in step order (they include every maximal clique,
    and every buffer is in the one at its own end)."""
    ends = sorted({end for start, end in intervals if end > start})
    members: list[list[int]] = [[] for _ in ends]
    of_buffer: list[list[int]] = []
    for i, (start, end) in enumerate(intervals):
        span = (
            list(range(bisect.bisect_right(ends, start), bisect.bisect_right(ends, end)))
            if end > start
            else []
        )
        of_buffer.append(span)
        for s in span:
            members[s].append(i)
    return Sections(members, of_buffer, [max(end - start, 0) for start, end in intervals], True)


def clique_sections(units: Sequence[int], adj: Sequence[Sequence[int]]) -> Sections:
    """Sections of a general conflict graph: a maximal clique grown greedily around every
    nonempty buffer (largest neighbours first), deduplicated; unordered."""
    neighbours = [set(row) for row in adj]
    seen: dict[tuple[int, ...], int] = {}
    members: list[list[int]] = []
    of_buffer: list[list[int]] = [[] for _ in units]
    for i, s in enumerate(units):
        if not s:
            continue
        clique = [i]
        for j in sorted(adj[i], key=lambda j: (-units[j], j)):
            if all(j in neighbours[k] for k in clique):
                clique.append(j)
        key = tuple(sorted(clique))
        if key not in seen:
            seen[key] = len(members)
            members.append(list(key))
            for j in key:
                of_buffer[j].append(seen[key])
    return Sections(members, of_buffer, [len(row) for row in of_buffer], ordered=False)


class _Search:
    """One feasibility search for a fixed capacity (in units of the alignment)."""

    def __init__(
        self,
        units: list[int],
        adj: list[list[int]],
        sections: Sections,
        capacity: int,
        budget: int,
        memo: bool = True,
    ) -> None:
        self.units, self.adj, self.sec = units, adj, sections
        self.memo = memo
        self.capacity = capacity
        self.budget = budget
        self.nodes = 0  # nodes visited (MiniMalloc's count)
        self.work = 0  # what the budget counts: a node costs 1 + its buffers / 64
        # buffers in no section (an empty interval) conflict with nothing: they stay at 0
        self.items = [i for i, s in enumerate(units) if s and sections.of_buffer[i]]
        self.solution = [0] * len(units)
        self.failed: dict[str, set[tuple[object, ...]]] = {}
        self._reset()

    def _reset(self) -> None:
        """The root state (a try cut short by its node limit leaves its state behind)."""
        units, sections = self.units, self.sec
        n, m = len(units), len(sections.members)
        self.off = [-1] * n
        self.floor = [0] * n
        self.sec_floor = [0] * m
        self.sec_total = [sum(units[i] for i in row) for row in sections.members]
        self.cuts = [0] * max(m - 1, 0)
        if sections.ordered:
            for i in self.items:
                for s in sections.of_buffer[i][:-1]:
                    self.cuts[s] += 1

    def run(self) -> Status:
        if max(self.units, default=0) > self.capacity or any(
            t > self.capacity for t in self.sec_total
        ):
            return "infeasible"
        if not self.items:
            return "found"
        node_limit = 2 * len(self.items)
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 4 * len(self.units) + 1000))
        try:
            while True:
                for preorder in PREORDERS:
                    self.nodes_left = node_limit
                    try:
                        found = self._solve_all(preorder)
                    except _OutOfNodes:
                        found = None
                        self._reset()
                    if found is not None:
                        return "found" if found else "infeasible"
                    if self.work > self.budget:
                        return "budget"
                node_limit *= 2
        finally:
            sys.setrecursionlimit(old_limit)

    def _solve_all(self, preorder: str) -> bool:
        self._preorder = preorder
        self._failed = self.failed.setdefault(preorder, set())
        everything = range(len(self.sec.members))
        if not self.sec.ordered:
            return self._subsolve(self.items, everything)
        return self._decompose(self.items, everything, None, {})

    def _decompose(
        self, part: list[int], secs: range, placed: int | None, rank: dict[int, int]
    ) -> bool:
        """Solves the unplaced buffers of `part` (over sections `secs`) after `placed`
        (None: at the root), split into independent runs of sections where no unplaced
        buffer spans a cut; without a split the search goes on after `placed`."""
        cutpoints = [secs.start]
        if placed is None:
            cutpoints += [s + 1 for s in secs[:-1] if self.cuts[s] == 0]
        else:
            span = self.sec.of_buffer[placed]
            for s in span[:-1]:
                self.cuts[s] -= 1
                if self.cuts[s] == 0:
                    cutpoints.append(s + 1)
        try:
            if len(cutpoints) == 1:
                if placed is None:
                    return self._subsolve(part, secs)
                return self._dfs(part, secs, rank, self.off[placed], rank[placed])
            cutpoints.append(secs.stop)
            of_buffer = self.sec.of_buffer
            for lo, hi in zip(cutpoints, cutpoints[1:], strict=False):
                sub = [
                    i
                    for i in part
                    if self.off[i] < 0 and of_buffer[i][0] < hi and of_buffer[i][-1] >= lo
                ]
                if sub and not self._subsolve(sub, range(lo, hi)):
                    return False
            return True
        finally:
            if placed is not None:
                for s in self.sec.of_buffer[placed][:-1]:
                    self.cuts[s] += 1

    def _subsolve(self, part: list[int], secs: range) -> bool:
        order = sorted(part, key=_preorder_key(self._preorder, self))
        rank = {i: k for k, i in enumerate(order)}
        return self._dfs(part, secs, rank, 0, 0)

    def _dfs(
        self, part: list[int], secs: range, rank: dict[int, int], level: int, last: int
    ) -> bool:
        """The node after placing a buffer of rank `last` at offset `level`: tries the
        candidates (canonical order, dominance) that pass the inference, deepest first."""
        self.nodes += 1
        self.nodes_left -= 1
        self.work += 1 + (len(part) >> 6)
        if self.nodes_left < 0 or self.work > self.budget:
            raise _OutOfNodes
        off, floor, units = self.off, self.floor, self.units
        rest = [i for i in part if off[i] < 0]
        if not rest:
            return True
        key = (secs.start, level, last, tuple(rest), tuple([floor[i] for i in rest]))
        if self.memo and key in self._failed:
            return False
        min_height = min([floor[i] + units[i] for i in rest])
        # canonical order: not below the last offset used, nor of a lower rank at it;
        # dominance: not where some unplaced buffer would fit entirely below
        candidates = [i for i in rest if level <= floor[i] < min_height]
        candidates.sort(key=lambda i: (floor[i], rank[i]))
        # sections by decreasing unplaced total: a candidate at offset `at` leaves every
        # section it is not in with `at` + its total to fit below the capacity
        sec_total = self.sec_total
        tight = sorted(secs, key=lambda s: -sec_total[s])
        for i in candidates:
            at = floor[i]
            if at == level and rank[i] < last:
                continue
            if not self._fits(i, at, tight):
                if self._hatless(i):
                    break
                continue
            raised, old_floors, ok = self._place(i, at)
            if ok:
                if self.sec.ordered:
                    ok = self._decompose(rest, secs, i, rank)
                else:
                    ok = self._dfs(rest, secs, rank, at, rank[i])
                if ok:
                    self.solution[i] = at
            self._unplace(i, raised, old_floors)
            if ok:
                return True
            if self._hatless(i):
                break  # nothing above it depends on it: its siblings fail as well
        self._failed.add(key)
        return False

    def _hatless(self, i: int) -> bool:
        off = self.off
        return all(off[j] >= 0 for j in self.adj[i])

    def _fits(self, i: int, at: int, tight: list[int]) -> bool:
        """Section inference before placing buffer i at `at`: the sections it is not in
        (`tight`, by decreasing total) above `at`, those it is in above its top."""
        sec_floor, sec_total, cap = self.sec_floor, self.sec_total, self.capacity
        span = self.sec.of_buffer[i]
        room = cap - at
        for s in tight:
            if sec_total[s] <= room:
                break
            if s not in span:
                return False
        size = self.units[i]
        top = at + size
        for s in span:
            f = sec_floor[s]
            if (f if f > top else top) + sec_total[s] - size > cap:
                return False
        return True

    def _place(self, i: int, at: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]], bool]:
        """Places buffer i at `at`: raises its unplaced neighbours' floors and its sections'
        floors; the changes (to undo) and whether the placement survives the inference."""
        off, floor, units, cap = self.off, self.floor, self.units, self.capacity
        sec_floor, sec_total = self.sec_floor, self.sec_total
        top = at + units[i]
        off[i] = at
        ok = True
        raised: list[tuple[int, int]] = []
        for j in self.adj[i]:
            if off[j] < 0 and floor[j] < top:
                raised.append((j, floor[j]))
                floor[j] = top
                if top + units[j] > cap:
                    ok = False
        span = self.sec.of_buffer[i]
        old_floors = [(s, sec_floor[s]) for s in span]
        for s in span:
            if sec_floor[s] < top:
                sec_floor[s] = top
            sec_total[s] -= units[i]
        return raised, old_floors, ok and (not raised or self._lowest_floors_fit(raised))

    def _lowest_floors_fit(self, raised: list[tuple[int, int]]) -> bool:
        """A section's unplaced members all lie at or above their lowest floor: in every
        section of a raised buffer some must have a floor within the room their total
        leaves."""
        off, floor, cap = self.off, self.floor, self.capacity
        of_buffer, members, sec_total = self.sec.of_buffer, self.sec.members, self.sec_total
        if self.sec.ordered:  # the raised buffers all meet the placed one: one run
            affected: Iterable[int] = range(
                min(of_buffer[j][0] for j, _ in raised),
                max(of_buffer[j][-1] for j, _ in raised) + 1,
            )
        else:
            affected = sorted({s for j, _ in raised for s in of_buffer[j]})
        for s in affected:
            limit = cap - sec_total[s]
            alone = True
            for j in members[s]:
                if off[j] < 0:
                    if floor[j] <= limit:
                        break
                    alone = False
            else:
                if not alone:
                    return False
        return True

    def _unplace(
        self, i: int, raised: list[tuple[int, int]], old_floors: list[tuple[int, int]]
    ) -> None:
        sec_floor, sec_total, floor, size = (
            self.sec_floor,
            self.sec_total,
            self.floor,
            self.units[i],
        )
        for s, f in reversed(old_floors):
            sec_floor[s] = f
        for s in self.sec.of_buffer[i]:
            sec_total[s] += size
        for j, f in reversed(raised):
            floor[j] = f
        self.off[i] = -1


def _preorder_key(letters: str, search: _Search) -> Callable[[int], tuple[int, ...]]:
    """The static preorder `letters` (see PREORDERS), ties by index; T reads the section
    totals as they are now (a subproblem's preorder sees what is left to place)."""
    units, width = search.units, search.sec.width
    of_buffer, totals = search.sec.of_buffer, search.sec_total

    def metric(letter: str, i: int) -> int:
        if letter == "W":
            return width[i]
        if letter == "A":
            return units[i] * width[i]
        if letter == "T":
            return max((totals[s] for s in of_buffer[i]), default=0)
        return units[i]  # Z: size

    return lambda i: (*(-metric(c, i) for c in letters), i)


def _sections_for(
    units: list[int], adj: list[list[int]], intervals: Sequence[tuple[int, int]] | None
) -> Sections:
    if intervals is None:
        return clique_sections(units, adj)
    if len(intervals) != len(units):
        raise ValueError(f"offset search: {len(intervals)} intervals for {len(units)} buffers")
    sections = interval_sections(intervals)
    if any(adj[i] and not sections.of_buffer[i] for i in range(len(units))):
        raise ValueError("offset search: a buffer with conflicts has an empty interval")
    return sections


def search_offsets(
    sizes: Sequence[int],
    conflicts: Sequence[Sequence[int]],
    capacity: int,
    alignment: int = 1,
    *,
    budget: int = DEFAULT_BUDGET,
    intervals: Sequence[tuple[int, int]] | None = None,
) -> tuple[Status, list[int] | None]:
    """Byte offsets with peak <= `capacity` bytes ("found"), a proof that none exist
    ("infeasible"), or "budget" when more than `budget` units of work were needed.  With
    `intervals` (the buffers' step intervals, from which `conflicts` was made by
    `interval_conflicts`) the sections follow the steps."""
    units, adj = _prepare(sizes, conflicts, alignment)
    search = _Search(
        units, adj, _sections_for(units, adj, intervals), capacity // alignment, budget
    )
    status = search.run()
    if status != "found":
        return status, None
    return status, [o * alignment for o in search.solution]


@dataclass(frozen=True)
class Outcome:
    """What `minimise_peak` did: the best placement, whether its peak is proven optimal,
    the lower bound (bytes) it was judged against, and the work the search spent."""

    placement: Placement
    proven: bool
    bound: int
    work: int


def minimise_peak(
    sizes: Sequence[int],
    conflicts: Sequence[Sequence[int]],
    alignment: int = 1,
    *,
    start_offsets: Sequence[int] | None = None,
    lower_bound: int = 0,
    budget: int = DEFAULT_BUDGET,
    intervals: Sequence[tuple[int, int]] | None = None,
) -> Outcome:
    """The lowest-peak placement found, starting from `start_offsets` (default:
    `assign_offsets`).  The bound is the largest of `lower_bound` (bytes, trusted), the
    largest buffer and the largest section total.  The search first asks for the bound
    itself, then bisects between the lowest capacity not yet refuted and the best peak;
    each probe may spend at most half of the work left.  The peak is proven optimal when
    it equals the bound or every capacity below it was proven infeasible."""
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
    sections = _sections_for(units, adj, intervals)
    bound = max(
        -(-lower_bound // alignment),
        max(units, default=0),
        max((sum(units[i] for i in row) for row in sections.members), default=0),
    )
    low = bound  # every capacity below `low` is infeasible
    high = best.peak // alignment
    refuted_all = True
    left = budget
    probe = bound
    while low < high and left > 0:
        search = _Search(units, adj, sections, probe, max(left // 2, 1))
        status = search.run()
        left -= search.work
        if status == "found":
            peak = max((search.solution[i] + units[i] for i in search.items), default=0)
            best = Placement([o * alignment for o in search.solution], peak * alignment)
            high = peak
        elif status == "infeasible":
            low = probe + 1
        else:
            refuted_all = False
            low = probe + 1
        probe = (low + high - 1) // 2
    proven = high == bound or (refuted_all and low >= high)
    return Outcome(best, proven, bound * alignment, budget - left)
