"""The indexing and slicing ops of the `ge` dialect: gather, slice and expand.

All three move data of any supported element type exactly, on default-layout (ND/NCHW)
tensors with static shapes:

- `ge.gather`: ONNX Gather, the slices of `data` along `axis` that `indices` names
  (negative indices count from the end; an index out of range is an error when the graph
  runs, located at the op);
- `ge.slice`: ONNX Slice with static starts, ends, axes and positive steps, clamped as ONNX
  clamps them (`slice_length`);
- `ge.expand`: numpy's `broadcast_to`, the input broadcast to the result's shape.

`ge.slice` and `ge.expand` fold into a constant when their operand is one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import I64, DenseArrayBase, IntegerAttr, TensorType, i64
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
    FoldingDataMovementOp,
    expect_element_type,
    expect_shape,
    int_array,
    require_default_layout,
    shape_str,
    type_of,
)
from ge_dialect.utils.dtypes import type_name

INDEX_TYPES = ("i32", "i64")
"""The element types of `ge.gather`'s indices (ONNX Gather's tensor(int32), tensor(int64))."""


def slice_length(dim: int, start: int, end: int, step: int) -> int:
    """The number of elements `start:end:step` selects from a dim of size `dim`, with ONNX
    Slice's clamping for a positive step: a negative start or end counts from the end,
    then both are clamped to [0, dim] (an end of INT64_MAX means "to the end")."""
    return len(range(*slice(start, end, step).indices(dim)))


def gather_shape(data: Sequence[int], indices: Sequence[int], axis: int) -> list[int]:
    """ONNX Gather's result shape: data[:axis] + indices + data[axis + 1:]."""
    return [*data[:axis], *indices, *data[axis + 1 :]]


@irdl_op_definition
class GatherOp(IRDLOperation):
    """The slices of `data` along `axis` named by `indices` (ONNX Gather).

    The result's shape is data[:axis] + indices + data[axis + 1:]; an index i in [-n, 0)
    reads slice n + i (n is the size of `axis`), one outside [-n, n) is an error when the
    graph runs.  Indices are i32 or i64; `data` has any element type.

    %y = ge.gather %w, %ids axis 0 : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
    """

    name = "ge.gather"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    output = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())
    assembly_format = (
        "$data `,` $indices `axis` $axis attr-dict `:` type($data) `,` type($indices) `->` "
        "type($output)"
    )

    def __init__(self, data: SSAValue, indices: SSAValue, axis: int, result_type: Attribute):
        super().__init__(
            operands=[data, indices],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_(self) -> None:
        x = type_of(self.data, "operand 'data'")
        ids = type_of(self.indices, "operand 'indices'")
        y = type_of(self.output, "result")
        require_default_layout(x, "operand 'data'", "gather")
        require_default_layout(ids, "operand 'indices'", "gather")
        require_default_layout(y, "result", "gather")
        if type_name(ids.element_type) not in INDEX_TYPES:
            raise VerifyException(f"operand 'indices' must be i32 or i64, got {ids.element_type}")
        rank = x.get_num_dims()
        axis = self.axis.value.data
        if not 0 <= axis < rank:
            raise VerifyException(f"axis {axis} is out of range for rank {rank}")
        expect_shape(y, gather_shape(x.get_shape(), ids.get_shape(), axis))
        expect_element_type(y, x.element_type, of="the data's")


@irdl_op_definition
class SliceOp(FoldingDataMovementOp):
    """Elements start:end:step along each of `axes` (ONNX Slice, static and clamped).

    `starts`, `ends`, `axes` and `steps` have one entry per sliced axis; axes are distinct
    and in [0, rank); steps are positive; a negative start or end counts from the end, and
    both are clamped to the dim (an end of 9223372036854775807 means "to the end").

    %y = ge.slice %x starts [1] ends [9223372036854775807] axes [1] steps [2]
        : tensor<2x8xf32> -> tensor<2x4xf32>
    """

    name = "ge.slice"
    starts = prop_def(DenseArrayBase.constr(i64))
    ends = prop_def(DenseArrayBase.constr(i64))
    axes = prop_def(DenseArrayBase.constr(i64))
    steps = prop_def(DenseArrayBase.constr(i64))
    assembly_format = (
        "$input `starts` $starts `ends` $ends `axes` $axes `steps` $steps attr-dict `:` "
        "type($input) `->` type($output)"
    )

    def __init__(
        self,
        input: SSAValue,
        starts: Sequence[int],
        ends: Sequence[int],
        axes: Sequence[int],
        steps: Sequence[int],
        result_type: Attribute,
    ):
        super().__init__(
            input,
            result_type,
            {
                "starts": int_array(starts),
                "ends": int_array(ends),
                "axes": int_array(axes),
                "steps": int_array(steps),
            },
        )

    def index(self, rank: int) -> tuple[slice, ...]:
        """The numpy index of the slice on an array of rank `rank`."""
        spec = [slice(None)] * rank
        for start, end, axis, step in zip(
            self.starts.get_values(),
            self.ends.get_values(),
            self.axes.get_values(),
            self.steps.get_values(),
            strict=True,
        ):
            spec[axis] = slice(start, end, step)
        return tuple(spec)

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return logical[self.index(logical.ndim)]

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        require_default_layout(x, "operand 'input'", "slice")
        require_default_layout(y, "result", "slice")
        starts, ends = list(self.starts.get_values()), list(self.ends.get_values())
        axes, steps = list(self.axes.get_values()), list(self.steps.get_values())
        if not len(starts) == len(ends) == len(axes) == len(steps):
            raise VerifyException(
                f"starts, ends, axes and steps must have one entry per sliced axis, got "
                f"{len(starts)}, {len(ends)}, {len(axes)} and {len(steps)} entries"
            )
        rank = x.get_num_dims()
        for axis in axes:
            if not 0 <= axis < rank:
                raise VerifyException(f"axis {axis} is out of range for rank {rank}")
        if len(set(axes)) != len(axes):
            raise VerifyException(f"axes {axes} must be distinct")
        for step in steps:
            if step < 1:
                raise VerifyException(
                    f"steps must be positive, got {steps} (a negative step is not supported)"
                )
        shape = list(x.get_shape())
        for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
            shape[axis] = slice_length(shape[axis], start, end, step)
        expect_shape(y, shape)
        expect_element_type(y, x.element_type)


@irdl_op_definition
class ExpandOp(FoldingDataMovementOp):
    """The input broadcast to the result's shape (numpy's broadcast_to; ONNX Expand).

    Dims align from the right; each input dim is 1 or the result's; the result may add
    leading dims.

    %y = ge.expand %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
    """

    name = "ge.expand"

    def compute(self, logical: np.ndarray) -> np.ndarray:
        shape = tuple(type_of(self.output, "result").get_shape())
        return np.broadcast_to(logical, shape).copy()

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        require_default_layout(x, "operand 'input'", "expand")
        require_default_layout(y, "result", "expand")
        expect_element_type(y, x.element_type)
        xs, ys = list(x.get_shape()), list(y.get_shape())
        fits = len(xs) <= len(ys) and all(
            d in (1, e) for d, e in zip(reversed(xs), reversed(ys), strict=False)
        )
        if not fits:
            raise VerifyException(
                f"operand 'input' has shape {shape_str(xs)}, which does not broadcast to the "
                f"result's shape {shape_str(ys)}"
            )
