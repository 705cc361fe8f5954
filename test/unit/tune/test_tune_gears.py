"""ge-tune with dimension gears: an ONNX model whose batch is dynamic, tuned over a trace of
call sizes.  Every trial chooses its own gears (at most max_gears, among the calls' sizes,
the largest always one); the best's expected makespan is the calls' mean over the gears'
makespans, which `measure` and ge-run `--gears` reproduce exactly, gear by gear; sizes a
setting cannot compile (an odd batch on 2 data-parallel ranks) are never its gears; the
geared graph survives the trip to worker processes and Ray tasks; `ge-run --tuned` finds
the study from any one gear of the model."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from helpers.onnx_ref import dynamic_batch_mlp

from ge_dialect import api
from ge_dialect.tune import ray_executor, space
from ge_dialect.tune.evaluate import Geared, graph_fingerprint, land, measure, ship
from ge_dialect.tune.gears import Workload
from ge_dialect.tune.study import _evaluate, context_of, tune

CALLS = (1, 1, 1, 2, 3, 3, 5, 8, 8, 8, 13, 16, 24, 32, 32, 64)


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> str:
    return dynamic_batch_mlp(str(tmp_path_factory.mktemp("gears") / "mlp.onnx"))


def geared(model: str, calls=CALLS, max_gears: int = 3) -> Geared:
    workload = Workload((("x", 0),), tuple((c,) for c in calls), max_gears)
    return Geared(
        workload,
        {p: api.load(model, input_shapes={"x": [p[0], 64]}) for p in workload.candidates()},
    )


def test_the_best_gears_reproduce_gear_by_gear(model, tmp_path, capsys):
    from ge_dialect.tools.ge_run import main as ge_run

    result = tune(geared(model), trials=6, storage=f"sqlite:///{tmp_path}/t.db", seed=0)
    [best] = result.best
    gears = [g for g, _, _ in best.figures.gears]
    assert 1 <= len(gears) <= 3 and (64,) in gears and set(gears) <= {(c,) for c in CALLS}
    for g, makespan, peak in best.figures.gears:
        alone = measure(api.load(model, input_shapes={"x": [g[0], 64]}), best.pipeline)
        assert (alone.makespan_us, alone.peak_bytes) == (makespan, peak)
    by_gear = {g: us for g, us, _ in best.figures.gears}
    mean = sum(by_gear[min(g for g in gears if g[0] >= c)] for c in CALLS) / len(CALLS)
    assert best.figures.makespan_us == pytest.approx(mean)
    assert best.figures.peak_bytes == max(peak for _, _, peak in best.figures.gears)
    assert best.figures.padded_us is not None
    assert best.figures.makespan_us < best.figures.padded_us  # gears beat one graph at 64
    assert best.flags[-2:] == ("--gears", "x:0=" + ",".join(str(g[0]) for g in gears))
    # ge-run runs the printed flags, one line per gear, with the same makespans
    code = ge_run(
        [model, "-p", best.pipeline, "--timing-only", "--input-shape", "x=?x64", *best.flags]
    )
    out = capsys.readouterr().out
    assert code == 0
    printed = re.findall(r"gear x:0=(\d+): makespan ([\d.]+) us", out)
    assert [(int(n), float(us)) for n, us in printed] == [
        (g[0], round(by_gear[g], 2)) for g in gears
    ]
    # --tuned finds the geared study from the model at one of its gears
    code = ge_run(
        [model, "--input-shape", "x=?x64", "--gears", "x:0=2,8", "--tuned", f"{tmp_path}/t.db"]
    )
    out = capsys.readouterr().out
    assert code == 0 and Counter(line.split(":")[0] for line in out.splitlines()) == {"gear x": 2}
    # without --gears, --tuned runs the stored gears
    code = ge_run([model, "--input-shape", "x=?x64", "--tuned", f"{tmp_path}/t.db"])
    out = capsys.readouterr().out
    assert code == 0
    assert [int(n) for n in re.findall(r"^gear x:0=(\d+):", out, re.M)] == [g[0] for g in gears]
    # a storage with only the static graph's study: one error line
    static = api.load(model, input_shapes={"x": [4, 64]})
    assert tune(static, trials=1, storage=f"sqlite:///{tmp_path}/o.db").trials == 1
    code = ge_run([model, "--input-shape", "x=?x64", "--tuned", f"{tmp_path}/o.db"])
    err = capsys.readouterr().err
    assert code == 1 and err.endswith(
        "holds no tuned gears for this model's '?' dims (give --gears)\n"
    )
    code = ge_run([model, "--input-shape", "x=?x64", "--tuned", f"{tmp_path}/none.db"])
    err = capsys.readouterr().err
    assert code == 1 and err.strip().endswith("no such tuning database")


def test_sizes_a_setting_cannot_compile_are_never_its_gears(model, tmp_path):
    """On 2 data-parallel ranks an odd batch does not split: its calls pad to an even gear."""
    graph = geared(model, calls=(1, 3, 3, 6, 8), max_gears=4)
    result = tune(graph, trials=2, ranks=2, storage=f"sqlite:///{tmp_path}/r.db", seed=0)
    gears = [g for g, _, _ in result.baseline.figures.gears]
    assert gears == [(6,), (8,)]
    odd = [key for key, outcome in graph.memo.items() if key[-1] in ((1,), (3,))]
    assert odd and all(isinstance(graph.memo[key], str) for key in odd)


def test_one_gear_is_every_call_padded_to_the_top(model, tmp_path):
    result = tune(geared(model, max_gears=1), trials=1, storage=f"sqlite:///{tmp_path}/1.db")
    figures = result.baseline.figures
    assert [g for g, _, _ in figures.gears] == [(64,)]
    assert figures.makespan_us == figures.padded_us == figures.gears[0][1]


def test_the_geared_graph_ships_to_workers(model, tmp_path):
    graph = geared(model, calls=(2, 4, 4, 16))
    context = context_of(graph.module, 1)
    setting = space.default_setting(context)
    landed = land(ship(graph))
    assert isinstance(landed, Geared) and landed.workload == graph.workload
    assert ray_executor._trial(ship(graph), setting, context, None) == _evaluate(
        graph, setting, context, None
    )
    result = tune(graph, trials=4, workers=2, storage=f"sqlite:///{tmp_path}/w.db", seed=0)
    assert result.trials == 4 and all(p.figures.gears for p in [result.baseline, *result.best])


def test_a_geared_study_is_not_the_static_graphs(model):
    graph = geared(model)
    fp = graph_fingerprint(graph)
    static = graph_fingerprint(graph.module)
    assert fp["key"] != static["key"] and static["key"] in fp["gear_keys"]
    other = geared(model, calls=CALLS[:-1])
    assert graph_fingerprint(other)["key"] != fp["key"]


def test_api_tune_takes_dim_sizes(model, tmp_path):
    result = api.tune(
        model,
        input_shapes={"x": [None, 64]},
        dim_sizes={("x", 0): [1, 2, 2, 4]},
        max_gears=2,
        trials=1,
        storage=f"sqlite:///{tmp_path}/api.db",
    )
    assert [g for g, _, _ in result.baseline.figures.gears] in ([(2,), (4,)], [(1,), (4,)])
    with pytest.raises(ValueError, match=r"the None dims of input_shapes are \[\('x', 0\)\]"):
        api.tune(model, input_shapes={"x": [None, 64]}, dim_sizes={("x", 1): [1, 2]})
    with pytest.raises(ValueError, match="all of one length"):
        api.tune(model, input_shapes={"x": [None, None]}, dim_sizes={("x", 0): [1], ("x", 1): []})
