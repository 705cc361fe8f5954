"""The work of a `ge` op: FLOPs, bytes in and out, the unit that runs it, and its blocks.

One cost model for the whole project (docs/architecture.md): stream assignment balances streams with
it, the device lowering copies it onto kernel launches, and the benches read it.  The
simulator owns only the device profile and the time model.

- `flops` counts multiply and add separately (a MAC is 2 FLOPs).
- `bytes_in` / `bytes_out` are the physical sizes of the operands / results (padding lanes
  of NC1HWC0, FRACTAL_Z and FRACTAL_NZ included: the device moves them too); a gather or
  slice reads only the elements it writes (and a gather its indices).
- `unit` is "cube" (convolution, matmul), "vector" (everything elementwise, pooling,
  normalisation and data movement), "comm" (collectives) or "none" (constants and the
  stream ops, which do no work).
- `blocks` is the number of independent pieces the kernel splits into across AI cores: a
  cube op has one block per 16x16 output fractal (M x N of the implicit GEMM), a vector
  op one block per `VECTOR_BLOCK_ELEMENTS` output elements, a collective one block.
"""

from __future__ import annotations

import math
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
    ge.CastOp: 1,
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


def op_cost(op: Operation) -> OpCost:
    """The work of `op` (NO_COST for ops that do none)."""
    if not op.name.startswith("ge.") or isinstance(op, ge.ConstOp):
        return NO_COST
    bytes_in = sum(nbytes(v.type) for v in op.operands)
    bytes_out = sum(nbytes(r.type) for r in op.results)
    out = op.results[0].type
    assert isinstance(out, TensorType)
    if isinstance(op, ge.Conv2DOp | ge.FusedConv2DOp):
        n, o, ho, wo = out.get_shape()
        _, cg, kh, kw = _shape(op.filter)
        m = n * ho * wo
        flops = 2 * m * o * cg * kh * kw
        extras = (op.bias is not None) + (
            isinstance(op, ge.FusedConv2DOp) and op.residual is not None
        )
        if isinstance(op, ge.FusedConv2DOp):
            extras += _ACTIVATION_FLOPS[op.activation.data]
        return OpCost(flops + extras * m * o, bytes_in, bytes_out, "cube", _cube_blocks(m, o))
    if isinstance(op, ge.MatMulOp):
        shape = out.get_shape()
        a = _shape(op.a)
        k = a[-2] if op.transpose_a is not None else a[-1]
        batch = math.prod(shape[:-2])
        m, n = shape[-2], shape[-1]
        flops = 2 * batch * m * n * k + (op.bias is not None) * batch * m * n
        return OpCost(flops, bytes_in, bytes_out, "cube", _cube_blocks(m, n, batch))
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
    if isinstance(op, ge.HcomAllGatherOp):
        return OpCost(0, bytes_in, bytes_out, "comm", 1)
    if isinstance(op, _MOVES):
        return OpCost(0, bytes_in, bytes_out, "vector", _vector_blocks(op))
    if isinstance(op, ge.GatherOp | ge.SliceOp):
        # reads only the elements it writes (and the indices), not its whole data operand
        read = bytes_out + (nbytes(op.indices.type) if isinstance(op, ge.GatherOp) else 0)
        return OpCost(0, read, bytes_out, "vector", _vector_blocks(op))
    per = _PER_ELEMENT.get(type(op), 1)
    if isinstance(op, ge.GeluOp) and op.approximate.data == "tanh":
        per = 10  # x^3 (2), multiply-add, scale, tanh (5), add 1, multiply by x/2
    return OpCost(per * _elements(out), bytes_in, bytes_out, "vector", _vector_blocks(op))
