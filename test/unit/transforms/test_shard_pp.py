"""Pipeline parallelism of `--shard` (`shard{ranks=2 pp=2}`, and with tp: rank =
stage * tp + t): each function cut into stages of balanced cost (topological prefixes),
the values crossing a cut carried by `ge.hcom_send` / `ge.hcom_receive` (forwarded through
a middle stage), constants kept by each stage that reads them; the last stage's ranks hold
the outputs, which equal the reference interpreter's on the unsharded graph."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.support import assert_close
from test_shard_tp import llama_block, rank_functions, swiglu_mlp
from xdsl.dialects import func

from ge_dialect import api
from ge_dialect.ir.dialects import ge
from ge_dialect.sim.program import python_value
from ge_dialect.utils.errors import OptionError
from transforms.shard import ShardPass, _stage_cuts

PIPELINE = "canonicalize,cse,lower-to-device,plan-memory"


def sharded(module, options: str):
    m = module.clone()
    api.compile(m, f"shard{{{options}}},{PIPELINE}")
    return m


@pytest.mark.parametrize("options", ["ranks=2 pp=2", "ranks=3 pp=3", "ranks=4 tp=2 pp=2"])
def test_llama_block_pipeline_matches_single_device(options):
    module, inputs = llama_block()
    ref = api.reference(module, inputs)
    fns = rank_functions(module, options)
    pp = int(options.split("pp=")[1])
    tp = len(fns) // pp
    for r, fn in enumerate(fns):
        stage = r // tp
        assert python_value(fn.attributes["ge.shard"])["stage"] == stage
        sends = [o for o in fn.walk() if isinstance(o, ge.HcomSendOp)]
        receives = [o for o in fn.walk() if isinstance(o, ge.HcomReceiveOp)]
        assert bool(sends) == (stage < pp - 1) and bool(receives) == (stage > 0)
        assert {o.group.data for o in sends + receives} == {f"pp{r % tp}"}
        assert all(list(o.results[0].uses) for o in fn.walk() if isinstance(o, ge.ConstOp))
        returned = fn.body.block.last_op
        assert isinstance(returned, func.ReturnOp)
        assert len(returned.operands) == (1 if stage == pp - 1 else 0)
    result = api.simulate_ranks(sharded(module, options), inputs)
    assert_close(result.outputs["y"], ref["y"], np.dtype(np.float32))
    for run in result.ranks[-tp:]:
        assert_close(run.outputs["y"], ref["y"], np.dtype(np.float32))


def test_stage_cuts_balance_cost():
    module, _ = swiglu_mlp(False, batch=4)
    (fn,) = [o for o in module.walk() if isinstance(o, func.FuncOp)]
    from ge_dialect.ir.cost import op_cost

    ops = [o for o in fn.body.block.ops if not isinstance(o, ge.ConstOp | func.ReturnOp)]
    cuts = _stage_cuts(ops, 2)
    assert cuts[0] == 0 and cuts[-1] == len(ops) and len(cuts) == 3
    cost = [op_cost(o).flops + op_cost(o).bytes_in + op_cost(o).bytes_out for o in ops]
    first, second = sum(cost[: cuts[1]]), sum(cost[cuts[1] :])
    # the two blocks are equal: the cut falls within one op of the middle
    assert abs(first - second) <= 2 * max(cost)
    assert sum(cost[: cuts[1] - 1]) * 2 < sum(cost)


def test_pp_with_data_parallel_is_refused():
    with pytest.raises(OptionError, match="pp=2 with data parallel"):
        ShardPass(ranks=4, pp=2)
