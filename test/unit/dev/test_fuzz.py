"""ge-opt's own fuzzer (`dev/fuzz.py`) in CI: a fixed seed and a bounded budget
(about half a minute on 2 cores), clean: no traceback, no hang, no lost `-o` file, and
every exit-0 output reads back to the same text.  A longer campaign is a command:

    python dev/fuzz.py --mutants 20000 --onnx 2400 --save build/fuzz
"""

from __future__ import annotations

import os
import sys

import pytest
from helpers.support import ROOT

sys.path.insert(0, os.path.join(ROOT, "dev"))
import fuzz  # noqa: E402  (dev/fuzz.py: a developer's tool beside the tests, not installed)


def test_a_fixed_seed_campaign_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    campaign = fuzz.fuzz(mutants=600, onnx_mutants=120, seed=2026, timeout=20.0)
    with capsys.disabled():
        print("\n" + campaign.report(0.0).split("\n", 1)[0].replace(" in 0 s", ""))
    assert not campaign.failures, campaign.report(0.0)
    outcomes = campaign.outcomes
    # one mutant in ten is a lit input as it is, with random flags: the valid ones reach the
    # passes and the printer (38 of 600 with the lit inputs of today)
    assert outcomes["mlir exit 0"] >= 30
    assert outcomes["onnx exit 0"] >= 5


def test_the_fuzzer_finds_a_planted_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks can fail: a ge-opt that raises on some inputs is caught as a traceback,
    one that writes `-o` and then fails as a lost output."""
    from ge_dialect.tools import ge_opt

    real_main = ge_opt.main

    def broken_main(args: list[str]) -> int:
        if "--fuse" in args:
            raise IndexError("planted")
        if "--to-nc1hwc0" in args:
            out = args[args.index("-o") + 1]
            with open(out, "w") as f:
                f.write("clobbered")
            return 1
        return real_main(args)

    monkeypatch.setattr(ge_opt, "main", broken_main)
    campaign = fuzz.fuzz(mutants=60, onnx_mutants=0, seed=1, timeout=20.0)
    assert "traceback" in campaign.failures
    assert "IndexError: planted" in campaign.failures["traceback"][0][2]
    assert "lost-output" in campaign.failures


def test_a_hang_is_killed_at_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    from ge_dialect.tools import ge_opt

    def hanging_main(args: list[str]) -> int:
        while True:
            pass

    monkeypatch.setattr(ge_opt, "main", hanging_main)
    run = fuzz.run_isolated(["x.mlir"], timeout=0.5)
    assert run.code is None
