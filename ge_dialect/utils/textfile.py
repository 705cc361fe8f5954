"""Reading a user's text file: one reader for every input (IR, PDL, profiles, topologies).

    read_text("in.mlir")                -> the text
    read_text("p.json", "profile")      -> "p.json: error: cannot read profile: ..." if unreadable

A file that cannot be opened is one `GeError` line naming it and what it was read as; bytes
that are not UTF-8 are located where they are (`name:line:col: error: invalid UTF-8 ...`).
"""

from __future__ import annotations

from ge_dialect.utils.errors import GeError

BOM = "\ufeff"


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


def read_text(path: str, what: str = "input", *, byte_order_mark: bool = False) -> str:
    """The text of the file `path` (a `GeError`, "cannot read <what>", when it cannot be
    read; located when it is not UTF-8).  With `byte_order_mark` a leading BOM is dropped
    (JSON files written by some editors start with one)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise GeError(f"{path}: error: cannot read {what}: {e.strerror or e}") from None
    except ValueError as e:  # a NUL in the path
        raise GeError(f"{path}: error: cannot read {what}: {e}") from None
    text = decode(data, path)
    return text[1:] if byte_order_mark and text.startswith(BOM) else text
