"""Stage 2a: ruled tables, recovered from the rules and box edges drawn on the page.

The page's graphics (pdf/graphics.py) become pdfplumber edges; pdfplumber's own table algorithms
then merge them, find their intersections, the cells those bound and the tables those cells form
(`merge_edges`, `edges_to_intersections`, `intersections_to_cells`, `cells_to_tables`). Each table's
cells are placed on the grid of its distinct cell edges, so a cell spanning two grid columns keeps
its span. The chars inside the cells leave the flow and the table becomes one `table` block.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

from pdfplumber.table import cells_to_tables, edges_to_intersections, intersections_to_cells, merge_edges

from docclean_assets.extract.pdf.model import Box, Line, join_lines
from docclean_assets.extract.pdf.chars import Char
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.lines import chars_to_words, words_to_lines
from docclean_assets.extract.pdf.regions import visible
from docclean_assets.extract.pdf.table_model import Cell, Grid, TableBlock, grid_block
from docclean_assets.extract.pdf.settings import PdfSettings


class RuledTables(NamedTuple):
    """The page's ruled tables as blocks, and the chars left for the flow."""

    tables: list[TableBlock]
    rest: list[Char]


def _edge(x0: float, top: float, x1: float, bottom: float, orientation: str) -> dict:
    return {"x0": x0, "x1": x1, "top": top, "bottom": bottom, "width": x1 - x0, "height": bottom - top,
            "orientation": orientation, "object_type": "line"}


def graphics_to_edges(graphics: list[Graphic], s: PdfSettings) -> list[dict]:
    """pdfplumber edges from the visibly painted rules (one edge along their length) and boxes
    (their four sides)."""
    out: list[dict] = []
    for g in graphics:
        if not (visible(g.fill, s) or visible(g.stroke, s)):
            continue
        if g.kind == "line":
            if g.x1 - g.x0 >= g.bottom - g.top:
                y = (g.top + g.bottom) / 2
                out.append(_edge(g.x0, y, g.x1, y, "h"))
            else:
                x = (g.x0 + g.x1) / 2
                out.append(_edge(x, g.top, x, g.bottom, "v"))
        elif g.kind == "rect":
            out += [
                _edge(g.x0, g.top, g.x1, g.top, "h"), _edge(g.x0, g.bottom, g.x1, g.bottom, "h"),
                _edge(g.x0, g.top, g.x0, g.bottom, "v"), _edge(g.x1, g.top, g.x1, g.bottom, "v"),
            ]
    return out


def edges_to_cell_groups(edges: list[dict], s: PdfSettings) -> list[list[Box]]:
    """Cell boxes grouped into tables by pdfplumber's algorithms (top-left points)."""
    if not edges:
        return []
    merged = merge_edges(edges, s.table_snap_tolerance_pt, s.table_snap_tolerance_pt,
                         s.table_join_tolerance_pt, s.table_join_tolerance_pt)
    merged = [e for e in merged if (e["x1"] - e["x0"] if e["orientation"] == "h" else e["bottom"] - e["top"])
              >= s.table_edge_min_length_pt]
    tol = s.table_intersection_tolerance_pt
    cells = intersections_to_cells(edges_to_intersections(merged, tol, tol))
    return [[Box(*cell) for cell in t] for t in cells_to_tables(cells)]


def _coords(values: list[float], tol: float) -> list[float]:
    """Distinct sorted coordinates, those within `tol` of the previous one folded into it."""
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > tol:
            out.append(v)
    return out


def _index(coords: list[float], v: float) -> int:
    return min(range(len(coords)), key=lambda i: abs(coords[i] - v))


def _cell_text(chars: list[Char], s: PdfSettings) -> tuple[str, list[Line]]:
    lines = words_to_lines(chars_to_words(chars, s), s)
    return join_lines([ln.text for ln in lines]), lines


# Signs a filing sets at the left edge of an amount's cell, apart from the amount at its right edge.
CURRENCY_SIGNS = frozenset("$\u20ac\u00a3\u00a5")


def _side_by_side(lines: list[Line], s: PdfSettings) -> bool:
    """Whether two lines of one cell share a text row: the cell hides an unruled column boundary
    (shaded cells that rule only part of a table leave such holes). A currency sign set apart from
    its amount is no such line."""
    share = s.table_side_by_side_min_overlap_fraction
    lines = [ln for ln in lines if ln.text.strip() not in CURRENCY_SIGNS]
    return any(min(a.bottom, b.bottom) - max(a.top, b.top) > share * min(a.bottom - a.top, b.bottom - b.top)
               for i, a in enumerate(lines) for b in lines[i + 1:])


def cells_to_grid(boxes: list[Box], chars: list[Char], s: PdfSettings) -> tuple[Grid, list[Line], list[Char]] | None:
    """The grid of one table's cell boxes with the text of the chars centred in each cell, its
    lines, and the chars it holds; None when it is too small, leaves too many chars of its frame
    outside its cells, or a cell holds lines side by side (a partial grid of shaded cells, not the
    table's ruling: its text is left to the borderless stage)."""
    tol = s.table_snap_tolerance_pt
    xs = _coords([v for b in boxes for v in (b.x0, b.x1)], tol)
    ys = _coords([v for b in boxes for v in (b.top, b.bottom)], tol)
    nrows, ncols = len(ys) - 1, len(xs) - 1
    if nrows < s.table_min_rows or ncols < s.table_min_cols:
        return None
    frame = Box(xs[0], ys[0], xs[-1], ys[-1])
    slots: dict[tuple[int, int], int] = {}
    spans = []
    for k, (x0, top, x1, bottom) in enumerate(boxes):
        c0, c1 = _index(xs, x0), _index(xs, x1)
        r0, r1 = _index(ys, top), _index(ys, bottom)
        spans.append((r0, c0, max(1, r1 - r0), max(1, c1 - c0)))
        for r in range(r0, max(r0 + 1, r1)):
            for c in range(c0, max(c0 + 1, c1)):
                slots.setdefault((r, c), k)
    members: list[list[Char]] = [[] for _ in boxes]
    inside = outside = 0
    for ch in chars:
        cx, cy = (ch.x0 + ch.x1) / 2, (ch.top + ch.bottom) / 2
        if not (frame.x0 <= cx <= frame.x1 and frame.top <= cy <= frame.bottom):
            continue
        k = slots.get((bisect_right(ys, cy) - 1, bisect_right(xs, cx) - 1))
        if k is None:
            outside += 1
        else:
            inside += 1
            members[k].append(ch)
    if inside == 0 or inside < s.table_ruled_min_cell_share * (inside + outside):
        return None
    cells, lines, held = [], [], []
    for (r, c, rs, cs), mem in zip(spans, members, strict=True):
        text, cell_lines = _cell_text(sorted(mem, key=lambda ch: ch.seq), s) if mem else ("", [])
        if _side_by_side(cell_lines, s):
            return None
        cells.append(Cell(r, c, rs, cs, text))
        lines += cell_lines
        held += mem
    if sum(1 for c in cells if c.text) < s.table_ruled_min_filled_cells:  # one box of text is a panel
        return None
    # The size minimum counts rows and columns holding text: boxes drawn a few points apart (cards
    # with drop shadows) snap into a grid whose extra rows and columns are empty slivers.
    if len({c.row for c in cells if c.text}) < s.table_min_rows or len({c.col for c in cells if c.text}) < s.table_min_cols:
        return None
    return Grid(cells, nrows, ncols, frame, "ruled", tuple(xs), tuple(ys)), lines, held


def page_to_ruled_tables(chars: list[Char], graphics: list[Graphic], page: int, s: PdfSettings) -> RuledTables:
    """The page's ruled tables as `table` blocks, and the chars outside them."""
    groups = edges_to_cell_groups(graphics_to_edges(graphics, s), s)
    tables: list[TableBlock] = []
    taken: set[int] = set()
    for boxes in groups:
        found = cells_to_grid(boxes, [c for c in chars if id(c) not in taken], s)
        if found is None:
            continue
        grid, lines, held = found
        taken.update(id(c) for c in held)
        tables.append(grid_block(lines, page, grid))
    if not tables:
        return RuledTables([], chars)
    return RuledTables(tables, [c for c in chars if id(c) not in taken])
