"""PDF regions (issue 5): call-out panels, sidebars, margin notes, pull quotes and reversed text, each
drawn with reportlab and asserted by kind, reading order and anchor."""
from __future__ import annotations

from reportlab.pdfgen import canvas

from docclean_assets.extract.model import Block
from docclean_assets.extract.pdf.document import extract_pdf
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.support.pdf import COL_W, LEFT, PAGE_H, RIGHT, magazine, make_pdf, para, words


def _extract(draw) -> tuple[list[Block], object]:
    ex = extract_pdf(make_pdf(draw), Settings())
    return ex.blocks, ex.report


def _box(c: canvas.Canvas, x: float, top: float, w: float, h: float, fill=(0.9, 0.9, 0.9), stroke=None) -> None:
    """A filled (and optionally ruled) rectangle given by its top-left corner in top-left points."""
    c.saveState()
    c.setFillColorRGB(*fill)
    if stroke:
        c.setStrokeColorRGB(*stroke)
    c.rect(x, PAGE_H - top - h, w, h, fill=1, stroke=1 if stroke else 0)
    c.restoreState()


def _one(blocks: list[Block], tag: str) -> Block:
    hits = [b for b in blocks if tag in b.text]
    assert len(hits) == 1, [(b.kind, b.text[:40]) for b in hits]
    return hits[0]


def _kinds_with(blocks: list[Block], tag: str) -> list[str]:
    return [b.kind for b in blocks if tag in b.text]


# ---------------------------------------------------------------- call-out panels


def test_callout_inside_a_column_is_its_own_block_after_the_paragraph_above() -> None:
    box_text = words("Boxed", 40)

    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("LeftOne", 60), LEFT, 80, COL_W) + 14
        _box(c, LEFT, top, COL_W, 80, stroke=(0.2, 0.2, 0.2))
        para(c, box_text, LEFT + 8, top + 10, COL_W - 16, size=9)
        para(c, words("LeftTwo", 60), LEFT, top + 94, COL_W)
        rtop = para(c, words("RightOne", 60), RIGHT, 80, COL_W) + 14
        para(c, words("RightTwo", 60), RIGHT, rtop, COL_W)

    blocks, report = _extract(draw)
    callout = _one(blocks, "Boxed")
    assert callout.kind == "callout" and callout.in_body  # body set apart, its own block
    assert "alpha0" in callout.text and "juliet39" in callout.text.replace("\n", " ")
    # never concatenated into prose: no paragraph holds a word of the box
    assert not any("Boxed" in b.text for b in blocks if b.kind == "paragraph")
    assert sum(b.text.count("juliet39") for b in blocks) == 5  # once in the box, once in each 60-word paragraph
    order = [b.text.split()[0] for b in blocks if b.kind in ("paragraph", "callout")]
    assert order == ["LeftOne", "Boxed", "LeftTwo", "RightOne", "RightTwo"]
    assert blocks[callout.anchor].text.startswith("LeftOne")
    assert callout.get_meta("region") == "box"
    assert callout.page == 1 and callout.bbox.x0 <= LEFT + 1 and callout.bbox.x1 >= LEFT + COL_W - 1
    assert report.callouts == 1


def test_callout_straddling_both_columns_at_the_foot_follows_the_last_column() -> None:
    def draw(c: canvas.Canvas) -> None:
        for x, tag in ((LEFT, "Left"), (RIGHT, "Right")):
            top = para(c, words(tag + "One", 50), x, 80, COL_W) + 14
            para(c, words(tag + "Two", 50), x, top, COL_W)
        _box(c, LEFT, 560, RIGHT + COL_W - LEFT, 90)
        para(c, words("Straddle", 70), LEFT + 10, 572, RIGHT + COL_W - LEFT - 20, size=9)

    blocks, report = _extract(draw)
    callout = _one(blocks, "Straddle")
    assert callout.kind == "callout"
    order = [b.text.split()[0] for b in blocks if b.kind in ("paragraph", "callout")]
    # the columns read whole (the box is not mistaken for a third column or spliced into one) ...
    assert order == ["LeftOne", "LeftTwo", "RightOne", "RightTwo", "Straddle"]
    # ... and the box hangs off the last block above it
    assert blocks[callout.anchor].text.startswith("RightTwo")
    assert report.callouts == 1 and report.unresolved_regions == 0


def test_box_with_a_single_line_is_not_a_callout() -> None:
    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("Body", 80), LEFT, 80, 468) + 14
        _box(c, LEFT, top, 468, 20)
        para(c, "Highlighted single line inside a shaded strip", LEFT + 6, top + 5, 450)
        para(c, words("After", 80), LEFT, top + 34, 468)

    blocks, report = _extract(draw)
    assert _one(blocks, "Highlighted").kind != "callout"
    assert report.callouts == 0


def test_tiled_cell_backgrounds_of_a_table_are_no_panels_but_a_box_set_apart_is() -> None:
    # A table rendered from HTML (SEC filings): every cell painted, zebra rows, cells edge to edge;
    # a row's label wraps over two lines, so its cell box alone is the size of a two-line panel.
    rows = [("Net sales", "14,694", "14,544"), ("Cost of sales", "(11,969)", "(11,724)"),
            ("Changes in operating assets and liabilities, excluding the effect of acquisitions and", "", ""),
            ("Trade receivables", "93", "(272)"), ("Inventories", "248", "(626)")]
    lefts, widths = (LEFT, LEFT + 260, LEFT + 360), (260, 100, 100)

    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("Body", 60), LEFT, 80, 468) + 14
        for r, row in enumerate(rows):
            h = 26 if r == 2 else 14
            for x, w, text in zip(lefts, widths, row):
                _box(c, x, top, w, h, fill=(0.8, 0.93, 1.0) if r % 2 == 0 else (1, 1, 1))
                if r == 2 and x == LEFT:
                    para(c, text, x + 2, top + 1, 200)
                elif text:
                    para(c, text, x + 2, top + 2, w - 4)
            top += h
        _box(c, LEFT, top + 20, 468, 40)  # a call-out: a box on its own
        para(c, words("Boxed", 30), LEFT + 6, top + 25, 450)

    blocks, report = _extract(draw)
    assert _kinds_with(blocks, "Changes in operating") != ["callout"]
    assert report.callouts == 1 and _one(blocks, "Boxed").kind == "callout"


def test_white_text_on_a_dark_panel_is_kept_in_its_panel_and_flagged() -> None:
    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("Before", 70), LEFT, 80, 468) + 14
        _box(c, LEFT, top, 468, 60, fill=(0.1, 0.15, 0.3))
        c.setFillColorRGB(1, 1, 1)
        para(c, words("Reversed", 30), LEFT + 10, top + 10, 448)
        c.setFillColorRGB(0, 0, 0)
        para(c, words("After", 70), LEFT, top + 76, 468)

    blocks, report = _extract(draw)
    panel = _one(blocks, "Reversed")
    assert panel.kind == "callout" and panel.drop_reason is None
    assert int(panel.get_meta("reversed_chars", "0")) > 50
    assert "reversed_text" in report.flags
    assert blocks[panel.anchor].text.startswith("Before")
    # the light text is not mistaken for a watermark
    assert all(b.drop_reason != "watermark" for b in blocks)


# ---------------------------------------------------------------- sidebars (no drawn box)


def test_sidebar_band_starting_mid_page_is_a_callout() -> None:
    def draw(c: canvas.Canvas) -> None:
        top = 80.0
        for i in range(4):
            top = para(c, words(f"Main{i}", 55), LEFT, top, 300) + 12
        para(c, words("Aside", 60), 400, 330, 140, size=8, leading=11)

    blocks, report = _extract(draw)
    side = _one(blocks, "Aside")
    assert side.kind == "callout" and side.get_meta("region") == "sidebar"
    assert not any("Aside" in b.text for b in blocks if b.kind == "paragraph")
    mains = [b for b in blocks if b.kind == "paragraph" and b.text.startswith("Main")]
    assert [b.text.split()[0] for b in mains] == ["Main0", "Main1", "Main2", "Main3"]
    assert side.anchor is not None and blocks[side.anchor].text.startswith("Main")
    assert side.seq == blocks[side.anchor].seq + 1
    assert report.callouts == 1


# ---------------------------------------------------------------- margin notes


def test_margin_notes_on_both_outer_margins_link_to_their_paragraph() -> None:
    def draw(c: canvas.Canvas) -> None:
        for page, (note_x, note) in enumerate(((28.0, "Clause 4.2"), (530.0, "Rev. B"))):
            top = 90.0
            for i in range(3):
                start = top
                top = para(c, words(f"P{page}x{i}", 60), 108, top, 396) + 14
                if i == 1:
                    para(c, note, note_x, start + 2, 60, size=7)
            c.showPage()

    blocks, report = _extract(draw)
    for note, para_tag, page in (("Clause 4.2", "P0x1", 1), ("Rev. B", "P1x1", 2)):
        nb = _one(blocks, note)
        assert nb.kind == "margin_note" and nb.page == page
        assert blocks[nb.anchor].text.startswith(para_tag)
        assert nb.seq == blocks[nb.anchor].seq + 1
        assert note not in blocks[nb.anchor].text  # not spliced
    assert report.margin_notes == 2


def test_short_indented_paragraph_is_not_a_margin_note() -> None:
    def draw(c: canvas.Canvas) -> None:
        top = para(c, words("Wide", 70), LEFT, 80, 468) + 14
        top = para(c, "Signed and dated", LEFT + 40, top, 200) + 14
        para(c, words("Closing", 70), LEFT, top, 468)

    blocks, report = _extract(draw)
    assert _one(blocks, "Signed").kind == "paragraph"
    assert report.margin_notes == 0


# ---------------------------------------------------------------- pull quotes


def test_verbatim_pull_quote_is_routed_with_the_offset_it_repeats() -> None:
    ex = extract_pdf(magazine("\u201cThe harbour council voted to keep the lighthouse lit through every "
                               "winter storm\u201d"), Settings())
    blocks = ex.blocks
    pq = _one(blocks, "\u201cThe harbour council voted to keep")
    source = next(b for b in blocks if b.text.startswith("Minutes record"))
    assert pq.kind == "pull_quote" and not pq.in_body
    assert pq.anchor == source.seq
    offset = int(pq.get_meta("matched_offset"))
    assert (source.orig_text or source.text)[offset:].startswith("the harbour council")
    assert pq.get_meta("match") == "exact"
    assert ex.report.pull_quotes == 1
    # the body still reads the sentence once
    body_text = " ".join(b.text for b in blocks if b.in_body)
    assert body_text.count("lighthouse lit") == 1


def test_abridged_pull_quote_with_an_ellipsis_is_matched() -> None:
    ex = extract_pdf(magazine("\u201cThe harbour council voted \u2026 through every winter storm\u201d"), Settings())
    pq = _one(ex.blocks, "through every winter storm\u201d")
    assert pq.kind == "pull_quote"
    assert pq.get_meta("match") != "exact"
    assert ex.blocks[pq.anchor].text.startswith("Minutes record")
    assert ex.report.pull_quotes == 1


def test_display_text_that_matches_nothing_stays_in_the_body() -> None:
    ex = extract_pdf(magazine("Storm season brings new rules for every small harbour"), Settings())
    display = _one(ex.blocks, "Storm season brings")
    assert display.kind in ("heading", "paragraph") and display.in_body
    assert ex.report.pull_quotes == 0


def test_section_heading_named_by_a_cross_reference_is_not_a_pull_quote() -> None:
    for heading in ("Dispositions of Real Property Interests Abroad", "4.2 Dispositions of real property held abroad"):
        named = heading.split(" ", 1)[1] if heading[0].isdigit() else heading

        def draw(c: canvas.Canvas, heading=heading, named=named) -> None:
            para(c, "Instructions for the Annual Return", LEFT, 40, 468, size=26, font="Helvetica-Bold")
            top = para(c, f"{words('Intro', 40)} For sales of land see {named} on the next page.",
                       LEFT, 90, 468) + 18
            top = para(c, heading, LEFT, top, 468, size=14, font="Helvetica-Bold") + 6
            para(c, words("Rules", 60), LEFT, top, 468)

        ex = extract_pdf(make_pdf(draw), Settings())
        head = next(b for b in ex.blocks if b.text.startswith(heading[:12]))
        assert head.kind == "heading", heading
        assert ex.report.pull_quotes == 0


def test_report_sample_box_and_pull_quote_are_routed() -> None:
    """The generated two-column report: its shaded box is one call-out after the paragraph above it,
    its pull quote is routed (anchored to the paragraph it repeats) and read once in the body."""
    from docclean_assets_tests.fixtures import build

    ex = extract_pdf(build.two_column_report_pdf(), Settings())
    blocks = ex.blocks
    box = _one(blocks, build.REPORT_CALLOUT_TITLE[:20])
    assert box.kind == "callout" and box.get_meta("region") == "box"
    assert build.REPORT_CALLOUT[:40] in box.text.replace("\n", " ")
    assert blocks[box.anchor].kind == "paragraph" and box.seq == blocks[box.anchor].seq + 1
    pulls = [b for b in blocks if b.kind == "pull_quote"]
    assert len(pulls) == 1 and ex.report.pull_quotes == 1
    source = blocks[pulls[0].anchor]
    offset = int(pulls[0].get_meta("matched_offset"))
    assert (source.orig_text or source.text)[offset:offset + 20] == build.REPORT_PULL_QUOTE[:20]
