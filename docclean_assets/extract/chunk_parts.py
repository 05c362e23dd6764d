"""Where a compound document's parts begin, so that headings do not carry across them (issue 34).

A filing bundles its exhibits (contracts, plans, certifications, an annual report) after the 10-K in
one PDF, each set in its own body size. Heading levels rank heading sizes over the whole file, so an
exhibit's large title stayed in force over every page after it, up to the next heading of its size:
CVS's 2018 annual report, statements and all, sat under a severance plan's title.

A part begins on a page where the prose's font size changes and then holds, when that page opens with
a heading that starts a document: centred, as titles are, or at a level the part before it never
used. A document that only changes its prose size between sections (JPMorgan's 10-Qs: 10 pt and 8 pt
pages, each section opened by a flush-left heading at a level in use since the first page) has none.
Measured on the blocks' `font_size`, `page_width` and boxes (PDF); other formats have no parts.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from docclean_assets.extract.model import Block, Kind, count_chars
from docclean_assets.extract.settings import ChunkSettings

_PROSE = frozenset({Kind.PARAGRAPH, Kind.LIST_ITEM})
HEADS = frozenset({Kind.TITLE, Kind.HEADING})  # the kinds that open a heading path


def blocks_to_part_starts(blocks: Sequence[Block], s: ChunkSettings) -> frozenset[int]:
    """The seqs of the headings that open a new part of a compound document (kept blocks only)."""
    kept = sorted((b for b in blocks if b.drop_reason is None and b.page is not None), key=lambda b: b.seq)
    sizes = _prose_sizes(kept)
    bodies = [(page, _modal(c)) for page, c in sorted(sizes.items()) if sum(c.values()) >= s.part_prose_min_chars]
    if not bodies:
        return frozenset()
    by_page: dict[int, list[Block]] = defaultdict(list)
    for b in kept:
        by_page[b.page].append(b)
    current = _modal(sum(sizes.values(), Counter()))  # the document's own body size
    part_first = kept[0].page
    starts: list[int] = []
    for i, (page, size) in enumerate(bodies):
        run = bodies[i:i + s.part_min_pages]
        if size == current or len(run) < s.part_min_pages or any(other != size for _, other in run):
            continue
        opening = _opening_heading(by_page[page], s)
        used = {heading_level(b) for p in range(part_first, page) for b in by_page.get(p, ()) if b.kind in HEADS}
        if opening is not None and (heading_level(opening) not in used or _centred(opening, s)):
            starts.append(opening.seq)
        current, part_first = size, page
    return frozenset(starts)


def _prose_sizes(kept: list[Block]) -> dict[int, Counter[float]]:
    """page -> characters of paragraphs and list items per font size (points)."""
    sizes: dict[int, Counter[float]] = defaultdict(Counter)
    for b in kept:
        size = b.get_meta("font_size")
        if b.kind in _PROSE and size is not None:
            sizes[b.page][float(size)] += count_chars(b.text)
    return sizes


def _modal(sizes: Counter[float]) -> float:
    """The size that sets the most characters."""
    return sizes.most_common(1)[0][0]


def _opening_heading(page: list[Block], s: ChunkSettings) -> Block | None:
    """The page's first heading when only short lines (running heads, labels) come before it."""
    for b in page:
        if b.kind in HEADS:
            return b
        if b.kind == Kind.TABLE or len(b.text) > s.part_lead_max_chars:
            return None
    return None


def heading_level(b: Block) -> int:
    """A heading's level in its path (1 = top, unset counts as 1); the title is level 0."""
    return 0 if b.kind == Kind.TITLE else max(b.level or 1, 1)


def _centred(b: Block, s: ChunkSettings) -> bool:
    """Set in the middle of the page and narrower than a full line: a title."""
    width = b.get_meta("page_width")
    if b.bbox is None or width is None:
        return False
    page_width = float(width)
    middle = (b.bbox.x0 + b.bbox.x1) / 2
    return (abs(middle - page_width / 2) <= s.part_title_centre_tolerance * page_width
            and b.bbox.x1 - b.bbox.x0 <= s.part_title_max_width * page_width)
