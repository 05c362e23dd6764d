"""Stage 5: blocks of one page to reading order, given its gutters (column logic in `extract.layout`).

Blocks crossing every gutter are full-width (title, abstract, wide figures and tables); they cut the
page into vertical segments. Within a segment columns are read left to right, each top to bottom;
segments and the full-width blocks between them are read top to bottom. Rotated margin notes and
watermarks follow the page's body. Pages set in a right-to-left script read their columns from the right.
"""
from __future__ import annotations

from docclean_assets.extract.bidi import is_rtl
from docclean_assets.extract.layout import Gutter, boxes_to_columns, columns_to_order, rows_then_x
from docclean_assets.extract.pdf.model import PBlock
from docclean_assets.extract.pdf.settings import PdfSettings


def _rows_then_x(blocks: list[PBlock], s: PdfSettings) -> list[PBlock]:
    """Top to bottom; blocks whose tops differ by at most `row_align_em` of the smaller font size
    start on the same row and go left to right."""
    return rows_then_x(blocks, lambda a, b: s.row_align_em * min(a.size, b.size))


def _grid_bands(seg: list[PBlock], settings: PdfSettings, column: dict[int, int]) -> list[list[PBlock]]:
    """The segment cut into rows when it is a grid of cards rather than columns: headings in
    different columns start at the same height on `grid_min_aligned_rows` rows or more (card 1 |
    card 2 over card 3 | card 4 reads 1, 2, 3, 4). Otherwise the whole segment, read by columns.
    `column` maps id(block) to its column."""
    heads = sorted((b for b in seg if b.kind in ("heading", "title")), key=lambda b: b.top)
    rows: list[float] = []
    for i, a in enumerate(heads):
        tol = settings.grid_align_em * a.size
        if any(column[id(b)] != column[id(a)] and abs(b.top - a.top) <= tol for b in heads[i + 1:]) and \
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
                            settings: PdfSettings) -> tuple[list[PBlock], int, int]:
    """The page's blocks in reading order (copies of those whose column changes), how many columns
    it has (0 when it has no text), and how many blocks straddle some but not all columns mid-page
    (their place is a guess)."""
    content = [b for b in blocks if b.drop_reason is None and b.kind != "margin_note"]
    rest = [b for b in blocks if not (b.drop_reason is None and b.kind != "margin_note")]
    tail = _rows_then_x(rest, settings)
    if not content:
        return tail, 0, 0
    if not gutters:
        return [_in_column(b, 0) for b in _rows_then_x(content, settings)] + tail, 1, 0
    placement = boxes_to_columns(content, gutters)
    # Right-to-left pages (Arabic, Hebrew) read their columns from the right.
    rtl = is_rtl(" ".join(b.text for b in placement.cols))
    ordered = columns_to_order(placement, len(gutters) + 1, lambda seg: _rows_then_x(seg, settings),
                               right_to_left=rtl, bands=lambda seg: _grid_bands(seg, settings, placement.column))
    ncols = len(gutters) + 1 if placement.cols else 1
    return [_in_column(b, placement.column[id(b)]) for b in ordered] + tail, ncols, placement.unresolved


def _in_column(b: PBlock, column: int) -> PBlock:
    """The block with its column set (a copy when it changes)."""
    return b if b.column == column else b.relabel(column=column)
