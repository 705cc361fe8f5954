"""The cluster a multi-rank run simulates on: servers, devices with rank ids, links; and
HCCL's cost of a collective over it.

A topology is a JSON file; the shipped ones (`profiles/`) are `ascend910-8p.json` (one
8-NPU Ascend 910 server: two groups of four chips, each group a full HCCS mesh, the groups
joined over PCIe; `DEFAULT_TOPOLOGY`) and `ascend910-2x8p.json` (two such servers over
RoCE).  `load_topology(path)` reads one (None: the default), `parse_topology(text, name)`
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
others).  Errors are one located diagnostic line, as the profile's:
`t.json:LINE:COL: error: <json path>: <what is wrong>` (unknown device, duplicate device or
rank, a device no link reaches, ...).

HCCL's costs (`Topology.collective`)
====================================
Hockney's alpha-beta(-gamma) formulas (HCCL's documentation), p ranks, n bytes
(an all-reduce's buffer; an all-gather's *output*):

| algorithm | AllReduce | AllGather |
|---|---|---|
| ring | 2(p-1)a + 2((p-1)/p) n b + ((p-1)/p) n g | (p-1)a + ((p-1)/p) n b |
| mesh | 2a + (2/p) n b + ((p-1)/p) n g | a + (1/p) n b |
| halving-doubling | 2 log2(p) a + 2((p-1)/p) n b + ((p-1)/p) n g | log2(p) a + ((p-1)/p) n b |

(the all-gather columns of mesh and halving-doubling are the all-gather phase of the
all-reduce, derived).  HCCL's choice, as modelled: one rank costs nothing; members in one
server that are pairwise joined by HCCS use **mesh**; other members in one server (the two
HCCS groups of a 910 server) a **ring**; members on several servers
**halving-doubling** when the server count and p are powers of two, else a **ring** (HCCL's
default between Atlas training servers; the hierarchical variant is not modelled).

Which links: a ring's hops go from each member to the next in rank order (the last back to
the first), halving-doubling's between members 2^k apart, mesh's between every pair; a hop
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

LINK_TYPES = ("HCCS", "PCIe", "RoCE")
ALGORITHMS = ("none", "ring", "mesh", "halving-doubling")


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

    def algorithm(self, ranks: Sequence[int]) -> str:
        """The algorithm HCCL would choose for a collective among `ranks`."""
        members = sorted(ranks)
        p = len(members)
        if p <= 1:
            return "none"
        servers = {self.devices[r].server for r in members}
        if len(servers) == 1:
            mesh = all(
                self.hop(a, b).types == ("HCCS",)
                for i, a in enumerate(members)
                for b in members[i + 1 :]
            )
            return "mesh" if mesh else "ring"
        s = len(servers)
        if s & (s - 1) == 0 and p & (p - 1) == 0:
            return "halving-doubling"
        return "ring"

    def hops(self, algorithm: str, ranks: Sequence[int]) -> list[Hop]:
        """The routes the algorithm's steps use among `ranks`."""
        m = sorted(ranks)
        p = len(m)
        if algorithm == "ring":
            return [self.hop(m[i], m[(i + 1) % p]) for i in range(p)]
        if algorithm == "mesh":
            return [self.hop(a, b) for i, a in enumerate(m) for b in m[i + 1 :]]
        if algorithm == "halving-doubling":
            out = []
            step = 1
            while step < p:
                out += [self.hop(m[i], m[i ^ step]) for i in range(p) if i < i ^ step]
                step *= 2
            return out
        return []

    def collective(self, kind: str, nbytes: float, ranks: Sequence[int]) -> CollectiveCost:
        """HCCL's cost of an all-reduce (`kind` "all_reduce", `nbytes` its buffer) or an
        all-gather ("all_gather", `nbytes` its output) among `ranks`."""
        algorithm = self.algorithm(ranks)
        if algorithm == "none":
            return CollectiveCost("none", 0.0)
        hops = self.hops(algorithm, ranks)
        alpha = max(h.latency for h in hops)
        beta = 1.0 / min(h.bandwidth for h in hops)
        gamma = 1.0 / self.reduce_bandwidth
        types = tuple(sorted({t for h in hops for t in h.types}))
        seconds = hccl_formula(kind, algorithm, len(ranks), nbytes, alpha, beta, gamma)
        return CollectiveCost(algorithm, seconds, alpha, beta, gamma, types)


def _preference(link: Link) -> tuple[int, float, float]:
    """Of several links joining one pair: HCCS, then PCIe, then RoCE; then the widest and
    the quickest."""
    return (LINK_TYPES.index(link.type), -link.bandwidth, link.latency)


def hccl_formula(
    kind: str, algorithm: str, p: int, n: float, alpha: float, beta: float, gamma: float
) -> float:
    """HCCL's closed-form time (module docstring's table)."""
    if p <= 1 or algorithm == "none":
        return 0.0
    share = (p - 1) / p
    if kind == "all_reduce":
        if algorithm == "ring":
            return 2 * (p - 1) * alpha + 2 * share * n * beta + share * n * gamma
        if algorithm == "mesh":
            return 2 * alpha + (2 / p) * n * beta + share * n * gamma
        if algorithm == "halving-doubling":
            return 2 * math.log2(p) * alpha + 2 * share * n * beta + share * n * gamma
    elif kind == "all_gather":
        if algorithm == "ring":
            return (p - 1) * alpha + share * n * beta
        if algorithm == "mesh":
            return alpha + n * beta / p
        if algorithm == "halving-doubling":
            return math.log2(p) * alpha + share * n * beta
    raise ValueError(f"no HCCL formula for {kind} by {algorithm}")


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
    """The shipped topology for `ranks` ranks: the 8-NPU server up to 8, else the cluster."""
    return load_topology(DEFAULT_TOPOLOGY if ranks <= 8 else CLUSTER_TOPOLOGY)


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
    return Topology(data["name"], ordered, links, reduce_bandwidth, dict(data.get("sources", {})))


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
