"""In-page furniture found by what it is, not by its class names: a table of contents (links to the
page's own headings) and a code block's toolbar (short labels sharing the <pre>'s wrapper)."""
from __future__ import annotations

from docclean_assets.extract.html.dom import Unit
from docclean_assets.extract.html.settings import HtmlSettings
from docclean_assets.extract.model import Kind

_LABEL_KINDS = frozenset({Kind.HEADING, Kind.PARAGRAPH})
_SENTENCE_END = (".", "!", "?", ":", ";")


def _is_toc_item(u: Unit, hs: HtmlSettings) -> bool:
    """A unit made (almost) only of links to this page's headings."""
    chars = len(u.text.replace(" ", "").replace("\n", ""))
    return u.toc_chars > 0 and u.toc_chars >= hs.toc_min_link_share * chars


def toc_units(units: list[Unit], hs: HtmlSettings) -> list[int]:
    """Indexes of the units of in-page tables of contents, labels included."""
    found: list[int] = []
    i = 0
    while i < len(units):
        if not _is_toc_item(units[i], hs):
            i += 1
            continue
        j = i
        while j < len(units) and _is_toc_item(units[j], hs):
            j += 1
        if j - i >= hs.toc_min_links:
            if i > 0 and _is_label(units[i - 1], hs):
                found.append(i - 1)
            found.extend(range(i, j))
        i = j
    return found


def _is_label(u: Unit, hs: HtmlSettings) -> bool:
    """A short title just before a TOC ("On this page", "In this article"), not a sentence."""
    words = u.text.split()
    return (u.kind in _LABEL_KINDS and 0 < len(words) <= hs.toc_label_max_words and u.link_chars == 0
            and not u.text.rstrip().endswith(_SENTENCE_END))


def code_toolbar_units(units: list[Unit], hs: HtmlSettings) -> list[int]:
    """Indexes of the units of code blocks' toolbars: next to a code unit, in a wrapper (at most
    code_wrapper_max_levels elements above the <pre>) that holds nothing but them and the code."""
    found: set[int] = set()
    for c, code in enumerate(units):
        if code.kind != Kind.CODE:
            continue
        sides = []
        for step in (-1, 1):
            side, j = [], c + step
            while 0 <= j < len(units) and abs(j - c) <= hs.code_toolbar_max_units and _is_control(units[j], hs):
                side.append(j)
                j += step
            sides.append(side)
        found.update(_attached(units, c, *sides, hs))
    return sorted(found)


def _is_control(u: Unit, hs: HtmlSettings) -> bool:
    """Short enough to be a button or a label ("Copy", "Copied to clipboard", "Python")."""
    words = u.text.split()
    return (u.kind == Kind.PARAGRAPH and 0 < len(words) <= hs.code_toolbar_max_words
            and not u.text.rstrip().endswith(_SENTENCE_END))


def _attached(units: list[Unit], c: int, before: list[int], after: list[int], hs: HtmlSettings) -> list[int]:
    """The most units next to code unit `c` (nearest first on each side) that share a wrapper with
    it holding nothing else: the wrapper's other units are code units or among them."""
    code = units[c]
    runs = sorted(((nb, na) for nb in range(len(before) + 1) for na in range(len(after) + 1) if nb or na),
                  key=lambda n: -(n[0] + n[1]))
    for nb, na in runs:
        run = before[:nb] + after[:na]
        wrapper: int | None = code.path[-1]
        for k in run:
            wrapper = _common_ancestor(code.path, units[k].path, wrapper)
        if wrapper is None or len(code.path) - 1 - code.path.index(wrapper) > hs.code_wrapper_max_levels:
            continue
        if _holds_only(units, c, wrapper, set(run)):
            return run
    return []


def _holds_only(units: list[Unit], c: int, wrapper: int, run: set[int]) -> bool:
    """Whether every unit under `wrapper` (an ancestor of unit c, so a contiguous stretch around c
    in DOM order) is in `run` or is code; stops at the first that is neither."""
    for step in (-1, 1):
        k = c + step
        while 0 <= k < len(units) and wrapper in units[k].path:
            if k not in run and units[k].kind != Kind.CODE:
                return False
            k += step
    return True


def _common_ancestor(code: tuple[int, ...], other: tuple[int, ...], below: int | None) -> int | None:
    """The deepest element on both paths that is no deeper than `below` (an element of `code`)."""
    common = None
    for x, y in zip(code, other):
        if x != y:
            break
        common = x
        if x == below:
            break
    return common
