"""The fused transformer ops of the `ge` dialect: attention and rotary position embedding.

- `ge.flash_attention`: softmax(scale * q k^T + mask) v in one kernel, never writing the
  Sq x Skv scores to memory (GE's FlashAttentionScore, PromptFlashAttention and, for one
  query position, IncreFlashAttention), with grouped-query attention;
- `ge.rotary_mul`: GE's RotaryMul, `x * cos + rotate_half(x) * sin`.

Both take default-layout (ND) f16 or f32 tensors.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import Float64Type, FloatAttr, TensorType, UnitAttr, f64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.ge.base import (
    check_finite,
    expect_element_type,
    expect_shape,
    require_default_layout,
    require_float,
    shape_str,
    type_of,
)
from ge_dialect.utils.dtypes import type_name
from ge_dialect.utils.shapes import broadcast_shape


def _require_broadcast_to(t: TensorType, target: tuple[int, ...], what: str, of: str) -> None:
    """`t` broadcasts to `target` (numpy's rules) without changing it."""
    shape = tuple(t.get_shape())
    if len(shape) > len(target) or broadcast_shape(shape, target) != target:
        raise VerifyException(
            f"{what} has shape {shape_str(shape)}, which does not broadcast to {of} "
            f"{shape_str(target)}"
        )


@irdl_op_definition
class FlashAttentionOp(IRDLOperation):
    """Attention in one kernel, as FlashAttention computes it (the scores never reach
    memory):

        out[b, h] = softmax(scale * query[b, h] key[b, g]^T + mask[b, h]) value[b, g]

    with `query` [B, N, Sq, D], `key` [B, Nkv, Skv, D], `value` [B, Nkv, Skv, Dv] and the
    result [B, N, Sq, Dv].  N is a multiple of Nkv: query head h reads key/value head
    g = h // (N / Nkv) (grouped-query attention; Nkv = N is multi-head, Nkv = 1 multi-query
    attention).  The optional `mask` broadcasts to [B, N, Sq, Skv] and follows PyTorch's
    scaled_dot_product_attention: an i1 mask says which positions take part (true: keep),
    a float mask (the query's element type) is added to the scaled scores.  `causal` lets
    query i see the keys j <= i + Skv - Sq only (aligned bottom-right: the last query sees
    every key, as in decoding; it needs Sq <= Skv).  A query row that sees no key at all
    (every position masked out, or every score -inf) gives zeros.

    GE's ops: FlashAttentionScore (training's fused kernel), PromptFlashAttention (the
    prefill of inference, Sq > 1) and IncreFlashAttention (decoding, Sq = 1); TorchAir
    maps `scaled_dot_product_attention` to them.

        %o = ge.flash_attention %q, %k, %v mask %m scale 0.125 causal
               : tensor<1x8x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>,
                 tensor<1x1x16x16xi1> -> tensor<1x8x16x64xf16>
    """

    name = "ge.flash_attention"
    query = operand_def(TensorType)
    key = operand_def(TensorType)
    value = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    output = result_def(TensorType)
    scale = prop_def(FloatAttr[Float64Type])
    causal = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    assembly_format = (
        "$query `,` $key `,` $value (`mask` $mask^)? `scale` $scale (`causal` $causal^)? "
        "attr-dict `:` type($query) `,` type($key) `,` type($value) (`,` type($mask)^)? "
        "`->` type($output)"
    )

    def __init__(
        self,
        query: SSAValue,
        key: SSAValue,
        value: SSAValue,
        mask: SSAValue | None,
        scale: float,
        result_type: Attribute,
        causal: bool = False,
    ):
        super().__init__(
            operands=[query, key, value, mask],
            result_types=[result_type],
            properties={
                "scale": FloatAttr(scale, f64),
                "causal": UnitAttr() if causal else None,
            },
        )

    def verify_(self) -> None:
        types = {
            name: type_of(v, f"operand '{name}'")
            for name, v in (("query", self.query), ("key", self.key), ("value", self.value))
        }
        for name, t in types.items():
            what = f"operand '{name}'"
            require_float(t, what)
            require_default_layout(t, what, "flash_attention")
            if t.get_num_dims() != 4:
                raise VerifyException(f"{what} must have rank 4 ([B, N, S, D]), got {t}")
        q, k, v = types["query"], types["key"], types["value"]
        expect_element_type(k, q.element_type, "operand 'key'", "that of operand 'query'")
        expect_element_type(v, q.element_type, "operand 'value'", "that of operand 'query'")
        b, n, sq, d = q.get_shape()
        kb, nkv, skv, kd = k.get_shape()
        vb, vn, vs, dv = v.get_shape()
        if (kb, kd) != (b, d):
            raise VerifyException(
                f"operand 'key' has shape {shape_str(k.get_shape())}, expected "
                f"[{b}, Nkv, Skv, {d}] (the batch and head size of operand 'query')"
            )
        if (vb, vn, vs) != (b, nkv, skv):
            raise VerifyException(
                f"operand 'value' has shape {shape_str(v.get_shape())}, expected "
                f"[{b}, {nkv}, {skv}, Dv] (the batch, heads and length of operand 'key')"
            )
        if nkv == 0 or n % nkv:
            raise VerifyException(
                f"operand 'query' has {n} heads, not a multiple of the {nkv} heads of "
                "operand 'key' (grouped-query attention)"
            )
        check_finite(self.scale.value.data, "scale")
        if self.causal is not None and sq > skv:
            raise VerifyException(
                f"causal attention needs Sq <= Skv, got Sq = {sq} queries and Skv = {skv} keys"
            )
        if self.mask is not None:
            mask = type_of(self.mask, "operand 'mask'")
            require_default_layout(mask, "operand 'mask'", "flash_attention")
            if type_name(mask.element_type) != "i1" and mask.element_type != q.element_type:
                raise VerifyException(
                    f"operand 'mask' has element type {mask.element_type}, expected i1 (keep "
                    f"where true) or {q.element_type} (added to the scores)"
                )
            _require_broadcast_to(mask, (b, n, sq, skv), "operand 'mask'", "the scores")
        y = type_of(self.output, "result")
        require_default_layout(y, "result", "flash_attention")
        expect_shape(y, (b, n, sq, dv))
        expect_element_type(y, q.element_type, of="that of operand 'query'")


@irdl_op_definition
class RotaryMulOp(IRDLOperation):
    """Rotary position embedding (GE's RotaryMul):

        y = x * cos + rotate_half(x) * sin,
        rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2])

    along the last dim D (even).  `cos` and `sin` broadcast to the shape of `x`.

        %y = ge.rotary_mul %x, %cos, %sin
               : tensor<1x8x16x64xf16>, tensor<1x1x16x64xf16>, tensor<1x1x16x64xf16>
    """

    name = "ge.rotary_mul"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    cos = operand_def(TensorType)
    sin = operand_def(TensorType)
    output = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $cos `,` $sin attr-dict `:` type($input) `,` type($cos) `,` type($sin)"
    )

    def __init__(self, input: SSAValue, cos: SSAValue, sin: SSAValue):
        super().__init__(operands=[input, cos, sin], result_types=[input.type])

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        require_float(x, "operand 'input'")
        require_default_layout(x, "operand 'input'", "rotary_mul")
        shape = tuple(x.get_shape())
        if not shape or shape[-1] % 2:
            raise VerifyException(
                f"operand 'input' must have an even last dim (two halves), got {shape_str(shape)}"
            )
        for name, value in (("cos", self.cos), ("sin", self.sin)):
            t = type_of(value, f"operand '{name}'")
            require_default_layout(t, f"operand '{name}'", "rotary_mul")
            expect_element_type(t, x.element_type, f"operand '{name}'", "that of operand 'input'")
            _require_broadcast_to(t, shape, f"operand '{name}'", "operand 'input'")
