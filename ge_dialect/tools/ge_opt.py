"""ge-opt: the `mlir-opt` of GE graphs.

    ge-opt [options] [-p pipeline] [--<pass>[=<options>] ...] [input.mlir]

Reads IR (stdin without a file), runs passes, prints IR.  Pass flags such as
`--canonicalize` or `--some-pass=opt-a=1,flag` run after the `-p` pipeline in command-line
order; a bare option word means `word=true`.  Every user mistake is one diagnostic line
`file:line:col: error: ...` on stderr and exit 1 (exit 2 for bad flags and options).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from io import StringIO
from typing import NoReturn

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from ge_dialect import __version__
from ge_dialect.diagnostics import GeError, LocatingParser, OptionError, format_parse_error
from ge_dialect.dialects import get_all_dialects

EXIT_ERROR = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A bad command line: unknown flag, pass or option (exit 2)."""


def _pass_registry():
    from transforms import get_all_passes

    return get_all_passes()


def _split_options(text: str) -> list[str]:
    """`a=1,b c=2` -> ['a=1', 'b=true', 'c=2'] (commas or spaces separate options)."""
    words = [w for part in text.split(",") for w in part.split()]
    return [w if "=" in w else f"{w}=true" for w in words]


def split_pass_flags(argv: Sequence[str], names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Separates `--<pass>[=<options>]` flags (as xDSL pipeline specs) from other arguments.

    Done before argparse, which would otherwise take `--pass in.mlir` as an option value.
    """
    specs: list[str] = []
    rest: list[str] = []
    known = set(names)
    for i, arg in enumerate(argv):
        if arg == "--":
            rest.extend(argv[i:])
            break
        name, eq, options = arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
        if name in known:
            specs.append(f"{name}{{{' '.join(_split_options(options))}}}" if eq else name)
        else:
            rest.append(arg)
    return specs, rest


def _usage_error(message: str) -> NoReturn:
    raise UsageError(message)


class GeOptMain(xDSLOptMain):
    """xDSL's opt driver with ge's dialects and passes, located diagnostics and pass flags."""

    version_format = f"ge-opt {__version__} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        self._argv = None if args is None else list(args)
        argv = list(sys.argv[1:] if args is None else args)
        self.pass_flags, rest = split_pass_flags(argv, list(_pass_registry()))
        self.diagnostics: list[str] = []
        super().__init__(description="ge modular optimizer driver", args=rest)

    # ---- registration -------------------------------------------------------------------

    def register_all_dialects(self) -> None:
        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        for name, factory in _pass_registry().items():
            self.register_pass(name, factory)

    def register_all_frontends(self) -> None:
        self.available_frontends["mlir"] = lambda: None  # parsing is done by `parse_chunk`

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "ge-opt"
        arg_parser.error = _usage_error  # type: ignore[method-assign]
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR after every pass to stderr, as mlir-opt does",
        )
        arg_parser.add_argument(
            "--input-shape",
            action="append",
            default=[],
            metavar="NAME=DIMS",
            help="bind the dims of an ONNX graph input, e.g. input=1x3x224x224 (repeatable)",
        )
        arg_parser.add_argument(
            "--elide-constants-if-larger",
            type=int,
            metavar="N",
            help="print constants of more than N elements as #ge.elided (for reading only)",
        )
        arg_parser.add_argument(
            "--externalize-constants-if-larger",
            type=int,
            metavar="N",
            help="write constants of more than N elements to an external data file",
        )
        arg_parser.add_argument(
            "--external-data",
            metavar="FILE",
            help="the external data file (default: the -o file with .weights appended)",
        )
        if not {"-h", "--help"} & set(sys.argv[1:] if self._argv is None else self._argv):
            return  # pass flags are split off before argparse; they are listed for --help only
        group = arg_parser.add_argument_group(
            "passes (--<pass>[=<options>], run after -p in command-line order)"
        )
        for name, factory in self.available_passes.items():  # imports each pass module
            doc = (factory().__doc__ or "").strip().split("\n")[0]
            group.add_argument(f"--{name}", action="store_true", help=doc)

    # ---- pipeline ---------------------------------------------------------------------------

    def setup_pipeline(self) -> None:
        self.args.passes = ",".join(p for p in (self.args.passes, *self.pass_flags) if p)
        self._timings: list[tuple[str, float]] = []
        start = time.perf_counter()

        def callback(previous: ModulePass | None, module: ModuleOp, next_: ModulePass | None):
            nonlocal start
            if previous is not None:
                self._timings.append((previous.name, time.perf_counter() - start))
                self.check(module, f"after pass '{previous.name}'")
                if self.args.print_ir_after_all:
                    print(f"// -----// IR Dump After {previous.name} //----- //", file=sys.stderr)
                    Printer(stream=sys.stderr).print_op(module)
                    print(file=sys.stderr)
            start = time.perf_counter()

        try:
            self.pipeline = PassPipeline.parse_spec(self.available_passes, self.args.passes, callback)
        except ArgSpecParseError as e:
            raise UsageError(str(e).replace("\n", " ")) from None
        except ValueError as e:
            raise UsageError(str(e)) from None

    def check(self, module: ModuleOp, when: str = "") -> None:
        """Located verification and SSA dominance (skipped with --disable-verify)."""
        if self.args.disable_verify:
            return
        from ge_dialect.verify import verify_module

        verify_module(module, self.get_input_name())

    # ---- running ----------------------------------------------------------------------------

    def read_input(self) -> str:
        name = self.get_input_name()
        try:
            if self.args.input_file is None:
                data = sys.stdin.buffer.read()
            else:
                with open(self.args.input_file, "rb") as f:
                    data = f.read()
        except OSError as e:
            raise GeError(f"{name}: error: cannot read input: {e.strerror}") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
            raise GeError(
                f"{name}:{line}:{col}: error: invalid UTF-8 (byte 0x{data[e.start]:02x})"
            ) from None

    def chunks(self, text: str) -> list[tuple[str, int]]:
        """The input split at lines that are exactly `// -----`, with their line offsets."""
        if not self.args.split_input_file:
            return [(text, 0)]
        out: list[tuple[str, int]] = []
        current: list[str] = []
        start = 0
        for number, line in enumerate(text.splitlines(keepends=True)):
            if line.rstrip() == "// -----":
                out.append(("".join(current), start))
                current, start = [], number + 1
            else:
                current.append(line)
        out.append(("".join(current), start))
        return out

    def parse_text(self, text: str, line_offset: int) -> ModuleOp:
        name = self.get_input_name()
        if all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines()):
            return ModuleOp([])  # an empty or comment-only chunk is an empty module, as in MLIR
        parser = LocatingParser(self.ctx, text, name, line_offset)
        try:
            return parser.parse_module(not self.args.no_implicit_module)
        except ParseError as e:
            raise GeError(format_parse_error(e, name, line_offset)) from None

    def process(self, module: ModuleOp) -> str:
        self.check(module)
        try:
            self.pipeline.apply(self.ctx, module)
        except GeError:
            raise
        except DiagnosticException as e:
            raise GeError(f"{self.get_input_name()}: error: {str(e).strip()}") from None
        return self.print_module(module)

    def print_module(self, module: ModuleOp) -> str:
        from ge_dialect import weights

        if self.args.elide_constants_if_larger is not None:
            weights.elide(module, self.args.elide_constants_if_larger)
        out_dir = os.path.dirname(self.args.output_file or "")
        if self.args.output_file is not None:
            weights.rebase_external_paths(module, out_dir)
        if self.args.externalize_constants_if_larger is not None:
            weights.externalize(module, self.external_writer(), self.args.externalize_constants_if_larger)
        return self.output_resulting_program(module)

    def external_writer(self):
        from ge_dialect import weights

        if getattr(self, "_writer", None) is None:
            path = self.args.external_data
            if path is None:
                if self.args.output_file is None:
                    raise UsageError(
                        "--externalize-constants-if-larger needs -o or --external-data"
                    )
                path = self.args.output_file + ".weights"
            try:
                self._writer = weights.ExternalWriter(path, os.path.dirname(self.args.output_file or ""))
            except OSError as e:
                raise GeError(f"{path}: error: cannot write external data: {e.strerror}") from None
        return self._writer

    def input_shapes(self) -> dict[str, list[int]]:
        """`--input-shape name=1x3x224x224` flags as a dict (exit 2 when malformed)."""
        shapes: dict[str, list[int]] = {}
        for spec in self.args.input_shape:
            name, eq, dims = spec.rpartition("=")
            try:
                shape = [int(d) for d in dims.split("x")] if dims else []
            except ValueError:
                shape = None
            if not eq or not name or shape is None or any(d < 0 for d in shape):
                raise UsageError(f"--input-shape expects NAME=DIMS such as x=1x3x224x224, got '{spec}'")
            shapes[name] = shape
        return shapes

    def import_onnx(self) -> ModuleOp:
        from ge_dialect.frontend import import_onnx

        return import_onnx(self.args.input_file, self.input_shapes())

    def is_onnx(self) -> bool:
        return (self.args.input_file or "").lower().endswith(".onnx")

    def run(self) -> None:
        input_dir = os.path.dirname(self.args.input_file or "")
        self._writer = None
        ok = False
        try:
            text = self.run_onnx(input_dir) if self.is_onnx() else self.run_mlir(input_dir)
            ok = True
        finally:
            if self._writer is not None:
                self._writer.close(commit=ok)
        if self.args.time_passes:
            self.print_timings()
        self.write_output(text)

    def run_onnx(self, input_dir: str) -> str:
        from ge_dialect import weights

        module = self.import_onnx()
        weights.set_data_dir(module, input_dir)
        return self.process(module)

    def run_mlir(self, input_dir: str) -> str:
        from ge_dialect import weights

        if self.args.input_shape:
            raise UsageError("--input-shape applies to ONNX input (.onnx files) only")
        output = StringIO()
        for i, (chunk, offset) in enumerate(self.chunks(self.read_input())):
            if i > 0:
                output.write("// -----\n")
            try:
                module = self.parse_text(chunk, offset)
            except GeError as e:
                if not self.args.parsing_diagnostics:
                    raise
                print(e)
                continue
            weights.set_data_dir(module, input_dir)
            try:
                output.write(self.process(module))
            except GeError as e:
                if not self.args.verify_diagnostics:
                    raise
                print(e)
        return output.getvalue()

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

    def write_output(self, text: str) -> None:
        if self.args.output_file is None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        try:
            with open(self.args.output_file, "w") as f:
                f.write(text)
        except OSError as e:
            raise GeError(f"{self.args.output_file}: error: cannot write output: {e.strerror}") from None


def main(args: Sequence[str] | None = None) -> int:
    """Console entry point: runs ge-opt and maps user errors to one line and an exit code."""
    try:
        GeOptMain(args).run()
    except OptionError as e:
        print(f"ge-opt: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except GeError as e:
        print(str(e), file=sys.stderr)
        return EXIT_ERROR
    except UsageError as e:
        print(f"ge-opt: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_ERROR
    return 0


if __name__ == "__main__":
    sys.exit(main())
