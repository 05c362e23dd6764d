"""PPTX backend: python-pptx opens the package, lxml reads each slide's shape tree.

Per slide: title placeholder(s) first, then the other shapes in geometric reading order (the
column logic of `extract.layout`, shared with the PDF path), then slide-number/date/footer placeholders (dropped), SmartArt text with its frame,
speaker notes (one block) and slide comments. One slide is one `page`; bboxes are in points,
within the slide widened by OfficeSettings.off_slide_margin (a shape placed further off is clamped:
flag geometry_clamped). A slide, notes slide, comments part, chart, diagram, equation or picture that
cannot be read costs only itself (counted and flagged `broken_part`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from docclean_assets.extract.errors import ExtractionError
from docclean_assets.extract.model import BBox, Block, DocReport, DropReason, Extraction, Kind, count_chars, renumber
from docclean_assets.extract.office.common import (
    A_NS,
    C_NS,
    M_NS,
    MC_ALTERNATE,
    R_NS,
    alternate_branch,
    iter_text_nodes,
    library_error,
    markdown_table,
    parse_xml,
    read_part,
    table_has_text,
    tidy,
    xml_int,
)
from docclean_assets.extract.layout import boxes_to_reading_order
from docclean_assets.extract.office.charts import chart_to_data
from docclean_assets.extract.office.math import MATH_ROOTS, omml_to_text
from docclean_assets.extract.ocr.engine import OcrRun
from docclean_assets.extract.ocr.blocks import place_by_position
from docclean_assets.extract.ocr.office import blob_to_picture_text
from docclean_assets.extract.office.package import Opened, open_package
from docclean_assets.extract.office.pptx_geometry import Frame, Xf, group_xf, xfrm_box
from docclean_assets.extract.settings import Settings

P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
DGM_NS = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
# Paragraph levels a:pPr/@lvl (ST_TextIndentLevelType).
MAX_TEXT_LEVEL = 8


def p(name: str) -> str:
    return f"{{{P_NS}}}{name}"


def a(name: str) -> str:
    return f"{{{A_NS}}}{name}"


A_T, M_T, A_BR = a("t"), f"{{{M_NS}}}t", a("br")
TEXT_TAGS = frozenset({A_T, M_T})
_TITLE_TYPES = frozenset({"title", "ctrTitle"})
_HF_TYPES = frozenset({"sldNum", "dt", "ftr", "hdr"})
_NOTES_SKIP_TYPES = frozenset({"sldImg", "sldNum", "hdr", "ftr", "dt"})
_BODY_PH_TYPES = frozenset({"body", "obj"})
_GRAPHIC_CHART = C_NS
_GRAPHIC_OLE = "http://schemas.openxmlformats.org/presentationml/2006/ole"
_GRAPHIC_TABLE = "http://schemas.openxmlformats.org/drawingml/2006/table"
_GRAPHIC_DIAGRAM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_NOTES_RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide"


@dataclass
class _Shape:
    """A shape that yields blocks: its box and its (kind, text, level, drop) entries."""

    bbox: BBox | None
    entries: list[tuple[str, str, int | None, str | None]] = field(default_factory=list)
    role: str = "body"  # "title", "body", "aside" (not body text) or "chrome"
    inset: float = 0.0  # points the text area lies inside the frame on the left and right

    # The text area, for `extract.layout` (only shapes with a bbox are laid out).
    @property
    def x0(self) -> float:
        return self.bbox.x0 + min(self.inset, self.bbox.width / 2)  # type: ignore[union-attr]

    @property
    def x1(self) -> float:
        return self.bbox.x1 - min(self.inset, self.bbox.width / 2)  # type: ignore[union-attr]

    @property
    def top(self) -> float:
        return self.bbox.y0  # type: ignore[union-attr]

    @property
    def bottom(self) -> float:
        return self.bbox.y1  # type: ignore[union-attr]


def _level(ppr: etree._Element | None, report: DocReport | None) -> int:
    """A paragraph's a:pPr/@lvl, 0-8."""
    level = xml_int(ppr.get("lvl") if ppr is not None else None, 0, MAX_TEXT_LEVEL, 0, report)
    return level  # type: ignore[return-value]


def _para_text(para: etree._Element, report: DocReport | None = None, part: str = "") -> str:
    """Text of one a:p: runs, fields and math, a:br as a newline, one mc branch; an equation that
    cannot be read costs itself (a failed part of `report`)."""
    out: list[str] = []

    def walk(el: etree._Element) -> None:
        for child in el:
            tag = child.tag
            if tag == A_T or tag == M_T:
                out.append(child.text or "")
            elif tag == A_BR:
                out.append("\n")
            elif tag in MATH_ROOTS:
                out.append(_equation(child, report, part))
            elif tag in (a("pPr"), a("rPr"), a("endParaRPr")):
                continue
            elif tag == MC_ALTERNATE:
                branch = alternate_branch(child)
                if branch is not None:
                    walk(branch)
            elif isinstance(tag, str):
                walk(child)

    walk(para)
    return "".join(out).replace("\x0b", "\n")


def _equation(el: etree._Element, report: DocReport | None, part: str) -> str:
    if report is None:
        return omml_to_text(el)
    return read_part(report, f"{part} (equation)", lambda: omml_to_text(el)) or ""


def _placeholder(el: etree._Element) -> etree._Element | None:
    for nv in ("nvSpPr", "nvPicPr", "nvGraphicFramePr", "nvGrpSpPr"):
        ph = el.find(f"{p(nv)}/{p('nvPr')}/{p('ph')}")
        if ph is not None:
            return ph
    return None


def _is_bulleted(para: etree._Element, default: bool, report: DocReport | None) -> bool:
    ppr = para.find(a("pPr"))
    if ppr is not None:
        if ppr.find(a("buNone")) is not None:
            return False
        if any(ppr.find(a(t)) is not None for t in ("buChar", "buAutoNum", "buBlip")):
            return True
        if _level(ppr, report) > 0:
            return True
    return default


def _table_rows(tbl: etree._Element, report: DocReport, part: str) -> list[list[str]]:
    rows: list[list[str]] = []
    for tr in tbl.iter(a("tr")):
        row = []
        for tc in tr.findall(a("tc")):
            paras = (" ".join(_para_text(q, report, part).split()) for q in tc.iter(a("p")))
            text = " ".join(t for t in paras if t)
            row.append(text)  # hMerge/vMerge continuation cells are empty: merged text stays in the first
        rows.append(row)
    return rows


class _SlideReader:
    """Shapes of one slide (or notes slide) flattened with their group transforms."""

    def __init__(self, part, report: DocReport, is_first_slide: bool, opened: Opened, frame: Frame) -> None:
        self.part = part
        self.name = str(part.partname).lstrip("/")
        self.report = report
        self.first = is_first_slide
        self.opened = opened  # to skip parts set aside when the package was opened
        self.frame = frame
        self.shapes: list[_Shape] = []
        self.raw_chars = 0
        self.ocr: OcrRun | None = None  # set to OCR picture shapes
        self.pictures: list[Block] = []  # their OCR'd text, placed by position after reading order

    def read(self, tree: etree._Element, positions: dict, xf: Xf = Xf()) -> None:
        for el in tree:
            tag = el.tag
            if tag == MC_ALTERNATE:
                branch = alternate_branch(el)
                if branch is not None:
                    self.read(branch, positions, xf)
            elif tag == p("grpSp"):
                self.read(el, positions, group_xf(el, xf, self.report))
            elif tag == p("sp"):
                self._sp(el, self._box(el, positions, xf, f"{p('spPr')}/{a('xfrm')}"))
            elif tag == p("pic"):
                self.report.picture_shapes += 1
                box = self._box(el, positions, xf, f"{p('spPr')}/{a('xfrm')}")
                self._alt_text(el, box)
                self._ocr_picture(el, box)
            elif tag == p("graphicFrame"):
                self._frame(el, self._box(el, positions, xf, p("xfrm")))

    def _box(self, el, positions: dict, xf: Xf, path: str) -> BBox | None:
        """The shape's box in points, clamped to the frame around the slide."""
        box = xfrm_box(el.find(path), xf, self.report)
        if box is None and el in positions:  # placeholder inheriting its position from the layout
            box = positions[el]
        return self.frame.clamp(box, self.report) if box is not None else None

    def _related(self, rid: str | None, what: str):
        """The part a relationship id of this slide points to; None when there is none (a failed
        part) or it was set aside (already reported)."""
        try:
            target = self.part.related_part(rid) if rid else None
        except KeyError:
            target = None
        if target is None:
            if not self.opened.dangles(self.part, rid):  # a missing part is reported as such, once
                self.report.part_failed(f"{self.name} {what} {rid or '(no id)'}", "its relationship names no part")
            return None
        return None if self.opened.unreadable(target) else target

    def _sp(self, el: etree._Element, box: BBox | None) -> None:
        if el.find(f"{p('spPr')}/{a('blipFill')}") is not None:
            self.report.picture_shapes += 1
        body = el.find(p("txBody"))
        if body is None:
            return
        paras = [(q, tidy(_para_text(q, self.report, self.name))) for q in body.findall(a("p"))]
        paras = [(q, t) for q, t in paras if t]
        if not paras:
            return
        ph = _placeholder(el)
        ph_type = (ph.get("type") or "obj") if ph is not None else None
        if ph_type in _TITLE_TYPES:
            kind = Kind.TITLE if self.first else Kind.HEADING
            level = None if self.first else 1
            text = "\n".join(t for _, t in paras)
            self.shapes.append(_Shape(box, [(kind, text, level, None)], role="title"))
            return
        if ph_type in _HF_TYPES:
            hf = str(DropReason.HEADER_FOOTER)
            self.shapes.append(_Shape(box, [(Kind.PARAGRAPH, t, None, hf) for _, t in paras], role="chrome"))
            return
        default_bullet = ph_type in _BODY_PH_TYPES and len(paras) > 1
        entries = []
        for q, t in paras:
            if _is_bulleted(q, default_bullet, self.report):
                entries.append((Kind.LIST_ITEM, t, _level(q.find(a("pPr")), self.report) + 1, None))
            else:
                entries.append((Kind.PARAGRAPH, t, None, None))
        self.shapes.append(_Shape(box, entries))

    def _frame(self, el: etree._Element, box: BBox | None) -> None:
        data = el.find(f"{a('graphic')}/{a('graphicData')}")
        if data is None:
            return
        uri = data.get("uri", "")
        if uri == _GRAPHIC_TABLE:
            tbl = data.find(a("tbl"))
            rows = _table_rows(tbl, self.report, self.name) if tbl is not None else []
            if table_has_text(rows):
                self.shapes.append(_Shape(box, [(Kind.TABLE, markdown_table(rows), None, None)]))
        elif uri == _GRAPHIC_CHART:
            self.report.embedded_objects += 1
            self._chart(data, box)
        elif uri == _GRAPHIC_OLE or data.find(f".//{p('oleObj')}") is not None:
            self.report.embedded_objects += 1
        elif uri == _GRAPHIC_DIAGRAM:
            self._diagram(data, box)

    def _alt_text(self, el: etree._Element, box: BBox | None) -> None:
        """A picture's description (alt text) as a dropped-from-body image_text block."""
        cnv = el.find(f"{p('nvPicPr')}/{p('cNvPr')}")
        descr = tidy(cnv.get("descr", "")) if cnv is not None else ""
        if descr:
            self.shapes.append(_Shape(box, [(Kind.IMAGE_TEXT, descr, None, None)], role="aside"))

    def _ocr_picture(self, el: etree._Element, box: BBox | None) -> None:
        """The text OCR reads in a picture shape's image, as an image_text block with the shape's slide
        box; a picture that cannot be decoded is a failed part."""
        if self.ocr is None:
            return
        blip = el.find(f"{p('blipFill')}/{a('blip')}")
        rid = blip.get(f"{{{R_NS}}}embed") if blip is not None else None
        if not rid:
            return
        image = self._related(rid, "picture")
        if image is None:
            return
        found = read_part(self.report, str(image.partname).lstrip("/"),
                          lambda: blob_to_picture_text(image.blob, self.ocr, box))
        if found is not None:
            self.pictures.append(Block(kind=Kind.IMAGE_TEXT, text=found.text, bbox=found.bbox or box, meta=found.meta()))

    def _read_related(self, rid: str | None, what: str, read):
        """What `read` makes of the XML of a related part; None when it is missing, was set aside or
        cannot be read (each a failed part, reported once)."""
        target = self._related(rid, what)
        if target is None:
            return None
        return read_part(self.report, str(target.partname).lstrip("/"), lambda: read(parse_xml(target.blob)))

    def _chart(self, data: etree._Element, box: BBox | None) -> None:
        """A chart's data as a caption and a Markdown table placed with the body shapes (only a
        caption, as image text, when the chart caches no data)."""
        chart = data.find(f"{{{_GRAPHIC_CHART}}}chart")
        rid = chart.get(f"{{{R_NS}}}id") if chart is not None else None
        if not rid:
            return
        chart_data = self._read_related(rid, "chart", lambda root: chart_to_data(root, self.report))
        if chart_data is None:  # a missing or broken chart part loses only the chart's text
            return
        self.raw_chars += chart_data.chars
        if chart_data.table:
            entries = [(Kind.CAPTION, chart_data.caption, None, None), (Kind.TABLE, chart_data.table, None, None)]
            self.shapes.append(_Shape(box, entries))
        else:
            self.shapes.append(_Shape(box, [(Kind.IMAGE_TEXT, chart_data.caption, None, None)], role="aside"))

    def _diagram(self, data: etree._Element, box: BBox | None) -> None:
        """SmartArt: the node texts of the diagram data part, one paragraph each."""
        rel_ids = data.find(f"{{{DGM_NS}}}relIds")
        rid = rel_ids.get(f"{{{R_NS}}}dm") if rel_ids is not None else None
        if not rid:
            return
        read = self._read_related(rid, "diagram", self._diagram_entries)
        if read is None:  # a missing or broken diagram part loses only the diagram's text
            return
        raw, entries = read
        self.raw_chars += raw
        if entries:
            self.shapes.append(_Shape(box, entries))

    def _diagram_entries(self, root: etree._Element) -> tuple[int, list]:
        """Raw characters and one paragraph entry per node text of a diagram data part."""
        raw = sum(count_chars(t.text or "") for t in iter_text_nodes(root, TEXT_TAGS))
        entries = []
        for pt in root.iter(f"{{{DGM_NS}}}pt"):
            if pt.get("type", "node") != "node":
                continue
            for q in pt.iter(a("p")):
                t = tidy(_para_text(q, self.report, self.name))
                if t:
                    entries.append((Kind.PARAGRAPH, t, None, None))
        return raw, entries


def _positions(shapes) -> dict:
    """Element -> bbox for top-level shapes, with placeholder positions inherited from the layout."""
    out = {}
    for shape in shapes:
        try:
            left, top, width, height = shape.left, shape.top, shape.width, shape.height
            if None in (left, top, width, height):
                continue
            out[shape._element] = Xf().box(left, top, width, height)
        except Exception:  # an unresolvable placeholder (or one too far out for a float) has no position
            continue
    return out


def _name(part) -> str:
    """A part's member name in the package ('ppt/slides/slide1.xml')."""
    return str(part.partname).lstrip("/")


def _notes_text(notes: etree._Element, report: DocReport, name: str) -> tuple[str, int]:
    """Speaker notes of a notes slide (body text only) and its raw characters."""
    raw = sum(count_chars(t.text or "") for t in iter_text_nodes(notes, TEXT_TAGS))
    lines = []
    for sp in notes.iter(p("sp")):
        ph = _placeholder(sp)
        if ph is not None and ph.get("type") in _NOTES_SKIP_TYPES:
            continue
        body = sp.find(p("txBody"))
        if body is None:
            continue
        lines += [_para_text(q, report, name) for q in body.findall(a("p"))]
    return tidy("\n".join(lines)), raw


def _related_parts(source, opened: Opened, accept) -> list:
    """The parts `source` relates to with a relationship type `accept` says yes to, but those set
    aside when the package was opened (already reported)."""
    return [rel.target_part for rel in source.rels.values()
            if not rel.is_external and accept(rel.reltype) and not opened.unreadable(rel.target_part)]


def _comment_authors(prs, opened: Opened, report: DocReport) -> dict[str, str]:
    authors: dict[str, str] = {}
    for part in _related_parts(prs.part, opened, lambda t: t.lower().endswith(("commentauthors", "/authors"))):
        root = read_part(report, _name(part), lambda: parse_xml(part.blob))
        for el in root.iter() if root is not None else ():
            if isinstance(el.tag, str) and el.tag.rsplit("}", 1)[-1] in ("cmAuthor", "author") and el.get("id"):
                authors[el.get("id")] = el.get("name", "")
    return authors


def _comments(slide, authors: dict[str, str], opened: Opened, report: DocReport) -> list[tuple[str, str]]:
    """(author, text) of the legacy and modern comments of a slide; a comments part that cannot be
    read costs its comments only."""
    out = []
    for part in _related_parts(slide.part, opened, lambda t: t.endswith("/comments")):
        out += read_part(report, _name(part), lambda: _part_comments(parse_xml(part.blob), authors, report,
                                                                      _name(part))) or []
    return out


def _part_comments(root: etree._Element, authors: dict[str, str], report: DocReport,
                   name: str) -> list[tuple[str, str]]:
    """(author, text) of each comment of one comments part."""
    out = []
    for cm in root.iter():
        if not isinstance(cm.tag, str) or cm.tag.rsplit("}", 1)[-1] != "cm":
            continue
        legacy = cm.find(p("text"))
        if legacy is not None:
            text = legacy.text or ""
        else:
            text = "\n".join(_para_text(q, report, name) for q in cm.iter(a("p")))
        text = tidy(text)
        if text:
            out.append((authors.get(cm.get("authorId", ""), ""), text))
    return out


def _slides(prs, opened: Opened, report: DocReport) -> list:
    """The deck's slides in order, None for one that cannot be read (a failed part): a slide list
    entry naming no part or no slide part, or a slide part set aside when the package was opened."""
    from pptx.parts.slide import SlidePart

    sld_ids = prs.element.find(p("sldIdLst"))
    out = []
    for number, sld_id in enumerate(sld_ids if sld_ids is not None else [], start=1):
        rid = sld_id.get(f"{{{R_NS}}}id")
        try:
            part = prs.part.related_part(rid)
        except KeyError:
            if not opened.dangles(prs.part, rid):  # a missing slide part is reported as such, once
                report.part_failed(f"slide {number}", f"its relationship {rid} names no part")
            part = None
        if part is not None and not isinstance(part, SlidePart):
            report.part_failed(f"slide {number}", f"{_name(part)} is no slide ({part.content_type})")
            part = None
        out.append(part.slide if part is not None and not opened.unreadable(part) else None)
    return out


def extract_pptx(data: bytes, settings: Settings, speaker_notes: bool = True, ocr: OcrRun | None = None) -> Extraction:
    """See `_extract_pptx`; a package that makes the OOXML library itself fail is refused with its error."""
    try:
        return _extract_pptx(data, settings, speaker_notes, ocr)
    except ExtractionError:
        raise
    except Exception as exc:
        refused = library_error("pptx", exc)
        if refused is None:
            raise
        raise refused from exc


class _Deck:
    """One presentation being read: its package, settings, report and blocks so far."""

    def __init__(self, opened: Opened, settings: Settings, report: DocReport, ocr: OcrRun | None) -> None:
        self.opened = opened
        self.office = settings.office
        self.report = report
        self.ocr = ocr
        self.frame = Frame.of(opened.doc, report, settings.office.off_slide_margin)
        self.blocks: list[Block] = []
        self.raw = 0
        self.columns: list[int] = []

    def slide(self, slide, number: int) -> None:
        """The blocks of one slide; a slide that cannot be read adds none (a failed part)."""
        start = len(self.blocks)
        read = read_part(self.report, _name(slide.part), lambda: self._slide(slide, number))
        if read is None:
            del self.blocks[start:]  # what the slide added before it failed
            return
        raw, cols = read
        self.raw += raw
        self.report.columns = max(self.report.columns, cols)
        self.columns.append(cols)

    def _slide(self, slide, number: int) -> tuple[int, int]:
        """Append the slide's blocks; its raw characters and columns."""
        office = self.office
        reader = _SlideReader(slide.part, self.report, number == 1, self.opened, self.frame)
        reader.ocr = self.ocr
        reader.read(slide.shapes._spTree, _positions(slide.shapes))
        raw = reader.raw_chars + sum(count_chars(t.text or "") for t in iter_text_nodes(slide.element, TEXT_TAGS))
        titles = sorted(
            (s for s in reader.shapes if s.role == "title"), key=lambda s: (s.bbox.y0, s.bbox.x0) if s.bbox else (1e9, 0)
        )
        placed = [s for s in reader.shapes if s.role == "body" and s.bbox is not None]
        for s in placed:
            s.inset = office.gutter_text_inset_pt
        body, cols = boxes_to_reading_order(placed, office.gutter_max_cover, office.gutter_min_width_pt,
                                            office.gutter_row_tolerance_pt, office.band_overlap_ratio,
                                            office.columns_max_depth, office.gutter_floor_slack)
        unplaced = [s for s in reader.shapes if s.role == "body" and s.bbox is None]
        chrome = [s for s in reader.shapes if s.role == "chrome"]
        asides = [s for s in reader.shapes if s.role == "aside"]  # alt text and data-less chart captions
        blocks = self.blocks
        start = len(blocks)
        for shape in titles + body + unplaced + asides + chrome:
            for i, (kind, text, level, drop) in enumerate(shape.entries):
                # A chart's caption refers to the table that follows it in the same shape.
                linked = kind == Kind.CAPTION and i + 1 < len(shape.entries) and shape.entries[i + 1][0] == Kind.TABLE
                blocks.append(Block(kind=kind, text=text, page=number, bbox=shape.bbox, level=level, drop_reason=drop,
                                    anchor=len(blocks) + 1 if linked else None))
        place_by_position(blocks, start, reader.pictures, number)
        return raw, cols

    def notes(self, slide, number: int, emit: bool) -> None:
        """The slide's speaker notes as one block (with `emit`; else only flagged); notes that cannot
        be read cost themselves only."""
        read = read_part(self.report, f"{_name(slide.part)} (speaker notes)", lambda: self._notes(slide))
        notes, notes_raw = read or ("", 0)
        if notes and not emit:
            self.report.flag("speaker_notes_omitted")
        elif notes:
            self.raw += notes_raw
            self.blocks.append(Block(kind=Kind.SPEAKER_NOTES, text=notes, page=number))

    def _notes(self, slide) -> tuple[str, int]:
        if not slide.has_notes_slide:
            return "", 0
        part = slide.part.part_related_by(_NOTES_RT)
        if self.opened.unreadable(part):
            return "", 0
        return _notes_text(part.notes_slide.element, self.report, _name(part))

    def comments(self, slide, number: int, authors: dict[str, str]) -> None:
        for author, text in _comments(slide, authors, self.opened, self.report):
            self.raw += count_chars(text)
            self.blocks.append(Block(kind=Kind.COMMENT, text=text, page=number, meta=(("author", author),)))
            self.report.comment_refs += 1


def _extract_pptx(data: bytes, settings: Settings, speaker_notes: bool = True, ocr: OcrRun | None = None) -> Extraction:
    """Blocks of a PPTX in reading order: one page per slide, bboxes in points. Without
    `speaker_notes` the notes are neither emitted nor counted (flag speaker_notes_omitted); with
    `ocr`, picture shapes' text is read and placed among the slide's blocks by position."""
    opened = open_package(data, "pptx", settings.limits)
    prs = opened.doc
    if prs.element.tag != p("presentation"):  # the main part holds something else (a slide's XML)
        root = etree.QName(prs.element).localname
        raise ExtractionError(f"pptx: unreadable package ({_name(prs.part)} is no presentation: its root is <{root}>)")
    report = DocReport(format="pptx")
    opened.to_report(report)
    deck = _Deck(opened, settings, report, ocr)
    authors = _comment_authors(prs, opened, report)
    slides = _slides(prs, opened, report)
    report.pages = len(slides)
    for number, slide in enumerate(slides, start=1):
        if slide is None:
            continue
        deck.slide(slide, number)
        deck.notes(slide, number, speaker_notes)
        deck.comments(slide, number, authors)
    report.raw_chars = deck.raw
    if ocr is not None:
        ocr.to_report(report, deck.raw)
    if report.embedded_objects:
        report.flag("has_embedded_objects")
    return Extraction(blocks=renumber(deck.blocks), report=report, trace={"columns_per_slide": deck.columns})
