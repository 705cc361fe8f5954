"""Pipeline parallelism of `--shard` (`shard{ranks=2 pp=2}`, and with tp: rank =
stage * tp + t): each function cut into stages of balanced cost (topological prefixes),
the values crossing a cut carried by `ge.hcom_send` / `ge.hcom_receive` (forwarded through
a middle stage), constants kept by each stage that reads them; the last stage's ranks hold
the outputs, which equal the reference interpreter's on the unsharded graph.

With `micro_batches=m` every stage runs m micro-batches of the batch in turn (GPipe), the
sends and receives of micro-batch i tagged i, the last stage joining the outputs: the
numbers still equal the reference's, and the multi-rank report's bubble is GPipe's
(p - 1) / (m + p - 1) within the stages' imbalance."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.support import assert_close
from test_shard_tp import llama_block, rank_functions, swiglu_mlp
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.dialects import ge
from ge_dialect.sim.program import python_value
from ge_dialect.utils.errors import GeError, OptionError
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


@pytest.mark.parametrize(
    "options", ["ranks=4 pp=2", "ranks=4 pp=2 micro_batches=2", "ranks=8 tp=2 pp=2"]
)
def test_pipeline_with_data_parallel_matches_single_device(options):
    """rank = (stage * dp + d) * tp + t: data slice d has its own pipeline, and the last
    stage all-gathers the outputs over dp."""
    module, inputs = llama_block(batch=4)
    ref = api.reference(module, inputs)
    fns = rank_functions(module, options)
    tp = 2 if "tp=2" in options else 1
    dp = len(fns) // (2 * tp)
    for r, fn in enumerate(fns):
        info = python_value(fn.attributes["ge.shard"])
        stage, d, t = r // (dp * tp), r // tp % dp, r % tp
        assert (info["stage"], info["part"], info["parts"]) == (stage, d, dp)
        links = [o for o in fn.walk() if isinstance(o, ge.HcomSendOp | ge.HcomReceiveOp)]
        assert {o.group.data for o in links} == {f"pp{d * tp + t}"}
        gathers = [o for o in fn.walk() if isinstance(o, ge.HcomAllGatherOp)]
        assert [o.group.data for o in gathers] == ([f"dp{t}"] if stage == 1 else [])
    result = api.simulate_ranks(sharded(module, options), inputs)
    assert not result.findings
    for run in result.ranks[-dp * tp :]:
        assert_close(run.outputs["y"], ref["y"], np.dtype(np.float32))


@pytest.mark.parametrize(
    "options", ["ranks=2 pp=2 micro_batches=4", "ranks=4 tp=2 pp=2 micro_batches=2"]
)
def test_micro_batches_match_single_device(options):
    module, inputs = llama_block(batch=4)
    ref = api.reference(module, inputs)
    m = int(options.split("micro_batches=")[1])
    fns = rank_functions(module, options)
    tp = len(fns) // 2
    for r, fn in enumerate(fns):
        assert python_value(fn.attributes["ge.shard"])["micro_batches"] == m
        sends = [o for o in fn.walk() if isinstance(o, ge.HcomSendOp)]
        receives = [o for o in fn.walk() if isinstance(o, ge.HcomReceiveOp)]
        links = sends if r < tp else receives
        tags = [o.sr_tag.value.data for o in links]
        # each micro-batch's values in turn, tagged with its index (x's batch is split, so
        # every value crossing the cut carries it)
        assert tags == sorted(tags) and set(tags) == set(range(m))
        assert all(tags.count(i) == len(tags) // m for i in range(m))
        joins = [o for o in fn.walk() if isinstance(o, ge.ConcatOp) and o.axis.value.data == 0]
        assert len(joins) == (1 if r >= tp else 0)
    result = api.simulate_ranks(sharded(module, options), inputs)
    assert not result.findings
    for run in result.ranks[-tp:]:
        assert_close(run.outputs["y"], ref["y"], np.dtype(np.float32))


def chain(layers=16, batch=16, hidden=64, seed=0):
    """`layers` equal blocks relu(h @ W): stages of equal cost."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    h = b.input("x", [batch, hidden], dtype=np.float16)
    for _ in range(layers):
        w = rng.normal(0, 1 / np.sqrt(hidden), (hidden, hidden)).astype(np.float16)
        h = b.relu(b.matmul(h, b.const(w)))
    return b.build([h])


def pipeline_run(p: int, m: int):
    module = chain()
    api.compile(module, f"shard{{ranks={p} pp={p} micro_batches={m}}},{PIPELINE}")
    return api.simulate_ranks(module, timing_only=True, check=False)


def pipeline_report(p: int, m: int):
    return pipeline_run(p, m).report


def waited(timeline, step: int) -> int:
    """What one stream's rank waits (femtoseconds): the step less its launches, kernels
    and transfers (a send's or receive's cost, not its wait for the partner)."""
    tasks = [i for i in timeline.intervals if i.unit != "event"]
    assert len({i.stream for i in tasks}) == 1  # (one stream: the parts do not overlap)
    work = sum(
        (i.start_fs - i.ready_fs) + (i.compute_fs if i.unit == "comm" else i.end_fs - i.start_fs)
        for i in tasks
    )
    return step - work


def test_bubble_of_four_stages_and_eight_micro_batches():
    p, m = 4, 8
    result = pipeline_run(p, m)
    report = result.report
    pipe = report.to_json()["pipeline"]
    timelines = [run.timeline for run in result.ranks]
    step = max(t.makespan_fs for t in timelines)
    assert [round(s["bubble"], 9) for s in pipe["per_stage"]] == [
        round(waited(t, step) / step, 9) for t in timelines
    ]
    # pipelined: stage 1 computes micro-batch 0 before stage 0 has computed micro-batch 7
    first = [i.start_fs for i in timelines[1].intervals if i.unit == "cube"][0]
    last = [i.end_fs for i in timelines[0].intervals if i.unit == "cube"][-1]
    assert first < last
    ideal = (p - 1) / (m + p - 1)
    assert (pipe["stages"], pipe["micro_batches"]) == (p, m)
    assert pipe["ideal_bubble"] == pytest.approx(ideal)
    # the stages' imbalance, from their work, bounds how far the bubble misses the ideal;
    # equal blocks keep it small (stage 0 also slices the micro-batches, the last joins)
    work = [s["work_us"] for s in pipe["per_stage"]]
    imbalance = (max(work) - min(work)) / (sum(work) / len(work))
    assert pipe["imbalance"] == pytest.approx(imbalance)
    assert imbalance < 0.15
    assert abs(pipe["bubble"] - ideal) <= imbalance
    assert pipe["bubble"] == pytest.approx(sum(s["bubble"] for s in pipe["per_stage"]) / p)
    # the micro-batches overlap across stages: run one after another, every stage would
    # wait for the other three, 1 - 1/p of the step
    assert pipe["bubble"] < (1 - 1 / p) / 2
    # compute alone is a smaller part of the step than work (launches, transfers)
    assert all(s["idle"] > s["bubble"] for s in pipe["per_stage"])
    text = report.text()
    assert (
        f"pipeline: 4 stages, 8 micro-batches: bubble {pipe['bubble']:.1%} (ideal 27.3%), "
        f"stage imbalance {imbalance:.1%}; stage 0 bubble" in text
    )


def test_without_micro_batches_the_bubble_is_one_stage_at_a_time():
    pipe = pipeline_report(4, 1).to_json()["pipeline"]
    work = [s["work_us"] for s in pipe["per_stage"]]
    imbalance = (max(work) - min(work)) / (sum(work) / len(work))
    assert pipe["ideal_bubble"] == pytest.approx(0.75)
    assert abs(pipe["bubble"] - 0.75) <= imbalance < 0.15


def test_a_report_without_stages_has_no_pipeline():
    module = chain(layers=2, batch=4, hidden=32)
    api.compile(module, f"shard{{ranks=2 tp=2}},{PIPELINE}")
    report = api.simulate_ranks(module, timing_only=True, check=False).report
    assert "pipeline" not in report.to_json()
    assert "pipeline:" not in report.text()


def test_micro_batches_must_divide_the_batch():
    module = chain(layers=2, batch=6, hidden=32)
    with pytest.raises(
        GeError,
        match="input 'x' has batch 6, not a multiple of micro-batches=4 "
        r"\(pp=2\)",
    ):
        api.compile(module, "shard{ranks=2 pp=2 micro_batches=4}")


def test_micro_batches_need_pipeline_stages():
    with pytest.raises(OptionError, match="micro-batches=4 needs pipeline stages"):
        ShardPass(ranks=2, tp=2, micro_batches=4)


def test_values_without_the_batch_are_sent_once():
    """exp(W) has no batch: stage 0 computes it once and sends it before micro-batch 0;
    the numbers equal numpy's."""
    rng = np.random.default_rng(1)
    w = rng.uniform(-0.5, 0.5, (8, 8)).astype(np.float32)
    x = rng.uniform(-1, 1, (4, 8)).astype(np.float32)
    b = GraphBuilder("main")
    h = b.matmul(b.input("x", [4, 8]), b.const(w))
    e = b.exp(b.const(w))
    module = b.build([b.relu(b.matmul(h, e), name="y")])
    fns = rank_functions(module, "ranks=2 pp=2 micro_batches=2")
    sends = [o for o in fns[0].walk() if isinstance(o, ge.HcomSendOp)]
    assert [(o.sr_tag.value.data, shape(o.input)) for o in sends] == [
        (0, (8, 8)),
        (0, (2, 8)),
        (1, (2, 8)),
    ]
    result = api.simulate_ranks(sharded(module, "ranks=2 pp=2 micro_batches=2"), {"x": x})
    expected = np.maximum((x.astype(np.float64) @ w) @ np.exp(w.astype(np.float64)), 0)
    assert_close(result.outputs["y"], expected, np.dtype(np.float32))


def test_micro_batches_refuse_an_op_mixing_the_batch():
    b = GraphBuilder("main")
    h = b.matmul(b.input("x", [4, 8]), b.const(np.ones((8, 8), np.float32)))
    module = b.build([b.softmax(b.relu(h), axis=0)])
    with pytest.raises(
        GeError,
        match=r"cannot split input 'x' along the batch: this softmax normalises "
        r"over dim 0 \(pp=2\)",
    ):
        api.compile(module, "shard{ranks=2 pp=2 micro_batches=2}")


def shape(value) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def test_micro_batches_need_a_batch():
    """y = x @ W + exp(W) with W [4, 4] and x [4, 4]: the add joins x's rows with W's, so
    nothing carries a batch that micro-batches could split."""
    b = GraphBuilder("main")
    w = b.const(np.ones((4, 4), np.float32))
    y = b.add(b.matmul(b.input("x", [4, 4]), w), b.exp(w))
    module = b.build([b.relu(y)])
    with pytest.raises(GeError, match=r"micro-batches=2: no input carries a batch to split"):
        api.compile(module, "shard{ranks=2 pp=2 micro_batches=2}")
