"""`ge_dialect.utils.offset_search`: the exact offset search.

- On small random instances (interval conflicts and general conflict graphs, alignments 1
  and 4) the optimum of `minimise_peak` equals a brute-force optimum computed here
  independently: every order of the buffers, each put on top of its already placed
  neighbours (taking an optimal placement, compacted, by increasing offset reaches it).
- Every placement returned is valid (`overlapping_pairs`) and within the capacity asked.
- The optimum's capacity is found, one unit below it is proven infeasible.
- `minimise_peak` is never worse than `assign_offsets` nor than given start offsets.
- A tiny budget gives "budget"; the same call twice gives the same answer.
- On a pinned 30-buffer interval instance it reaches `max_live` where the heuristic does not.
- 1200 buffers (deeper than the recursion limit) are placed without error.
"""

from __future__ import annotations

import csv
import itertools
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from helpers.support import ROOT

from ge_dialect.utils.offset_search import interval_sections, minimise_peak, search_offsets
from ge_dialect.utils.offsets import (
    Placement,
    assign_offsets,
    interval_conflicts,
    max_live,
    overlapping_pairs,
)


def _brute_optimum(sizes: Sequence[int], conflicts: Sequence[Sequence[int]], alignment: int) -> int:
    units = [-(-s // alignment) for s in sizes]
    n = len(sizes)
    pairs = {(i, j) for i in range(n) for j in conflicts[i] if i != j and units[i] and units[j]}
    pairs |= {(j, i) for i, j in pairs}
    best = None
    for order in itertools.permutations(range(n)):
        end: dict[int, int] = {}
        for i in order:
            at = max((end[j] for j in end if (i, j) in pairs), default=0)
            end[i] = at + units[i]
        peak = max((e for i, e in end.items() if units[i]), default=0)
        best = peak if best is None else min(best, peak)
    return (best or 0) * alignment


Instance = tuple[list[int], list[list[int]], int, "list[tuple[int, int]] | None"]


def _instances() -> list[Instance]:
    out: list[Instance] = []
    for case in range(60):
        rng = random.Random(1000 + case)
        n = rng.randint(1, 7) if case < 10 else 7
        alignment = rng.choice([1, 4])
        sizes = [rng.choice([0, 1, 2, 3, 5, 8, 13]) * rng.choice([1, alignment]) for _ in range(n)]
        intervals: list[tuple[int, int]] | None = None
        if case % 3 == 2:  # a general conflict graph
            conflicts: list[list[int]] = [[] for _ in range(n)]
            for i, j in itertools.combinations(range(n), 2):
                if rng.random() < 0.6:
                    conflicts[i].append(j)
        else:
            intervals = []
            for _ in range(n):
                a = rng.randint(0, 8)
                intervals.append((a, a + rng.randint(0, 5)))
            conflicts = interval_conflicts(intervals)
        out.append((sizes, conflicts, alignment, intervals))
    return out


def _minimise(*args: object, **kwargs: object) -> tuple[Placement, bool]:
    outcome = minimise_peak(*args, **kwargs)  # type: ignore[arg-type]
    return outcome.placement, outcome.proven


def _peak(sizes: Sequence[int], offsets: Sequence[int], alignment: int) -> int:
    return max(
        (o + -(-s // alignment) * alignment for o, s in zip(offsets, sizes, strict=True) if s),
        default=0,
    )


@pytest.mark.parametrize("index", range(60))
def test_matches_brute_force(index: int) -> None:
    sizes, conflicts, alignment, intervals = _instances()[index]
    optimum = _brute_optimum(sizes, conflicts, alignment)
    if intervals is not None:  # step-ordered sections (and decomposition) as well
        outcome = minimise_peak(sizes, conflicts, alignment, intervals=intervals)
        assert outcome.proven and outcome.placement.peak == optimum
        assert overlapping_pairs(sizes, conflicts, outcome.placement.offsets, alignment) == []
        status, offsets = search_offsets(sizes, conflicts, optimum, alignment, intervals=intervals)
        assert status == "found" and offsets is not None
        assert overlapping_pairs(sizes, conflicts, offsets, alignment) == []
        if optimum:
            refuted = search_offsets(sizes, conflicts, optimum - 1, alignment, intervals=intervals)
            assert refuted == ("infeasible", None)

    placement, proven = _minimise(sizes, conflicts, alignment)
    assert proven
    assert placement.peak == optimum
    assert overlapping_pairs(sizes, conflicts, placement.offsets, alignment) == []
    assert _peak(sizes, placement.offsets, alignment) == placement.peak
    assert placement.peak <= assign_offsets(sizes, conflicts, alignment).peak

    # from every buffer stacked on the previous one: the search walks all the way down
    stacked = [0] * len(sizes)
    top = 0
    for i, s in enumerate(sizes):
        if s:
            stacked[i] = top
            top += -(-s // alignment) * alignment
    placement, proven = _minimise(sizes, conflicts, alignment, start_offsets=stacked)
    assert proven
    assert placement.peak == optimum
    assert overlapping_pairs(sizes, conflicts, placement.offsets, alignment) == []

    status, offsets = search_offsets(sizes, conflicts, optimum, alignment)
    assert status == "found" and offsets is not None
    assert overlapping_pairs(sizes, conflicts, offsets, alignment) == []
    assert _peak(sizes, offsets, alignment) <= optimum
    # a capacity not a multiple of the alignment is rounded down
    assert search_offsets(sizes, conflicts, optimum + alignment - 1, alignment)[0] == "found"
    if optimum:
        assert search_offsets(sizes, conflicts, optimum - 1, alignment) == ("infeasible", None)


def test_start_offsets_and_lower_bound() -> None:
    sizes = [4, 4, 2, 2, 6]
    conflicts = interval_conflicts([(0, 2), (1, 3), (2, 4), (3, 5), (0, 5)])
    stacked = [0, 4, 8, 10, 12]  # valid, wasteful
    assert overlapping_pairs(sizes, conflicts, stacked) == []
    placement, proven = _minimise(sizes, conflicts, start_offsets=stacked)
    assert proven and placement.peak == _brute_optimum(sizes, conflicts, 1) == 14
    # a trusted lower bound equal to the start's peak: nothing to search
    same, proven = _minimise(sizes, conflicts, start_offsets=stacked, lower_bound=18)
    assert proven and same.offsets == stacked and same.peak == 18
    with pytest.raises(ValueError, match="not a valid placement"):
        minimise_peak(sizes, conflicts, start_offsets=[0, 0, 0, 0, 0])


def _hard_instance() -> tuple[list[int], list[list[int]]]:
    """A random graph of 30 buffers (edge probability 0.3) whose greedy cliques bound
    the peak far below the heuristic's: proving optimality needs a large search."""
    rng = random.Random(0)
    n = 30
    sizes = [rng.randint(1, 9) for _ in range(n)]
    conflicts: list[list[int]] = [[] for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        if rng.random() < 0.3:
            conflicts[i].append(j)
            conflicts[j].append(i)
    return sizes, conflicts


def test_budget() -> None:
    sizes, conflicts = _hard_instance()
    heuristic = assign_offsets(sizes, conflicts).peak
    # placing 30 buffers takes more than one node, even at a roomy capacity
    assert search_offsets(sizes, conflicts, sum(sizes), budget=1) == ("budget", None)
    assert search_offsets(sizes, conflicts, sum(sizes), budget=100)[0] == "found"
    assert search_offsets(sizes, conflicts, heuristic - 1, budget=500)[0] == "found"
    # 28 is neither found nor refuted within 20,000 nodes (26 is refuted at once)
    assert search_offsets(sizes, conflicts, 28, budget=500) == ("budget", None)
    placement, proven = _minimise(sizes, conflicts, budget=500)
    assert not proven
    assert placement.peak <= heuristic
    assert overlapping_pairs(sizes, conflicts, placement.offsets) == []


def test_deterministic() -> None:
    sizes, conflicts = _hard_instance()
    first = minimise_peak(sizes, conflicts, budget=2000)
    assert minimise_peak(sizes, conflicts, budget=2000) == first
    assert overlapping_pairs(sizes, conflicts, first.placement.offsets) == []


def test_edge_cases() -> None:
    assert search_offsets([], [], 0) == ("found", [])
    assert search_offsets([0, 0], [[1], [0]], 0) == ("found", [0, 0])
    assert search_offsets([5], [[]], 4) == ("infeasible", None)
    assert search_offsets([3, 3], [[1], [0]], 6) == ("found", [0, 3])
    assert search_offsets([3, 3], [[1], [0]], 5)[0] == "infeasible"
    assert search_offsets([3, 3], [[], []], 3) == ("found", [0, 0])
    placement, proven = _minimise([], [])
    assert proven and placement.peak == 0


def test_beats_the_heuristic() -> None:
    """30 buffers over random intervals: the heuristic ends 2 above `max_live`, the search
    reaches it (hence optimal) within a small budget."""
    rng = random.Random(0)
    n = 30
    sizes = [rng.randint(1, 30) for _ in range(n)]
    intervals = []
    for _ in range(n):
        a = rng.randint(0, 2 * n)
        intervals.append((a, a + rng.randint(1, n // 2 + 1)))
    conflicts = interval_conflicts(intervals)
    assert assign_offsets(sizes, conflicts).peak == 123
    assert max_live(sizes, intervals) == 121
    placement, proven = _minimise(sizes, conflicts, budget=5000)
    assert proven and placement.peak == 121
    assert overlapping_pairs(sizes, conflicts, placement.offsets) == []


def test_deeper_than_the_recursion_limit() -> None:
    """1200 buffers in a chain of overlapping intervals: the search places them all (one
    node each, deeper than Python's default recursion limit)."""
    n = 1200
    sizes = [1 + i % 3 for i in range(n)]
    conflicts = interval_conflicts([(i, i + 2) for i in range(n)])
    status, offsets = search_offsets(sizes, conflicts, 6, budget=50_000)
    assert status == "found" and offsets is not None
    assert overlapping_pairs(sizes, conflicts, offsets) == []
    assert _peak(sizes, offsets, 1) <= 6


def test_interval_sections() -> None:
    """Sections: the buffers live just before each distinct end, in step order; a buffer
    spans a contiguous run; an empty interval is in none."""
    sections = interval_sections([(0, 4), (1, 2), (2, 6), (3, 3), (5, 6)])
    assert sections.members == [[0, 1], [0, 2], [2, 4]]  # before steps 2, 4 and 6
    assert sections.of_buffer == [[0, 1], [0], [1, 2], [], [2]]
    assert sections.ordered and sections.width == [4, 1, 4, 0, 1]


def test_solves_minimallocs_challenging_instance_j() -> None:
    """MiniMalloc's challenging instance J (409 buffers, bench/data/minimalloc): the
    heuristic needs 1.2x the capacity, the search fits it within 1,048,576."""
    path = Path(ROOT) / "bench" / "data" / "minimalloc" / "J.1048576.csv"
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    sizes = [int(r["size"]) for r in rows]
    intervals = [(int(r["lower"]), int(r["upper"])) for r in rows]
    conflicts = interval_conflicts(intervals)
    assert assign_offsets(sizes, conflicts).peak > 1.1 * 1048576
    status, offsets = search_offsets(sizes, conflicts, 1048576, intervals=intervals)
    assert status == "found" and offsets is not None
    assert overlapping_pairs(sizes, conflicts, offsets) == []
    assert _peak(sizes, offsets, 1) <= 1048576
