"""The one rule numbers are judged by: `ge-run --check`, the API and the tests all call it.

    |actual - expected| <= k * max|expected| + rtol * |expected|

with (rtol, k) chosen by the dtype of the computed array (`dtypes.tolerance`): fp32 rtol
1e-4, k 1e-5 (a whole model against another implementation: rtol 1e-3, k 1e-4); fp16 rtol
1e-2, k 1e-2, whole model or not; integers and booleans exactly.  Equal values (equal
infinities, NaN against NaN) always agree; `max|expected|` is over its finite elements.
"""

from __future__ import annotations

import numpy as np

from ge_dialect.utils import dtypes

Tolerance = tuple[float, float]
"""(rtol, k)."""


def tolerance_for(dtype: np.dtype | type | str, *, whole_model: bool = False) -> Tolerance | None:
    """(rtol, k) for an array of `dtype` (None: exact); see the module's rule."""
    return dtypes.tolerance(dtype, whole_model=whole_model)


def max_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """The largest absolute difference (inf when shapes differ or only one is NaN)."""
    if actual.shape != expected.shape:
        return float("inf")
    a = actual.astype(np.float64)
    b = np.asarray(expected).astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.where(both_nan, 0.0, np.abs(a - b))
    return float(np.nan_to_num(diff, nan=np.inf).max(initial=0.0))


def bounds(expected: np.ndarray, tolerance: Tolerance) -> np.ndarray:
    """The largest |actual - expected| allowed per element (float64)."""
    rtol, k = tolerance
    b = np.asarray(expected).astype(np.float64)
    scale = float(np.abs(b[np.isfinite(b)]).max(initial=0.0))
    return k * scale + rtol * np.abs(b)


def outside(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance | None) -> np.ndarray:
    """The elements of `actual` (same shape as `expected`) that break the rule: a boolean
    array; with `tolerance` None, those that differ at all."""
    a = np.asarray(actual)
    b = np.asarray(expected)
    if tolerance is None:
        return ~((a == b) | (_is_nan(a) & _is_nan(b)))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    same = (a64 == b64) | (np.isnan(a64) & np.isnan(b64))
    with np.errstate(invalid="ignore"):  # inf - inf: `same` decides
        return ~(same | (np.abs(a64 - b64) <= bounds(b64, tolerance)))


def _is_nan(x: np.ndarray) -> np.ndarray:
    return np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)


def within_tolerance(
    actual: np.ndarray,
    expected: np.ndarray,
    tolerance: Tolerance | None = None,
    *,
    whole_model: bool = False,
) -> bool:
    """Whether `actual` equals `expected` by the rule: with `tolerance` (rtol, k) given, by
    it; else by the dtype of `actual` (`whole_model`: a whole model against another
    implementation).  Different shapes never agree."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        return False
    if tolerance is None:
        tolerance = tolerance_for(actual.dtype, whole_model=whole_model)
    return not bool(outside(actual, expected, tolerance).any())
