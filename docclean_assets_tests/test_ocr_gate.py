"""Issue 22: OCR is spent only where pixels are likely to hold text. A cheap test of glyph-shaped marks
on a common baseline lets pictures of text through (any size from 6 pt, dark or light, horizontal or
vertical, screenshots of tables) and turns away drawings; what it turns away is counted in
`ocr_pictures_skipped`, never skipped silently, and `ocr: force` reads everything."""
from __future__ import annotations

import pytest

from docclean_assets.extract.api import extract_document
from docclean_assets.extract.ocr.engine import OcrRun, engine_available, is_photo
from docclean_assets.extract.ocr.gate import may_hold_text, text_marks
from docclean_assets.extract.ocr.settings import OcrSettings
from docclean_assets.pipeline.schemas import QUALITY_SCHEMA
from docclean_assets_tests.fixtures import build_ocr as F

S = OcrSettings()
DRAWINGS = ("rings", "diagram", "portrait", "bars")
needs_tesseract = pytest.mark.skipif(not engine_available(S), reason="no tesseract models (tesseract-ocr-eng)")


@pytest.mark.parametrize("kind", DRAWINGS)
def test_a_drawing_on_white_is_no_photo_but_has_no_marks_set_like_text(kind):
    image = F.drawing_image(kind)
    assert not is_photo(image, S)  # the older photo test lets these through: the gate is what stops them
    assert text_marks(image, 200, S) < S.text_gate_min_marks
    run = OcrRun(S)
    assert not run.worth_reading(image, 200) and run.pictures_skipped == 1


@pytest.mark.parametrize("px,dpi", [(17, 200), (28, 200), (40, 300), (14, 96)])  # 6, 10, 10 and 10.5 pt
def test_pictures_of_text_pass_at_any_size(px, dpi):
    assert may_hold_text(F.text_image(F.PICTURE_LINES, px=px), dpi, S)


def test_light_text_on_dark_vertical_text_and_a_table_screenshot_pass():
    from PIL import ImageOps

    text = F.text_image(F.PICTURE_LINES)
    assert may_hold_text(ImageOps.invert(text), 200, S)
    assert may_hold_text(text.rotate(90, expand=True), 200, S)
    assert may_hold_text(F.table_image(F.TABLE_ROWS), 96, S)


def test_one_word_passes_when_its_letters_stand_apart():
    assert may_hold_text(F.text_image(["Keyway"]), 200, S)
    assert not may_hold_text(F.text_image(["I"]), 200, S)  # a single mark has no neighbour


@needs_tesseract
@pytest.mark.parametrize("kind", ("rings", "diagram"))
def test_a_pdf_drawing_is_skipped_and_counted_while_the_picture_of_text_is_read(kind):
    ext = extract_document(F.text_and_drawing_pdf(kind), "pdf")
    rep = ext.report
    assert (rep.ocr_pictures, rep.ocr_pictures_skipped) == (1, 1)
    pics = [b for b in ext.blocks if b.kind == "image_text"]
    assert len(pics) == 1 and "parks department" in pics[0].text
    forced = extract_document(F.text_and_drawing_pdf(kind), "pdf", ocr="force")
    assert forced.report.ocr_pictures_skipped == 0  # force reads every picture


def test_skipped_pictures_are_a_quality_report_column():
    assert "ocr_pictures_skipped" in QUALITY_SCHEMA.names


@needs_tesseract
def test_each_pdf_is_opened_once_with_its_caps_checked_and_its_pictures_read_in_the_same_pass(monkeypatch):
    import pypdfium2

    from docclean_assets_tests.hostile import cases as C

    opened = []
    real = pypdfium2.PdfDocument

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003
        opened.append(args[0] if args else None)
        return real(*args, **kwargs)

    monkeypatch.setattr(pypdfium2, "PdfDocument", counting)
    ext = extract_document(F.text_and_drawing_pdf("rings"), "pdf")  # text layer, a picture read, one skipped
    assert len(opened) == 1 and ext.report.ocr_pictures == 1
    flooded = extract_document(C.dense_pdf(200_000), "pdf")  # a page over the character cap
    assert len(opened) == 2 and "page_char_cap" in flooded.report.flags


@needs_tesseract
@pytest.mark.parametrize("memory_mb", (512, 768))
def test_a_worker_too_small_to_load_opencv_reads_the_picture_without_the_gate(tmp_path, memory_mb):
    # OpenCV's import crashes the process (SIGSEGV) when the address-space ceiling leaves it no room
    from docclean_assets.engine.isolate import Job, run_jobs
    from docclean_assets.extract.settings import LimitSettings

    path = tmp_path / "deck.pptx"
    path.write_bytes(F.picture_pptx())
    [(_job, out)] = list(run_jobs([Job("deck", str(path), "pptx", {})], LimitSettings(memory_mb=memory_mb, workers=1)))
    assert out.kind == "ok", out.error
    assert "ocr_gate_unavailable" in out.result.report.flags and out.result.report.ocr_pictures == 1
