"""What ge-opt writes: printed IR (floats that re-parse to the same bits), the pass
statistics report, and output files replaced only when the whole run succeeded.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from io import StringIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.targets.mlir import MLIRTarget

from ge_dialect import api
from ge_dialect.utils.errors import GeError

STATISTICS_TITLE = "... Pass statistics report ..."


def format_statistics(
    counts: dict[str, dict[str, int]], descriptions: Callable[[str], dict[str, str]]
) -> str:
    """mlir-opt's `--mlir-pass-statistics` report (pipeline display): a header, then each
    pass that counted something, in pipeline order, with one line per statistic sorted by
    name, `  (S) <value> <name> - <description>` (values right-aligned, names padded), and a
    blank line.  `descriptions(pass)` maps a statistic's name to its description (the name
    itself when missing)."""
    rule = "===" + "-" * 73 + "==="
    lines = [rule, " " * ((80 - len(STATISTICS_TITLE)) // 2) + STATISTICS_TITLE, rule]
    for pass_name, stats in counts.items():
        lines.append(pass_name)
        if not stats:
            continue
        described = descriptions(pass_name)
        width = max(len(str(v)) for v in stats.values())
        name_width = max(len(n) for n in stats)
        for name in sorted(stats):
            text = described.get(name, name.replace("-", " "))
            lines.append(f"  (S) {stats[name]:>{width}} {name:<{name_width}} - {text}")
    return "\n".join(lines) + "\n\n"


@dataclass(frozen=True)
class ExactMLIRTarget(MLIRTarget):
    """xDSL's `mlir` target (with its options), printing through `api.print_module`, so
    that float constants re-parse to the same bits."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(
            api.print_module(
                module,
                self.print_generic_format,
                properties_as_attributes=self.print_properties_as_attributes,
                debuginfo=self.print_debuginfo,
                syntax_highlight=self.syntax_highlight,
                ctx=ctx,
            )
        )
        print("\n", file=output)


class OutputBuffer(StringIO):
    """The printed IR, kept until the run ends (xDSL's loop closes its output stream)."""

    def close(self) -> None:
        pass


def written_in_place(path: str, old: os.stat_result | None) -> bool:
    """Whether `path` (whose status is `old`, None if it does not exist) is written in
    place rather than replaced: a file that is not a regular one, or one under /dev or
    /proc (`/dev/stdout` may lead to a regular file: the shell's redirection)."""
    special = os.path.abspath(path).startswith(("/dev/", "/proc/"))
    return special or (old is not None and not stat.S_ISREG(old.st_mode))


class NewFile:
    """`text` as the new contents of the file `path`: written now to a temporary file beside
    it, renamed onto it by `close(commit=True)`, so that `path` is untouched until then.

    As `ge_dialect.ir.weights.ReplacingFile` (the external data's; the tools layer does not
    import it): a link is followed, the permission bits stay, and a special file
    (`/dev/null`, `/dev/stdout`: see `written_in_place`) is written in place, at the commit.
    """

    def __init__(self, path: str, text: str):
        self.path, self.text = os.path.realpath(path), text
        self.temp: str | None = None
        old = os.stat(self.path) if os.path.exists(self.path) else None
        if written_in_place(path, old):
            return
        directory, base = os.path.split(self.path)
        for n in itertools.count():
            temp = os.path.join(directory, f".{base}.{os.getpid()}.{n}.tmp")
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
                break
            except FileExistsError:
                continue
        self.temp = temp
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
            if old is not None:
                os.chmod(temp, stat.S_IMODE(old.st_mode))
        except BaseException:
            os.remove(temp)
            raise

    def close(self, commit: bool) -> None:
        if self.temp is None:
            if commit:
                with open(self.path, "w") as f:
                    f.write(self.text)
        elif commit:
            os.replace(self.temp, self.path)
        else:
            os.remove(self.temp)


@contextlib.contextmanager
def writing(path: str, what: str) -> Iterator[None]:
    """Turns an `OSError` of writing the file `path` into a one-line `GeError`."""
    try:
        yield
    except OSError as e:
        raise GeError(f"{path}: error: cannot write {what}: {e.strerror or e}") from None


def same_file(a: str, b: str) -> bool:
    """Whether paths `a` and `b` name one file (through links; neither need exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)
