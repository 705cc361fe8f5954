"""The lit suite runs with or without upstream mlir-opt: every test that uses it says
`REQUIRES: mlir-opt` (lit reports it UNSUPPORTED without mlir-opt), and no other does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from helpers.support import ROOT

LIT = Path(ROOT, "test", "lit")


def lit_tests() -> list[Path]:
    return sorted(
        p
        for p in LIT.rglob("*")
        if p.suffix in (".mlir", ".py", ".test")
        and "Inputs" not in p.parts
        and "Output" not in p.parts
    )


def test_every_test_using_upstream_mlir_opt_requires_it():
    using, requiring = set(), set()
    for path in lit_tests():
        text = path.read_text()
        runs = [line for line in text.splitlines() if "RUN:" in line]
        if any("%mlir-opt" in line for line in runs):
            using.add(path.relative_to(LIT))
        if re.search(r"^// REQUIRES: mlir-opt$", text, re.M):
            requiring.add(path.relative_to(LIT))
    assert using and using == requiring


def test_without_mlir_opt_the_upstream_checks_are_unsupported():
    lit = os.path.join(os.path.dirname(sys.executable), "lit")
    result = subprocess.run(
        [lit, "-v", "--param", "mlir-opt=none", str(LIT / "upstream" / "dialects.test"),
         str(LIT / "tools" / "cli-stdin.mlir")],
        capture_output=True, text=True, check=False, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "UNSUPPORTED: ge-opt :: upstream/dialects.test" in result.stdout
    assert "PASS: ge-opt :: tools/cli-stdin.mlir" in result.stdout
