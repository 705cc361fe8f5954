"""The one way the tools write a user's file (`utils.files`): replaced in one rename on
success, untouched on failure, special files written in place (at the commit when the
contents are known up front), links followed, permission bits kept."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ge_dialect.utils.errors import GeError
from ge_dialect.utils.files import ReplacingFile, replace_file, same_file, writing


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_the_old_file_stays_until_the_commit(tmp_path: Path):
    path = tmp_path / "out.mlir"
    path.write_bytes(b"old")
    new = ReplacingFile(str(path), b"new")
    assert path.read_bytes() == b"old" and len(leftovers(tmp_path)) == 1
    new.close(commit=True)
    assert path.read_bytes() == b"new" and leftovers(tmp_path) == []


def test_a_failed_run_leaves_the_old_file_and_no_temporary(tmp_path: Path):
    path = tmp_path / "out.mlir"
    path.write_bytes(b"old")
    new = ReplacingFile(str(path))
    new.file.write(b"half")
    new.close(commit=False)
    assert path.read_bytes() == b"old" and leftovers(tmp_path) == []


def test_a_link_is_followed_and_the_permission_bits_stay(tmp_path: Path):
    target = tmp_path / "target"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link = tmp_path / "link"
    link.symlink_to(target)
    replace_file(str(link), b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


def test_a_special_file_is_written_in_place_only_at_the_commit(tmp_path: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        new = ReplacingFile(str(fifo), b"data")
        assert os.read(reader, 16) == b""  # nothing written yet
        new.close(commit=True)
        assert os.read(reader, 16) == b"data"
        ReplacingFile(str(fifo), b"lost").close(commit=False)
        assert os.read(reader, 16) == b""
    finally:
        os.close(reader)
    assert leftovers(tmp_path) == []


def test_writing_turns_an_os_error_into_one_line(tmp_path: Path):
    with pytest.raises(GeError) as info, writing(str(tmp_path / "no" / "x"), "outputs"):
        replace_file(str(tmp_path / "no" / "x"), b"")
    assert str(info.value) == (
        f"{tmp_path / 'no' / 'x'}: error: cannot write outputs: No such file or directory"
    )


def test_same_file_through_links_and_for_missing_files(tmp_path: Path):
    (tmp_path / "a").write_text("")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert same_file(str(tmp_path / "a"), str(tmp_path / "b"))
    assert same_file(str(tmp_path / "x"), str(tmp_path / "." / "x"))
    assert not same_file(str(tmp_path / "x"), str(tmp_path / "y"))
