"""A mutation fuzzer for ge-opt: no traceback, no hang, no lost file, output that reads back.

    python dev/fuzz.py [--mutants 20000] [--onnx 2400] [--seed 0]
                                    [--timeout 10] [--save DIR] [--corpus test/lit]
    python dev/fuzz.py --device [--mutants 2000] [--seed 0] [--timeout 10] [--save DIR]
                                    [--reduce]

It mutates the lit inputs (the `.mlir` files under `--corpus`, split at `// -----`, comments
dropped) and corrupts small ONNX models built with `onnx.helper`, and runs ge-opt on each
mutant with a random set of flags (passes, generic printing, constant elision, `-o`).  Each
run is ge-opt's `main()` in a forked child (so a hang in C code, e.g. a regular expression
that backtracks, is killed at `--timeout` seconds; the child starts with every module already
imported, which keeps a run to a few milliseconds).  A run fails when:

- an exception escapes `main()` (the user would see a Python traceback);
- it runs past the timeout, or exits with a code other than 0, 1 (an error in the input) or
  2 (a usage error);
- it exits non-zero but has changed the file `-o` names, or prints nothing on stderr;
- it exits 0 and its output does not read back: ge-opt on the output (same printing flags)
  must exit 0 and print the same text.

Mutants and flags come from one `random.Random(seed)`: the same seed gives the same runs.
The figures (runs per outcome, failures per class with a reproducer) are printed; `--save`
writes each failing input with its command line.  `test/unit/dev/test_fuzz.py` runs a short,
fixed-seed campaign in CI.

`--device` fuzzes lowered `npu` programs through ge-run instead, judging what it accepts
with a happens-before model of its own (races, clobbers, deadlocks): `dev/fuzz_device.py`
describes it, `test/unit/dev/test_fuzz_device.py` runs it in CI.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import pickle
import random
import re
import select
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# ---- running ge-opt ----------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """What one ge-opt run did: its exit code (None: it did not finish), its output streams,
    and the traceback of an exception that escaped `main()` (empty if none)."""

    code: int | None
    stdout: str
    stderr: str
    escaped: str = ""


def run_isolated(
    args: Sequence[str], timeout: float, entry: Callable[[list[str]], int] | None = None
) -> Run:
    """Runs `entry(args)` (by default `ge_dialect.tools.ge_opt.main`) in a forked child,
    killed after `timeout`."""
    if entry is None:
        from ge_dialect.tools.ge_opt import main

        entry = main

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send the result, exit without cleanup
        gc.disable()  # a short life: collecting would only copy the parent's pages
        os.close(read_end)
        out, err = io.StringIO(), io.StringIO()
        escaped, code = "", 0
        try:
            with redirect_stdout(out), redirect_stderr(err):
                code = entry(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:  # noqa: BLE001 (any escape is what the fuzzer looks for)
            escaped, code = traceback.format_exc(), -1
        try:
            data = pickle.dumps(Run(code, out.getvalue(), err.getvalue(), escaped))
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([pipe], [], [], left)
            if not ready:
                continue
            chunk = os.read(pipe.fileno(), 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if timed_out:
        return Run(None, "", "")
    try:
        result = pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 (the child died before sending: a crash)
        return Run(-1, "", "", "the child process died without a result")
    assert isinstance(result, Run)
    return result


# ---- mutants -----------------------------------------------------------------------------

# fmt: off
LIMIT_NUMBERS = [
    "0", "-0", "1", "-1", "2", "255", "256", "65504", "65536", "70000.0", "2147483647",
    "2147483648", "4294967296", "9223372036854775807", "9223372036854775808",
    "18446744073709551616", "-9223372036854775809", "1e38", "3.5e38", "1e400", "-1e400",
    "1e-45", "1e-400", "0.5", "-0.0", "nan", "inf", "0x7FC00000", "0x7F800000", "0xFFFF", "0x1",
    "00", "1.", ".5", "1e", "0x",
]
ELEMENT_TYPES = [
    "f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64", "ui8", "si8", "index", "i0",
    "i99999", "complex<f32>", "none", "f8E4M3FN", "tf32",
]
ENCODINGS = [
    "#ge.format<NC1HWC0>", "#ge.format<FRACTAL_Z>", "#ge.format<NHWC>",
    "#ge.format<NC1HWC0, c0 = 8>", "#ge.format<NC1HWC0, c0 = 0>",
    "#ge.format<FRACTAL_Z, groups = 3>", "#ge.format<NCHW>", "#ge.format<>", "#ge.format<ND>",
    '"NC1HWC0"', "#ge.elided",
]
# fmt: on
TOKEN = re.compile(
    rb'"(?:[^"\\\n]|\\.)*"|[%@^#!]?[A-Za-z_][\w.$-]*|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|->|\S'
)
NUMBER = re.compile(rb"-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")
ELEMENT_TYPE = re.compile(rb"\b(?:f16|f32|f64|bf16|i1|i8|i16|i32|i64|ui8|index)\b")
SHAPE = re.compile(rb"(?<=tensor<)[0-9x?]*")
ENCODING = re.compile(rb"#ge\.format<[^>]*>")


def corpus(root: Path) -> list[bytes]:
    """The lit inputs under `root`, split at `// -----`, without comment lines."""
    chunks: list[bytes] = []
    for path in sorted(root.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for chunk in re.split(r"(?m)^// -----.*$", text):
            lines = [ln for ln in chunk.splitlines() if not ln.lstrip().startswith("//")]
            body = "\n".join(lines).strip()
            if body:
                chunks.append((body + "\n").encode())
    return chunks


def _replace_match(
    data: bytes, pattern: re.Pattern[bytes], rng: random.Random, choices: Sequence[str]
) -> bytes:
    matches = list(pattern.finditer(data))
    if not matches:
        return data
    m = rng.choice(matches)
    return data[: m.start()] + rng.choice(choices).encode() + data[m.end() :]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def mutate(data: bytes, rng: random.Random, others: Sequence[bytes]) -> bytes:
    """None to three random edits of `data` (bytes, so that invalid UTF-8 can appear): one
    mutant in ten is the seed itself, run with random flags."""
    for _ in range(rng.choice((0, 1, 1, 1, 1, 1, 1, 2, 2, 3))):
        data = rng.choice(_MUTATORS)(data, rng, others)
    return data


def _truncate(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _flip_byte(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(data))
    new = rng.choice([rng.randrange(256), rng.choice(b"%#!^\"'{}()<>[],:=@-\\\x00\x01\x7f")])
    return data[:i] + bytes([new]) + data[i + 1 :]


def _delete_line(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def _duplicate_line(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return b"\n".join(lines)


def _swap_lines(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def _splice_line(data: bytes, rng: random.Random, others: Sequence[bytes]) -> bytes:
    lines, donor = _lines(data), _lines(rng.choice(others))
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(donor))
    return b"\n".join(lines)


def _edit_token(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    tokens = list(TOKEN.finditer(data))
    if not tokens:
        return data
    m = rng.choice(tokens)
    action = rng.randrange(3)
    if action == 0:  # delete
        return data[: m.start()] + data[m.end() :]
    if action == 1:  # duplicate
        return data[: m.end()] + b" " + m.group() + data[m.end() :]
    other = rng.choice(tokens).group()  # replace by another token of the input
    return data[: m.start()] + other + data[m.end() :]


def _limit_number(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    return _replace_match(data, NUMBER, rng, LIMIT_NUMBERS)


def _element_type(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    return _replace_match(data, ELEMENT_TYPE, rng, ELEMENT_TYPES)


def _shape(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    dims = [
        "",
        "0",
        "1",
        "4",
        "?",
        "1x1",
        "1x4x2x2",
        "2x3",
        "9223372036854775808",
        "1x99999999999999999999x1x1",
        "0x0",
        "1x-1",
        "16x16x3x3",
    ]
    return _replace_match(data, SHAPE, rng, dims)


def _encoding(data: bytes, rng: random.Random, _others: Sequence[bytes]) -> bytes:
    if ENCODING.search(data) and rng.random() < 0.5:
        return _replace_match(data, ENCODING, rng, ENCODINGS)
    spots = [m.end() - 1 for m in re.finditer(rb"tensor<[^<>]*>", data)]
    if not spots:
        return data
    i = rng.choice(spots)
    return data[:i] + b", " + rng.choice(ENCODINGS).encode() + data[i:]


# fmt: off
_MUTATORS: list[Callable[[bytes, random.Random, Sequence[bytes]], bytes]] = [
    _truncate, _flip_byte, _delete_line, _duplicate_line, _swap_lines, _splice_line,
    _edit_token, _edit_token, _limit_number, _limit_number, _element_type, _shape, _encoding,
]
# fmt: on

# fmt: off
MLIR_FLAGS: list[list[str]] = [
    [], [], ["--fuse"], ["--to-nc1hwc0"], ["--assign-streams"], ["--assign-streams=mode=auto"],
    ["--fuse", "--to-nc1hwc0", "--assign-streams"], ["-p", "canonicalize,cse"],
    ["--print-op-generic"], ["--split-input-file"], ["--elide-constants-if-larger=4"],
    ["--to-nc1hwc0=boundary=nc1hwc0,fp32-c0=8"], ["--fuse", "--print-op-generic"],
    ["--assign-streams=mode=single"], ["--to-nc1hwc0", "--fuse"],
    ["--lower-to-device"], ["--plan-memory"], ["--lower-to-device", "--plan-memory"],
    ["--fuse", "--to-nc1hwc0", "--assign-streams=mode=auto", "--lower-to-device",
     "--plan-memory"],
]
# fmt: on

# ---- ONNX corruptions --------------------------------------------------------------------


def onnx_models() -> list[bytes]:
    """Small serialized models the importer accepts: the seeds of the ONNX corruptions."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)

    def init(name: str, shape: Sequence[int]) -> TensorProto:
        return numpy_helper.from_array(rng.normal(size=shape).astype(np.float32), name)

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    cnn = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["n"], name="bn"),
            helper.make_node("Relu", ["n"], ["r"], name="relu"),
            helper.make_node("Add", ["r", "x"], ["a"], name="add"),
            helper.make_node(
                "MaxPool", ["a"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]
            ),
            helper.make_node("Sigmoid", ["p"], ["y"], name="sigmoid"),
        ],
        "cnn",
        [x],
        [y],
        [
            init("w", [4, 4, 3, 3]),
            init("g", [4]),
            init("b", [4]),
            init("m", [4]),
            numpy_helper.from_array(np.ones(4, np.float32), "v"),
        ],
    )
    mlp = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
            helper.make_node("Add", ["h", "b"], ["z"], name="bias"),
            helper.make_node("Concat", ["z", "z"], ["y"], name="cat", axis=1),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
        [y],
        [init("w", [8, 4]), init("b", [4])],
    )
    return [
        helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
        for g in (cnn, mlp)
    ]


def corrupt_onnx(data: bytes, rng: random.Random) -> bytes:
    """One structured corruption of a serialized model (or a raw byte-level one), or none."""
    import onnx

    kind = rng.randrange(13)
    if kind == 12:  # one model in thirteen is run as it is, with random flags
        return data
    if kind == 0:
        return data[: rng.randrange(len(data))]
    if kind == 1:
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    model = onnx.load_from_string(data)
    g = model.graph
    nodes = list(g.node)
    node = rng.choice(nodes)
    if kind == 2:
        g.node.remove(node)
    elif kind == 3 and node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice(["nope", "", "y", node.output[0]])
    elif kind == 4:
        node.op_type = rng.choice(["Foo", "Relu", "Conv", "Add", "Gemm", "Softmax", ""])
    elif kind == 5:
        _set_attribute(node, rng)
    elif kind == 6 and node.attribute:
        del node.attribute[rng.randrange(len(node.attribute))]
    elif kind == 7 and g.initializer:
        _corrupt_initializer(g, rng)
    elif kind == 8:
        _corrupt_input(g, rng)
    elif kind == 9:
        g.node.append(onnx.NodeProto.FromString(node.SerializeToString()))  # a value made twice
    elif kind == 10:
        g.input.append(g.input[0])  # a duplicate graph input
    else:
        model.opset_import[0].version = rng.choice([1, 6, 99])
    return model.SerializeToString()


def _set_attribute(node: Any, rng: random.Random) -> None:
    """Sets a shape attribute of `node` to a value at the limits (replacing any)."""
    from onnx import helper

    value = rng.choice([0, -1, 2**31, 2**62, -(2**62), 7])
    name = rng.choice(["pads", "strides", "kernel_shape", "axis", "group", "dilations"])
    count = rng.choice([1, 2, 4])
    attr = (
        helper.make_attribute(name, [value] * count)
        if name != "axis" and name != "group"
        else helper.make_attribute(name, value)
    )
    kept = [a for a in node.attribute if a.name != name]
    del node.attribute[:]
    node.attribute.extend([*kept, attr])


def _corrupt_initializer(g: Any, rng: random.Random) -> None:
    """A bad first dim, a bad data type, or the initializer removed."""
    from onnx import TensorProto

    t = rng.choice(list(g.initializer))
    choice = rng.randrange(3)
    if choice == 0:
        t.dims[:] = [rng.choice([-1, 0, 3, 2**40])] + list(t.dims[1:])
    elif choice == 1:
        t.data_type = rng.choice(
            [TensorProto.STRING, TensorProto.COMPLEX64, TensorProto.UINT64, TensorProto.FLOAT16]
            + [0, 99]
        )
    else:
        g.initializer.remove(t)


def _corrupt_input(g: Any, rng: random.Random) -> None:
    """A bad dim, a symbolic dim or a bad element type of the first graph input."""
    dims = g.input[0].type.tensor_type.shape.dim
    if dims:
        d = dims[rng.randrange(len(dims))]
        choice = rng.randrange(3)
        if choice == 0:
            d.dim_value = rng.choice([0, 2**62, 3])
        elif choice == 1:
            d.dim_param = "n"
        else:
            g.input[0].type.tensor_type.elem_type = rng.choice([0, 7, 8, 10, 99])


# fmt: off
ONNX_FLAGS: list[list[str]] = [
    [], ["--fuse"], ["--fuse", "--to-nc1hwc0", "--assign-streams"], ["--print-op-generic"],
    ["--input-shape", "x=1x4x4x4"], ["--input-shape", "x=2x8"], ["--input-shape", "x=1x0x4x4"],
    ["--input-shape", "x=1x99999999999999999999"], ["--input-shape", "y="],
]
# fmt: on

# ---- the campaign ------------------------------------------------------------------------


@dataclass
class Campaign:
    """Outcomes and failures of a fuzzing campaign."""

    timeout: float
    save: Path | None = None
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: dict[str, list[tuple[bytes, list[str], str]]] = field(default_factory=dict)

    def fail(self, kind: str, data: bytes, args: list[str], detail: str) -> None:
        cases = self.failures.setdefault(kind, [])
        cases.append((data, args, detail))
        if self.save is not None:
            self.save.mkdir(parents=True, exist_ok=True)
            stem = self.save / f"{kind}-{len(cases)}"
            suffix = ".onnx" if "model.onnx" in " ".join(args) else ".mlir"
            stem.with_suffix(suffix).write_bytes(data)
            stem.with_suffix(".txt").write_text(" ".join(args) + "\n\n" + detail)

    def check(self, data: bytes, name: str, flags: list[str], work: Path) -> None:
        """Runs ge-opt on `data` (written to `work/name`) with `flags` and records the
        outcome; on exit 0 also checks that the output reads back."""
        path = work / name
        path.write_bytes(data)
        out = work / "out.mlir"
        sentinel = "sentinel: ge-opt must not touch this file when it fails\n"
        out.write_text(sentinel)
        args = [str(path), *flags, "-o", str(out)]
        run = run_isolated(args, self.timeout)
        shown = ["ge-opt", name, *flags]
        kind = "onnx" if name.endswith(".onnx") else "mlir"
        if run.code is None:
            self.outcomes[f"{kind} hang"] += 1
            return self.fail("hang", data, shown, f"no answer within {self.timeout} s")
        if run.escaped or "Traceback" in run.stderr:
            self.outcomes[f"{kind} traceback"] += 1
            return self.fail("traceback", data, shown, run.escaped or run.stderr)
        self.outcomes[f"{kind} exit {run.code}"] += 1
        if run.code not in (0, 1, 2):
            return self.fail("exit-code", data, shown, f"exit {run.code}\n{run.stderr}")
        if run.code != 0:
            if out.read_text(errors="replace") != sentinel:
                self.fail("lost-output", data, shown, "-o was written by a failing run")
            if not run.stderr.strip():
                self.fail("silent-error", data, shown, f"exit {run.code} and nothing on stderr")
            return None
        text = out.read_text(encoding="utf-8", errors="replace")
        reprint = [f for f in flags if f in ("--print-op-generic", "--split-input-file")]
        again = run_isolated([str(out), *reprint], self.timeout)
        if again.code != 0 or again.escaped or again.stdout != text:
            detail = (
                f"the output (exit 0) does not read back the same (exit {again.code}):\n"
                f"{again.stderr or again.escaped}\n--- output ---\n{text[:4000]}"
            )
            self.fail("reads-back", data, shown, detail)
        return None

    def report(self, seconds: float) -> str:
        runs = sum(self.outcomes.values())
        lines = [
            f"{runs} runs in {seconds:.0f} s: "
            + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        ]
        total = sum(len(v) for v in self.failures.values())
        lines.append(f"{total} failure(s)" + (":" if total else ""))
        for kind, cases in sorted(self.failures.items()):
            data, args, detail = cases[0]
            lines.append(f"  {kind}: {len(cases)}; first: {' '.join(args)}")
            lines.append("    input: " + repr(data[:300]))
            lines += ["    " + ln for ln in detail.strip().splitlines()[-6:]]
        return "\n".join(lines)


def mlir_mutants(seeds: Sequence[bytes], count: int, rng: random.Random) -> Iterator[bytes]:
    for _ in range(count):
        yield mutate(rng.choice(seeds), rng, seeds)


def warm_up(work: Path, onnx_model: bytes | None) -> None:
    """Runs ge-opt once in this process with every flag set, so that the modules the runs
    import lazily (passes, scipy, the ONNX importer) are imported before the forks."""
    from ge_dialect.tools.ge_opt import main

    path = work / "warm.mlir"
    path.write_text(
        "func.func @f(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {\n"
        "  %w = ge.const dense<1.0> : tensor<4x4x1x1xf32>\n"
        "  %c = ge.conv2d %x, %w : tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>"
        " -> tensor<1x4x2x2xf32>\n"
        "  %y = ge.relu %c : tensor<1x4x2x2xf32>\n"
        "  func.return %y : tensor<1x4x2x2xf32>\n}\n"
    )
    runs = [[str(path), *flags] for flags in MLIR_FLAGS]
    if onnx_model is not None:
        (work / "warm.onnx").write_bytes(onnx_model)
        runs += [[str(work / "warm.onnx"), *flags] for flags in ONNX_FLAGS]
    for args in runs:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            try:
                main(args)
            except (Exception, SystemExit):  # noqa: BLE001 (the runs themselves report it)
                pass


def fuzz(
    mutants: int,
    onnx_mutants: int,
    seed: int = 0,
    timeout: float = 10.0,
    corpus_dir: Path | None = None,
    save: Path | None = None,
) -> Campaign:
    """Runs a campaign: `mutants` MLIR mutants and `onnx_mutants` corrupted ONNX models."""
    rng = random.Random(seed)
    campaign = Campaign(timeout, save)
    seeds = corpus(corpus_dir or REPO / "test" / "lit")
    models = onnx_models() if onnx_mutants else []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        warm_up(work, models[0] if models else None)
        gc.freeze()  # the forks share the parent's objects without touching their pages
        for data in mlir_mutants(seeds, mutants, rng):
            campaign.check(data, "input.mlir", list(rng.choice(MLIR_FLAGS)), work)
        if models:
            for _ in range(onnx_mutants):
                data = corrupt_onnx(rng.choice(models), rng)
                campaign.check(data, "model.onnx", list(rng.choice(ONNX_FLAGS)), work)
    return campaign


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--device", action="store_true", help="mutate lowered npu programs and run ge-run"
    )
    parser.add_argument("--mutants", type=int, default=2000, help="MLIR (or device) mutants")
    parser.add_argument("--onnx", type=int, default=300, help="corrupted ONNX models")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per run")
    parser.add_argument("--corpus", type=Path, default=None, help="directory of .mlir seeds")
    parser.add_argument("--save", type=Path, default=None, help="write failing inputs here")
    parser.add_argument(
        "--reduce",
        action="store_true",
        help="--device with --save: also shrink the smallest case of each failure class",
    )
    parser.add_argument(
        "--reduce-budget", type=int, default=300, help="runs per reduction (--reduce)"
    )
    args = parser.parse_args(argv)
    if args.device:
        import fuzz_device  # dev/fuzz_device.py, beside this file

        return fuzz_device.main(args)
    start = time.monotonic()
    campaign = fuzz(args.mutants, args.onnx, args.seed, args.timeout, args.corpus, args.save)
    print(campaign.report(time.monotonic() - start))
    return 1 if campaign.failures else 0


if __name__ == "__main__":
    sys.exit(main())
