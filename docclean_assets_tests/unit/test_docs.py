"""The docs name only what exists: every `docclean` command and option they show is in that command's
`--help`, every `make` target they name is in the Makefile, every link between pages resolves, and
the README stays a page a newcomer reads (at most README_MAX_LINES)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from docclean_assets.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 200  # issue 36: what docclean is, the two commands, your folder, the text, the UI, a map

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_SPAN = re.compile(r"`([^`\n]+)`")
_CALL = re.compile(r"(?:^|[\s/(])docclean ([a-z]+)\b([^#|;&\n]*)")  # a call up to a comment or a pipe
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-z])\b")
_MAKE = re.compile(r"\bmake ([a-z][a-z-]*)\b")
_LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


def _code(text: str) -> list[str]:
    """Every line of code the page shows: fenced blocks, and inline spans."""
    lines = [line for block in _FENCE.findall(text) for line in block.splitlines()[1:-1]]
    return lines + _SPAN.findall(_FENCE.sub("", text))


def _calls() -> list[tuple[str, str, tuple[str, ...]]]:
    """(page, command, options) of every `docclean COMMAND ...` the pages show."""
    found = []
    for page in PAGES:
        for line in _code(page.read_text(encoding="utf-8")):
            for cmd, tail in _CALL.findall(line):
                found.append((page.relative_to(ROOT).as_posix(), cmd, tuple(_OPTION.findall(tail))))
    return found


def _help(cmd: str, capsys) -> str | None:
    """The command's --help, or None when it is no command."""
    try:
        cli_main([cmd, "--help"])
    except SystemExit as exit_:
        out = capsys.readouterr()
        return out.out if exit_.code == 0 else None
    return None


def test_the_docs_show_the_commands_users_need():
    commands = {cmd for _, cmd, _ in _calls()}
    assert {"run", "text", "summary", "sql", "chunks", "search", "extract", "inspect"} <= commands


def test_every_documented_command_and_option_exists(capsys):
    missing = []
    for page, cmd, options in _calls():
        shown = _help(cmd, capsys)
        if shown is None:
            missing.append(f"{page}: docclean {cmd} is no command")
            continue
        missing += [f"{page}: docclean {cmd} has no option {o}" for o in options
                    if not re.search(rf"(?<![\w-]){re.escape(o)}\b", shown)]
    assert not missing, "\n".join(sorted(set(missing)))


def test_a_made_up_option_would_be_caught(capsys):
    # the check above can fail: an option no command has is not in any --help
    assert not re.search(r"(?<![\w-])--colour\b", _help("text", capsys) or "")
    assert _help("summarise", capsys) is None


def test_every_documented_make_target_exists():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.M))
    named = {(p.relative_to(ROOT).as_posix(), t) for p in PAGES for line in _code(p.read_text(encoding="utf-8"))
             for t in _MAKE.findall(line)}
    assert named and not [f"{p}: make {t}" for p, t in sorted(named) if t not in targets]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name if p.parent == ROOT else f"docs/{p.name}")
def test_links_between_pages_resolve(page):
    broken = [link for link in _LINK.findall(page.read_text(encoding="utf-8")) if not (page.parent / link).is_file()]
    assert not broken


def test_every_topic_page_is_in_the_index():
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    assert [p.name for p in PAGES[1:] if p.name != "README.md" and f"({p.name})" not in index] == []


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES
