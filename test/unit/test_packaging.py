"""What the project installs: two top-level packages, `ge_dialect` and `transforms`, and
`import transforms` is this project's (PyPI has an unrelated `transforms` package, and
`test/unit/transforms/` is a folder of tests that must never shadow it)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import distribution

import transforms
from helpers.support import ROOT


def test_import_transforms_is_this_project_here():
    assert os.path.realpath(transforms.__file__) == os.path.join(ROOT, "transforms", "__init__.py")
    assert callable(transforms.register_pass) and "fuse" in transforms.get_all_passes()


def test_import_transforms_is_this_project_from_anywhere(tmp_path):
    """From a directory outside the checkout, as a user's script runs: the installed
    (editable) package, not a namespace package or another distribution."""
    result = subprocess.run(
        [sys.executable, "-c", "import transforms, ge_dialect; "
         "print(transforms.__file__); print(ge_dialect.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    transforms_file, ge_dialect_file = result.stdout.split()
    assert os.path.realpath(transforms_file) == os.path.join(ROOT, "transforms", "__init__.py")
    assert os.path.realpath(ge_dialect_file) == os.path.join(ROOT, "ge_dialect", "__init__.py")


def test_the_distribution_provides_the_two_packages_and_the_tools():
    dist = distribution("ge-opt")
    scripts = {e.name: e.value for e in dist.entry_points if e.group == "console_scripts"}
    assert scripts == {
        "ge-opt": "ge_dialect.tools.ge_opt:main",
        "ge-run": "ge_dialect.tools.ge_run:main",
        "ge-tune": "ge_dialect.tools.ge_tune:main",
    }
    requires = dist.requires or []
    assert any(r.startswith("xdsl==0.75.0") for r in requires)
    # torch is its own extra: the test extra never pulls it (nor a CUDA build with it)
    test_extra = [r for r in requires if 'extra == "test"' in r]
    assert test_extra and not any(r.startswith("torch") for r in test_extra)
    assert any(r.startswith("torch") and 'extra == "torch"' in r for r in requires)
    # ge-tune's Optuna and Ray: the tune extra, and the test extra (its tests)
    for extra in ("tune", "test"):
        assert any(r.startswith("optuna") and f'extra == "{extra}"' in r for r in requires)
        assert any(r.startswith("ray[default]") and f'extra == "{extra}"' in r for r in requires)


def readme_commands() -> list[str]:
    """The commands of the README's first code block (its two set-up commands)."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_ci_runs_the_readme_commands():
    install_and_example, suite = readme_commands()
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read().splitlines()
    assert suite in ci  # the whole test suite, verbatim
    steps = install_and_example.split(" && ")
    assert steps[:3] == ["python3 -m venv .venv", ". .venv/bin/activate", "pip install -e '.[test]'"]
    for step in steps[1:]:
        assert any(line.startswith(step) for line in ci), step
