"""--fuse: Conv-BN-activation fusion with weight folding, as GE and ONNX Runtime do it.

Each pattern absorbs one op into a `ge.fused_conv2d`, `act(conv(x, W) + b + residual)`:

- `FoldBatchNorm`: batch_norm(conv) -> conv with `W' = W*s`, `b' = (b - mean)*s + beta`,
  `s = gamma / sqrt(var + eps)` per output channel (grouped and depthwise alike);
- `FoldScale`: mul(conv, per-channel constant s) -> `W' = W*s`, `b' = b*s`;
- `FoldShift`: add(conv, per-channel constant t) -> `b' = b + t`; sub(conv, t) ->
  `b' = b - t`; sub(t, conv) -> `W' = -W`, `b' = t - b` (as `t - (conv(x, W) + b)` is
  `conv(x, -W) + (t - b)`; not after a residual fusion, whose residual would change sign);
- `FuseResidual`: add(conv, r) with r of the same type -> conv with residual r (when both
  operands are fusable convs, the later one absorbs the add);
- `FuseActivation`: relu, relu6, clip(0, 6), leaky_relu, sigmoid of a conv.

The conv may be either operand of `ge.add` and `ge.mul`: they are `Commutative`, and
`operand_orders` tries both orders of a commutative op (only the written one otherwise);
`ge.sub` is not, and `FoldShift` handles each of its operand orders with its own sign.

A pattern fires only when the conv's result has no other user (nor is a function result)
and the matched ops carry the same stream label, which the fused op keeps; a
`stream.wait_tensor` between them blocks the match.  The folding patterns (batch_norm,
scale, shift) also need the conv's weight and bias and the folded parameters to be
readable constants; fusing an activation or a residual does not.  Folding computes in
float64 and rounds once to the conv's type; in fp16 it is refused when a folded value is not
finite or a nonzero weight rounds to zero.  New weights are new constants: a weight shared
with another op is never changed.  The fused op is placed where the last matched op was and
its location fuses theirs.  An assigned module (with `stream.id`) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ge_dialect import ge, stream
from ge_dialect.utils import dtypes
from transforms.common import (
    fused_location,
    logical_constant,
    operand_orders,
    refuse_assigned,
    same_label,
)

Conv = ge.Conv2DOp | ge.FusedConv2DOp


@dataclass
class _FusableConv:
    """A conv that can absorb more; `weights()` reads its constant weight and bias."""

    op: Conv
    residual: SSAValue | None

    def weights(self) -> tuple[np.ndarray, np.ndarray | None] | None:
        """The logical OIHW weight and the bias as float64, or None unless both are readable
        constants (folding needs them; fusing an activation or a residual does not)."""
        weight = logical_constant(self.op.filter)
        bias = None if self.op.bias is None else logical_constant(self.op.bias)
        if weight is None or (self.op.bias is not None and bias is None):
            return None
        return weight.astype(np.float64), None if bias is None else bias.astype(np.float64)


def _absorbable(
    value: SSAValue, user: Operation, allow_residual: bool = True
) -> _FusableConv | None:
    """The conv defining `value` if `user` may fuse into it, else None."""
    conv = value.owner
    if not isinstance(conv, Conv) or value.get_user_of_unique_use() is not user:
        return None
    if isinstance(conv, ge.FusedConv2DOp):
        if conv.activation.data != ge.Activation.NONE:
            return None
        if conv.residual is not None and not allow_residual:
            return None
    if not same_label([conv, user]):
        return None
    residual = conv.residual if isinstance(conv, ge.FusedConv2DOp) else None
    return _FusableConv(conv, residual)


def _rounded(values: np.ndarray, t: TensorType, weights: bool) -> np.ndarray | None:
    """`values` (float64) rounded once to `t`'s dtype; None when fp16 cannot hold them."""
    dtype = dtypes.np_dtype(t.element_type)
    with np.errstate(over="ignore", under="ignore"):
        out = values.astype(dtype)
    if not np.all(np.isfinite(out)):
        return None
    if weights and np.any((out == 0) & (values != 0)):
        return None
    return out


def _rebuild(
    parts: _FusableConv,
    last: Operation,
    rewriter: PatternRewriter,
    *,
    weight: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    residual: SSAValue | None = None,
    activation: ge.Activation = ge.Activation.NONE,
    alpha: float | None = None,
) -> bool:
    """Replaces `last` (the last matched op) by one fused conv; False when folding is refused.

    `weight`/`bias` are the new float64 arrays (None keeps the conv's operand).
    """
    conv = parts.op
    new_filter: SSAValue = conv.filter
    new_bias: SSAValue | None = conv.bias
    new_ops: list[Operation] = []
    for key, values, operand in (("filter", weight, conv.filter), ("bias", bias, conv.bias)):
        if values is None:
            continue
        t = (
            operand.type
            if operand is not None
            else TensorType(conv.output.type.element_type, [conv.output.type.get_shape()[1]])
        )
        assert isinstance(t, TensorType)
        rounded = _rounded(values, t, weights=key == "filter")
        if rounded is None:
            return False
        const = ge.ConstOp.from_numpy(rounded, t)
        const.location = conv.location
        new_ops.append(const)
        if key == "filter":
            new_filter = const.output
        else:
            new_bias = const.output
    fused = ge.FusedConv2DOp(
        conv.input,
        new_filter,
        new_bias,
        residual if residual is not None else parts.residual,
        last.results[0].type,
        activation,
        alpha,
        conv.strides.get_values(),
        conv.pads.get_values(),
        conv.dilations.get_values(),
        conv.groups.value.data,
    )
    label = conv.attributes.get(stream.LABEL)
    if label is not None:
        fused.attributes[stream.LABEL] = label
    fused.location = fused_location([conv, last])
    rewriter.replace(last, [*new_ops, fused], [fused.output])
    rewriter.erase(conv)
    return True


def _per_channel(array: np.ndarray | None, out: TensorType) -> np.ndarray | None:
    """A constant that broadcasts over N, H, W of a conv result, as a vector of C values
    (None for any other constant, or when `out` is not 4-D: not a conv result)."""
    if array is None or array.ndim > 4 or out.get_num_dims() != 4:
        return None
    shape = (1,) * (4 - array.ndim) + array.shape
    channels = out.get_shape()[1]
    if shape[0] != 1 or shape[2] != 1 or shape[3] != 1 or shape[1] not in (1, channels):
        return None
    return np.broadcast_to(array.reshape(shape)[0, :, 0, 0].astype(np.float64), (channels,))


def _by_channel(values: np.ndarray) -> np.ndarray:
    return values.reshape(-1, 1, 1, 1)


class FoldBatchNorm(RewritePattern):
    """Folds an inference batch_norm into the conv before it.

      %c = ge.conv2d %x, %w : ... -> tensor<1x8x4x4xf32>
      %y = ge.batch_norm %c, %gamma, %beta, %mean, %var : ...
    ->
      %w2 = ge.const <W*s>
      %b2 = ge.const <(b - mean)*s + beta>
      %y = ge.fused_conv2d %x, %w2 bias %b2 : ...
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.BatchNormOp, rewriter: PatternRewriter) -> None:
        parts = _absorbable(op.input, op, allow_residual=False)
        weights = None if parts is None else parts.weights()
        if parts is None or weights is None:
            return
        params = [logical_constant(v) for v in (op.scale, op.offset, op.mean, op.variance)]
        if any(p is None for p in params):
            return
        gamma, beta, mean, var = (np.asarray(p, np.float64) for p in params)
        eps = float(np.float32(op.epsilon.value.data))
        weight, bias = weights
        with np.errstate(all="ignore"):  # a degenerate BN gives inf/nan: _rounded refuses it
            s = gamma / np.sqrt(var + eps)
            new_bias = ((np.zeros_like(s) if bias is None else bias) - mean) * s + beta
            new_weight = weight * _by_channel(s)
        _rebuild(parts, op, rewriter, weight=new_weight, bias=new_bias)


class FoldScale(RewritePattern):
    """Folds a multiplication by a per-channel constant into the conv's weight and bias.

      %c = ge.conv2d %x, %w bias %b : ...
      %y = ge.mul %c, %s : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> ...
    ->
      %y = ge.fused_conv2d %x, %w2 bias %b2 : ...      (W' = W*s, b' = b*s)
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.MulOp, rewriter: PatternRewriter) -> None:
        for conv_value, other in operand_orders(op):
            if conv_value.type != op.output.type:
                continue
            s = _per_channel(logical_constant(other), op.output.type)
            parts = _absorbable(conv_value, op, allow_residual=False) if s is not None else None
            weights = None if parts is None else parts.weights()
            if s is None or parts is None or weights is None:
                continue
            weight, bias = weights
            with np.errstate(all="ignore"):
                new_weight = weight * _by_channel(s)
                new_bias = None if bias is None else bias * s
            _rebuild(parts, op, rewriter, weight=new_weight, bias=new_bias)
            return


class FoldShift(RewritePattern):
    """Folds an addition or a subtraction of a per-channel constant into the conv.

      %c = ge.conv2d %x, %w : ...
      %y = ge.add %c, %t : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> ...
    ->
      %y = ge.fused_conv2d %x, %w bias %b2 : ...       (b' = b + t)

    `ge.sub %c, %t` gives `b' = b - t`; `ge.sub %t, %c` gives `W' = -W`, `b' = t - b`
    (negating is exact, and the bias is computed in float64 and rounded once), but not when
    the conv already has a residual: `t - (conv + b + r)` would need `-r`.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.AddOp | ge.SubOp, rewriter: PatternRewriter) -> None:
        # (conv operand, constant operand, sign of the conv, sign of the constant)
        cases: tuple[tuple[SSAValue, SSAValue, int, int], ...]
        if isinstance(op, ge.AddOp):
            cases = tuple((conv_value, other, 1, 1) for conv_value, other in operand_orders(op))
        else:
            cases = ((op.lhs, op.rhs, 1, -1), (op.rhs, op.lhs, -1, 1))
        for conv_value, other, conv_sign, shift_sign in cases:
            if conv_value.type != op.output.type:
                continue
            t = _per_channel(logical_constant(other), op.output.type)
            parts = (
                _absorbable(conv_value, op, allow_residual=conv_sign == 1)
                if t is not None
                else None
            )
            weights = None if parts is None else parts.weights()
            if t is None or parts is None or weights is None:
                continue
            weight, bias = weights
            with np.errstate(all="ignore"):
                new_bias = shift_sign * t if bias is None else conv_sign * bias + shift_sign * t
            new_weight = None if conv_sign == 1 else -weight
            _rebuild(parts, op, rewriter, weight=new_weight, bias=new_bias)
            return


def _later(a: Operation, b: Operation, user: Operation) -> Operation:
    """Of two ops before `user` in its block, the one nearer to it."""
    op = user.prev_op
    while op is not None:
        if op is a or op is b:
            return op
        op = op.prev_op
    return a


class FuseResidual(RewritePattern):
    """Fuses a residual add into the conv that produces one of its operands.

        %c = ge.conv2d %x, %w bias %b : ...
        %y = ge.add %c, %r : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
      ->
        %y = ge.fused_conv2d %x, %w bias %b residual %r : ...

    The operands must have identical types; when both come from fusable convs, the conv
    defined later absorbs the add (the other one is then computed before it).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.AddOp, rewriter: PatternRewriter) -> None:
        if not (op.lhs.type == op.rhs.type == op.output.type):
            return
        candidates = [
            (fusable, other)
            for conv_value, other in operand_orders(op)
            if (fusable := _absorbable(conv_value, op, allow_residual=False)) is not None
        ]
        if not candidates:
            return
        (conv, other), *rest = candidates
        for candidate in rest:  # both operands are fusable convs: the later one absorbs the add
            if _later(conv.op, candidate[0].op, op) is candidate[0].op:
                conv, other = candidate
        _rebuild(conv, op, rewriter, residual=other)


_ACTIVATIONS: dict[type[Operation], ge.Activation] = {
    ge.ReluOp: ge.Activation.RELU,
    ge.Relu6Op: ge.Activation.RELU6,
    ge.LeakyReluOp: ge.Activation.LEAKY_RELU,
    ge.SigmoidOp: ge.Activation.SIGMOID,
    ge.ClipOp: ge.Activation.RELU6,
}


class FuseActivation(RewritePattern):
    """Fuses relu, relu6 (or clip(0, 6)), leaky_relu or sigmoid into the conv before it.

      %c = ge.fused_conv2d %x, %w bias %b residual %r : ...
      %y = ge.relu %c : tensor<1x8x4x4xf32>
    ->
      %y = ge.fused_conv2d %x, %w bias %b residual %r activation relu : ...
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: ge.ReluOp | ge.Relu6Op | ge.LeakyReluOp | ge.SigmoidOp | ge.ClipOp,
        rewriter: PatternRewriter,
    ) -> None:
        if isinstance(op, ge.ClipOp) and (op.min.value.data, op.max.value.data) != (0.0, 6.0):
            return
        parts = _absorbable(op.input, op)
        if parts is None:
            return
        alpha = op.alpha.value.data if isinstance(op, ge.LeakyReluOp) else None
        _rebuild(parts, op, rewriter, activation=_ACTIVATIONS[type(op)], alpha=alpha)


@dataclass(frozen=True)
class FusePass(ModulePass):
    """Fuses conv, batch_norm, scale/shift constants, residual adds and activations."""

    name = "fuse"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        patterns = [FoldBatchNorm(), FoldScale(), FoldShift(), FuseResidual(), FuseActivation()]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
