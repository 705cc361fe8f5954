"""The device profile of the simulated NPU: the figures the time model runs on.

A profile is a JSON file; the shipped default, `profiles/ascend910.json` (`DEFAULT_PROFILE`),
is an Ascend 910-class part.  `load_profile(path)` reads one (`None`: the default, cached),
`parse_profile(text, name)` parses its text, `DeviceProfile.to_json()` writes one back.

Format reference
================
A JSON object.  Every key below is required; any other key is an error, except inside
`sources`.  A quantity is a string: a number (`12`, `0.98`, `1.5e3`; a sign is read, so
that `"-1 us"` is reported as negative rather than as unreadable) and a unit, with or
without blanks between them (`"64 KiB"`, `"64KiB"`).  Counts are plain JSON integers.

Units, by kind (decimal prefixes k or K = 10^3, M = 10^6, G = 10^9, T = 10^12; binary
prefixes Ki = 2^10, Mi = 2^20, Gi = 2^30, Ti = 2^40):

- frequency: `Hz`, `kHz` (`KHz`), `MHz`, `GHz`, `THz`
- time: `s`, `ms`, `us` (`µs`, `μs`), `ns`
- size: bytes `B`, `kB`/`KB`, `MB`, `GB`, `TB` (1000^n), `KiB`, `MiB`, `GiB`, `TiB`
  (1024^n); bits `bit`, `kbit`/`Kbit`, `Mbit`, `Gbit`, `Tbit`, `Kibit`, `Mibit`, `Gibit`,
  `Tibit`.  A size must come to a whole number of bytes.
- bandwidth: a size unit per second, `B/s`, `GB/s`, `TB/s`, `GiB/s`, `Gbit/s`, ...

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
- `memory.sustained_bandwidth`: bandwidth > 0; what streaming kernels sustain together
  (the time model shares it among running blocks; the peak is for rooflines)
  -> `sustained_bandwidth`.
- `memory.core_bandwidth`: bandwidth > 0; the most one core moves between global memory
  and its buffers -> `core_bandwidth`.
- `memory.l2_bandwidth`: bandwidth > 0; the device's L2 bandwidth -> `l2_bandwidth`.
- `memory.l2_size`: size > 0; L2 cache capacity -> `l2_bytes`.
- `memory.alignment`: size, a power of two bytes; the alignment of every buffer in device
  memory (GE: 512 B) -> `alignment`.
- `memory.latency`: time >= 0; a block's first global-memory access, before double
  buffering hides the rest -> `memory_latency`.
- `buffers.l0a`, `buffers.l0b`, `buffers.l0c`, `buffers.l1`, `buffers.ub`: size > 0; per-core
  buffers: the cube's left and right operand buffers, its accumulator, the L1 buffer and the
  vector unit's unified buffer -> `l0a_bytes`, `l0b_bytes`, `l0c_bytes`, `l1_bytes`,
  `ub_bytes`.
- `overheads.launch`: time >= 0; paid once per kernel launch -> `launch_overhead`.
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
`p.json: error: cannot read profile: <reason>`.  The structure (types, required and unknown
keys, the form of quantity strings) is checked by a JSON Schema (Draft 2020-12, `SCHEMA`,
generated from the key table `_KEYS`); what a schema cannot say (signs after unit
conversion, whole bytes, powers of two, element type names, shared core counts) after it.
When there are several problems, the first in the text is reported.

To add a key: one `_Key` line in `_KEYS` (path, kind, field) and the `DeviceProfile` field
of the same name; then give it a value and a source in `profiles/ascend910.json`.
"""

from __future__ import annotations

import abc
import functools
import json
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ge_dialect.utils.dtypes import element_type, type_name
from ge_dialect.utils.errors import GeError

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
    sustained_bandwidth: float
    core_bandwidth: float
    l2_bandwidth: float
    l2_bytes: int
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


# --------------------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------------------

FREQUENCY, TIME, SIZE, BANDWIDTH = "frequency", "time", "size", "bandwidth"

_DECIMAL = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def _units() -> dict[str, tuple[str, Fraction]]:
    """unit -> (its kind, its value in base units: Hz, s, bytes, bytes/s)."""
    units: dict[str, tuple[str, Fraction]] = {}
    for prefix, scale in _DECIMAL.items():
        units[prefix + "Hz"] = (FREQUENCY, Fraction(scale))
    for unit, scale in (
        ("s", 1),
        ("ms", 10**3),
        ("us", 10**6),
        ("µs", 10**6),
        ("μs", 10**6),
        ("ns", 10**9),
    ):
        units[unit] = (TIME, Fraction(1, scale))
    for prefix, scale in (_DECIMAL | _BINARY).items():
        for unit, bytes_ in (("B", Fraction(1)), ("bit", Fraction(1, 8))):
            units[prefix + unit] = (SIZE, scale * bytes_)
            units[prefix + unit + "/s"] = (BANDWIDTH, scale * bytes_)
    return units


UNITS: Mapping[str, tuple[str, Fraction]] = MappingProxyType(_units())
"""Every accepted unit -> (its kind, its value in base units: Hz, s, bytes, bytes/s)."""

_UNIT_LISTS = {
    FREQUENCY: "Hz, kHz, MHz, GHz",
    TIME: "s, ms, us (µs), ns",
    SIZE: "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB, bit, kbit, ..., Kibit, ...",
    BANDWIDTH: "a size unit per second: B/s, GB/s, TB/s, GiB/s, Gbit/s, ...",
}

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_QUANTITY = re.compile(rf"\s*(?P<number>{_NUMBER})?\s*(?P<unit>.*?)\s*", re.DOTALL)
_MAX_DIGITS = 64  # a longer number is an error (Python refuses to convert ~4300 digits)
_MAX_EXPONENT = 400  # beyond a double's range either way: refused before exact arithmetic


def _pattern(kind: str) -> str:
    """The JSON Schema pattern of a quantity of `kind` (a number and one of its units)."""
    units = sorted((u for u, (k, _) in UNITS.items() if k == kind), key=lambda u: (-len(u), u))
    return rf"^\s*{_NUMBER}\s*(?:{'|'.join(re.escape(u) for u in units)})\s*$"


def parse_quantity(text: str, kind: str) -> Fraction:
    """`"1.2 TB/s"` -> its exact value in base units; ValueError (the message) if not a `kind`."""
    example = _EXAMPLES[kind]
    m = _QUANTITY.fullmatch(text)
    assert m is not None  # every string matches
    number, unit = m["number"], m["unit"]
    if number is None:
        raise ValueError(f'expected {_article(kind)} {kind} such as "{example}", got {_show(text)}')
    if not unit:
        raise ValueError(
            f'{_show(text)} has no unit; expected {_article(kind)} {kind} such as "{example}"'
        )
    found = UNITS.get(unit)
    if found is None:
        raise ValueError(
            f"unknown unit {_show(unit)} in {_show(text)}; expected "
            f"{_article(kind)} {kind} ({_UNIT_LISTS[kind]})"
        )
    if found[0] != kind:
        raise ValueError(
            f"{_show(text)} is {_article(found[0])} {found[0]}; expected "
            f'{_article(kind)} {kind} such as "{example}"'
        )
    if len(number) > _MAX_DIGITS:
        raise ValueError(f"{_show(text)} has too many digits (at most {_MAX_DIGITS})")
    mantissa = Decimal(number)
    if mantissa and abs(mantissa.adjusted()) > _MAX_EXPONENT:
        raise ValueError(f"{_show(text)} is out of range (beyond a double)")
    return Fraction(mantissa) * found[1]


_EXAMPLES = {FREQUENCY: "0.98 GHz", TIME: "1.5 us", SIZE: "64 KiB", BANDWIDTH: "1.2 TB/s"}


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _show(text: str, limit: int = 40) -> str:
    """A string as JSON shows it, shortened past `limit` characters."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return json.dumps(text, ensure_ascii=False)


def _decimal_str(value: Decimal) -> str:
    """A decimal without trailing zeros, in plain notation (`1.5`, `64`, `0.0005`) unless
    that is long (`5E-315`)."""
    value = value.normalize()
    text = format(value, "f")
    return text if len(text) <= 24 else str(value)


def _format_float(value: float, units: Sequence[tuple[str, int]]) -> str:
    """`value` (base units) in the largest of `units` ((name, power of ten)) it reaches.

    Exact: the shortest decimal that reads back as `value`, with its point moved.
    """
    exact = Decimal(repr(value))
    name, power = next(((n, p) for n, p in units if abs(value) >= 10.0**p), units[-1])
    return f"{_decimal_str(exact.scaleb(-power))} {name}"


def _format_size(n: int) -> str:
    """Bytes in the largest binary unit that divides them, else decimal, else `B`."""
    for table in (_BINARY, _DECIMAL):
        for prefix, scale in sorted(table.items(), key=lambda kv: -kv[1]):
            if scale > 1 and n >= scale and n % scale == 0:
                return f"{n // scale} {prefix}B"
    return f"{n} B"


# --------------------------------------------------------------------------------------
# Kinds of values: their schema, their conversion and the checks a schema cannot make
# --------------------------------------------------------------------------------------


class _Invalid(Exception):
    """A value that passed the schema but is wrong; `subpath` below the key, `at_key`: the
    location is a key (not its value)."""

    def __init__(self, message: str, subpath: tuple[str, ...] = (), at_key: bool = False):
        super().__init__(message)
        self.message = message
        self.subpath = subpath
        self.at_key = at_key


class _Kind(abc.ABC):
    """A kind of value in a profile: its JSON schema, its conversion to base units and
    back, and the checks a schema cannot make."""

    @abc.abstractmethod
    def schema(self) -> dict[str, Any]:
        """The JSON schema of a value of this kind."""

    def convert(self, raw: Any) -> Any:
        return raw

    def unparse(self, value: Any) -> Any:
        return value


class _Text(_Kind):
    def schema(self) -> dict[str, Any]:
        return {"type": "string", "minLength": 1, "description": "a non-empty string"}


class _Flag(_Kind):
    def schema(self) -> dict[str, Any]:
        return {"type": "boolean", "description": "true or false"}


class _Count(_Kind):
    def __init__(self, power_of_two: bool = False):
        self.power_of_two = power_of_two

    def schema(self) -> dict[str, Any]:
        what = "a power of two" if self.power_of_two else "a positive integer"
        return {"type": "integer", "minimum": 1, "description": what}

    def convert(self, raw: Any) -> int:
        n = int(raw)  # the schema accepts 32.0 as an integer
        if self.power_of_two and n & (n - 1):
            raise _Invalid(f"expected a power of two, got {n}")
        return n


class _Macs(_Kind):
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
                raise _Invalid(
                    f"unknown element type {_show(name)}; expected an element type name "
                    "as in MLIR (f16, i8, f32, ...)",
                    (name,),
                    at_key=True,
                )
        return MappingProxyType({name: int(n) for name, n in raw.items()})

    def unparse(self, value: Any) -> Any:
        return dict(value)


class _Quantity(_Kind):
    def __init__(self, kind: str, zero: bool = False, power_of_two: bool = False):
        self.kind = kind
        self.zero = zero  # zero allowed (else: positive)
        self.power_of_two = power_of_two

    def describe(self) -> str:
        return f'{_article(self.kind)} {self.kind} such as "{_EXAMPLES[self.kind]}"'

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "pattern": _pattern(self.kind), "description": self.describe()}

    def convert(self, raw: Any) -> int | float:
        try:
            exact = parse_quantity(raw, self.kind)
        except ValueError as e:
            raise _Invalid(str(e)) from None
        sign = "non-negative" if self.zero else "positive"
        if exact < 0 or (exact == 0 and not self.zero):
            raise _Invalid(
                f'expected a {sign} {self.kind} such as "{_EXAMPLES[self.kind]}", got {_show(raw)}'
            )
        if self.kind == SIZE:
            if exact.denominator != 1:
                raise _Invalid(
                    f"expected a whole number of bytes (a multiple of 8 bits), got {_show(raw)}"
                )
            n = int(exact)
            if self.power_of_two and n & (n - 1):
                raise _Invalid(f"expected a power of two bytes, got {_show(raw)}")
            return n
        try:
            value = float(exact)
        except OverflowError:
            value = math.inf
        if math.isinf(value):
            raise _Invalid(f"{_show(raw)} is out of range (beyond a double)")
        if value == 0 and exact != 0:  # below the smallest double
            raise _Invalid(
                f'expected a {sign} {self.kind} such as "{_EXAMPLES[self.kind]}", '
                f"got {_show(raw)}, which is 0 as a double"
            )
        return value

    def unparse(self, value: Any) -> str:
        if self.kind == SIZE:
            return _format_size(value)
        if self.kind == FREQUENCY:
            return _format_float(value, (("GHz", 9), ("MHz", 6), ("kHz", 3), ("Hz", 0)))
        if self.kind == TIME:
            return _format_float(value, (("s", 0), ("ms", -3), ("us", -6), ("ns", -9)))
        return _format_float(
            value, (("TB/s", 12), ("GB/s", 9), ("MB/s", 6), ("kB/s", 3), ("B/s", 0))
        )


class _Bits(_Quantity):
    """A size written in bits in the file (the vector width), held in bytes."""

    def unparse(self, value: Any) -> str:
        return f"{value * 8} bit"


TEXT, FLAG, COUNT, POWER_OF_TWO, MACS = _Text(), _Flag(), _Count(), _Count(True), _Macs()
FREQ = _Quantity(FREQUENCY)
DURATION = _Quantity(TIME, zero=True)
BYTES = _Quantity(SIZE)
ALIGNMENT = _Quantity(SIZE, power_of_two=True)
WIDTH = _Bits(SIZE)
RATE = _Quantity(BANDWIDTH)


@dataclass(frozen=True)
class _Key:
    path: str  # "memory.hbm_bandwidth"
    kind: _Kind
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
    _Key("memory.sustained_bandwidth", RATE, "sustained_bandwidth"),
    _Key("memory.core_bandwidth", RATE, "core_bandwidth"),
    _Key("memory.l2_bandwidth", RATE, "l2_bandwidth"),
    _Key("memory.l2_size", BYTES, "l2_bytes"),
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


# --------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------


def load_profile(path: str | os.PathLike[str] | None = None) -> DeviceProfile:
    """The profile in the JSON file `path` (None: the shipped default, read once)."""
    if path is None:
        return _default_profile()
    name = os.fspath(path)
    return parse_profile(read_text(name, "profile"), name)


def read_text(name: str, what: str) -> str:
    """The UTF-8 text (a byte-order mark allowed) of the JSON file `name`; a one-line
    `GeError` (`name: error: cannot read <what>: ...`) when it cannot be read."""
    try:
        with open(name, "rb") as f:
            data = f.read()
    except OSError as e:
        raise GeError(f"{name}: error: cannot read {what}: {e.strerror or e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise GeError(
            f"{name}: error: cannot read {what}: not UTF-8 text "
            f"(byte 0x{data[e.start]:02x} at offset {e.start})"
        ) from None


@functools.cache
def _default_profile() -> DeviceProfile:
    return load_profile(DEFAULT_PROFILE)


def parse_profile(text: str, name: str = "<profile>") -> DeviceProfile:
    """The profile in JSON `text`; `name` is the file name its diagnostics show."""
    data, source = load_json(text, name)
    _check_schema(data, source)
    return _convert(data, source)


def load_json(text: str, name: str) -> tuple[Any, _Source]:
    """The JSON value of `text` and its source for located errors; invalid JSON, too deep
    nesting and a key that appears twice in one object are one-line `GeError`s."""
    duplicates: list[tuple[dict[str, Any], str]] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) < len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    duplicates.append((obj, key))  # the second occurrence
                    break
                seen.add(key)
        return obj

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_int=_parse_int)
    except json.JSONDecodeError as e:
        raise GeError(f"{name}:{e.lineno}:{e.colno}: error: invalid JSON: {e.msg}") from None
    except RecursionError:
        raise GeError(f"{name}:1:1: error: invalid JSON: nesting too deep") from None
    source = _Source(text, name)
    if duplicates:
        obj, key = duplicates[0]
        path = _path_of(data, obj)
        raise source.error((*path, key), "duplicate key (a key appears once per object)", True)
    return data, source


def _parse_int(text: str) -> int | float:
    """A JSON integer; one Python refuses to convert (~4300 digits) as infinity (not an
    integer, so the schema reports it where it is)."""
    return int(text) if len(text) <= 1000 else math.inf


def _path_of(data: Any, target: dict[str, Any]) -> tuple[str, ...]:
    """The path of the object `target` (by identity) inside `data`."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, str(i))) for i, v in enumerate(node))
    return ()


class _Source:
    """The JSON text, to locate a path in it (its source map is computed when first needed)."""

    def __init__(self, text: str, name: str):
        self.text = text
        self.name = name

    @functools.cached_property
    def map(self) -> dict[str, Any]:
        import json_source_map  # type: ignore[import-untyped, unused-ignore]

        try:
            return json_source_map.calculate(self.text)
        except (ValueError, RecursionError, json_source_map.errors.BaseError):
            # json_source_map re-reads the text with plain `json.loads`, which refuses an
            # integer of ~4300 digits: every location is then 1:1
            return {}

    def _entry(self, path: Sequence[str | int]) -> Any:
        """The source map entry of `path`, or of its nearest ancestor the map has (a key the
        file writes with escapes is found under another spelling)."""
        raw = [
            json.dumps(k, ensure_ascii=False)[1:-1] if isinstance(k, str) else str(k) for k in path
        ]
        for n in range(len(raw), -1, -1):
            entry = self.map.get("".join("/" + k for k in raw[:n]))
            if entry is not None:
                return entry, n == len(raw)
        return None, False

    def position(self, path: Sequence[str | int], at_key: bool = False) -> tuple[int, int, int]:
        """(line, column, offset) of the value at `path` (of its key if `at_key`), from 1."""
        entry, exact = self._entry(path)
        if entry is None:
            return 1, 1, 0
        loc = entry.key_start if at_key and exact and entry.key_start else entry.value_start
        return loc.line + 1, loc.column + 1, loc.position

    def end_offset(self, path: Sequence[str | int]) -> int:
        """The offset of the end of the value at `path`."""
        entry, _ = self._entry(path)
        return 0 if entry is None else entry.value_end.position - 1

    def raw(self, path: Sequence[str | int], limit: int = 40) -> str | None:
        """The text of the value at `path` as written, shortened past `limit` characters."""
        entry, exact = self._entry(path)
        if entry is None or not exact:
            return None
        text = self.text[entry.value_start.position : entry.value_end.position]
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def error(self, path: Sequence[str | int], message: str, at_key: bool = False) -> GeError:
        line, col, _ = self.position(path, at_key)
        return GeError(f"{self.name}:{line}:{col}: error: {_dotted(path)}: {message}")


def _dotted(path: Sequence[str | int]) -> str:
    """`cores.cube`; a key that is not a plain name is quoted; `top level` for the root."""
    if not path:
        return "top level"
    plain = re.compile(r"[A-Za-z0-9_]+")
    return ".".join(
        str(k) if plain.fullmatch(str(k)) else json.dumps(k, ensure_ascii=False) for k in path
    )


def _got(value: Any, shown: str | None) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if shown is None:
        shown = json.dumps(value, ensure_ascii=False)
    return shown


# the order of schema errors at one place: the most telling first
_VALIDATOR_ORDER = ("type", "required", "additionalProperties", "minLength", "pattern", "minimum")


def _check_schema(data: Any, source: _Source) -> None:
    """Raises the first (in the text) violation of `SCHEMA`."""
    import jsonschema  # type: ignore[import-untyped, unused-ignore]

    validator = jsonschema.Draft202012Validator(SCHEMA)
    found: list[tuple[tuple[int, int], str, GeError]] = []
    for e in validator.iter_errors(data):
        for path, message, at_key in _describe(e, source):
            offset = source.position(path, at_key)[2]
            if e.validator == "required":
                # noticed where the object ends (as a reader of the text would): an unknown
                # key in it, likely the missing one misspelt, comes first
                offset = source.end_offset(path[:-1])
            rank = _VALIDATOR_ORDER.index(e.validator) if e.validator in _VALIDATOR_ORDER else 99
            found.append(((offset, rank), message, source.error(path, message, at_key)))
    if found:
        raise min(found, key=lambda f: (f[0], f[1]))[2]


def _describe(e: Any, source: _Source) -> Iterator[tuple[tuple[str | int, ...], str, bool]]:
    """(path, message, at the key?) of a jsonschema error."""
    path = tuple(e.absolute_path)
    schema, instance = e.schema, e.instance
    expected = schema.get("description", "a valid value")
    if e.validator == "required":
        for key in schema["required"]:
            if key not in instance:
                what = schema.get("properties", {}).get(key, schema.get("additionalProperties"))
                yield (*path, key), f"missing key (expected {what['description']})", False
                return
    elif e.validator == "additionalProperties":
        allowed = schema.get("properties", {})
        for key in instance:
            if key not in allowed:
                keys = ", ".join(allowed)
                yield (*path, key), f"unknown key (expected one of {keys})", True
    elif e.validator == "pattern":
        kind = _KIND_BY_PATH.get(".".join(map(str, path)))
        try:
            if isinstance(kind, _Quantity):
                kind.convert(instance)
            message = f"expected {expected}, got {_show(instance)}"
        except _Invalid as invalid:
            message = invalid.message
        yield path, message, False
    else:  # type, minimum, minLength
        yield path, f"expected {expected}, got {_got(instance, source.raw(path))}", False


_KIND_BY_PATH: dict[str, _Kind] = {key.path: key.kind for key in _KEYS}


def _convert(data: dict[str, Any], source: _Source) -> DeviceProfile:
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
        except _Invalid as e:
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
