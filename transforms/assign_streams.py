"""--assign-streams: put every op on a stream and order cross-stream dependencies with events.

Modes (`mode=labels|auto|single`, default labels, like GE's classic allocator):

- `labels`: ops with the same `stream.label` share a stream; unlabelled ops run on stream 0;
  unlabelled collectives on the comm stream.
- `auto`: independent branches run on different streams, chains stay on one.  Chains come
  from a maximum matching on the transitive reduction's edges; Nimble's second matching on
  the closure of the chain graph joins chains that run one after another (a minimum chain
  cover, looking at the first `CLOSURE_FANOUT` chains each chain reaches); the streams are
  then merged greedily, lightest first (work from the cost module), down to `max-streams`
  automatic streams (stream 0 included).  A label with `inner_parallel = true` is spread
  the same way over at most `max-streams` sub-streams of its own; with false its ops share
  one stream.
- `single`: everything on stream 0; a stream label is an error (GE's E10055).

In labels and auto mode GE's "ineffective multi-stream" rule follows: an unlabelled op whose
producers and users all sit on one other stream, with nothing between them there, moves
onto that stream (never onto a label stream, and onto the comm stream only if it is a
collective).

`stream.wait_tensor %x after %dep` orders every user of its result after `%dep`'s producer
and disappears.  Every cross-stream dependency (data, wait_tensor, and the fork from the
function entry and the join into `func.return`, virtual ops at the start and end of stream
0) gets a `stream.record` of the producer's results right after the producer and a
`stream.wait` right before the consumer, unless stream order and the other waits already
imply it.  The elimination is exact (vector clocks): a kept wait is never implied by the
others and a dropped one always is.  Constants run on their label's stream, else on the
stream of their first user, and never need an event.  Streams are numbered: 0 main, then label streams in order of first
appearance, then automatic streams in order of their first op, then the comm stream.  Ops
are never reordered; the result is checked deadlock-free.  `report` prints a GE-style
allocation summary on stderr.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect import ge, stream
from ge_dialect.cost import op_cost
from ge_dialect.diagnostics import GeError, OptionError, op_error

ENTRY = -1
"""The virtual op at the start of stream 0 that produces the function arguments."""

_COLLECTIVES = (ge.HcomAllReduceOp, ge.HcomAllGatherOp)


# ----------------------------------------------------------------------------------------
# The dependency graph
# ----------------------------------------------------------------------------------------


@dataclass
class _Graph:
    """Compute ops of one block in block order, with their producers (ENTRY for arguments)."""

    ops: list[Operation]
    preds: list[list[int]]
    exit_preds: list[int]
    has_args: bool
    succs: list[list[int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.succs = [[] for _ in self.ops]
        for v, ps in enumerate(self.preds):
            for u in ps:
                if u != ENTRY:
                    self.succs[u].append(v)


def _build_graph(block: Block) -> _Graph:
    index: dict[Operation, int] = {}
    ops: list[Operation] = []
    sources: dict[SSAValue, tuple[int, ...]] = {}

    def sources_of(value: SSAValue) -> tuple[int, ...]:
        if value in sources:
            return sources[value]
        owner = value.owner
        if isinstance(owner, Block):
            return (ENTRY,)
        if isinstance(owner, ge.ConstOp):
            return ()
        if isinstance(owner, stream.WaitTensorOp):
            found = tuple(dict.fromkeys(sources_of(owner.input) + sources_of(owner.dependency)))
            sources[value] = found
            return found
        return (index[owner],) if owner in index else ()

    preds: list[list[int]] = []
    exit_preds: list[int] = []
    for op in block.ops:
        if isinstance(op, ge.ConstOp | stream.WaitTensorOp):
            continue
        deps = list(dict.fromkeys(s for v in op.operands for s in sources_of(v)))
        if isinstance(op, func.ReturnOp):
            exit_preds = deps
            continue
        index[op] = len(ops)
        ops.append(op)
        preds.append(deps)
    return _Graph(ops, preds, exit_preds, bool(block.args))


def _reach(graph: _Graph) -> list[int]:
    """Bitsets of the ops reachable from each op (itself excluded)."""
    reach = [0] * len(graph.ops)
    for u in range(len(graph.ops) - 1, -1, -1):
        bits = 0
        for v in graph.succs[u]:
            bits |= reach[v] | (1 << v)
        reach[u] = bits
    return reach


def _max_matching(left: int, adjacency: Sequence[Sequence[int]], right: int) -> list[int]:
    """Hopcroft-Karp: `match[u]` is the right vertex matched to left vertex u, or -1."""
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


CLOSURE_FANOUT = 64
"""The second matching looks at most at the first 64 chains (in block order) that a chain
reaches: this bounds its work on wide graphs, where the streams are merged anyway."""


def _first_bits(bits: int, limit: int) -> list[int]:
    """Positions of the lowest `limit` set bits of `bits`."""
    found: list[int] = []
    while bits and len(found) < limit:
        low = bits & -bits
        found.append(low.bit_length() - 1)
        bits ^= low
    return found


def _chain_cover(graph: _Graph, group: list[int], reach: list[int]) -> list[list[int]]:
    """Streams for the ops of `group`: chains on reduction edges, then chains joined by a
    matching on the closure of the chain graph (Nimble).  Each stream lists op indices."""
    members = set(group)
    position = {u: i for i, u in enumerate(group)}
    adjacency: list[list[int]] = [[] for _ in group]
    for u in group:
        below = 0
        for w in graph.succs[u]:
            below |= reach[w]
        for v in graph.succs[u]:
            if v in members and not (below >> v) & 1:
                adjacency[position[u]].append(position[v])
    nxt = _max_matching(len(group), adjacency, len(group))
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
        closure.append([heads[h] for h in _first_bits(reach[chain[-1]] & head_bits, CLOSURE_FANOUT)])
    after = _max_matching(len(chains), closure, len(chains))
    joined = [False] * len(chains)
    for c in after:
        if c != -1:
            joined[c] = True
    streams: list[list[int]] = []
    for c in range(len(chains)):
        if not joined[c]:
            ops, k = [], c
            while k != -1:
                ops.extend(chains[k])
                k = after[k]
            streams.append(sorted(ops))
    return streams


def _merge_to(streams: list[list[int]], limit: int, weight: list[int]) -> list[list[int]]:
    """Merges the two lightest streams until at most `limit` remain."""
    streams = [list(s) for s in streams]
    while len(streams) > limit:
        streams.sort(key=lambda s: (sum(weight[u] for u in s), s[0]))
        merged = sorted(streams[0] + streams[1])
        streams = [merged, *streams[2:]]
    return streams


# ----------------------------------------------------------------------------------------
# Assignment
# ----------------------------------------------------------------------------------------


@dataclass
class _Stream:
    key: tuple
    label: stream.LabelAttr | None = None
    ops: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.key[0]


def _label(op: Operation) -> stream.LabelAttr | None:
    label = op.attributes.get(stream.LABEL)
    return label if isinstance(label, stream.LabelAttr) else None


def _assign(graph: _Graph, mode: str, max_streams: int) -> list[tuple]:
    """The stream key of each op: ("auto", k), ("label", name, k) or ("comm",)."""
    keys: list[tuple] = [("auto", 0)] * len(graph.ops)
    labels = [_label(op) for op in graph.ops]
    if mode == "single":
        for op, label in zip(graph.ops, labels):
            if label is not None:
                raise op_error(
                    op,
                    f'has stream label "{label.label.data}", but mode=single runs everything '
                    "on one stream (GE E10055: stream labels need multi-stream)",
                )
        return keys
    groups: dict[object, list[int]] = {}
    for u, (op, label) in enumerate(zip(graph.ops, labels)):
        if label is not None:
            name = label.label.data
            if mode == "auto" and label.inner_parallel.data:
                groups.setdefault(("label", name), []).append(u)
            else:
                keys[u] = ("label", name, 0)
        elif isinstance(op, _COLLECTIVES):
            keys[u] = ("comm",)
        elif mode == "auto":
            groups.setdefault(("auto",), []).append(u)
    if groups:
        reach = _reach(graph)
        weight = [_weight(op) for op in graph.ops]
        for group_key, members in groups.items():
            streams = _merge_to(_chain_cover(graph, members, reach), max_streams, weight)
            streams.sort(key=lambda s: s[0])
            for k, ops in enumerate(streams):
                for u in ops:
                    keys[u] = (*group_key, k)
    return keys


def _weight(op: Operation) -> int:
    cost = op_cost(op)
    return cost.flops + cost.bytes_in + cost.bytes_out


def _ineffective(graph: _Graph, keys: list[tuple]) -> None:
    """GE's OptimizeIneffectiveMultiStreamPass on unlabelled ops (collectives included)."""
    members: dict[tuple, list[int]] = {}
    for u, key in enumerate(keys):
        members.setdefault(key, []).append(u)
    main = ("auto", 0)
    exit_preds = set(graph.exit_preds)
    for u, op in enumerate(graph.ops):
        if _label(op) is not None:
            continue
        users = graph.succs[u] + ([len(graph.ops)] if u in exit_preds else [])
        neighbours = {main if p == ENTRY else keys[p] for p in graph.preds[u]}
        neighbours |= {main if v == len(graph.ops) else keys[v] for v in users}
        if len(neighbours) != 1 or not graph.preds[u] or not users:
            continue  # it needs producers and users, all on one stream
        (target,) = neighbours
        if target == keys[u] or target[0] == "label":
            continue
        if target[0] == "comm" and not isinstance(op, _COLLECTIVES):
            continue  # the comm stream runs collectives only
        last_pred = max((p for p in graph.preds[u] if p != ENTRY), default=-1)
        first_user = min(users, default=len(graph.ops))
        on_target = members.setdefault(target, [])
        between = bisect.bisect_right(on_target, last_pred)
        if between < len(on_target) and on_target[between] < first_user:
            continue  # something runs on the target stream between them: keep the parallelism
        own = members[keys[u]]
        del own[bisect.bisect_left(own, u)]
        bisect.insort(on_target, u)
        keys[u] = target


def _number(graph: _Graph, keys: list[tuple]) -> tuple[list[int], list[_Stream]]:
    """Stream ids: 0 main, label streams by first appearance, automatic streams by first op,
    then comm."""
    first: dict[tuple, int] = {}
    for u, key in enumerate(keys):
        first.setdefault(key, u)
    autos = sorted((k for k in first if k[0] == "auto"), key=first.__getitem__)
    main = autos[0] if autos else ("auto", 0)
    labels_ = sorted((k for k in first if k[0] == "label"), key=first.__getitem__)
    order = [main, *labels_, *(k for k in autos if k != main), *(k for k in first if k[0] == "comm")]
    number = {k: i for i, k in enumerate(order)}
    streams = [_Stream(k) for k in order]
    ids = [number[k] for k in keys]
    for u, sid in enumerate(ids):
        streams[sid].ops.append(u)
        if streams[sid].label is None:
            streams[sid].label = _label(graph.ops[u])
    return ids, streams


# ----------------------------------------------------------------------------------------
# Events
# ----------------------------------------------------------------------------------------


@dataclass
class _Events:
    waits: dict[int, list[int]]  # consumer (op index, or len(ops) for EXIT) -> producers kept
    dependencies: int
    dropped: int


def _events(graph: _Graph, ids: list[int], nstreams: int) -> _Events:
    """Keeps exactly the cross-stream dependencies that stream order and the other kept
    waits do not imply (vector clocks: clock[s] = last position on stream s known done)."""
    exit_node = len(graph.ops)
    position: list[int] = [0] * len(graph.ops)
    counts = [0] * nstreams
    counts[0] = 1  # ENTRY is position 0 on stream 0
    for u, s in enumerate(ids):
        position[u] = counts[s]
        counts[s] += 1
    entry_clock = [-1] * nstreams
    entry_clock[0] = 0
    clocks: list[list[int]] = [[]] * len(graph.ops)
    last_on: list[list[int] | None] = [None] * nstreams
    last_on[0] = entry_clock
    first_of = {s: None for s in range(nstreams)}
    for u, s in enumerate(ids):
        if first_of[s] is None:
            first_of[s] = u
    last_of = {s: u for u, s in enumerate(ids)}

    def where(u: int) -> tuple[int, int, list[int]]:
        if u == ENTRY:
            return 0, 0, entry_clock
        return ids[u], position[u], clocks[u]

    result = _Events({}, 0, 0)

    def settle(v: int, s: int, deps: list[int]) -> list[int]:
        base = list(last_on[s]) if last_on[s] is not None else [-1] * nstreams
        cross = [u for u in dict.fromkeys(deps) if where(u)[0] != s]
        result.dependencies += len(cross)
        needed = [u for u in cross if base[where(u)[0]] < where(u)[1]]
        kept = [
            u for u in needed
            if not any(w != u and where(w)[2][where(u)[0]] >= where(u)[1] for w in needed)
        ]
        result.dropped += len(cross) - len(kept)
        if kept:
            result.waits[v] = kept
        for u in kept:
            clock = where(u)[2]
            base = [max(a, b) for a, b in zip(base, clock)]
        return base

    for v, s in enumerate(ids):
        deps = list(graph.preds[v])
        if s != 0 and first_of[s] == v and graph.has_args:
            deps.append(ENTRY)  # fork: a stream starts after the function does
        clock = settle(v, s, deps)
        clock[s] = position[v]
        clocks[v] = clock
        last_on[s] = clock
    joins = [last_of[s] for s in range(1, nstreams) if s in last_of]
    settle(exit_node, 0, list(graph.exit_preds) + joins)
    return result


# ----------------------------------------------------------------------------------------
# Rewriting
# ----------------------------------------------------------------------------------------


def _rewrite(block: Block, graph: _Graph, ids: list[int], events: _Events) -> None:
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    for u, op in enumerate(graph.ops):
        op.attributes[stream.ID] = stream.StreamIdAttr(ids[u])
    records: dict[int, stream.RecordOp] = {}

    def record_of(u: int) -> stream.RecordOp:
        if u not in records:
            if u == ENTRY:
                rec = stream.RecordOp(list(block.args))
                rec.attributes[stream.ID] = stream.StreamIdAttr(0)
                parent = block.parent_op()
                if parent is not None:
                    rec.location = parent.location
                Rewriter.insert_op(rec, InsertPoint.at_start(block))
            else:
                producer = graph.ops[u]
                rec = stream.RecordOp(list(producer.results))
                rec.attributes[stream.ID] = stream.StreamIdAttr(ids[u])
                rec.location = producer.location
                Rewriter.insert_op(rec, InsertPoint.after(producer))
            records[u] = rec
        return records[u]

    for v in sorted(events.waits):
        consumer = ret if v == len(graph.ops) else graph.ops[v]
        sid = 0 if v == len(graph.ops) else ids[v]
        for u in sorted(events.waits[v]):
            wait = stream.WaitOp(record_of(u).event)
            wait.attributes[stream.ID] = stream.StreamIdAttr(sid)
            wait.location = consumer.location
            Rewriter.insert_op(wait, InsertPoint.before(consumer))
    for op in list(block.ops):
        if isinstance(op, stream.WaitTensorOp):
            op.output.replace_all_uses_with(op.input)
            Rewriter.erase_op(op)
    order = {op: i for i, op in enumerate(block.ops)}
    label_streams: dict[str, stream.StreamIdAttr] = {}
    for u, op in enumerate(graph.ops):
        label = op.attributes.get(stream.LABEL)
        if isinstance(label, stream.LabelAttr):
            label_streams.setdefault(label.label.data, stream.StreamIdAttr(ids[u]))
    for op in block.ops:
        if isinstance(op, ge.ConstOp):
            label = op.attributes.get(stream.LABEL)
            if isinstance(label, stream.LabelAttr) and label.label.data in label_streams:
                op.attributes[stream.ID] = label_streams[label.label.data]
                continue
            users = sorted((use.operation for use in op.output.uses), key=lambda o: order.get(o, 0))
            ids_of_users = [u.attributes.get(stream.ID) for u in users]
            op.attributes[stream.ID] = next(
                (i for i in ids_of_users if i is not None), stream.StreamIdAttr(0)
            )


def _check_deadlock_free(block: Block) -> None:
    """Stream order plus record -> wait edges must be acyclic (Kahn's algorithm)."""
    ops = [op for op in block.ops if stream.ID in op.attributes]
    index = {op: i for i, op in enumerate(ops)}
    succs: list[list[int]] = [[] for _ in ops]
    indegree = [0] * len(ops)
    last: dict[int, int] = {}
    for i, op in enumerate(ops):
        sid = stream.stream_of(op)
        if sid in last:
            succs[last[sid]].append(i)
            indegree[i] += 1
        last[sid] = i  # type: ignore[index]
        if isinstance(op, stream.WaitOp) and isinstance(op.event.owner, stream.RecordOp):
            succs[index[op.event.owner]].append(i)
            indegree[i] += 1
    ready = [i for i in range(len(ops)) if indegree[i] == 0]
    done = 0
    while ready:
        i = ready.pop()
        done += 1
        for j in succs[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                ready.append(j)
    if done != len(ops):
        raise GeError("error: assign-streams produced a cycle of stream order and waits (a bug)")


def _report(fn: func.FuncOp, mode: str, streams: list[_Stream], events: _Events, graph: _Graph) -> None:
    out = sys.stderr
    print(f"[assign-streams] @{fn.sym_name.data}: mode {mode}, {len(streams)} stream(s)", file=out)
    for sid, s in enumerate(streams):
        kind = "main" if sid == 0 else s.kind
        label = s.label.label.data if s.label is not None and s.kind == "label" else ""
        priority = s.label.priority.data if s.label is not None and s.kind == "label" else 0
        print(
            f"  logic_stream_id: {sid}, kind: {kind}, user_stream_label: {label}, "
            f"priority: {priority}, ops: {len(s.ops)}",
            file=out,
        )
    kept = sum(len(v) for v in events.waits.values())
    print(
        f"  events: {kept} kept, {events.dropped} dropped of {events.dependencies} "
        "cross-stream dependencies",
        file=out,
    )


@dataclass(frozen=True)
class AssignStreamsPass(ModulePass):
    """Assigns streams (labels, auto or single) and orders cross-stream dependencies."""

    name = "assign-streams"

    mode: str = "labels"
    max_streams: int = 8
    report: bool = False

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.mode not in ("labels", "auto", "single"):
            raise OptionError(f"assign-streams: mode must be labels, auto or single, got '{self.mode}'")
        if self.max_streams < 1:
            raise OptionError(f"assign-streams: max-streams must be at least 1, got {self.max_streams}")
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if not fn.body.blocks:
                continue
            block = fn.body.block
            if any(stream.ID in o.attributes for o in block.ops):
                raise op_error(next(o for o in block.ops if stream.ID in o.attributes),
                               "is already assigned to a stream: run --assign-streams once")
            graph = _build_graph(block)
            keys = _assign(graph, self.mode, self.max_streams)
            if self.mode != "single":
                _ineffective(graph, keys)
            ids, streams = _number(graph, keys)
            events = _events(graph, ids, len(streams) or 1)
            _rewrite(block, graph, ids, events)
            _check_deadlock_free(block)
            if self.report:
                _report(fn, self.mode, streams, events, graph)
