"""ge_dialect.ir.cost.op_cost against hand-computed figures.

Every expected number is written out literally and worked out in the comment above it, not
recomputed with the cost module's formulas.  Conventions (cost.py): a MAC is 2 FLOPs; bytes
are physical (NC1HWC0 / FRACTAL_Z padding included); a cube op has one block per 16x16
output tile of its implicit GEMM (M = N*Ho*Wo rows for a conv, times the batch for a
matmul); a vector op one block per 8192 logical output elements; a collective one block.
Every graph is built with GraphBuilder and verified (`build`) before its cost is read.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.ir import Operation

from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.ir.cost import NO_COST, OpCost, op_cost


def producer(t: Tensor) -> Operation:
    """The op whose result `t` is."""
    op = t.value.owner
    assert isinstance(op, Operation)
    return op


def cost(b: GraphBuilder, t: Tensor) -> OpCost:
    """The cost of the op producing `t`, once `b`'s graph returning `t` has verified."""
    b.build([t])
    return op_cost(producer(t))


def f32(*shape: int) -> np.ndarray:
    return np.ones(shape, np.float32)


# ---- convolution -----------------------------------------------------------------------------


def test_conv_basic():
    # x 1x3x8x8, w 4x3x3x3, pads 1 -> y 1x4x8x8.  M = 1*8*8 = 64, N = 4, K = 3*3*3 = 27.
    # flops = 2*64*4*27 = 13824.  bytes in: x 192*4 = 768, w 108*4 = 432 -> 1200; out 256*4.
    # blocks = ceil(64/16) * ceil(4/16) = 4 * 1.
    b = GraphBuilder()
    y = b.conv2d(b.input("x", [1, 3, 8, 8]), b.const(f32(4, 3, 3, 3)), pads=[1, 1, 1, 1])
    assert y.shape == (1, 4, 8, 8)
    assert cost(b, y) == OpCost(13824, 1200, 1024, "cube", 4)


def test_conv_batch_stride_bias():
    # x 2x8x9x9, w 32x8x3x3, bias 32, stride 2 -> Ho = Wo = (9-3)/2+1 = 4, y 2x32x4x4.
    # M = 2*4*4 = 32, N = 32, K = 8*9 = 72: 2*32*32*72 = 147456, + bias 32*32 = 1024 -> 148480.
    # bytes in: x 1296*4 = 5184, w 2304*4 = 9216, bias 32*4 = 128 -> 14528; out 1024*4 = 4096.
    # blocks = ceil(32/16) * ceil(32/16) = 4.
    b = GraphBuilder()
    y = b.conv2d(b.input("x", [2, 8, 9, 9]), b.const(f32(32, 8, 3, 3)), b.const(f32(32)),
                 strides=[2, 2])
    assert y.shape == (2, 32, 4, 4)
    assert cost(b, y) == OpCost(148480, 14528, 4096, "cube", 4)


def test_conv_blocks_round_up_m_and_n():
    # x 1x1x5x5, w 17x1x1x1 -> y 1x17x5x5.  M = 25, N = 17, K = 1: flops = 2*25*17 = 850.
    # blocks = ceil(25/16) * ceil(17/16) = 2 * 2 = 4 (not ceil(25*17/256) = 2).
    # bytes in: 25*4 + 17*4 = 168; out 425*4 = 1700.
    b = GraphBuilder()
    y = b.conv2d(b.input("x", [1, 1, 5, 5]), b.const(f32(17, 1, 1, 1)))
    assert cost(b, y) == OpCost(850, 168, 1700, "cube", 4)


def test_conv_groups():
    # groups 4: x 1x8x6x6, w 8x2x3x3 (C/groups = 2), pads 1 -> y 1x8x6x6.
    # M = 36, N = 8, K = 2*3*3 = 18 per output channel: 2*36*8*18 = 10368.
    # bytes in: x 288*4 = 1152, w 144*4 = 576 -> 1728; out 288*4 = 1152.
    # blocks = ceil(36/16) * ceil(8/16) = 3 * 1.
    b = GraphBuilder()
    y = b.conv2d(b.input("x", [1, 8, 6, 6]), b.const(f32(8, 2, 3, 3)), pads=[1, 1, 1, 1],
                 groups=4)
    assert cost(b, y) == OpCost(10368, 1728, 1152, "cube", 3)


def test_conv_depthwise():
    # groups 8 = C: w 8x1x3x3, K = 9: 2*36*8*9 = 5184.  w 72*4 = 288 bytes -> in 1152 + 288.
    b = GraphBuilder()
    y = b.conv2d(b.input("x", [1, 8, 6, 6]), b.const(f32(8, 1, 3, 3)), pads=[1, 1, 1, 1],
                 groups=8)
    assert cost(b, y) == OpCost(5184, 1440, 1152, "cube", 3)


def test_conv_nc1hwc0_input_fractal_z_filter_count_padding():
    # f16 x 1x20x5x5 NC1HWC0: physical 1x2x5x5x16 = 800 elements = 1600 bytes (logical 1000).
    # w 4x20x1x1 FRACTAL_Z: physical [C1*H*W, ceil(N/16), 16, C0] = [2, 1, 16, 16] = 512
    # elements = 1024 bytes (logical 160).  y 1x4x5x5 NC1HWC0: 1x1x5x5x16 = 400 -> 800 bytes.
    # flops: M = 25, N = 4, K = 20: 2*25*4*20 = 4000 (logical channels, not padded ones).
    # blocks = ceil(25/16) * ceil(4/16) = 2.
    b = GraphBuilder()
    x = b.input("x", [1, 20, 5, 5], "f16", format="NC1HWC0")
    w = b.const(np.ones((4, 20, 1, 1), np.float16), format="FRACTAL_Z")
    y = b.conv2d(x, w)
    assert cost(b, y) == OpCost(4000, 2624, 800, "cube", 2)


def test_fused_conv_bias_residual_relu():
    # x 1x16x4x4, w 20x16x1x1, bias 20, residual 1x20x4x4, relu -> y 1x20x4x4.
    # M = 16, N = 20, K = 16: 2*16*20*16 = 10240; + bias, residual and relu, one FLOP each
    # per output element: 3*16*20 = 960 -> 11200.
    # bytes in: x 256*4 = 1024, w 320*4 = 1280, bias 80, residual 320*4 = 1280 -> 3664.
    # out 1280.  blocks = ceil(16/16) * ceil(20/16) = 2.
    b = GraphBuilder()
    x = b.input("x", [1, 16, 4, 4])
    r = b.input("r", [1, 20, 4, 4])
    y = b.fused_conv2d(x, b.const(f32(20, 16, 1, 1)), b.const(f32(20)), residual=r,
                       activation="relu")
    assert cost(b, y) == OpCost(11200, 3664, 1280, "cube", 2)


@pytest.mark.parametrize(
    ("activation", "alpha", "flops"),
    [
        # conv part 10240 (as above), plus per output element (16*20 = 320 of them):
        ("none", None, 10240),  # nothing
        ("relu", None, 10560),  # + 320
        ("relu6", None, 10880),  # + 2*320 (min and max)
        ("leaky_relu", 0.1, 10880),  # + 2*320 (multiply and select)
        ("sigmoid", None, 11520),  # + 4*320 (exp, add, reciprocal, negate)
    ],
)
def test_fused_conv_activation_only(activation, alpha, flops):
    # No bias, no residual: bytes in x 1024 + w 1280 = 2304.
    b = GraphBuilder()
    y = b.fused_conv2d(b.input("x", [1, 16, 4, 4]), b.const(f32(20, 16, 1, 1)),
                       activation=activation, alpha=alpha)
    assert cost(b, y) == OpCost(flops, 2304, 1280, "cube", 2)


def test_fused_conv_residual_without_bias():
    # 10240 + residual 320 = 10560; bytes in 1024 + 1280 + 1280 = 3584.
    b = GraphBuilder()
    x = b.input("x", [1, 16, 4, 4])
    y = b.fused_conv2d(x, b.const(f32(20, 16, 1, 1)), residual=b.input("r", [1, 20, 4, 4]))
    assert cost(b, y) == OpCost(10560, 3584, 1280, "cube", 2)


# ---- matmul ----------------------------------------------------------------------------------


def test_matmul_plain():
    # a 32x64, b 64x48 -> 32x48: 2*32*48*64 = 196608.  bytes in 2048*4 + 3072*4 = 20480,
    # out 1536*4 = 6144.  blocks = ceil(32/16) * ceil(48/16) = 2 * 3.
    b = GraphBuilder()
    y = b.matmul(b.input("a", [32, 64]), b.input("b", [64, 48]))
    assert cost(b, y) == OpCost(196608, 20480, 6144, "cube", 6)


def test_matmul_transpose_a_contracts_over_its_rows():
    # a 10x7 transposed -> 7x10 (M = 7, K = 10), b 10x20 (N = 20): 2*7*20*10 = 2800
    # (K is a's first dim: taking its last, 7, would give 1960).
    # bytes in 70*4 + 200*4 = 1080, out 140*4 = 560.  blocks = 1 * ceil(20/16) = 2.
    b = GraphBuilder()
    y = b.matmul(b.input("a", [10, 7]), b.input("b", [10, 20]), transpose_a=True)
    assert y.shape == (7, 20)
    assert cost(b, y) == OpCost(2800, 1080, 560, "cube", 2)


def test_matmul_transpose_b():
    # a 7x10 (K = 10), b 20x10 transposed -> 10x20: 2*7*20*10 = 2800; same bytes and blocks.
    b = GraphBuilder()
    y = b.matmul(b.input("a", [7, 10]), b.input("b", [20, 10]), transpose_b=True)
    assert y.shape == (7, 20)
    assert cost(b, y) == OpCost(2800, 1080, 560, "cube", 2)


def test_matmul_transpose_both():
    # a 10x7 -> 7x10, b 20x10 -> 10x20: K = 10, 2800 again.
    b = GraphBuilder()
    y = b.matmul(b.input("a", [10, 7]), b.input("b", [20, 10]), transpose_a=True,
                 transpose_b=True)
    assert cost(b, y) == OpCost(2800, 1080, 560, "cube", 2)


def test_matmul_batched_broadcast_with_bias():
    # a 3x20x24, b 24x40 (broadcast over the batch of 3), bias 40 -> 3x20x40.
    # 2*3*20*40*24 = 115200, + bias 3*20*40 = 2400 -> 117600.
    # bytes in: a 1440*4 = 5760, b 960*4 = 3840, bias 160 -> 9760; out 2400*4 = 9600.
    # blocks = 3 * ceil(20/16) * ceil(40/16) = 3 * 2 * 3 = 18.
    b = GraphBuilder()
    y = b.matmul(b.input("a", [3, 20, 24]), b.input("b", [24, 40]), b.input("bias", [40]))
    assert y.shape == (3, 20, 40)
    assert cost(b, y) == OpCost(117600, 9760, 9600, "cube", 18)


def test_matmul_two_batch_dims():
    # a 2x3x4x5, b 2x3x5x6 -> 2x3x4x6: batch 6, 2*6*4*6*5 = 1440.
    # bytes in (120 + 180)*4 = 1200, out 144*4 = 576.  blocks = 6 * 1 * 1.
    b = GraphBuilder()
    y = b.matmul(b.input("a", [2, 3, 4, 5]), b.input("b", [2, 3, 5, 6]))
    assert cost(b, y) == OpCost(1440, 1200, 576, "cube", 6)


def test_matmul_f16():
    # f16 a 16x16, b 16x16: 2*16*16*16 = 8192 FLOPs; bytes 2 per element: in 1024, out 512.
    b = GraphBuilder()
    y = b.matmul(b.input("a", [16, 16], "f16"), b.input("b", [16, 16], "f16"))
    assert cost(b, y) == OpCost(8192, 1024, 512, "cube", 1)


# ---- pooling ---------------------------------------------------------------------------------


def test_max_pool():
    # 2x64x32x32, kernel 2x2, stride 2 -> 2x64x16x16 = 32768 outputs, 2*2-1 = 3 compares each:
    # 98304.  bytes in 131072*4 = 524288, out 32768*4 = 131072.  blocks = 32768/8192 = 4.
    b = GraphBuilder()
    y = b.max_pool(b.input("x", [2, 64, 32, 32]), [2, 2], strides=[2, 2])
    assert y.shape == (2, 64, 16, 16)
    assert cost(b, y) == OpCost(98304, 524288, 131072, "vector", 4)


def test_max_pool_padded():
    # 1x16x32x32, kernel 3x3, stride 2, pads 1 -> Ho = (32+2-3)//2+1 = 16: 4096 outputs,
    # 8 compares each: 32768.  bytes in 16384*4 = 65536, out 16384.  blocks ceil(4096/8192).
    b = GraphBuilder()
    y = b.max_pool(b.input("x", [1, 16, 32, 32]), [3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    assert y.shape == (1, 16, 16, 16)
    assert cost(b, y) == OpCost(32768, 65536, 16384, "vector", 1)


def test_avg_pool():
    # 1x4x10x10, kernel 3x3, stride 1 -> 1x4x8x8 = 256 outputs, 8 adds + 1 divide = 9 each:
    # 2304.  bytes in 400*4 = 1600, out 1024.
    b = GraphBuilder()
    y = b.avg_pool(b.input("x", [1, 4, 10, 10]), [3, 3])
    assert y.shape == (1, 4, 8, 8)
    assert cost(b, y) == OpCost(2304, 1600, 1024, "vector", 1)


def test_global_avg_pool():
    # 2x256x7x7 -> 2x256x1x1: one FLOP per input element, 2*256*49 = 25088.
    # bytes in 25088*4 = 100352, out 512*4 = 2048.  512 outputs: 1 block.
    b = GraphBuilder()
    y = b.global_avg_pool(b.input("x", [2, 256, 7, 7]))
    assert cost(b, y) == OpCost(25088, 100352, 2048, "vector", 1)


# ---- elementwise ---------------------------------------------------------------------------


def test_relu_blocks_round_up():
    # 4x5000 = 20000 elements: 20000 FLOPs, 80000 bytes each way, ceil(20000/8192) = 3 blocks.
    b = GraphBuilder()
    y = b.relu(b.input("x", [4, 5000]))
    assert cost(b, y) == OpCost(20000, 80000, 80000, "vector", 3)


@pytest.mark.parametrize(("n", "blocks"), [(8192, 1), (8193, 2), (16384, 2), (16385, 3)])
def test_vector_block_boundaries(n, blocks):
    # n f16 elements: n FLOPs (relu), 2n bytes each way; a block holds 8192 outputs.
    b = GraphBuilder()
    y = b.relu(b.input("x", [n], "f16"))
    assert cost(b, y) == OpCost(n, 2 * n, 2 * n, "vector", blocks)


def test_add_broadcast():
    # 8x16 + 16 -> 8x16: 128 FLOPs; bytes in 128*4 + 16*4 = 576, out 512.
    b = GraphBuilder()
    y = b.add(b.input("a", [8, 16]), b.input("b", [16]))
    assert cost(b, y) == OpCost(128, 576, 512, "vector", 1)


@pytest.mark.parametrize(
    ("method", "flops"),
    [
        # 2x3 f16 = 6 elements; FLOPs per element: sigmoid 4, silu 5, relu6 2, relu 1.
        ("sigmoid", 24),
        ("silu", 30),
        ("relu6", 12),
        ("relu", 6),
    ],
)
def test_unary_per_element(method, flops):
    # 6 f16 elements = 12 bytes in and out.
    b = GraphBuilder()
    y = getattr(b, method)(b.input("x", [2, 3], "f16"))
    assert cost(b, y) == OpCost(flops, 12, 12, "vector", 1)


@pytest.mark.parametrize(
    ("method", "flops"),
    [
        # 2x3 f16 = 6 elements; vector ops per element: neg 1, reciprocal / sqrt / rsqrt 2,
        # exp / log 3, tanh 5, erf 8, gelu (erf form) 11.
        ("neg", 6),
        ("reciprocal", 12),
        ("sqrt", 12),
        ("rsqrt", 12),
        ("exp", 18),
        ("log", 18),
        ("tanh", 30),
        ("erf", 48),
        ("gelu", 66),
    ],
)
def test_math_unary_per_element(method, flops):
    # 6 f16 elements = 12 bytes in and out.
    b = GraphBuilder()
    y = getattr(b, method)(b.input("x", [2, 3], "f16"))
    assert cost(b, y) == OpCost(flops, 12, 12, "vector", 1)


def test_gelu_tanh_form_and_math_binary():
    # 5 f32 elements: gelu tanh form 10 per element (50); div 2 (10), maximum and minimum 1
    # (5), pow 7 (35); a binary op reads 40 bytes and writes 20.
    b = GraphBuilder()
    x, z = b.input("x", [5]), b.input("z", [5])
    g = b.gelu(x, approximate="tanh")
    outs = [b.div(x, z), b.maximum(x, z), b.minimum(x, z), b.pow(x, z)]
    b.build([g, *outs])
    assert op_cost(producer(g)) == OpCost(50, 20, 20, "vector", 1)
    costs = [op_cost(producer(t)) for t in outs]
    assert costs == [OpCost(flops, 40, 20, "vector", 1) for flops in (10, 5, 5, 35)]


def test_sub_and_mul():
    # 5 f32 elements: 5 FLOPs, 40 bytes in, 20 out.
    b = GraphBuilder()
    x, z = b.input("x", [5]), b.input("z", [5])
    s = b.sub(x, z)
    m = b.mul(x, z)
    b.build([s, m])
    assert op_cost(producer(s)) == OpCost(5, 40, 20, "vector", 1)
    assert op_cost(producer(m)) == OpCost(5, 40, 20, "vector", 1)


def test_softmax_and_leaky_relu_and_clip():
    # 4x8 = 32 elements, 128 bytes each way: softmax 5 FLOPs each (160), leaky_relu 2 (64),
    # clip 2 (64).
    b = GraphBuilder()
    x = b.input("x", [4, 8])
    s, lr, c = b.softmax(x), b.leaky_relu(x, 0.2), b.clip(x, -1.0, 1.0)
    b.build([s, lr, c])
    assert op_cost(producer(s)) == OpCost(160, 128, 128, "vector", 1)
    assert op_cost(producer(lr)) == OpCost(64, 128, 128, "vector", 1)
    assert op_cost(producer(c)) == OpCost(64, 128, 128, "vector", 1)


def test_batch_norm():
    # x 1x4x3x3 (36 elements), 4 parameters x 4 channels: 2 FLOPs per element (folded scale
    # and shift) = 72.  bytes in 36*4 + 4*(4*4) = 208, out 144.
    b = GraphBuilder()
    scale, offset, mean, variance = (b.const(f32(4)) for _ in range(4))
    y = b.batch_norm(b.input("x", [1, 4, 3, 3]), scale, offset, mean, variance)
    assert cost(b, y) == OpCost(72, 208, 144, "vector", 1)


def test_elementwise_on_nc1hwc0_counts_logical_flops_physical_bytes():
    # f16 1x17x2x2 NC1HWC0: 68 logical elements -> 68 FLOPs; physical 1x2x2x2x16 = 128
    # elements = 256 bytes each way (the padding lanes are moved too).
    b = GraphBuilder()
    y = b.relu(b.input("x", [1, 17, 2, 2], "f16", format="NC1HWC0"))
    assert cost(b, y) == OpCost(68, 256, 256, "vector", 1)


def test_cast():
    # f32 -> f16, 10 elements: 10 FLOPs, 40 bytes in, 20 out.
    b = GraphBuilder()
    y = b.cast(b.input("x", [10]), "f16")
    assert cost(b, y) == OpCost(10, 40, 20, "vector", 1)


# ---- data movement ----------------------------------------------------------------------------


def test_trans_data_to_nc1hwc0_counts_padding():
    # f16 1x17x8x8 NCHW -> NC1HWC0: in 1088 elements = 2176 bytes; out physical
    # 1x2x8x8x16 = 2048 elements = 4096 bytes (15 of the 32 channel lanes are padding).
    # No FLOPs; 1088 logical outputs: 1 block.
    b = GraphBuilder()
    y = b.trans_data(b.input("x", [1, 17, 8, 8], "f16"), "NC1HWC0")
    assert cost(b, y) == OpCost(0, 2176, 4096, "vector", 1)


def test_trans_data_from_nc1hwc0():
    # The way back: 4096 bytes in, 2176 out.
    b = GraphBuilder()
    y = b.trans_data(b.input("x", [1, 17, 8, 8], "f16", format="NC1HWC0"), "NCHW")
    assert cost(b, y) == OpCost(0, 4096, 2176, "vector", 1)


def test_trans_data_int8_c0_32():
    # i8 1x33x2x2 -> NC1HWC0 with C0 = 32 (1-byte type): in 132 bytes; out 1x2x2x2x32 = 256.
    b = GraphBuilder()
    y = b.trans_data(b.input("x", [1, 33, 2, 2], "i8"), "NC1HWC0")
    assert cost(b, y) == OpCost(0, 132, 256, "vector", 1)


def test_trans_data_fp32_c0_8():
    # f32 1x9x2x2 -> NC1HWC0 with C0 = 8: in 36*4 = 144 bytes; out 1x2x2x2x8 = 64 elements
    # = 256 bytes.
    b = GraphBuilder()
    y = b.trans_data(b.input("x", [1, 9, 2, 2]), "NC1HWC0", c0=8)
    assert cost(b, y) == OpCost(0, 144, 256, "vector", 1)


def test_trans_data_to_fractal_z():
    # f16 weight 20x3x3x3 (540 elements, 1080 bytes) -> FRACTAL_Z
    # [C1*H*W, ceil(N/16), 16, C0] = [1*3*3, 2, 16, 16] = 4608 elements = 9216 bytes.
    b = GraphBuilder()
    y = b.trans_data(b.input("w", [20, 3, 3, 3], "f16"), "FRACTAL_Z")
    assert cost(b, y) == OpCost(0, 1080, 9216, "vector", 1)


def test_moves_have_no_flops():
    # 2x3x4 f32 (24 elements, 96 bytes): reshape, transpose, identity and flatten move data
    # only; concat of two of them: 192 bytes in, 192 out.
    b = GraphBuilder()
    x = b.input("x", [2, 3, 4])
    ops = [b.reshape(x, [6, 4]), b.transpose(x, [2, 0, 1]), b.identity(x), b.flatten(x)]
    c = b.concat([x, x], axis=0)
    b.build([*ops, c])
    for t in ops:
        assert op_cost(producer(t)) == OpCost(0, 96, 96, "vector", 1)
    assert op_cost(producer(c)) == OpCost(0, 192, 192, "vector", 1)


# ---- collectives and ops without work ----------------------------------------------------------


def test_all_reduce():
    # sum over 8 ranks of 1024 f32: 7 additions per element = 7168 FLOPs; 4096 bytes each
    # way; unit comm, one block.
    b = GraphBuilder()
    y = b.hcom_all_reduce(b.input("x", [1024]), "sum", "world", 8)
    assert cost(b, y) == OpCost(7168, 4096, 4096, "comm", 1)


def test_all_reduce_large_is_one_block():
    # 100000 f16 elements over 2 ranks: 100000 FLOPs, 200000 bytes each way, still 1 block.
    b = GraphBuilder()
    y = b.hcom_all_reduce(b.input("x", [100000], "f16"), "max", "dp", 2)
    assert cost(b, y) == OpCost(100000, 200000, 200000, "comm", 1)


def test_all_gather():
    # f16 2x8 over 4 ranks -> 8x8: no FLOPs, 32 bytes in, 128 out, comm, 1 block.
    b = GraphBuilder()
    y = b.hcom_all_gather(b.input("x", [2, 8], "f16"), "world", 4)
    assert y.shape == (8, 8)
    assert cost(b, y) == OpCost(0, 32, 128, "comm", 1)


def test_const_has_no_cost():
    # A constant does no work, even a large or NC1HWC0 one.
    b = GraphBuilder()
    c = b.const(f32(64, 64))
    h = b.const(np.ones((1, 17, 2, 2), np.float16), format="NC1HWC0")
    y = b.add(b.input("x", [64, 64]), c)
    b.build([y, h])
    assert op_cost(producer(c)) == OpCost(0, 0, 0, "none", 0)
    assert op_cost(producer(h)) == NO_COST


def test_wait_tensor_has_no_cost():
    # stream.wait_tensor is an identity for ordering: no work.
    b = GraphBuilder()
    x, d = b.input("x", [4]), b.input("d", [4])
    w = b.wait_tensor(x, b.relu(d))
    y = b.relu(w)
    b.build([y])
    assert op_cost(producer(w)) == OpCost(0, 0, 0, "none", 0)
