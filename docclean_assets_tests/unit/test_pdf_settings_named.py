"""The thresholds named in issue 15 are wired: changing one PdfSettings field changes what its stage
decides on a small inline fixture (so no field is a dead copy of the literal it replaced). One or
more per module: blocks, lines, watermark, chars/pdfium, columns, order, tables, table_grid,
graphics."""
from __future__ import annotations

import io
import math
from dataclasses import replace

import pypdfium2 as pdfium
from reportlab.pdfgen import canvas

from docclean_assets.extract.pdf.blocks import lines_to_blocks
from docclean_assets.extract.pdf.model import Box, PBlock, Word
from docclean_assets.extract.pdf.chars import Char, PageContent, modal_size, pdf_to_pages
from docclean_assets.extract.pdf.columns import _column_ok
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.lines import make_line, words_to_lines
from docclean_assets.extract.pdf.order import blocks_to_reading_order
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.pdf.table_grid import lines_to_borderless_tables
from docclean_assets.extract.pdf.tables import cells_to_grid
from docclean_assets.extract.pdf.watermark import split_chars

S = PdfSettings()


def _word(text: str, x0: float, top: float, x1: float, size: float = 10.0, row: int = 0, bold: int = 0) -> Word:
    return Word(text, x0, top, x1, top + size, size, len(text), bold, row, size)


def _char(text: str, x0: float, top: float, size: float = 10.0, angle: float = 0.0,
          ox: float | None = None, oy: float | None = None, seq: int = 0) -> Char:
    return Char(text, x0, top, x0 + 0.6 * size, top + size, size, "Helvetica", angle,
                x0 if ox is None else ox, -(top + 0.8 * size) if oy is None else oy, 0.0, seq, 0.6 * size)


# ---- blocks.py


def test_bold_line_min_fraction_decides_a_run_in_heading() -> None:
    head = make_line([_word("Heading", 100, 100, 150, bold=4)])  # 4 of 7 chars bold
    body = make_line([_word("regular text " * 3, 100, 112, 400, row=1)])
    assert len(lines_to_blocks([head, body], 1, S)) == 1  # 0.57 < 0.8: not a bold line
    assert len(lines_to_blocks([head, body], 1, replace(S, bold_line_min_fraction=0.5))) == 2


def test_outdent_max_em_decides_a_hanging_item() -> None:
    lines = [make_line([_word("x" * 40, 100, 100 + 12 * k, 400, row=k)]) for k in range(2)]
    lines.append(make_line([_word("x" * 40, 75, 124, 400, row=2)]))  # 2.5 em left of the block
    assert len(lines_to_blocks(lines, 1, S)) == 2
    assert len(lines_to_blocks(lines, 1, replace(S, outdent_max_em=3.0))) == 1


# ---- lines.py


def test_raised_max_chars_decides_whether_a_superscript_joins_its_line() -> None:
    sup = _word("1", 163.5, 97, 166.5, size=6.0, row=0)
    main = [_word("alphabet", 100, 100, 140, row=1), _word("soup", 143, 100, 163, row=1)]
    joined = words_to_lines([sup, *main], S)
    assert [ln.text for ln in joined] == ["alphabet soup1"]
    assert len(words_to_lines([sup, *main], replace(S, raised_max_chars=0))) == 2


# ---- chars.py (sizes) and pdfium.py (colours, read through chars._style)


def test_size_step_and_fallback_decide_the_modal_size() -> None:
    chars = [_char("a", 0, 0, size=9.8), _char("b", 0, 0, size=9.8), _char("c", 0, 0, size=10.2)]
    assert modal_size(chars, S) == 10.0  # all three round to 10 at half points
    assert math.isclose(modal_size(chars, replace(S, size_step_pt=0.1)), 9.8)  # two of 9.8, one of 10.2
    assert modal_size([], S) == 10.0
    assert modal_size([], replace(S, body_size_fallback_pt=12.0)) == 12.0


def _pdf_with_tinted_text() -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(300, 200))
    c.setFillColorRGB(200 / 255, 200 / 255, 230 / 255)  # channels 30 apart: 0.12 of the range
    c.setFont("Helvetica", 12)
    c.drawString(50, 100, "tinted")
    c.save()
    return buf.getvalue()


def _page(data: bytes, s: PdfSettings) -> PageContent:
    """The chars and graphics of a one-page PDF, read under `s`."""
    pdf = pdfium.PdfDocument(data)
    try:
        (content,) = list(pdf_to_pages(pdf, [], s))
    finally:
        pdf.close()
    return content


def _lightness(s: PdfSettings) -> set[float]:
    return {round(c.lightness, 3) for c in _page(_pdf_with_tinted_text(), s).chars}


def test_grey_max_channel_spread_fraction_decides_what_counts_as_grey() -> None:
    assert _lightness(S) == {-1.0}  # chromatic at the default 0.1
    assert _lightness(replace(S, grey_max_channel_spread_fraction=0.15)) == {round(630 / 765, 3)}


# ---- watermark.py


def test_rotated_run_max_step_deg_decides_where_a_rotated_run_ends() -> None:
    step = 7.0 / math.sqrt(2)
    chars = [_char(t, 100 + k * step, 100 - k * step, angle=45.0 if k < 4 else 50.0,
                   ox=100 + k * step, oy=100 + k * step, seq=k) for k, t in enumerate("DRAFTCOP")]
    assert len(split_chars(chars, 10.0, S).rotated) == 2  # 5 degrees apart: two runs
    merged = split_chars(chars, 10.0, replace(S, rotated_run_max_step_deg=10.0)).rotated
    assert [r.text for r in merged] == ["DRAFTCOP"]


# ---- columns.py


def test_column_edge_tolerance_decides_which_blocks_a_column_holds() -> None:
    blocks = [PBlock([make_line([_word(f"w{i}", 100.5 + 20 * i, 100 + 12 * k, 115 + 20 * i, row=k)
                                 for i in range(5)])], 1) for k in range(10)]
    # Blocks start 0.5 pt left of the column's x-range [101, 300]: inside only with a tolerance.
    assert _column_ok(blocks, 101.0, 300.0, 400.0, 100.0, 120.0, S)
    assert not _column_ok(blocks, 101.0, 300.0, 400.0, 100.0, 120.0, replace(S, column_edge_tolerance_pt=0.0))


def test_column_short_min_lines_decides_whether_a_short_column_at_the_top_is_a_column() -> None:
    # a last page: six lines at the top of the right column, beside a full left column of 40 lines
    right = [PBlock([make_line([_word(f"w{i}", 310 + 40 * i, 100 + 12 * k, 340 + 40 * i, row=k)
                                for i in range(5)])], 1) for k in range(6)]
    assert _column_ok(right, 305.0, 520.0, 470.0, 100.0, 480.0, S)  # 72 of 480 pt: short, yet a column
    assert not _column_ok(right, 305.0, 520.0, 470.0, 100.0, 480.0, replace(S, column_short_min_lines=7))
    # the same lines starting half-way down are no last column
    lower = [PBlock([make_line([_word(f"w{i}", 310 + 40 * i, 300 + 12 * k, 340 + 40 * i, row=k)
                                for i in range(5)])], 1) for k in range(6)]
    assert not _column_ok(lower, 305.0, 520.0, 470.0, 100.0, 480.0, S)


# ---- order.py


def test_row_align_em_decides_which_blocks_share_a_row() -> None:
    def order(s: PdfSettings) -> list[str]:
        right = PBlock([make_line([_word("right", 300, 100, 400)])], 1)
        left = PBlock([make_line([_word("left", 100, 104, 200, row=1)])], 1)  # 0.4 em lower
        return [b.text for b in blocks_to_reading_order([right, left], [], s)[0]]

    assert order(S) == ["left", "right"]
    assert order(replace(S, row_align_em=0.2)) == ["right", "left"]


# ---- tables.py


_GRID = [Box(100.0, 100.0, 200.0, 120.0), Box(200.0, 100.0, 300.0, 120.0),
         Box(100.0, 120.0, 200.0, 140.0), Box(200.0, 120.0, 300.0, 140.0)]


def test_table_ruled_min_filled_cells_decides_panel_or_table() -> None:
    chars = [_char("x", 110, 105), _char("y", 210, 125)]  # text in two cells, on the diagonal
    found = cells_to_grid(_GRID, chars, S)
    assert found is not None and found[0].nrows == 2 and found[0].ncols == 2
    assert cells_to_grid(_GRID, chars, replace(S, table_ruled_min_filled_cells=3)) is None


def test_table_min_rows_counts_rows_holding_text() -> None:
    """Card frames a few points apart snap into a grid of two rows; text in one of them is no table."""
    chars = [_char("x", 110, 105), _char("y", 210, 105)]  # both cells of the first row
    assert cells_to_grid(_GRID, chars, S) is None
    found = cells_to_grid(_GRID, chars, replace(S, table_min_rows=1))
    assert found is not None and found[0].nrows == 2


# ---- table_grid.py


def test_table_curve_min_aspect_fraction_decides_what_a_drawing_is() -> None:
    lines = [make_line([_word(t, x, 100 + 12 * r, x + 30, row=r)])
             for r in range(4) for t, x in (("a", 100), ("1", 200))]  # four rows of two aligned cells
    path = Graphic("path", 100, 100, 230, 146, None, (0, 0, 0, 255), 1.0)  # stroked, short side 0.35 of long

    def tables(s: PdfSettings, graphics: list[Graphic]) -> int:
        return len(lines_to_borderless_tables(lines, [], graphics, 1, 10.0, s).tables)

    assert tables(S, []) == 1
    assert tables(S, [path]) == 0  # a curve over the whole box: the labels of a plot
    assert tables(replace(S, table_curve_min_aspect_fraction=0.5), [path]) == 1  # now a flat mark


# ---- graphics.py


def _pdf_with_skewed_box() -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(300, 300))
    c.setFillColorRGB(0.2, 0.2, 0.2)
    p = c.beginPath()
    p.moveTo(100, 100)
    p.lineTo(200, 100.004)  # one corner 0.004 pt off
    p.lineTo(200, 150)
    p.lineTo(100, 150)
    p.close()
    c.drawPath(p, fill=1, stroke=0)
    c.save()
    return buf.getvalue()


def test_rect_corner_decimals_decides_box_or_path() -> None:
    kinds = [_page(_pdf_with_skewed_box(), s).graphics[0].kind for s in (S, replace(S, rect_corner_decimals=3))]
    assert kinds == ["rect", "path"]


# ---- figures.py


def test_figure_label_reach_em_decides_which_text_beside_a_drawing_is_its_label() -> None:
    from docclean_assets.extract.pdf.figures import Drawing, blocks_to_figure_text

    plot = Drawing(100.0, 100.0, 300.0, 200.0, vector=True)
    tick = PBlock([make_line([_word("30", 290, 218, 300, size=7)])], 1)  # 18 pt under the axis: 1.8 body em
    prose = PBlock([make_line([_word(f"w{i}", 100 + 30 * i, 300, 125 + 30 * i, row=1) for i in range(6)])], 1)
    assert [b.text for b in blocks_to_figure_text([tick, prose], [plot], 10.0, S).asides] == ["30"]
    assert blocks_to_figure_text([tick, prose], [plot], 10.0, replace(S, figure_label_reach_em=1.0)).asides == []
    # a picture's labels are set on it: text beside a picture stays in the flow
    picture = plot._replace(vector=False)
    assert blocks_to_figure_text([tick, prose], [picture], 10.0, S).asides == []
