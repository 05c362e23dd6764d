"""PPTX backend: python-pptx opens the package, lxml reads each slide's shape tree.

Per slide: title placeholder(s) first, then the other shapes in geometric reading order (the
column logic of `extract.layout`, shared with the PDF path), then slide-number/date/footer placeholders (dropped), SmartArt text with its frame,
speaker notes (one block) and slide comments. One slide is one `page`; bboxes are in points.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field

from lxml import etree

from docclean_assets.extract.model import BBox, Block, DocReport, DropReason, Extraction, Kind, count_chars, renumber
from docclean_assets.extract.office_common import (
    A_NS,
    C_NS,
    M_NS,
    R_NS,
    library_error,
    MC_ALTERNATE,
    alternate_branch,
    check_package,
    extraction_error,
    iter_text_nodes,
    markdown_table,
    parse_xml,
    table_has_text,
    tidy,
)
from docclean_assets.extract.layout import boxes_to_reading_order
from docclean_assets.extract.office_charts import chart_to_data
from docclean_assets.extract.office_math import MATH_ROOTS, omml_to_text
from docclean_assets.extract.ocr import OcrRun
from docclean_assets.extract.ocr_blocks import place_by_position
from docclean_assets.extract.ocr_office import blob_to_picture_text
from docclean_assets.extract.settings import LimitSettings, Settings

P_NS = "http://schemas.openxmlformats.org/presentationml/2006/main"
DGM_NS = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
EMU_PER_POINT = 12700


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


@dataclass(frozen=True)
class _Xf:
    """Child-to-slide transform: X = tx + sx * x (EMU)."""

    sx: float = 1.0
    sy: float = 1.0
    tx: float = 0.0
    ty: float = 0.0

    def then(self, child: _Xf) -> _Xf:
        return _Xf(self.sx * child.sx, self.sy * child.sy, self.tx + self.sx * child.tx, self.ty + self.sy * child.ty)

    def box(self, x: float, y: float, cx: float, cy: float) -> BBox:
        x0, y0 = self.tx + self.sx * x, self.ty + self.sy * y
        x1, y1 = x0 + abs(self.sx) * max(cx, 0), y0 + abs(self.sy) * max(cy, 0)
        return BBox(x0 / EMU_PER_POINT, y0 / EMU_PER_POINT, x1 / EMU_PER_POINT, y1 / EMU_PER_POINT)


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


def _num(value: str | None) -> float:
    try:
        return float(value) if value is not None else 0.0
    except ValueError:
        return 0.0


def _xfrm_box(xfrm: etree._Element | None, xf: _Xf) -> BBox | None:
    if xfrm is None:
        return None
    off, ext = xfrm.find(a("off")), xfrm.find(a("ext"))
    if off is None or ext is None:
        return None
    return xf.box(_num(off.get("x")), _num(off.get("y")), _num(ext.get("cx")), _num(ext.get("cy")))


def _group_xf(grp: etree._Element, xf: _Xf) -> _Xf:
    """The transform of a group's children: chOff/chExt scaled onto the group's off/ext."""
    xfrm = grp.find(f"{p('grpSpPr')}/{a('xfrm')}")
    if xfrm is None:
        return xf
    off, ext, ch_off, ch_ext = (xfrm.find(a(n)) for n in ("off", "ext", "chOff", "chExt"))
    if off is None or ext is None or ch_off is None or ch_ext is None:
        return xf
    ccx, ccy = _num(ch_ext.get("cx")), _num(ch_ext.get("cy"))
    sx = _num(ext.get("cx")) / ccx if ccx else 1.0
    sy = _num(ext.get("cy")) / ccy if ccy else 1.0
    local = _Xf(sx, sy, _num(off.get("x")) - _num(ch_off.get("x")) * sx, _num(off.get("y")) - _num(ch_off.get("y")) * sy)
    return xf.then(local)


def _para_text(para: etree._Element) -> str:
    """Text of one a:p: runs, fields and math, a:br as a newline, one mc branch."""
    out: list[str] = []

    def walk(el: etree._Element) -> None:
        for child in el:
            tag = child.tag
            if tag == A_T or tag == M_T:
                out.append(child.text or "")
            elif tag == A_BR:
                out.append("\n")
            elif tag in MATH_ROOTS:
                out.append(omml_to_text(child))
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


def _placeholder(el: etree._Element) -> etree._Element | None:
    for nv in ("nvSpPr", "nvPicPr", "nvGraphicFramePr", "nvGrpSpPr"):
        ph = el.find(f"{p(nv)}/{p('nvPr')}/{p('ph')}")
        if ph is not None:
            return ph
    return None


def _is_bulleted(para: etree._Element, default: bool) -> bool:
    ppr = para.find(a("pPr"))
    if ppr is not None:
        if ppr.find(a("buNone")) is not None:
            return False
        if any(ppr.find(a(t)) is not None for t in ("buChar", "buAutoNum", "buBlip")):
            return True
        if int(_num(ppr.get("lvl"))) > 0:
            return True
    return default


def _table_rows(tbl: etree._Element) -> list[list[str]]:
    rows: list[list[str]] = []
    for tr in tbl.iter(a("tr")):
        row = []
        for tc in tr.findall(a("tc")):
            text = " ".join(t for t in (" ".join(_para_text(q).split()) for q in tc.iter(a("p"))) if t)
            row.append(text)  # hMerge/vMerge continuation cells are empty: merged text stays in the first
        rows.append(row)
    return rows


class _SlideReader:
    """Shapes of one slide (or notes slide) flattened with their group transforms."""

    def __init__(self, part, report: DocReport, is_first_slide: bool) -> None:
        self.part = part
        self.report = report
        self.first = is_first_slide
        self.shapes: list[_Shape] = []
        self.raw_chars = 0
        self.ocr: OcrRun | None = None  # set to OCR picture shapes
        self.pictures: list[Block] = []  # their OCR'd text, placed by position after reading order

    def read(self, tree: etree._Element, positions: dict, xf: _Xf = _Xf()) -> None:
        for el in tree:
            tag = el.tag
            if tag == MC_ALTERNATE:
                branch = alternate_branch(el)
                if branch is not None:
                    self.read(branch, positions, xf)
            elif tag == p("grpSp"):
                self.read(el, positions, _group_xf(el, xf))
            elif tag == p("sp"):
                self._sp(el, self._box(el, positions, xf, f"{p('spPr')}/{a('xfrm')}"))
            elif tag == p("pic"):
                self.report.picture_shapes += 1
                box = self._box(el, positions, xf, f"{p('spPr')}/{a('xfrm')}")
                self._alt_text(el, box)
                self._ocr_picture(el, box)
            elif tag == p("graphicFrame"):
                self._frame(el, self._box(el, positions, xf, p("xfrm")))

    @staticmethod
    def _box(el, positions: dict, xf: _Xf, path: str) -> BBox | None:
        box = _xfrm_box(el.find(path), xf)
        if box is None and el in positions:  # placeholder inheriting its position from the layout
            box = positions[el]
        return box

    def _sp(self, el: etree._Element, box: BBox | None) -> None:
        if el.find(f"{p('spPr')}/{a('blipFill')}") is not None:
            self.report.picture_shapes += 1
        body = el.find(p("txBody"))
        if body is None:
            return
        paras = [(q, tidy(_para_text(q))) for q in body.findall(a("p"))]
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
            if _is_bulleted(q, default_bullet):
                ppr = q.find(a("pPr"))
                lvl = int(_num(ppr.get("lvl"))) if ppr is not None else 0
                entries.append((Kind.LIST_ITEM, t, lvl + 1, None))
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
            rows = _table_rows(tbl) if tbl is not None else []
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
        """The text OCR reads in a picture shape's image, as an image_text block with the shape's slide box."""
        if self.ocr is None:
            return
        blip = el.find(f"{p('blipFill')}/{a('blip')}")
        rid = blip.get(f"{{{R_NS}}}embed") if blip is not None else None
        try:
            blob = self.part.related_part(rid).blob if rid else None
        except Exception:  # a missing image part: nothing to read
            blob = None
        found = blob_to_picture_text(blob, self.ocr, box) if blob else None
        if found is not None:
            self.pictures.append(Block(kind=Kind.IMAGE_TEXT, text=found.text, bbox=found.bbox or box, meta=found.meta()))

    def _chart(self, data: etree._Element, box: BBox | None) -> None:
        """A chart's data as a caption and a Markdown table placed with the body shapes (only a
        caption, as image text, when the chart caches no data)."""
        chart = data.find(f"{{{_GRAPHIC_CHART}}}chart")
        rid = chart.get(f"{{{R_NS}}}id") if chart is not None else None
        if not rid:
            return
        try:
            chart_data = chart_to_data(parse_xml(self.part.related_part(rid).blob))
        except Exception:  # a missing chart part loses only the chart's text
            self.report.unresolved_regions += 1
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
        try:
            root = parse_xml(self.part.related_part(rid).blob)
        except Exception:  # a missing or broken diagram part loses only the diagram's text
            self.report.unresolved_regions += 1
            return
        self.raw_chars += sum(count_chars(t.text or "") for t in iter_text_nodes(root, TEXT_TAGS))
        entries = []
        for pt in root.iter(f"{{{DGM_NS}}}pt"):
            if pt.get("type", "node") != "node":
                continue
            for q in pt.iter(a("p")):
                t = tidy(_para_text(q))
                if t:
                    entries.append((Kind.PARAGRAPH, t, None, None))
        if entries:
            self.shapes.append(_Shape(box, entries))


def _open(data: bytes, limits: LimitSettings):
    check_package(data, "pptx", limits)
    try:
        import pptx  # python-pptx

        return pptx.Presentation(io.BytesIO(data))
    except Exception as exc:  # python-pptx raises many types for a broken package
        raise extraction_error(f"pptx: unreadable package ({type(exc).__name__}: {exc})") from exc


def _positions(shapes) -> dict:
    """Element -> bbox for top-level shapes, with placeholder positions inherited from the layout."""
    out = {}
    for shape in shapes:
        try:
            left, top, width, height = shape.left, shape.top, shape.width, shape.height
        except Exception:  # an unresolvable placeholder simply has no position
            continue
        if None in (left, top, width, height):
            continue
        out[shape._element] = _Xf().box(left, top, width, height)
    return out


def _notes_text(slide) -> tuple[str, int]:
    """Speaker notes of a slide (body text only) and the raw characters of the notes slide."""
    if not slide.has_notes_slide:
        return "", 0
    notes = slide.notes_slide.element
    raw = sum(count_chars(t.text or "") for t in iter_text_nodes(notes, TEXT_TAGS))
    lines = []
    for sp in notes.iter(p("sp")):
        ph = _placeholder(sp)
        if ph is not None and ph.get("type") in _NOTES_SKIP_TYPES:
            continue
        body = sp.find(p("txBody"))
        if body is None:
            continue
        lines += [_para_text(q) for q in body.findall(a("p"))]
    return tidy("\n".join(lines)), raw


def _comment_authors(prs) -> dict[str, str]:
    authors: dict[str, str] = {}
    for rel in prs.part.rels.values():
        if rel.is_external or not rel.reltype.lower().endswith(("commentauthors", "/authors")):
            continue
        try:
            root = parse_xml(rel.target_part.blob)
        except Exception:
            continue
        for el in root.iter():
            if isinstance(el.tag, str) and el.tag.rsplit("}", 1)[-1] in ("cmAuthor", "author") and el.get("id"):
                authors[el.get("id")] = el.get("name", "")
    return authors


def _comments(slide, authors: dict[str, str]) -> list[tuple[str, str]]:
    """(author, text) of the legacy and modern comments of a slide."""
    out = []
    for rel in slide.part.rels.values():
        if rel.is_external or not rel.reltype.endswith("/comments"):
            continue
        try:
            root = parse_xml(rel.target_part.blob)
        except Exception:
            continue
        for cm in root.iter():
            if not isinstance(cm.tag, str) or cm.tag.rsplit("}", 1)[-1] != "cm":
                continue
            legacy = cm.find(p("text"))
            if legacy is not None:
                text = legacy.text or ""
            else:
                text = "\n".join(_para_text(q) for q in cm.iter(a("p")))
            text = tidy(text)
            if text:
                out.append((authors.get(cm.get("authorId", ""), ""), text))
    return out


def extract_pptx(data: bytes, settings: Settings, speaker_notes: bool = True, ocr: OcrRun | None = None) -> Extraction:
    """See `_extract_pptx`; a package that makes the OOXML library itself fail is refused with its error."""
    from docclean_assets.extract.api import ExtractionError

    try:
        return _extract_pptx(data, settings, speaker_notes, ocr)
    except ExtractionError:
        raise
    except Exception as exc:
        refused = library_error("pptx", exc)
        if refused is None:
            raise
        raise refused from exc


def _extract_pptx(data: bytes, settings: Settings, speaker_notes: bool = True, ocr: OcrRun | None = None) -> Extraction:
    """Blocks of a PPTX in reading order: one page per slide, bboxes in points. Without
    `speaker_notes` the notes are neither emitted nor counted (flag speaker_notes_omitted); with
    `ocr`, picture shapes' text is read and placed among the slide's blocks by position."""
    office = settings.office
    prs = _open(data, settings.limits)
    report = DocReport(format="pptx")
    authors = _comment_authors(prs)
    blocks: list[Block] = []
    raw = 0
    trace: dict[str, object] = {"columns_per_slide": []}
    slides = list(prs.slides)
    report.pages = len(slides)
    for number, slide in enumerate(slides, start=1):
        reader = _SlideReader(slide.part, report, number == 1)
        reader.ocr = ocr
        tree = slide.shapes._spTree
        reader.read(tree, _positions(slide.shapes))
        raw += reader.raw_chars + sum(count_chars(t.text or "") for t in iter_text_nodes(slide.element, TEXT_TAGS))
        titles = sorted(
            (s for s in reader.shapes if s.role == "title"), key=lambda s: (s.bbox.y0, s.bbox.x0) if s.bbox else (1e9, 0)
        )
        placed = [s for s in reader.shapes if s.role == "body" and s.bbox is not None]
        for s in placed:
            s.inset = office.gutter_text_inset_pt
        body, cols = boxes_to_reading_order(placed, office.gutter_max_cover, office.gutter_min_width_pt,
                                            office.gutter_row_tolerance_pt, office.band_overlap_ratio)
        report.columns = max(report.columns, cols)
        trace["columns_per_slide"].append(cols)  # type: ignore[union-attr]
        unplaced = [s for s in reader.shapes if s.role == "body" and s.bbox is None]
        chrome = [s for s in reader.shapes if s.role == "chrome"]
        asides = [s for s in reader.shapes if s.role == "aside"]  # alt text and data-less chart captions
        start = len(blocks)
        for shape in titles + body + unplaced + asides + chrome:
            for i, (kind, text, level, drop) in enumerate(shape.entries):
                # A chart's caption refers to the table that follows it in the same shape.
                linked = kind == Kind.CAPTION and i + 1 < len(shape.entries) and shape.entries[i + 1][0] == Kind.TABLE
                blocks.append(Block(kind=kind, text=text, page=number, bbox=shape.bbox, level=level, drop_reason=drop,
                                    anchor=len(blocks) + 1 if linked else None))
        place_by_position(blocks, start, reader.pictures, number)
        notes, notes_raw = _notes_text(slide)
        if notes and not speaker_notes:
            report.flag("speaker_notes_omitted")
        elif notes:
            raw += notes_raw
            blocks.append(Block(kind=Kind.SPEAKER_NOTES, text=notes, page=number))
        for author, text in _comments(slide, authors):
            raw += count_chars(text)
            blocks.append(Block(kind=Kind.COMMENT, text=text, page=number, meta=(("author", author),)))
            report.comment_refs += 1
    report.raw_chars = raw
    if ocr is not None:
        ocr.to_report(report, raw)
    if report.embedded_objects:
        report.flag("has_embedded_objects")
    return Extraction(blocks=renumber(blocks), report=report, trace=trace)
