"""HCCL's cost of every collective kind, by algorithm: a collective alone on the shipped
topologies takes the closed-form time written out here from the topology file's figures
(not from `sim.topology`), and HCCL's choice follows the message size (ring below 8 MB,
double binary tree up to 128 MB, halving-doubling above), the topology (mesh inside a
full-HCCS group) and the servers (hierarchical all-reduce across servers, also on 32 and
64 ranks of the 8-server profile)."""

from __future__ import annotations

import json
import math

import pytest

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.sim.program import find_program, read_program
from ge_dialect.sim.topology import (
    CLUSTER_TOPOLOGY,
    DEFAULT_TOPOLOGY,
    PROFILES,
    default_topology,
    load_topology,
    parse_topology,
)
from ge_dialect.tools.ge_run import main

MB = 2**20
# The shipped figures (ascend910-8p.json, -2x8p, -8x8p): latency s, bandwidth B/s.
HCCS = (1.5e-6, 30e9)
PCIE = (2e-6, 24e9)
ROCE = (7.5e-6, 12.5e9)
GAMMA = 1 / 170e9


def test_the_figures_here_are_the_files():
    for path in (DEFAULT_TOPOLOGY, CLUSTER_TOPOLOGY):
        with open(path) as f:
            types = json.load(f)["link_types"]
        assert types["HCCS"] == {"latency": "1.5 us", "bandwidth": "30 GB/s"}
        assert types["PCIe"] == {"latency": "2 us", "bandwidth": "24 GB/s"}
        assert types["RoCE"] == {"latency": "7.5 us", "bandwidth": "12.5 GB/s"}


def alone(kind: str, nbytes: int, ranks: int, topology=None, shape=None):
    """The report row of one collective of `nbytes` (f32 input) alone on `ranks` ranks."""
    elements = nbytes // 4
    b = GraphBuilder("main")
    x = b.input("x", shape or [elements])
    if kind == "all_reduce":
        y = b.hcom_all_reduce(x, "sum", "g", ranks, name="y")
    elif kind == "reduce_scatter":
        y = b.hcom_reduce_scatter(x, "sum", "g", ranks, name="y")
    elif kind == "all_to_all":
        y = b.hcom_all_to_all(x, 0, 0, "g", ranks, name="y")
    else:
        y = b.hcom_broadcast(x, 0, "g", ranks, name="y")
    m = b.build([y])
    api.compile(m, "lower-to-device")
    programs = [read_program(find_program(m))] * ranks
    result = api.simulate_ranks(programs, topology=topology, timing_only=True, check=False)
    (row,) = result.report.extra["collectives"]
    return row


def check(row, algorithm: str, seconds: float):
    assert row["algorithm"] == algorithm
    assert row["cost_us"] == pytest.approx(seconds * 1e6, rel=1e-3)


# One 8-NPU server: two HCCS groups of four joined over PCIe, so a ring, tree or
# halving-doubling over all eight has a PCIe hop: a = 2 us, b = 1 / 24 GB/s.
@pytest.mark.parametrize(
    ("nbytes", "algorithm"),
    [(1 * MB, "ring"), (32 * MB, "double-binary-tree"), (256 * MB, "halving-doubling")],
)
def test_all_reduce_size_rule_and_formulas(nbytes, algorithm):
    p, n = 8, nbytes
    a, b = PCIE[0], 1 / PCIE[1]
    formulas = {
        "ring": 2 * (p - 1) * a + 2 * (p - 1) / p * n * b + (p - 1) / p * n * GAMMA,
        # NCCL's double binary tree: reduce up and broadcast down two trees, pipelined.
        "double-binary-tree": 2 * math.ceil(math.log2(p)) * a + 2 * n * b + n * GAMMA,
        "halving-doubling": 2 * math.log2(p) * a
        + 2 * (p - 1) / p * n * b
        + (p - 1) / p * n * GAMMA,
    }
    check(alone("all_reduce", nbytes, p), algorithm, formulas[algorithm])


@pytest.mark.parametrize("nbytes", [1 * MB, 32 * MB, 256 * MB])
def test_a_full_hccs_group_stays_mesh_at_every_size(nbytes):
    p, n = 4, nbytes  # ranks 0..3 of the 8-NPU server: one HCCS group
    a, b = HCCS[0], 1 / HCCS[1]
    check(alone("all_reduce", nbytes, p), "mesh", 2 * a + 2 / p * n * b + (p - 1) / p * n * GAMMA)


def test_reduce_scatter_ring_and_mesh():
    n = 1 * MB
    a, b = PCIE[0], 1 / PCIE[1]
    check(alone("reduce_scatter", n, 8), "ring", 7 * a + 7 / 8 * n * b + 7 / 8 * n * GAMMA)
    a, b = HCCS[0], 1 / HCCS[1]
    check(alone("reduce_scatter", n, 4), "mesh", a + n * b / 4 + 3 / 4 * n * GAMMA)


@pytest.mark.parametrize("ranks", [2, 4, 8])
def test_all_to_all_pairwise(ranks):
    n = 1 * MB
    a, b = (HCCS if ranks <= 4 else PCIE)[0], 1 / (HCCS if ranks <= 4 else PCIE)[1]
    check(alone("all_to_all", n, ranks), "pairwise", (ranks - 1) * (a + n / ranks * b))


@pytest.mark.parametrize("ranks", [2, 4, 6, 8])
def test_broadcast_binomial_tree(ranks):
    n = 1 * MB
    # A tree edge i - 2^k -> i crosses the PCIe between the HCCS groups from 5 ranks on.
    a, b = (HCCS if ranks <= 4 else PCIE)[0], 1 / (HCCS if ranks <= 4 else PCIE)[1]
    check(
        alone("broadcast", n, ranks, shape=[n // 4]),
        "binomial-tree",
        math.ceil(math.log2(ranks)) * (a + n * b),
    )


@pytest.mark.parametrize(("dest", "figures"), [(1, HCCS), (4, PCIE)])
def test_send_receive_costs_one_hop(dest, figures):
    n = 64 * 1024
    programs = []
    for r in range(dest + 1):
        b = GraphBuilder("main")
        x = b.input("x", [n // 4])
        if r == 0:
            b.hcom_send(x, 1, "pp", 2)  # group rank 1: world rank `dest`
            y = b.relu(x, name="y")
        elif r == dest:
            y = b.hcom_receive([n // 4], "f32", 0, "pp", 2, name="y")
        else:
            y = b.relu(x, name="y")
        m = b.build([y])
        api.compile(m, "lower-to-device")
        programs.append(read_program(find_program(m)))
    result = api.simulate_ranks(programs, timing_only=True, check=False)
    (row,) = result.report.extra["collectives"]
    assert row["kind"] == "send" and row["ranks"] == [0, dest]
    check(row, "p2p", figures[0] + n / figures[1])


def test_hierarchical_all_reduce_on_two_servers():
    """16 ranks, 8 per server: reduce-scatter inside each server (a ring, over PCIe), an
    all-reduce of n/8 between the two servers (halving-doubling over RoCE), an all-gather
    inside."""
    n, q = 1 * MB, 8
    a, b = PCIE[0], 1 / PCIE[1]
    ra, rb = ROCE[0], 1 / ROCE[1]
    scatter = (q - 1) * a + (q - 1) / q * n * b + (q - 1) / q * n * GAMMA
    across = 2 * ra + 2 * (1 / 2) * (n / q) * rb + (1 / 2) * (n / q) * GAMMA
    gather = (q - 1) * a + (q - 1) / q * n * b
    row = alone("all_reduce", n, 16, topology=CLUSTER_TOPOLOGY)
    check(row, "hierarchical", scatter + across + gather)
    assert row["link_types"] == ["HCCS", "PCIe", "RoCE"] or "RoCE" in str(row["link_types"])


@pytest.mark.parametrize("ranks", [32, 64])
def test_default_topology_for_32_and_64_ranks_is_the_8_server_cluster(ranks):
    topology = default_topology(ranks)
    assert topology.name == default_topology(64).name and topology.ranks == 64
    assert len(topology.servers) == 8
    row = alone("all_reduce", 1 * MB, ranks)
    assert row["algorithm"] == "hierarchical" and row["ranks"] == list(range(ranks))


def test_default_topology_choice():
    assert default_topology(8).ranks == 8
    assert default_topology(16).ranks == 16
    assert default_topology(17).ranks == 64
    assert PROFILES in DEFAULT_TOPOLOGY


def test_forcing_an_algorithm():
    t = default_topology(8)
    assert t.collective("all_reduce", MB, range(8)).algorithm == "ring"
    forced = t.collective("all_reduce", MB, range(8), force="halving-doubling")
    a, b = PCIE[0], 1 / PCIE[1]
    expected = 6 * a + 2 * 7 / 8 * MB * b + 7 / 8 * MB * GAMMA
    assert forced.algorithm == "halving-doubling"
    assert forced.seconds == pytest.approx(expected, rel=1e-9)


def mislabelled_text() -> str:
    with open(CLUSTER_TOPOLOGY) as f:
        data = json.load(f)
    for link in data["links"]:
        if link["type"] == "RoCE":
            link["type"] = "HCCS"
    return json.dumps(data, indent=2)


def test_hccs_link_across_servers_is_a_located_warning():
    text = mislabelled_text()
    topology = parse_topology(text, "t.json")
    (warning,) = topology.warnings
    lines = text.splitlines()
    # The cross-server link is the last of the file's links.
    index = max(i for i, line in enumerate(lines) if '"type": "HCCS"' in line)
    col = lines[index].index('"HCCS"') + 1
    assert warning.startswith(f"t.json:{index + 1}:{col}: warning: links.6.type: ")
    assert (
        ": warning: links." in warning and ".type: HCCS link between 's0.npu0' (server" in warning
    )
    assert "joins devices of one server" in warning
    # The run goes on with the link as given: the all-reduce is now HCCS only.
    assert topology.collective("all_reduce", MB, range(16)).link_types == ("HCCS",)
    assert load_topology(CLUSTER_TOPOLOGY).warnings == []


def test_ge_run_prints_the_topology_warning(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(mislabelled_text())
    mlir = tmp_path / "m.mlir"
    mlir.write_text(
        'func.func @main(%x: tensor<32x8xf32> {ge.name = "x"})'
        ' -> (tensor<32x8xf32> {ge.name = "y"}) {\n'
        "  %y = ge.relu %x : tensor<32x8xf32>\n"
        "  func.return %y : tensor<32x8xf32>\n"
        "}\n"
    )
    assert main([str(mlir), "--ranks", "16", "--topology", str(path), "--timing-only"]) == 0
    err = capsys.readouterr().err
    assert f"{path}:" in err and ": warning: links." in err


def test_a_forced_algorithm_applies_where_it_has_a_formula():
    """`hccl_algo` forces an algorithm on the all-reduces, all-gathers and reduce-scatters
    it has a formula for, as HCCL_ALGO does; the other kinds keep HCCL's choice."""
    import dataclasses

    from ge_dialect.sim.topology import FORCED_ALGORITHMS, forceable

    chosen = default_topology(8)
    ranks = [0, 1, 2, 3]
    assert chosen.algorithm(ranks, "all_reduce", 2**30) == "mesh"
    for algo in FORCED_ALGORITHMS:
        forced = dataclasses.replace(chosen, hccl_algo=algo)
        assert forced.algorithm(ranks, "all_reduce", 2**30) == algo
        assert forced.collective("all_reduce", 2**30, ranks).algorithm == algo
        expected = algo if forceable("all_gather", algo) else "mesh"
        assert forced.algorithm(ranks, "all_gather", 2**20) == expected
        assert forced.algorithm(ranks, "all_to_all", 2**20) == "pairwise"
    assert not forceable("all_gather", "double-binary-tree")
    assert api.HCCL_ALGORITHMS == FORCED_ALGORITHMS  # what ge-run --hccl-algo offers
    ring = dataclasses.replace(chosen, hccl_algo="ring").collective("all_reduce", 2**30, ranks)
    assert ring.seconds > chosen.collective("all_reduce", 2**30, ranks).seconds


def test_ge_run_hccl_algo_forces_the_reported_algorithm(capsys):
    """ge-run --hccl-algo: the report names the forced algorithm for the all-gather."""
    path = "examples/torchair_multistream.mlir"
    lines = {}
    for extra in ([], ["--hccl-algo", "ring"]):
        assert main([path, "--ranks", "2", "--timing-only", *extra]) == 0
        out = capsys.readouterr().out
        [lines[bool(extra)]] = [x for x in out.splitlines() if x.startswith("collective")]
    assert "mesh over HCCS" in lines[False]  # two ranks of one server: a full mesh
    assert "ring over HCCS" in lines[True]
