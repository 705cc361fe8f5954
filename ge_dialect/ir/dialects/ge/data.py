"""Where a constant's bytes come from: inline, external (memory-mapped) or elided.

A `ge.const` holds its physical array in one of three ways:

- inline, `dense<"0x...">`;
- external, `#ge.external<"model.weights", offset = O, length = L>`: raw little-endian bytes
  in a file whose path is relative to the IR file's directory, mapped lazily with
  `np.memmap` (nothing is read until the numbers are needed);
- elided, `#ge.elided`: printed for reading only; reading it is an error.

Relative paths are resolved against the directory of the IR file the module was read from,
which the reader records with `set_data_dir(module, dir)` (the current directory when none
was recorded).  The record and the reading are `ge_dialect.ir.encodings`', shared with
`npu.weight`, so a module lowered to the device reads its weights from the same place.
`ge_dialect.ir.weights` moves data between these forms before printing.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Operation

from ge_dialect.ir import encodings
from ge_dialect.ir.encodings import data_dir, resolve, set_data_dir


def read_physical(value: Attribute, t: TensorType, op: Operation) -> np.ndarray:
    """The physical array of constant data `value` of type `t` held by `op` (read-only).

    External data is memory-mapped; elided data, a missing file or a short file is a
    located error at `op`.
    """
    if isinstance(value, DenseIntOrFPElementsAttr):  # (verified: its shape is the physical one)
        return encodings.dense_to_numpy(value)
    return encodings.read_physical(value, encodings.physical_shape(t), t.element_type, op)


__all__ = ["data_dir", "read_physical", "resolve", "set_data_dir"]
