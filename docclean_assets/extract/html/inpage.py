"""In-page furniture found by what it is, not by its class names: a table of contents (links to the
page's own headings), a code block's toolbar (short labels sharing the <pre>'s wrapper), and a list
of teasers for other pages (linked headlines with their short summaries, repeated card by card)."""
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
    """A short title just before a TOC or a teaser list ("On this page", "Top stories"), not a sentence."""
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


def teaser_units(units: list[Unit], body: list[bool], hs: HtmlSettings) -> list[int]:
    """Indexes of body units in runs of at least teaser_min_cards same-shaped cards (a linked
    headline, then at most teaser_dek_max_units short unlinked units inside the card's own element),
    most of them with a summary or every headline nothing but a link, and the run's short label."""
    found: list[int] = []
    i = 0
    while i < len(units):
        cards = _cards(units, body, i, hs)
        with_dek = sum(1 for start, end in cards if end - start > 1)
        bare = all(units[start].link_chars >= hs.teaser_bare_link_share * len(units[start].text) for start, _ in cards)
        if len(cards) >= hs.teaser_min_cards and (with_dek * 2 >= len(cards) or bare):
            if i > 0 and body[i - 1] and _is_label(units[i - 1], hs):
                found.append(i - 1)
            end = cards[-1][1]
            found.extend(range(i, end))
        i = cards[-1][1] if cards else i + 1  # a run's later cards start no other run (linear time)
    return found


def _is_headline(u: Unit, hs: HtmlSettings) -> bool:
    """A unit that is (almost) all link text and short enough to be a headline."""
    return (u.kind != Kind.CODE and len(u.text.split()) <= hs.teaser_head_max_words
            and u.link_chars >= hs.teaser_head_link_share * len(u.text))


def _cards(units: list[Unit], body: list[bool], i: int, hs: HtmlSettings) -> list[tuple[int, int]]:
    """The cards from unit i on, as (start, end) ranges, while each opens with a headline set like
    the first one (same element, same depth) and its summary units are short, unlinked and closer
    kin to their headline than two headlines are to each other (inside the card, not the list)."""
    first = units[i]
    if not body[i] or not _is_headline(first, hs):
        return []
    cards: list[tuple[int, int]] = []
    j = i
    shape = (first.tag, len(first.path))
    while j < len(units) and body[j] and _is_headline(units[j], hs) and (units[j].tag, len(units[j].path)) == shape:
        nxt = _next_head(units, j, shape, hs)
        list_depth = _shared_depth(units[j].path, units[nxt].path) if nxt is not None else \
            _shared_depth(units[j].path, units[cards[-1][0]].path) if cards else len(units[j].path) - 1
        k = j + 1
        while (k < len(units) and k - j <= hs.teaser_dek_max_units and body[k] and not _is_headline(units[k], hs)
               and len(units[k].text.split()) <= hs.teaser_dek_max_words
               and _shared_depth(units[j].path, units[k].path) > list_depth):
            k += 1
        cards.append((j, k))
        j = k
    return cards


def _next_head(units: list[Unit], j: int, shape: tuple, hs: HtmlSettings) -> int | None:
    """The next headline of the same shape within a card's reach after unit j."""
    for k in range(j + 1, min(len(units), j + 2 + hs.teaser_dek_max_units)):
        if _is_headline(units[k], hs) and (units[k].tag, len(units[k].path)) == shape:
            return k
    return None


def _shared_depth(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """How many leading elements two paths share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n
