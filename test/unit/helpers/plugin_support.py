"""Helpers for tests that load plugins (`--load-patterns`): a plain module, not a test file.

A plugin registers its passes in the process-wide registry (`transforms.register_pass`),
which also remembers the files it imported; `isolate_plugins(monkeypatch)` gives a test an
empty one (restored afterwards), so that a plugin's pass never leaks into another test (the
`--help` meta test lists every registered pass).  `write_plugin` writes a plugin file.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from transforms import registry


def isolate_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty plugin registry for the test (a plugin file loaded again is imported again:
    the registry's record of the files it imported is emptied too)."""
    monkeypatch.setattr(registry, "_REGISTERED", {})
    monkeypatch.setattr(registry, "_PLUGINS", {})


def write_plugin(path: Path, body: str) -> Path:
    path.write_text(textwrap.dedent(body).lstrip("\n"))
    return path


RELU_TO_SIGMOID = '''
from dataclasses import dataclass

from xdsl.passes import ModulePass

import transforms
from ge_dialect.ir.dialects import ge


@dataclass(frozen=True)
class ReluToSigmoid(ModulePass):
    """Replaces every ge.relu with a ge.sigmoid (a test plugin)."""

    name = "relu-to-sigmoid"

    def apply(self, ctx, op):
        for relu in [o for o in op.walk() if isinstance(o, ge.ReluOp)]:
            sigmoid = ge.SigmoidOp(relu.input)
            relu.parent_block().insert_op_before(sigmoid, relu)
            relu.results[0].replace_all_uses_with(sigmoid.results[0])
            relu.parent_block().erase_op(relu)


transforms.register_pass(ReluToSigmoid)
'''
"""A plugin with one working pass, `relu-to-sigmoid`."""
