"""--shard: splits a `ge` graph over ranks, one function per rank, with HCCL collectives.

    ge-opt --shard=ranks=4,mode=tensor model.mlir

**One program per rank.**  Each function `@f` becomes `@f_rank0` ... `@f_rank{N-1}` (the
original is removed), each a whole `ge` graph for its rank, marked
`ge.shard = {rank = r, ranks = N, mode = "...", split = {name = dim, ...}}` (`split`: the
inputs whose dim `dim` is split over the ranks, rank r taking the r-th slice; the other
inputs are replicated).  Every later pass (fuse, layouts, streams, lowering, memory
planning) runs on each rank's function as on any other, the functions differ only in
their weights, and `api.simulate_ranks` runs the `npu` programs together.  (One program
per rank rather than one program with a rank dimension: GE itself compiles a graph per
rank, and every pass and the simulator's program form stay as they are.)

**mode=tensor** (Megatron's MLP split): a MatMul chain `matmul(x, W1) -> elementwise ops
-> matmul(., W2)` with constant 2-D weights becomes, on rank r, a column-parallel first
matmul (the r-th block of W1's output columns, and of its bias, whether the matmul carries
it or a `ge.add` after it adds it, and of any constant the elementwise ops add or multiply
per column), the elementwise ops on that block, and a row-parallel second matmul (the r-th
block of W2's rows) whose partial products a `ge.hcom_all_reduce` (sum, group "tp",
rank_size N) adds up; W2's bias (its own operand, or a `ge.add` after it) is added once
after it.  The chain's hidden width must be a multiple of N.  Everything else is
replicated (every rank computes it whole), so every rank ends with the whole outputs.

**Composed: tp=T (with ranks = dp * T).**  Given `tp` (`shard{ranks=8 tp=2}`), the mode
is ignored: dp = ranks / tp ranks split the batch as mode=data does, and inside each data
slice tp ranks split the transformer blocks.  The layout is Megatron's, tp innermost:
rank = d * tp + t; the tensor-parallel group of data slice d is "tp<d>" (ranks d*tp ..
d*tp + tp - 1), the data-parallel group of tensor rank t is "dp<t>" (ranks t, t + tp, ...);
`ge.shard` adds `tp`, `dp`, and the rank's batch slice `part` of `parts` (= dp), which
`api.simulate_ranks` gives each rank.  The batch is split first, then the blocks:

- an MLP: the MatMul chain above, including SwiGLU, `silu(x @ Wg) * (x @ Wu) @ Wd` (gate
  and up column-parallel) and the merged form `swi_glu(x @ [Wg | Wu]) @ Wd` (rank r takes
  the r-th column block of each half);
- attention: a `ge.flash_attention` (as `fuse-attention` makes it, or as built) whose q, k
  and v come from `x @ W` through reshapes to [.., heads, D], transposes and
  `ge.rotary_mul` (cos/sin not varying per head), and whose output reaches the output
  projection through transposes and a reshape merging [heads, D]: q, k, v projections
  column-parallel by heads (rank r takes the r-th block of the query heads and of the
  key/value heads: grouped-query attention keeps its grouping), the output projection
  row-parallel, one all-reduce per block.  A mask varying per head, or another form, stays
  replicated.

In composed mode a block whose width (or query / key-value head count) tp does not divide
is a located error naming the op; `ranks` not a multiple of tp * ep * pp is an option
error.

**Pipeline: pp=P** (with tp=T and dp: ranks = P * dp * T, rank = (s * dp + d) * T + t):
each function cut into P stages (`_stage_cuts`, `_pipeline`; after the batch is split
over dp), the values crossing a cut sent and received in group "pp<d * T + t>", the last
stage returning the outputs (all-gathered over dp, in group "dp<t>", there).
With `micro-batches=m` the batch is cut into m micro-batches that each stage runs in
turn, unrolled (GPipe's schedule: sr_tag i for micro-batch i), the last stage joining
their outputs along dim 0; `ge.shard` adds `micro_batches`.

**Expert parallel: ep=E** (ranks = pp * E * tp; not yet with data parallel): the layout
is rank = ((s * dp + d) * ep + e) * tp + t; the ep group of (s, d, t) is "ep<k>",
k = (s * dp + d) * tp + t, the tp groups "tp<(s * dp + d) * ep + e>"; `ge.shard` adds
`ep` and `expert` (e).  Each MoE layer in `fuse-mlp`'s static form is split over its ep
group (`transforms.shard.expert`): rank e keeps expert block e and token block e, a
`ge.hcom_all_to_all` dispatches every token to every rank, another combines each token
block's partial sums at its rank, and an all-gather gives every rank every token back;
with tp each expert's MLP is split Megatron's way too, one all-reduce in "tp<i>".

**mode=data**: the activations are split along dim 0, their batch (`_Batches`): rank r
takes the r-th block of every input that carries the batch (a multiple of N), every value
computed from them along dim 0 has dim 0 / N, and each such output is gathered with
`ge.hcom_all_gather` (group "dp", rank_size N), so every rank ends with the whole outputs.
Weights are never split: a value stays whole (every rank holds or computes it whole) when
it is a constant, a weight (a matmul's right-hand operand, whose dim 0 is the contraction
dim; a conv's filter, a bias, batch-norm parameters), broadcast along the batch, or
combined elementwise with such a value (TorchAir's example computes `in3 @ in4` and
`in3 + in4`: both stay whole; `in1` and `in2`, only added, are split).  An op that would
mix a split batch (a softmax over dim 0, a transpose moving it, a reshape or flatten
folding it, a concat along it, a matmul contracting over it, an op the pass does not know)
is refused with one located error, as is a split input whose batch is not a multiple of N:

    m.mlir:4:3: error: 'ge.softmax' op --shard: cannot split input 'x' along the batch:
        this softmax normalises over dim 0 (mode=data)

With ranks=1 the function is only renamed and marked (`@f_rank0`).  A module already
assigned to streams is refused (as by `fuse`): shard rewrites graphs before stream
assignment.  Collectives have no stream label: `assign-streams` puts them on the comm
stream; mode labels then moves one onto the stream of its producers and users when
nothing there would run beside it (GE's ineffective multi-stream rule), mode auto keeps
them on the comm stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.errors import OptionError
from transforms import reports
from transforms.common import refuse_assigned
from transforms.options import check_literal_options
from transforms.shard.data import _data_parallel, _gather_outputs
from transforms.shard.expert import _expert_parallel
from transforms.shard.pipeline import _pipeline, _stage_cuts
from transforms.shard.tensor import _attention_parallel, _tensor_parallel

Mode = Literal["tensor", "data"]

SHARD = "ge.shard"
"""The function attribute of a rank's function."""


@dataclass(frozen=True)
class ShardPass(ModulePass):
    """Splits each function over ranks: one function per rank, with HCCL collectives."""

    name = "shard"

    STATISTICS: ClassVar[dict[str, str]] = {
        "rank-functions": "functions made, one per rank of each sharded function",
        "collectives": "ge.hcom_all_reduce and ge.hcom_all_gather ops inserted (all ranks)",
        "moe-layers": "MoE layers split over the experts (ep; all ranks)",
    }

    ranks: int = 2
    mode: Mode = "tensor"
    tp: int = 0
    ep: int = 1
    pp: int = 1
    micro_batches: int = 1

    def __post_init__(self) -> None:
        check_literal_options(self)
        if self.ranks < 1:
            raise OptionError(f"shard: ranks must be at least 1, got {self.ranks}")
        for option in ("tp", "ep", "pp", "micro_batches"):
            least = 0 if option == "tp" else 1
            if getattr(self, option) < least:
                raise OptionError(
                    f"shard: {option.replace('_', '-')} must be at least {least}, "
                    f"got {getattr(self, option)}"
                )
        if self.micro_batches > 1 and self.pp == 1:
            raise OptionError(
                f"shard: micro-batches={self.micro_batches} needs pipeline stages (pp > 1)"
            )
        width = max(self.tp, 1) * self.ep * self.pp
        if self.ranks % width:
            raise OptionError(
                f"shard: ranks={self.ranks} is not a multiple of tp * ep * pp = {width}"
            )
        if self.ep > 1 and self.ranks != width:
            raise OptionError(
                f"shard: ep={self.ep} with data parallel (ranks={self.ranks} > tp * ep * pp "
                f"= {width}) is not implemented yet"
            )

    @property
    def composed(self) -> bool:
        """Whether the parallelisms are given by tp/ep/pp (else by `mode`)."""
        return self.tp > 0 or self.ep > 1 or self.pp > 1

    def layout(self, rank: int) -> tuple[int, int, int, int, int]:
        """(tp, t, dp, d, s) of `rank`: rank = ((s * dp + d) * ep + e) * tp + t (tp
        innermost, then the expert block e (`expert`), data parallel, pipeline stages
        outermost: Megatron's order)."""
        if not self.composed:
            if self.mode == "tensor":
                return self.ranks, rank, 1, 0, 0
            return 1, 0, self.ranks, rank, 0
        tp = max(self.tp, 1)
        dp = self.ranks // (tp * self.ep * self.pp)
        inner = tp * self.ep
        return tp, rank % tp, dp, rank // inner % dp, rank // (inner * dp)

    def expert(self, rank: int) -> int:
        """The expert block e that `rank` holds (see `layout`)."""
        return rank // max(self.tp, 1) % self.ep

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        functions = [
            f
            for f in op.body.block.ops
            if isinstance(f, func.FuncOp)
            and SHARD not in f.attributes
            and "npu.program" not in f.attributes
            and not f.is_declaration
        ]
        moe = 0
        for fn in functions:
            anchor: Operation = fn
            for r in range(self.ranks):
                clone = fn.clone()
                clone.sym_name = StringAttr(f"{fn.sym_name.data}_rank{r}")
                split: dict[str, int] = {}
                tp, t, dp, d, stage = self.layout(r)
                # legacy modes name their one group "tp" / "dp"; composed ones number the
                # group instances: tp group d holds ranks d*tp .. d*tp+tp-1, dp group t the
                # ranks t, t+tp, ... (of the last stage with pp); pp group (d*ep + e)*tp + t
                # the stages' ranks of (d, e, t)
                tp_group, dp_group = (f"tp{d}", f"dp{t}") if self.composed else ("tp", "dp")
                e = self.expert(r)  # (ep group k: the ranks of one (s, d, t), k = (s*dp+d)*tp+t)
                if self.composed:
                    tp_group = f"tp{(stage * dp + d) * self.ep + e}"
                outputs = list(clone.function_type.outputs.data)
                if dp > 1:  # (first: the batch analysis sees no collective)
                    split = _data_parallel(clone, dp, dp_group, gather=self.pp == 1)
                if self.pp > 1:  # (pp group of (d, e, t); its last stage gathers over dp)
                    pp_group = f"pp{(d * self.ep + e) * tp + t}"
                    _pipeline(clone, stage, self.pp, pp_group, self.micro_batches)
                    if dp > 1 and stage == self.pp - 1:
                        _gather_outputs(clone, outputs, dp, dp_group)
                if tp > 1:
                    _attention_parallel(clone, t, tp, tp_group, self.composed)
                    _tensor_parallel(clone, t, tp, tp_group, strict=self.composed)
                if self.ep > 1:
                    ep_group = f"ep{(stage * dp + d) * tp + t}"
                    moe += _expert_parallel(clone, e, self.ep, ep_group, t, tp, tp_group)
                attrs = {
                    "rank": IntegerAttr(r, i64),
                    "ranks": IntegerAttr(self.ranks, i64),
                    "mode": StringAttr(self.mode if not self.composed else "composed"),
                    "split": DictionaryAttr(
                        {name: IntegerAttr(dim, i64) for name, dim in split.items()}
                    ),
                }
                if self.composed:
                    attrs |= {
                        "tp": IntegerAttr(tp, i64),
                        "dp": IntegerAttr(dp, i64),
                        "part": IntegerAttr(d, i64),
                        "parts": IntegerAttr(dp, i64),
                        "pp": IntegerAttr(self.pp, i64),
                        "stage": IntegerAttr(stage, i64),
                    }
                if self.ep > 1:
                    attrs |= {"ep": IntegerAttr(self.ep, i64), "expert": IntegerAttr(e, i64)}
                if self.pp > 1:
                    attrs["micro_batches"] = IntegerAttr(self.micro_batches, i64)
                clone.attributes[SHARD] = DictionaryAttr(attrs)
                Rewriter.insert_op(clone, InsertPoint.after(anchor))
                anchor = clone
            Rewriter.erase_op(fn)
        made = [
            f for f in op.body.block.ops if isinstance(f, func.FuncOp) and SHARD in f.attributes
        ]
        collectives = sum(
            isinstance(o, ge.HcomAllReduceOp | ge.HcomAllGatherOp) for f in made for o in f.walk()
        )
        reports.count(op, self.name, "rank-functions", len(made))
        reports.count(op, self.name, "collectives", collectives)
        if self.ep > 1:
            reports.count(op, self.name, "moe-layers", moe)


__all__ = ["SHARD", "ShardPass", "_stage_cuts"]
