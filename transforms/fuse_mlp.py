"""`--fuse-mlp`: the transformer MLP and MoE fusions, with the pattern-authoring API.

- RMSNorm, as Hugging Face Llama writes it (pow or mul, reduce_mean, add, rsqrt, mul, mul)
  -> `ge.rms_norm`;
- silu(gate) * up -> `ge.swi_glu`, when gate and up are the two halves of one tensor, or
  two matmuls of the same x by constant weights (merged into one [K, 2N] constant: one
  matmul, then the swi_glu);
- softmax (or sigmoid) -> topk -> (renormalisation) -> `ge.moe_gating_top_k`;
- the experts: E matmuls by constant weights whose [T, N] results are stacked into
  [E, T, N] -> one `ge.grouped_matmul` on the stacked [E, K, N] weights (its input is x
  broadcast to [E, T, K] when every expert reads the same x, else the inputs stacked),
  and a stack of swi_glus -> one swi_glu of the stack (so the expert MLPs' gate/up and
  down projections both become grouped matmuls).

Every pattern checks what makes it legal (constant weights, no bias or transpose_a, one
use of each intermediate, shapes); the fused graph computes the same numbers up to
rounding.  The stack is what groups the experts: E separate matmuls of x with no common
consumer are left alone (`ge_dialect.frontend.static_moe` writes the MoE with one).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from ge_dialect.ir.dialects import ge
from transforms.authoring import Match, OpMatcher, Pattern, const, op, pattern_pass
from transforms.common import fused_location, logical_constant, same_label

# --------------------------------------------------------------------------------------
# RMSNorm
# --------------------------------------------------------------------------------------


def _trailing(reduce: Operation) -> bool:
    """A keepdims mean over the trailing dims [axis, rank) (at least one)."""
    assert isinstance(reduce, ge.ReduceMeanOp)
    axes = list(reduce.axes.get_values())
    rank = len(reduce.output.type.get_shape())
    return bool(axes) and axes == list(range(axes[0], rank)) and reduce.keepdims is not None


def _scalar(value: float) -> Callable[[np.ndarray], bool]:
    return lambda a: a.size == 1 and float(a.reshape(-1)[0]) == value


_SQUARE = (
    op(ge.PowOp, "x", const(where=_scalar(2.0)), single_use=True),
    op(ge.MulOp, "x", "x", single_use=True),
)


def _normalised(square: OpMatcher) -> OpMatcher:
    """x * rsqrt(mean(square) + eps), every intermediate used once."""
    mean = op(ge.ReduceMeanOp, square, single_use=True, bind="mean", where=_trailing)
    eps = const("eps", where=lambda a: a.size == 1 and float(a.reshape(-1)[0]) >= 0)
    rsqrt = op(ge.RsqrtOp, op(ge.AddOp, mean, eps, single_use=True), single_use=True)
    return op(ge.MulOp, "x", rsqrt, single_use=True)


class _LlamaRmsNorm(Pattern):
    """weight * (x * rsqrt(mean(x^2) + eps)), the muls in either order:

        %sq = ge.pow %x, %two                         (or ge.mul %x, %x)
        %ms = ge.reduce_mean %sq axes [2] keepdims
        %r  = ge.rsqrt (ge.add %ms, %eps)
        %y  = ge.mul %w, (ge.mul %x, %r)
    ->
        %y  = ge.rms_norm %x, %w axis 2 epsilon <eps>

    Legal when the mean is over trailing dims with keepdims, the exponent is the constant
    2, epsilon one constant >= 0, and the weight has the normalised shape and x's type."""

    def rewrite(self, m: Match) -> Operation | None:
        x: SSAValue = m.x
        w: SSAValue = m.w
        axis = int(m.mean.axes.get_values()[0])
        xt, wt = x.type, w.type
        assert isinstance(xt, TensorType) and isinstance(wt, TensorType)
        if tuple(wt.get_shape()) != tuple(xt.get_shape())[axis:]:
            return None
        if wt.element_type != xt.element_type:
            return None
        if isinstance(xt.encoding, ge.FormatAttr) or isinstance(wt.encoding, ge.FormatAttr):
            return None  # ge.rms_norm takes default-layout tensors
        eps = logical_constant(m.eps)
        assert eps is not None
        return ge.RmsNormOp(x, w, axis, float(eps.reshape(-1)[0]))


class PowRmsNorm(_LlamaRmsNorm):
    name = "pow-rms-norm"
    match = op(ge.MulOp, "w", _normalised(_SQUARE[0]))


class MulRmsNorm(_LlamaRmsNorm):
    name = "mul-rms-norm"
    match = op(ge.MulOp, "w", _normalised(_SQUARE[1]))


# --------------------------------------------------------------------------------------
# SwiGlu
# --------------------------------------------------------------------------------------


def _tensor(value: SSAValue) -> TensorType:
    t = value.type
    assert isinstance(t, TensorType)
    return t


def _plain(values: Sequence[SSAValue]) -> bool:
    """Default-layout (ND) tensors: what the fused ops take."""
    return not any(isinstance(_tensor(v).encoding, ge.FormatAttr) for v in values)


def _weight(mm: ge.MatMulOp) -> np.ndarray | None:
    """The [K, N] logical weight of `x @ W` (W a 2-D constant, transposed back when the
    matmul has transpose_b); None when W is not a readable 2-D constant or the matmul has
    a bias or transpose_a."""
    if mm.bias is not None or mm.transpose_a is not None:
        return None
    w = logical_constant(mm.b)
    if w is None or w.ndim != 2:
        return None
    return w.T if mm.transpose_b is not None else w


def _projection(bind: str) -> OpMatcher:
    """x @ W (a constant W), used once."""
    return op(ge.MatMulOp, "x", const(rank=2), bias=None, single_use=True, bind=bind)


def _const_op(array: np.ndarray, like: TensorType) -> ge.ConstOp:
    return ge.ConstOp.from_numpy(array, TensorType(like.element_type, list(array.shape)))


class MatMulSwiGlu(Pattern):
    """Two projections of the same x by constant weights, gated by SiLU:

        %g = ge.matmul %x, %wg : tensor<TxKxf32>, tensor<KxNxf32> -> tensor<TxNxf32>
        %u = ge.matmul %x, %wu : ...
        %y = ge.mul (ge.silu %g), %u
    ->
        %wgu = ge.const <[wg | wu]> : tensor<Kx2Nxf32>
        %gu  = ge.matmul %x, %wgu : ... -> tensor<Tx2Nxf32>
        %y   = ge.swi_glu %gu dim 1 : tensor<Tx2Nxf32> -> tensor<TxNxf32>

    (transpose_b weights are transposed at compile time; no bias, no transpose_a)."""

    name = "matmul-swi-glu"
    match = op(ge.MulOp, op(ge.SiluOp, _projection("gate"), single_use=True), _projection("up"))

    def rewrite(self, m: Match) -> list[Operation] | None:
        gate, up = m.gate, m.up
        wg, wu = _weight(gate), _weight(up)
        x = _tensor(m.x)
        if wg is None or wu is None or wg.shape != wu.shape:
            return None
        if not _plain([m.x, gate.b, up.b, m.root.results[0]]):
            return None
        merged = _const_op(np.concatenate([wg, wu], axis=1), _tensor(gate.b))
        shape = [*x.get_shape()[:-1], 2 * wg.shape[1]]
        mm = ge.MatMulOp(m.x, merged.output, None, TensorType(x.element_type, shape))
        return [merged, mm, ge.SwiGluOp(mm.output, len(shape) - 1)]


def _flat_projection(bind: str) -> OpMatcher:
    """reshape(reshape(x) @ W) back to x's leading dims, as ATen's linear on [B, S, K] (the
    flattening reshape may be shared: cse merges the gate's and the up projection's)."""
    flat = op(ge.ReshapeOp, "x")
    mm = op(ge.MatMulOp, flat, const(rank=2), bias=None, single_use=True, bind=bind)
    return op(ge.ReshapeOp, mm, single_use=True, bind=f"{bind}_out")


class FlatMatMulSwiGlu(MatMulSwiGlu):
    """As `matmul-swi-glu`, the projections of an x [..., K] written as Hugging Face's
    linear layers export them (x flattened to [M, K], the product reshaped back):

        %g = ge.reshape (ge.matmul (ge.reshape %x -> MxK), %wg) -> ...xN     (and %u)
        %y = ge.mul (ge.silu %g), %u
    ->
        %y = ge.swi_glu (ge.matmul %x, <[wg | wu]>) dim <rank - 1>
    """

    name = "flat-matmul-swi-glu"
    match = op(
        ge.MulOp, op(ge.SiluOp, _flat_projection("gate"), single_use=True), _flat_projection("up")
    )

    def rewrite(self, m: Match) -> list[Operation] | None:
        x = tuple(_tensor(m.x).get_shape())
        for mm, out in ((m.gate, m.gate_out), (m.up, m.up_out)):
            flat = tuple(_tensor(mm.a).get_shape())
            if len(x) < 2 or flat != (math.prod(x[:-1]), x[-1]):
                return None
            n = _tensor(mm.output).get_shape()[1]
            if tuple(_tensor(out.output).get_shape()) != (*x[:-1], n):
                return None
        return super().rewrite(m)


def _half(s: ge.SliceOp, size: int) -> tuple[int, int, int] | None:
    """(axis, start, stop) of a one-axis, unit-step slice (clamped as ONNX), else None."""
    axes, steps = list(s.axes.get_values()), list(s.steps.get_values())
    if len(axes) != 1 or steps != [1]:
        return None
    start, stop, _ = slice(s.starts.get_values()[0], s.ends.get_values()[0]).indices(size)
    return axes[0], start, stop


class SliceSwiGlu(Pattern):
    """silu of the first half of x along a dim times its second half (a merged gate/up
    projection cut in two):

        %a = ge.slice %x starts [0] ends [N] axes [1] steps [1] : tensor<Tx2Nxf32> -> ...
        %b = ge.slice %x starts [N] ends [2N] axes [1] steps [1] : ...
        %y = ge.mul (ge.silu %a), %b
    ->
        %y = ge.swi_glu %x dim 1 : tensor<Tx2Nxf32> -> tensor<TxNxf32>
    """

    name = "slice-swi-glu"
    match = op(
        ge.MulOp,
        op(ge.SiluOp, op(ge.SliceOp, "x", single_use=True, bind="a"), single_use=True),
        op(ge.SliceOp, "x", single_use=True, bind="b"),
    )

    def rewrite(self, m: Match) -> Operation | None:
        x = _tensor(m.x)
        if not _plain([m.x]):
            return None
        a, b = m.a, m.b
        axis = a.axes.get_values()[0] if len(a.axes.get_values()) == 1 else -1
        if axis < 0:
            return None
        size = x.get_shape()[axis]
        half = size // 2
        if size % 2 or _half(a, size) != (axis, 0, half) or _half(b, size) != (axis, half, size):
            return None
        return ge.SwiGluOp(m.x, axis)


# --------------------------------------------------------------------------------------
# MoE gating
# --------------------------------------------------------------------------------------


def _last_axis(o: Operation) -> bool:
    """A softmax over the last axis (a sigmoid has none: elementwise)."""
    if isinstance(o, ge.SoftmaxOp):
        return o.axis.value.data == _tensor(o.output).get_num_dims() - 1
    return True


def _renormalisation(values: SSAValue) -> Operation | None:
    """The div of `values / reduce_sum(values over the last axis, keepdims)`, when those
    two ops are the values' only users (and the sum is used once, by the div)."""
    users = [use.operation for use in values.uses]
    if len(users) != 2:
        return None
    rank = _tensor(values).get_num_dims()
    total = next((u for u in users if isinstance(u, ge.ReduceSumOp)), None)
    div = next((u for u in users if isinstance(u, ge.DivOp)), None)
    if total is None or div is None or total.keepdims is None:
        return None
    if list(total.axes.get_values()) != [rank - 1] or not total.output.has_one_use():
        return None
    if (div.lhs, div.rhs) != (values, total.output):
        return None
    return div if same_label([total, div]) else None


class MoeGatingTopK(Pattern):
    """The router: softmax (or sigmoid) of the logits, its top k, optionally divided by
    the k weights' sum:

        %p      = ge.softmax %logits axis 1
        %w, %id = ge.topk %p k 2 axis 1 largest sorted
        %s      = ge.reduce_sum %w axes [1] keepdims          (optional,
        %wn     = ge.div %w, %s                                 the renormalisation)
    ->
        %wn, %id = ge.moe_gating_top_k %logits k 2 renorm
    """

    name = "moe-gating-top-k"
    match = op(
        ge.TopKOp,
        op((ge.SoftmaxOp, ge.SigmoidOp), "logits", single_use=True, bind="norm", where=_last_axis),
        largest=True,
        sorted=True,
    )

    def rewrite(self, m: Match) -> Operation | None:
        topk = m.root
        assert isinstance(topk, ge.TopKOp)
        if topk.axis.value.data != _tensor(m.logits).get_num_dims() - 1 or not _plain([m.logits]):
            return None
        div = _renormalisation(topk.values)
        if div is not None and not same_label([topk, div]):
            div = None
        norm = "softmax" if isinstance(m.norm, ge.SoftmaxOp) else "sigmoid"
        gating = ge.MoeGatingTopKOp(m.logits, topk.k.value.data, norm, div is not None)
        if div is not None:
            m.replace(div, gating.weights)
        return gating


# --------------------------------------------------------------------------------------
# Experts
# --------------------------------------------------------------------------------------


def _stacked(root: Operation) -> tuple[list[Operation], list[Operation]] | None:
    """The ops whose results `root` stacks along a new leading axis, and the stacking ops
    between them and the root: each result (of one shape S, used once) reaches a concat on
    axis 0 either through a reshape S -> [1, *S] (used once), or directly, the concat's
    [E * S0, ...] then reshaped to [E, *S] (ATen's `stack`).  None for anything else."""
    between: list[Operation] = []
    concat = root
    if isinstance(root, ge.ReshapeOp):
        concat = root.input.owner  # type: ignore[assignment]
        if not isinstance(concat, ge.ConcatOp) or not concat.output.has_one_use():
            return None
        between.append(concat)
    if not isinstance(concat, ge.ConcatOp) or concat.axis.value.data != 0:
        return None
    values = list(concat.operands)
    if root is concat:
        reshapes = [v.owner for v in values]
        if not all(isinstance(r, ge.ReshapeOp) and r.output.has_one_use() for r in reshapes):
            return None
        between.extend(r for r in reshapes if isinstance(r, ge.ReshapeOp))
        values = [r.input for r in reshapes if isinstance(r, ge.ReshapeOp)]
    if len(values) < 2 or len({tuple(_tensor(v).get_shape()) for v in values}) != 1:
        return None
    shape = tuple(_tensor(values[0]).get_shape())
    if tuple(_tensor(root.results[0]).get_shape()) != (len(values), *shape):
        return None
    producers = [v.owner for v in values]
    if not all(isinstance(o, Operation) and len(o.results) == 1 for o in producers):
        return None
    if not all(v.has_one_use() for v in values):
        return None
    return [o for o in producers if isinstance(o, Operation)], [*between, root]


def _stack(values: Sequence[SSAValue]) -> list[Operation]:
    """Ops stacking `values` (of one shape S) into [E, *S]: x broadcast when they are one
    value, else reshapes to [1, *S] and a concat."""
    t = _tensor(values[0])
    one = [1, *t.get_shape()]
    full = [len(values), *t.get_shape()]
    if all(v is values[0] for v in values):
        r = ge.ReshapeOp(values[0], TensorType(t.element_type, one))
        return [r, ge.ExpandOp(r.output, TensorType(t.element_type, full))]
    pieces = [ge.ReshapeOp(v, TensorType(t.element_type, one)) for v in values]
    concat = ge.ConcatOp([p.output for p in pieces], 0, TensorType(t.element_type, full))
    return [*pieces, concat]


def _locate(ops: Sequence[Operation], matched: Sequence[Operation]) -> None:
    location = fused_location(matched)
    for o in ops:
        o.location = location


class StackedGroupedMatmul(Pattern):
    """E matmuls by constant [K, N] weights whose [T, N] results are stacked:

        %y0 = ge.matmul %a0, %w0 ...   %y1 = ge.matmul %a1, %w1 ...
        %s  = ge.concat (ge.reshape %y0 -> 1xTxN), (ge.reshape %y1 -> 1xTxN) axis 0
    ->
        %w  = ge.const <[w0, w1]> : tensor<ExKxN>
        %a  = ge.concat (ge.reshape %a0 -> 1xTxK), (ge.reshape %a1 ...) axis 0
              (or ge.expand (ge.reshape %x -> 1xTxK) -> ExTxK when every a_e is one x)
        %s  = ge.grouped_matmul %a, %w : tensor<ExTxK>, tensor<ExKxN> -> tensor<ExTxN>
    """

    name = "stacked-grouped-matmul"
    match = op((ge.ConcatOp, ge.ReshapeOp), rank=3)

    def rewrite(self, m: Match) -> list[Operation] | None:
        stacked = _stacked(m.root)
        if stacked is None:
            return None
        mms = [o for o in stacked[0] if isinstance(o, ge.MatMulOp)]
        if len(mms) != len(stacked[0]):
            return None
        weights = [w for w in map(_weight, mms) if w is not None]
        inputs = [o.a for o in mms]
        if len(weights) != len(mms) or len({w.shape for w in weights}) != 1:
            return None
        shapes = {tuple(_tensor(a).get_shape()) for a in inputs}
        if len(shapes) != 1 or _tensor(inputs[0]).get_num_dims() != 2:
            return None
        matched = [*mms, *stacked[1]]
        if not same_label(matched) or not _plain([*inputs, *(o.b for o in mms)]):
            return None
        w = _const_op(np.stack(weights), _tensor(mms[0].b))
        ops: list[Operation] = [w, *_stack(inputs)]
        ops.append(ge.GroupedMatmulOp(ops[-1].results[0], w.output, m.root.results[0].type))
        _locate(ops, matched)
        return ops


class StackedSwiGlu(Pattern):
    """A stack of swi_glus is the swi_glu of the stack:

        %s = ge.concat (ge.reshape (ge.swi_glu %g0 dim 1) -> 1xTxN), ... axis 0
    ->
        %s = ge.swi_glu (ge.concat (ge.reshape %g0 -> 1xTx2N), ... axis 0) dim 2
    """

    name = "stacked-swi-glu"
    match = op((ge.ConcatOp, ge.ReshapeOp))

    def rewrite(self, m: Match) -> list[Operation] | None:
        stacked = _stacked(m.root)
        if stacked is None:
            return None
        glus = [o for o in stacked[0] if isinstance(o, ge.SwiGluOp)]
        if len(glus) != len(stacked[0]):
            return None
        dims = {o.dim.value.data for o in glus}
        inputs = [o.input for o in glus]
        if len(dims) != 1 or len({tuple(_tensor(v).get_shape()) for v in inputs}) != 1:
            return None
        matched = [*glus, *stacked[1]]
        if not same_label(matched):
            return None
        ops = _stack(inputs)
        ops.append(ge.SwiGluOp(ops[-1].results[0], dims.pop() + 1))
        _locate(ops, matched)
        return ops


FuseMlpPass = pattern_pass(
    "fuse-mlp",
    [
        PowRmsNorm,
        MulRmsNorm,
        MatMulSwiGlu,
        FlatMatMulSwiGlu,
        SliceSwiGlu,
        MoeGatingTopK,
        StackedSwiGlu,
        StackedGroupedMatmul,
    ],
    summary="Fuses transformer MLP and MoE chains: rms_norm, swi_glu, moe_gating_top_k, "
    "grouped_matmul.",
    register=False,
)
