"""--overlap{chunks=k}: tile-level overlap of a row-parallel matmul with its all-reduce.

A `ge.matmul` whose result goes only to a `ge.hcom_all_reduce` (the row-parallel matmul
of tensor parallelism, as `shard{mode=tensor}` makes it) is cut along the rows of its left
operand (dim 0 of a 2-D ND operand, not transposed) into `chunks` pieces (uneven when the
rows do not divide: the first pieces take one row more; never more pieces than rows), each
a matmul followed by its own all-reduce, and the pieces are concatenated.  After
`assign-streams` the all-reduces run on the comm stream while the next pieces compute.
A row of a matmul is computed from that row alone, and an all-reduce is elementwise, so
the numbers are bit-identical; a bias added after the all-reduce stays after the concat.

    %p = ge.matmul %h, %w2 : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf16>
    %s = ge.hcom_all_reduce %p reduction sum group "tp" rank_size 2 : tensor<8x32xf16>

becomes, with chunks=2,

    %h0 = ge.slice %h starts [0] ends [4] axes [0] steps [1] : tensor<8x16xf16> -> tensor<4x16xf16>
    %p0 = ge.matmul %h0, %w2 : tensor<4x16xf16>, tensor<16x32xf16> -> tensor<4x32xf16>
    %s0 = ge.hcom_all_reduce %p0 reduction sum group "tp" rank_size 2 : tensor<4x32xf16>
    %h1 = ge.slice %h starts [4] ends [8] axes [0] steps [1] : tensor<8x16xf16> -> tensor<4x16xf16>
    %p1 = ge.matmul %h1, %w2 : tensor<4x16xf16>, tensor<16x32xf16> -> tensor<4x32xf16>
    %s1 = ge.hcom_all_reduce %p1 reduction sum group "tp" rank_size 2 : tensor<4x32xf16>
    %s = ge.concat %s0, %s1 axis 0 : tensor<4x32xf16>, tensor<4x32xf16> -> tensor<8x32xf16>

The new ops keep the locations of the ops they come from (and their stream labels).
Statistics: `matmuls-split`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils.errors import OptionError
from ge_dialect.utils.walk import walk_ops
from transforms import reports
from transforms.common import refuse_assigned


def row_pieces(rows: int, chunks: int) -> list[tuple[int, int]]:
    """The [start, end) rows of each piece: min(chunks, rows) pieces, the first
    `rows % pieces` one row longer."""
    k = min(chunks, rows)
    size, extra = divmod(rows, k)
    pieces = []
    start = 0
    for i in range(k):
        end = start + size + (i < extra)
        pieces.append((start, end))
        start = end
    return pieces


def _rows_of(value: SSAValue) -> int | None:
    """The rows of `value` if it is a 2-D ND tensor, else None."""
    t = value.type
    if not isinstance(t, TensorType) or t.get_num_dims() != 2:
        return None
    if ge.tensor_format(t) != ge.Format.ND:
        return None
    return t.get_shape()[0]


def _row_input(op: Operation) -> SSAValue | None:
    """The operand whose rows alone make each row of `op`'s result: a matmul's left operand
    (not transposed) or a unary elementwise op's input, 2-D ND with as many rows; else None."""
    if isinstance(op, ge.MatMulOp) and op.transpose_a is None:
        source = op.a
    elif isinstance(op, ge.UnaryElementwiseOp):
        source = op.input
    else:
        return None
    rows = _rows_of(op.results[0])
    return source if rows is not None and _rows_of(source) == rows else None


def _splittable(mm: Operation) -> ge.HcomAllReduceOp | None:
    """The all-reduce that alone uses `mm`'s result, if `mm` is a matmul whose rows can be
    cut (`_row_input`, at least 2 rows) in the same block."""
    if not isinstance(mm, ge.MatMulOp) or _row_input(mm) is None:
        return None
    uses = list(mm.output.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, ge.HcomAllReduceOp):
        return None
    reduce = uses[0].operation
    rows = _rows_of(mm.output)
    if rows is None or rows < 2 or reduce.parent is not mm.parent:
        return None
    return reduce


def row_chain(mm: ge.MatMulOp) -> tuple[list[Operation], SSAValue]:
    """`mm` and the row-wise ops above it whose result feeds only the next (top first), and
    the value the chain starts from: the pieces cut that value's rows."""
    chain: list[Operation] = [mm]
    value = _row_input(mm)
    assert value is not None
    while True:
        producer = value.owner
        if not isinstance(producer, Operation) or producer.parent is not mm.parent:
            break
        if len(producer.results) != 1 or len(list(value.uses)) != 1:
            break
        source = _row_input(producer)
        if source is None:
            break
        chain.insert(0, producer)
        value = source
    return chain, value


def _rows(t: Attribute, rows: int) -> TensorType:
    """`t` (a tensor type) with `rows` rows."""
    assert isinstance(t, TensorType)
    return TensorType(t.element_type, [rows, *t.get_shape()[1:]], t.encoding)


def _like(new: Operation, old: Operation) -> Operation:
    """`new` with `old`'s location and discardable attributes (its stream label)."""
    new.location = old.location
    new.attributes.update(old.attributes)
    return new


def _piece(op: Operation, source: SSAValue, rows: int) -> Operation:
    """`op` on `rows` rows: its row operand replaced by `source`, its result row-cut."""
    row_input = _row_input(op)
    operands = [source if v is row_input else v for v in op.operands]
    new = type(op).create(
        operands=operands,
        result_types=[_rows(op.results[0].type, rows)],
        properties=dict(op.properties),
    )
    return _like(new, op)


def split(mm: ge.MatMulOp, reduce: ge.HcomAllReduceOp, chunks: int) -> None:
    """Cuts `mm`'s row chain and `reduce` into row pieces (see the module's docstring)."""
    chain, root = row_chain(mm)
    rows = _rows_of(root)
    assert rows is not None
    pieces: list[Operation] = []
    reduced = []
    previous: SSAValue | None = None
    for start, end in row_pieces(rows, chunks):
        source = root
        if previous is not None:  # after the previous piece: one chain, one stream
            after = _like(stream.WaitTensorOp(root, previous), chain[0])
            pieces.append(after)
            source = after.results[0]
        part = _like(
            ge.SliceOp(source, [start], [end], [0], [1], _rows(root.type, end - start)),
            chain[0],
        )
        pieces.append(part)
        value = part.results[0]
        for op in chain:
            new = _piece(op, value, end - start)
            pieces.append(new)
            value = new.results[0]
        previous = value
        piece = _like(
            ge.HcomAllReduceOp(
                value, reduce.reduction.data, reduce.group.data, reduce.rank_size.value.data
            ),
            reduce,
        )
        pieces.append(piece)
        reduced.append(piece.results[0])
    joined = _like(ge.ConcatOp(reduced, 0, reduce.output.type), reduce)
    Rewriter.insert_op([*pieces, joined], InsertPoint.before(reduce))
    reduce.output.replace_all_uses_with(joined.results[0])
    Rewriter.erase_op(reduce)
    for op in reversed(chain):
        Rewriter.erase_op(op)


@dataclass(frozen=True)
class OverlapPass(ModulePass):
    """Cuts each matmul feeding an all-reduce into row pieces, so that they overlap."""

    name = "overlap"

    STATISTICS: ClassVar[dict[str, str]] = {
        "matmuls-split": "matmuls cut into row pieces, each with its own all-reduce",
    }

    chunks: int = 2

    def __post_init__(self) -> None:
        if self.chunks < 2:
            raise OptionError(f"overlap: chunks must be at least 2, got {self.chunks}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        found = [(mm, reduce) for mm in walk_ops(op) if (reduce := _splittable(mm)) is not None]
        for mm, reduce in found:
            assert isinstance(mm, ge.MatMulOp)
            split(mm, reduce, self.chunks)
        reports.count(op, self.name, "matmuls-split", len(found))
