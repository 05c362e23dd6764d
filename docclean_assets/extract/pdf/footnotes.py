"""Stage 7: footnotes: the run of small-font blocks closing a column, below its body text.

A column's footnote run starts in the lower part of the page, is set smaller than the body's modal
size, begins with a marker (a number, *, dagger, or a raised smaller first glyph), and sits directly
below a body paragraph of that column. Reference lists in small type (no body paragraph directly
above them) and figure captions (no marker) are therefore not footnotes.
"""
from __future__ import annotations

import re

from docclean_assets.extract.pdf.blocks import PBlock
from docclean_assets.extract.pdf.chars import PageInfo
from docclean_assets.extract.pdf.settings import PdfSettings

# A marker, then either a space and text or a letter directly ("3https://...", "1 The ..."); "16:21" is
# no marker.
_MARKER = re.compile(r"^\s*(\d{1,3}|[*†‡§¶#∗]+|\(\d{1,3}\)|\[\d{1,3}\])(\s+\S|[^\W\d_])")


def _has_marker(b: PBlock, s: PdfSettings) -> bool:
    first = b.lines[0]
    text = first.text
    if sum(ch.isalpha() for ch in b.text) < s.footnote_min_letters:
        return False
    if _MARKER.match(text):
        return True
    w = first.words[0]
    return w.first_size < s.footnote_marker_size_ratio * first.size


def page_footnotes(ordered: list[PBlock], info: PageInfo, body: float, settings: PdfSettings) -> list[PBlock]:
    """The page's blocks (in reading order) with its footnotes relabelled `footnote` (copies; the
    other blocks as they are)."""
    small = settings.footnote_size_ratio * body
    short = settings.footnote_furniture_max_chars
    content = [b for b in ordered if b.drop_reason is None and b.kind != "margin_note"]
    groups: dict[int, list[PBlock]] = {}
    for b in content:
        groups.setdefault(b.column, []).append(b)
    if -1 in groups:  # full-width footnotes close the whole page: compare against every block
        groups[-1] = list(content)
    notes: set[int] = set()  # id() of the blocks found to be footnotes

    def kind(b: PBlock) -> str:
        return "footnote" if id(b) in notes else b.kind

    for blocks in groups.values():
        seq = sorted(blocks, key=lambda b: (b.top, b.x0))
        # Walk up from the bottom while blocks are small (or short furniture such as a page number).
        i = len(seq)
        while i > 0 and (seq[i - 1].size <= small or len(seq[i - 1].text) < short):
            i -= 1
        start = next(
            (
                k
                for k in range(i, len(seq))
                if seq[k].size <= small
                and (seq[k].top + seq[k].bottom) / 2 >= settings.footnote_min_top_fraction * info.height
                and _has_marker(seq[k], settings)
            ),
            None,
        )
        if start is None:
            continue
        above = next((b for b in reversed(seq[:start]) if len(b.text) >= short), None)
        if above is None or kind(above) not in ("paragraph", "list_item") or above.size <= small:
            continue
        # The run continues while small blocks of that column follow closely (no page furniture).
        prev = seq[start]
        for b in seq[start:]:
            if b.column != seq[start].column:
                continue
            if b.size > small or kind(b) not in ("paragraph", "list_item", "footnote"):
                break
            if b.top - prev.bottom > settings.footnote_run_max_gap_em * body:
                break
            notes.add(id(b))
            prev = b
    return [b.relabel(kind="footnote") if id(b) in notes and b.kind != "footnote" else b for b in ordered]
