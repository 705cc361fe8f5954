"""ge-tune's search space (`ge_dialect.tune.space`): the default setting is ge-run's
default pipeline; sampling asks only for the parameters that apply; invalid splits are
named; a plugin adds a parameter that edits the pipeline, and a duplicate is refused."""

from __future__ import annotations

from typing import Any

import pytest

from ge_dialect import api
from ge_dialect.tune import space


class Recorder:
    """A stand-in trial: answers each question with the first choice (or a fixed one)."""

    def __init__(self, answers: dict[str, Any] | None = None):
        self.asked: dict[str, tuple] = {}
        self.answers = answers or {}

    def suggest_categorical(self, name: str, choices):
        self.asked[name] = tuple(choices)
        return self.answers.get(name, choices[0])


def test_default_setting_is_ge_runs_default_pipeline():
    one = space.Context()
    text = space.pipeline(space.default_setting(one), one)
    assert text.startswith("canonicalize,cse,fuse,fuse-attention,fuse-mlp,to-nc1hwc0,")
    assert text.endswith("lower-to-device,plan-memory{in-place=true search=exact}")
    assert api.DEFAULT_PIPELINE.split(",")[:-1] == text.split(",")[:6]
    ranks = space.Context(ranks=4, labelled=True)
    text = space.pipeline(space.default_setting(ranks), ranks)
    assert text.startswith("shard{ranks=4 mode=data},canonicalize,")
    assert "assign-streams{mode=labels max-streams=8}" in text


def test_sampling_asks_only_what_applies():
    trial = Recorder({"streams": "single"})
    setting = space.sample(trial, space.Context())
    assert "max_streams" not in trial.asked and "tp" not in trial.asked
    assert trial.asked["streams"] == ("single", "auto")
    assert setting["streams"] == "single"
    trial = Recorder({"streams": "auto", "pp": 2})
    setting = space.sample(trial, space.Context(ranks=4, labelled=True))
    assert trial.asked["streams"] == ("labels", "auto")
    assert trial.asked["tp"] == (1, 2, 4) and "micro_batches" in trial.asked
    assert "assign-streams{mode=auto max-streams=2}" in space.pipeline(setting, space.Context(4))


@pytest.mark.parametrize(
    ("setting", "reason"),
    [
        ({"tp": 2, "ep": 1, "pp": 4}, "tp*ep*pp = 8 does not divide ranks = 4"),
        ({"tp": 1, "ep": 2, "pp": 1}, "ep > 1 needs MoE layers"),
        ({"tp": 1, "ep": 1, "pp": 1}, None),
    ],
)
def test_invalid_splits_are_named(setting, reason):
    assert space.problem(setting, space.Context(ranks=4)) == reason


def test_a_plugin_parameter_edits_the_pipeline(tmp_path):
    plugin = tmp_path / "plugin.py"
    plugin.write_text(
        "from ge_dialect.tune import space\n"
        "def apply(setting, passes):\n"
        "    if setting['dce']:\n"
        "        passes.insert(passes.index('lower-to-device'), 'dce')\n"
        "space.register(space.Parameter('dce', (True, False), False, 'dce before lowering'),"
        " apply)\n"
    )
    try:
        space.load_plugin(str(plugin))
        setting = space.sample(Recorder({"dce": True}), space.Context())
        assert ",dce,lower-to-device," in space.pipeline(setting, space.Context())
        with pytest.raises(ValueError, match="parameter 'dce' exists already"):
            space.load_plugin(str(plugin))
    finally:
        space.unregister("dce")
    assert "dce" not in {p.name for p in space.PARAMETERS}
