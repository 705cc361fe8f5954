"""Graph algorithms on plain integers: no IR, nothing of the project (standard library only).

A graph has nodes 0..n-1 numbered in a topological order (every edge u -> v has u < v, as
ops in block order) and is given by successor lists, `succs[u]` = the heads of u's edges.

    transitive_reduction(succs, window)         -> the edges no longer path implies
    lowest_reachable(succs, targets, sources, limit, lo, hi) -> first targets below sources
    max_bipartite_matching(left, adjacency, right) -> Hopcroft-Karp matching
    chain_cover(succs, reduced, group, fanout)  -> chains covering `group` (Nimble's two matchings)
    merge_lightest(chains, limit, weight)       -> merges the two lightest until `limit` remain
    is_acyclic(succs)                           -> Kahn's algorithm on any numbering

The reduction and the closure run in time and memory linear in nodes plus edges, times a
constant (`window` / 64 machine words, `limit`): a full transitive closure (a bitset of n
bits per node) would be quadratic in both, 1.25 GB for a chain of 100k nodes.  So
reachability is known exactly only among nearby nodes (`window`), and the closure of the
chain graph only up to the first `limit` chains (`fanout`).  The merge sorts the chains
once (O(n log n), in C) and is linear otherwise; Hopcroft-Karp is O(E sqrt(V)) at worst, a
few phases on these graphs (its first one a greedy pass).

(scipy.sparse.csgraph.maximum_bipartite_matching and networkx offer matchings and DAG
algorithms too; these few functions keep the project free of both dependencies.)
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Container, Iterable, Sequence


def transitive_reduction(succs: Sequence[Sequence[int]], window: int) -> list[Sequence[int]]:
    """For each node u, its successors v (in the order of `succs[u]`) such that no other
    path leads from u to v: the edges of the transitive reduction.

    Reachability is known exactly within `window` nodes: for each node u, the set of the
    nodes u+1..u+window it reaches, a `window`-bit int.  So the answer is exact for every
    edge u -> v with v - u <= window.  A longer edge is dropped when another successor w of
    u with v - w <= window reaches v, and kept otherwise (it may then be implied by a path
    that the window does not see: the result always holds the whole reduction, and only
    real edges).  Time O((nodes + edges) * window / 64), memory O(nodes * window / 8).
    A node none of whose edges is implied gets `succs[u]` itself (not a copy).
    """
    n = len(succs)
    mask = (1 << window) - 1
    near = [0] * n  # bit k of near[u]: u reaches u + 1 + k (k < window)
    reduced: list[Sequence[int]] = list(succs)
    for u in range(n - 1, -1, -1):
        targets = succs[u]
        if len(targets) == 1:
            (v,) = targets
            if v - u <= window:
                near[u] = (((near[v] << 1) | 1) << (v - u - 1)) & mask
            continue
        bits = 0
        # `seen` holds the near bits of the successors passed so far, shifted so that bit k
        # stands for node base + 1 + k: the window of the last one keeps it small.
        seen, base = 0, u
        implied: set[int] = set()
        for v in sorted(set(targets)):
            gap = v - base - 1
            if (seen >> gap) & 1:
                implied.add(v)
            seen = (seen >> (gap + 1)) | near[v]
            base = v
            if v - u <= window:
                bits |= ((near[v] << 1) | 1) << (v - u - 1)
        near[u] = bits & mask
        if implied:
            reduced[u] = [v for v in targets if v not in implied]
    return reduced


def lowest_reachable(
    succs: Sequence[Sequence[int]],
    targets: Container[int],
    sources: Iterable[int],
    limit: int,
    lo: int = 0,
    hi: int | None = None,
) -> dict[int, list[int]]:
    """For each node u of `sources`, the `limit` smallest nodes of `targets` that u reaches
    by at least one edge, in increasing order (sources may share a list: read only).

    Only nodes lo..hi (all by default) and the edges between them are looked at: give the
    range that holds the sources and the targets (a path between two nodes of it never
    leaves it); the work is that of the range, not of the graph.  Dynamic programming in
    reverse order (the smallest reachable targets of u are among those of its successors
    and the successors themselves), each list dropped after its last predecessor: time
    O((nodes + edges) * limit), memory O(nodes * limit).
    """
    hi = len(succs) - 1 if hi is None else hi
    whole = hi == len(succs) - 1  # no edge leaves the range: no need to filter
    wanted = set(sources)
    empty: list[int] = []
    # index v - lo: the lists of nodes lo..hi, and each one's smallest predecessor in range
    low: list[list[int] | None] = [None] * (hi - lo + 1)
    last_pred = [-1] * (hi - lo + 1)
    for u in range(hi, lo - 1, -1):
        for v in succs[u]:
            if v <= hi:
                last_pred[v - lo] = u
    found: dict[int, list[int]] = {}
    for u in range(hi, lo - 1, -1):
        below = succs[u] if whole else [v for v in succs[u] if v <= hi]
        if not below:
            mine = empty
        elif len(below) == 1:
            (v,) = below
            rest = low[v - lo]
            assert rest is not None
            mine = [v, *rest[: limit - 1]] if v in targets else rest
        else:
            candidates: set[int] = set()
            for v in below:
                rest = low[v - lo]
                assert rest is not None
                if v in targets:
                    candidates.add(v)
                candidates.update(rest)
            mine = sorted(candidates)[:limit]  # in C: faster than heapq.nsmallest here
        low[u - lo] = mine
        if u in wanted:
            found[u] = mine  # never modified: lists may be shared
        for v in below:
            if last_pred[v - lo] == u:
                low[v - lo] = None
    return found


def max_bipartite_matching(left: int, adjacency: Sequence[Sequence[int]], right: int) -> list[int]:
    """A maximum matching of a bipartite graph (Hopcroft-Karp, iterative).

    Left vertices are 0..left-1, right vertices 0..right-1, and `adjacency[u]` lists the
    right vertices joined to left vertex u.  Returns `match` with `match[u]` the right vertex
    matched to u, or -1.  The result depends only on the order of the adjacency lists.
    Each phase is a breadth-first search from the free left vertices over all alternating
    paths, then a depth-first search from each of them along those layers.
    """
    match_l = [-1] * left
    match_r = [-1] * right
    # The first phase from the empty matching finds a free right vertex next to every left
    # vertex with an edge (all left vertices are free: distance 0) and then, root by root,
    # matches it to the first of its right vertices still free: a greedy pass does the same.
    for u in range(left):
        for v in adjacency[u]:
            if match_r[v] == -1:
                match_l[u], match_r[v] = v, u
                break
    infinity = left + right + 1
    while True:
        dist = [infinity] * left
        roots = [u for u in range(left) if match_l[u] == -1]
        for u in roots:
            dist[u] = 0
        found = False
        queue = roots[:]  # breadth first: the loop also visits what it appends
        for u in queue:
            next_dist = dist[u] + 1
            for v in adjacency[u]:
                w = match_r[v]
                if w == -1:
                    found = True
                elif dist[w] == infinity:
                    dist[w] = next_dist
                    queue.append(w)
        if not found:
            return match_l
        # a free root stays free until its own search: no other augmenting path passes it
        for root in roots:
            # iterative DFS along the layered graph
            stack = [(root, iter(adjacency[root]))]
            path: list[tuple[int, int]] = []
            while stack:
                u, edges = stack[-1]
                advanced = False
                for v in edges:
                    w = match_r[v]
                    if w == -1:
                        path.append((u, v))
                        for pu, pv in path:
                            match_l[pu], match_r[pv] = pv, pu
                        stack = []
                        advanced = True
                        break
                    if dist[w] == dist[u] + 1:
                        path.append((u, v))
                        stack.append((w, iter(adjacency[w])))
                        advanced = True
                        break
                if not advanced and stack:
                    dist[u] = infinity
                    stack.pop()
                    if path:
                        path.pop()


def chain_cover(
    succs: Sequence[Sequence[int]],
    reduced: Sequence[Sequence[int]],
    group: Sequence[int],
    fanout: int,
) -> list[list[int]]:
    """Chains that together hold every node of `group` (Nimble's stream assignment).

    `succs` is the whole graph (topologically numbered), `reduced` its
    `transitive_reduction`, and `group` the nodes to cover, in increasing order.  First a
    maximum matching on the edges of the reduction between nodes of `group` makes chains of
    direct successors; then a second matching on the closure of the chain graph joins a
    chain to one it reaches, looking at the first `fanout` chains (by head) each chain
    reaches (`lowest_reachable` over the span of `group`), which bounds the work on wide
    graphs.  Returns the chains as sorted node lists, in the order of the chain each one
    starts with.
    """
    adjacency: Sequence[Sequence[int]]
    if len(group) == len(succs):  # every node (0..n-1, in order): positions are nodes
        adjacency = reduced
    else:
        position = {u: i for i, u in enumerate(group)}
        adjacency = [[position[v] for v in reduced[u] if v in position] for u in group]
    nxt = max_bipartite_matching(len(group), adjacency, len(group))
    has_prev = [False] * len(group)
    for v in nxt:
        if v != -1:
            has_prev[v] = True
    chains: list[list[int]] = []
    for i in range(len(group)):
        if not has_prev[i]:
            chain, j = [], i
            while j != -1:
                chain.append(group[j])
                j = nxt[j]
            chains.append(chain)
    heads = {chain[0]: c for c, chain in enumerate(chains)}
    below = (
        lowest_reachable(succs, heads, [c[-1] for c in chains], fanout, group[0], group[-1])
        if group
        else {}
    )
    none: list[int] = []  # shared by the chains that reach none (read only)
    closure = [[heads[h] for h in b] if (b := below[chain[-1]]) else none for chain in chains]
    after = max_bipartite_matching(len(chains), closure, len(chains))
    joined = [False] * len(chains)
    for c in after:
        if c != -1:
            joined[c] = True
    cover: list[list[int]] = []
    for c in range(len(chains)):
        if joined[c]:
            continue
        if after[c] == -1:
            cover.append(chains[c])  # sorted: a chain runs along edges
            continue
        nodes, k = [], c
        while k != -1:
            nodes.extend(chains[k])
            k = after[k]
        nodes.sort()  # already in order (each chain starts after the last one ends)
        cover.append(nodes)
    return cover


def merge_lightest(
    chains: Sequence[Sequence[int]], limit: int, weight: Sequence[int]
) -> list[list[int]]:
    """Greedily merges the two lightest chains (total `weight` of their nodes; ties broken by
    the smaller first node) until at most `limit` remain.  Each chain is a sorted, nonempty
    node list, no two share a node; so is each merged one.  The inputs are not modified.

    Without a merge the chains come back in their order; otherwise the last merged chain
    comes first, then the others from the lightest.

    As in Huffman coding, with weights of at least 0 the merged chains come out no lighter
    than the ones merged before them, so two queues give the lightest in turn: the chains
    sorted once (in C), and the merged ones in order of weight (of one weight, sorted by
    first node; a heap only if a merge adds to that weight, which takes a chain of weight 0).
    With negative weights one heap keyed by (weight, first node) does.  Either way a merge
    only links the smaller chain (in nodes) to the larger, and each node is placed once at
    the end (union-find): no node moves from list to list as chains grow.  O(n log n) for
    the sort, linear otherwise (but for the heap).
    """
    if len(chains) <= limit:
        return [list(c) for c in chains]
    entries = [(sum(weight[u] for u in c), c[0], i) for i, c in enumerate(chains)]
    size = [len(c) for c in chains]
    into = list(range(len(chains)))  # the chain each one was merged into (itself: alive)
    alive, last = len(chains), -1
    remaining: list[tuple[int, int, int]]
    if any(w < 0 for w, _, _ in entries):
        heapq.heapify(entries)
        while alive > limit:
            w1, first1, i = heapq.heappop(entries)
            w2, first2, j = heapq.heappop(entries)
            if size[i] < size[j]:
                i, j = j, i
            size[i] += size[j]
            into[j] = i
            heapq.heappush(entries, (w1 + w2, min(first1, first2), i))
            alive, last = alive - 1, i
        remaining = entries
    else:
        entries.sort()
        next_entry = 0  # entries[next_entry:] are the chains not merged yet
        run: list[tuple[int, int, int]] = []  # the merged chains of the lightest weight...
        in_run = 0  # ...from run[in_run] on, sorted (a heap from run[0] on if as_heap)
        as_heap = False
        later: deque[tuple[int, int, int]] = deque()  # heavier merged ones, by weight
        popped: list[tuple[int, int, int]] = []
        while alive > limit:
            popped.clear()
            while len(popped) < 2:
                if as_heap:
                    merged = run[0] if run else None
                else:
                    merged = run[in_run] if in_run < len(run) else None
                if merged is None and later:  # the next weight of merged chains
                    lightest = later[0][0]
                    run = []
                    while later and later[0][0] == lightest:
                        run.append(later.popleft())
                    run.sort()
                    in_run, as_heap = 0, False
                    merged = run[0]
                if next_entry < len(entries) and (merged is None or entries[next_entry] < merged):
                    popped.append(entries[next_entry])
                    next_entry += 1
                elif as_heap:
                    popped.append(heapq.heappop(run))
                else:
                    assert merged is not None
                    popped.append(merged)
                    in_run += 1
            (w1, first1, i), (w2, first2, j) = popped
            if size[i] < size[j]:
                i, j = j, i
            size[i] += size[j]
            into[j] = i
            entry = (w1 + w2, min(first1, first2), i)
            if as_heap:
                current = run[0][0] if run else None
            else:
                current = run[in_run][0] if in_run < len(run) else None
            if entry[0] == current:  # only with weights 0: keep that weight's order exact
                if not as_heap:
                    run = run[in_run:]
                    heapq.heapify(run)
                    in_run, as_heap = 0, True
                heapq.heappush(run, entry)
            else:
                later.append(entry)
            alive, last = alive - 1, i
        remaining = [*entries[next_entry:], *(run if as_heap else run[in_run:]), *later]
    rest = sorted(entry for entry in remaining if entry[2] != last)
    order = (last, *(entry[2] for entry in rest))
    members: dict[int, list[int]] = {k: [] for k in order}
    for c, nodes in enumerate(chains):
        k = c
        while into[k] != k:
            into[k] = into[into[k]]  # path halving
            k = into[k]
        members[k].extend(nodes)
    return [sorted(members[k]) for k in order]


def is_acyclic(succs: Sequence[Sequence[int]]) -> bool:
    """Whether the directed graph with successor lists `succs` (any numbering, repeated
    edges allowed) has no cycle (Kahn's algorithm)."""
    indegree = [0] * len(succs)
    for targets in succs:
        for v in targets:
            indegree[v] += 1
    ready = [u for u in range(len(succs)) if indegree[u] == 0]
    done = 0
    while ready:
        u = ready.pop()
        done += 1
        for v in succs[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(v)
    return done == len(succs)
