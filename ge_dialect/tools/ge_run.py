"""ge-run: compile a graph and run it on the simulated NPU.

    ge-run [pass flags | -p pipeline | -O0] [--inputs in.npz] [--outputs out.npz]
           [--input-shape NAME=DIMS] [--check] [--seed N] input.mlir|model.onnx

Reads IR or an ONNX model as ge-opt does, compiles it with DESIGN's pipeline and runs the
device program on the simulated NPU, then prints a summary of each output (shape, dtype,
min, max, mean).  The pipeline is `ge_dialect.api.DEFAULT_PIPELINE` unless pass flags or
`-p` say otherwise: they replace the optimisation part, and `lower-to-device` is appended
unless they hold it; `-O0` runs the lowering only; input that already holds an `npu`
program runs no passes.  `--inputs` is an `.npz` whose keys are the function's argument
names (ONNX names when imported, `arg0`, ... otherwise); without it inputs are seeded
random arrays (`--seed`).  `--outputs` writes the outputs (keys: result names), replaced
only when the whole run succeeds.  `--check` also runs the reference interpreter on the
graph before any pass (and onnxruntime for ONNX input) and prints the largest error against
each; an output outside DESIGN's tolerance is an error (exit 1).

Built on ge-opt's driver (`GeOptMain`, itself xDSL's `xDSLOptMain` with hooks), so its
flags and its error discipline apply: one `error:` line and a non-zero exit for a user's
mistake, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from io import BytesIO
from typing import IO, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import ArgSpecParseError

from ge_dialect import __version__, api
from ge_dialect.diagnostics import GeError, OptionError
from ge_dialect.tools.ge_opt import EXIT_ERROR, EXIT_USAGE, GeOptMain, UsageError, _writing
from transforms import parse_pipeline

LOWERING = "lower-to-device"

OPT_ONLY = {
    "split_input_file": "--split-input-file",
    "output_file": "-o",
    "elide_constants_if_larger": "--elide-constants-if-larger",
    "externalize_constants_if_larger": "--externalize-constants-if-larger",
    "external_data": "--external-data",
}
"""ge-opt flags that mean nothing to ge-run (it prints no IR), refused with a clear error."""


class GeRunMain(GeOptMain):
    """ge-opt's driver, ending with a simulation instead of printing IR."""

    version_format = f"ge-run {__version__} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        self._pending_outputs: tuple[str, bytes] | None = None
        self.original: ModuleOp | None = None
        self.onnx_model: Any = None
        self.report: list[str] = []
        super().__init__(args)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "ge-run"
        arg_parser.description = "compile a GE graph and run it on the simulated NPU"
        group = arg_parser.add_argument_group("ge-run options")
        group.add_argument(
            "-O",
            dest="opt_level",
            type=int,
            choices=(0, 1),
            default=None,
            metavar="LEVEL",
            help="-O0: lower and run without optimising (-O1: the default pipeline)",
        )
        group.add_argument(
            "--inputs", metavar="FILE", help="an .npz of inputs keyed by argument name"
        )
        group.add_argument(
            "--outputs", metavar="FILE", help="write the outputs to this .npz (keys: result names)"
        )
        group.add_argument(
            "--check",
            action="store_true",
            help="compare with the reference interpreter (and onnxruntime for ONNX input)",
        )
        group.add_argument(
            "--seed", type=int, default=0, help="the seed of random inputs (default 0)"
        )

    # ---- pipeline -------------------------------------------------------------------------

    def setup_pipeline(self) -> None:
        self.check_files()
        for dest, flag in OPT_ONLY.items():
            if getattr(self.args, dest) not in (None, False):
                raise UsageError(f"{flag} is a ge-opt option; ge-run prints no IR")
        passes = [p for p in (self.args.passes, *self.pass_flags) if p]
        if self.args.opt_level == 0:
            if passes:
                raise UsageError("-O0 runs no optimisation: drop the pass flags or -p")
            passes = [LOWERING]
        elif not passes:
            passes = [api.DEFAULT_PIPELINE]
        try:
            self.pipeline = parse_pipeline(
                ",".join(passes), self.between_passes, self.available_passes
            )
            if not any(p.name == LOWERING for p in self.pipeline.passes):
                passes.append(LOWERING)
                self.pipeline = parse_pipeline(
                    ",".join(passes), self.between_passes, self.available_passes
                )
        except ArgSpecParseError as e:
            raise UsageError(str(e).replace("\n", " ")) from None
        except ValueError as e:
            raise UsageError(str(e)) from None
        self.args.passes = ",".join(passes)

    def apply_passes(self, prog: ModuleOp) -> None:
        if api.has_elided(prog):
            raise GeError(
                f"{self.get_input_name()}: error: the IR has elided constants (#ge.elided): "
                "ge-run needs their data (print the IR without --elide-constants-if-larger)"
            )
        if api.is_device_program(prog):
            self.check(prog)
            if self.args.check:
                raise UsageError(
                    "--check compares a graph with its reference: the input "
                    "is already a device program"
                )
            return
        self.original = prog.clone()
        super().apply_passes(prog)

    # ---- input ----------------------------------------------------------------------------

    def import_onnx(self, chunk: IO[bytes]) -> ModuleOp:
        if self.args.check:  # onnxruntime reads the model too
            if self.args.input_file is not None:
                self.onnx_model = self.args.input_file
            else:
                data = chunk.read()
                self.onnx_model = data
                chunk = BytesIO(data)
        return super().import_onnx(chunk)

    def read_inputs(self) -> dict[str, Any] | None:
        path = self.args.inputs
        if path is None:
            return None
        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as data:
                if not hasattr(data, "files"):
                    raise GeError(f"{path}: error: not an .npz archive (an array of its own)")
                return {name: data[name] for name in data.files}
        except OSError as e:
            raise GeError(f"{path}: error: cannot read inputs: {e.strerror or e}") from None
        except (ValueError, EOFError) as e:
            raise GeError(f"{path}: error: not a readable .npz archive: {e}") from None

    # ---- output ---------------------------------------------------------------------------

    def output_resulting_program(self, prog: ModuleOp) -> str:
        inputs = self.read_inputs()
        try:
            result = api.simulate(prog, inputs, seed=self.args.seed)
        except GeError as e:
            if not str(e).startswith("error:"):
                raise
            where = self.args.inputs if inputs is not None else self.get_input_name()
            raise GeError(f"{where}: {e}") from None
        lines = [summary(name, value) for name, value in result.outputs.items()]
        if self.args.check:
            assert self.original is not None
            lines += self.check_against(result)
        if self.args.outputs is not None:
            self.write_outputs(result.outputs)
        return "\n".join(lines) + "\n"

    def check_against(self, result: api.SimResult) -> list[str]:
        assert self.original is not None
        references: list[tuple[str, dict[str, Any], tuple[float, float] | None]] = [
            ("reference interpreter", api.reference(self.original, result.inputs), None)
        ]
        if self.onnx_model is not None:
            outputs = api.onnxruntime_outputs(self.onnx_model, result.inputs)
            references.append(("onnxruntime", outputs, api.MODEL_TOLERANCE))
        lines, failures = [], []
        for what, expected, tolerance in references:
            for name, actual in result.outputs.items():
                error = api.max_error(actual, expected[name])
                ok = api.within_tolerance(actual, expected[name], tolerance)
                lines.append(
                    f"check {name}: max |error| {error:.3g} against {what}"
                    f"{'' if ok else ' (outside tolerance)'}"
                )
                if not ok:
                    failures.append(
                        f"output '{name}' differs from {what} (max |error| {error:.3g})"
                    )
        if failures:
            self.report = lines
            raise GeError(f"{self.get_input_name()}: error: " + "; ".join(failures))
        return lines

    def write_outputs(self, outputs: dict[str, Any]) -> None:
        import numpy as np

        path = self.args.outputs
        buffer = BytesIO()
        np.savez(buffer, **outputs)
        self._pending_outputs = (path, buffer.getvalue())

    def run(self) -> None:
        try:
            super().run()
        finally:
            for line in self.report:  # the comparison that failed, for the user to see
                print(line, file=sys.stderr)
        if self._pending_outputs is not None and not self.failed:
            path, data = self._pending_outputs
            with _writing(path, "outputs"):
                tmp = f"{path}.tmp{os.getpid()}"
                try:
                    with open(tmp, "wb") as f:
                        f.write(data)
                    os.replace(tmp, path)
                finally:
                    if os.path.exists(tmp):
                        os.unlink(tmp)


def summary(name: str, value: Any) -> str:
    """`y: shape [1, 16, 8, 8] float32  min -1.2 max 3.4 mean 0.05`."""
    import numpy as np

    shape = list(value.shape)
    if value.size == 0:
        return f"{name}: shape {shape} {value.dtype} (empty)"
    v = value.astype(np.float64)
    return (
        f"{name}: shape {shape} {value.dtype}  min {v.min():.6g}  max {v.max():.6g}  "
        f"mean {v.mean():.6g}"
    )


def main(args: Sequence[str] | None = None) -> int:
    """Console entry point: runs ge-run and maps user errors to one line and an exit code."""
    post_init = Attribute.__post_init__
    colored = Diagnostic.colored
    try:
        tool = GeRunMain(args)
        tool.run()
        if tool.failed:
            return EXIT_ERROR
    except (UsageError, OptionError) as e:
        print(f"ge-run: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except GeError as e:
        print(str(e), file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_ERROR
    finally:
        setattr(Attribute, "__post_init__", post_init)  # noqa: B010
        Diagnostic.colored = colored
    return 0


if __name__ == "__main__":
    sys.exit(main())
