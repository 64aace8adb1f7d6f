"""The docs read as plain Markdown: every relative link and image in README.md, CONTRIBUTING.md and docs/*.md
resolves to a file of the repository, and every `#anchor` to a heading of the file it names (GitHub's rule:
lowercase, punctuation dropped, spaces to `-`, a repeated heading gets `-1`, `-2`). The README stays short."""

from __future__ import annotations

import re
from pathlib import Path

from tests.servers import ROOT

ROOT = ROOT
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def doc_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return files + [p for p in [ROOT / "CONTRIBUTING.md"] if p.exists()]


def prose(path: Path) -> list[str]:
    """The file's lines outside fenced code, with inline code blanked (a link there is an example)."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            line = ""
        lines.append("" if fenced else re.sub(r"`[^`]*`", "``", line))
    return lines


def slug(heading: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading counts by its text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        m = None if fenced else HEADING.match(line)
        if m:
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken(files: list[Path], root: Path) -> list[str]:
    """Every relative link in `files` that names no file under `root`, or no heading of the file it names."""
    problems = []
    for path in files:
        for number, line in enumerate(prose(path), 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:: not ours to check
                    continue
                file_part, _, anchor = target.partition("#")
                dest = (path.parent / file_part).resolve() if file_part else path
                where = f"{path.relative_to(root)}:{number}: {target}"
                if not dest.is_relative_to(root.resolve()):
                    problems.append(f"{where} leaves the repository")
                elif not dest.exists():
                    problems.append(f"{where} names no file")
                elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
                    problems.append(f"{where} names no heading of {dest.name}")
    return problems


def test_every_relative_link_and_image_resolves() -> None:
    assert broken(doc_files(), ROOT) == []


def test_every_docs_page_is_linked_from_the_readme_or_the_docs_index() -> None:
    linked = set()
    for path in (ROOT / "README.md", ROOT / "docs" / "README.md"):
        for line in prose(path):
            linked |= {(path.parent / t.partition("#")[0]).resolve() for t in LINK.findall(line)}
    pages = {p.resolve() for p in (ROOT / "docs").glob("*.md")} - {(ROOT / "docs" / "README.md").resolve()}
    assert sorted(p.name for p in pages - linked) == []


def test_the_checker_finds_a_missing_file_a_missing_heading_and_a_way_out(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Tasks: questions (2026-07-28)\n\n## A page\n")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/a.md#tasks-questions-2026-07-28) [ok](docs/a.md#a-page-1) [ok](#b) [web](https://x.org/#y)\n"
        "# B\n\n`[code](nowhere.md)`\n\n```\n[fenced](nowhere.md)\n```\n"
        "![gone](docs/screenshots/gone.png) [no](docs/a.md#tasks) [self](#c) [out](../elsewhere.md)\n"
    )
    assert broken([page], tmp_path) == [
        "README.md:9: docs/screenshots/gone.png names no file",
        "README.md:9: docs/a.md#tasks names no heading of a.md",
        "README.md:9: #c names no heading of README.md",
        "README.md:9: ../elsewhere.md leaves the repository",
    ]


def test_the_readme_is_short_and_begins_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250
    assert lines[2] == "```bash"
    assert lines[3].startswith("bash scripts/quickstart.sh ")
    assert lines[4].startswith("bash scripts/test.sh ")


def test_the_repository_stands_alone() -> None:
    """No tracked file points outside the repository to the notes it was built from (the workplace's shared
    folder beside it): whatever a reader needs is in the repository itself."""
    import subprocess

    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
    ).stdout.split("\0")
    outside = re.compile(r"\.\./" + "shared" + r"\b|" + "shared" + "/notes/")  # not spelled out: this file
    found = [
        name
        for name in tracked
        if name
        and not name.endswith((".png", ".svg", ".ico", ".woff2"))
        and (ROOT / name).is_file()
        and outside.search((ROOT / name).read_text(encoding="utf-8", errors="replace"))
    ]
    assert found == [], f"these files point outside the repository: {found}"
