"""Maximum-weight antichain of a partial order given by a DAG, exactly, by min-flow (no IR:
numpy and scipy only).

The elements 0..n-1 carry nonnegative integer weights; `edges` (u, v) generate the order
u < v iff the DAG has a path u -> ... -> v (the edges need not be transitively closed: the
covering relation is enough).  An antichain is a set of pairwise incomparable elements;
`max_weight_antichain` returns the largest total weight of one, and its members (sorted).
The memory planner uses it as the stream-aware lower bound on peak memory: buffers whose
lifetimes are pairwise unordered by happens-before may all be live at once.

Weighted Dilworth, as a min-flow.  Each element v becomes an arc v_in -> v_out that must
carry at least w(v) units; every edge (u, v) is an arc u_out -> v_in; a source feeds every
v_in and every v_out drains into a sink; all those arcs are uncapacitated.  A flow is a
bundle of chains (paths may pass through elements, which is what makes the covering
relation enough), and the least flow meeting every lower bound equals the heaviest
antichain (weighted Dilworth).  From the feasible flow "one path s -> v_in -> v_out -> t of
w(v) units per element" (value W, the total weight), the minimum flow is W minus the maximum
flow that can be pushed back from t to s in its residual network, which is

    t -> v_out (capacity w(v)),   u_out -> v_in per edge (inf),
    v_in -> v_out (inf),          v_in -> s (capacity w(v)).

Let R be the source side of the minimum cut of that network (the nodes t reaches through
residual arcs).  The infinite arcs make R closed under them, so
A = {v : v_out in R, v_in not in R} is an antichain (a path u -> ... -> v with u in A would
drag v_in into R), the cut costs W - w(A), and by duality A is a maximum antichain.

`scipy.sparse.csgraph.maximum_flow` (Dinic) takes int32 capacities only.  The weights are
divided by their gcd first (bytes aligned to 512 share a factor of 512), "infinite" is
W + 1 (a cut through such an arc costs more than the trivial one), and when W still does not
fit in int32 the flow is found by capacity scaling: each phase pushes flow on the residual
capacities shifted right by k bits (and clipped just above a bound on the flow still
missing, so that they fit), then k drops; the last phase runs at k = 0, so the result is
exact for any integer weights (residuals are int64, or Python ints beyond 2^62).  Cost: one
or a few Dinic runs on 2n + 2 nodes and 3n + |edges| arcs, plus a topological sort.

    weight, members = max_weight_antichain([3, 1, 2, 2], [(0, 1), (0, 2), (1, 3), (2, 3)])
    # (3, [0]): 0 < 1, 2 < 3, and {1, 2} weighs 3 too; any heaviest antichain may be returned
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.sparse import csr_array  # type: ignore[import-untyped]
from scipy.sparse.csgraph import (  # type: ignore[import-untyped]
    breadth_first_order,
    maximum_flow,
)

from ge_dialect.utils.graphs import is_acyclic

_INT32_MAX = 2**31 - 1
_INT64_SAFE = 2**62


def max_weight_antichain(
    weights: Sequence[int], edges: Iterable[tuple[int, int]]
) -> tuple[int, list[int]]:
    """(weight, sorted members) of a heaviest antichain of the order the DAG `edges`
    generates on elements 0..len(weights)-1 (module docstring).

    Raises ValueError on a cycle (a self-loop included), an element out of range or a
    negative weight.  Elements of weight 0 may or may not be among the members.
    """
    n = len(weights)
    w = [int(x) for x in weights]
    if any(x < 0 for x in w):
        raise ValueError("max_weight_antichain: weights must be nonnegative")
    pairs = sorted({(int(u), int(v)) for u, v in edges})
    for u, v in pairs:
        if not (0 <= u < n and 0 <= v < n):
            raise ValueError(f"max_weight_antichain: edge ({u}, {v}) out of range 0..{n - 1}")
    _check_acyclic(n, pairs)
    total = sum(w)
    if total == 0:
        return 0, []
    g = 0
    for x in w:
        g = math.gcd(g, x)
    w = [x // g for x in w]
    total //= g

    # nodes: out_v = v, in_v = n + v, source t' = 2n, sink s' = 2n + 1
    src, snk = 2 * n, 2 * n + 1
    heavy = [v for v in range(n) if w[v] > 0]
    inf = total + 1
    tails = (
        [src] * len(heavy)
        + [n + v for v in heavy]
        + [u for u, _ in pairs]
        + [n + v for v in range(n)]
    )
    heads = heavy + [snk] * len(heavy) + [n + v for _, v in pairs] + list(range(n))
    caps = [w[v] for v in heavy] * 2 + [inf] * (len(pairs) + n)
    _, reach = _max_flow(2 * n + 2, tails, heads, caps, src, snk, total)
    members = [v for v in range(n) if reach[v] and not reach[n + v]]
    weight = sum(int(weights[v]) for v in members)
    return weight, members


def _check_acyclic(n: int, pairs: Sequence[tuple[int, int]]) -> None:
    """Raises ValueError if some elements lie on a cycle (`graphs.is_acyclic`)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for u, v in pairs:
        succ[u].append(v)
    if not is_acyclic(succ):
        raise ValueError("max_weight_antichain: the edges have a cycle")


def _max_flow(
    size: int,
    tails: Sequence[int],
    heads: Sequence[int],
    caps: Sequence[int],
    s: int,
    t: int,
    bound: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Maximum flow from s to t (exact, by capacity scaling when capacities exceed int32);
    `bound` is an upper bound on its value.  Returns the residual capacity of every arc of
    the (reversal-closed, sorted) arc list and, per node, whether s reaches it through arcs
    with residual capacity left (the source side of the minimum cut)."""
    dtype: type = np.int64 if max([bound + 1, *caps]) < _INT64_SAFE else object
    # arcs closed under reversal, unique (parallel arcs summed), sorted by (tail, head)
    tail = np.asarray(list(tails) + list(heads), dtype=np.int64)
    head = np.asarray(list(heads) + list(tails), dtype=np.int64)
    cap: np.ndarray = np.asarray(list(caps) + [0] * len(caps), dtype=dtype)
    key = tail * size + head
    keys, inverse = np.unique(key, return_inverse=True)
    residual: np.ndarray = np.zeros(len(keys), dtype=dtype)
    np.add.at(residual, inverse.ravel(), cap)
    tail, head = keys // size, keys % size

    k = max(0, bound.bit_length() - 30)
    while True:
        clip = (bound >> k) + 1  # above any flow this phase can push: never saturated
        scaled = np.minimum(residual >> k, clip).astype(np.int32)
        c32 = csr_array(
            (scaled, (tail.astype(np.int32), head.astype(np.int32))), shape=(size, size)
        )
        flow = maximum_flow(c32, s, t, method="dinic").flow.tocoo()
        fkey = flow.row.astype(np.int64) * size + flow.col.astype(np.int64)
        at = np.searchsorted(keys, fkey)
        pushed = np.zeros(len(keys), dtype=np.int64)
        pushed[at] = flow.data
        residual = residual - (pushed.astype(dtype) << k)
        reach = _reachable(size, tail, head, np.asarray(residual > 0, dtype=bool), s)
        if k == 0:
            return residual, reach
        # the cut's capacity in the true residual bounds the flow still missing
        crossing = reach[tail] & ~reach[head]
        bound = int(residual[crossing].sum())
        k = min(k - 1, max(0, bound.bit_length() - 30))


def _reachable(
    size: int, tail: np.ndarray, head: np.ndarray, open_arc: np.ndarray, s: int
) -> np.ndarray:
    """Per node: does s reach it through the open arcs?"""
    graph = csr_array(
        (np.ones(int(open_arc.sum()), dtype=np.int8), (tail[open_arc], head[open_arc])),
        shape=(size, size),
    )
    order = breadth_first_order(graph, s, directed=True, return_predecessors=False)
    reach = np.zeros(size, dtype=bool)
    reach[order] = True
    return reach
