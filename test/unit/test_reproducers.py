"""Every reproducer kept under test/unit/data/ is exercised by a test that names it.

A reproducer is a program or model that once showed a defect (a missed race, a traceback, a
wrong number); keeping the file without a test that runs it would let the defect come back
unnoticed.  The check is by name: some test file under test/ other than this one mentions the
file's name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.support import ROOT

DATA = Path(ROOT) / "test" / "unit" / "data"
THIS = Path(__file__).resolve()


def _test_sources() -> str:
    files = sorted(
        p
        for p in (Path(ROOT) / "test").rglob("*")
        if p.suffix in (".py", ".mlir", ".test") and p.resolve() != THIS and DATA not in p.parents
    )
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)


REPRODUCERS = sorted(p for p in DATA.rglob("*") if p.is_file())


def test_there_are_reproducers() -> None:
    assert len(REPRODUCERS) >= 20


@pytest.mark.parametrize("path", REPRODUCERS, ids=lambda p: str(p.relative_to(DATA)))
def test_reproducer_is_named_by_a_test(path: Path) -> None:
    assert path.name in _SOURCES, f"no test names {path.relative_to(DATA)}"


_SOURCES = _test_sources()
