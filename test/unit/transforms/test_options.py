"""Pass options typed as Literal: one clear message from the pipeline and from Python."""

from __future__ import annotations

import pytest
from xdsl.passes import PassPipeline

from ge_dialect.utils.errors import OptionError
from transforms import get_all_passes, parse_pipeline
from transforms.assign_streams import AssignStreamsPass
from transforms.options import literal_option_error
from transforms.to_nc1hwc0 import ToNC1HWC0Pass


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: AssignStreamsPass(mode="fast"), "assign-streams: mode must be labels, auto or single, got 'fast'"),  # type: ignore[arg-type]
        (lambda: AssignStreamsPass(max_streams=0), "assign-streams: max-streams must be at least 1, got 0"),
        (lambda: ToNC1HWC0Pass(boundary="NC1HWC0"), "to-nc1hwc0: boundary must be keep or nc1hwc0, got 'NC1HWC0'"),  # type: ignore[arg-type]
        (lambda: ToNC1HWC0Pass(fp32_c0=8.0), "to-nc1hwc0: fp32-c0 must be 16 or 8, got 8.0"),  # type: ignore[arg-type]
        (lambda: ToNC1HWC0Pass(fp32_c0=True), "to-nc1hwc0: fp32-c0 must be 16 or 8, got True"),  # type: ignore[arg-type]
    ],
)
def test_python_callers_get_the_checks(make, message):
    with pytest.raises(OptionError) as info:
        make()
    assert str(info.value) == message


def test_valid_values_pass():
    assert AssignStreamsPass(mode="auto", max_streams=3).mode == "auto"
    assert ToNC1HWC0Pass(boundary="nc1hwc0", fp32_c0=8).fp32_c0 == 8


def test_pipeline_names_the_pass_and_option_where_xdsl_does_not():
    spec = "canonicalize,assign-streams{mode=fast}"
    with pytest.raises(ValueError, match=r"Incompatible types"):
        PassPipeline.parse_spec(get_all_passes(), spec)  # xDSL's own message
    with pytest.raises(OptionError) as info:
        parse_pipeline(spec)
    assert str(info.value) == "assign-streams: mode must be labels, auto or single, got 'fast'"


def test_pipeline_of_valid_options_parses():
    names = [p.name for p in parse_pipeline("fuse,to-nc1hwc0{fp32-c0=8},assign-streams{mode=auto}").passes]
    assert names == ["fuse", "to-nc1hwc0", "assign-streams"]


def test_only_literal_options_are_checked():
    assert literal_option_error(AssignStreamsPass, "max-streams", "many") is None
    assert literal_option_error(AssignStreamsPass, "mode", "single") is None
    assert literal_option_error(AssignStreamsPass, "mode", "Single") is not None
