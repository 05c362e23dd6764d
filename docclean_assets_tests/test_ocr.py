"""OCR (issue 9): text that is only pixels comes back as image_text (or body, for scanned pages),
with its place, its confidence and the quality_report counts; options auto / off / force."""
from __future__ import annotations

import io
import random
from dataclasses import replace

import pytest

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.ocr.engine import OcrRun, engine_available
from docclean_assets.extract.pdf.document import extract_pdf
from docclean_assets.extract.pdf.ocr_pages import extraction_with_ocr
from docclean_assets.extract.pdf.pdfium import open_pdf
from docclean_assets.extract.schema import row_to_report
from docclean_assets.pipeline.schemas import DocRef, QUALITY_SCHEMA, report_to_row
from docclean_assets.extract.ocr.settings import OcrSettings
from docclean_assets.extract.settings import Settings
from docclean_assets.ingest.sources import SourceConfigError, load_sources
from docclean_assets_tests.fixtures import build_ocr as F
from docclean_assets_tests.support import faults
from docclean_assets_tests.support.recall import MIN_RECALL, recall

needs_tesseract = pytest.mark.skipif(not engine_available(OcrSettings()),
                                     reason="no tesseract models (apt-get install tesseract-ocr-eng)")


def _texts(ext, kind: str) -> str:
    return "\n".join(b.text for b in ext.blocks if b.kind == kind and b.drop_reason is None)


@needs_tesseract
def test_scanned_page_becomes_body_paragraphs_with_confidence():
    ext = extract_document(F.scanned_pdf(), "pdf")
    rep = ext.report
    assert rep.ocr_pages == 1 and rep.ocr_pictures == 0
    assert {"no_text_layer", "text_mostly_ocr"} <= set(rep.flags)
    body = [b for b in ext.blocks if b.in_body]
    assert body and all(b.get_meta("ocr") == "tesseract" and b.get_meta("ocr_source") == "page" for b in body)
    assert recall(" ".join(F.SCAN_LINES), " ".join(b.text for b in body)) >= MIN_RECALL
    assert 80 <= rep.ocr_confidence <= 100 and all(float(b.get_meta("confidence")) > 80 for b in body)
    width, height = float(body[0].get_meta("page_width")), float(body[0].get_meta("page_height"))
    assert all(0 <= b.bbox.x0 < b.bbox.x1 <= width and 0 <= b.bbox.y0 < b.bbox.y1 <= height for b in body)
    assert rep.raw_chars > 0  # the OCR'd body is counted, so retention is defined


@needs_tesseract
def test_scanned_page_as_image_text_when_the_source_says_so_and_off_reads_nothing():
    ext = extract_document(F.scanned_pdf(), "pdf", ocr_scanned_body=False)
    assert not [b for b in ext.blocks if b.in_body]
    assert recall(" ".join(F.SCAN_LINES), _texts(ext, "image_text")) >= MIN_RECALL
    off = extract_document(F.scanned_pdf(), "pdf", ocr="off")
    assert off.blocks == [] and off.report.ocr_pages == 0 and "no_text_layer" in off.report.flags


@needs_tesseract
def test_unmapped_font_page_is_read_by_ocr_and_its_text_layer_dropped_with_a_reason():
    ext = extract_document(F.unmapped_pdf(), "pdf")
    assert "unmapped_text" in ext.report.flags and ext.report.ocr_pages == 1
    assert recall(" ".join(F.UNMAPPED_LINES), " ".join(b.text for b in ext.blocks if b.in_body)) >= MIN_RECALL
    replaced = [b for b in ext.blocks if b.drop_reason == "ocr_replaced"]
    assert replaced and all("\ue000" <= b.text[0] <= "\uf8ff" for b in replaced)


@needs_tesseract
def test_picture_on_a_text_page_is_image_text_between_its_neighbours():
    ext = extract_document(F.text_and_picture_pdf(), "pdf")
    kinds = [(b.kind, b.text.split()[0]) for b in ext.blocks]
    assert [k for k, _ in kinds] == ["paragraph", "image_text", "paragraph"]
    pic = ext.blocks[1]
    assert not pic.in_body and pic.page == 1 and float(pic.get_meta("confidence")) > 80
    assert recall(" ".join(F.PICTURE_LINES), pic.text) >= MIN_RECALL
    assert ext.blocks[0].bbox.y1 <= pic.bbox.y0 and pic.bbox.y1 <= ext.blocks[2].bbox.y0
    assert (ext.report.ocr_pages, ext.report.ocr_pictures, ext.report.ocr_pictures_empty) == (0, 1, 0)
    assert "text_mostly_ocr" not in ext.report.flags


@needs_tesseract
def test_force_reads_every_page_and_replaces_its_text_layer():
    ext = extract_document(F.text_and_picture_pdf(), "pdf", ocr="force")
    assert ext.report.ocr_pages == 1
    body = " ".join(b.text for b in ext.blocks if b.in_body)
    assert recall(F.BODY_TEXT + " " + " ".join(F.PICTURE_LINES), body) >= MIN_RECALL
    assert {b.drop_reason for b in ext.blocks if b.get_meta("ocr") is None} == {"ocr_replaced"}


@needs_tesseract
def test_pptx_picture_of_a_sentence_is_placed_on_its_slide():
    ext = extract_document(F.picture_pptx(), "pptx")
    ocr = [b for b in ext.blocks if b.get_meta("ocr") == "tesseract"]
    assert len(ocr) == 1 and ocr[0].kind == "image_text" and ocr[0].page == 1
    assert recall(F.SLIDE_SENTENCE, ocr[0].text) >= MIN_RECALL
    # The picture was added at (60, 180) pt: the text lies inside the shape's box on the slide.
    assert 60 <= ocr[0].bbox.x0 < ocr[0].bbox.x1 <= 60 + 700 and 180 <= ocr[0].bbox.y0
    assert ext.blocks.index(ocr[0]) > [b.kind for b in ext.blocks].index("title")
    assert ext.report.ocr_pictures == 1 and ext.report.picture_shapes == 1
    assert not [b for b in extract_document(F.picture_pptx(), "pptx", ocr="off").blocks if b.get_meta("ocr")]


@needs_tesseract
def test_docx_table_screenshot_follows_its_anchoring_paragraph():
    ext = extract_document(F.table_screenshot_docx(), "docx")
    [pic] = [b for b in ext.blocks if b.kind == "image_text"]
    texts = [b.text for b in ext.blocks]
    assert texts.index("Sales by region are shown below.") < pic.seq < texts.index("Figures are in thousands.")
    assert pic.anchor is not None and pic.anchor < pic.seq
    assert recall(" ".join(c for row in F.TABLE_ROWS for c in row), pic.text) >= MIN_RECALL
    assert ext.report.ocr_pictures == 1 and float(pic.get_meta("confidence")) > 80


@needs_tesseract
def test_photos_and_small_pictures_are_not_read():
    from PIL import Image

    rng = random.Random(7)
    noise = Image.new("L", (300, 200))
    noise.putdata([rng.randrange(256) for _ in range(300 * 200)])
    buf = io.BytesIO()
    noise.save(buf, format="PNG")
    import docx

    doc = docx.Document()
    doc.add_paragraph("A photo of the site.")
    doc.add_picture(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    doc.save(out)
    ext = extract_document(out.getvalue(), "docx")
    assert ext.report.picture_shapes == 1
    assert (ext.report.ocr_pictures, ext.report.ocr_pictures_empty) == (0, 0)
    small = Settings(ocr=OcrSettings(picture_min_width_pt=1000))
    assert extract_document(F.text_and_picture_pdf(), "pdf", small).report.ocr_pictures == 0


@needs_tesseract
def test_picture_budget_caps_the_pictures_read():
    s = Settings(ocr=OcrSettings(max_pictures_per_doc=0))
    ext = extract_document(F.table_screenshot_docx(), "docx", s)
    assert ext.report.ocr_pictures == 0 and "ocr_picture_budget" in ext.report.flags


def test_missing_engine_is_flagged_not_a_crash():
    s = Settings(ocr=OcrSettings(tessdata_dir="/nonexistent/tessdata"))
    ext = extract_document(F.scanned_pdf(), "pdf", s)
    assert "ocr_unavailable" in ext.report.flags and ext.blocks == [] and ext.report.ocr_pages == 0
    ext = extract_document(F.picture_pptx(), "pptx", s)
    assert "ocr_unavailable" in ext.report.flags and not [b for b in ext.blocks if b.get_meta("ocr")]


def test_ocr_counts_are_quality_report_columns_and_round_trip():
    ext = extract_document(F.scanned_pdf(), "pdf", ocr="off")
    report = replace(ext.report, ocr_pages=2, ocr_pictures=3, ocr_pictures_empty=1, ocr_confidence=91.5)
    row = report_to_row(DocRef("s", "d", "p.pdf", "pdf"), report, status="ok", error=None,
                        parser_version="v", parse_seconds=0.1)
    assert {"ocr_pages", "ocr_pictures", "ocr_pictures_empty", "ocr_confidence"} <= set(QUALITY_SCHEMA.names)
    back = row_to_report(row)
    assert (back.ocr_pages, back.ocr_pictures, back.ocr_pictures_empty, back.ocr_confidence) == (2, 3, 1, 91.5)


def test_ocr_source_options_are_validated(tmp_path):
    (tmp_path / "docs").mkdir()
    f = tmp_path / "sources.yaml"
    f.write_text("sources:\n  scans:\n    path: docs\n    ocr: force\n    ocr_scanned_body: false\n")
    src = load_sources(f).sources["scans"]
    assert (src.ocr, src.ocr_scanned_body) == ("force", False)
    f.write_text("sources:\n  a:\n    path: docs\n  b:\n    path: docs\n    ocr: off\n")
    assert [s.ocr for s in load_sources(f).sources.values()] == ["auto", "off"]
    for bad, key in (("ocr: always", "ocr"), ("ocr: 3", "ocr"), ("ocr_scanned_body: maybe", "ocr_scanned_body")):
        f.write_text(f"sources:\n  scans:\n    path: docs\n    {bad}\n")
        with pytest.raises(SourceConfigError, match=f"source 'scans': key '{key}'"):
            load_sources(f)
    with pytest.raises(ValueError):
        OcrSettings(max_unmapped_fraction=1.5)


@needs_tesseract
def test_unmapped_document_counts_as_mostly_ocr():
    ext = extract_document(F.unmapped_pdf(), "pdf")
    assert "text_mostly_ocr" in ext.report.flags


def test_ocr_options_reach_the_worker_with_their_time_grant_and_parse_version(tmp_path):
    from docclean_assets.engine.isolate import Job, run_jobs
    from docclean_assets.extract.settings import LimitSettings
    from docclean_assets.pipeline.parse import _options, _timeout, parse_version
    from docclean_assets.ingest.sources import Source

    settings = Settings(limits=LimitSettings(timeout_s=30), ocr=OcrSettings(timeout_grant_s=45))
    auto, off = Source("s", tmp_path), Source("s", tmp_path, ocr="off", ocr_scanned_body=False)
    row = {"format": "pdf", "path": "a.pdf"}
    assert _options(off, settings, row)["ocr"] == "off" and _options(off, settings, row)["ocr_scanned_body"] is False
    assert "ocr" not in _options(auto, settings, {"format": "html", "path": "a.html"})
    assert (_timeout(auto, settings, row), _timeout(off, settings, row)) == (75, 30)
    assert parse_version(auto, settings) != parse_version(off, settings)
    blob = tmp_path / "hang.html"
    blob.write_text("<p>x</p>")
    [(_, out)] = run_jobs([Job("h", str(blob), "html", {}, timeout_s=2)], LimitSettings(timeout_s=60),
                          faults.hang_or_extract)
    assert out.error == "timed out after 2 s"


@needs_tesseract
def test_time_budget_stops_picture_ocr_but_not_the_document():
    import docx
    from docx.shared import Inches

    doc = docx.Document()
    for rows in (F.TABLE_ROWS, [["East", "2100", "3%"]]):
        doc.add_paragraph("A table follows.")
        buf = io.BytesIO()
        F.table_image(rows).save(buf, format="PNG")
        doc.add_picture(io.BytesIO(buf.getvalue()), width=Inches(4))
    out = io.BytesIO()
    doc.save(out)
    ext = extract_document(out.getvalue(), "docx", Settings(ocr=OcrSettings(picture_budget_s=0.0)))
    assert ext.report.ocr_pictures == 1 and "ocr_time_budget" in ext.report.flags  # the first read spent it
    assert [b.text for b in ext.blocks if b.in_body] == ["A table follows."] * 2


@needs_tesseract
def test_a_read_past_its_deadline_is_abandoned_flagged_and_the_engine_reads_again():
    late = extract_document(F.scanned_pdf(), "pdf", Settings(ocr=OcrSettings(call_timeout_s=0.001)))
    assert "ocr_failed" in late.report.flags and late.report.ocr_pages == 0 and not late.blocks
    again = extract_document(F.scanned_pdf(), "pdf")  # same thread, same engine: not left half-used
    assert again.report.ocr_pages == 1
    assert recall(" ".join(F.SCAN_LINES), " ".join(b.text for b in again.blocks if b.in_body)) >= MIN_RECALL


@needs_tesseract
def test_one_engine_per_thread_reads_every_picture_of_every_document():
    from docclean_assets.extract.ocr import engine

    extract_document(F.picture_pptx(), "pptx")
    started = dict(engine._local.engines)
    extract_document(F.table_screenshot_docx(), "docx")
    extract_document(F.text_and_picture_pdf(), "pdf")
    assert engine._local.engines == started and len(started) == 1  # started once, not per picture


def test_placing_a_picture_block_keeps_anchors_on_their_blocks():
    from docclean_assets.extract.model import BBox, Block
    from docclean_assets.extract.ocr.blocks import place_by_position

    blocks = [Block("heading", "Earlier slide", page=1, bbox=BBox(0, 0, 100, 20)),
              Block("caption", "Chart: sales", page=2, bbox=BBox(0, 0, 100, 20), anchor=2),
              Block("table", "| a |\n|---|\n| 1 |", page=2, bbox=BBox(0, 300, 100, 320))]
    pic = Block("image_text", "text in a picture", bbox=BBox(0, 100, 100, 200))
    place_by_position(blocks, 1, [pic], 2)
    assert [b.kind for b in blocks] == ["heading", "caption", "image_text", "table"]
    assert blocks[blocks[1].anchor].kind == "table" and blocks[2].page == 2


@needs_tesseract
def test_ocr_merge_returns_a_new_extraction_and_leaves_its_input_and_report_as_they_were():
    data = F.unmapped_pdf()  # a text layer OCR replaces: blocks dropped, pages counted, flags raised
    ext = extract_pdf(data, Settings())
    blocks, report = list(ext.blocks), replace(ext.report, flags=list(ext.report.flags))
    chars = {p.info.number: p.chars for p in ext.trace.pages}
    turns = {p.info.number: p.info.turn for p in ext.trace.pages}
    pdf = open_pdf(data)
    try:
        out = extraction_with_ocr(pdf, ext, OcrRun(OcrSettings(), "auto", True), chars, turns)
    finally:
        pdf.close()
    assert ext.blocks == blocks and ext.report == report
    assert out is not ext and out.report is not ext.report and out.report.flags is not ext.report.flags
    assert out.report.ocr_pages == 1 and "unmapped_text" in out.report.flags and report.ocr_pages == 0
    assert [b.drop_reason for b in out.blocks if b.get_meta("ocr") is None] == ["ocr_replaced"] * len(blocks)
    assert out.trace is ext.trace


def _three_pages_one_picture_in_a_form() -> bytes:
    """Text on three pages; the second also shows a picture of text, drawn inside a form XObject."""
    from reportlab.pdfgen import canvas

    img = F.text_image(F.PICTURE_LINES)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(420, 300), invariant=1)
    for n in range(3):
        c.setFont("Helvetica", 10)
        c.drawString(20, 270, f"Page {n + 1}. {F.BODY_TEXT}")
        if n == 1:
            c.beginForm("figure")
            F._image_pdf_page(c, img, 20, 250 - img.height * 72.0 / 200, 200)
            c.endForm()
            c.doForm("figure")
        c.showPage()
    c.save()
    return buf.getvalue()


@needs_tesseract
def test_the_ocr_pass_loads_only_the_pages_that_hold_a_picture(monkeypatch):
    """Pages with a usable text layer and no picture object (the text pass's graphics, forms
    included, say which) are not loaded again for OCR; `force` loads every page."""
    import docclean_assets.extract.pdf.ocr_pages as ocr_pages

    loaded: list[int] = []
    real = ocr_pages.opened_page

    def counting(pdf, index):  # noqa: ANN001, ANN202 - the wrapped context manager
        loaded.append(index)
        return real(pdf, index)

    monkeypatch.setattr(ocr_pages, "opened_page", counting)
    data = _three_pages_one_picture_in_a_form()
    ext = extract_document(data, "pdf")
    assert loaded == [1]
    pictures = [b for b in ext.blocks if b.kind == "image_text"]
    assert len(pictures) == 1 and pictures[0].page == 2
    assert recall(" ".join(F.PICTURE_LINES), pictures[0].text) >= MIN_RECALL
    loaded.clear()
    extract_document(data, "pdf", ocr="force")
    assert loaded == [0, 1, 2]
