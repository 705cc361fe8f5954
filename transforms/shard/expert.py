"""Expert parallelism of `--shard`: a MoE layer's experts split over the ranks of an ep
group, with `ge.hcom_all_to_all` dispatch and combine (see `transforms.shard`).

The MoE layer is the static form `fuse-mlp` leaves (every expert on every token, the
routing weights zero for the experts a token did not choose):

    %xs = ge.expand %x1 : tensor<1xTxKxf32> -> tensor<ExTxKxf32>       (x [T, K] reshaped)
    %h  = ge.grouped_matmul %xs, %w1 : ... -> tensor<ExTx2Fxf32>
    %a  = ge.swi_glu %h dim 2                  (or unary ops; any chain of grouped matmuls,
    %y  = ge.grouped_matmul %a, %w2 : ...        swi_glus over dim 2 and unary ops)
    %m  = ge.mul %y, %routing : (tensor<ExTxHxf32>, tensor<ExTx1xf32>) -> ...
    %o  = ge.reduce_sum %m axes [0] : tensor<ExTxHxf32> -> tensor<TxHxf32>

On rank e of ep (group "ep<k>"), with E/ep = n local experts and T/ep = B tokens a rank:

    %mine = ge.slice %x1 starts [e*B] ends [e*B+B] axes [1] steps [1]   (my token block)
    %out  = ge.expand %mine : tensor<1xBxK> -> tensor<epxBxK>          (one copy a rank)
    %all  = ge.hcom_all_to_all %out split_dim 0 concat_dim 1 group "ep<k>" rank_size ep
              : tensor<epxBxK> -> tensor<1xTxK>                        (dispatch)
    %xs   = ge.expand %all : tensor<1xTxK> -> tensor<nxTxK>
    ...     the chain on the n local experts: block e of every stacked weight [E, K, N]
    %m    = ge.mul %y, (ge.slice %routing: the local experts' rows)
    %o    = ge.reduce_sum %m axes [0]                                  (partial: my experts)
    %back = ge.hcom_all_to_all (ge.reshape %o -> epxBxH) split_dim 0 concat_dim 0
              group "ep<k>" rank_size ep                               (combine)
    %sum  = ge.reduce_sum %back axes [0] : tensor<epxBxH> -> tensor<BxH>
    %full = ge.hcom_all_gather %sum group "ep<k>" rank_size ep : -> tensor<TxH>

The router stays replicated (every rank computes the routing weights of every token), so
the layer's numbers are the single device's up to the order of the additions.  The rest of
the graph expects every token: the all-gather gives them back.

With tensor parallel (tp > 1) and a chain of exactly two grouped matmuls, each expert's
MLP is split Megatron's way inside the tp group: the first weight by columns (of each half
when a swi_glu follows), the second by rows, and the partial sums are added by one
`ge.hcom_all_reduce` in group "tp<i>" on the combined [B, H] block, before the
all-gather.  A MoE layer in another form stays replicated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.errors import op_error
from transforms.shard.common import _block, _const_array, _replace_const, _retype


@dataclass
class _MoeLayer:
    """A static MoE layer: the expand of the tokens, the chain of expert ops, the mul by
    the routing weights (operand `routing` of it) and the sum over the experts."""

    expand: ge.ExpandOp
    chain: list[Operation]
    mul: ge.MulOp
    routing: int
    total: ge.ReduceSumOp


def _shape(value: SSAValue) -> list[int]:
    t = value.type
    assert isinstance(t, TensorType)
    return list(t.get_shape())


def _single_user(value: SSAValue) -> Operation | None:
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 else None


def _moe_layer(gmm: ge.GroupedMatmulOp) -> _MoeLayer | None:
    """The MoE layer `gmm` starts (its x the expand of [1, T, K] tokens), else None."""
    expand = gmm.x.owner
    if not isinstance(expand, ge.ExpandOp) or _single_user(expand.output) is not gmm:
        return None
    src, xs = _shape(expand.input), _shape(expand.output)
    if len(src) != 3 or src[0] != 1 or src[1:] != xs[1:]:
        return None
    experts = xs[0]
    chain: list[Operation] = []
    value: SSAValue = gmm.output
    op: Operation | None = gmm
    while op is not None:
        if isinstance(op, ge.GroupedMatmulOp):
            weight = _const_array(op.weight)
            if op.x != value and op is not gmm or weight is None or weight.shape[0] != experts:
                return None
        elif isinstance(op, ge.SwiGluOp):
            if op.dim.value.data != 2:
                return None
        elif isinstance(op, ge.MulOp) and chain:
            routing = 1 if op.operands[0] == value else 0
            other = _shape(op.operands[routing])
            total = _single_user(op.results[0])
            if (
                op.operands[routing] == value
                or len(other) != 3
                or other[0] != experts
                or op.results[0].type != value.type
                or not isinstance(total, ge.ReduceSumOp)
                or list(total.axes.get_values()) != [0]
                or total.keepdims is not None
            ):
                return None
            return _MoeLayer(expand, chain, op, routing, total)
        elif not isinstance(op, ge.UnaryElementwiseOp) or op.results[0].type != value.type:
            return None
        chain.append(op)
        value = op.results[0]
        op = _single_user(value)
    return None


def _insert(ops: list[Operation], like: Operation, before: Operation) -> None:
    for o in ops:
        o.attributes.update(like.attributes)
        o.location = like.location
    Rewriter.insert_op(ops, InsertPoint.before(before))


def _name(ops: list[Operation], names: list[str]) -> None:
    for o, name in zip(ops, names, strict=False):
        o.results[0].name_hint = name


def _tensor(like: SSAValue, shape: list[int]) -> TensorType:
    t = like.type
    assert isinstance(t, TensorType)
    return TensorType(t.element_type, shape)


def _check(layer: _MoeLayer, ep: int, tp: int) -> bool:
    """Whether the layer splits over ep (a located error when its experts or tokens do not
    divide) and whether its experts split over tp (a located error when their hidden width
    does not divide)."""
    first = layer.chain[0]
    experts, tokens, _ = _shape(layer.expand.output)
    if experts % ep:
        raise op_error(first, f"--shard: {experts} experts are not a multiple of ep={ep}")
    if tokens % ep:
        raise op_error(first, f"--shard: {tokens} tokens are not a multiple of ep={ep}")
    gmms = [o for o in layer.chain if isinstance(o, ge.GroupedMatmulOp)]
    glus = sum(isinstance(o, ge.SwiGluOp) for o in layer.chain)
    if tp < 2 or len(gmms) != 2 or layer.chain[-1] is not gmms[1] or glus > 1:
        return False  # (a nonlinear op after the row-parallel matmul: experts kept whole)
    width = _shape(gmms[0].output)[2]
    halves = glus == 1
    if width % (2 * tp if halves else tp):
        raise op_error(
            gmms[0],
            f"--shard: expert hidden width {width} is not a multiple of tp={tp}"
            + (" times 2 (the halves of swi_glu)" if halves else ""),
        )
    return True


def _columns(array: np.ndarray, r: int, n: int, halves: bool) -> np.ndarray:
    """Block r of n of the last axis (of each half with `halves`)."""
    pieces = np.split(array, 2 if halves else 1, axis=-1)
    return np.concatenate([_block(p, -1, r, n) for p in pieces], axis=-1)


def _split_layer(
    layer: _MoeLayer, e: int, ep: int, group: str, t: int, tp: int, tp_group: str | None
) -> None:
    """Rewrites `layer` as rank e of `group` (and rank t of `tp_group` when its experts
    split over tp): see the module's docstring."""
    first = layer.chain[0]
    experts, tokens, hidden = _shape(layer.expand.output)
    n, b = experts // ep, tokens // ep
    # dispatch: my token block, one copy a rank, all-to-all -> every token
    src = layer.expand.input
    mine = ge.SliceOp(src, [e * b], [e * b + b], [1], [1], _tensor(src, [1, b, hidden]))
    out = ge.ExpandOp(mine.output, _tensor(src, [ep, b, hidden]))
    dispatch = ge.HcomAllToAllOp(out.output, 0, 1, group, ep, src.type)
    _name([mine, out, dispatch], ["ep_tokens", "ep_send", "ep_dispatch"])
    _insert([mine, out, dispatch], first, layer.expand)
    layer.expand.operands[0] = dispatch.output
    _retype(layer.expand.output, [n, tokens, hidden])
    # the local experts (and with tp, Megatron's split of each expert's MLP)
    gmms = [o for o in layer.chain if isinstance(o, ge.GroupedMatmulOp)]
    halves = any(isinstance(o, ge.SwiGluOp) for o in layer.chain)
    for op in layer.chain:
        if isinstance(op, ge.GroupedMatmulOp):
            weight = _const_array(op.weight)
            assert weight is not None  # (`_moe_layer` read it)
            weight = _block(weight, 0, e, ep)
            if tp_group is not None:
                first_gmm = op is gmms[0]
                weight = _columns(weight, t, tp, halves) if first_gmm else _block(weight, 1, t, tp)
            _replace_const(op, 1, weight)
            last = _shape(op.weight)[-1]
        elif isinstance(op, ge.SwiGluOp):
            last = _shape(op.input)[-1] // 2
        else:
            last = _shape(op.operands[0])[-1]
        _retype(op.results[0], [n, tokens, last])
    # the local experts' routing weights, the partial sum over them
    routing = layer.mul.operands[layer.routing]
    shape = _shape(routing)
    rows = ge.SliceOp(routing, [e * n], [e * n + n], [0], [1], _tensor(routing, [n, *shape[1:]]))
    _name([rows], ["ep_routing"])
    _insert([rows], layer.mul, layer.mul)
    layer.mul.operands[layer.routing] = rows.output
    _retype(layer.mul.results[0], [n, *_shape(layer.mul.results[0])[1:]])
    # combine: each token block back to its rank, summed there, then every token again
    total = layer.total.output
    uses = list(total.uses)
    width = _shape(total)[1]
    pieces = ge.ReshapeOp(total, _tensor(total, [ep, b, width]))
    back = ge.HcomAllToAllOp(pieces.output, 0, 0, group, ep, pieces.output.type)
    mine_sum = ge.ReduceSumOp(back.output, [0], False, _tensor(total, [b, width]))
    combine: list[Operation] = [pieces, back, mine_sum]
    result: SSAValue = mine_sum.output
    if tp_group is not None:
        combine.append(ge.HcomAllReduceOp(result, "sum", tp_group, tp))
        result = combine[-1].results[0]
    combine.append(ge.HcomAllGatherOp(result, group, ep, total.type))
    _name(combine, ["ep_partial", "ep_combine", "ep_sum", "ep_tp_sum"][: len(combine) - 1])
    after = layer.total.next_op
    assert after is not None  # (a function's body ends with its return)
    _insert(combine, layer.total, after)
    gathered = combine[-1].results[0]
    gathered.name_hint = total.name_hint
    for use in uses:
        use.operation.operands[use.index] = gathered


def _expert_parallel(
    fn: func.FuncOp,
    e: int,
    ep: int,
    group: str,
    t: int = 0,
    tp: int = 1,
    tp_group: str = "tp",
) -> int:
    """Splits each MoE layer of `fn` over the `ep` ranks of `group`, as rank e (each
    expert's MLP over the `tp` ranks of `tp_group` too, as rank t); the number of layers
    split.  A layer whose experts or tokens ep does not divide (or whose experts' hidden
    width tp does not divide) is a located error; a MoE in another form stays replicated."""
    layers = [
        layer
        for op in list(fn.body.walk())
        if isinstance(op, ge.GroupedMatmulOp) and (layer := _moe_layer(op)) is not None
    ]
    for layer in layers:
        split_tp = _check(layer, ep, tp)
        _split_layer(layer, e, ep, group, t, tp, tp_group if split_tp else None)
    return len(layers)
