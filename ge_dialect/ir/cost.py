"""The work of a `ge` op: FLOPs, bytes in and out, the unit that runs it, and its blocks.

One cost model for the whole project (docs/architecture.md): stream assignment balances streams with
it, the device lowering copies it onto kernel launches, and the benches read it.  The
simulator owns only the device profile and the time model.

- `flops` counts multiply and add separately (a MAC is 2 FLOPs).
- `bytes_in` / `bytes_out` are the physical sizes of the operands / results (padding lanes
  of NC1HWC0, FRACTAL_Z and FRACTAL_NZ included: the device moves them too); a gather or
  slice reads only the elements it writes (and a gather its indices); a scatter_update
  moves only its update (and reads its indices): the device writes it in place.
- `unit` is "cube" (convolution, matmul, flash attention: its softmax runs on the vector
  unit beside the cube, `sim.kernel_model`), "vector" (everything elementwise, pooling,
  normalisation and data movement), "comm" (collectives) or "none" (constants and the
  stream ops, which do no work).
- `blocks` is the number of independent pieces the kernel splits into across AI cores: a
  cube op has one block per 16x16 output fractal (M x N of the implicit GEMM), a vector
  op one block per `VECTOR_BLOCK_ELEMENTS` output elements, a collective one block.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from ge_dialect.ir.dialects import ge
from ge_dialect.utils import dtypes

FRACTAL = 16
"""The cube unit's output tile edge (a block is one FRACTAL x FRACTAL output tile)."""

VECTOR_BLOCK_ELEMENTS = 8192
"""Output elements per block of a vector kernel."""


@dataclass(frozen=True)
class OpCost:
    flops: int
    bytes_in: int
    bytes_out: int
    unit: str
    blocks: int


NO_COST = OpCost(0, 0, 0, "none", 0)


def nbytes(t: Attribute) -> int:
    """Physical size in bytes of a value of type `t`."""
    assert isinstance(t, TensorType)
    return math.prod(ge.physical_shape(t)) * dtypes.itemsize(t.element_type)


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def _elements(t: Attribute) -> int:
    assert isinstance(t, TensorType)
    return math.prod(t.get_shape())


def _vector_blocks(op: Operation) -> int:
    return max(1, -(-sum(_elements(r.type) for r in op.results) // VECTOR_BLOCK_ELEMENTS))


def _cube_blocks(m: int, n: int, batch: int = 1) -> int:
    return max(1, batch * -(-m // FRACTAL) * -(-n // FRACTAL))


# FLOPs per output element of the elementwise and normalisation ops.
_PER_ELEMENT: dict[type[Operation], int] = {
    ge.ReluOp: 1,
    ge.Relu6Op: 2,
    ge.ClipOp: 2,
    ge.LeakyReluOp: 2,
    ge.SigmoidOp: 4,  # exp, add, reciprocal, negate
    ge.SiluOp: 5,
    ge.AddOp: 1,
    ge.SubOp: 1,
    ge.MulOp: 1,
    ge.NegOp: 1,  # one multiply by -1
    ge.MaximumOp: 1,  # one compare-select
    ge.MinimumOp: 1,
    ge.ReciprocalOp: 2,  # reciprocal estimate and one Newton step
    ge.DivOp: 2,  # reciprocal then multiply
    ge.SqrtOp: 2,  # rsqrt estimate and a multiply by x
    ge.RsqrtOp: 2,  # rsqrt estimate and one Newton step
    ge.ExpOp: 3,  # range reduction, polynomial, exponent scaling
    ge.LogOp: 3,  # exponent split, polynomial, scaling
    ge.TanhOp: 5,  # exp(-2|x|) (3), then (1 - e) / (1 + e) with the sign
    ge.ErfOp: 8,  # a rational approximation: about eight multiply-adds
    ge.PowOp: 7,  # exp(y * log(x)): log (3), multiply, exp (3)
    ge.GeluOp: 11,  # erf form: erf (8), scale by 1/sqrt(2), add 1, multiply by x/2
    ge.SinOp: 4,  # range reduction to [-pi/4, pi/4], polynomial (3)
    ge.CosOp: 4,
    ge.WhereOp: 1,  # one select (comparisons and logic: one compare or bit op, the default)
    ge.BatchNormOp: 2,  # folded scale and shift
    ge.SoftmaxOp: 5,  # max, sub, exp, sum, div
    ge.RotaryMulOp: 4,  # x * cos, the rotated half's negation, its product with sin, the sum
    ge.CastOp: 1,
    ge.SwiGluOp: 6,  # silu (5) of one half, multiply by the other
}

# FLOPs per INPUT element of the reductions and normalisations (their output may be small).
_PER_INPUT_ELEMENT: dict[type[Operation], int] = {
    ge.ReduceSumOp: 1,  # one add
    ge.ReduceMeanOp: 1,  # one add (the final scale is per output element, negligible)
    ge.ReduceMaxOp: 1,  # one compare-select
    ge.ReduceMinOp: 1,
    ge.LayerNormOp: 7,  # sum, subtract, square, sum, scale by the rstd, weight, bias
    ge.RmsNormOp: 4,  # square, sum, scale by the rsqrt, weight
}

_MOVES = (
    ge.TransDataOp,
    ge.ReshapeOp,
    ge.FlattenOp,
    ge.TransposeOp,
    ge.ConcatOp,
    ge.IdentityOp,
    ge.ExpandOp,
)

_ACTIVATION_FLOPS = {
    ge.Activation.NONE: 0,
    ge.Activation.RELU: 1,
    ge.Activation.RELU6: 2,
    ge.Activation.LEAKY_RELU: 2,
    ge.Activation.SIGMOID: 4,
}


def _indexing_cost(op: ge.GatherOp | ge.SliceOp | ge.ScatterUpdateOp, bytes_out: int) -> OpCost:
    """A gather or slice reads only the elements it writes (and a gather its indices), not
    its whole data operand; a scatter_update, in place, reads its update and positions and
    writes the update's bytes only."""
    if isinstance(op, ge.ScatterUpdateOp):
        moved = nbytes(op.update.type)
        blocks = max(1, -(-_elements(op.update.type) // VECTOR_BLOCK_ELEMENTS))
        return OpCost(0, moved + nbytes(op.indices.type), moved, "vector", blocks)
    read = bytes_out + (nbytes(op.indices.type) if isinstance(op, ge.GatherOp) else 0)
    return OpCost(0, read, bytes_out, "vector", _vector_blocks(op))


def attention_scores(sq: int, skv: int, causal: bool) -> int:
    """The scores one attention head computes: every pair, or the pairs a causal query
    sees (query i sees keys j <= i + skv - sq)."""
    return sq * (skv - sq) + sq * (sq + 1) // 2 if causal else sq * skv


def _flash_attention_cost(op: Operation, bytes_in: int, bytes_out: int) -> OpCost:
    """HBM sees q, k, v, the mask and the output only: the scores stay on chip.  FLOPs: the
    two GEMMs, then per score scale, max, subtract, exp, sum (and the mask's add or
    select), and the output's rescale by the row sums; causal attention computes only the
    scores a query sees."""
    assert isinstance(op, ge.FlashAttentionOp)
    b, n, sq, d = _shape(op.query)
    skv, dv = _shape(op.value)[2:]
    scores = b * n * attention_scores(sq, skv, op.causal is not None)
    flops = 2 * scores * (d + dv) + scores * (5 + (op.mask is not None)) + b * n * sq * dv
    return OpCost(flops, bytes_in, bytes_out, "cube", _cube_blocks(sq, dv, b * n))


def _moe_cost(op: Operation, bytes_in: int, bytes_out: int) -> OpCost:
    """The MoE ops: grouped matmul on the cube, top-k (and the gating) and scatter-add on
    the vector unit."""
    out = op.results[0].type
    assert isinstance(out, TensorType)
    if isinstance(op, ge.GroupedMatmulOp):
        e, t, n = out.get_shape()
        k = _shape(op.x)[-1]
        return OpCost(2 * e * t * n * k, bytes_in, bytes_out, "cube", _cube_blocks(t, n, e))
    if isinstance(op, ge.ScatterAddOp):  # copies the data, then one add per update
        flops = _elements(op.updates.type)
    else:
        assert isinstance(op, ge.TopKOp | ge.MoeGatingTopKOp)
        # a running top-k: about log2(k) + 1 compares per input element (+ the softmax's 5
        # or the sigmoid's 4, and the renormalisation's sum and divide per result)
        inputs = _elements(op.input.type)
        flops = (max(1, op.k.value.data - 1).bit_length() + 1) * inputs
        if isinstance(op, ge.MoeGatingTopKOp):
            flops += (5 if op.norm.data == "softmax" else 4) * inputs
            flops += 2 * _elements(out) * (op.renorm is not None)
    return OpCost(flops, bytes_in, bytes_out, "vector", _vector_blocks(op))


def _conv_cost(op: Operation, bytes_in: int, bytes_out: int) -> OpCost:
    """An implicit GEMM of M = N*Ho*Wo rows, plus bias, residual and activation per output."""
    assert isinstance(op, ge.Conv2DOp | ge.FusedConv2DOp)
    n, o, ho, wo = _shape(op.output)
    _, cg, kh, kw = _shape(op.filter)
    m = n * ho * wo
    flops = 2 * m * o * cg * kh * kw
    extras = (op.bias is not None) + (isinstance(op, ge.FusedConv2DOp) and op.residual is not None)
    if isinstance(op, ge.FusedConv2DOp):
        extras += _ACTIVATION_FLOPS[op.activation.data]
    return OpCost(flops + extras * m * o, bytes_in, bytes_out, "cube", _cube_blocks(m, o))


def _matmul_cost(op: Operation, bytes_in: int, bytes_out: int) -> OpCost:
    """batch x M x N x K MACs (plus the bias per output)."""
    assert isinstance(op, ge.MatMulOp)
    shape = _shape(op.output)
    a = _shape(op.a)
    k = a[-2] if op.transpose_a is not None else a[-1]
    batch = math.prod(shape[:-2])
    m, n = shape[-2], shape[-1]
    flops = 2 * batch * m * n * k + (op.bias is not None) * batch * m * n
    return OpCost(flops, bytes_in, bytes_out, "cube", _cube_blocks(m, n, batch))


_OWN_COST: dict[type[Operation], Callable[[Operation, int, int], OpCost]] = {
    ge.Conv2DOp: _conv_cost,
    ge.FusedConv2DOp: _conv_cost,
    ge.MatMulOp: _matmul_cost,
    ge.FlashAttentionOp: _flash_attention_cost,
    ge.GroupedMatmulOp: _moe_cost,
    ge.TopKOp: _moe_cost,
    ge.MoeGatingTopKOp: _moe_cost,
    ge.ScatterAddOp: _moe_cost,
}
"""Ops whose cost has a function of its own: (op, bytes_in, bytes_out) -> OpCost."""


def op_cost(op: Operation) -> OpCost:
    """The work of `op` (NO_COST for ops that do none)."""
    if not op.name.startswith("ge.") or isinstance(op, ge.ConstOp):
        return NO_COST
    bytes_in = sum(nbytes(v.type) for v in op.operands)
    bytes_out = sum(nbytes(r.type) for r in op.results)
    if isinstance(op, ge.HcomSendOp | ge.HcomReceiveOp):  # a send has no result
        return OpCost(0, bytes_in, bytes_out, "comm", 1)
    out = op.results[0].type
    assert isinstance(out, TensorType)
    if (own := _OWN_COST.get(type(op))) is not None:
        return own(op, bytes_in, bytes_out)
    if isinstance(op, ge.MaxPoolOp | ge.AvgPoolOp):
        kh, kw = op.kernel.get_values()
        per_window = kh * kw - 1 + isinstance(op, ge.AvgPoolOp)  # compares / adds (+ divide)
        return OpCost(
            _elements(out) * per_window, bytes_in, bytes_out, "vector", _vector_blocks(op)
        )
    if isinstance(op, ge.GlobalAvgPoolOp):
        return OpCost(_elements(op.input.type), bytes_in, bytes_out, "vector", _vector_blocks(op))
    if type(op) in _PER_INPUT_ELEMENT:
        flops = _PER_INPUT_ELEMENT[type(op)] * _elements(op.operands[0].type)
        return OpCost(flops, bytes_in, bytes_out, "vector", _vector_blocks(op))
    if isinstance(op, ge.HcomAllReduceOp):
        flops = (op.rank_size.value.data - 1) * _elements(out)
        return OpCost(flops, bytes_in, bytes_out, "comm", 1)
    if isinstance(op, ge.HcomReduceScatterOp):
        flops = (op.rank_size.value.data - 1) * _elements(op.input.type)
        return OpCost(flops, bytes_in, bytes_out, "comm", 1)
    if isinstance(op, ge.HcomAllGatherOp | ge.HcomAllToAllOp | ge.HcomBroadcastOp):
        return OpCost(0, bytes_in, bytes_out, "comm", 1)
    if isinstance(op, _MOVES):
        return OpCost(0, bytes_in, bytes_out, "vector", _vector_blocks(op))
    if isinstance(op, ge.GatherOp | ge.SliceOp | ge.ScatterUpdateOp):
        return _indexing_cost(op, bytes_out)
    per = _PER_ELEMENT.get(type(op), 1)
    if isinstance(op, ge.GeluOp) and op.approximate.data == "tanh":
        per = 10  # x^3 (2), multiply-add, scale, tanh (5), add 1, multiply by x/2
    return OpCost(per * _elements(out), bytes_in, bytes_out, "vector", _vector_blocks(op))
