"""End to end on the zoo's ResNet-18 and ResNet-50: compile times, makespans per
optimisation level, the simulator's numerics against onnxruntime, memory against its bounds.

The models are `examples/zoo`'s (PyTorch's exporter, `dynamo=False,
do_constant_folding=False`, opset 17; seeded weights and batch-norm statistics;
1x3x224x224 f32), generated into `build/zoo/` on first use (`zoo_model`: reused while
`models.py` is unchanged; the export is not timed).  Per model it prints, in one process:

- import (`api.load` of the ONNX file), compile (ge-run's default pipeline,
  `canonicalize,cse,fuse,to-nc1hwc0,assign-streams,lower-to-device,plan-memory`) and
  simulate (`api.simulate`: timeline, numbers and memory checker, on a program read once with
  `api.device_program`) times, each the best of `--repeat`;
- the numerics: the simulator's time against onnxruntime's on one thread
  (`intra_op_num_threads = 1`, all graph optimisations), best of `--repeat` each, their
  ratio, and the largest error against onnxruntime (the whole-model tolerance: rtol
  1e-3, k 1e-4);
- per optimisation level, each ending `lower-to-device,plan-memory`: `-O0` (nothing else,
  what `ge-run -O0` runs), `fused` (`canonicalize,cse,fuse`), `fused+layout`
  (`+to-nc1hwc0`) and `fused+layout+auto` (`+assign-streams{mode=auto}`): launches, streams,
  the simulated makespan (us) against its lower bound, the reduction from -O0 (GE's
  tuning literature claims 30-50% from fusion), the planned peak against the stream-aware
  and sequential bounds and against no reuse, the largest error against onnxruntime and the
  memory checker's findings.

numpy's BLAS runs on one thread (`OPENBLAS_NUM_THREADS=1` and friends, set before numpy
loads) and the first line names its kernel, as in `bench/run.py`: to measure the machine
rather than a pinned `OPENBLAS_CORETYPE`, run

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/e2e.py

Nothing here asserts.

    python bench/e2e.py [--models resnet18,resnet50] [--repeat 3]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from ge_dialect import api  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)  # bench/run.py's helpers
sys.path.insert(0, os.path.join(ROOT, "examples", "zoo"))

from make_zoo import zoo_model  # noqa: E402
from run import best, blas_kernel  # noqa: E402

BACKEND = "lower-to-device,plan-memory"
DEFAULT = f"{api.DEFAULT_PIPELINE},{BACKEND}"  # ge-run's default
LEVELS = [
    ("-O0", BACKEND),
    ("fused", f"canonicalize,cse,fuse,{BACKEND}"),
    ("fused+layout", f"canonicalize,cse,fuse,to-nc1hwc0,{BACKEND}"),
    (
        "fused+layout+auto",
        f"canonicalize,cse,fuse,to-nc1hwc0,assign-streams{{mode=auto}},{BACKEND}",
    ),
]
TITLES = {"resnet18": "ResNet-18", "resnet50": "ResNet-50"}


def mib(n: float) -> str:
    return f"{n / 2**20:.2f}"


def compile_time(path: str, pipeline: str, repeat: int) -> float:
    """The best of `repeat` compiles of freshly loaded modules (the load not timed)."""
    times = []
    for _ in range(repeat):
        module = api.load(path)
        gc.collect()
        start = time.perf_counter()
        api.compile(module, pipeline)
        times.append(time.perf_counter() - start)
    return min(times)


def compiled(path: str, pipeline: str):
    module = api.load(path)
    api.compile(module, pipeline)
    return module


def bench_model(name: str, repeat: int) -> None:
    import onnx
    import onnxruntime as ort

    path = zoo_model(name)
    nodes = len(onnx.load(path, load_external_data=False).graph.node)
    t_import = best(lambda: api.load(path), repeat)
    t_compile = compile_time(path, DEFAULT, repeat)
    program = api.device_program(compiled(path, DEFAULT))  # read once, as a runtime does
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    inputs = {"input": x}

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    expected = session.run(None, inputs)[0]
    result = api.simulate(program, inputs)  # warm up (weights read, weight matrices)
    t_sim = best(lambda: api.simulate(program, inputs), repeat)
    t_ort = best(lambda: session.run(None, inputs), repeat)
    error = api.max_error(result.outputs["output"], expected)
    ok = api.within_tolerance(result.outputs["output"], expected, whole_model=True)

    print(
        f"{TITLES.get(name, name)}, 1x3x224x224 f32 ({os.path.relpath(path, ROOT)}): "
        f"{nodes} ONNX nodes -> {len(program.tasks)} tasks (default pipeline)"
    )
    print(
        f"  import {t_import:.2f} s, compile (ge-run's default pipeline) {t_compile:.2f} s, "
        f"simulate (timeline + numbers + race check) {t_sim:.2f} s"
    )
    print(
        f"  numerics: simulator {t_sim * 1e3:.0f} ms, onnxruntime (1 thread) "
        f"{t_ort * 1e3:.0f} ms, ratio {t_sim / t_ort:.2f}x; max |error| {error:.3g} "
        f"(max |ref| {float(np.abs(expected).max()):.3g}, "
        f"{'within' if ok else 'OUTSIDE'} the whole-model tolerance)"
    )
    print(
        f"  {'level':18s} {'launches':>8s} {'streams':>7s} {'makespan us':>11s} "
        f"{'bound us':>9s} {'/bound':>6s} {'vs -O0':>7s}  {'peak MiB':>8s} "
        f"{'/stream bd':>10s} {'/seq bd':>7s} {'no reuse':>8s} {'/no reuse':>9s} "
        f"{'max |err|':>9s} races"
    )
    base = None
    for level, pipeline in LEVELS:
        run = api.simulate(compiled(path, pipeline), inputs)
        r, m = run.report, run.report.memory
        base = base if base is not None else r.makespan
        err = api.max_error(run.outputs["output"], expected)
        print(
            f"  {level:18s} {r.launches:8d} {len(r.streams):7d} {r.makespan:11.1f} "
            f"{r.lower_bound:9.1f} {r.makespan / r.lower_bound:6.3f} "
            f"{(1 - r.makespan / base) * 100:6.1f}%  {mib(m['peak_bytes']):>8s} "
            f"{m['peak_bytes'] / m['stream_bound_bytes']:10.3f} "
            f"{m['peak_bytes'] / m['sequential_bound_bytes']:7.3f} "
            f"{mib(m['no_reuse_bytes']):>8s} {m['peak_bytes'] / m['no_reuse_bytes']:9.3f} "
            f"{err:9.3g} {len(run.findings)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet18,resnet50")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    names = args.models.split(",")
    for name in names:
        zoo_model(name)  # export before anything is timed
    print(blas_kernel())
    for name in names:
        bench_model(name, args.repeat)


if __name__ == "__main__":
    main()
