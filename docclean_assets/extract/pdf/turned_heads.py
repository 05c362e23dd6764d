"""Stage 4c: column labels turned upright or slanted, back into the tables they head.

A comparison table with many narrow columns sets its labels turned 90 degrees or slanted at 45
(LaTeX's \\rotatebox, a spreadsheet's angled headers). Their chars leave the stream as rotated lines
(pdf/watermark.py), so the table is found without them: its header slots stay empty and the labels
would be margin notes or slanted stray text. A turned label heads the column under the foot of its
line (the glyph at its lower end stands over the column's figures), in the row holding its top
(a label turned inside a ruled header cell, or a group label turned beside the rows it names), or
in a header row of its own when it stands just above the table; a short line level with the feet
of such labels (the stub column's "Method") joins that row, and short lines just above their tops,
over their columns (group labels: "ReACT" over its three turned labels), make a row above it: the
labels' height parts them from the table by more than a row's gap.
"""
from __future__ import annotations

import dataclasses
from bisect import bisect_right
from typing import NamedTuple

from docclean_assets.extract.pdf.model import Line
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.pdf.table_grid import split_at_bounds
from docclean_assets.extract.pdf.table_model import Cell, Grid, TableBlock, grid_to_rows, rows_to_markdown
from docclean_assets.extract.pdf.watermark import RotatedLine


class TurnedHeads(NamedTuple):
    """The tables with their turned labels, the rotated lines no table took, the flow lines left."""

    tables: list[TableBlock]
    rotated: list[RotatedLine]
    rest: list[Line]


def _may_head(r: RotatedLine, grid: Grid, body: float, s: PdfSettings) -> bool:
    """Whether a rotated line can label one of the grid's columns: no larger than
    `table_turned_head_max_size_em` body em, its foot over the grid's columns, within its rows or
    at most `table_row_gap_em` above them."""
    return (r.size <= s.table_turned_head_max_size_em * body and grid.cols[0] <= r.foot_x <= grid.cols[-1]
            and grid.rows[0] - s.table_row_gap_em * body <= r.foot_y <= grid.rows[-1])


def _slot(grid: Grid, x: float, top: float) -> tuple[int, int]:
    """The (row, column) of the grid holding the point, clamped to the grid."""
    col = min(max(bisect_right(grid.cols, x) - 1, 0), grid.ncols - 1)
    return min(max(bisect_right(grid.rows, max(top, grid.rows[0])) - 1, 0), grid.nrows - 1), col


def _level(ln: Line, grid: Grid, feet: list[float], body: float, s: PdfSettings) -> bool:
    """Whether a flow line belongs to a header row of turned labels: short, within one of the
    grid's columns, its box reaching the labels' lowest foot (within `table_column_align_em`)."""
    foot = max(feet)
    inside = bisect_right(grid.cols, ln.x0) == bisect_right(grid.cols, ln.x1) and grid.cols[0] <= ln.x0
    return (inside and ln.x1 <= grid.cols[-1] and len(ln.words) <= s.table_max_cell_words
            and ln.top <= foot <= ln.bottom + s.table_column_align_em * body)


def _over(ln: Line, grid: Grid, cols: tuple[int, int], labels: list[RotatedLine], body: float, s: PdfSettings) -> bool:
    """Whether a flow line labels a group of turned labels: short, over the columns `cols` (first,
    last) the labels head (its end within `table_column_align_em` past them: a group label centred
    over the last columns overhangs the table), its bottom at most `table_row_gap_em` above their
    highest top and a line of its own above their feet."""
    top, foot = min(r.top for r in labels), min(r.foot_y for r in labels)
    return (len(ln.words) <= s.table_max_cell_words and grid.cols[cols[0]] <= ln.x0
            and ln.x1 <= grid.cols[cols[1] + 1] + s.table_column_align_em * body
            and top - s.table_row_gap_em * body <= ln.bottom <= foot - ln.size)


def _placed(grid: Grid, texts: dict[tuple[int, int], list[str]]) -> tuple[Grid, set[tuple[int, int]]]:
    """The grid with each text in its slot when the slot is empty (a ruled grid's empty cell takes
    it, spans kept), and the slots that were not."""
    cells, refused = list(grid.cells), set()
    for (row, col), parts in sorted(texts.items()):
        k = next((i for i, c in enumerate(cells) if c.row <= row < c.row + c.rowspan
                  and c.col <= col < c.col + c.colspan), None)
        if k is None:
            cells.append(Cell(row, col, 1, 1, " ".join(parts)))
        elif not cells[k].text.strip():
            cells[k] = cells[k]._replace(text=" ".join(parts))
        else:
            refused.add((row, col))
    return grid._replace(cells=cells), refused


def _with_head_row(grid: Grid, top: float) -> Grid:
    """The grid with an empty row added above its first, starting at `top`."""
    cells = [c._replace(row=c.row + 1) for c in grid.cells]
    return grid._replace(cells=cells, nrows=grid.nrows + 1, rows=(top, *grid.rows),
                         bbox=grid.bbox._replace(top=min(top, grid.bbox.top)))


def _headed(table: TableBlock, mine: list[RotatedLine], lines: list[Line], body: float,
            s: PdfSettings) -> tuple[TableBlock, list[RotatedLine], list[Line]]:
    """The table with its turned labels in its slots (a header row added for those standing above
    it, with the lines level with their feet; a row of group labels above the labels of its top
    row), the labels whose slot was taken, and the flow lines it took."""
    grid0 = table.grid
    assert grid0 is not None
    above = [r for r in mine if r.foot_y < grid0.rows[0]]
    inside = {id(r): _slot(grid0, r.foot_x, r.top) for r in mine if r.foot_y >= grid0.rows[0]}
    grid, level = grid0, []
    if above:
        grid = _with_head_row(grid, min(r.top for r in above))
        level = [ln for ln in lines if _level(ln, grid0, [r.foot_y for r in above], body, s)]
    top_labels = [r for r in mine if inside.get(id(r), (0, 0))[0] == 0]
    cols = sorted(_slot(grid0, r.foot_x, r.top)[1] for r in top_labels)
    at_feet = {id(ln) for ln in level}
    groups = [ln for ln in lines if top_labels and id(ln) not in at_feet
              and _over(ln, grid0, (cols[0], cols[-1]), top_labels, body, s)]
    if groups:
        grid = _with_head_row(grid, min(ln.top for ln in groups))
    added, head_row = bool(above) + bool(groups), int(bool(groups))
    texts: dict[tuple[int, int], list[str]] = {}
    where: dict[int, tuple[int, int]] = {}

    def put(key: int, slot: tuple[int, int], text: str) -> None:
        texts.setdefault(slot, []).append(text)
        where[key] = slot

    for r in sorted(mine, key=lambda r: r.foot_x):
        row, col = inside.get(id(r), (-1, _slot(grid0, r.foot_x, r.top)[1]))
        put(id(r), (head_row if row < 0 else row + added, col), r.text)
    for ln in level:
        put(id(ln), (head_row, _slot(grid0, (ln.x0 + ln.x1) / 2, ln.top)[1]), ln.text)
    # group labels set close together make one line: cut at the column edges in its wide word gaps;
    # each piece heads the first column it covers
    pieces = {id(ln): split_at_bounds(ln, list(grid0.cols[1:-1]), s.table_cell_split_gap_em * body) for ln in groups}
    for piece in sorted((p for ln in groups for p in pieces[id(ln)]), key=lambda p: p.x0):
        put(id(piece), (0, _slot(grid0, piece.x0, piece.top)[1]), piece.text)
    grid, refused = _placed(grid, texts)
    kept = [r for r in mine if where[id(r)] not in refused]
    took = [ln for ln in level if where[id(ln)] not in refused]
    took += [ln for ln in groups if all(where[id(p)] not in refused for p in pieces[id(ln)])]
    if not kept:
        return table, mine, []
    new_lines = [r.as_line() for r in kept]
    box = (min(table.x0, *(r.x0 for r in kept)), min(table.top, *(r.top for r in kept), *(ln.top for ln in took)),
           max(table.x1, *(r.x1 for r in kept)), table.bottom)
    headed = dataclasses.replace(table, lines=(*table.lines, *new_lines, *took), box=box, grid=grid,
                                 rendered=rows_to_markdown(grid_to_rows(grid)))
    return headed, [r for r in mine if where[id(r)] in refused], took


def turned_heads_to_tables(tables: list[TableBlock], rotated: list[RotatedLine], lines: list[Line], body: float,
                           s: PdfSettings) -> TurnedHeads:
    """Each table (rendered from a grid) with the turned labels that head its columns (`_may_head`)
    in its header slots; the rotated lines left; the flow lines left."""
    out: list[TableBlock] = []
    left, taken = list(rotated), set()
    for table in tables:
        grid = table.grid
        mine = [r for r in left if grid is not None and grid.cols and grid.rows and _may_head(r, grid, body, s)]
        if not mine:
            out.append(table)
            continue
        headed, refused, took = _headed(table, mine, [ln for ln in lines if id(ln) not in taken], body, s)
        out.append(headed)
        gone = {id(r) for r in mine} - {id(r) for r in refused}
        left = [r for r in left if id(r) not in gone]
        taken |= {id(ln) for ln in took}
    return TurnedHeads(out, left, [ln for ln in lines if id(ln) not in taken])
