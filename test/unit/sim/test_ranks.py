"""Several ranks: the topology file, the `shard` pass, and the multi-rank simulation.

- A sharded model's outputs on N ranks (N = 2, 4, 8; tensor and data modes, fp32 and fp16,
  a MatMul chain and a conv net) equal the reference interpreter's on the whole graph.
- An all-reduce (and an all-gather) alone takes exactly HCCL's closed-form time for the
  algorithm HCCL's rule picks (Hypothesis over sizes, rank counts, and topologies: the
  shipped ones and random link figures), within 1%; the formulas are written out here,
  independently of `sim.topology`.
- A mislabelled link: a cross-server RoCE link mislabelled HCCS predicts a shorter
  step, and the report names the collectives that changed.
- Topology errors are one located line; collectives that cannot meet are errors or
  deadlocks naming the ranks; ge-run's `--ranks`/`--topology`.
- The project's own inputs on several ranks: TorchAir's example in data mode (its
  weight-like input stays whole), the zoo's encoder and MLPs whose biases are `ge.add`s in
  tensor mode, all equal to one rank's numbers; with `assign-streams{mode=auto}` the
  collectives run on the comm stream and the race checker finds nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers.support import ROOT, assert_close
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.sim.order import SimulationError
from ge_dialect.sim.program import find_program, read_program
from ge_dialect.sim.report import changed_collectives
from ge_dialect.sim.topology import (
    CLUSTER_TOPOLOGY,
    DEFAULT_TOPOLOGY,
    load_topology,
    parse_topology,
)
from ge_dialect.tools.ge_run import main
from ge_dialect.utils.errors import GeError

PIPELINE = "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device,plan-memory"


def mlp(batch=8, d=32, hidden=64, dtype=np.float32, seed=0):
    """x -> matmul(W1) + b1 -> relu -> matmul(W2) + b2: a transformer MLP block."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    x = b.input("x", [batch, d], dtype=dtype)
    w1 = b.const(rng.normal(0, 1 / math.sqrt(d), (d, hidden)).astype(dtype))
    b1 = b.const(rng.normal(0, 0.5, hidden).astype(dtype))
    w2 = b.const(rng.normal(0, 1 / math.sqrt(hidden), (hidden, d)).astype(dtype))
    b2 = b.const(rng.normal(0, 0.5, d).astype(dtype))
    h = b.relu(b.matmul(x, w1, bias=b1))
    y = b.matmul(h, w2, bias=b2, name="y")
    return b.build([y]), {"x": rng.uniform(-1, 1, (batch, d)).astype(dtype)}


def convnet(batch=8, seed=0):
    """conv -> relu -> global pool -> flatten -> matmul: NC1HWC0 values between ranks."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    x = b.input("x", [batch, 3, 8, 8])
    w = b.const(rng.normal(0, 1 / math.sqrt(27), (17, 3, 3, 3)).astype(np.float32))
    fc = b.const(rng.normal(0, 1 / math.sqrt(17), (17, 5)).astype(np.float32))
    h = b.flatten(b.global_avg_pool(b.relu(b.conv2d(x, w, pads=[1, 1, 1, 1]))))
    y = b.matmul(h, fc, name="y")
    return b.build([y]), {"x": rng.uniform(-1, 1, (batch, 3, 8, 8)).astype(np.float32)}


def sharded(module, ranks, mode, pipeline=PIPELINE):
    m = module.clone()
    api.compile(m, f"shard{{ranks={ranks} mode={mode}}},{pipeline}")
    return m


# --------------------------------------------------------------------------------------
# numbers
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("ranks", [2, 4, 8])
@pytest.mark.parametrize("mode", ["tensor", "data"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_sharded_mlp_matches_single_device(ranks, mode, dtype):
    module, inputs = mlp(dtype=dtype)
    ref = api.reference(module, inputs)
    single = api.simulate(sharded(module, 1, mode), inputs).outputs
    result = api.simulate_ranks(sharded(module, ranks, mode), inputs)
    assert len(result.ranks) == ranks
    kinds = {c["kind"] for c in result.report.extra["collectives"]}
    assert kinds == {"all_reduce" if mode == "tensor" else "all_gather"}
    for run in result.ranks:  # every rank ends with the whole outputs
        assert_close(run.outputs["y"], ref["y"], np.dtype(dtype))
    assert_close(result.outputs["y"], single["y"], np.dtype(dtype))
    assert not result.findings


@pytest.mark.parametrize("ranks", [2, 4])
def test_data_parallel_convnet(ranks):
    module, inputs = convnet()
    ref = api.reference(module, inputs)
    result = api.simulate_ranks(sharded(module, ranks, "data"), inputs)
    assert_close(result.outputs["y"], ref["y"], np.dtype(np.float32))
    assert result.ranks[1].inputs["x"].shape == (8 // ranks, 3, 8, 8)


def test_tensor_parallel_leaves_other_matmuls_replicated():
    """A lone matmul (no second matmul after it) is computed whole on every rank."""
    rng = np.random.default_rng(1)
    b = GraphBuilder("main")
    x = b.input("x", [4, 16])
    y = b.matmul(x, b.const(rng.normal(0, 0.25, (16, 8)).astype(np.float32)), name="y")
    module = b.build([y])
    inputs = {"x": rng.uniform(-1, 1, (4, 16)).astype(np.float32)}
    result = api.simulate_ranks(sharded(module, 2, "tensor"), inputs)
    assert result.report.extra["collectives"] == []
    assert_close(result.outputs["y"], api.reference(module, inputs)["y"], np.dtype(np.float32))


def test_collectives_compute_real_reductions():
    """An all-reduce sums the members' different buffers; max, min and prod too."""
    programs = []
    for reduction in ("sum", "max", "min", "prod"):
        b = GraphBuilder("main")
        x = b.input("x", [4, 8])
        b_out = b.hcom_all_reduce(x, reduction, "world", 4, name="y")
        m = b.build([b_out])
        api.compile(m, "lower-to-device")
        programs = [read_program(find_program(m))] * 4
        xs = np.random.default_rng(0).uniform(0.5, 1.5, (16, 8)).astype(np.float32)
        result = api.simulate_ranks(programs, {"x": xs}, splits={"x": 0})
        parts = np.split(xs, 4)
        reducers: dict[str, Callable[..., Any]] = {
            "sum": np.sum,
            "max": np.max,
            "min": np.min,
            "prod": np.prod,
        }
        expected = reducers[reduction](parts, axis=0)
        for run in result.ranks:
            np.testing.assert_allclose(run.outputs["y"], expected, rtol=1e-6)


# --------------------------------------------------------------------------------------
# HCCL's formulas
# --------------------------------------------------------------------------------------


def collective_programs(kind: str, elements: int, ranks: int):
    b = GraphBuilder("main")
    x = b.input("x", [elements])
    if kind == "all_reduce":
        y = b.hcom_all_reduce(x, "sum", "world", ranks, name="y")
    else:
        y = b.hcom_all_gather(x, "world", ranks, name="y")
    m = b.build([y])
    api.compile(m, "lower-to-device")
    return [read_program(find_program(m))] * ranks


def topology_text(servers: int, figures: dict[str, tuple[float, float]]) -> str:
    """`servers` 8-NPU servers (two HCCS groups of four, PCIe among all eight, RoCE among
    all devices) with the given (latency us, bandwidth GB/s) per link type."""
    devices = [[f"s{s}.npu{i}" for i in range(8)] for s in range(servers)]
    links = []
    for names in devices:
        links += [
            {"type": "HCCS", "devices": names[:4]},
            {"type": "HCCS", "devices": names[4:]},
            {"type": "PCIe", "devices": names},
        ]
    if servers > 1:
        links.append({"type": "RoCE", "devices": [n for names in devices for n in names]})
    return json.dumps(
        {
            "name": f"random-{servers}x8p",
            "link_types": {
                t: {"latency": f"{lat!r} us", "bandwidth": f"{bw!r} GB/s"}
                for t, (lat, bw) in figures.items()
            },
            "reduce_bandwidth": "170 GB/s",
            "servers": [
                {
                    "name": f"server{s}",
                    "devices": [{"name": n, "rank": 8 * s + i} for i, n in enumerate(names)],
                }
                for s, names in enumerate(devices)
            ],
            "links": links,
        },
        indent=1,
    )


SHIPPED = {"HCCS": (1.5, 30.0), "PCIe": (2.0, 24.0), "RoCE": (7.5, 12.5)}


def expected_seconds(kind, p, n, servers_used, figures):
    """HCCL's closed form (its documented alpha-beta formulas) for the algorithm its rule
    picks here."""
    lat = {t: f[0] * 1e-6 for t, f in figures.items()}
    bw = {t: f[1] * 1e9 for t, f in figures.items()}
    gamma = 1 / 170e9
    share = (p - 1) / p
    if p == 1:
        return "none", 0.0
    if servers_used == 1 and p <= 4:
        algorithm, types = "mesh", ["HCCS"]
    elif servers_used == 1:
        algorithm, types = "ring", ["HCCS", "PCIe"]
    else:
        power = p & (p - 1) == 0
        algorithm = "halving-doubling" if power else "ring"
        types = ["HCCS", "PCIe", "RoCE"] if p > 2 else ["RoCE"]
    a = max(lat[t] for t in types)
    b = 1 / min(bw[t] for t in types)
    if kind == "all_reduce":
        steps = {"ring": 2 * (p - 1), "mesh": 2, "halving-doubling": 2 * math.log2(p)}[algorithm]
        moved = 2 / p if algorithm == "mesh" else 2 * share
        return algorithm, steps * a + moved * n * b + share * n * gamma
    steps = {"ring": p - 1, "mesh": 1, "halving-doubling": math.log2(p)}[algorithm]
    moved = 1 / p if algorithm == "mesh" else share
    return algorithm, steps * a + moved * n * b


bandwidths = st.lists(st.floats(1.0, 100.0), min_size=3, max_size=3).map(
    lambda bs: sorted(bs, reverse=True)  # HCCS >= PCIe >= RoCE
)
latencies = st.lists(st.floats(0.1, 20.0), min_size=3, max_size=3)


@settings(max_examples=40)
@given(
    kind=st.sampled_from(["all_reduce", "all_gather"]),
    elements=st.integers(1, 1 << 22),
    ranks=st.sampled_from([1, 2, 3, 4, 5, 6, 8, 12, 16]),
    shipped=st.booleans(),
    bws=bandwidths,
    lats=latencies,
)
def test_collective_alone_costs_hccl_formula(kind, elements, ranks, shipped, bws, lats):
    servers = 2 if ranks > 8 else 1
    if shipped:
        figures = SHIPPED
        topology = load_topology(CLUSTER_TOPOLOGY if servers > 1 else DEFAULT_TOPOLOGY)
    else:
        figures = dict(zip(("HCCS", "PCIe", "RoCE"), zip(lats, bws, strict=True), strict=True))
        topology = parse_topology(topology_text(servers, figures))
    programs = collective_programs(kind, elements, ranks)
    result = api.simulate_ranks(programs, topology=topology, timing_only=True, check=False)
    n = elements * 4 * (ranks if kind == "all_gather" else 1)
    algorithm, seconds = expected_seconds(kind, ranks, n, servers, figures)
    (row,) = result.report.extra["collectives"]
    assert row["algorithm"] == algorithm
    assert row["bytes"] == n
    for run in result.ranks:
        (interval,) = [i for i in run.timeline.intervals if i.unit == "comm"]
        assert interval.duration == pytest.approx(seconds * 1e6, rel=0.01, abs=1e-9)


def test_slowest_link_bounds_a_ring():
    """8 ranks of one server: a ring through both HCCS groups, bounded by PCIe."""
    topology = load_topology()
    cost = topology.collective("all_reduce", 1 << 20, range(8))
    assert cost.algorithm == "ring"
    assert cost.beta == pytest.approx(1 / 24e9)
    assert cost.link_types == ("HCCS", "PCIe")


# --------------------------------------------------------------------------------------
# a mislabelled link changes the predicted step
# --------------------------------------------------------------------------------------


def mislabelled(path: str) -> str:
    data = json.loads(open(path).read())
    for link in data["links"]:
        if link["type"] == "RoCE":
            link["type"] = "HCCS"  # the cross-server link, labelled as if it were HCCS
    return json.dumps(data, indent=2)


def test_mislabelled_roce_link_predicts_a_shorter_step(tmp_path):
    module, inputs = mlp(batch=64, d=256, hidden=1024)
    program = sharded(module, 16, "tensor")
    right = api.simulate_ranks(program, inputs, topology=CLUSTER_TOPOLOGY)
    wrong_path = tmp_path / "wrong.json"
    wrong_path.write_text(mislabelled(CLUSTER_TOPOLOGY))
    wrong = api.simulate_ranks(program, inputs, topology=str(wrong_path))
    assert wrong.report.makespan < right.report.makespan
    changed = changed_collectives(right.report, wrong.report)
    assert len(changed) == 1
    assert "all_reduce 0 of group 'tp'" in changed[0]
    assert "HCCS/PCIe/RoCE" in changed[0] and "-> hierarchical over HCCS " in changed[0]
    np.testing.assert_array_equal(wrong.outputs["y"], right.outputs["y"])  # numbers: same


# --------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------

GOOD = {
    "name": "t",
    "link_types": {"HCCS": {"latency": "1 us", "bandwidth": "30 GB/s"}},
    "reduce_bandwidth": "100 GB/s",
    "servers": [{"name": "s0", "devices": [{"name": "a", "rank": 0}, {"name": "b", "rank": 1}]}],
    "links": [{"type": "HCCS", "devices": ["a", "b"]}],
}


def bad(change) -> str:
    data = json.loads(json.dumps(GOOD))
    change(data)
    text = json.dumps(data, indent=2)
    with pytest.raises(GeError) as e:
        parse_topology(text, "t.json")
    message = str(e.value)
    assert "\n" not in message and message.startswith("t.json:")
    return message


def test_good_topology():
    t = parse_topology(json.dumps(GOOD))
    assert t.ranks == 2 and t.collective("all_reduce", 1000, [0, 1]).algorithm == "mesh"


def test_topology_errors():
    def unknown(d):
        d["links"][0]["devices"][1] = "c"

    assert bad(unknown) == "t.json:30:9: error: links.0.devices.1: unknown device 'c'"

    def duplicate_rank(d):
        d["servers"][0]["devices"][1]["rank"] = 0

    assert "servers.0.devices.1.rank: duplicate rank 0 (device 'a' has it)" in bad(duplicate_rank)

    def unreached(d):
        d["servers"][0]["devices"].append({"name": "c", "rank": 2})

    assert "servers.0.devices.2: device 'c' is reached by no link" in bad(unreached)

    def duplicate_device(d):
        d["servers"].append({"name": "s1", "devices": [{"name": "a", "rank": 2}]})

    assert "duplicate device 'a'" in bad(duplicate_device)

    def bad_type(d):
        d["links"][0]["type"] = "NVLink"

    assert 'links.0.type: expected one of HCCS, PCIe, RoCE, got "NVLink"' in bad(bad_type)

    def bad_latency(d):
        d["link_types"]["HCCS"]["latency"] = "-1 us"

    assert "link_types.HCCS.latency: expected a non-negative time" in bad(bad_latency)

    def unknown_link_type(d):
        d["link_types"]["NVLink"] = d["link_types"]["HCCS"]

    # located at the key, named by what the keys are (the schema's title)
    assert "link_types.NVLink: unknown link type (expected one of HCCS, PCIe, RoCE)" in bad(
        unknown_link_type
    )

    def missing_rank(d):
        d["servers"][0]["devices"][1]["rank"] = 5

    assert "rank 1 is missing" in bad(missing_rank)

    def disconnected(d):
        d["servers"][0]["devices"] += [{"name": "c", "rank": 2}, {"name": "e", "rank": 3}]
        d["links"].append({"type": "HCCS", "devices": ["c", "e"]})

    assert "device 'c' is not connected to rank 0's device 'a'" in bad(disconnected)


def test_too_many_ranks_for_the_topology():
    module, inputs = mlp()
    with pytest.raises(GeError, match="16 ranks do not fit topology 'ascend910-8p'"):
        api.simulate_ranks(sharded(mlp(batch=16)[0], 16, "data"), topology=DEFAULT_TOPOLOGY)


def test_whole_inputs_are_checked_as_one_rank_s_are():
    """The inputs of a multi-rank run go through the single-rank check (`sim.run`): a
    missing, misshapen or ill-typed one is one error naming it."""
    programs = sharded(convnet()[0], 2, "data")
    x = np.zeros((8, 3, 8, 8), np.float32)
    with pytest.raises(GeError, match=r"^error: input 'x' has dtype complex64, expected float32$"):
        api.simulate_ranks(programs, {"x": x.astype(np.complex64)}, timing_only=True)
    with pytest.raises(GeError, match=r"input 'x' has shape \[4, 3, 8, 8\], expected \[8,"):
        api.simulate_ranks(programs, {"x": x[:4]}, timing_only=True)
    with pytest.raises(GeError, match=r"missing input 'x' \(shape \[8, 3, 8, 8\]"):
        api.simulate_ranks(programs, {}, timing_only=True)


def two_collectives(first: str, second: str, rank_size: int = 2):
    b = GraphBuilder("main")
    x = b.input("x", [4])
    y = b.hcom_all_reduce(
        b.hcom_all_reduce(x, "sum", first, rank_size), "sum", second, rank_size, name="y"
    )
    m = b.build([y])
    api.compile(m, "lower-to-device")
    return read_program(find_program(m))


def test_collectives_in_crossing_orders_deadlock():
    programs = [two_collectives("a", "b"), two_collectives("b", "a")]
    with pytest.raises(
        SimulationError,
        match="deadlock: rank 0 is blocked at the launch 'hcom_all_reduce'.*group 'a', "
        "which rank.s. 1 never reach",
    ):
        api.simulate_ranks(programs)


def test_rank_size_must_match_members():
    with pytest.raises(GeError, match="group 'a' has rank_size 4 but 2 of the 2 ranks hold it"):
        api.simulate_ranks([two_collectives("a", "b", 4)] * 2)


# --------------------------------------------------------------------------------------
# ge-run
# --------------------------------------------------------------------------------------

MLP = """\
func.func @main(%x: tensor<8x32xf32> {ge.name = "x"}) -> (tensor<8x32xf32> {ge.name = "y"}) {
  %w1 = ge.const dense<0.01> : tensor<32x64xf32>
  %w2 = ge.const dense<0.02> : tensor<64x32xf32>
  %h = ge.matmul %x, %w1 : tensor<8x32xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
  %r = ge.relu %h : tensor<8x64xf32>
  %y = ge.matmul %r, %w2 : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
  func.return %y : tensor<8x32xf32>
}
"""


def test_ge_run_ranks(tmp_path, capsys):
    path = tmp_path / "mlp.mlir"
    path.write_text(MLP)
    trace = tmp_path / "t.json"
    code = main(
        [
            "--shard=ranks=4,mode=tensor",
            "--ranks",
            "4",
            "--check",
            "--report",
            "json",
            "--trace",
            str(trace),
            str(path),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert [r["rank"] for r in report["ranks"]] == [0, 1, 2, 3]
    assert set(report["ranks"][0]["cluster"]) == {
        "Computing",
        "Communication",
        "Communication(Not Overlapped)",
        "Overlapped",
        "Free",
    }
    assert set(report["imbalance"]) == {"makespan", "Computing", "Communication"}
    assert report["collectives"][0]["algorithm"] == "mesh"
    assert all(c["within_tolerance"] for c in report["checks"])
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["pid"] for e in events if e.get("ph") == "X"} == {0, 1, 2, 3}
    # text, default data mode on 2 ranks
    assert main(["--ranks", "2", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert "rank 1: makespan" in out and "imbalance across ranks" in out
    assert "all_gather 0 of group 'dp'" in out


def test_ge_run_rank_errors(tmp_path, capsys):
    path = tmp_path / "mlp.mlir"
    path.write_text(MLP)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**GOOD, "links": []}, indent=2))
    assert main(["--ranks", "2", "--topology", str(bad), str(path)]) == 1
    _, err = capsys.readouterr()
    assert err.strip().count("\n") == 0 and "device 'a' is reached by no link" in err
    assert main(["--topology", str(bad), str(path)]) != 0
    _, err = capsys.readouterr()
    assert "--topology needs --ranks" in err
    assert main(["--shard=ranks=2", "--ranks", "4", str(path)]) != 0
    _, err = capsys.readouterr()
    assert "--ranks 4 but the pipeline shards over 2 ranks" in err
    assert main(["--ranks", "3", str(path)]) == 1
    _, err = capsys.readouterr()
    assert "not a multiple of ranks=3" in err and "Traceback" not in err


def test_ge_run_ranks_of_a_device_program(tmp_path, capsys):
    """A device program that was not sharded runs on one rank: `--ranks 2` is an error."""
    path = tmp_path / "mlp.mlir"
    path.write_text(MLP)
    module = api.load(str(path))
    api.compile(module, "lower-to-device")
    lowered = tmp_path / "dev.mlir"
    lowered.write_text(api.print_module(module))
    assert main(["--ranks", "2", str(lowered)]) == 1
    _, err = capsys.readouterr()
    assert err == f"{lowered}: error: the program runs on 1 ranks, not --ranks 2\n"


# --------------------------------------------------------------------------------------
# the project's own inputs
# --------------------------------------------------------------------------------------

TORCHAIR = f"{ROOT}/examples/torchair_multistream.mlir"
ENCODER = f"{ROOT}/examples/zoo/encoder.onnx"
NEWCOMER = f"{ROOT}/test/unit/data/newcomer"


def uniform_inputs(module, seed=0):
    """U(-1, 1) inputs for every argument of the module's first function, by name."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import TensorType

    from ge_dialect.ir.interpreter import io_names

    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    rng = np.random.default_rng(seed)
    names, _ = io_names(fn)
    inputs = {}
    for name, arg in zip(names, fn.body.block.args, strict=True):
        assert isinstance(arg.type, TensorType)
        inputs[name] = rng.uniform(-1, 1, arg.type.get_shape()).astype(np.float32)
    return inputs


def test_torchair_example_on_two_ranks_matches_one_rank(capsys):
    """`ge-run --ranks 2` on TorchAir's example used to fail verification (data sharding
    split mm's right-hand input: contraction dims differ, K = 4 vs K = 2).  Now in1 and in2
    are split, in3 and in4 stay whole, and every output equals one rank's."""
    assert main(["--ranks", "2", "--check", "--report", "json", TORCHAIR]) == 0
    report = json.loads(capsys.readouterr().out)
    assert all(c["within_tolerance"] for c in report["checks"])
    assert [c["kind"] for c in report["collectives"]] == ["all_gather"]
    module = api.load(TORCHAIR)
    inputs = uniform_inputs(module)
    single = api.simulate(sharded(module, 1, "data"), inputs)
    result = api.simulate_ranks(sharded(module, 2, "data"), inputs)
    assert result.ranks[1].inputs["in1"].shape == (2, 4)
    assert result.ranks[1].inputs["in4"].shape == (4, 4)
    assert not result.findings
    ref = api.reference(module, inputs)
    for name in ("add_result", "mm_result", "mm1", "add2"):
        assert_close(result.outputs[name], single.outputs[name], np.dtype(np.float32))
        assert_close(result.outputs[name], ref[name], np.dtype(np.float32))


def test_encoder_tensor_parallel_with_bias_adds(capsys):
    """`ge-run --ranks 2 --shard=mode=tensor` on the zoo's encoder used to fail ('ge.add'
    op operands have shapes [256] and [1, 48, 128]): its FFN's biases are ONNX Adds after
    the matmuls.  The first is split with the column-parallel matmul, the second added once
    after the all-reduce; the output is within tolerance of the whole model's."""
    pytest.importorskip("onnx")
    argv = ["--ranks", "2", "--shard=mode=tensor", "--check", "--report", "json", ENCODER]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["checks"] and all(c["within_tolerance"] for c in report["checks"])
    assert [c["kind"] for c in report["collectives"]] == ["all_reduce"]


@pytest.mark.parametrize("name", ["shard_bias_rhs.mlir", "sharded_mlp.mlir"])
@pytest.mark.parametrize("ranks", [2, 4])
def test_bias_add_mlp_tensor_parallel_matches_one_rank(name, ranks):
    module = api.load(f"{NEWCOMER}/{name}")
    inputs = uniform_inputs(module)
    single = api.simulate(sharded(module, 1, "tensor"), inputs).outputs
    result = api.simulate_ranks(sharded(module, ranks, "tensor"), inputs)
    assert [c["kind"] for c in result.report.extra["collectives"]] == ["all_reduce"]
    assert_close(result.outputs["y"], single["y"], np.dtype(np.float32))
    assert_close(result.outputs["y"], api.reference(module, inputs)["y"], np.dtype(np.float32))
    assert not result.findings


@pytest.mark.parametrize("mode", ["tensor", "data"])
def test_auto_streams_run_collectives_on_the_comm_stream(mode):
    """With assign-streams{mode=auto} (PIPELINE) the all-reduce / all-gather run on the
    comm stream (1), not on stream 0, with no race; in mode labels GE's ineffective
    multi-stream rule moves this one back onto stream 0 (nothing runs beside it)."""
    module = api.load(f"{NEWCOMER}/sharded_mlp.mlir")
    inputs = uniform_inputs(module)
    result = api.simulate_ranks(sharded(module, 2, mode), inputs)
    assert not result.findings
    for run in result.ranks:
        comm = [i.stream for i in run.timeline.intervals if i.unit == "comm"]
        assert comm == [1]
        assert {i.stream for i in run.timeline.intervals} == {0, 1}
    assert_close(result.outputs["y"], api.reference(module, inputs)["y"], np.dtype(np.float32))
    labels = PIPELINE.replace("assign-streams{mode=auto}", "assign-streams")
    result = api.simulate_ranks(sharded(module, 2, mode, labels), inputs)
    for run in result.ranks:
        assert {i.stream for i in run.timeline.intervals} == {0}
