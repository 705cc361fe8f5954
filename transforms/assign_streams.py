"""--assign-streams: put every op on a stream and order cross-stream dependencies with events.

Modes (`mode=labels|auto|single`, default labels, like GE's classic allocator):

- `labels`: ops with the same `stream.label` share a stream; unlabelled ops run on stream 0;
  unlabelled collectives on the comm stream.  A label with `inner_parallel = true` (TorchAir's
  `enable_inner_parallel`, its default) is spread over sub-streams of its own as in mode
  auto below: independent branches inside the scope run in parallel, a chain stays on one.
- `auto`: independent branches run on different streams, chains stay on one.  Chains come
  from a maximum matching on the transitive reduction's edges (exact on functions of up to
  1025 compute ops; on larger ones reachability is known exactly among ops up to
  `REACH_WINDOW` apart); Nimble's second matching on the closure of the chain graph joins
  chains that run one after another (a minimum chain cover, looking at the first
  `CLOSURE_FANOUT` chains each chain reaches); the streams are then merged greedily,
  lightest first (work from the cost module, as in Huffman coding), down to `max-streams`
  automatic streams (stream 0 included).  A label with `inner_parallel = true` is spread
  the same way over at most `max-streams` sub-streams of its own; with false its ops share
  one stream.  Unlabelled collectives run on the comm stream and stay there (the rule below
  does not move them), so that communication overlaps the compute of the other streams.
- `single`: everything on stream 0; a stream label is an error (GE's E10055).

`comm-streams=2` (default 1; GE runs 1 compute and 1-2 comm streams) spreads the unlabelled
collectives (every `ge.hcom_*` op) over two comm streams: the k-th collective of a group goes
to comm stream k mod 2, a rule every member rank of the group applies alike, so members
reach the collectives of each comm stream in the same order.  The device has one comm engine
either way: a second comm stream adds no bandwidth, it removes head-of-line blocking (a
collective whose inputs are late no longer holds up a ready one behind it on its stream).

In labels and auto mode GE's "ineffective multi-stream" rule follows: an unlabelled op whose
producers and users all sit on one other stream, with nothing between them there, moves
onto that stream (never onto a label stream, and onto the comm stream only if it is a
collective); in auto mode it leaves the collectives on the comm stream.

`stream.wait_tensor %x after %dep` orders every user of its result after `%dep`'s producer
and disappears.  Every cross-stream dependency (data, wait_tensor, and the fork from the
function entry and the join into `func.return`, virtual ops at the start and end of stream
0) gets a `stream.record` of the producer's results right after the producer and a
`stream.wait` right before the consumer, unless stream order and the other waits already
imply it.  The elimination is exact (vector clocks): a kept wait is never implied by the
others and a dropped one always is.  Constants run on their label's stream, else on the
stream of their first user, and never need an event.  Streams are numbered: 0 main, then
label streams in order of first appearance, then automatic streams in order of their first
op, then the comm stream.  Ops are never reordered; the result is checked deadlock-free (a
cycle would be a bug of the pass: `InternalError`).  With `report=true` the pass records a
GE-style allocation summary per function (a `StreamReport`) with `transforms.reports.record`;
ge-opt prints it on stderr.

The graph algorithms (transitive reduction, matchings, chain cover, merging, acyclicity)
work on plain integers and live in `ge_dialect.utils.graphs`; this module maps IR to them
and back.  Every step is linear in ops plus dependencies (times the number of streams for
the vector clocks, and the number of labels spread by `inner_parallel` for the chain
cover), but for two that come close: the merge sorts the chains once (O(n log n), in C),
and the matchings are Hopcroft-Karp's, O(E sqrt(V)) at worst but a few phases on these
graphs (3 to 4 from 1k to 100k ops on `bench/streams.py`'s random DAGs).  No full
transitive closure, no pairwise test among the producers of a join, no re-sorting of
streams per merge.  The IR is read once (`_build_graph`, which also lists the ops with
regions, where more functions may be) and written once (`_rewrite`); the deadlock check reads
the waits chosen (it reads the block once more only when the input has stream ops of its
own).  Users per op are made only for automatic streams.  Streams are small int keys into a
table of stream descriptions (`_assign`) until they are numbered, so that the phases between
compare and index ints rather than hash a tuple per op.  Its tables per op (dependencies,
clocks, waits) are tuples of ints, which Python's cyclic GC stops tracking, so a large
function's graph does not bring on the GC's full collections (the records and waits the
pass inserts do count, as any new IR).
`bench/streams.py` prints the cost per op from 1k to 100k ops, also relative to a plain
walk of the IR, whose cost per op grows with the heap by itself (caches).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal, cast

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.cost import op_cost
from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils.errors import OptionError, op_error
from ge_dialect.utils.graphs import (
    chain_cover,
    merge_lightest,
    transitive_reduction,
)
from ge_dialect.utils.task_order import LAUNCH, RECORD, WAIT, TaskKind, start_order
from transforms import reports
from transforms.options import check_literal_options

Mode = Literal["labels", "auto", "single"]
"""The values of the `mode` option."""

ENTRY = -1
"""The virtual op at the start of stream 0 that produces the function arguments."""


# ----------------------------------------------------------------------------------------
# The dependency graph
# ----------------------------------------------------------------------------------------


@dataclass
class _Graph:
    """Compute ops of one block in block order, with their producers (ENTRY for arguments).

    Dependency lists are tuples of ints: the collector untracks them, so that a large
    function's graph does not count towards (or slow down) the full collections of
    Python's cyclic GC.
    """

    ops: list[Operation]
    preds: list[tuple[int, ...]]
    exit_preds: list[int]
    has_args: bool
    labels: list[stream.LabelAttr | None] = field(default_factory=list)
    """The user stream label of each op (`_label`; found from the ops if not given)."""
    label_names: list[str | None] = field(default_factory=list)
    """The name of each op's label (None without one; found from `labels` if not given)."""
    consts: list[ge.ConstOp] = field(default_factory=list)
    """The constants of the block, in block order."""
    wait_tensors: list[stream.WaitTensorOp] = field(default_factory=list)
    """The wait_tensors of the block, in block order."""
    assigned: Operation | None = None
    """The first op of the block that already has a `stream.id`, if any."""
    nested: list[Operation] = field(default_factory=list)
    """The ops of the block that have regions (where more functions may be), in order."""
    collectives: set[int] = field(default_factory=set)
    """The collectives among the ops."""
    stream_ops: bool = False
    """Whether the block has `stream.record` or `stream.wait` ops of its own (before the pass)."""

    _succs: list[tuple[int, ...]] | None = None

    @property
    def succs(self) -> list[tuple[int, ...]]:
        """The users of each op (compute ops, in block order), made on first use: only
        automatic streams need them (a tuple per op; labels mode reads `users`)."""
        if self._succs is None:
            succs: list[list[int]] = [[] for _ in self.ops]
            for v, ps in enumerate(self.preds):
                for u in ps:
                    if u != ENTRY:
                        succs[u].append(v)
            self._succs = [tuple(targets) for targets in succs]
        return self._succs

    def __post_init__(self) -> None:
        if len(self.labels) != len(self.ops):
            self.labels = [_label(op) for op in self.ops]
        if len(self.label_names) != len(self.ops):
            self.label_names = [None if x is None else x.label.data for x in self.labels]


_COMPUTE, _CONST, _WAIT_TENSOR, _RETURN, _COLLECTIVE, _STREAM_OP = range(6)

_KINDS: dict[type, int] = {}
"""The kind of each op class met so far (isinstance once per class, not once per op)."""


def _kind(op: Operation) -> int:
    """`_WAIT_TENSOR`, `_CONST`, `_RETURN`, `_COLLECTIVE` (a compute op), `_STREAM_OP` (a
    `stream.record` or `stream.wait` of the input: a compute op) or `_COMPUTE` (anything
    else) for `op`."""
    kind = _KINDS.get(type(op))
    if kind is None:
        if isinstance(op, stream.WaitTensorOp):
            kind = _WAIT_TENSOR
        elif isinstance(op, ge.ConstOp):
            kind = _CONST
        elif isinstance(op, func.ReturnOp):
            kind = _RETURN
        elif op.name.startswith("ge.hcom_"):  # every collective, send and receive
            kind = _COLLECTIVE
        elif isinstance(op, stream.RecordOp | stream.WaitOp):
            kind = _STREAM_OP
        else:
            kind = _COMPUTE
        _KINDS[type(op)] = kind
    return kind


def _is_a(op: object, cls: type | tuple[type, ...], cache: dict[type, bool]) -> bool:
    """isinstance(op, cls), asked once per class of `op` (`cache` is one per `cls`)."""
    found = cache.get(type(op))
    if found is None:
        found = cache[type(op)] = isinstance(op, cls)
    return found


_IS_RECORD: dict[type, bool] = {}
_IS_WAIT: dict[type, bool] = {}
_IS_FUNC: dict[type, bool] = {}


def _sources_of(value: SSAValue, sources: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
    """The producers of `value` for `_build_graph` (`sources` maps the `id` of each value
    seen so far to its producers; this adds those of wait_tensor results).  A function of
    the module, not a closure: a closure that calls itself is a reference cycle, which
    would keep `sources` (a tuple per op) alive for the cyclic GC to find."""
    found = sources.get(id(value))
    if found is not None:
        return found
    owner = value.owner
    if isinstance(owner, Block):
        return (ENTRY,)
    if isinstance(owner, ge.ConstOp):
        return ()
    if isinstance(owner, stream.WaitTensorOp):
        found = tuple(
            dict.fromkeys(
                _sources_of(owner.input, sources) + _sources_of(owner.dependency, sources)
            )
        )
        sources[id(value)] = found
        return found
    # not a compute op of the block seen so far (their results are in `sources`)
    return ()


def _build_graph(block: Block) -> _Graph:
    """The dependency graph of `block`: data edges and wait_tensor edges between its compute
    ops (constants need nothing; a wait_tensor passes on both its operands' producers).

    The producers of each value defined in the block are looked up by the value's `id` (a
    value of another block, if any, by its owner), so an operand costs one lookup in a
    table of small entries rather than a visit to its producer (`_producers`)."""
    ops: list[Operation] = []
    # id(value) -> its producers; the block's own values only (they stay alive meanwhile)
    sources: dict[int, tuple[int, ...]] = {id(arg): (ENTRY,) for arg in block.args}
    consts: list[ge.ConstOp] = []
    wait_tensors: list[stream.WaitTensorOp] = []
    labels: list[stream.LabelAttr | None] = []
    label_names: list[str | None] = []
    nested: list[Operation] = []
    collectives: set[int] = set()
    stream_ops = False
    assigned: Operation | None = None

    preds: list[tuple[int, ...]] = []
    exit_preds: list[int] = []
    kinds = _KINDS
    label_type = stream.LabelAttr
    following = block.first_op
    while following is not None:  # the ops in order (one call per op: no iterator)
        op = following
        following = op.next_op
        # one look at each op's attributes: already assigned?  its label (`_label`)
        attributes = op.attributes
        label: stream.LabelAttr | None = None
        name: str | None = None
        if attributes:
            if assigned is None and stream.ID in attributes:
                assigned = op
            found_label = attributes.get(stream.LABEL)
            if found_label is not None and (
                type(found_label) is label_type or isinstance(found_label, label_type)
            ):
                label, name = found_label, found_label.label.data
        if op.regions:
            nested.append(op)
        kind = kinds.get(type(op))
        if kind is None:
            kind = _kind(op)
        if kind == _WAIT_TENSOR:
            # in block order, so that a chain of wait_tensors never recurses deeply
            _sources_of(cast(stream.WaitTensorOp, op).output, sources)
            wait_tensors.append(cast(stream.WaitTensorOp, op))
            continue
        if kind == _CONST:
            consts.append(cast(ge.ConstOp, op))
            for result in op.results:
                sources[id(result)] = ()
            continue
        deps = _producers(op, sources)
        if kind == _RETURN:
            exit_preds = list(deps)
            continue
        u = len(ops)
        if kind == _COLLECTIVE:
            collectives.add(u)
        elif kind == _STREAM_OP:
            stream_ops = True
        ops.append(op)
        preds.append(deps)
        labels.append(label)
        label_names.append(name)
        mine = (u,)
        for result in op.results:
            sources[id(result)] = mine
    return _Graph(
        ops,
        preds,
        exit_preds,
        bool(block.args),
        labels=labels,
        label_names=label_names,
        consts=consts,
        wait_tensors=wait_tensors,
        assigned=assigned,
        nested=nested,
        collectives=collectives,
        stream_ops=stream_ops,
    )


def _producers(op: Operation, sources: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
    """The producers of `op`'s operands, without repeats, in operand order (`sources` as in
    `_sources_of`).  One operand's, and two distinct ones', need no dict to drop repeats."""
    get = sources.get
    deps: tuple[int, ...] | None = None
    more: list[int] | None = None  # with several operands: all their producers
    for value in op.operands:
        found = get(id(value))
        if found is None:
            found = _sources_of(value, sources)
        if deps is None:
            deps = found
        elif more is None:
            more = [*deps, *found]
        else:
            more.extend(found)
    if more is None:
        return () if deps is None else deps
    if len(more) != 2:
        return tuple(dict.fromkeys(more))
    if more[0] != more[1]:
        return (more[0], more[1])
    if deps is None or len(deps) != 1:  # (else both from the first producer: its tuple)
        return (more[0],)
    return deps


# ----------------------------------------------------------------------------------------
# Assignment
# ----------------------------------------------------------------------------------------

CLOSURE_FANOUT = 64
"""The second matching looks at most at the first 64 chains (in block order) that a chain
reaches: this bounds its work on wide graphs, where the streams are merged anyway."""

REACH_WINDOW = 1024
"""The transitive reduction knows reachability exactly among ops at most 1024 apart in
block order (`graphs.transitive_reduction`): exact on any function of up to 1025 compute
ops, linear in time and memory on larger ones, where a longer edge may be kept although a
path implies it (its chain is still a chain; there may be one more than the minimum)."""


@dataclass
class _Stream:
    """A numbered stream: its key (see `_assign`), its label and its ops (indices)."""

    key: tuple
    label: stream.LabelAttr | None = None
    ops: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.key[0]


def _label(op: Operation) -> stream.LabelAttr | None:
    """The user stream label of `op`, if any."""
    label = op.attributes.get(stream.LABEL)
    return label if label is not None and isinstance(label, stream.LabelAttr) else None


def _assign(
    graph: _Graph, mode: Mode, max_streams: int, comm_streams: int = 1
) -> tuple[list[int], list[tuple]]:
    """The stream key of each op, and the table of keys: key k stands for the stream
    `table[k]`, one of ("auto", k), ("label", name, k) and ("comm", k); key 0 is ("auto", 0),
    the main stream.  Keys are small ints (numbered by first use), so the phases that follow
    compare and index them rather than hash tuples: one list of ints, whose objects Python
    shares, rather than a tuple per op."""
    keys: list[int] = [0] * len(graph.ops)
    table = _StreamTable()
    if mode == "single":
        _check_unlabelled(graph)
        return keys, table.streams
    groups = _place_fixed(graph, mode, keys, table, comm_streams)
    if groups:
        _spread(graph, groups, max_streams, keys, table)
    return keys, table.streams


class _StreamTable:
    """The streams of `_assign` (`streams[k]` is the stream of key k), keyed by first use;
    key 0 is ("auto", 0), the main stream."""

    def __init__(self) -> None:
        self.streams: list[tuple] = [("auto", 0)]
        self._number: dict[tuple, int] = {self.streams[0]: 0}

    def key(self, stream_key: tuple) -> int:
        """The key of the stream `stream_key`, numbered now if new."""
        key = self._number.get(stream_key)
        if key is None:
            key = self._number[stream_key] = len(self.streams)
            self.streams.append(stream_key)
        return key


def _check_unlabelled(graph: _Graph) -> None:
    """Mode single: a stream label is an error (GE's E10055)."""
    for op, label in zip(graph.ops, graph.labels, strict=True):
        if label is not None:
            raise op_error(
                op,
                f'has stream label "{label.label.data}", but mode=single runs everything '
                "on one stream (GE E10055: stream labels need multi-stream)",
            )


def _place_fixed(
    graph: _Graph, mode: Mode, keys: list[int], table: _StreamTable, comm_streams: int = 1
) -> dict[tuple, list[int]]:
    """Puts labelled ops on their label's stream and unlabelled collectives on the comm
    streams (in `keys`); returns the groups of ops left to spread over automatic streams:
    the ops of each `inner_parallel` label, and (mode auto) the unlabelled ones.

    The k-th unlabelled collective of a group goes to comm stream k mod `comm_streams`:
    the simulator (and HCCL) match the k-th collective of a group on every member rank, so
    each member puts a collective on the same comm stream, and the collectives of one comm
    stream come in the same order on every member.  A graph with a `ge.hcom_send` keeps one
    comm stream: a send has no result a `stream.record` could publish."""
    groups: dict[tuple, list[int]] = {}
    label_keys: dict[str, int] = {}  # one key per label, shared by its ops
    auto: list[int] = []
    seen: dict[str, int] = {}  # group -> its unlabelled collectives so far
    labels = graph.labels
    collectives = graph.collectives
    if any(not graph.ops[u].results for u in collectives):
        comm_streams = 1  # a send has no result to record an event on: one comm stream
    for u, name in enumerate(graph.label_names):
        if name is not None:
            label = labels[u]
            if label is not None and label.inner_parallel.data:
                groups.setdefault(("label", name), []).append(u)
            else:
                key = label_keys.get(name)
                if key is None:
                    key = label_keys[name] = table.key(("label", name, 0))
                keys[u] = key
        elif u in collectives:
            group = graph.ops[u].properties.get("group")
            name = group.data if isinstance(group, builtin.StringAttr) else ""
            k = seen.get(name, 0)
            seen[name] = k + 1
            keys[u] = table.key(("comm", k % comm_streams))
        elif mode == "auto":
            if not auto:
                groups[("auto",)] = auto
            auto.append(u)
    return groups


def _spread(
    graph: _Graph,
    groups: dict[tuple, list[int]],
    max_streams: int,
    keys: list[int],
    table: _StreamTable,
) -> None:
    """Spreads each group over at most `max_streams` automatic streams (in `keys`): a chain
    cover of its ops, the chains merged lightest first."""
    reduced = transitive_reduction(graph.succs, REACH_WINDOW)
    weight: list[int] = []  # the cost module's figures, read only for chains merged
    for group_key, members in groups.items():
        chains = chain_cover(graph.succs, reduced, members, CLOSURE_FANOUT)
        if len(chains) > max_streams:
            if not weight:
                weight = [0] * len(graph.ops)
            for u in members:
                weight[u] = _weight(graph.ops[u])
        streams = merge_lightest(chains, max_streams, weight)
        streams.sort(key=lambda s: s[0])
        for k, ops in enumerate(streams):
            key = table.key((*group_key, k))
            for u in ops:
                keys[u] = key


def _weight(op: Operation) -> int:
    """The work of `op` that automatic streams balance: FLOPs plus bytes in and out."""
    cost = op_cost(op)
    return cost.flops + cost.bytes_in + cost.bytes_out


def _remove_ineffective_multi_stream(
    graph: _Graph, keys: list[int], table: list[tuple], *, move_collectives: bool = True
) -> None:
    """GE's OptimizeIneffectiveMultiStreamPass on unlabelled ops (collectives included
    with `move_collectives`, as in mode labels; mode auto leaves them on the comm stream, so
    that communication overlaps whatever the other streams compute).

    `keys` and `table` are `_assign`'s (key 0 the main stream).  Ops are visited in block
    order, so when op u is visited the ops before it have their final stream and those after
    it their first one: "is anything on the target stream between u's last producer and its
    first user" is the last op visited on that stream, or the next op of its first members
    after u (a bisection), O(log n) per op.
    """
    members: list[list[int]] = [[] for _ in table]  # the first members of each stream
    for u, key in enumerate(keys):
        members[key].append(u)
    last_visited = [-1] * len(table)  # stream -> its last op before the current one
    # the streams u may move onto: no label stream, the comm stream for collectives only
    kind = [_TO_ANY if k[0] == "auto" else _TO_COMM if k[0] == "comm" else _TO_NONE for k in table]
    exit_preds = set(graph.exit_preds)
    # Of each op, its first user and its users' one stream (`_MIXED` if several, `_NONE`
    # without users), as they are when the op is visited: its users come after it, so they
    # have their first streams then.  Two ints per op in two lists, not users per op.
    n = len(graph.ops)
    first_users: list[int] = [n] * n
    user_keys: list[int] = [_NONE] * n
    for v, ps in enumerate(graph.preds):
        key = keys[v]
        for u in ps:
            if u != ENTRY:
                found = user_keys[u]
                if found == _NONE:
                    first_users[u] = v  # users come in block order: the first one
                    user_keys[u] = key
                elif found != key:
                    user_keys[u] = _MIXED
    labels = graph.labels
    collectives = graph.collectives
    for u, preds in enumerate(graph.preds):
        # the one stream all producers and users of the unlabelled op u sit on, if any
        target = _NONE
        users_key = user_keys[u]
        movable = labels[u] is None and (move_collectives or u not in collectives)
        if movable and preds and (users_key != _NONE or u in exit_preds):
            for p in preds:
                key = 0 if p == ENTRY else keys[p]
                if target == _NONE:
                    target = key
                elif key != target:
                    target = _NONE
                    break
            if target != _NONE and (
                (users_key != _NONE and users_key != target)  # (`_MIXED` is no key)
                or (target != 0 and u in exit_preds)
                or target == keys[u]
                or kind[target] == _TO_NONE
                or (kind[target] == _TO_COMM and u not in collectives)
            ):
                target = _NONE
        if target != _NONE:
            last_pred = max(preds)  # (ENTRY is -1: below every op)
            later = members[target]
            after = bisect.bisect_right(later, u)
            # something runs on the target stream between them: keep the parallelism
            if last_visited[target] <= last_pred and (
                after == len(later) or later[after] >= first_users[u]
            ):
                keys[u] = target
        last_visited[keys[u]] = u


_NONE, _MIXED = -1, -2
"""No stream (an op without users), and the stream of an op's users on several (no key)."""

_TO_ANY, _TO_COMM, _TO_NONE = range(3)
"""What may move onto a stream: any unlabelled op (automatic streams), collectives only
(the comm stream), none (label streams)."""


def _number_streams(
    graph: _Graph, keys: list[int], table: list[tuple]
) -> tuple[list[int], list[_Stream]]:
    """Stream ids: 0 main, label streams by first appearance, automatic streams by first op,
    then comm."""
    first: dict[int, int] = {}
    for u, key in enumerate(keys):
        if key not in first:
            first[key] = u
    firsts = sorted(first, key=first.__getitem__)  # the keys by first op
    autos = [k for k in firsts if table[k][0] == "auto"]
    main = autos[0] if autos else 0
    labels_ = [k for k in firsts if table[k][0] == "label"]
    comm = [k for k in first if table[k][0] == "comm"]
    order = [main, *labels_, *(k for k in autos if k != main), *comm]
    number = [0] * len(table)
    for i, k in enumerate(order):
        number[k] = i
    streams = [_Stream(table[k]) for k in order]
    ids = [number[k] for k in keys]
    for u, sid in enumerate(ids):
        streams[sid].ops.append(u)
    for s in streams:  # only label streams hold labelled ops: the label of their first one
        if s.kind == "label":
            s.label = graph.labels[s.ops[0]]
    return ids, streams


# ----------------------------------------------------------------------------------------
# Events
# ----------------------------------------------------------------------------------------


@dataclass
class _Events:
    """The waits to insert, and the counts the report shows."""

    waits: dict[int, tuple[int, ...]]  # consumer (op index, len(ops): the return) -> producers
    dependencies: int
    dropped: int


def _choose_waits(graph: _Graph, ids: list[int], nstreams: int) -> _Events:
    """Keeps exactly the cross-stream dependencies that stream order and the other kept
    waits do not imply (vector clocks: clock[s] = last position on stream s known done).

    One working clock per stream, updated in place; an op's own clock is kept (as a tuple,
    which the GC untracks) only if another stream or the return reads it."""
    position, first_of, last_of = _stream_positions(ids, nstreams)
    read = _clocks_read(graph, ids, last_of)
    waits = _WaitChooser(ids, position, nstreams)
    preds = graph.preds
    fork = graph.has_args
    for v, s in enumerate(ids):
        deps: Sequence[int] = preds[v]
        if s != 0 and first_of[s] == v and fork:
            deps = tuple(dict.fromkeys((*deps, ENTRY)))  # fork: a stream starts after the function
        clock = waits.settle(v, s, deps)
        clock[s] = position[v]
        if read[v]:
            waits.clocks[v] = tuple(clock)
    joins = [last_of[s] for s in range(1, nstreams) if s in last_of]
    waits.settle(len(graph.ops), 0, tuple(dict.fromkeys((*graph.exit_preds, *joins))))
    return waits.result


def _stream_positions(
    ids: list[int], nstreams: int
) -> tuple[list[int], list[int | None], dict[int, int]]:
    """Each op's position on its stream (from 1 on stream 0, where ENTRY is position 0;
    from 0 on the others), and the first and last op of each stream."""
    position: list[int] = [0] * len(ids)
    counts = [0] * nstreams
    counts[0] = 1  # ENTRY is position 0 on stream 0
    first_of: list[int | None] = [None] * nstreams
    last_of: dict[int, int] = {}
    for u, s in enumerate(ids):
        position[u] = counts[s]
        counts[s] += 1
        if first_of[s] is None:
            first_of[s] = u
        last_of[s] = u
    return position, first_of, last_of


def _clocks_read(graph: _Graph, ids: list[int], last_of: dict[int, int]) -> list[bool]:
    """Whether another stream reads each op's clock: producers with a consumer on another
    stream, and the ops the return waits for (results, and each stream's last op)."""
    read = [False] * len(graph.ops)
    for v, ps in enumerate(graph.preds):
        s = ids[v]
        for u in ps:
            if u != ENTRY and ids[u] != s:
                read[u] = True
    for u in (*graph.exit_preds, *last_of.values()):
        if u != ENTRY:
            read[u] = True
    return read


class _WaitChooser:
    """The state of `_choose_waits`: each stream's clock as of its last op so far (stream 0
    starts with ENTRY), the clocks of the ops another stream reads, and the waits kept."""

    def __init__(self, ids: list[int], position: list[int], nstreams: int):
        self.ids = ids
        self.position = position
        self.nstreams = nstreams
        entry_clock = [-1] * nstreams
        entry_clock[0] = 0
        self.entry = tuple(entry_clock)
        self.clocks: list[Sequence[int]] = [()] * len(ids)
        self.last_on: list[list[int] | None] = [None] * nstreams
        self.last_on[0] = entry_clock
        self.result = _Events({}, 0, 0)

    def where(self, u: int) -> tuple[int, int, Sequence[int]]:
        """The stream, position and clock of producer `u` (ENTRY included)."""
        if u == ENTRY:
            return 0, 0, self.entry
        return self.ids[u], self.position[u], self.clocks[u]

    def settle(self, v: int, s: int, deps: Sequence[int]) -> list[int]:
        """Chooses the waits of consumer v on stream s; returns stream s's clock, updated
        with the kept waits (the clock of v but for v's own position)."""
        clock = self.last_on[s]
        if clock is None:
            clock = self.last_on[s] = [-1] * self.nstreams
        ids = self.ids
        position = self.position
        needed: list[int] = []
        cross = 0
        for u in deps:
            if u == ENTRY:
                t, pos = 0, 0
            else:
                t = ids[u]
                pos = position[u]
            if t != s:
                cross += 1
                if clock[t] < pos:
                    needed.append(u)
        if not cross:
            return clock
        result = self.result
        result.dependencies += cross
        kept = _not_implied(needed, self.where) if len(needed) > 1 else needed
        result.dropped += cross - len(kept)
        if kept:
            result.waits[v] = tuple(kept)  # a tuple of ints: the GC untracks it
            self._join(clock, kept)
        return clock

    def _join(self, clock: list[int], kept: list[int]) -> None:
        """Takes into `clock` what the producers waited for have done."""
        for u in kept:
            for t, c in enumerate(self.where(u)[2]):
                if c > clock[t]:
                    clock[t] = c


def _not_implied(
    needed: list[int], where: Callable[[int], tuple[int, int, Sequence[int]]]
) -> list[int]:
    """The producers u of `needed` (in order) that no other one implies: no w != u has
    clock[w][stream(u)] >= position(u).  The two largest clocks per stream answer for every
    u at once: O(len(needed) * streams), not O(len(needed)^2) (a join of many branches)."""
    streams = list(dict.fromkeys(where(u)[0] for u in needed))
    best = {t: [-2, ENTRY - 1, -2] for t in streams}  # stream -> [largest, its owner, second]
    for w in needed:
        clock = where(w)[2]
        for t in streams:
            c = clock[t]
            top = best[t]
            if c > top[0]:
                top[2] = top[0]
                top[0] = c
                top[1] = w
            elif c > top[2]:
                top[2] = c
    kept = []
    for u in needed:
        t, pos, _ = where(u)
        first, owner, second = best[t]
        if (second if owner == u else first) < pos:
            kept.append(u)
    return kept


# ----------------------------------------------------------------------------------------
# Rewriting
# ----------------------------------------------------------------------------------------


def _rewrite(block: Block, graph: _Graph, ids: list[int], events: _Events) -> None:
    """Writes the decision into `block`: `stream.id` on every op, the kept records and
    waits, constants on their label's stream or their first user's; wait_tensors go."""
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    # one attribute per stream, shared by its ops (attributes are immutable values)
    id_attrs = [stream.StreamIdAttr(k) for k in range(max(ids, default=0) + 1)]
    for op, sid in zip(graph.ops, ids, strict=True):
        op.attributes[stream.ID] = id_attrs[sid]
    records: dict[int, stream.RecordOp] = {}
    # `create` builds the same ops as the dialect's constructors (one variadic operand group
    # or one operand, no property) without their argument checks: a third of the time
    event_type = [stream.EventType()]

    def record_of(u: int) -> stream.RecordOp:
        rec = records.get(u)
        if rec is None:
            if u == ENTRY:
                parent = block.parent_op()
                rec = stream.RecordOp.create(
                    operands=list(block.args),
                    result_types=event_type,
                    attributes={stream.ID: id_attrs[0]},
                    location=None if parent is None else parent.location,
                )
                Rewriter.insert_op(rec, InsertPoint.at_start(block))
            else:
                producer = graph.ops[u]
                rec = stream.RecordOp.create(
                    operands=list(producer.results),
                    result_types=event_type,
                    attributes={stream.ID: id_attrs[ids[u]]},
                    location=producer.location,
                )
                Rewriter.insert_op(rec, InsertPoint.after(producer))
            records[u] = rec
        return rec

    for v in sorted(events.waits):  # already in order (timsort: linear)
        consumer = ret if v == len(graph.ops) else graph.ops[v]
        attributes = {stream.ID: id_attrs[0 if v == len(graph.ops) else ids[v]]}
        for u in sorted(events.waits[v]):
            wait = stream.WaitOp.create(
                operands=[record_of(u).event], attributes=attributes, location=consumer.location
            )
            Rewriter.insert_op(wait, InsertPoint.before(consumer))
    for op in graph.wait_tensors:  # in block order
        op.output.replace_all_uses_with(op.input)
        Rewriter.erase_op(op)
    if not graph.consts:
        return
    label_streams: dict[str, stream.StreamIdAttr] = {}
    for name, sid in zip(graph.label_names, ids, strict=True):
        if name is not None:
            label_streams.setdefault(name, id_attrs[sid])
    # the order of the users of a constant in the block: compute ops in block order, then
    # the return; an op of a nested region (not in the block) before them all
    order: dict[int, int] = {}
    for op in graph.consts:
        const_label = op.attributes.get(stream.LABEL)
        if isinstance(const_label, stream.LabelAttr) and const_label.label.data in label_streams:
            op.attributes[stream.ID] = label_streams[const_label.label.data]
            continue
        users = [use.operation for use in op.output.uses]
        if len(users) > 1:
            if not order:
                order.update((id(o), u + 1) for u, o in enumerate(graph.ops))
                order[id(ret)] = len(graph.ops) + 1
            users.sort(key=lambda o: order.get(id(o), 0))
        ids_of_users = [u.attributes.get(stream.ID) for u in users]
        op.attributes[stream.ID] = next((i for i in ids_of_users if i is not None), id_attrs[0])


def _waits_run_forward(events: _Events, n: int) -> bool:
    """Whether every wait the pass inserts comes after the record it waits for, read from
    the decision (O(waits), not another walk of the block): `_rewrite` puts the record of
    op u right after it (of ENTRY at the start of the block) and the waits of op v right
    before it (of n, the return, before the return), and moves no op, so a wait of v for u
    comes after u's record exactly when u < v.  Then the block order itself lets every wait
    go on (its record ran before it): no deadlock, unless the input had stream ops of its
    own (the caller then checks the block, `_check_deadlock_free`)."""
    return all(max(producers) < v for v, producers in events.waits.items()) and all(
        v <= n for v in events.waits
    )


class InternalError(Exception):
    """A bug of the pass, never a user's mistake (ge-opt does not turn it into a diagnostic)."""


def _check_deadlock_free(block: Block) -> None:
    """Raises `InternalError` unless stream order plus record -> wait edges are acyclic:
    exactly when every op of the block can start (`task_order.start_order`: a wait goes on
    once its record ran).

    The pass never reorders ops and waits only for records of ops before the wait, so a
    cycle can only come from a bug of the pass, whatever its input.
    """
    _, stuck = start_order(*_task_list(block))
    if stuck:
        raise InternalError("assign-streams produced a cycle of stream order and waits (a bug)")


def _task_list(block: Block) -> tuple[list[int], list[TaskKind], list[int]]:
    """The ops of `block` that have a stream as a task list of `task_order`: their streams
    (-1 for a `stream.id` of another type), kinds (records, waits for a record, and launches:
    every other op) and events (the `id` of the record)."""
    streams: list[int] = []
    kinds: list[TaskKind] = []
    events: list[int] = []
    for op in block.ops:
        if stream.ID not in op.attributes:
            continue
        sid = stream.stream_of(op)
        streams.append(-1 if sid is None else sid)
        if _is_a(op, stream.RecordOp, _IS_RECORD):
            kinds.append(RECORD)
            events.append(id(op))
            continue
        owner = cast(stream.WaitOp, op).event.owner if _is_a(op, stream.WaitOp, _IS_WAIT) else None
        if owner is not None and _is_a(owner, stream.RecordOp, _IS_RECORD):
            kinds.append(WAIT)
            events.append(id(owner))
        else:
            kinds.append(LAUNCH)
            events.append(-1)
    return streams, kinds, events


# ----------------------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamSummary:
    """One stream of an assigned function, as the report shows it."""

    id: int
    kind: str
    """One of "main" (stream 0), "label", "auto" and "comm"."""
    label: str | None
    """The user stream label of a label stream, else None."""
    priority: int
    """The label's priority (0 without a label)."""
    ops: int
    """The number of compute ops on the stream (constants and stream ops not counted)."""
    work: int
    """FLOPs plus bytes in and out of those ops (the cost module's figures)."""


@dataclass(frozen=True)
class StreamReport:
    """What `assign-streams{report=true}` records for one function; `str()` is the GE-style
    allocation summary ge-opt prints (here for examples/torchair_multistream.mlir):

        [assign-streams] @main: mode labels, 3 stream(s)
          logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
          logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 1
          logic_stream_id: 2, kind: label, user_stream_label: 2, priority: 0, ops: 1
          events: 3 kept, 4 dropped of 7 cross-stream dependencies
    """

    function: str
    mode: Mode
    streams: tuple[StreamSummary, ...]
    events_kept: int
    """The `stream.wait`s the pass inserted."""
    events_dropped: int
    """Cross-stream dependencies that stream order and the kept waits already imply."""
    dependencies: int
    """Cross-stream dependencies: data, wait_tensor, fork from the entry, join into the return."""

    def __str__(self) -> str:
        header = f"@{self.function}: mode {self.mode}, {len(self.streams)} stream(s)"
        lines = [f"[assign-streams] {header}"]
        lines += [
            f"  logic_stream_id: {s.id}, kind: {s.kind}, user_stream_label: {s.label or ''}, "
            f"priority: {s.priority}, ops: {s.ops}"
            for s in self.streams
        ]
        lines.append(
            f"  events: {self.events_kept} kept, {self.events_dropped} dropped of "
            f"{self.dependencies} cross-stream dependencies"
        )
        return "\n".join(lines)


def _report(
    fn: func.FuncOp, mode: Mode, graph: _Graph, streams: list[_Stream], events: _Events
) -> StreamReport:
    """The report of one assigned function."""
    summaries: list[StreamSummary] = []
    for sid, s in enumerate(streams):
        label = s.label if s.kind == "label" else None
        summaries.append(
            StreamSummary(
                id=sid,
                kind="main" if sid == 0 else s.kind,
                label=None if label is None else label.label.data,
                priority=0 if label is None else label.priority.data,
                ops=len(s.ops),
                work=sum(_weight(graph.ops[u]) for u in s.ops),
            )
        )
    return StreamReport(
        function=fn.sym_name.data,
        mode=mode,
        streams=tuple(summaries),
        events_kept=sum(len(v) for v in events.waits.values()),
        events_dropped=events.dropped,
        dependencies=events.dependencies,
    )


@dataclass(frozen=True)
class AssignStreamsPass(ModulePass):
    """Assigns streams (labels, auto or single) and orders cross-stream dependencies."""

    name = "assign-streams"

    STATISTICS: ClassVar[dict[str, str]] = {
        "streams": "streams of the assigned functions (summed over functions)",
        "events-kept": "cross-stream dependencies kept as record/wait events",
        "events-dropped": "cross-stream dependencies that stream order and the kept events "
        "already imply",
    }

    mode: Mode = "labels"
    max_streams: int = 8
    report: bool = False
    comm_streams: int = 1
    priorities: str = ""
    """Priorities given to user labels, "LABEL:N LABEL:N" (GE's stream priority; a smaller
    value is more urgent): they replace the labels' own before streams are assigned."""

    def __post_init__(self) -> None:
        check_literal_options(self)  # xDSL's pipeline parser checks them too, less clearly
        if self.max_streams < 1:
            raise OptionError(
                f"assign-streams: max-streams must be at least 1, got {self.max_streams}"
            )
        if self.comm_streams not in (1, 2):
            raise OptionError(
                f"assign-streams: comm-streams must be 1 or 2 (GE's 1 compute + 1-2 comm "
                f"streams), got {self.comm_streams}"
            )
        self.priority_of()  # checks the syntax

    def priority_of(self) -> dict[str, int]:
        """The `priorities` option as label -> priority."""
        table: dict[str, int] = {}
        for item in self.priorities.split():
            label, sep, value = item.rpartition(":")
            try:
                table[label] = int(value)
            except ValueError:
                sep = ""
            if not sep or not label:
                raise OptionError(
                    f"assign-streams: priorities takes LABEL:N items, got '{item}'"
                ) from None
        return table

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        table = self.priority_of()
        if table:
            for inner in op.walk():
                label = inner.attributes.get(stream.LABEL)
                if isinstance(label, stream.LabelAttr) and label.label.data in table:
                    inner.attributes[stream.LABEL] = stream.LabelAttr(
                        label.label.data, table[label.label.data], bool(label.inner_parallel.data)
                    )
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    self._visit(op, inner)

    def _visit(self, module: builtin.ModuleOp, op: Operation) -> None:
        """Assigns the function `op` and then those nested in it, or those nested in any
        other `op`: every function of the module once, in `module.walk()` order.  The ops
        of a function's body are looked at once (`_build_graph` lists those with regions)."""
        if _is_a(op, func.FuncOp, _IS_FUNC):
            assert isinstance(op, func.FuncOp)
            for inner in self._assign_function(module, op):
                self._visit(module, inner)
            return
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    self._visit(module, inner)

    def _assign_function(self, module: builtin.ModuleOp, fn: func.FuncOp) -> list[Operation]:
        """Assigns `fn`; returns the ops of its body that have regions."""
        if not fn.body.blocks:
            return []
        if len(fn.body.blocks) > 1:
            raise op_error(
                fn,
                f"has {len(fn.body.blocks)} blocks: --{self.name} handles function bodies of "
                "one block only",
            )
        block = fn.body.block
        graph = _build_graph(block)
        if graph.assigned is not None:
            raise op_error(
                graph.assigned, "is already assigned to a stream: run --assign-streams once"
            )
        keys, table = _assign(graph, self.mode, self.max_streams, self.comm_streams)
        if self.mode != "single":
            _remove_ineffective_multi_stream(
                graph, keys, table, move_collectives=self.mode == "labels"
            )
        ids, streams = _number_streams(graph, keys, table)
        events = _choose_waits(graph, ids, len(streams) or 1)
        _rewrite(block, graph, ids, events)
        if graph.stream_ops or not _waits_run_forward(events, len(graph.ops)):
            _check_deadlock_free(block)
        if self.report:
            reports.record(module, _report(fn, self.mode, graph, streams, events))
        reports.count(module, self.name, "streams", len(streams))
        reports.count(module, self.name, "events-kept", sum(map(len, events.waits.values())))
        reports.count(module, self.name, "events-dropped", events.dropped)
        return graph.nested
