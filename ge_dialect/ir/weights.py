"""Moving constant data before printing: externalize, elide, rebase external paths.

A `ge.const` or an `npu.weight` holds its physical array inline, in an external file
beside the IR, or not at all (elided); `ge_dialect.ir.dialects.ge.data` and `npu.WeightOp` read it.
These functions rewrite a module's constants (both kinds, each keeping its dialect's
attributes: `#ge.external` / `#npu.external`, `#ge.elided` / `#npu.elided`) from one form
to another:

- `externalize` moves large inline constants to an external data file (`ExternalWriter`:
  64-byte aligned raw little-endian arrays; the file replaces its old version, by a
  rename, only when the whole output succeeded, and the constants that read the old
  version are copied into the new one first);
- `elide` replaces large constants by `#ge.elided` (for reading only);
- `rebase_external_paths` keeps relative paths valid when the IR is written elsewhere.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType, ModuleOp, TensorType
from xdsl.ir import Operation

from ge_dialect.ir.dialects import ge, npu
from ge_dialect.ir.encodings import Elided, ExternalData, resolve
from ge_dialect.utils.files import ReplacingFile

Constant = ge.ConstOp | npu.WeightOp
"""An op holding constant data: a `ge.const` or an `npu.weight`."""

ALIGNMENT = 64
"""Byte alignment of each constant in an external data file."""


def _consts(module: Operation) -> Iterator[Constant]:
    for op in module.walk():
        if isinstance(op, Constant):
            yield op


def _num_elements(op: Constant) -> int:
    t = op.results[0].type
    assert isinstance(t, TensorType | MemRefType)
    return math.prod(t.get_shape())


def _external(op: Constant, path: str, offset: int, length: int) -> ExternalData:
    """External data attribute of `op`'s dialect."""
    if isinstance(op, npu.WeightOp):
        return npu.ExternalDataAttr(path, offset, length)
    return ge.ExternalDataAttr(path, offset, length)


def _elided(op: Constant) -> Elided:
    """The elided-data attribute of `op`'s dialect."""
    return npu.ElidedAttr() if isinstance(op, npu.WeightOp) else ge.ElidedAttr()


class ExternalWriter:
    """Writes constants to a new version of one external data file (`ReplacingFile`);
    offsets are 64-byte aligned.

    `path` keeps its old contents until `close(commit=True)`, so constants that read it
    keep reading the old data until then; `externalize` copies those of the module it
    writes into the new version.  `out_dir` is the directory of the IR that will refer to
    the file, so that the path written in the IR is relative to it.
    """

    def __init__(self, path: str, out_dir: str):
        self.path = path
        self.ref = os.path.relpath(os.path.abspath(path), os.path.abspath(out_dir or "."))
        self._file = ReplacingFile(path)
        self._offset = 0
        self._copies: dict[tuple[int, int], tuple[int, int]] = {}

    def _write(self, array: np.ndarray) -> tuple[int, int]:
        """Writes `array` at the next aligned offset: (offset, length)."""
        pad = -self._offset % ALIGNMENT
        if pad:
            self._file.file.write(b"\0" * pad)
            self._offset += pad
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False)
        raw = data.tobytes()
        where = (self._offset, len(raw))
        self._file.file.write(raw)
        self._offset += len(raw)
        return where

    def add(self, array: np.ndarray) -> ge.ExternalDataAttr:
        return ge.ExternalDataAttr(self.ref, *self._write(array))

    def add_for(self, op: Constant, array: np.ndarray) -> ExternalData:
        """`add`, as the external data attribute of `op`'s dialect."""
        return _external(op, self.ref, *self._write(array))

    def reads(self, op: Constant) -> bool:
        """Whether `op`'s data is in this writer's file (in the version it replaces)."""
        value = op.value
        return isinstance(value, ExternalData) and (
            os.path.realpath(resolve(value.path.data, op)) == self._file.path
        )

    def reader(self, module: Operation) -> Constant | None:
        """The first constant of `module` whose data is in this writer's file, if any."""
        return next((op for op in _consts(module) if self.reads(op)), None)

    def copy(self, op: Constant) -> ExternalData:
        """`op`'s data, which is in this writer's file, copied to the new version (once)."""
        value = op.value
        assert isinstance(value, ExternalData)
        key = (value.offset.data, value.length.data)
        if key not in self._copies:
            self._copies[key] = self._write(op.physical_array())  # read before the rename
        return _external(op, self.ref, *self._copies[key])

    def close(self, commit: bool = True) -> None:
        """Closes the file; it replaces `path` only when `commit` (nothing is lost on error)."""
        self._file.close(commit)


def externalize(module: ModuleOp, writer: ExternalWriter, larger_than: int) -> int:
    """Moves inline constants of more than `larger_than` elements to `writer`'s file.

    Returns how many constants moved.  Constants that are already external keep their
    file, except those in `writer`'s own file, which its new version replaces: their data
    is copied into it (whatever their size), so that they stay valid.
    """
    moved = 0
    for op in _consts(module):
        if isinstance(op.value, DenseIntOrFPElementsAttr) and _num_elements(op) > larger_than:
            op.properties["value"] = writer.add_for(op, ge.dense_to_numpy(op.value))
            moved += 1
        elif writer.reads(op):
            op.properties["value"] = writer.copy(op)
    return moved


def rebase_external_paths(module: ModuleOp, out_dir: str) -> None:
    """Rewrites relative external paths so that they are relative to `out_dir`, which
    becomes the directory they are resolved against (`ge.set_data_dir`, `npu.set_data_dir`)."""
    for op in _consts(module):
        value = op.value
        if isinstance(value, ExternalData) and not os.path.isabs(value.path.data):
            new = os.path.relpath(
                os.path.abspath(resolve(value.path.data, op)), os.path.abspath(out_dir or ".")
            )
            if new != value.path.data:
                op.properties["value"] = _external(op, new, value.offset.data, value.length.data)
    ge.set_data_dir(module, out_dir)
    npu.set_data_dir(module, out_dir)


def elide(module: ModuleOp, larger_than: int) -> None:
    """Replaces the data of constants with more than `larger_than` elements by `#ge.elided`
    (`#npu.elided` for an `npu.weight`)."""
    for op in _consts(module):
        if not isinstance(op.value, Elided) and _num_elements(op) > larger_than:
            op.properties["value"] = _elided(op)


def has_elided(module: Operation) -> Constant | None:
    """The first elided constant (`ge.const` or `npu.weight`) of `module`, if any."""
    return next((op for op in _consts(module) if isinstance(op.value, Elided)), None)


__all__ = [
    "externalize",
    "elide",
    "rebase_external_paths",
    "has_elided",
    "ExternalWriter",
    "ReplacingFile",
]
