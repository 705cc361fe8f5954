"""Moving constant data before printing: externalize, elide, rebase external paths.

A `ge.const` holds its physical array inline, in an external file beside the IR, or not at
all (elided); `ge_dialect.ge.data` reads it.  These functions rewrite a module's constants
from one form to another:

- `externalize` moves large inline constants to an external data file (`ExternalWriter`:
  64-byte aligned raw little-endian arrays; the file replaces its old version only when
  the whole output succeeded);
- `elide` replaces large constants by `#ge.elided` (for reading only);
- `rebase_external_paths` keeps relative paths valid when the IR is written elsewhere.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Operation

from ge_dialect import ge
from ge_dialect.ge.data import resolve

ALIGNMENT = 64
"""Byte alignment of each constant in an external data file."""


def _consts(module: Operation) -> Iterator[ge.ConstOp]:
    for op in module.walk():
        if isinstance(op, ge.ConstOp):
            yield op


def _num_elements(op: ge.ConstOp) -> int:
    t = op.output.type
    assert isinstance(t, TensorType)
    return math.prod(t.get_shape())


class ExternalWriter:
    """Appends constants to one external data file; offsets are 64-byte aligned.

    `out_dir` is the directory of the IR that will refer to the file, so that the path
    written in the IR is relative to it.
    """

    def __init__(self, path: str, out_dir: str):
        self.path = path
        self.ref = os.path.relpath(os.path.abspath(path), os.path.abspath(out_dir or "."))
        self._file = open(path + ".part", "wb")
        self._offset = 0

    def add(self, array: np.ndarray) -> ge.ExternalDataAttr:
        pad = -self._offset % ALIGNMENT
        if pad:
            self._file.write(b"\0" * pad)
            self._offset += pad
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False)
        raw = data.tobytes()
        attr = ge.ExternalDataAttr(self.ref, self._offset, len(raw))
        self._file.write(raw)
        self._offset += len(raw)
        return attr

    def close(self, commit: bool = True) -> None:
        """Closes the file; it replaces `path` only when `commit` (nothing is lost on error)."""
        self._file.close()
        if commit:
            os.replace(self.path + ".part", self.path)
        else:
            os.remove(self.path + ".part")


def externalize(module: ModuleOp, writer: ExternalWriter, larger_than: int) -> int:
    """Moves inline constants of more than `larger_than` elements to `writer`'s file.

    Returns how many constants moved.  Constants that are already external keep their file.
    """
    moved = 0
    for op in _consts(module):
        if isinstance(op.value, DenseIntOrFPElementsAttr) and _num_elements(op) > larger_than:
            op.properties["value"] = writer.add(ge.dense_to_numpy(op.value))
            moved += 1
    return moved


def rebase_external_paths(module: ModuleOp, out_dir: str) -> None:
    """Rewrites relative external paths so that they are relative to `out_dir`."""
    for op in _consts(module):
        value = op.value
        if isinstance(value, ge.ExternalDataAttr) and not os.path.isabs(value.path.data):
            new = os.path.relpath(
                os.path.abspath(resolve(value.path.data, op)), os.path.abspath(out_dir or ".")
            )
            if new != value.path.data:
                op.properties["value"] = ge.ExternalDataAttr(
                    new, value.offset.data, value.length.data
                )


def elide(module: ModuleOp, larger_than: int) -> None:
    """Replaces the data of constants with more than `larger_than` elements by `#ge.elided`."""
    for op in _consts(module):
        if not isinstance(op.value, ge.ElidedAttr) and _num_elements(op) > larger_than:
            op.properties["value"] = ge.ElidedAttr()


def has_elided(module: Operation) -> ge.ConstOp | None:
    """The first elided constant of `module`, if any."""
    return next((op for op in _consts(module) if isinstance(op.value, ge.ElidedAttr)), None)


__all__ = [
    "externalize",
    "elide",
    "rebase_external_paths",
    "has_elided",
    "ExternalWriter",
]
