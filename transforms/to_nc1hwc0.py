"""--to-nc1hwc0: run convolutions in NC1HWC0 with FRACTAL_Z weights, and place TransData.

Which ops run in NC1HWC0:

- sources: `ge.conv2d` and `ge.fused_conv2d` (input, residual and result NC1HWC0; the
  weight FRACTAL_Z, grouped for grouped and depthwise convs);
- propagation: activations (relu, relu6, leaky_relu, sigmoid, silu, clip), identity,
  batch_norm, pooling, concat and elementwise add/sub/mul join a neighbour that runs in
  NC1HWC0 — forward from a producer, or backward when every user of their result does.
  Elementwise ops qualify when their operands have the result's logical shape or broadcast
  only over N, H, W (`[N, C, 1, 1]`); a broadcast over C is layout-safe only for `mul`.
  A channel concat qualifies when all its inputs but the last are C0-aligned (a concat on
  N, H or W always does). A standalone op at a graph edge keeps its layout.

Then every operand gets the layout its op needs (a lower-rank per-channel constant of an
elementwise op becomes a `[1, C, 1, 1]` one): constants are converted at compile time
(physical storage, zero padding; no trans_data ever runs on a constant), other values get
one `ge.trans_data` right after their definition, shared by all users that need it.
Function arguments and results keep their declared layout (`boundary=keep`), or take
NC1HWC0 (`boundary=nc1hwc0`; a function called inside the module keeps its signature).
Finally inverse trans_data pairs cancel, sibling conversions merge, and the constants and
conversions left unused are erased.

Options: `boundary=keep|nc1hwc0`, `fp32-c0=16|8` (with 8 every fp32 NC1HWC0/FRACTAL_Z value
the pass creates has C0 = 8).  An assigned module is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import FunctionType, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect import ge
from transforms.common import constant_of, refuse_assigned
from transforms.options import check_literal_options

Boundary = Literal["keep", "nc1hwc0"]
"""The values of the `boundary` option."""

Fp32C0 = Literal[16, 8]
"""The values of the `fp32-c0` option."""

_SOURCES = (ge.Conv2DOp, ge.FusedConv2DOp)
_UNARY = (ge.ReluOp, ge.Relu6Op, ge.LeakyReluOp, ge.SigmoidOp, ge.SiluOp, ge.ClipOp, ge.IdentityOp)
_BINARY = (ge.AddOp, ge.SubOp, ge.MulOp)
_POOLS = (ge.MaxPoolOp, ge.AvgPoolOp, ge.GlobalAvgPoolOp)


def _is_rank4(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and value.type.get_num_dims() == 4


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


def _erase_dead_conversions(block: Block) -> None:
    """Erases the constants and trans_data the rewrite left unused (nothing else)."""
    for op in reversed(list(block.ops)):
        if isinstance(op, ge.ConstOp | ge.TransDataOp) and not any(r.uses for r in op.results):
            Rewriter.erase_op(op)


@dataclass
class _Layout:
    """What the pass decided: the ops running in NC1HWC0 and the C0 of fp32 values."""

    fp32_c0: int
    nc1hwc0: set[Operation]
    _types: dict[Attribute, TensorType] = field(default_factory=dict)

    def c0(self, t: TensorType) -> int:
        """The C0 to write into `t`'s encoding (0: the dtype's default)."""
        return self.fp32_c0 if isinstance(t.element_type, builtin.Float32Type) else 0

    def nc1hwc0_type(self, t: Attribute) -> TensorType:
        if t not in self._types:
            assert isinstance(t, TensorType)
            self._types[t] = ge.with_format(t, ge.Format.NC1HWC0, self.c0(t))
        return self._types[t]

    def fractal_z_type(self, t: Attribute, groups: int) -> TensorType:
        assert isinstance(t, TensorType)
        return ge.with_format(t, ge.Format.FRACTAL_Z, self.c0(t), groups)


def _broadcast_ok(op: Operation) -> bool:
    """Elementwise operands either match the result's logical shape or broadcast over N, H, W
    only; a broadcast over C is layout-safe for mul alone."""
    out = op.results[0].type
    assert isinstance(out, TensorType)
    channels = out.get_shape()[1]
    for operand in op.operands:
        t = operand.type
        assert isinstance(t, TensorType)
        if t.get_num_dims() == 4 and t.get_shape()[1] == channels:
            continue
        if _channel_constant(op, operand):
            continue
        if not isinstance(op, ge.MulOp):
            return False
    return True


def _can_propagate(op: Operation, layout: _Layout) -> bool:
    """Whether `op` may run in NC1HWC0 (given a neighbour that does)."""
    if not op.results or not _is_rank4(op.results[0]):
        return False
    if isinstance(op, _UNARY + _POOLS + (ge.BatchNormOp,)):
        return True
    if isinstance(op, _BINARY):
        return _broadcast_ok(op)
    if isinstance(op, ge.ConcatOp):
        if op.axis.value.data != 1:
            return True
        for value in op.inputs[:-1]:
            t = layout.nc1hwc0_type(value.type)
            if t.get_shape()[1] % ge.tensor_c0(t):
                return False
        return True
    return False


def _layout_indices(op: Operation) -> list[int]:
    """The operand slots of an NC1HWC0 op that take NC1HWC0 (weights and BN params do not;
    a per-channel constant of lower rank does, reshaped to [1, C, 1, 1])."""
    if isinstance(op, _SOURCES):
        residual = isinstance(op, ge.FusedConv2DOp) and op.residual is not None
        return [0] + ([len(op.operands) - 1] if residual else [])
    if isinstance(op, ge.BatchNormOp):
        return [0]
    return [i for i, v in enumerate(op.operands) if _is_rank4(v) or _channel_constant(op, v)]


def _layout_operands(op: Operation) -> list[SSAValue]:
    """The operands of `op` in the slots `_layout_indices` names."""
    return [op.operands[i] for i in _layout_indices(op)]


def _channel_constant(op: Operation, value: SSAValue) -> bool:
    """A lower-rank constant operand of an elementwise op that varies along C only."""
    t = value.type
    out = op.results[0].type if op.results else None
    if not isinstance(op, _BINARY) or constant_of(value) is None or not isinstance(out, TensorType):
        return False
    assert isinstance(t, TensorType)
    shape = (1,) * (4 - t.get_num_dims()) + tuple(t.get_shape())
    if out.get_num_dims() != 4:
        return False
    channels = out.get_shape()[1]
    return shape == (1, channels, 1, 1) and channels > 1


def _decide_layout(block: Block, fp32_c0: int) -> _Layout:
    """The ops of `block` that run in NC1HWC0: the convs, then their neighbours, forward
    from producers and backward from users, as long as it is layout-safe."""
    layout = _Layout(fp32_c0, set())
    ops = list(block.ops)
    for op in ops:  # forward: from convs to the ops they feed
        if isinstance(op, _SOURCES) or (
            _can_propagate(op, layout)
            and any(
                isinstance(v.owner, Operation) and v.owner in layout.nc1hwc0
                for v in _layout_operands(op)
            )
        ):
            layout.nc1hwc0.add(op)
    changed = True
    while changed:  # backward: ops whose users all run in NC1HWC0 join them
        changed = False
        for op in reversed(ops):
            if op in layout.nc1hwc0 or not _can_propagate(op, layout):
                continue
            uses = [use for result in op.results for use in result.uses]
            if uses and all(
                use.operation in layout.nc1hwc0 and use.index in _layout_indices(use.operation)
                for use in uses
            ):
                layout.nc1hwc0.add(op)
                changed = True
    return layout


class _Rewrite:
    """Applies a `_Layout` to one function body."""

    def __init__(self, fn: func.FuncOp, layout: _Layout, boundary: Boundary):
        self.fn = fn
        self.block = fn.body.block
        self.layout = layout
        self.boundary = boundary
        self.converted: dict[tuple[SSAValue, Attribute], SSAValue] = {}
        self.original: dict[SSAValue, Attribute] = {}  # retyped value -> its type before

    def convert(self, value: SSAValue, want: Attribute) -> SSAValue:
        """`value` in type `want`: a converted constant or one shared trans_data."""
        if value.type == want:
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
            new = ge.ConstOp.from_numpy(const.logical_array().reshape(want.get_shape()), want)
            new.attributes.update(const.attributes)
            point = InsertPoint.after(const)
        else:
            new = ge.TransDataOp(value, want)
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
        if value.type == want:
            return
        new = Rewriter.replace_value_with_new_type(value, want)
        self.original[new] = value.type

    def run(self) -> None:
        ops = list(self.block.ops)
        if self.boundary == "nc1hwc0":
            self.retype_arguments()
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
        for i in _layout_indices(op):
            t = op.operands[i].type
            assert isinstance(t, TensorType)
            if t.get_num_dims() < 4:  # a per-channel constant: [C, 1, 1] -> [1, C, 1, 1]
                out = op.results[0].type
                assert isinstance(out, TensorType)
                t = TensorType(t.element_type, [1, out.get_shape()[1], 1, 1])
            self.set_operand(op, i, layout.nc1hwc0_type(t))
        if isinstance(op, _SOURCES):
            self.set_operand(op, 1, layout.fractal_z_type(op.filter.type, op.groups.value.data))
        for result in op.results:
            self.retype_result(result, layout.nc1hwc0_type(result.type))

    def retype_arguments(self) -> None:
        """boundary=nc1hwc0: an argument read by NC1HWC0 ops is passed in NC1HWC0."""
        for arg in list(self.block.args):
            users = [use.operation for use in arg.uses]
            if (
                _is_rank4(arg)
                and users
                and all(
                    use.operation in self.layout.nc1hwc0
                    and use.index in _layout_indices(use.operation)
                    for use in arg.uses
                )
            ):
                self.retype_result(arg, self.layout.nc1hwc0_type(arg.type))

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

    boundary: Boundary = "keep"
    fp32_c0: Fp32C0 = 16

    def __post_init__(self) -> None:
        # xDSL's pipeline parser checks the Literals too, less clearly, and lets a float
        # equal to a choice through (`fp32-c0=8.0`).
        check_literal_options(self)

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        called = {c.callee.string_value() for c in op.walk() if isinstance(c, func.CallOp)}
        for fn in op.walk():
            if isinstance(fn, func.FuncOp) and fn.body.blocks:
                layout = _decide_layout(fn.body.block, self.fp32_c0)
                # A called function keeps its signature, so that its call sites stay valid.
                boundary: Boundary = "keep" if fn.sym_name.data in called else self.boundary
                _Rewrite(fn, layout, boundary).run()
        patterns = [CancelInverseTransData(), MergeSiblingTransData()]
        PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns, dce_enabled=False)
        ).rewrite_module(op)
        for fn in op.walk():
            if isinstance(fn, func.FuncOp) and fn.body.blocks:
                _erase_dead_conversions(fn.body.block)
