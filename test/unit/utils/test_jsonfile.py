"""The one JSON reader of the profile and the topology (`utils.jsonfile`) and the one text
reader of every input file (`utils.textfile`): located errors, generic schema messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ge_dialect.utils.errors import GeError
from ge_dialect.utils.jsonfile import (
    DURATION,
    RATE,
    JsonSource,
    Kind,
    check_schema,
    load_json,
)
from ge_dialect.utils.textfile import read_text

KINDS = {"latency": DURATION, "bandwidth": RATE}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "links": {
            "type": "object",
            "propertyNames": {
                "title": "link type",
                "type": "string",
                "enum": ["HCCS", "PCIe"],
                "description": "one of HCCS, PCIe",
            },
            "additionalProperties": {
                "type": "object",
                "properties": {"latency": DURATION.schema(), "bandwidth": RATE.schema()},
                "required": ["latency"],
                "additionalProperties": False,
                "description": "an object with keys latency, bandwidth",
            },
            "description": "an object of link type -> figures",
        },
        "kind": {"type": "string", "enum": ["a", "b"], "description": "one of a, b"},
        "items": {"type": "array", "minItems": 1, "description": "a non-empty array"},
    },
    "additionalProperties": False,
    "description": "an object with keys links, kind, items",
}


def kind_at(path: tuple[str | int, ...]) -> Kind | None:
    return KINDS.get(str(path[-1])) if path else None


def first_error(text: str) -> str:
    data, source = load_json(text, "t.json")
    with pytest.raises(GeError) as info:
        check_schema(data, source, SCHEMA, kind_at)
    return str(info.value)


def test_an_unknown_property_name_is_located_at_the_key_and_named_by_its_title():
    text = '{\n  "links": {\n    "NVLink": {"latency": "1 us"}\n  }\n}'
    assert first_error(text) == (
        "t.json:3:5: error: links.NVLink: unknown link type (expected one of HCCS, PCIe)"
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"kind": "c"}', 't.json:1:10: error: kind: expected one of a, b, got "c"'),
        ('{"items": []}', "t.json:1:11: error: items: expected a non-empty array"),
        (
            '{"nope": 1}',
            "t.json:1:2: error: nope: unknown key (expected one of links, kind, items)",
        ),
        # a quantity that does not match its pattern says why (its kind's own reason)
        (
            '{"links": {"HCCS": {"latency": "1 GB"}}}',
            't.json:1:32: error: links.HCCS.latency: "1 GB" is a size; expected a time such '
            'as "1.5 us"',
        ),
        (
            '{"links": {"HCCS": {"bandwidth": "1 GB/s"}}}',
            # at the object that lacks it
            "t.json:1:20: error: links.HCCS.latency: missing key (expected a time such as "
            '"1.5 us")',
        ),
        ('{"kind": 3}', "t.json:1:10: error: kind: expected one of a, b, got 3"),
    ],
)
def test_schema_violations_are_one_located_line(text, expected):
    assert first_error(text) == expected


def test_the_first_violation_in_the_text_is_reported():
    text = '{"items": [], "kind": "z"}'
    assert first_error(text).startswith("t.json:1:11: error: items:")
    text = '{"kind": "z", "items": []}'
    assert first_error(text).startswith("t.json:1:10: error: kind:")


def test_convert_locates_what_a_schema_cannot_reject():
    data, source = load_json('{\n "t": "-2 ms"}', "t.json")
    with pytest.raises(GeError) as info:
        source.convert(DURATION, data["t"], ("t",))
    assert str(info.value).startswith("t.json:2:7: error: t: expected a non-negative time")
    assert source.convert(RATE, "2 GB/s", ("t",)) == 2e9


def test_a_duplicate_key_is_located_at_its_second_occurrence():
    with pytest.raises(GeError) as info:
        load_json('{"a": {"b": 1,\n  "b": 2}}', "t.json")
    assert str(info.value) == (
        "t.json:2:3: error: a.b: duplicate key (a key appears once per object)"
    )


def test_a_source_without_a_map_locates_at_the_start():
    source = JsonSource("[", "t.json")
    assert source.position(("a",)) == (1, 1, 0)


def test_read_text_drops_a_byte_order_mark_only_when_asked(tmp_path: Path):
    path = tmp_path / "t.json"
    path.write_bytes(b"\xef\xbb\xbf{}")
    assert read_text(str(path), "profile", byte_order_mark=True) == "{}"
    assert read_text(str(path)) == "\ufeff{}"


def test_read_text_locates_bytes_that_are_not_utf8(tmp_path: Path):
    path = tmp_path / "t.mlir"
    path.write_bytes(b"ok\nab\xffc")
    with pytest.raises(GeError) as info:
        read_text(str(path))
    assert str(info.value) == f"{path}:2:3: error: invalid UTF-8 (byte 0xff)"
    with pytest.raises(GeError) as info:
        read_text(str(tmp_path / "none.json"), "topology")
    assert str(info.value) == (
        f"{tmp_path / 'none.json'}: error: cannot read topology: No such file or directory"
    )
