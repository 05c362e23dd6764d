"""Which PDF pages and pictures to OCR, and their text merged into the extracted blocks.

A page without a usable text layer (no chars, or mostly unmapped glyphs) is rendered at
`OcrSettings.page_dpi` and OCR'd whole: its paragraphs replace the page's text-layer blocks (kept,
dropped as `ocr_replaced`), as body paragraphs when the source says `ocr_scanned_body`, else as
image_text. On a page with a usable text layer, each picture object large enough to hold text and
not already covered by text-layer chars is rendered at `picture_dpi`; unless it is a photo or has no
marks set like text (ocr/gate.py: skipped and counted), its text becomes one image_text block
placed among its neighbours by position. `ocr: force` renders every
page (the text layer is replaced wherever OCR reads something).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docclean_assets.extract.model import BBox, Block, DocReport, DropReason, Extraction, Kind, count_chars, renumber
from docclean_assets.extract.ocr.engine import OcrRun
from docclean_assets.extract.ocr.blocks import (
    Frame,
    accept_picture_text,
    insert_at_position,
    mean_confidence,
    paragraphs_box,
    paragraphs_text,
    words_to_paragraphs,
)
from docclean_assets.extract.pdf.chars import Char
from docclean_assets.extract.pdf.pdfium import PAGE_TURN_META, PageFrame, opened_page, page_frame
from docclean_assets.extract.ocr.settings import OcrSettings

_CID = re.compile(r"\(cid:\d+\)")


def char_is_unmapped(text: str) -> bool:
    """True for a glyph without a Unicode meaning: private-use, U+FFFD or a control code."""
    for ch in text:
        o = ord(ch)
        if 0xE000 <= o <= 0xF8FF or o >= 0xF0000 or o == 0xFFFD or (o < 0x20 and not ch.isspace()):
            return True
    return False


# Any code point char_is_unmapped takes for unmapped (controls that are not whitespace: str.isspace()
# holds for \t-\r and \x1c-\x1f): a page whose text has none needs no test char by char.
_UNMAPPED = re.compile("[\x00-\x08\x0e-\x1b\ue000-\uf8ff\ufffd\U000f0000-\U0010ffff]")


def unmapped_count(chars: Sequence[Char]) -> int:
    """Non-space chars of a page that carry no text: unmapped glyphs and '(cid:N)' spellings."""
    text = "".join([c.text for c in chars])
    cid = sum(len(m.group(0)) - m.group(0).count(" ") for m in _CID.finditer(text))
    if _UNMAPPED.search(text) is None:
        return cid
    return cid + sum(1 for c in chars if not c.text.isspace() and char_is_unmapped(c.text))


def page_needs_ocr(chars: Sequence[Char], s: OcrSettings) -> str | None:
    """Why a page's text layer is unusable ('no_text' | 'unmapped'), or None when it is usable."""
    n = len(chars) - sum(map(str.isspace, [c.text for c in chars]))
    if n < s.min_text_chars:
        return "no_text"
    if unmapped_count(chars) / n >= s.max_unmapped_fraction:
        return "unmapped"
    return None


class Picture(NamedTuple):
    """A picture object on a page: its box in the page's reading frame (points) and its pixel size."""

    box: BBox
    px_w: int
    px_h: int


def _to_page(obj: pdfium.PdfObject, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """An object's bounds carried out of the form XObjects holding it into page user space."""
    left, bottom, right, top = box
    form = obj.container
    while form is not None:
        m = form.get_matrix()
        pts = [(m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f) for x in (left, right) for y in (bottom, top)]
        left, right = min(x for x, _ in pts), max(x for x, _ in pts)
        bottom, top = min(y for _, y in pts), max(y for _, y in pts)
        form = form.container
    return left, bottom, right, top


def page_pictures(page: pdfium.PdfPage, frame: PageFrame) -> list[Picture]:
    """The page's image objects, those inside form XObjects included, boxed in `frame`."""
    out = []
    for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)):
        try:
            left, bottom, right, top = _to_page(obj, obj.get_bounds())
            px_w, px_h = obj.get_px_size()
        except Exception:  # noqa: BLE001 - an unreadable image object is simply not OCR'd
            continue
        x0, y0, x1, y1 = frame.box(left, bottom, right, top)
        x0, y0 = max(0.0, x0), max(0.0, y0)
        x1, y1 = min(frame.width, x1), min(frame.height, y1)
        if x1 > x0 and y1 > y0:
            out.append(Picture(BBox(x0, y0, x1, y1), int(px_w), int(px_h)))
    return out


def picture_worth_ocr(pic: Picture, chars: Sequence[Char], s: OcrSettings, force: bool) -> bool:
    """True when a picture may hold text the text layer lacks: large enough, and (unless forced)
    not already overlaid by text-layer chars (a scan with an invisible OCR layer)."""
    if pic.box.width < s.picture_min_width_pt or pic.box.height < s.picture_min_height_pt:
        return False
    if min(pic.px_w, pic.px_h) < s.picture_min_side_px:
        return False
    if force:
        return True
    b = pic.box
    inside = sum(1 for c in chars if not c.text.isspace()
                 and b.x0 <= (c.x0 + c.x1) / 2 <= b.x1 and b.y0 <= (c.top + c.bottom) / 2 <= b.y1)
    return inside <= s.picture_max_layer_chars


def _render(page: pdfium.PdfPage, frame: PageFrame, dpi: int, box: BBox | None = None):
    """The page in `frame` (or the `box` of it, points of that frame) as a greyscale PIL image."""
    crop = (0.0, 0.0, 0.0, 0.0)
    if box is not None:
        w, h = frame.width, frame.height
        crop = (box.x0, max(0.0, h - box.y1), max(0.0, w - box.x1), box.y0)
    return page.render(scale=dpi / 72.0, rotation=frame.turn, crop=crop, grayscale=True).to_pil()


def _meta(run: OcrRun, source: str, conf: float, frame: PageFrame) -> tuple[tuple[str, str], ...]:
    turn = ((PAGE_TURN_META, str(frame.turn)),) if frame.turn else ()
    return (("page_height", f"{frame.height:.1f}"), ("page_width", f"{frame.width:.1f}"), *turn, ("ocr", "tesseract"),
            ("ocr_source", source), ("confidence", f"{conf:.1f}"))


def page_to_ocr_blocks(page: pdfium.PdfPage, frame: PageFrame, number: int, run: OcrRun) -> list[Block] | None:
    """The page rendered in `frame`, its paragraphs as blocks (body or image_text), or None when
    OCR could not run."""
    s = run.settings
    image = _render(page, frame, s.page_dpi)
    words = run.read(image, s.page_dpi, picture=False)
    if words is None:
        return None
    run.pages += 1
    scale = 72.0 / s.page_dpi
    paras = words_to_paragraphs(words, Frame(0.0, 0.0, scale, scale), s)
    kind = Kind.PARAGRAPH if run.scanned_body else Kind.IMAGE_TEXT
    out = []
    for p in paras:
        run.confidences.extend(p.confidences)
        run.ocr_chars += count_chars(p.text)
        out.append(Block(kind=kind, text=p.text, page=number, bbox=p.bbox,
                         meta=_meta(run, "page", p.confidence, frame)))
    return out


def picture_to_block(page: pdfium.PdfPage, frame: PageFrame, number: int, pic: Picture, run: OcrRun) -> Block | None:
    """One picture's text as an image_text block; None for a photo, an empty read or a spent budget."""
    s = run.settings
    if not run.picture_allowed():
        return None
    image = _render(page, frame, s.picture_dpi, pic.box)
    if not run.worth_reading(image, s.picture_dpi):
        return None
    words = run.read(image, s.picture_dpi)
    if words is None:
        return None
    scale = 72.0 / s.picture_dpi
    paras = words_to_paragraphs(words, Frame(pic.box.x0, pic.box.y0, scale, scale), s)
    if not accept_picture_text(paras, run):
        return None
    return Block(kind=Kind.IMAGE_TEXT, text=paragraphs_text(paras), page=number, bbox=paragraphs_box(paras),
                 meta=_meta(run, "picture", mean_confidence(paras), frame))


def _merge(blocks: list[Block], page_new: dict[int, tuple[list[Block], list[Block]]]) -> list[Block]:
    """The blocks with each page's OCR paragraphs (first, replacing the text layer) and picture
    blocks (by position) merged in; anchors follow their blocks' new positions."""
    by_page: dict[int | None, list[Block]] = {}
    for b in blocks:
        by_page.setdefault(b.page, []).append(b)
    pages = sorted({p for p in by_page if p is not None} | set(page_new))
    out: list[Block] = list(by_page.get(None, []))
    for n in pages:
        old = by_page.get(n, [])
        paras, pictures = page_new.get(n, ([], []))
        if paras:
            old = [b if b.drop_reason is not None else b.dropped(DropReason.OCR_REPLACED) for b in old]
        merged = list(old)
        for pic in pictures:
            merged.insert(insert_at_position(merged, pic), pic)
        out.extend(paras + merged)
    new_ids = {id(b) for p, q in page_new.values() for b in p + q}
    old_to_new = {}
    for i, b in enumerate(out):
        if id(b) not in new_ids:
            old_to_new[b.seq] = i
    out = [b if b.anchor is None or id(b) in new_ids else replace(b, anchor=old_to_new.get(b.anchor)) for b in out]
    return renumber(out)


def extraction_with_ocr(pdf: pdfium.PdfDocument, ext: Extraction, run: OcrRun, chars_by_page: dict[int, list[Char]],
                        turns: dict[int, int], skip: frozenset[int] = frozenset(),
                        pictureless: frozenset[int] = frozenset()) -> Extraction:
    """A new extraction: `ext` with OCR'd pages and pictures of the open document `pdf` merged in
    and the OCR counts reported (`ext` and its report are left as they are); `chars_by_page` and
    `turns` are each page's text-layer chars and the turn they were read in; pages in `skip` (set
    aside over the character caps) are not read, nor are pages in `pictureless` (known to hold no
    picture object) whose text layer is usable, unless OCR is forced."""
    if not run.enabled:
        return ext
    page_new: dict[int, tuple[list[Block], list[Block]]] = {}
    for index in range(len(pdf)):
        number = index + 1
        if number in skip:
            continue
        chars = chars_by_page.get(number, [])
        if number in pictureless and run.mode != "force" and page_needs_ocr(chars, run.settings) is None:
            continue  # what _page would find: no page to read, no picture
        try:
            with opened_page(pdf, index) as page:
                frame = page_frame(page).turned(turns.get(number, 0))  # the frame the text layer was read in
                page_new[number] = _page(page, frame, number, chars, run)
        except Exception:  # noqa: BLE001 - a page PDFium cannot render loses only its OCR
            run.flag("ocr_failed")
    page_new = {n: v for n, v in page_new.items() if v[0] or v[1]}
    body_ocr = sum(count_chars(b.text) for paras, _ in page_new.values() for b in paras if b.kind == Kind.PARAGRAPH)
    blocks = _merge(ext.blocks, page_new) if page_new else list(ext.blocks)
    return Extraction(blocks, _reported(ext.report, run, blocks, body_ocr), ext.trace)


def _reported(report: DocReport, run: OcrRun, blocks: list[Block], body_ocr: int) -> DocReport:
    """A copy of `report` with the OCR counts of `run` and the `body_ocr` chars OCR added to the body."""
    out = replace(report, flags=list(report.flags), part_errors=list(report.part_errors))
    replaced = sum(count_chars(b.text) for b in blocks if b.drop_reason == DropReason.OCR_REPLACED)
    run.to_report(out, out.raw_chars - replaced)  # the text layer OCR did not replace
    out.raw_chars += body_ocr
    return out


def _page(page: pdfium.PdfPage, frame: PageFrame, number: int, chars: list[Char], run: OcrRun
          ) -> tuple[list[Block], list[Block]]:
    """(page paragraphs, picture blocks) OCR'd from one page, boxed in `frame`."""
    s = run.settings
    reason = "force" if run.mode == "force" else page_needs_ocr(chars, s)
    if reason is not None:
        if reason == "unmapped":
            run.flag("unmapped_text")
        if pdfium_c.FPDFPage_CountObjects(page.raw) <= 0:  # nothing drawn (a blank page, a page set aside by the guard)
            return [], []
        paras = page_to_ocr_blocks(page, frame, number, run)
        if paras:
            return paras, []
        if paras is not None or reason == "force":
            return [], []
    pictures = [p for p in page_pictures(page, frame) if picture_worth_ocr(p, chars, s, run.mode == "force")]
    pictures.sort(key=lambda p: -(p.box.width * p.box.height))
    blocks = []
    for pic in pictures:
        blk = picture_to_block(page, frame, number, pic, run)
        if blk is not None:
            blocks.append(blk)
    return [], blocks
