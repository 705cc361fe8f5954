"""The KV-cache op of the `ge` dialect: `ge.scatter_update`.

`ge.scatter_update` is GE's ScatterUpdate as TorchAir's `scatter_update_(cache, indices,
update, axis)` uses it in a decode step: batch row b of `update` (K positions along `axis`)
is written into batch row b of `cache` at positions indices[b] .. indices[b] + K - 1 along
`axis`; everything else is the cache's.  The op has value semantics (its result is the
updated cache, a new value); `--lower-to-device` writes it into the cache's own buffer when
nothing reads the old cache afterwards (the device's in-place update), else into a copy.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.ge.base import (
    expect_element_type,
    expect_shape,
    require_default_layout,
    shape_str,
    type_of,
)
from ge_dialect.ir.dialects.ge.indexing import INDEX_TYPES
from ge_dialect.utils.dtypes import type_name


@irdl_op_definition
class ScatterUpdateOp(IRDLOperation):
    """The cache with each batch row's update written at its position along `axis` (GE's
    ScatterUpdate; TorchAir's `scatter_update_`).

    `cache` has rank >= 2, dim 0 its batch B; `indices` holds B positions (i32 or i64);
    `update` has the cache's shape but K (1 <= K <= the cache's size S along `axis`) along
    `axis` (1 <= axis < rank), and its element type.  The result is the cache with
    result[b, ..., indices[b] + k, ...] = update[b, ..., k, ...] along `axis`; a position
    outside [0, S - K] is an error when the graph runs, located at the op.

    %new = ge.scatter_update %cache, %pos, %kv axis 2
        : tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32> -> tensor<1x2x16x8xf32>
    """

    name = "ge.scatter_update"
    cache = operand_def(TensorType)
    indices = operand_def(TensorType)
    update = operand_def(TensorType)
    output = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())
    assembly_format = (
        "$cache `,` $indices `,` $update `axis` $axis attr-dict `:` type($cache) `,` "
        "type($indices) `,` type($update) `->` type($output)"
    )

    def __init__(
        self,
        cache: SSAValue,
        indices: SSAValue,
        update: SSAValue,
        axis: int,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            operands=[cache, indices, update],
            result_types=[cache.type if result_type is None else result_type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_(self) -> None:
        cache = type_of(self.cache, "operand 'cache'")
        ids = type_of(self.indices, "operand 'indices'")
        update = type_of(self.update, "operand 'update'")
        y = type_of(self.output, "result")
        for t, what in (
            (cache, "operand 'cache'"),
            (ids, "operand 'indices'"),
            (update, "operand 'update'"),
            (y, "result"),
        ):
            require_default_layout(t, what, "scatter_update")
        rank = cache.get_num_dims()
        if rank < 2:
            raise VerifyException(
                f"operand 'cache' must have rank >= 2 (a batch dim, then the updated dims), "
                f"got {cache}"
            )
        axis = self.axis.value.data
        if not 1 <= axis < rank:
            raise VerifyException(
                f"axis {axis} is out of range [1, {rank}) for rank {rank} (dim 0 is the batch)"
            )
        if type_name(ids.element_type) not in INDEX_TYPES:
            raise VerifyException(f"operand 'indices' must be i32 or i64, got {ids.element_type}")
        shape = list(cache.get_shape())
        expect_shape(ids, [shape[0]], "operand 'indices'")
        k = update.get_shape()[axis] if update.get_num_dims() == rank else 0
        if not 1 <= k <= shape[axis]:
            raise VerifyException(
                f"operand 'update' has shape {shape_str(update.get_shape())}, expected the "
                f"cache's {shape_str(shape)} with 1 to {shape[axis]} positions along axis {axis}"
            )
        expect_shape(update, [*shape[:axis], k, *shape[axis + 1 :]], "operand 'update'")
        expect_element_type(update, cache.element_type, "operand 'update'", of="the cache's")
        expect_shape(y, shape)
        expect_element_type(y, cache.element_type, of="the cache's")
