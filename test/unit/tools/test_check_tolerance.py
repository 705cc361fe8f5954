"""`ge-run --check` judges fp16 outputs with fp16 tolerances, also against onnxruntime (a
whole model): a correct fp16 program one fp16 ulp away from onnxruntime passes, where the
fp32 whole-model tolerance used to fail it, and an fp16 output many ulps away still fails
(`test/unit/data/device/check_fp16_false_failure_h00.onnx`, with onnxruntime's outputs
shifted)."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import onnx
from helpers.onnx_ref import make_model
from helpers.support import ROOT
from onnx import helper

from ge_dialect import api
from ge_dialect.tools.ge_run import main
from ge_dialect.utils.dtypes import WHOLE_MODEL_FP32_TOLERANCE


def fp16_model(path: str) -> np.ndarray:
    """Two fp16 convolutions, a relu and a sub (seed 0: its output differs from
    onnxruntime's by one fp16 ulp, which the fp32 whole-model tolerance rejects)."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 8, 6, 6)).astype(np.float16)
    weights = {
        name: (rng.standard_normal((8, 8, 3, 3)) / np.sqrt(72)).astype(np.float16)
        for name in ("w", "w2")
    }
    conv: dict[str, Any] = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], **conv),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Conv", ["r", "w2"], ["c2"], **conv),
        helper.make_node("Sub", ["c2", "x"], ["y"]),
    ]
    onnx.save(make_model(nodes, {"x": x}, ["y"], weights), path)
    return x


def test_check_passes_a_correct_fp16_model_against_onnxruntime(tmp_path, capsys):
    path = str(tmp_path / "fp16.onnx")
    x = fp16_model(path)
    np.savez(tmp_path / "in.npz", x=x)
    code = main([path, "--check", "--inputs", str(tmp_path / "in.npz"), "--outputs",
                 str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), err
    assert "check y: max |error| 0.000977 against onnxruntime\n" in out
    # the same outputs fail the fp32 whole-model tolerance: the dtype's rule decided
    y = np.load(tmp_path / "out.npz")["y"]
    expected = api.onnxruntime_outputs(path, {"x": x})["y"]
    assert y.dtype == np.float16
    assert not api.within_tolerance(y, expected, WHOLE_MODEL_FP32_TOLERANCE)
    assert api.within_tolerance(y, expected, whole_model=True)


REPRO = os.path.join(ROOT, "test", "unit", "data", "device", "check_fp16_false_failure_h00.onnx")
"""Two fp16 outputs (`sub34`, `cat21`); with this pipeline `sub34` is one fp16 ulp of its
largest magnitude (0.0078125 at 8..16) away from onnxruntime's, 73 ulps of the smallest
elements' own magnitudes: right for fp16, outside the fp32 whole-model tolerance."""
PIPELINE = "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto}"


def test_fp16_outputs_one_ulp_from_onnxruntime_pass(capsys):
    code = main([REPRO, "--check", "-p", PIPELINE, "--report", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    checks = json.loads(out)["checks"]
    assert [(c["output"], c["against"], c["max_error"], c["within_tolerance"]) for c in checks] == [
        ("sub34", "reference interpreter", 0.001953125, True),
        ("cat21", "reference interpreter", 0.0, True),
        ("sub34", "onnxruntime", 0.0078125, True),
        ("cat21", "onnxruntime", 0.0, True),
    ]


def test_fp16_outputs_judged_by_fp16_not_fp32_whole_model_tolerance(capsys, monkeypatch, tmp_path):
    """The same run's `sub34` fails the fp32 whole-model tolerance: its dtype decided."""
    expected: dict[str, np.ndarray] = {}
    real = api.onnxruntime_outputs

    def spy(model, inputs):
        expected.update(real(model, inputs))
        return expected

    monkeypatch.setattr(api, "onnxruntime_outputs", spy)
    assert main([REPRO, "--check", "-p", PIPELINE, "--outputs", str(tmp_path / "out.npz")]) == 0
    capsys.readouterr()
    with np.load(tmp_path / "out.npz") as outputs:
        y = outputs["sub34"]
    assert y.dtype == expected["sub34"].dtype == np.float16
    assert not api.within_tolerance(y, expected["sub34"], WHOLE_MODEL_FP32_TOLERANCE)
    assert api.within_tolerance(y, expected["sub34"], whole_model=True)


def shifted_onnxruntime(monkeypatch, ulps: int) -> None:
    """onnxruntime's `sub34` with its largest element moved by `ulps` of its fp16 ulps."""
    real = api.onnxruntime_outputs

    def shifted(model, inputs):
        expected = dict(real(model, inputs))
        y = expected["sub34"].copy()
        at = np.unravel_index(np.argmax(np.abs(y)), y.shape)
        y[at] += ulps * np.spacing(y[at])
        expected["sub34"] = y
        return expected

    monkeypatch.setattr(api, "onnxruntime_outputs", shifted)


def test_an_fp16_output_a_few_ulps_from_onnxruntime_passes(capsys, monkeypatch):
    shifted_onnxruntime(monkeypatch, 8)
    assert main([REPRO, "--check", "-p", PIPELINE]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "check sub34: max |error| 0.0625 against onnxruntime\n" in out


def test_an_fp16_output_many_ulps_from_onnxruntime_fails(capsys, monkeypatch):
    shifted_onnxruntime(monkeypatch, 64)
    code = main([REPRO, "--check", "-p", PIPELINE])
    out, err = capsys.readouterr()
    assert code == 1
    assert err.splitlines() == [
        "check sub34: max |error| 0.00195 against reference interpreter",
        "check cat21: max |error| 0 against reference interpreter",
        "check sub34: max |error| 0.5 against onnxruntime (outside tolerance)",
        "check cat21: max |error| 0 against onnxruntime",
        f"{REPRO}: error: output 'sub34' differs from onnxruntime (max |error| 0.5)",
    ]
