"""Choosing dimension gears (`ge_dialect.tune.gears`), against an exhaustive search written
here: on a chain of sizes (one dim, or dims that grow together) `choose` finds the least
expected makespan over every allowed gear set; off a chain its greedy choice is valid and
never worse than padding every call to the top gear; a size that did not compile is never
a gear; calls run at the smallest gear that holds them (TorchAir's pad_to_gear)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from ge_dialect.tune.gears import Workload, choose, expected, gear_of


def cost_of_call(point, gears, cost):
    """The makespan of one call: the gear with the least product that holds it (written
    apart from the module's `gear_of`)."""
    holding = sorted(
        (math.prod(g), g) for g in gears if all(p <= q for p, q in zip(point, g, strict=True))
    )
    return cost[holding[0][1]] if holding else math.inf


def exhaustive(workload: Workload, cost) -> float:
    """The least mean makespan over every set of at most max_gears gears drawn from the
    sizes in `cost` (top or not)."""
    sizes = sorted(cost)
    best = math.inf
    for k in range(1, workload.max_gears + 1):
        for gears in itertools.combinations(sizes, k):
            total = sum(cost_of_call(p, gears, cost) for p in workload.calls)
            best = min(best, total / len(workload.calls))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_one_dim_choice_is_optimal(seed):
    rng = random.Random(seed)
    sizes = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]
    calls = tuple((rng.choice(sizes),) for _ in range(rng.randint(1, 30)))
    workload = Workload((("x", 0),), calls, rng.randint(1, 5))
    base = {p: rng.uniform(1, 3) for p in workload.candidates()}
    # mostly monotone (bigger batches take longer), sometimes not at all
    monotone = seed % 3 != 0
    cost = {p: (p[0] + base[p] if monotone else base[p]) for p in workload.candidates()}
    gears, value = choose(workload, cost)
    assert value == pytest.approx(exhaustive(workload, cost))
    assert value == pytest.approx(expected(workload, gears, cost))
    assert len(gears) <= workload.max_gears
    assert workload.top() in gears
    assert set(gears) <= set(workload.points())


@pytest.mark.parametrize("seed", range(10))
def test_dims_that_grow_together_are_a_chain(seed):
    rng = random.Random(seed)
    sizes = sorted(rng.sample(range(1, 40), 6))
    calls = tuple((s, 2 * s) for s in rng.choices(sizes, k=20))
    workload = Workload((("ids", 0), ("ids", 1)), calls, 3)
    cost = {p: math.prod(p) ** 0.5 + rng.random() for p in workload.candidates()}
    gears, value = choose(workload, cost)
    assert value == pytest.approx(exhaustive(workload, cost))
    assert workload.gear_flags(gears)[::2] == ("--gears", "--gears")


def test_off_a_chain_the_greedy_choice_is_valid_and_beats_padding():
    calls = ((1, 8),) * 5 + ((8, 1),) * 5 + ((2, 2),) * 3
    workload = Workload((("a", 0), ("b", 0)), calls, 3)
    assert workload.top() == (8, 8) and workload.top() not in workload.points()
    cost = {p: float(math.prod(p)) for p in workload.candidates()}
    gears, value = choose(workload, cost)
    assert (8, 8) in gears and len(gears) <= 3
    assert all(gear_of(p, gears) is not None for p in calls)
    assert value == pytest.approx(expected(workload, gears, cost))
    assert value < expected(workload, [(8, 8)], cost)
    assert value >= exhaustive(workload, cost) - 1e-9


def test_a_size_that_did_not_compile_is_no_gear():
    calls = ((1,), (3,), (3,), (4,))
    workload = Workload((("x", 0),), calls, 4)
    cost: dict[tuple[int, ...], float] = {
        (1,): 1.0,
        (4,): 4.0,
    }  # 3 did not compile: its calls pad to 4
    gears, value = choose(workload, cost)
    assert gears == [(1,), (4,)]
    assert value == pytest.approx((1 + 4 * 3) / 4)


def test_calls_run_at_the_smallest_gear_that_holds_them():
    assert gear_of((3,), [(2,), (8,), (4,)]) == (4,)
    assert gear_of((3, 3), [(8, 4), (4, 8), (16, 16)]) == (4, 8)  # equal products: the first
    assert gear_of((9,), [(8,)]) is None
    assert expected(Workload((("x", 0),), ((9,),)), [(8,)], {(8,): 1.0}) == math.inf


def test_one_gear_is_the_top_and_labels_read_as_ge_run_prints():
    workload = Workload((("x", 0),), ((1,), (5,), (7,)), 1)
    assert choose(workload, {(1,): 1.0, (5,): 2.0, (7,): 3.0}) == ([(7,)], 3.0)
    assert workload.label((7,)) == "x:0=7"
    assert workload.gear_flags([(1,), (7,)]) == ("--gears", "x:0=1,7")
