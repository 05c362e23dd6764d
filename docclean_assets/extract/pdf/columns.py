"""Stage 4: column gutters of a page: the geometric candidates of `extract.layout`, kept only where
each side holds a prose column.

A gutter is an interior x-band crossed by blocks over at most `gutter_max_cover` of the text height
stacked at the page's densest x-position (found in `layout.boxes_to_gutters`, shared with PPTX), with
a prose column on each side (words per line, column fill: checked here). A gap that exists only
beside a figure (text above and below it runs across) is crossed over most of the height and is
therefore no gutter.
"""
from __future__ import annotations

from docclean_assets.extract.layout import Gutter, boxes_to_gutters
from docclean_assets.extract.pdf.model import Line, PBlock
from docclean_assets.extract.pdf.lines import make_line
from docclean_assets.extract.pdf.settings import PdfSettings

__all__ = ["Gutter", "blocks_to_gutters", "split_lines_at_gutters"]


def _column_ok(blocks: list[PBlock], x0: float, x1: float, width: float, top: float, height: float,
               s: PdfSettings) -> bool:
    """Whether the x-range holds a prose column: wide enough, filled enough (or a short column opening
    at the top of the text, as a last page's), words per line."""
    if x1 - x0 < s.column_min_width_fraction * width:
        return False
    tol = s.column_edge_tolerance_pt
    inside = [b for b in blocks if b.x0 >= x0 - tol and b.x1 <= x1 + tol]
    fill = sum(b.bottom - b.top for b in inside)
    nlines = sum(len(b.lines) for b in inside)
    short = (nlines >= s.column_short_min_lines
             and min(b.top for b in inside) <= top + s.column_short_top_em * max(b.size for b in inside))
    if fill < s.column_min_fill * height and not short:
        return False
    nwords = sum(len(ln.words) for b in inside for ln in b.lines)
    return nlines > 0 and nwords / nlines >= s.column_min_words_per_line


def blocks_to_gutters(blocks: list[PBlock], settings: PdfSettings) -> list[Gutter]:
    """The accepted gutters of one page, left to right (0 gutters = a single column)."""
    content = [b for b in blocks if b.drop_reason is None and b.kind != "margin_note"]
    if len(content) < 2:
        return []
    gutters = boxes_to_gutters(content, settings.gutter_max_cover, settings.gutter_min_width_pt,
                               settings.gutter_floor_slack)
    left, right = min(b.x0 for b in content), max(b.x1 for b in content)
    width = right - left
    top = min(b.top for b in content)
    height = max(b.bottom for b in content) - top
    while gutters:
        edges = [left] + [x for g in gutters for x in (g.x0, g.x1)] + [right]
        bad = [
            k
            for k in range(len(gutters) + 1)
            if not _column_ok(content, edges[2 * k], edges[2 * k + 1], width, top, height, settings)
        ]
        if not bad:
            break
        # Drop the worst-covered gutter next to the first failing column and try again.
        k = bad[0]
        near = [g for g in (gutters[k - 1] if k > 0 else None, gutters[k] if k < len(gutters) else None) if g]
        gutters.remove(max(near, key=lambda g: g.cover))
    return gutters


def split_lines_at_gutters(lines: list[Line], gutters: list[Gutter], settings: PdfSettings) -> list[Line]:
    """Lines merged across a narrow gutter, split at the wide word gap lying in the gutter band.

    A line that crosses a gutter with only normal word spaces there (a full-width title) is kept.
    """
    if not gutters:
        return lines
    # Each gutter is active only over the rows where text lies on both of its sides.
    spans = []
    for g in gutters:
        left = [ln for ln in lines if ln.x1 <= g.mid]
        right = [ln for ln in lines if ln.x0 >= g.mid]
        if not left or not right:
            spans.append((0.0, -1.0))
            continue
        spans.append(
            (max(min(ln.top for ln in left), min(ln.top for ln in right)),
             min(max(ln.bottom for ln in left), max(ln.bottom for ln in right)))
        )
    out: list[Line] = []
    for ln in lines:
        cuts = []
        for k, (a, b) in enumerate(zip(ln.words, ln.words[1:], strict=False)):
            gap = b.x0 - a.x1
            if gap < settings.gutter_split_gap_em * max(a.size, b.size):
                continue
            if any(
                a.x1 < g.x1 and b.x0 > g.x0 and lo <= (ln.top + ln.bottom) / 2 <= hi
                for g, (lo, hi) in zip(gutters, spans, strict=True)
            ):
                cuts.append(k + 1)
        if not cuts:
            out.append(ln)
            continue
        start = 0
        for cut in [*cuts, len(ln.words)]:
            out.append(make_line(list(ln.words[start:cut])))
            start = cut
    out.sort(key=lambda ln: (ln.top, ln.x0))
    return out
