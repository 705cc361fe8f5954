"""`overlap{chunks=k}`: row pieces of the row-parallel matmul, each with its own all-reduce.

- On a 2- and 4-rank tensor-parallel MLP the simulated outputs are bit-identical with and
  without the pass (race checker on and clean), and equal the reference interpreter's.
- On a realistic block (2048 tokens, d 1024, fp16) on 2 and 8 ranks, the simulated step
  (timing only) with `overlap{chunks=4}` is shorter than without.
- Uneven pieces, the statistics, the option's range.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.support import assert_close

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.dialects import ge
from ge_dialect.utils.errors import OptionError
from transforms.overlap import OverlapPass, row_pieces

TAIL = "assign-streams{mode=auto},lower-to-device,plan-memory"


def mlp(batch=8, d=32, hidden=64, exact=False):
    """x -> matmul(W1) + b1 -> relu -> matmul(W2) + b2 (f32).  `exact`: small integers
    everywhere, so that every sum is exact in fp32 whatever its order or blocking."""
    rng = np.random.default_rng(0)

    def draw(shape, scale):
        if exact:
            return rng.integers(-3, 4, shape).astype(np.float32)
        return rng.normal(0, scale, shape).astype(np.float32)

    b = GraphBuilder("main")
    x = b.input("x", [batch, d], dtype=np.float32)
    w1 = b.const(draw((d, hidden), 1 / math.sqrt(d)))
    b1 = b.const(draw(hidden, 0.5))
    w2 = b.const(draw((hidden, d), 1 / math.sqrt(hidden)))
    b2 = b.const(draw(d, 0.5))
    h = b.relu(b.matmul(x, w1, bias=b1))
    y = b.matmul(h, w2, bias=b2, name="y")
    return b.build([y]), {
        "x": draw((batch, d), 1.0) if exact else rng.uniform(-1, 1, (batch, d)).astype(np.float32)
    }


def compiled(module, ranks, extra=""):
    m = module.clone()
    api.compile(m, f"shard{{ranks={ranks} mode=tensor}},{extra}{TAIL}")
    return m


def count(module, cls) -> int:
    return sum(isinstance(op, cls) for op in module.walk())


def test_row_pieces():
    assert row_pieces(8, 4) == [(0, 2), (2, 4), (4, 6), (6, 8)]
    assert row_pieces(7, 3) == [(0, 3), (3, 5), (5, 7)]
    assert row_pieces(2, 4) == [(0, 1), (1, 2)]


def test_chunks_must_be_at_least_two():
    with pytest.raises(OptionError, match="chunks must be at least 2, got 1"):
        OverlapPass(chunks=1)


@pytest.mark.parametrize("ranks", [2, 4])
@pytest.mark.parametrize("chunks", [2, 4])
def test_numbers_bit_identical(ranks, chunks):
    """Bit-identical outputs on every rank.  The values are small integers: a row of a
    matmul is the same sum in exact arithmetic, but the simulator's fp32 GEMM is numpy's
    BLAS, whose blocking (and so rounding) depends on the row count; exact sums keep
    this test about the pass (the right rows, pieces and order), not about BLAS."""
    module, inputs = mlp(batch=16, exact=True)
    before = api.simulate_ranks(compiled(module, ranks), inputs)
    split = module.clone()
    api.compile(split, f"shard{{ranks={ranks} mode=tensor}},overlap{{chunks={chunks}}}")
    assert count(split, ge.HcomAllReduceOp) == ranks * chunks
    assert count(split, ge.ConcatOp) == ranks
    after = api.simulate_ranks(compiled(module, ranks, f"overlap{{chunks={chunks}}},"), inputs)
    assert not before.findings and not after.findings
    for one, two in zip(before.ranks, after.ranks, strict=True):
        assert np.array_equal(one.outputs["y"], two.outputs["y"])
    assert np.array_equal(after.outputs["y"], api.reference(module, inputs)["y"])


@pytest.mark.parametrize(("ranks", "hidden"), [(2, 4096), (8, 32768)])
def test_overlap_shortens_a_realistic_step(ranks, hidden):
    """2048 tokens, d 1024, fp16 (timing only).  Each piece pays its all-reduce's latency
    again (a ring over 8 ranks: 2 x 7 steps of 2 us), and on 8 ranks a 4x MLP's compute
    per rank is a seventh of its all-reduce: there the pieces only pay when the hidden
    size per rank (4096 here) makes compute comparable to communication."""
    b = GraphBuilder("main")
    tokens, d = 2048, 1024
    x = b.input("x", [tokens, d], dtype=np.float16)
    w1 = b.const(np.zeros((d, hidden), np.float16))
    w2 = b.const(np.zeros((hidden, d), np.float16))
    y = b.matmul(b.relu(b.matmul(x, w1)), w2, name="y")
    module = b.build([y])
    times = []
    for extra in ("", "overlap{chunks=4},"):
        m = compiled(module, ranks, extra)
        times.append(api.simulate_ranks(m, timing_only=True).report.makespan)
    assert times[1] < times[0], times


def test_uneven_pieces():
    """8 rows in 3 pieces (3, 3, 2): the right shapes, outputs close to the reference."""
    module, inputs = mlp()
    split = module.clone()
    api.compile(split, "shard{ranks=2 mode=tensor},overlap{chunks=3}")
    rows = [op.output.type.get_shape()[0] for op in split.walk() if isinstance(op, ge.SliceOp)]
    assert rows == [3, 3, 2] * 2
    after = api.simulate_ranks(compiled(module, 2, "overlap{chunks=3},"), inputs)
    assert not after.findings
    assert_close(after.outputs["y"], api.reference(module, inputs)["y"], np.dtype(np.float32))
