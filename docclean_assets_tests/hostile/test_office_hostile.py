"""Hostile DOCX and PPTX packages (issue 14): numbers out of every range are clamped and flagged and
fit the tables; geometry far outside the page is clamped before any layout allocates; a part that
cannot be read costs that part only; altChunk imports are read or counted; a DTD is refused wherever
and however it hides; macro-enabled packages are read; errors are stable and say what to do."""
from __future__ import annotations

import math
import random
import tracemalloc
from typing import NamedTuple

import pyarrow as pa
import pytest

from docclean_assets.extract.api import ExtractionError, extract_document
from docclean_assets.extract.office.numbering import MAX_LEVELS
from docclean_assets.engine.isolate import Job, run_jobs
from docclean_assets.extract.layout import boxes_to_gutters, boxes_to_reading_order
from docclean_assets.extract.office.common import parse_xml
from docclean_assets.extract.office.xmlcheck import FIRST_READ_BYTES, READ_BYTES
from docclean_assets.pipeline.schemas import BLOCKS_SCHEMA, DOCS_SCHEMA, DocRef, block_to_row, report_to_row
from docclean_assets.extract.office.settings import OfficeSettings
from docclean_assets.extract.settings import LimitSettings
from docclean_assets_tests.fixtures.build_docx import CONTRACT_FOOTNOTE, CONTRACT_HEADER, contract_docx
from docclean_assets_tests.fixtures.build_pptx import deck_pptx
from docclean_assets_tests.hostile import cases as C
from docclean_assets_tests.hostile import cases_office as O

OFF_SLIDE_MARGIN = OfficeSettings().off_slide_margin

WORKER = LimitSettings(timeout_s=60, memory_mb=1024, workers=2)
SLIDE_W, SLIDE_H = 720.0, 540.0  # python-pptx's default 10 x 7.5 inch slide, points


def _extract(data: bytes, fmt: str, ocr: str = "off"):
    """The extraction, after checking that its rows fit the tables (int32 columns, finite boxes)."""
    ex = extract_document(data, fmt, ocr=ocr)
    ref = DocRef("hostile", "0" * 64, f"doc.{fmt}", fmt)
    pa.Table.from_pylist([report_to_row(ref, ex.report, status="ok", error=None, parser_version="v",
                                        parse_seconds=0.0)], schema=DOCS_SCHEMA)
    pa.Table.from_pylist([block_to_row(ref, b) for b in ex.blocks], schema=BLOCKS_SCHEMA)
    for b in ex.blocks:
        assert b.bbox is None or all(math.isfinite(v) for v in (b.bbox.x0, b.bbox.y0, b.bbox.x1, b.bbox.y1))
    assert ex.report.broken_parts == len(ex.report.part_errors)
    return ex


def _refused(data: bytes, fmt: str) -> str:
    with pytest.raises(ExtractionError) as err:
        extract_document(data, fmt, ocr="off")
    return str(err.value)


def _in_worker(tmp_path, fmt: str, data: bytes, **options):
    """The outcome of extracting `data` in a worker under WORKER's time and memory limits."""
    blob = tmp_path / f"doc.{fmt}"
    blob.write_bytes(data)
    [(_job, outcome)] = run_jobs([Job("doc", str(blob), fmt, {"ocr": "off", **options})], WORKER)
    return outcome


def _texts(ex) -> list[str]:
    return [b.text for b in ex.blocks]


# ============================================================ 1. numbers read from package XML
INVALID = [v for v in O.NUMBERS]


@pytest.mark.parametrize("value", INVALID)
def test_page_count_out_of_range_is_ignored_and_flagged(value):
    ex = _extract(O.docx_pages(value), "docx")
    assert ex.report.pages == 0 and "value_clamped" in ex.report.flags
    assert "A short policy paragraph about remote working and equipment." in _texts(ex)


def test_a_plausible_page_count_is_kept_unflagged():
    ex = _extract(O.docx_pages("7"), "docx")
    assert ex.report.pages == 7 and "value_clamped" not in ex.report.flags


@pytest.mark.parametrize("value", INVALID)
def test_docx_list_level_out_of_range_is_clamped(value):
    ex = _extract(O.docx_list(ilvl=value), "docx")
    items = [b for b in ex.blocks if b.kind == "list_item"]
    assert len(items) == 3 and all(1 <= b.level <= MAX_LEVELS for b in items)
    assert "value_clamped" in ex.report.flags


@pytest.mark.parametrize("fmt", ["decimal", "lowerLetter", "upperRoman"])
@pytest.mark.parametrize("value", INVALID)
def test_list_start_out_of_range_gives_short_labels(value, fmt):
    ex = _extract(O.docx_list(start=value, fmt=fmt), "docx")
    labels = [b.get_meta("list_label") for b in ex.blocks if b.kind == "list_item"]
    assert len(labels) == 3 and all(label and len(label) <= 8 for label in labels), labels
    assert "value_clamped" in ex.report.flags


def test_list_levels_and_starts_in_range_are_read_as_written():
    ex = _extract(O.docx_list(ilvl="1", start="3", fmt="lowerRoman"), "docx")
    items = [(b.level, b.get_meta("list_label")) for b in ex.blocks if b.kind == "list_item"]
    assert items == [(2, None)] * 3  # level 1 is not defined by this list: no label
    ex = _extract(O.docx_list(start="3", fmt="lowerRoman"), "docx")
    assert [b.get_meta("list_label") for b in ex.blocks if b.kind == "list_item"] == ["iii.", "iv.", "v."]
    assert "value_clamped" not in ex.report.flags


@pytest.mark.parametrize("value", INVALID)
def test_pptx_paragraph_level_out_of_range_is_clamped(value):
    ex = _extract(O.pptx_levels(value), "pptx")
    items = [b for b in ex.blocks if b.kind == "list_item"]
    assert [b.text for b in items] == ["First point", "Second point", "Third point"]
    assert all(1 <= b.level <= 9 for b in items) and "value_clamped" in ex.report.flags


def test_pptx_paragraph_level_in_range_is_kept():
    ex = _extract(O.pptx_levels("2"), "pptx")
    assert {b.level for b in ex.blocks if b.kind == "list_item"} == {3}
    assert "value_clamped" not in ex.report.flags


@pytest.mark.parametrize("attr", ["span", "before", "after"])
@pytest.mark.parametrize("value", ["2147483647", "INF", "-5", ""])
def test_table_spans_out_of_range_stay_within_the_grid(attr, value):
    ex = _extract(O.docx_table(**{attr: value}), "docx")
    [table] = [b.text for b in ex.blocks if b.kind == "table"]
    # a two-column grid: padding never widens a row past it (a real cell after gridBefore still counts)
    assert all(line.count("|") - 1 <= 3 for line in table.split("\n")), table
    assert "wide" in table and "value_clamped" in ex.report.flags


@pytest.mark.parametrize("code", ["110000", "D800", "FFFFFFFF", "xyz", "", "1" * 5000])
def test_symbol_that_is_no_character_gives_nothing(code):
    ex = _extract(O.docx_symbol(code), "docx")
    assert _texts(ex) == ["Sign  here"] and "value_clamped" in ex.report.flags


def test_symbol_in_range_is_read():
    assert _texts(_extract(O.docx_symbol("2022"), "docx")) == ["Sign \u2022 here"]


@pytest.mark.parametrize("value", ["2147483647", "-5", "INF", ""])
def test_outline_level_out_of_range_is_body_text(value):
    ex = _extract(O.docx_outline(value), "docx")
    assert [(b.kind, b.level) for b in ex.blocks] == [("paragraph", None)] and "value_clamped" in ex.report.flags


@pytest.mark.parametrize("idx", ["99999999999", "-1", "INF", ""])
def test_chart_point_with_an_index_out_of_range_is_left_out(idx):
    ex = _extract(O.pptx_chart(idx=idx), "pptx")
    assert [b.text for b in ex.blocks if b.kind == "table"] == [
        "| Category | Revenue |\n| --- | --- |\n| Q1 |  |\n| Q2 | 2.25 |"]
    assert "value_clamped" in ex.report.flags


def test_chart_value_beyond_a_float_is_kept_as_written():
    ex = _extract(O.pptx_chart(value="1e400"), "pptx")
    [table] = [b.text for b in ex.blocks if b.kind == "table"]
    assert "| Q1 | 1e400 |" in table and "inf" not in table


@pytest.mark.parametrize("value", INVALID)
@pytest.mark.parametrize("fmt", ["docx", "pptx"])
def test_every_numeric_attribute_out_of_range_never_raises(fmt, value):
    """Every numeric attribute of every part of the sample contract / deck set to one hostile value."""
    package = contract_docx() if fmt == "docx" else deck_pptx()
    ex = _extract(O.with_numbers(package, value), fmt)
    assert ex.report.broken_parts == 0, ex.report.part_errors
    assert "value_clamped" in ex.report.flags
    assert len(_texts(ex)) > 10


# ============================================================ 2. geometry clamped before layout
@pytest.mark.parametrize("x", ["20000000000000", "-27273042329600", "27273042316900", "INF", "1e400"])
def test_a_shape_far_off_the_slide_is_clamped_before_layout(tmp_path, x):
    outcome = _in_worker(tmp_path, "pptx", O.pptx_shape_at(x))
    assert outcome.kind == "ok", outcome.error  # before: a bin per point, the memory limit
    ex = outcome.result
    assert [b.text for b in ex.blocks] == ["A paragraph on the slide.", "A paragraph placed far away."]
    far = ex.blocks[1].bbox
    margin_w, margin_h = SLIDE_W * OFF_SLIDE_MARGIN, SLIDE_H * OFF_SLIDE_MARGIN
    assert -margin_w <= far.x0 <= far.x1 <= SLIDE_W + margin_w and -margin_h <= far.y0 <= far.y1 <= SLIDE_H + margin_h
    assert "geometry_clamped" in ex.report.flags


def test_huge_extents_and_scaled_groups_are_clamped(tmp_path):
    for data in (O.pptx_shape_at("0", cx="27273042316900", cy="27273042316900"), O.pptx_scaled_group()):
        outcome = _in_worker(tmp_path, "pptx", data)
        assert outcome.kind == "ok", outcome.error
        boxes = [b.bbox for b in outcome.result.blocks]
        assert boxes and all(b.x1 <= SLIDE_W * (1 + OFF_SLIDE_MARGIN) and math.isfinite(b.y1) for b in boxes)
        assert "geometry_clamped" in outcome.result.report.flags


def test_shapes_on_the_slide_are_not_flagged():
    ex = _extract(O.pptx_shape_at("914400"), "pptx")
    assert "geometry_clamped" not in ex.report.flags and "value_clamped" not in ex.report.flags


class _Box(NamedTuple):
    x0: float
    top: float
    x1: float
    bottom: float


def test_layout_allocates_per_box_not_per_unit():
    """Two columns a trillion units apart: the gutter between them is found without a bin per unit."""
    boxes = [_Box(0, 0, 100, 500), _Box(1e12, 0, 1e12 + 100, 500), _Box(0, 600, 1e12 + 100, 650)]
    tracemalloc.start()
    gutters = boxes_to_gutters(boxes, 0.5, 6, 0.05)
    ordered, columns = boxes_to_reading_order(boxes, 0.5, 6, 10, 0.2, 8, 0.05)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [(g.x0, g.x1) for g in gutters] == [(100, 1e12)]
    assert columns == 2 and ordered == boxes
    assert peak < 1 << 20


def test_layout_takes_boxes_with_coordinates_that_are_no_numbers():
    boxes = [_Box(0, 0, 100, 50), _Box(math.nan, 0, 50, 50), _Box(-math.inf, 10, math.inf, 20), _Box(200, 0, 300, 50)]
    assert boxes_to_gutters(boxes, 0.5, 6, 0.05) == boxes_to_gutters([boxes[0], boxes[3]], 0.5, 6, 0.05)
    ordered, _ = boxes_to_reading_order(boxes, 0.5, 6, 10, 0.2, 8, 0.05)
    assert sorted(map(id, ordered)) == sorted(map(id, boxes))


def test_a_huge_grid_span_is_clamped_to_the_grid(tmp_path):
    outcome = _in_worker(tmp_path, "docx", O.docx_table(span="2147483647", before="2147483647", after="2147483647"))
    assert outcome.kind == "ok", outcome.error
    assert "value_clamped" in outcome.result.report.flags


def test_a_table_padded_to_its_widest_row_stays_linear(tmp_path):
    """One row of 20,000 cells above 20,000 rows of one: padding every row would make 400 million
    cells; the rows keep their own length instead (as GFM allows)."""
    outcome = _in_worker(tmp_path, "docx", O.docx_padding_bomb())
    assert outcome.kind == "ok", outcome.error
    [table] = [b.text for b in outcome.result.blocks if b.kind == "table"]
    assert len(table) < 2_000_000 and sum(line.startswith("| x") for line in table.split("\n")) == 20_000


# ============================================================ 3. a broken part costs that part
DOCX_PARTS = ["word/header1.xml", "word/footer1.xml", "word/footnotes.xml", "word/comments.xml",
              "word/numbering.xml", "word/styles.xml", "word/settings.xml"]
# (A missing .rels member cannot be told from a part without relationships: only a broken one counts.)
DOCX_DAMAGE = [(p, d) for p in DOCX_PARTS for d in ("truncated", "missing")] + [
    ("word/_rels/document.xml.rels", "truncated")]


@pytest.mark.parametrize("part, damage", DOCX_DAMAGE)
def test_a_docx_part_that_cannot_be_read_costs_that_part(part, damage):
    package = contract_docx()
    broken = O.truncated_member(package, part) if damage == "truncated" else O.without_member(package, part)
    ex = _extract(broken, "docx")
    whole = _extract(package, "docx")
    assert ex.report.broken_parts == 1 and ex.report.part_errors[0].startswith(f"{part}: ")
    if damage == "missing":
        assert ex.report.part_errors == [f"{part}: missing from the package"]
    assert "broken_part" in ex.report.flags
    body = [b.text for b in whole.blocks if b.in_body and b.get_meta("part") is None]
    kept = set(_texts(ex))
    assert sum(t in kept for t in body) >= len(body) // 2  # the body stands
    lost = {"word/header1.xml": CONTRACT_HEADER, "word/footnotes.xml": CONTRACT_FOOTNOTE}.get(part)
    assert lost is None or not any(lost in t for t in kept)


@pytest.mark.parametrize("fmt, part, kept", [("docx", "word/header1.xml", "Master Services Agreement"),
                                             ("docx", "word/footnotes.xml", "Master Services Agreement"),
                                             ("pptx", "ppt/slides/slide2.xml", "Body text of slide 3."),
                                             ("pptx", "ppt/notesSlides/notesSlide1.xml", "Body text of slide 1.")])
def test_a_member_zipfile_cannot_decompress_costs_that_part(fmt, part, kept):
    ex = _extract(O.corrupt_deflate(contract_docx() if fmt == "docx" else O.deck(3), part), fmt)
    assert ex.report.part_errors == [f"{part}: error: Error -3 while decompressing data: invalid block type"]
    assert any(kept in t for t in _texts(ex))


@pytest.mark.parametrize("part", ["word/document.xml", "[Content_Types].xml", "_rels/.rels"])
def test_a_docx_whose_skeleton_cannot_be_read_fails_naming_the_part(part):
    message = _refused(O.truncated_member(contract_docx(), part), "docx")
    assert message.startswith("docx: unreadable package (XMLSyntaxError: ") and message.endswith(f") in {part}")


def test_a_pptx_whose_presentation_part_cannot_be_read_fails_naming_it():
    message = _refused(O.truncated_member(O.deck(3), "ppt/presentation.xml"), "pptx")
    assert message.startswith("pptx: unreadable package (XMLSyntaxError: ")
    assert message.endswith(") in ppt/presentation.xml")


def _by_page(ex) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for b in ex.blocks:
        out.setdefault(b.page, []).append(b.text)
    return out


def test_a_slide_that_cannot_be_read_costs_that_slide():
    ex = _extract(O.truncated_member(O.deck(3), "ppt/slides/slide2.xml"), "pptx")
    assert ex.report.pages == 3 and ex.report.part_errors[0].startswith("ppt/slides/slide2.xml: XMLSyntaxError")
    assert _by_page(ex) == {1: ["Slide 1 title", "Body text of slide 1.", "Notes of slide 1."],
                            3: ["Slide 3 title", "Body text of slide 3.", "Notes of slide 3."]}


def test_a_slide_missing_from_the_package_costs_that_slide():
    ex = _extract(O.without_member(O.deck(3), "ppt/slides/slide2.xml"), "pptx")
    assert ex.report.pages == 3 and set(_by_page(ex)) == {1, 3}
    assert ex.report.part_errors == ["ppt/slides/slide2.xml: missing from the package"]


@pytest.mark.parametrize("package, part, lost", [
    (O.deck, "ppt/notesSlides/notesSlide2.xml", "Notes of slide 2."),
    (O.pptx_chart, "ppt/charts/chart1.xml", "| Q2 | 2.25 |"),
    (lambda: O.pptx_picture(O.png()), "ppt/media/image1.png", None),
])
def test_a_part_python_pptx_drops_silently_is_reported_once(package, part, lost):
    """python-pptx drops a relationship whose target is missing; the missing part is reported, once."""
    ex = _extract(O.without_member(package(), part), "pptx", ocr="force")
    assert ex.report.part_errors == [f"{part}: missing from the package"]
    assert lost is None or not any(lost in t for t in _texts(ex))


@pytest.mark.parametrize("part, lost", [("ppt/notesSlides/notesSlide2.xml", "Notes of slide 2."),
                                        ("ppt/slides/_rels/slide2.xml.rels", "Notes of slide 2."),
                                        ("ppt/slideLayouts/slideLayout2.xml", None)])
def test_a_notes_slide_or_slide_relationships_that_cannot_be_read_cost_only_themselves(part, lost):
    ex = _extract(O.truncated_member(O.deck(3), part), "pptx")
    assert ex.report.part_errors[0].startswith(f"{part}: XMLSyntaxError") and ex.report.broken_parts == 1
    pages = _by_page(ex)
    assert all(f"Body text of slide {i}." in pages[i] for i in (1, 2, 3))
    assert lost is None or lost not in _texts(ex)


@pytest.mark.parametrize("kind", ["footnote", "endnote"])
def test_a_notes_part_that_cannot_be_read_costs_the_notes(kind):
    good = O.docx_with_note("<w:r><w:t>The note.</w:t></w:r>", kind)
    assert [b.text for b in _extract(good, "docx").blocks if b.kind == "footnote"] == ["The note."]
    ex = _extract(O.truncated_member(good, f"word/{kind}s.xml"), "docx")
    assert ex.report.part_errors[0].startswith(f"word/{kind}s.xml: XMLSyntaxError") and ex.report.broken_parts == 1
    assert "Body with a note." in _texts(ex) and "The note." not in _texts(ex)


def test_a_chart_that_cannot_be_read_costs_the_chart():
    ex = _extract(O.docx_chart(b"<c:chartSpace xmlns:c='urn:c'><broken"), "docx")
    assert _texts(ex) == ["Figures.", "After the chart."]
    assert ex.report.part_errors[0].startswith("word/charts/chart1.xml: XMLSyntaxError")
    assert ex.report.embedded_objects == 1
    ex = _extract(O.truncated_member(O.pptx_chart(), "ppt/charts/chart1.xml"), "pptx")
    assert ex.report.part_errors[0].startswith("ppt/charts/chart1.xml: XMLSyntaxError") and ex.report.pages == 1


def test_a_good_docx_chart_is_still_read():
    ex = _extract(O.docx_chart(), "docx")
    assert _texts(ex)[1:3] == ["Bar chart", "| Category | Revenue |\n| --- | --- |\n| Q1 | 1.5 |\n| Q2 | 2.25 |"]
    assert ex.report.broken_parts == 0


def test_an_equation_nested_too_deep_costs_the_equation():
    ex = _extract(O.docx_footnote_equation(), "docx")
    assert ex.report.part_errors == ["word/footnotes.xml (equation): RecursionError: nested too deeply to read"]
    assert [b.text for b in ex.blocks if b.kind == "footnote"] == ["Note text."]
    ex = _extract(O.pptx_comment_equation(), "pptx")
    assert ex.report.part_errors == ["ppt/comments/comment1.xml (equation): RecursionError: nested too deeply to read"]
    assert [b.text for b in ex.blocks if b.kind == "comment"] == ["Please check this."]


@pytest.mark.parametrize("fmt, part", [("docx", "word/footnotes.xml"), ("pptx", "ppt/comments/comment1.xml")])
def test_a_part_nested_too_deep_to_walk_costs_that_part(fmt, part):
    ex = _extract(O.docx_deep_footnote() if fmt == "docx" else O.pptx_deep_comment(), fmt)
    assert ex.report.part_errors == [f"{part}: RecursionError: nested too deeply to read"]
    assert ("Body with a note." if fmt == "docx" else "Body text of slide 1.") in _texts(ex)


@pytest.mark.parametrize("fmt", ["docx", "pptx"])
def test_a_picture_that_cannot_be_decoded_for_ocr_costs_the_picture(fmt):
    broken = O.png()[:300]
    data = O.docx_picture(broken) if fmt == "docx" else O.pptx_picture(broken)
    ex = _extract(data, fmt, ocr="force")  # the picture fails before the OCR engine is needed
    media = "word/media/image1.png" if fmt == "docx" else "ppt/media/image1.png"
    assert ex.report.part_errors == [f"{media}: OSError: image file is truncated"]
    assert ("Scan below." if fmt == "docx" else "A slide with a scan.") in _texts(ex)


def test_pictures_that_are_not_raster_images_are_not_failures():
    for blob in (b"\x01\x00\x00\x00" + bytes(100), b"<svg xmlns='http://www.w3.org/2000/svg'/>"):
        assert _extract(O.docx_picture(blob), "docx", ocr="force").report.broken_parts == 0


# ============================================================ 4. altChunk
HTML = ("<html><head><title>Not content</title><style>p {color: red}</style></head><body>"
        "<h2>Imported heading</h2><p>Imported <b>paragraph</b><br>on two lines.</p>"
        "<ul><li>One</li><li>Two<ul><li>Two and a half</li></ul></li></ul>"
        "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table><pre>code\n  indented</pre>"
        "</body></html>")
IMPORTED = [("heading", 2, "Imported heading"), ("paragraph", None, "Imported paragraph\non two lines."),
            ("list_item", 1, "One"), ("list_item", 1, "Two"), ("list_item", 2, "Two and a half"),
            ("table", None, "| k | v |\n| --- | --- |\n| a | 1 |"),
            ("code", None, "code\nindented")]  # block text is tidied like any DOCX paragraph's


@pytest.mark.parametrize("blob, content_type, name", [
    (HTML.encode(), "text/html", "word/afchunk.htm"),
    (b"<!DOCTYPE html>" + HTML.encode(), "text/html", "word/afchunk.htm"),
    (b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
     b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">' + HTML.encode(), "application/xhtml+xml",
     "word/afchunk.xhtml"),
    (b"\xff\xfe" + HTML.encode("utf-16-le"), "text/html", "word/afchunk.htm"),
    (O.mht(HTML), "message/rfc822", "word/afchunk.mht"),
], ids=["html", "html5-doctype", "xhtml", "utf16-html", "mht"])
def test_an_html_alt_chunk_is_read_in_place(blob, content_type, name):
    ex = _extract(O.docx_alt_chunk(blob, content_type, name), "docx")
    got = [(str(b.kind), b.level, b.text) for b in ex.blocks]
    assert got == [("paragraph", None, "Before the chunk."), *IMPORTED, ("paragraph", None, "After the chunk.")]
    assert all(b.get_meta("alt_chunk") == name for b in ex.blocks[1:-1])
    assert ex.report.raw_chars == sum(len("".join(b.text.split())) for b in ex.blocks)
    assert ex.report.flags == [] and ex.report.embedded_objects == 0


def test_a_plain_text_alt_chunk_is_read_line_by_line():
    ex = _extract(O.docx_alt_chunk("First line.\r\n\r\nSecond line.".encode("utf-16"), "text/plain",
                                   "word/afchunk.txt"), "docx")
    assert _texts(ex) == ["Before the chunk.", "First line.", "Second line.", "After the chunk."]


@pytest.mark.parametrize("blob, content_type", [
    (b"{\\rtf1\\ansi Hello from RTF}", "application/rtf"),
    (C.good_docx(), "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
])
def test_an_alt_chunk_that_is_not_read_is_counted_and_flagged(blob, content_type):
    ex = _extract(O.docx_alt_chunk(blob, content_type, "word/afchunk.bin"), "docx")
    assert _texts(ex) == ["Before the chunk.", "After the chunk."]
    assert ex.report.embedded_objects == 1 and "alt_chunk_unread" in ex.report.flags


def test_an_alt_chunk_that_cannot_be_read_is_a_failed_part():
    missing = O.without_member(O.docx_alt_chunk(HTML.encode(), "text/html"), "word/afchunk.htm")
    ex = _extract(missing, "docx")
    assert _texts(ex) == ["Before the chunk.", "After the chunk."]
    assert ex.report.part_errors == ["word/afchunk.htm: missing from the package"]


def test_an_alt_chunk_with_a_dtd_is_refused():
    data = O.docx_alt_chunk(b'<!DOCTYPE html [<!ENTITY e "x">]>' + HTML.encode(), "text/html")
    assert _refused(data, "docx") == "docx: word/afchunk.htm declares a DTD/entities (refused: OOXML parts never do)"


# ============================================================ 5. DTDs wherever they hide
def _dtd_error(part: str) -> str:
    return f"docx: {part} declares a DTD/entities (refused: OOXML parts never do)"


_HEAD = len(O.DECL) + len("<!--")  # where the comment's text starts in the document part
# Comment lengths whose end '-->' straddles the first and the second read, and one past 64 KiB.
COMMENTS = [FIRST_READ_BYTES - _HEAD - 1, FIRST_READ_BYTES - _HEAD - 2,
            FIRST_READ_BYTES + READ_BYTES - _HEAD - 1, FIRST_READ_BYTES + READ_BYTES - _HEAD - 2, 70_000]


@pytest.mark.parametrize("length", COMMENTS)
def test_a_dtd_after_a_long_comment_is_refused(length):
    assert _refused(O.docx_dtd_after_comment(length), "docx") == _dtd_error("word/document.xml")


@pytest.mark.parametrize("codec, bom, declare", [
    ("utf-16-le", b"\xff\xfe", "UTF-16"), ("utf-16-be", b"\xfe\xff", "UTF-16"), ("utf-16-le", b"", "UTF-16"),
    ("utf-16-be", b"", "UTF-16"), ("utf-16-le", b"\xff\xfe", None), ("utf-16-be", b"\xfe\xff", None),
    ("utf-32-le", b"", "UTF-32"), ("utf-32-be", b"", "UTF-32"), ("utf-32-le", b"\xff\xfe\x00\x00", None),
    ("utf-8", b"\xef\xbb\xbf", "UTF-8"),
])
def test_a_dtd_in_any_encoding_lxml_reads_is_refused(codec, bom, declare):
    data = O.docx_dtd_encoded(codec, bom, declare)
    assert _refused(data, "docx") == _dtd_error("word/document.xml")
    # the bytes are a real bypass of a UTF-8 byte search: lxml itself reads the DTD in them
    part = C.members(data)["word/document.xml"]
    assert b"<!DOCTYPE" not in part or codec == "utf-8"
    assert parse_xml(part).getroottree().docinfo.internalDTD is not None
    assert "EXPANDED" not in "".join(parse_xml(part).itertext())  # resolve_entities=False: the second line


@pytest.mark.parametrize("name, referenced_as", [
    ("word/media/payload", None), ("word/drawings/vmlDrawing1.vml", None), ("word/header7", "header"),
])
def test_a_dtd_in_a_member_of_any_name_is_refused(name, referenced_as):
    assert _refused(O.docx_dtd_member(name, referenced_as), "docx") == _dtd_error(name)


def test_a_dtd_in_the_content_types_is_refused():
    assert _refused(O.docx_content_types_dtd(), "docx") == _dtd_error("[Content_Types].xml")


def test_a_dtd_after_a_comment_of_megabytes_is_refused_in_linear_time(tmp_path):
    """8 MiB of comment (incompressible, under the zip caps): the check streams through it."""
    comment = random.Random(0).randbytes(4 << 20).hex()
    data = O.docx_with("", **{"word/document.xml": O.document(O.LAUGHS_BODY, f"<!--{comment}-->{O.DTD}")})
    outcome = _in_worker(tmp_path, "docx", data)
    assert outcome.kind == "refused" and outcome.error == _dtd_error("word/document.xml")
    assert outcome.peak_rss_mb < 400


@pytest.mark.parametrize("encoding", ["UTF-7", "Shift_JIS", "IBM037"])
def test_a_declared_encoding_that_cannot_be_checked_is_refused(encoding):
    message = _refused(O.docx_declared(encoding), "docx")
    assert message == (f"docx: word/document.xml declares the encoding {encoding.lower().replace('_', '-')!r}, "
                       "which cannot be checked for a DTD (refused: OOXML parts are UTF-8 or UTF-16)")


def test_a_declared_encoding_its_bytes_are_not_in_is_refused():
    assert _refused(O.docx_declared("UTF-16"), "docx") == (
        "docx: word/document.xml declares the encoding 'utf-16' but its bytes are in another one "
        "(refused: OOXML parts are UTF-8 or UTF-16)")


@pytest.mark.parametrize("encoding", ["ISO-8859-1", "us-ascii", "windows-1252", "utf8"])
def test_ascii_compatible_declared_encodings_are_read(encoding):
    assert _texts(_extract(O.docx_declared(encoding), "docx")) == ["Plain text."]


# ============================================================ 6. macro-enabled packages, stable errors
def test_a_docm_renamed_docx_is_read_and_flagged():
    ex = _extract(O.docm(), "docx")
    assert _texts(ex) == ["Remote working", "A short policy paragraph about remote working and equipment."]
    assert "macro_enabled" in ex.report.flags


@pytest.mark.parametrize("content_type, macros", [
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml", False),
    ("application/vnd.ms-word.template.macroEnabledTemplate.main+xml", True),
])
def test_word_templates_are_read(content_type, macros):
    ex = _extract(O.with_main_type(C.good_docx(), content_type), "docx")
    assert len(ex.blocks) == 2 and ("macro_enabled" in ex.report.flags) == macros


@pytest.mark.parametrize("content_type, macros", [
    ("application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml", True),
    ("application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml", False),
    ("application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml", True),
    ("application/vnd.openxmlformats-officedocument.presentationml.template.main+xml", False),
    ("application/vnd.ms-powerpoint.template.macroEnabled.main+xml", True),
])
def test_powerpoint_variants_are_read(content_type, macros):
    ex = _extract(O.with_main_type(C.good_pptx(), content_type, "ppt/presentation.xml"), "pptx")
    assert _texts(ex) == ["Results", "Quarterly results were better than forecast."]
    assert ("macro_enabled" in ex.report.flags) == macros


REFUSED = {
    "xlsx main part as docx": (lambda: O.with_main_type(
        C.good_docx(), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"), "docx",
        "docx: unreadable package (its main part is an Excel workbook, content type "
        "'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml'); "
        "give the file its real extension (.xlsx) or remove it from the source"),
    "docx as pptx": (C.good_docx, "pptx",
                     "pptx: unreadable package (its main part is a Word document, content type "
                     "'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'); "
                     "give the file its real extension (.docx) or remove it from the source"),
    "unknown main part": (lambda: O.with_main_type(C.good_docx(), "application/xml"), "docx",
                          "docx: unreadable package (its main part has content type 'application/xml'); "
                          "save it again as .docx in the application that made it, or remove it from the source"),
    "truncated": (lambda: C.truncated(C.good_docx()), "docx", None),
    "main part broken": (lambda: O.truncated_member(C.good_pptx(), "ppt/presentation.xml"), "pptx", None),
    "swapped parts": (C.swapped_parts_pptx, "pptx", None),
    "dtd": (C.billion_laughs_docx, "docx", None),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_are_stable_and_carry_no_object_address(name):
    build, fmt, expected = REFUSED[name]
    first, second = _refused(build(), fmt), _refused(build(), fmt)
    assert first == second and " at 0x" not in first and "object at" not in first
    assert expected is None or first == expected
