"""ge_dialect.sim.profile: the shipped default, units, to_json, and every diagnostic.

Error texts are written out in full with their line:col, worked out by hand on `TEMPLATE`
(one key per line where a test needs a column; columns count characters from 1).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ge_dialect.sim import profile as profile_module
from ge_dialect.sim.profile import (
    BANDWIDTH,
    DEFAULT_PROFILE,
    FREQUENCY,
    KEYS,
    SCHEMA,
    SIZE,
    TIME,
    UNITS,
    DeviceProfile,
    load_profile,
    parse_profile,
    parse_quantity,
)
from ge_dialect.utils.errors import GeError

# A valid profile; tests replace one line (numbered from 1 as below).
TEMPLATE_LINES = [
    "{",  # 1
    '  "name": "t",',  # 2
    '  "clock": "1 GHz",',  # 3
    '  "cores": {"cube": 2, "vector": 2, "shared": true},',  # 4
    '  "cube": {',  # 5
    '    "fractal": 16,',  # 6
    '    "macs_per_cycle": {"f16": 4096, "i8": 8192}, '
    '"mte1_bytes_per_cycle": 48, "k_step_cycles": 32',  # 7
    "  },",  # 8
    '  "vector": {"width": "2048 bit", "chunk_cycles": 200},',  # 9
    '  "memory": {',  # 10
    '    "hbm_bandwidth": "1 TB/s",',  # 11
    '    "core_bandwidth": "100 GB/s", "sustained_bandwidth": "0.5 TB/s",',  # 12
    '    "l2_bandwidth": "5 TB/s", "burst": "512 B",',  # 13
    '    "l2_size": "32 MiB", "hbm_size": "32 GiB",',  # 14
    '    "alignment": "512 B", "latency": "1 us"',  # 15
    "  },",  # 16
    '  "buffers": {',  # 17
    '    "l0a": "64 KiB",',  # 18
    '    "l0b": "64 KiB",',  # 19
    '    "l0c": "256 KiB",',  # 20
    '    "l1": "1 MiB",',  # 21
    '    "ub": "256 KiB"',  # 22
    "  },",  # 23
    '  "overheads": {',  # 24
    '    "launch": "1 us",',  # 25
    '    "block": "0 us",',  # 26
    '    "event_record": "0.5 us",',  # 27
    '    "event_wait": "0.5 us"',  # 28
    "  },",  # 29
    '  "link": {"bandwidth": "30 GB/s", "latency": "1 us"},',  # 30
    '  "sources": {"clock": "a guess"}',  # 31
    "}",  # 32
]
TEMPLATE = "\n".join(TEMPLATE_LINES)


def text_with(*changes: tuple[int, str]) -> str:
    """TEMPLATE with line `n` (from 1) replaced, for each (n, line)."""
    lines = list(TEMPLATE_LINES)
    for n, line in changes:
        lines[n - 1] = line
    return "\n".join(lines)


def error_of(text: str) -> str:
    with pytest.raises(GeError) as info:
        parse_profile(text, "p.json")
    message = str(info.value)
    assert "\n" not in message
    return message


# ---- the shipped default -------------------------------------------------------------


def test_default_loads_and_peaks_at_256_tflops():
    p = load_profile()
    assert p is load_profile()  # read once
    assert p == load_profile(DEFAULT_PROFILE)
    assert p.name == "Ascend 910"
    assert (p.cube_cores, p.vector_cores, p.shared_cores, p.fractal) == (32, 32, True, 16)
    # 2 FLOPs x 32 cores x 4096 MACs x 0.98 GHz = 256.9 TFLOPS (Hot Chips 31: 256)
    assert p.peak_cube_flops() == pytest.approx(256e12, rel=0.01)
    assert 2 * p.cube_cores * p.cube_macs("f16") * p.clock_hz == pytest.approx(256e12, rel=0.01)
    assert p.peak_cube_flops("i8") == pytest.approx(512e12, rel=0.01)
    assert p.vector_bytes_per_cycle == 256 and p.vector_lanes(2) == 128
    assert p.vector_lanes(4) == 64
    assert p.hbm_bandwidth == 1.2e12 and p.l2_bandwidth == 6e12
    assert p.hbm_bytes == 32 << 30  # an Ascend 910's 32 GB of HBM2
    assert (p.l0a_bytes, p.l0b_bytes, p.l0c_bytes) == (64 << 10, 64 << 10, 256 << 10)
    assert (p.l1_bytes, p.ub_bytes, p.l2_bytes) == (1 << 20, 256 << 10, 32 << 20)
    assert p.alignment == 512 and p.burst_bytes == 512
    assert p.link_bandwidth == 30e9 and p.link_latency == 1.5e-6
    # ridge point ~213 FLOPs/byte (256 TFLOPS over 1.2 TB/s)
    assert p.peak_cube_flops() / p.hbm_bandwidth == pytest.approx(213, rel=0.01)


def test_default_has_a_source_for_every_key():
    p = load_profile()
    assert set(p.sources) == set(KEYS)
    assert all(len(text) > 20 for text in p.sources.values())
    for key in ("memory.core_bandwidth", "overheads.launch", "link.latency"):
        assert "assumption" in p.sources[key]


def test_default_profile_is_package_data():
    assert os.path.isfile(DEFAULT_PROFILE)
    assert os.path.dirname(DEFAULT_PROFILE) == os.path.join(
        os.path.dirname(profile_module.__file__), "profiles"
    )


def test_schema_is_valid_draft_2020_12():
    import jsonschema  # type: ignore[import-untyped]  # no stubs (types-jsonschema) installed

    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_format_reference_names_every_key():
    doc = profile_module.__doc__ or ""
    for key in KEYS:
        assert f"`{key}`" in doc, key
    for field in dataclasses.fields(DeviceProfile):
        assert f"`{field.name}`" in doc, field.name


def test_template_is_valid():
    p = parse_profile(TEMPLATE, "p.json")
    assert p.clock_hz == 1e9 and p.cube_cores == 2 and p.block_overhead == 0.0
    assert dict(p.sources) == {"clock": "a guess"}


def test_sources_are_optional():
    p = parse_profile(text_with((30, TEMPLATE_LINES[29].rstrip(",")), (31, "")))
    assert dict(p.sources) == {}


def test_cube_macs_falls_back_to_f16():
    p = parse_profile(TEMPLATE)
    assert p.cube_macs("f16") == 4096 and p.cube_macs("i8") == 8192
    assert p.cube_macs("f32") == 4096  # not listed: f16's


def test_profile_is_frozen_and_hashable():
    p = load_profile()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.clock_hz = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.cube_macs_per_cycle["f16"] = 1  # type: ignore[index]
    assert hash(p) == hash(parse_profile(json.dumps(p.to_json())))


# ---- units ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("1 KiB", SIZE, 1024),
        ("1 KB", SIZE, 1000),
        ("1 kB", SIZE, 1000),
        ("1KiB", SIZE, 1024),
        ("1.5 KiB", SIZE, 1536),
        ("32 MiB", SIZE, 32 * 2**20),
        ("32 MB", SIZE, 32 * 10**6),
        ("1 GiB", SIZE, 2**30),
        ("1 TB", SIZE, 10**12),
        ("2048 bit", SIZE, 256),
        ("1 Kibit", SIZE, 128),
        ("1 Kbit", SIZE, 125),
        ("1 Mibit", SIZE, 2**17),
        ("1e3 B", SIZE, 1000),
        ("1.5 us", TIME, Fraction(3, 2_000_000)),
        ("1.5 µs", TIME, Fraction(3, 2_000_000)),  # micro sign U+00B5
        ("1.5 μs", TIME, Fraction(3, 2_000_000)),  # Greek mu U+03BC
        ("1.5us", TIME, Fraction(3, 2_000_000)),
        ("1500 ns", TIME, Fraction(3, 2_000_000)),
        (" 3 ms ", TIME, Fraction(3, 1000)),
        ("2 s", TIME, 2),
        ("-1 us", TIME, Fraction(-1, 10**6)),
        ("0.98 GHz", FREQUENCY, 980_000_000),
        ("980 MHz", FREQUENCY, 980_000_000),
        ("5 kHz", FREQUENCY, 5000),
        ("5 KHz", FREQUENCY, 5000),
        ("50 Hz", FREQUENCY, 50),
        ("1.2 TB/s", BANDWIDTH, 1_200_000_000_000),
        ("1.2TB/s", BANDWIDTH, 1_200_000_000_000),
        ("128 GB/s", BANDWIDTH, 128_000_000_000),
        ("1 GiB/s", BANDWIDTH, 2**30),
        ("240 Gbit/s", BANDWIDTH, 30_000_000_000),
        ("7 B/s", BANDWIDTH, 7),
    ],
)
def test_units(text: str, kind: str, value: int | Fraction):
    assert parse_quantity(text, kind) == value


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("1 GB", BANDWIDTH, '"1 GB" is a size; expected a bandwidth such as "1.2 TB/s"'),
        ("1 GHz", TIME, '"1 GHz" is a frequency; expected a time such as "1.5 us"'),
        ("1 us", SIZE, '"1 us" is a time; expected a size such as "64 KiB"'),
        (
            "1 gb",
            SIZE,
            'unknown unit "gb" in "1 gb"; expected a size (B, kB, MB, GB, TB, '
            "KiB, MiB, GiB, TiB, bit, kbit, ..., Kibit, ...)",
        ),
        (
            "1 mHz",
            FREQUENCY,
            'unknown unit "mHz" in "1 mHz"; expected a frequency (Hz, kHz, MHz, GHz)',
        ),
        ("12", TIME, '"12" has no unit; expected a time such as "1.5 us"'),
        ("GHz", FREQUENCY, 'expected a frequency such as "0.98 GHz", got "GHz"'),
        ("1e999 s", TIME, '"1e999 s" is out of range (beyond a double)'),
    ],
)
def test_unit_errors(text: str, kind: str, message: str):
    with pytest.raises(ValueError) as info:
        parse_quantity(text, kind)
    assert str(info.value) == message


def test_schema_patterns_agree_with_the_parser():
    patterns = {
        FREQUENCY: SCHEMA["properties"]["clock"]["pattern"],
        TIME: SCHEMA["properties"]["overheads"]["properties"]["launch"]["pattern"],
        SIZE: SCHEMA["properties"]["buffers"]["properties"]["l1"]["pattern"],
        BANDWIDTH: SCHEMA["properties"]["memory"]["properties"]["hbm_bandwidth"]["pattern"],
    }
    for unit, (unit_kind, scale) in UNITS.items():
        for number in ("1", "1.5", ".5", "2.", "2e3", "-1", "+4E-2"):
            for text in (f"{number} {unit}", f"{number}{unit}", f" {number}  {unit} "):
                for kind, pattern in patterns.items():
                    assert bool(re.search(pattern, text)) == (kind == unit_kind), (text, kind)
                value = parse_quantity(text, unit_kind)
                assert value == Fraction(number.replace("+", "")) * scale


def test_units_in_a_profile():
    p = parse_profile(
        text_with(
            (9, '  "vector": {"width": "256 B", "chunk_cycles": 200},'),
            (14, '    "l2_size": "32000 KB", "hbm_size": "64 GB",'),
            (21, '    "l1": "8 Mibit",'),
            (25, '    "launch": "1500ns",'),
            (26, '    "block": "0.25 µs",'),
            (11, '    "hbm_bandwidth": "9600 Gbit/s",'),
        )
    )
    assert p.vector_bytes_per_cycle == 256
    assert p.l2_bytes == 32_000_000 and p.l1_bytes == 1 << 20 and p.hbm_bytes == 64 * 10**9
    assert p.launch_overhead == 1.5e-6 and p.block_overhead == 0.25e-6
    assert p.hbm_bandwidth == 1.2e12


# ---- to_json -------------------------------------------------------------------------


def test_to_json_round_trips():
    p = load_profile()
    out = p.to_json()
    assert parse_profile(json.dumps(out)) == p
    assert parse_profile(json.dumps(out)).to_json() == out
    # the default's quantities come out as its file writes them, up to the choice of unit
    assert out["memory"]["hbm_bandwidth"] == "1.2 TB/s"
    assert out["memory"]["hbm_size"] == "32 GiB"
    assert out["buffers"] == {
        "l0a": "64 KiB",
        "l0b": "64 KiB",
        "l0c": "256 KiB",
        "l1": "1 MiB",
        "ub": "256 KiB",
    }
    assert out["vector"]["width"] == "2048 bit"
    assert out["overheads"]["launch"] == "1.5 us"
    assert out["clock"] == "980 MHz"
    assert set(out) == {*(k.split(".")[0] for k in KEYS), "sources"}


@given(
    clock=st.floats(min_value=1e-3, max_value=1e15),
    latency=st.floats(min_value=0, max_value=1e6),
    bandwidth=st.floats(min_value=1e-6, max_value=1e30),
    size=st.integers(min_value=1, max_value=2**62),
    width=st.integers(min_value=1, max_value=2**20),
)
def test_to_json_round_trips_any_value(
    clock: float, latency: float, bandwidth: float, size: int, width: int
):
    p = dataclasses.replace(
        load_profile(),
        clock_hz=clock,
        link_latency=latency,
        hbm_bandwidth=bandwidth,
        l2_bytes=size,
        vector_bytes_per_cycle=width,
    )
    assert parse_profile(json.dumps(p.to_json())) == p


# ---- diagnostics ---------------------------------------------------------------------

EVERY_TOP_KEY = "name, clock, cores, cube, vector, memory, buffers, overheads, link, sources"


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # a unit of the wrong kind
        ([(3, '  "clock": "1 GB",')],
         'p.json:3:12: error: clock: "1 GB" is a size; expected a frequency such as "0.98 GHz"'),
        ([(11, '    "hbm_bandwidth": "1.2 TB",')],
         'p.json:11:22: error: memory.hbm_bandwidth: "1.2 TB" is a size; expected a bandwidth '
         'such as "1.2 TB/s"'),
        # an unknown unit
        ([(3, '  "clock": "1 GHZ",')],
         'p.json:3:12: error: clock: unknown unit "GHZ" in "1 GHZ"; expected a frequency '
         "(Hz, kHz, MHz, GHz)"),
        ([(30, '  "link": {"bandwidth": "30 GB/s", "latency": "1 sec"},')],
         'p.json:30:47: error: link.latency: unknown unit "sec" in "1 sec"; expected a time '
         "(s, ms, us (µs), ns)"),
        # no unit, not a quantity
        ([(3, '  "clock": "1000",')],
         'p.json:3:12: error: clock: "1000" has no unit; expected a frequency such as '
         '"0.98 GHz"'),
        ([(3, '  "clock": "fast",')],
         'p.json:3:12: error: clock: expected a frequency such as "0.98 GHz", got "fast"'),
        # a missing key: at the enclosing object
        ([(4, '  "cores": {"cube": 2, "vector": 2},')],
         "p.json:4:12: error: cores.shared: missing key (expected true or false)"),
        ([(3, "")],
         'p.json:1:1: error: clock: missing key (expected a frequency such as "0.98 GHz")'),
        ([(7, '    "macs_per_cycle": {"i8": 8192}, '
              '"mte1_bytes_per_cycle": 48, "k_step_cycles": 32')],
         "p.json:7:23: error: cube.macs_per_cycle.f16: missing key (expected a positive "
         "integer, MACs per cycle per core)"),
        # an unknown key: at the key
        ([(4, '  "cores": {"cube": 2, "vector": 2, "shared": true, "gpu": 1},')],
         "p.json:4:53: error: cores.gpu: unknown key (expected one of cube, vector, shared)"),
        ([(2, '  "name": "t", "colour": "red",')],
         f"p.json:2:16: error: colour: unknown key (expected one of {EVERY_TOP_KEY})"),
        # a misspelt key: reported as unknown, not as the missing one
        ([(3, '  "clok": "1 GHz",')],
         f"p.json:3:3: error: clok: unknown key (expected one of {EVERY_TOP_KEY})"),
        # a wrong JSON type
        ([(4, '  "cores": {"cube": "2", "vector": 2, "shared": true},')],
         'p.json:4:21: error: cores.cube: expected a positive integer, got "2"'),
        ([(4, '  "cores": {"cube": 2, "vector": 2, "shared": "yes"},')],
         'p.json:4:47: error: cores.shared: expected true or false, got "yes"'),
        ([(4, '  "cores": {"cube": 2.5, "vector": 2, "shared": true},')],
         "p.json:4:21: error: cores.cube: expected a positive integer, got 2.5"),
        ([(4, '  "cores": [2, 2, true],')],
         "p.json:4:12: error: cores: expected an object with keys cube, vector, shared, "
         "got an array"),
        ([(3, '  "clock": 1000000000,')],
         'p.json:3:12: error: clock: expected a frequency such as "0.98 GHz", got 1000000000'),
        ([(31, '  "sources": {"clock": 1}')],
         "p.json:31:24: error: sources.clock: expected a string, got 1"),
        ([(2, '  "name": "",')],
         'p.json:2:11: error: name: expected a non-empty string, got ""'),
        # zero or negative counts, sizes, bandwidths, clocks; negative overheads
        ([(4, '  "cores": {"cube": 0, "vector": 2, "shared": false},')],
         "p.json:4:21: error: cores.cube: expected a positive integer, got 0"),
        ([(4, '  "cores": {"cube": 2, "vector": -2, "shared": false},')],
         "p.json:4:34: error: cores.vector: expected a positive integer, got -2"),
        ([(3, '  "clock": "0 GHz",')],
         'p.json:3:12: error: clock: expected a positive frequency such as "0.98 GHz", '
         'got "0 GHz"'),
        ([(21, '    "l1": "0 MiB",')],
         'p.json:21:11: error: buffers.l1: expected a positive size such as "64 KiB", '
         'got "0 MiB"'),
        ([(14, '    "l2_size": "32 MiB", "hbm_size": "0 GiB",')],
         'p.json:14:38: error: memory.hbm_size: expected a positive size such as "64 KiB", '
         'got "0 GiB"'),
        ([(14, '    "l2_size": "32 MiB", "hbm_size": "1.2 TB/s",')],
         'p.json:14:38: error: memory.hbm_size: "1.2 TB/s" is a bandwidth; expected a size '
         'such as "64 KiB"'),
        ([(14, '    "l2_size": "32 MiB",')],
         'p.json:10:13: error: memory.hbm_size: missing key (expected a size such as "64 KiB")'),
        ([(11, '    "hbm_bandwidth": "-1 TB/s",')],
         'p.json:11:22: error: memory.hbm_bandwidth: expected a positive bandwidth such as '
         '"1.2 TB/s", got "-1 TB/s"'),
        ([(25, '    "launch": "-1 us",')],
         'p.json:25:15: error: overheads.launch: expected a non-negative time such as '
         '"1.5 us", got "-1 us"'),
        # powers of two, whole bytes, element type names, shared cores
        ([(6, '    "fractal": 12,')],
         "p.json:6:16: error: cube.fractal: expected a power of two, got 12"),
        ([(15, '    "alignment": "500 B", "latency": "1 us"')],
         'p.json:15:18: error: memory.alignment: expected a power of two bytes, got "500 B"'),
        ([(9, '  "vector": {"width": "2044 bit", "chunk_cycles": 200},')],
         "p.json:9:23: error: vector.width: expected a whole number of bytes (a multiple of "
         '8 bits), got "2044 bit"'),
        ([(7, '    "macs_per_cycle": {"f16": 4096, "fp8": 1}, '
              '"mte1_bytes_per_cycle": 48, "k_step_cycles": 32')],
         'p.json:7:37: error: cube.macs_per_cycle.fp8: unknown element type "fp8"; expected '
         "an element type name as in MLIR (f16, i8, f32, ...)"),
        ([(4, '  "cores": {"cube": 2, "vector": 4, "shared": true},')],
         "p.json:4:34: error: cores.vector: expected 2, as cores.cube (shared cores), got 4"),
        # a duplicate key: at its second occurrence
        ([(2, '  "name": "t", "name": "u",')],
         "p.json:2:16: error: name: duplicate key (a key appears once per object)"),
        # several problems: the first in the text
        ([(25, '    "launch": "-1 us",'), (3, '  "clock": "0 GHz",')],
         'p.json:3:12: error: clock: expected a positive frequency such as "0.98 GHz", '
         'got "0 GHz"'),
        ([(21, '    "l1": "1 MB/s",'), (9, '  "vector": {"width": 256, "chunk_cycles": 200},')],
         'p.json:9:23: error: vector.width: expected a size such as "64 KiB", got 256'),
    ],
)  # fmt: skip
def test_errors(changes: list[tuple[int, str]], expected: str):
    assert error_of(text_with(*changes)) == expected


def test_overheads_may_be_zero():
    p = parse_profile(text_with((25, '    "launch": "0 us",')))
    assert p.launch_overhead == 0.0


def test_a_count_may_be_written_as_an_integral_float():
    p = parse_profile(text_with((4, '  "cores": {"cube": 2.0, "vector": 2, "shared": true},')))
    assert p.cube_cores == 2 and isinstance(p.cube_cores, int)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "p.json:1:1: error: invalid JSON: Expecting value"),
        (
            "[]",
            f"p.json:1:1: error: top level: expected an object with keys {EVERY_TOP_KEY}, "
            "got an array",
        ),
        (
            '{\n  "name": "t",\n}',
            "p.json:3:1: error: invalid JSON: Expecting property name enclosed in double quotes",
        ),
        (
            text_with((3, '  "clock": "1 GHz"')),
            "p.json:4:3: error: invalid JSON: Expecting ',' delimiter",
        ),
        ("[" * 100_000, "p.json:1:1: error: invalid JSON: nesting too deep"),
    ],
)
def test_invalid_json(text: str, expected: str):
    assert error_of(text) == expected


def test_errors_from_a_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(text_with((3, '  "clock": "1 GB",')), encoding="utf-8")
    with pytest.raises(GeError) as info:
        load_profile(str(path))
    assert str(info.value) == (
        f'{path}:3:12: error: clock: "1 GB" is a size; expected a frequency such as "0.98 GHz"'
    )


def test_unreadable_file(tmp_path):
    missing = tmp_path / "p.json"
    with pytest.raises(GeError) as info:
        load_profile(str(missing))
    assert str(info.value) == f"{missing}: error: cannot read profile: No such file or directory"
    with pytest.raises(GeError) as info:
        load_profile(str(tmp_path))
    assert str(info.value) == f"{tmp_path}: error: cannot read profile: Is a directory"
    binary = tmp_path / "b.json"
    binary.write_bytes(b'{\n  "name": "\xff"}')
    with pytest.raises(GeError) as info:
        load_profile(str(binary))
    # located as invalid UTF-8 in IR is (one text reader: `utils.textfile`)
    assert str(info.value) == f"{binary}:2:12: error: invalid UTF-8 (byte 0xff)"
    with pytest.raises(GeError) as info:
        load_profile("p\0.json")
    assert str(info.value) == "p\0.json: error: cannot read profile: embedded null byte"


def test_a_file_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(b"\xef\xbb\xbf" + TEMPLATE.encode())
    assert load_profile(path).clock_hz == 1e9


def test_columns_count_characters():
    # "µ" is one character (two bytes): the column after it counts it once
    text = text_with((30, '  "link": {"bandwidth": "30 GB/s", "latency": "1 µs", "x": 1},'))
    assert error_of(text) == (
        "p.json:30:55: error: link.x: unknown key (expected one of bandwidth, latency)"
    )


def test_every_diagnostic_is_one_line():
    pattern = re.compile(r"p\.json(:\d+:\d+)?: error: .+")
    for text in ("{", "[]", "{}", text_with((3, '  "clock": "1\\nGHz x",'))):
        assert pattern.fullmatch(error_of(text))
