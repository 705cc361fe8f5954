"""The HCCL collectives beyond all-reduce and all-gather: reduce-scatter, all-to-all,
broadcast, and the point-to-point send and receive.

Ranks named by an op (`root`, `dest_rank`, `src_rank`) are group ranks: the index of a
rank in its group's members (the ranks whose programs hold a collective of that group, in
world-rank order).  All have memory effects: CSE and DCE leave them alone.  On one
simulated device each computes as rank 0 of `rank_size` identical ranks (see each op).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, DenseArrayBase, IntegerAttr, StringAttr, TensorType, i64
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
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.ge.attributes import Reduction, ReductionAttr
from ge_dialect.ir.dialects.ge.base import (
    CollectiveOp,
    expect_shape,
    int_array,
    shape_str,
    type_of,
)
from ge_dialect.utils.dtypes import is_float, type_name


def _check_group(group: StringAttr, rank_size: IntegerAttr) -> int:
    if not group.data:
        raise VerifyException("group must not be empty")
    size = rank_size.value.data
    if size < 1:
        raise VerifyException(f"rank_size must be positive, got {size}")
    return size


def _check_rank(value: IntegerAttr, what: str, size: int) -> None:
    if not 0 <= value.value.data < size:
        raise VerifyException(
            f"{what} {value.value.data} is out of range for rank_size {size} (0..{size - 1})"
        )


def _check_dtype(t: TensorType, what: str) -> None:
    if not (is_float(t.element_type) or type_name(t.element_type) in ("i8", "i32")):
        raise VerifyException(f"{what} must be f16, f32, i8 or i32, got {t.element_type}")


@irdl_op_definition
class HcomReduceScatterOp(CollectiveOp):
    """Reduces a tensor over the `rank_size` ranks of `group`; group rank r keeps the r-th
    block along dim 0 (HCCL ReduceScatter).  Dim 0 must be a multiple of rank_size.

    On one simulated device every rank holds the same tensor, so the result is the first
    block reduced as the all-reduce does (sum: rank_size * block; max and min: the block).

        %y = ge.hcom_reduce_scatter %x reduction sum group "tp" rank_size 4
               : tensor<8x16xf16> -> tensor<2x16xf16>
    """

    name = "ge.hcom_reduce_scatter"

    reduction = prop_def(ReductionAttr)

    assembly_format = (
        "$input `reduction` $reduction `group` $group `rank_size` $rank_size attr-dict "
        "`:` type($input) `->` type($output)"
    )

    def __init__(
        self,
        input: SSAValue,
        reduction: Reduction | str,
        group: str,
        rank_size: int,
        result_type: Attribute,
    ):
        super().__init__(
            input,
            group,
            rank_size,
            result_type,
            extra_properties={"reduction": ReductionAttr(Reduction(reduction))},
        )

    def verify_(self) -> None:
        super().verify_()
        x = type_of(self.input, "operand 'input'")
        size = self.rank_size.value.data
        if x.get_num_dims() < 1:
            raise VerifyException("operand 'input' must have rank >= 1")
        shape = list(x.get_shape())
        if shape[0] % size:
            raise VerifyException(
                f"operand 'input' dim 0 ({shape[0]}) must be a multiple of rank_size {size}"
            )
        shape[0] //= size
        expect_shape(type_of(self.output, "result"), shape)


@irdl_op_definition
class HcomAllToAllOp(CollectiveOp):
    """Each rank cuts its tensor along `split_dim` into `rank_size` pieces, sends piece j to
    group rank j and concatenates what it receives along `concat_dim` in group-rank order
    (HCCL AllToAll / AllToAllV).

    Equal pieces by default; `send_counts` / `recv_counts` (rank_size sizes each, along
    split_dim / concat_dim, summing to that dim) make them uneven, and are per rank.  On one
    simulated device every rank sends what this one does: piece j of the input comes from
    group rank j, which sends it its piece 0, so the result is rank_size copies of piece 0
    concatenated along concat_dim (with counts: piece 0 of send_counts[0] rows each time,
    which needs every recv_count equal to send_counts[0]).

        %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 1 group "ep" rank_size 4
               : tensor<8x4xf32> -> tensor<2x16xf32>
        %z = ge.hcom_all_to_all %x split_dim 0 concat_dim 0 group "ep" rank_size 2
               send_counts [1, 3] recv_counts [1, 2] : tensor<4x4xf32> -> tensor<3x4xf32>
    """

    name = "ge.hcom_all_to_all"

    split_dim = prop_def(IntegerAttr[I64])
    concat_dim = prop_def(IntegerAttr[I64])
    send_counts = opt_prop_def(DenseArrayBase.constr(i64))
    recv_counts = opt_prop_def(DenseArrayBase.constr(i64))

    assembly_format = (
        "$input `split_dim` $split_dim `concat_dim` $concat_dim `group` $group "
        "`rank_size` $rank_size (`send_counts` $send_counts^)? "
        "(`recv_counts` $recv_counts^)? attr-dict `:` type($input) `->` type($output)"
    )

    def __init__(
        self,
        input: SSAValue,
        split_dim: int,
        concat_dim: int,
        group: str,
        rank_size: int,
        result_type: Attribute,
        send_counts: Sequence[int] | None = None,
        recv_counts: Sequence[int] | None = None,
    ):
        super().__init__(
            input,
            group,
            rank_size,
            result_type,
            extra_properties={
                "split_dim": IntegerAttr(split_dim, i64),
                "concat_dim": IntegerAttr(concat_dim, i64),
                "send_counts": None if send_counts is None else int_array(send_counts),
                "recv_counts": None if recv_counts is None else int_array(recv_counts),
            },
        )

    def counts(self) -> tuple[list[int], list[int]]:
        """The sizes sent to and received from each group rank along split_dim (equal
        pieces when not given: the input's split_dim over rank_size)."""
        if self.send_counts is not None and self.recv_counts is not None:
            return list(self.send_counts.get_values()), list(self.recv_counts.get_values())
        x = type_of(self.input, "operand 'input'")
        size = self.rank_size.value.data
        equal = [x.get_shape()[self.split_dim.value.data] // size] * size
        return equal, list(equal)

    def verify_(self) -> None:
        super().verify_()
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        size = self.rank_size.value.data
        rank = x.get_num_dims()
        for what, attr in (("split_dim", self.split_dim), ("concat_dim", self.concat_dim)):
            if not 0 <= attr.value.data < rank:
                raise VerifyException(
                    f"{what} {attr.value.data} is out of range for the input's rank {rank}"
                )
        s, c = self.split_dim.value.data, self.concat_dim.value.data
        xs = list(x.get_shape())
        uneven = self.send_counts is not None or self.recv_counts is not None
        expected = list(xs)
        if not uneven:
            if xs[s] % size:
                raise VerifyException(
                    f"operand 'input' dim {s} ({xs[s]}) must be a multiple of rank_size {size}"
                )
            expected[s] //= size
            expected[c] *= size
            expect_shape(y, expected)
            return
        if self.send_counts is None or self.recv_counts is None:
            raise VerifyException("send_counts and recv_counts must be given together")
        if s != c:
            raise VerifyException(
                f"uneven pieces (send_counts / recv_counts) need split_dim == concat_dim, "
                f"got {s} and {c}"
            )
        for what, counts in (("send_counts", self.send_counts), ("recv_counts", self.recv_counts)):
            values = list(counts.get_values())
            if len(values) != size:
                raise VerifyException(
                    f"{what} has {len(values)} entries, expected rank_size {size}"
                )
            if any(v < 0 for v in values):
                raise VerifyException(f"{what} must not be negative, got {shape_str(values)}")
        send = list(self.send_counts.get_values())
        if sum(send) != xs[s]:
            raise VerifyException(
                f"send_counts sum to {sum(send)}, but the input's dim {s} has size {xs[s]}"
            )
        expected[s] = sum(self.recv_counts.get_values())
        expect_shape(y, expected)


@irdl_op_definition
class HcomBroadcastOp(CollectiveOp):
    """Every rank of `group` gets the tensor of group rank `root` (HCCL Broadcast).

    On one simulated device every rank holds the same tensor: the result is the input.

        %y = ge.hcom_broadcast %x root 0 group "g" rank_size 4 : tensor<4x8xf32>
    """

    name = "ge.hcom_broadcast"

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    root = prop_def(IntegerAttr[I64])

    assembly_format = (
        "$input `root` $root `group` $group `rank_size` $rank_size attr-dict `:` type($input)"
    )

    def __init__(self, input: SSAValue, root: int, group: str, rank_size: int):
        super().__init__(
            input, group, rank_size, input.type, extra_properties={"root": IntegerAttr(root, i64)}
        )

    def verify_(self) -> None:
        super().verify_()
        _check_rank(self.root, "root", self.rank_size.value.data)


class PointToPointOp(IRDLOperation):
    """Shared checks of `ge.hcom_send` / `ge.hcom_receive`: group, rank_size, sr_tag."""

    group = prop_def(StringAttr)
    rank_size = prop_def(IntegerAttr[I64])
    sr_tag = prop_def(IntegerAttr[I64])

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def check(self, peer: IntegerAttr, what: str, t: TensorType, tensor: str) -> None:
        size = _check_group(self.group, self.rank_size)
        _check_rank(peer, what, size)
        if self.sr_tag.value.data < 0:
            raise VerifyException(f"sr_tag must not be negative, got {self.sr_tag.value.data}")
        _check_dtype(t, tensor)


@irdl_op_definition
class HcomSendOp(PointToPointOp):
    """Sends a tensor to group rank `dest_rank` (HCCL Send); no result.  The k-th send from
    a to b with a tag meets the k-th receive at b from a with that tag.  On one simulated
    device it does nothing.

        ge.hcom_send %x dest_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<4x8xf32>
    """

    name = "ge.hcom_send"

    input = operand_def(TensorType)
    dest_rank = prop_def(IntegerAttr[I64])

    assembly_format = (
        "$input `dest_rank` $dest_rank `sr_tag` $sr_tag `group` $group `rank_size` $rank_size "
        "attr-dict `:` type($input)"
    )

    def __init__(
        self, input: SSAValue, dest_rank: int, group: str, rank_size: int, sr_tag: int = 0
    ):
        super().__init__(
            operands=[input],
            properties={
                "dest_rank": IntegerAttr(dest_rank, i64),
                "sr_tag": IntegerAttr(sr_tag, i64),
                "group": StringAttr(group),
                "rank_size": IntegerAttr(rank_size, i64),
            },
        )

    def verify_(self) -> None:
        self.check(
            self.dest_rank, "dest_rank", type_of(self.input, "operand 'input'"), "operand 'input'"
        )


@irdl_op_definition
class HcomReceiveOp(PointToPointOp):
    """Receives a tensor from group rank `src_rank` (HCCL Receive); no operand.  On one
    simulated device there is no sender: the result is zeros (a multi-rank run always
    matches it with its send, and a receive without one is a deadlock there).

        %y = ge.hcom_receive src_rank 0 sr_tag 0 group "pp" rank_size 2 : tensor<4x8xf32>
    """

    name = "ge.hcom_receive"

    output = result_def(TensorType)
    src_rank = prop_def(IntegerAttr[I64])

    assembly_format = (
        "`src_rank` $src_rank `sr_tag` $sr_tag `group` $group `rank_size` $rank_size "
        "attr-dict `:` type($output)"
    )

    def __init__(
        self, result_type: Attribute, src_rank: int, group: str, rank_size: int, sr_tag: int = 0
    ):
        super().__init__(
            result_types=[result_type],
            properties={
                "src_rank": IntegerAttr(src_rank, i64),
                "sr_tag": IntegerAttr(sr_tag, i64),
                "group": StringAttr(group),
                "rank_size": IntegerAttr(rank_size, i64),
            },
        )

    def verify_(self) -> None:
        self.check(self.src_rank, "src_rank", type_of(self.output, "result"), "result")


__all__ = [
    "HcomAllToAllOp",
    "HcomBroadcastOp",
    "HcomReceiveOp",
    "HcomReduceScatterOp",
    "HcomSendOp",
    "PointToPointOp",
]
