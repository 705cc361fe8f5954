"""ge-opt's plugin flags: `--load-patterns=FILE` (a Python file whose passes register
themselves in `transforms`' registry, which loads it) and `--apply-pdl=FILE` (the
`apply-pdl` pass on a file of `pdl.pattern`s, then dce).

Both are taken out of the command line before argparse sees it, so that a plugin's passes
are flags too.
"""

from __future__ import annotations

from collections.abc import Sequence

from ge_dialect.utils.errors import UsageError

APPLY_PDL = "apply-pdl"


PDL_FLAG = f"--{APPLY_PDL}"


def quote(text: str) -> str:
    """`text` as a string literal of xDSL's pipeline syntax."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


LOAD_PATTERNS = "--load-patterns"


def split_plugin_flags(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Separates `--load-patterns=PATH` and `--load-patterns PATH` (repeatable) from the
    other arguments; done before the pass flags are split, so that the plugins' passes are
    flags too.  A flag without a file is a `UsageError`."""
    paths: list[str] = []
    rest: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--":
            rest += [arg, *args]
            break
        if arg == LOAD_PATTERNS:
            path = next(args, None)
            if path is None:
                raise UsageError(f"{LOAD_PATTERNS} expects a file: {LOAD_PATTERNS}=PATH")
        elif arg.startswith(LOAD_PATTERNS + "="):
            path = arg.partition("=")[2]
        else:
            rest.append(arg)
            continue
        if not path:
            raise UsageError(f"{LOAD_PATTERNS} expects a file: {LOAD_PATTERNS}=PATH")
        paths.append(path)
    return paths, rest
