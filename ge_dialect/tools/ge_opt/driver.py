"""ge-opt: the `mlir-opt` of GE graphs.

    ge-opt [options] [-p pipeline] [--<pass>[=<options>] ...] [input.mlir | model.onnx]

Reads IR (stdin without a file, or with `-`, named `<stdin>`) or an ONNX model, runs
passes, prints IR.  Pass flags such as `--canonicalize` or `--some-pass=opt-a=1,flag` run
after the `-p` pipeline in command-line order; a bare option word means true in a flag, and
a bare boolean option word in `-p`, as in MLIR.  Every user mistake is one diagnostic line
`file:line:col: error: ...` on stderr and exit 1 (exit 2 for bad flags and options).  With
`--split-input-file` a failing chunk's error is printed in its place and the next chunks go
on, as in mlir-opt; the run then exits 1.

The driver loop is xDSL's (`xDSLOptMain.run`); ge-opt fills in its hooks:
`prepare_input` reads and splits the input, `parse_chunk` parses with located
diagnostics (ONNX through the registered frontend), `apply_passes` runs
`ge_dialect.api.compile` with the pipeline `setup_pipeline` built (its callback times,
prints reports, verifies and dumps IR), `output_resulting_program` prepares constants and
prints into a buffer, and `run` writes the output: the `-o` file and the external data file
are new files, renamed into place only when the whole run succeeded.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from io import BytesIO
from typing import IO, NoReturn

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import VersionAction, xDSLOptMain

import transforms
from ge_dialect import __version__, api
from ge_dialect.ir.parser import LocatedParseError
from ge_dialect.ir.registry import get_all_dialects
from ge_dialect.tools.ge_opt import plugins
from ge_dialect.tools.ge_opt.output import (
    ExactMLIRTarget,
    GraphDefTarget,
    OutputBuffer,
    format_statistics,
)
from ge_dialect.utils.errors import GeError, OptionError, UsageError, op_error
from ge_dialect.utils.files import ReplacingFile, same_file, writing
from transforms import describe_pass, parse_pipeline

EXIT_ERROR = 1


EXIT_USAGE = 2


SEPARATOR = "// -----"


STDIN = "<stdin>"
"""The name of standard input in diagnostics and locations, as in mlir-opt."""


def _split_options(text: str) -> list[str]:
    """`a=1,b c=2` -> ['a=1', 'b=true', 'c=2'] (commas or spaces separate options)."""
    words = [w for part in text.split(",") for w in part.split()]
    return [w if "=" in w else f"{w}=true" for w in words]


def split_pass_flags(argv: Sequence[str], names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Separates `--<pass>[=<options>]` flags (as xDSL pipeline specs) from other arguments.

    Done before argparse, which would otherwise take `--pass in.mlir` as an option value.
    `--apply-pdl=FILE` is `apply-pdl{pdl_file="FILE"}` then `dce` (xDSL's apply-pdl leaves
    the ops it replaced).
    """
    specs: list[str] = []
    rest: list[str] = []
    known = set(names)
    for i, arg in enumerate(argv):
        if arg == "--":
            rest.extend(argv[i:])
            break
        name, eq, options = arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
        if name == plugins.APPLY_PDL and plugins.APPLY_PDL in known:
            if not eq or not options:
                raise UsageError(f"{plugins.PDL_FLAG} expects a file: {plugins.PDL_FLAG}=FILE")
            specs += [f"{plugins.APPLY_PDL}{{pdl_file={plugins.quote(options)}}}", "dce"]
        elif name in known:
            specs.append(f"{name}{{{' '.join(_split_options(options))}}}" if eq else name)
        else:
            rest.append(arg)
    return specs, rest


def split_input(text: str) -> list[tuple[str, int]]:
    """`text` split at lines that are exactly `// -----`, each chunk with its line offset.

    Only `\\n` ends a line, as for the parser's line numbers.
    """
    chunks: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if line.rstrip() == SEPARATOR:
            chunks.append(("".join(current), start))
            current, start = [], number + 1
        else:
            current.append(line if number == len(lines) - 1 else line + "\n")
    chunks.append(("".join(current), start))
    return chunks


def _bare_spec(text: str) -> str:
    """An `-f`/`-t` value: a name in xDSL's spec syntax, without options (none are used)."""
    try:
        spec = parse_spec(text)
    except ArgSpecParseError:  # a BaseException, which argparse would not catch
        raise argparse.ArgumentTypeError(f"malformed value '{text}'") from None
    if spec.parameters:
        raise argparse.ArgumentTypeError(f"'{spec.name}' takes no options")
    return text


def _usage_error(message: str) -> NoReturn:
    raise UsageError(message)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, keeping the line breaks of a help text (a pass's options are
    one indented line each), each line wrapped on its own (an indented one hanging)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        lines: list[str] = []
        for line in text.splitlines():
            indent = " " * (len(line) - len(line.lstrip()))
            lines += textwrap.wrap(
                " ".join(line.split()),
                width,
                initial_indent=indent,
                subsequent_indent=indent + "  " if indent else "",
            )
        return lines


class GeOptMain(xDSLOptMain):
    """xDSL's opt driver with ge's dialects, passes and frontends, located diagnostics and
    pass flags."""

    version_format = f"ge-opt {__version__} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        argv = list(sys.argv[1:] if args is None else args)
        self._wants_help = bool({"-h", "--help"} & set(argv))
        # Plugins first: the passes they register are pass flags and `-p` passes.
        self.plugins, argv = plugins.split_plugin_flags(argv)
        for path in self.plugins:
            transforms.load_plugin(path)
        self.pass_flags, rest = split_pass_flags(argv, list(transforms.get_all_passes()))
        self._running: ModulePass | None = None
        self._output = OutputBuffer()
        self._writer: api.ExternalWriter | None = None
        self._shapes: dict[str, list[int]] = {}
        self._imported: ModuleOp | None = None
        """The module of the ONNX import, which `api.load` has verified already."""
        self._timings: list[tuple[str, float]] = []
        self._start = time.perf_counter()
        self.failed = False
        """A chunk failed (`--split-input-file` goes on after it): the run exits 1."""
        self._skip_output = False
        self._tuned_pipeline: str | None = None
        """`--tuned`'s pipeline, once looked up."""
        super().__init__(description="ge modular optimizer driver", args=rest)

    # ---- registration -------------------------------------------------------------------

    def register_all_dialects(self) -> None:
        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        for name, factory in transforms.get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_frontends(self) -> None:
        # `parse_chunk` parses MLIR itself (it needs the chunk's line offset); ONNX goes
        # through xDSL's frontend call with the whole model.
        self.available_frontends["mlir"] = lambda chunk: self.parse_mlir(chunk, 0)
        self.available_frontends["onnx"] = self.import_onnx

    def register_all_targets(self) -> None:
        # MLIR text, and GE's GraphDef as protobuf text; xDSL's other targets print other
        # dialects.
        def mlir() -> type[Target]:
            return ExactMLIRTarget

        def ge_pbtxt() -> type[Target]:
            return GraphDefTarget

        self.available_targets["mlir"] = mlir
        self.available_targets["ge-pbtxt"] = ge_pbtxt

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "ge-opt"
        arg_parser.formatter_class = _HelpFormatter
        # One line and exit 2 instead of argparse's usage dump (setattr: mypy forbids
        # assigning to a method).
        setattr(arg_parser, "error", _usage_error)  # noqa: B010
        # Redefined flags replace xDSL's (conflict_handler="resolve").
        group = arg_parser.add_argument_group("ge-opt options", conflict_handler="resolve")
        group.add_argument(
            "-f",
            "--frontend",
            type=_bare_spec,
            help="the input format: mlir or onnx (default: onnx for .onnx files, else mlir)",
        )
        group.add_argument(
            "-t",
            "--target",
            type=_bare_spec,
            default="mlir",
            help="the output format: mlir, or ge-pbtxt (the function as GE's GraphDef in "
            "protobuf text format, as TorchAir hands it to GE)",
        )
        group.add_argument(
            "-o",
            "--output-file",
            metavar="FILE",
            help="the output file (stdout without it or with '-'); replaced only when the "
            "whole run succeeds",
        )
        group.add_argument(
            "--split-input-file",
            action="store_true",
            help="process the chunks between '// -----' lines independently; as mlir-opt, a "
            "failing chunk's error goes to stderr, the others are printed, and the exit code is 1",
        )
        group.add_argument(
            "--disable-verify",
            action="store_true",
            help="skip verification (op and attribute verifiers, SSA dominance, stream rules)",
        )
        group.add_argument(
            "-v",
            "--version",
            action=VersionAction,
            version_format=self.version_format,
            help="print the version and exit",
        )
        group.add_argument(
            "--print-between-passes",
            action="store_true",
            help="print the IR between each two passes to stderr (stdout stays the output)",
        )
        # Shrink Ray's protocol (see xDSL's ShrinkException): a developer tool, not listed.
        group.add_argument("--shrink", action="store_true", help=argparse.SUPPRESS)
        group.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR after every pass to stderr, as mlir-opt does",
        )
        group.add_argument(
            "--input-shape",
            action="append",
            default=[],
            metavar="NAME=DIMS",
            help="bind the dims of an ONNX graph input, e.g. input=1x3x224x224 (repeatable)",
        )
        group.add_argument(
            "--elide-constants-if-larger",
            type=int,
            metavar="N",
            help="print constants of more than N elements as #ge.elided (for reading only)",
        )
        group.add_argument(
            "--externalize-constants-if-larger",
            type=int,
            metavar="N",
            help="write constants of more than N elements to an external data file",
        )
        group.add_argument(
            "--external-data",
            metavar="FILE",
            help="the external data file (default: the -o file with .weights appended)",
        )
        group.add_argument(
            plugins.LOAD_PATTERNS,
            action="append",
            default=[],
            metavar="PATH",
            help="import the Python file PATH first, whose passes (registered with "
            "transforms.register_pass) become pass flags and -p passes (repeatable)",
        )
        group.add_argument(
            "--tuned",
            metavar="DB",
            help="run the best pipeline ge-tune stored for this graph in DB (a file or an "
            "Optuna storage URL) instead of the default one (not with pass flags or -p)",
        )
        group.add_argument(
            "--pass-statistics",
            action="store_true",
            help="after the passes, print on stderr what each pass counted (fusions, "
            "trans_data inserted and cancelled, events kept and dropped, buffers reused, ...) "
            "in mlir-opt's format",
        )
        self.check_plugin_names(arg_parser)
        if not self._wants_help:
            return  # pass flags are split off before argparse; they are listed for --help only
        passes = arg_parser.add_argument_group(
            "passes (--<pass>[=<options>], run after -p in command-line order)"
        )
        for name, factory in self.available_passes.items():  # imports each pass module
            if name == plugins.APPLY_PDL:
                passes.add_argument(
                    plugins.PDL_FLAG,
                    metavar="FILE",
                    help="apply the PDL patterns (pdl.pattern) of FILE to ge ops: xDSL's "
                    f'{plugins.APPLY_PDL}{{pdl_file="FILE"}}, then dce (in -p: '
                    f'{plugins.APPLY_PDL}{{pdl_file="FILE"}})',
                )
                continue
            help_text = describe_pass(name, factory())
            passes.add_argument(f"--{name}", action="store_true", help=help_text)

    def check_plugin_names(self, arg_parser: argparse.ArgumentParser) -> None:
        """A plugin's pass named as a flag of the driver (`--output-file`) would take the
        flag's place: an error naming the plugin."""
        flags = set(arg_parser._option_string_actions)
        for name, path in transforms.plugin_passes().items():
            if path in self.plugins and f"--{name}" in flags:
                raise GeError(
                    f"{path}: error: cannot load patterns: pass '{name}' has the name of the "
                    f"{self.version_format.split()[0]} flag --{name}"
                )

    # ---- pipeline -------------------------------------------------------------------------

    def setup_pipeline(self) -> None:
        self.check_files()
        self.check_tuned()
        self.args.passes = ",".join(p for p in (self.args.passes, *self.pass_flags) if p)
        try:
            self.pipeline = parse_pipeline(
                self.args.passes, self.between_passes, self.available_passes
            )
        except ArgSpecParseError as e:
            raise UsageError(str(e).replace("\n", " ")) from None
        except ValueError as e:
            raise UsageError(str(e)) from None

    def check_tuned(self) -> None:
        """`--tuned` replaces the pipeline: pass flags, `-p` (and ge-run's `-O`) are usage
        errors with it."""
        if self.args.tuned is None or self._tuned_pipeline is not None:
            return
        has_levels = hasattr(self.args, "opt_level")  # ge-run's -O
        if self.args.passes or self.pass_flags or getattr(self.args, "opt_level", None) is not None:
            flags = "pass flags, -p or -O" if has_levels else "pass flags or -p"
            raise UsageError(f"--tuned runs the stored pipeline: it cannot go with {flags}")

    def use_tuned(self, prog: ModuleOp) -> None:
        """`--tuned DB`: the pipeline ge-tune stored for `prog`'s graph becomes the pipeline
        (Optuna is imported only here)."""
        if self.args.tuned is None:
            return
        storage = self.tuned_storage()
        try:
            from ge_dialect.tune.study import best_flags_for, best_for
        except ImportError as e:
            raise GeError(f"error: --tuned needs Optuna (the 'tune' extra): {e}") from None
        try:
            self._tuned_pipeline = best_for(storage, prog)
            self.use_tuned_flags(best_flags_for(storage, prog))
        except GeError as e:
            raise GeError(f"{self.get_input_name()}: {e}") from None
        self.args.passes = self._tuned_pipeline
        self.pass_flags = []
        self.setup_pipeline()

    def tuned_storage(self) -> str:
        """`--tuned`'s storage URL (a file is an SQLite database)."""
        storage = self.args.tuned
        if "://" not in storage:
            if not os.path.isfile(storage):
                raise GeError(f"{storage}: error: no such tuning database")
            storage = "sqlite:///" + os.path.abspath(storage)
        return storage

    def use_tuned_flags(self, flags: tuple[str, ...]) -> None:
        """The stored setting's run flags (`--hccl-algo`): ge-opt runs nothing, ge-run
        takes them."""

    def check_pdl_files(self) -> None:
        """Reads the PDL file of each `apply-pdl` of the pipeline before the input: an error
        names the file (`FILE:line:col: error: ...` when it does not parse)."""
        for p in self.pipeline.passes:
            read_patterns = getattr(p, "read_patterns", None)  # apply-pdl's
            if read_patterns is not None:
                read_patterns(self.ctx)

    def check_files(self) -> None:
        """`-` as the input or output file is stdin or stdout (as in mlir-opt); the files
        written are known and distinct before anything is read."""
        if self.args.input_file == "-":
            self.args.input_file = None
        if self.args.output_file == "-":
            self.args.output_file = None
        if self.args.externalize_constants_if_larger is None:
            return
        if self.args.external_data is None:
            if self.args.output_file is None:
                raise UsageError("--externalize-constants-if-larger needs -o or --external-data")
            self.args.external_data = self.args.output_file + ".weights"
        if self.args.output_file is not None and same_file(
            self.args.output_file, self.args.external_data
        ):
            raise UsageError("--external-data and -o name the same file")

    def between_passes(
        self, previous: ModulePass | None, module: ModuleOp, next_: ModulePass | None
    ) -> None:
        """The pipeline's callback: timing, the pass's reports, verification, IR dumps."""
        self._running = next_
        if previous is not None:
            self._timings.append((previous.name, time.perf_counter() - self._start))
            self.print_reports(module)
            self.check(module)
            if self.args.print_ir_after_all:
                self.dump(f"IR Dump After {previous.name}", module)
            if next_ is not None and self.args.print_between_passes:
                self.dump(f"IR Dump Between {previous.name} and {next_.name}", module)
        self._start = time.perf_counter()

    def check(self, module: ModuleOp) -> None:
        """Located verification and SSA dominance (skipped with --disable-verify)."""
        if not self.args.disable_verify:
            api.verify(module, self.get_input_name())

    def dump(self, title: str, module: ModuleOp) -> None:
        """Prints `module` on stderr under `title` as the output is printed (as mlir-opt's
        dumps): its constants elided (`--elide-constants-if-larger`; the module itself keeps
        its data), in the form the printer flags ask for (`--print-op-generic`,
        `--print-no-properties`, `--print-debuginfo`, `--syntax-highlight`)."""
        if self.args.elide_constants_if_larger is not None:
            module = module.clone()
            api.elide(module, self.args.elide_constants_if_larger)
        text = api.print_module(
            module,
            self.args.print_op_generic,
            properties_as_attributes=self.args.print_no_properties,
            debuginfo=self.args.print_debuginfo,
            syntax_highlight=self.args.syntax_highlight,
            ctx=self.ctx,
        )
        print(f"// -----// {title} //----- //", file=sys.stderr)
        print(text, file=sys.stderr)

    @staticmethod
    def print_reports(module: ModuleOp) -> None:
        """Prints on stderr what passes recorded for the user (`transforms.reports`)."""
        from transforms import reports

        for report in reports.take(module):
            text = str(report)
            sys.stderr.write(text if text.endswith("\n") else text + "\n")

    # ---- input ------------------------------------------------------------------------------

    def frontend(self) -> str:
        """`-f`, else `onnx` for a `.onnx` file, else `mlir`."""
        if self.args.frontend:
            return parse_spec(self.args.frontend).name
        return "onnx" if (self.args.input_file or "").lower().endswith(".onnx") else "mlir"

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        """The input as chunks with their line offsets (ONNX: one chunk, read by its importer)."""
        frontend = self.frontend()
        if frontend == "onnx":
            self._shapes = self.input_shapes()
            data = b"" if self.args.input_file is not None else self.read_stdin()
            return [(BytesIO(data), 0)], frontend
        if self.args.input_shape:
            raise UsageError("--input-shape applies to ONNX input (.onnx files) only")
        if self.args.input_file is None:
            text = api.decode(self.read_stdin(), self.get_input_name())
        else:
            text = api.read_text(self.args.input_file)
        chunks = split_input(text) if self.args.split_input_file else [(text, 0)]
        return [(BytesIO(chunk.encode()), offset) for chunk, offset in chunks], frontend

    def get_input_name(self) -> str:
        return self.args.input_file or STDIN

    def read_stdin(self) -> bytes:
        try:
            return sys.stdin.buffer.read()
        except OSError as e:
            raise GeError(f"{STDIN}: error: cannot read input: {e.strerror}") from None

    def input_shapes(self) -> dict[str, list[int]]:
        """`--input-shape name=1x3x224x224` flags as a dict (exit 2 when malformed)."""
        shapes: dict[str, list[int]] = {}
        for spec in self.args.input_shape:
            name, eq, dims = spec.rpartition("=")
            try:
                shape: list[int] | None = [int(d) for d in dims.split("x")] if dims else []
            except ValueError:
                shape = None
            if not eq or not name or shape is None or any(d < 0 for d in shape):
                raise UsageError(
                    f"--input-shape expects NAME=DIMS such as x=1x3x224x224, got '{spec}'"
                )
            shapes[name] = shape
        return shapes

    def input_dir(self) -> str:
        return os.path.dirname(self.args.input_file or "")

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        try:
            if file_extension == "mlir":
                return self.parse_mlir(chunk, start_offset)
            return super().parse_chunk(chunk, file_extension, start_offset)
        except GeError as e:
            if not self.reported_in_place(e):
                raise
            return None

    def parse_mlir(self, chunk: IO[bytes], line_offset: int) -> ModuleOp:
        module = api.parse(
            chunk.read().decode(),  # valid UTF-8: `prepare_input` decoded the whole input
            self.get_input_name(),
            ctx=self.ctx,
            line_offset=line_offset,
            implicit_module=not self.args.no_implicit_module,
            data_dir=self.input_dir(),
        )
        # The external data file is replaced at the end, and only the output's constants
        # are copied into its new version: an input that stays must not read it.
        if self._writer is not None and not self.replaces_input():
            if (op := self._writer.reader(module)) is not None:
                raise op_error(
                    op,
                    f"reads external data '{self.args.external_data}', which this run "
                    "replaces: choose another --external-data file",
                    self.get_input_name(),
                )
        return module

    def replaces_input(self) -> bool:
        """Whether `-o` is the input file (which then changes, with its external data)."""
        return None not in (self.args.input_file, self.args.output_file) and same_file(
            self.args.input_file, self.args.output_file
        )

    def reported_in_place(self, e: GeError) -> bool:
        """With `--split-input-file`, prints the error of a chunk on stderr in its place and
        returns True: the run goes on with the next chunk and exits 1 at the end (as
        mlir-opt does).  False (the caller re-raises) without the flag, and for the errors
        xDSL's loop prints on stdout (`--parsing-diagnostics`, `--verify-diagnostics`)."""
        parse_error = isinstance(e, ParseError)
        if not self.args.split_input_file or (
            self.args.parsing_diagnostics if parse_error else self.args.verify_diagnostics
        ):
            return False
        print(e, file=sys.stderr)
        self.failed = True
        return True

    def import_onnx(self, chunk: IO[bytes]) -> ModuleOp:
        """The ONNX frontend: the file (or stdin's bytes), with the `--input-shape` flags.

        An import failure is a parse error of the input (`--parsing-diagnostics`).
        """
        model = self.args.input_file if self.args.input_file is not None else chunk.read()
        try:
            self._imported = api.load(model, self._shapes, frontend="onnx", ctx=self.ctx)
            return self._imported
        except GeError as e:
            raise LocatedParseError.unlocated(str(e), self.get_input_name()) from None

    # ---- passes and output ---------------------------------------------------------------------

    def apply_passes(self, prog: ModuleOp) -> None:
        self.use_tuned(prog)
        try:
            try:
                self.compile(prog)
            finally:
                self.print_reports(prog)  # those of a pass that failed too
                if self.args.pass_statistics:  # as mlir-opt, after a failure too
                    self.print_statistics(prog)
        except GeError as e:
            if not self.reported_in_place(e):
                raise
            self._skip_output = True

    def compile(self, prog: ModuleOp) -> None:
        """Runs the pipeline on `prog`; an exception of a plugin's code (not a diagnostic)
        is one `GeError` line naming the plugin's file and line."""
        self._running = None
        try:
            api.compile(
                prog,
                self.pipeline,
                ctx=self.ctx,
                name=self.get_input_name(),
                # (an ONNX import is verified: not again before the passes)
                verify=not self.args.disable_verify and prog is not self._imported,
            )
        except DiagnosticException:
            raise
        except Exception as e:
            running = self._running
            error = transforms.plugin_error(e, running.name if running is not None else "?")
            if error is None:
                raise
            raise error from None

    def print_statistics(self, prog: ModuleOp) -> None:
        """Prints on stderr what the passes counted (`transforms.reports`)."""
        from transforms import reports

        counts = reports.take_statistics(prog)
        sys.stderr.write(format_statistics(counts, self.statistic_descriptions))

    def statistic_descriptions(self, pass_name: str) -> dict[str, str]:
        """The descriptions of a pass's statistics: its class's `STATISTICS` mapping."""
        factory = self.available_passes.get(pass_name)
        return dict(getattr(factory(), "STATISTICS", {})) if factory is not None else {}

    def prepare_output(self) -> IO[str]:
        return self._output

    def output_resulting_program(self, prog: ModuleOp) -> str:
        if self._skip_output:  # the chunk failed in `apply_passes`
            self._skip_output = False
            return ""
        try:
            self.prepare_constants(prog)
            return super().output_resulting_program(prog)  # (a target may refuse the module)
        except GeError as e:
            if not self.reported_in_place(e):
                raise
            return ""

    def prepare_constants(self, prog: ModuleOp) -> None:
        """Elides, rebases and externalizes constants as the flags ask."""
        if self.args.elide_constants_if_larger is not None:
            api.elide(prog, self.args.elide_constants_if_larger)
        if self.args.output_file is not None:
            api.rebase_external_paths(prog, os.path.dirname(self.args.output_file))
        if self._writer is not None:
            with writing(self.args.external_data, "external data"):
                api.externalize(prog, self._writer, self.args.externalize_constants_if_larger)

    def run(self) -> None:
        """xDSL's loop, then the output.  The external data and the `-o` file are new
        files, renamed into place only when every chunk succeeded, the output last (so that
        it never refers to data not in place yet).  Stdout gets the chunks that succeeded
        (as mlir-opt's), unless they refer to external data, which a failed run does not
        write."""
        self.check_pdl_files()
        pending: list[tuple[str, str, api.ExternalWriter | ReplacingFile]] = []  # commit order
        if self.args.externalize_constants_if_larger is not None:
            out_dir = os.path.dirname(self.args.output_file or "")
            self._writer = api.open_external_writer(self.args.external_data, out_dir)
            pending.append((self.args.external_data, "external data", self._writer))
        try:
            super().run()
            if self.args.output_file is not None and not self.failed:
                with writing(self.args.output_file, "output"):
                    output = ReplacingFile(self.args.output_file, self._output.getvalue().encode())
                pending.append((self.args.output_file, "output", output))
            while pending and not self.failed:
                path, what, new_file = pending.pop(0)
                with writing(path, what):
                    new_file.close(commit=True)
            if self.args.output_file is None and not (self.failed and self._writer is not None):
                sys.stdout.write(self._output.getvalue())
                sys.stdout.flush()
        finally:
            for _, _, new_file in pending:
                with contextlib.suppress(OSError):
                    new_file.close(commit=False)
        if self.args.time_passes:
            self.print_timings()

    def print_timings(self) -> None:
        total = sum(t for _, t in self._timings)
        print("===" + "-" * 60 + "===", file=sys.stderr)
        print("                      ... Pass execution timing report ...", file=sys.stderr)
        print("===" + "-" * 60 + "===", file=sys.stderr)
        print(f"  Total Execution Time: {total:.4f} seconds", file=sys.stderr)
        print("  Wall Time   Name", file=sys.stderr)
        for name, t in self._timings:
            print(f"  {t:9.4f}   {name}", file=sys.stderr)
        print(f"  {total:9.4f}   Total", file=sys.stderr)


def run_tool(
    tool_class: Callable[[Sequence[str] | None], GeOptMain], prog: str, args: Sequence[str] | None
) -> int:
    """Runs a ge-opt-style tool and maps user errors to one line and an exit code: 2 for a
    bad flag or option (`prog: error: ...`), 1 for a diagnostic, 0 on success."""
    # xDSL's --disable-verify and --syntax-highlight change process-wide state; undo them.
    post_init = Attribute.__post_init__
    colored = Diagnostic.colored
    try:
        tool = tool_class(args)
        tool.run()
        if tool.failed:
            return EXIT_ERROR
    except (UsageError, OptionError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except GeError as e:
        print(str(e), file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_ERROR
    finally:
        setattr(Attribute, "__post_init__", post_init)  # noqa: B010 (a method: see above)
        Diagnostic.colored = colored
    return 0


def main(args: Sequence[str] | None = None) -> int:
    """Console entry point of ge-opt."""
    return run_tool(GeOptMain, "ge-opt", args)


if __name__ == "__main__":
    sys.exit(main())
