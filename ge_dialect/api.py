"""The Python API: load a graph, compile it with a pipeline, verify it, prepare it for output.

    from ge_dialect import api

    module = api.load("examples/resnet_block.mlir")   # or a .onnx file, with input_shapes
    api.compile(module, "fuse,to-nc1hwc0,assign-streams{mode=auto}")
    print(module)

ge-opt is a thin driver over these functions.  No function here prints.  A user's mistake
raises `GeError`, whose `str()` is one finished diagnostic (`file:line:col: error: ...`); a
parse error is a `LocatedParseError`, both a `GeError` and xDSL's `ParseError`.  Reports a
pass records (say, `assign-streams{report=true}`'s summary) stay on the module:
`transforms.reports.take(module)` returns them.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator, Mapping, Sequence
from io import StringIO
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError

from ge_dialect import ge
from ge_dialect.diagnostics import GeError, LocatedParseError, LocatingParser
from ge_dialect.dialects import make_context
from ge_dialect.utils.floats import ExactPrinter, ExactSyntaxPrinter
from ge_dialect.verify import verify_module
from ge_dialect.weights import ExternalWriter, elide, externalize, has_elided, rebase_external_paths

DEFAULT_PIPELINE = "canonicalize,cse,fuse,to-nc1hwc0,assign-streams"
"""The optimisation part of DESIGN's pipeline: what `compile(module)` runs."""

FRONTENDS = ("mlir", "onnx")
"""The input formats `load` reads (`frontend=`): MLIR text, ONNX models."""


def decode(data: bytes, name: str) -> str:
    """`data` as UTF-8 text; invalid bytes are a located `GeError` (`name:line:col`)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise GeError(
            f"{name}:{line}:{col}: error: invalid UTF-8 (byte 0x{data[e.start]:02x})"
        ) from None


def read_text(path: str) -> str:
    """The text of the file `path` (a `GeError` when it cannot be read or is not UTF-8)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise GeError(f"{path}: error: cannot read input: {e.strerror}") from None
    except ValueError as e:  # a NUL in the path
        raise GeError(f"{path}: error: cannot read input: {e}") from None
    return decode(data, path)


def is_blank(text: str) -> bool:
    """True when `text` holds only blank lines and `//` comments (an empty module)."""
    return all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines())


def parse(
    text: str,
    name: str = "<string>",
    *,
    ctx: Context | None = None,
    line_offset: int = 0,
    implicit_module: bool = True,
    data_dir: str | None = None,
) -> ModuleOp:
    """Parses MLIR text; every op gets its `file:line:col` location in `name`.

    `line_offset` is the number of lines before `text` in the file (a `--split-input-file`
    chunk).  Text with only blank lines and comments is an empty module, as in MLIR.
    `data_dir` is the directory external constant data is resolved against (the
    directory of the file the text comes from); the current directory when None.
    Raises `LocatedParseError`.  The module is not verified: see `verify`.
    """
    if is_blank(text):
        module = ModuleOp([])
    else:
        parser = LocatingParser(ctx or make_context(), text, name, line_offset)
        try:
            module = parser.parse_module(implicit_module)
        except ParseError as e:
            raise LocatedParseError.of(e, name, line_offset) from None
    if data_dir is not None:
        ge.set_data_dir(module, data_dir)
    return module


def load(
    path_or_model: str | os.PathLike[str] | bytes | Any,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    frontend: str | None = None,
    ctx: Context | None = None,
) -> ModuleOp:
    """Loads a graph: an MLIR or ONNX file, serialized ONNX bytes or an `onnx.ModelProto`.

    A path ending in `.onnx` is an ONNX model, any other path MLIR text, unless
    `frontend` ("mlir" or "onnx") says otherwise.  `input_shapes` binds the dims of ONNX
    graph inputs (`{"x": [1, 3, 224, 224]}`).  The directory of a file is recorded for
    its external constant data.  The module is verified (ONNX imports always are; MLIR
    text is verified here).
    """
    if frontend is not None and frontend not in FRONTENDS:
        raise ValueError(f"unknown frontend '{frontend}', expected one of {', '.join(FRONTENDS)}")
    if not isinstance(path_or_model, str | os.PathLike):
        frontend = frontend or "onnx"
        if frontend != "onnx":
            raise ValueError("only ONNX models can be loaded from bytes or a ModelProto")
        return _import_onnx(path_or_model, input_shapes, None)
    path = os.fspath(path_or_model)
    if frontend is None:
        frontend = "onnx" if path.lower().endswith(".onnx") else "mlir"
    if frontend == "onnx":
        return _import_onnx(path, input_shapes, os.path.dirname(path))
    if input_shapes:
        raise ValueError("input_shapes applies to ONNX models only")
    module = parse(read_text(path), path, ctx=ctx, data_dir=os.path.dirname(path))
    verify(module, path)
    return module


def _import_onnx(
    model: object, input_shapes: Mapping[str, Sequence[int]] | None, data_dir: str | None
) -> ModuleOp:
    from ge_dialect.frontend import import_onnx

    module = import_onnx(model, input_shapes)
    if data_dir is not None:
        ge.set_data_dir(module, data_dir)
    return module


def verify(module: ModuleOp, name: str = "<unknown>") -> None:
    """Verifies `module`: op verifiers (innermost first), SSA dominance, stream rules.

    Raises a `GeError` located at the first op that breaks a rule (`name` where an op has
    no location).
    """
    verify_module(module, name)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pauses Python's automatic cyclic garbage collection within the block (if it was on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def compile(
    module: ModuleOp,
    pipeline: str | Sequence[ModulePass] | PassPipeline | None = None,
    *,
    ctx: Context | None = None,
    name: str = "<unknown>",
    verify: bool = True,
) -> ModuleOp:
    """Runs a pass pipeline on `module` in place and returns it.

    `pipeline` is a pipeline in xDSL's syntax (`"canonicalize,fuse,assign-streams{mode=auto}"`;
    None runs `DEFAULT_PIPELINE`), a sequence of passes, or a ready `PassPipeline`.
    The module is verified first and after every pass (`verify=False` skips it), except
    that a ready `PassPipeline` runs as built: its callback runs between its passes, and
    verification after each pass is up to it (ge-opt's callback calls `verify`).  A bad
    pipeline string raises `ValueError`; an error in a pass raises a `GeError` (`name`
    locates errors that carry no location of their own).

    Python's cyclic garbage collector is paused while the passes run (`gc_paused`): a
    full collection scans every object of the process, the module's included (on a graph
    of 1,300 nodes one took a quarter of `fuse`'s time); the garbage the passes leave (erased ops)
    is collected after them, on the collector's usual schedule.
    """
    if not isinstance(pipeline, PassPipeline):
        passes = _passes(DEFAULT_PIPELINE if pipeline is None else pipeline)

        def check(previous: ModulePass | None, op: ModuleOp, _next: ModulePass | None) -> None:
            if verify and previous is not None:
                verify_module(op, name)

        pipeline = PassPipeline(passes, check)
    if verify:
        verify_module(module, name)
    try:
        with gc_paused():
            pipeline.apply(ctx or make_context(), module)
    except GeError:
        raise
    except DiagnosticException as e:
        raise GeError(f"{name}: error: {str(e).strip()}") from None
    return module


def print_module(
    module: Operation,
    generic: bool = False,
    *,
    properties_as_attributes: bool = False,
    debuginfo: bool = False,
    syntax_highlight: bool = False,
    ctx: Context | None = None,
) -> str:
    """`module` as MLIR text (the custom form, or the generic one), as ge-opt prints it.

    Unlike `str(module)`, every float constant re-parses to the same bits, in `parse`,
    in xDSL's parser and in upstream MLIR (in both forms; `ge.const`'s custom form is exact
    on any printer): finite elements are decimals with a ".", and an attribute holding
    inf or NaN prints as the hex string of its bytes.  The other flags are xDSL's printer
    options.  Resources (`dense_resource`) print after the module, found through the
    dialects loaded in `ctx` (builtin's without it).
    """
    out = StringIO()
    printer_class = ExactSyntaxPrinter if syntax_highlight else ExactPrinter
    printer = printer_class(
        stream=out,
        print_generic_format=generic,
        print_properties_as_attributes=properties_as_attributes,
        print_debuginfo=debuginfo,
    )
    printer.print_op(module)
    printer.print_metadata(ctx.loaded_dialects if ctx is not None else [Builtin])
    return out.getvalue()


def _passes(pipeline: str | Sequence[ModulePass]) -> tuple[ModulePass, ...]:
    if not isinstance(pipeline, str):
        return tuple(pipeline)
    from transforms import parse_pipeline

    try:
        return parse_pipeline(pipeline).passes
    except ArgSpecParseError as e:  # a BaseException: turn it into an ordinary error
        raise ValueError(str(e)) from None


def open_external_writer(path: str, out_dir: str) -> ExternalWriter:
    """An `ExternalWriter` appending to the external data file `path` for IR in `out_dir`.

    The file replaces `path` only on `close(commit=True)`.  A `GeError` if it cannot be
    created.
    """
    try:
        return ExternalWriter(path, out_dir)
    except OSError as e:
        raise GeError(f"{path}: error: cannot write external data: {e.strerror}") from None


__all__ = [
    "DEFAULT_PIPELINE",
    "FRONTENDS",
    "ExternalWriter",
    "compile",
    "decode",
    "elide",
    "externalize",
    "has_elided",
    "is_blank",
    "load",
    "open_external_writer",
    "parse",
    "print_module",
    "read_text",
    "rebase_external_paths",
    "verify",
]
