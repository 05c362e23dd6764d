"""PDF backend against awkward and hostile pages (issue 14): pages turned by /Rotate or drawn
sideways read in order, glyphs that expand to long strings stay linear and capped, and every text
stage of the PDF path finishes on long runs of one character."""
from __future__ import annotations

import pytest
from PIL import Image

from docclean_assets.cli import main as cli_main
from docclean_assets.extract.api import extract_document
from docclean_assets.extract.ocr import engine_path
from docclean_assets.extract.pdf import PAGE_TURN_META
from docclean_assets_tests.fixtures import build_ocr
from docclean_assets_tests.hostile import cases_pdf as P
from docclean_assets_tests.test_ocr import MIN_RECALL, recall

TURNS = (90, 180, 270)


def _extract(data: bytes, **kw):
    return extract_document(data, "pdf", ocr=kw.pop("ocr", "off"), **kw)


def _body(blocks) -> list[str]:
    return [b.text for b in blocks if b.drop_reason is None and b.kind == "paragraph"]


def _turn(blocks) -> set[str | None]:
    return {b.get_meta(PAGE_TURN_META) for b in blocks}


# ------------------------------------------------------------------------------- rotated pages
@pytest.mark.parametrize("rotate", TURNS)
def test_page_rotated_by_its_rotate_entry_reads_its_upright_text_in_order(rotate):
    """/Rotate shows text that is upright in user space sideways or upside down: it is read in
    the frame where it is upright (user space), column by column."""
    result = _extract(P.rotated_page_pdf(rotate, 0))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    assert result.report.columns == 2
    assert _turn(result.blocks) == {str((360 - rotate) % 360)}
    for b in result.blocks:  # boxes and page size in the frame of the text: portrait user space
        assert (b.get_meta("page_width"), b.get_meta("page_height")) == ("612.0", "792.0")
        assert 0 <= b.bbox.x0 < b.bbox.x1 <= 612 and 0 <= b.bbox.y0 < b.bbox.y1 <= 792
    left, right = result.blocks[0], result.blocks[3]
    assert left.bbox.x1 < right.bbox.x0 and abs(left.bbox.y0 - right.bbox.y0) < 1


@pytest.mark.parametrize("rotate", TURNS)
def test_text_drawn_turned_and_shown_upright_by_rotate_reads_as_displayed(rotate):
    """A landscape page stored portrait: the text matrix turns the text, /Rotate turns it back."""
    result = _extract(P.rotated_page_pdf(rotate, rotate))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    assert _turn(result.blocks) == {None}
    width, height = (612.0, 792.0) if rotate == 180 else (792.0, 612.0)
    assert float(result.blocks[0].get_meta("page_width")) == width
    assert float(result.blocks[0].get_meta("page_height")) == height


@pytest.mark.parametrize("turn", TURNS)
def test_page_whose_text_is_all_drawn_turned_reads_in_its_own_frame(turn):
    result = _extract(P.rotated_page_pdf(0, turn))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    assert _turn(result.blocks) == {str(turn)}


@pytest.mark.parametrize("rotate, turn", [(0, 0), (90, 0), (180, 0), (270, 0), (90, 90), (0, 270)])
def test_a_sideways_stamp_beside_the_text_stays_a_rotated_margin_note(rotate, turn):
    """Sideways text that is a minority of the page (an arXiv stamp) keeps today's reading: one
    margin note at 90 degrees to the text, the body unchanged."""
    result = _extract(P.rotated_page_pdf(rotate, turn, stamp=True))
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS
    notes = [b for b in result.blocks if b.kind == "margin_note"]
    assert [(b.text, b.get_meta("rotation_deg")) for b in notes] == [(P.STAMP, "90")]
    assert notes[0].bbox.x1 < result.blocks[0].bbox.x0  # in the left margin of the text's frame


def test_inspect_draws_a_turned_page_in_the_frame_of_its_boxes(tmp_path):
    pdf = tmp_path / "turned.pdf"
    pdf.write_bytes(P.rotated_page_pdf(90, 0))
    out = tmp_path / "page.png"
    assert cli_main(["inspect", str(pdf), "--page", "1", "--out", str(out), "--dpi", "72"]) == 0
    image = Image.open(out).convert("L")
    assert abs(image.width - 612) <= 1 and abs(image.height - 792) <= 1  # portrait, as the boxes are
    first = _extract(pdf.read_bytes()).blocks[0]
    inside = image.crop((round(first.bbox.x0) + 3, round(first.bbox.y0) + 3,
                         round(first.bbox.x1) - 3, round(first.bbox.y1) - 3))
    assert inside.getextrema()[0] < 80  # the paragraph's glyphs are under its box


@pytest.mark.skipif(engine_path("tesseract") is None, reason="tesseract-ocr is not installed")
def test_picture_on_a_turned_page_is_read_upright_and_boxed_in_the_page_frame():
    picture = build_ocr.text_image(build_ocr.PICTURE_LINES)
    result = _extract(P.rotated_page_pdf(90, 0, paragraphs=P.ROTATED_PARAGRAPHS[:4], picture=picture), ocr="auto")
    pics = [b for b in result.blocks if b.kind == "image_text"]
    assert len(pics) == 1 and pics[0].get_meta(PAGE_TURN_META) == "270"
    assert recall(" ".join(build_ocr.PICTURE_LINES), pics[0].text) >= MIN_RECALL
    x0, top, x1, bottom = P.picture_box(picture, 792.0)
    box = pics[0].bbox
    assert x0 - 2 <= box.x0 < box.x1 <= x1 + 2 and top - 2 <= box.y0 < box.y1 <= bottom + 2
    assert _body(result.blocks) == P.ROTATED_PARAGRAPHS[:4]
