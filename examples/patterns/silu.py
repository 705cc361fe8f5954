"""x * sigmoid(x) -> `ge.silu` (docs/patterns.md).

Run it with `ge-opt --load-patterns=examples/patterns/silu.py --fuse-silu model.mlir`.
"""

from xdsl.ir import Operation

from ge_dialect.ir.dialects import ge
from transforms.authoring import Match, Pattern, op, pattern_pass


class MulSigmoid(Pattern):
    """mul(x, sigmoid(x)) or mul(sigmoid(x), x) -> silu(x)."""

    name = "mul-sigmoid-silu"
    match = op(ge.MulOp, "x", op(ge.SigmoidOp, "x", single_use=True))

    def rewrite(self, m: Match) -> Operation:
        return ge.SiluOp(m.x)


FuseSilu = pattern_pass("fuse-silu", [MulSigmoid], summary="Fuses x * sigmoid(x) into ge.silu.")
