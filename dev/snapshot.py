"""Record what the tools print, to show that a refactoring changes no output.

    python dev/snapshot.py DIR            # write the snapshot into DIR (made anew)
    diff -r BEFORE AFTER                  # two snapshots of two checkouts

It records, as files under DIR:

- `lit/`: the text every lit RUN line pipes into FileCheck (lit runs the whole suite with
  its `filecheck` parameter pointing at this script's recorder, so the RUN lines are the
  suite's own);
- `passes/`: ge-opt's stdout, stderr and exit code on every lit input and example, under
  several pass sets (`PASS_SETS`), each input split at `// -----`;
- `run/`: ge-run's stdout, stderr, exit code and written files (outputs, JSON report,
  trace) on the examples (`RUNS`).

Everything runs from the checkout (`python -m ge_dialect.tools.ge_opt`), so a snapshot
reflects the working tree, not an installed copy.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PASS_SETS: dict[str, list[str]] = {
    "print": [],
    "generic": ["--print-op-generic"],
    "canonicalize-cse": ["-p", "canonicalize,cse,dce"],
    "fuse": ["--fuse"],
    "layout": ["--to-nc1hwc0"],
    "streams": ["--assign-streams"],
    "streams-auto": ["-p", "assign-streams{mode=auto}"],
    "default": ["--fuse", "--to-nc1hwc0", "--assign-streams"],
    "device": ["-p", "fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device,plan-memory"],
    "shard": ["-p", "shard{ranks=2}"],
    "elide": ["--fuse", "--elide-constants-if-larger=4", "--pass-statistics"],
}

EXAMPLES = ("resnet_block.mlir", "torchair_multistream.mlir", "zoo/encoder.onnx",
            "zoo/inception.onnx")

# (name, arguments after `ge-run`); OUT is replaced by a scratch directory
RUNS: dict[str, list[str]] = {
    "resnet-check": ["--check", "examples/resnet_block.mlir"],
    "resnet-json": ["--report", "json", "--trace", "OUT/trace.json", "--outputs",
                    "OUT/out.npz", "examples/resnet_block.mlir"],
    "resnet-O0": ["-O0", "--report", "json", "examples/resnet_block.mlir"],
    "torchair": ["--check", "--assign-streams", "examples/torchair_multistream.mlir"],
    "torchair-trace": ["--trace", "OUT/trace.json", "examples/torchair_multistream.mlir"],
    "encoder": ["--check", "examples/zoo/encoder.onnx"],
    "inception": ["--timing-only", "--report", "json", "examples/zoo/inception.onnx"],
    "inception-auto": ["--check", "-p", "fuse,to-nc1hwc0,assign-streams{mode=auto}",
                       "examples/zoo/inception.onnx"],
    "ranks": ["--ranks", "2", "--report", "json", "examples/zoo/encoder.onnx"],
    "compare": ["--compare-unoptimized", "examples/resnet_block.mlir"],
}


def record_filecheck(directory: str, argv: list[str]) -> int:
    """The recorder lit calls instead of FileCheck: stdin (or `--input-file`) to a file."""
    check_file = next((a for a in argv if not a.startswith("-")), "stdin")
    prefix = "CHECK"
    data = sys.stdin.buffer.read()
    for arg in argv:
        if arg.startswith("--check-prefix=") or arg.startswith("--check-prefixes="):
            prefix = arg.split("=", 1)[1]
        if arg.startswith("--input-file="):
            data = Path(arg.split("=", 1)[1]).read_bytes()
    # lit runs a test in its folder's Output/: the folder and the check file name a record
    # (two tests of different folders may check against one file)
    folder = os.path.relpath(os.getcwd(), ROOT / "test" / "lit").split(os.sep)[0]
    checked = os.path.relpath(check_file, ROOT / "test" / "lit").replace(os.sep, "__")
    name = f"{folder}@{checked}"
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    index = len(list(target.glob(f"{name}.{prefix}.*")))
    (target / f"{name}.{prefix}.{index}").write_bytes(data)
    return 0


def _save(path: Path, result: subprocess.CompletedProcess[bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / f"{path.name}.out").write_bytes(result.stdout)
    (path.parent / f"{path.name}.err").write_bytes(result.stderr)
    (path.parent / f"{path.name}.rc").write_text(f"{result.returncode}\n")


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    env.pop("CI", None)
    return env


def snapshot_lit(out: Path) -> None:
    recorder = f"{sys.executable} {Path(__file__).resolve()} --record {out / 'lit'}"
    command = [str(Path(sys.executable).parent / "lit"), "-q", "-j2",
               "--param", f"filecheck={recorder}", str(ROOT / "test" / "lit")]
    subprocess.run(command, cwd=ROOT, env=_env(), check=False)


def _inputs() -> list[Path]:
    lit = sorted(p for p in (ROOT / "test" / "lit").rglob("*.mlir") if "Output" not in p.parts)
    return lit + [ROOT / "examples" / e for e in EXAMPLES]


def snapshot_passes(out: Path) -> None:
    jobs = []
    for path in _inputs():
        name = str(path.relative_to(ROOT)).replace(os.sep, "__")
        for set_name, flags in PASS_SETS.items():
            split = ["--split-input-file"] if path.suffix == ".mlir" else []
            command = [sys.executable, "-m", "ge_dialect.tools.ge_opt", str(path.relative_to(ROOT)),
                       *split, *flags]
            jobs.append((out / "passes" / f"{name}.{set_name}", command))
    _run_all(jobs)


def snapshot_runs(out: Path) -> None:
    """ge-run on the examples; the files it writes go to one fixed scratch folder (a path
    that may appear in what it prints), then into the snapshot."""
    scratch = ROOT / "build" / "snapshot-scratch"
    jobs = []
    for name, arguments in RUNS.items():
        folder = scratch / name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        args = [a.replace("OUT", str(folder.relative_to(ROOT))) for a in arguments]
        jobs.append((out / "run" / name, [sys.executable, "-m", "ge_dialect.tools.ge_run",
                                          *args]))
    _run_all(jobs)
    shutil.move(str(scratch), str(out / "run" / "files"))


def _run_all(jobs: list[tuple[Path, list[str]]]) -> None:
    def run(job: tuple[Path, list[str]]) -> None:
        path, command = job
        _save(path, subprocess.run(command, cwd=ROOT, env=_env(), capture_output=True,
                                   check=False, timeout=600))

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(run, jobs))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--record"]:
        return record_filecheck(argv[1], argv[2:])
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python dev/snapshot.py DIR", file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    snapshot_lit(out)
    snapshot_passes(out)
    snapshot_runs(out)
    print(f"snapshot written to {out} ({sum(1 for _ in out.rglob('*'))} files); "
          f"commands: {shlex.join(PASS_SETS['default'])} and {len(RUNS)} ge-run lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
