"""`ge_dialect.utils.antichain`: the maximum-weight antichain (stream-aware lower bound).

- On small random DAGs (random edges, so not transitively closed) the weight equals the
  brute force over all subsets, and the members are pairwise incomparable and weigh it;
  also with weights of 2^40 and 2^70 (capacity scaling beyond int32 and int64).
- A cycle (a self-loop too), an out-of-range edge and a negative weight raise ValueError.
- For interval orders (u < v iff u's interval ends before v's starts) the heaviest antichain
  is the heaviest set of pairwise overlapping intervals, i.e. `max_live`: the two lower
  bounds of the planner agree when every buffer is on one stream.
- A few thousand elements and edges take well under a second.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_dialect.utils.antichain import max_weight_antichain
from ge_dialect.utils.offsets import max_live


def _closure(n: int, edges: Sequence[tuple[int, int]]) -> list[list[bool]]:
    below = [[False] * n for _ in range(n)]
    for u, v in edges:
        below[u][v] = True
    for k in range(n):
        for i in range(n):
            if below[i][k]:
                for j in range(n):
                    if below[k][j]:
                        below[i][j] = True
    return below


def brute_force(weights: Sequence[int], edges: Sequence[tuple[int, int]]) -> int:
    n = len(weights)
    below = _closure(n, edges)
    best = 0
    for mask in range(1 << n):
        members = [i for i in range(n) if mask >> i & 1]
        if not any(below[a][b] for a in members for b in members):
            best = max(best, sum(weights[i] for i in members))
    return best


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[int], list[tuple[int, int]]]:
    n = draw(st.integers(0, 9))
    scale = draw(st.sampled_from([1, 512, 2**40, 2**70]))
    weights = [w * scale for w in draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))]
    rank = draw(st.permutations(range(n)))  # a hidden topological order
    pairs = [(rank[i], rank[j]) for i in range(n) for j in range(i + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    return weights, edges


def test_equals_brute_force_on_small_dags():
    @settings(max_examples=400)
    @given(dags())
    def check(dag) -> None:
        weights, edges = dag
        weight, members = max_weight_antichain(weights, edges)
        assert weight == brute_force(weights, edges)
        assert members == sorted(set(members))
        assert sum(weights[i] for i in members) == weight
        below = _closure(len(weights), edges)
        assert not any(below[a][b] for a in members for b in members)
        assert max_weight_antichain(weights, edges) == (weight, members)

    check()


def test_interval_orders_agree_with_max_live():
    @settings(max_examples=300)
    @given(st.lists(st.tuples(st.integers(0, 20), st.integers(1, 8), st.integers(0, 9))))
    def check(rows) -> None:
        intervals = [(a, a + length) for a, length, _ in rows]
        sizes = [s for _, _, s in rows]
        n = len(rows)
        edges = [(u, v) for u in range(n) for v in range(n) if intervals[u][1] <= intervals[v][0]]
        assert max_weight_antichain(sizes, edges)[0] == max_live(sizes, intervals)
        aligned = [-(-s // 512) * 512 for s in sizes]
        assert max_weight_antichain(aligned, edges)[0] == max_live(sizes, intervals, 512)

    check()


def test_rejects_cycles_and_bad_input():
    with pytest.raises(ValueError, match="cycle"):
        max_weight_antichain([1, 1, 1], [(0, 1), (1, 2), (2, 0)])
    with pytest.raises(ValueError, match="cycle"):
        max_weight_antichain([1], [(0, 0)])
    with pytest.raises(ValueError):
        max_weight_antichain([1, 1], [(0, 2)])
    with pytest.raises(ValueError):
        max_weight_antichain([1, -1], [])


def test_small_cases():
    assert max_weight_antichain([], []) == (0, [])
    assert max_weight_antichain([0, 0], [(0, 1)]) == (0, [])
    # a diamond: {1, 2} (weight 4) beats the top (3) and the bottom (2)
    assert max_weight_antichain([3, 2, 2, 2], [(0, 1), (0, 2), (1, 3), (2, 3)]) == (4, [1, 2])
    # a chain through the covering relation only: 0 < 2 by transitivity
    assert max_weight_antichain([5, 1, 5], [(0, 1), (1, 2)])[0] == 5


def test_thousands_of_elements():
    """3000 elements in 4 parallel chains with cross edges and 64 MiB weights (its speed is
    bench/offsets.py's to print: no test asserts a time)."""
    import random

    rng = random.Random(5)
    n = 3000
    weights = [rng.randrange(1, 2**17) * 512 for _ in range(n)]
    edges = [(i, i + 4) for i in range(n - 4)]
    edges += [(i, j) for i in range(n) for j in rng.sample(range(i + 1, n), min(2, n - i - 1))]
    weight, members = max_weight_antichain(weights, edges)
    assert 0 < weight == sum(weights[i] for i in members)
    members_set = set(members)
    assert not any(a in members_set and b in members_set for a, b in edges)
