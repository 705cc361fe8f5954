"""The reference interpreter of the `ge` dialect: the numerical oracle of every pass.

Runtime values are the *physical* arrays of their types (an NC1HWC0 value is a 5-D array
with zero padding lanes, a FRACTAL_Z weight is 4-D fractal storage).  Each op converts its
operands to logical arrays, computes on them in float64 (integers in int32) and converts
the result back to its type's physical layout, rounding once to the result dtype.  So a
kernel with f(0) != 0 keeps padding lanes zero, and a wrong encoding gives wrong numbers.

Convolution is a direct sliding-window sum over kernel taps (no im2col), written
independently of the simulator's kernels.

    outputs = run_function(module, [x])          # logical numpy arrays in and out
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Operation, SSAValue

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils import dtypes, shapes
from ge_dialect.utils.errors import GeError, op_error


def _logical(value: SSAValue, physical: np.ndarray) -> np.ndarray:
    t = value.type
    assert isinstance(t, TensorType)
    return ge.to_logical(t, physical)


def _result(op: Operation, logical: np.ndarray, index: int = 0) -> np.ndarray:
    """Rounds once to the result dtype and lays the result out physically."""
    t = op.results[index].type
    assert isinstance(t, TensorType)
    dtype = dtypes.np_dtype(t.element_type)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        logical = np.clip(
            np.rint(logical) if logical.dtype.kind == "f" else logical, info.min, info.max
        )
    with np.errstate(over="ignore"):  # f32 -> f16 overflow rounds to inf, as it should
        return ge.to_physical(t, np.asarray(logical).astype(dtype))


def _operands(op: Operation, args: tuple[Any, ...]) -> list[np.ndarray]:
    return [_logical(v, a) for v, a in zip(op.operands, args, strict=True)]


def _identical_ranks(x: np.ndarray, ranks: int, reduction: ge.Reduction) -> np.ndarray:
    """The reduction of `ranks` copies of x (one device computes as rank 0 of them)."""
    if reduction == ge.Reduction.SUM:
        return _wide(x).astype(np.int64 if x.dtype.kind != "f" else np.float64) * ranks
    if reduction == ge.Reduction.PROD:
        # float64 keeps the sign and the magnitude, so integer products saturate.
        return x.astype(np.float64) ** ranks
    return x


def _wide(a: np.ndarray) -> np.ndarray:
    """float64 for floats, int32 for small integers: exact enough to round once."""
    return a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.int32)


def conv2d_reference(
    x: np.ndarray,
    w: np.ndarray,
    strides: Sequence[int] = (1, 1),
    pads: Sequence[int] = (0, 0, 0, 0),
    dilations: Sequence[int] = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """Direct grouped 2-D convolution of NCHW `x` with OIHW `w` in float64.

    `pads` is GE's [top, bottom, left, right].  Each kernel tap (i, j) adds the strided
    window of the padded input it sees, contracted over the group's input channels.
    """
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = strides
    dh, dw = dilations
    top, bottom, left, right = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    ho = shapes.conv_output_size(h, kh, sh, top, bottom, dh)
    wo = shapes.conv_output_size(wd, kw, sw, left, right, dw)
    og = o // groups
    xg = xp.reshape(n, groups, cg, xp.shape[2], xp.shape[3])
    wg = w.astype(np.float64).reshape(groups, og, cg, kh, kw)
    out = np.zeros((n, groups, og, ho, wo))
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dh, j * dw
            window = xg[:, :, :, r0 : r0 + sh * (ho - 1) + 1 : sh, c0 : c0 + sw * (wo - 1) + 1 : sw]
            out += np.einsum("ngchw,goc->ngohw", window, wg[:, :, :, i, j])
    return out.reshape(n, o, ho, wo)


def pool2d_reference(
    x: np.ndarray,
    kind: str,
    kernel: Sequence[int],
    strides: Sequence[int] = (1, 1),
    pads: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> np.ndarray:
    """Direct 2-D max ("max") or average ("avg") pooling of NCHW `x` in float64.

    Padding never wins a max; an average divides by the window's elements inside the input
    or, with `count_include_pad`, inside the padded input (a ceil_mode overhang never counts).
    """
    n, c, h, w = x.shape
    kh, kw = kernel
    sh, sw = strides
    top, bottom, left, right = pads
    ho = shapes.pool_output_size(h, kh, sh, top, bottom, ceil_mode)
    wo = shapes.pool_output_size(w, kw, sw, left, right, ceil_mode)
    over_h = max(0, (ho - 1) * sh + kh - (h + top + bottom))
    over_w = max(0, (wo - 1) * sw + kw - (w + left + right))
    fill = -np.inf if kind == "max" else 0.0
    spec = ((top, bottom + over_h), (left, right + over_w))
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), *spec), constant_values=fill)
    if count_include_pad:
        counted = np.pad(np.ones((h + top + bottom, w + left + right)), ((0, over_h), (0, over_w)))
    else:
        counted = np.pad(np.ones((h, w)), spec)
    acc = np.full((n, c, ho, wo), fill)
    count = np.zeros((ho, wo))
    for i in range(kh):
        for j in range(kw):
            rows = slice(i, i + sh * (ho - 1) + 1, sh)
            cols = slice(j, j + sw * (wo - 1) + 1, sw)
            if kind == "max":
                np.maximum(acc, xp[:, :, rows, cols], out=acc)
            else:
                acc += xp[:, :, rows, cols]
                count += counted[rows, cols]
    return acc if kind == "max" else acc / count


def _pool(op: ge.MaxPoolOp | ge.AvgPoolOp, x: np.ndarray, kind: str) -> np.ndarray:
    include = isinstance(op, ge.AvgPoolOp) and op.count_include_pad is not None
    return pool2d_reference(
        x,
        kind,
        op.kernel.get_values(),
        op.strides.get_values(),
        op.pads.get_values(),
        op.ceil_mode is not None,
        include,
    )


def _conv(op: ge.Conv2DOp | ge.FusedConv2DOp, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return conv2d_reference(
        x,
        w,
        op.strides.get_values(),
        op.pads.get_values(),
        op.dilations.get_values(),
        op.groups.value.data,
    )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    ex = np.exp(x[~pos])
    out[~pos] = ex / (1.0 + ex)
    return out


def _activation(name: str, x: np.ndarray, alpha: float | None) -> np.ndarray:
    if name == ge.Activation.NONE:
        return x
    if name == ge.Activation.RELU:
        return np.maximum(x, 0)
    if name == ge.Activation.RELU6:
        return np.clip(x, 0, 6)
    if name == ge.Activation.LEAKY_RELU:
        assert alpha is not None
        return np.where(x >= 0, x, x * alpha)
    if name == ge.Activation.SIGMOID:
        return _sigmoid(x)
    raise AssertionError(name)


_erf = np.vectorize(math.erf, otypes=[np.float64])
"""The error function, element by element with the standard library's `math.erf`."""


def _gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    """GELU as PyTorch and ONNX define it: the exact erf form or the tanh approximation."""
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


_MATH_UNARY: dict[type[Operation], Any] = {
    ge.ExpOp: np.exp,
    ge.LogOp: np.log,
    ge.TanhOp: np.tanh,
    ge.ErfOp: _erf,
    ge.SqrtOp: np.sqrt,
    ge.RsqrtOp: lambda x: 1.0 / np.sqrt(x),
    ge.NegOp: np.negative,
    ge.ReciprocalOp: lambda x: 1.0 / x,
    ge.SinOp: np.sin,
    ge.CosOp: np.cos,
}
"""The math functions of one operand, on float64 logical arrays."""

_MATH_BINARY: dict[type[Operation], Any] = {
    ge.DivOp: np.true_divide,
    ge.MaximumOp: np.maximum,
    ge.MinimumOp: np.minimum,
    ge.PowOp: np.power,
}
"""The math functions of two operands (numpy broadcasting), on float64 or int32 arrays."""


def _math(op: Operation, args: tuple[Any, ...]) -> tuple[np.ndarray]:
    """A math op's result: IEEE semantics (log(0) = -inf, sqrt(-1) = NaN, 1/0 = inf), so
    numpy's warnings for them are silenced."""
    values = [_wide(v) for v in _operands(op, args)]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if isinstance(op, ge.GeluOp):
            out = _gelu(values[0], op.approximate.data)
        elif len(values) == 1:
            out = _MATH_UNARY[type(op)](values[0])
        else:
            out = _MATH_BINARY[type(op)](*values)
        return (_result(op, out),)


_COMPARE: dict[type[Operation], Any] = {
    ge.EqualOp: np.equal,
    ge.NotEqualOp: np.not_equal,
    ge.LessOp: np.less,
    ge.LessEqualOp: np.less_equal,
    ge.GreaterOp: np.greater,
    ge.GreaterEqualOp: np.greater_equal,
}
"""The comparisons, written out here (independent of the ops' `COMPARISON` names)."""


def _compare(op: Operation, args: tuple[Any, ...]) -> tuple[np.ndarray]:
    """A comparison's i1 result on the exact operand values (IEEE: NaN compares unequal)."""
    a, b = _operands(op, args)
    with np.errstate(invalid="ignore"):
        return (_result(op, _COMPARE[type(op)](a, b)),)


def _checked_indices(op: Operation, indices: np.ndarray, axis: int, size: int) -> np.ndarray:
    """`indices` into an axis of `size` as non-negative int64 (an index i in [-n, 0) reads
    n + i); one outside [-n, n) is the op's located error (the graph cannot compute a
    result)."""
    wide = indices.astype(np.int64)
    bad = np.argwhere((wide < -size) | (wide >= size))
    if len(bad):
        where = [int(i) for i in bad[0]]
        raise op_error(
            op,
            f"indices hold {int(wide[tuple(where)])} at {where}, out of range for axis "
            f"{axis} of size {size} (an index must lie in [{-size}, {size}))",
        )
    return np.where(wide < 0, wide + size, wide)


def _gather(op: ge.GatherOp, x: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """ONNX Gather by advanced indexing along `axis`; an index outside [-n, n) is the
    op's located error (ONNX leaves it undefined; the graph cannot compute a result)."""
    axis = op.axis.value.data
    wide = _checked_indices(op, indices, axis, x.shape[axis])
    return x[(slice(None),) * axis + (wide,)]


def _scatter_update(
    op: ge.ScatterUpdateOp, cache: np.ndarray, indices: np.ndarray, update: np.ndarray
) -> np.ndarray:
    """A copy of the cache, then each batch row's update written at its position along
    `axis`; a position outside [0, S - K] is the op's located error."""
    axis = op.axis.value.data
    size, k = cache.shape[axis], update.shape[axis]
    out = cache.copy()
    for b, position in enumerate(indices.astype(np.int64).tolist()):
        if not 0 <= position <= size - k:
            raise op_error(
                op,
                f"indices hold {position} at [{b}], out of range for {k} positions along "
                f"axis {axis} of size {size} (a position must lie in [0, {size - k}])",
            )
        rows = (b,) + (slice(None),) * (axis - 1) + (slice(position, position + k),)
        out[rows] = update[b]
    return out


def _slice(op: ge.SliceOp, x: np.ndarray) -> np.ndarray:
    """ONNX Slice: the clamped positions start:end:step of each sliced axis, taken one axis
    at a time."""
    for start, end, axis, step in zip(
        op.starts.get_values(),
        op.ends.get_values(),
        op.axes.get_values(),
        op.steps.get_values(),
        strict=True,
    ):
        size = x.shape[axis]
        start = min(max(start + size if start < 0 else start, 0), size)
        end = min(max(end + size if end < 0 else end, 0), size)
        x = np.take(x, np.arange(start, end, step, dtype=np.int64), axis=axis)
    return x


def _f32(value: float) -> float:
    """An f32 attribute's value as the f32 number it denotes."""
    return float(np.float32(value))


_REDUCTIONS: dict[type[Operation], Any] = {
    ge.ReduceSumOp: np.sum,
    ge.ReduceMeanOp: np.mean,
    ge.ReduceMaxOp: np.max,
    ge.ReduceMinOp: np.min,
}
"""The numpy function of each `ge.reduce_*` op (on float64 or int32 values)."""


def _reduce(op: ge.ReduceOp, args: tuple[Any, ...]) -> tuple[np.ndarray]:
    """A `ge.reduce_*` op's result over its axes (empty: all), in float64 or int32."""
    (x,) = (_wide(v) for v in _operands(op, args))
    f = _REDUCTIONS[type(op)]
    return (_result(op, f(x, axis=op.reduced_axes(), keepdims=op.keepdims is not None)),)


def _topk(
    x: np.ndarray, k: int, axis: int, largest: bool, ordered: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The k largest (smallest) values along `axis` and their indices: a stable full sort
    (equal values keep the lower index first); unordered, the k in index order."""
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    ids = np.take(order, np.arange(k), axis=axis)
    if not ordered:
        ids = np.sort(ids, axis=axis)
    return np.take_along_axis(x, ids, axis=axis), ids


def _scatter_add(
    op: ge.ScatterAddOp, data: np.ndarray, indices: np.ndarray, updates: np.ndarray
) -> np.ndarray:
    """ONNX ScatterElements (reduction add) by `np.add.at` on full index grids; an index
    outside [-n, n) is the op's located error."""
    axis = op.axis.value.data
    wide = _checked_indices(op, indices, axis, data.shape[axis])
    grid: list[np.ndarray] = list(np.indices(wide.shape))
    grid[axis] = wide
    out = data.copy()
    np.add.at(out, tuple(grid), updates)
    return out


def flash_attention_reference(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None,
    scale: float,
    causal: bool,
) -> np.ndarray:
    """Attention computed directly in float64: every query head's full score matrix
    (its key/value head repeated for grouped-query attention), masked, then one softmax
    per row; a row that sees no key gives zeros (`ge.flash_attention`)."""
    group = q.shape[1] // k.shape[1]
    k = np.repeat(k.astype(np.float64), group, axis=1)
    v = np.repeat(v.astype(np.float64), group, axis=1)
    scores = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k) * scale
    sq, skv = scores.shape[-2:]
    keep = np.ones(scores.shape, dtype=bool)
    if mask is not None and mask.dtype == np.bool_:
        keep &= mask
    elif mask is not None:
        scores = scores + mask.astype(np.float64)
    if causal:
        keep &= np.arange(skv)[None, :] <= np.arange(sq)[:, None] + (skv - sq)
    scores = np.where(keep, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True, initial=-np.inf)  # no key at all: -inf
    seen = np.isfinite(top)
    weights = np.exp(scores - np.where(seen, top, 0.0))
    weights = weights / np.where(seen, weights.sum(axis=-1, keepdims=True), 1.0)
    return np.einsum("bhqk,bhkd->bhqd", weights, v)


@register_impls
class GeFunctions(InterpreterFunctions):
    """Reference implementations of the `ge` ops on physical numpy arrays."""

    @impl(ge.ConstOp)
    def run_const(self, interp: Interpreter, op: ge.ConstOp, args: tuple[Any, ...]):
        return (op.physical_array(),)

    @impl(ge.Conv2DOp)
    def run_conv2d(self, interp: Interpreter, op: ge.Conv2DOp, args: tuple[Any, ...]):
        x, w, *rest = _operands(op, args)
        out = _conv(op, x, w)
        if rest:
            out += _wide(rest[0]).reshape(1, -1, 1, 1)
        return (_result(op, out),)

    @impl(ge.FusedConv2DOp)
    def run_fused_conv2d(self, interp: Interpreter, op: ge.FusedConv2DOp, args: tuple[Any, ...]):
        x, w, *rest = _operands(op, args)
        out = _conv(op, x, w)
        rest_values = list(rest)
        if op.bias is not None:
            out += _wide(rest_values.pop(0)).reshape(1, -1, 1, 1)
        if op.residual is not None:
            out += _wide(rest_values.pop(0))
        alpha = None if op.alpha is None else _f32(op.alpha.value.data)
        return (_result(op, _activation(op.activation.data, out, alpha)),)

    @impl(ge.BatchNormOp)
    def run_batch_norm(self, interp: Interpreter, op: ge.BatchNormOp, args: tuple[Any, ...]):
        x, scale, offset, mean, var = (_wide(a) for a in _operands(op, args))
        shape = (1, -1, 1, 1)
        eps = _f32(op.epsilon.value.data)
        inv = scale.reshape(shape) / np.sqrt(var.reshape(shape) + eps)
        out = (x - mean.reshape(shape)) * inv + offset.reshape(shape)
        return (_result(op, out),)

    @impl(ge.ReluOp)
    def run_relu(self, interp: Interpreter, op: ge.ReluOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, np.maximum(_wide(x), 0)),)

    @impl(ge.Relu6Op)
    def run_relu6(self, interp: Interpreter, op: ge.Relu6Op, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, np.clip(_wide(x), 0, 6)),)

    @impl(ge.LeakyReluOp)
    def run_leaky_relu(self, interp: Interpreter, op: ge.LeakyReluOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, _activation("leaky_relu", _wide(x), _f32(op.alpha.value.data))),)

    @impl(ge.SigmoidOp)
    def run_sigmoid(self, interp: Interpreter, op: ge.SigmoidOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, _sigmoid(_wide(x))),)

    @impl(ge.ClipOp)
    def run_clip(self, interp: Interpreter, op: ge.ClipOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        lo, hi = _f32(op.min.value.data), _f32(op.max.value.data)
        return (_result(op, np.clip(_wide(x), lo, hi)),)

    @impl(ge.AddOp)
    def run_add(self, interp: Interpreter, op: ge.AddOp, args: tuple[Any, ...]):
        a, b = (_wide(v) for v in _operands(op, args))
        return (_result(op, a + b),)

    @impl(ge.SubOp)
    def run_sub(self, interp: Interpreter, op: ge.SubOp, args: tuple[Any, ...]):
        a, b = (_wide(v) for v in _operands(op, args))
        return (_result(op, a - b),)

    @impl(ge.MulOp)
    def run_mul(self, interp: Interpreter, op: ge.MulOp, args: tuple[Any, ...]):
        a, b = (_wide(v) for v in _operands(op, args))
        return (_result(op, a * b),)

    @impl(ge.ExpOp)
    def run_exp(self, interp: Interpreter, op: ge.ExpOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.LogOp)
    def run_log(self, interp: Interpreter, op: ge.LogOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.TanhOp)
    def run_tanh(self, interp: Interpreter, op: ge.TanhOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.ErfOp)
    def run_erf(self, interp: Interpreter, op: ge.ErfOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.SqrtOp)
    def run_sqrt(self, interp: Interpreter, op: ge.SqrtOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.RsqrtOp)
    def run_rsqrt(self, interp: Interpreter, op: ge.RsqrtOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.NegOp)
    def run_neg(self, interp: Interpreter, op: ge.NegOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.ReciprocalOp)
    def run_reciprocal(self, interp: Interpreter, op: ge.ReciprocalOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.GeluOp)
    def run_gelu(self, interp: Interpreter, op: ge.GeluOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.DivOp)
    def run_div(self, interp: Interpreter, op: ge.DivOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.MaximumOp)
    def run_maximum(self, interp: Interpreter, op: ge.MaximumOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.MinimumOp)
    def run_minimum(self, interp: Interpreter, op: ge.MinimumOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.PowOp)
    def run_pow(self, interp: Interpreter, op: ge.PowOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.SinOp)
    def run_sin(self, interp: Interpreter, op: ge.SinOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.CosOp)
    def run_cos(self, interp: Interpreter, op: ge.CosOp, args: tuple[Any, ...]):
        return _math(op, args)

    @impl(ge.EqualOp)
    def run_equal(self, interp: Interpreter, op: ge.EqualOp, args: tuple[Any, ...]):
        return _compare(op, args)

    @impl(ge.NotEqualOp)
    def run_not_equal(self, interp: Interpreter, op: ge.NotEqualOp, args: tuple[Any, ...]):
        return _compare(op, args)

    @impl(ge.LessOp)
    def run_less(self, interp: Interpreter, op: ge.LessOp, args: tuple[Any, ...]):
        return _compare(op, args)

    @impl(ge.LessEqualOp)
    def run_less_equal(self, interp: Interpreter, op: ge.LessEqualOp, args: tuple[Any, ...]):
        return _compare(op, args)

    @impl(ge.GreaterOp)
    def run_greater(self, interp: Interpreter, op: ge.GreaterOp, args: tuple[Any, ...]):
        return _compare(op, args)

    @impl(ge.GreaterEqualOp)
    def run_greater_equal(self, interp: Interpreter, op: ge.GreaterEqualOp, args: tuple[Any, ...]):
        return _compare(op, args)

    @impl(ge.LogicalNotOp)
    def run_logical_not(self, interp: Interpreter, op: ge.LogicalNotOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, ~x.astype(bool)),)

    @impl(ge.LogicalAndOp)
    def run_logical_and(self, interp: Interpreter, op: ge.LogicalAndOp, args: tuple[Any, ...]):
        a, b = (v.astype(bool) for v in _operands(op, args))
        return (_result(op, a & b),)

    @impl(ge.LogicalOrOp)
    def run_logical_or(self, interp: Interpreter, op: ge.LogicalOrOp, args: tuple[Any, ...]):
        a, b = (v.astype(bool) for v in _operands(op, args))
        return (_result(op, a | b),)

    @impl(ge.WhereOp)
    def run_where(self, interp: Interpreter, op: ge.WhereOp, args: tuple[Any, ...]):
        c, a, b = _operands(op, args)
        return (_result(op, np.where(c.astype(bool), a, b)),)

    @impl(ge.TransDataOp)
    def run_trans_data(self, interp: Interpreter, op: ge.TransDataOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, x),)

    @impl(ge.MatMulOp)
    def run_matmul(self, interp: Interpreter, op: ge.MatMulOp, args: tuple[Any, ...]):
        a, b, *rest = (_wide(v) for v in _operands(op, args))
        if op.transpose_a is not None:
            a = np.swapaxes(a, -1, -2)
        if op.transpose_b is not None:
            b = np.swapaxes(b, -1, -2)
        out = np.matmul(a, b)
        if rest:
            out = out + rest[0]
        return (_result(op, out),)

    @impl(ge.SiluOp)
    def run_silu(self, interp: Interpreter, op: ge.SiluOp, args: tuple[Any, ...]):
        (x,) = (_wide(v) for v in _operands(op, args))
        return (_result(op, x * _sigmoid(x)),)

    @impl(ge.MaxPoolOp)
    def run_max_pool(self, interp: Interpreter, op: ge.MaxPoolOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, _pool(op, x, "max")),)

    @impl(ge.AvgPoolOp)
    def run_avg_pool(self, interp: Interpreter, op: ge.AvgPoolOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, _pool(op, x, "avg")),)

    @impl(ge.GlobalAvgPoolOp)
    def run_global_avg_pool(
        self, interp: Interpreter, op: ge.GlobalAvgPoolOp, args: tuple[Any, ...]
    ):
        (x,) = _operands(op, args)
        return (_result(op, x.astype(np.float64).mean(axis=(2, 3), keepdims=True)),)

    @impl(ge.ConcatOp)
    def run_concat(self, interp: Interpreter, op: ge.ConcatOp, args: tuple[Any, ...]):
        return (_result(op, np.concatenate(_operands(op, args), axis=op.axis.value.data)),)

    @impl(ge.ReshapeOp)
    def run_reshape(self, interp: Interpreter, op: ge.ReshapeOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, x.reshape(tuple(op.output.type.get_shape()))),)

    @impl(ge.FlattenOp)
    def run_flatten(self, interp: Interpreter, op: ge.FlattenOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, x.reshape(tuple(op.output.type.get_shape()))),)

    @impl(ge.TransposeOp)
    def run_transpose(self, interp: Interpreter, op: ge.TransposeOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, np.transpose(x, op.perm.get_values())),)

    @impl(ge.GatherOp)
    def run_gather(self, interp: Interpreter, op: ge.GatherOp, args: tuple[Any, ...]):
        x, indices = _operands(op, args)
        return (_result(op, _gather(op, x, indices)),)

    @impl(ge.SliceOp)
    def run_slice(self, interp: Interpreter, op: ge.SliceOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, _slice(op, x)),)

    @impl(ge.ScatterUpdateOp)
    def run_scatter_update(
        self, interp: Interpreter, op: ge.ScatterUpdateOp, args: tuple[Any, ...]
    ):
        return (_result(op, _scatter_update(op, *_operands(op, args))),)

    @impl(ge.ExpandOp)
    def run_expand(self, interp: Interpreter, op: ge.ExpandOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, np.broadcast_to(x, tuple(op.output.type.get_shape()))),)

    @impl(ge.SoftmaxOp)
    def run_softmax(self, interp: Interpreter, op: ge.SoftmaxOp, args: tuple[Any, ...]):
        (x,) = (_wide(v) for v in _operands(op, args))
        axis = op.axis.value.data
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return (_result(op, e / e.sum(axis=axis, keepdims=True)),)

    @impl(ge.ReduceSumOp)
    def run_reduce_sum(self, interp: Interpreter, op: ge.ReduceSumOp, args: tuple[Any, ...]):
        return _reduce(op, args)

    @impl(ge.ReduceMeanOp)
    def run_reduce_mean(self, interp: Interpreter, op: ge.ReduceMeanOp, args: tuple[Any, ...]):
        return _reduce(op, args)

    @impl(ge.ReduceMaxOp)
    def run_reduce_max(self, interp: Interpreter, op: ge.ReduceMaxOp, args: tuple[Any, ...]):
        return _reduce(op, args)

    @impl(ge.ReduceMinOp)
    def run_reduce_min(self, interp: Interpreter, op: ge.ReduceMinOp, args: tuple[Any, ...]):
        return _reduce(op, args)

    @impl(ge.LayerNormOp)
    def run_layer_norm(self, interp: Interpreter, op: ge.LayerNormOp, args: tuple[Any, ...]):
        # float64 and np.var: independent of the kernel's two-pass fp32 statistics.
        x, *params = (_wide(v) for v in _operands(op, args))
        axes = tuple(range(op.axis.value.data, x.ndim))
        eps = _f32(op.epsilon.value.data)
        y = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(
            np.var(x, axis=axes, keepdims=True) + eps
        )
        if op.weight is not None:
            y = y * params.pop(0)
        if op.bias is not None:
            y = y + params.pop(0)
        return (_result(op, y),)

    @impl(ge.RmsNormOp)
    def run_rms_norm(self, interp: Interpreter, op: ge.RmsNormOp, args: tuple[Any, ...]):
        x, w = (_wide(v) for v in _operands(op, args))
        axes = tuple(range(op.axis.value.data, x.ndim))
        rms = np.sqrt(np.mean(np.square(x), axis=axes, keepdims=True) + _f32(op.epsilon.value.data))
        return (_result(op, x / rms * w),)

    @impl(ge.TopKOp)
    def run_topk(self, interp: Interpreter, op: ge.TopKOp, args: tuple[Any, ...]):
        (x,) = (_wide(v) for v in _operands(op, args))
        k, axis = op.k.value.data, op.axis.value.data
        values, ids = _topk(x, k, axis, op.largest is not None, op.sorted is not None)
        return (_result(op, values, 0), _result(op, ids, 1))

    @impl(ge.ScatterAddOp)
    def run_scatter_add(self, interp: Interpreter, op: ge.ScatterAddOp, args: tuple[Any, ...]):
        data, indices, updates = _operands(op, args)
        return (_result(op, _scatter_add(op, _wide(data), indices, _wide(updates))),)

    @impl(ge.SwiGluOp)
    def run_swi_glu(self, interp: Interpreter, op: ge.SwiGluOp, args: tuple[Any, ...]):
        (x,) = (_wide(v) for v in _operands(op, args))
        a, b = np.split(x, 2, axis=op.dim.value.data)
        return (_result(op, a * _sigmoid(a) * b),)

    @impl(ge.MoeGatingTopKOp)
    def run_moe_gating_top_k(
        self, interp: Interpreter, op: ge.MoeGatingTopKOp, args: tuple[Any, ...]
    ):
        (x,) = (_wide(v) for v in _operands(op, args))
        if op.norm.data == "sigmoid":
            p = _sigmoid(x)
        else:
            e = np.exp(x - x.max(axis=-1, keepdims=True))
            p = e / e.sum(axis=-1, keepdims=True)
        weights, ids = _topk(p, op.k.value.data, x.ndim - 1, largest=True, ordered=True)
        if op.renorm is not None:
            weights = weights / weights.sum(axis=-1, keepdims=True)
        return (_result(op, weights, 0), _result(op, ids, 1))

    @impl(ge.GroupedMatmulOp)
    def run_grouped_matmul(
        self, interp: Interpreter, op: ge.GroupedMatmulOp, args: tuple[Any, ...]
    ):
        x, w = (_wide(v) for v in _operands(op, args))
        return (_result(op, np.einsum("etk,ekn->etn", x, w)),)

    @impl(ge.FlashAttentionOp)
    def run_flash_attention(
        self, interp: Interpreter, op: ge.FlashAttentionOp, args: tuple[Any, ...]
    ):
        q, k, v, *mask = _operands(op, args)
        out = flash_attention_reference(
            q, k, v, mask[0] if mask else None, op.scale.value.data, op.causal is not None
        )
        return (_result(op, out),)

    @impl(ge.RotaryMulOp)
    def run_rotary_mul(self, interp: Interpreter, op: ge.RotaryMulOp, args: tuple[Any, ...]):
        x, cos, sin = (_wide(v) for v in _operands(op, args))
        half = x.shape[-1] // 2
        rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
        return (_result(op, x * cos + rotated * sin),)

    @impl(ge.IdentityOp)
    def run_identity(self, interp: Interpreter, op: ge.IdentityOp, args: tuple[Any, ...]):
        return (args[0],)

    @impl(ge.CastOp)
    def run_cast(self, interp: Interpreter, op: ge.CastOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, x),)

    @impl(ge.HcomAllReduceOp)
    def run_all_reduce(self, interp: Interpreter, op: ge.HcomAllReduceOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, _identical_ranks(x, op.rank_size.value.data, op.reduction.data)),)

    @impl(ge.HcomAllGatherOp)
    def run_all_gather(self, interp: Interpreter, op: ge.HcomAllGatherOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, np.concatenate([x] * op.rank_size.value.data, axis=0)),)

    @impl(ge.HcomReduceScatterOp)
    def run_reduce_scatter(
        self, interp: Interpreter, op: ge.HcomReduceScatterOp, args: tuple[Any, ...]
    ):
        # Identical ranks: rank 0 keeps block 0 of the all-reduce.
        (x,) = _operands(op, args)
        ranks = op.rank_size.value.data
        block = x[: x.shape[0] // ranks]
        return (_result(op, _identical_ranks(block, ranks, op.reduction.data)),)

    @impl(ge.HcomAllToAllOp)
    def run_all_to_all(self, interp: Interpreter, op: ge.HcomAllToAllOp, args: tuple[Any, ...]):
        # Identical ranks: group rank j sends rank 0 its piece 0, rank_size times.
        (x,) = _operands(op, args)
        send, recv = op.counts()
        if any(r != send[0] for r in recv):
            raise ValueError(
                f"ge.hcom_all_to_all on one device: every rank sends {send[0]} rows to rank 0, "
                f"but recv_counts are {recv}"
            )
        piece = np.take(x, range(send[0]), axis=op.split_dim.value.data)
        out = np.concatenate([piece] * op.rank_size.value.data, axis=op.concat_dim.value.data)
        return (_result(op, out),)

    @impl(ge.HcomBroadcastOp)
    def run_broadcast(self, interp: Interpreter, op: ge.HcomBroadcastOp, args: tuple[Any, ...]):
        (x,) = _operands(op, args)
        return (_result(op, x),)

    @impl(ge.HcomSendOp)
    def run_send(self, interp: Interpreter, op: ge.HcomSendOp, args: tuple[Any, ...]):
        return ()

    @impl(ge.HcomReceiveOp)
    def run_receive(self, interp: Interpreter, op: ge.HcomReceiveOp, args: tuple[Any, ...]):
        # One device has no sender: zeros (a multi-rank run matches every receive).
        t = op.output.type
        assert isinstance(t, TensorType)
        return (_result(op, np.zeros(t.get_shape(), dtype=np.float64)),)


@register_impls
class StreamFunctions(InterpreterFunctions):
    """The stream ops order work on a device; the reference computes them as no-ops."""

    @impl(stream.WaitTensorOp)
    def run_wait_tensor(self, interp: Interpreter, op: stream.WaitTensorOp, args: tuple[Any, ...]):
        return (args[0],)

    @impl(stream.RecordOp)
    def run_record(self, interp: Interpreter, op: stream.RecordOp, args: tuple[Any, ...]):
        return (None,)

    @impl(stream.WaitOp)
    def run_wait(self, interp: Interpreter, op: stream.WaitOp, args: tuple[Any, ...]):
        return ()


NAME = "ge.name"
"""The argument and result attribute holding a graph name (`{ge.name = "x"}`)."""


def evaluate(op: Operation, physical: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """The physical results of one `ge` op on the physical arrays of its operands (what
    constant folding computes with)."""
    interp = Interpreter(ModuleOp([]))
    interp.register_implementations(GeFunctions())
    return tuple(interp.run_op(op, tuple(physical)))


def _names(attrs: ArrayAttr | None, count: int, prefix: str) -> list[str]:
    names = []
    for i in range(count):
        entry = attrs.data[i] if attrs is not None and i < len(attrs.data) else None
        name = entry.data.get(NAME) if isinstance(entry, DictionaryAttr) else None
        names.append(name.data if isinstance(name, StringAttr) else f"{prefix}{i}")
    return names


def io_names(f: func.FuncOp) -> tuple[list[str], list[str]]:
    """The names of `f`'s arguments and results: their `ge.name`, else `arg<i>` and
    `result<i>` (the keys of ge-run's `.npz` files)."""
    return (
        _names(f.arg_attrs, len(f.function_type.inputs.data), "arg"),
        _names(f.res_attrs, len(f.function_type.outputs.data), "result"),
    )


def find_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The function called `name`, or the module's first function."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    for f in funcs:
        if name is None or f.sym_name.data == name:
            return f
    if name is None:
        raise GeError("error: the module has no function to run")
    raise GeError(f"error: the module has no function '@{name}'")


def run_function(
    module: ModuleOp,
    inputs: Sequence[np.ndarray] | Mapping[int, np.ndarray],
    function: str | None = None,
    physical: bool = False,
) -> list[np.ndarray]:
    """Runs a function of `module` on logical numpy inputs; returns logical outputs.

    With `physical=True` inputs and outputs are the physical arrays of their types (an
    NC1HWC0 argument takes a 5-D array), which shows padding lanes.
    """
    f = find_function(module, function)
    arg_types = f.function_type.inputs.data
    if isinstance(inputs, Mapping):
        if sorted(inputs) != list(range(len(arg_types))):
            raise GeError(
                f"error: @{f.sym_name.data} takes inputs 0..{len(arg_types) - 1}, got keys "
                f"{sorted(inputs, key=str)}"
            )
        values = [inputs[i] for i in range(len(arg_types))]
    else:
        values = list(inputs)
    if len(values) != len(arg_types):
        raise GeError(f"error: @{f.sym_name.data} takes {len(arg_types)} inputs, got {len(values)}")
    args = []
    for i, (t, value) in enumerate(zip(arg_types, values, strict=True)):
        assert isinstance(t, TensorType)
        value = np.asarray(value)
        expected = ge.physical_shape(t) if physical else tuple(t.get_shape())
        if value.shape != tuple(expected):
            raise GeError(
                f"error: input #{i} has shape {list(value.shape)}, expected {list(expected)}"
            )
        dtype = dtypes.np_dtype(t.element_type)
        args.append(value.astype(dtype) if physical else ge.to_physical(t, value.astype(dtype)))
    interp = Interpreter(module)
    interp.register_implementations(FuncFunctions())
    interp.register_implementations(GeFunctions())
    interp.register_implementations(StreamFunctions())
    outputs = interp.call_op(f, tuple(args))
    if physical:
        return [np.asarray(o) for o in outputs]
    logical = []
    for t, o in zip(f.function_type.outputs.data, outputs, strict=True):
        assert isinstance(t, TensorType)
        logical.append(ge.to_logical(t, np.asarray(o)))
    return logical
