"""`npu.signatures`: a launch is checked against the `ge` op its kernel is named after.

The signature of kernel K is `ge.K`, rebuilt from the launch (`#npu.format` as `#ge.format`,
attributes as properties: the inverse of `--lower-to-device`'s `kernel_attrs`) and verified.
Here: every `ge` op kind, lowered as `--lower-to-device` lowers it, passes its own signature
(and the lowered program computes what the op means); random graphs through the whole
pipeline verify;
the simulator has a kernel for every signature and a signature for every kernel; the
rules that the lit test (test/lit/dialects/npu/launch-signatures.mlir) does not pin.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.random_graphs import Case, cases
from helpers.support import assert_close
from hypothesis import given, settings
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, TensorType, f16, f32
from xdsl.utils.exceptions import VerifyException

from ge_dialect import api
from ge_dialect.ir.dialects import ge, npu
from ge_dialect.ir.dialects.npu import signatures
from ge_dialect.ir.dialects.npu.signatures import known_kernels, verify_signature
from ge_dialect.sim.kernels import KERNELS
from ge_dialect.utils.errors import GeError
from transforms.lower_to_device import kernel_attrs, npu_type

# One `ge` function per op kind: (argument types, the op, its result type).  Non-default
# attributes, optional operands present and absent, every enum and unit attribute, and
# stored formats (NC1HWC0, FRACTAL_Z with groups and c0) where an op takes them.
NC1HWC0 = "#ge.format<NC1HWC0>"
OPS: dict[str, tuple[str, str, str]] = {
    "conv2d": (
        "tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>",
        "ge.conv2d %0, %1 bias %2 strides [2, 2] pads [1, 1, 1, 1] groups 2 "
        ": tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<1x6x4x4xf32>",
        "tensor<1x6x4x4xf32>",
    ),
    "conv2d_stored": (
        "tensor<1x4x8x8xf32, #ge.format<NC1HWC0, c0 = 8>>, "
        "tensor<4x2x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8, groups = 2>>",
        "ge.conv2d %0, %1 pads [1, 1, 1, 1] dilations [1, 1] groups 2 "
        ": tensor<1x4x8x8xf32, #ge.format<NC1HWC0, c0 = 8>>, "
        "tensor<4x2x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8, groups = 2>> "
        "-> tensor<1x4x8x8xf32, #ge.format<NC1HWC0, c0 = 8>>",
        "tensor<1x4x8x8xf32, #ge.format<NC1HWC0, c0 = 8>>",
    ),
    "fused_conv2d": (
        "tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<1x8x8x8xf32>",
        "ge.fused_conv2d %0, %1 residual %2 activation leaky_relu alpha 2.000000e-01 "
        "pads [1, 1, 1, 1] : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x8x8xf32>",
        "tensor<1x8x8x8xf32>",
    ),
    "fused_conv2d_bias": (
        "tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>",
        "ge.fused_conv2d %0, %1 bias %2 activation relu6 "
        ": tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>",
        "tensor<1x8x8x8xf32>",
    ),
    "batch_norm": (
        "tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>",
        "ge.batch_norm %0, %1, %2, %3, %4 epsilon 1.0e-03 : (tensor<1x4x8x8xf32>, "
        "tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>",
        "tensor<1x4x8x8xf32>",
    ),
    "relu": ("tensor<1x20x2x2xi8>", "ge.relu %0 : tensor<1x20x2x2xi8>", "tensor<1x20x2x2xi8>"),
    "relu6": ("tensor<4xf16>", "ge.relu6 %0 : tensor<4xf16>", "tensor<4xf16>"),
    "sigmoid": (
        f"tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"ge.sigmoid %0 : tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"tensor<1x4x2x2xf32, {NC1HWC0}>",
    ),
    "silu": ("tensor<2x3xf32>", "ge.silu %0 : tensor<2x3xf32>", "tensor<2x3xf32>"),
    "identity": (
        f"tensor<1x4x2x2xf16, {NC1HWC0}>",
        f"ge.identity %0 : tensor<1x4x2x2xf16, {NC1HWC0}>",
        f"tensor<1x4x2x2xf16, {NC1HWC0}>",
    ),
    "leaky_relu": (
        "tensor<4xf32>",
        "ge.leaky_relu %0 alpha 2.000000e-01 : tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "clip": (
        "tensor<4xf32>",
        "ge.clip %0 min -1.000000e+00 max 2.000000e+00 : tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "add": (
        "tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>",
        "ge.add %0, %1 : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>",
        "tensor<1x4x8x8xf32>",
    ),
    "sub": (
        "tensor<2x4xi8>, tensor<4xi8>",
        "ge.sub %0, %1 : (tensor<2x4xi8>, tensor<4xi8>) -> tensor<2x4xi8>",
        "tensor<2x4xi8>",
    ),
    "mul": (
        f"tensor<1x4x2x2xf32, {NC1HWC0}>, tensor<f32>",
        f"ge.mul %0, %1 : (tensor<1x4x2x2xf32, {NC1HWC0}>, tensor<f32>) "
        f"-> tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"tensor<1x4x2x2xf32, {NC1HWC0}>",
    ),
    "exp": (
        f"tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"ge.exp %0 : tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"tensor<1x4x2x2xf32, {NC1HWC0}>",
    ),
    "log": ("tensor<2x3xf32>", "ge.log %0 : tensor<2x3xf32>", "tensor<2x3xf32>"),
    "tanh": ("tensor<2x3xf16>", "ge.tanh %0 : tensor<2x3xf16>", "tensor<2x3xf16>"),
    "erf": ("tensor<2x3xf32>", "ge.erf %0 : tensor<2x3xf32>", "tensor<2x3xf32>"),
    "sqrt": ("tensor<2x3xf32>", "ge.sqrt %0 : tensor<2x3xf32>", "tensor<2x3xf32>"),
    "rsqrt": (
        f"tensor<1x4x2x2xf16, {NC1HWC0}>",
        f"ge.rsqrt %0 : tensor<1x4x2x2xf16, {NC1HWC0}>",
        f"tensor<1x4x2x2xf16, {NC1HWC0}>",
    ),
    "neg": ("tensor<2x3xf32>", "ge.neg %0 : tensor<2x3xf32>", "tensor<2x3xf32>"),
    "reciprocal": (
        f"tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"ge.reciprocal %0 : tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"tensor<1x4x2x2xf32, {NC1HWC0}>",
    ),
    "gelu": (
        "tensor<2x3xf32>",
        'ge.gelu %0 approximate "tanh" : tensor<2x3xf32>',
        "tensor<2x3xf32>",
    ),
    "sin": (
        f"tensor<1x4x2x2xf16, {NC1HWC0}>",
        f"ge.sin %0 : tensor<1x4x2x2xf16, {NC1HWC0}>",
        f"tensor<1x4x2x2xf16, {NC1HWC0}>",
    ),
    "cos": ("tensor<2x3xf32>", "ge.cos %0 : tensor<2x3xf32>", "tensor<2x3xf32>"),
    "equal": (
        "tensor<2x3xi64>, tensor<3xi64>",
        "ge.equal %0, %1 : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi1>",
        "tensor<2x3xi1>",
    ),
    "not_equal": (
        "tensor<2x3xf32>, tensor<f32>",
        "ge.not_equal %0, %1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>",
        "tensor<2x3xi1>",
    ),
    "less": (
        "tensor<2x3xf16>, tensor<2x3xf16>",
        "ge.less %0, %1 : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xi1>",
        "tensor<2x3xi1>",
    ),
    "less_equal": (
        "tensor<3x1xi32>, tensor<1x3xi32>",
        "ge.less_equal %0, %1 : (tensor<3x1xi32>, tensor<1x3xi32>) -> tensor<3x3xi1>",
        "tensor<3x3xi1>",
    ),
    "greater": (
        "tensor<2x3xi8>, tensor<2x3xi8>",
        "ge.greater %0, %1 : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2x3xi1>",
        "tensor<2x3xi1>",
    ),
    "greater_equal": (
        "tensor<2x3xi1>, tensor<2x3xi1>",
        "ge.greater_equal %0, %1 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>",
        "tensor<2x3xi1>",
    ),
    "logical_not": ("tensor<2x3xi1>", "ge.logical_not %0 : tensor<2x3xi1>", "tensor<2x3xi1>"),
    "logical_and": (
        "tensor<2x3xi1>, tensor<3xi1>",
        "ge.logical_and %0, %1 : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>",
        "tensor<2x3xi1>",
    ),
    "logical_or": (
        "tensor<2x3xi1>, tensor<2x3xi1>",
        "ge.logical_or %0, %1 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>",
        "tensor<2x3xi1>",
    ),
    "where": (
        "tensor<2x1xi1>, tensor<1x3xf32>, tensor<f32>",
        "ge.where %0, %1, %2 : (tensor<2x1xi1>, tensor<1x3xf32>, tensor<f32>) -> tensor<2x3xf32>",
        "tensor<2x3xf32>",
    ),
    "div": (
        f"tensor<1x4x2x2xf32, {NC1HWC0}>, tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"ge.div %0, %1 : (tensor<1x4x2x2xf32, {NC1HWC0}>, tensor<1x4x2x2xf32, {NC1HWC0}>) "
        f"-> tensor<1x4x2x2xf32, {NC1HWC0}>",
        f"tensor<1x4x2x2xf32, {NC1HWC0}>",
    ),
    "maximum": (
        "tensor<2x4xi8>, tensor<4xi8>",
        "ge.maximum %0, %1 : (tensor<2x4xi8>, tensor<4xi8>) -> tensor<2x4xi8>",
        "tensor<2x4xi8>",
    ),
    "minimum": (
        "tensor<2x4xf16>, tensor<2x1xf16>",
        "ge.minimum %0, %1 : (tensor<2x4xf16>, tensor<2x1xf16>) -> tensor<2x4xf16>",
        "tensor<2x4xf16>",
    ),
    "pow": (
        "tensor<2x4xf32>, tensor<f32>",
        "ge.pow %0, %1 : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>",
        "tensor<2x4xf32>",
    ),
    "trans_data": (
        "tensor<1x17x2x2xf16>",
        f"ge.trans_data %0 : tensor<1x17x2x2xf16> -> tensor<1x17x2x2xf16, {NC1HWC0}>",
        f"tensor<1x17x2x2xf16, {NC1HWC0}>",
    ),
    "reshape": (
        "tensor<1x64x1x1xf32>",
        "ge.reshape %0 : tensor<1x64x1x1xf32> -> tensor<1x64xf32>",
        "tensor<1x64xf32>",
    ),
    "flatten": (
        "tensor<2x8x3x3xf32>",
        "ge.flatten %0 axis 2 : tensor<2x8x3x3xf32> -> tensor<16x9xf32>",
        "tensor<16x9xf32>",
    ),
    "transpose": (
        "tensor<2x3x4xf32>",
        "ge.transpose %0 perm [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>",
        "tensor<2x4x3xf32>",
    ),
    "concat": (
        f"tensor<1x16x4x4xf16, {NC1HWC0}>, tensor<1x8x4x4xf16, {NC1HWC0}>",
        f"ge.concat %0, %1 axis 1 : tensor<1x16x4x4xf16, {NC1HWC0}>, "
        f"tensor<1x8x4x4xf16, {NC1HWC0}> -> tensor<1x24x4x4xf16, {NC1HWC0}>",
        f"tensor<1x24x4x4xf16, {NC1HWC0}>",
    ),
    "cast": (
        "tensor<1x4x8x8xf32>",
        "ge.cast %0 : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf16>",
        "tensor<1x4x8x8xf16>",
    ),
    "matmul": (
        "tensor<2x8x16xf32>, tensor<32x16xf32>, tensor<32xf32>",
        "ge.matmul %0, %1 bias %2 transpose_b : tensor<2x8x16xf32>, tensor<32x16xf32>, "
        "tensor<32xf32> -> tensor<2x8x32xf32>",
        "tensor<2x8x32xf32>",
    ),
    "softmax": ("tensor<2x10xf32>", "ge.softmax %0 axis 1 : tensor<2x10xf32>", "tensor<2x10xf32>"),
    "reduce_sum": (
        "tensor<2x3x4xf16>",
        "ge.reduce_sum %0 axes [0, 2] keepdims : tensor<2x3x4xf16> -> tensor<1x3x1xf16>",
        "tensor<1x3x1xf16>",
    ),
    "reduce_mean": (
        "tensor<2x8xf32>",
        "ge.reduce_mean %0 axes [] keepdims : tensor<2x8xf32> -> tensor<1x1xf32>",
        "tensor<1x1xf32>",
    ),
    "reduce_max": (
        "tensor<2x3x4xi8>",
        "ge.reduce_max %0 axes [1] : tensor<2x3x4xi8> -> tensor<2x4xi8>",
        "tensor<2x4xi8>",
    ),
    "reduce_min": (
        "tensor<2x8xf32>",
        "ge.reduce_min %0 axes [0] : tensor<2x8xf32> -> tensor<8xf32>",
        "tensor<8xf32>",
    ),
    "layer_norm": (
        "tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>",
        "ge.layer_norm %0 weight %1 bias %2 axis 1 epsilon 1.0e-03 "
        ": tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>",
        "tensor<2x3x8xf32>",
    ),
    "rms_norm": (
        "tensor<2x8xf16>, tensor<8xf16>",
        "ge.rms_norm %0, %1 axis 1 epsilon 1.0e-05 : tensor<2x8xf16>, tensor<8xf16>",
        "tensor<2x8xf16>",
    ),
    "max_pool": (
        "tensor<1x8x9x9xf32>",
        "ge.max_pool %0 kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] ceil_mode "
        ": tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>",
        "tensor<1x8x5x5xf32>",
    ),
    "avg_pool": (
        "tensor<1x8x9x9xf32>",
        "ge.avg_pool %0 kernel [2, 2] strides [2, 2] pads [0, 1, 0, 1] count_include_pad "
        ": tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>",
        "tensor<1x8x5x5xf32>",
    ),
    "global_avg_pool": (
        "tensor<1x8x7x7xf32>",
        "ge.global_avg_pool %0 : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>",
        "tensor<1x8x1x1xf32>",
    ),
    "hcom_all_reduce": (
        "tensor<16xf32>",
        'ge.hcom_all_reduce %0 reduction max group "world" rank_size 2 : tensor<16xf32>',
        "tensor<16xf32>",
    ),
    "hcom_all_gather": (
        "tensor<2x8xf16>",
        'ge.hcom_all_gather %0 group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>',
        "tensor<8x8xf16>",
    ),
    "hcom_reduce_scatter": (
        "tensor<8x4xf32>",
        'ge.hcom_reduce_scatter %0 reduction sum group "tp" rank_size 4 '
        ": tensor<8x4xf32> -> tensor<2x4xf32>",
        "tensor<2x4xf32>",
    ),
    "hcom_all_to_all": (
        "tensor<8x4xf32>",
        'ge.hcom_all_to_all %0 split_dim 0 concat_dim 1 group "ep" rank_size 4 '
        ": tensor<8x4xf32> -> tensor<2x16xf32>",
        "tensor<2x16xf32>",
    ),
    "hcom_broadcast": (
        "tensor<4x4xf16>",
        'ge.hcom_broadcast %0 root 1 group "g" rank_size 2 : tensor<4x4xf16>',
        "tensor<4x4xf16>",
    ),
    "hcom_receive": (
        "",
        'ge.hcom_receive src_rank 0 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xf32>',
        "tensor<4x4xf32>",
    ),
    # no result: the case's function returns nothing
    "hcom_send": (
        "tensor<4x4xf32>",
        'ge.hcom_send %0 dest_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xf32>',
        "",
    ),
    # random integer inputs lie in [0, 2): every one indexes an axis of 8
    "gather": (
        "tensor<3x8xf32>, tensor<2x5xi32>",
        "ge.gather %0, %1 axis 1 : tensor<3x8xf32>, tensor<2x5xi32> -> tensor<3x2x5xf32>",
        "tensor<3x2x5xf32>",
    ),
    "slice": (
        "tensor<4x9xf16>",
        "ge.slice %0 starts [-3, 1] ends [9223372036854775807, 100] axes [0, 1] steps [1, 4] "
        ": tensor<4x9xf16> -> tensor<3x2xf16>",
        "tensor<3x2xf16>",
    ),
    "expand": (
        "tensor<3x1xi8>",
        "ge.expand %0 : tensor<3x1xi8> -> tensor<2x3x4xi8>",
        "tensor<2x3x4xi8>",
    ),
    # a function returns the first result of an op of two
    "topk": (
        "tensor<4x8xf32>",
        "%y, %i = ge.topk %0 k 3 axis 1 largest sorted : tensor<4x8xf32> -> tensor<4x3xf32>, "
        "tensor<4x3xi64>",
        "tensor<4x3xf32>",
    ),
    # indices in [0, 8] (the inputs' absolute values) fit an axis of 16
    "scatter_add": (
        "tensor<2x16xf32>, tensor<2x3xi64>, tensor<2x3xf32>",
        "ge.scatter_add %0, %1, %2 axis 1 : tensor<2x16xf32>, tensor<2x3xi64>, tensor<2x3xf32> "
        "-> tensor<2x16xf32>",
        "tensor<2x16xf32>",
    ),
    "swi_glu": (
        "tensor<3x8xf16>",
        "ge.swi_glu %0 dim 1 : tensor<3x8xf16> -> tensor<3x4xf16>",
        "tensor<3x4xf16>",
    ),
    "moe_gating_top_k": (
        "tensor<6x4xf32>",
        '%y, %i = ge.moe_gating_top_k %0 k 2 norm "sigmoid" renorm : tensor<6x4xf32> -> '
        "tensor<6x2xf32>, tensor<6x2xi64>",
        "tensor<6x2xf32>",
    ),
    "grouped_matmul": (
        "tensor<2x3x4xf32>, tensor<2x4x5xf32>",
        "ge.grouped_matmul %0, %1 : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>",
        "tensor<2x3x5xf32>",
    ),
    "flash_attention": (
        "tensor<1x4x3x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>",
        "ge.flash_attention %0, %1, %2 scale 0.25 causal : tensor<1x4x3x8xf16>, "
        "tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16> -> tensor<1x4x3x8xf16>",
        "tensor<1x4x3x8xf16>",
    ),
    "rotary_mul": (
        "tensor<1x2x3x8xf32>, tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>",
        "ge.rotary_mul %0, %1, %2 : tensor<1x2x3x8xf32>, tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>",
        "tensor<1x2x3x8xf32>",
    ),
    # positions in [0, 8] (the inputs' absolute values) fit 1 of 16 (in place: in-out)
    "scatter_update": (
        "tensor<2x3x16x4xf32>, tensor<2xi64>, tensor<2x3x1x4xf32>",
        "ge.scatter_update %0, %1, %2 axis 2 : tensor<2x3x16x4xf32>, tensor<2xi64>, "
        "tensor<2x3x1x4xf32> -> tensor<2x3x16x4xf32>",
        "tensor<2x3x16x4xf32>",
    ),
}


def _arg_types(args: str) -> list[str]:
    """`tensor<...>, tensor<...>` split at the commas between types."""
    return ["tensor" + t.rstrip(", ") for t in args.split("tensor")[1:]]


def ge_module(name: str):
    """The function of case `name`, parsed and verified."""
    args, op, result = OPS[name]
    params = ", ".join(f"%{i}: {t}" for i, t in enumerate(_arg_types(args)))
    if not result:  # an op without results
        text = f"func.func @main({params}) {{\n  {op}\n  func.return\n}}"
    else:
        op = op if op.startswith("%") else f"%y = {op}"  # an op of two results names both
        text = f"func.func @main({params}) -> {result} {{\n  {op}\n  func.return %y : {result}\n}}"
    module = api.parse(text, f"{name}.mlir")
    api.verify(module, f"{name}.mlir")
    return module


def the_op(module):
    return next(op for op in module.walk() if op.name.startswith("ge."))


def test_every_ge_op_kind_has_a_case():
    covered = {the_op(ge_module(name)).name.removeprefix("ge.") for name in OPS}
    kinds = {op.name.removeprefix("ge.") for op in ge.Ge.operations} - {"const"}
    assert covered == kinds


@pytest.mark.parametrize("name", sorted(OPS))
def test_a_ge_op_passes_its_own_signature(name: str):
    # what --lower-to-device writes for the op, checked by the signature: the inverse holds
    op = the_op(ge_module(name))
    in_types = [npu_type(v.type) for v in op.operands]
    out_types = [npu_type(r.type) for r in op.results]
    verify_signature(op.name.removeprefix("ge."), in_types, out_types, kernel_attrs(op).data)


@pytest.mark.parametrize("name", sorted(OPS))
def test_a_lowered_op_verifies_and_computes_what_the_op_means(name: str):
    module = ge_module(name)
    original = module.clone()
    api.compile(module, "lower-to-device,plan-memory", name=f"{name}.mlir")  # verifies
    launches = [op for op in module.walk() if isinstance(op, npu.LaunchOp)]
    views = name in ("reshape", "flatten")  # default-layout reshapes lower to views
    assert len(launches) == (0 if views else 1)
    program = api.device_program(module)
    # non-negative inputs (a batch norm's variance must be)
    inputs = {n: np.abs(v) for n, v in api.random_inputs(program).items()}
    if not OPS[name][2]:  # a send: on one device it does nothing, and there is no output
        assert api.simulate(program, inputs).outputs == {} == api.reference(original, inputs)
        return
    (actual,) = api.simulate(program, inputs).outputs.values()
    (expected,) = api.reference(original, inputs).values()
    assert_close(actual, expected, actual.dtype)


@settings(max_examples=15)
@given(cases())
def test_random_graphs_lower_to_launches_that_verify(case: Case):
    pipeline = (
        f"fuse,to-nc1hwc0{{boundary={case.boundary} fp32-c0={case.fp32_c0}}},"
        "assign-streams{mode=auto},lower-to-device,plan-memory"
    )
    api.compile(case.module, pipeline, name="random.mlir")  # verifies after every pass
    assert any(isinstance(op, npu.LaunchOp) for op in case.module.walk())


def test_every_simulator_kernel_has_a_signature():
    assert sorted(set(KERNELS) - set(known_kernels())) == []


def test_every_signature_has_a_simulator_kernel():
    assert sorted(set(known_kernels()) - set(KERNELS)) == []


def test_copy_is_the_one_declared_signature():
    assert sorted(signatures.DECLARED) == ["copy"]
    t = TensorType(f16, [1, 4, 2, 2], npu.FormatAttr("NC1HWC0"))
    verify_signature("copy", [t], [t], {})
    with pytest.raises(VerifyException) as info:
        verify_signature("copy", [t, t], [t], {})
    assert str(info.value) == (
        "kernel 'copy': takes 1 input and produces 1 output, got 2 inputs and 1 output"
    )


# --------------------------------------------------------------------------------------
# Rules the lit test does not pin
# --------------------------------------------------------------------------------------

FUSED_IN = [  # input, filter, bias, residual of a fused conv
    TensorType(f32, shape) for shape in ([1, 8, 8, 8], [8, 8, 1, 1], [8], [1, 8, 8, 8])
]


def test_optional_operands_without_flags_are_present_in_order():
    x, w, b, r = FUSED_IN
    verify_signature("fused_conv2d", [x, w, b], [x], {})  # the third is the bias
    verify_signature("fused_conv2d", [x, w, b, r], [x], {})  # bias, then residual
    with pytest.raises(VerifyException) as info:
        verify_signature("fused_conv2d", [x, w, r], [x], {})  # a residual needs has_bias false
    assert str(info.value) == (
        "kernel 'fused_conv2d': operand 'bias' has type tensor<1x8x8x8xf32>, expected tensor<8xf32>"
    )


def test_flags_decide_which_optional_operands_are_present():
    x, w, b, r = FUSED_IN
    true, false = BoolAttr.from_bool(True), BoolAttr.from_bool(False)
    verify_signature("fused_conv2d", [x, w, r], [x], {"has_bias": false})
    verify_signature("fused_conv2d", [x, w, r], [x], {"has_bias": false, "has_residual": true})
    with pytest.raises(VerifyException) as info:
        verify_signature("fused_conv2d", [x, w, b], [x], {"has_bias": true, "has_residual": true})
    assert str(info.value) == (
        "kernel 'fused_conv2d': takes 4 inputs (input, filter, bias, residual) with "
        "has_bias = true, has_residual = true, got 3"
    )


def test_a_passed_signature_is_remembered_and_a_changed_one_checked_again():
    module = ge_module("relu")
    api.compile(module, "lower-to-device", name="relu.mlir")
    launch = next(op for op in module.walk() if isinstance(op, npu.LaunchOp))
    key = (launch.kernel, launch.in_types, launch.out_types, launch.attrs)
    assert key in signatures._PASSED
    launch.attrs = DictionaryAttr({"alpha": BoolAttr.from_bool(True)})
    with pytest.raises(GeError) as info:
        api.verify(module, "relu.mlir")
    assert str(info.value).endswith(
        "'npu.launch' op kernel 'relu': has no attribute 'alpha' (its attributes: none)"
    )
