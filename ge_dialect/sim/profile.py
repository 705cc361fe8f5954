"""The device profile of the simulated NPU: the figures the time model runs on.

A profile is a JSON file; the shipped default, `profiles/ascend910.json` (`DEFAULT_PROFILE`),
is an Ascend 910-class part.  `load_profile(path)` reads one (`None`: the default, cached),
`parse_profile(text, name)` parses its text, `DeviceProfile.to_json()` writes one back.

Format reference
================
A JSON object.  Every key below is required; any other key is an error, except inside
`sources`.  A quantity is a string: a number and a unit (`"64 KiB"`, `"1.5 us"`, `"1.2
TB/s"`; the units of each kind are listed in `ge_dialect.utils.jsonfile`, which reads both
profiles and topologies).  Counts are plain JSON integers.

Keys (JSON path: kind; meaning -> `DeviceProfile` field, in base units: Hz, s, bytes, bytes/s):

- `name`: non-empty string; the device's name -> `name`.
- `clock`: frequency > 0; the AI cores' clock -> `clock_hz`.
- `cores.cube`: integer >= 1; AI cores with a cube (matrix) unit -> `cube_cores`.
- `cores.vector`: integer >= 1; cores with a vector unit -> `vector_cores`.
- `cores.shared`: boolean; true when cube and vector units sit in the same cores (Ascend
  910: a cube kernel and a vector kernel compete for the same 32 cores; then
  `cores.vector` must equal `cores.cube`); false for separate cube and vector cores (910B)
  -> `shared_cores`.
- `cube.fractal`: integer, a power of two; the cube's fractal edge (16: a 16x16x16 fractal
  matmul per cycle; also the tile granularity M, N, K round up to) -> `fractal`.
- `cube.macs_per_cycle`: object, element type name (as in `ge_dialect.utils.dtypes`: `f16`,
  `i8`, `f32`, ...) -> integer >= 1, multiply-accumulates per cycle per core; `f16` is
  required, and an element type without an entry runs at f16's rate
  -> `cube_macs_per_cycle` (`cube_macs(dtype)`).
- `cube.mte1_bytes_per_cycle`: integer >= 1; bytes per cycle the L1 -> L0A/L0B path moves
  per core (a conv's im2col expansion goes through it) -> `mte1_bytes_per_cycle`.
- `cube.k_step_cycles`: integer >= 1; synchronisation cycles per K step of a cube tile
  -> `kstep_cycles`.
- `vector.chunk_cycles`: integer >= 1; synchronisation cycles per unified-buffer chunk of a
  vector kernel -> `chunk_cycles`.
- `vector.width`: size, whole bytes; what the vector unit processes per cycle per core
  (2048 bit: 128 f16 lanes) -> `vector_bytes_per_cycle` (`vector_lanes(itemsize)`).
- `memory.hbm_bandwidth`: bandwidth > 0; the device's HBM bandwidth, shared by all cores
  -> `hbm_bandwidth`.
- `memory.hbm_size`: size > 0; the device's HBM capacity (Ascend 910: 32 GiB; 910B:
  64 GiB): a program whose buffers (inputs, outputs, allocations, weights) need more is
  refused before anything is allocated (`sim.run.check_capacity`) -> `hbm_bytes`.
- `memory.sustained_bandwidth`: bandwidth > 0; what streaming kernels sustain together
  (the time model shares it among running blocks; the peak is for rooflines)
  -> `sustained_bandwidth`.
- `memory.core_bandwidth`: bandwidth > 0; the most one core moves between global memory
  and its buffers -> `core_bandwidth`.
- `memory.l2_bandwidth`: bandwidth > 0; the device's L2 bandwidth -> `l2_bandwidth`.
- `memory.l2_size`: size > 0; L2 cache capacity -> `l2_bytes`.
- `memory.burst`: size > 0; the contiguous bytes one global-memory transfer needs to run at
  a core's full bandwidth.  A matmul operand stored ND is converted to fractals on its way
  into L1 (ND2NZ), one row segment per transfer, so it loads at `min(1, row bytes / burst)`
  of that bandwidth; a FRACTAL_NZ operand loads whole fractals and pays nothing
  -> `burst_bytes`.
- `memory.alignment`: size, a power of two bytes; the alignment of every buffer in device
  memory (GE: 512 B) -> `alignment`.
- `memory.latency`: time >= 0; a block's first global-memory access, before double
  buffering hides the rest -> `memory_latency`.
- `buffers.l0a`, `buffers.l0b`, `buffers.l0c`, `buffers.l1`, `buffers.ub`: size > 0; per-core
  buffers: the cube's left and right operand buffers, its accumulator, the L1 buffer and the
  vector unit's unified buffer -> `l0a_bytes`, `l0b_bytes`, `l0c_bytes`, `l1_bytes`,
  `ub_bytes`.
- `overheads.launch`: time >= 0; paid once per kernel launch (once by the consecutive
  launches of a TorchAir super kernel scope on a stream) -> `launch_overhead`.
- `overheads.block`: time >= 0; paid per block a core runs -> `block_overhead`.
- `overheads.event_record`, `overheads.event_wait`: time >= 0; a stream's cost of recording
  an event and of a satisfied wait -> `event_record`, `event_wait`.
- `link.bandwidth`: bandwidth > 0; one inter-device link (an HCCS port) -> `link_bandwidth`.
- `link.latency`: time >= 0; one transfer's fixed cost on that link (the alpha of HCCL's
  alpha-beta formulas) -> `link_latency`.
- `sources` (optional, free-form): object of strings, a key's path -> where its figure
  comes from, or why it is an assumption -> `sources`.

Errors
======
Every problem is a `GeError` whose text is one diagnostic line, located in the JSON text
(lines and columns count characters from 1):

    p.json:LINE:COL: error: <json path>: <what is wrong, what was expected>

at the offending value, at the key for an unknown or duplicate key, and at the enclosing
object for a missing key (the path is then the missing key's).  Invalid JSON is
`p.json:LINE:COL: error: invalid JSON: <msg>`, a file that cannot be read
`p.json: error: cannot read profile: <reason>` (bytes that are not UTF-8: located where
they are).  The structure (types, required and unknown keys, the form of quantity strings)
is checked by a JSON Schema (Draft 2020-12, `SCHEMA`, generated from the key table
`_KEYS`); what a schema cannot say (signs after unit conversion, whole bytes, powers of
two, element type names, shared core counts) after it.  When there are several problems,
the first in the text is reported.

To add a key: one `_Key` line in `_KEYS` (path, kind, field) and the `DeviceProfile` field
of the same name; then give it a value and a source in `profiles/ascend910.json`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ge_dialect.utils.dtypes import element_type, type_name
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.jsonfile import (
    ALIGNMENT,
    BANDWIDTH,
    BYTES,
    COUNT,
    DURATION,
    FLAG,
    FREQ,
    FREQUENCY,
    POWER_OF_TWO,
    RATE,
    SIZE,
    TEXT,
    TIME,
    UNITS,
    WIDTH,
    Invalid,
    JsonSource,
    Kind,
    check_schema,
    load_json,
    parse_quantity,
    show,
)
from ge_dialect.utils.textfile import read_text

__all__ = [
    "BANDWIDTH",
    "DEFAULT_PROFILE",
    "FREQUENCY",
    "KEYS",
    "SCHEMA",
    "SIZE",
    "TIME",
    "UNITS",
    "DeviceProfile",
    "load_profile",
    "parse_profile",
    "parse_quantity",
]

DEFAULT_PROFILE: str = os.path.join(os.path.dirname(__file__), "profiles", "ascend910.json")
"""The shipped default profile (an Ascend 910-class part)."""


@dataclass(frozen=True)
class DeviceProfile:
    """A simulated device's figures, in base units (Hz, seconds, bytes, bytes per second)."""

    name: str
    clock_hz: float
    cube_cores: int
    vector_cores: int
    shared_cores: bool
    fractal: int
    cube_macs_per_cycle: Mapping[str, int] = field(hash=False)
    mte1_bytes_per_cycle: int
    kstep_cycles: int
    vector_bytes_per_cycle: int
    chunk_cycles: int
    hbm_bandwidth: float
    hbm_bytes: int
    sustained_bandwidth: float
    core_bandwidth: float
    l2_bandwidth: float
    l2_bytes: int
    burst_bytes: int
    alignment: int
    memory_latency: float
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    l1_bytes: int
    ub_bytes: int
    launch_overhead: float
    block_overhead: float
    event_record: float
    event_wait: float
    link_bandwidth: float
    link_latency: float
    sources: Mapping[str, str] = field(default_factory=dict, hash=False)

    def cube_macs(self, dtype_name: str) -> int:
        """MACs per cycle per core on the cube for an element type (f16's if not listed)."""
        macs = self.cube_macs_per_cycle
        return macs.get(dtype_name, macs["f16"])

    def vector_lanes(self, itemsize: int) -> int:
        """Elements of `itemsize` bytes the vector unit processes per cycle per core."""
        return self.vector_bytes_per_cycle // itemsize

    def peak_cube_flops(self, dtype_name: str = "f16") -> float:
        """The device's peak cube FLOP/s for an element type (2 FLOPs per MAC)."""
        return 2.0 * self.cube_cores * self.cube_macs(dtype_name) * self.clock_hz

    def to_json(self) -> dict[str, Any]:
        """The profile as a JSON object, in the file format (parses back to an equal one)."""
        out: dict[str, Any] = {}
        for key in _KEYS:
            *sections, last = key.path.split(".")
            node = out
            for section in sections:
                node = node.setdefault(section, {})
            node[last] = key.kind.unparse(getattr(self, key.field))
        out["sources"] = dict(self.sources)
        return out


class _Macs(Kind):
    """Element type name -> MACs per cycle per core; "f16" required."""

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["f16"],
            "additionalProperties": {
                "type": "integer",
                "minimum": 1,
                "description": "a positive integer, MACs per cycle per core",
            },
            "description": 'an object of element type -> MACs per cycle, with "f16"',
        }

    def convert(self, raw: Any) -> Mapping[str, int]:
        for name in raw:
            try:
                known = type_name(element_type(name)) == name
            except (TypeError, ValueError):
                known = False
            if not known:
                raise Invalid(
                    f"unknown element type {show(name)}; expected an element type name "
                    "as in MLIR (f16, i8, f32, ...)",
                    (name,),
                    at_key=True,
                )
        return MappingProxyType({name: int(n) for name, n in raw.items()})

    def unparse(self, value: Any) -> Any:
        return dict(value)


MACS = _Macs()


@dataclass(frozen=True)
class _Key:
    path: str  # "memory.hbm_bandwidth"
    kind: Kind
    field: str  # of DeviceProfile


# The profile's keys, in file order: the one place that defines the format.
_KEYS: tuple[_Key, ...] = (
    _Key("name", TEXT, "name"),
    _Key("clock", FREQ, "clock_hz"),
    _Key("cores.cube", COUNT, "cube_cores"),
    _Key("cores.vector", COUNT, "vector_cores"),
    _Key("cores.shared", FLAG, "shared_cores"),
    _Key("cube.fractal", POWER_OF_TWO, "fractal"),
    _Key("cube.macs_per_cycle", MACS, "cube_macs_per_cycle"),
    _Key("cube.mte1_bytes_per_cycle", COUNT, "mte1_bytes_per_cycle"),
    _Key("cube.k_step_cycles", COUNT, "kstep_cycles"),
    _Key("vector.width", WIDTH, "vector_bytes_per_cycle"),
    _Key("vector.chunk_cycles", COUNT, "chunk_cycles"),
    _Key("memory.hbm_bandwidth", RATE, "hbm_bandwidth"),
    _Key("memory.hbm_size", BYTES, "hbm_bytes"),
    _Key("memory.sustained_bandwidth", RATE, "sustained_bandwidth"),
    _Key("memory.core_bandwidth", RATE, "core_bandwidth"),
    _Key("memory.l2_bandwidth", RATE, "l2_bandwidth"),
    _Key("memory.l2_size", BYTES, "l2_bytes"),
    _Key("memory.burst", BYTES, "burst_bytes"),
    _Key("memory.alignment", ALIGNMENT, "alignment"),
    _Key("memory.latency", DURATION, "memory_latency"),
    _Key("buffers.l0a", BYTES, "l0a_bytes"),
    _Key("buffers.l0b", BYTES, "l0b_bytes"),
    _Key("buffers.l0c", BYTES, "l0c_bytes"),
    _Key("buffers.l1", BYTES, "l1_bytes"),
    _Key("buffers.ub", BYTES, "ub_bytes"),
    _Key("overheads.launch", DURATION, "launch_overhead"),
    _Key("overheads.block", DURATION, "block_overhead"),
    _Key("overheads.event_record", DURATION, "event_record"),
    _Key("overheads.event_wait", DURATION, "event_wait"),
    _Key("link.bandwidth", RATE, "link_bandwidth"),
    _Key("link.latency", DURATION, "link_latency"),
)


KEYS: tuple[str, ...] = tuple(key.path for key in _KEYS)
"""The JSON paths of the profile's keys (besides `sources`), in file order."""


def _build_schema() -> dict[str, Any]:
    def section() -> dict[str, Any]:
        return {"type": "object", "properties": {}, "required": [], "additionalProperties": False}

    root = section()
    for key in _KEYS:
        *sections, last = key.path.split(".")
        node = root
        for name in sections:
            if name not in node["properties"]:
                node["properties"][name] = section()
                node["required"].append(name)
            node = node["properties"][name]
        node["properties"][last] = key.kind.schema()
        node["required"].append(last)
    root["properties"]["sources"] = {
        "type": "object",
        "additionalProperties": {"type": "string", "description": "a string"},
        "description": "an object of strings (key -> where its figure comes from)",
    }

    def describe(node: dict[str, Any]) -> None:
        for child in node["properties"].values():
            if "description" not in child:
                describe(child)
        node["description"] = f"an object with keys {', '.join(node['properties'])}"

    describe(root)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **root}


SCHEMA: dict[str, Any] = _build_schema()
"""The JSON Schema (Draft 2020-12) of a profile, generated from `_KEYS`."""


def load_profile(path: str | os.PathLike[str] | None = None) -> DeviceProfile:
    """The profile in the JSON file `path` (None: the shipped default, read once)."""
    if path is None:
        return _default_profile()
    name = os.fspath(path)
    return parse_profile(read_text(name, "profile", byte_order_mark=True), name)


@functools.cache
def _default_profile() -> DeviceProfile:
    return load_profile(DEFAULT_PROFILE)


def parse_profile(text: str, name: str = "<profile>") -> DeviceProfile:
    """The profile in JSON `text`; `name` is the file name its diagnostics show."""
    data, source = load_json(text, name)
    check_schema(data, source, SCHEMA, _kind_at)
    return _convert(data, source)


_KIND_BY_PATH: dict[str, Kind] = {key.path: key.kind for key in _KEYS}


def _kind_at(path: tuple[str | int, ...]) -> Kind | None:
    return _KIND_BY_PATH.get(".".join(map(str, path)))


def _convert(data: dict[str, Any], source: JsonSource) -> DeviceProfile:
    """A schema-valid profile -> DeviceProfile, with the checks a schema cannot make."""
    values: dict[str, Any] = {}
    problems: list[tuple[int, GeError]] = []
    for key in _KEYS:
        path = tuple(key.path.split("."))
        raw: Any = data
        for k in path:
            raw = raw[k]
        try:
            values[key.field] = key.kind.convert(raw)
        except Invalid as e:
            where = (*path, *e.subpath)
            offset = source.position(where, e.at_key)[2]
            problems.append((offset, source.error(where, e.message, e.at_key)))
    if not problems and values["shared_cores"] and values["vector_cores"] != values["cube_cores"]:
        message = (
            f"expected {values['cube_cores']}, as cores.cube (shared cores), "
            f"got {values['vector_cores']}"
        )
        problems.append((0, source.error(("cores", "vector"), message)))
    if problems:
        raise min(problems, key=lambda p: p[0])[1]
    values["sources"] = MappingProxyType(dict(data.get("sources", {})))
    return DeviceProfile(**values)
