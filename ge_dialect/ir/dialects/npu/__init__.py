"""The `npu` dialect: GE's task list, what the simulated device runs.

A device program is a `func.func` with the unit attribute `npu.program` and no results.
Its arguments are buffers (builtin memrefs of *physical* shape, identity layout): the
graph's inputs, then its outputs (written in place), named by `npu.input` / `npu.output`
argument attributes.  Its body is a flat list, in issue order, of buffers and tasks:

    func.func @main(%x: memref<1x3x8x8xf32> {npu.input = "x"},
                    %y: memref<1x1x8x8x16xf32> {npu.output = "y"}) attributes {npu.program} {
      %w = npu.weight dense<"0x..."> : memref<1x1x3x3x16xf32>
      %b = npu.alloc : memref<1x1x8x8x16xf32>
      %v = npu.view %b[0] : memref<1x1x8x8x16xf32> -> memref<64x16xf32>
      npu.launch "trans_data"(%x) -> (%b) stream 0 priority 0
          : (tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>)
          cost <vector, flops = 0, bytes_in = 768, bytes_out = 4096, blocks = 1> attrs {}
      npu.record 0 stream 0
      npu.wait 0 stream 1
      npu.copy %b -> %y stream 1 : memref<1x1x8x8x16xf32>
      func.return
    }

Each task names its stream, and each stream runs its tasks in order; events are integer
ids 0..n-1 (not SSA values, so a broken program can be written and the simulator catches
it).  A launch names its kernel, the logical type of each operand (its storage format as
`#npu.format`), its cost and the kernel's attributes, so the simulator never needs `ge`.
This package never imports `ge`: the format encoding and constant data attributes share
their implementation with `ge`'s through `ge_dialect.ir.encodings`, and a launch's kernel
signature (the `ge` op it is named after) is looked up by name in the dialect registry.

- `attrs`: `#npu.format`, `#npu.external`, `#npu.elided`, `#npu.cost`;
- `ops`: the ops, and buffer types (`buffer_type`, `logical_type`, `verify_buffer_type`);
- `signatures`: a launch checked against its kernel's signature (`verify_signature`,
  `known_kernels`);
- `program`: `verify_program`, the whole-program rules;
- here: the `Npu` dialect and the names users need, as `from ge_dialect.ir.dialects import npu`.

The reference is docs/npu.md.
"""

from xdsl.ir import Dialect

from ge_dialect.ir.dialects.npu.attrs import (
    CostAttr,
    ElidedAttr,
    ExternalDataAttr,
    FormatAttr,
    Unit,
)
from ge_dialect.ir.dialects.npu.ops import (
    INPUT,
    OUTPUT,
    AllocOp,
    CopyOp,
    LaunchOp,
    RecordOp,
    ViewOp,
    WaitOp,
    WeightOp,
    buffer_type,
    byte_size,
    is_in_out,
    logical_type,
    read_only,
    root_buffer,
    verify_buffer_type,
)
from ge_dialect.ir.dialects.npu.program import PROGRAM, TYPE, is_program, verify_program
from ge_dialect.ir.dialects.npu.signatures import known_kernels, verify_signature
from ge_dialect.ir.encodings import (
    Format,
    padding_mask,
    physical_shape,
    set_data_dir,
    tensor_c0,
    tensor_format,
    tensor_groups,
    to_logical,
    to_physical,
)

Npu = Dialect(
    "npu",
    [AllocOp, WeightOp, ViewOp, LaunchOp, RecordOp, WaitOp, CopyOp],
    [FormatAttr, ExternalDataAttr, ElidedAttr, CostAttr],
)

__all__ = [
    "INPUT",
    "OUTPUT",
    "PROGRAM",
    "TYPE",
    "AllocOp",
    "CopyOp",
    "CostAttr",
    "ElidedAttr",
    "ExternalDataAttr",
    "Format",
    "FormatAttr",
    "LaunchOp",
    "Npu",
    "RecordOp",
    "Unit",
    "ViewOp",
    "WaitOp",
    "WeightOp",
    "buffer_type",
    "byte_size",
    "is_in_out",
    "is_program",
    "known_kernels",
    "logical_type",
    "padding_mask",
    "physical_shape",
    "read_only",
    "root_buffer",
    "set_data_dir",
    "tensor_c0",
    "tensor_format",
    "tensor_groups",
    "to_logical",
    "to_physical",
    "verify_buffer_type",
    "verify_program",
    "verify_signature",
]
