"""ge-tune: the command line over `ge_dialect.tune.study.tune`, and `--tuned` in ge-run and
ge-opt.  In-process runs on the zoo's inception model, a few trials each, random seed 0."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from dataclasses import dataclass

import optuna
import pytest
from helpers.support import ROOT

from ge_dialect import api
from ge_dialect.tools import ge_run, ge_tune
from ge_dialect.tools.ge_opt import main as ge_opt_main

MODEL = os.path.join(ROOT, "examples", "zoo", "inception.onnx")
FIGURES = r"makespan (?P<makespan>[\d.]+) us, peak [\d.]+ [KM]iB \((?P<peak>\d+) bytes\)"


@dataclass
class Run:
    code: int
    out: str
    err: str


def tune(capsys, *args: str) -> Run:
    code = ge_tune.main([*args])
    out, err = capsys.readouterr()
    return Run(code, out, err)


def one_error_line(r: Run, pattern: str, code: int = 1) -> None:
    assert r.code == code, r
    assert len(r.err.splitlines()) == 1 and "Traceback" not in r.err, r.err
    assert re.search(pattern, r.err), r.err


def completed(storage: str) -> int:
    """The completed trials of every study in `storage`."""
    return sum(
        len(s.get_trials(states=(optuna.trial.TrialState.COMPLETE,)))
        for s in (
            optuna.load_study(study_name=summary.study_name, storage=storage)
            for summary in optuna.get_all_study_summaries(storage)
        )
    )


@pytest.fixture(scope="module")
def tuned(tmp_path_factory) -> tuple[str, str]:
    """A latency study of inception (5 trials): (storage URL, printed output)."""
    path = tmp_path_factory.mktemp("tuned") / "t.db"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = ge_tune.main(
            [MODEL, "--trials", "5", "--seed", "0", "--storage", f"sqlite:///{path}"]
        )
    assert code == 0
    return f"sqlite:///{path}", out.getvalue()


def test_a_run_prints_the_baseline_and_a_best_that_reproduces(tuned):
    storage, out = tuned
    lines = out.splitlines()
    assert re.match(rf"study ge-tune-\w+-latency in {re.escape(storage)} \(5 completed", lines[0])
    base = re.match(rf"baseline \(trial 0, default pipeline\): {FIGURES}$", lines[1])
    best = re.match(rf"best \(trial \d+\): {FIGURES}, speed-up (?P<speedup>[\d.]+)x$", lines[2])
    assert base and best, out
    assert float(best["makespan"]) <= float(base["makespan"])
    speedup = float(base["makespan"]) / float(best["makespan"])
    assert best["speedup"] == f"{speedup:.3f}"
    words = shlex.split(lines[3])
    assert words[:3] == ["ge-run", MODEL, "-p"] and words[4:] == ["--timing-only"], lines[3]
    assert lines[4] == "pruned: 0 trials"
    # the printed pipeline, compiled and simulated on a fresh load, gives the printed figures
    module = api.load(MODEL)
    api.compile(module, words[3])
    report = api.simulate(module, timing_only=True).report
    assert f"{report.makespan:.3f}" == best["makespan"]
    assert str(report.memory["peak_bytes"]) == best["peak"]


def test_ge_run_and_ge_opt_tuned_use_the_stored_best(capsys, tuned):
    storage, out = tuned
    best = re.search(rf"best \(trial \d+\): {FIGURES}", out)
    assert best
    assert ge_run.main([MODEL, "--tuned", storage, "--timing-only"]) == 0
    printed, err = capsys.readouterr()
    makespan = re.search(r"^makespan ([\d.]+) us", printed, re.M)
    assert makespan and makespan[1] == f"{float(best['makespan']):.2f}", printed + err
    pipeline = shlex.split(out.splitlines()[3])[3]
    assert ge_opt_main([MODEL, "--tuned", storage]) == 0
    tuned_ir = capsys.readouterr().out
    assert ge_opt_main([MODEL, "-p", pipeline]) == 0
    assert capsys.readouterr().out == tuned_ir  # the same program as the stored pipeline's
    assert "npu." in tuned_ir  # lowered: the tuned pipeline holds lower-to-device


def test_tuned_errors(capsys, tmp_path, tuned):
    storage, _ = tuned
    other = tmp_path / "relu.mlir"
    other.write_text(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = ge.relu %x : tensor<4xf32>\n  func.return %0 : tensor<4xf32>\n}\n"
    )
    for main, tool in ((ge_run.main, "ge-run"), (ge_opt_main, "ge-opt")):
        code = main([str(other), "--tuned", storage])
        one_error_line(Run(code, *capsys.readouterr()), r"holds no tuned setting for this graph")
        code = main([MODEL, "--tuned", storage, "--fuse"])
        one_error_line(
            Run(code, *capsys.readouterr()), rf"^{tool}: error: --tuned .* cannot go with", 2
        )
        code = main([MODEL, "--tuned", str(tmp_path / "none.db")])
        one_error_line(Run(code, *capsys.readouterr()), r"none.db: error: no such tuning database")


def test_both_prints_a_front_of_non_dominated_points_and_draws_it(capsys, tmp_path):
    png = tmp_path / "front.png"
    storage = f"sqlite:///{tmp_path}/t.db"
    r = tune(capsys, MODEL, "--objective", "both", "--trials", "6", "--seed", "0",
             "--storage", storage, "--pareto", str(png))  # fmt: skip
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("study ge-tune-") and "-both in" in lines[0]
    at = lines.index(next(line for line in lines if line.startswith("Pareto front (")))
    points = []
    for line in lines[at + 1 :]:
        m = re.match(rf"  trial \d+: {FIGURES}: (?P<pipeline>\S.*)$", line)
        if not m:
            break
        points.append((float(m["makespan"]), int(m["peak"]), m["pipeline"]))
    assert points and lines[at].startswith(f"Pareto front ({len(points)} points")
    assert [p[0] for p in points] == sorted(p[0] for p in points)
    assert len({p[2] for p in points}) == len(points)
    for a in points:
        for b in points:
            dominates = a[0] <= b[0] and a[1] <= b[1] and (a[0], a[1]) != (b[0], b[1])
            assert not dominates, (a, b)
    assert png.read_bytes().startswith(b"\x89PNG")


def test_usage_errors_are_one_line(capsys, tmp_path):
    r = tune(capsys, MODEL, "--objective", "speed")
    one_error_line(r, r"^ge-tune: error: argument --objective: invalid choice: 'speed'", 2)
    r = tune(capsys, MODEL, "--objective", "both", "--pareto", str(tmp_path / "front.svg"))
    one_error_line(r, r"^ge-tune: error: --pareto draws a PNG: .* must end in .png$", 2)
    assert not (tmp_path / "front.svg").exists()
    r = tune(capsys, MODEL, "--trials", "0")
    one_error_line(r, r"^ge-tune: error: --trials must be at least 1", 2)


def test_bad_inputs_are_one_line(capsys, tmp_path):
    storage = f"sqlite:///{tmp_path}/t.db"
    r = tune(capsys, str(tmp_path / "missing.onnx"), "--storage", storage)
    one_error_line(r, r"missing.onnx: error: no such file$")
    bad_ir = tmp_path / "bad.mlir"
    bad_ir.write_text("func.func @f() {\n  %0 = bogus\n}\n")
    r = tune(capsys, str(bad_ir), "--storage", storage)
    one_error_line(r, rf"^{re.escape(str(bad_ir))}:2:\d+: error: ")
    bad_onnx = tmp_path / "bad.onnx"
    bad_onnx.write_bytes(b"not a model")
    r = tune(capsys, str(bad_onnx), "--storage", storage)
    one_error_line(r, rf"^{re.escape(str(bad_onnx))}: error: not a valid ONNX model")
    assert not (tmp_path / "t.db").exists()  # nothing was tuned


def test_storage_plugin_and_ray_errors_keep_the_earlier_trials(capsys, tmp_path):
    storage = f"sqlite:///{tmp_path}/t.db"
    assert tune(capsys, MODEL, "--trials", "4", "--seed", "0", "--storage", storage).code == 0
    assert completed(storage) == 4
    r = tune(capsys, MODEL, "--trials", "4", "--storage", f"sqlite:///{tmp_path}/no/dir/t.db")
    one_error_line(r, r"error: cannot open storage 'sqlite:///.*no/dir/t.db'")
    plugin = tmp_path / "space.py"
    plugin.write_text("raise RuntimeError('broken space')\n")
    r = tune(capsys, MODEL, "--trials", "4", "--storage", storage, "--space-plugin", str(plugin))
    one_error_line(r, r"space.py: error: .*broken space")
    r = tune(capsys, MODEL, "--storage", storage, "--space-plugin", str(tmp_path / "none.py"))
    one_error_line(r, r"none.py: error: no such search-space plugin file$")
    assert completed(storage) == 4


def test_an_unreachable_ray_address_is_one_line(capsys, tmp_path):
    pytest.importorskip("ge_dialect.tune.ray_executor")
    storage = f"sqlite:///{tmp_path}/t.db"
    assert tune(capsys, MODEL, "--trials", "4", "--seed", "0", "--storage", storage).code == 0
    r = tune(capsys, MODEL, "--trials", "4", "--storage", storage, "--ray", "127.0.0.1:1")
    one_error_line(r, r"error: .*127\.0\.0\.1:1")
    assert completed(storage) == 4


def test_api_tune_takes_a_path_or_a_module(tmp_path):
    storage = f"sqlite:///{tmp_path}/t.db"
    by_path = api.tune(MODEL, trials=2, storage=storage, seed=0)
    by_module = api.tune(api.load(MODEL), trials=2, storage=storage, seed=0)
    assert by_path.study == by_module.study  # the same graph: one study, continued
    assert by_module.trials == 4 and by_module.baseline.number == 0


MATMUL = """func.func @f(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<4x16xf32> {
  %0 = ge.matmul %x, %w : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %1 = ge.relu %0 : tensor<4x16xf32>
  func.return %1 : tensor<4x16xf32>
}
"""


def test_ranks_print_a_ge_run_command_with_ranks_and_pruned_reasons(capsys, tmp_path):
    path = tmp_path / "mm.mlir"
    path.write_text(MATMUL)
    storage = f"sqlite:///{tmp_path}/t.db"
    r = tune(capsys, str(path), "--ranks", "2", "--trials", "6", "--seed", "0",
             "--storage", storage)  # fmt: skip
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    best = re.match(rf"best \(trial \d+\): {FIGURES}", lines[2])
    words = shlex.split(lines[3])
    assert best and words[-3:] == ["--timing-only", "--ranks", "2"], r.out
    assert words[3].startswith("shard{ranks=2")  # ge-run adds no shard of its own
    # the pruned trials, counted by reason
    pruned = re.match(r"pruned: (\d+) trials$", lines[4])
    counts = [re.match(r"  (\d+) x \S", line) for line in lines[5:]]
    assert pruned and all(counts) and sum(int(m[1]) for m in counts if m) == int(pruned[1])
    # the printed command reproduces the printed makespan
    assert ge_run.main(words[1:]) == 0
    out = capsys.readouterr().out
    makespan = re.search(r"^makespan ([\d.]+) us", out, re.M)
    assert makespan and makespan[1] == f"{float(best['makespan']):.2f}", out


def test_the_shim_runs_only_as_the_main_script(capsys):
    """--workers spawns processes, which import the main script as `__mp_main__`: the shim
    must not run ge-tune again there."""
    import runpy

    namespace = runpy.run_path(os.path.join(ROOT, "ge-tune"), run_name="__mp_main__")
    assert namespace["main"] is ge_tune.main
    assert capsys.readouterr() == ("", "")
    assert os.access(os.path.join(ROOT, "ge-tune"), os.X_OK)


def test_dim_sizes_choose_gears_and_print_a_command_that_runs_them(capsys, tmp_path):
    from helpers.onnx_ref import dynamic_batch_mlp

    model = dynamic_batch_mlp(str(tmp_path / "mlp.onnx"))
    storage = f"sqlite:///{tmp_path}/t.db"
    r = tune(capsys, model, "--input-shape", "x=?x64", "--dim-sizes", "x:0=1,1,2,4,4,4,16,30",
             "--max-gears", "2", "--trials", "3", "--storage", storage)  # fmt: skip
    assert (r.code, r.err) == (0, ""), r
    lines = r.out.splitlines()
    assert re.match(rf"best \(trial \d+\): expected {FIGURES}, speed-up", lines[2]), r.out
    assert re.fullmatch(
        r"  gears \(2 of at most 2, over 8 calls of 5 sizes\); every call at the top gear: "
        r"[\d.]+ us",
        lines[3],
    ), r.out
    gears = [re.fullmatch(rf"    gear x:0=(\d+): {FIGURES}", line) for line in lines[4:6]]
    assert all(gears) and gears[-1][1] == "30", r.out  # type: ignore[index]
    command = shlex.split(lines[6])
    assert command[:2] == ["ge-run", model] and "--input-shape" in command
    assert command[-2:] == ["--gears", f"x:0={gears[0][1]},30"]  # type: ignore[index]
    assert ge_run.main(command[1:]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines()] == ["gear x", "gear x"]
    for printed, line in zip(gears, out.splitlines(), strict=True):
        assert f"makespan {float(printed['makespan']):.2f} us" in line  # type: ignore[index]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--dim-sizes", "x:0=1,2"], "--dim-sizes x:0=1,2: no --input-shape gives input 'x' (with a '?' dim)"),
        (["--input-shape", "x=?x64"],
         "--input-shape x: dim 0 is '?': give its sizes with --dim-sizes x:0=N,N,..."),  # fmt: skip
        (["--input-shape", "x=?x64", "--dim-sizes", "x:1=1,2"],
         "--dim-sizes x:1=1,2: dim 1 of --input-shape x is 64, not '?'"),  # fmt: skip
        (["--input-shape", "x=?x64", "--dim-sizes", "x:0=1,a"],
         "--dim-sizes expects NAME:DIM=SIZES (positive integers) such as x:0=1,4,8, got "
         "'x:0=1,a'"),  # fmt: skip
        (["--input-shape", "x=?x?", "--dim-sizes", "x:0=1,2", "--dim-sizes", "x:1=1"],
         "--dim-sizes lists go together (the n-th call takes the n-th size of each): they "
         "must have one length, got 2 (x:0=1,2), 1 (x:1=1)"),  # fmt: skip
        (["--input-shape", "x=?x64", "--dim-sizes", "x:0=1,2", "--dim-sizes", "x:0=3,4"],
         "--dim-sizes x:0=3,4: dim 0 of 'x' has sizes already"),  # fmt: skip
        (["--max-gears", "0"], "--max-gears must be in [1, 100], got 0"),
        (["--max-gears", "101"], "--max-gears must be in [1, 100], got 101"),
        (["--pareto", "f.png"], "--pareto draws the front of --objective both"),
    ],
)
def test_gear_flags_usage_errors(capsys, tmp_path, flags, message):
    from helpers.onnx_ref import dynamic_batch_mlp

    model = dynamic_batch_mlp(str(tmp_path / "mlp.onnx"))
    r = tune(capsys, model, "--storage", f"sqlite:///{tmp_path}/t.db", *flags)
    one_error_line(r, f"^ge-tune: error: {re.escape(message)}$", 2)
    assert not (tmp_path / "t.db").exists()


def test_dim_sizes_apply_to_onnx_only(capsys, tmp_path):
    mlir = os.path.join(ROOT, "examples", "resnet_block.mlir")
    r = tune(capsys, mlir, "--input-shape", "x=?x4", "--dim-sizes", "x:0=1,2")
    one_error_line(r, r"--input-shape and --dim-sizes apply to ONNX input \(.onnx files\) only$", 2)
