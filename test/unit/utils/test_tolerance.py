"""The one tolerance rule (`utils.tolerance`), chosen by dtype: what `ge-run --check`, the
API and the tests all judge numbers with."""

from __future__ import annotations

import numpy as np
import pytest

from ge_dialect import api
from ge_dialect.utils import tolerance
from ge_dialect.utils.tolerance import max_error, tolerance_for, within_tolerance


@pytest.mark.parametrize(
    "dtype, whole_model, expected",
    [
        (np.float32, False, (1e-4, 1e-5)),
        (np.float32, True, (1e-3, 1e-4)),
        (np.float16, False, (1e-2, 1e-2)),
        (np.float16, True, (1e-2, 1e-2)),  # an fp16 model: fp16's, never fp32's
        (np.int8, False, None),
        (np.int64, True, None),
        (np.bool_, False, None),
    ],
)
def test_the_tolerance_is_chosen_by_dtype(dtype, whole_model, expected):
    assert tolerance_for(dtype, whole_model=whole_model) == expected


def test_the_bound_is_k_times_the_largest_finite_reference_plus_rtol():
    ref = np.array([10.0, -2.0, 0.0, np.inf], np.float32)
    # atol = 1e-5 * 10 = 1e-4; element 0: 1e-4 + 1e-4 * 10 = 1.1e-3
    ok = ref + np.array([1.0e-3, 2.5e-4, 9e-5, 0], np.float32)
    assert within_tolerance(ok, ref)
    too_far = ref + np.array([0, 0, 2e-4, 0], np.float32)
    assert not within_tolerance(too_far, ref)
    assert tolerance.outside(too_far, ref, (1e-4, 1e-5)).tolist() == [False, False, True, False]


def test_fp16_outputs_are_judged_with_fp16_tolerances_also_as_a_whole_model():
    # an error of one fp16 ulp of the largest output (rounding that carries through a graph)
    ref = np.array([0.01, 1.0], np.float16)
    off = ref + np.array([np.spacing(np.float16(1.0)), 0], np.float16)
    assert within_tolerance(off, ref, whole_model=True)
    assert not within_tolerance(off, ref, (1e-3, 1e-4))  # fp32's whole-model rule


def test_integers_are_exact_and_nan_agrees_only_with_nan():
    a = np.array([1, 2, 3], np.int32)
    assert within_tolerance(a, a.copy())
    assert not within_tolerance(a, a + np.array([0, 0, 1], np.int32))
    x = np.array([np.nan, 1.0], np.float32)
    assert within_tolerance(x, x.copy())
    assert not within_tolerance(np.array([0.0, 1.0], np.float32), x)
    assert not within_tolerance(np.zeros(2, np.float32), np.zeros(3, np.float32))


def test_max_error():
    a = np.array([1.0, np.nan, 3.0], np.float32)
    assert max_error(a, np.array([1.5, np.nan, 3.0], np.float32)) == 0.5
    assert max_error(a, np.array([1.0, 0.0, 3.0], np.float32)) == np.inf
    assert max_error(a, np.zeros(2, np.float32)) == np.inf


def test_the_api_exposes_the_one_rule():
    assert api.within_tolerance is within_tolerance and api.max_error is max_error
