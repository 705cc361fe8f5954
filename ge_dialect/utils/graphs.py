"""Graph algorithms on plain integers: no IR, nothing of the project (standard library only).

A graph has nodes 0..n-1 numbered in a topological order (every edge u -> v has u < v, as
ops in block order) and is given by successor lists, `succs[u]` = the heads of u's edges.
A set of nodes is a Python int used as a bitset (bit v set: node v is in it).

    reachability(succs)                         -> bitsets of the nodes below each node
    lowest_set_bits(bits, limit)                -> positions of the lowest `limit` set bits
    max_bipartite_matching(left, adjacency, right) -> Hopcroft-Karp matching
    chain_cover(succs, reach, group, fanout)    -> chains covering `group` (Nimble's two matchings)
    merge_lightest(chains, limit, weight)       -> merges the two lightest until `limit` remain
    is_acyclic(succs)                           -> Kahn's algorithm on any numbering

(scipy.sparse.csgraph.maximum_bipartite_matching and networkx offer matchings and DAG
algorithms too; these few functions keep the project free of both dependencies.)
"""

from __future__ import annotations

from collections.abc import Sequence


def reachability(succs: Sequence[Sequence[int]]) -> list[int]:
    """For each node u, the bitset of the nodes reachable from u by at least one edge
    (u itself excluded).  Needs a topological numbering (every edge u -> v has u < v)."""
    reach = [0] * len(succs)
    for u in range(len(succs) - 1, -1, -1):
        bits = 0
        for v in succs[u]:
            bits |= reach[v] | (1 << v)
        reach[u] = bits
    return reach


def lowest_set_bits(bits: int, limit: int) -> list[int]:
    """The positions of the lowest `limit` set bits of `bits` (a nonnegative int), in
    increasing order."""
    found: list[int] = []
    while bits and len(found) < limit:
        low = bits & -bits
        found.append(low.bit_length() - 1)
        bits ^= low
    return found


def max_bipartite_matching(left: int, adjacency: Sequence[Sequence[int]], right: int) -> list[int]:
    """A maximum matching of a bipartite graph (Hopcroft-Karp, iterative).

    Left vertices are 0..left-1, right vertices 0..right-1, and `adjacency[u]` lists the
    right vertices joined to left vertex u.  Returns `match` with `match[u]` the right vertex
    matched to u, or -1.  The result depends only on the order of the adjacency lists.
    """
    match_l = [-1] * left
    match_r = [-1] * right
    infinity = left + right + 1
    while True:
        dist = [infinity] * left
        queue = [u for u in range(left) if match_l[u] == -1]
        for u in queue:
            dist[u] = 0
        found = False
        head = 0
        while head < len(queue):
            u = queue[head]
            head += 1
            for v in adjacency[u]:
                w = match_r[v]
                if w == -1:
                    found = True
                elif dist[w] == infinity:
                    dist[w] = dist[u] + 1
                    queue.append(w)
        if not found:
            return match_l
        for root in range(left):
            if match_l[root] != -1:
                continue
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
    succs: Sequence[Sequence[int]], reach: Sequence[int], group: Sequence[int], fanout: int
) -> list[list[int]]:
    """Chains that together hold every node of `group` (Nimble's stream assignment).

    `succs` is the whole graph (topologically numbered), `reach` its `reachability`, and
    `group` the nodes to cover, in increasing order.  First a maximum matching on the edges
    of the transitive reduction between nodes of `group` makes chains of direct successors;
    then a second matching on the closure of the chain graph joins a chain to one it
    reaches, looking at the first `fanout` chains (by head) each chain reaches, which bounds
    the work on wide graphs.  Returns the chains as sorted node lists, in the order of the
    chain each one starts with.
    """
    members = set(group)
    position = {u: i for i, u in enumerate(group)}
    adjacency: list[list[int]] = [[] for _ in group]
    for u in group:
        below = 0
        for w in succs[u]:
            below |= reach[w]
        for v in succs[u]:
            if v in members and not (below >> v) & 1:
                adjacency[position[u]].append(position[v])
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
    head_bits = 0
    for h in heads:
        head_bits |= 1 << h
    closure: list[list[int]] = []
    for chain in chains:
        closure.append([heads[h] for h in lowest_set_bits(reach[chain[-1]] & head_bits, fanout)])
    after = max_bipartite_matching(len(chains), closure, len(chains))
    joined = [False] * len(chains)
    for c in after:
        if c != -1:
            joined[c] = True
    cover: list[list[int]] = []
    for c in range(len(chains)):
        if not joined[c]:
            nodes, k = [], c
            while k != -1:
                nodes.extend(chains[k])
                k = after[k]
            cover.append(sorted(nodes))
    return cover


def merge_lightest(
    chains: Sequence[Sequence[int]], limit: int, weight: Sequence[int]
) -> list[list[int]]:
    """Greedily merges the two lightest chains (total `weight` of their nodes; ties broken by
    the smaller first node) until at most `limit` remain.  Each chain is a sorted, nonempty
    node list; so is each merged one.  The inputs are not modified."""
    merged = [list(c) for c in chains]
    while len(merged) > limit:
        merged.sort(key=lambda c: (sum(weight[u] for u in c), c[0]))
        merged = [sorted(merged[0] + merged[1]), *merged[2:]]
    return merged


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
