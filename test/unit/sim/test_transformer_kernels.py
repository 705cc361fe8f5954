"""The transformer kernels (flash_attention, rotary_mul) and the interpreter against numpy
formulas written here, their cost, their time on the device model, and the builder.

Three spellings of attention: the kernel (key tiles with an online softmax, in fp32), the
interpreter (the whole score matrix, float64) and the reference here (one query row at a
time, with explicit loops over heads and rows).  The rotary reference multiplies by the
matrix of rotate_half.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.support import assert_close

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir import cost
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.sim import kernel_model
from ge_dialect.sim.kernels import Operand, run_kernel
from ge_dialect.sim.kernels import transformer as kernels
from ge_dialect.sim.profile import load_profile
from ge_dialect.sim.timing import simulate_time
from ge_dialect.utils.errors import GeError


def rand(shape, dtype, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape).astype(dtype)


def nd(a: np.ndarray) -> Operand:
    return Operand(tuple(a.shape), a.dtype, "ND")


def attention(q, k, v, mask, scale, causal) -> np.ndarray:
    """One query row at a time, in float64: its scores, the masked positions left out, the
    softmax, the weighted sum of values; a row that sees no key is zeros."""
    b, n, sq, _ = q.shape
    nkv, skv, dv = k.shape[1], k.shape[2], v.shape[3]
    out = np.zeros((b, n, sq, dv))
    full = None if mask is None else np.broadcast_to(mask, (b, n, sq, skv))
    for bi in range(b):
        for h in range(n):
            g = h // (n // nkv)
            for i in range(sq):
                scores, rows = [], []
                for j in range(skv):
                    if causal and j > i + skv - sq:
                        continue
                    s = scale * float(np.dot(q[bi, h, i].astype(np.float64), k[bi, g, j]))
                    if full is not None and full.dtype == np.bool_:
                        if not full[bi, h, i, j]:
                            continue
                    elif full is not None:
                        s += float(full[bi, h, i, j])
                    if s != -np.inf:
                        scores.append(s)
                        rows.append(v[bi, g, j].astype(np.float64))
                if scores:
                    e = np.exp(np.array(scores) - max(scores))
                    out[bi, h, i] = (e[:, None] * np.array(rows)).sum(axis=0) / e.sum()
    return out


# (name, q shape, kv heads, Skv, Dv, mask: None | "keep" | "add" with its shape, causal)
CASES = [
    ("mha", (2, 2, 5, 8), 2, 5, 8, None, False),
    ("gqa-keep", (1, 4, 6, 8), 2, 9, 4, ("keep", (1, 1, 6, 9)), False),
    ("add-causal", (1, 2, 4, 8), 2, 7, 8, ("add", (4, 7)), True),
    ("decode-mqa", (2, 4, 1, 8), 1, 11, 6, ("add", (2, 1, 1, 11)), False),
    ("causal-square", (1, 2, 7, 4), 1, 7, 4, None, True),
]


def case_inputs(case, dtype):
    _, qs, nkv, skv, dv, mask, causal = case
    b, n, sq, d = qs
    q = rand(qs, dtype, 1)
    k = rand((b, nkv, skv, d), dtype, 2)
    v = rand((b, nkv, skv, dv), dtype, 3)
    m = None
    if mask is not None:
        kind, shape = mask
        rng = np.random.default_rng(4)
        if kind == "keep":
            m = rng.uniform(0, 1, shape) > 0.4
            m[..., 0] = True  # every row keeps a key
        else:
            m = rng.uniform(-3, 0, shape).astype(dtype)
            m[..., 1] = -np.inf
    return q, k, v, m, 0.3, causal


@pytest.mark.parametrize("tile", [3, kernels.KV_TILE])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_flash_attention_kernel_and_interpreter_match_the_reference(case, dtype, tile, monkeypatch):
    monkeypatch.setattr(kernels, "KV_TILE", tile)  # 3: several tiles, the last one short
    q, k, v, m, scale, causal = case_inputs(case, dtype)
    expected = attention(q, k, v, m, scale, causal)
    inputs = [q, k, v] + ([m] if m is not None else [])
    out = np.zeros(expected.shape, dtype)
    attrs = {"scale": scale, "causal": causal}
    (got,) = run_kernel("flash_attention", inputs, [nd(a) for a in inputs], [nd(out)], attrs)
    assert_close(got, expected, dtype)

    b = GraphBuilder()
    handles = [b.input(f"x{i}", a.shape, a.dtype) for i, a in enumerate(inputs)]
    mask = handles[3] if m is not None else None
    y = b.flash_attention(handles[0], handles[1], handles[2], mask, scale, causal)
    (interpreted,) = run_function(b.build([y]), inputs)
    assert_close(interpreted, expected, dtype)


def test_a_row_that_sees_no_key_is_zeros():
    q, k, v = rand((1, 1, 3, 4), np.float32), rand((1, 1, 4, 4), np.float32, 1), None
    v = rand((1, 1, 4, 2), np.float32, 2)
    keep = np.array([[True, False, True, False], [False] * 4, [True] * 4])
    expected = attention(q, k, v, keep, 0.5, False)
    assert (expected[0, 0, 1] == 0).all() and (expected[0, 0, 0] != 0).all()
    out = np.zeros(expected.shape, np.float32)
    ins = [q, k, v, keep]
    (got,) = run_kernel("flash_attention", ins, [nd(a) for a in ins], [nd(out)], {"scale": 0.5})
    assert_close(got, expected, np.float32)
    b = GraphBuilder()
    handles = [b.input(f"x{i}", a.shape, a.dtype) for i, a in enumerate(ins)]
    y = b.flash_attention(handles[0], handles[1], handles[2], handles[3], 0.5)
    (interpreted,) = run_function(b.build([y]), ins)
    assert_close(interpreted, expected, np.float32)


@pytest.mark.parametrize("shape", [(1, 2, 3, 0), (0, 2, 0, 4)], ids=["no-keys", "empty"])
def test_empty_shapes_run_everywhere(shape):
    """No key at all: every row is zeros; an empty batch: an empty result."""
    b_, n, sq, skv = shape
    b = GraphBuilder()
    q = b.input("q", (b_, n, sq, 8), "f32")
    k = b.input("k", (b_, n, skv, 8), "f32")
    module = b.build([b.flash_attention(q, k, k, None, 0.5, causal=sq <= skv, name="y")])
    inputs = {"q": rand((b_, n, sq, 8), np.float32), "k": rand((b_, n, skv, 8), np.float32)}
    expected = api.reference(module, inputs)["y"]
    assert expected.shape == (b_, n, sq, 8) and not expected.any()
    device = api.compile(module, "lower-to-device,plan-memory")
    np.testing.assert_array_equal(api.simulate(device, inputs).outputs["y"], expected)


def rotary(x, cos, sin) -> np.ndarray:
    """x * cos + (x @ R) * sin, R the matrix of rotate_half."""
    d = x.shape[-1]
    h = d // 2
    r = np.zeros((d, d))
    r[np.arange(h) + h, np.arange(h)] = -1  # out[i] = -x[i + h] for i < h
    r[np.arange(h), np.arange(h) + h] = 1  # out[i + h] = x[i]
    x64 = x.astype(np.float64)
    return x64 * cos + (x64 @ r) * sin


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("cos_shape", [(1, 3, 5, 8), (5, 8), (1, 1, 5, 8)])
def test_rotary_mul_kernel_and_interpreter_match_the_reference(dtype, cos_shape):
    x = rand((2, 3, 5, 8), dtype)
    cos, sin = rand(cos_shape, dtype, 1), rand(cos_shape, dtype, 2)
    expected = rotary(x, cos, sin)
    ins = [x, cos, sin]
    (got,) = run_kernel("rotary_mul", ins, [nd(a) for a in ins], [nd(x)], {})
    assert_close(got, expected, dtype)
    b = GraphBuilder()
    xh, ch, sh = (b.input(f"x{i}", a.shape, a.dtype) for i, a in enumerate(ins))
    y = b.rotary_mul(xh, ch, sh)
    (interpreted,) = run_function(b.build([y]), ins)
    assert_close(interpreted, expected, dtype)


def test_the_simulator_runs_both_ops_as_the_interpreter():
    q, k, v, m, scale, causal = case_inputs(CASES[1], np.float16)
    b = GraphBuilder()
    handles = [
        b.input(name, a.shape, a.dtype) for name, a in zip("qkvm", (q, k, v, m), strict=True)
    ]
    c = b.input("c", (6, 8), np.float16)
    qr = b.rotary_mul(handles[0], c, c)
    y = b.flash_attention(qr, handles[1], handles[2], handles[3], scale, name="y")
    module = b.build([y])
    inputs = {"q": q, "k": k, "v": v, "m": m, "c": rand((6, 8), np.float16, 5)}
    expected = api.reference(module, inputs)["y"]
    device = api.compile(module, "lower-to-device,plan-memory")
    assert_close(api.simulate(device, inputs).outputs["y"], expected, np.float16)


# --------------------------------------------------------------------------------------
# Cost, device time, builder
# --------------------------------------------------------------------------------------


def _attention_module(b_, n, nkv, sq, skv, d, dtype="f16", mask=False):
    b = GraphBuilder()
    q = b.input("q", (b_, n, sq, d), dtype)
    k = b.input("k", (b_, nkv, skv, d), dtype)
    v = b.input("v", (b_, nkv, skv, d), dtype)
    m = b.input("m", (1, 1, sq, skv), "i1") if mask else None
    return b.build([b.flash_attention(q, k, v, m, causal=sq <= skv and not mask)])


def _op(module, name):
    return next(op for op in module.walk() if op.name == name)


def test_cost_moves_no_scores_and_counts_both_gemms():
    module = _attention_module(2, 8, 2, 128, 256, 64, mask=True)
    c = cost.op_cost(_op(module, "ge.flash_attention"))
    q, kv, mask, out = 2 * 8 * 128 * 64 * 2, 2 * 2 * 256 * 64 * 2, 128 * 256, 2 * 8 * 128 * 64 * 2
    assert (c.bytes_in, c.bytes_out, c.unit) == (q + 2 * kv + mask, out, "cube")
    scores = 2 * 8 * 128 * 256
    assert c.flops == 2 * scores * 128 + 6 * scores + 2 * 8 * 128 * 64
    assert c.blocks == 16 * 8 * 4  # [B*N] x (128/16) x (64/16) output fractals
    # causal (bottom-right): query i of 4 sees i + 6 - 4 + 1 of 6 keys, 3 + 4 + 5 + 6 = 18
    causal = cost.op_cost(_op(_attention_module(1, 1, 1, 4, 6, 16), "ge.flash_attention"))
    assert causal.flops == 2 * 18 * 32 + 5 * 18 + 4 * 16


PROFILE = load_profile()


def _seconds(module) -> float:
    device = api.compile(module, "lower-to-device,plan-memory")
    return simulate_time(api.device_program(device), PROFILE).makespan


def test_device_time_is_a_cube_kernel_reading_kv_once_when_it_fits_in_l2():
    module = _attention_module(1, 8, 8, 512, 512, 64)
    device = api.compile(module, "lower-to-device,plan-memory")
    (task,) = [t for t in api.device_program(device).tasks if t.kernel == "flash_attention"]
    k = kernel_model.kernel_time(task, PROFILE)
    assert k.unit == "cube" and k.blocks == min(PROFILE.cube_cores, k.tiles) and k.tiles == 32
    moved = (k.blocks - k.short) * k.hbm_bytes + k.short * k.short_bytes
    assert moved == pytest.approx(task.cost.bytes_in + task.cost.bytes_out)


def test_fused_attention_is_faster_than_its_chain_and_decoding_is_memory_bound():
    b = GraphBuilder()
    q, k, v = (b.input(x, (1, 8, 1024, 64), "f16") for x in "qkv")
    s = b.matmul(q, k, transpose_b=True)
    y = b.matmul(b.softmax(b.mul(s, b.const(np.float16(0.125)))), v)
    assert _seconds(_attention_module(1, 8, 8, 1024, 1024, 64)) < _seconds(b.build([y]))
    # one query row per head: the time grows with the keys read, about linearly
    short = _seconds(_attention_module(1, 8, 8, 1, 4096, 128))
    long = _seconds(_attention_module(1, 8, 8, 1, 16384, 128))
    assert 2 < long / short <= 4


def test_builder_checks_ranks_and_defaults_the_scale():
    b = GraphBuilder()
    q = b.input("q", (2, 4, 8), "f32")
    with pytest.raises(GeError, match="flash_attention's query must have rank 4"):
        b.flash_attention(q, q, q)
    q4 = b.input("q4", (1, 2, 3, 16), "f32")
    y = b.flash_attention(q4, q4, q4)
    op = y.value.owner
    assert isinstance(op, ge.FlashAttentionOp)
    assert op.scale.value.data == 0.25 and op.causal is None and op.mask is None
