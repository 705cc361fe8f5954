"""`--fuse-attention`: attention and rotary chains -> `ge.flash_attention`, `ge.rotary_mul`.

The patterns, written with `transforms.authoring` (docs/patterns.md):

- `attention` / `attention-flat`: matmul(q, transpose(k)) [* or / a scalar constant]
  [where(keep, ., fill)] [+ mask] -> softmax over the last axis [-> identity] -> matmul(., v)
  becomes one `ge.flash_attention`.  The matmuls are 4-D, or (`attention-flat`) 3-D
  between reshapes that merge and split the batch and head dims, as `torch.export` writes
  a 4-D `torch.matmul`.  The key may come transposed by any `ge.transpose` (or by the
  matmul's `transpose_b`): the fused op gets the key as [B, N, Skv, D], through one
  transpose when it is not already;
- `attention-gqa`: a `ge.flash_attention` whose key and value are Hugging Face's
  `repeat_kv` (reshape, expand, reshape; or one expand of a single head) reads the
  unrepeated key and value instead (grouped-query attention);
- `attention-causal-mask`: a `ge.flash_attention` whose mask is a constant that is
  exactly the causal one drops it for its `causal` attribute;
- `rotary`: x * cos + rotate_half(x) * sin, with rotate_half(x) = concat(-x2, x1) of the
  two halves of the last dim taken by `ge.slice` (Hugging Face Llama's
  `apply_rotary_pos_emb`) -> `ge.rotary_mul`.

Legal when every intermediate result has one use (by the next op of the chain), the ops
share their stream label (the framework's check), every tensor has the default layout, the
softmax is over the last axis, the scale is a finite nonzero scalar constant, and the masks
broadcast to the scores [B, N, Sq, Skv] without growing them.  A `where(keep, s, fill)`
mask needs a constant i1 `keep` that leaves every query row at least one key and a fill of
at most -1e4 (its exp underflows to 0 next to the kept scores, as the fused op's exclusion
does); a keep mask that is the causal one becomes the `causal` attribute, as does a
constant additive mask that is 0 on the causal positions and at most -1e4 elsewhere.  A
keep mask other than the causal one together with an additive mask other than the causal
one is not fused (the op has one mask).  The numbers do not change beyond rounding: the
fused op computes the same softmax in one piece.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.shapes import broadcast_shape
from transforms.authoring import (
    Match,
    Matcher,
    OpMatcher,
    Pattern,
    const,
    one_of,
    op,
    pattern_pass,
    value,
)

MASKED = -1e4
"""A fill or additive mask value at most this excludes its position."""


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def _default_layout(values: Sequence[SSAValue]) -> bool:
    return all(
        isinstance(v.type, TensorType) and not isinstance(v.type.encoding, ge.FormatAttr)
        for v in values
    )


def _array(v: SSAValue) -> np.ndarray:
    owner = v.owner
    assert isinstance(owner, ge.ConstOp)
    return owner.logical_array()


def _scalar(a: np.ndarray) -> bool:
    return a.size == 1 and bool(np.isfinite(a).all()) and float(a.reshape(-1)[0]) != 0


def _fits(shape: tuple[int, ...], scores: tuple[int, ...]) -> bool:
    """`shape` broadcasts to `scores` without growing it."""
    return len(shape) <= len(scores) and broadcast_shape(shape, scores) == scores


def _causal(sq: int, skv: int) -> np.ndarray:
    """The causal keep mask, aligned bottom-right: query i sees keys j <= i + skv - sq."""
    return np.arange(skv)[None, :] <= np.arange(sq)[:, None] + (skv - sq)


def _is_causal_keep(a: np.ndarray, scores: tuple[int, ...]) -> bool:
    return bool((np.broadcast_to(a, scores) == _causal(*scores[2:])).all())


def _is_causal_additive(a: np.ndarray, scores: tuple[int, ...]) -> bool:
    full = np.broadcast_to(a, scores)
    keep = np.broadcast_to(_causal(*scores[2:]), scores)
    return bool((full[keep] == 0).all() and (full[~keep] <= MASKED).all())


def _same_element_type(a: SSAValue, b: SSAValue) -> bool:
    return (
        isinstance(a.type, TensorType)
        and isinstance(b.type, TensorType)
        and (a.type.element_type == b.type.element_type)
    )


def _through_identity(inner: Matcher) -> Matcher:
    """`inner`, or a `ge.identity` of it (what a dropout in eval mode becomes)."""
    return one_of(op(ge.IdentityOp, inner, single_use=True), inner)


def _merged(four: tuple[int, ...], three: tuple[int, ...]) -> bool:
    """`three` is `four` with its first two dims merged."""
    return len(four) == 4 and three == (four[0] * four[1], *four[2:])


# --------------------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------------------

_KEY = one_of(op(ge.TransposeOp, "k", single_use=True, bind="k_perm"), "k")
"""The matmul's second operand: a transpose of the key (absorbed), or the key itself."""

_QK = one_of(
    op(
        ge.ReshapeOp,
        op(
            ge.MatMulOp,
            op(ge.ReshapeOp, "q", single_use=True, bind="q_flat"),
            op(ge.ReshapeOp, _KEY, single_use=True, bind="k_flat"),
            bias=None,
            transpose_a=None,
            single_use=True,
            bind="qk",
        ),
        single_use=True,
        bind="qk_unflat",
    ),
    op(ge.MatMulOp, "q", _KEY, bias=None, transpose_a=None, single_use=True, bind="qk"),
)
_SCALED = one_of(
    op((ge.MulOp, ge.DivOp), _QK, const("scale", where=_scalar), single_use=True, bind="scale_op"),
    _QK,
)
_KEPT = one_of(
    op(
        ge.WhereOp,
        const("keep", dtype="i1"),
        _SCALED,
        const("fill", where=lambda a: a.size == 1 and float(a.reshape(-1)[0]) <= MASKED),
        single_use=True,
    ),
    _SCALED,
)
_MASKED = one_of(op(ge.AddOp, _KEPT, value("mask"), single_use=True, bind="add"), _KEPT)
_PROBS = _through_identity(op(ge.SoftmaxOp, _MASKED, single_use=True, bind="softmax"))


class _Attention(Pattern):
    """The attention chain -> `ge.flash_attention` (see the module's docstring):

        %kt = ge.transpose %k perm [0, 1, 3, 2]
        %s = ge.matmul %q, %kt
        %t = ge.mul %s, %c                      (%c = ge.const dense<0.125> : tensor<f32>)
        %u = ge.add %t, %mask
        %p = ge.softmax %u axis 3
        %o = ge.matmul %p, %v
    ->
        %o = ge.flash_attention %q, %k, %v mask %mask scale 1.250000e-01
    """

    def rewrite(self, m: Match) -> list[Operation] | None:
        q, k, v = m.q, m.k, m.v
        qk: ge.MatMulOp = m.qk
        b4 = qk.b if "k_flat" not in m.bound else m.k_flat.input
        if not (len(_shape(q)) == len(_shape(b4)) == len(_shape(k)) == len(_shape(v)) == 4):
            return None
        b, n, sq, d = _shape(q)
        skv, dv = _shape(v)[2:]
        scores = (b, n, sq, skv)
        swap = [0, 1, 3, 2]
        perm = list(m.k_perm.perm.get_values()) if "k_perm" in m.bound else [0, 1, 2, 3]
        key_perm = perm if qk.transpose_b is not None else [perm[s] for s in swap]
        key_shape = tuple(_shape(k)[p] for p in key_perm)
        if key_shape != (b, n, skv, d) or _shape(v) != (b, n, skv, dv):
            return None
        if not self._flat_shapes_ok(m, q, b4, v) or m.softmax.axis.value.data != 3:
            return None
        if _shape(m.softmax.output) != scores:
            return None
        mask, causal = self._mask(m, scores)
        if mask is False:
            return None
        values = [q, k, v, m.root.results[0]] + ([mask] if isinstance(mask, SSAValue) else [])
        if not _default_layout(values):
            return None
        new: list[Operation] = []
        key = k
        if key_perm != [0, 1, 2, 3]:
            t = _shape(k)
            k_type = k.type
            assert isinstance(k_type, TensorType)
            transpose = ge.TransposeOp(
                k, key_perm, TensorType(k_type.element_type, [t[p] for p in key_perm])
            )
            new.append(transpose)
            key = transpose.output
        scale = 1.0
        if "scale_op" in m.bound:
            c = float(_array(m.scale).reshape(-1)[0])
            scale = c if isinstance(m.scale_op, ge.MulOp) else 1.0 / c
        new.append(
            ge.FlashAttentionOp(
                q,
                key,
                v,
                mask if isinstance(mask, SSAValue) else None,
                scale,
                m.root.results[0].type,
                causal,
            )
        )
        return new

    def _flat_shapes_ok(self, m: Match, q: SSAValue, b4: SSAValue, v: SSAValue) -> bool:
        """The 4-D matmuls have [B, N] batch dims; the 3-D ones merge exactly them."""
        qk: ge.MatMulOp = m.qk
        pv: ge.MatMulOp = m.pv
        b, n = _shape(q)[:2]
        if "qk_unflat" in m.bound:
            if not (_merged(_shape(q), _shape(qk.a)) and _merged(_shape(b4), _shape(qk.b))):
                return False
        elif _shape(b4)[:2] != (b, n):
            return False
        if "p_flat" in m.bound:
            p4 = m.p_flat.input
            return _merged(_shape(p4), _shape(pv.a)) and _merged(_shape(v), _shape(pv.b))
        return _shape(pv.a)[:2] == (b, n)

    def _mask(self, m: Match, scores: tuple[int, ...]) -> tuple[SSAValue | None | bool, bool]:
        """The fused op's mask (None: none; False: not fusable) and whether it is causal."""
        keep: SSAValue | None = m.bound.get("keep")  # type: ignore[assignment]
        add: SSAValue | None = m.bound.get("mask")  # type: ignore[assignment]
        mask: SSAValue | None = None
        causal = False
        if keep is not None:
            a = _array(keep)
            if not _fits(a.shape, scores) or not np.broadcast_to(a, scores).any(axis=-1).all():
                return False, False
            if _is_causal_keep(a, scores):
                causal = True
            else:
                mask = keep
        if add is not None:
            if not _fits(_shape(add), scores) or not _same_element_type(add, m.q):
                return False, False
            if isinstance(add.owner, ge.ConstOp) and _is_causal_additive(_array(add), scores):
                causal = True  # with a keep mask, if any: both apply
            elif mask is not None:
                return False, False  # a keep mask and an additive one: not fused
            else:
                mask = add
        if causal and scores[2] > scores[3]:
            return False, False  # the op's causal needs Sq <= Skv
        if causal and keep is not None:  # both: every query must still see a key
            both = np.broadcast_to(_array(keep), scores) & _causal(*scores[2:])
            if not both.any(axis=-1).all():
                return False, False
        return mask, causal


class Attention(_Attention):
    name = "attention"
    match = op(
        ge.MatMulOp,
        _PROBS,
        "v",
        bias=None,
        transpose_a=None,
        transpose_b=None,
        bind="pv",
    )


class AttentionFlat(_Attention):
    name = "attention-flat"
    match = op(
        ge.ReshapeOp,
        op(
            ge.MatMulOp,
            op(ge.ReshapeOp, _PROBS, single_use=True, bind="p_flat"),
            op(ge.ReshapeOp, "v", single_use=True, bind="v_flat"),
            bias=None,
            transpose_a=None,
            transpose_b=None,
            single_use=True,
            bind="pv",
        ),
    )


# --------------------------------------------------------------------------------------
# Grouped-query attention and the causal mask, on a flash attention
# --------------------------------------------------------------------------------------


def _repeated(bind: str) -> OpMatcher | Matcher:
    """Hugging Face's repeat_kv of the value bound to `bind`: reshape to [B, Nkv, 1, S, D],
    expand to [B, Nkv, G, S, D], reshape to [B, Nkv * G, S, D]; or, for one head, an
    expand of [B, 1, S, D]."""
    unsqueezed = op(ge.ReshapeOp, bind, single_use=True)
    expanded = op(ge.ExpandOp, unsqueezed, single_use=True)
    return one_of(
        op(ge.ReshapeOp, _through_identity(expanded), single_use=True, bind=f"{bind}_rep"),
        op(ge.ExpandOp, bind, single_use=True, bind=f"{bind}_rep"),
    )


def _repeats(source: SSAValue, repeated: SSAValue) -> bool:
    """`repeated` is `source` [B, Nkv, S, D] with each head repeated G times in a row."""
    src, rep = _shape(source), _shape(repeated)
    if len(src) != 4 or len(rep) != 4 or (src[0], *src[2:]) != (rep[0], *rep[2:]):
        return False
    if isinstance(repeated.owner, ge.ExpandOp):
        return src[1] == 1
    reshape = repeated.owner
    assert isinstance(reshape, ge.ReshapeOp)
    middle = _shape(reshape.input)  # [B, Nkv, G, S, D]
    return len(middle) == 5 and middle[:2] == src[:2] and middle[1] * middle[2] == rep[1]


class AttentionGqa(Pattern):
    """flash_attention(q, repeat_kv(k), repeat_kv(v)) -> flash_attention(q, k, v):

        %k1 = ge.reshape %k : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
        %k2 = ge.expand %k1 : tensor<1x2x1x8x16xf32> -> tensor<1x2x2x8x16xf32>
        %k3 = ge.reshape %k2 : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
        (the same for %v)
        %o = ge.flash_attention %q, %k3, %v3 scale 2.500000e-01
    ->
        %o = ge.flash_attention %q, %k, %v scale 2.500000e-01
    """

    name = "attention-gqa"
    match = op(ge.FlashAttentionOp, key=_repeated("k"), value=_repeated("v"))

    def rewrite(self, m: Match) -> Operation | None:
        fa = m.root
        assert isinstance(fa, ge.FlashAttentionOp)
        k, v = m.k, m.v
        if not (_repeats(k, m.k_rep.results[0]) and _repeats(v, m.v_rep.results[0])):
            return None
        if _shape(k)[1] != _shape(v)[1] or not _default_layout([k, v]):
            return None
        return ge.FlashAttentionOp(
            fa.query,
            k,
            v,
            fa.mask,
            fa.scale.value.data,
            fa.output.type,
            fa.causal is not None,
        )


class AttentionCausalMask(Pattern):
    """A constant mask that is exactly the causal one becomes the `causal` attribute:

        %m = ge.const dense<[[true, false], [true, true]]> : tensor<2x2xi1>
        %o = ge.flash_attention %q, %k, %v mask %m scale 2.500000e-01
    ->
        %o = ge.flash_attention %q, %k, %v scale 2.500000e-01 causal
    """

    name = "attention-causal-mask"
    match = op(ge.FlashAttentionOp, mask=const("mask"), causal=None)

    def rewrite(self, m: Match) -> Operation | None:
        fa = m.root
        assert isinstance(fa, ge.FlashAttentionOp)
        b, n, sq, _ = _shape(fa.query)
        scores = (b, n, sq, _shape(fa.key)[2])
        a = _array(m.mask)
        causal = _is_causal_keep if a.dtype == np.bool_ else _is_causal_additive
        if sq > scores[3] or not causal(a, scores):
            return None
        scale = fa.scale.value.data
        return ge.FlashAttentionOp(fa.query, fa.key, fa.value, None, scale, fa.output.type, True)


# --------------------------------------------------------------------------------------
# Rotary position embedding
# --------------------------------------------------------------------------------------


def _half(s: ge.SliceOp, first: bool) -> bool:
    """`s` takes the first (or second) half of its input's last dim, with step 1."""
    dims = _shape(s.input)
    last = len(dims) - 1
    if list(s.axes.get_values()) != [last] or list(s.steps.get_values()) != [1]:
        return False
    size = dims[last]
    start, stop, _ = slice(s.starts.get_values()[0], s.ends.get_values()[0]).indices(size)
    return (start, stop) == ((0, size // 2) if first else (size // 2, size))


class Rotary(Pattern):
    """x * cos + concat(-x[..., D/2:], x[..., :D/2]) * sin -> rotary_mul(x, cos, sin).

        %lo = ge.slice %x starts [0] ends [4] axes [3] steps [1]
        %hi = ge.slice %x starts [4] ends [8] axes [3] steps [1]
        %n = ge.neg %hi
        %r = ge.concat %n, %lo axis 3
        %a = ge.mul %x, %cos
        %b = ge.mul %r, %sin
        %y = ge.add %a, %b
    ->
        %y = ge.rotary_mul %x, %cos, %sin
    """

    name = "rotary"
    match = op(
        ge.AddOp,
        op(
            ge.MulOp,
            op(
                ge.ConcatOp,
                op(ge.NegOp, op(ge.SliceOp, "x", single_use=True, bind="high"), single_use=True),
                op(ge.SliceOp, "x", single_use=True, bind="low"),
                single_use=True,
                bind="cat",
            ),
            "sin",
            single_use=True,
        ),
        op(ge.MulOp, "x", "cos", single_use=True),
    )

    def rewrite(self, m: Match) -> Operation | None:
        x, cos, sin = m.x, m.cos, m.sin
        shape = _shape(x)
        if not shape or shape[-1] % 2 or m.cat.axis.value.data != len(shape) - 1:
            return None
        if not (_half(m.low, True) and _half(m.high, False)):
            return None
        for t in (cos, sin):
            if not _fits(_shape(t), shape) or not _same_element_type(t, x):
                return None
        if not _default_layout([x, cos, sin]) or m.root.results[0].type != x.type:
            return None
        return ge.RotaryMulOp(x, cos, sin)


FuseAttentionPass = pattern_pass(
    "fuse-attention",
    [Attention, AttentionFlat, AttentionGqa, AttentionCausalMask, Rotary],
    summary=(
        "Fuses attention chains into ge.flash_attention (grouped-query and causal included) "
        "and the rotary embedding into ge.rotary_mul."
    ),
    register=False,
)
