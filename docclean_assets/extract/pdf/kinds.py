"""Stage 6: block kinds from typography: title, headings (with levels), captions, list items."""
from __future__ import annotations

import re

from docclean_assets.extract.pdf.blocks import PBlock
from docclean_assets.extract.pdf.chars import PageInfo
from docclean_assets.extract.pdf.settings import PdfSettings

_CAPTION = re.compile(r"^(Figure|Fig\.|Table|Tab\.|Listing|Algorithm|Abbildung|Tabelle)\s*[0-9IVX]+[a-z]?\s*[.:|]")
_BULLET = re.compile(r"^[•◦▪‣●○■□➢►–]\s*\S")


def _is_size_heading(b: PBlock, body: float, s: PdfSettings) -> bool:
    return b.size >= s.heading_size_ratio * body and len(b.text) <= s.heading_max_chars


def _is_bold_heading(b: PBlock, body: float, s: PdfSettings) -> bool:
    text = b.text
    return (
        b.bold_fraction >= 0.9
        and len(b.lines) <= 2
        and len(text) <= s.bold_heading_max_chars
        and b.size >= 0.95 * body
        and any(ch.isalpha() for ch in text)
    )


def blocks_to_kinds(
    pages: list[tuple[PageInfo, list[PBlock]]], body: float, settings: PdfSettings
) -> None:
    """Label, in place, headings (size or bold), the title on page 1, captions and list items.

    Heading levels rank the distinct heading sizes of the document, largest = 1; bold headings at
    body size come one level below the smallest larger-size heading.
    """
    size_heads: list[PBlock] = []
    for _info, blocks in pages:
        for b in blocks:
            if b.drop_reason is not None or b.kind != "paragraph":
                continue
            text = b.text
            if _is_size_heading(b, body, settings):
                b.kind = "heading"
                size_heads.append(b)
            elif _is_bold_heading(b, body, settings):
                b.kind = "heading"
            elif _CAPTION.match(text):
                b.kind = "caption"
            elif _BULLET.match(text):
                b.kind = "list_item"
    title = _pick_title(pages, size_heads, settings)
    sizes = sorted({b.size for b in size_heads if b is not title}, reverse=True)
    rank = {sz: i + 1 for i, sz in enumerate(sizes)}
    for _info, blocks in pages:
        for b in blocks:
            if b.kind == "heading":
                b.level = min(6, rank.get(b.size, len(sizes) + 1))


def _pick_title(
    pages: list[tuple[PageInfo, list[PBlock]]], size_heads: list[PBlock], settings: PdfSettings
) -> PBlock | None:
    """The largest text on page 1 near its top, relabelled `title`; None when there is none."""
    if not pages:
        return None
    info, first = pages[0]
    cands = [
        b
        for b in first
        if b.kind == "heading" and b in size_heads and b.top <= settings.title_max_top_fraction * info.height
    ]
    if not cands:
        return None
    biggest = max(b.size for b in cands)
    if any(b.size > biggest for b in first if b.drop_reason is None):
        return None
    title = min((b for b in cands if b.size == biggest), key=lambda b: b.top)
    title.kind, title.level = "title", None
    return title
