"""Constant data: inline, external (beside the IR, memory-mapped) or elided.

A `ge.const` holds its physical array in one of three ways (see `ge.ConstOp`):

- inline, `dense<"0x...">`;
- external, `#ge.external<"model.weights", offset = O, length = L>`: raw little-endian bytes
  in a file whose path is relative to the IR file's directory.  `const_array` maps it
  lazily with `np.memmap` (nothing is read until the numbers are needed);
- elided, `#ge.elided`: printed for reading only; `const_array` refuses it.

Relative paths are resolved against the directory of the IR file the module was read from,
which the reader records with `set_data_dir(module, dir)` (the current directory when
none was recorded).  `externalize` and `elide` rewrite a module's constants before printing.
"""

from __future__ import annotations

import math
import os
import weakref
from collections.abc import Iterator

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Operation

from ge_dialect import ge
from ge_dialect.diagnostics import op_error

_DATA_DIRS: weakref.WeakKeyDictionary[Operation, str] = weakref.WeakKeyDictionary()

ALIGNMENT = 64
"""Byte alignment of each constant in an external data file."""


def _toplevel(op: Operation) -> Operation:
    while (parent := op.parent_op()) is not None:
        op = parent
    return op


def set_data_dir(module: Operation, directory: str) -> None:
    """Records that `module` was read from a file in `directory`."""
    _DATA_DIRS[module] = directory or "."


def data_dir(op: Operation) -> str:
    """The directory relative external-data paths of `op`'s module are resolved against."""
    return _DATA_DIRS.get(_toplevel(op), ".")


def resolve(path: str, op: Operation) -> str:
    return path if os.path.isabs(path) else os.path.join(data_dir(op), path)


def const_array(op: ge.ConstOp) -> np.ndarray:
    """The physical array of a constant (read-only; memory-mapped for external data)."""
    value = op.value
    t = op.output.type
    assert isinstance(t, TensorType)
    if isinstance(value, DenseIntOrFPElementsAttr):
        return ge.dense_to_numpy(value)
    if isinstance(value, ge.ElidedAttr):
        raise op_error(op, "constant data was elided when this IR was printed; it cannot be computed with")
    assert isinstance(value, ge.ExternalDataAttr)
    path = resolve(value.path.data, op)
    shape = ge.physical_shape(t)
    dtype = ge.np_dtype(t.element_type)
    offset, length = value.offset.data, value.length.data
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise op_error(op, f"cannot open external data '{path}': {e.strerror}") from None
    if offset + length > size:
        raise op_error(
            op, f"external data '{path}' has {size} bytes, the constant needs bytes "
            f"[{offset}, {offset + length})"
        )
    if length == 0:
        return np.zeros(shape, dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)


def const_logical(op: ge.ConstOp) -> np.ndarray:
    """The logical (NCHW/OIHW/ND) array of a constant."""
    t = op.output.type
    assert isinstance(t, TensorType)
    return ge.to_logical(t, const_array(op))


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
    "const_array",
    "const_logical",
    "data_dir",
    "set_data_dir",
    "externalize",
    "elide",
    "rebase_external_paths",
    "has_elided",
    "ExternalWriter",
]
