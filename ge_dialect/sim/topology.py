"""The cluster a multi-rank run simulates on: servers, devices with rank ids, links; and
HCCL's cost of a collective over it.

A topology is a JSON file; the shipped ones (`profiles/`) are `ascend910-8p.json` (one
8-NPU Ascend 910 server: two groups of four chips, each group a full HCCS mesh, the groups
joined over PCIe; `DEFAULT_TOPOLOGY`), `ascend910-2x8p.json` (two such servers over
RoCE) and `ascend910-8x8p.json` (eight; `default_topology` picks them for up to 8, 16 and
64 ranks).  `load_topology(path)` reads one (None: the default), `parse_topology(text, name)`
its text.

Format reference
================
A JSON object; quantities are strings as in the device profile (`utils.jsonfile`: `"1.5 us"`,
`"30 GB/s"`, `"100 Gbit/s"`).

- `name`: non-empty string.
- `link_types`: object, link type (`HCCS`, `PCIe` or `RoCE`) -> `{"latency": time,
  "bandwidth": bandwidth}`: the figures a link of that type has unless it gives its own.
- `reduce_bandwidth`: bandwidth > 0; the bytes per second a device reduces (the gamma of
  HCCL's formulas is its inverse).
- `servers`: non-empty array of `{"name": string, "devices": [{"name": string, "rank":
  integer >= 0}, ...]}`.  Device names are unique in the file; ranks are 0..N-1, each once.
- `links`: array of `{"type": type, "devices": [name, name, ...], "latency"?: time,
  "bandwidth"?: bandwidth}`: two devices are one link; more are a full mesh (a link between
  every pair: an HCCS group, a PCIe switch, a RoCE switch; a RoCE mesh joins only devices
  of different servers: traffic inside a server stays on HCCS and PCIe).  A pair joined by
  several links uses HCCS over PCIe over RoCE (then the widest, then the quickest).
- `sources` (optional): object of strings, where figures come from.

Every device must be reached by a link and connected to every other device (through
others).  An HCCS or PCIe link between devices of different servers contradicts the
servers: a located warning on `Topology.warnings` (`t.json:LINE:COL: warning: ...`, ge-run
prints it on stderr), and the link is used as given.  Errors are one located diagnostic
line, as the profile's:
`t.json:LINE:COL: error: <json path>: <what is wrong>` (unknown device, duplicate device or
rank, a device no link reaches, ...).

HCCL's costs (`Topology.collective`)
====================================
Hockney's alpha-beta(-gamma) formulas (HCCL's documentation), p ranks, n bytes (an
all-gather's *output*; every other kind's input buffer: an all-to-all's whole send
buffer, a send's tensor):

| kind | algorithm | time |
|---|---|---|
| AllReduce | ring | 2(p-1)a + 2((p-1)/p) n b + ((p-1)/p) n g |
| AllReduce | mesh | 2a + (2/p) n b + ((p-1)/p) n g |
| AllReduce | halving-doubling | 2 log2(p) a + 2((p-1)/p) n b + ((p-1)/p) n g |
| AllReduce | double-binary-tree | 2 ceil(log2 p) a + 2 n b + n g |
| AllReduce | hierarchical | RS(q, n) in + AR(s, n/q) across + AG(q, n) in each server |
| AllGather | ring | (p-1)a + ((p-1)/p) n b |
| AllGather | mesh | a + (1/p) n b |
| AllGather | halving-doubling | log2(p) a + ((p-1)/p) n b |
| ReduceScatter | ring | (p-1)a + ((p-1)/p) n b + ((p-1)/p) n g |
| ReduceScatter | mesh | a + (1/p) n b + ((p-1)/p) n g |
| ReduceScatter | halving-doubling | log2(p) a + ((p-1)/p) n b + ((p-1)/p) n g |
| AllToAll | pairwise | (p-1)(a + (n/p) b) |
| Broadcast | binomial-tree | ceil(log2 p)(a + n b) |
| Send/Receive | p2p | a + n b over the route between the two |

(hierarchical: ReduceScatter of n over the q members in each server, AllReduce of n/q
over the s members across servers, AllGather of n in each server.)  The double binary
tree is NCCL's tree all-reduce (two complementary binary trees, each
carrying half the message, reduce up then broadcast down, pipelined: Sanders, Speck and
Träff, "Two-tree algorithms for full bandwidth broadcast, reduction and scan", Parallel
Computing 35(12), 2009; NCCL 2.4's double binary trees): each tree has depth
ceil(log2 p), each phase moves the whole message through a node's link once.  The
hierarchical all-reduce has q members on each of s servers; each phase takes its own
links' a and b (the slowest server or column bounds it), and the report shows the
across-servers phase's a and b.

HCCL's choice, as modelled (`algorithm`; `collective(..., force=...)` takes a name
instead, as `HCCL_ALGO` does): one rank costs nothing; a send is **p2p**, an all-to-all
**pairwise**, a broadcast a **binomial-tree**.  Otherwise, members in one server that are
pairwise joined by HCCS use **mesh** at every size; other members in one server (the two
HCCS groups of a 910 server) use, for an all-reduce, a **ring** below 8 MB, a
**double-binary-tree** from 8 MB up to 128 MB, **halving-doubling** above (a ring if p is
not a power of two), and a **ring** for the other kinds.  An all-reduce whose members span
several servers, the same number on each, is **hierarchical**; other collectives across
servers use **halving-doubling** when the server count and p are powers of two, else a
**ring**.

Which links: a ring's hops go from each member to the next in rank order (the last back to
the first), halving-doubling's between members 2^k apart, mesh's and pairwise's between
every pair, a tree's from member i - 2^k to i (2^k the largest power <= i), p2p's between
the two; a hop
between devices with no direct link takes the route with fewest links (then the widest,
then the quickest) over each pair's preferred link.  A hop's latency is the sum of its
route's, its bandwidth the narrowest link's; `a` is the largest hop latency and `b` the
inverse of the smallest hop bandwidth: the slowest link bounds a ring.
"""

from __future__ import annotations

import heapq
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ge_dialect.utils.errors import GeError
from ge_dialect.utils.jsonfile import DURATION, RATE, JsonSource, Kind, check_schema, load_json
from ge_dialect.utils.textfile import read_text

PROFILES = os.path.join(os.path.dirname(__file__), "profiles")
DEFAULT_TOPOLOGY: str = os.path.join(PROFILES, "ascend910-8p.json")
"""One 8-NPU Ascend 910 server (two HCCS groups of four, joined over PCIe)."""
CLUSTER_TOPOLOGY: str = os.path.join(PROFILES, "ascend910-2x8p.json")
"""Two such servers over RoCE (16 ranks)."""
LARGE_TOPOLOGY: str = os.path.join(PROFILES, "ascend910-8x8p.json")
"""Eight such servers over RoCE (64 ranks)."""

LINK_TYPES = ("HCCS", "PCIe", "RoCE")
ALGORITHMS = (
    "none",
    "ring",
    "mesh",
    "halving-doubling",
    "double-binary-tree",
    "hierarchical",
    "pairwise",
    "binomial-tree",
    "p2p",
)
RING_BELOW = 8 * 2**20
"""An all-reduce below 8 MB (in one server, not a full HCCS mesh) uses a ring..."""
TREE_UP_TO = 128 * 2**20
"""... up to 128 MB a double binary tree, above it halving-doubling."""


@dataclass(frozen=True)
class Device:
    name: str
    rank: int
    server: str


@dataclass(frozen=True)
class Link:
    a: str
    b: str
    type: str
    latency: float  # seconds
    bandwidth: float  # bytes per second


@dataclass(frozen=True)
class Hop:
    """The route between two devices: its links' types, summed latency, narrowest bandwidth."""

    latency: float
    bandwidth: float
    types: tuple[str, ...]


@dataclass(frozen=True)
class CollectiveCost:
    """HCCL's cost of one collective: the algorithm, its alpha, beta, gamma (seconds, seconds
    per byte) and total `seconds`, and the link types its hops use."""

    algorithm: str
    seconds: float
    alpha: float = 0.0
    beta: float = 0.0
    gamma: float = 0.0
    link_types: tuple[str, ...] = ()


@dataclass
class Topology:
    name: str
    devices: list[Device]  # by rank
    links: list[Link]
    reduce_bandwidth: float
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    """Located warnings of the file (`t.json:LINE:COL: warning: ...`), ge-run prints them."""
    hccl_algo: str | None = None
    """An algorithm forced on every all-reduce, all-gather and reduce-scatter it has a
    formula for (as `HCCL_ALGO`); None: HCCL's choice."""

    def __post_init__(self) -> None:
        self._by_name = {d.name: d for d in self.devices}
        self._hops: dict[tuple[int, int], Hop] = {}
        self._adjacent: dict[str, list[Link]] = {d.name: [] for d in self.devices}
        best: dict[tuple[str, str], Link] = {}
        for link in self.links:
            pair = (min(link.a, link.b), max(link.a, link.b))
            if pair not in best or _preference(link) < _preference(best[pair]):
                best[pair] = link
        for link in best.values():
            self._adjacent[link.a].append(link)
            self._adjacent[link.b].append(link)

    @property
    def ranks(self) -> int:
        return len(self.devices)

    @property
    def servers(self) -> list[str]:
        return sorted({d.server for d in self.devices})

    def hop(self, a: int, b: int) -> Hop:
        """The route from rank `a`'s device to rank `b`'s (see the module docstring)."""
        if (a, b) not in self._hops:
            self._hops[(a, b)] = self._route(a, b)
        return self._hops[(a, b)]

    def _route(self, a: int, b: int) -> Hop:
        source, target = self.devices[a].name, self.devices[b].name
        # (links, -narrowest bandwidth, latency, device, types)
        heap: list[tuple[int, float, float, str, tuple[str, ...]]] = [
            (0, -math.inf, 0.0, source, ())
        ]
        done: set[str] = set()
        while heap:
            n, narrow, latency, here, types = heapq.heappop(heap)
            if here in done:
                continue
            done.add(here)
            if here == target:
                return Hop(latency, -narrow, types)
            for link in self._adjacent[here]:
                there = link.b if link.a == here else link.a
                if there not in done:
                    width = min(-narrow, link.bandwidth)
                    entry = (n + 1, -width, latency + link.latency, there, (*types, link.type))
                    heapq.heappush(heap, entry)
        raise GeError(f"error: topology '{self.name}': no route from rank {a} to rank {b}")

    def algorithm(self, ranks: Sequence[int], kind: str = "all_reduce", nbytes: float = 0) -> str:
        """The algorithm HCCL would choose for a collective of `kind` and `nbytes` among
        `ranks` (module docstring's rule; `HCCL_ALGO`-like forcing is `force`)."""
        members = sorted(ranks)
        p = len(members)
        if p <= 1:
            return "none"
        if kind == "send":
            return "p2p"
        if kind == "all_to_all":
            return "pairwise"
        if kind == "broadcast":
            return "binomial-tree"
        if self.hccl_algo is not None and forceable(kind, self.hccl_algo):
            return self.hccl_algo
        servers = {self.devices[r].server for r in members}
        if len(servers) == 1:
            mesh = all(
                self.hop(a, b).types == ("HCCS",)
                for i, a in enumerate(members)
                for b in members[i + 1 :]
            )
            if mesh:
                return "mesh"
            if kind != "all_reduce" or nbytes < RING_BELOW:
                return "ring"
            if nbytes <= TREE_UP_TO:
                return "double-binary-tree"
            return "halving-doubling" if p & (p - 1) == 0 else "ring"
        if kind == "all_reduce" and self._per_server(members) is not None:
            return "hierarchical"
        s = len(servers)
        if s & (s - 1) == 0 and p & (p - 1) == 0:
            return "halving-doubling"
        return "ring"

    def _per_server(self, members: list[int]) -> list[list[int]] | None:
        """The members by server (in server order), when every server holds as many."""
        by: dict[str, list[int]] = {}
        for r in members:
            by.setdefault(self.devices[r].server, []).append(r)
        groups = [by[k] for k in sorted(by)]
        return groups if len({len(g) for g in groups}) == 1 and len(groups[0]) > 1 else None

    def hops(self, algorithm: str, ranks: Sequence[int]) -> list[Hop]:
        """The routes the algorithm's steps use among `ranks`."""
        m = sorted(ranks)
        p = len(m)
        if algorithm == "ring":
            return [self.hop(m[i], m[(i + 1) % p]) for i in range(p)]
        if algorithm in ("mesh", "pairwise"):
            return [self.hop(a, b) for i, a in enumerate(m) for b in m[i + 1 :]]
        if algorithm == "p2p":
            return [self.hop(m[0], m[1])]
        if algorithm == "halving-doubling":
            out = []
            step = 1
            while step < p:
                out += [self.hop(m[i], m[i ^ step]) for i in range(p) if i < i ^ step]
                step *= 2
            return out
        if algorithm in ("binomial-tree", "double-binary-tree"):
            # Tree edges: member i receives from i - 2^k, 2^k the largest power <= i.
            return [self.hop(m[i - (1 << (i.bit_length() - 1))], m[i]) for i in range(1, p)]
        return []

    def _phase(
        self, kind: str, algorithm: str, ranks: Sequence[int], nbytes: float
    ) -> CollectiveCost:
        hops = self.hops(algorithm, ranks)
        alpha = max(h.latency for h in hops)
        beta = 1.0 / min(h.bandwidth for h in hops)
        gamma = 1.0 / self.reduce_bandwidth
        types = tuple(sorted({t for h in hops for t in h.types}))
        seconds = hccl_formula(kind, algorithm, len(ranks), nbytes, alpha, beta, gamma)
        return CollectiveCost(algorithm, seconds, alpha, beta, gamma, types)

    def collective(
        self, kind: str, nbytes: float, ranks: Sequence[int], force: str | None = None
    ) -> CollectiveCost:
        """HCCL's cost of a collective of `kind` ("all_reduce", "all_gather",
        "reduce_scatter", "all_to_all", "broadcast", "send") among `ranks`, `nbytes` as
        the module docstring counts them; `force` names the algorithm (as `HCCL_ALGO`)."""
        algorithm = force or self.algorithm(ranks, kind, nbytes)
        if algorithm == "none" or len(ranks) <= 1:
            return CollectiveCost("none", 0.0)
        if algorithm != "hierarchical":
            return self._phase(kind, algorithm, ranks, nbytes)
        servers = self._per_server(sorted(ranks))
        if servers is None:
            raise ValueError("hierarchical needs as many members on every server")
        q = len(servers[0])
        intra = [self.algorithm(g, "reduce_scatter", nbytes) for g in servers]
        across = [list(col) for col in zip(*servers, strict=True)]
        # The slowest server's and the slowest column's phases bound each step.
        scatter = max(
            (
                self._phase("reduce_scatter", a, g, nbytes)
                for a, g in zip(intra, servers, strict=True)
            ),
            key=lambda c: c.seconds,
        )
        middle = max(
            (
                self._phase("all_reduce", self.algorithm(col, "all_gather"), col, nbytes / q)
                for col in across
            ),
            key=lambda c: c.seconds,
        )
        gather = max(
            (self._phase("all_gather", a, g, nbytes) for a, g in zip(intra, servers, strict=True)),
            key=lambda c: c.seconds,
        )
        types = tuple(sorted({*scatter.link_types, *middle.link_types, *gather.link_types}))
        seconds = scatter.seconds + middle.seconds + gather.seconds
        return CollectiveCost(
            "hierarchical", seconds, middle.alpha, middle.beta, middle.gamma, types
        )


def _preference(link: Link) -> tuple[int, float, float]:
    """Of several links joining one pair: HCCS, then PCIe, then RoCE; then the widest and
    the quickest."""
    return (LINK_TYPES.index(link.type), -link.bandwidth, link.latency)


FORCED_ALGORITHMS = ("ring", "mesh", "double-binary-tree", "halving-doubling")
"""The algorithms `Topology.hccl_algo` may force (on the kinds each has a formula for)."""


def forceable(kind: str, algorithm: str) -> bool:
    """Whether HCCL's formulas cover `kind` by `algorithm`."""
    try:
        hccl_formula(kind, algorithm, 2, 1.0, 0.0, 0.0, 0.0)
    except ValueError:
        return False
    return True


def hccl_formula(
    kind: str, algorithm: str, p: int, n: float, alpha: float, beta: float, gamma: float
) -> float:
    """HCCL's closed-form time (module docstring's table)."""
    if p <= 1 or algorithm == "none":
        return 0.0
    share = (p - 1) / p
    a, nb, ng = alpha, n * beta, n * gamma
    steps = math.log2(p)
    formulas: dict[tuple[str, str], float] = {
        ("all_reduce", "ring"): 2 * (p - 1) * a + 2 * share * nb + share * ng,
        ("all_reduce", "mesh"): 2 * a + (2 / p) * nb + share * ng,
        ("all_reduce", "halving-doubling"): 2 * steps * a + 2 * share * nb + share * ng,
        ("all_reduce", "double-binary-tree"): 2 * math.ceil(steps) * a + 2 * nb + ng,
        ("all_gather", "ring"): (p - 1) * a + share * nb,
        ("all_gather", "mesh"): a + nb / p,
        ("all_gather", "halving-doubling"): steps * a + share * nb,
        ("reduce_scatter", "ring"): (p - 1) * a + share * nb + share * ng,
        ("reduce_scatter", "mesh"): a + nb / p + share * ng,
        ("reduce_scatter", "halving-doubling"): steps * a + share * nb + share * ng,
        ("all_to_all", "pairwise"): (p - 1) * (a + nb / p),
        ("broadcast", "binomial-tree"): math.ceil(steps) * (a + nb),
        ("send", "p2p"): a + nb,
    }
    if (kind, algorithm) not in formulas:
        raise ValueError(f"no HCCL formula for {kind} by {algorithm}")
    return formulas[(kind, algorithm)]


# --------------------------------------------------------------------------------------
# Reading (the profile's machinery: jsonschema, json-source-map, quantity parsing)
# --------------------------------------------------------------------------------------

_QUANTITY_KEYS = {"latency": DURATION, "bandwidth": RATE, "reduce_bandwidth": RATE}


def _obj(properties: dict[str, Any], required: Sequence[str], description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
        "description": description,
    }


def _name_schema() -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "description": "a non-empty string"}


def _figures(required: bool) -> dict[str, Any]:
    return _obj(
        {"latency": DURATION.schema(), "bandwidth": RATE.schema()},
        ["latency", "bandwidth"] if required else [],
        "an object with keys latency, bandwidth",
    )


def _build_schema() -> dict[str, Any]:
    device = _obj(
        {
            "name": _name_schema(),
            "rank": {"type": "integer", "minimum": 0, "description": "an integer >= 0"},
        },
        ["name", "rank"],
        "an object with keys name, rank",
    )
    server = _obj(
        {
            "name": _name_schema(),
            "devices": {
                "type": "array",
                "items": device,
                "minItems": 1,
                "description": "a non-empty array of devices",
            },
        },
        ["name", "devices"],
        "an object with keys name, devices",
    )
    link_type = {
        "title": "link type",
        "type": "string",
        "enum": list(LINK_TYPES),
        "description": "one of " + ", ".join(LINK_TYPES),
    }
    link = _obj(
        {
            "type": link_type,
            "devices": {
                "type": "array",
                "items": _name_schema(),
                "minItems": 2,
                "description": "an array of at least two device names",
            },
            "latency": DURATION.schema(),
            "bandwidth": RATE.schema(),
        },
        ["type", "devices"],
        "an object with keys type, devices (latency, bandwidth optional)",
    )
    root = _obj(
        {
            "name": _name_schema(),
            "link_types": {
                "type": "object",
                "propertyNames": link_type,
                "additionalProperties": _figures(True),
                "description": "an object of link type -> {latency, bandwidth}",
            },
            "reduce_bandwidth": RATE.schema(),
            "servers": {
                "type": "array",
                "items": server,
                "minItems": 1,
                "description": "a non-empty array of servers",
            },
            "links": {"type": "array", "items": link, "description": "an array of links"},
            "sources": {
                "type": "object",
                "additionalProperties": {"type": "string", "description": "a string"},
                "description": "an object of strings",
            },
        },
        ["name", "link_types", "reduce_bandwidth", "servers", "links"],
        "an object with keys name, link_types, reduce_bandwidth, servers, links, sources",
    )
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **root}


SCHEMA: dict[str, Any] = _build_schema()


def load_topology(path: str | os.PathLike[str] | None = None) -> Topology:
    """The topology in the JSON file `path` (None: `DEFAULT_TOPOLOGY`)."""
    name = os.fspath(path) if path is not None else DEFAULT_TOPOLOGY
    return parse_topology(read_text(name, "topology", byte_order_mark=True), name)


def default_topology(ranks: int) -> Topology:
    """The shipped topology for `ranks` ranks: the 8-NPU server up to 8, the two-server
    cluster up to 16, the eight-server one (64 NPUs) above."""
    return load_topology(default_topology_path(ranks))


def default_topology_path(ranks: int) -> str:
    """The file of `default_topology(ranks)`."""
    if ranks <= 8:
        return DEFAULT_TOPOLOGY
    return CLUSTER_TOPOLOGY if ranks <= 16 else LARGE_TOPOLOGY


def parse_topology(text: str, name: str = "<topology>") -> Topology:
    """The topology in JSON `text`; `name` is the file name its diagnostics show."""
    data, source = load_json(text, name)
    check_schema(data, source, SCHEMA, _kind_at)
    return _convert(data, source)


def _kind_at(path: tuple[str | int, ...]) -> Kind | None:
    """The quantity kind of a value by its key (`latency`, `bandwidth`, `reduce_bandwidth`)."""
    return _QUANTITY_KEYS.get(str(path[-1])) if path else None


Path = tuple[Any, ...]
"""A JSON path in the topology file (keys and array indices)."""


def _convert(data: dict[str, Any], source: JsonSource) -> Topology:
    """A schema-valid topology -> Topology, with the checks a schema cannot make."""
    figures = _link_type_figures(data, source)
    reduce_bandwidth = source.convert(RATE, data["reduce_bandwidth"], ("reduce_bandwidth",))
    devices, where = _devices(data, source)
    ordered = sorted(devices.values(), key=lambda d: d.rank)
    links = [
        link
        for i, entry in enumerate(data["links"])
        for link in _links(entry, i, figures, devices, source)
    ]
    _check_connected(devices, where, ordered[0], links, source)
    topology = Topology(
        data["name"], ordered, links, reduce_bandwidth, dict(data.get("sources", {}))
    )
    topology.warnings = _server_warnings(data, devices, source)
    return topology


def _server_warnings(
    data: dict[str, Any], devices: dict[str, Device], source: JsonSource
) -> list[str]:
    """An HCCS or PCIe link (both stay inside a server) between devices of two servers
    contradicts the servers: one located warning per link entry, naming its first such
    pair.  The run uses the link as given."""
    out = []
    for i, entry in enumerate(data["links"]):
        if entry["type"] == "RoCE":
            continue
        names = entry["devices"]
        pairs = [
            (a, b)
            for j, a in enumerate(names)
            for b in names[j + 1 :]
            if devices[a].server != devices[b].server
        ]
        if pairs:
            a, b = pairs[0]
            line, col, _ = source.position(("links", i, "type"))
            more = f" (and {len(pairs) - 1} more pairs)" if len(pairs) > 1 else ""
            out.append(
                f"{source.name}:{line}:{col}: warning: links.{i}.type: {entry['type']} link "
                f"between '{a}' (server '{devices[a].server}') and '{b}' (server "
                f"'{devices[b].server}'){more}: {entry['type']} joins devices of one server "
                "(RoCE joins servers); the link is used as given"
            )
    return out


def _link_type_figures(data: dict[str, Any], source: JsonSource) -> dict[str, tuple[float, float]]:
    """Link type -> (latency, bandwidth) of `link_types`."""
    return {
        t: (
            source.convert(DURATION, f["latency"], ("link_types", t, "latency")),
            source.convert(RATE, f["bandwidth"], ("link_types", t, "bandwidth")),
        )
        for t, f in data["link_types"].items()
    }


def _devices(data: dict[str, Any], source: JsonSource) -> tuple[dict[str, Device], dict[str, Path]]:
    """The devices by name, and where each is in the file; names and ranks are unique and
    the ranks are 0..N-1."""
    devices: dict[str, Device] = {}
    where: dict[str, Path] = {}
    by_rank: dict[int, str] = {}
    for s, server in enumerate(data["servers"]):
        for d, device in enumerate(server["devices"]):
            path = ("servers", s, "devices", d)
            if device["name"] in devices:
                first = ".".join(map(str, where[device["name"]]))
                raise source.error(
                    (*path, "name"), f"duplicate device '{device['name']}' (also {first})"
                )
            rank = int(device["rank"])
            if rank in by_rank:
                raise source.error(
                    (*path, "rank"), f"duplicate rank {rank} (device '{by_rank[rank]}' has it)"
                )
            devices[device["name"]] = Device(device["name"], rank, server["name"])
            where[device["name"]] = path
            by_rank[rank] = device["name"]
    for rank in range(len(by_rank)):
        if rank not in by_rank:
            path = (*where[by_rank[max(by_rank)]], "rank")
            raise source.error(
                path, f"ranks must be 0..{len(by_rank) - 1} (each once); rank {rank} is missing"
            )
    return devices, where


def _links(
    entry: dict[str, Any],
    i: int,
    figures: dict[str, tuple[float, float]],
    devices: dict[str, Device],
    source: JsonSource,
) -> list[Link]:
    """The links of entry `i` of `links`: one pair, or a full mesh (a RoCE mesh joins only
    devices of different servers)."""
    names = entry["devices"]
    for j, n in enumerate(names):
        if n not in devices:
            raise source.error(("links", i, "devices", j), f"unknown device '{n}'")
        if n in names[:j]:
            raise source.error(("links", i, "devices", j), f"device '{n}' appears twice")
    kind = entry["type"]
    latency, bandwidth = _link_figures(entry, i, figures, source)
    return [
        Link(names[a], names[b], kind, latency, bandwidth)
        for a in range(len(names))
        for b in range(a + 1, len(names))
        # traffic inside a server stays on HCCS and PCIe
        if not (kind == "RoCE" and devices[names[a]].server == devices[names[b]].server)
    ]


def _link_figures(
    entry: dict[str, Any], i: int, figures: dict[str, tuple[float, float]], source: JsonSource
) -> tuple[float, float]:
    """(latency, bandwidth) of entry `i` of `links`: its own, else its type's."""
    kind = entry["type"]
    if kind in figures:
        latency, bandwidth = figures[kind]
    elif "latency" in entry and "bandwidth" in entry:
        latency = bandwidth = 0.0
    else:
        raise source.error(
            ("links", i, "type"),
            f"link type {kind} has no figures in link_types: give the link its latency "
            "and bandwidth",
        )
    if "latency" in entry:
        latency = source.convert(DURATION, entry["latency"], ("links", i, "latency"))
    if "bandwidth" in entry:
        bandwidth = source.convert(RATE, entry["bandwidth"], ("links", i, "bandwidth"))
    return latency, bandwidth


def _check_connected(
    devices: dict[str, Device],
    where: dict[str, Path],
    first: Device,
    links: list[Link],
    source: JsonSource,
) -> None:
    """Every device is reached by a link, and connected to `first` (rank 0's)."""
    in_file_order = sorted(devices.values(), key=lambda x: where[x.name])
    linked = {n for link in links for n in (link.a, link.b)}
    for dev in in_file_order:
        if dev.name not in linked:
            raise source.error(where[dev.name], f"device '{dev.name}' is reached by no link")
    adjacent: dict[str, list[str]] = {n: [] for n in devices}
    for link in links:
        adjacent[link.a].append(link.b)
        adjacent[link.b].append(link.a)
    seen = {first.name}
    todo = [first.name]
    while todo:
        for there in adjacent[todo.pop()]:
            if there not in seen:
                seen.add(there)
                todo.append(there)
    for dev in in_file_order:
        if dev.name not in seen:
            raise source.error(
                where[dev.name],
                f"device '{dev.name}' is not connected to rank 0's device '{first.name}' "
                "by any chain of links",
            )
