"""`ge-run --check` judges fp16 outputs with fp16 tolerances, also against onnxruntime (a
whole model): a correct fp16 program one fp16 ulp away from onnxruntime passes, where the
fp32 whole-model tolerance used to fail it."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from helpers.onnx_ref import make_model
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
