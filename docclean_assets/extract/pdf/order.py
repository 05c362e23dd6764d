"""Stage 5: blocks of one page to reading order, given its gutters.

Blocks crossing every gutter are full-width (title, abstract, wide figures and tables); they cut the
page into vertical segments. Within a segment columns are read left to right, each top to bottom;
segments and the full-width blocks between them are read top to bottom. Rotated margin notes and
watermarks follow the page's body. Pages set in a right-to-left script read their columns from the right.
"""
from __future__ import annotations

from bisect import bisect_right

from docclean_assets.extract.bidi import is_rtl
from docclean_assets.extract.pdf.blocks import PBlock
from docclean_assets.extract.pdf.columns import Gutter
from docclean_assets.extract.settings import PdfSettings


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


def _grid_bands(seg: list[PBlock], settings: PdfSettings | None) -> list[list[PBlock]]:
    """The segment cut into rows when it is a grid of cards rather than columns: headings in
    different columns start at the same height on `grid_min_aligned_rows` rows or more (card 1 |
    card 2 over card 3 | card 4 reads 1, 2, 3, 4). Otherwise the whole segment, read by columns."""
    if settings is None:
        return [seg]
    heads = sorted((b for b in seg if b.kind in ("heading", "title")), key=lambda b: b.top)
    rows: list[float] = []
    for i, a in enumerate(heads):
        tol = settings.grid_align_em * a.size
        if any(b.column != a.column and abs(b.top - a.top) <= tol for b in heads[i + 1:]) and \
                not any(abs(a.top - r) <= tol for r in rows):
            rows.append(a.top)
    if len(rows) < settings.grid_min_aligned_rows:
        return [seg]
    cuts = [*rows[1:], float("inf")]
    bands: list[list[PBlock]] = [[] for _ in cuts]
    for b in seg:
        bands[next(k for k, c in enumerate(cuts) if b.top < c - settings.grid_align_em * b.size)].append(b)
    return bands


def blocks_to_reading_order(blocks: list[PBlock], gutters: list[Gutter],
                            settings: PdfSettings | None = None) -> tuple[list[PBlock], int, int]:
    """The page's blocks in reading order, how many columns it has (0 when it has no text), and
    how many blocks straddle some but not all columns mid-page (their place is a guess)."""
    content = [b for b in blocks if b.drop_reason is None and b.kind != "margin_note"]
    rest = [b for b in blocks if not (b.drop_reason is None and b.kind != "margin_note")]
    tail = _rows_then_x(rest)
    if not content:
        return tail, 0, 0
    if not gutters:
        for b in content:
            b.column = 0
        return _rows_then_x(content) + tail, 1, 0
    mids = [g.mid for g in gutters]
    full: list[PBlock] = []
    cols: list[PBlock] = []
    partial: list[PBlock] = []
    for b in content:
        crossed = sum(b.x0 < m < b.x1 for m in mids)
        if crossed == len(mids):
            b.column = -1
            full.append(b)
        else:
            b.column = bisect_right(mids, b.x0)
            (partial if crossed else cols).append(b)
    # A block crossing some gutters but not all: above or below all column text it is page chrome
    # or a banner (read in place, like a full-width block); inside the columns it belongs to the
    # leftmost column it touches, and the page has a region whose order is a guess.
    top = min((b.top for b in cols), default=0.0)
    bottom = max((b.bottom for b in cols), default=0.0)
    unresolved = 0
    for b in partial:
        if b.top >= bottom or b.bottom <= top:
            b.column = -1
            full.append(b)
        else:
            unresolved += 1
            cols.append(b)
    # Right-to-left pages (Arabic, Hebrew) read their columns from the right.
    columns = list(range(len(gutters) + 1))
    if is_rtl(" ".join(b.text for b in cols)):
        columns.reverse()
    full.sort(key=lambda b: (b.top, b.x0))
    tops = [f.top for f in full]
    segments: list[list[PBlock]] = [[] for _ in range(len(full) + 1)]
    for b in cols:
        segments[bisect_right(tops, b.top)].append(b)
    ordered: list[PBlock] = []
    for s, seg in enumerate(segments):
        for band in _grid_bands(seg, settings):
            for c in columns:
                ordered.extend(_rows_then_x([b for b in band if b.column == c]))
        if s < len(full):
            ordered.append(full[s])
    ncols = len(gutters) + 1 if cols else 1
    return ordered + tail, ncols, unresolved
