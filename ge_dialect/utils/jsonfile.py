"""JSON files of figures, read with located errors: the device profile's and the topology's
one reader.

    data, source = load_json(read_text(path, "profile", byte_order_mark=True), path)
    check_schema(data, source, SCHEMA, kind_at)     # the first violation, located
    value = source.convert(DURATION, raw, path)     # "1.5 us" -> 1.5e-06, or a located error

**Quantities** are strings: a number (`12`, `0.98`, `1.5e3`; a sign is read, so that
`"-1 us"` is reported as negative rather than as unreadable) and a unit, with or without
blanks between them (`"64 KiB"`, `"64KiB"`).  Units, by kind (decimal prefixes k or K = 10^3,
M = 10^6, G = 10^9, T = 10^12; binary prefixes Ki = 2^10, Mi = 2^20, Gi = 2^30, Ti = 2^40):

- frequency: `Hz`, `kHz` (`KHz`), `MHz`, `GHz`, `THz`
- time: `s`, `ms`, `us` (`µs`, `μs`), `ns`
- size: bytes `B`, `kB`/`KB`, `MB`, `GB`, `TB` (1000^n), `KiB`, `MiB`, `GiB`, `TiB`
  (1024^n); bits `bit`, `kbit`/`Kbit`, `Mbit`, `Gbit`, `Tbit`, `Kibit`, `Mibit`, `Gibit`,
  `Tibit`.  A size must come to a whole number of bytes.
- bandwidth: a size unit per second, `B/s`, `GB/s`, `TB/s`, `GiB/s`, `Gbit/s`, ...

**Kinds** (`Kind`): a kind of value is its JSON schema, its conversion to base units (Hz, s,
bytes, bytes/s) and back, and the checks a schema cannot make (`Invalid`).

**Errors** are one `GeError` line located in the JSON text (lines and columns count
characters from 1): `p.json:LINE:COL: error: <json path>: <what is wrong, what was
expected>`, at the offending value, at the key for an unknown or duplicate key, and where
the enclosing object ends for a missing key.  Invalid JSON is `p.json:LINE:COL: error:
invalid JSON: <msg>`.  When there are several problems, the first in the text is reported.
"""

from __future__ import annotations

import abc
import functools
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ge_dialect.utils.errors import GeError

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
    example = EXAMPLES[kind]
    m = _QUANTITY.fullmatch(text)
    assert m is not None  # every string matches
    number, unit = m["number"], m["unit"]
    if number is None:
        raise ValueError(f'expected {article(kind)} {kind} such as "{example}", got {show(text)}')
    if not unit:
        raise ValueError(
            f'{show(text)} has no unit; expected {article(kind)} {kind} such as "{example}"'
        )
    found = UNITS.get(unit)
    if found is None:
        raise ValueError(
            f"unknown unit {show(unit)} in {show(text)}; expected "
            f"{article(kind)} {kind} ({_UNIT_LISTS[kind]})"
        )
    if found[0] != kind:
        raise ValueError(
            f"{show(text)} is {article(found[0])} {found[0]}; expected "
            f'{article(kind)} {kind} such as "{example}"'
        )
    if len(number) > _MAX_DIGITS:
        raise ValueError(f"{show(text)} has too many digits (at most {_MAX_DIGITS})")
    mantissa = Decimal(number)
    if mantissa and abs(mantissa.adjusted()) > _MAX_EXPONENT:
        raise ValueError(f"{show(text)} is out of range (beyond a double)")
    return Fraction(mantissa) * found[1]


EXAMPLES = {FREQUENCY: "0.98 GHz", TIME: "1.5 us", SIZE: "64 KiB", BANDWIDTH: "1.2 TB/s"}


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def show(text: str, limit: int = 40) -> str:
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


class Invalid(Exception):
    """A value that passed the schema but is wrong; `subpath` below the key, `at_key`: the
    location is a key (not its value)."""

    def __init__(self, message: str, subpath: tuple[str, ...] = (), at_key: bool = False):
        super().__init__(message)
        self.message = message
        self.subpath = subpath
        self.at_key = at_key


class Kind(abc.ABC):
    """A kind of value in a JSON file of figures: its JSON schema, its conversion to base units and
    back, and the checks a schema cannot make."""

    @abc.abstractmethod
    def schema(self) -> dict[str, Any]:
        """The JSON schema of a value of this kind."""

    def convert(self, raw: Any) -> Any:
        return raw

    def unparse(self, value: Any) -> Any:
        return value


class Text(Kind):
    def schema(self) -> dict[str, Any]:
        return {"type": "string", "minLength": 1, "description": "a non-empty string"}


class Flag(Kind):
    def schema(self) -> dict[str, Any]:
        return {"type": "boolean", "description": "true or false"}


class Count(Kind):
    def __init__(self, power_of_two: bool = False):
        self.power_of_two = power_of_two

    def schema(self) -> dict[str, Any]:
        what = "a power of two" if self.power_of_two else "a positive integer"
        return {"type": "integer", "minimum": 1, "description": what}

    def convert(self, raw: Any) -> int:
        n = int(raw)  # the schema accepts 32.0 as an integer
        if self.power_of_two and n & (n - 1):
            raise Invalid(f"expected a power of two, got {n}")
        return n


class Quantity(Kind):
    def __init__(self, kind: str, zero: bool = False, power_of_two: bool = False):
        self.kind = kind
        self.zero = zero  # zero allowed (else: positive)
        self.power_of_two = power_of_two

    def describe(self) -> str:
        return f'{article(self.kind)} {self.kind} such as "{EXAMPLES[self.kind]}"'

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "pattern": _pattern(self.kind), "description": self.describe()}

    def convert(self, raw: Any) -> int | float:
        try:
            exact = parse_quantity(raw, self.kind)
        except ValueError as e:
            raise Invalid(str(e)) from None
        sign = "non-negative" if self.zero else "positive"
        if exact < 0 or (exact == 0 and not self.zero):
            raise Invalid(
                f'expected a {sign} {self.kind} such as "{EXAMPLES[self.kind]}", got {show(raw)}'
            )
        if self.kind == SIZE:
            if exact.denominator != 1:
                raise Invalid(
                    f"expected a whole number of bytes (a multiple of 8 bits), got {show(raw)}"
                )
            n = int(exact)
            if self.power_of_two and n & (n - 1):
                raise Invalid(f"expected a power of two bytes, got {show(raw)}")
            return n
        try:
            value = float(exact)
        except OverflowError:
            value = math.inf
        if math.isinf(value):
            raise Invalid(f"{show(raw)} is out of range (beyond a double)")
        if value == 0 and exact != 0:  # below the smallest double
            raise Invalid(
                f'expected a {sign} {self.kind} such as "{EXAMPLES[self.kind]}", '
                f"got {show(raw)}, which is 0 as a double"
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


class Bits(Quantity):
    """A size written in bits in the file (the vector width), held in bytes."""

    def unparse(self, value: Any) -> str:
        return f"{value * 8} bit"


TEXT, FLAG, COUNT, POWER_OF_TWO = Text(), Flag(), Count(), Count(True)

FREQ = Quantity(FREQUENCY)

DURATION = Quantity(TIME, zero=True)

BYTES = Quantity(SIZE)

ALIGNMENT = Quantity(SIZE, power_of_two=True)

WIDTH = Bits(SIZE)

RATE = Quantity(BANDWIDTH)


def load_json(text: str, name: str) -> tuple[Any, JsonSource]:
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
    source = JsonSource(text, name)
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


class JsonSource:
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
        """A located error at the value at `path` (at its key if `at_key`)."""
        line, col, _ = self.position(path, at_key)
        return GeError(f"{self.name}:{line}:{col}: error: {dotted(path)}: {message}")

    def convert(self, kind: Kind, raw: Any, path: tuple[str | int, ...]) -> Any:
        """The value `raw` at `path` converted by `kind`; a value a schema cannot reject (a
        negative time, a fraction of a byte) is a located `GeError` where it is."""
        try:
            return kind.convert(raw)
        except Invalid as e:
            where = (*path, *e.subpath)
            raise self.error(where, e.message, e.at_key) from None


def dotted(path: Sequence[str | int]) -> str:
    """`cores.cube`; a key that is not a plain name is quoted; `top level` for the root."""
    if not path:
        return "top level"
    plain = re.compile(r"[A-Za-z0-9_]+")
    return ".".join(
        str(k) if plain.fullmatch(str(k)) else json.dumps(k, ensure_ascii=False) for k in path
    )


def got(value: Any, shown: str | None) -> str:
    """What a value is, for a message: its text as written (`shown`), or its JSON."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if shown is None:
        shown = json.dumps(value, ensure_ascii=False)
    return shown


# the order of schema errors at one place: the most telling first
_VALIDATOR_ORDER = ("type", "required", "additionalProperties", "minLength", "pattern", "minimum")

KindAt = Callable[[tuple[str | int, ...]], "Kind | None"]
"""The kind of the value at a JSON path (None: not a kind of this module), for messages."""


def check_schema(data: Any, source: JsonSource, schema: Mapping[str, Any], kind_at: KindAt) -> None:
    """Raises the first (in the text) violation of the JSON Schema `schema` (Draft 2020-12)
    as one located `GeError`.  Each subschema's `description` says what is expected; a
    `title` on a `propertyNames` subschema names what its keys are (`link type`)."""
    import jsonschema  # type: ignore[import-untyped, unused-ignore]

    validator = jsonschema.Draft202012Validator(schema)
    found: list[tuple[tuple[int, int], str, GeError]] = []
    for e in validator.iter_errors(data):
        for path, message, at_key in describe_schema_error(e, source, kind_at):
            offset = source.position(path, at_key)[2]
            if e.validator == "required":
                # noticed where the object ends (as a reader of the text would): an unknown
                # key in it, likely the missing one misspelt, comes first
                offset = source.end_offset(path[:-1])
            rank = _VALIDATOR_ORDER.index(e.validator) if e.validator in _VALIDATOR_ORDER else 99
            found.append(((offset, rank), message, source.error(path, message, at_key)))
    if found:
        raise min(found, key=lambda f: (f[0], f[1]))[2]


Described = Iterator[tuple[tuple[str | int, ...], str, bool]]


def describe_schema_error(e: Any, source: JsonSource, kind_at: KindAt) -> Described:
    """(path, message, at the key?) of a jsonschema error."""
    path = tuple(e.absolute_path)
    if e.validator == "required":
        yield _missing_key(path, e.schema, e.instance)
    elif e.validator == "additionalProperties":
        yield from _unknown_keys(path, e.schema, e.instance)
    elif e.validator == "enum" and "propertyNames" in e.relative_schema_path:
        what = e.schema.get("title", "key")
        yield (*path, e.instance), f"unknown {what} (expected {_expected(e.schema)})", True
    elif e.validator == "enum":
        yield path, f"expected {_expected(e.schema)}, got {json.dumps(e.instance)}", False
    elif e.validator == "minItems":
        yield path, f"expected {_expected(e.schema)}", False
    elif e.validator == "pattern":
        yield path, _pattern_message(e.instance, e.schema, kind_at(path)), False
    else:  # type, minimum, minLength
        shown = got(e.instance, source.raw(path))
        yield path, f"expected {_expected(e.schema)}, got {shown}", False


def _expected(schema: Mapping[str, Any]) -> str:
    return schema.get("description", "a valid value")


def _missing_key(
    path: tuple[str | int, ...], schema: Mapping[str, Any], instance: Mapping[str, Any]
) -> tuple[tuple[str | int, ...], str, bool]:
    """The first required key `instance` lacks, located at it (a path not in the text: the
    caller locates it where the object ends)."""
    key = next(k for k in schema["required"] if k not in instance)
    what = schema.get("properties", {}).get(key, schema.get("additionalProperties"))
    return (*path, key), f"missing key (expected {what['description']})", False


def _unknown_keys(
    path: tuple[str | int, ...], schema: Mapping[str, Any], instance: Any
) -> Described:
    allowed = schema.get("properties", {})
    for key in instance:
        if key not in allowed:
            yield (*path, key), f"unknown key (expected one of {', '.join(allowed)})", True


def _pattern_message(instance: Any, schema: Mapping[str, Any], kind: Kind | None) -> str:
    """Why a string does not match its pattern: a quantity's own reason when it is one."""
    try:
        if isinstance(kind, Quantity):
            kind.convert(instance)
        return f"expected {_expected(schema)}, got {show(instance)}"
    except Invalid as invalid:
        return invalid.message
