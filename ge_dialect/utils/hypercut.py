"""Two-label minimum cut of a hypergraph with terminals (no IR: numpy and scipy only).

Each free node 0..n-1 gets one of two labels, SOURCE side (True) or SINK side (False); the
terminals `SOURCE` and `SINK` stand for nodes whose label is fixed.  A hyperedge is a set of
members (free nodes and terminals) with a nonnegative integer weight, paid once when its
members do not all get the same label (a hyperedge of weight 0 is ignored).  `min_hypercut`
returns the labelling that minimises, in this order,

1. the summed weight of the cut hyperedges,
2. the number of cut hyperedges,
3. the number of `prefer_sink` nodes on the SOURCE side,

and, among the labellings that tie on all three, the one with the most SOURCE nodes (unique:
the source sides of minimum cuts are closed under union).  A node that no chain of hyperedges
connects to a SOURCE member is on the SINK side.

Construction (Lawler, 1973): a hyperedge e of weight w becomes two auxiliary nodes
`e_in -> e_out` joined by an arc of capacity w, with arcs `u -> e_in` and `e_out -> u` for
each member u.  (Lawler makes the member arcs infinite; capacity w is enough, since cutting
them never costs less than cutting `e_in -> e_out`, and keeps every capacity finite.)  A
hyperedge of two members is just the two arcs `u -> v` and `v -> u` of capacity w.  Terminal
members are the flow network's source and sink.

The three objectives are solved lexicographically with `scipy.sparse.csgraph.maximum_flow`
(Dinic's algorithm), whose capacities are int32: stage 1 cuts the weights; stage 2 keeps
exactly the minimum cuts of stage 1 (every arc with residual capacity left after stage 1
becomes uncuttable, which is the characterisation of all minimum cuts: their source sides are
the sets closed under residual arcs) and cuts `k + 1` per hyperedge arc plus 1 per
`prefer_sink` node on the SOURCE side, k being the number of such nodes.  The SINK side is
the set of nodes that still reach the sink through residual arcs after stage 2; everything
else is the largest optimal SOURCE side.  Weights whose sums would not fit in int32 are
scaled down uniformly (rounding up), the only case where stage 1 is not exact.

    labels = min_hypercut(3, [([SOURCE, 0], 10), ([0, 1, 2], 4), ([2, SINK], 4)])
    cost = hypercut_cost(labels, hyperedges)          # (weight, cut hyperedges, preferences)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.sparse import csr_array  # type: ignore[import-untyped]
from scipy.sparse.csgraph import (  # type: ignore[import-untyped]
    breadth_first_order,
    maximum_flow,
)

SOURCE = -1
"""A hyperedge member whose label is fixed to the SOURCE side (True)."""

SINK = -2
"""A hyperedge member whose label is fixed to the SINK side (False)."""

Hyperedge = tuple[Sequence[int], int]
"""(members, weight): members are free nodes 0..n-1, `SOURCE` or `SINK`; weight >= 0."""

_INT32_MAX = 2**31 - 1


def hypercut_cost(
    labels: Sequence[bool], hyperedges: Sequence[Hyperedge], prefer_sink: Sequence[int] = ()
) -> tuple[int, int, int]:
    """(summed weight of cut hyperedges, cut hyperedges, `prefer_sink` nodes on the SOURCE
    side) of a labelling: the objective `min_hypercut` minimises, in this order."""

    def label(u: int) -> bool:
        return True if u == SOURCE else False if u == SINK else bool(labels[u])

    weight = count = 0
    for members, w in hyperedges:
        if w > 0 and len({label(u) for u in members}) > 1:
            weight += w
            count += 1
    return weight, count, sum(bool(labels[u]) for u in prefer_sink)


def min_hypercut(
    n: int, hyperedges: Sequence[Hyperedge], prefer_sink: Sequence[int] = ()
) -> list[bool]:
    """The labelling of free nodes 0..n-1 described in the module docstring (True: SOURCE)."""
    labels = [False] * n
    active = _source_components(n, hyperedges)
    if not any(active):
        return labels
    # the flow network: active free nodes, then the source and the sink, then aux nodes
    index = [-1] * n
    nodes: list[int] = []
    for u in range(n):
        if active[u]:
            index[u] = len(nodes)
            nodes.append(u)
    s, t = len(nodes), len(nodes) + 1
    size = t + 1

    def node(u: int) -> int:
        return s if u == SOURCE else t if u == SINK else index[u]

    # arcs as (tail, head, hyperedge) triples; the capacity is the hyperedge's
    tails: list[int] = []
    heads: list[int] = []
    owner: list[int] = []
    weights: list[int] = []
    for members, w in hyperedges:
        free = [u for u in members if u >= 0]
        if w <= 0 or not free or not active[free[0]]:
            continue
        ends = list(dict.fromkeys(node(u) for u in members))
        if len(ends) < 2:
            continue
        e = len(weights)
        weights.append(w)
        if len(ends) == 2:
            a, b = ends
            tails += (a, b)
            heads += (b, a)
            owner += (e, e)
            continue
        e_in, e_out = size, size + 1
        size += 2
        tails.append(e_in)
        heads.append(e_out)
        owner.append(e)
        for v in ends:
            tails += (v, e_out)
            heads += (e_in, v)
            owner += (e, e)
    prefer = [index[u] for u in dict.fromkeys(prefer_sink) if 0 <= u < n and active[u]]

    tail = np.asarray(tails, dtype=np.int64)
    head = np.asarray(heads, dtype=np.int64)
    arc_owner = np.asarray(owner, dtype=np.int64)
    largest = max(weights, default=0)
    if largest > 2**40:  # a tensor of more than 2^40 bytes: scale into int64 first
        k = -(-largest // 2**40)
        weights = [-(-w // k) for w in weights]
    w64 = np.asarray(weights, dtype=np.int64)

    # stage 1: the weights (scaled down uniformly if an arc would not fit in int32)
    scale = 1
    while True:
        c1 = _capacities(tail, head, -(-w64 // scale)[arc_owner], size)
        top = int(c1.max()) if c1.nnz else 0
        if top <= _INT32_MAX:
            break
        scale *= -(-top // _INT32_MAX)
    residual = _residual(c1, s, t)

    # stage 2: among those minimum cuts, fewest cut hyperedges, then fewest preferred nodes
    per_arc = len(prefer) + 1
    c2_tail = np.concatenate([tail, np.asarray(prefer, dtype=np.int64)])
    c2_head = np.concatenate([head, np.full(len(prefer), t, dtype=np.int64)])
    c2_cap = np.concatenate(
        [np.full(len(tail), per_arc, dtype=np.int64), np.ones(len(prefer), dtype=np.int64)]
    )
    infinite = int(c2_cap.sum()) + 1
    if 2 * infinite <= _INT32_MAX:
        rows, cols = residual.nonzero()
        c2 = _capacities(
            np.concatenate([c2_tail, rows.astype(np.int64)]),
            np.concatenate([c2_head, cols.astype(np.int64)]),
            np.concatenate([c2_cap, np.full(len(rows), infinite, dtype=np.int64)]),
            size,
        )
        residual = _residual(c2, s, t)
    # the SINK side: nodes that reach the sink through arcs with residual capacity
    reach_t = breadth_first_order(residual.T.tocsr(), t, directed=True, return_predecessors=False)
    sink_side = set(int(v) for v in reach_t)
    return _labels(n, nodes, {i for i in range(len(nodes)) if i not in sink_side})


def _labels(n: int, nodes: Sequence[int], source_side: set[int]) -> list[bool]:
    labels = [False] * n
    for i in source_side:
        labels[nodes[i]] = True
    return labels


def _source_components(n: int, hyperedges: Sequence[Hyperedge]) -> list[bool]:
    """For each free node: is it joined to a SOURCE member by a chain of hyperedges?"""
    parent = list(range(n))

    def find(u: int) -> int:
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    sourced: list[int] = []
    for members, w in hyperedges:
        free = [u for u in members if u >= 0]
        if w <= 0 or not free:
            continue
        root = find(free[0])
        for u in free[1:]:
            other = find(u)
            if other != root:
                parent[other] = root
        if SOURCE in members:
            sourced.append(root)
    roots = {find(u) for u in sourced}
    return [find(u) in roots for u in range(n)]


def _capacities(tail: np.ndarray, head: np.ndarray, cap: np.ndarray, size: int) -> csr_array:
    """The capacity matrix (parallel arcs summed, in int64)."""
    return csr_array((cap.astype(np.int64), (tail, head)), shape=(size, size))


def _residual(capacity: csr_array, s: int, t: int) -> csr_array:
    """Maximum flow from s to t; returns the residual capacities (positive entries only)."""
    capacity.sum_duplicates()  # canonical: sorted indices, no duplicates
    # maximum_flow takes int32 capacities (and, in scipy 1.11, int32 indices) only
    c32 = csr_array(
        (
            capacity.data.astype(np.int32),
            capacity.indices.astype(np.int32),
            capacity.indptr.astype(np.int32),
        ),
        shape=capacity.shape,
    )
    flow = maximum_flow(c32, s, t, method="dinic").flow
    residual = csr_array(capacity, dtype=np.int64) - csr_array(flow, dtype=np.int64)
    residual.data[residual.data < 0] = 0
    residual.eliminate_zeros()
    return residual
