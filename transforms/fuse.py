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
and the matched ops carry the same stream label, which the fused op keeps (with the TorchAir
scope attributes they all share: `_op_aicore_num`, `_super_kernel_scope`, ...); a
`stream.wait_tensor` between them blocks the match.  The folding patterns (batch_norm,
scale, shift) also need the conv's weight and bias and the folded parameters to be
readable constants; fusing an activation or a residual does not.  Folding computes in
float64 and rounds once to the conv's type; in fp16 it is refused when a folded value is not
finite or a nonzero weight rounds to zero.  New weights are new constants: a weight shared
with another op is never changed.  The fused op is placed where the last matched op was and
its location fuses theirs.  An assigned module (with `stream.id`) is refused.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    NoneAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils import dtypes
from ge_dialect.utils.walk import walk_ops
from transforms import reports
from transforms.common import (
    erase_dead,
    fused_location,
    inherit_scope_attrs,
    is_dead,
    logical_constant,
    operand_orders,
    refuse_assigned,
    same_label,
)

Conv = ge.Conv2DOp | ge.FusedConv2DOp
_CONVS = (ge.Conv2DOp, ge.FusedConv2DOp)

_FOLDING = (ge.BatchNormOp, ge.MulOp, ge.AddOp, ge.SubOp)
"""Ops that may still fold into the conv before them (and so become a fusable conv)."""


@dataclass
class _Folded:
    """A folded weight or bias: its float64 values (already rounded to `type`) and the same
    in `type`'s dtype (what the new constant holds), the op whose fold made them (the new
    constant goes right before it, and is named like it) and the number of ops absorbed
    before it (the constant takes the location the fused conv had then)."""

    values: np.ndarray
    stored: np.ndarray
    type: TensorType
    at: Operation
    absorbed_before: int


@dataclass
class _Fusion:
    """A fused conv under construction: a conv and the ops it absorbed since, in order.

    Every step checks what a fused conv rebuilt after the previous step would check, and a
    fold rounds its results to the conv's type as that rebuilt conv's constants would hold
    them, so absorbing a chain in one rewrite gives the same IR as one rewrite per op.
    """

    conv: Conv
    residual: SSAValue | None
    absorbed: list[Operation] = field(default_factory=list)
    activation: ge.Activation = ge.Activation.NONE
    alpha: float | None = None
    weight: _Folded | None = None
    bias: _Folded | None = None
    extending: bool = False
    """Absorbing the ops after the one a pattern matched (see `FuseResidual.absorb`)."""

    @staticmethod
    def start(value: SSAValue) -> _Fusion | None:
        """A fusion of the conv defining `value`, unless it is not a conv or already ends
        with an activation."""
        conv = value.owner
        if type(conv) not in _CONVS:
            return None
        assert isinstance(conv, Conv)
        if isinstance(conv, ge.FusedConv2DOp):
            if conv.activation.data != ge.Activation.NONE:
                return None
            return _Fusion(conv, conv.residual)
        return _Fusion(conv, None)

    @property
    def last(self) -> Operation:
        return self.absorbed[-1] if self.absorbed else self.conv

    @property
    def value(self) -> SSAValue:
        """The result of the fused conv so far."""
        return self.last.results[0]

    def accepts(self, user: Operation, value: SSAValue, allow_residual: bool = True) -> bool:
        """Whether `user`, reading `value`, may fuse next: `value` is the fused result so far
        and `user` its only user (so it is not a function result), with the same label."""
        if value is not self.value or value.get_user_of_unique_use() is not user:
            return False
        if self.activation != ge.Activation.NONE:
            return False
        if self.residual is not None and not allow_residual:
            return False
        return same_label([self.conv, user])

    def weights(self) -> tuple[np.ndarray, np.ndarray | None] | None:
        """The logical OIHW weight and the bias as float64, or None unless both are readable
        constants (folding needs them; fusing an activation or a residual does not)."""
        conv = self.conv
        weight = self.weight.values if self.weight is not None else _float64(_logical(conv.filter))
        if self.bias is not None:
            bias: np.ndarray | None = self.bias.values
        elif conv.bias is not None:
            bias = _float64(_logical(conv.bias))
            if bias is None:
                return None
        else:
            bias = None
        return None if weight is None else (weight, bias)

    def fold(self, op: Operation, weight: np.ndarray | None, bias: np.ndarray | None) -> bool:
        """Absorbs `op` with a new weight and/or bias (float64; None keeps the current one),
        or returns False when folding is refused (a value the conv's type cannot hold)."""
        conv = self.conv
        folded: dict[str, _Folded] = {}
        for key, values in (("filter", weight), ("bias", bias)):
            if values is None:
                continue
            current = self.weight if key == "filter" else self.bias
            operand = conv.filter if key == "filter" else conv.bias
            if current is not None:
                t = current.type
            elif operand is not None:
                assert isinstance(operand.type, TensorType)
                t = operand.type
            else:
                t = _bias_type(conv.output.type)
            rounded = _rounded(values, t, weights=key == "filter")
            if rounded is None:
                return False
            folded[key] = _Folded(rounded.astype(np.float64), rounded, t, op, len(self.absorbed))
        self.weight = folded.get("filter", self.weight)
        self.bias = folded.get("bias", self.bias)
        self.absorbed.append(op)
        return True

    def extend(self) -> None:
        """Absorbs the ops after the last one for as long as one of the patterns can."""
        self.extending = True
        while (user := self.value.get_user_of_unique_use()) is not None:
            # (the steps that can absorb an op of its type, in the patterns' order: any other
            # step refuses it)
            if not any(step(self, user) for step in _STEPS_BY_TYPE.get(type(user), ())):
                return

    def rebuild(self, rewriter: PatternRewriter) -> None:
        """Replaces the conv and the absorbed ops by new constants and one fused conv."""
        conv, last = self.conv, self.last
        operands: dict[str, SSAValue | None] = {"filter": conv.filter, "bias": conv.bias}
        block = last.parent
        assert block is not None
        # (the block's own insertions: this pass's walk has no listener to notify)
        for key, folded in (("filter", self.weight), ("bias", self.bias)):
            if folded is None:
                continue
            const = ge.ConstOp.from_numpy(folded.stored, folded.type)
            const.location = fused_location([conv, *self.absorbed[: folded.absorbed_before]])
            const.output.name_hint = folded.at.results[0].name_hint
            block.insert_op_before(const, folded.at)
            operands[key] = const.output
        filter_ = operands["filter"]
        assert filter_ is not None
        fused = ge.FusedConv2DOp.like(
            conv,
            filter_,
            operands["bias"],
            self.residual,
            last.results[0].type,
            self.activation,
            self.alpha,
        )
        label = conv.attributes.get(stream.LABEL)
        if label is not None:
            fused.attributes[stream.LABEL] = label
        inherit_scope_attrs(fused, [conv, *self.absorbed])
        fused.location = fused_location([conv, *self.absorbed])
        # `rewriter.replace(last, fused)`: the uses, the name, the place
        old = last.results[0]
        fused.output.name_hint = old.name_hint
        old.replace_all_uses_with(fused.output)
        block.insert_op_after(fused, last)
        rewriter.has_done_action = True
        # the chain (users first), then the old weights and BN parameters left dead
        erase_dead(reversed([conv, *self.absorbed]))


_BIAS_TYPES: dict[tuple[Attribute, int], TensorType] = {}


def _bias_type(out: TensorType) -> TensorType:
    """The type of a new bias for a conv of result type `out`: C elements of its element
    type (one object per element type and C: types are immutable values)."""
    key = (out.element_type, out.get_shape()[1])
    t = _BIAS_TYPES.get(key)
    if t is None:
        t = _BIAS_TYPES[key] = TensorType(key[0], [key[1]])
    return t


_Step = Callable[["_Fusion", Operation], bool]
"""A pattern's `absorb`: takes one more op into a fusion, or returns False."""


def _logical(value: SSAValue) -> np.ndarray | None:
    """`logical_constant(value)`: for a dense constant stored in its logical layout (no
    encoding, the data of the result's type), its data as is, without the layout
    conversion's checks (the verifier checked that its shape is the type's)."""
    const = value.owner
    if type(const) is ge.ConstOp:
        data = const.value
        t = const.output.type
        if (  # (exact classes: a quick look; anything else takes the general path)
            type(data) is DenseIntOrFPElementsAttr
            and type(t) is TensorType
            and type(t.encoding) is NoneAttr
            and (data.type is t or data.type == t)
        ):
            array = ge.dense_to_numpy(data)
            if array.flags.c_contiguous:  # (a splat is a broadcast view)
                return array
    return logical_constant(value)


def _float64(array: np.ndarray | None) -> np.ndarray | None:
    return None if array is None else array.astype(np.float64)


def _rounded(values: np.ndarray, t: TensorType, weights: bool) -> np.ndarray | None:
    """`values` (float64) rounded once to `t`'s dtype; None when fp16 cannot hold them."""
    dtype = dtypes.np_dtype(t.element_type)
    with np.errstate(over="ignore", under="ignore"):
        out = values.astype(dtype)
    if not np.isfinite(out).all():
        return None
    # a nonzero weight rounded to zero: fewer nonzeros (a zero stays zero)
    if weights and np.count_nonzero(out) != np.count_nonzero(values):
        return None
    return out


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


def _fuse_from(op: Operation, steps: Sequence[_Step], rewriter: PatternRewriter) -> None:
    """Tries each step in turn with each conv operand of `op`; on the first one that absorbs
    `op`, extends the fusion past it and rewrites the chain once."""
    for step in steps:
        for value in dict.fromkeys(op.operands):
            fusion = _Fusion.start(value)
            if fusion is not None and step(fusion, op):
                fusion.extend()
                fusion.rebuild(rewriter)
                return


class _FusionPattern(RewritePattern, abc.ABC):
    """Matches an op of `ANCHORS` that a conv operand can absorb, then the ops after it that
    can fuse too (`_Fusion.extend`), and rewrites the whole chain once."""

    ANCHORS: ClassVar[tuple[type[Operation], ...]]

    @staticmethod
    @abc.abstractmethod
    def absorb(fusion: _Fusion, op: Operation) -> bool:
        """Absorbs `op` into `fusion` if it can fuse next; False (and nothing changed) if not."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) in self.ANCHORS:
            _fuse_from(op, (self.absorb,), rewriter)


class FoldBatchNorm(_FusionPattern):
    """Folds an inference batch_norm into the conv before it.

      %c = ge.conv2d %x, %w : ... -> tensor<1x8x4x4xf32>
      %y = ge.batch_norm %c, %gamma, %beta, %mean, %var : ...
    ->
      %w2 = ge.const <W*s>
      %b2 = ge.const <(b - mean)*s + beta>
      %y = ge.fused_conv2d %x, %w2 bias %b2 : ...
    """

    ANCHORS = (ge.BatchNormOp,)

    @staticmethod
    def absorb(fusion: _Fusion, op: Operation) -> bool:
        if not isinstance(op, ge.BatchNormOp) or not fusion.accepts(op, op.input, False):
            return False
        weights = fusion.weights()
        params = [_logical(v) for v in (op.scale, op.offset, op.mean, op.variance)]
        if weights is None or any(p is None for p in params):
            return False
        gamma, beta, mean, var = (np.asarray(p, np.float64) for p in params)
        eps = float(np.float32(op.epsilon.value.data))
        weight, bias = weights
        with np.errstate(all="ignore"):  # a degenerate BN gives inf/nan: _rounded refuses it
            s = gamma / np.sqrt(var + eps)
            new_bias = ((np.zeros_like(s) if bias is None else bias) - mean) * s + beta
            new_weight = weight * _by_channel(s)
        return fusion.fold(op, new_weight, new_bias)


class FoldScale(_FusionPattern):
    """Folds a multiplication by a per-channel constant into the conv's weight and bias.

      %c = ge.conv2d %x, %w bias %b : ...
      %y = ge.mul %c, %s : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> ...
    ->
      %y = ge.fused_conv2d %x, %w2 bias %b2 : ...      (W' = W*s, b' = b*s)
    """

    ANCHORS = (ge.MulOp,)

    @staticmethod
    def absorb(fusion: _Fusion, op: Operation) -> bool:
        if not isinstance(op, ge.MulOp):
            return False
        for conv_value, other in operand_orders(op):
            if conv_value.type != op.output.type or not fusion.accepts(op, conv_value, False):
                continue
            s = _per_channel(_logical(other), op.output.type)
            weights = None if s is None else fusion.weights()
            if s is None or weights is None:
                continue
            weight, bias = weights
            with np.errstate(all="ignore"):
                new_weight = weight * _by_channel(s)
                new_bias = None if bias is None else bias * s
            return fusion.fold(op, new_weight, new_bias)
        return False


class FoldShift(_FusionPattern):
    """Folds an addition or a subtraction of a per-channel constant into the conv.

      %c = ge.conv2d %x, %w : ...
      %y = ge.add %c, %t : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> ...
    ->
      %y = ge.fused_conv2d %x, %w bias %b2 : ...       (b' = b + t)

    `ge.sub %c, %t` gives `b' = b - t`; `ge.sub %t, %c` gives `W' = -W`, `b' = t - b`
    (negating is exact, and the bias is computed in float64 and rounded once), but not when
    the conv already has a residual: `t - (conv + b + r)` would need `-r`.
    """

    ANCHORS = (ge.AddOp, ge.SubOp)

    @staticmethod
    def absorb(fusion: _Fusion, op: Operation) -> bool:
        # (conv operand, constant operand, sign of the conv, sign of the constant)
        cases: tuple[tuple[SSAValue, SSAValue, int, int], ...]
        if isinstance(op, ge.AddOp):
            cases = tuple((conv_value, other, 1, 1) for conv_value, other in operand_orders(op))
        elif isinstance(op, ge.SubOp):
            cases = ((op.lhs, op.rhs, 1, -1), (op.rhs, op.lhs, -1, 1))
        else:
            return False
        for conv_value, other, conv_sign, shift_sign in cases:
            if conv_value.type != op.output.type:
                continue
            if not fusion.accepts(op, conv_value, allow_residual=conv_sign == 1):
                continue
            t = _per_channel(_logical(other), op.output.type)
            weights = None if t is None else fusion.weights()
            if t is None or weights is None:
                continue
            weight, bias = weights
            with np.errstate(all="ignore"):
                new_bias = shift_sign * t if bias is None else conv_sign * bias + shift_sign * t
            new_weight = None if conv_sign == 1 else -weight
            return fusion.fold(op, new_weight, new_bias)
        return False


def _later(a: Operation, b: Operation, user: Operation) -> Operation:
    """Of two ops before `user` in its block, the one nearer to it."""
    op = user.prev_op
    while op is not None:
        if op is a or op is b:
            return op
        op = op.prev_op
    return a


class FuseResidual(_FusionPattern):
    """Fuses a residual add into the conv that produces one of its operands.

        %c = ge.conv2d %x, %w bias %b : ...
        %y = ge.add %c, %r : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
      ->
        %y = ge.fused_conv2d %x, %w bias %b residual %r : ...

    The operands must have identical types; when both come from fusable convs, the conv
    defined later absorbs the add (the other one is then computed before it).  A chain
    extended past its first op leaves an add whose other operand may still fold into a conv
    (it comes from a batch_norm, mul, add or sub) for the add's own match, which sees it
    final.
    """

    ANCHORS = (ge.AddOp,)

    @staticmethod
    def absorb(fusion: _Fusion, op: Operation) -> bool:
        if not isinstance(op, ge.AddOp) or not (op.lhs.type == op.rhs.type == op.output.type):
            return False
        for conv_value, other in operand_orders(op):
            if not fusion.accepts(op, conv_value, allow_residual=False):
                continue
            if fusion.extending and type(other.owner) in _FOLDING:
                return False
            rival = _Fusion.start(other)
            if (
                rival is not None
                and rival.residual is None
                and rival.accepts(op, other, allow_residual=False)
                and _later(fusion.last, rival.conv, op) is rival.conv
            ):
                return False  # both are fusable convs: the later one absorbs the add
            fusion.residual = other
            fusion.absorbed.append(op)
            return True
        return False


_ACTIVATIONS: dict[type[Operation], ge.Activation] = {
    ge.ReluOp: ge.Activation.RELU,
    ge.Relu6Op: ge.Activation.RELU6,
    ge.LeakyReluOp: ge.Activation.LEAKY_RELU,
    ge.SigmoidOp: ge.Activation.SIGMOID,
    ge.ClipOp: ge.Activation.RELU6,
}


class FuseActivation(_FusionPattern):
    """Fuses relu, relu6 (or clip(0, 6)), leaky_relu or sigmoid into the conv before it.

      %c = ge.fused_conv2d %x, %w bias %b residual %r : ...
      %y = ge.relu %c : tensor<1x8x4x4xf32>
    ->
      %y = ge.fused_conv2d %x, %w bias %b residual %r activation relu : ...
    """

    ANCHORS = tuple(_ACTIVATIONS)

    @staticmethod
    def absorb(fusion: _Fusion, op: Operation) -> bool:
        if type(op) not in _ACTIVATIONS or not fusion.accepts(op, op.operands[0]):
            return False
        if isinstance(op, ge.ClipOp) and (op.min.value.data, op.max.value.data) != (0.0, 6.0):
            return False
        fusion.activation = _ACTIVATIONS[type(op)]
        fusion.alpha = op.alpha.value.data if isinstance(op, ge.LeakyReluOp) else None
        fusion.absorbed.append(op)
        return True


_PATTERNS: tuple[type[_FusionPattern], ...] = (
    FoldBatchNorm,
    FoldScale,
    FoldShift,
    FuseResidual,
    FuseActivation,
)
_STEPS_BY_TYPE: dict[type[Operation], tuple[_Step, ...]] = {}
"""The steps that can absorb an op of each type (a pattern's `ANCHORS`), in the order the
walker tries the patterns: where a chain starts, and what it tries next."""
for _pattern in _PATTERNS:
    for _anchor in _pattern.ANCHORS:
        _STEPS_BY_TYPE[_anchor] = (*_STEPS_BY_TYPE.get(_anchor, ()), _pattern.absorb)


class FuseIntoConv(RewritePattern):
    """The five patterns as one: the steps that can start at an op of this type, in the
    order above (one dictionary lookup per op instead of five matches).  It also erases
    trivially dead ops, as xDSL's greedy pattern applier does."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if is_dead(op):
            erase_dead([op])
            return
        steps = _STEPS_BY_TYPE.get(type(op))
        if steps is not None:
            _fuse_from(op, steps, rewriter)


@dataclass(frozen=True)
class FusePass(ModulePass):
    """Fuses conv, batch_norm, scale/shift constants, residual adds and activations."""

    name = "fuse"

    STATISTICS: ClassVar[dict[str, str]] = {
        "fusions": "rewrites into ge.fused_conv2d (each absorbs a whole chain)",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        fusions = 0
        # One walk in block order: a fusion absorbs its whole chain at once and places the
        # fused op at the chain's end, so no op before it can match again.  What xDSL's
        # `PatternRewriteWalker(..., apply_recursively=False)` does, without its worklist
        # and listeners: every op present at the start, in `walk()` order, unless erased
        # meanwhile (with its parent op, for an op nested in one); new ops are not visited.
        pattern = FuseIntoConv()
        rewriter: PatternRewriter | None = None
        for inner in walk_ops(op)[1:]:  # (the module's body)
            if _erased(inner, op):
                continue
            if rewriter is None:
                rewriter = PatternRewriter(inner)
            rewriter.current_operation = inner
            rewriter.insertion_point = InsertPoint.before(inner)
            rewriter.has_done_action = False
            try:
                pattern.match_and_rewrite(inner, rewriter)
            except Exception as err:  # as the walker reports it
                inner.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
            fusions += rewriter.has_done_action
        reports.count(op, self.name, "fusions", fusions)


def _erased(op: Operation, top: Operation) -> bool:
    """Whether `op`, nested in `top` when the walk started, has been erased since (or an
    op it is nested in has)."""
    while op is not top:
        parent = op.parent_op()
        if parent is None:
            return True
        op = parent
    return False
