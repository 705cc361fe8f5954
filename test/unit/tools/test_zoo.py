"""The model zoo end to end: every zoo model (`examples/zoo`) through ge-run's default
pipeline and through `assign-streams{mode=auto}`, simulated, against onnxruntime.

Per model and pipeline: the outputs equal onnxruntime's within the whole-model
tolerance (fp32: rtol 1e-3, k 1e-4), the race checker finds nothing, the makespan is not
below its lower bound, and the planned peak lies between its bounds (the sequential bound
<= the stream-aware bound <= peak <= no reuse).  ResNet-18, ResNet-50 and MobileNetV2 are
generated into `build/zoo/` by PyTorch's exporter (cached: a file whose definition hash
matches is reused) and marked `slow`; they run in CI all the same (`pytest -q` selects
every marker).  Inception and the encoder block are bundled.
"""

from __future__ import annotations

import functools
import json
import os
import sys

import numpy as np
import onnx
import pytest
from helpers.support import ROOT, assert_close
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from ge_dialect import api
from ge_dialect.tools.ge_run import main as ge_run

sys.path.insert(0, os.path.join(ROOT, "examples", "zoo"))
import make_zoo  # noqa: E402

AUTO = "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto}"
PIPELINES = {
    "default": f"{api.DEFAULT_PIPELINE},lower-to-device,plan-memory",  # ge-run's default
    "auto": f"{AUTO},lower-to-device,plan-memory",
}
LARGE = ("resnet18", "resnet50", "mobilenet_v2")
MODELS = [
    pytest.param(name, marks=pytest.mark.slow) if name in LARGE else name for name in make_zoo.NAMES
]
SLACK = 1e-9
"""Relative slack for makespan >= lower bound: both sum the same kernel times in another
order (a single chain's makespan equals its bound up to rounding, e.g. 633.690956190476
against 633.6909561904761 on MobileNetV2)."""


@functools.cache
def model_path(name: str) -> str:
    """The zoo model's file; exporting a stale or missing one needs torch (skipped without
    it, except in CI, where its absence is a failure)."""
    try:
        return make_zoo.zoo_model(name)
    except ModuleNotFoundError as e:
        if e.name != "torch" or os.environ.get("CI"):
            raise
        pytest.skip("exporting the zoo needs torch (the torch extra; a CPU build: see README)")


@functools.cache
def reference(name: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Seeded inputs ~ U(-1, 1) and onnxruntime's outputs on them (one thread)."""
    path = model_path(name)
    graph = onnx.load(path, load_external_data=False).graph
    rng = np.random.default_rng(0)
    inputs = {}
    for i in graph.input:
        shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
        inputs[i.name] = rng.uniform(-1, 1, shape).astype(np.float32)
    return inputs, api.onnxruntime_outputs(path, inputs)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", MODELS)
def test_zoo_model_matches_onnxruntime(name, pipeline):
    inputs, expected = reference(name)
    module = api.load(model_path(name))
    api.compile(module, PIPELINES[pipeline], name=name)
    result = api.simulate(module, inputs)

    assert result.outputs.keys() == expected.keys()
    for output, value in expected.items():
        assert_close(result.outputs[output], value, np.float32, whole_model=True)
    assert result.findings == []
    report = result.report
    assert report.lower_bound > 0
    assert report.makespan >= report.lower_bound * (1 - SLACK), (
        f"makespan {report.makespan} below its lower bound {report.lower_bound}"
    )
    memory = report.memory
    assert memory["planned"]
    assert (
        0
        < memory["sequential_bound_bytes"]
        <= memory["stream_bound_bytes"]
        <= memory["peak_bytes"]
        <= memory["no_reuse_bytes"]
    ), memory


@pytest.mark.parametrize("flags", [[], ["-p", AUTO]], ids=["default", "auto"])
def test_ge_run_checks_the_encoder_against_onnxruntime(capsys, flags):
    """The command line a user types: `ge-run --check --report json model.onnx`."""
    code = ge_run([*flags, "--check", "--report", "json", model_path("encoder")])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)
    checks = {c["against"]: c for c in document["checks"]}
    assert checks["onnxruntime"]["within_tolerance"]
    assert checks["reference interpreter"]["within_tolerance"]
    assert document["findings"] == []
    assert document["makespan_us"] >= document["lower_bound_us"] * (1 - SLACK)
    memory = document["memory"]
    assert memory["stream_bound_bytes"] <= memory["peak_bytes"] <= memory["no_reuse_bytes"]


# ---- what the zoo holds -------------------------------------------------------------------


def ops(name: str) -> list[onnx.NodeProto]:
    return list(onnx.load(model_path(name)).graph.node)


def attribute(node: onnx.NodeProto, key: str, default=None):
    for a in node.attribute:
        if a.name == key:
            return onnx.helper.get_attribute_value(a)
    return default


def channels(value: SSAValue) -> int:
    """The channel count (dimension 1) of a tensor value."""
    assert isinstance(value.type, TensorType)
    return value.type.get_shape()[1]


def initializers(name: str) -> dict[str, np.ndarray]:
    model = onnx.load(model_path(name))
    return {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}


@pytest.mark.parametrize(
    "name", ["inception", pytest.param("mobilenet_v2", marks=pytest.mark.slow)]
)
def test_batch_norm_survives_export_with_non_trivial_statistics(name):
    """`do_constant_folding=False` keeps BatchNormalization nodes (fuse sees them), and
    their running statistics are seeded, not 0 and 1."""
    nodes = ops(name)
    weights = initializers(name)
    norms = [n for n in nodes if n.op_type == "BatchNormalization"]
    assert norms
    for node in norms:
        mean, var = weights[node.input[3]], weights[node.input[4]]
        assert np.abs(mean).max() > 0.01 and np.abs(var - 1).max() > 0.01


def test_inception_has_unaligned_branches_and_ceil_mode_pools():
    nodes = ops("inception")
    pools = [n for n in nodes if n.op_type == "MaxPool"]
    assert sum(attribute(n, "ceil_mode", 0) for n in pools) == len(pools) == 4
    module = api.load(model_path("inception"))
    concats = [op for op in module.walk() if op.name == "ge.concat"]
    assert len(concats) == 2
    for op in concats:
        inputs = [channels(o) for o in op.operands]
        assert len(inputs) == 4 and any(c % 16 for c in inputs), inputs
        assert channels(op.results[0]) % 16, "the concat itself is unaligned"


def test_encoder_has_parallel_attention_heads():
    nodes = ops("encoder")
    kinds = [n.op_type for n in nodes]
    assert kinds.count("Softmax") == 4
    assert "LayerNormalization" not in kinds
    concat = next(n for n in nodes if n.op_type == "Concat")
    assert len(concat.input) == 4  # the heads, side by side


@pytest.mark.slow
def test_mobilenet_v2_has_depthwise_convs_and_relu6():
    nodes = ops("mobilenet_v2")
    groups = [attribute(n, "group", 1) for n in nodes if n.op_type == "Conv"]
    assert sum(g > 1 for g in groups) == 17  # one depthwise conv per inverted residual
    assert sum(n.op_type == "Clip" for n in nodes) == 35  # ReLU6
    assert sum(n.op_type == "Add" for n in nodes) == 10  # the residual connections


# ---- the cache ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", make_zoo.BUNDLED)
def test_bundled_models_are_up_to_date(name):
    """An edit of models.py must come with `python examples/zoo/make_zoo.py --bundle`."""
    path = os.path.join(ROOT, "examples", "zoo", f"{name}.onnx")
    with open(path + ".sha256") as f:
        assert f.read().strip() == make_zoo.definition_hash(name)
    assert make_zoo.zoo_model(name) == path


def test_definition_hash_depends_on_the_name_and_is_stable():
    assert make_zoo.definition_hash("encoder") == make_zoo.definition_hash("encoder")
    assert make_zoo.definition_hash("encoder") != make_zoo.definition_hash("inception")


def test_a_stale_export_is_replaced_and_a_fresh_one_reused(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setattr(make_zoo, "CACHE", str(tmp_path))
    monkeypatch.setattr(make_zoo, "BUNDLED", ())
    stale = tmp_path / "encoder.onnx"
    stale.write_bytes(b"not a model")
    (tmp_path / "encoder.onnx.sha256").write_text("0" * 64 + "\n")
    path = make_zoo.zoo_model("encoder")
    assert path == str(stale)
    onnx.checker.check_model(onnx.load(path))
    assert (tmp_path / "encoder.onnx.sha256").read_text().strip() == make_zoo.definition_hash(
        "encoder"
    )
    written = os.stat(path).st_mtime_ns
    assert make_zoo.zoo_model("encoder") == path
    assert os.stat(path).st_mtime_ns == written  # reused, not exported again
    assert sorted(p.name for p in tmp_path.iterdir()) == ["encoder.onnx", "encoder.onnx.sha256"]
