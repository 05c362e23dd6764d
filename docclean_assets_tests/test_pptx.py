"""PPTX backend: decks built in code with python-pptx, geometry edited with lxml."""
from __future__ import annotations

import io
import struct
import zlib
from typing import NamedTuple

import pytest
from lxml import etree
from pptx import Presentation
from pptx.util import Emu, Pt

from docclean_assets.extract.api import ExtractionError, extract_document
from docclean_assets.extract.office.pptx import extract_pptx
from docclean_assets.extract.office.settings import OfficeSettings
from docclean_assets.extract.settings import Settings
from docclean_assets_tests.support.corpus import CORPUS, corpus_files, corpus_params, stale_expectations

P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
TITLE_ONLY = 5
BLANK = 6


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0\0\0\0")) + chunk(b"IEND", b"")


def _save(prs) -> bytes:
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def _extract(prs, settings: Settings | None = None):
    return extract_pptx(_save(prs), settings or Settings())


def _box(slide, text: str, left: float, top: float, width: float, height: float):
    shape = slide.shapes.add_textbox(Pt(left), Pt(top), Pt(width), Pt(height))
    shape.text_frame.text = text
    return shape


def _two_column_slide(prs):
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Quarterly results"
    # File order: right column first (bottom, then top), then left column (bottom, then top).
    _box(slide, "Right lower", 380, 300, 300, 80)
    _box(slide, "Right upper", 380, 150, 300, 80)
    _box(slide, "Left lower", 40, 320, 300, 80)
    _box(slide, "Left upper", 40, 140, 300, 80)
    _box(slide, "Full width closing line", 40, 440, 640, 40)
    tree = slide.shapes._spTree
    title = slide.shapes.title._element
    tree.remove(title)
    tree.append(title)  # the title placeholder is last in file order
    return slide


def test_title_first_then_left_column_then_right():
    prs = Presentation()
    prs.slides.add_slide(prs.slide_layouts[BLANK])
    _two_column_slide(prs)
    ex = _extract(prs)
    texts = [b.text for b in ex.blocks if b.page == 2 and b.in_body]
    assert texts == [
        "Quarterly results",
        "Left upper",
        "Left lower",
        "Right upper",
        "Right lower",
        "Full width closing line",
    ]
    title = next(b for b in ex.blocks if b.text == "Quarterly results")
    assert title.kind == "heading" and title.level == 1  # not the first slide
    left = next(b for b in ex.blocks if b.text == "Left upper")
    assert left.bbox is not None
    assert left.bbox.x0 == pytest.approx(40) and left.bbox.y0 == pytest.approx(140)
    assert left.bbox.x1 == pytest.approx(340) and left.bbox.y1 == pytest.approx(220)
    assert ex.report.pages == 2 and ex.report.columns == 2


def test_column_threshold_is_a_setting():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[BLANK])
    # Frames 20 pt apart: with the 7.2 pt text insets the text areas are 34.4 pt apart.
    _box(slide, "B", 360, 100, 300, 50)
    _box(slide, "A", 40, 300, 300, 50)
    assert [b.text for b in _extract(prs).blocks] == ["A", "B"]  # a gutter: left column first
    strict = Settings(office=OfficeSettings(gutter_min_width_pt=40))
    assert [b.text for b in _extract(prs, strict).blocks] == ["B", "A"]  # no gutter: read by top
    overlapping = Presentation()
    slide = overlapping.slides.add_slide(overlapping.slide_layouts[BLANK])
    _box(slide, "B", 240, 100, 300, 50)  # overlaps A by a third of its width: stacked, never columns
    _box(slide, "A", 40, 300, 300, 50)
    assert [b.text for b in _extract(overlapping).blocks] == ["B", "A"]


def test_touching_frames_are_columns_by_their_text_insets():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[BLANK])
    _box(slide, "Right", 340, 100, 300, 50)  # frames touch at x=340; their text areas are 14.4 pt apart
    _box(slide, "Left", 40, 300, 300, 50)
    assert [b.text for b in _extract(prs).blocks] == ["Left", "Right"]
    no_inset = Settings(office=OfficeSettings(gutter_text_inset_pt=0))
    assert [b.text for b in _extract(prs, no_inset).blocks] == ["Right", "Left"]


def test_first_slide_title_kind():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[0])
    slide.shapes.title.text = "Deck title"
    slide.placeholders[1].text = "Subtitle text"
    ex = _extract(prs)
    assert (ex.blocks[0].kind, ex.blocks[0].text) == ("title", "Deck title")
    assert ex.blocks[0].page == 1


def test_group_shape_child_transform_applied():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[BLANK])
    group = slide.shapes.add_group_shape()
    inner = group.shapes.add_textbox(Pt(10), Pt(10), Pt(100), Pt(50))
    inner.text_frame.text = "Grouped text"
    xfrm = group._element.find(f"{{{P_NS}}}grpSpPr/{{{A_NS}}}xfrm")
    # children live in a 100x50pt child space at (10,10); the group shows them at (200,100) at 2x scale
    for tag, attrs in (
        ("off", {"x": Pt(200), "y": Pt(100)}),
        ("ext", {"cx": Pt(200), "cy": Pt(100)}),
        ("chOff", {"x": Pt(10), "y": Pt(10)}),
        ("chExt", {"cx": Pt(100), "cy": Pt(50)}),
    ):
        el = xfrm.find(f"{{{A_NS}}}{tag}")
        for k, v in attrs.items():
            el.set(k, str(int(Emu(v))))
    ex = _extract(prs)
    block = next(b for b in ex.blocks if b.text == "Grouped text")
    assert block.bbox.x0 == pytest.approx(200) and block.bbox.y0 == pytest.approx(100)
    assert block.bbox.x1 == pytest.approx(400) and block.bbox.y1 == pytest.approx(200)


def test_speaker_notes_separate_and_picture_counted():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Results"
    _box(slide, "Revenue grew", 40, 150, 400, 60)
    slide.notes_slide.notes_text_frame.text = "Say the growth number slowly"
    slide.shapes.add_picture(io.BytesIO(_png()), Pt(500), Pt(150), Pt(100), Pt(100))
    group = slide.shapes.add_group_shape()
    group.shapes.add_picture(io.BytesIO(_png()), Pt(500), Pt(300), Pt(50), Pt(50))
    ex = _extract(prs)
    notes = [b for b in ex.blocks if b.kind == "speaker_notes"]
    assert [(b.text, b.page) for b in notes] == [("Say the growth number slowly", 1)]
    assert not notes[0].in_body
    body = "\n".join(b.text for b in ex.blocks if b.in_body)
    assert "growth number" not in body and "Revenue grew" in body
    assert ex.report.picture_shapes == 2
    # slide-image and slide-number placeholders of the notes page never leak into the notes
    assert "\n" not in notes[0].text


def test_slide_number_placeholder_dropped():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Agenda"
    sld_num = etree.fromstring(
        f'<p:sp xmlns:p="{P_NS}" xmlns:a="{A_NS}"><p:nvSpPr><p:cNvPr id="99" name="Slide Number"/>'
        '<p:cNvSpPr/><p:nvPr><p:ph type="sldNum" sz="quarter" idx="12"/></p:nvPr></p:nvSpPr><p:spPr/>'
        '<p:txBody><a:bodyPr/><a:p><a:fld id="{B6F15528-21DE-4FAA-801E-634DDDAF4B2B}" type="slidenum">'
        "<a:t>1</a:t></a:fld></a:p></p:txBody></p:sp>"
    )
    slide.shapes._spTree.append(sld_num)
    ex = _extract(prs)
    num = [b for b in ex.blocks if b.text == "1"]
    assert len(num) == 1 and num[0].drop_reason == "header_footer"
    assert num[0].bbox is not None  # position inherited from the layout's placeholder
    assert [b.text for b in ex.blocks if b.in_body] == ["Agenda"]


def test_table_and_bullets():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])  # Title and Content
    slide.shapes.title.text = "Plan"
    tf = slide.placeholders[1].text_frame
    tf.text = "First"
    para = tf.add_paragraph()
    para.text = "Nested"
    para.level = 1
    table = slide.shapes.add_table(2, 2, Pt(40), Pt(380), Pt(400), Pt(80)).table
    table.cell(0, 0).text = "Name"
    table.cell(0, 1).text = "Value|x"
    table.cell(1, 0).text = "a"
    table.cell(1, 1).text = "1"
    ex = _extract(prs)
    got = [(b.kind, b.level, b.text) for b in ex.blocks]
    assert got[0] == ("title", None, "Plan")
    assert ("list_item", 1, "First") in got and ("list_item", 2, "Nested") in got
    assert ("table", None, "| Name | Value\\|x |\n| --- | --- |\n| a | 1 |") in got


def test_corrupt_and_encrypted_raise_extraction_error():
    with pytest.raises(ExtractionError, match="encrypted or legacy OLE container"):
        extract_document(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512, "pptx")
    with pytest.raises(ExtractionError):
        extract_document(b"PK\x03\x04garbage", "pptx")
    data = _save(Presentation())
    with pytest.raises(ExtractionError):
        extract_document(data[: len(data) // 3], "pptx")


PPTX_FILES = corpus_files("pptx", ".pptx")
# path under the corpus -> why it fails. None today: every PPTX of the corpus extracts.
PPTX_EXPECTED_FAILURES: dict[str, str] = {}


@pytest.mark.corpus
@pytest.mark.parametrize("rel", corpus_params(PPTX_FILES, PPTX_EXPECTED_FAILURES))
def test_corpus_pptx(rel):
    ex = extract_document((CORPUS / rel).read_bytes(), "pptx", ocr="off")  # OCR cost and accuracy: bench/ocr_eval
    assert ex.report.pages > 0
    for b in ex.blocks:
        assert b.page is not None and 1 <= b.page <= ex.report.pages, b
    assert [b.seq for b in ex.blocks] == list(range(len(ex.blocks)))


def test_corpus_pptx_expected_failures_name_corpus_files():
    assert not stale_expectations(PPTX_FILES, PPTX_EXPECTED_FAILURES)


class _Rect(NamedTuple):
    name: str
    x0: float
    top: float
    x1: float
    bottom: float


def _geometric_order(shapes: list[_Rect]) -> tuple[list[str], int]:
    from docclean_assets.extract.layout import boxes_to_reading_order

    s = OfficeSettings()
    order, cols = boxes_to_reading_order(shapes, s.gutter_max_cover, s.gutter_min_width_pt,
                                         s.gutter_row_tolerance_pt, s.band_overlap_ratio, s.columns_max_depth,
                                         s.gutter_floor_slack)
    return [r.name for r in order], cols


def test_reading_order_full_width_shapes_split_columns_into_bands():
    shapes = [
        _Rect("intro", 40, 20, 680, 60),
        _Rect("a1", 40, 80, 340, 120),
        _Rect("a2", 40, 140, 340, 180),
        _Rect("b1", 380, 90, 680, 130),
        _Rect("mid", 40, 200, 680, 230),
        _Rect("c1", 40, 250, 340, 300),
        _Rect("d1", 380, 240, 680, 290),
        _Rect("d2", 380, 300, 680, 340),
    ]
    import random

    for seed in range(5):
        shuffled = list(shapes)
        random.Random(seed).shuffle(shuffled)
        assert _geometric_order(shuffled) == (["intro", "a1", "a2", "b1", "mid", "c1", "d1", "d2"], 2)


def test_reading_order_nested_columns_and_mixed_bands():
    """Two columns above a full-width rule and three below; the right column of the top band holds
    two sub-columns of its own (found recursively by the same gutter finder)."""
    shapes = [
        _Rect("L", 40, 40, 300, 200),
        _Rect("R-a", 340, 40, 500, 200),
        _Rect("R-b", 520, 40, 680, 200),
        _Rect("R-wide", 340, 210, 680, 240),
        _Rect("rule", 40, 260, 680, 280),
        _Rect("c1", 40, 300, 240, 400),
        _Rect("c2", 260, 300, 460, 400),
        _Rect("c3", 480, 300, 680, 400),
    ]
    assert _geometric_order(list(reversed(shapes))) == (["L", "R-a", "R-b", "R-wide", "rule", "c1", "c2", "c3"], 3)


@pytest.mark.parametrize("seed", range(6))
def test_reading_order_does_not_depend_on_file_order(seed):
    """Shapes added in any order read the same: the order is geometry, not a permutation of the file."""
    import random

    prs = Presentation()
    prs.slides.add_slide(prs.slide_layouts[BLANK])
    slide = _two_column_slide(prs)
    tree = slide.shapes._spTree
    shapes = [el for el in tree if etree.QName(el).localname in ("sp", "grpSp", "pic", "graphicFrame")]
    random.Random(seed).shuffle(shapes)
    for el in shapes:
        tree.remove(el)
        tree.append(el)
    texts = [b.text for b in _extract(prs).blocks if b.page == 2 and b.in_body]
    assert texts == ["Quarterly results", "Left upper", "Left lower", "Right upper", "Right lower",
                     "Full width closing line"]


def test_empty_placeholders_produce_nothing():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])  # Title and Content: both placeholders left empty
    assert [p.placeholder_format.type for p in slide.placeholders]  # the layout does give placeholders
    ex = _extract(prs)
    assert [b for b in ex.blocks if b.page == 1 and b.kind != "speaker_notes"] == []
    assert not any("Click to" in b.text for b in ex.blocks)


def test_speaker_notes_can_be_omitted_per_source():
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[BLANK])
    _box(slide, "Visible text on the slide", 40, 100, 300, 50)
    slide.notes_slide.notes_text_frame.text = "Do not publish: the figures are provisional."
    data = _save(prs)
    kept = extract_document(data, "pptx")
    assert [b.kind for b in kept.blocks] == ["paragraph", "speaker_notes"]
    omitted = extract_document(data, "pptx", speaker_notes=False)
    assert [b.kind for b in omitted.blocks] == ["paragraph"]
    assert "speaker_notes_omitted" in omitted.report.flags
    assert omitted.report.raw_chars < kept.report.raw_chars
