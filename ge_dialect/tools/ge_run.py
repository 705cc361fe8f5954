"""ge-run: compile a graph and run it on the simulated NPU.

    ge-run [pass flags | -p pipeline | -O0] [--inputs in.npz] [--outputs out.npz]
           [--input-shape NAME=DIMS] [--gears NAME:DIM=N,N,..] [--check-numbers] [--seed N]
           [--profile p.json]
           [--report text|json] [--trace t.json] [--timeline t.png] [--timing-only]
           [--compare-unoptimized] [--no-race-check] [--ranks N] [--topology t.json]
           [--package DIR]
           input.mlir|model.onnx|DIR

Reads IR or an ONNX model as ge-opt does, compiles it with the default pipeline and runs the
device program on the simulated NPU (its numbers and its timeline on the device profile),
then prints a summary of each output (shape, dtype, min, max, mean) and the run's report
(makespan against its lower bound, streams, units, cluster figures; `--report json` prints
all of it as one JSON object).  `--trace` writes a Chrome/Perfetto trace, `--timeline` a
PNG (its file must end in `.png`); `--timing-only` skips the kernels;
`--compare-unoptimized` also times the graph lowered without optimisation.  `--ranks N`
shards the graph over N ranks (the `shard` pass, data-parallel unless a `--shard=...` flag
says otherwise) and simulates every rank in one event loop on `--topology`
(`api.simulate_ranks`): the report adds each rank's figures, the imbalance across ranks and
every collective's HCCL algorithm and cost, the trace a process per rank.  `--package DIR`
writes the multi-rank run's per-rank package (`ge_dialect.sim.package`: each rank's program,
groups, memory plan and trace, and a manifest), only when the run succeeds; an input that is
a directory is such a package, run again on its topology and profile (the same report).

The pipeline is `ge_dialect.api.DEFAULT_PIPELINE` unless pass flags or `-p` say otherwise:
they replace the optimisation part, and `lower-to-device` and `plan-memory` are appended
unless they hold them; `-O0` runs the lowering and the planning only; input that already
holds an `npu` program runs no passes; `--tuned DB` runs the pipeline ge-tune stored for the
graph instead (not with pass flags, `-p` or `-O`; on a model with `?` dims and no `--gears`,
with the gears ge-tune chose).  `--inputs` is an `.npz` whose keys are the
function's argument names (ONNX names when imported, `arg0`, ... otherwise); without it
inputs are seeded random arrays (`--seed`): floats ~ U(-1, 1), integers in [0, 2) (valid
token ids, masks and token types), booleans fair.  `--outputs` writes the outputs (keys: result
names), replaced only when the whole run succeeds (so are the trace and the timeline).
`--check-numbers` (or `--check`, its old name) also runs the reference interpreter on a copy
of the graph before any pass (and onnxruntime for ONNX input) and prints the largest error
against each; an output outside the tolerance of its dtype (`ge_dialect.utils.tolerance`:
against onnxruntime, a whole model's) is an error (exit 1).  External data is read relative
to the input file, the copy's too, from any working directory.

`--input-shape` is `NAME=DIMS` or `NAME:DIMS`; a dim `?` of an ONNX input (dynamic:
`dim_param` or unknown) takes each value of `--gears NAME:DIM=N,N,...` in turn: the model is
imported, compiled and run once per gear (several `--gears` lists, of one length, go
together: the n-th gear takes the n-th value of each, TorchAir's "zip"), on random inputs
or on `--inputs` where their shapes are the gear's, and ge-run prints one line per gear
(its sizes, makespan and bound, launches and streams, peak memory; `--report json`: a list
`gears`).  A `?` without gears, gears of an input or a dim that is not `?`, and bad
numbers are usage errors; `--gears` does not go with the flags that write files, check
numbers or compare runs.

The memory checker (`ge_dialect.sim.checker`) replays every run: each race, clobber or
uninitialized read it finds is one `input: error: race: ...` (`clobber: ...`,
`uninitialized: ...`) line on stderr after the report (naming both tasks, their streams
and locations, also in the JSON report's `findings`), and the run exits 1 without writing
its files; `--no-race-check` (or `--no-check`, its old name) skips it.  A deadlock is an
error before anything runs.

Built on ge-opt's driver (`GeOptMain`, itself xDSL's `xDSLOptMain` with hooks), so its
flags and its error discipline apply: one `error:` line and a non-zero exit for a user's
mistake, never a traceback.  ge-opt's flags about the printed IR (`-o`, `-t`,
`--split-input-file`, the constants' flags: `REFUSED`) are not listed in `--help` and are a
usage error; the printer's flags (`--print-op-generic`, ...) apply to the IR dumps of
`--print-ir-after-all` and `--print-between-passes`, and without one are a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from io import BytesIO
from typing import IO, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ArgSpecParseError

from ge_dialect import __version__, api
from ge_dialect.tools.ge_opt.driver import GeOptMain, run_tool
from ge_dialect.utils.errors import GeError, UsageError
from ge_dialect.utils.files import replace_file, writing
from transforms import parse_pipeline

LOWERING = "lower-to-device"
PLANNING = "plan-memory"

PRINTS_NO_IR = "is a ge-opt option; ge-run prints no IR"
REFUSED = {
    "-o": PRINTS_NO_IR,
    "-t": PRINTS_NO_IR,
    "--elide-constants-if-larger": PRINTS_NO_IR,
    "--externalize-constants-if-larger": PRINTS_NO_IR,
    "--external-data": PRINTS_NO_IR,
    "--split-input-file": "is a ge-opt option; ge-run runs its input as one graph",
}
"""ge-opt's flags that mean nothing to ge-run, by one of their option strings: not listed in
`--help`, and a usage error (`<flag> <reason>`) when given."""

PRINTER_FLAGS = {
    "print_op_generic": ("--print-op-generic", "in the generic form"),
    "print_no_properties": ("--print-no-properties", "with properties as attributes"),
    "print_debuginfo": ("--print-debuginfo", "with locations"),
    "syntax_highlight": ("--syntax-highlight", "with syntax highlighting"),
}
"""The printer's flags (by `args` name): ge-run prints IR only in the dumps of
`--print-ir-after-all` and `--print-between-passes`, which follow them; without a dump
flag they are a usage error (they would change nothing)."""


class _Refused(argparse.Action):
    """A ge-opt flag ge-run does not take: hidden from `--help`, a usage error when given
    (before anything runs).  It keeps the flag's `dest` and default, which ge-opt's driver
    reads."""

    def __init__(self, option_strings: Sequence[str], dest: str, reason: str, **kwargs: Any):
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)
        self.reason = reason

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        raise UsageError(f"{option_string} {self.reason}")


class _FlagGiven(argparse.Action):
    """A flag without a value that stores the option string it was given as (None when
    absent), so that a message names the flag as the user wrote it (`--check` is the old
    name of `--check-numbers`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, default=None, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, option_string)


class GeRunMain(GeOptMain):
    """ge-opt's driver, ending with a simulation instead of printing IR."""

    version_format = f"ge-run {__version__} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        self.pending: list[tuple[str, str, bytes]] = []  # (path, what, bytes) to write
        self.original: ModuleOp | None = None
        self.onnx_model: Any = None
        self.report: list[str] = []
        self.findings: list[str] = []  # the memory checker's, as error lines
        self.gears: list[tuple[str, dict[str, list[int]]]] = []  # (label, shapes) per gear
        self.onnx_bytes: bytes | None = None  # an ONNX model read from stdin
        self.package_module: ModuleOp | None = None  # the input, when it is a package
        self.package_files: dict[str, bytes] | None = None  # --package's, to write
        super().__init__(args)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "ge-run"
        arg_parser.description = "compile a GE graph and run it on the simulated NPU"
        self.refuse_opt_flags(arg_parser)
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
            "--check-numbers",
            "--check",
            dest="check",
            action=_FlagGiven,
            help="compare the outputs with the reference interpreter (and onnxruntime for "
            "ONNX input); an output outside its dtype's tolerance is an error (--check: its "
            "old name)",
        )
        group.add_argument(
            "--seed", type=int, default=0, help="the seed of random inputs (default 0)"
        )
        group.add_argument(
            "--profile", metavar="FILE", help="the device profile JSON (default: Ascend 910)"
        )
        group.add_argument(
            "--report",
            choices=("text", "json"),
            default="text",
            help="how to print the outputs and the run's figures: text (default) or one JSON "
            "object (keys in docs/cli.md)",
        )
        group.add_argument(
            "--trace", metavar="FILE", help="write a Chrome/Perfetto trace (JSON) of the run"
        )
        group.add_argument(
            "--timeline",
            metavar="FILE.png",
            help="draw the run's timeline as a PNG (matplotlib); the file must end in .png",
        )
        group.add_argument(
            "--timing-only",
            action="store_true",
            help="simulate time only: no kernels run, no outputs (for large graphs)",
        )
        group.add_argument(
            "--compare-unoptimized",
            action="store_true",
            help="also run the graph lowered without optimisation (-O0) and print both "
            "makespans and the speed-up",
        )
        group.add_argument(
            "--ranks",
            type=int,
            default=None,
            metavar="N",
            help="run on N ranks: shard the graph (shard{ranks=N mode=data} unless a --shard "
            "flag says otherwise) and simulate all ranks together",
        )
        group.add_argument(
            "--topology",
            metavar="FILE",
            help="the cluster topology JSON of a multi-rank run (default: one 8-NPU Ascend "
            "910 server, two servers above 8 ranks)",
        )
        group.add_argument(
            "--hccl-algo",
            choices=api.HCCL_ALGORITHMS,
            default=None,
            help="force this algorithm on the all-reduces, all-gathers and reduce-scatters it "
            "has a formula for, as HCCL_ALGO (default: HCCL's choice by size and topology)",
        )
        group.add_argument(
            "--package",
            metavar="DIR",
            help="write the multi-rank run's per-rank package to DIR (each rank's program, "
            "groups, memory plan and trace, and a manifest); `ge-run DIR` runs it again",
        )
        group.add_argument(
            "--gears",
            action="append",
            default=[],
            metavar="NAME:DIM=N,N,..",
            help="the sizes a '?' dim of --input-shape takes, e.g. x:0=1,4,8: one "
            "compilation and run per gear, one line each (repeatable: lists of one length, "
            "zipped)",
        )
        group.add_argument(
            "--no-race-check",
            "--no-check",
            dest="no_race_check",
            action="store_true",
            help="skip the memory checker (races, clobbers and uninitialized reads are "
            "errors otherwise; --no-check: its old name)",
        )

    def refuse_opt_flags(self, arg_parser: argparse.ArgumentParser) -> None:
        """Replaces ge-opt's flags that ge-run does not take (`REFUSED`) by `_Refused`
        actions, and says in the printer flags' help what they print in ge-run."""
        refused = arg_parser.add_argument_group(conflict_handler="resolve")
        for flag, reason in REFUSED.items():
            old = arg_parser._option_string_actions[flag]
            refused.add_argument(
                *old.option_strings,
                dest=old.dest,
                default=old.default,
                nargs=0 if old.nargs == 0 else "?",
                action=_Refused,
                reason=reason,
            )
        dumps = "print the IR dumps (--print-ir-after-all, --print-between-passes)"
        for flag, how in PRINTER_FLAGS.values():
            arg_parser._option_string_actions[flag].help = f"{dumps} {how}"

    # ---- pipeline -------------------------------------------------------------------------

    def tuned_gears(self) -> list[str]:
        """`--tuned` without `--gears` on a model with '?' dims: the gears ge-tune stored for
        it (none when no dim is '?')."""
        shapes = dict(shape_spec(spec) for spec in self.args.input_shape)
        if self.args.input_file is None or all(None not in s for s in shapes.values()):
            return []
        try:
            from ge_dialect.tune.study import tuned_gear_specs
        except ImportError as e:
            raise GeError(f"error: --tuned needs Optuna (the 'tune' extra): {e}") from None
        try:
            return tuned_gear_specs(self.tuned_storage(), self.args.input_file, shapes)
        except GeError as e:
            raise GeError(f"{self.get_input_name()}: {e}") from None

    def use_tuned_flags(self, flags: tuple[str, ...]) -> None:
        options = dict(zip(flags[::2], flags[1::2], strict=True))
        if "--hccl-algo" in options and self.args.hccl_algo is None:
            self.args.hccl_algo = options["--hccl-algo"]

    def setup_pipeline(self) -> None:
        self.check_files()
        self.check_flags()
        self.check_tuned()
        passes = [p for p in (self.args.passes, *self.pass_flags) if p]
        passes = self.shard_passes(passes)
        if self.args.opt_level == 0:
            if passes:
                raise UsageError("-O0 runs no optimisation: drop the pass flags or -p")
            passes = [LOWERING, PLANNING]
            if self.args.ranks is not None:
                passes.insert(0, f"shard{{ranks={self.args.ranks} mode=data}}")
        elif not passes:
            passes = [api.DEFAULT_PIPELINE]
        try:
            self.pipeline = parse_pipeline(
                ",".join(passes), self.between_passes, self.available_passes
            )
            names = [p.name for p in self.pipeline.passes]
            # lowering and planning are appended unless present (lowering before planning)
            specs = [str(p.pipeline_pass_spec()) for p in self.pipeline.passes]
            if LOWERING not in names:
                at = names.index(PLANNING) if PLANNING in names else len(names)
                specs.insert(at, LOWERING)
                names.insert(at, LOWERING)
            if PLANNING not in names:
                specs.append(PLANNING)
            passes = specs
            self.pipeline = parse_pipeline(
                ",".join(specs), self.between_passes, self.available_passes
            )
        except ArgSpecParseError as e:
            raise UsageError(str(e).replace("\n", " ")) from None
        except ValueError as e:
            raise UsageError(str(e)) from None
        self.args.passes = ",".join(passes)

    def check_flags(self) -> None:
        """Usage errors of flags that cannot go together or with their value (before
        anything is read)."""
        needs_numbers = self.args.check or ("--outputs" if self.args.outputs is not None else None)
        if self.args.timing_only and needs_numbers:
            raise UsageError(f"{needs_numbers} needs numbers: it cannot go with --timing-only")
        if not (self.args.print_ir_after_all or self.args.print_between_passes):
            for dest, (flag, _) in PRINTER_FLAGS.items():
                if getattr(self.args, dest):
                    raise UsageError(
                        f"{flag} applies to the IR dumps: ge-run prints IR only with "
                        "--print-ir-after-all or --print-between-passes"
                    )
        timeline = self.args.timeline
        if timeline is not None and not timeline.lower().endswith(".png"):
            raise UsageError(f"--timeline draws a PNG: '{timeline}' must end in .png")
        if self.args.gears:
            if self.frontend() != "onnx":
                raise UsageError("--gears applies to ONNX input (.onnx files) only")
            for flag, given in GEARS_REFUSE.items():
                if getattr(self.args, given):
                    raise UsageError(f"--gears runs one program per gear: it cannot go with {flag}")

    def input_shapes(self) -> dict[str, list[int]]:
        """`--input-shape` flags (`NAME=DIMS` or `NAME:DIMS`, a dim `?` sized by `--gears`)
        as the shapes of the first gear; `self.gears` gets every gear's (exit 2 when
        malformed)."""
        if self.args.tuned is not None and not self.args.gears:
            self.args.gears = self.tuned_gears()
        shapes, lists = dynamic_dims(self.args.input_shape, self.args.gears)
        by_dim = {(name, dim): sizes for name, dim, sizes, _ in lists}
        self.gears = []
        for k in range(len(lists[0][2]) if lists else 0):
            gear = {
                name: [by_dim[name, d][k] if size is None else size for d, size in enumerate(dims)]
                for name, dims in shapes.items()
            }
            label = " ".join(f"{name}:{dim}={sizes[k]}" for name, dim, sizes, _ in lists)
            self.gears.append((label, gear))
        if self.gears:
            return self.gears[0][1]
        return {name: [d for d in dims if d is not None] for name, dims in shapes.items()}

    def shard_passes(self, passes: list[str]) -> list[str]:
        """`--ranks N`: the pipeline starts with `shard{ranks=N mode=data}` unless it shards
        already (then with N ranks)."""
        ranks = self.args.ranks
        if ranks is None:
            return passes
        if ranks < 1:
            raise UsageError(f"--ranks must be at least 1, got {ranks}")
        if self.args.compare_unoptimized:
            raise UsageError("--compare-unoptimized runs one device: it cannot go with --ranks")
        try:
            given = [p for p in parse_pipeline(",".join(passes)).passes if p.name == "shard"]
        except (ArgSpecParseError, ValueError):
            return passes  # reported by setup_pipeline
        for p in given:
            if getattr(p, "ranks", ranks) != ranks:
                raise UsageError(f"--ranks {ranks} but the pipeline shards over {p.ranks} ranks")  # type: ignore[attr-defined]
        if given:
            return passes
        shard = f"shard{{ranks={ranks} mode=data}}"
        if self.args.opt_level == 0:
            return passes  # -O0: added after the check below
        return [shard, *(passes or [api.DEFAULT_PIPELINE])]

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
                    f"{self.args.check} compares a graph with its reference: the input "
                    "is already a device program"
                )
            if self.args.compare_unoptimized:
                raise UsageError(
                    "--compare-unoptimized lowers the graph without optimisation: the input "
                    "is already a device program"
                )
            return
        if self.args.check or self.args.compare_unoptimized:
            self.original = self.graph_copy(prog)
        super().apply_passes(prog)

    def graph_copy(self, prog: ModuleOp) -> ModuleOp:
        """A copy of `prog` (the graph before any pass, for the reference and the -O0 run)
        whose constants read the same external data from any working directory.

        Relative external paths are resolved against the directory recorded for the parsed
        module (the input file's), which xDSL's `clone` does not carry over: a copy resolves
        them against the working directory.  So the copy is taken while `prog`'s paths are
        relative to the working directory, then `prog`'s are rebased back."""
        api.rebase_external_paths(prog, "")
        copy = prog.clone()
        api.rebase_external_paths(prog, self.input_dir())
        return copy

    # ---- input ----------------------------------------------------------------------------

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        """A directory is a package (`--package`): its rank programs are the input, run on
        its topology and profile unless `--topology` or `--profile` say otherwise."""
        path = self.args.input_file
        if path is None or not os.path.isdir(path):
            return super().prepare_input()
        if self.args.input_shape or self.args.gears:
            raise UsageError("--input-shape and --gears apply to ONNX input, not to a package")
        module, topology, profile = api.load_package(path, self.ctx)
        self.package_module = module
        self.args.topology = self.args.topology or topology
        self.args.profile = self.args.profile or profile
        return [(BytesIO(b""), 0)], "mlir"

    def parse_mlir(self, chunk: IO[bytes], line_offset: int) -> ModuleOp:
        if self.package_module is not None:
            return self.package_module
        return super().parse_mlir(chunk, line_offset)

    def import_onnx(self, chunk: IO[bytes]) -> ModuleOp:
        if self.gears and self.args.input_file is None:  # imported again per gear
            self.onnx_bytes = chunk.read()
            chunk = BytesIO(self.onnx_bytes)
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
        if self.gears:
            return self.run_gears(prog)
        inputs = self.read_inputs()
        result = self.simulate(prog, inputs, self.args.timing_only, not self.args.no_race_check)
        self.findings += [f"{self.get_input_name()}: error: {f.message}" for f in result.findings]
        outputs = {name: summary(value) for name, value in result.outputs.items()}
        checks = self.check_against(result) if self.args.check else []
        unoptimized = (
            self.unoptimized(inputs, result.report.makespan)
            if self.args.compare_unoptimized
            else None
        )
        if self.args.outputs is not None:
            self.write_outputs(result.outputs)
        if self.args.trace is not None:
            text = json.dumps(api.trace(result), separators=(",", ":")) + "\n"
            self.pending.append((self.args.trace, "trace", text.encode()))
        if self.args.timeline is not None:
            self.pending.append((self.args.timeline, "timeline", self.draw(result)))
        if self.args.package is not None:
            if not isinstance(result, api.RanksResult):
                raise UsageError(
                    "--package needs a multi-rank run: --ranks N (or a sharded program)"
                )
            self.package_files = api.package(
                result, prog, topology=self.args.topology, profile=self.args.profile
            )
        report = result.report
        if self.args.report == "json":
            document: dict[str, Any] = {"outputs": outputs, "checks": checks, **report.to_json()}
            document["findings"] = [
                {"kind": f.kind, "message": f.message, "tasks": list(f.tasks)}
                for f in result.findings
            ]
            if unoptimized is not None:
                document["unoptimized"] = unoptimized
            return json.dumps(document, indent=2) + "\n"
        lines = [f"{name}: {text}" for name, text in _summary_lines(outputs)]
        lines += [
            f"check {c['output']}: max |error| {c['max_error']:.3g} against {c['against']}"
            for c in checks
        ]
        lines.append(report.text())
        if unoptimized is not None:
            lines.append(
                f"unoptimized (-O0) makespan {unoptimized['makespan_us']:.2f} us, optimized "
                f"{report.makespan:.2f} us: speed-up {unoptimized['speedup']:.2f}x"
            )
        return "\n".join(lines) + "\n"

    def run_gears(self, prog: ModuleOp) -> str:
        """One run per gear (`prog` is the first gear's, compiled): the model imported
        and compiled again for each other gear; one line per gear."""
        given = self.read_inputs() or {}
        lines, documents = [], []
        for k, (label, shapes) in enumerate(self.gears):
            if k:
                self._shapes = shapes
                source = self.onnx_bytes if self.onnx_bytes is not None else b""
                prog = self.import_onnx(BytesIO(source))
                self.apply_passes(prog)
            inputs: dict[str, Any] | None = None
            if given:
                try:
                    inputs = api.check_inputs(api.device_program(prog), given)
                except GeError:
                    inputs = None  # not this gear's shapes: random ones
            check = not self.args.no_race_check
            result = self.simulate(prog, inputs, self.args.timing_only, check)
            self.findings += [
                f"{self.get_input_name()}: error: {f.message}" for f in result.findings
            ]
            report = result.report
            peak = report.memory.get("peak_bytes", 0)
            launches = _plural(report.launches, "launch")
            lines.append(
                f"gear {label}: {report.text().splitlines()[0]}; {launches} on "
                f"{_plural(len(report.streams), 'stream')}; peak memory {peak / 2**10:.1f} KiB"
                f"{' (random inputs: --inputs does not fit)' if given and inputs is None else ''}"
            )
            documents.append({"gear": label, "shapes": shapes, **report.to_json()})
        if self.args.report == "json":
            return json.dumps({"gears": documents}, indent=2) + "\n"
        return "\n".join(lines) + "\n"

    def simulate(
        self, prog: ModuleOp, inputs: Any, timing_only: bool, check: bool = False
    ) -> api.SimResult:
        """`api.simulate` with the flags (the memory checker only with `check`); an input
        error names the file it comes from."""
        try:
            if self.args.ranks is not None or self.args.topology is not None or _sharded(prog):
                if self.args.topology is not None and not _sharded(prog):
                    raise UsageError("--topology needs --ranks N (or a sharded program)")
                result = api.simulate_ranks(
                    prog,
                    inputs,
                    topology=self.args.topology,
                    profile=self.args.profile,
                    timing_only=timing_only,
                    seed=self.args.seed,
                    check=check,
                    hccl_algo=self.args.hccl_algo,
                )
                for warning in getattr(result.topology, "warnings", []):
                    print(warning, file=sys.stderr)
                if self.args.ranks is not None and len(result.ranks) != self.args.ranks:
                    raise GeError(
                        f"error: the program runs on {len(result.ranks)} ranks, not "
                        f"--ranks {self.args.ranks}"
                    )
                return result
            return api.simulate(
                prog,
                inputs,
                profile=self.args.profile,
                timing_only=timing_only,
                seed=self.args.seed,
                check=check,
            )
        except GeError as e:
            if not str(e).startswith("error:"):
                raise
            where = self.args.inputs if inputs is not None else self.get_input_name()
            raise GeError(f"{where}: {e}") from None

    def unoptimized(self, inputs: Any, makespan: float) -> dict[str, float]:
        """The -O0 run's makespan (timing only) and the speed-up of the optimised one."""
        assert self.original is not None
        module = self.original.clone()  # (external paths relative to the working directory)
        api.compile(module, LOWERING, ctx=self.ctx, name=self.get_input_name())
        base = self.simulate(module, inputs, timing_only=True).report.makespan
        return {"makespan_us": base, "speedup": base / makespan if makespan else 0.0}

    def draw(self, result: api.SimResult) -> bytes:
        """The timeline PNG's bytes (drawn to a temporary file: the real one is written at
        the end, only when the whole run succeeded)."""
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "timeline.png")
            api.draw_timeline(result, path, title=self.get_input_name())
            with open(path, "rb") as f:
                return f.read()

    def check_against(self, result: api.SimResult) -> list[dict[str, Any]]:
        """The largest error of each output against the reference interpreter (and
        onnxruntime for ONNX input); an output outside the tolerance is an error."""
        assert self.original is not None
        # (what, its outputs, judged as a whole model against another implementation?)
        references: list[tuple[str, dict[str, Any], bool]] = [
            ("reference interpreter", api.reference(self.original, result.inputs), False)
        ]
        if self.onnx_model is not None:
            outputs = api.onnxruntime_outputs(self.onnx_model, result.inputs)
            references.append(("onnxruntime", outputs, True))
        checks, failures = [], []
        for what, expected, whole_model in references:
            for name, actual in result.outputs.items():
                error = api.max_error(actual, expected[name])
                ok = api.within_tolerance(actual, expected[name], whole_model=whole_model)
                checks.append(
                    {"output": name, "against": what, "max_error": error, "within_tolerance": ok}
                )
                if not ok:
                    failures.append(
                        f"output '{name}' differs from {what} (max |error| {error:.3g})"
                    )
        if failures:
            self.report = [
                f"check {c['output']}: max |error| {c['max_error']:.3g} against {c['against']}"
                f"{'' if c['within_tolerance'] else ' (outside tolerance)'}"
                for c in checks
            ]
            raise GeError(f"{self.get_input_name()}: error: " + "; ".join(failures))
        return checks

    def write_outputs(self, outputs: dict[str, Any]) -> None:
        import numpy as np

        buffer = BytesIO()
        np.savez(buffer, **outputs)
        self.pending.append((self.args.outputs, "outputs", buffer.getvalue()))

    def run(self) -> None:
        """ge-opt's run; then the files the flags ask for, each written to a temporary file
        and renamed into place, only when the whole run succeeded."""
        try:
            super().run()
        finally:
            for line in self.report:  # the comparison that failed, for the user to see
                print(line, file=sys.stderr)
        for line in self.findings:  # races: after the report, and the run fails
            print(line, file=sys.stderr)
            self.failed = True
        if self.failed:
            return
        for path, what, data in self.pending:
            with writing(path, what):
                replace_file(path, data)
        if self.package_files is not None:
            api.write_package(self.args.package, self.package_files)


GEARS_REFUSE = {
    "--outputs": "outputs",
    "--trace": "trace",
    "--timeline": "timeline",
    "--check-numbers": "check",
    "--compare-unoptimized": "compare_unoptimized",
    "--ranks": "ranks",
    "--package": "package",
}
"""The flags `--gears` does not go with (by `args` name): they write or compare one run."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('h') else 's'}"


def shape_spec(spec: str) -> tuple[str, list[int | None]]:
    """`--input-shape x=1x3x224x224` or `x:?x3x224x224` (`?`: None)."""
    name, sep, dims = spec.rpartition("=" if "=" in spec else ":")
    try:
        shape = [None if d == "?" else int(d) for d in dims.split("x")] if dims else []
    except ValueError:
        shape = None
    if not sep or not name or shape is None or any(d is not None and d < 0 for d in shape):
        raise UsageError(
            "--input-shape expects NAME=DIMS or NAME:DIMS such as x=1x3x224x224 or "
            f"x:?x3x224x224, got '{spec}'"
        )
    return name, shape


def dynamic_dims(
    shape_specs: Sequence[str], size_specs: Sequence[str], flag: str = "--gears", item: str = "gear"
) -> tuple[dict[str, list[int | None]], list[tuple[str, int, list[int], str]]]:
    """The `--input-shape` specs (a `?` dim: None) and the size lists of their `?` dims
    (ge-run's `--gears`; ge-tune's `--dim-sizes`, whose n-th sizes make a call, `item`),
    checked together: each list names a `?` dim of a given input once, every `?` has one,
    and the lists have one length (a usage error otherwise)."""
    shapes: dict[str, list[int | None]] = {}
    for spec in shape_specs:
        name, dims = shape_spec(spec)
        shapes[name] = dims
    lists = [gear_spec(spec, flag) for spec in size_specs]
    for k, (name, dim, _, spec) in enumerate(lists):
        if any((name, dim) == (other, d) for other, d, _, _ in lists[:k]):
            raise UsageError(f"{flag} {spec}: dim {dim} of '{name}' has sizes already")
        given = shapes.get(name)
        if given is None:
            raise UsageError(
                f"{flag} {spec}: no --input-shape gives input '{name}' (with a '?' dim)"
            )
        if dim >= len(given) or given[dim] is not None:
            what = "has no such dim" if dim >= len(given) else f"is {given[dim]}, not '?'"
            raise UsageError(f"{flag} {spec}: dim {dim} of --input-shape {name} {what}")
    geared = {(name, dim) for name, dim, _, _ in lists}
    for name, shape in shapes.items():
        for dim, size in enumerate(shape):
            if size is None and (name, dim) not in geared:
                raise UsageError(
                    f"--input-shape {name}: dim {dim} is '?': give its sizes with "
                    f"{flag} {name}:{dim}=N,N,..."
                )
    if len({len(sizes) for _, _, sizes, _ in lists}) > 1:
        raise UsageError(
            f"{flag} lists go together (the n-th {item} takes the n-th size of each): "
            "they must have one length, got "
            + ", ".join(f"{len(sizes)} ({spec})" for _, _, sizes, spec in lists)
        )
    return shapes, lists


def gear_spec(spec: str, flag: str = "--gears") -> tuple[str, int, list[int], str]:
    """`--gears x:0=1,4,8` as ("x", 0, [1, 4, 8], spec) (ge-tune's `--dim-sizes` too)."""
    left, eq, sizes = spec.rpartition("=")
    name, colon, dim = left.rpartition(":")
    try:
        values = [int(v) for v in sizes.split(",")]
        index = int(dim)
    except ValueError:
        values, index = [], -1
    if not (eq and colon and name) or index < 0 or not values or min(values) < 1:
        raise UsageError(
            f"{flag} expects NAME:DIM=SIZES (positive integers) such as x:0=1,4,8, got '{spec}'"
        )
    return name, index, values, spec


def _sharded(prog: ModuleOp) -> bool:
    """Whether `prog` holds rank functions (`shard`'s `ge.shard`)."""
    return any("ge.shard" in op.attributes for op in prog.walk())


def summary(value: Any) -> dict[str, Any]:
    """An output's shape, dtype, min, max and mean (None for an empty one)."""
    import numpy as np

    v = np.asarray(value).astype(np.float64)
    stats = (float(v.min()), float(v.max()), float(v.mean())) if v.size else (None, None, None)
    return {
        "shape": list(value.shape),
        "dtype": str(value.dtype),
        **dict(zip(("min", "max", "mean"), stats, strict=True)),
    }


def _summary_lines(outputs: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """`shape [1, 16, 8, 8] float32  min -1.2  max 3.4  mean 0.05` per output."""
    lines = []
    for name, s in outputs.items():
        text = f"shape {s['shape']} {s['dtype']}"
        if s["min"] is None:
            text += " (empty)"
        else:
            text += f"  min {s['min']:.6g}  max {s['max']:.6g}  mean {s['mean']:.6g}"
        lines.append((name, text))
    return lines


def main(args: Sequence[str] | None = None) -> int:
    """Console entry point of ge-run (ge-opt's error discipline: `run_tool`)."""
    return run_tool(GeRunMain, "ge-run", args)


if __name__ == "__main__":
    sys.exit(main())
