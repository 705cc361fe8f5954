"""The simulator's numerics against onnxruntime on a ResNet-18-shaped ONNX model.

Builds ResNet-18 (1x3x224x224, batch 1: a 7x7/2 stem, max pool, four stages of two basic
blocks, 64 to 512 channels, global average pool, Gemm to 1000 classes) with `onnx.helper`,
seeded weights and non-trivial batch-norm statistics, compiles it with ge-run's default
pipeline (`canonicalize, cse, fuse, to-nc1hwc0, assign-streams, lower-to-device`) and
prints, in one process:

- the numerics time of `api.simulate` (kernels on the stored NC1HWC0/FRACTAL_Z arrays) and
  of onnxruntime on one thread (`intra_op_num_threads = 1`, all graph optimisations), each
  the best of `--repeat` runs, and their ratio (the issue's target: at most 2.5x);
- where the simulator's time goes: the kernels, by kind, and the Python overhead per
  launch (the time outside the kernels divided by the number of tasks);
- the largest error against onnxruntime (the whole-model tolerance: rtol 1e-3,
  k 1e-4).

numpy's BLAS is limited to one thread too (`OPENBLAS_NUM_THREADS=1` and friends, set before
numpy loads), so that the ratio compares one core with one core.  The first line printed
names the kernel OpenBLAS runs (threadpoolctl): an environment that pins
`OPENBLAS_CORETYPE` (some machines do, for old OpenBLAS builds) slows numpy's GEMM, e.g.
Haswell's AVX2 kernels on an AVX-512 CPU run at about half the speed of its own
(110 against 210 GFLOP/s for the 3x3 convs here), while onnxruntime picks its kernels
itself.  To measure the machine, unset both pins for this command alone:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/run.py

    python bench/run.py [--repeat 5] [--dtype f32|f16]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
from collections import Counter, defaultdict  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect.sim import executor  # noqa: E402


def resnet18(seed: int = 0) -> onnx.ModelProto:
    """ResNet-18 for 1x3x224x224 inputs, as torchvision builds it, in ONNX ops."""
    rng = np.random.default_rng(seed)
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    count = Counter[str]()

    def name(kind: str) -> str:
        count[kind] += 1
        return f"{kind}{count[kind]}"

    def init(array: np.ndarray, kind: str) -> str:
        n = name(kind)
        inits.append(numpy_helper.from_array(array.astype(np.float32), n))
        return n

    def conv_bn(x: str, cin: int, cout: int, k: int, stride: int, relu: bool) -> str:
        w = init(rng.normal(0, (2.0 / (cin * k * k)) ** 0.5, (cout, cin, k, k)), "w")
        params = [
            init(rng.uniform(0.5, 1.5, cout), "scale"),
            init(rng.uniform(-0.2, 0.2, cout), "bias"),
            init(rng.uniform(-0.2, 0.2, cout), "mean"),
            init(rng.uniform(0.5, 2.0, cout), "var"),
        ]
        c, y = name("conv"), name("bn")
        pad = k // 2
        nodes.append(helper.make_node("Conv", [x, w], [c], kernel_shape=[k, k],
                                      strides=[stride, stride], pads=[pad] * 4))
        nodes.append(helper.make_node("BatchNormalization", [c, *params], [y]))
        if not relu:
            return y
        r = name("relu")
        nodes.append(helper.make_node("Relu", [y], [r]))
        return r

    def block(x: str, cin: int, cout: int, stride: int) -> str:
        y = conv_bn(x, cin, cout, 3, stride, True)
        y = conv_bn(y, cout, cout, 3, 1, False)
        shortcut = x if stride == 1 and cin == cout else conv_bn(x, cin, cout, 1, stride, False)
        s, r = name("add"), name("relu")
        nodes.append(helper.make_node("Add", [y, shortcut], [s]))
        nodes.append(helper.make_node("Relu", [s], [r]))
        return r

    x = conv_bn("input", 3, 64, 7, 2, True)
    p = name("pool")
    nodes.append(helper.make_node("MaxPool", [x], [p], kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]))
    x, cin = p, 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        x = block(x, cin, cout, stride)
        x = block(x, cout, cout, 1)
        cin = cout
    g, f = name("gap"), name("flat")
    nodes.append(helper.make_node("GlobalAveragePool", [x], [g]))
    nodes.append(helper.make_node("Flatten", [g], [f]))
    fc_w = init(rng.normal(0, (1.0 / 512) ** 0.5, (1000, 512)), "fc_w")
    fc_b = init(rng.uniform(-0.1, 0.1, 1000), "fc_b")
    nodes.append(helper.make_node("Gemm", [f, fc_w, fc_b], ["logits"], transB=1))
    graph = helper.make_graph(
        nodes,
        "resnet18",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def blas_kernel() -> str:
    """Which BLAS numpy runs, with its kernel architecture and threads (threadpoolctl)."""
    pinned = os.environ.get("OPENBLAS_CORETYPE")
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return f"BLAS: threadpoolctl not installed (OPENBLAS_CORETYPE={pinned})"
    for info in threadpool_info():
        if info.get("user_api") == "blas":
            return (
                f"BLAS: {info.get('internal_api')} {info.get('version')}, kernel "
                f"{info.get('architecture')}, {info.get('num_threads')} thread(s)"
                + (f" (OPENBLAS_CORETYPE={pinned} pinned by the environment)" if pinned else "")
            )
    return "BLAS: none found"


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import onnxruntime as ort

    model = resnet18()
    start = time.perf_counter()
    module = api.load(model)
    t_import = time.perf_counter() - start
    start = time.perf_counter()
    api.compile(module, api.DEFAULT_PIPELINE + ",lower-to-device")
    t_compile = time.perf_counter() - start
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    inputs = {"input": x}

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, inputs)[0]

    program = api.device_program(module)  # read once, as a runtime loads a model once
    result = api.simulate(program, inputs)  # warm up (weights read, weight matrices)
    t_sim = best(lambda: api.simulate(program, inputs), args.repeat)
    t_ort = best(lambda: session.run(None, inputs), args.repeat)

    # where the simulator's time goes: each kernel timed through a wrapper
    kernel_time: defaultdict[str, float] = defaultdict(float)  # seconds: not a Counter's int
    kernel_count: Counter[str] = Counter()
    run_kernel = executor.run_kernel

    def timed(kernel, *rest):
        start = time.perf_counter()
        out = run_kernel(kernel, *rest)
        kernel_time[kernel] += time.perf_counter() - start
        kernel_count[kernel] += 1
        return out

    executor.run_kernel = timed
    try:
        start = time.perf_counter()
        api.simulate(program, inputs)
        t_profiled = time.perf_counter() - start
    finally:
        executor.run_kernel = run_kernel
    tasks = len(result.program.tasks)
    in_kernels = sum(kernel_time.values())

    error = api.max_error(result.outputs["logits"], expected)
    ok = api.within_tolerance(result.outputs["logits"], expected, whole_model=True)
    print(blas_kernel())
    print(f"ResNet-18, 1x3x224x224 f32: {len(model.graph.node)} ONNX nodes -> {tasks} tasks "
          f"({sum(kernel_count.values())} launches)")
    print(f"  import {t_import:.2f} s, compile (default pipeline + lower-to-device) "
          f"{t_compile:.2f} s")
    print(f"  numerics: simulator {t_sim * 1e3:.1f} ms, onnxruntime (1 thread) "
          f"{t_ort * 1e3:.1f} ms, ratio {t_sim / t_ort:.2f}x (target <= 2.5x)")
    print(f"  in kernels {in_kernels * 1e3:.1f} ms of {t_profiled * 1e3:.1f} ms; Python overhead "
          f"{(t_profiled - in_kernels) / tasks * 1e6:.0f} us per task")
    for kernel, seconds in sorted(kernel_time.items(), key=lambda item: item[1], reverse=True):
        print(f"    {kernel:16s} {kernel_count[kernel]:4d} launches {seconds * 1e3:8.1f} ms")
    print(f"  max |error| against onnxruntime {error:.3g} "
          f"({'within' if ok else 'OUTSIDE'} the whole-model tolerance)")


if __name__ == "__main__":
    main()
