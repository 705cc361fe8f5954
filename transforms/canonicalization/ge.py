"""Canonicalization patterns of the `ge` dialect."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ge_dialect.ir.dialects import ge


class ClipToRelu6(RewritePattern):
    """`clip(0, 6)` is relu6.

      %y = ge.clip %x min 0.000000e+00 max 6.000000e+00 : tensor<4xf32>
    ->
      %y = ge.relu6 %x : tensor<4xf32>
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ge.ClipOp, rewriter: PatternRewriter) -> None:
        if op.min.value.data != 0.0 or op.max.value.data != 6.0:
            return
        relu6 = ge.Relu6Op(op.input)
        relu6.attributes.update(op.attributes)
        relu6.location = op.location
        rewriter.replace(op, relu6)
