"""PDF backend: fixtures drawn with reportlab here, plus a sweep over the shared real-PDF corpus."""
from __future__ import annotations

from pathlib import Path

import pytest
from reportlab.pdfgen import canvas

from docclean_assets.extract.api import ExtractionError, extract_document
from docclean_assets.extract.continuations import part_boxes
from docclean_assets.extract.model import Block
from docclean_assets.extract.normalize import normalize_blocks
from docclean_assets.extract.pdf.document import extract_pdf
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.support.corpus import CORPUS, corpus_files, corpus_params, stale_expectations
from docclean_assets_tests.support.pdf import PAGE_H, PAGE_W, make_pdf, para, words


def extract(data: bytes) -> list[Block]:
    return extract_pdf(data, Settings()).blocks


def body(blocks: list[Block]) -> list[Block]:
    return [b for b in blocks if b.in_body]


# ---------------------------------------------------------------- layout and reading order


def test_two_columns_with_full_width_title_and_abstract() -> None:
    title = "A Study of Column Layouts"
    abstract = words("Abstract", 60)
    left = [words("LeftOne", 45), words("LeftTwo", 45)]
    right = [words("RightOne", 45), words("RightTwo", 45)]

    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica-Bold", 20)
        c.drawCentredString(PAGE_W / 2, PAGE_H - 80, title)
        para(c, abstract, 72, 120, 468)
        for col_x, texts in ((72, left), (316, right)):
            top = 230.0
            for t in texts:
                top = para(c, t, col_x, top, 224) + 14

    ex = extract_pdf(make_pdf(draw), Settings())
    texts = [b.text for b in body(ex.blocks)]
    assert texts == [title, abstract, *left, *right]
    assert ex.blocks[0].kind == "title"
    assert ex.report.columns == 2
    assert [b.seq for b in ex.blocks] == list(range(len(ex.blocks)))


def test_three_columns_read_left_to_right() -> None:
    cols = [[words(f"Col{k}Para{p}", 30) for p in range(2)] for k in range(3)]

    def draw(c: canvas.Canvas) -> None:
        for k, texts in enumerate(cols):
            top = 72.0
            for t in texts:
                top = para(c, t, 54 + k * 174, top, 156, size=9) + 12

    ex = extract_pdf(make_pdf(draw), Settings())
    assert [b.text for b in body(ex.blocks)] == [t for col in cols for t in col]
    assert ex.report.columns == 3


def test_full_width_figure_caption_splits_column_runs() -> None:
    """Left column above a full-width caption is read before it, the columns below after it."""
    above = [words("AboveLeft", 30), words("AboveRight", 30)]
    below = [words("BelowLeft", 30), words("BelowRight", 30)]
    caption = words("Figure 1: Wide caption", 50)

    def draw(c: canvas.Canvas) -> None:
        para(c, above[0], 72, 72, 224)
        para(c, above[1], 316, 72, 224)
        para(c, caption, 72, 300, 468)
        para(c, below[0], 72, 420, 224)
        para(c, below[1], 316, 420, 224)

    texts = [b.text for b in body(extract(make_pdf(draw)))]
    assert texts == [*above, caption, *below]


def test_figure_gap_is_not_a_column_gutter() -> None:
    top_para, bottom_para = words("TopParagraph", 70), words("BottomParagraph", 70)
    labels = [("Left label one", "Right label one"), ("Left label two", "Right label two"),
              ("Left label three", "Right label three")]

    def draw(c: canvas.Canvas) -> None:
        y = para(c, top_para, 72, 72, 468)
        c.rect(150, PAGE_H - 420, 300, 220)  # the figure frame, no text inside
        for i, (lt, rt) in enumerate(labels):
            para(c, lt, 72, y + 40 + 60 * i, 70)
            para(c, rt, 460, y + 40 + 60 * i, 80)
        para(c, bottom_para, 72, 440, 468)

    ex = extract_pdf(make_pdf(draw), Settings())
    texts = [b.text for b in body(ex.blocks)]
    assert ex.report.columns == 1
    assert texts[0] == top_para and texts[-1] == bottom_para
    # Labels read row by row (left, right, left, right...), not as two columns.
    assert texts[1:-1] == [t for pair in labels for t in pair]


# ---------------------------------------------------------------- typography: headings, footnotes


def test_headings_from_font_size() -> None:
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 24)
        c.drawString(72, PAGE_H - 90, "Document Title Here")
        top = para(c, words("Intro", 60), 72, 120, 468)
        top = para(c, "Results and Discussion", 72, top + 20, 468, size=16)
        top = para(c, words("Results", 60), 72, top + 8, 468)
        top = para(c, "Minor Subsection", 72, top + 16, 468, size=13)
        para(c, words("Minor", 60), 72, top + 8, 468)

    blocks = extract(make_pdf(draw))
    by_text = {b.text: b for b in blocks}
    assert by_text["Document Title Here"].kind == "title"
    assert by_text["Results and Discussion"].kind == "heading"
    assert by_text["Minor Subsection"].kind == "heading"
    assert by_text["Results and Discussion"].level == 1
    assert by_text["Minor Subsection"].level == 2
    assert all(b.kind == "paragraph" for b in blocks if b.text.startswith(("Intro", "Results alpha", "Minor alpha")))


def test_a_section_set_larger_than_the_document_is_measured_against_its_own_pages() -> None:
    # a 10 pt report of three pages, then an exhibit set at 12 pt whose short paragraphs are no
    # headings there, while its 16 pt title is; the report's 12 pt heading stays one
    def draw(c: canvas.Canvas) -> None:
        for k in range(3):
            top = para(c, f"Report Section {k}", 72, 72, 468, size=12)
            for j in range(4):
                top = para(c, words(f"Report{k}x{j}", 70), 72, top + 8, 468)
            c.showPage()
        top = para(c, "Exhibit Agreement", 72, 72, 468, size=16)
        for j in range(6):
            top = para(c, words(f"Clause{j}", 45), 72, top + 10, 468, size=12)
            top = para(c, f"The parties agree to term {j}.", 72, top + 10, 468, size=12)

    blocks = extract(make_pdf(draw))
    kind = {b.text: b.kind for b in blocks}
    assert kind["Report Section 1"] == "heading" and kind["Exhibit Agreement"] == "heading"
    assert all(kind[f"The parties agree to term {j}."] == "paragraph" for j in range(6))


def test_footnote_in_smaller_font_at_page_bottom() -> None:
    main = [words("BodyOne", 80), words("BodyTwo", 80)]
    note = "1 This footnote explains the method used above in detail."

    def draw(c: canvas.Canvas) -> None:
        top = 72.0
        for t in main:
            top = para(c, t, 72, top, 468) + 12
        c.line(72, PAGE_H - 690, 200, PAGE_H - 690)
        para(c, note, 72, 700, 468, size=8)

    ex = extract_pdf(make_pdf(draw), Settings())
    notes = [b for b in ex.blocks if b.kind == "footnote"]
    assert [b.text for b in notes] == [note]
    assert ex.report.footnotes == 1
    assert not any("footnote" in b.text for b in ex.blocks if b.kind == "paragraph")
    assert [b.text for b in ex.blocks if b.kind == "paragraph"] == main


def test_small_print_without_body_above_is_not_a_footnote() -> None:
    """A page of small reference entries has no body paragraph above them: no footnotes."""

    def draw(c: canvas.Canvas) -> None:
        para(c, "References", 72, 72, 468, size=14)
        top = 110.0
        for i in range(1, 30):
            top = para(c, f"[{i}] Author {i}. A cited paper title number {i}. Journal, 2020.", 72, top, 468, 8) + 6

    ex = extract_pdf(make_pdf(draw), Settings())
    assert ex.report.footnotes == 0


# ---------------------------------------------------------------- watermarks and rotation


def test_diagonal_watermark_dropped_and_body_intact() -> None:
    texts = [words("Confidentiality", 80), words("Second", 80)]

    def draw(c: canvas.Canvas) -> None:
        top = 100.0
        for t in texts:
            top = para(c, t, 72, top, 468) + 12
        c.saveState()
        c.setFillGray(0.85)
        c.setFont("Helvetica-Bold", 60)
        c.translate(150, 250)
        c.rotate(45)
        c.drawString(0, 0, "CONFIDENTIAL")
        c.restoreState()

    blocks = extract(make_pdf(draw))
    marks = [b for b in blocks if b.drop_reason == "watermark"]
    assert [b.text for b in marks] == ["CONFIDENTIAL"]
    assert [b.text for b in body(blocks)] == texts


def test_small_slanted_labels_beside_no_table_are_a_drawings_text_not_a_watermark() -> None:
    """A plot's tick labels set at 45 degrees, drawn one after another: each label is read whole and
    kept as image text, out of the body; no stacked letters reach the prose."""
    text, ticks = words("Paragraph", 60), ["January", "February", "March", "April"]

    def draw(c: canvas.Canvas) -> None:
        para(c, text, 72, 100, 468)
        for k, tick in enumerate(ticks):
            c.saveState()
            c.setFont("Helvetica", 9)
            c.translate(120 + 60 * k, PAGE_H - 320)
            c.rotate(45)
            c.drawString(0, 0, tick)
            c.restoreState()

    blocks = extract(make_pdf(draw))
    assert sorted(b.text for b in blocks if b.kind == "image_text") == sorted(ticks)
    assert not [b for b in blocks if b.drop_reason == "watermark"]
    assert [b.text for b in body(blocks)] == [text]


def test_large_light_grey_text_behind_content_is_watermark() -> None:
    text = words("Paragraph", 80)

    def draw(c: canvas.Canvas) -> None:
        c.setFillGray(0.8)
        c.setFont("Helvetica-Bold", 72)
        c.drawString(120, PAGE_H - 200, "DRAFT")
        c.setFillGray(0)
        para(c, text, 72, 100, 468)

    blocks = extract(make_pdf(draw))
    assert [b.text for b in blocks if b.drop_reason == "watermark"] == ["DRAFT"]
    assert [b.text for b in body(blocks)] == [text]


def test_pseudo_italic_chars_stay_in_their_words() -> None:
    rotated, skewed = "Tilted glyphs stay here", "Sheared glyphs stay too"

    def draw(c: canvas.Canvas) -> None:
        para(c, words("Before", 40), 72, 72, 468)
        x = 72.0
        for ch in rotated:  # each glyph rotated about its own origin, baseline horizontal
            c.saveState()
            c.setFont("Helvetica", 12)
            c.translate(x, PAGE_H - 160)
            c.rotate(12)
            c.drawString(0, 0, ch)
            c.restoreState()
            x += c.stringWidth(ch, "Helvetica", 12)
        c.saveState()
        c.translate(72, PAGE_H - 200)
        c.skew(0, 15)
        c.setFont("Helvetica", 12)
        c.drawString(0, 0, skewed)
        c.restoreState()
        para(c, words("After", 40), 72, 240, 468)

    blocks = extract(make_pdf(draw))
    assert not [b for b in blocks if b.drop_reason == "watermark"]
    kept = [b.text for b in body(blocks)]
    assert rotated in kept and skewed in kept


def test_vertical_margin_stamp_is_a_margin_note() -> None:
    def draw(c: canvas.Canvas) -> None:
        para(c, words("Body", 60), 72, 72, 468)
        c.saveState()
        c.translate(30, 200)
        c.rotate(90)
        c.setFont("Helvetica", 14)
        c.drawString(0, 0, "arXiv:1234.5678v1 [cs.CL]")
        c.restoreState()

    blocks = extract(make_pdf(draw))
    notes = [b for b in blocks if b.kind == "margin_note"]
    assert [b.text for b in notes] == ["arXiv:1234.5678v1 [cs.CL]"]
    assert not notes[0].in_body


# ---------------------------------------------------------------- geometry, text and report


def test_bbox_top_left_origin_and_page_meta() -> None:
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 10)
        c.drawString(72, PAGE_H - 40, "Near the top")
        c.drawString(72, 40, "Near the bottom")
        c.showPage()
        c.setFont("Helvetica", 10)
        c.drawString(100, PAGE_H - 300, "Second page")

    blocks = extract(make_pdf(draw))
    top, bottom, second = blocks
    assert top.text == "Near the top" and top.bbox.y0 < 40 and top.page == 1
    assert bottom.bbox.y0 > PAGE_H - 60 and bottom.bbox.y1 <= PAGE_H
    assert second.page == 2 and 290 < second.bbox.y0 < 300 and abs(second.bbox.x0 - 100) < 1
    assert top.get_meta("page_height") == "792.0" and top.get_meta("page_width") == "612.0"


def test_cropbox_offset_is_removed() -> None:
    def draw(c: canvas.Canvas) -> None:
        c.setCropBox((50, 50, 562, 742))
        c.setFont("Helvetica", 10)
        c.drawString(100, 700, "Inside the crop")
        c.drawString(10, 10, "Outside the crop")

    blocks = extract(make_pdf(draw))
    assert [b.text for b in blocks] == ["Inside the crop"]
    b = blocks[0]
    assert abs(b.bbox.x0 - 50) < 1 and b.get_meta("page_height") == "692.0"
    assert 30 < b.bbox.y0 < 42  # 742 - 700 - ascent


def test_line_joins_and_raw_chars() -> None:
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 10)
        c.drawString(72, 700, "A paragraph with an exam-")
        c.drawString(72, 688, "ple of hyphenation and")
        c.drawString(72, 676, "a third line.")

    ex = extract_pdf(make_pdf(draw), Settings())
    assert [b.text for b in ex.blocks] == ["A paragraph with an exam\u00adple of hyphenation and a third line."]
    assert [b.text for b in normalize_blocks(ex.blocks)] == ["A paragraph with an example of hyphenation and a third line."]
    drawn = "A paragraph with an exam-" + "ple of hyphenation and" + "a third line."
    assert ex.report.raw_chars == sum(1 for ch in drawn if not ch.isspace())
    assert ex.report.pages == 1 and ex.report.format == "pdf"
    page = ex.trace.page(1)
    assert [w.text for w in page.words][:2] == ["A", "paragraph"] and len(page.lines) == 3
    assert [b.text for b in page.pull_quotes] == [b.text for b in ex.blocks]


def test_superscript_marker_stays_in_its_word() -> None:
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 10)
        c.drawString(72, 700, "Accidents happened")
        w = c.stringWidth("Accidents happened", "Helvetica", 10)
        c.setFont("Helvetica", 6)
        c.drawString(72 + w, 705, "12")
        c.setFont("Helvetica", 10)
        c.drawString(72 + w + c.stringWidth("12", "Helvetica", 6), 700, " in the year.")

    assert [b.text for b in extract(make_pdf(draw))] == ["Accidents happened12 in the year."]


def _gapped(gap_em: float, font: str = "Times-Italic", size: float = 9.0) -> bytes:
    """One line whose word gaps are set by position, no space char drawn, `gap_em` wide."""
    def draw(c: canvas.Canvas) -> None:
        x = 72.0
        for piece in ("could affect our results of", "operations and cash", "flows in the year."):
            c.setFont(font, size)
            c.drawString(x, 700, piece)
            x += c.stringWidth(piece, font, size) + gap_em * size
    return make_pdf(draw)


def test_an_overhanging_italic_f_does_not_glue_the_words_beside_it() -> None:
    # Times-Italic's "f" is inked past its pen box on both sides: its ink reached over a quarter-em
    # word gap, read "ofoperations" and "cashflows" (10-K filings set such gaps without a space char)
    assert [b.text for b in extract(_gapped(0.25))] == ["could affect our results of operations and cash flows in the year."]
    # a kerning gap stays inside the word
    assert [b.text for b in extract(_gapped(0.02))] == ["could affect our results ofoperations and cashflows in the year."]


def test_an_overhanging_glyphs_pen_box_ends_at_its_advance_not_at_a_space_pdfium_put_past_it() -> None:
    # A 10-K's TimesNewRomanPS-ItalicMT "of identity": PDFium stands in a generated space, with no
    # text object, for the drawn one, 1.0 pt past the f's advance and inside its ink; ending the pen
    # box there left 0.07 em to "identity", read as kerning ("ofidentity")
    import pypdfium2 as pdfium

    from docclean_assets.extract.pdf import chars
    from docclean_assets.extract.pdf.charscan import GENERATED, scan_textpage

    def draw(c: canvas.Canvas) -> None:
        c.setFont("Times-Italic", 9)
        c.drawString(72, 700, "of identity")

    page = pdfium.PdfDocument(make_pdf(draw))[0]
    textpage = page.get_textpage()
    n = textpage.count_chars()
    cols = scan_textpage(textpage.raw, n)
    f = textpage.get_text_range(0, n).index("f")
    ox, ink_right = cols.ox[f], cols.right[f]
    advance = chars._glyph_advance(cols.obj[f], "f", 9.0)
    assert cols.left[f] < ox and abs(advance - 0.278 * 9.0) < 0.05  # Times-Italic's f: 278/1000 em, inked past it
    assert ox + advance < ink_right
    placed = ox + advance + 0.8 * (ink_right - ox - advance)  # where PDFium put the space, inside the ink
    flags = bytearray(cols.flags)
    flags[f + 1] |= GENERATED
    generated = cols._replace(obj=[0 if k == f + 1 else o for k, o in enumerate(cols.obj)],
                              left=[placed if k == f + 1 else x for k, x in enumerate(cols.left)], flags=bytes(flags))
    assert chars._pen_box(generated, f, n, ink_right, "f", 9.0) == (ox, ox + advance)
    # the next glyph's origin in the same text object, where there is one, is the pen box's end
    assert chars._pen_box(cols, f, n, ink_right, "f", 9.0) == (ox, cols.ox[f + 1])


def test_no_text_layer_is_flagged_not_an_error() -> None:
    def draw(c: canvas.Canvas) -> None:
        c.rect(100, 100, 200, 200, fill=1)

    ex = extract_pdf(make_pdf(draw), Settings())
    assert ex.blocks == [] and "no_text_layer" in ex.report.flags and ex.report.pages == 1


def test_corrupt_bytes_raise_extraction_error() -> None:
    with pytest.raises(ExtractionError, match="corrupt"):
        extract_pdf(b"%PDF-1.7\n this is not really a pdf", Settings())
    good = make_pdf(lambda c: c.drawString(72, 700, "hello"))
    with pytest.raises(ExtractionError):
        extract_document(good[: len(good) // 3], "pdf")


def test_encryption_empty_password_opens_real_password_refused() -> None:
    from reportlab.lib import pdfencrypt

    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 10)
        c.drawString(72, 700, "Secret text")

    open_ = make_pdf(draw, encrypt=pdfencrypt.StandardEncryption("", ownerPassword="owner", canPrint=0))
    assert [b.text for b in extract(open_)] == ["Secret text"]
    locked = make_pdf(draw, encrypt=pdfencrypt.StandardEncryption("user-pw", ownerPassword="owner"))
    with pytest.raises(ExtractionError, match="encrypted: needs a password"):
        extract_pdf(locked, Settings())


# ---------------------------------------------------------------- real documents


PDF_FILES = corpus_files("pdf", ".pdf")
# path under the corpus -> why it does not extract with valid geometry. None today: every PDF of the
# corpus opens and its blocks lie on their pages (text layer only; OCR is measured in bench/ocr_eval).
PDF_EXPECTED_FAILURES: dict[str, str] = {}


@pytest.mark.corpus
@pytest.mark.parametrize("rel", corpus_params(PDF_FILES, PDF_EXPECTED_FAILURES))
def test_corpus_pdf_extracts_with_valid_geometry(rel: str) -> None:
    path = CORPUS / rel
    ex = extract_pdf(path.read_bytes(), Settings())
    assert ex.report.pages >= 1
    for b in ex.blocks:
        w, h = float(b.get_meta("page_width")), float(b.get_meta("page_height"))
        assert b.bbox is not None and b.page is not None and 1 <= b.page <= ex.report.pages
        assert 0 <= b.bbox.x0 <= b.bbox.x1 <= w + 0.01, (path.name, b)
        assert 0 <= b.bbox.y0 <= b.bbox.y1 <= h + 0.01, (path.name, b)
        assert b.text.strip()
    assert [b.seq for b in ex.blocks] == list(range(len(ex.blocks)))


def test_corpus_pdf_expected_failures_name_corpus_files() -> None:
    assert not stale_expectations(PDF_FILES, PDF_EXPECTED_FAILURES)


def _sample_body(builder) -> str:
    import re

    from docclean_assets.cli import clean_file

    path = Path(__file__).parent / "_tmp_sample.pdf"
    path.write_bytes(builder())
    try:
        _, _, blocks = clean_file(str(path))
    finally:
        path.unlink()
    return re.sub(r"\s+", " ", " ".join(b.text for b in blocks if b.in_body))


def _in_order(body: str, parts: list[str]) -> list[str]:
    """The parts not found in order in the body (empty when all are)."""
    import re

    from docclean_assets.extract.normalize import clean_chars

    missing, pos = [], 0
    for part in parts:
        k = body.find(re.sub(r"\s+", " ", clean_chars(part)).strip(), pos)
        if k < 0:
            missing.append(part[:60])
        else:
            pos = k
    return missing


def test_three_column_bulletin_reads_exactly_in_order():
    """A banner title, three justified columns whose stories continue across columns, and a footer
    that spans two of the three columns: every paragraph whole and in reading order."""
    from docclean_assets_tests.fixtures import build

    body = _sample_body(build.three_column_pdf)
    assert _in_order(body, build.bulletin_reading_order()) == []
    assert body.rstrip().endswith(build.BULLETIN_FOOTER) or build.BULLETIN_FOOTER not in body


def test_two_column_report_headings_and_paragraphs_in_order():
    """Justified narrow columns (wide, irregular spaces) under a full-width title and abstract:
    no line is cut at a wide space, and each paragraph starts in reading order."""
    from docclean_assets_tests.fixtures import build

    body = _sample_body(build.two_column_report_pdf)
    starts = [p[:30] for p in build.report_reading_order()]
    assert _in_order(body, starts) == []


def test_report_chrome_removed_by_repetition_and_slot_kept_inspectable():
    """Running heads that alternate (journal name, then the authors' short title), the DOI and
    "Page N of 3" on every page, and a diagonal watermark: none in the body, each still in the
    blocks with its reason; footnotes routed to kind='footnote'."""
    from docclean_assets.cli import clean_file
    from docclean_assets_tests.fixtures import build

    path = Path(__file__).parent / "_tmp_report.pdf"
    path.write_bytes(build.two_column_report_pdf())
    try:
        _, ext, blocks = clean_file(str(path))
    finally:
        path.unlink()
    body = " ".join(b.text for b in blocks if b.in_body)
    pages = ext.report.pages
    chrome = [build.running_head(p) for p in range(1, pages + 1)] + [build.REPORT_DOI] + \
        [build.page_label(p, pages) for p in range(1, pages + 1)]
    for text in chrome:
        assert text not in body, text
        assert any(b.text == text and b.drop_reason in ("running_head", "running_foot", "page_number")
                   for b in blocks), text
    assert build.WATERMARK not in body
    assert any(b.drop_reason == "watermark" for b in blocks)
    notes = [b.text for b in blocks if b.kind == "footnote"]
    for note in build.REPORT_FOOTNOTES.values():
        assert any(note in n for n in notes) and note not in body


@pytest.mark.parametrize("style", ["- {n} -", "{n}", "Page {n}", "p. {n} of 4", "{roman}"])
def test_columns_drawn_right_first_and_page_numbers_in_several_styles(style):
    """Each page writes its right column into the content stream before the left one, and carries a
    page number in the given style at its foot: the body reads left column then right on every
    page, and no page number reaches it."""
    from docclean_assets.cli import clean_file

    roman = ["i", "ii", "iii", "iv"]

    def draw(c: canvas.Canvas) -> None:
        for n in range(1, 5):
            para(c, words(f"Right{n}", 60), 320, 90, 230)
            para(c, words(f"Left{n}", 60), 60, 90, 230)
            c.setFont("Helvetica", 9)
            c.drawCentredString(306, 30, style.format(n=n, roman=roman[n - 1]))
            c.showPage()

    path = Path(__file__).parent / f"_tmp_pages_{abs(hash(style))}.pdf"
    path.write_bytes(make_pdf(draw))
    try:
        _, _, blocks = clean_file(str(path))
    finally:
        path.unlink()
    tags = [b.text.split()[0] for b in blocks if b.in_body]
    assert tags == [t for n in range(1, 5) for t in (f"Left{n}", f"Right{n}")]
    numbers = [b for b in blocks if b.drop_reason == "page_number"]
    assert len(numbers) == 4


def test_right_to_left_page_reads_its_columns_from_the_right():
    """Hebrew set in two columns (drawn as a PDF stores it: glyphs in visual order): the right
    column is read first, and each line in reading order."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    font_path = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    if not font_path.exists():
        pytest.skip("DejaVuSans with Hebrew glyphs is not installed")
    pdfmetrics.registerFont(TTFont("DejaVuHe", str(font_path)))
    right_col = ["\u05d8\u05d5\u05e8 \u05d9\u05de\u05e0\u05d9 \u05e8\u05d0\u05e9\u05d5\u05df"] * 12  # "right column first"
    left_col = ["\u05d8\u05d5\u05e8 \u05e9\u05de\u05d0\u05dc\u05d9 \u05e9\u05e0\u05d9"] * 12  # "left column second"

    def draw(c: canvas.Canvas) -> None:
        c.setFont("DejaVuHe", 11)
        for i, (r, l) in enumerate(zip(right_col, left_col)):
            y = PAGE_H - 100 - 14 * i
            c.drawRightString(540, y, r[::-1])  # visual order, as a PDF lays out RTL glyphs
            c.drawRightString(290, y, l[::-1])

    texts = [b.text for b in body(extract(make_pdf(draw)))]
    joined = " ".join(texts)
    assert joined.index(right_col[0]) < joined.index(left_col[0])


def test_paragraph_running_on_into_the_next_column_is_one_block_and_its_broken_word_joined(tmp_path):
    from docclean_assets.cli import clean_file

    left = words("Opening", 60) + " and the enzyme builds a polyketide mol-"
    right = "ecule, which the cell exports " + words("closing", 50)

    def draw(c: canvas.Canvas) -> None:
        para(c, left, 72, 80, 224)
        para(c, right, 316, 80, 224)

    path = tmp_path / "run-on.pdf"
    path.write_bytes(make_pdf(draw))
    _, _, blocks = clean_file(str(path))
    first = next(b for b in blocks if b.text.startswith("Opening"))
    second = next(b for b in blocks if b.text.startswith("ecule,"))
    assert "a polyketide molecule, which the cell exports closing" in first.text and first.in_body
    assert second.drop_reason == "continued" and second.get_meta("continues") == str(first.seq)
    assert [p for p, _ in part_boxes(first)] == [1, 1]  # both parts' boxes, the left column's first
