"""Shape maths shared by the verifiers, the builder and the interpreters."""

from __future__ import annotations

from collections.abc import Sequence


def broadcast_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...] | None:
    """numpy's broadcast of two shapes, or None when they do not broadcast."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and 1 not in (da, db):
            return None
        out.append(db if da == 1 else da)
    return tuple(reversed(out))


def conv_output_size(
    size: int, kernel: int, stride: int, pad_begin: int, pad_end: int, dilation: int = 1
) -> int:
    """Output length of a convolution along one spatial dim (< 1 when the kernel does not fit)."""
    return (size + pad_begin + pad_end - dilation * (kernel - 1) - 1) // stride + 1


def pool_output_size(
    size: int, kernel: int, stride: int, pad_begin: int, pad_end: int, ceil_mode: bool
) -> int:
    """Output length of a pooling window sweep (ONNX/PyTorch rule).

    With `ceil_mode` the last window may overhang the padded input, but it must start inside
    the input or its leading padding.
    """
    span = size + pad_begin + pad_end - kernel
    if ceil_mode:
        out = -(-span // stride) + 1
        if (out - 1) * stride >= size + pad_begin:
            out -= 1
        return out
    return span // stride + 1
