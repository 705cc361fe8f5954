"""Writing a user's file without ever leaving it half-written: one implementation for every
file the tools write (`-o`, external data, `--outputs`, traces, timelines).

    new = ReplacingFile("out.mlir")            # a temporary file beside it
    new.file.write(data)
    new.close(commit=True)                     # renamed onto out.mlir (else removed)

    replace_file("out.npz", data)              # the same in one call

Until the rename, readers of the path (memory maps included) see the old version; after
it, maps opened before keep the old data (its inode lives on) and reads that open the path
see the new one.  A symbolic link is followed (its target is replaced); the new file gets
the old one's permission bits (those the umask allows for a new one).  An existing path
that is not a regular file (`/dev/null`, a pipe), and any path under /dev or /proc
(`/dev/stdout` may lead to a regular file: the shell's redirection), is written in place.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
from collections.abc import Iterator
from typing import IO

from ge_dialect.utils.errors import GeError


def written_in_place(path: str, old: os.stat_result | None) -> bool:
    """Whether `path` (whose status is `old`, None if it does not exist) is written in
    place rather than replaced: a file that is not a regular one, or one under /dev or
    /proc."""
    special = os.path.abspath(path).startswith(("/dev/", "/proc/"))
    return special or (old is not None and not stat.S_ISREG(old.st_mode))


class ReplacingFile:
    """A new version of the file `path`, replacing it only on `close(commit=True)`.

    Without `contents`, `file` is open (binary) for the caller to write: a temporary file
    beside `path`, or `path` itself when it is written in place (`written_in_place`).  With
    `contents`, they are the whole new file: written to the temporary file now, or, when
    `path` is written in place, only at the commit (so that a failed run writes nothing).
    """

    def __init__(self, path: str, contents: bytes | None = None):
        self.path = os.path.realpath(path)
        try:
            old: os.stat_result | None = os.stat(self.path)
        except FileNotFoundError:
            old = None
        self._temp: str | None = None
        self._deferred: bytes | None = None
        if written_in_place(path, old):
            self._deferred = contents
            self.file: IO[bytes] = open(path, "wb") if contents is None else io.BytesIO()
            return
        self._temp = _new_temporary(self.path)
        try:
            if old is not None:
                os.chmod(self._temp, stat.S_IMODE(old.st_mode))
            self.file = open(self._temp, "wb")
            if contents is not None:
                self.file.write(contents)
        except BaseException:
            os.remove(self._temp)
            raise

    def close(self, commit: bool) -> None:
        """Closes the file; it replaces `path` only when `commit` (else it is removed)."""
        try:
            self.file.close()  # a full disk may fail here: then nothing is replaced
            if commit and self._deferred is not None:
                with open(self.path, "wb") as f:
                    f.write(self._deferred)
            if commit and self._temp is not None:
                os.replace(self._temp, self.path)
                self._temp = None
        finally:
            if self._temp is not None:
                with contextlib.suppress(OSError):
                    os.remove(self._temp)


def _new_temporary(path: str) -> str:
    """A new, empty file beside `path` (`.name.PID.N.tmp`), created exclusively."""
    directory, base = os.path.split(path)
    n = 0
    while True:
        temp = os.path.join(directory, f".{base}.{os.getpid()}.{n}.tmp")
        try:
            os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return temp
        except FileExistsError:
            n += 1


def replace_file(path: str, contents: bytes) -> None:
    """`contents` as the new file `path`, replaced in one rename (see `ReplacingFile`)."""
    ReplacingFile(path, contents).close(commit=True)


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
