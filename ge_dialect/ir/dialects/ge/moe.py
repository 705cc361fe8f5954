"""The mixture-of-experts and MLP ops of the `ge` dialect, modelled on GE's.

- `ge.topk`: the k largest (or smallest) elements along an axis and their i64 indices
  (torch.topk, ONNX TopK; ties go to the lower index, as ONNX says);
- `ge.scatter_add`: ONNX ScatterElements with reduction "add" (ATen `scatter_add`): `data`
  with each `updates` element added at the position `indices` names along `axis`;
- `ge.swi_glu`: GE's SwiGlu, silu(a) * b where x = [a | b] split in halves along `dim` (a
  merged gate/up projection produces x);
- `ge.moe_gating_top_k`: GE's MoeGatingTopK, the router's softmax (or sigmoid) over the
  last axis, its top k, optionally renormalised to sum 1; weights and i64 expert ids;
- `ge.grouped_matmul`: GE's GroupedMatmul in a static form, one matmul per group.

All take default-layout (ND) tensors with static shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, TensorType, UnitAttr, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
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
    require_float,
    shape_str,
    type_of,
)
from ge_dialect.ir.dialects.ge.indexing import INDEX_TYPES
from ge_dialect.utils.dtypes import type_name

GATING_NORMS = ("softmax", "sigmoid")
"""What `ge.moe_gating_top_k` turns the router's logits into before the top k."""


def topk_shape(shape: Sequence[int], axis: int, k: int) -> list[int]:
    """The shape of top-k results: `shape` with dim `axis` replaced by k."""
    return [k if i == axis else d for i, d in enumerate(shape)]


def _check_axis(axis: int, rank: int, what: str = "axis") -> None:
    if not 0 <= axis < rank:
        raise VerifyException(f"{what} {axis} is out of range [0, {rank}) for rank {rank}")


def _check_topk_results(
    op: IRDLOperation, x: TensorType, axis: int, k: int, names: tuple[str, str]
) -> None:
    """k in [1, dim]; values of the input's element type and i64 ids, both of shape
    `topk_shape` and default layout (`names`: the two results' names)."""
    size = x.get_shape()[axis]
    if not 1 <= k <= size:
        raise VerifyException(f"k {k} must be in [1, {size}] (the size of axis {axis})")
    values = type_of(op.results[0], f"result '{names[0]}'")
    ids = type_of(op.results[1], f"result '{names[1]}'")
    shape = topk_shape(x.get_shape(), axis, k)
    for t, name in ((values, names[0]), (ids, names[1])):
        require_default_layout(t, f"result '{name}'", op.name[3:])
        expect_shape(t, shape, f"result '{name}'")
    expect_element_type(values, x.element_type, f"result '{names[0]}'")
    if type_name(ids.element_type) != "i64":
        raise VerifyException(f"result '{names[1]}' must be i64, got {ids.element_type}")


def _float_input(op: IRDLOperation, value: SSAValue, what: str = "operand 'input'") -> TensorType:
    x = type_of(value, what)
    require_float(x, what)
    require_default_layout(x, what, op.name[3:])
    if x.get_num_dims() == 0:
        raise VerifyException(f"{what} must have rank 1 or more, got {x}")
    return x


@irdl_op_definition
class TopKOp(IRDLOperation):
    """The k largest elements along `axis` (the k smallest without `largest`) and their
    i64 indices, as torch.topk and ONNX TopK.  Equal values go to the lower index first
    (ONNX's rule; torch.topk on CPU leaves the order of ties unspecified).
    With `sorted` the k come best first; without it they come in the order of their
    indices along `axis`.  NaN inputs give an unspecified choice.

    %v, %i = ge.topk %x k 2 axis 1 largest sorted
        : tensor<4x8xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
    """

    name = "ge.topk"
    input = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    k = prop_def(IntegerAttr[I64])
    axis = prop_def(IntegerAttr[I64])
    largest = opt_prop_def(UnitAttr)
    sorted = opt_prop_def(UnitAttr)

    traits = traits_def(Pure())
    assembly_format = (
        "$input `k` $k `axis` $axis (`largest` $largest^)? (`sorted` $sorted^)? attr-dict `:` "
        "type($input) `->` type($values) `,` type($indices)"
    )

    def __init__(
        self,
        input: SSAValue,
        k: int,
        axis: int,
        largest: bool = True,
        sorted: bool = True,
    ):
        t = input.type
        assert isinstance(t, TensorType)
        shape = topk_shape(t.get_shape(), axis, k)
        super().__init__(
            operands=[input],
            result_types=[TensorType(t.element_type, shape), TensorType(i64, shape)],
            properties={
                "k": IntegerAttr(k, i64),
                "axis": IntegerAttr(axis, i64),
                "largest": UnitAttr() if largest else None,
                "sorted": UnitAttr() if sorted else None,
            },
        )

    def verify_(self) -> None:
        x = _float_input(self, self.input)
        axis = self.axis.value.data
        _check_axis(axis, x.get_num_dims())
        _check_topk_results(self, x, axis, self.k.value.data, ("values", "indices"))


@irdl_op_definition
class ScatterAddOp(IRDLOperation):
    """`data` with every element of `updates` added at the position `indices` names along
    `axis` (ONNX ScatterElements with reduction "add"; ATen scatter_add): for a rank-2
    data and axis 1, out[i][indices[i][j]] += updates[i][j].  Repeated indices add up.

    `indices` (i32 or i64) and `updates` have one shape, of data's rank, no larger than
    data's in any dim but `axis`; an index i in [-n, 0) names n + i, one outside [-n, n) is
    an error when the graph runs.

    %y = ge.scatter_add %data, %ids, %upd axis 1
        : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32> -> tensor<4x8xf32>
    """

    name = "ge.scatter_add"
    T: ClassVar = VarConstraint("T", base(TensorType))
    data = operand_def(T)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    output = result_def(T)
    axis = prop_def(IntegerAttr[I64])

    traits = traits_def(Pure())
    assembly_format = (
        "$data `,` $indices `,` $updates `axis` $axis attr-dict `:` type($data) `,` "
        "type($indices) `,` type($updates) `->` type($output)"
    )

    def __init__(self, data: SSAValue, indices: SSAValue, updates: SSAValue, axis: int):
        super().__init__(
            operands=[data, indices, updates],
            result_types=[data.type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_(self) -> None:
        x = _float_input(self, self.data, "operand 'data'")
        ids = type_of(self.indices, "operand 'indices'")
        upd = type_of(self.updates, "operand 'updates'")
        require_default_layout(ids, "operand 'indices'", "scatter_add")
        require_default_layout(upd, "operand 'updates'", "scatter_add")
        if type_name(ids.element_type) not in INDEX_TYPES:
            raise VerifyException(f"operand 'indices' must be i32 or i64, got {ids.element_type}")
        rank = x.get_num_dims()
        axis = self.axis.value.data
        _check_axis(axis, rank)
        expect_element_type(upd, x.element_type, "operand 'updates'", of="the data's")
        expect_shape(upd, ids.get_shape(), "operand 'updates'")
        shape = ids.get_shape()
        if len(shape) != rank or any(
            i != axis and n > d for i, (n, d) in enumerate(zip(shape, x.get_shape(), strict=True))
        ):
            raise VerifyException(
                f"operand 'indices' has shape {shape_str(shape)}, expected rank {rank} and no "
                f"dim but axis {axis} larger than the data's {shape_str(x.get_shape())}"
            )


@irdl_op_definition
class SwiGluOp(IRDLOperation):
    """GE's SwiGlu: x = [a | b] split in two halves along `dim`, the result silu(a) * b
    (`dim` has an even size; the result has half of it).  A merged gate/up projection
    (vllm-ascend's) produces x.

    %y = ge.swi_glu %x dim 1 : tensor<4x16xf32> -> tensor<4x8xf32>
    """

    name = "ge.swi_glu"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    dim = prop_def(IntegerAttr[I64])

    traits = traits_def(Pure())
    assembly_format = "$input `dim` $dim attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, dim: int):
        t = input.type
        assert isinstance(t, TensorType)
        shape = [d // 2 if i == dim else d for i, d in enumerate(t.get_shape())]
        super().__init__(
            operands=[input],
            result_types=[TensorType(t.element_type, shape)],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def verify_(self) -> None:
        x = _float_input(self, self.input)
        y = type_of(self.output, "result")
        require_default_layout(y, "result", "swi_glu")
        dim = self.dim.value.data
        _check_axis(dim, x.get_num_dims(), "dim")
        size = x.get_shape()[dim]
        if size % 2:
            raise VerifyException(f"dim {dim} has size {size}, which is not even")
        expect_shape(y, [d // 2 if i == dim else d for i, d in enumerate(x.get_shape())])
        expect_element_type(y, x.element_type)


@irdl_op_definition
class MoeGatingTopKOp(IRDLOperation):
    """GE's MoeGatingTopK: the router's `norm` ("softmax", or "sigmoid" as DeepSeek-V3)
    of the logits over the last axis, its k largest values (ties to the lower expert id,
    best first) and their i64 expert ids; with `renorm` the k weights are divided by their
    sum.  GE's group selection and bias are not modelled.

    %w, %ids = ge.moe_gating_top_k %logits k 2 norm "softmax" renorm
        : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
    """

    name = "ge.moe_gating_top_k"
    input = operand_def(TensorType)
    weights = result_def(TensorType)
    ids = result_def(TensorType)
    k = prop_def(IntegerAttr[I64])
    norm = prop_def(StringAttr, default_value=StringAttr("softmax"))
    renorm = opt_prop_def(UnitAttr)

    traits = traits_def(Pure())
    assembly_format = (
        "$input `k` $k (`norm` $norm^)? (`renorm` $renorm^)? attr-dict `:` type($input) `->` "
        "type($weights) `,` type($ids)"
    )

    def __init__(self, input: SSAValue, k: int, norm: str = "softmax", renorm: bool = False):
        t = input.type
        assert isinstance(t, TensorType)
        shape = topk_shape(t.get_shape(), t.get_num_dims() - 1, k)
        super().__init__(
            operands=[input],
            result_types=[TensorType(t.element_type, shape), TensorType(i64, shape)],
            properties={
                "k": IntegerAttr(k, i64),
                "norm": StringAttr(norm),
                "renorm": UnitAttr() if renorm else None,
            },
        )

    def verify_(self) -> None:
        x = _float_input(self, self.input)
        if self.norm.data not in GATING_NORMS:
            raise VerifyException(f'norm must be "softmax" or "sigmoid", got "{self.norm.data}"')
        _check_topk_results(self, x, x.get_num_dims() - 1, self.k.value.data, ("weights", "ids"))


@irdl_op_definition
class GroupedMatmulOp(IRDLOperation):
    """GE's GroupedMatmul, static form: one matmul per group (expert) e,
    out[e] = x[e] @ weight[e], for x [E, T, K] and weight [E, K, N] -> [E, T, N].

    GE's op takes the tokens of all groups in one [M, K] tensor and a `group_list` of
    per-group token counts (data-dependent after routing); here every group has the same
    T rows, as after a static MoE sends every token to every expert, so the counts are
    implicit (group_list = [T] * E).

    %y = ge.grouped_matmul %x, %w : tensor<4x8x16xf32>, tensor<4x16x32xf32>
        -> tensor<4x8x32xf32>
    """

    name = "ge.grouped_matmul"
    x = operand_def(TensorType)
    weight = operand_def(TensorType)
    output = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = "$x `,` $weight attr-dict `:` type($x) `,` type($weight) `->` type($output)"

    def __init__(self, x: SSAValue, weight: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            xt, wt = x.type, weight.type
            assert isinstance(xt, TensorType) and isinstance(wt, TensorType)
            e, t, _ = xt.get_shape()
            result_type = TensorType(xt.element_type, [e, t, wt.get_shape()[-1]])
        super().__init__(operands=[x, weight], result_types=[result_type])

    def verify_(self) -> None:
        x = type_of(self.x, "operand 'x'")
        w = type_of(self.weight, "operand 'weight'")
        y = type_of(self.output, "result")
        require_float(x, "operand 'x'", "grouped_matmul")
        for t, what in ((x, "operand 'x'"), (w, "operand 'weight'"), (y, "result")):
            require_default_layout(t, what, "grouped_matmul")
            if t.get_num_dims() != 3:
                raise VerifyException(f"{what} must have rank 3, got {t}")
        expect_element_type(w, x.element_type, "operand 'weight'", of="x's")
        (e, t_, k), (we, wk, n) = x.get_shape(), w.get_shape()
        if (we, wk) != (e, k):
            raise VerifyException(
                f"operand 'weight' has shape {shape_str(w.get_shape())}, expected "
                f"[{e}, {k}, N] (x's groups and contraction dim)"
            )
        expect_shape(y, [e, t_, n])
        expect_element_type(y, x.element_type, of="x's")
