"""Parts of a compound document (extract/chunk_parts.py) on inline blocks: headings opened before a part
do not head it; a document that only changes its prose size between sections has no parts."""
from __future__ import annotations

import pytest

from docclean_assets.extract.chunk import blocks_to_chunks
from docclean_assets.extract.chunk_parts import blocks_to_part_starts
from docclean_assets.extract.model import BBox, Block
from docclean_assets.extract.settings import ChunkSettings

S = ChunkSettings(max_tokens=400)
PAGE_WIDTH = 612.0
FLUSH_LEFT = (50.0, 250.0)
CENTRED = (206.0, 406.0)


class Doc:
    """Blocks built page by page, in reading order."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []

    def add(self, kind: str, text: str, page: int, size: float, span: tuple[float, float] = (50.0, 560.0),
            level: int | None = None) -> None:
        y = 40.0 + 20 * sum(1 for b in self.blocks if b.page == page)
        meta = (("page_width", f"{PAGE_WIDTH:.1f}"), ("font_size", f"{size:.1f}"))
        self.blocks.append(Block(kind, text, seq=len(self.blocks), page=page, bbox=BBox(span[0], y, span[1], y + 12),
                                 level=level, meta=meta))

    def prose(self, page: int, size: float, tag: str) -> None:
        """A page of body text: 1,000 non-space chars in 10 paragraphs."""
        for i in range(10):
            self.add("paragraph", " ".join(f"{tag}{page}w{i}n{k}" for k in range(20))[:120] + ".", page, size)


def compound(opening_span: tuple[float, float], opening_level: int, exhibit_span: tuple[float, float]) -> Doc:
    """A 10-K in 9 pt (pages 1-4), an exhibit in 11 pt (5-8) under a level-2 title, then 9 pt again (9-12)
    opened by a heading."""
    d = Doc()
    d.add("title", "ACME CORP", 1, 14, CENTRED)
    d.add("heading", "FORM 10-K", 1, 12, CENTRED, level=1)
    d.prose(1, 9, "cover")
    d.add("heading", "Part II", 2, 10, FLUSH_LEFT, level=2)
    d.add("heading", "Item 7", 2, 9, FLUSH_LEFT, level=3)
    for page in (2, 3, 4):
        d.prose(page, 9, "mdna")
    d.add("heading", "SEVERANCE PLAN", 5, 13, exhibit_span, level=2)
    d.add("heading", "Article I", 5, 11, FLUSH_LEFT, level=3)
    for page in (5, 6, 7, 8):
        d.prose(page, 11, "plan")
    d.add("paragraph", "Exhibit 13", 9, 9, (500.0, 560.0))  # a label above the opening heading
    d.add("heading", "Management's Discussion", 9, 9, opening_span, level=opening_level)
    for page in (9, 10, 11, 12):
        d.prose(page, 9, "annual")
    return d


def paths_on(chunks, page: int) -> set[tuple[str, ...]]:
    return {c.heading_path for c in chunks if page in c.pages}


def test_a_part_set_in_another_size_closes_the_headings_opened_before_it():
    # the annual report's opening heading is flush left, at a level the exhibit never used (4)
    d = compound(FLUSH_LEFT, 4, CENTRED)
    starts = blocks_to_part_starts(d.blocks, S)
    assert {d.blocks[q].text for q in starts} == {"SEVERANCE PLAN", "Management's Discussion"}
    chunks = blocks_to_chunks(d.blocks, S)
    # the title and the first page's headings head every part; the exhibit's title does not outlive it
    assert paths_on(chunks, 6) == {("ACME CORP", "FORM 10-K", "SEVERANCE PLAN", "Article I")}
    assert paths_on(chunks, 11) == {("ACME CORP", "FORM 10-K", "Management's Discussion")}


def test_without_parts_the_exhibit_title_heads_what_follows():
    # the same document with the prose size held: no part, the level-2 title stays over the report
    d = compound(FLUSH_LEFT, 4, CENTRED)
    flat = [b if b.page is None or b.page < 9 or b.kind != "paragraph" or b.text == "Exhibit 13"
            else Block(b.kind, b.text, seq=b.seq, page=b.page, bbox=b.bbox, meta=(b.meta[0], ("font_size", "11.0")))
            for b in d.blocks]
    assert "SEVERANCE PLAN" in next(iter(paths_on(blocks_to_chunks(flat, S), 11)))


def test_a_centred_opening_heading_starts_a_part_at_a_level_in_use():
    # the exhibit's flush-left title is at a level the 10-K used (2): no part; the report's centred
    # heading is at a level the exhibit used (3): a part all the same
    d = compound(CENTRED, 3, FLUSH_LEFT)
    starts = blocks_to_part_starts(d.blocks, S)
    assert {d.blocks[q].text for q in starts} == {"Management's Discussion"}
    assert paths_on(blocks_to_chunks(d.blocks, S), 11) == {("ACME CORP", "FORM 10-K", "Management's Discussion")}


def test_sections_in_another_size_under_flush_left_heads_at_used_levels_are_no_parts():
    # JPMorgan's 10-Qs: a segment's pages in 8 pt among 10 pt ones, each section under a flush-left head
    d = compound(FLUSH_LEFT, 3, FLUSH_LEFT)
    assert blocks_to_part_starts(d.blocks, S) == frozenset()
    chunks = blocks_to_chunks(d.blocks, S)
    assert paths_on(chunks, 11) == {("ACME CORP", "FORM 10-K", "SEVERANCE PLAN", "Management's Discussion")}


def test_a_size_change_shorter_than_part_min_pages_is_no_part():
    d = Doc()
    d.add("heading", "Notes", 1, 12, FLUSH_LEFT, level=1)
    for page in (1, 2, 3):
        d.prose(page, 9, "a")
    d.add("heading", "Schedule", 4, 12, CENTRED, level=2)
    for page in (4, 5):
        d.prose(page, 7, "b")
    for page in (6, 7, 8):
        d.prose(page, 9, "c")
    assert blocks_to_part_starts(d.blocks, S) == frozenset()
    assert blocks_to_part_starts(d.blocks, ChunkSettings(part_min_pages=2)) == {d.blocks[31].seq}  # the centred Schedule


def test_blocks_without_font_sizes_have_no_parts():
    blocks = [Block("heading", "A", seq=0, level=1), Block("paragraph", "x " * 600, seq=1)]
    assert blocks_to_part_starts(blocks, S) == frozenset()


def test_a_part_needs_at_least_one_page():
    with pytest.raises(ValueError, match="part_min_pages"):
        ChunkSettings(part_min_pages=0)
