"""MatMul + Add(bias) -> `ge.matmul` with its bias operand (docs/patterns.md).

Run it with `ge-opt --load-patterns=examples/patterns/matmul_bias.py --fuse-matmul-bias model.mlir`.
"""

from xdsl.ir import Operation

from ge_dialect.ir.dialects import ge
from transforms.authoring import Match, Pattern, const, op, pattern_pass


class MatMulBias(Pattern):
    """add(matmul(a, b), bias) -> matmul(a, b) bias, for a constant bias of N values."""

    name = "matmul-add-bias"
    match = op(
        ge.AddOp,
        op(ge.MatMulOp, bias=None, single_use=True, shape=(..., "N"), bind="mm"),
        const(shape=("N",), bind="bias"),
    )

    def rewrite(self, m: Match) -> Operation:
        mm: ge.MatMulOp = m.mm
        return ge.MatMulOp(
            mm.a,
            mm.b,
            m.bias,
            mm.output.type,
            transpose_a=mm.transpose_a is not None,
            transpose_b=mm.transpose_b is not None,
        )


FuseMatMulBias = pattern_pass(
    "fuse-matmul-bias",
    [MatMulBias],
    summary="Folds the addition of a constant bias of N values into the matmul before it.",
)
