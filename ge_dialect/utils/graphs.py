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
    paths (`_layers`), then a depth-first search from each of them along those layers
    (`_augment`).  The first phase from the empty matching is a greedy pass instead
    (`_match_greedily`), which matches the same pairs.
    """
    match_l = [-1] * left
    match_r = [-1] * right
    _match_greedily(adjacency, match_l, match_r)
    infinity = left + right + 1
    while True:
        roots = [u for u in range(left) if match_l[u] == -1]
        dist = _layers(roots, adjacency, match_r, [infinity] * left, infinity)
        if dist is None:
            return match_l
        # a free root stays free until its own search: no other augmenting path passes it
        for root in roots:
            _augment(root, adjacency, dist, infinity, match_l, match_r)


def _match_greedily(
    adjacency: Sequence[Sequence[int]], match_l: list[int], match_r: list[int]
) -> None:
    """Matches each left vertex, in order, to the first of its right vertices still free.

    What the first phase of Hopcroft-Karp does from the empty matching: its search finds a
    free right vertex next to every left vertex with an edge (all left vertices are free:
    distance 0), and its depth-first searches then, root by root, take the first one still
    free."""
    for u in range(len(match_l)):
        for v in adjacency[u]:
            if match_r[v] == -1:
                match_l[u], match_r[v] = v, u
                break


def _layers(
    roots: list[int],
    adjacency: Sequence[Sequence[int]],
    match_r: list[int],
    dist: list[int],
    infinity: int,
) -> list[int] | None:
    """The breadth-first search of a phase: `dist` (all `infinity`, more than any distance)
    filled with each left vertex's distance from the free `roots` along alternating paths,
    or None when none of them reaches a free right vertex (the matching is maximum)."""
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
    return dist if found else None


def _augment(
    root: int,
    adjacency: Sequence[Sequence[int]],
    dist: list[int],
    infinity: int,
    match_l: list[int],
    match_r: list[int],
) -> None:
    """The depth-first search of a phase from the free left vertex `root`, along the layers
    of `dist` (iterative): flips the first augmenting path it finds into the matching, and
    marks each left vertex it leaves without one as a dead end (`infinity`)."""
    stack = [(root, iter(adjacency[root]))]
    path: list[tuple[int, int]] = []
    while stack:
        u, edges = stack[-1]
        for v in edges:
            w = match_r[v]
            if w == -1:
                path.append((u, v))
                for pu, pv in path:
                    match_l[pu], match_r[pv] = pv, pu
                return
            if dist[w] == dist[u] + 1:
                path.append((u, v))
                stack.append((w, iter(adjacency[w])))
                break
        else:  # no edge left: a dead end
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
    than the ones merged before them, so two queues give the lightest in turn
    (`_LightestFirst`).  With negative weights one heap keyed by (weight, first node) does.
    Either way a merge only links the smaller chain (in nodes) to the larger, and each node
    is placed once at the end (`_Merges`, a union-find): no node moves from list to list as
    chains grow.  O(n log n) for the sort, linear otherwise (but for the heap).
    """
    if len(chains) <= limit:
        return [list(c) for c in chains]
    entries = [(sum(weight[u] for u in c), c[0], i) for i, c in enumerate(chains)]
    merges = _Merges([len(c) for c in chains])
    count = len(chains) - limit
    if any(w < 0 for w, _, _ in entries):
        remaining = _merge_by_heap(entries, count, merges)
    else:
        remaining = _merge_by_queues(entries, count, merges)
    return merges.chains(chains, remaining)


_Entry = tuple[int, int, int]
"""A chain to merge: (weight, first node, index of the chain that holds its nodes)."""


class _Merges:
    """The merges done so far, as a union-find over the chains' indices: each chain's size
    (in nodes) while it is alive, and the chain each one was merged into (itself: alive)."""

    def __init__(self, size: list[int]):
        self.size = size
        self.into = list(range(len(size)))
        self.last = -1  # the chain the last merge kept

    def merge(self, a: _Entry, b: _Entry) -> _Entry:
        """Merges the chains of `a` and `b`, the smaller into the larger (in nodes), and
        returns the entry of the merged chain."""
        (w1, first1, i), (w2, first2, j) = a, b
        size = self.size
        if size[i] < size[j]:
            i, j = j, i
        size[i] += size[j]
        self.into[j] = i
        self.last = i
        return (w1 + w2, min(first1, first2), i)

    def find(self, c: int) -> int:
        """The alive chain that holds chain `c`'s nodes."""
        into = self.into
        while into[c] != c:
            into[c] = into[into[c]]  # path halving
            c = into[c]
        return c

    def chains(self, chains: Sequence[Sequence[int]], remaining: list[_Entry]) -> list[list[int]]:
        """The nodes of the chains left (`remaining`, the entries of the alive ones), each
        sorted: the last merged one first, then the others from the lightest."""
        last = self.last
        rest = sorted(entry for entry in remaining if entry[2] != last)
        order = (last, *(entry[2] for entry in rest))
        members: dict[int, list[int]] = {k: [] for k in order}
        for c, nodes in enumerate(chains):
            members[self.find(c)].extend(nodes)
        return [sorted(members[k]) for k in order]


def _merge_by_heap(entries: list[_Entry], count: int, merges: _Merges) -> list[_Entry]:
    """Merges the two lightest chains `count` times, the chains in one heap (any weights);
    returns the entries left."""
    heapq.heapify(entries)
    heappop, merge = heapq.heappop, merges.merge
    for _ in range(count):
        a = heappop(entries)
        heapq.heappush(entries, merge(a, heappop(entries)))
    return entries


def _merge_by_queues(entries: list[_Entry], count: int, merges: _Merges) -> list[_Entry]:
    """Merges the two lightest chains `count` times, weights of at least 0 (`_LightestFirst`);
    returns the entries left."""
    queue = _LightestFirst(entries)
    pop, push, merge = queue.pop, queue.push, merges.merge  # (bound once: a call per merge)
    for _ in range(count):
        a = pop()
        push(merge(a, pop()))
    return queue.remaining()


class _LightestFirst:
    """The chains to merge, lightest first, for weights of at least 0: two queues.

    The chains not merged yet, sorted once (in C); the merged ones, in order of weight,
    as they come out no lighter than the ones merged before them (as in Huffman coding):
    those of the lightest weight sorted by first node (`run`, a heap only if a merge adds
    to that weight, which takes a chain of weight 0), the heavier ones in a queue
    (`later`) until their turn comes.
    """

    def __init__(self, entries: list[_Entry]):
        entries.sort()
        self.entries = entries
        self.next_entry = 0  # entries[next_entry:] are the chains not merged yet
        self.run: list[_Entry] = []  # the merged chains of the lightest weight...
        self.in_run = 0  # ...from run[in_run] on, sorted (a heap from run[0] on if as_heap)
        self.as_heap = False
        self.later: deque[_Entry] = deque()  # heavier merged ones, by weight

    def _run_head(self) -> _Entry | None:
        """The lightest merged chain of the current run, if any is left."""
        run = self.run
        if self.as_heap:
            return run[0] if run else None
        return run[self.in_run] if self.in_run < len(run) else None

    def _next_run(self) -> _Entry:
        """Starts the run of the next weight of merged chains (`later` is not empty), and
        returns its lightest."""
        later = self.later
        lightest = later[0][0]
        run = []
        while later and later[0][0] == lightest:
            run.append(later.popleft())
        run.sort()
        self.run, self.in_run, self.as_heap = run, 0, False
        return run[0]

    def pop(self) -> _Entry:
        """Takes the lightest chain out (ties: the smaller first node)."""
        merged = self._run_head()
        if merged is None and self.later:
            merged = self._next_run()
        entries, k = self.entries, self.next_entry
        if k < len(entries) and (merged is None or entries[k] < merged):
            self.next_entry = k + 1
            return entries[k]
        if self.as_heap:
            return heapq.heappop(self.run)
        assert merged is not None
        self.in_run += 1
        return merged

    def push(self, entry: _Entry) -> None:
        """Adds a merged chain, no lighter than the ones merged before it."""
        current = self._run_head()
        if current is None or entry[0] != current[0]:
            self.later.append(entry)
            return
        # only with weights 0: keep that weight's order exact
        if not self.as_heap:
            self.run = self.run[self.in_run :]
            heapq.heapify(self.run)
            self.in_run, self.as_heap = 0, True
        heapq.heappush(self.run, entry)

    def remaining(self) -> list[_Entry]:
        """The entries of the chains left, in no particular order."""
        run = self.run if self.as_heap else self.run[self.in_run :]
        return [*self.entries[self.next_entry :], *run, *self.later]


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
