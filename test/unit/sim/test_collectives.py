"""The collectives on several simulated ranks: reduce-scatter, all-to-all (equal and
uneven), broadcast, send/receive, each against a numpy model written here (2, 4, 8, 16
ranks; 16 on the two-server topology), and how ranks that disagree fail.  One device:
each op's kernel equals the reference interpreter's (rank 0 of identical ranks)."""

from __future__ import annotations

import numpy as np
import pytest

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.sim.program import find_program, read_program
from ge_dialect.sim.topology import CLUSTER_TOPOLOGY, DEFAULT_TOPOLOGY
from ge_dialect.utils.errors import GeError

RANKS = [2, 4, 8, 16]


def topology(ranks: int) -> str:
    return CLUSTER_TOPOLOGY if ranks > 8 else DEFAULT_TOPOLOGY


def program(build, shape, dtype="f32"):
    """A one-input rank program: `build(builder, x)` returns the output (or None)."""
    b = GraphBuilder("main")
    x = b.input("x", shape, dtype)
    y = build(b, x)
    m = b.build([y] if y is not None else [x])
    api.compile(m, "lower-to-device,plan-memory")
    return read_program(find_program(m))


def per_rank(ranks: int, shape, seed=0) -> np.ndarray:
    """Each rank's own input, stacked along a new leading axis."""
    return np.random.default_rng(seed).uniform(-1, 1, (ranks, *shape)).astype(np.float32)


def run(programs, xs: np.ndarray, ranks: int):
    whole = np.concatenate(list(xs), axis=0)
    result = api.simulate_ranks(
        programs, {"x": whole}, splits={"x": 0}, topology=topology(ranks), check=False
    )
    return [r.outputs["y"] for r in result.ranks]


@pytest.mark.parametrize("ranks", RANKS)
def test_reduce_scatter_keeps_each_ranks_block(ranks):
    shape = [2 * ranks, 3]
    prog = program(lambda b, x: b.hcom_reduce_scatter(x, "sum", "tp", ranks, name="y"), shape)
    xs = per_rank(ranks, shape)
    outs = run([prog] * ranks, xs, ranks)
    total = xs.astype(np.float64).sum(axis=0)
    for r in range(ranks):
        np.testing.assert_allclose(outs[r], total[2 * r : 2 * r + 2], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize(("split", "concat"), [(0, 0), (0, 1), (1, 0)])
def test_all_to_all_exchanges_pieces(ranks, split, concat):
    shape = [ranks, 2 * ranks]
    prog = program(lambda b, x: b.hcom_all_to_all(x, split, concat, "ep", ranks, name="y"), shape)
    xs = per_rank(ranks, shape, seed=1)
    outs = run([prog] * ranks, xs, ranks)
    for i in range(ranks):
        # piece i of rank j: its rows/columns i*k .. (i+1)*k along split.
        k = shape[split] // ranks
        pieces = [xs[j].take(range(i * k, (i + 1) * k), axis=split) for j in range(ranks)]
        np.testing.assert_array_equal(outs[i], np.concatenate(pieces, axis=concat))


@pytest.mark.parametrize("ranks", [2, 4])
def test_all_to_all_uneven_counts_equal_inputs(ranks):
    # Every rank holds 2*ranks rows; rank i sends rank j c(i, j) rows, c a rotation so that
    # each rank's counts sum to 2*ranks.
    base = [1] * (ranks - 1) + [ranks + 1]
    send = [base[-i:] + base[:-i] if i else list(base) for i in range(ranks)]
    shape = [2 * ranks, 3]
    xs = per_rank(ranks, shape, seed=2)
    programs = [
        program(
            lambda b, x, i=i: b.hcom_all_to_all(
                x,
                0,
                0,
                "ep",
                ranks,
                send_counts=send[i],
                recv_counts=[send[j][i] for j in range(ranks)],
                name="y",
            ),
            shape,
        )
        for i in range(ranks)
    ]
    outs = run(programs, xs, ranks)
    for i in range(ranks):
        pieces = []
        for j in range(ranks):
            start = sum(send[j][:i])
            pieces.append(xs[j][start : start + send[j][i]])
        np.testing.assert_array_equal(outs[i], np.concatenate(pieces))


def test_all_to_all_counts_that_disagree_are_an_error():
    shape = [4, 3]
    programs = [
        program(
            lambda b, x: b.hcom_all_to_all(
                x, 0, 0, "ep", 2, send_counts=[1, 3], recv_counts=[1, 3], name="y"
            ),
            shape,
        ),
        program(
            lambda b, x: b.hcom_all_to_all(
                x, 0, 0, "ep", 2, send_counts=[2, 2], recv_counts=[1, 2], name="y"
            ),
            shape,
        ),
    ]
    with pytest.raises(GeError, match="group rank 1 expects 1 from group rank 0, which sends 3"):
        run(programs, per_rank(2, shape), 2)


@pytest.mark.parametrize("ranks", RANKS)
def test_broadcast_copies_the_roots(ranks):
    root = ranks - 1
    shape = [2, 5]
    prog = program(lambda b, x: b.hcom_broadcast(x, root, "g", ranks, name="y"), shape)
    xs = per_rank(ranks, shape, seed=3)
    for out in run([prog] * ranks, xs, ranks):
        np.testing.assert_array_equal(out, xs[root])


@pytest.mark.parametrize("ranks", RANKS)
def test_send_receive_ring_moves_buffers(ranks):
    """Rank r sends to r + 1 and receives from r - 1 (even ranks send first, odd ones
    receive first: a rendezvous)."""
    shape = [2, 4]

    def build(r):
        def f(b, x):
            nxt, prev = (r + 1) % ranks, (r - 1) % ranks
            if r % 2 == 0:
                b.hcom_send(x, nxt, "pp", ranks)
                return b.hcom_receive(shape, "f32", prev, "pp", ranks, name="y")
            y = b.hcom_receive(shape, "f32", prev, "pp", ranks, name="y")
            b.hcom_send(x, nxt, "pp", ranks)
            return y

        return program(f, shape)

    xs = per_rank(ranks, shape, seed=4)
    outs = run([build(r) for r in range(ranks)], xs, ranks)
    for r in range(ranks):
        np.testing.assert_array_equal(outs[r], xs[(r - 1) % ranks])


def test_send_without_receive_is_a_deadlock_naming_the_ranks():
    shape = [2, 4]
    sender = program(lambda b, x: (b.hcom_send(x, 1, "pp", 2), b.relu(x, name="y"))[1], shape)
    idle = program(
        lambda b, x: b.add(b.hcom_receive(shape, "f32", 0, "pp", 2, sr_tag=7), x, name="y"),
        shape,
    )
    with pytest.raises(GeError, match=r"deadlock: the send 0 from rank 0 to rank 1 .*sr_tag 0"):
        run([sender, idle], per_rank(2, shape), 2)


def test_collectives_that_differ_in_root_are_an_error():
    shape = [2, 4]
    programs = [
        program(lambda b, x, r=r: b.hcom_broadcast(x, r, "g", 2, name="y"), shape) for r in (0, 1)
    ]
    with pytest.raises(GeError, match="collective 0 of group 'g' differs between rank 0"):
        run(programs, per_rank(2, shape), 2)


@pytest.mark.parametrize(
    "build",
    [
        lambda b, x: b.hcom_reduce_scatter(x, "sum", "g", 4, name="y"),
        lambda b, x: b.hcom_reduce_scatter(x, "max", "g", 2, name="y"),
        lambda b, x: b.hcom_all_to_all(x, 0, 1, "g", 4, name="y"),
        lambda b, x: b.hcom_all_to_all(
            x, 0, 0, "g", 2, send_counts=[1, 7], recv_counts=[1, 1], name="y"
        ),
        lambda b, x: b.hcom_broadcast(x, 1, "g", 4, name="y"),
        lambda b, x: b.hcom_receive([8, 8], "f32", 0, "g", 2, name="y"),
    ],
)
def test_one_device_equals_the_interpreter(build):
    b = GraphBuilder("main")
    x = b.input("x", [8, 8])
    m = b.build([build(b, x)])
    xs = np.random.default_rng(5).uniform(-1, 1, (8, 8)).astype(np.float32)
    expected = api.reference(m, {"x": xs})
    lowered = m.clone()
    api.compile(lowered, "lower-to-device,plan-memory")
    got = api.simulate(lowered, {"x": xs}).outputs
    assert expected.keys() == got.keys()
    for k, v in expected.items():
        np.testing.assert_allclose(got[k], v, rtol=1e-6)
