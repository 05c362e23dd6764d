"""Stage 5: blocks of one page to reading order, given its gutters.

Blocks crossing every gutter are full-width (title, abstract, wide figures and tables); they cut the
page into vertical segments. Within a segment columns are read left to right, each top to bottom;
segments and the full-width blocks between them are read top to bottom. Rotated margin notes and
watermarks follow the page's body.
"""
from __future__ import annotations

from bisect import bisect_right

from docclean_assets.extract.pdf.blocks import PBlock
from docclean_assets.extract.pdf.columns import Gutter


def _rows_then_x(blocks: list[PBlock]) -> list[PBlock]:
    """Top to bottom; blocks starting on (nearly) the same row go left to right."""
    out: list[PBlock] = []
    row: list[PBlock] = []
    for b in sorted(blocks, key=lambda b: (b.top, b.x0)):
        if row and b.top - row[0].top > 0.5 * min(b.size, row[0].size):
            out.extend(sorted(row, key=lambda r: r.x0))
            row = []
        row.append(b)
    out.extend(sorted(row, key=lambda r: r.x0))
    return out


def blocks_to_reading_order(blocks: list[PBlock], gutters: list[Gutter]) -> tuple[list[PBlock], int]:
    """The page's blocks in reading order, and how many columns it has (0 when it has no text)."""
    content = [b for b in blocks if b.drop_reason is None and b.kind != "margin_note"]
    rest = [b for b in blocks if not (b.drop_reason is None and b.kind != "margin_note")]
    tail = _rows_then_x(rest)
    if not content:
        return tail, 0
    if not gutters:
        for b in content:
            b.column = 0
        return _rows_then_x(content) + tail, 1
    mids = [g.mid for g in gutters]
    full: list[PBlock] = []
    cols: list[PBlock] = []
    for b in content:
        if all(b.x0 < m < b.x1 for m in mids):
            b.column = -1
            full.append(b)
        else:
            # A block crossing some gutters but not all belongs to the leftmost column it touches.
            b.column = bisect_right(mids, b.x0)
            cols.append(b)
    full.sort(key=lambda b: (b.top, b.x0))
    tops = [f.top for f in full]
    segments: list[list[PBlock]] = [[] for _ in range(len(full) + 1)]
    for b in cols:
        segments[bisect_right(tops, b.top)].append(b)
    ordered: list[PBlock] = []
    for s, seg in enumerate(segments):
        for c in range(len(gutters) + 1):
            ordered.extend(_rows_then_x([b for b in seg if b.column == c]))
        if s < len(full):
            ordered.append(full[s])
    ncols = len(gutters) + 1 if cols else 1
    return ordered + tail, ncols
