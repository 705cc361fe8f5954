"""The RMS normalisation as Hugging Face Llama writes it -> `ge.rms_norm` (docs/patterns.md).

    weight * (x * rsqrt(mean(x^2 over the last dims, keepdim) + eps))

reaches GE as pow (or mul x, x), reduce_mean, add, rsqrt, mul and mul; one `ge.rms_norm`
computes it in one kernel.  Legal when the mean is over trailing dims [axis, rank) with
keepdims, the exponent is the constant 2, epsilon is one constant value >= 0, the weight
has exactly the normalised shape and the input's element type, and every intermediate
result is used once (by the next op).

Run it with `ge-opt --load-patterns=examples/patterns/rms_norm.py --fuse-rms-norm model.mlir`.
"""

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from ge_dialect.ir.dialects import ge
from transforms.authoring import Match, OpMatcher, Pattern, const, op, pattern_pass


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
    """weight * (x * rsqrt(mean(x^2) + eps)), the muls in either order."""

    def rewrite(self, m: Match) -> Operation | None:
        x: SSAValue = m.x
        w: SSAValue = m.w
        mean = m.mean
        axis = int(mean.axes.get_values()[0])
        xt, wt = x.type, w.type
        assert isinstance(xt, TensorType) and isinstance(wt, TensorType)
        normalised = tuple(xt.get_shape())[axis:]
        if tuple(wt.get_shape()) != normalised or wt.element_type != xt.element_type:
            return None
        if isinstance(xt.encoding, ge.FormatAttr) or isinstance(wt.encoding, ge.FormatAttr):
            return None  # ge.rms_norm takes default-layout tensors
        eps = m.eps.owner
        assert isinstance(eps, ge.ConstOp)
        return ge.RmsNormOp(x, w, axis, float(eps.logical_array().reshape(-1)[0]))


class PowRmsNorm(_LlamaRmsNorm):
    name = "pow-rms-norm"
    match = op(ge.MulOp, "w", _normalised(_SQUARE[0]))


class MulRmsNorm(_LlamaRmsNorm):
    name = "mul-rms-norm"
    match = op(ge.MulOp, "w", _normalised(_SQUARE[1]))


FuseRmsNorm = pattern_pass(
    "fuse-rms-norm",
    [PowRmsNorm, MulRmsNorm],
    summary="Fuses weight * (x * rsqrt(mean(x^2) + eps)) into ge.rms_norm.",
)
