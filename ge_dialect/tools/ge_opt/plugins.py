"""ge-opt's plugins: `--load-patterns=FILE` (a Python file whose passes register themselves)
and `--apply-pdl=FILE` (xDSL's PDL interpreter on a file of `pdl.pattern`s).

A plugin is imported once per process; an error while importing it, or in its pass, is
one line located in the plugin (`plugin.py:LINE: error: ...`), never a traceback.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.passes import ModulePass

from ge_dialect import api
from ge_dialect.utils.errors import GeError, UsageError
from transforms import get_all_passes, register_pass


def pass_registry() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes ge-opt runs: the registry's (plugins' included), and the driver's own."""
    return {**get_all_passes(), **DRIVER_PASSES}


APPLY_PDL = "apply-pdl"


PDL_FLAG = f"--{APPLY_PDL}"


def read_pdl(path: str, ctx: Context) -> ModuleOp:
    """The PDL module of the file `path`, parsed and verified with located diagnostics: a
    `GeError` naming the file when it cannot be read, `path:line:col: error: ...` when it
    does not parse or verify."""
    text = api.read_text(path, "PDL patterns")
    try:
        module = api.parse(text, path, ctx=ctx)
        api.verify(module, path)
    except GeError as e:  # a plain GeError: not the input's parse error
        raise GeError(str(e)) from None
    return module


@functools.cache
def _apply_pdl() -> type[ModulePass]:
    """`apply-pdl`: xDSL's pass (imported on first use), its file checked first."""
    from xdsl.transforms.apply_pdl import ApplyPDLPass

    @dataclass(frozen=True)
    class GeApplyPDLPass(ApplyPDLPass):
        """Applies the PDL patterns of a file to the module (xDSL's apply-pdl; the flag
        --apply-pdl=FILE also runs dce after it)."""

        name = APPLY_PDL

        pdl_file: str | None = field(
            default=None,
            metadata={"help": "the file of `pdl.pattern`s (without it, those of the input module)"},
        )

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            if self.pdl_file is not None:
                read_pdl(self.pdl_file, ctx)  # located errors before xDSL reads it
            super().apply(ctx, op)

    return GeApplyPDLPass


DRIVER_PASSES: dict[str, Callable[[], type[ModulePass]]] = {APPLY_PDL: _apply_pdl}
"""Passes the driver adds to the registry's: a plugin may not take their names."""


def quote(text: str) -> str:
    """`text` as a string literal of xDSL's pipeline syntax."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


LOAD_PATTERNS = "--load-patterns"


PLUGINS: dict[str, tuple[ModuleType, str]] = {}
"""The plugins loaded in this process, by real path (each is imported once): the module
and the path as first given (which diagnostics show)."""


PLUGIN_PASSES: dict[str, str] = {}
"""Pass name -> the plugin file (as first given) that registered it."""


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


def load_patterns(path: str) -> None:
    """Imports the Python file `path` (once per process), whose passes register themselves
    with `transforms.register_pass`.  Raises a one-line `GeError`: `path: error: ...` when it
    cannot be read, `path:line: error: ...` (the innermost line of the plugin) when importing
    it raises, or when it takes the name of a pass it may not."""
    real = os.path.realpath(path)
    if real in PLUGINS:
        return
    try:
        with open(real, "rb"):
            pass
    except OSError as e:
        raise GeError(f"{path}: error: cannot load patterns: {e.strerror or e}") from None
    except ValueError as e:
        raise GeError(f"{path}: error: cannot load patterns: {e}") from None
    name = "ge_opt_plugin_" + hashlib.sha256(real.encode()).hexdigest()[:16]
    loader = importlib.machinery.SourceFileLoader(name, real)
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    before = get_all_passes()
    sys.modules[name] = module
    try:
        loader.exec_module(module)
    except (Exception, SystemExit) as e:
        del sys.modules[name]
        raise GeError(
            f"{_where(e, real, path)}: error: cannot load patterns: {_describe(e)}"
        ) from None
    PLUGINS[real] = (module, path)
    after = get_all_passes()
    for pass_name, factory in after.items():
        old = before.get(pass_name)
        if old is factory or (old is not None and old() is factory()):
            continue  # unchanged (a built-in pass, or one registered before)
        if pass_name in DRIVER_PASSES:
            raise GeError(
                f"{path}: error: cannot load patterns: '{pass_name}' is the name of a built-in pass"
            )
        if old is not None:
            owner = PLUGIN_PASSES.get(pass_name, "another plugin")
            register_pass(old())  # the first definition stays
            raise GeError(
                f"{path}: error: cannot load patterns: pass '{pass_name}' is already "
                f"defined by {owner}"
            )
        if old is None:
            PLUGIN_PASSES[pass_name] = path


def plugin_frame(tb: object, files: Sequence[str]) -> tuple[str, int] | None:
    """The innermost frame of traceback `tb` in one of `files` (real paths): (file, line)."""
    found: tuple[str, int] | None = None
    for frame, line in traceback.walk_tb(tb):  # type: ignore[arg-type]
        filename = frame.f_code.co_filename
        if filename in files:
            found = (filename, line)
    return found


def _where(e: BaseException, real: str, path: str) -> str:
    """`path:line` of the innermost frame of `e` in the plugin (`path` without one)."""
    if isinstance(e, SyntaxError) and e.filename == real and e.lineno:
        return f"{path}:{e.lineno}"
    found = plugin_frame(e.__traceback__, [real])
    return f"{path}:{found[1]}" if found else path


def _describe(e: BaseException) -> str:
    """`Type: message` of an exception (`msg` for a SyntaxError, without its place)."""
    message = e.msg if isinstance(e, SyntaxError) else str(e)
    return f"{type(e).__name__}: {message}" if message else type(e).__name__


def plugin_error(e: Exception, pass_name: str) -> GeError | None:
    """A pass failing with `e` (not a diagnostic) in a loaded plugin's code, as one line
    `plugin:line: error: pass 'name' failed: Type: message`; None when no frame of `e` is
    in a plugin (a bug of ge-opt: the traceback shows)."""
    found = plugin_frame(e.__traceback__, list(PLUGINS))
    if found is None:
        return None
    real, line = found
    shown = PLUGINS[real][1]
    return GeError(f"{shown}:{line}: error: pass '{pass_name}' failed: {_describe(e)}")


def pdl_dialect() -> Dialect:
    from xdsl.dialects.pdl import PDL

    return PDL
