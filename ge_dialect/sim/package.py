"""The per-rank package of a multi-rank run: what each rank needs, in one directory.

    out/manifest.json          the format version, the rank count, the topology and the
                               device profile (copied beside it), per rank its files and
                               its communication groups
    out/topology.json          the topology the run used
    out/profile.json           the device profile it used
    out/rank<r>/program.mlir   rank r's npu program (with its source locations)
    out/rank<r>/groups.json    its communication groups: name, members, its group rank
    out/rank<r>/memory.json    its memory plan: the workspace, the communication region,
                               each activation buffer's offset and size
    out/rank<r>/trace.json     its timeline (the Chrome trace of that rank)

`package_files` makes the files of a run (the programs' text comes from the caller, which
prints IR); `write_package` writes them as a new directory renamed into place (a failed
run leaves no package, and an older package stays whole until the rename);
`read_manifest` reads a package's manifest, checked against `SCHEMA` (located errors), and
names its files.  ge-run writes one with `--package DIR` and runs one given the directory.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ge_dialect.sim.program import ALLOC, Program
from ge_dialect.sim.timeline import Timeline
from ge_dialect.sim.trace import chrome_trace
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.jsonfile import JsonSource, check_schema, load_json
from ge_dialect.utils.textfile import read_text

FORMAT = "ge-run package"
VERSION = 1
MANIFEST = "manifest.json"
RANK_FILES = ("program", "groups", "memory", "trace")
"""The files of each rank, by manifest key: `rank<r>/<key>.mlir` or `.json`."""

_PATH = {
    "type": "string",
    "pattern": r"^(?!/)(?!.*(^|/)\.\.(/|$))[^\\]+$",
    "description": "a relative path inside the package (no '..')",
}
_FILE = {
    "type": "object",
    "required": ["name", "file"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "description": "its name"},
        "file": _PATH,
    },
    "description": "an object {name, file}",
}
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["format", "version", "ranks", "topology", "profile", "per_rank"],
    "additionalProperties": False,
    "properties": {
        "format": {"enum": [FORMAT], "description": json.dumps(FORMAT)},
        "version": {"enum": [VERSION], "description": f"{VERSION} (the format's version)"},
        "ranks": {"type": "integer", "minimum": 1, "description": "a rank count (>= 1)"},
        "topology": _FILE,
        "profile": _FILE,
        "per_rank": {
            "type": "array",
            "minItems": 1,
            "description": "an array of ranks (at least one)",
            "items": {
                "type": "object",
                "required": ["rank", "files", "groups"],
                "additionalProperties": False,
                "description": "an object {rank, files, groups}",
                "properties": {
                    "rank": {"type": "integer", "minimum": 0, "description": "a rank (>= 0)"},
                    "files": {
                        "type": "object",
                        "required": list(RANK_FILES),
                        "additionalProperties": False,
                        "description": "an object {" + ", ".join(RANK_FILES) + "}",
                        "properties": {key: _PATH for key in RANK_FILES},
                    },
                    "groups": {
                        "type": "array",
                        "items": {"type": "string", "description": "a group name"},
                        "description": "an array of group names",
                    },
                },
            },
        },
    },
    "description": "a package manifest object",
}


@dataclass(frozen=True)
class Manifest:
    """A package's manifest, read and checked: absolute paths of its files."""

    directory: str
    ranks: int
    topology: str
    profile: str
    programs: list[str]  # by rank


def groups_of(programs: Sequence[Program]) -> dict[str, list[int]]:
    """Each communication group (sorted by name) and its members: the ranks whose programs
    hold a collective of it, in rank order (as `sim.timing.match_collectives` counts them)."""
    members: dict[str, list[int]] = {}
    for rank, program in enumerate(programs):
        for task in program.tasks:
            if task.kernel.startswith("hcom_"):
                ranks = members.setdefault(str(task.attrs.get("group", "")), [])
                if rank not in ranks:
                    ranks.append(rank)
    return {name: members[name] for name in sorted(members)}


def _groups_json(rank: int, program: Program, members: dict[str, list[int]]) -> dict[str, Any]:
    groups = []
    for name, ranks in members.items():
        if rank in ranks:
            count = sum(
                1
                for t in program.tasks
                if t.kernel.startswith("hcom_") and str(t.attrs.get("group", "")) == name
            )
            groups.append(
                {
                    "name": name,
                    "members": ranks,
                    "group_rank": ranks.index(rank),
                    "collectives": count,
                }
            )
    return {"rank": rank, "groups": groups}


def _memory_json(rank: int, program: Program) -> dict[str, Any]:
    """The rank's memory plan: `plan-memory`'s figures and every activation buffer (an
    allocation, or a view of one) with its byte offset and size."""
    comm = {
        i for t in program.tasks if t.kernel.startswith("hcom_") for i in (*t.inputs, *t.outputs)
    }
    buffers = []
    for b in program.buffers:
        if program.buffers[b.root].kind != ALLOC or b.root == b.index and program.memory:
            continue  # not an activation, or the planned workspace itself
        buffers.append(
            {
                "buffer": b.label or f"{b.kind} {b.index}",
                "offset": b.offset,
                "bytes": b.nbytes,
                "collective": b.index in comm,
                "location": b.location,
            }
        )
    return {
        "rank": rank,
        "planned": bool(program.memory),
        "memory": dict(program.memory),
        "buffers": buffers,
    }


def _json(data: Any) -> bytes:
    return (json.dumps(data, indent=2) + "\n").encode()


def package_files(
    programs: Sequence[Program],
    texts: Sequence[str],
    timelines: Sequence[Timeline],
    topology: tuple[str, str],
    profile: tuple[str, str],
) -> dict[str, bytes]:
    """The package's files (relative path -> bytes) of the ranks' `programs`, their IR
    `texts` and `timelines`; `topology` and `profile` are (name, JSON text)."""
    members = groups_of(programs)
    files: dict[str, bytes] = {
        "topology.json": topology[1].encode(),
        "profile.json": profile[1].encode(),
    }
    per_rank = []
    for rank, (program, text, timeline) in enumerate(zip(programs, texts, timelines, strict=True)):
        paths = {
            key: f"rank{rank}/{key}.{'mlir' if key == 'program' else 'json'}" for key in RANK_FILES
        }
        groups = _groups_json(rank, program, members)
        files[paths["program"]] = text.encode()
        files[paths["groups"]] = _json(groups)
        files[paths["memory"]] = _json(_memory_json(rank, program))
        files[paths["trace"]] = (
            json.dumps(chrome_trace([timeline]), separators=(",", ":")) + "\n"
        ).encode()
        per_rank.append(
            {"rank": rank, "files": paths, "groups": [g["name"] for g in groups["groups"]]}
        )
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "ranks": len(programs),
        "topology": {"name": topology[0], "file": "topology.json"},
        "profile": {"name": profile[0], "file": "profile.json"},
        "per_rank": per_rank,
    }
    files[MANIFEST] = _json(manifest)
    return files


def write_package(directory: str, files: Mapping[str, bytes]) -> None:
    """Writes `files` as the directory `directory`: into a new directory beside it, then
    renamed into place (an existing package is replaced; any other existing path is
    refused).  An `OSError` is one `GeError` naming the directory."""
    path = os.path.normpath(directory)
    if os.path.lexists(path) and not (
        os.path.isdir(path)
        and (not os.listdir(path) or os.path.isfile(os.path.join(path, MANIFEST)))
    ):
        raise GeError(
            f"{directory}: error: cannot write package: it exists and is not a package "
            f"(no {MANIFEST}); remove it or choose another directory"
        )
    parent = os.path.dirname(os.path.abspath(path))
    new = old = None
    try:
        new = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.", dir=parent)
        for name, data in sorted(files.items()):
            target = os.path.join(new, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
        if os.path.lexists(path):
            old = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.old.", dir=parent)
            os.replace(path, os.path.join(old, "package"))
        os.replace(new, path)
        new = None
    except OSError as e:
        raise GeError(f"{directory}: error: cannot write package: {e.strerror or e}") from None
    finally:
        for leftover in (new, old):
            if leftover is not None:
                shutil.rmtree(leftover, ignore_errors=True)


def read_manifest(directory: str) -> Manifest:
    """The manifest of the package `directory`, checked: the schema, the rank count and
    order, and every file it names present; each a located `GeError`."""
    name = os.path.join(directory, MANIFEST)
    data, source = load_json(read_text(name, "package manifest", byte_order_mark=True), name)
    check_schema(data, source, SCHEMA, lambda _: None)
    per_rank = data["per_rank"]
    if len(per_rank) != data["ranks"]:
        raise source.error(
            ("per_rank",), f"{len(per_rank)} ranks listed, but 'ranks' is {data['ranks']}"
        )
    for i, entry in enumerate(per_rank):
        if entry["rank"] != i:
            raise source.error(("per_rank", i, "rank"), f"expected rank {i}, got {entry['rank']}")
    _present(directory, source, ("topology", "file"), data["topology"]["file"])
    _present(directory, source, ("profile", "file"), data["profile"]["file"])
    for i, entry in enumerate(per_rank):
        for key in RANK_FILES:
            _present(directory, source, ("per_rank", i, "files", key), entry["files"][key])
    return Manifest(
        directory,
        data["ranks"],
        os.path.join(directory, data["topology"]["file"]),
        os.path.join(directory, data["profile"]["file"]),
        [os.path.join(directory, entry["files"]["program"]) for entry in per_rank],
    )


def _present(directory: str, source: JsonSource, path: tuple[str | int, ...], file: str) -> None:
    if not os.path.isfile(os.path.join(directory, file)):
        raise source.error(path, f"no file '{file}' in the package")
