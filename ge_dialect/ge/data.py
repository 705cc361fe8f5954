"""Where a constant's bytes come from: inline, external (memory-mapped) or elided.

A `ge.const` holds its physical array in one of three ways:

- inline, `dense<"0x...">`;
- external, `#ge.external<"model.weights", offset = O, length = L>`: raw little-endian bytes
  in a file whose path is relative to the IR file's directory, mapped lazily with
  `np.memmap` (nothing is read until the numbers are needed);
- elided, `#ge.elided`: printed for reading only; reading it is an error.

Relative paths are resolved against the directory of the IR file the module was read from,
which the reader records with `set_data_dir(module, dir)` (the current directory when none
was recorded).  `ge_dialect.weights` moves data between these forms before printing.
"""

from __future__ import annotations

import os
import weakref

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Operation

from ge_dialect.diagnostics import op_error
from ge_dialect.ge.attributes import ElidedAttr, ExternalDataAttr
from ge_dialect.ge.types import dense_to_numpy, physical_shape
from ge_dialect.utils.dtypes import np_dtype

_DATA_DIRS: weakref.WeakKeyDictionary[Operation, str] = weakref.WeakKeyDictionary()


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
    """An external data path of `op` as a path the process can open."""
    return path if os.path.isabs(path) else os.path.join(data_dir(op), path)


def read_physical(value: Attribute, t: TensorType, op: Operation) -> np.ndarray:
    """The physical array of constant data `value` of type `t` held by `op` (read-only).

    External data is memory-mapped; elided data, a missing file or a short file is a
    located error at `op`.
    """
    if isinstance(value, DenseIntOrFPElementsAttr):
        return dense_to_numpy(value)
    if isinstance(value, ElidedAttr):
        raise op_error(
            op, "constant data was elided when this IR was printed; it cannot be computed with"
        )
    assert isinstance(value, ExternalDataAttr)
    path = resolve(value.path.data, op)
    shape = physical_shape(t)
    dtype = np_dtype(t.element_type)
    offset, length = value.offset.data, value.length.data
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise op_error(op, f"cannot open external data '{path}': {e.strerror}") from None
    if offset + length > size:
        raise op_error(
            op,
            f"external data '{path}' has {size} bytes, the constant needs bytes "
            f"[{offset}, {offset + length})",
        )
    if length == 0:
        return np.zeros(shape, dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)
