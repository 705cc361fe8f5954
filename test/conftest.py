"""Shared pytest configuration: one Hypothesis profile everywhere (docs/architecture.md).

CI sets CI=true, which would make Hypothesis switch to its CI profile; loading ours
explicitly keeps local and CI runs identical.

The project is installed (`pip install -e '.[test]'`), so nothing here edits `sys.path`;
the helpers shared by the unit tests live in the package `test/unit/helpers/` (on the path
through pytest's `pythonpath`, and mypy's `mypy_path`, in pyproject.toml).
"""

from hypothesis import settings

settings.register_profile("ge-opt", deadline=None, derandomize=True, database=None)
settings.load_profile("ge-opt")
