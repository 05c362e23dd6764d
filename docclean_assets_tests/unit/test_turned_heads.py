"""Turned column labels (pdf/turned_heads.py) and the split of parallel rotated lines (pdf/watermark.py),
on inline grids, lines and chars."""
from __future__ import annotations

import math

from docclean_assets.extract.pdf.chars import Char
from docclean_assets.extract.pdf.lines import make_line
from docclean_assets.extract.pdf.model import Box, Line, Word
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.pdf.table_model import Cell, Grid, grid_to_rows, table_block
from docclean_assets.extract.pdf.turned_heads import turned_heads_to_tables
from docclean_assets.extract.pdf.watermark import RotatedLine, split_chars

S = PdfSettings()
BODY = 10.0
# a 3-column grid: stub column 100-200, value columns 200-260 and 260-320; rows from y 300, 14 pt each
COLS, ROWS = (100.0, 200.0, 260.0, 320.0), (300.0, 314.0, 328.0, 342.0)


def _grid(head: tuple[str, str, str]) -> Grid:
    cells = [Cell(0, k, 1, 1, t) for k, t in enumerate(head) if t]
    cells += [Cell(r, k, 1, 1, f"{r}.{k}" if k else f"row {r}") for r in (1, 2) for k in range(3)]
    return Grid(cells, 3, 3, Box(COLS[0], ROWS[0], COLS[-1], ROWS[-1]), "borderless", COLS, ROWS)


def _table(grid: Grid):
    line = make_line([Word("x", COLS[0], ROWS[0], COLS[0] + 5, ROWS[0] + 10, BODY, 1, 0, 0, BODY)])
    return table_block([line], 1, grid.bbox, "", grid.source, grid=grid)


def _turned(text: str, foot_x: float, foot_y: float, size: float = 9.0, angle: float = 90.0) -> RotatedLine:
    """A label rising from (foot_x, foot_y), 5 pt per char."""
    rise = 5 * len(text) * math.sin(math.radians(angle))
    return RotatedLine(text, foot_x - 5, foot_y - rise, foot_x + 5, foot_y, angle, angle % 90 != 0, size,
                       foot_x, foot_y)


def _line(text: str, x0: float, top: float) -> Line:
    return make_line([Word(text, x0, top, x0 + 6 * len(text), top + BODY, BODY, len(text), 0, 0, BODY)])


def test_a_label_turned_inside_an_empty_header_slot_fills_it_and_a_taken_slot_refuses_it() -> None:
    table = _table(_grid(("Station", "", "Depth")))
    labels = [_turned("Winter", 230.0, 312.0), _turned("Summer", 290.0, 312.0)]
    out = turned_heads_to_tables([table], labels, [], BODY, S)
    assert grid_to_rows(out.tables[0].grid)[0] == ["Station", "Winter", "Depth"]
    assert [r.text for r in out.rotated] == ["Summer"]  # "Depth" holds its slot: the label stays a rotated line
    assert out.tables[0].text.splitlines()[0] == "| Station | Winter | Depth |"


def test_labels_standing_above_a_table_make_a_header_row_with_the_stub_label_and_group_labels() -> None:
    table = _table(_grid(("", "", "")))
    # slanted labels whose feet stand 4 pt above the first row; "Site" level with the feet; "Season"
    # over both labels' columns, above their tops; a caption over the stub column stays in the flow
    labels = [_turned("Winter", 225.0, 296.0, angle=45.0), _turned("Summer", 285.0, 296.0, angle=45.0)]
    site, season, caption = _line("Site", 102.0, 287.0), _line("Season", 205.0, 262.0), _line("Table", 102.0, 262.0)
    out = turned_heads_to_tables([table], labels, [site, season, caption], BODY, S)
    rows = grid_to_rows(out.tables[0].grid)
    assert rows[:2] == [["", "Season", ""], ["Site", "Winter", "Summer"]] and rows[3][0] == "row 1"
    assert out.rotated == [] and out.rest == [caption]
    assert out.tables[0].top == season.top  # the table's frame grows to hold its new header rows


def test_a_group_label_turned_beside_the_rows_it_names_heads_the_first_of_them() -> None:
    """A label turned upright in the stub column, from the foot of the last row it names up into the
    first (its top there): it goes to the first row's slot, when empty, and no group row is sought."""
    grid = _grid(("", "Winter", "Summer"))
    grid = grid._replace(cells=[c for c in grid.cells if not (c.col == 0 and c.row == 1)])
    table = _table(grid)
    label = _turned("Coast", 150.0, 340.0)  # 25 pt tall: its top in row 1 (314-328), its foot in row 2
    season = _line("Season", 205.0, 270.0)
    out = turned_heads_to_tables([table], [label], [season], BODY, S)
    rows = grid_to_rows(out.tables[0].grid)
    assert [r[0] for r in rows] == ["", "Coast", "row 2"] and out.rest == [season]


def test_large_or_distant_rotated_lines_head_no_table() -> None:
    table = _table(_grid(("Station", "", "")))
    stamp = _turned("CONFIDENTIAL", 230.0, 312.0, size=3 * BODY, angle=45.0)  # a watermark's size
    far = _turned("Remark", 230.0, ROWS[0] - 2 * S.table_row_gap_em * BODY)  # well above the table
    margin = _turned("arXiv:2401.00001v2", 60.0, 330.0)  # beside the table, in the margin
    out = turned_heads_to_tables([table], [stamp, far, margin], [], BODY, S)
    assert out.tables == [table] and out.rotated == [stamp, far, margin]


def _diag(text: str, foot_x: float, top: float, seq: int) -> list[Char]:
    step = 5.0 / math.sqrt(2)
    return [Char(t, foot_x + k * step, top - k * step, foot_x + k * step + 5, top - k * step + 7, 7.0, "Times",
                 45.0, foot_x + k * step, 100 + k * step, 0.0, seq + k, 5.0) for k, t in enumerate(text)]


def test_parallel_slanted_labels_drawn_one_after_another_are_lines_of_their_own_with_their_feet() -> None:
    chars = _diag("Procedure", 262.0, 150.0, 0) + _diag("Completion", 286.0, 150.0, 20)
    rotated = sorted(split_chars(chars, 10.0, S).rotated, key=lambda r: r.foot_x)
    assert [r.text for r in rotated] == ["Procedure", "Completion"]
    assert [round(r.foot_x, 1) for r in rotated] == [264.5, 288.5] and all(r.foot_y == 157.0 for r in rotated)
    assert all(r.diagonal for r in rotated)
