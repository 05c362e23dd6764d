"""PDF stages return new values and leave their inputs as they were; the orchestrator's typed trace
keeps what each stage produced (pdf/trace.py)."""
from __future__ import annotations

import dataclasses

import pytest

from docclean_assets.extract.layout import Gutter
from docclean_assets.extract.pdf.blocks import lines_to_blocks
from docclean_assets.extract.pdf.model import Box, PBlock, Word
from docclean_assets.extract.pdf.captions import captions_to_links
from docclean_assets.extract.pdf.chars import PageInfo
from docclean_assets.extract.pdf.document import extract_pdf
from docclean_assets.extract.pdf.footnotes import page_footnotes
from docclean_assets.extract.pdf.graphics import Graphic
from docclean_assets.extract.pdf.kinds import blocks_to_kinds
from docclean_assets.extract.pdf.lines import make_line
from docclean_assets.extract.pdf.order import blocks_to_reading_order
from docclean_assets.extract.pdf.pullquotes import pages_to_pull_quotes
from docclean_assets.extract.pdf.regions import (
    blocks_to_margin_notes,
    blocks_to_sidebars,
    graphics_to_panels,
    place_asides,
)
from docclean_assets.extract.pdf.settings import PdfSettings
from docclean_assets.extract.pdf.table_model import table_block
from docclean_assets.extract.pdf.tables import graphics_to_edges
from docclean_assets.extract.pdf.trace import STAGES, PageTrace, PdfTrace
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.fixtures.build import two_column_report_pdf

S = PdfSettings()
BODY = 10.0
INFO = PageInfo(1, 612.0, 792.0)
CHAR_W = 5.0  # points per char of the inline words


def _line(text: str, x0: float, top: float, size: float = BODY, bold: bool = False, first_size: float | None = None):
    words, x = [], x0
    for w in text.split():
        words.append(Word(w, x, top, x + CHAR_W * len(w), top + size, size, len(w), len(w) if bold else 0, 0,
                          first_size if first_size is not None and not words else size))
        x += CHAR_W * (len(w) + 1)
    return make_line(words)


def _block(lines_text: list[str], x0: float, top: float, size: float = BODY, **kw) -> PBlock:
    """A block of one line per text, `1.2 * size` apart."""
    bold = kw.pop("bold", False)
    first_size = kw.pop("first_size", None)
    lines = [_line(t, x0, top + 1.2 * size * i, size, bold, first_size if i == 0 else None)
             for i, t in enumerate(lines_text)]
    return PBlock(lines, 1, **kw)


def _state(blocks: list[PBlock]) -> list[tuple]:
    """Everything a stage could change in a block, anchors and parts by identity."""
    return [(id(b), b.kind, b.level, b.drop_reason, b.column, b.extra, id(b.anchor_to), tuple(map(id, b.parts or ())),
             b.x0, b.top, b.x1, b.bottom, tuple(b.lines)) for b in blocks]


PROSE = "the committee measured every sample twice and recorded each result in the shared notebook"


def test_kinds_returns_relabelled_copies_and_leaves_its_input():
    title = _block(["A Study of Notebooks"], 72, 60, size=20)
    head = _block(["Methods"], 72, 200, size=14)
    bold = _block(["Results in brief"], 72, 260, bold=True)
    caption = _block(["Figure 1: the samples"], 72, 300)
    item = _block(["\u2022 one item of a list"], 72, 340)
    body = _block([PROSE, PROSE], 72, 400)
    page = [title, head, bold, caption, item, body]
    before = _state(page)
    [out] = blocks_to_kinds([(INFO, page)], BODY, S)
    assert _state(page) == before and all(b.kind == "paragraph" for b in page)
    assert [(b.kind, b.level) for b in out] == [("title", None), ("heading", 1), ("heading", 2), ("caption", None),
                                                ("list_item", None), ("paragraph", None)]
    assert out[-1] is body and all(o is not b for o, b in zip(out[:-1], page[:-1]))


def test_a_three_line_bold_title_is_a_heading_a_four_line_bold_block_is_not():
    # a financial statement's centred title: company, statement, period, each on its own line
    statement = _block(["Acme Corporation and Subsidiaries", "Consolidated Balance Sheet", "At December 31"],
                       200, 100, bold=True)
    labels = _block(["Participant:", "Grant Date:", "Number of Shares:", "Fee Type:"], 72, 300, bold=True)
    body = _block([PROSE, PROSE], 72, 400)
    [out] = blocks_to_kinds([(INFO, [statement, labels, body])], BODY, S)
    assert [b.kind for b in out] == ["heading", "paragraph", "paragraph"]


def test_a_line_wholly_in_parentheses_is_no_heading_however_it_is_set():
    title = _block(["Annual Report"], 72, 50, size=20)
    unit = _block(["(In millions)"], 72, 100, size=14)
    field = _block(["(Exact name of registrant as specified in its charter)"], 72, 140, bold=True)
    notes = _block(["(Dollars in Millions) (Note 1)"], 72, 180, bold=True)
    named = _block(["Results (2023)"], 72, 220, size=14)
    body = _block([PROSE, PROSE], 72, 400)
    [out] = blocks_to_kinds([(INFO, [title, unit, field, notes, named, body])], BODY, S)
    assert [b.kind for b in out] == ["title", "paragraph", "paragraph", "paragraph", "heading", "paragraph"]


def test_a_bold_title_over_its_unit_note_in_regular_weight_is_a_heading():
    def titled(last: str, top: float) -> PBlock:
        bold = _block(["American Water Works Company, Inc. and Subsidiary Companies",
                       "Consolidated Statements of Changes in Shareholders' Equity"], 72, top, bold=True)
        note = _line(last, 72, top + 24.0)
        return PBlock((*bold.lines, note), 1)

    statement = titled("(In millions, except per share data)", 100)  # 155 chars, 77% bold
    prose = titled("were restated for the merger", 200)  # no unit note: a bold lead-in over prose
    rule = _block(["______________________"], 72, 300, size=14)  # a rule set large
    body = _block([PROSE, PROSE], 72, 400)
    [out] = blocks_to_kinds([(INFO, [statement, prose, rule, body])], BODY, S)
    assert [b.kind for b in out] == ["heading", "paragraph", "paragraph", "paragraph"]


def test_a_main_document_set_smaller_than_its_exhibits_keeps_its_bold_headings():
    """A 10-K at 9 pt leads 14 pages of exhibits at 11 pt (which set the document's body): its bold
    9 pt section heads are headings. The same bold 9 pt line is no heading among the exhibits, nor
    when the 9 pt pages are too few to be a document, nor in a 9 pt stretch after the 11 pt body
    took hold (notes in small print between sections, where bold lines are table labels)."""
    def kinds(bodies: list[float | None]) -> list[str]:
        pages = [(PageInfo(i + 1, 612.0, 792.0), [_block(["Impairment of Assets"], 72, 100, size=9.0, bold=True),
                                                   _block([PROSE, PROSE], 72, 200, size=sz or 11.0)])
                 for i, sz in enumerate(bodies)]
        return [page[0].kind for page in blocks_to_kinds(pages, 11.0, S, bodies)]

    lead = S.part_body_min_lead_pages
    main = kinds([9.0] * lead + [11.0] * 14)
    assert main == ["heading"] * lead + ["paragraph"] * 14
    assert kinds([9.0] * (lead - 1) + [11.0] * 14) == ["paragraph"] * (lead - 1 + 14)
    assert kinds([11.0] * 6 + [9.0] * lead + [11.0] * 6) == ["paragraph"] * (lead + 12)
    # a cover page with too little text of its own (None) belongs to the document it leads
    assert kinds([None, *[9.0] * lead, *[11.0] * 14]) == ["heading"] * (lead + 1) + ["paragraph"] * 14


def test_bold_headings_in_mixed_case_sit_under_bold_headings_in_capitals():
    """At body size, a bold heading in capitals ranks above one in mixed case, as a larger size would;
    without capitals among them, bold headings keep one level; size headings keep their rank."""
    def levels(*texts: str) -> list[int | None]:
        big = _block(["Annual Report"], 72, 60, size=16)  # the title
        section = _block(["Results"], 72, 80, size=13)  # a size heading: level 1
        heads = [_block([t], 72, 120 + 40 * i, bold=True) for i, t in enumerate(texts)]
        body = _block([PROSE, PROSE], 72, 400)
        [out] = blocks_to_kinds([(INFO, [big, section, *heads, body])], BODY, S)
        assert [b.kind for b in out] == ["title", "heading", *["heading"] * len(texts), "paragraph"]
        return [b.level for b in out[1:-1]]

    assert levels("ITEM 7. MANAGEMENT'S DISCUSSION", "Overview", "Note 2. Net Income") == [1, 2, 3, 3]
    assert levels("Overview", "Note 2. Net Income") == [1, 2, 2]
    # one word in capitals is as often an acronym ("COVID-19" heading a risk factor): no step
    assert levels("COVID-19", "Overview") == [1, 2, 2]
    # a unit note in parentheses does not make a statement title in capitals mixed case
    statement = "CONSOLIDATED BALANCE SHEETS (In thousands)"
    assert levels("REPORT OF INDEPENDENT AUDITORS", statement, "Assets") == [1, 2, 2, 3]


def test_a_clause_ending_in_a_semicolon_is_no_heading_however_it_is_set():
    clause = _block(["(i) the Excluded Books and Records;"], 72, 100, bold=True)
    last = _block(["(ii) all rights under the Agreements; and"], 72, 130, bold=True)
    big = _block(["grants;"], 72, 160, size=14)
    head = _block(["Section 2.03. Procedures for Assets"], 72, 200, bold=True)
    body = _block([PROSE, PROSE], 72, 400)
    [out] = blocks_to_kinds([(INFO, [clause, last, big, head, body])], BODY, S)
    assert [b.kind for b in out] == ["list_item", "list_item", "paragraph", "heading", "paragraph"]


def test_footnotes_returns_relabelled_copies_and_leaves_its_input():
    body = _block([PROSE, PROSE, PROSE], 72, 500)
    note = _block(["1 A note on the samples of the committee"], 72, 545, size=8)
    page = [body, note]
    before = _state(page)
    out = page_footnotes(page, INFO, BODY, S)
    assert _state(page) == before and note.kind == "paragraph"
    assert [b.kind for b in out] == ["paragraph", "footnote"] and out[0] is body and out[1] is not note


def test_captions_link_copies_and_leave_their_input():
    caption = _block(["Table 1: Results of the samples"], 100, 100, kind="caption")
    table = table_block([_line("a b", 100, 120)], 1, Box(100.0, 120.0, 400.0, 200.0), "| a | b |", "ruled")
    figure = _block(["Figure 2: The plot"], 100, 420, kind="caption")
    plot = Graphic("path", 110.0, 300.0, 380.0, 410.0, None, (0, 0, 0, 255), 1.0)
    page = [caption, table, figure]
    before = _state(page)
    out = captions_to_links(page, [plot], BODY, S)
    assert _state(page) == before and caption.anchor_to is None and figure.extra == ()
    assert out[0] is not caption and out[0].anchor_to is table and out[1] is table
    assert out[2] is not figure and out[2].extra == (("figure_bbox", "110.0,300.0,380.0,410.0"),)


def test_pull_quotes_returns_relabelled_copies_and_leaves_its_input():
    body = _block([PROSE, PROSE], 72, 400)
    quote = _block(["every sample twice and recorded each result"], 72, 100, size=20)
    page = [quote, body]
    before = _state(page)
    result = pages_to_pull_quotes([page], BODY, S)
    assert _state(page) == before and quote.kind == "paragraph"
    assert result.count == 1
    [[q, b]] = result.pages
    assert q.kind == "pull_quote" and q.anchor_to is body and b is body and ("match", "exact") in q.extra


def test_margin_notes_leave_the_flow_as_copies():
    prose = [_block([PROSE[:60]] * 3, 100, 100 + 60 * k) for k in range(3)]
    note = _block(["see p. 4"], 20, 110)
    page = [*prose, note]
    before = _state(page)
    split = blocks_to_margin_notes(page, BODY, S)
    assert _state(page) == before and note.kind == "paragraph"
    assert split.flow == prose and [b.kind for b in split.asides] == ["margin_note"]
    assert split.asides[0] is not note and ("side", "left") in split.asides[0].extra


def test_sidebars_leave_the_flow_and_their_input():
    wide = [_block([PROSE[:60]] * 4, 50, 100 + 60 * k) for k in range(4)]  # 300 pt measure
    narrow = "four words per line"
    side = [_block([narrow] * 2, 400, 100 + 40 * k) for k in range(3)]  # 95 pt wide, 104 pt tall
    page = [*wide, *side]
    before = _state(page)
    split = blocks_to_sidebars(page, BODY, S)
    assert _state(page) == before
    assert split.flow == wide and len(split.asides) == 1 and split.asides[0].parts == tuple(side)
    assert ("region", "sidebar") in split.asides[0].extra


def _card(title: str, x0: float, top: float) -> PBlock:
    return _block([title, "a short description of the card"], x0, top, kind="callout")


@pytest.mark.parametrize("numbers, expected", [
    (("1.", "2.", "3.", "4."), ["1.", "2.", "3.", "4."]),  # numbered across the rows
    (("1.", "3.", "2.", "4."), ["1.", "2.", "3.", "4."]),  # numbered down the columns
    (("A", "B", "C", "D"), ["A", "C", "B", "D"]),  # unnumbered: read like text columns, down then across
])
def test_a_grid_of_cards_is_read_in_its_numbering_else_down_each_column(numbers, expected):
    body = _block(["An introduction above the cards, long enough to be body text."], 50, 50)
    tl, tr, bl, br = numbers  # top-left, top-right, bottom-left, bottom-right
    # cards 155 pt wide (50-205 pt); the bottom-right frame overlaps its neighbour by 1.5 pt
    cards = [_card(f"{tl} Euler", 50, 100), _card(f"{tr} Pythagoras", 206, 100),
             _card(f"{bl} Newton", 50, 200), _card(f"{br} Maxwell", 203.5, 198)]
    assert max(c.x1 for c in cards[:3:2]) - cards[3].x0 == 1.5
    out = place_asides([body], cards, S)
    assert [b.text.split()[0] for b in out[1:]] == expected


def test_place_asides_anchors_copies():
    body = _block([PROSE], 72, 100)
    callout = PBlock([_line("a box of text", 72, 130)], 1, kind="callout")
    before = _state([body, callout])
    out = place_asides([body], [callout], S)
    assert _state([body, callout]) == before and callout.anchor_to is None
    assert out[0] is body and out[1] is not callout and out[1].anchor_to is body


def test_reading_order_sets_columns_on_copies():
    left = _block([PROSE[:40]] * 3, 50, 100)
    right = _block([PROSE[:40]] * 3, 320, 100)
    page = [right, left]
    before = _state(page)
    ordered, ncols, _ = blocks_to_reading_order(page, [Gutter(260.0, 310.0, 0.0)], S)
    assert _state(page) == before and left.column == right.column == 0
    assert ncols == 2 and [b.column for b in ordered] == [0, 1]
    assert ordered[0] is left and ordered[1] is not right and ordered[1].lines == right.lines


@pytest.fixture(scope="module")
def report_trace() -> PdfTrace:
    trace = extract_pdf(two_column_report_pdf(), Settings()).trace
    assert isinstance(trace, PdfTrace)
    return trace


def test_trace_keeps_what_each_stage_produced(report_trace):
    page = report_trace.page(1)
    assert isinstance(page, PageTrace) and page.info.number == 1 and page.chars and page.words and page.lines
    # Blocks recorded before kinds carry no kinds from typography: later stages never changed them.
    assert {b.kind for b in page.blocks} <= {"paragraph", "table", "margin_note"}
    assert "title" in {b.kind for b in page.kinds} and "heading" in {b.kind for b in page.kinds}
    assert "footnote" not in {b.kind for b in page.order} and "footnote" in {b.kind for b in page.footnotes}
    # The footnotes stage anchors each note, and only notes, to the block of that stage holding its marker.
    anchored = [b for b in page.footnotes if b.anchor_to is not None]
    assert anchored and all(b.kind == "footnote" for b in anchored)
    assert all(any(b.anchor_to is h for h in page.footnotes) and b.anchor_to.unmarked for b in anchored)
    assert [b for b in page.asides if b.anchor_to is not None] and page.callouts
    assert len(page.gutters) == 1 and set(page.tables) == set(page.ruled_tables + page.borderless_tables)
    # Each page's last record is what became its blocks.
    ext = extract_pdf(two_column_report_pdf(), Settings())
    assert [b.text for b in ext.blocks if b.page == 1] == [b.text for b in ext.trace.page(1).pull_quotes]


def test_trace_records_every_drawable_stage(report_trace):
    page = report_trace.page(1)
    assert set(STAGES) >= {"chars", "words", "lines", "gutters", "blocks", "kinds", "order", "tables", "pull_quotes"}
    for name in STAGES:
        assert isinstance(getattr(page, name), list), name
    with pytest.raises(KeyError):
        report_trace.page(99)


def test_invisible_paint_is_a_setting_read_by_panels_and_table_rules():
    near_white = (250, 250, 250, 255)  # relative luminance 0.98
    box = Graphic("rect", 72, 100, 300, 200, near_white, None, 0.0)
    rule = Graphic("line", 72, 300, 300, 300.5, None, near_white, 0.5)
    assert graphics_to_panels([box], INFO, BODY, S) == [] and graphics_to_edges([rule, box], S) == []
    seen = PdfSettings(invisible_min_luminance=0.99)
    assert len(graphics_to_panels([box], INFO, BODY, seen)) == 1
    assert len(graphics_to_edges([rule, box], seen)) == 5  # the rule, and the box's four sides


def test_blocks_are_frozen_and_relabel_keeps_the_frame():
    [blk] = lines_to_blocks([_line(PROSE[:40], 72, 100), _line(PROSE[40:80], 72, 112)], 1, S)
    assert isinstance(blk.lines, tuple) and len(blk.lines) == 2
    for name, value in (("kind", "heading"), ("x0", 0.0), ("lines", ()), ("anchor_to", None)):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(blk, name, value)
    table = table_block(list(blk.lines), 1, Box(60.0, 90.0, 400.0, 130.0), "| a |", "ruled")
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.rendered = "| b |"
    moved = table.relabel(column=2)
    assert (moved.x0, moved.top, moved.x1, moved.bottom) == (60.0, 90.0, 400.0, 130.0)
    assert moved.text == "| a |" and moved.extra == (("table", "ruled"),) and table.column == 0
    assert moved != table and moved is not table  # compared by identity
