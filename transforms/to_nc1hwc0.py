"""--to-nc1hwc0: run convolutions in NC1HWC0 with FRACTAL_Z weights, and place TransData.

**Sources.** `ge.conv2d` and `ge.fused_conv2d` always run in NC1HWC0: input, residual and
result NC1HWC0, the weight FRACTAL_Z (grouped for grouped and depthwise convs).

**What an op computes on its stored arrays.**  A kernel of the device works on the stored
(physical) arrays: an NC1HWC0 value of logical shape [N, C, H, W] is stored as
[N, C1, H, W, C0] with zero padding lanes, an ND operand as itself, and broadcasting is
numpy's on the stored shapes.  An op may run in NC1HWC0 only where that equals the logical
result (its logical lanes; padding lanes stay zero):

- relu, relu6, leaky_relu, clip, sigmoid, silu, identity, exp, log, tanh, erf, sqrt, rsqrt,
  neg, reciprocal, gelu: f on every lane, padding lanes written 0 (f(0) != 0 for sigmoid,
  exp, log, rsqrt, reciprocal and for a clip whose range excludes 0).  Always the logical
  result: lane by lane.
- batch_norm: `x * s + t`, s and t per channel stored as [1, C1, 1, 1, C0] (zero padded).
  Always.
- max_pool, avg_pool, global_avg_pool: the window over the H and W axes of [N, C1, H, W, C0],
  per lane.  Always (padding lanes pool zeros).
- add, sub, mul, div, maximum, minimum, pow: numpy broadcasting of the stored operands
  (padding lanes written 0 whatever 0 / 0 or 0 ** 0 gives).  The logical result when every
  operand is NC1HWC0 with the result's C (logical [N or 1, C, H or 1, W or 1]), or, for mul
  only, an ND operand of rank < 4 whose dims are all 1 (a scalar: 0 * s keeps the padding
  lanes zero).
- concat: concatenation along the stored axis (C: the C1 axis).  The logical result on N, H
  or W; on C only when every input but the last is C0-aligned.
- conv2d, fused_conv2d (the sources): im2col and matmul with the FRACTAL_Z weight, whose
  padding channels are zero.

Any other op keeps its layout.  In particular a *computed* operand that broadcasts over C
([N, 1, H, W], [1, 1, 1, 1]) holds its data in lane 0 of each C0 block once stored as
NC1HWC0, so an elementwise kernel on the stored arrays would zero (mul) or leave unchanged
(add) 15 of every 16 channels, and a rank < 4 operand such as [W] lines up with the C0 axis
instead of W: such an op stays ND.  A *constant* operand of another shape is made legal at
compile time instead: it becomes an NC1HWC0 constant of logical shape [n, C, h, w] (its shape
left-padded to rank 4, replicated across C when it broadcasts over C), whose stored array
broadcasts lane by lane.  That copy costs no run-time bytes, where keeping the op ND costs
conversions, and it is never larger than the op's result.  (A scalar constant of `mul` stays
as it is.)

**Placement: a minimum cut.**  Every other op that may run in NC1HWC0 (above) gets one of two
labels, NC1HWC0 or its original layout; convs are fixed to NC1HWC0, all other ops and the
function results to their original layout, function arguments to theirs unless
`boundary=nc1hwc0` (then they are free too; results then take the layout of the value).  A
value costs one conversion when its producer and its readers do not all agree, shared by
all its readers in the other layout: a hyperedge cut.  Its weight is the bytes the
conversion moves (physical bytes read + written; a constant is converted at compile time and
costs 0); a user's own trans_data between a value's layout and NC1HWC0 counts as a reader or
producer in NC1HWC0, since the pass's conversion would cancel against it.  The labelling
minimises, in this order, the bytes converted, the number of conversions, and the arguments
whose layout changes plus the constants replicated across C; among equal ones the most ops run
in NC1HWC0; an op joined to no conv keeps its layout.  It is exact:
`ge_dialect.utils.hypercut.min_hypercut`, Lawler's construction (each value two auxiliary nodes
joined by its weight) solved by scipy's `maximum_flow`.  A function without a conv is left
alone.

**Rewrite.** Every operand gets the layout its op needs: constants are converted at compile
time (physical storage, zero padding; no trans_data ever runs on a constant), other values
get one `ge.trans_data` right after their definition, shared by all users that need it (a
value read as a FRACTAL_Z weight is converted from its original layout).  Function
arguments and results keep their declared layout (`boundary=keep`), or take the layout the
cut gives them (`boundary=nc1hwc0`; a function called inside the module keeps its
signature).  Inverse trans_data pairs cancel (those already in the input first, so that the
cut sees the graph without them), sibling conversions merge, and the constants and
conversions left unused are erased.

Options: `boundary=keep|nc1hwc0`, `fp32-c0=16|8` (with 8 every fp32 NC1HWC0/FRACTAL_Z value
the pass creates has C0 = 8).  An assigned module is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import FunctionType, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.dtypes import itemsize
from ge_dialect.utils.errors import op_error
from ge_dialect.utils.hypercut import SINK, SOURCE, min_hypercut
from ge_dialect.utils.walk import block_ops, walk_ops
from transforms import reports
from transforms.common import constant_of, erase_dead, refuse_assigned
from transforms.options import check_literal_options

Boundary = Literal["keep", "nc1hwc0"]
"""The values of the `boundary` option."""

Fp32C0 = Literal[16, 8]
"""The values of the `fp32-c0` option."""

_SOURCES = (ge.Conv2DOp, ge.FusedConv2DOp)
_UNARY = (
    ge.ReluOp,
    ge.Relu6Op,
    ge.LeakyReluOp,
    ge.SigmoidOp,
    ge.SiluOp,
    ge.ClipOp,
    ge.IdentityOp,
    ge.ExpOp,
    ge.LogOp,
    ge.TanhOp,
    ge.ErfOp,
    ge.SqrtOp,
    ge.RsqrtOp,
    ge.NegOp,
    ge.ReciprocalOp,
    ge.GeluOp,
    ge.SinOp,
    ge.CosOp,
)
_BINARY = (ge.AddOp, ge.SubOp, ge.MulOp, ge.DivOp, ge.MaximumOp, ge.MinimumOp, ge.PowOp)
_POOLS = (ge.MaxPoolOp, ge.AvgPoolOp, ge.GlobalAvgPoolOp)
_STORABLE = (ge.Format.NCHW, ge.Format.NHWC, ge.Format.NC1HWC0)
_CONVERSIONS = (ge.ConstOp, ge.TransDataOp)
"""The ops the pass erases once unused: constants and layout conversions."""

Shape = tuple[int, ...]


def _is_rank4(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and value.type.get_num_dims() == 4


def _shape(value: SSAValue) -> Shape:
    t = value.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def _storable(value: SSAValue) -> bool:
    """A rank-4 activation that may be stored as NC1HWC0 (NCHW, NHWC or NC1HWC0 now)."""
    return _is_rank4(value) and ge.tensor_format(value.type) in _STORABLE


def _same_type(a: Attribute, b: Attribute) -> bool:
    """`a == b`, answered at once for tensor types of different encodings (the pass's usual
    question: a value's type against its NC1HWC0 or FRACTAL_Z one), where `==` would first
    compare their shapes element by element."""
    if a is b:
        return True
    if (
        isinstance(a, TensorType)
        and isinstance(b, TensorType)
        and type(a.encoding) is not type(b.encoding)
    ):
        return False
    return a == b


def _is_constant(value: SSAValue) -> bool:
    """Defined by a `ge.const` (readable or elided): converted at compile time."""
    return isinstance(value.owner, ge.ConstOp)


class CancelInverseTransData(RewritePattern):
    """A trans_data back to the layout its input came from disappears.

      %a = ge.trans_data %x : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
      %b = ge.trans_data %a : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
    ->
      uses of %b use %x   (%a stays if it has other users)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.TransDataOp, rewriter: PatternRewriter) -> None:
        first = op.input.owner
        if isinstance(first, ge.TransDataOp) and first.input.type == op.output.type:
            rewriter.replace(op, [], [first.input])


class MergeSiblingTransData(RewritePattern):
    """Two conversions of one value to the same type become one (the earlier stays).

      %a = ge.trans_data %x : T -> U
      %b = ge.trans_data %x : T -> U
    ->
      uses of %b use %a
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.TransDataOp, rewriter: PatternRewriter) -> None:
        for use in op.input.uses:
            other = use.operation
            if (
                other is not op
                and isinstance(other, ge.TransDataOp)
                and other.output.type == op.output.type
                and other.attributes == op.attributes
                and other.is_before_in_block(op)
            ):
                rewriter.replace(op, [], [other.output])
                return


class _TransDataWalker(PatternRewriteWalker):
    """xDSL's walker, whose worklist starts with the trans_data ops only (in the same order):
    the patterns match nothing else, so visiting the other ops changed nothing but the time
    (every op of the module, once more per round after a round that rewrote something)."""

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        reverse, region_first = not self.walk_reverse, not self.walk_regions_first
        if isinstance(op, Operation):  # (a walk backwards is a walk forwards reversed)
            found = walk_ops(op, region_first=region_first != reverse)
            ops = reversed(found) if reverse else iter(found)
        else:
            ops = iter(op.walk(reverse=reverse, region_first=region_first))
        for sub_op in ops:
            if isinstance(sub_op, ge.TransDataOp):
                self._worklist.push(sub_op)


def _simplify_conversions(module: builtin.ModuleOp) -> None:
    """Cancels inverse trans_data pairs, merges siblings, erases what is left unused."""
    patterns = GreedyRewritePatternApplier(
        [CancelInverseTransData(), MergeSiblingTransData()], dce_enabled=False
    )
    _TransDataWalker(patterns).rewrite_module(module)
    for fn in walk_ops(module):
        if isinstance(fn, func.FuncOp) and fn.body.blocks:
            _erase_dead_conversions(fn.body.block)


def _erase_dead_conversions(block: Block) -> None:
    """Erases the constants and trans_data of `block` that have no use (those the rewrite
    left unused among them), and nothing else: users first, so that one walk backwards
    erases whole chains of them."""
    candidates = [op for op in reversed(block_ops(block)) if isinstance(op, _CONVERSIONS)]
    erase_dead(candidates, follow_producers=False)


@dataclass
class _Layout:
    """What the pass decided: the ops running in NC1HWC0 with the logical shape of each operand
    they read in NC1HWC0, the arguments passed in NC1HWC0, and the C0 of fp32 values."""

    fp32_c0: int
    nc1hwc0: set[Operation] = field(default_factory=set)
    arguments: set[SSAValue] = field(default_factory=set)
    operands: dict[Operation, dict[int, Shape]] = field(default_factory=dict)
    _types: dict[Attribute, TensorType] = field(default_factory=dict)
    _bytes: dict[Attribute, int] = field(default_factory=dict)
    _by_id: dict[int, tuple[Attribute, TensorType]] = field(default_factory=dict)
    _bytes_by_id: dict[int, tuple[Attribute, int]] = field(default_factory=dict)
    _fractal_z_by_id: dict[tuple[int, int], tuple[Attribute, TensorType]] = field(
        default_factory=dict
    )

    def c0(self, t: TensorType) -> int:
        """The C0 to write into `t`'s encoding (0: the dtype's default)."""
        return self.fp32_c0 if isinstance(t.element_type, builtin.Float32Type) else 0

    def nc1hwc0_type(self, t: Attribute) -> TensorType:
        # by identity first: a value's type object is asked for as a result and as an
        # operand, and hashing a type walks all its parameters
        known = self._by_id.get(id(t))
        if known is not None and known[0] is t:
            return known[1]
        found = self._types.get(t)
        if found is None:
            assert isinstance(t, TensorType)
            found = self._types[t] = ge.with_format(t, ge.Format.NC1HWC0, self.c0(t))
        self._by_id[id(t)] = (t, found)  # holds `t`: its id is not reused meanwhile
        return found

    def fractal_z_type(self, t: Attribute, groups: int) -> TensorType:
        key = (id(t), groups)  # by identity, as `nc1hwc0_type` (weights share type objects)
        known = self._fractal_z_by_id.get(key)
        if known is not None and known[0] is t:
            return known[1]
        assert isinstance(t, TensorType)
        found = ge.with_format(t, ge.Format.FRACTAL_Z, self.c0(t), groups)
        self._fractal_z_by_id[key] = (t, found)  # holds `t`: its id is not reused meanwhile
        return found

    def conversion_bytes(self, value: SSAValue) -> int:
        """The bytes converting `value` between its type and NC1HWC0 moves (read + written),
        0 when it needs no run-time conversion (a constant, or already that type)."""
        t = value.type
        if _is_constant(value) or not _storable(value):
            return 0
        known = self._bytes_by_id.get(id(t))  # by identity first, as `nc1hwc0_type`
        if known is not None and known[0] is t:
            return known[1]
        if t not in self._bytes:
            assert isinstance(t, TensorType)
            t5 = self.nc1hwc0_type(t)
            elements = math.prod(ge.physical_shape(t)) + math.prod(ge.physical_shape(t5))
            self._bytes[t] = 0 if t5 == t else elements * itemsize(t.element_type)
        self._bytes_by_id[id(t)] = (t, self._bytes[t])
        return self._bytes[t]

    def enters(self, op: Operation) -> bool:
        """A trans_data from its input's layout to the NC1HWC0 type the pass would give it."""
        return isinstance(op, ge.TransDataOp) and (
            op.input.type != op.output.type
            and _storable(op.input)
            and self.nc1hwc0_type(op.input.type) == op.output.type
        )

    def leaves(self, op: Operation) -> bool:
        """A trans_data from the NC1HWC0 type the pass gives its result to that result's type."""
        return isinstance(op, ge.TransDataOp) and (
            op.input.type != op.output.type
            and _storable(op.output)
            and self.nc1hwc0_type(op.output.type) == op.input.type
        )


def _binary_operands(op: ge.BinaryElementwiseOp) -> dict[int, Shape] | None:
    """The operands an elementwise op reads in NC1HWC0, with their logical shapes there, or
    None when its stored arrays would not broadcast to the logical result (module docstring)."""
    n, c, h, w = _shape(op.output)
    operands: dict[int, Shape] = {}
    for i, value in enumerate(op.operands):
        shape = _shape(value)
        padded = (1,) * (4 - len(shape)) + shape
        scalar = len(shape) < 4 and all(d == 1 for d in shape)
        if _storable(value) and padded[1] == c:
            operands[i] = padded  # stored [n, C1, h, w, C0]: broadcasts lane by lane
        elif scalar and isinstance(op, ge.MulOp):
            continue  # an ND scalar: broadcasts, and 0 * s keeps the padding lanes zero
        elif _is_constant(value):
            operands[i] = (padded[0], c, padded[2], padded[3])  # reshaped (and replicated)
        else:
            return None  # a computed C broadcast ([N, 1, H, W]) or a rank < 4 operand
    return operands


def _nc1hwc0_operands(op: Operation, layout: _Layout) -> dict[int, Shape] | None:
    """The operands `op` reads in NC1HWC0 when it runs there (each with its logical shape
    there), or None when it cannot run in NC1HWC0 (the table of the module docstring)."""
    if isinstance(op, _SOURCES):
        operands = {0: _shape(op.input)}
        if isinstance(op, ge.FusedConv2DOp) and op.residual is not None:
            operands[len(op.operands) - 1] = _shape(op.residual)
        return operands
    if not op.results or not _is_rank4(op.results[0]):
        return None
    if isinstance(op, _UNARY + _POOLS + (ge.BatchNormOp,)):
        return {0: _shape(op.operands[0])} if _storable(op.operands[0]) else None
    if isinstance(op, _BINARY):
        return _binary_operands(op)
    if isinstance(op, ge.ConcatOp):
        if not all(_storable(v) or _is_constant(v) for v in op.inputs):
            return None
        if op.axis.value.data == 1:
            for value in op.inputs[:-1]:
                t = layout.nc1hwc0_type(value.type)
                if t.get_shape()[1] % ge.tensor_c0(t):
                    return None
        return {i: _shape(v) for i, v in enumerate(op.inputs)}
    return None


def _decide_layout(fn: func.FuncOp, fp32_c0: int, boundary: Boundary) -> _Layout:
    """The layout of each op of `fn`'s body: a minimum hyperedge cut (module docstring).

    Its free nodes are the ops that may run in NC1HWC0 and, with `boundary=nc1hwc0`, the
    arguments (`_free_nodes`); the source side is NC1HWC0, the sink side the original
    layout; each value that may need a conversion is a hyperedge (`_hyperedges`)."""
    layout = _Layout(fp32_c0)
    block = fn.body.block
    ops = block_ops(block)
    if not any(isinstance(op, _SOURCES) for op in ops):
        return layout
    nodes, prefer_sink = _free_nodes(block, ops, layout, boundary)
    values = [*block.args, *(r for op in ops for r in op.results)]
    hyperedges = _hyperedges(values, layout, nodes, boundary)
    labels = min_hypercut(len(nodes), hyperedges, prefer_sink)
    for key, index in nodes.items():
        if labels[index]:
            if isinstance(key, Operation):
                layout.nc1hwc0.add(key)
            else:
                layout.arguments.add(key)
    layout.nc1hwc0.update(op for op in ops if isinstance(op, _SOURCES))
    return layout


_Nodes = dict[SSAValue | Operation, int]
"""The free nodes of the cut: an argument or an op, and its number."""


def _free_nodes(
    block: Block, ops: list[Operation], layout: _Layout, boundary: Boundary
) -> tuple[_Nodes, list[int]]:
    """The free nodes of the cut, numbered, and those to put on the sink side among equal
    cuts: first, with `boundary=nc1hwc0`, the arguments that would cost a conversion (all
    preferred in their layout); then the ops that may run in NC1HWC0 but the convs (fixed
    to it), preferred in their layout when they would replicate a constant across C.
    Records in `layout.operands` the operands each of those ops, convs included, reads in
    NC1HWC0."""
    nodes: _Nodes = {}
    prefer_sink: list[int] = []
    if boundary == "nc1hwc0":
        for arg in block.args:
            if layout.conversion_bytes(arg):
                prefer_sink.append(nodes.setdefault(arg, len(nodes)))
    for op in ops:
        if isinstance(op, ge.ConstOp):
            continue
        operands = _nc1hwc0_operands(op, layout)
        if operands is None:
            continue
        layout.operands[op] = operands
        if not isinstance(op, _SOURCES):
            nodes[op] = len(nodes)
            if _replicates_a_constant(op, operands):
                prefer_sink.append(nodes[op])
    return nodes, prefer_sink


def _replicates_a_constant(op: Operation, operands: dict[int, Shape]) -> bool:
    """Whether running `op` in NC1HWC0, reading `operands` in these logical shapes, makes a
    constant operand larger (replicated across C)."""
    return any(
        math.prod(shape) > math.prod(_shape(op.operands[i]))
        for i, shape in operands.items()
        if _is_constant(op.operands[i])
    )


def _hyperedges(
    values: list[SSAValue], layout: _Layout, nodes: _Nodes, boundary: Boundary
) -> list[tuple[list[int], int]]:
    """The hyperedges of the cut: for each of `values` that has a use and whose conversion
    moves bytes, the node of its producer and those of its readers (each node once, in the
    order of the uses), weighted by those bytes."""
    hyperedges: list[tuple[list[int], int]] = []
    for value in values:
        weight = layout.conversion_bytes(value)
        if not weight or not value.uses:
            continue
        members = [_producer_node(value, layout, nodes)]
        for use in value.uses:
            member = _reader_node(use.operation, use.index, layout, nodes, boundary)
            if member is not None and member not in members:
                members.append(member)
        hyperedges.append((members, weight))
    return hyperedges


def _producer_node(value: SSAValue, layout: _Layout, nodes: _Nodes) -> int:
    """The node of the cut that defines `value`: the source for a conv, and for a
    trans_data out of NC1HWC0 (the pass's conversion back would cancel against it); the
    node of a free op or argument; else the sink (an op or argument that keeps its
    layout)."""
    owner = value.owner
    if isinstance(owner, Operation) and (isinstance(owner, _SOURCES) or layout.leaves(owner)):
        return SOURCE
    return nodes.get(owner if isinstance(owner, Operation) else value, SINK)


def _reader_node(
    op: Operation, index: int, layout: _Layout, nodes: _Nodes, boundary: Boundary
) -> int | None:
    """The node of the cut that reads operand `index` of `op`: for the return, the sink
    (`boundary=keep`) or none (the result takes the value's layout); for an operand read in
    NC1HWC0, the source (a conv) or the op's free node; the source for a trans_data into
    NC1HWC0 (the pass's conversion would cancel against it); else the sink."""
    if isinstance(op, func.ReturnOp):
        return SINK if boundary == "keep" else None
    if op in layout.operands and index in layout.operands[op]:
        return SOURCE if isinstance(op, _SOURCES) else nodes[op]
    return SOURCE if layout.enters(op) else SINK


class _Converter:
    """Gives the values of one function body other types: converted constants, shared
    trans_data, retyped results (the layout passes' rewrite machinery)."""

    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.block = fn.body.block
        self.converted: dict[tuple[SSAValue, Attribute], SSAValue] = {}
        self.original: dict[SSAValue, Attribute] = {}  # retyped value -> its type before
        self.inserted = 0  # trans_data created (for the pass statistics)

    def convert(self, value: SSAValue, want: Attribute) -> SSAValue:
        """`value` in type `want`: a converted constant (reshaped and broadcast to `want`'s
        shape if needed) or one shared trans_data."""
        if _same_type(value.type, want):
            return value
        key = (value, want)
        if key in self.converted:
            return self.converted[key]
        const = constant_of(value)
        owner = value.owner
        if isinstance(owner, ge.ConstOp) and isinstance(owner.value, ge.ElidedAttr):
            new: Operation = ge.ConstOp(ge.ElidedAttr(), want)  # still a constant, still elided
            new.attributes.update(owner.attributes)
            point = InsertPoint.after(owner)
        elif const is not None:
            assert isinstance(want, TensorType)
            shape = tuple(want.get_shape())
            array = const.logical_array()
            if array.shape != shape:
                array = array.reshape((1,) * (len(shape) - array.ndim) + array.shape)
                array = np.broadcast_to(array, shape)
            new = ge.ConstOp.from_numpy(array, want)
            new.attributes.update(const.attributes)
            point = InsertPoint.after(const)
        else:
            new = ge.TransDataOp(value, want)
            self.inserted += 1
            if isinstance(owner, Operation):
                new.attributes.update(
                    {k: v for k, v in owner.attributes.items() if k.startswith("stream.")}
                )
                point = InsertPoint.after(owner)
            else:
                point = InsertPoint.at_start(self.block)
        new.location = owner.location if isinstance(owner, Operation) else self.fn.location
        Rewriter.insert_op(new, point)
        self.converted[key] = new.results[0]
        return new.results[0]

    def set_operand(self, op: Operation, index: int, want: Attribute) -> None:
        op.operands[index] = self.convert(op.operands[index], want)

    def retype_result(self, value: SSAValue, want: Attribute) -> None:
        if _same_type(value.type, want):
            return
        new = Rewriter.replace_value_with_new_type(value, want)
        self.original[new] = value.type


class _Rewrite(_Converter):
    """Applies a `_Layout` to one function body."""

    def __init__(self, fn: func.FuncOp, layout: _Layout, boundary: Boundary):
        super().__init__(fn)
        self.layout = layout
        self.boundary = boundary

    def run(self) -> None:
        ops = block_ops(self.block)
        if self.boundary == "nc1hwc0":
            for arg in list(self.block.args):
                if arg in self.layout.arguments:
                    self.retype_result(arg, self.layout.nc1hwc0_type(arg.type))
        for op in ops:
            if op in self.layout.nc1hwc0:
                self.rewrite_nc1hwc0(op)
            elif isinstance(op, func.ReturnOp) and self.boundary == "nc1hwc0":
                continue
            else:
                for i, operand in enumerate(op.operands):
                    if operand in self.original:
                        self.set_operand(op, i, self.original[operand])
        if self.boundary == "nc1hwc0":
            self.update_signature()

    def rewrite_nc1hwc0(self, op: Operation) -> None:
        layout = self.layout
        for i, shape in layout.operands[op].items():
            t = op.operands[i].type
            assert isinstance(t, TensorType)
            if tuple(t.get_shape()) != shape:  # (the NC1HWC0 type of `t` is that of its
                t = TensorType(t.element_type, shape)  # element type and shape only)
            self.set_operand(op, i, layout.nc1hwc0_type(t))
        for i, operand in enumerate(op.operands):  # the others are read in their original type
            if i not in layout.operands[op] and operand in self.original:
                self.set_operand(op, i, self.original[operand])
        if isinstance(op, _SOURCES):
            weight = op.filter
            fractal_z = layout.fractal_z_type(weight.type, op.groups.value.data)
            self.set_operand(op, 1, fractal_z)
        for result in op.results:
            self.retype_result(result, layout.nc1hwc0_type(result.type))

    def update_signature(self) -> None:
        ret = self.block.last_op
        assert isinstance(ret, func.ReturnOp)
        self.fn.function_type = FunctionType.from_lists(
            [a.type for a in self.block.args], [v.type for v in ret.arguments]
        )


@dataclass(frozen=True)
class ToNC1HWC0Pass(ModulePass):
    """Runs convs in NC1HWC0 with FRACTAL_Z weights and places the trans_data they need."""

    name = "to-nc1hwc0"

    STATISTICS: ClassVar[dict[str, str]] = {
        "trans-data-inserted": "ge.trans_data inserted around NC1HWC0 ops",
        "trans-data-cancelled": "ge.trans_data cancelled, merged or left unused",
        "nc1hwc0-ops": "ops that run in NC1HWC0",
    }

    boundary: Boundary = "keep"
    fp32_c0: Fp32C0 = 16

    def __post_init__(self) -> None:
        # xDSL's pipeline parser checks the Literals too, less clearly, and lets a float
        # equal to a choice through (`fp32-c0=8.0`).
        check_literal_options(self)

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        # one walk for the trans_data, calls and functions (rewriting function bodies adds
        # neither functions nor calls)
        conversions = 0
        calls: list[func.CallOp] = []
        functions: list[func.FuncOp] = []
        for o in walk_ops(op):
            if isinstance(o, ge.TransDataOp):
                conversions += 1
            elif isinstance(o, func.CallOp):
                calls.append(o)
            elif isinstance(o, func.FuncOp):
                functions.append(o)
        if conversions:
            _simplify_conversions(op)  # the input's own inverse pairs, before the cut
        called = {c.callee.string_value() for c in calls}
        inserted = in_nc1hwc0 = 0
        for fn in functions:
            if len(fn.body.blocks) > 1:
                raise op_error(
                    fn,
                    f"has {len(fn.body.blocks)} blocks: --{self.name} handles function "
                    "bodies of one block only",
                )
        for fn in functions:
            if fn.body.blocks:
                # A called function keeps its signature, so that its call sites stay valid.
                boundary: Boundary = "keep" if fn.sym_name.data in called else self.boundary
                layout = _decide_layout(fn, self.fp32_c0, boundary)
                rewrite = _Rewrite(fn, layout, boundary)
                rewrite.run()
                inserted += rewrite.inserted
                in_nc1hwc0 += len(layout.nc1hwc0)
        _simplify_conversions(op)
        left = sum(isinstance(o, ge.TransDataOp) for o in walk_ops(op))
        reports.count(op, self.name, "trans-data-inserted", inserted)
        reports.count(op, self.name, "trans-data-cancelled", conversions + inserted - left)
        reports.count(op, self.name, "nc1hwc0-ops", in_nc1hwc0)
