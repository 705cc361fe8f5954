"""The documentation stands alone.

- `docs/architecture.md` names every module of `ge_dialect/` and `transforms/` (every `.py`
  file, by its path from the repository's root, as `ge_dialect/ir/parser.py`), and names no
  module that does not exist.
- README.md is at most 10 KiB (10,240 bytes): the manual is the pages of `docs/`.
- Every relative link of README.md and `docs/*.md` (`[text](target)`, `![alt](target)`)
  points to a file that exists, and its anchor (`page.md#section`), if any, to a heading of
  that page (GitHub's anchors: the heading in lower case, punctuation dropped, spaces as
  hyphens).  Links in code blocks and code spans are not links.
- Nothing in the repository cites a file outside it: no text file that git lists (tracked,
  or new and not ignored) cites the design card or notes (`DESIGN.md`, "design card",
  `notes/...`, `../shared`), an issue by number ("issue 11", "issue #12", "Issue 12:"), or a
  seed document ("seed 002", "the seed's ..."), while ordinary words (a random seed,
  `--seed 0`, "the seeds of the corruptions", "issue order", "release notes") pass.  This
  file holds the patterns, so it is not searched.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from helpers.support import ROOT

REPO = Path(ROOT)
README = REPO / "README.md"
ARCHITECTURE = REPO / "docs" / "architecture.md"
README_LIMIT = 10 * 1024
PACKAGES = ("ge_dialect", "transforms")
THIS_FILE = "test/unit/test_docs.py"

# --------------------------------------------------------------------------------------
# The module map of docs/architecture.md
# --------------------------------------------------------------------------------------

MODULE_PATH = re.compile(r"(?<![\w/.-])((?:ge_dialect|transforms)/[\w/]*\.py)\b")
"""A module named by its path from the root (not the tail of a longer path)."""


def project_modules(root: Path) -> set[str]:
    """Every `.py` file of the packages under `root`, as a path from `root`."""
    found = set()
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            if "__pycache__" not in path.parts:
                found.add(path.relative_to(root).as_posix())
    return found


def named_modules(text: str) -> set[str]:
    """The module paths a page names."""
    return set(MODULE_PATH.findall(text))


def module_map_problems(text: str, modules: set[str]) -> list[str]:
    """What the page gets wrong about `modules`: modules it does not name, names of none."""
    named = named_modules(text)
    return [f"{m}: not named" for m in sorted(modules - named)] + [
        f"{m}: named, but no such module" for m in sorted(named - modules)
    ]


def test_architecture_names_every_module():
    problems = module_map_problems(ARCHITECTURE.read_text(encoding="utf-8"), project_modules(REPO))
    assert problems == []


def test_module_map_check_fails_on_a_new_or_a_stale_module(tmp_path):
    (tmp_path / "ge_dialect" / "sim").mkdir(parents=True)
    (tmp_path / "transforms").mkdir()
    for name in ("ge_dialect/api.py", "ge_dialect/sim/run.py", "transforms/fuse.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "ge_dialect" / "__pycache__").mkdir()
    (tmp_path / "ge_dialect" / "__pycache__" / "api.py").write_text("")
    modules = project_modules(tmp_path)
    assert modules == {"ge_dialect/api.py", "ge_dialect/sim/run.py", "transforms/fuse.py"}
    page = "| `ge_dialect/api.py` | ... |\n| `transforms/fuse.py` | ... |\n`ge_dialect/gone.py`\n"
    page += "`test/unit/transforms/test_fuse.py`, `transforms/<pass_name>.py`\n"
    assert module_map_problems(page, modules) == [
        "ge_dialect/sim/run.py: not named",
        "ge_dialect/gone.py: named, but no such module",
    ]


# --------------------------------------------------------------------------------------
# README's size
# --------------------------------------------------------------------------------------


def test_readme_is_at_most_10_kib():
    size = README.stat().st_size
    assert size <= README_LIMIT, f"README.md is {size} bytes; move detail to docs/"


# --------------------------------------------------------------------------------------
# Links
# --------------------------------------------------------------------------------------

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+).*?\1")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:


def outside_code_blocks(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of the lines outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield number, line


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings (a repeated heading's later ones get -1, -2, ...)."""
    found: set[str] = set()
    for _, line in outside_code_blocks(text):
        match = HEADING.match(line)
        if match:
            base = anchor(match.group(1))
            name, n = base, 0
            while name in found:
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found


def link_targets(text: str) -> Iterator[tuple[int, str]]:
    """(line number, target) of the links outside code blocks and code spans."""
    for number, line in outside_code_blocks(text):
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            yield number, target


def broken_links(page: Path) -> list[str]:
    """`page:line: target` for each relative link whose file (or anchor) does not exist."""
    broken = []
    for number, target in link_targets(page.read_text(encoding="utf-8")):
        if EXTERNAL.match(target):
            continue
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        ok = dest.exists()
        if ok and fragment and dest.suffix == ".md":
            ok = fragment in anchors(dest.read_text(encoding="utf-8"))
        if not ok:
            broken.append(f"{page.name}:{number}: {target}")
    return broken


def doc_pages() -> list[Path]:
    """README.md and the pages of docs/."""
    return [README, *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: p.name)
def test_relative_links_resolve(page):
    assert broken_links(page) == []


def test_link_check_finds_a_broken_link(tmp_path):
    (tmp_path / "there.md").write_text("# Title\n\n## A `flag`, and more\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-flag-and-more) [web](https://example.com/x)\n"
        "[missing](gone.md)\n"
        "[bad anchor](there.md#nowhere) ![picture](pic.png)\n"
        "```\n[in code](gone.md)\n```\n"
        "`[in a span](gone.md)` [self](#title-here)\n"
        "# Title here\n"
    )
    assert broken_links(page) == [
        "page.md:2: gone.md",
        "page.md:3: there.md#nowhere",
        "page.md:3: pic.png",
    ]


# --------------------------------------------------------------------------------------
# Citations of files outside the repository
# --------------------------------------------------------------------------------------

CITATIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("the design card", re.compile(r"\bDESIGN\b|\b[Dd]esign card\b|\b[Dd]esign\.md\b")),
    ("notes", re.compile(r"(?<![\w.-])notes/|\.\./shared\b")),
    ("an issue number", re.compile(r"\b[Ii]ssues? #?\d+")),
    ("a seed document", re.compile(r"(?<![\w-])[Ss]eed #?0\d\d\b|\b[Tt]he seed['\u2019]s\b")),
)
"""What a citation of a file outside the repository looks like."""

TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".mlir",
    ".json",
    ".toml",
    ".cfg",
    ".txt",
    ".sh",
    ".ini",
    ".yml",
    ".yaml",
    ".test",
}


def listed_files(root: Path) -> list[str]:
    """The files git lists under `root`: tracked, or new and not ignored."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return sorted({name for name in out.split("\0") if name})


def is_text_file(path: Path) -> bool:
    """A source or documentation file: by its suffix, or a script (a `#!` first line)."""
    if path.suffix in TEXT_SUFFIXES:
        return True
    if path.suffix:
        return False
    with path.open("rb") as f:
        return f.read(2) == b"#!"


def text_files(root: Path) -> list[str]:
    """The text files git lists under `root` that exist, but this one."""
    return [
        name
        for name in listed_files(root)
        if name != THIS_FILE and (root / name).is_file() and is_text_file(root / name)
    ]


def citations_in(text: str) -> Iterator[tuple[int, str, str]]:
    """(line number, what is cited, the matched text) of every citation in `text`."""
    for number, line in enumerate(text.splitlines(), 1):
        for what, pattern in CITATIONS:
            for match in pattern.finditer(line):
                yield number, what, match.group(0)


def citations(root: Path, names: Iterable[str]) -> list[str]:
    """`name:line: <what> ('<matched>')` for every citation in the files `names`."""
    found = []
    for name in names:
        text = (root / name).read_text(encoding="utf-8", errors="replace")
        for number, what, matched in citations_in(text):
            found.append(f"{name}:{number}: {what} ({matched!r})")
    return found


def test_nothing_cites_a_file_outside_the_repository():
    assert citations(REPO, text_files(REPO)) == []


@pytest.mark.parametrize(
    "line",
    [
        "DESIGN's tolerances",
        "see DESIGN.md, Memory planning",
        "the design card says",
        "figures gathered in notes/runtime.md section 1",
        "(notes/streams.md)",
        "../shared/DESIGN.md",
        "the placement before issue 11",
        "(issue #12)",
        "Issue 12: bad input",
        "issues 11 and 12",
        "seed 002's link figures",
        "Seed 003 claims 30-50%",
        "the seed's case study",
        "The seed\u2019s ratios",
    ],
)
def test_a_citation_matches(line):
    assert [what for _, what, _ in citations_in(line)] != []


@pytest.mark.parametrize(
    "line",
    [
        "a random seed",
        "--seed 0",
        "--seed 002",
        "seed=0",
        "rng seed 42",
        "the seeds of the corruptions",
        "one mutant in ten is the seed itself",
        "tasks in issue order",
        "a stream's issue order",
        "the design of the pass",
        "designed for speed",
        "release-notes/ are elsewhere",
        "footnotes/ here",
        "PYTHONHASHSEED=1",
        "seeded random inputs",
    ],
)
def test_an_ordinary_word_does_not_match(line):
    assert list(citations_in(line)) == []


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_planted_citation_is_found(tmp_path):
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    (tmp_path / ".gitignore").write_text("ignored/\n")
    (tmp_path / "page.md").write_text("# A page\n\nAs DESIGN.md says.\n")
    (tmp_path / "mod.py").write_text('"""Fine."""\n\n\n# the case of issue 11\n')
    (tmp_path / "run").write_text("#!/bin/sh\n# figures in notes/runtime.md\n")
    (tmp_path / "plain").write_text("the seed's case study, but not a text file\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored" / "x.md").write_text("DESIGN\n")
    (tmp_path / "clean.txt").write_text("a random seed, --seed 0, tasks in issue order\n")
    assert text_files(tmp_path) == ["clean.txt", "mod.py", "page.md", "run"]
    assert citations(tmp_path, text_files(tmp_path)) == [
        "mod.py:4: an issue number ('issue 11')",
        "page.md:3: the design card ('DESIGN')",
        "run:2: notes ('notes/')",
    ]
