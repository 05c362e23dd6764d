"""PDF tables: ruled and borderless tables as one Markdown `table` block, fallbacks, captions."""
from __future__ import annotations

import pytest
from reportlab.pdfgen import canvas

from bench.pdf_tables import measure as measure_table
from docclean_assets.extract.model import Block
from docclean_assets.extract.pdf.document import extract_pdf
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.model import Box
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.pdf.table_grid import cells_read_as_math, graphics_to_rules
from docclean_assets.extract.pdf.table_model import Cell, Grid, fallback_text, grid_to_fields, grid_to_markdown
from docclean_assets.extract.quality import document_figures
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.fixtures.build_tables import CASES as TABLE_CASES
from docclean_assets_tests.support.pdf import PAGE_H, make_pdf, para, words


def _text(c: canvas.Canvas, x: float, top: float, text: str, size: float = 10, font: str = "Helvetica") -> None:
    """Draw `text` with its top at `top` (top-left origin)."""
    c.setFont(font, size)
    c.drawString(x, PAGE_H - top - size * 0.8, text)


def _hline(c: canvas.Canvas, x0: float, x1: float, top: float) -> None:
    c.line(x0, PAGE_H - top, x1, PAGE_H - top)


def _vline(c: canvas.Canvas, x: float, top: float, bottom: float) -> None:
    c.line(x, PAGE_H - top, x, PAGE_H - bottom)


def _rows(md: str) -> list[list[str]]:
    """Cells of a Markdown table (separator row dropped)."""
    out = []
    for ln in md.splitlines():
        if set(ln) <= set("|-"):
            continue
        out.append([c.strip() for c in ln.strip().strip("|").split(" | ")])
    return out


def _tables(blocks: list[Block]) -> list[Block]:
    return [b for b in blocks if b.kind == "table"]


def _prose(blocks: list[Block]) -> set[str]:
    """The words of every block that is not a table."""
    return {w for b in blocks if b.kind != "table" for w in b.text.split()}


# ---------------------------------------------------------------- Markdown rendering (unit)


def test_grid_to_markdown_writes_merged_cells_once_and_escapes_pipes() -> None:
    grid = Grid(
        [Cell(0, 0, 1, 1, "Item"), Cell(0, 1, 1, 2, "Group"), Cell(1, 0, 2, 1, "A|B"),
         Cell(1, 1, 1, 1, "1"), Cell(1, 2, 1, 1, "two\nlines"), Cell(2, 1, 1, 1, "3")],
        nrows=3, ncols=3, bbox=Box(0, 0, 1, 1), source="ruled",
    )
    assert grid_to_markdown(grid) == (
        "| Item | Group |  |\n"
        "|---|---|---|\n"
        "| A\\|B | 1 | two lines |\n"
        "|  | 3 |  |"
    )
    assert fallback_text(3, ["a b", " ", "c"]) == "Table (3 columns could not be aligned):\na b\nc"


def test_a_dollar_sign_before_an_amount_moves_into_the_amounts_cell() -> None:
    cells = [Cell(0, 0, 1, 1, "Net sales"), Cell(0, 1, 1, 1, "$ 14,694 $"), Cell(0, 2, 1, 1, "14,544 $"),
             Cell(0, 3, 1, 1, "12,861"), Cell(1, 0, 1, 1, "Net loss"), Cell(1, 1, 1, 1, "$"),
             Cell(1, 2, 1, 1, "(1,058)"), Cell(1, 3, 1, 1, "12 €")]
    grid = Grid(cells, nrows=2, ncols=4, bbox=Box(0, 0, 1, 1), source="borderless")
    assert grid_to_markdown(grid).splitlines()[::2] == [
        "| Net sales | $ 14,694 | $ 14,544 | $ 12,861 |", "| Net loss |  | $ (1,058) | 12 € |"]


def test_a_merged_cell_heads_the_first_column_it_covers_that_stays_and_sign_columns_go() -> None:
    """A filing's "Year Ended" spans its "$" and amount columns; the "$" columns empty once their
    signs join the amounts, so the header heads the first amount column and they are dropped."""
    cells = [Cell(0, 1, 1, 4, "Year Ended"), Cell(1, 2, 1, 1, "2025"), Cell(1, 4, 1, 1, "2024"),
             Cell(2, 0, 1, 1, "Cost"), Cell(2, 1, 1, 1, "$"), Cell(2, 2, 1, 1, "178"), Cell(2, 3, 1, 1, "$"),
             Cell(2, 4, 1, 1, "141"), Cell(3, 0, 1, 1, "R&D"), Cell(3, 2, 1, 1, "3,423"), Cell(3, 4, 1, 1, "2,532")]
    grid = Grid(cells, nrows=4, ncols=5, bbox=Box(0, 0, 1, 1), source="borderless")
    assert grid_to_markdown(grid).splitlines() == [
        "|  | Year Ended |  |", "|---|---|---|", "|  | 2025 | 2024 |", "| Cost | $ 178 | $ 141 |",
        "| R&D | 3,423 | 2,532 |"]
    # a merged cell keeps its first slot when that column stays, empty or not; a column that never
    # held text (a ruled column whose header was lost) keeps its place
    lone = Grid([Cell(0, 0, 1, 2, "Title"), Cell(1, 0, 1, 1, "a"), Cell(1, 2, 1, 1, "b")], nrows=2, ncols=3,
                bbox=Box(0, 0, 1, 1), source="ruled")
    assert grid_to_markdown(lone).splitlines()[::2] == ["| Title |  |  |", "| a |  | b |"]


def test_rule_pieces_drawn_end_to_end_join_into_one_rule() -> None:
    black = (0, 0, 0, 255)
    pieces = [Graphic("line", 350.2, 400.9, 354.5, 402.0, black, None, 0.0),
              Graphic("line", 354.5, 400.9, 406.8, 402.0, black, None, 0.0),
              Graphic("line", 407.9, 401.0, 531.6, 402.0, black, None, 0.0),  # a 1 pt gap
              Graphic("line", 560.0, 401.0, 600.0, 402.0, black, None, 0.0),  # 28 pt away: another rule
              Graphic("line", 100.0, 300.0, 101.0, 390.0, black, None, 0.0),  # vertical
              Graphic("rect", 80.0, 421.6, 350.2, 430.0, (230, 230, 230, 255), None, 0.0)]  # shading
    assert [(round(r.x0, 1), round(r.x1, 1)) for r in graphics_to_rules(pieces, PdfSettings())] == [
        (350.2, 531.6), (560.0, 600.0)]


# ---------------------------------------------------------------- ruled table with a merged header


def _ruled(c: canvas.Canvas, top: float) -> float:
    """A 3x3 ruled table whose header cell 'Group' spans the two value columns; its outer frame is
    one stroked rectangle. Returns its bottom."""
    xs, ys = [100.0, 220.0, 320.0, 420.0], [top, top + 20, top + 40, top + 60]
    c.rect(xs[0], PAGE_H - ys[-1], xs[-1] - xs[0], ys[-1] - ys[0], stroke=1, fill=0)
    for y in ys[1:-1]:
        _hline(c, xs[0], xs[-1], y)
    _vline(c, xs[1], ys[0], ys[-1])
    _vline(c, xs[2], ys[1], ys[-1])  # no rule between the value columns in the header row
    cells = [("Item", 0, 0), ("Group", 0, 1), ("Apples", 1, 0), ("12", 1, 1), ("15", 1, 2),
             ("Pears", 2, 0), ("7", 2, 1), ("9", 2, 2)]
    for text, r, k in cells:
        _text(c, xs[k] + 5, ys[r] + 5, text)
    return ys[-1]


def test_ruled_table_with_merged_header_is_one_markdown_block() -> None:
    intro, outro = words("Intro", 40), words("Outro", 40)

    def draw(c: canvas.Canvas) -> None:
        top = para(c, intro, 72, 80, 468) + 14
        _text(c, 100, top, "Table 1: Fruit counts by orchard.")
        bottom = _ruled(c, top + 24)
        para(c, outro, 72, bottom + 20, 468)

    ex = extract_pdf(make_pdf(draw), Settings())
    tables = _tables(ex.blocks)
    assert len(tables) == 1
    table = tables[0]
    assert table.text == (
        "| Item | Group |  |\n"
        "|---|---|---|\n"
        "| Apples | 12 | 15 |\n"
        "| Pears | 7 | 9 |"
    )
    assert table.page == 1 and table.get_meta("table") == "ruled"
    assert table.bbox is not None and abs(table.bbox.x0 - 100) < 2 and abs(table.bbox.x1 - 420) < 2
    # In reading order between the paragraphs; its words are nowhere else; its frame is no call-out.
    kinds = [b.kind for b in ex.blocks if b.in_body]
    assert kinds.index("table") > kinds.index("caption")
    assert ex.blocks[-1].text.startswith("Outro")
    for w in ("Apples", "Pears", "Group", "15"):
        assert w not in _prose(ex.blocks)
    assert not any(b.kind == "callout" for b in ex.blocks)
    # The caption above points at the table.
    caption = next(b for b in ex.blocks if b.kind == "caption")
    assert caption.anchor == table.seq
    assert ex.report.tables == 1 and ex.report.tables_fallback == 0
    figures = document_figures(ex.blocks, ex.report)
    assert figures["tables"] == 1 and figures["tables_fallback"] == 0


# ---------------------------------------------------------------- borderless table


BORDERLESS = [
    ["Region", "Units", "Revenue", "Margin"],
    ["North", "1,204", "$3.1M", "12%"],
    ["South", "877", "$2.4M", "9%"],
    ["East", "1,530", "$4.0M", "14%"],
    ["West", "642", "$1.7M", "7%"],
]


def test_borderless_table_cells_from_aligned_whitespace() -> None:
    intro, outro = words("Before", 50), words("After", 50)

    def draw(c: canvas.Canvas) -> None:
        top = para(c, intro, 72, 80, 468) + 20
        for r, row in enumerate(BORDERLESS):
            for k, text in enumerate(row):
                _text(c, 90 + 110 * k, top + 16 * r, text, font="Helvetica-Bold" if r == 0 else "Helvetica")
        para(c, outro, 72, top + 16 * len(BORDERLESS) + 20, 468)

    ex = extract_pdf(make_pdf(draw), Settings())
    tables = _tables(ex.blocks)
    assert len(tables) == 1
    assert _rows(tables[0].text) == BORDERLESS
    assert tables[0].get_meta("table") == "borderless"
    prose = _prose(ex.blocks)
    for w in ("North", "1,530", "$1.7M", "Margin"):
        assert w not in prose
    body = [b for b in ex.blocks if b.in_body]
    assert body[0].text.startswith("Before") and body[1].kind == "table" and body[2].text.startswith("After")


def test_only_a_centred_header_over_a_rule_spanning_some_columns_takes_their_span() -> None:
    """Lone header lines over rules: "Year Ended" centred on a rule under the three value columns
    spans them (its text in the first); "Ours" centred on a rule under its neighbours' columns too,
    "Mean" centred on a rule across the whole table (a midrule) and "Group" set right of the middle
    of a rule under the value columns stay in their column."""
    intro, outro = words("Before", 50), words("After", 50)
    xs = [90, 230, 310, 390]
    value_rule, full_rule = (225, 440), (85, 440)

    def draw(c: canvas.Canvas) -> None:
        top = para(c, intro, 72, 80, 468) + 20
        # the head row's cmidrule is centred under "Ours", whose neighbours keep it to its column
        heads = [("Year Ended", None, value_rule), ("Joint", xs[3], (225, 415)), ("Mean", None, full_rule),
                 ("Group", xs[3], value_rule)]
        for r, (text, x, rule) in enumerate(heads):
            y = top + 16 * r
            centred = (rule[0] + rule[1] - c.stringWidth(text, "Helvetica", 10)) / 2 if rule else 0
            _text(c, centred if x is None else x, y, text)
            if r == 1:
                for k, head in enumerate(["Task", "Base", "Ours"]):
                    _text(c, xs[k], y, head)
            if rule:
                _hline(c, rule[0], rule[1], y + 12)
        for r, row in enumerate([["NER", "90.1", "91.2", "92.3"], ["PICO", "72.2", "72.4", "73.0"],
                                 ["REL", "83.6", "84.6", "85.1"], ["CLS", "70.9", "68.5", "71.4"]]):
            for k, text in enumerate(row):
                _text(c, xs[k], top + 16 * (r + 4), text)
        para(c, outro, 72, top + 16 * 8 + 20, 468)

    tables = _tables(extract_pdf(make_pdf(draw), Settings()).blocks)
    assert len(tables) == 1
    assert _rows(tables[0].text)[:4] == [["", "Year Ended", "", ""], ["Task", "Base", "Ours", "Joint"],
                                         ["", "Mean", "", ""], ["", "", "", "Group"]]


# Header words wider than the right-aligned figures under them, set flush right with them: each header
# starts left of the middle of the gap between its column's figures and the previous column's, so a
# boundary there would cut it. Three shapes: narrow and wide columns, three and four value columns.
FLUSH_RIGHT_HEADS = [
    ([150, 40, 55, 65], ["Practice", "Labs", "Findings", "Reproduced"],
     [["Bench-time records", "5", "32", "78%"], ["End-of-day records", "4", "22", "45%"],
      ["Weekly reconstruction", "3", "17", "35%"], ["Paper notebook", "7", "42", "57%"]]),
    ([120, 60, 70], ["Station", "Readings", "Exceedances"],
     [["Harbour Road", "412", "9"], ["Mill Lane", "388", "14"], ["North Quay", "405", "3"],
      ["Station Square", "377", "21"]]),
    ([110, 50, 50, 60, 70], ["Fund", "Assets", "Returns", "Volatility", "Drawdowns"],
     [["Growth", "8.1", "6.2", "14.0", "-21.5"], ["Income", "3.4", "4.1", "7.2", "-9.8"],
      ["Balanced", "5.6", "5.0", "10.1", "-15.2"], ["Cautious", "2.2", "3.3", "5.4", "-6.1"]]),
]


@pytest.mark.parametrize("widths, head, rows", FLUSH_RIGHT_HEADS, ids=["four", "three", "five"])
def test_a_wide_header_set_flush_with_right_aligned_figures_keeps_its_own_cells(widths, head, rows) -> None:
    # issue 36: data/samples/notebook-practices.pdf's Table 1 came out `| Practice | Labs Findings Reproduced | | |`
    intro, outro = words("Before", 50), words("After", 50)

    def draw(c: canvas.Canvas) -> None:
        top = para(c, intro, 72, 80, 468) + 20
        for r, row in enumerate([head, *rows]):
            x = 72.0
            for k, (w, text) in enumerate(zip(widths, row)):
                font = "Helvetica-Bold" if r == 0 else "Helvetica"
                left = x + 3 if k == 0 else x + w - 3 - c.stringWidth(text, font, 8.5)
                _text(c, left, top + 13 * r, text, size=8.5, font=font)
                x += w
        para(c, outro, 72, top + 13 * (len(rows) + 1) + 20, 468)

    [table] = _tables(extract_pdf(make_pdf(draw), Settings()).blocks)
    assert _rows(table.text) == [head, *rows]


def test_table_that_cannot_be_aligned_falls_back_to_its_text() -> None:
    # Five columns, each row filling two of them: 10 of 25 slots, too sparse for a grid.
    rows = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]

    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("Lead", 40), 72, 80, 468) + 20
        for r, cols in enumerate(rows):
            for k in cols:
                _text(c, 80 + 95 * k, top + 16 * r, f"v{r}{k}")
        para(c, words("Tail", 40), 72, top + 16 * len(rows) + 20, 468)

    ex = extract_pdf(make_pdf(draw), Settings())
    tables = _tables(ex.blocks)
    assert len(tables) == 1
    fb = tables[0]
    assert fb.get_meta("table") == "fallback"
    assert fb.text.splitlines() == ["Table (5 columns could not be aligned):", "v00 v01", "v11 v12", "v22 v23",
                                    "v33 v34", "v40 v44"]
    assert ex.report.tables == 1 and ex.report.tables_fallback == 1
    assert "v22" not in _prose(ex.blocks)


def test_two_column_prose_is_not_a_table() -> None:
    def draw(c: canvas.Canvas) -> None:
        for col_x, tag in ((72, "Left"), (316, "Right")):
            top = 80.0
            for k in range(4):
                top = para(c, words(f"{tag}{k}", 45), col_x, top, 224) + 12

    ex = extract_pdf(make_pdf(draw), Settings())
    assert ex.report.tables == 0 and not _tables(ex.blocks)
    assert ex.report.columns == 2


def test_narrow_columns_of_short_prose_lines_are_not_a_table() -> None:
    # Three narrow columns of prose: rows of several short lines, but every cell reads like prose.
    def draw(c: canvas.Canvas) -> None:
        for col_x, tag in ((72, "A"), (232, "B"), (392, "C")):
            para(c, words(tag, 120), col_x, 80, 140)

    ex = extract_pdf(make_pdf(draw), Settings())
    assert not _tables(ex.blocks)


def test_figure_caption_records_the_figure_box() -> None:
    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("Text", 40), 72, 80, 468) + 20
        c.rect(150, PAGE_H - top - 120, 200, 120, stroke=1, fill=0)  # plot frame
        c.line(170, PAGE_H - top - 100, 330, PAGE_H - top - 30)  # a curve in it
        _text(c, 150, top + 130, "Figure 2. Growth over time.")
        para(c, words("More", 40), 72, top + 160, 468)

    ex = extract_pdf(make_pdf(draw), Settings())
    caption = next(b for b in ex.blocks if b.kind == "caption")
    x0, y0, x1, y1 = (float(v) for v in caption.get_meta("figure_bbox").split(","))
    assert abs(x0 - 150) < 2 and abs(x1 - 350) < 2 and y1 < caption.bbox.y0


ALIGNED_EQUATIONS = [["a + b", "=", "c \u00d7 d", "(1)"], ["2a \u00b1 b", "=", "c \u00f7 2", "(2)"],
                     ["a \u00d7 c", "=", "b + d", "(3)"], ["b + c", "<", "a \u00d7 d", "(4)"]]


def test_aligned_equations_are_not_a_table() -> None:
    """A display of aligned equations has the aligned whitespace of a table but is mathematics:
    it stays in the flow, while a table of figures with signs still counts as data."""
    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("Before", 50), 72, 80, 468) + 20
        for r, row in enumerate(ALIGNED_EQUATIONS):
            for k, text in enumerate(row):
                _text(c, 150 + 80 * k, top + 16 * r, text)
        para(c, words("After", 50), 72, top + 16 * len(ALIGNED_EQUATIONS) + 20, 468)

    ex = extract_pdf(make_pdf(draw), Settings())
    assert _tables(ex.blocks) == []
    assert {"\u00f7", "\u00d7", "(4)"} <= _prose(ex.blocks)  # the equations stay in the flow


def test_math_reading_of_aligned_cells() -> None:
    s = Settings().pdf
    assert cells_read_as_math(["\uf8eb a", "b \uf8f6", "c", "d"], s)  # bracket pieces of a matrix
    assert cells_read_as_math(["x + y", "=", "3", "z \u2264 w"], s)
    assert not cells_read_as_math(["\u22123.2", "12 \u00b1 0.4", "< 0.05", "Total"], s)  # figures with signs
    assert not cells_read_as_math(["\u2206k", "Standard-Simplex", "X#Y", "Verklebung"], s)  # a symbol list


def _statement_row(c: canvas.Canvas, top: float, label: str, figures: tuple[str, ...], right: float = 470) -> None:
    """A statement row: its label at the left margin, figures right-aligned in 50 pt columns."""
    _text(c, 72, top, label)
    c.setFont("Helvetica", 10)
    for k, fig in enumerate(figures):
        c.drawRightString(right + 50 * k, PAGE_H - top - 8, fig)


STATEMENT = [  # (gap in points above the row: 4 within a section, 20 (2 em) before a subtotal or section)
    (0, "Years ended December 31", ("2023", "2022", "2021")),
    (4, "Net sales", ("14,694", "14,544", "12,861")),
    (4, "Cost of sales", ("(11,969)", "(11,724)", "(10,129)")),
    (20, "Gross profit", ("2,725", "2,820", "2,732")),
    (4, "Selling, general, and administrative expenses", ("(1,246)", "(1,284)", "(1,292)")),
    (4, "Adjustments to reconcile net income to the net cash of operations:", ()),
    (4, "Research and development expenses", ("(101)", "(96)", "(100)")),
    (20, "Income before income taxes and equity in income of affiliates", ("1,251", "1,115", "1,193")),
    (4, "Equity in income of affiliated companies", ("\u2014", "\u2014", "19")),
    (20, "Net income", ("1,058", "815", "951")),
]


def _draw_statement(c: canvas.Canvas, top: float) -> float:
    for gap, label, figures in STATEMENT:
        top += gap
        _statement_row(c, top, label, figures)
        top += 10
    return top


def test_a_statement_stays_one_table_across_its_subtotal_gaps_long_labels_and_section_labels() -> None:
    def draw(c: canvas.Canvas) -> None:
        top = _draw_statement(c, para(c, words("Lead", 40), 72, 80, 468) + 20)
        para(c, words("After", 60), 72, top + 20, 468)  # prose 2 em below: not the table's

    ex = extract_pdf(make_pdf(draw), Settings())
    tables = _tables(ex.blocks)
    assert len(tables) == 1
    rows = _rows(tables[0].text)
    assert [r[0] for r in rows] == [label for _, label, _ in STATEMENT]
    assert rows[3] == ["Gross profit", "2,725", "2,820", "2,732"] and rows[8][1:] == ["\u2014", "\u2014", "19"]
    prose = _prose(ex.blocks)
    assert not {"1,251", "1,058", "Gross", "Adjustments"} & prose and {"After", "Lead"} <= prose


def test_rows_below_a_wider_gap_in_other_columns_start_another_table() -> None:
    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("Lead", 40), 72, 80, 468) + 20
        for k in range(4):
            _statement_row(c, top + 14 * k, f"Segment {k}", ("10", "20", "30"))
        top += 14 * 4 + 20  # 2 em below, figures ending 35 pt further right: another table
        for k in range(4):
            _statement_row(c, top + 14 * k, f"Region {k}", ("1", "2", "3"), right=505)

    tables = _tables(extract_pdf(make_pdf(draw), Settings()).blocks)
    assert [[r[0] for r in _rows(t.text)] for t in tables] == [[f"Segment {k}" for k in range(4)],
                                                              [f"Region {k}" for k in range(4)]]


# (gap in points above the row, x of its label, label, figures): 10 pt rows 14 pt apart, figures
# right-aligned at 490 and 590; section labels set at the margin 6 pt left of the row labels, one
# section 2 em below the subtotal before it
BALANCE_SHEET = [
    (0, 66, "Assets", ()),
    (4, 72, "Current assets:", ()),
    (4, 78, "Cash and cash equivalents", ("5,794", "4,225")),
    (4, 78, "Inventories, net", ("32", "43")),
    (4, 72, "Property and equipment, net", ("253", "282")),
    (4, 72, "Total assets", ("6,079", "4,550")),
    (20, 66, "Liabilities and Shareholders' Equity", ()),
    (4, 72, "Current liabilities:", ()),
    (4, 78, "Accounts payable", ("292", "253")),
    (4, 72, "Total liabilities", ("292", "253")),
    (4, 66, "Commitments and contingencies (Note 9)", ()),
    (4, 66, "Shareholders' equity:", ()),
]
WRAPPED_LABEL = ("Common stock, $0.01 par value, 100 shares authorized, 50 and 48 issued at",
                 "December 31, 2023 and 2022, respectively")
AFTER_WRAP = [(4, 72, "Retained earnings", ("5,787", "4,297")), (4, 72, "Total liabilities and equity", ("6,079", "4,550"))]


def _sheet_rows(c: canvas.Canvas, rows: list[tuple[float, float, str, tuple[str, ...]]], top: float) -> float:
    """Draw balance-sheet rows from `top`; the top of the next row."""
    for gap, x, label, figures in rows:
        top += gap
        _text(c, x, top, label)
        for k, fig in enumerate(figures):
            c.drawRightString(490 + 100 * k, PAGE_H - top - 8, fig)
        top += 10
    return top


def _draw_balance_sheet(c: canvas.Canvas) -> None:
    """A filing's balance sheet: a centred title and unit, the dates heading the figures as one text
    run, outdented section labels, and a label whose figures stand on its wrapped second line."""
    for k, line in enumerate(("ACME CORP CONSOLIDATED BALANCE SHEETS", "(Amounts in millions)")):
        c.setFont("Helvetica", 10)
        c.drawCentredString(300, PAGE_H - 80 - 12 * k - 8, line)
    _text(c, 452, 112, "Dec. 31, 2023   Dec. 31, 2022")
    # the label's second line 10.5 pt under its first (its leading: closer than the rows' 14 pt pitch)
    wrapped = [(4, 72, WRAPPED_LABEL[0], ()), (0.5, 76, WRAPPED_LABEL[1], ("\u2014", "\u2014"))]
    _sheet_rows(c, [*BALANCE_SHEET, *wrapped, *AFTER_WRAP], 126.0)


def test_a_balance_sheet_is_one_table_with_its_dates_section_labels_and_wrapped_labels() -> None:
    ex = extract_pdf(make_pdf(_draw_balance_sheet), Settings())
    tables = _tables(ex.blocks)
    assert len(tables) == 1, [b.text for b in ex.blocks]
    rows = _rows(tables[0].text)
    # the dates, set as one run of text, head the two figure columns, not the label column
    assert rows[0] == ["", "Dec. 31, 2023", "Dec. 31, 2022"]
    labels = [label for _, _, label, _ in BALANCE_SHEET] + [" ".join(WRAPPED_LABEL)] + [a[2] for a in AFTER_WRAP]
    assert [r[0] for r in rows[1:]] == labels
    assert rows[labels.index(" ".join(WRAPPED_LABEL)) + 1][1:] == ["\u2014", "\u2014"]
    assert rows[labels.index("Accounts payable") + 1][1:] == ["292", "253"]
    # the centred title and unit stay out of the table (they head it from above)
    prose = [b.text for b in ex.blocks if b.kind != "table"]
    assert any("BALANCE SHEETS" in t for t in prose) and any("(Amounts in millions)" in t for t in prose)


def test_a_lead_in_sentence_at_the_margin_after_a_subtotal_starts_the_next_table() -> None:
    """Short section labels set at the margin continue a statement; a sentence set there is the
    next table's lead-in, even when that table keeps the same columns."""
    lead = "Maturities of operating lease liabilities for the next five years are as follows:"

    def draw(c: canvas.Canvas) -> None:
        leases = [(4, 72, f"Lease item {k}", ("10", "20")) for k in range(4)]
        years = [(4, 72, str(2024 + k), ("5", "6")) for k in range(4)]
        _sheet_rows(c, [*leases, (20, 66, lead, ()), *years], 100.0)

    blocks = extract_pdf(make_pdf(draw), Settings()).blocks
    assert [[r[0] for r in _rows(t.text)] for t in _tables(blocks)] == [
        [f"Lease item {k}" for k in range(4)], [str(2024 + k) for k in range(4)]]
    assert lead in [b.text for b in blocks if b.kind != "table"]


def test_nested_section_labels_continue_a_statement_a_heading_over_column_heads_does_not() -> None:
    """A balance sheet's equity section under four one-cell labels (at the margin, centred over the
    labels, indented) stays in the table; a table below three one-cell lines that opens with its
    column heads in the same columns is another table."""
    equity = [(4, 72, "Retained earnings", ("5,787", "4,297")), (4, 72, "Total equity", ("5,787", "4,297"))]

    def draw(c: canvas.Canvas) -> None:
        top = _sheet_rows(c, BALANCE_SHEET[:6], 100.0)
        top = _sheet_rows(c, [(4, 66, "Commitments and contingencies (Note 9)", ())], top)
        c.setFont("Helvetica", 10)
        c.drawCentredString(250, PAGE_H - top - 4 - 8, "Shareholders' Equity")  # centred over the labels
        top = _sheet_rows(c, [(14, 72, "Acme shareholders' equity:", ()), (4, 78, "Ordinary shares:", ()),
                              *equity], top)
        top = _sheet_rows(c, [(20, 66, "Segment information", ()), (4, 66, "Revenue by region", ()),
                              (4, 66, "(Amounts in millions)", ())], top)
        for k, year in enumerate(("2023", "2022")):  # the next table's column heads, over its figures
            c.drawRightString(490 + 100 * k, PAGE_H - top - 4 - 8, year)
        _sheet_rows(c, [(4, 72, f"Region {k}", ("10", "20")) for k in range(4)], top + 14)

    tables = _tables(extract_pdf(make_pdf(draw), Settings()).blocks)
    assert [r[0] for r in _rows(tables[0].text)] == [
        *(label for _, _, label, _ in BALANCE_SHEET[2:6]), "Commitments and contingencies (Note 9)",
        "Shareholders' Equity", "Acme shareholders' equity:", "Ordinary shares:", "Retained earnings", "Total equity"]
    assert len(tables) == 2 and [r[0] for r in _rows(tables[1].text)][-4:] == [f"Region {k}" for k in range(4)]


def test_a_label_wrapped_over_one_cell_lines_is_no_run_of_section_labels() -> None:
    """Three one-cell lines whose second starts in lower case are one label wrapped in a narrow
    column, not nested section labels: the rows under them do not join the table above."""
    wrapped = ["Accrual of estimated costs", "of share-based awards to", "be granted in future"]

    def draw(c: canvas.Canvas) -> None:
        top = _sheet_rows(c, [(4, 72, f"Grant item {k}", ("10", "20")) for k in range(4)], 100.0)
        _sheet_rows(c, [(4, 72, line, ()) for line in wrapped] + [(4, 72, "periods", ("30", "40"))], top)

    tables = _tables(extract_pdf(make_pdf(draw), Settings()).blocks)
    assert [r[0] for r in _rows(tables[0].text)] == [f"Grant item {k}" for k in range(4)]


# ---------------------------------------------------------------- forms: fields, not tables

ADDRESS_FORM = [["ACME CORP", ""], ["(Exact name of registrant as specified in its charter)", ""],
                ["Delaware", "95-4803544"], ["(State or other jurisdiction of", "(I.R.S. Employer"],
                ["incorporation or organization)", "Identification No.)"], ["1 Main Street", ""],
                ["Springfield, IL", "62701"], ["(Address of principal executive offices)", "(Zip Code)"]]


def test_a_form_grid_reads_as_caption_value_fields_with_wrapped_captions_and_values() -> None:
    assert grid_to_fields(ADDRESS_FORM) == [
        "Exact name of registrant as specified in its charter: ACME CORP",
        "State or other jurisdiction of incorporation or organization: Delaware",
        "I.R.S. Employer Identification No.: 95-4803544",
        "Address of principal executive offices: 1 Main Street Springfield, IL", "Zip Code: 62701"]
    # rows before the first field that are no value of it stay, as lines
    lead = [["For the quarterly period ended", "Commission file"], ["March 31, 2021", "number 1-5805"]]
    assert grid_to_fields(lead + ADDRESS_FORM)[:3] == [
        "For the quarterly period ended Commission file", "March 31, 2021 number 1-5805",
        "Exact name of registrant as specified in its charter: ACME CORP"]


def test_check_boxes_join_their_labels_beside_or_in_a_row_above() -> None:
    beside = [["Large accelerated filer", "\u2612", "Accelerated filer", "\u2610"],
              ["Non-accelerated filer", "\u2610 Smaller reporting company", "\u2610"]]
    above = [["", "\u2612", "", "\u2610"], ["Large accelerated filer", "", "Accelerated filer", ""],
             ["", "\u2610", "", "\u2610"], ["Non-accelerated filer", "", "Smaller reporting company", ""]]
    expected = ["Large accelerated filer \u2612", "Accelerated filer \u2610", "Non-accelerated filer \u2610",
                "Smaller reporting company \u2610"]
    assert grid_to_fields(beside) == expected and grid_to_fields(above) == expected


def test_real_tables_are_no_forms() -> None:
    units = [["", "(in millions)", ""], ["", "2023", "2022"], ["Net sales", "(1,200)", "1,100"], ["Cost", "(900)", "800"]]
    ticks = [["", "Basic", "Pro"], ["Export", "\u2713", "\u2713"], ["Sync", "", "\u2713"], ["Support", "", "\u2713"]]
    classes = [["Title of each class", "Trading Symbol(s)", "Exchange"], ["Common Stock", "ACME", "NYSE"]]
    one_field = [["Delaware", "95-4803544"], ["(State)", "(I.R.S. No.)"], ["Revenue", "1,200"], ["Cost", "900"]]
    for rows in (units, ticks, classes, one_field):
        assert grid_to_fields(rows) is None, rows


def test_a_cover_page_form_is_a_paragraph_of_fields_and_its_securities_table_stays_a_table() -> None:
    def draw(c: canvas.Canvas) -> None:
        top = 80.0
        for r, (left, right) in enumerate(ADDRESS_FORM):
            _text(c, 150, top + 16 * r, left)
            _text(c, 420, top + 16 * r, right)
        top += 16 * len(ADDRESS_FORM) + 30
        for r, row in enumerate(BORDERLESS):
            for k, text in enumerate(row):
                _text(c, 90 + 110 * k, top + 16 * r, text)

    ex = extract_pdf(make_pdf(draw), Settings())
    forms = [b for b in ex.blocks if b.get_meta("form")]
    assert len(forms) == 1 and forms[0].kind == "paragraph"
    # single-cell rows above the first two-cell row start no borderless run: the name stays a paragraph
    assert forms[0].text == ("State or other jurisdiction of incorporation or organization: Delaware; "
                             "I.R.S. Employer Identification No.: 95-4803544; Address of principal executive "
                             "offices: 1 Main Street Springfield, IL; Zip Code: 62701")
    assert [_rows(t.text) for t in _tables(ex.blocks)] == [BORDERLESS] and ex.report.tables == 1


@pytest.mark.parametrize("case", TABLE_CASES, ids=lambda c: c.name)
def test_generated_tables_keep_every_cell(case) -> None:
    """Ruled, booktabs and borderless tables with a cell spanning two columns, a label wrapped onto two
    lines (joined to its row, not a row of its own), a header written as one text run, a statement's
    "Year Ended" over its date columns, and column labels turned upright or slanted (under group
    labels) (fixtures/build_tables.py): every cell in its row and column (bench/pdf_tables.py)."""
    found, extracted, true, text = measure_table(case)
    assert found == extracted == true, text
