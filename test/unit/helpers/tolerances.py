"""Comparing numbers by the project's rule, plus NC1HWC0 padding-lane checks.

A plain helper module for the unit tests (`from helpers.tolerances import assert_close`).
The comparison (`|a - b| <= atol + rtol*|ref|`, `atol = k*max|ref|`; fp32 rtol 1e-4, k
1e-5; fp16 rtol 1e-2, k 1e-2; integers and data movement exact) is
`ge_dialect.utils.tolerance`, asserted with a message by `support.assert_close`, re-exported
here so that it is written once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ge_dialect.utils import layout
from helpers.support import assert_close, assert_exact

__all__ = [
    "assert_close",
    "assert_exact",
    "assert_padding_zero",
    "padding_mask",
    "with_garbage_padding",
]


def padding_mask(shape: Sequence[int], c0: int) -> np.ndarray:
    """Boolean mask, of the NC1HWC0 physical shape of the logical NCHW `shape`, that is True
    on padding lanes (channel c1*C0 + c0 >= C); computed with `ge_dialect.utils.layout`."""
    live = layout.nchw_to_nc1hwc0(np.ones(tuple(shape), dtype=bool), c0)
    return ~live


def assert_padding_zero(physical: np.ndarray, shape: Sequence[int], c0: int) -> None:
    """Every padding lane of an NC1HWC0 array is exactly zero."""
    mask = padding_mask(shape, c0)
    assert physical.shape == mask.shape, f"shape {physical.shape}, expected {mask.shape}"
    bad = physical[mask]
    assert not np.any(bad != 0), f"{int(np.count_nonzero(bad))} nonzero padding lanes"


def with_garbage_padding(
    physical: np.ndarray, shape: Sequence[int], c0: int, rng: np.random.Generator
) -> np.ndarray:
    """A copy of an NC1HWC0 array whose padding lanes hold random nonzero values."""
    mask = padding_mask(shape, c0)
    out = np.array(physical, copy=True)
    count = int(mask.sum())
    if np.issubdtype(out.dtype, np.integer):
        garbage = rng.integers(1, 100, count)
    else:
        garbage = rng.uniform(0.5, 4.0, count) * rng.choice([-1, 1], count)
    out[mask] = garbage.astype(out.dtype)
    return out
